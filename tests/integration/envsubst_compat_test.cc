// SPDX-License-Identifier: Apache-2.0
// Differential test against GNU envsubst: on templates with no YAML hazards and
// every variable declared and set, `safesubst 'SHELL-FORMAT'` must write
// exactly what `envsubst 'SHELL-FORMAT'` writes.
#include <doctest/doctest.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <string>
#include <vector>

#include "tokenizer.h"
#include "test_support.h"

using namespace safesubst::testing;

namespace {

constexpr const char* kShellFormat =
    "${TENANT_ID} ${NAMESPACE} ${REGISTRY} ${IMAGE_TAG} ${REGION} ${DOMAIN} ${REPLICAS} ${PORT} ${DEBUG}";
constexpr const char* kEnvironment =
    "TENANT_ID=tenant-a NAMESPACE=tenants REGISTRY=registry.example.com/team IMAGE_TAG=v1.2.3-rc1 "
    "REGION=ap-northeast-2 DOMAIN=example.com REPLICAS=3 PORT=8080 DEBUG=false";

}  // namespace

TEST_CASE("envsubst compatibility: byte-identical output on hazard-free templates") {
  if (!HaveProgram("envsubst")) {
    FAIL("GNU envsubst (package gettext-base) is not installed; .ci/run installs it");
  }
  std::vector<std::filesystem::path> templates;
  for (const auto& entry : std::filesystem::directory_iterator(SourceDir() / "tests/data/envsubst")) {
    templates.push_back(entry.path());
  }
  std::sort(templates.begin(), templates.end());
  REQUIRE(templates.size() >= 3);
  for (const auto& path : templates) {
    CAPTURE(path.string());
    std::string input = ReadFile(path);
    std::string format = ShellQuote(kShellFormat);
    CommandResult expected = RunShell(std::string("env -i ") + kEnvironment + " envsubst " + format, input);
    CommandResult actual = RunShell(std::string("env -i ") + kEnvironment + " " + Safesubst() + " " + format, input);
    REQUIRE(expected.code == 0);
    CHECK(actual.code == 0);
    CHECK(actual.err == "");
    CHECK(actual.out == expected.out);
    CHECK(actual.out != input);  // something was substituted
  }
}

namespace {

// Every template of the repository's tests and examples but the malformed
// inputs (tests/data/bad-input, and any other the tokenizer refuses: an
// unterminated `${` or flow sequence, which every mode refuses by design).
std::vector<std::filesystem::path> AllTestTemplates() {
  std::vector<std::filesystem::path> templates;
  for (const char* root : {"tests/data", "tests/golden", "examples"}) {
    for (const auto& entry : std::filesystem::recursive_directory_iterator(SourceDir() / root)) {
      const std::string path = entry.path().string();
      const bool yaml = entry.path().extension() == ".yaml" || entry.path().extension() == ".yml";
      if (!entry.is_regular_file() || !yaml || path.find("/bad-input/") != std::string::npos) continue;
      if (safesubst::HasErrors(safesubst::Tokenize(ReadFile(entry.path())).diagnostics)) continue;
      templates.push_back(entry.path());
    }
  }
  std::sort(templates.begin(), templates.end());
  return templates;
}

// Where GNU envsubst damages a template that safesubst renders as meant:
// `$${X}` (the Flux/clusterctl escape for a literal `${X}`, which envsubst
// leaves as `$$` and a substitution), a listed name in a form envsubst does
// not know (`${NAME:-x}`, `${NAME%.*}`: left as shell syntax), or in a
// comment (which safesubst never rewrites, SPEC Rule 2).
std::string EnvsubstDamage(const std::string& text, const std::vector<std::string>& names) {
  if (text.find("$${") != std::string::npos) return "$${...} escape";
  for (const safesubst::Reference& reference : safesubst::Tokenize(text).references) {
    const bool listed = std::find(names.begin(), names.end(), reference.name) != names.end();
    if (listed && reference.context == safesubst::ContextClass::kComment) return "a listed name in a comment";
  }
  for (const std::string& name : names) {
    const std::string open = "${" + name;
    for (std::size_t at = text.find(open); at != std::string::npos; at = text.find(open, at + 1)) {
      const char next = at + open.size() < text.size() ? text[at + open.size()] : '\0';
      if (next != '}' && (std::isalnum(static_cast<unsigned char>(next)) == 0 && next != '_')) {
        return "a form of ${" + name + "} envsubst does not know";
      }
    }
  }
  return {};
}

}  // namespace

// Issue 26 item 4: `safesubst '${NAMESPACE}'` is a drop-in for
// `envsubst '${NAMESPACE}'`: every other `${X}` is kept as envsubst keeps it
// (with a warning), on every template of the repository.
TEST_CASE("envsubst compatibility: SHELL-FORMAT keeps every other reference as envsubst does, on every test template") {
  if (!HaveProgram("envsubst")) {
    FAIL("GNU envsubst (package gettext-base) is not installed; .ci/run installs it");
  }
  // One name most templates do not use, and names they use in data and in
  // scripts, set to values that read the same everywhere.
  struct Format {
    std::vector<std::string> names;
    std::string environment;
  };
  const Format formats[] = {
      {{"NAMESPACE"}, "NAMESPACE=tenants"},
      {{"TENANT_ID", "APP", "IMAGE_TAG"}, "TENANT_ID=tenant-a APP=web IMAGE_TAG=v1.2.3"},
  };
  for (const Format& format : formats) {
    std::string shell_format;
    for (const std::string& name : format.names) shell_format += "${" + name + "} ";
    const std::string run = " " + ShellQuote(shell_format);
    std::size_t compared = 0, damaged = 0;
    for (const auto& path : AllTestTemplates()) {
      CAPTURE(path.string());
      CAPTURE(shell_format);
      const std::string input = ReadFile(path);
      if (!EnvsubstDamage(input, format.names).empty()) {
        ++damaged;
        continue;
      }
      CommandResult expected = RunShell("env -i " + format.environment + " envsubst" + run, input);
      CommandResult actual = RunShell("env -i " + format.environment + " " + Safesubst() + run, input);
      REQUIRE(expected.code == 0);
      CHECK_MESSAGE(actual.code == 0, actual.err);
      CHECK(actual.out == expected.out);
      ++compared;
    }
    MESSAGE("'" << shell_format << "': " << compared << " templates byte-identical to envsubst, " << damaged
                << " that envsubst damages left out");
    CHECK(compared >= 100);
    CHECK(damaged < compared / 4);
  }
  const std::string format = ShellQuote("${NAMESPACE}");
  const std::string environment = "env -i NAMESPACE=tenants ";
  // A kept reference is a warning; --strict makes it an error.
  const std::string kept = "a: ${NAMESPACE}\nb: ${OTHER}\n";
  CommandResult warned = RunShell(environment + Safesubst() + " " + format, kept);
  CHECK(warned.code == 0);
  CHECK(warned.out == "a: tenants\nb: ${OTHER}\n");
  CHECK(warned.err.find("warning: undeclared variable 'OTHER' kept as written") != std::string::npos);
  CommandResult strict = RunShell(environment + Safesubst() + " --strict " + format, kept);
  CHECK(strict.code == 1);
  CHECK(strict.out.empty());
  CHECK(strict.err.find("error: undeclared variable 'OTHER' in a data context") != std::string::npos);
}
