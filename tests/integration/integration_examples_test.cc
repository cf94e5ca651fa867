// SPDX-License-Identifier: Apache-2.0
// The integrations run as their hosts run them: the Helm post-renderer on a
// Helm-shaped stream, the Argo CD plugin's generate command with the
// environment Argo CD gives it, and the pre-commit hooks' entries with the
// file names pre-commit appends. (The KRM function: cli_krm_test.cc; the
// GitHub Action: github_action_example_test.cc.)
#include <doctest/doctest.h>

#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <regex>
#include <string>
#include <vector>

#include "test_support.h"

namespace safesubst {
namespace {

namespace fs = std::filesystem;
using testing::CleanEnvironmentWithSafesubst;
using testing::CommandResult;
using testing::ReadFile;
using testing::RunShell;
using testing::ShellQuote;
using testing::TempDir;
using testing::WriteFile;

const fs::path kSource = SAFESUBST_SOURCE_DIR;

std::size_t Count(const std::string& text, const std::string& what) {
  std::size_t count = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++count;
  return count;
}

TEST_CASE("helm: the post-renderer renders a Helm-shaped stream and keeps its shape") {
  const fs::path helm = kSource / "examples" / "helm";
  const std::string stream = ReadFile(helm / "chart-stream.yaml");
  REQUIRE(Count(stream, "# Source: ") == 4);
  const std::string run_in_helm = "cd " + ShellQuote(helm.string()) + " && " + CleanEnvironmentWithSafesubst() +
                                  " SAFESUBST_MANIFEST=manifest.yaml SAFESUBST_VALUES=prod.env ./post-renderer.sh";
  const CommandResult run = RunShell(run_in_helm, stream);
  CAPTURE(run.err);
  REQUIRE(run.code == 0);
  CHECK(run.err.empty());
  // Helm reads the result as a stream of the same documents: separators,
  // source comments and the document holding only a comment all stay.
  CHECK(Count(run.out, "---\n") == 4);
  CHECK(Count(run.out, "# Source: web/templates/") == 4);
  CHECK(run.out.find("---\n# Source: web/templates/disabled.yaml\n# rendered to nothing (a disabled feature)\n---\n") !=
        std::string::npos);
  const std::vector<YAML::Node> documents = YAML::LoadAll(run.out);
  REQUIRE(documents.size() == 4);
  CHECK(documents[0]["metadata"]["name"].as<std::string>() == "tenant-a-web");
  CHECK(documents[1]["stringData"]["password"].as<std::string>() == "s3cr3t \"quoted\"");
  CHECK(documents[2].IsNull());
  CHECK(documents[3]["spec"]["template"]["spec"]["containers"][0]["args"][0].as<std::string>() ==
        "echo \"tenant tenant-a on $HOSTNAME\"\nexec web\n");

  // --post-renderer-args reach safesubst; a failure gives Helm nothing and a non-zero status.
  const CommandResult with_args = RunShell(run_in_helm + " --set TENANT_ID=tenant-b", stream);
  CHECK(YAML::LoadAll(with_args.out)[0]["metadata"]["name"].as<std::string>() == "tenant-b-web");
  const CommandResult failing = RunShell(run_in_helm + " --set TENANT_ID=Not_A_Label", stream);
  CHECK(failing.code == 1);
  CHECK(failing.out.empty());
  CHECK(failing.err.find("TENANT_ID") != std::string::npos);
  CHECK(failing.err.find("s3cr3t") == std::string::npos);
  const CommandResult no_manifest = RunShell("cd " + ShellQuote(helm.string()) + " && " + CleanEnvironmentWithSafesubst() +
                                             " ./post-renderer.sh", stream);
  CHECK(no_manifest.code != 0);
  CHECK(no_manifest.err.find("set SAFESUBST_MANIFEST") != std::string::npos);
}

TEST_CASE("argocd: the plugin's generate command renders the app with the ARGOCD_ENV_ variables only") {
  const fs::path argocd = kSource / "examples" / "argocd";
  const YAML::Node plugin = YAML::LoadFile((argocd / "plugin.yaml").string());
  CHECK(plugin["kind"].as<std::string>() == "ConfigManagementPlugin");
  const fs::path app = argocd / "app";
  // Argo CD picks the plugin for a directory holding the discover file.
  CHECK(fs::exists(app / plugin["spec"]["discover"]["fileName"].as<std::string>()));
  std::string command;
  for (const YAML::Node& word : plugin["spec"]["generate"]["command"]) command += ShellQuote(word.as<std::string>()) + " ";
  for (const YAML::Node& word : plugin["spec"]["generate"]["args"]) command += ShellQuote(word.as<std::string>()) + " ";
  // The Application's env entries arrive prefixed; the repo server's own
  // variables (and an unprefixed TENANT_ID) must not be taken as values.
  const std::string environment = CleanEnvironmentWithSafesubst() +
                                  " ARGOCD_ENV_TENANT_ID=tenant-a ARGOCD_ENV_REPLICAS=3 TENANT_ID=wrong REPLICAS=9"
                                  " ARGOCD_APP_NAME=tenant-a-web ";
  const CommandResult run = RunShell("cd " + ShellQuote(app.string()) + " && " + environment + command);
  CAPTURE(run.err);
  REQUIRE(run.code == 0);
  const std::vector<YAML::Node> documents = YAML::LoadAll(run.out);
  REQUIRE(documents.size() == 2);
  CHECK(documents[0]["metadata"]["name"].as<std::string>() == "tenant-a-web");
  CHECK(documents[0]["spec"]["replicas"].as<int>() == 3);
  CHECK(documents[0]["spec"]["template"]["spec"]["containers"][0]["args"][0].as<std::string>() ==
        "echo \"tenant tenant-a on $HOSTNAME\"\n");
  CHECK(documents[1]["kind"].as<std::string>() == "Service");

  const CommandResult unprefixed = RunShell("cd " + ShellQuote(app.string()) + " && " + CleanEnvironmentWithSafesubst() +
                                            " TENANT_ID=tenant-a " + command);
  CHECK(unprefixed.code == 1);  // TENANT_ID is required, and only ARGOCD_ENV_TENANT_ID gives it
  CHECK(unprefixed.err.find("TENANT_ID is required but has no value") != std::string::npos);

  // The Application names the plugin as Argo CD does: <name>-<version>.
  const YAML::Node application = YAML::LoadFile((argocd / "application.yaml").string());
  CHECK(application["spec"]["source"]["plugin"]["name"].as<std::string>() ==
        plugin["metadata"]["name"].as<std::string>() + "-" + plugin["spec"]["version"].as<std::string>());
}

// Runs a hook as pre-commit runs a `language: system` hook: its entry, then
// the args the user's configuration gives, then the staged files that its
// `files` pattern matches.
CommandResult RunHook(const YAML::Node& hook, const fs::path& project, const std::string& args,
                      const std::vector<std::string>& staged) {
  CHECK(hook["language"].as<std::string>() == "system");
  const std::regex files(hook["files"].as<std::string>());
  std::string command = hook["entry"].as<std::string>() + " " + args;
  for (const std::string& file : staged) {
    if (std::regex_search(file, files)) command += " " + ShellQuote(file);
  }
  return RunShell("cd " + ShellQuote(project.string()) + " && " + CleanEnvironmentWithSafesubst() + " " + command);
}

YAML::Node Hook(const std::string& id) {
  for (const YAML::Node& hook : YAML::LoadFile((kSource / ".pre-commit-hooks.yaml").string())) {
    if (hook["id"].as<std::string>() == id) return hook;
  }
  FAIL("no hook " << id << " in .pre-commit-hooks.yaml");
  return YAML::Node();
}

TEST_CASE("pre-commit: the render check and lint hooks pass good files and fail bad ones") {
  TempDir project;
  WriteFile(project / "vars.yaml", "variables:\n  APP: {type: dns-label, required: true}\n");
  WriteFile(project / "ci.env", "APP=web\n");
  WriteFile(project / "good.yaml", "name: ${APP}\n");
  WriteFile(project / "bad.yaml", "name: ${APPP}\n");
  WriteFile(project / "notes.txt", "${NOT_YAML}\n");
  const YAML::Node check = Hook("safesubst-render-check");
  const std::string args = "-m vars.yaml --values ci.env";
  CHECK(RunHook(check, project.path(), args, {"good.yaml", "notes.txt"}).code == 0);
  const CommandResult failing = RunHook(check, project.path(), args, {"good.yaml", "bad.yaml"});
  CHECK(failing.code == 1);
  CHECK(failing.err.find("bad.yaml:1:7: error: undeclared variable 'APPP'") != std::string::npos);
  CHECK(failing.out.empty());  // a check writes nothing

  const YAML::Node lint = Hook("safesubst-lint");
  WriteFile(project / "pod.yaml",
            "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n    - name: c\n      image: i\n");
  WriteFile(project / "leftover.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  a: ${APP}\n");
  CHECK(RunHook(lint, project.path(), "", {"pod.yaml"}).code == 0);
  const CommandResult leftover = RunHook(lint, project.path(), "", {"pod.yaml", "leftover.yaml"});
  CHECK(leftover.code == 1);
  CHECK(leftover.err.find("leftover-placeholder") != std::string::npos);
}

TEST_CASE("pre-commit: pre-commit itself runs the hooks from a repository holding .pre-commit-hooks.yaml") {
  REQUIRE(testing::HaveProgram("pre-commit"));
  REQUIRE(testing::HaveProgram("git"));
  TempDir hooks, project, home;
  const std::string git = "git -c user.name=test -c user.email=test@example.invalid -c init.defaultBranch=main";
  fs::copy_file(kSource / ".pre-commit-hooks.yaml", hooks / ".pre-commit-hooks.yaml");
  const CommandResult committed = RunShell("cd " + ShellQuote(hooks.path().string()) + " && " + git + " init -q && " +
                                           git + " add -A && " + git + " commit -q -m hooks && git rev-parse HEAD");
  REQUIRE(committed.code == 0);
  const std::string rev = committed.out.substr(0, committed.out.find('\n'));
  WriteFile(project / "vars.yaml", "variables:\n  APP: {type: dns-label, required: true}\n");
  WriteFile(project / "ci.env", "APP=web\n");
  fs::create_directory(project / "t");
  WriteFile(project / "t" / "good.yaml", "name: ${APP}\n");
  WriteFile(project / ".pre-commit-config.yaml",
            "repos:\n  - repo: " + hooks.path().string() + "\n    rev: " + rev +
                "\n    hooks:\n      - id: safesubst-render-check\n        args: [-m, vars.yaml, --values, ci.env]\n"
                "        files: ^t/\n");
  const std::string run_pre_commit = "cd " + ShellQuote(project.path().string()) + " && " + git + " init -q && " + git +
                                     " add -A && " + CleanEnvironmentWithSafesubst() + " HOME=" +
                                     ShellQuote(home.path().string()) + " PRE_COMMIT_HOME=" +
                                     ShellQuote((home / "cache").string()) + " pre-commit run --all-files";
  const CommandResult passing = RunShell(run_pre_commit);
  CAPTURE(passing.out);
  CHECK(passing.code == 0);
  CHECK(passing.out.find("safesubst render --check") != std::string::npos);
  WriteFile(project / "t" / "bad.yaml", "name: ${APPP}\n");
  const CommandResult failing = RunShell(run_pre_commit);
  CAPTURE(failing.out);
  CHECK(failing.code == 1);
  CHECK(failing.out.find("t/bad.yaml:1:7: error: undeclared variable 'APPP'") != std::string::npos);
}

}  // namespace
}  // namespace safesubst
