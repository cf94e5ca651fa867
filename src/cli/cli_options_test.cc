// SPDX-License-Identifier: Apache-2.0
// The command line builds only the options its arguments name (NamedOptions
// in cli_main.cc): every option a command's help lists must still be
// understood when it is the only one named, in each spelling.
#include <doctest/doctest.h>

#include <sstream>
#include <string>
#include <vector>

#include "test_support.h"

namespace safesubst {
namespace {

using testing::RunShell;
using testing::Safesubst;
using testing::ShellQuote;
using testing::TempDir;

// The option names of the help's lines, such as {"-o", "--output"}; not -h/--help.
std::vector<std::string> OptionNames(const std::string& help) {
  std::vector<std::string> names;
  std::istringstream lines(help);
  for (std::string line; std::getline(lines, line);) {
    const std::size_t start = line.find_first_not_of(' ');
    if (start != 2 || line[start] != '-') continue;  // an option's line starts "  -"
    std::istringstream spellings(line.substr(start, line.find(' ', start) - start));
    for (std::string name; std::getline(spellings, name, ',');) {
      if (name != "-h" && name != "--help") names.push_back(name);
    }
  }
  return names;
}

TEST_CASE("cli: every option a command's help lists is understood when it is the only one named") {
  TempDir dir;  // nothing can be written: every run below fails on its arguments or on a missing template
  const std::string in_dir = "cd " + ShellQuote(dir.path().string()) + " && " + Safesubst() + " ";
  std::size_t tried = 0;
  for (const std::string command : {"render", "lint", "explain", "vars", "init", "audit", "krm"}) {
    const std::vector<std::string> names = OptionNames(RunShell(Safesubst() + " " + command + " --help").out);
    CHECK(names.size() >= 3);
    for (const std::string& name : names) {
      std::vector<std::string> spellings = {name + " x"};
      if (name.starts_with("--")) spellings.push_back(name + "=x");
      for (const std::string& spelling : spellings) {
        CAPTURE(command);
        CAPTURE(spelling);
        const testing::CommandResult result = RunShell(in_dir + command + " " + spelling + " no-such-template.yaml");
        CHECK(result.err.find("not expected") == std::string::npos);
        CHECK(result.code != 0);  // the value x, or the missing template
        ++tried;
      }
    }
  }
  CHECK(tried > 60);
}

TEST_CASE("cli: explain, vars and audit report a manifest or values they cannot read") {
  for (const std::string command : {"explain", "vars", "audit"}) {
    CAPTURE(command);
    const testing::CommandResult no_manifest = RunShell(Safesubst() + " " + command + " -m no-such.yaml", "a: 1\n");
    CHECK(no_manifest.code == 1);
    CHECK(no_manifest.err.find("cannot read manifest 'no-such.yaml'") != std::string::npos);
    const testing::CommandResult bad_set = RunShell(Safesubst() + " " + command + " --set X", "a: $X\n");
    CHECK(bad_set.code == 1);
    CHECK(bad_set.err.find("--set argument 1 has no '='") != std::string::npos);
  }
  // Explaining needs no values: a required one may be missing, an invalid one is reported.
  TempDir dir;
  testing::WriteFile(dir / "m.yaml", "variables:\n  PORT: {type: int, required: true}\n");
  const std::string explain = Safesubst() + " explain -m " + ShellQuote((dir / "m.yaml").string());
  const testing::CommandResult missing = RunShell("env -u PORT " + explain, "port: ${PORT}\n");
  CHECK(missing.code == 0);
  CHECK(missing.out.find("declared but has no value") != std::string::npos);
  const testing::CommandResult invalid = RunShell(explain + " --set PORT=eighty", "port: ${PORT}\n");
  CHECK(invalid.code == 1);
  CHECK(invalid.err.find("PORT: \"eighty\" is not an integer") != std::string::npos);
}

TEST_CASE("cli: an empty manifest path is refused, not read as 'declare the environment'") {
  const testing::CommandResult option = RunShell("APP=1 " + Safesubst() + " render -m ''", "a: ${APP}\n");
  CHECK(option.code == 2);
  CHECK(option.err.find("--manifest: the path is empty") != std::string::npos);
  const testing::CommandResult variable = RunShell("APP=1 SAFESUBST_MANIFEST= " + Safesubst(), "a: ${APP}\n");
  CHECK(variable.code == 1);
  CHECK(variable.out.empty());
  CHECK(variable.err.find("SAFESUBST_MANIFEST: error: is set but empty") != std::string::npos);
  // Unset, it is the documented drop-in for envsubst.
  CHECK(RunShell("APP=1 " + Safesubst(), "a: ${APP}\n").out == "a: 1\n");
}

TEST_CASE("cli: help asked for inside a cluster of short options lists every option") {
  const testing::CommandResult help = RunShell(Safesubst() + " render -ih");
  CHECK(help.code == 0);
  CHECK(help.out.find("--max-depth") != std::string::npos);
  CHECK(help.out.find("--lint-disable") != std::string::npos);
  // Values spelt in the clusters' styles still reach their options.
  const testing::CommandResult attached = RunShell(Safesubst() + " render -j2 -mno-such.yaml", "a: 1\n");
  CHECK(attached.err.find("cannot read manifest 'no-such.yaml'") != std::string::npos);
  const testing::CommandResult after_separator = RunShell(Safesubst() + " render -- --strict");
  CHECK(after_separator.err.find("--strict: error: cannot open") != std::string::npos);
}

TEST_CASE("cli: a negative limit or job count is a usage error, not 'no limit'") {
  for (const std::string option : {"--max-value-size", "--max-input-size", "--max-depth", "--max-aliases",
                                   "--max-documents", "-j"}) {
    CAPTURE(option);
    const testing::CommandResult result = RunShell(Safesubst() + " render " + option + " -1", "a: 1\n");
    CHECK(result.code == 2);
    CHECK(result.out.empty());
  }
  CHECK(RunShell(Safesubst() + " render --max-depth 0", "a: 1\n").code != 2);
}

TEST_CASE("cli: a values file that cannot be read is an input error with its name, as a manifest is") {
  for (const std::string path : {"no-such.env", "/"}) {
    CAPTURE(path);
    const testing::CommandResult result = RunShell(Safesubst() + " render --values " + path, "a: 1\n");
    CHECK(result.code == 1);
    CHECK(result.err.find(path + ": error: cannot read values file") == 0);
    CHECK(result.out.empty());
  }
}

TEST_CASE("cli: --lint-disable without --lint is a usage error, not ignored") {
  const testing::CommandResult result = RunShell(Safesubst() + " render --lint-disable hosts-write", "a: 1\n");
  CHECK(result.code == 2);
  CHECK(result.err == "safesubst: error: --lint-disable needs --lint\n");
}

TEST_CASE("cli: options that exclude each other still do when both are named") {
  const testing::CommandResult result = RunShell(Safesubst() + " render -o out.yaml -i t.yaml");
  CHECK(result.code == 2);
  CHECK(result.err.find("excludes") != std::string::npos);
  CHECK(RunShell(Safesubst() + " render --in-place --out-dir . t.yaml").err.find("excludes") != std::string::npos);
}

}  // namespace
}  // namespace safesubst
