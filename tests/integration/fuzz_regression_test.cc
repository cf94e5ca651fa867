// SPDX-License-Identifier: Apache-2.0
// Replays what fuzzing found (tests/regression/<target>/*) through the same
// entry points as the libFuzzer targets (fuzz/entry_points.h): every input
// must run to the end with every property holding and no exception.
//
// tests/regression/pending/<target>/* are reproducers of bugs reported but not
// fixed yet; they are listed, not run (they would crash or hang the test
// binary). Move one up a level when its bug is fixed.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "../../fuzz/entry_points.h"
#include "safesubst/manifest.h"
#include "safesubst/render.h"
#include "safesubst/values.h"
#include "yaml_encoding.h"
#include "yaml_node_writer.h"
#include "test_support.h"
#include "validate.h"

using namespace safesubst;
using namespace safesubst::testing;

namespace {

std::filesystem::path RegressionDir() { return SourceDir() / "tests/regression"; }

std::vector<std::filesystem::path> FilesIn(const std::filesystem::path& directory) {
  std::vector<std::filesystem::path> files;
  if (!std::filesystem::is_directory(directory)) return files;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(directory)) {
    if (entry.is_regular_file()) files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

void FailProperty(const char* what, const char* file, int line) {
  std::string message = std::string("fuzz property failed: ") + what;
  ADD_FAIL_CHECK_AT(file, line, message);
}

// Runs `target` on `text` with property failures reported as failed checks.
void Replay(const fuzz::Target& target, const std::string& text) {
  fuzz::PropertyHandler previous = fuzz::property_handler;
  fuzz::property_handler = &FailProperty;
  CHECK_NOTHROW(target.run(text));
  fuzz::property_handler = previous;
}

}  // namespace

TEST_CASE("fuzz regressions: every saved input replays cleanly through its target") {
  std::size_t replayed = 0;
  for (const fuzz::Target& target : fuzz::kTargets) {
    for (const std::filesystem::path& file : FilesIn(RegressionDir() / target.name)) {
      CAPTURE(file.string());
      Replay(target, ReadFile(file));
      ++replayed;
    }
  }
  MESSAGE("replayed " << replayed << " fuzz regression inputs");
  CHECK(replayed > 0);
}

TEST_CASE("fuzz regressions: every directory names a target, pending ones are listed") {
  for (const auto& entry : std::filesystem::directory_iterator(RegressionDir())) {
    std::string name = entry.path().filename().string();
    if (name == "pending" || name == "README.md") continue;
    bool known = std::any_of(std::begin(fuzz::kTargets), std::end(fuzz::kTargets),
                             [&name](const fuzz::Target& target) { return name == target.name; });
    CHECK_MESSAGE(known, "tests/regression/" << name << " is not a fuzz target: its files would never run");
  }
  for (const std::filesystem::path& file : FilesIn(RegressionDir() / "pending")) {
    MESSAGE("not replayed, bug not fixed yet: " << std::filesystem::relative(file, SourceDir()).string());
  }
}

TEST_CASE("fuzz regressions: the target entry points hold on ordinary inputs too") {
  // A property that fails on everything would make the fuzzers useless: the
  // seeds the corpus starts from must pass.
  std::string deployment = ReadFile(SourceDir() / "examples/efs-zone/apps/mo-back.yaml");
  REQUIRE_FALSE(deployment.empty());
  for (const fuzz::Target& target : fuzz::kTargets) {
    CAPTURE(target.name);
    Replay(target, deployment);
  }
}

// yaml-cpp 0.7's LoadAll never returns on a document starting with `,`
// (found by the manifest target; the CLI hung on `-m` and `--values`).
TEST_CASE("fuzz regressions: a runaway YAML document is an error in manifests and values files") {
  for (std::string text : {",\n", "a: 1\n---\n,\n", ",safe: x\n"}) {
    CAPTURE(text);
    Result<Manifest> manifest = ParseManifest(text, "vars.yaml");
    CHECK_FALSE(manifest.value.has_value());
    REQUIRE(HasErrors(manifest.diagnostics));
    CHECK(manifest.diagnostics[0].message.find("cannot start a node") != std::string::npos);
    CHECK(manifest.diagnostics[0].location.line >= 1);

    auto values = ParseValuesText(text, "values.yaml");
    CHECK_FALSE(values.value.has_value());
    REQUIRE(HasErrors(values.diagnostics));
    CHECK(values.diagnostics[0].message.find("cannot start a node") != std::string::npos);
  }
  Result<Manifest> second = ParseManifest("variables: {A: string}\n---\n,\n", "vars.yaml");
  REQUIRE(HasErrors(second.diagnostics));
  CHECK(second.diagnostics[0].location.line == 3);
}

// The same yaml-cpp loop behind the structure check's and the `type: yaml`
// encoder's parser (yaml_tree.cc) and the `type: yaml` value check
// (validate.cc): found by the render target, `render --full-check` on `|`,
// an empty line and `,` hung, and so did a `type: yaml` value of that text.
// As a template it is valid YAML (a root block scalar holding "\n,"), which
// yaml-cpp cannot read: rendered, with a warning that says so (issue 28 item 4).
TEST_CASE("fuzz regressions: a runaway YAML document is an error for the tree parser and yaml values") {
  const std::string runaway = "|\n\n,";
  RenderOptions options;
  options.file_name = "t.yaml";
  options.full_structure_check = true;
  RenderResult rendered = Render(runaway, Manifest{}, ValueSet{}, options);
  CHECK(rendered.ok());
  CHECK(rendered.output == runaway);
  bool located = false;
  for (const Diagnostic& diagnostic : rendered.diagnostics) {
    located = located || (diagnostic.severity == Severity::kWarning &&
                          diagnostic.message.find("cannot start a node") != std::string::npos &&
                          diagnostic.location.line == 3);
  }
  CHECK(located);

  Variable yaml_variable;
  yaml_variable.name = "Y";
  yaml_variable.type = VarType::kYaml;
  CHECK(ValidateValue(yaml_variable, runaway).find("not valid YAML") != std::string::npos);
  CHECK(ValidateValue(yaml_variable, "{a: [1, 2]}").empty());
  std::string encoded;
  YamlValueError error;
  CHECK_FALSE(EncodeYamlNode(runaway, 0, true, std::size_t{1} << 20, &encoded, &error));
  CHECK(error.message.find("cannot start a node") != std::string::npos);
  CHECK(error.kind == YamlValueError::Kind::kInvalid);
}
