// SPDX-License-Identifier: Apache-2.0
#include "default_references.h"

#include <doctest/doctest.h>

#include <string>

#include "safesubst/manifest.h"
#include "safesubst/values.h"

namespace safesubst {
namespace {

Result<ValueSet> Collect(std::string_view manifest_text, std::vector<std::string> sets) {
  Result<Manifest> manifest = ParseManifest(manifest_text, "m.yaml");
  REQUIRE_MESSAGE(manifest.ok(), (manifest.diagnostics.empty() ? "" : manifest.diagnostics[0].message));
  ValueInputs inputs;
  inputs.sets = std::move(sets);
  return CollectValues(*manifest.value, inputs);
}

std::string ValueOf(const Result<ValueSet>& values, std::string_view name) {
  REQUIRE(values.value);
  const Value* value = values.value->Find(name);
  return value == nullptr ? "<none>" : value->text;
}

// Issue 26 item 2: `default: "${CLUSTER_NAME}-vnet"` rendered that text literally.
TEST_CASE("default references: a default names other variables, expanded from their final values") {
  constexpr std::string_view kManifest =
      "variables:\n"
      "  CLUSTER_NAME: {type: dns-label, default: dev}\n"
      "  VNET: {type: string, default: \"${CLUSTER_NAME}-vnet\"}\n"
      "  SUBNET: {type: string, default: \"${VNET}/${REGION}, $${LITERAL} $HOME\"}\n"
      "  REGION: {type: string, default: eu}\n";
  Result<ValueSet> defaults = Collect(kManifest, {});
  CHECK(defaults.ok());
  CHECK(ValueOf(defaults, "VNET") == "dev-vnet");
  CHECK(ValueOf(defaults, "SUBNET") == "dev-vnet/eu, ${LITERAL} $HOME");
  Result<ValueSet> set = Collect(kManifest, {"CLUSTER_NAME=prod", "VNET=given"});
  CHECK(ValueOf(set, "VNET") == "given");  // a value given wins over the default
  CHECK(ValueOf(set, "SUBNET") == "given/eu, ${LITERAL} $HOME");
  // The expansion is validated against its own declaration.
  Result<ValueSet> invalid = Collect(
      "variables:\n  A: string\n  B:\n    type: dns-label\n    default: \"${A}-b\"\n", {"A=Not_A_Label"});
  CHECK_FALSE(invalid.ok());
}

TEST_CASE("default references: a named variable without a value is an error at the default") {
  Result<ValueSet> values = Collect("variables:\n  A: string\n  B: {type: string, default: \"${A}-b\"}\n", {});
  REQUIRE_FALSE(values.ok());
  REQUIRE(values.diagnostics.size() == 1);
  CHECK(values.diagnostics[0].message == "the default of 'B' names 'A', which has no value");
  CHECK(values.diagnostics[0].location.line == 3);
  CHECK(values.value->Find("B") == nullptr);
}

TEST_CASE("default references: cycles, undeclared names, other forms and sensitive values are manifest errors") {
  struct Case {
    std::string_view manifest, message;
    std::uint32_t line;
  };
  const Case cases[] = {
      {"variables:\n  A: {default: \"${B}\"}\n  B: {default: \"x${C}\"}\n  C: {default: \"${A}\"}\n",
       "the default of 'C' names 'A', whose default leads back to it", 4},
      {"variables:\n  A: {default: \"${A}\"}\n", "the default of 'A' names 'A', whose default leads back to it", 2},
      {"variables:\n  A: {default: \"${NOPE}\"}\n", "the default of 'A' names 'NOPE', which is not declared", 2},
      {"variables:\n  A: {default: \"${R}\"}\nruntime: [R]\n", "the default of 'A' names 'R', which is not declared", 2},
      {"variables:\n  A: {default: \"${B:-x}\"}\n  B: string\n",
       "the default of 'A' has ${B:-x}; a default expands only ${NAME}", 2},
      {"variables:\n  A: {default: \"${B%.*}\"}\n  B: string\n",
       "the default of 'A' has ${B%.*}; a default expands only ${NAME}", 2},
      {"variables:\n  A: {default: \"${B\"}\n  B: string\n", "the default of 'A' has a `${` without its `}`", 2},
      {"variables:\n  A: {default: \"${PW}\"}\n  PW: {sensitive: true}\n",
       "the default of 'A' names the sensitive variable 'PW', but 'A' is not sensitive", 2},
      {"variables:\n  A: {type: yaml, default: \"${B}\"}\n  B: string\n",
       "the default of 'A' names another variable, which a `type: yaml` default cannot", 2},
  };
  for (const Case& c : cases) {
    CAPTURE(c.manifest);
    Result<Manifest> manifest = ParseManifest(c.manifest, "m.yaml");
    CHECK_FALSE(manifest.ok());
    REQUIRE(manifest.diagnostics.size() == 1);
    CHECK(manifest.diagnostics[0].message == c.message);
    CHECK(manifest.diagnostics[0].location.file == "m.yaml");
    CHECK(manifest.diagnostics[0].location.line == c.line);
  }
  // A sensitive default may name a sensitive variable.
  CHECK(ParseManifest("variables:\n  A: {sensitive: true, default: \"${PW}x\"}\n  PW: {sensitive: true}\n", "m.yaml")
            .ok());
}

}  // namespace
}  // namespace safesubst
