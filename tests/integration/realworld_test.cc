// SPDX-License-Identifier: Apache-2.0
// Patterns of real templates (issue 26 item 10): each tests/data/realworld/
// NAME.yaml is a template of our own writing after a pattern met in public
// Flux, clusterctl and envsubst repositories, rendered as its ecosystem's
// users would render it with safesubst. Its first comment lines say how:
//
//   # run: ARGUMENTS        safesubst's arguments (the template's name is appended)
//   # env: NAME=VALUE ...   the environment of the run (else only PATH and NO_COLOR)
//
// NAME.expected holds the exact standard output; the run must exit 0 and
// print no error. SAFESUBST_UPDATE_GOLDEN=1 rewrites the expected files
// (review the diff before committing).
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "test_support.h"

namespace fs = std::filesystem;
using namespace safesubst::testing;

namespace {

// The text after `# KEY: ` on the first comment line that has it.
std::string Directive(const std::string& text, const std::string& key) {
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line) && line.starts_with("#");) {
    if (line.starts_with("# " + key + ": ")) return line.substr(key.size() + 4);
  }
  return "";
}

std::vector<fs::path> Templates() {
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(fs::path(SAFESUBST_SOURCE_DIR) / "tests" / "data" / "realworld")) {
    if (entry.path().extension() == ".yaml") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace

TEST_CASE("realworld: every pattern template renders as its ecosystem means it") {
  const std::vector<fs::path> templates = Templates();
  REQUIRE(templates.size() >= 10);
  const bool update = std::getenv("SAFESUBST_UPDATE_GOLDEN") != nullptr;
  for (const fs::path& path : templates) {
    CAPTURE(path.filename().string());
    const std::string text = ReadFile(path);
    const std::string arguments = Directive(text, "run");
    REQUIRE_FALSE(arguments.empty());
    const CommandResult run =
        RunShell("cd " + ShellQuote(path.parent_path().string()) + " && env -i NO_COLOR=1 PATH=/usr/bin:/bin " +
                 Directive(text, "env") + " " + Safesubst() + " " + arguments + " " + path.filename().string());
    fs::path expected = path;
    expected.replace_extension(".expected");
    if (update) {
      WriteFile(expected, run.out);
      continue;
    }
    CAPTURE(run.err);
    CHECK(run.code == 0);
    CHECK(run.err.find("error:") == std::string::npos);
    CHECK(run.out == ReadFile(expected, "<missing " + expected.filename().string() + ">"));
  }
}
