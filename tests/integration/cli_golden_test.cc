// SPDX-License-Identifier: Apache-2.0
// Golden tests of the command: each directory under tests/golden/ is one case.
//
//   cmd            the arguments, one line, run by /bin/sh in the case directory
//   env            optional NAME=VALUE lines: the whole environment of the run
//   stdin          optional standard input
//   expected.out   the exact standard output
//   expected.err   the exact standard error (NO_COLOR is set)
//   expected.code  the exit status
// A case that fails and names `-o out.yaml` must leave no out.yaml behind.
//
// SAFESUBST_UPDATE_GOLDEN=1 rewrites the expected files from the actual run;
// review the diff before committing.
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

std::string Trim(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  return text;
}

CommandResult RunCase(const fs::path& dir) {
  std::string environment = "NO_COLOR=1 PATH=/usr/bin:/bin";
  std::istringstream env_lines(ReadFile(dir / "env"));
  for (std::string line; std::getline(env_lines, line);) {
    if (!line.empty()) environment += " " + ShellQuote(line);
  }
  return RunShell("cd " + ShellQuote(dir.string()) + " && env -i " + environment + " " + Safesubst() + " " +
                      Trim(ReadFile(dir / "cmd")),
                  ReadFile(dir / "stdin"));
}

std::vector<fs::path> Cases() {
  std::vector<fs::path> cases;
  for (const auto& entry : fs::directory_iterator(fs::path(SAFESUBST_SOURCE_DIR) / "tests" / "golden")) {
    if (entry.is_directory()) cases.push_back(entry.path());
  }
  std::sort(cases.begin(), cases.end());
  return cases;
}

}  // namespace

TEST_CASE("golden: every case under tests/golden renders as recorded") {
  std::vector<fs::path> cases = Cases();
  REQUIRE(cases.size() >= 10);
  bool update = std::getenv("SAFESUBST_UPDATE_GOLDEN") != nullptr;
  for (const fs::path& dir : cases) {
    CAPTURE(dir.filename().string());
    CommandResult run = RunCase(dir);
    if (update) {
      WriteFile(dir / "expected.out", run.out);
      WriteFile(dir / "expected.err", run.err);
      WriteFile(dir / "expected.code", std::to_string(run.code) + "\n");
      continue;
    }
    // Cases that fail write `-o out.yaml`: nothing may be written.
    bool wrote_output = fs::exists(dir / "out.yaml");
    fs::remove(dir / "out.yaml");
    if (run.code != 0) CHECK_FALSE(wrote_output);
    CHECK(run.code == std::stoi(ReadFile(dir / "expected.code", "-99")));
    CHECK(run.out == ReadFile(dir / "expected.out", "<missing expected.out>"));
    CHECK(run.err == ReadFile(dir / "expected.err", "<missing expected.err>"));
  }
}
