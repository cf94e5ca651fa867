// SPDX-License-Identifier: Apache-2.0
// Each distinct shell script is lexed once, and a repeat gets the same answer.
#include "script_contexts.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <functional>
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
  ReferenceContexts at;
  at.Assign(mine.size());
  contexts->At(text, tokens.scalars[index], mine.front(), mine.size(), &at);
  std::vector<ShellContext> found;
  for (std::size_t i = 0; i < mine.size(); ++i) found.push_back(*at[i]);
  return found;
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

TEST_CASE("script contexts: a script keeping its trailing lines is lexed each time") {
  const std::string text = "a: |+\n  echo $A\n\nb: |+\n  echo \"$A\"\n";
  const Tokens tokens = Tokenize(text);
  REQUIRE(tokens.diagnostics.empty());
  ScriptContexts contexts;
  ReferenceContexts found;
  found.Assign(2);
  contexts.At(text, tokens.scalars[ScalarWith(text, tokens, "echo", 0)], &tokens.references[0], 1, &found, 0);
  contexts.At(text, tokens.scalars[ScalarWith(text, tokens, "echo", 1)], &tokens.references[1], 1, &found, 1);
  CHECK(contexts.lexed() == 2);
  CHECK(found[0]->state == ShellState::kUnquoted);
  CHECK(found[1]->state == ShellState::kDoubleQuoted);
}

// A script with a million placeholders has a handful of distinct contexts:
// a reference costs a byte naming its context, not a copy of it.
TEST_CASE("script contexts: equal contexts are one object, different ones are not") {
  std::string text = "run: |\n";
  for (int line = 0; line < 100; ++line) text += "  echo $A \"$A\" $A\n";
  const Tokens tokens = Tokenize(text);
  REQUIRE(tokens.diagnostics.empty());
  REQUIRE(tokens.references.size() == 300);
  ScriptContexts contexts;
  ReferenceContexts found;
  found.Assign(300);
  contexts.At(text, tokens.scalars[1], tokens.references.data(), tokens.references.size(), &found);
  for (std::size_t i = 0; i < 300; i += 3) {
    CHECK(found[i] == found[0]);
    CHECK(found[i + 1] == found[1]);
    CHECK(found[i + 2] == found[2]);
  }
  CHECK(found[0]->state == ShellState::kUnquoted);
  CHECK(found[1]->state == ShellState::kDoubleQuoted);
  CHECK(found[0] != found[1]);
}

TEST_CASE("reference contexts: a byte a reference, a pointer each once more than 255 contexts differ") {
  std::vector<ShellContext> distinct(300);
  for (std::size_t i = 0; i < distinct.size(); ++i) distinct[i].line_before = std::to_string(i);
  ReferenceContexts contexts;
  contexts.Assign(600);
  CHECK(contexts[599] == nullptr);
  for (std::size_t i = 0; i < 600; ++i) contexts.Set(i, &distinct[i % 3]);
  for (std::size_t i = 0; i < 600; ++i) CHECK(contexts[i] == &distinct[i % 3]);
  for (std::size_t i = 0; i < 600; ++i) contexts.Set(i, &distinct[i / 2]);  // 300 differ: past a byte
  for (std::size_t i = 0; i < 600; ++i) CHECK(contexts[i] == &distinct[i / 2]);
  contexts.Assign(2);
  CHECK(contexts[0] == nullptr);
  contexts.Set(1, &distinct[7]);
  CHECK(contexts[1] == &distinct[7]);
  contexts.clear();
  CHECK(contexts.empty());
}

// ScriptContexts takes each context from the lexer as it is read; where the
// second-order or the other shells' readings are added afterwards, from the
// whole vector. Either way it answers what ShellContextsAt answers.
TEST_CASE("script contexts: the answers are ShellContextsAt's, also with sinks and other shells' readings") {
  for (const std::string script : {"echo \"$A\" '$B' $C | tr a b > \"$D\"\n",
                                   "sh -c \"echo $A; echo '$B'\"\necho $C\n",
                                   "echo $'x' \"$A\" $B\n(( n = 1 )); echo $C\n",
                                   "cat <<EOF\nline $A and \"$B\"\nEOF\necho `echo $C`\n"}) {
    CAPTURE(script);
    std::string text = "run: |\n";
    std::size_t at = 0;
    while (at < script.size()) {
      const std::size_t end = script.find('\n', at) + 1;
      text += "  " + script.substr(at, end - at);
      at = end;
    }
    const Tokens tokens = Tokenize(text);
    REQUIRE(tokens.diagnostics.empty());
    std::vector<std::size_t> dollars;
    for (std::size_t i = script.find('$'); i != std::string::npos; i = script.find('$', i + 1)) {
      if (script[i + 1] != '\'') dollars.push_back(i);
    }
    REQUIRE(tokens.references.size() == dollars.size());
    const std::vector<ShellContext> expected = ShellContextsAt(script, dollars, nullptr, ScriptShells::kSh);
    ScriptContexts contexts;
    ReferenceContexts found;
    found.Assign(tokens.references.size());
    contexts.At(text, tokens.scalars[1], tokens.references.data(), tokens.references.size(), &found);
    for (std::size_t i = 0; i < expected.size(); ++i) CHECK(*found[i] == expected[i]);
  }
}

TEST_CASE("script contexts: contexts that differ in one field only hash apart (no bucket of look-alikes)") {
  // Each variant changes one field of `base`; a field the hash left out
  // would give its variant the base's hash (the attacker's 32,000
  // here-documents, one delimiter each, took 36 s that way).
  ShellContext base;
  std::vector<std::function<void(ShellContext*)>> changes = {
      [](ShellContext* c) { c->state = ShellState::kDoubleQuoted; },
      [](ShellContext* c) { c->substitution_depth = 1; },
      [](ShellContext* c) { c->in_backticks = true; },
      [](ShellContext* c) { c->in_case_pattern = true; },
      [](ShellContext* c) { c->backtick_layers = {true}; },
      [](ShellContext* c) { c->backtick_layers = {false}; },
      [](ShellContext* c) { c->parameter_word = ParameterWord::kValue; },
      [](ShellContext* c) { c->bash_brace_expansion = true; },
      [](ShellContext* c) { c->word_start = true; },
      [](ShellContext* c) { c->whole_word = true; },
      [](ShellContext* c) { c->command_word = true; },
      [](ShellContext* c) { c->name_before = true; },
      [](ShellContext* c) { c->equals_after = true; },
      [](ShellContext* c) { c->inside_heredoc = true; },
      [](ShellContext* c) { c->heredoc_delimiter = "EOF1"; },
      [](ShellContext* c) { c->heredoc_strip_tabs = true; },
      [](ShellContext* c) { c->line_before = "echo "; },
      [](ShellContext* c) { c->line_after = " x"; },
      [](ShellContext* c) { c->posh_scans_unquoted = true; },
      [](ShellContext* c) { c->unsupported = "why"; },
      [](ShellContext* c) { c->operand = ShellOperand::kArithmetic; },
      [](ShellContext* c) { c->evaluated_by = "`let`"; },
      [](ShellContext* c) { c->program_stops = "/\\"; },
      [](ShellContext* c) { c->sink = "`sh -c`"; },
      [](ShellContext* c) { c->reread.emplace_back(); },
      [](ShellContext* c) { c->reread.emplace_back().heredoc_delimiter = "EOF2"; },
      [](ShellContext* c) { c->other_readings.push_back({"dash", ShellContext{}}); },
      [](ShellContext* c) { c->other_readings.push_back({"busybox sh", ShellContext{}}); },
  };
  std::vector<std::size_t> hashes = {ShellContextHash(base)};
  for (const auto& change : changes) {
    ShellContext variant = base;
    change(&variant);
    REQUIRE(!(variant == base));
    hashes.push_back(ShellContextHash(variant));
  }
  std::vector<std::size_t> sorted = hashes;
  std::sort(sorted.begin(), sorted.end());
  CHECK(std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end());

  std::vector<std::size_t> delimiters;
  for (int i = 0; i < 1000; ++i) {
    ShellContext here = base;
    here.heredoc_delimiter = "EOF" + std::to_string(i);
    delimiters.push_back(ShellContextHash(here));
  }
  std::sort(delimiters.begin(), delimiters.end());
  CHECK(std::adjacent_find(delimiters.begin(), delimiters.end()) == delimiters.end());
}

}  // namespace
}  // namespace safesubst
