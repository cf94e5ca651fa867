// SPDX-License-Identifier: Apache-2.0
#include "lint_shell.h"

#include <algorithm>
#include <array>
#include <utility>

#include "command_line.h"
#include "references.h"
#include "shell_lexer.h"
#include "validate.h"

namespace safesubst::lint {

namespace {

bool IsBlank(char c) { return c == ' ' || c == '\t' || c == '\r'; }

// Builds lint's model of a script from the shell lexer's events: its
// commands (CommandReader), references, comments and the assignments an
// arithmetic expression or `${X:=v}` makes.
class ModelReader : public CommandReader {
 public:
  explicit ModelReader(ShScript* out) : out_(out) {}

  void ParameterBegin(std::size_t dollar, std::size_t name_offset, std::string_view name,
                      ParameterOp op) override {
    bool guards = op == ParameterOp::kDefault || op == ParameterOp::kAssign || op == ParameterOp::kError ||
                  op == ParameterOp::kAlternative;
    if (detail::IsIdentifier(name)) {
      out_->refs.push_back(ShRef{std::string(name), dollar, op, guarded_depth_ > 0});
      if (op == ParameterOp::kAssign) {
        out_->assignments.push_back(ShAssignment{std::string(name), name_offset, AssignKind::kParamDefault, false});
      }
    }
    guards_.push_back(guards);
    if (guards) ++guarded_depth_;
  }
  void ParameterEnd() override {
    if (guards_.back()) --guarded_depth_;
    guards_.pop_back();
  }

  void ArithmeticName(std::string_view name, std::size_t offset, bool assigned) override;

  void Comment(std::size_t begin, std::size_t end) override { out_->comments.emplace_back(begin, end); }

 private:
  void CommandEnded(ShCommand command) override {
    if (!command.words.empty() || !command.redirects.empty()) out_->commands.push_back(std::move(command));
  }

  ShScript* out_;
  std::vector<bool> guards_;  // per open parameter expansion: its word is only evaluated sometimes
  int guarded_depth_ = 0;
};

void ModelReader::ArithmeticName(std::string_view name, std::size_t offset, bool assigned) {
  if (assigned) out_->assignments.push_back(ShAssignment{std::string(name), offset, AssignKind::kArithmetic, false});
  out_->refs.push_back(ShRef{std::string(name), offset, RefOp::kArithmetic, guarded_depth_ > 0});
}

bool IsAssignmentWord(const ShWord& word, std::string_view script) {
  return IsShellAssignment(script.substr(word.begin, word.end - word.begin));
}

// NAME of a `NAME=...` word (or a bare NAME), and whether its value is blank.
std::pair<std::string, bool> SplitAssignment(const ShWord& word) {
  std::size_t eq = word.text.find('=');
  std::string name = word.text.substr(0, eq);
  std::size_t bracket = name.find('[');
  if (bracket != std::string::npos) name.resize(bracket);
  if (!name.empty() && name.back() == '+') name.pop_back();
  bool blank = false;
  if (eq != std::string::npos) {
    std::string_view value = std::string_view(word.text).substr(eq + 1);
    blank = !word.has_expansion && std::all_of(value.begin(), value.end(), IsBlank);
  }
  return {name, blank};
}

// The names an arithmetic expression (an argument of `let`) assigns, as the
// lexer reads it in `((...))`.
std::vector<std::string> AssignedInArithmetic(std::string_view expression) {
  struct Reader : ShellEvents {
    std::vector<std::string> names;
    void ArithmeticName(std::string_view name, std::size_t /*offset*/, bool assigned) override {
      if (assigned) names.emplace_back(name);
    }
  } reader;
  ReadShell("((" + std::string(expression) + "))", &reader);
  return std::move(reader.names);
}

void AddNameArguments(ShScript& script, const ShCommand& command, std::size_t first, AssignKind kind,
                      std::string_view options_with_argument) {
  for (std::size_t i = first; i < command.words.size(); ++i) {
    const ShWord& word = command.words[i];
    if (!word.text.empty() && word.text[0] == '-') {
      if (word.text.size() == 2 && options_with_argument.find(word.text[1]) != std::string_view::npos) ++i;
      continue;
    }
    if (detail::IsIdentifier(word.text)) script.assignments.push_back(ShAssignment{word.text, word.begin, kind, false});
  }
}

// Records what each command assigns: plain and prefix assignments, the
// declaration builtins, read/getopts/mapfile/printf -v, for/select, let.
void CollectAssignments(ShScript& script, std::string_view text) {
  for (const ShCommand& command : script.commands) {
    int name_index = CommandNameIndex(command, text);
    std::size_t prefix_end = name_index < 0 ? command.words.size() : static_cast<std::size_t>(name_index);
    AssignKind prefix_kind = name_index < 0 ? AssignKind::kPlain : AssignKind::kPrefix;
    for (std::size_t i = 0; i < prefix_end; ++i) {
      auto [name, blank] = SplitAssignment(command.words[i]);
      script.assignments.push_back(ShAssignment{name, command.words[i].begin, prefix_kind, blank});
    }
    if (name_index < 0) continue;
    const std::size_t first = static_cast<std::size_t>(name_index);
    std::string_view name = ProgramBaseName(command.words[first].text);
    if (command.words[first].quoted) continue;
    if (name == "eval" || name == "source" || name == ".") {
      script.dynamic = true;
    } else if (name == "export" || name == "readonly" || name == "local" || name == "declare" ||
               name == "typeset") {
      bool exports = name == "export";
      for (std::size_t i = first + 1; i < command.words.size(); ++i) {
        const ShWord& word = command.words[i];
        if (!word.text.empty() && (word.text[0] == '-' || word.text[0] == '+')) {
          if (word.text[0] == '-' && word.text.find('x') != std::string::npos) exports = true;
          continue;
        }
        bool assigns = IsAssignmentWord(word, text);
        auto [var, blank] = SplitAssignment(word);
        if (!detail::IsIdentifier(var)) {
          script.dynamic = true;  // export "$k=$v", declare $name
          continue;
        }
        AssignKind kind = exports ? AssignKind::kExport : AssignKind::kDeclare;
        if (assigns) {
          script.assignments.push_back(ShAssignment{var, word.begin, kind, blank});
        } else if (exports) {
          script.exported.push_back(var);
        } else {
          script.assignments.push_back(ShAssignment{var, word.begin, kind, true});
        }
      }
    } else if (name == "read") {
      AddNameArguments(script, command, first + 1, AssignKind::kRead, "dnNptuia");
      for (std::size_t i = first + 1; i + 1 < command.words.size(); ++i) {
        if (command.words[i].text == "-a" && detail::IsIdentifier(command.words[i + 1].text)) {
          script.assignments.push_back(
              ShAssignment{command.words[i + 1].text, command.words[i + 1].begin, AssignKind::kRead, false});
        }
      }
    } else if (name == "getopts") {
      if (command.words.size() > first + 2 && detail::IsIdentifier(command.words[first + 2].text)) {
        script.assignments.push_back(
            ShAssignment{command.words[first + 2].text, command.words[first + 2].begin, AssignKind::kRead, false});
      }
    } else if (name == "mapfile" || name == "readarray") {
      std::size_t before = script.assignments.size();
      AddNameArguments(script, command, first + 1, AssignKind::kRead, "dnOsuCc");
      if (script.assignments.size() == before) {
        script.assignments.push_back(ShAssignment{"MAPFILE", command.words[first].begin, AssignKind::kRead, false});
      }
    } else if (name == "printf") {
      for (std::size_t i = first + 1; i + 1 < command.words.size(); ++i) {
        if (command.words[i].text == "-v" && detail::IsIdentifier(command.words[i + 1].text)) {
          script.assignments.push_back(
              ShAssignment{command.words[i + 1].text, command.words[i + 1].begin, AssignKind::kRead, false});
        }
      }
    } else if (name == "for" || name == "select") {
      if (command.words.size() > first + 1 && detail::IsIdentifier(command.words[first + 1].text)) {
        script.assignments.push_back(
            ShAssignment{command.words[first + 1].text, command.words[first + 1].begin, AssignKind::kLoop, false});
      }
    } else if (name == "let") {
      for (std::size_t i = first + 1; i < command.words.size(); ++i) {
        for (std::string& assigned : AssignedInArithmetic(command.words[i].text)) {
          script.assignments.push_back(ShAssignment{std::move(assigned), command.words[i].begin,
                                                    AssignKind::kArithmetic, false});
        }
      }
    }
  }
}

}  // namespace

int CommandNameIndex(const ShCommand& command, std::string_view script) {
  for (std::size_t i = 0; i < command.words.size(); ++i) {
    if (!IsAssignmentWord(command.words[i], script)) return static_cast<int>(i);
  }
  return -1;
}

bool IsWellKnownVariable(std::string_view name) {
  static constexpr std::array<std::string_view, 60> kNames = {
      "HOME", "PATH", "HOSTNAME", "PWD", "OLDPWD", "SHELL", "USER", "LOGNAME", "TERM", "LANG", "LANGUAGE",
      "TZ", "TMPDIR", "IFS", "PS1", "PS2", "PS3", "PS4", "RANDOM", "LINENO", "SECONDS", "PPID", "UID", "EUID",
      "GROUPS", "OPTARG", "OPTIND", "OPTERR", "REPLY", "COLUMNS", "LINES", "SHLVL", "HOSTTYPE", "OSTYPE",
      "MACHTYPE", "PIPESTATUS", "FUNCNAME", "EPOCHSECONDS", "EPOCHREALTIME", "SRANDOM", "BASHPID", "MAPFILE",
      "HISTFILE", "HISTSIZE", "MAIL", "MAILPATH", "CDPATH", "ENV", "FCEDIT", "NLSPATH", "EDITOR", "PAGER",
      "DISPLAY", "_", "COMP_WORDS", "DIRSTACK", "HISTCMD", "PROMPT_COMMAND", "POSIXLY_CORRECT", "TERMINFO"};
  if (std::find(kNames.begin(), kNames.end(), name) != kNames.end()) return true;
  if (name.substr(0, 3) == "LC_" || name.substr(0, 5) == "BASH_" || name == "BASH") return true;
  // Set by Kubernetes in every container (KUBERNETES_PORT is the kubernetes
  // service's link) and in the pods of an Indexed Job.
  if (name == "KUBERNETES_PORT" || name == "JOB_COMPLETION_INDEX") return true;
  // Kubernetes service links: FOO_SERVICE_HOST, FOO_SERVICE_PORT[_NAME] and
  // FOO_PORT_443_TCP[_ADDR|_PORT|_PROTO]. A bare FOO_PORT is a service link
  // too, but far more often the user's own variable, so it is left to the rules.
  if (name.find("_SERVICE_HOST") != std::string_view::npos || name.find("_SERVICE_PORT") != std::string_view::npos) {
    return true;
  }
  for (std::size_t p = name.find("_PORT_"); p != std::string_view::npos; p = name.find("_PORT_", p + 1)) {
    std::size_t q = p + 6;
    while (q < name.size() && name[q] >= '0' && name[q] <= '9') ++q;
    std::string_view rest = name.substr(q);
    if (q > p + 6 && (rest.substr(0, 4) == "_TCP" || rest.substr(0, 4) == "_UDP" || rest.substr(0, 5) == "_SCTP")) {
      return true;
    }
  }
  return false;
}

ShScript ParseShell(std::string_view script) {
  ShScript result;
  ModelReader reader(&result);
  ReadShell(script, &reader);
  std::sort(result.refs.begin(), result.refs.end(),
            [](const ShRef& a, const ShRef& b) { return a.begin < b.begin; });
  CollectAssignments(result, script);
  std::sort(result.assignments.begin(), result.assignments.end(),
            [](const ShAssignment& a, const ShAssignment& b) { return a.begin < b.begin; });
  return result;
}

}  // namespace safesubst::lint
