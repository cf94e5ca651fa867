// SPDX-License-Identifier: Apache-2.0
// `safesubst init` and `safesubst audit` over several templates, one of
// which cannot be read (issue 26: one such file made a repository-wide init
// exit 1 and write an empty manifest).
#include <doctest/doctest.h>

#include <string>

#include "test_support.h"

namespace safesubst {
namespace {

using testing::ReadFile;
using testing::RunShell;
using testing::Safesubst;
using testing::ShellQuote;
using testing::TempDir;
using testing::WriteFile;

TEST_CASE("cli init: an unreadable template is reported and named, the others surveyed, exit 1") {
  TempDir dir;
  WriteFile(dir / "a.yaml", "name: ${APP}\n");
  WriteFile(dir / "bin.yaml", std::string("x: ${B}\0\n", 9));
  WriteFile(dir / "c.yaml", "replicas: ${N:=2}\n");
  const std::string in_dir = "cd " + ShellQuote(dir.path().string()) + " && " + Safesubst();
  const testing::CommandResult result = RunShell(in_dir + " init -o m.yaml a.yaml bin.yaml missing.yaml c.yaml");
  CHECK(result.code == 1);
  CHECK(result.err.find("bin.yaml:1:8: error: NUL byte") != std::string::npos);
  CHECK(result.err.find("missing.yaml") != std::string::npos);
  CHECK(result.err.find("2 names from 2 templates") != std::string::npos);
  const std::string manifest = ReadFile(dir / "m.yaml");
  CHECK(manifest.find("# NOT SURVEYED (could not be read): missing.yaml\n") != std::string::npos);
  CHECK(manifest.find("# NOT SURVEYED (could not be read): bin.yaml\n") != std::string::npos);
  CHECK(manifest.find("  APP: {type: string}") != std::string::npos);
  CHECK(manifest.find("  \"N\": {type: int}") != std::string::npos);
  // The manifest works: a render with it succeeds.
  CHECK(RunShell(in_dir + " render -m m.yaml --set APP=web a.yaml c.yaml").code == 0);
}

TEST_CASE("cli audit: an unreadable template is reported, the others audited, exit 1") {
  TempDir dir;
  WriteFile(dir / "a.yaml", "args:\n  - |\n    echo $NODE_IP\n");
  WriteFile(dir / "bin.yaml", std::string("x: $B\0\n", 7));
  const testing::CommandResult result =
      RunShell("cd " + ShellQuote(dir.path().string()) + " && " + Safesubst() + " audit bin.yaml a.yaml");
  CHECK(result.code == 1);
  CHECK(result.err.find("bin.yaml:1:6: error: NUL byte") != std::string::npos);
  CHECK(result.out.find("+    echo \n") != std::string::npos);
  CHECK(result.err.find("1 template(s) could not be audited") != std::string::npos);
}

TEST_CASE("cli init: --values and --set name deploy-time variables and type them by their values") {
  TempDir dir;
  WriteFile(dir / "t.yaml", "spec:\n  replicas: ${R}\n  args:\n    - |\n      echo ${STAGE} $PORT\n");
  WriteFile(dir / "dev.env", "STAGE=dev\n");
  const testing::CommandResult result = RunShell("cd " + ShellQuote(dir.path().string()) + " && " + Safesubst() +
                                                 " init --values dev.env --set PORT=8080 t.yaml");
  REQUIRE(result.code == 0);
  CHECK(result.out.find("  STAGE: {type: string}") != std::string::npos);
  // Given, so declared although only used in a script; a string there (a number only as a whole value).
  CHECK(result.out.find("  PORT: {type: string}") != std::string::npos);
  CHECK(result.out.find("  R: {type: int}") != std::string::npos);
  CHECK(result.out.find("runtime: []") != std::string::npos);
  CHECK(RunShell("cd " + ShellQuote(dir.path().string()) + " && " + Safesubst() + " init --set 'bad name=1' t.yaml")
            .code == 1);
}

}  // namespace
}  // namespace safesubst
