// SPDX-License-Identifier: Apache-2.0
#include "shell_commands.h"

#include <doctest/doctest.h>

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace safesubst {
namespace {

// Every command the reader hands on, empty ones included.
struct Collector : CommandReader {
  std::vector<ShCommand> commands;
  void CommandEnded(ShCommand command) override { commands.push_back(std::move(command)); }
};

std::vector<ShCommand> NonEmptyCommands(std::string_view script) {
  Collector collector;
  ReadShell(script, &collector);
  std::vector<ShCommand> commands;
  for (ShCommand& command : collector.commands) {
    if (!command.words.empty() || !command.redirects.empty()) commands.push_back(std::move(command));
  }
  return commands;
}

TEST_CASE("shell commands: a word's text, piece by piece, with where each piece came from") {
  const std::string_view script = "A=1 echo x\"b $V\"$'\\n' 2>err | sh\n";
  const std::vector<ShCommand> commands = NonEmptyCommands(script);
  REQUIRE(commands.size() == 2);
  const ShCommand& echo = commands[0];
  CHECK(echo.piped);
  REQUIRE(echo.words.size() == 3);
  CHECK(echo.words[0].role == ShellWordRole::kAssignment);
  CHECK(echo.words[1].role == ShellWordRole::kCommandName);
  const ShWord& word = echo.words[2];
  CHECK(word.text == "xb $V\\n");
  CHECK(word.quoted);
  CHECK(word.has_expansion);
  // `x`, the empty text that opens "...", `b `, `$V`, then the inside of $'...'.
  REQUIRE(word.pieces.size() == 5);
  CHECK(word.pieces[0].kind == ShPiece::kText);
  CHECK(word.pieces[1].length == 0);
  CHECK(word.pieces[3].kind == ShPiece::kExpansion);
  CHECK(word.pieces[3].offset == script.find("$V"));
  CHECK(word.text.substr(word.pieces[3].text_begin, word.pieces[3].length) == "$V");
  CHECK(word.pieces[4].kind == ShPiece::kUndecoded);
  // The `2` of `2>err` is no word; `err` is the redirection's target.
  REQUIRE(echo.redirects.size() == 1);
  CHECK(echo.redirects[0].op == ">");
  CHECK(echo.redirects[0].target.text == "err");
  CHECK_FALSE(commands[1].piped);
}

TEST_CASE("shell commands: reserved words in front and case patterns are no words") {
  const std::vector<ShCommand> commands = NonEmptyCommands("if true; then X=\"\"; fi\ncase \"\" in a|b) ls;; esac\n");
  std::vector<std::vector<std::string>> words;
  for (const ShCommand& command : commands) {
    words.emplace_back();
    for (const ShWord& word : command.words) words.back().push_back(word.text);
  }
  CHECK(words == std::vector<std::vector<std::string>>{{"true"}, {"X="}, {"case", "", "in"}, {"ls"}});
  CHECK(commands[1].words[0].blank_quoted == false);  // `X=""` has unquoted text
  CHECK(commands[2].words[1].blank_quoted);
}

}  // namespace
}  // namespace safesubst
