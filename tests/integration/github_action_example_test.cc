// SPDX-License-Identifier: Apache-2.0
// The composite GitHub Action (action.yml) run as the runner runs it: each
// step's script under `sh -e`, its env built from the action's inputs.
#include <doctest/doctest.h>

#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <map>
#include <regex>
#include <string>

#include "test_support.h"

namespace safesubst {
namespace {

namespace fs = std::filesystem;
using testing::CleanEnvironmentWithSafesubst;
using testing::CommandResult;
using testing::RunShell;
using testing::ShellQuote;
using testing::TempDir;
using testing::WriteFile;

const fs::path kSource = SAFESUBST_SOURCE_DIR;

// Runs the composite action's steps as the runner does (`shell: sh` is
// `sh -e FILE`), with `${{ inputs.NAME }}` in their env replaced by the
// inputs given or the defaults; stops at the first failing step.
CommandResult RunAction(const fs::path& workspace, const std::map<std::string, std::string>& given) {
  const YAML::Node action = YAML::LoadFile((kSource / "action.yml").string());
  REQUIRE(action["runs"]["using"].as<std::string>() == "composite");
  std::map<std::string, std::string> inputs;
  for (const auto& input : action["inputs"]) inputs[input.first.as<std::string>()] = input.second["default"].as<std::string>("");
  for (const auto& [name, value] : given) {
    REQUIRE(inputs.count(name) == 1);
    inputs[name] = value;
  }
  CommandResult all;
  all.code = 0;
  int step_number = 0;
  for (const YAML::Node& step : action["runs"]["steps"]) {
    REQUIRE(step["shell"].as<std::string>() == "sh");
    std::string environment;
    for (const auto& variable : step["env"]) {
      std::string value = variable.second.as<std::string>();
      const std::smatch expression = [&] {
        std::smatch match;
        std::regex_match(value, match, std::regex(R"(\$\{\{ inputs\.([a-z-]+) \}\})"));
        return match;
      }();
      REQUIRE_MESSAGE(!expression.empty(), "an env value is not one input: " << value);
      environment += " " + variable.first.as<std::string>() + "=" + ShellQuote(inputs.at(expression[1]));
    }
    const fs::path script = workspace / ("step" + std::to_string(++step_number) + ".sh");
    WriteFile(script, step["run"].as<std::string>());
    const CommandResult lint = RunShell("shellcheck -s sh " + ShellQuote(script.string()));
    CHECK_MESSAGE(lint.code == 0, "shellcheck on the step " << step["name"].as<std::string>() << ":\n" << lint.out);
    const CommandResult run = RunShell("cd " + ShellQuote(workspace.string()) + " && " + CleanEnvironmentWithSafesubst() +
                                       environment + " sh -e " + ShellQuote(script.string()));
    all.out += run.out;
    all.err += run.err;
    all.code = run.code;
    if (run.code != 0) break;
  }
  return all;
}

TEST_CASE("github action: lint annotates the pull request and render --check fails on a bad template") {
  REQUIRE(testing::HaveProgram("shellcheck"));
  TempDir workspace;
  fs::create_directories(workspace / "deploy" / "templates");
  WriteFile(workspace / "deploy" / "vars.yaml", "variables:\n  APP: {type: dns-label, required: true}\n");
  WriteFile(workspace / "deploy" / "ci.env", "APP=web\n");
  WriteFile(workspace / "deploy" / "templates" / "a.yaml", "name: ${APP}\n");
  WriteFile(workspace / "deploy" / "templates" / "b.yaml", "other: ${APP}-b\n");
  WriteFile(workspace / "deploy" / "clean.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  a: b\n");
  const std::map<std::string, std::string> inputs = {{"manifest", "deploy/vars.yaml"},
                                                     {"values", "deploy/ci.env"},
                                                     {"templates", "deploy/templates/*.yaml"},
                                                     {"lint", "deploy/clean.yaml"}};
  const CommandResult good = RunAction(workspace.path(), inputs);
  CAPTURE(good.err);
  CHECK(good.code == 0);
  CHECK(good.out.empty());  // render --check writes nothing

  WriteFile(workspace / "deploy" / "templates" / "c.yaml", "name: ${APP_NAEM}\n");
  const CommandResult bad_template = RunAction(workspace.path(), inputs);
  CHECK(bad_template.code == 1);
  CHECK(bad_template.err.find("deploy/templates/c.yaml:1:7: error: undeclared variable 'APP_NAEM'") !=
        std::string::npos);
  fs::remove(workspace / "deploy" / "templates" / "c.yaml");

  // A lint finding is a workflow command that GitHub shows on the line.
  WriteFile(workspace / "deploy" / "leftover.yaml",
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  a: ${APP}\n");
  std::map<std::string, std::string> lint_inputs = inputs;
  lint_inputs["lint"] = "deploy/*.yaml";
  const CommandResult finding = RunAction(workspace.path(), lint_inputs);
  CHECK(finding.code == 1);
  CHECK((finding.out + finding.err).find("::error file=deploy/leftover.yaml,line=6") != std::string::npos);

  // Without templates or lint files, nothing runs and nothing fails.
  CHECK(RunAction(workspace.path(), {}).code == 0);
}

}  // namespace
}  // namespace safesubst
