// SPDX-License-Identifier: Apache-2.0
#include "shell_commands.h"

#include <algorithm>
#include <utility>

#include "command_line.h"
#include "references.h"

namespace safesubst {

namespace {

bool IsBlank(char c) { return c == ' ' || c == '\t' || c == '\r'; }

// Programs that run a command given after their own words, beyond the
// container wrappers of command_line.h; `command`, `builtin`, `exec`,
// `noglob` and `nocorrect` are the shells' own prefix words (`time` and `!`
// are reserved words, which CommandReader drops in front).
constexpr std::string_view kRunners[] = {"exec",   "command", "builtin", "noglob", "nocorrect", "xargs",
                                         "find",   "kubectl", "time",    "doas",   "flock",     "unshare",
                                         "nsenter", "docker", "podman",  "crictl", "oc"};

// A runner's own word: an option, an assignment (`env A=1`) or a number (`nice -n 5`, `timeout 5s`).
bool IsRunnerWord(const ShWord& word) {
  const std::string& text = word.text;
  return (!text.empty() && (text[0] == '-' || (text[0] >= '0' && text[0] <= '9'))) || IsShellAssignment(text);
}

}  // namespace

std::optional<ShWord> AssignedValue(const ShWord& word) {
  for (std::size_t p = 0; p < word.pieces.size(); ++p) {
    const ShPiece& piece = word.pieces[p];
    if (piece.kind != ShPiece::kText) continue;
    const std::size_t at = std::string_view(word.text).substr(piece.text_begin, piece.length).find('=');
    if (at == std::string_view::npos) continue;
    const std::size_t cut = piece.text_begin + at + 1;  // in word.text
    ShWord value = word;
    value.begin = piece.offset + at + 1;
    value.text.erase(0, cut);
    value.pieces.erase(value.pieces.begin(), value.pieces.begin() + static_cast<std::ptrdiff_t>(p));
    value.pieces.front().offset += at + 1;
    value.pieces.front().length -= at + 1;
    for (ShPiece& rest : value.pieces) rest.text_begin = rest.text_begin > cut ? rest.text_begin - cut : 0;
    return value;
  }
  return std::nullopt;
}

std::string AssignedName(const ShWord& word, bool declaration) {
  std::size_t end = 0;
  while (end < word.text.size() && IsNameChar(word.text[end])) ++end;
  if (end == 0 || !IsNameStart(word.text[0])) return {};
  if (end == word.text.size()) return declaration ? word.text : std::string();
  const char next = word.text[end];
  return next == '=' || next == '+' || next == '[' ? word.text.substr(0, end) : std::string();
}

std::string_view NamesAsRead(std::string_view script, std::string* storage) {
  if (script.find_first_of("'\"\\") == std::string_view::npos) return script;
  storage->clear();
  storage->reserve(script.size());
  for (std::size_t i = 0; i < script.size(); ++i) {
    const char c = script[i];
    if (c == '\\' && i + 1 < script.size() && script[i + 1] == '\n') {
      ++i;
    } else if (c != '\'' && c != '"' && c != '\\') {
      storage->push_back(c);
    }
  }
  return *storage;
}

bool IsDeclaration(std::string_view program) {
  for (std::string_view name : {"declare", "typeset", "local", "export", "readonly", "integer", "nameref"}) {
    if (program == name) return true;
  }
  return false;
}

bool IsRunner(std::string_view program) {
  if (IsCommandWrapper(program)) return true;
  return std::find(std::begin(kRunners), std::end(kRunners), ProgramBaseName(program)) != std::end(kRunners);
}

std::size_t EnvCommand(const std::vector<ShWord>& words, std::size_t env) {
  std::size_t i = env + 1;
  for (; i < words.size(); ++i) {
    const std::string& word = words[i].text;
    if (word == "-" || word == "--") {
      ++i;
      break;
    }
    if (word.size() < 2 || word[0] != '-') break;
    const bool takes_argument = word == "--unset" || word == "--chdir" || word == "--split-string" ||
                                (word.size() == 2 && std::string_view("uCSP").find(word[1]) != std::string_view::npos);
    i += takes_argument ? 1 : 0;
  }
  while (i < words.size() && words[i].text.find('=') != std::string::npos) ++i;  // env reads any `=` so
  return i;
}

std::size_t CommandAfterRunners(const std::vector<ShWord>& words, std::size_t name) {
  while (name < words.size() && IsRunner(words[name].text)) {
    if (ProgramBaseName(words[name].text) == "env") {
      name = EnvCommand(words, name);
      continue;
    }
    ++name;
    while (name < words.size() && IsRunnerWord(words[name])) ++name;
  }
  return name;
}

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
  // `time -p cmd`: the options of the reserved word `time` go with it.
  const bool time_option = std::exchange(list.after_time, false) && command.words.empty() && word.text.starts_with("-");
  if (time_option) return;
  switch (role) {
    case ShellWordRole::kCasePattern:
    case ShellWordRole::kIoNumber: return;
    case ShellWordRole::kReservedWord:
      if (command.words.empty()) {  // `then EFS_IP=""` is the command `EFS_IP=""`
        list.after_time = word.text == "time";
        return;
      }
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
