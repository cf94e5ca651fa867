// SPDX-License-Identifier: Apache-2.0
// Messages a person expects: suggestions for misspelt commands, options,
// variable names and manifest values; --set errors that name the argument;
// every input problem of a run at once; the environment names a render
// without a manifest took; help per command; the kubectl plugin's name and
// its completion.
#include <doctest/doctest.h>

#include <filesystem>
#include <string>

#include "test_support.h"

namespace safesubst {
namespace {

using testing::CommandResult;
using testing::RunShell;
using testing::Safesubst;
using testing::ShellQuote;
using testing::TempDir;
using testing::WriteFile;

bool Has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

struct Project {
  TempDir dir;
  Project() {
    WriteFile(dir / "vars.yaml",
              "variables:\n  APP_NAME: {type: string}\n  PORT: {type: int}\n"
              "  PROFILE: {type: enum, values: [dev, prod]}\n");
    WriteFile(dir / "t.yaml", "name: \"${APP_NAME}\"\nport: ${PORT}\n");
  }
  CommandResult Run(const std::string& arguments, const std::string& environment = "") const {
    return RunShell("cd " + ShellQuote(dir.path().string()) + " && unset SAFESUBST_MANIFEST && " + environment + " " +
                    Safesubst() + " " + arguments);
  }
};

TEST_CASE("messages: a misspelt command or option gets the closest one") {
  Project project;
  const CommandResult command = project.Run("rendr -m vars.yaml t.yaml");
  CHECK(command.code == 2);
  CHECK(Has(command.err, "unknown command 'rendr'; did you mean 'render'?"));
  CHECK_FALSE(Has(command.err, "were not expected"));
  const CommandResult option = project.Run("render -m vars.yaml --valuse dev.env t.yaml");
  CHECK(option.code == 2);
  CHECK(Has(option.err, "safesubst render: error: unknown option '--valuse'; did you mean '--values'?"));
  const CommandResult lint = project.Run("lint --fromat json t.yaml");
  CHECK(lint.code == 2);
  CHECK(Has(lint.err, "unknown option '--fromat'; did you mean '--format'?"));
  // envsubst's own form still works: one argument, a SHELL-FORMAT.
  const CommandResult dropin = RunShell("APP_NAME=x " + Safesubst() + " '${APP_NAME}'", "a: ${APP_NAME}\n");
  CHECK(dropin.code == 0);
  CHECK(dropin.out == "a: x\n");
}

TEST_CASE("messages: a misspelt variable name or enum value gets the declared one") {
  Project project;
  WriteFile(project.dir / "typo.yaml", "name: \"${APP_NAEM}\"\n");
  const CommandResult typo = project.Run("render -m vars.yaml --set APP_NAME=a --set PORT=1 typo.yaml");
  CHECK(typo.code == 1);
  CHECK(Has(typo.err, "did you mean 'APP_NAME'?"));
  const CommandResult value = project.Run("render -m vars.yaml --set APP_NAME=a --set PORT=1 --set PROFILE=prd t.yaml");
  CHECK(value.code == 1);
  CHECK(Has(value.err, "did you mean 'prod'?"));
  WriteFile(project.dir / "bad-shell.yaml", "variables:\n  A: {type: string, shell: rw}\n");
  const CommandResult shell = project.Run("render -m bad-shell.yaml t.yaml");
  CHECK(shell.code == 1);
  CHECK(Has(shell.err, "did you mean 'raw'?"));
}

TEST_CASE("messages: --set without '=' names a declared variable, and only a declared one") {
  Project project;
  const CommandResult declared = project.Run("render -m vars.yaml --set PORT=1 --set APP_NAME t.yaml");
  CHECK(declared.code == 1);
  CHECK(Has(declared.err, "--set 'APP_NAME' has no '=VALUE'"));
  const CommandResult secret = project.Run("render -m vars.yaml --set PORT=1 --set hunter2secret t.yaml");
  CHECK(secret.code == 1);
  CHECK(Has(secret.err, "--set argument 2 has no '='"));
  CHECK_FALSE(Has(secret.err, "hunter2secret"));
}

TEST_CASE("messages: a missing template is reported even when the values fail too") {
  Project project;
  const CommandResult run = project.Run("render -m vars.yaml --set APP_NAME=a --set PORT=abc missing.yaml");
  CHECK(run.code == 1);
  CHECK(Has(run.err, "PORT"));
  CHECK(Has(run.err, "missing.yaml"));
}

TEST_CASE("messages: without a manifest, render says once which environment names it took") {
  Project project;
  WriteFile(project.dir / "u.yaml", "a: \"${APP_NAME}\"\n");
  const CommandResult two = project.Run("render t.yaml u.yaml", "APP_NAME=x PORT=1");
  CHECK(two.code == 0);
  const std::string note = "note: no manifest (-m or SAFESUBST_MANIFEST): took from the environment as declared: "
                           "APP_NAME, PORT";
  CHECK(Has(two.err, note));
  CHECK(two.err.find(note) == two.err.rfind(note));  // once for the run
  CHECK_FALSE(Has(two.err, "=x"));  // names only
  CHECK(project.Run("render -q t.yaml", "APP_NAME=x PORT=1").err.empty());
  const CommandResult dropin = RunShell("unset SAFESUBST_MANIFEST; APP_NAME=x " + Safesubst(), "a: \"${APP_NAME}\"\n");
  CHECK(dropin.out == "a: \"x\"\n");
  CHECK(Has(dropin.err, "took from the environment as declared: APP_NAME"));
  CHECK(RunShell("unset SAFESUBST_MANIFEST; APP_NAME=x " + Safesubst() + " -q", "a: 1\n").err.empty());
  // With a manifest there is nothing to say.
  CHECK(project.Run("render -m vars.yaml --set APP_NAME=a --set PORT=1 t.yaml").err.empty());
}

TEST_CASE("messages: each command's help has its own examples and exit statuses") {
  for (const char* command : {"render", "lint", "explain", "vars", "init", "audit"}) {
    CAPTURE(command);
    const CommandResult help = RunShell(Safesubst() + " " + command + " --help");
    CHECK(help.code == 0);
    CHECK(Has(help.out, "Examples:\n  safesubst " + std::string(command)));
    CHECK(Has(help.out, "Exit status: 0 "));
  }
}

TEST_CASE("messages: as kubectl-safesubst, usage says kubectl safesubst, and kubectl_complete-safesubst completes") {
  TempDir dir;
  std::filesystem::create_symlink(SAFESUBST_BINARY, dir / "kubectl-safesubst");
  std::filesystem::create_symlink(SAFESUBST_BINARY, dir / "kubectl_complete-safesubst");
  const std::string plugin = ShellQuote((dir / "kubectl-safesubst").string());
  const CommandResult help = RunShell(plugin + " --help");
  CHECK(Has(help.out, "Usage: kubectl safesubst"));
  CHECK(Has(help.out, "  kubectl safesubst render -m vars.yaml"));
  CHECK(Has(RunShell(plugin + " render --help").out, "  kubectl safesubst render -m vars.yaml"));
  CHECK(Has(RunShell(plugin + " rendr x").err, "kubectl safesubst: error: unknown command 'rendr'"));

  const std::string complete = ShellQuote((dir / "kubectl_complete-safesubst").string());
  CHECK(RunShell(complete + " r").out == "render\n:4\n");
  CHECK(RunShell(complete + " ''").out == "render\nlint\nexplain\nvars\ninit\naudit\nkrm\n:4\n");
  CHECK(Has(RunShell(complete + " render --val").out, "--values\n"));
  CHECK(RunShell(complete + " lint --format ''").out == "text\njson\nsarif\ngithub\n:4\n");
  CHECK(RunShell(complete + " render --out-dir ''").out == ":16\n");
  CHECK(RunShell(complete + " render -m ''").out == ":0\n");
  CHECK(RunShell(complete + " render -m vars.yaml ''").out == ":0\n");
}

}  // namespace
}  // namespace safesubst
