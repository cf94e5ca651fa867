// SPDX-License-Identifier: Apache-2.0
#include "program_variables.h"

#include <doctest/doctest.h>

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "shell_lexer.h"

namespace safesubst {
namespace {

// The words of the last command of `script` (its command word first).
struct LastCommand : CommandReader {
  ShCommand last;
  void CommandEnded(ShCommand command) override {
    if (!command.words.empty()) last = std::move(command);
  }
};

// What the command word of the last command of `script` stands for, joined by `|`.
std::string ProgramWords(std::string_view script) {
  LastCommand reader;
  ReadShell(script, &reader);
  const std::optional<std::vector<ShWord>> words = ProgramVariables(script).WordsOf(reader.last.words.front());
  if (!words) return "?";
  std::string joined;
  for (const ShWord& word : *words) joined += (joined.empty() ? "" : "|") + word.text;
  return joined;
}

TEST_CASE("program variables: a command word is the program the script assigned, when the script says all") {
  CHECK(ProgramWords("CURL=\"curl -fsS --retry 3\"\n$CURL \"$URL\"") == "curl|-fsS|--retry|3");
  CHECK(ProgramWords("CMD='sh -c'; ${CMD} x") == "sh|-c");
  CHECK(ProgramWords("CMD='sh -c'; \"$CMD\" x") == "sh -c");  // quoted: one word
  CHECK(ProgramWords("export E=eval; $E x") == "eval");
  CHECK(ProgramWords("C=curl; C=curl; $C x") == "curl");
  // Not said: from the environment, assigned after, assigned otherwise, or named as a word.
  CHECK(ProgramWords("$CURL x") == "?");
  CHECK(ProgramWords("$C x; C=curl") == "?");
  CHECK(ProgramWords("C=curl; C=wget; $C x") == "?");
  CHECK(ProgramWords("C=curl; C=\"$X\"; $C x") == "?");
  CHECK(ProgramWords("C=curl; C+=' -s'; $C x") == "?");
  CHECK(ProgramWords("C=curl; read C; $C x") == "?");
  CHECK(ProgramWords("C=curl; for C in sh; do $C x; done") == "?");
  CHECK(ProgramWords("C=curl; unset C; $C x") == "?");
  CHECK(ProgramWords("C=curl; $C$D x") == "?");
  CHECK(WholeWordVariable(ShWord{}).empty());
}

}  // namespace
}  // namespace safesubst
