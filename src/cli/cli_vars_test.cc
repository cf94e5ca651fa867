// SPDX-License-Identifier: Apache-2.0
// `safesubst vars --format json`: each reference with its action and reason,
// valid JSON whatever the file name, and exit 1 when the render would fail.
#include <doctest/doctest.h>

#include <string>

#include "json_text.h"
#include "test_support.h"

namespace safesubst {
namespace {

using testing::CommandResult;
using testing::RunShell;
using testing::Safesubst;
using testing::ShellQuote;
using testing::TempDir;
using testing::WriteFile;

struct Project {
  TempDir dir;
  Project() {
    WriteFile(dir / "m.yaml", "variables:\n  APP: {type: string}\n  PORT: {type: int}\n");
    WriteFile(dir / "t.yaml",
              "name: \"${APP}\"\nport: ${PORT}\nlit: \"$${APP}\"\n"
              "script: |\n  echo \"$HOME\"\n");
  }
  CommandResult Vars(const std::string& arguments) const {
    return RunShell("cd " + ShellQuote(dir.path().string()) + " && " + Safesubst() + " vars --format json -m m.yaml " +
                    arguments);
  }
};

// The reference written as `text`; a pointer into `references`, which must outlive it.
const Json* Find(const Json& references, const std::string& text) {
  for (const Json& reference : references) {
    if (reference["text"] == text) return &reference;
  }
  return nullptr;
}

TEST_CASE("vars json: every reference carries its action and the reason for it") {
  Project project;
  const CommandResult run = project.Vars("--set APP=a --set PORT=8080 t.yaml");
  CHECK(run.code == 0);
  const Json references = Json::parse(run.out);
  REQUIRE(references.is_array());
  const Json* app = Find(references, "${APP}");
  REQUIRE(app != nullptr);
  CHECK((*app)["action"] == "substitute");
  CHECK((*app)["fails_render"] == false);
  CHECK_FALSE((*app)["reason"].get<std::string>().empty());
  const Json* home = Find(references, "$HOME");
  REQUIRE(home != nullptr);
  CHECK((*home)["reason"].get<std::string>().find("shell") != std::string::npos);
  REQUIRE(Find(references, "$${APP}") != nullptr);
}

TEST_CASE("vars json: a reference that would fail the render says why, and vars exits 1") {
  Project project;
  // PORT has no value; APP's value is fine.
  const CommandResult missing = project.Vars("--set APP=a t.yaml");
  CHECK(missing.code == 1);
  const Json missing_references = Json::parse(missing.out);
  const Json* port = Find(missing_references, "${PORT}");
  REQUIRE(port != nullptr);
  CHECK((*port)["action"] == "error");
  CHECK((*port)["fails_render"] == true);
  CHECK((*port)["reason"].get<std::string>().find("PORT") != std::string::npos);
  // An undeclared ${NAME} in data fails too, with its own reason.
  WriteFile(project.dir / "u.yaml", "a: \"${APP}\"\nb: \"${APP_NAEM}\"\n");
  const CommandResult undeclared = project.Vars("--set APP=a --set PORT=1 u.yaml");
  CHECK(undeclared.code == 1);
  const Json undeclared_references = Json::parse(undeclared.out);
  const Json* typo = Find(undeclared_references, "${APP_NAEM}");
  REQUIRE(typo != nullptr);
  CHECK((*typo)["reason"].get<std::string>().find("undeclared") != std::string::npos);
}

TEST_CASE("vars json: a file name that is not UTF-8 still gives valid JSON") {
  Project project;
  WriteFile(project.dir / "caf\xe9.yaml", "a: \"${APP}\"\n");
  const CommandResult run = project.Vars(std::string("--set APP=a ") + ShellQuote("caf\xe9.yaml"));
  CHECK(run.code == 0);
  REQUIRE(Json::accept(run.out));
  CHECK(Json::parse(run.out)[0]["file"] == "caf\xef\xbf\xbd.yaml");
}

TEST_CASE("explain and vars take render's options: what they call an error is what render refuses") {
  Project project;
  WriteFile(project.dir / "u.yaml", "a: $LOOSE\nb: ${UNDECLARED}\nc: \"${APP}\"\n");
  auto action = [&](const std::string& arguments, const std::string& text) {
    const CommandResult run = project.Vars(arguments + " u.yaml");
    const Json references = Json::parse(run.out);
    const Json* reference = Find(references, text);
    REQUIRE(reference != nullptr);
    return (*reference)["action"].get<std::string>();
  };
  auto render = [&](const std::string& arguments) {
    return RunShell("cd " + ShellQuote(project.dir.path().string()) + " && " + Safesubst() + " render -m m.yaml " +
                    arguments + " u.yaml").code;
  };
  CHECK(action("--set APP=a", "$LOOSE") == "keep (undeclared)");
  CHECK(action("--set APP=a --strict", "$LOOSE") == "error");
  CHECK(render("--set APP=a --strict --allow-undeclared") == 1);
  CHECK(action("--set APP=a", "${UNDECLARED}") == "error");
  CHECK(action("--set APP=a --allow-undeclared", "${UNDECLARED}") == "keep (undeclared)");
  CHECK(render("--set APP=a --allow-undeclared") == 0);
  CHECK(project.Vars("--set APP=a --allow-undeclared u.yaml").code == 0);
  CHECK(project.Vars("--set APP=a --allow-undeclared --strict u.yaml").code == 1);
  // A limit: a value over --max-value-size fails render and explain alike.
  CHECK(render("--set APP=abcdef --allow-undeclared --max-value-size 3") == 1);
  const CommandResult limited = project.Vars("--set APP=abcdef --allow-undeclared --max-value-size 3 u.yaml");
  CHECK(limited.code == 1);
}

}  // namespace
}  // namespace safesubst
