// SPDX-License-Identifier: Apache-2.0
#include <doctest/doctest.h>

#include "safesubst/render.h"

using namespace safesubst;

TEST_CASE("RenderString: a template and its values in one call, encoded as Render encodes them") {
  RenderResult result = RenderString("app: ${APP}\nport: \"${PORT}\"\nlabel: ${APP}-${PORT}\n",
                                     {{"APP", "web: 1"}, {"PORT", "8080"}});
  REQUIRE(result.ok());
  CHECK(result.diagnostics.empty());
  CHECK(result.output == "app: \"web: 1\"\nport: \"8080\"\nlabel: \"web: 1-8080\"\n");
}

TEST_CASE("RenderString: another name in data is an error, a script's own variable is kept") {
  RenderResult missing = RenderString("a: ${APP}\nb: ${OTHER}\n", {{"APP", "web"}});
  CHECK_FALSE(missing.ok());
  CHECK(missing.output.empty());
  REQUIRE_FALSE(missing.diagnostics.empty());
  CHECK(missing.diagnostics[0].message == "undeclared variable 'OTHER' in a data context");
  RenderResult script = RenderString("command: [sh, -c, 'echo \"${APP}\" $HOME']\n", {{"APP", "a $b"}});
  REQUIRE(script.ok());
  CHECK(script.output == "command: [sh, -c, 'echo \"a \\$b\" $HOME']\n");
}

TEST_CASE("RenderString: a name that is no variable name is an error, and nothing is rendered") {
  RenderResult result = RenderString("a: ${A}\n", {{"A", "1"}, {"my-var", "x"}});
  CHECK_FALSE(result.ok());
  CHECK(result.output.empty());
  REQUIRE(result.diagnostics.size() == 1);
  CHECK(result.diagnostics[0].message == "'my-var' is not a variable name");
}
