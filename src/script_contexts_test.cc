// SPDX-License-Identifier: Apache-2.0
// Each distinct shell script is lexed once, and a repeat gets the same answer.
#include "script_contexts.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

namespace safesubst {
namespace {

// The contexts of every reference of scalar `index` of `text`.
std::vector<ShellContext> ContextsOf(ScriptContexts* contexts, const std::string& text, const Tokens& tokens,
                                     std::uint32_t index) {
  std::vector<const Reference*> mine;
  for (const Reference& reference : tokens.references) {
    if (reference.scalar == index) mine.push_back(&reference);
  }
  REQUIRE(!mine.empty());
  return contexts->At(text, tokens.scalars[index], mine.front(), mine.size());
}

// The index of the n-th scalar whose decoded text contains `needle`.
std::uint32_t ScalarWith(const std::string& text, const Tokens& tokens, const std::string& needle, int n = 0) {
  for (std::uint32_t i = 0; i < tokens.scalars.size(); ++i) {
    if (DecodeScalar(text, tokens.scalars[i]).find(needle) != std::string::npos && n-- == 0) return i;
  }
  FAIL("no scalar holds " << needle);
  return 0;
}

TEST_CASE("script contexts: a repeated script is lexed once and answers alike") {
  const std::string script = "    - |\n      echo \"$A\" '$B' $C\n";
  const std::string text = "a:\n" + script + "b:\n" + script + "c:\n" + script;
  const Tokens tokens = Tokenize(text);
  REQUIRE(tokens.diagnostics.empty());
  ScriptContexts contexts;
  const auto first = ContextsOf(&contexts, text, tokens, ScalarWith(text, tokens, "echo", 0));
  const auto third = ContextsOf(&contexts, text, tokens, ScalarWith(text, tokens, "echo", 2));
  CHECK(contexts.lexed() == 1);
  REQUIRE(first.size() == 3);
  REQUIRE(third.size() == 3);
  CHECK(first[0].state == ShellState::kDoubleQuoted);
  CHECK(first[1].state == ShellState::kSingleQuoted);
  CHECK(first[2].state == ShellState::kUnquoted);
  for (std::size_t i = 0; i < 3; ++i) CHECK(third[i].state == first[i].state);
}

TEST_CASE("script contexts: the same words at another indentation or in another style are lexed again") {
  const std::string text =
      "a:\n  - |\n    echo '$A'\nb:\n  - |\n      echo '$A'\nc:\n  - \"echo '$A'\"\nd:\n  - |\n    echo \"$A\"\n";
  const Tokens tokens = Tokenize(text);
  REQUIRE(tokens.diagnostics.empty());
  ScriptContexts contexts;
  for (int n = 0; n < 3; ++n) {
    const auto found = ContextsOf(&contexts, text, tokens, ScalarWith(text, tokens, "'$A'", n));
    REQUIRE(found.size() == 1);
    CHECK(found[0].state == ShellState::kSingleQuoted);
  }
  const auto quoted = ContextsOf(&contexts, text, tokens, ScalarWith(text, tokens, "\"$A\""));
  REQUIRE(quoted.size() == 1);
  CHECK(quoted[0].state == ShellState::kDoubleQuoted);
  CHECK(contexts.lexed() == 4);
}

TEST_CASE("script contexts: a script keeping its trailing lines is lexed each time, and earlier answers stay valid") {
  const std::string text = "a: |+\n  echo $A\n\nb: |+\n  echo $A\n";
  const Tokens tokens = Tokenize(text);
  REQUIRE(tokens.diagnostics.empty());
  ScriptContexts contexts;
  const ShellContext& first = contexts.At(text, tokens.scalars[ScalarWith(text, tokens, "echo", 0)],
                                          &tokens.references[0], 1)[0];
  const ShellContext& second = contexts.At(text, tokens.scalars[ScalarWith(text, tokens, "echo", 1)],
                                           &tokens.references[1], 1)[0];
  CHECK(contexts.lexed() == 2);
  CHECK(&first != &second);
  CHECK(first.state == ShellState::kUnquoted);
  CHECK(second.state == ShellState::kUnquoted);
}

}  // namespace
}  // namespace safesubst
