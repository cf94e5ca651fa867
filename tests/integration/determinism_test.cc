// SPDX-License-Identifier: Apache-2.0
// Determinism: the same inputs give the same bytes, whether rendered by the
// library twice, by the command twice, or in batch mode with any number of jobs.
// A deploy pipeline diffs rendered manifests; a difference that comes from
// the renderer instead of the inputs would be noise at best, a redeploy at worst.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "safesubst/manifest.h"
#include "safesubst/render.h"
#include "safesubst/values.h"
#include "test_support.h"

namespace fs = std::filesystem;
using namespace safesubst;
using namespace safesubst::testing;

namespace {

const fs::path kEfsZone = SourceDir() / "examples/efs-zone";

// Everything a render produced, flattened to compare runs byte for byte.
std::string Fingerprint(const RenderResult& result, std::string_view source) {
  std::string text = "output:\n" + result.output + "\ndiagnostics:\n";
  for (const Diagnostic& diagnostic : result.diagnostics) text += FormatDiagnostic(diagnostic, source, false);
  text += "references:\n";
  for (const ReferenceReport& report : result.references) {
    text += report.text + "|" + report.name + "|" + std::to_string(report.line) + ":" +
            std::to_string(report.column) + "|" + std::string(ContextName(report.context)) + "|" + report.path +
            "|" + std::string(ActionName(report.action)) + "|" + report.shell_state + "|" + report.note + "\n";
  }
  return text;
}

struct Inputs {
  Manifest manifest;
  ValueSet values;
};

Inputs EfsZoneInputs() {
  Result<Manifest> manifest = LoadManifestFile((kEfsZone / "manifest.yaml").string());
  REQUIRE(manifest.ok());
  ValueInputs value_inputs;
  value_inputs.values_files = {(kEfsZone / "values/dev.env").string()};
  value_inputs.sets = {"APP=mo-back", "DB_PASSWORD=pa ss\"word"};
  Result<ValueSet> values = CollectValues(*manifest.value, value_inputs);
  REQUIRE(values.ok());
  return Inputs{std::move(*manifest.value), std::move(*values.value)};
}

// The templates the batch tests render: the shipped examples and test data
// (some render, some fail), under distinct names.
std::vector<fs::path> CopyTemplates(const fs::path& to) {
  std::vector<fs::path> sources;
  for (const fs::path& directory : {kEfsZone / "apps", SourceDir() / "tests/data/k8s",
                                    SourceDir() / "tests/data/envsubst", SourceDir() / "examples/inline-wrapper"}) {
    for (const auto& entry : fs::directory_iterator(directory)) {
      if (entry.path().extension() == ".yaml" && entry.path().filename() != "manifest.yaml") {
        sources.push_back(entry.path());
      }
    }
  }
  std::sort(sources.begin(), sources.end());
  std::vector<fs::path> copies;
  // Several copies of each, so that with -j8 more templates are in flight than jobs.
  for (int round = 0; round < 3; ++round) {
    for (const fs::path& source : sources) {
      fs::path copy = to / (std::to_string(round) + "-" + source.parent_path().filename().string() + "-" +
                            source.filename().string());
      fs::copy_file(source, copy);
      copies.push_back(copy);
    }
  }
  return copies;
}

std::map<std::string, std::string> ReadTree(const fs::path& directory) {
  std::map<std::string, std::string> files;
  for (const auto& entry : fs::directory_iterator(directory)) {
    files[entry.path().filename().string()] = ReadFile(entry.path());
  }
  return files;
}

std::string EfsZoneArguments() {
  return "-m " + ShellQuote((kEfsZone / "manifest.yaml").string()) + " --values " +
         ShellQuote((kEfsZone / "values/dev.env").string()) + " --set APP=mo-back";
}

}  // namespace

TEST_CASE("determinism: the library renders the same bytes every time") {
  Inputs inputs = EfsZoneInputs();
  std::string mo_back = ReadFile(kEfsZone / "apps/mo-back.yaml");
  std::string web_portal = ReadFile(kEfsZone / "apps/web-portal.yaml");
  REQUIRE_FALSE(mo_back.empty());
  RenderOptions options;
  options.file_name = "mo-back.yaml";
  RenderResult first = Render(mo_back, inputs.manifest, inputs.values, options);
  REQUIRE(first.ok());
  CHECK_FALSE(first.output.empty());
  std::string expected = Fingerprint(first, mo_back);
  // Again, after rendering something else in between (no state carried over).
  (void)Render(web_portal, inputs.manifest, inputs.values, options);
  for (int run = 0; run < 3; ++run) {
    CHECK(Fingerprint(Render(mo_back, inputs.manifest, inputs.values, options), mo_back) == expected);
  }
}

TEST_CASE("determinism: failures and explanations are the same every time too") {
  Inputs inputs = EfsZoneInputs();
  for (const fs::path& path : {SourceDir() / "tests/data/k8s/configmap-nginx-scripts.yaml",
                               SourceDir() / "tests/data/k8s/deployment-efs-wrapper.yaml",
                               SourceDir() / "tests/data/bad-input/duplicate-key.yaml"}) {
    CAPTURE(path.string());
    std::string text = ReadFile(path);
    REQUIRE_FALSE(text.empty());
    for (bool check_structure : {true, false}) {
      RenderOptions options;
      options.file_name = path.filename().string();
      options.check_structure = check_structure;
      std::string first = Fingerprint(Render(text, inputs.manifest, inputs.values, options), text);
      CHECK(Fingerprint(Render(text, inputs.manifest, inputs.values, options), text) == first);
    }
  }
}

TEST_CASE("determinism: a stream large enough to be rendered in pieces is the same with 1, 2 and 8 threads") {
  Inputs inputs = EfsZoneInputs();
  std::string document = ReadFile(kEfsZone / "apps/mo-back.yaml");
  REQUIRE_FALSE(document.empty());
  std::string good, bad;
  for (int index = 0; good.size() < (std::size_t{5} << 19); ++index) {  // 2.5 MiB: several chunks
    std::string named = "---\n" + document + "  # document " + std::to_string(index) + "\n";
    good += named;
    // Errors spread over the whole stream, so several pieces report some.
    bad += index % 251 == 3 ? named + "broken: ${UNDECLARED_" + std::to_string(index) + "}\n" : named;
  }
  for (const std::string* stream : {&good, &bad}) {
    std::string expected;
    for (unsigned threads : {1u, 2u, 8u}) {
      CAPTURE(threads);
      RenderOptions options;
      options.file_name = "stream.yaml";
      options.threads = threads;
      RenderResult result = Render(*stream, inputs.manifest, inputs.values, options);
      CHECK(result.ok() == (stream == &good));
      std::string fingerprint = Fingerprint(result, *stream);
      if (threads == 1) {
        expected = fingerprint;
        if (stream == &bad) CHECK(result.diagnostics.size() >= 3);
      } else {
        CHECK(fingerprint == expected);
      }
    }
  }
}

TEST_CASE("determinism: the command prints the same bytes every time") {
  std::string app = ShellQuote((kEfsZone / "apps/mo-back.yaml").string());
  std::string broken = ShellQuote((SourceDir() / "tests/data/k8s/configmap-nginx-scripts.yaml").string());
  std::vector<std::string> commands = {
      "render " + EfsZoneArguments() + " " + app,
      "render --explain " + EfsZoneArguments() + " " + app,
      "render " + EfsZoneArguments() + " " + app + " " + broken,  // fails: nothing on stdout
      "explain " + EfsZoneArguments() + " " + app + " " + broken,
      "vars --format json " + EfsZoneArguments() + " " + app,
      "lint " + ShellQuote((SourceDir() / "examples/lint/efs-wrapper-broken.yaml").string()),
      "lint --format json " + ShellQuote((SourceDir() / "examples/lint/fsgroup-broken.yaml").string()),
      "audit " + EfsZoneArguments() + " " + app,
  };
  for (const std::string& command : commands) {
    CAPTURE(command);
    CommandResult first = RunShell("NO_COLOR=1 " + Safesubst() + " " + command);
    CHECK((first.out.size() + first.err.size()) > 0);
    for (int run = 0; run < 2; ++run) {
      CommandResult again = RunShell("NO_COLOR=1 " + Safesubst() + " " + command);
      CHECK(again.code == first.code);
      CHECK(again.out == first.out);
      CHECK(again.err == first.err);
    }
  }
}

TEST_CASE("determinism: batch mode writes the same files with -j1, -j2 and -j8") {
  TempDir dir;
  fs::create_directory(dir / "templates");
  std::vector<fs::path> templates = CopyTemplates(dir / "templates");
  REQUIRE(templates.size() >= 20);
  std::string template_arguments;
  for (const fs::path& path : templates) template_arguments += " " + ShellQuote(path.string());

  std::map<int, CommandResult> runs;
  std::map<int, std::map<std::string, std::string>> trees;
  for (int jobs : {1, 2, 8}) {
    fs::path out = dir / ("out-j" + std::to_string(jobs));
    fs::create_directory(out);
    runs[jobs] = RunShell("NO_COLOR=1 " + Safesubst() + " render " + EfsZoneArguments() + " --out-dir " +
                          ShellQuote(out.string()) + " -j" + std::to_string(jobs) + template_arguments);
    trees[jobs] = ReadTree(out);
  }
  // Some templates render and some fail (undeclared references in the test
  // data): both kinds must come out the same whatever the number of jobs.
  CHECK(runs[1].code == 1);
  CHECK(trees[1].size() >= 6);
  CHECK(trees[1].size() < templates.size());
  CHECK(trees[1].count("0-apps-mo-back.yaml") == 1);
  for (int jobs : {2, 8}) {
    CAPTURE(jobs);
    CHECK(runs[jobs].code == runs[1].code);
    CHECK(runs[jobs].out == runs[1].out);
    CHECK(trees[jobs] == trees[1]);
    // Diagnostics in the order of the templates on the command line, not in
    // the order the jobs finished: CI logs must diff cleanly too.
    CHECK(runs[jobs].err == runs[1].err);
  }
  // Each batch output equals the single-template render of the same file.
  CommandResult single = RunShell(Safesubst() + " render " + EfsZoneArguments() + " " +
                                  ShellQuote((dir / "templates/2-apps-mo-back.yaml").string()));
  REQUIRE(single.code == 0);
  CHECK(trees[8]["2-apps-mo-back.yaml"] == single.out);
}
