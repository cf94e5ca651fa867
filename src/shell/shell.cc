// SPDX-License-Identifier: Apache-2.0
// Names and descriptions of shell states, and the `#!` test. The lexer is in
// shell_lexer.cc, the encoder in shell_encoding.cc.
#include "shell.h"

#include <vector>

#include "command_line.h"

namespace safesubst {

std::string_view ShellStateName(ShellState state) {
  switch (state) {
    case ShellState::kUnquoted: return "unquoted";
    case ShellState::kSingleQuoted: return "single-quoted";
    case ShellState::kDoubleQuoted: return "double-quoted";
    case ShellState::kComment: return "comment";
    case ShellState::kHeredocLiteral: return "here-document (quoted delimiter)";
    case ShellState::kHeredocExpanding: return "here-document";
    case ShellState::kArithmetic: return "arithmetic";
    case ShellState::kDollarSingleQuoted: return "$'...'";
  }
  return "unknown";
}

std::string DescribeShellContext(const ShellContext& context) {
  std::string text(ShellStateName(context.state));
  if (context.parameter_word == ParameterWord::kValue) text += ", in the word of ${...}";
  if (context.parameter_word == ParameterWord::kPattern) text += ", in a ${...} pattern";
  if (context.state == ShellState::kUnquoted && context.command_word) text += ", command name";
  if (context.in_case_pattern) text += ", in a case pattern";
  std::size_t backticks = context.backtick_layers.size();
  std::size_t parens = context.substitution_depth >= backticks ? context.substitution_depth - backticks : 0;
  if (parens == 1) text += ", inside $(...)";
  if (parens > 1) text += ", inside " + std::to_string(parens) + " levels of $(...)";
  if (backticks == 1) text += ", inside backticks";
  if (backticks > 1) text += ", inside " + std::to_string(backticks) + " levels of backticks";
  if (!context.unsupported.empty()) text += " (no value can go here: " + context.unsupported + ")";
  if (!context.reread.empty()) {
    text += "; inside the string that " + context.sink + " runs as code: " + DescribeShellContext(context.reread[0]);
  }
  return text;
}

namespace {

// Splits a `#!` line into blank-separated words.
std::vector<std::string_view> Words(std::string_view line) {
  std::vector<std::string_view> words;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    std::size_t start = i;
    while (i < line.size() && line[i] != ' ' && line[i] != '\t') ++i;
    if (i > start) words.push_back(line.substr(start, i - start));
  }
  return words;
}

}  // namespace

std::string_view ShebangProgram(std::string_view text) {
  if (text.substr(0, 2) != "#!") return {};
  std::size_t end = std::min(text.find('\n'), text.size());
  std::string_view line = text.substr(2, end - 2);
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  std::vector<std::string_view> words = Words(line);
  if (words.empty()) return {};
  // `#!/usr/bin/env bash`, `#!/usr/bin/env -S python3 -u`, `#!/bin/busybox sh`:
  // the program is the first word after the launcher's own options.
  std::string_view launcher = ProgramBaseName(words[0]);
  if (launcher != "env" && launcher != "busybox") return words[0];
  for (std::size_t i = 1; i < words.size(); ++i) {
    if (words[i].front() == '-') continue;
    if (launcher == "env" && words[i].find('=') != std::string_view::npos) continue;  // env NAME=value
    return words[i];
  }
  return {};
}

std::string_view ShebangShell(std::string_view text) {
  const std::string_view program = ShebangProgram(text);
  return IsShellProgram(program) ? program : std::string_view();
}

ScriptShells ShellsRunning(std::string_view program) {
  std::string_view name = ShellName(program);
  for (std::string_view bash_like : {"bash", "zsh", "ksh", "ksh93", "mksh"}) {
    if (name == bash_like) return ScriptShells::kBash;
  }
  return ScriptShells::kSh;
}

}  // namespace safesubst
