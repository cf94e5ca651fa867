// SPDX-License-Identifier: Apache-2.0
#include "shell_commands.h"

#include <algorithm>
#include <utility>

namespace safesubst {

namespace {

bool IsBlank(char c) { return c == ' ' || c == '\t' || c == '\r'; }

}  // namespace

void CommandReader::ListEnd() {
  FinishCommand(false);
  lists_.pop_back();
}

void CommandReader::CommandEnd(bool piped) { FinishCommand(piped); }

void CommandReader::FinishCommand(bool piped) {
  ShCommand& command = lists_.back().command;
  command.piped = piped;
  CommandEnded(std::move(command));
  command = ShCommand{};
}

void CommandReader::WordBegin(std::size_t offset) {
  List& list = lists_.back();
  list.word = ShWord{};
  list.word.begin = offset;
  list.unquoted_text = false;
  list.quoted_nonblank = false;
}

void CommandReader::AddPiece(ShPiece::Kind kind, std::string_view text, std::size_t offset) {
  ShWord& word = lists_.back().word;
  word.pieces.push_back(ShPiece{kind, word.text.size(), offset, text.size()});
  word.text.append(text);
}

void CommandReader::WordText(std::string_view text, std::size_t offset, ShellQuoting quoting) {
  List& list = lists_.back();
  AddPiece(quoting == ShellQuoting::kAnsiC ? ShPiece::kUndecoded : ShPiece::kText, text, offset);
  const bool in_quotes = quoting == ShellQuoting::kQuoted || quoting == ShellQuoting::kAnsiC;
  if (quoting != ShellQuoting::kUnquoted) list.word.quoted = true;
  if (!in_quotes) list.unquoted_text = true;
  if (in_quotes && !std::all_of(text.begin(), text.end(), IsBlank)) list.quoted_nonblank = true;
}

void CommandReader::WordExpansion(std::string_view raw, std::size_t offset, bool /*quoted*/) {
  AddPiece(ShPiece::kExpansion, raw, offset);
  lists_.back().word.has_expansion = true;
}

void CommandReader::WordEnd(std::size_t end, std::string_view /*raw*/, ShellWordRole role) {
  List& list = lists_.back();
  ShWord& word = list.word;
  word.end = end;
  word.role = role;
  word.blank_quoted = word.quoted && !list.unquoted_text && !word.has_expansion && !list.quoted_nonblank;
  ShCommand& command = list.command;
  switch (role) {
    case ShellWordRole::kCasePattern:
    case ShellWordRole::kIoNumber: return;
    case ShellWordRole::kReservedWord:
      if (command.words.empty()) return;  // `then EFS_IP=""` is the command `EFS_IP=""`
      break;
    case ShellWordRole::kRedirectTarget:
      if (!command.redirects.empty()) {
        command.redirects.back().target = std::move(word);
        return;
      }
      break;
    default: break;
  }
  command.words.push_back(std::move(word));
  if (role == ShellWordRole::kCaseIn) FinishCommand(false);
}

void CommandReader::Redirection(std::string_view op, std::size_t offset) {
  ShRedirect redirect;
  redirect.op = std::string(op);
  redirect.begin = offset;
  lists_.back().command.redirects.push_back(std::move(redirect));
}

}  // namespace safesubst
