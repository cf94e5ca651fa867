// Differential test against GNU envsubst: on templates with no YAML hazards and
// every variable declared and set, `safesubst 'SHELL-FORMAT'` must write
// exactly what `envsubst 'SHELL-FORMAT'` writes.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

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
