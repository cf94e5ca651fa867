// SPDX-License-Identifier: Apache-2.0
#include "scalar_crosscheck.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "tokenizer.h"

namespace safesubst {
namespace {

namespace fs = std::filesystem;

std::string ReadText(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

// Every *.yaml file under `directory`, sorted (none when it does not exist).
std::vector<fs::path> YamlFilesUnder(const fs::path& directory) {
  std::vector<fs::path> files;
  std::error_code error;
  if (!fs::is_directory(directory, error)) return files;
  for (const auto& entry : fs::recursive_directory_iterator(directory)) {
    if (entry.is_regular_file() && entry.path().extension() == ".yaml") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

void CheckFile(const fs::path& path) {
  const std::string text = ReadText(path);
  CAPTURE(path.string());
  const std::vector<std::string> mismatches = CrossCheckScalars(text);
  for (const std::string& mismatch : mismatches) CHECK_MESSAGE(false, mismatch);
  CHECK(mismatches.empty());
}

TEST_CASE("crosscheck: the tokenizer reads the Kubernetes manifests of tests/data/k8s as yaml-cpp does") {
  const std::vector<fs::path> files = YamlFilesUnder(fs::path(SAFESUBST_SOURCE_DIR) / "tests/data/k8s");
  // Deployment, ConfigMap (nginx.conf, shell), CronJob, Istio, StatefulSet,
  // multi-document stream, CRLF + BOM.
  REQUIRE(files.size() >= 7);
  std::size_t scalars = 0;
  for (const fs::path& path : files) {
    CheckFile(path);
    scalars += Tokenize(ReadText(path)).scalars.size();
  }
  CHECK(scalars > 500);  // the check compared a real amount of YAML
}

TEST_CASE("crosscheck: every examples/**/*.yaml reads the same with yaml-cpp") {
  const std::vector<fs::path> files = YamlFilesUnder(fs::path(SAFESUBST_SOURCE_DIR) / "examples");
  MESSAGE("cross-checking " << files.size() << " example files");
  for (const fs::path& path : files) CheckFile(path);
}

TEST_CASE("crosscheck: the Kubernetes data has the contexts the renderer relies on") {
  const fs::path directory = fs::path(SAFESUBST_SOURCE_DIR) / "tests/data/k8s";
  const std::string text = ReadText(directory / "deployment-efs-wrapper.yaml");
  const Tokens tokens = Tokenize(text);
  std::size_t script = 0, data = 0, comment = 0;
  for (const Reference& reference : tokens.references) {
    if (reference.context == ContextClass::kScript) ++script;
    if (reference.context == ContextClass::kData) ++data;
    if (reference.context == ContextClass::kComment) ++comment;
  }
  CHECK(script >= 10);  // the wrapper in `args: - |`
  CHECK(data >= 8);     // names, labels, image, nfs server
  CHECK(comment == 0);
  for (const Reference& reference : tokens.references) {
    if (reference.name == "NODE_IP" && reference.kind == RefKind::kBare) {
      CHECK(reference.context == ContextClass::kScript);
      CHECK(tokens.PathString(tokens.scalars[reference.scalar].path) == "spec.template.spec.containers[0].args[0]");
    }
  }
}

TEST_CASE("crosscheck: mismatches are reported") {
  // yaml-cpp rejects this text: the check says so instead of passing.
  CHECK_FALSE(CrossCheckScalars("a: [b\n").empty());
  // Agreement on small samples of each style.
  CHECK(CrossCheckScalars("a: 1\nb: 'x'\nc: \"y\\tz\"\nd: |\n  l\ne: >-\n  f\n  g\nf:\ng: ~\n").empty());
  CHECK(CrossCheckScalars("- [a, {b: c}]\n- &x v\n- *x\n").empty());
}

}  // namespace
}  // namespace safesubst
