// SPDX-License-Identifier: Apache-2.0
#include "shell_operands.h"

#include <algorithm>
#include <optional>
#include <set>
#include <string>

#include "command_line.h"
#include "lint_shell.h"
#include "references.h"
#include "shell_commands.h"
#include "shell_lexer.h"

namespace safesubst {

namespace {

// The commands whose words are evaluated, and the operators that make a
// test's operands arithmetic; `((` and `$[` for names used in arithmetic.
constexpr std::string_view kEvaluating[] = {"let",   "shift",   "unset",    "read",  "printf", "getopts",
                                            "declare", "typeset", "local",  "export", "readonly", "integer",
                                            "nameref", "alias",   "ulimit", "env",   "-eq",   "-ne",     "-lt",
                                            "-le",   "-gt",     "-ge",      "-v"};

// Variables whose value the shells expand again, running `$(...)` in it:
// the prompts (bash, dash, busybox, mksh, ksh, yash, zsh's PROMPT_SUBST),
// and the start-up file named by ENV (interactive shells) and BASH_ENV
// (every non-interactive bash).
constexpr std::string_view kExpandedAgain[] = {"PS0",     "PS1",      "PS2",  "PS3",  "PS4",     "PROMPT",
                                               "PROMPT2", "PROMPT3",  "PROMPT4", "RPROMPT", "RPROMPT2", "RPS1",
                                               "RPS2",    "SPROMPT",  "ENV",  "BASH_ENV"};

// Variables a shell keeps as integers, evaluating what is assigned to them:
// RANDOM and OPTIND in bash and mksh, the others in mksh.
constexpr std::string_view kIntegerVariables[] = {"RANDOM", "OPTIND", "SECONDS", "TMOUT", "COLUMNS", "LINES"};

template <std::size_t N>
bool IsOneOf(std::string_view name, const std::string_view (&names)[N]) {
  return std::find(std::begin(names), std::end(names), name) != std::end(names);
}

bool IsNumericTest(std::string_view op) {
  return op == "-eq" || op == "-ne" || op == "-lt" || op == "-le" || op == "-gt" || op == "-ge";
}

bool IsOption(const ShWord& word) { return word.text.size() > 1 && (word.text[0] == '-' || word.text[0] == '+'); }

// [begin, end) of the script, evaluated as `kind` by `by`.
struct Operand {
  std::size_t begin = 0, end = 0;
  ShellOperand kind = ShellOperand::kNone;
  std::string by;
};

// The names expanded in `word` as `$NAME` or `${NAME}`.
void AddExpandedNames(const ShWord& word, std::set<std::string>* names) {
  for (const ShPiece& piece : word.pieces) {
    if (piece.kind != ShPiece::kExpansion) continue;
    std::string_view raw = std::string_view(word.text).substr(piece.text_begin, piece.length);
    raw.remove_prefix(std::min<std::size_t>(raw.starts_with("${") ? 2 : 1, raw.size()));
    std::size_t end = 0;
    while (end < raw.size() && IsNameChar(raw[end])) ++end;
    if (end > 0 && IsNameStart(raw[0])) names->insert(std::string(raw.substr(0, end)));
  }
}

class OperandFinder {
 public:
  explicit OperandFinder(std::string_view script) : script_(script), model_(lint::ParseShell(script)) {
    // The names used in arithmetic: bare (`$((v+1))`) or expanded there (`$(($v+1))`).
    std::vector<std::size_t> expanded;
    for (const lint::ShRef& ref : model_.refs) {
      if (ref.op == ParameterOp::kArithmetic) arithmetic_names_.insert(ref.name);
      if (ref.op != ParameterOp::kArithmetic) expanded.push_back(ref.begin);
    }
    const std::vector<ShellContext> at_refs = ReadShellContexts(script, expanded);
    for (std::size_t i = 0, k = 0; i < model_.refs.size(); ++i) {
      if (model_.refs[i].op == ParameterOp::kArithmetic) continue;
      const ShellContext& context = at_refs[k++];
      if (context.state == ShellState::kArithmetic || context.operand == ShellOperand::kArithmetic) {
        arithmetic_names_.insert(model_.refs[i].name);
      }
    }
    for (std::string_view name : kIntegerVariables) {
      integer_names_.emplace(name);
      arithmetic_names_.emplace(name);
    }
    for (const ShCommand& command : model_.commands) ReadCommand(command);
    // Then the assignments, wherever they are: what is known of each name is known now.
    for (std::size_t c = 0; c < model_.commands.size(); ++c) {
      for (const ShWord& word : model_.commands[c].words) {
        if (word.role == ShellWordRole::kAssignment || assigning_args_.count(&word)) ReadAssignment(word);
      }
      if (c + 1 < model_.commands.size()) ReadArrayElements(model_.commands[c], model_.commands[c + 1]);
    }
  }

  const std::vector<Operand>& operands() const { return operands_; }

 private:
  void Whole(const ShWord& word, ShellOperand kind, const std::string& by) {
    operands_.push_back(Operand{word.begin, word.end, kind, by});
    if (kind == ShellOperand::kArithmetic) AddExpandedNames(word, &arithmetic_names_);
  }
  // The part after the `=` of an assignment word.
  void Value(const ShWord& word, ShellOperand kind, const std::string& by) {
    if (const std::optional<ShWord> value = AssignedValue(word)) {
      operands_.push_back(Operand{value->begin, word.end, kind, by});
    }
  }

  // `NAME=VALUE`, `NAME[SUBSCRIPT]=VALUE`: the value is arithmetic for a
  // name used in arithmetic, a name for a reference without a target, and
  // expanded again for a prompt; the subscript of an array that is not
  // associative is arithmetic (bash, zsh).
  void ReadAssignment(const ShWord& word) {
    const std::string name = AssignedName(word, /*declaration=*/false);
    if (name.empty()) return;
    const std::optional<ShWord> value = AssignedValue(word);
    if (word.text[name.size()] == '[' && value && !associative_names_.count(name)) {
      operands_.push_back(Operand{word.begin + name.size() + 1, value->begin, ShellOperand::kArithmetic,
                                  "`" + name + "[...]`, an array subscript"});
    }
    if (IsOneOf(name, kExpandedAgain)) Value(word, ShellOperand::kExpanded, "`" + name + "`");
    if (unset_references_.count(name)) {
      Value(word, ShellOperand::kName, "`" + name + "`, a reference without a target, whose value names one");
    }
    if (!arithmetic_names_.count(name)) return;
    const bool declared = integer_names_.count(name) != 0;
    Value(word, ShellOperand::kArithmetic,
          "`" + name + "`, " + (declared ? "an integer variable" : "which the script uses in arithmetic"));
  }

  // `n=(a b)`, `declare -ia n=(a b)`: the lexer ends the command at `(`, and
  // the elements are the next command. An integer array evaluates each
  // element as arithmetic (bash, zsh, mksh), running `a[$(cmd)]` in it.
  void ReadArrayElements(const ShCommand& command, const ShCommand& elements) {
    if (command.words.empty()) return;
    const ShWord& last = command.words.back();
    const std::string name = AssignedName(last, /*declaration=*/false);
    const std::optional<ShWord> value = AssignedValue(last);
    if (name.empty() || !value || !value->text.empty() || last.end >= script_.size() || script_[last.end] != '(') {
      return;
    }
    if (!integer_names_.count(name)) return;
    for (const ShWord& element : elements.words) {
      Whole(element, ShellOperand::kArithmetic, "`" + name + "`, an integer array");
    }
  }

  void ReadCommand(const ShCommand& command) {
    const std::vector<ShWord>& words = command.words;
    // `[[ a -eq 1 && b -gt 2 ]]`: the lexer ends a command at `&&` and `||`,
    // so the test goes on in the next commands, up to the one ending in `]]`.
    if (in_double_bracket_) {
      ReadTest(words, 0, "[[");
      in_double_bracket_ = words.empty() || words.back().text != "]]";
      return;
    }
    const int name_index = lint::CommandNameIndex(command, script_);
    if (name_index < 0) return;
    // The command behind prefix words: `command [`, `builtin test`.
    const std::size_t first = CommandAfterRunners(words, static_cast<std::size_t>(name_index)) + 1;
    ReadEnv(words);
    if (first > words.size()) return;
    const std::string_view name = ProgramBaseName(words[first - 1].text);
    const std::string by = "`" + std::string(name) + "`";
    if (name == "let") {
      for (std::size_t i = first; i < words.size(); ++i) Whole(words[i], ShellOperand::kArithmetic, by);
    } else if (name == "[" || name == "[[" || name == "test") {
      ReadTest(words, first, name);
      in_double_bracket_ = name == "[[" && words.back().text != "]]";
    } else if (name == "ulimit") {
      for (std::size_t i = first; i < words.size(); ++i) {
        if (!IsOption(words[i])) Whole(words[i], ShellOperand::kLimit, by);
      }
    } else if (name == "alias") {
      for (std::size_t i = first; i < words.size(); ++i) {
        if (!IsOption(words[i])) NamePart(words[i], by);
      }
    } else if (name == "shift") {
      if (first < words.size()) Whole(words[first], ShellOperand::kArithmetic, by);
    } else if (name == "unset" || name == "read") {
      for (std::size_t i = first; i < words.size(); ++i) {
        const bool takes_argument = name == "read" && words[i].text.size() == 2 &&
                                    std::string_view("dnNptui").find(words[i].text[1]) != std::string_view::npos;
        if (IsOption(words[i])) {
          // zsh evaluates the count of -n/-N and the time of -t, mksh the descriptor of -u.
          const bool counted = takes_argument && std::string_view("nNtu").find(words[i].text[1]) != std::string_view::npos;
          if (counted && i + 1 < words.size()) {
            Whole(words[i + 1], ShellOperand::kArithmetic, "`read " + words[i].text + "`");
          }
          i += takes_argument ? 1 : 0;
        } else {
          Whole(words[i], ShellOperand::kName, by);
        }
      }
    } else if (name == "printf") {
      for (std::size_t i = first; i + 1 < words.size(); ++i) {
        if (words[i].text != "-v") continue;
        Whole(words[i + 1], ShellOperand::kName, "`printf -v`");
        // `printf -v PS4 '%s' "${V}"` assigns the prompt; PROMPT_COMMAND's value is code.
        const std::string& variable = words[i + 1].text;
        const bool code = variable == "PROMPT_COMMAND";
        if (!code && !IsOneOf(variable, kExpandedAgain)) break;
        for (std::size_t k = i + 2; k < words.size(); ++k) {
          Whole(words[k], code ? ShellOperand::kName : ShellOperand::kExpanded, "`printf -v " + variable + "`");
        }
        break;
      }
    } else if (name == "getopts") {
      if (first + 1 < words.size()) Whole(words[first + 1], ShellOperand::kName, by);
    } else if (IsDeclaration(name)) {
      ReadDeclaration(words, first, name);
    }
  }

  // Each `env` (also `nice env`, `find -exec env`): its NAME=VALUE operands
  // are assignments (`env PS4=... sh -x`); in the word it runs, a value that
  // brings NAME= would make it one (`env "${V}" bash`, `env echo${V} cmd`).
  void ReadEnv(const std::vector<ShWord>& words) {
    for (std::size_t env = 0; env < words.size(); ++env) {
      if (ProgramBaseName(words[env].text) != "env") continue;
      const std::size_t command = EnvCommand(words, env);
      for (std::size_t i = env + 1; i < command; ++i) {
        if (IsShellAssignment(words[i].text)) assigning_args_.insert(&words[i]);
      }
      if (command < words.size() && words[command].has_expansion) {
        Whole(words[command], ShellOperand::kEnvOperand, "`env`");
      }
    }
  }

  // The operands of a test from `first` on: both sides of each numeric
  // comparison (`[ a -gt 1 -a b -lt 2 ]`), the name of each `-v`.
  void ReadTest(const std::vector<ShWord>& words, std::size_t first, std::string_view name) {
    for (std::size_t i = first; i < words.size(); ++i) {
      if (IsNumericTest(words[i].text)) {
        const std::string test = "`" + std::string(name) + " " + words[i].text + "`";
        if (i > first) Whole(words[i - 1], ShellOperand::kArithmetic, test);
        if (i + 1 < words.size()) Whole(words[i + 1], ShellOperand::kArithmetic, test);
      } else if (words[i].text == "-v" && i + 1 < words.size()) {
        Whole(words[i + 1], ShellOperand::kName, "`" + std::string(name) + " -v`");
      }
    }
  }

  // The name part of `NAME=VALUE`, or all of a word without `=`.
  std::optional<ShWord> NamePart(const ShWord& word, const std::string& by) {
    std::optional<ShWord> value = AssignedValue(word);
    operands_.push_back(Operand{word.begin, value ? value->begin - 1 : word.end, ShellOperand::kName, by});
    return value;
  }

  // `declare -i n=1 "arr=(a b)" name`: each name is a name; the value of an
  // integer's assignment is arithmetic, of a reference's (`declare -n`,
  // `nameref`) a name, and the inside of a compound assignment is read as
  // code again.
  void ReadDeclaration(const std::vector<ShWord>& words, std::size_t first, std::string_view name) {
    const std::string by = "`" + std::string(name) + "`";
    bool integer = name == "integer";
    bool reference = name == "nameref";  // `export -n` un-exports instead
    bool associative = false;
    for (std::size_t i = first; i < words.size(); ++i) {
      const ShWord& word = words[i];
      if (IsOption(word)) {
        const bool set = word.text[0] == '-';
        integer = integer || (set && word.text.find('i') != std::string::npos);
        reference = reference || (set && name != "export" && word.text.find('n') != std::string::npos);
        associative = associative || (set && word.text.find('A') != std::string::npos);
        continue;
      }
      assigning_args_.insert(&word);
      const std::optional<ShWord> value = NamePart(word, by);
      const std::string assigned = AssignedName(word, /*declaration=*/true);
      if (integer && !assigned.empty()) {
        integer_names_.insert(assigned);
        arithmetic_names_.insert(assigned);
      }
      if (reference && !value) unset_references_.insert(assigned);  // `declare -n r; r=NAME`
      if (associative) associative_names_.insert(assigned);
      if (reference) {
        Value(word, ShellOperand::kName, by + " (a reference, whose value names a variable)");
      } else if (value && value->text.starts_with("(")) {
        Value(word, ShellOperand::kName, by + " (a compound assignment, which it reads as code)");
      }
    }
  }

  std::string_view script_;
  lint::ShScript model_;
  std::vector<Operand> operands_;
  std::set<std::string> arithmetic_names_;  // assigning them a value makes it arithmetic
  std::set<std::string> integer_names_;
  std::set<const ShWord*> assigning_args_;  // arguments that assign: of declarations, of `env`
  std::set<std::string> unset_references_;  // assigning them a value names their target
  std::set<std::string> associative_names_;  // their subscripts are strings
  bool in_double_bracket_ = false;  // the commands read are inside `[[ ... ]]`
};

}  // namespace

namespace {

// `word` stands in `script` as a word of its own, followed by `after` when given.
bool HasWord(std::string_view script, std::string_view word, std::string_view after = {}) {
  for (std::size_t at = script.find(word); at != std::string_view::npos; at = script.find(word, at + 1)) {
    const std::size_t end = at + word.size();
    const bool starts = at == 0 || !IsNameChar(script[at - 1]);
    const bool ends = after.empty() ? end == script.size() || !IsNameChar(script[end])
                                    : script.substr(end).starts_with(after) || script.substr(end).starts_with("+=");
    if (starts && ends) return true;
  }
  return false;
}

}  // namespace

bool MayEvaluateOperands(std::string_view script) {
  std::string unquoted;
  script = NamesAsRead(script, &unquoted);  // `l''et` is `let`
  // The `#!` line (`#!/usr/bin/env bash`) evaluates nothing.
  if (script.substr(0, 2) == "#!") script.remove_prefix(std::min(script.find('\n'), script.size()));
  for (std::string_view form : {"((", "$[", "]=", "]+="}) {  // arithmetic, an array element's assignment
    if (script.find(form) != std::string_view::npos) return true;
  }
  for (std::string_view word : kEvaluating) {
    if (HasWord(script, word)) return true;
  }
  for (std::string_view name : kExpandedAgain) {
    if (HasWord(script, name, "=")) return true;
  }
  for (std::string_view name : kIntegerVariables) {
    if (HasWord(script, name, "=")) return true;
  }
  return false;
}

void AddOperandReadings(std::string_view script, const std::vector<std::size_t>& offsets,
                        std::vector<ShellContext>* contexts) {
  const OperandFinder finder(script);
  std::vector<std::size_t> order(offsets.size());  // indexes of `offsets`, by offset
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  if (!std::is_sorted(offsets.begin(), offsets.end())) {
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return offsets[a] < offsets[b]; });
  }
  for (const Operand& operand : finder.operands()) {
    auto at = std::lower_bound(order.begin(), order.end(), operand.begin,
                               [&](std::size_t index, std::size_t begin) { return offsets[index] < begin; });
    for (; at != order.end() && offsets[*at] < operand.end; ++at) {
      ShellContext& context = (*contexts)[*at];
      if (context.operand != ShellOperand::kNone) continue;
      context.operand = operand.kind;
      context.evaluated_by = operand.by;
    }
  }
}

}  // namespace safesubst
