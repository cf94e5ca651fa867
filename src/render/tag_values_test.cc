// SPDX-License-Identifier: Apache-2.0
#include "tag_values.h"

#include <doctest/doctest.h>

#include <string>

#include "safesubst/render.h"

namespace safesubst {
namespace {

Diagnostics Check(const std::string& text) {
  Result<Manifest> manifest = ParseManifest("variables:\n  V: {default: x}\n", "m.yaml");
  REQUIRE(manifest.ok());
  return CheckNoValuesInTags(text, Tokenize(text, TokenizerOptions{"t.yaml"}), *manifest.value, "t.yaml");
}

TEST_CASE("CheckNoValuesInTags: a declared reference in a verbatim tag or a %TAG directive is a located error") {
  Diagnostics verbatim = Check("a: 1\nb: !<tag:example.com,2000:${V}> c\n");
  REQUIRE(verbatim.size() == 1);
  CHECK(verbatim[0].severity == Severity::kError);
  CHECK(verbatim[0].location.line == 2);
  CHECK(verbatim[0].location.column == 27);
  CHECK(verbatim[0].message == "'${V}' is in a verbatim tag, where no value is substituted");

  Diagnostics directive = Check("%TAG !e! tag:$V,2000:\n---\na: !e!x b\n");
  REQUIRE(directive.size() == 1);
  CHECK(directive[0].location.line == 1);
  CHECK(directive[0].location.column == 14);
  CHECK(directive[0].message == "'$V' is in a %TAG directive, where no value is substituted");

  CHECK(Check("a: !<tag:${V:-x}> b\n").size() == 1);
}

TEST_CASE("CheckNoValuesInTags: a render with a declared reference in a tag fails, nothing kept") {
  Result<Manifest> manifest = ParseManifest("variables:\n  V: {default: x}\n", "m.yaml");
  REQUIRE(manifest.ok());
  Result<ValueSet> values = CollectValues(*manifest.value, ValueInputs{});
  REQUIRE(values.ok());
  RenderOptions options;
  options.file_name = "t.yaml";
  for (const std::string text : {"a: !<tag:${V}> b\n", "%TAG !e! tag:${V},2000:\n---\na: !e!x b\n"}) {
    CAPTURE(text);
    RenderResult result = Render(text, *manifest.value, *values.value, options);
    CHECK_FALSE(result.ok());
    CHECK(result.output.empty());
    REQUIRE_FALSE(result.diagnostics.empty());
    CHECK(result.diagnostics[0].message.find("where no value is substituted") != std::string::npos);
  }
}

TEST_CASE("CheckNoValuesInTags: undeclared names, scalars and comments are left alone") {
  CHECK(Check("a: !<tag:${OTHER}> b\n").empty());
  CHECK(Check("a: \"!<tag:${V}>\"\nb: |\n  !<${V}>\n# !<${V}>\n").empty());
  CHECK(Check("%YAML 1.2\n---\na: ${V}\n").empty());
}

}  // namespace
}  // namespace safesubst
