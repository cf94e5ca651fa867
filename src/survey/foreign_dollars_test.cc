// SPDX-License-Identifier: Apache-2.0
#include "foreign_dollars.h"

#include <doctest/doctest.h>

#include <string>

namespace safesubst {
namespace {

// The first reference of a one-document template, tested as IsForeignDollar does.
bool FirstIsForeign(const std::string& text) {
  const Tokens tokens = Tokenize(text);
  REQUIRE_FALSE(tokens.references.empty());
  return IsForeignDollar(text, tokens, tokens.references.front());
}

TEST_CASE("foreign dollars: names of nginx, PowerShell, JSON Schema and strategic merge") {
  for (const char* name : {"host", "request_uri", "http_x_forwarded_for", "arg_page", "upstream_addr", "null", "NULL",
                           "True", "false", "env", "LASTEXITCODE", "ref", "schema", "defs", "patch", "retainKeys"}) {
    CAPTURE(name);
    CHECK(IsForeignDollarName(name));
  }
  for (const char* name : {"HOST", "APP", "REF", "TENANT_ID", "hostx", "nullable"}) {
    CAPTURE(name);
    CHECK_FALSE(IsForeignDollarName(name));
  }
}

TEST_CASE("foreign dollars: a bare $name inside {{ }} or as a whole key, never a braced one") {
  CHECK(FirstIsForeign("a: '{{ $labels.job }}'\n"));
  CHECK(FirstIsForeign("a: \"{{- range $k, $v := .x }}\"\n"));
  CHECK(FirstIsForeign("$special: x\n"));
  CHECK(FirstIsForeign("\"$special\": x\n"));
  CHECK_FALSE(FirstIsForeign("a: '{{ ${X} }}'\n"));
  CHECK_FALSE(FirstIsForeign("a: '{{ x }} $APP'\n"));
  CHECK_FALSE(FirstIsForeign("$APP-x: y\n"));  // part of a key: a deploy-time name in it
  CHECK_FALSE(FirstIsForeign("a: $APP\n"));
}

}  // namespace
}  // namespace safesubst
