// SPDX-License-Identifier: Apache-2.0
// `render --check` (alias --dry-run) and `render --diff`: the modes for pull
// requests and pre-commit, which render and write nothing.
#include <doctest/doctest.h>

#include <filesystem>
#include <string>

#include "test_support.h"

namespace safesubst {
namespace {

namespace fs = std::filesystem;
using testing::CommandResult;
using testing::ReadFile;
using testing::RunShell;
using testing::Safesubst;
using testing::ShellQuote;
using testing::TempDir;
using testing::WriteFile;

// A manifest with a sensitive variable, a template that renders and one that does not.
struct Project {
  TempDir dir;
  Project() {
    WriteFile(dir / "m.yaml", "variables:\n  APP: {type: string}\n  TOKEN: {type: string, sensitive: true}\n");
    WriteFile(dir / "app.yaml", "name: ${APP}\ntoken: \"${TOKEN}\"\nreplicas: 2\n");
    WriteFile(dir / "bad.yaml", "name: ${UNDECLARED}\n");
    fs::create_directory(dir / "out");
  }
  CommandResult Run(const std::string& arguments) const {
    return RunShell("cd " + ShellQuote(dir.path().string()) + " && " + Safesubst() +
                    " render -m m.yaml --set TOKEN=s3cr3t-value " + arguments);
  }
};

TEST_CASE("render --check and --dry-run: render, write nothing, exit 0 or 1") {
  Project project;
  for (const std::string mode : {"--check", "--dry-run"}) {
    CAPTURE(mode);
    const CommandResult good = project.Run(mode + " --set APP=web -o out.yaml app.yaml");
    CHECK(good.code == 0);
    CHECK(good.out.empty());
    CHECK_FALSE(fs::exists(project.dir / "out.yaml"));
    const CommandResult bad = project.Run(mode + " --out-dir out --set APP=web app.yaml bad.yaml");
    CHECK(bad.code == 1);
    CHECK(bad.err.find("bad.yaml:1:7: error: undeclared variable 'UNDECLARED'") != std::string::npos);
    CHECK(fs::is_empty(project.dir / "out"));  // not even the template that rendered
    const CommandResult stdout_only = project.Run(mode + " --set APP=web app.yaml");
    CHECK(stdout_only.code == 0);
    CHECK(stdout_only.out.empty());
  }
  CHECK(project.Run("--check --set APP=web -i app.yaml").code == 0);
  CHECK(ReadFile(project.dir / "app.yaml") == "name: ${APP}\ntoken: \"${TOKEN}\"\nreplicas: 2\n");
}

TEST_CASE("render --diff -o: a unified diff from the file to what it would become, which patch applies") {
  REQUIRE(testing::HaveProgram("patch"));
  Project project;
  const CommandResult created = project.Run("--diff --set APP=web -o out.yaml app.yaml");
  CHECK(created.code == 1);  // the file would change: it would be created
  CHECK(created.out == "--- /dev/null\n+++ out.yaml\n@@ -0,0 +1,3 @@\n+name: web\n+token: \"***\"\n+replicas: 2\n");
  CHECK_FALSE(fs::exists(project.dir / "out.yaml"));

  REQUIRE(project.Run("--set APP=web -o out.yaml app.yaml").code == 0);
  const CommandResult same = project.Run("--diff --set APP=web -o out.yaml app.yaml");
  CHECK(same.code == 0);
  CHECK(same.out.empty());

  const CommandResult changed = project.Run("--diff --set APP=api -o out.yaml app.yaml");
  CHECK(changed.code == 1);
  CHECK(changed.out == "--- out.yaml\n+++ out.yaml\n@@ -1,3 +1,3 @@\n-name: web\n+name: api\n token: \"***\"\n replicas: 2\n");
  CHECK(changed.out.find("s3cr3t") == std::string::npos);
  CHECK(ReadFile(project.dir / "out.yaml").find("name: web") != std::string::npos);  // unchanged

  // Without sensitive values in it, the diff is the change itself: patch -p0 makes it.
  WriteFile(project.dir / "plain.yaml", "name: ${APP}\n");
  REQUIRE(project.Run("--set APP=web -o plain.out plain.yaml").code == 0);
  const CommandResult patched = RunShell("cd " + ShellQuote(project.dir.path().string()) + " && " + Safesubst() +
                                         " render -m m.yaml --diff --set APP=api -o plain.out plain.yaml | patch -s -p0");
  CHECK(patched.code == 0);
  CHECK(ReadFile(project.dir / "plain.out") == "name: api\n");
}

TEST_CASE("render --diff --in-place and --out-dir compare each target, a failing template fails the run") {
  Project project;
  const CommandResult in_place = project.Run("--diff --set APP=web -i app.yaml");
  CHECK(in_place.code == 1);
  CHECK(in_place.out ==
        "--- app.yaml\n+++ app.yaml\n@@ -1,3 +1,3 @@\n-name: ${APP}\n-token: \"${TOKEN}\"\n+name: web\n+token: \"***\"\n"
        " replicas: 2\n");
  CHECK(ReadFile(project.dir / "app.yaml").find("${APP}") != std::string::npos);

  WriteFile(project.dir / "out" / "app.yaml", "name: web\ntoken: \"s3cr3t-value\"\nreplicas: 2\n");
  const CommandResult up_to_date = project.Run("--diff --set APP=web --out-dir out app.yaml");
  CHECK(up_to_date.code == 0);
  CHECK(up_to_date.out.empty());
  const CommandResult with_failure = project.Run("--diff --set APP=web --out-dir out app.yaml bad.yaml");
  CHECK(with_failure.code == 1);
  CHECK(with_failure.out.empty());  // app.yaml is up to date; bad.yaml has nothing to compare
  CHECK(with_failure.err.find("bad.yaml:1:7: error:") != std::string::npos);
  CHECK_FALSE(fs::exists(project.dir / "out" / "bad.yaml"));
}

TEST_CASE("render --diff needs a target and excludes --check") {
  Project project;
  const CommandResult no_target = project.Run("--diff --set APP=web app.yaml");
  CHECK(no_target.code == 2);
  CHECK(no_target.err.find("--diff compares the files -o, --in-place or --out-dir would write") != std::string::npos);
  CHECK(project.Run("--diff --check --set APP=web -o out.yaml app.yaml").code == 2);
}

}  // namespace
}  // namespace safesubst
