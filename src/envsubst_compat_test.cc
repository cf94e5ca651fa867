// Differential test against GNU envsubst: on templates with no YAML hazards and
// every variable declared and set, `safesubst 'SHELL-FORMAT'` must write
// exactly what `envsubst 'SHELL-FORMAT'` writes.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "safesubst/tokenizer.h"
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
// leaves as `$$` and a substitution), or NAMESPACE in a form envsubst does
// not know (`${NAMESPACE:-x}`, `${NAMESPACE%.*}`: left as shell syntax).
std::string EnvsubstDamage(const std::string& text) {
  if (text.find("$${") != std::string::npos) return "$${...} escape";
  for (std::size_t at = text.find("${NAMESPACE"); at != std::string::npos; at = text.find("${NAMESPACE", at + 1)) {
    if (text.compare(at, 12, "${NAMESPACE}") != 0) return "a form of ${NAMESPACE} envsubst does not know";
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
  const std::string format = ShellQuote("${NAMESPACE}");
  const std::string environment = "env -i NAMESPACE=tenants ";
  std::size_t compared = 0, damaged = 0;
  for (const auto& path : AllTestTemplates()) {
    CAPTURE(path.string());
    const std::string input = ReadFile(path);
    if (!EnvsubstDamage(input).empty()) {
      ++damaged;
      continue;
    }
    CommandResult expected = RunShell(environment + "envsubst " + format, input);
    CommandResult actual = RunShell(environment + Safesubst() + " " + format, input);
    REQUIRE(expected.code == 0);
    CHECK_MESSAGE(actual.code == 0, actual.err);
    CHECK(actual.out == expected.out);
    ++compared;
  }
  CHECK(compared >= 100);
  CHECK(damaged < compared / 4);
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
