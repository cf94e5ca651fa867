// SPDX-License-Identifier: Apache-2.0
// Rule leftover-placeholder: what a template step left behind.
//
// Part 1 looks at every scalar (and key) of every document: a `__NAME__`
// sentinel (the sed convention of the first write-up) anywhere, and a
// `${NAME}` in a data context, where nothing will ever expand it. Scripts
// (block scalars, command/args items, and every scalar the render reads as a
// shell script: ConfigMap *.sh values, `#!` values) are runtime territory and
// keep their `${NAME}`.
//
// Part 2 looks inside shell scripts for the shapes an unrestricted envsubst
// leaves when it blanks runtime variables. `X=""` and `echo ""` are common on
// purpose, so only shapes nobody writes by hand count:
//   echo "" | cmd           (was: echo "$VAR" | cmd)
//   case "" in              (was: case "$VAR" in)
//   [ "" -le 31 ], [ -z "" ], [ "" = "" ]   (a test of a constant)
//   grep -q "" file         (an empty pattern matches every line)
//   echo " " >> file        (only the blank between two blanked variables)
//   X="" never read, never assigned anything else (was: X="$Y", and the later
//        "$X" were blanked too)
#include <algorithm>
#include <array>
#include <unordered_set>

#include "lint_internal.h"
#include "references.h"
#include "shell.h"

namespace safesubst::lint {

namespace {

bool IsUpperOrDigit(char c) { return (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'; }

// Language dunders (__FILE__, __END__...) look like sentinels but are not.
bool IsLanguageDunder(std::string_view name) {
  static constexpr std::array<std::string_view, 17> kNames = {
      "FILE", "LINE", "DIR", "END", "DATA", "PACKAGE", "FUNCTION", "CLASS", "METHOD", "NAMESPACE",
      "TRAIT", "COMPILER", "SUB", "FUNC", "PRETTY_FUNCTION", "DATE", "TIME"};
  return std::find(kNames.begin(), kNames.end(), name) != kNames.end();
}

// Sentinels a program fills in itself at runtime, inside its ConfigMap: the
// CNI configuration templates of Calico's install-cni (and Canal's, which is
// Calico's) name the node, the MTU and the kubeconfig this way. Not a step
// that failed to run.
bool IsRuntimeConfigSentinel(std::string_view sentinel) {
  static constexpr std::array<std::string_view, 14> kNames = {
      "__KUBERNETES_NODE_NAME__",  "__CNI_MTU__",           "__KUBECONFIG_FILEPATH__", "__KUBECONFIG_FILENAME__",
      "__KUBERNETES_SERVICE_HOST__", "__KUBERNETES_SERVICE_PORT__", "__SERVICEACCOUNT_TOKEN__",
      "__ETCD_ENDPOINTS__",        "__ETCD_DISCOVERY_SRV__", "__ETCD_KEY_FILE__",       "__ETCD_CERT_FILE__",
      "__ETCD_CA_CERT_FILE__",     "__LOG_LEVEL__",         "__DATASTORE_TYPE__"};
  return std::find(kNames.begin(), kNames.end(), sentinel) != kNames.end();
}

struct Match {
  std::size_t offset = 0;
  std::string text;
};

// `__NAME__` with NAME = [A-Z][A-Z0-9_]*, not inside a longer word.
std::vector<Match> FindSentinels(std::string_view text) {
  std::vector<Match> found;
  for (std::size_t i = text.find("__"); i != std::string_view::npos; i = text.find("__", i + 1)) {
    if (i > 0 && IsNameChar(text[i - 1])) continue;
    std::size_t j = i + 2;
    if (j >= text.size() || !(text[j] >= 'A' && text[j] <= 'Z')) continue;
    while (j < text.size() && IsUpperOrDigit(text[j])) ++j;
    if (j < text.size() && IsNameChar(text[j])) continue;  // __FOO__bar
    std::string_view run = text.substr(i + 2, j - i - 2);
    if (run.size() < 3 || run.substr(run.size() - 2) != "__") continue;
    std::string_view name = run.substr(0, run.size() - 2);
    if (name.back() == '_' || IsLanguageDunder(name)) continue;
    found.push_back(Match{i, std::string(text.substr(i, j - i))});
    i = j - 1;
  }
  return found;
}

// `${NAME}`, `${NAME<op>...}` and `${NAME:1:2}`, as references.cc scans them
// for the render (`$${NAME}` is an escape). An unclosed `${NAME` is reported
// as far as its name.
std::vector<Match> FindBracedReferences(std::string_view text) {
  std::vector<Match> found;
  auto add = [&](const Reference& reference) {
    const RefKindTraits& kind = TraitsOf(reference.kind);
    bool substring = kind.use == RefUse::kOperation && reference.op == ":";
    bool braced = kind.BracedValue() || kind.use == RefUse::kDefault || substring;
    if (braced) found.push_back(Match{reference.offset, std::string(text.substr(reference.offset, reference.length))});
  };
  auto unterminated = [&](std::size_t offset) {
    std::size_t end = offset + 2;
    if (end >= text.size() || !IsNameStart(text[end])) return;
    while (end < text.size() && IsNameChar(text[end])) ++end;
    found.push_back(Match{offset, std::string(text.substr(offset, end - offset))});
  };
  ScanReferences(text, 0, text.size(), add, unterminated);
  return found;
}

class PlaceholderWalker {
 public:
  PlaceholderWalker(const Context& context, std::string object, std::string kind, Emitter& emit)
      : source_(context.source), object_(std::move(object)), kind_(std::move(kind)), emit_(emit) {}

  void Walk(const Node& node, bool items_are_scripts, bool script_map, int depth) {
    if (!visited_.FirstVisit(node, (items_are_scripts ? 1 : 0) | (script_map ? 2 : 0))) return;
    if (node.IsMap()) {
      for (const auto& [key_node, value] : node.Entries()) {
        std::string key = ScalarText(key_node);
        if (key_node.IsScalar()) CheckScalar(key_node, /*data=*/true);
        if (value.IsScalar()) {
          CheckScalar(value, !IsShellScript(value), /*config_data=*/script_map);
        } else {
          bool data_map = depth == 0 && ((kind_ == "ConfigMap" && key == "data") ||
                                         (kind_ == "Secret" && key == "stringData"));
          Walk(value, key == "command" || key == "args", data_map, depth + 1);
        }
      }
    } else if (node.IsSequence()) {
      for (const Node& item : node.Items()) {
        if (item.IsScalar()) {
          CheckScalar(item, !items_are_scripts && !IsShellScript(item));
        } else {
          Walk(item, false, false, depth + 1);
        }
      }
    } else if (node.IsScalar()) {
      CheckScalar(node, !IsShellScript(node));
    }
  }

 private:
  bool IsShellScript(const Node& node) const {
    return source_.ScriptShellsOf(node).has_value();
  }

  // `data`: not a script context. Block scalars are always scripts (or opaque text).
  // `config_data`: a value of a ConfigMap's `data` (or a Secret's `stringData`).
  void CheckScalar(const Node& node, bool data, bool config_data = false) {
    const std::string& value = node.Scalar();
    bool has_sentinel = value.find("__") != std::string::npos;
    bool has_braced = value.find("${") != std::string::npos;
    if (!has_sentinel && !has_braced) return;
    ScalarView view = ViewScalar(source_, node);
    if (view.block) data = false;
    for (const Match& match : FindSentinels(view.text)) {
      if (config_data && IsRuntimeConfigSentinel(match.text)) continue;
      emit_.Add("leftover-placeholder", Severity::kError, view.Offset(match.offset), object_, "",
                "the sentinel " + match.text +
                    " was never replaced: the step that substitutes it (sed, or a safesubst variable) did not "
                    "run for this file");
    }
    if (!data) return;
    for (const Match& match : FindBracedReferences(view.text)) {
      emit_.Add("leftover-placeholder", Severity::kError, view.Offset(match.offset), object_, "",
                match.text +
                    " in a data field was not substituted, and Kubernetes will not expand it (only $(NAME) in "
                    "command, args and env)");
    }
  }

  const Source& source_;
  std::string object_;
  std::string kind_;
  Emitter& emit_;
  VisitedCollections visited_;
};

const ShWord* BlankEchoArgument(const ShCommand& command, std::size_t first_arg, bool need_blank_text) {
  std::size_t i = first_arg;
  while (i < command.words.size() && command.words[i].text.size() > 1 && command.words[i].text[0] == '-' &&
         command.words[i].text.find_first_not_of("neE", 1) == std::string::npos) {
    ++i;  // echo -n -e
  }
  if (i >= command.words.size()) return nullptr;
  const ShWord* with_blank = nullptr;
  for (std::size_t j = i; j < command.words.size(); ++j) {
    const ShWord& word = command.words[j];
    if (!word.blank_quoted) return nullptr;
    if (with_blank == nullptr && !word.text.empty()) with_blank = &word;
  }
  return need_blank_text ? with_blank : &command.words[i];
}

bool IsNumericTest(std::string_view op) {
  return op == "-eq" || op == "-ne" || op == "-lt" || op == "-le" || op == "-gt" || op == "-ge";
}

// In a `[`/`[[`/`test` command: the first operand that is a constant blank string.
const ShWord* BlankTestOperand(const ShCommand& command, std::size_t first_arg) {
  std::vector<const ShWord*> args;
  for (std::size_t i = first_arg; i < command.words.size(); ++i) args.push_back(&command.words[i]);
  if (!args.empty() && (args.back()->text == "]" || args.back()->text == "]]")) args.pop_back();
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& op = args[i]->text;
    bool unquoted = !args[i]->quoted;
    if (unquoted && (op == "-z" || op == "-n") && i + 1 < args.size() && args[i + 1]->blank_quoted) {
      return args[i + 1];
    }
    if (unquoted && IsNumericTest(op)) {
      if (i > 0 && args[i - 1]->blank_quoted) return args[i - 1];
      if (i + 1 < args.size() && args[i + 1]->blank_quoted) return args[i + 1];
    }
    if (unquoted && (op == "=" || op == "==" || op == "!=") && i > 0 && i + 1 < args.size() &&
        args[i - 1]->blank_quoted && args[i + 1]->blank_quoted) {
      return args[i - 1];
    }
  }
  return nullptr;
}

// The pattern operand of grep, when it is a constant blank string.
const ShWord* BlankGrepPattern(const ShCommand& command, std::size_t first_arg) {
  const ShWord* pattern = nullptr;
  for (std::size_t i = first_arg; i < command.words.size(); ++i) {
    const ShWord& word = command.words[i];
    if (word.text == "-e" && i + 1 < command.words.size()) {
      pattern = &command.words[i + 1];
      break;
    }
    if (!word.quoted && word.text.size() > 1 && word.text[0] == '-') {
      static constexpr std::array<std::string_view, 6> kWithArgument = {"-f", "-m", "-A", "-B", "-C", "-d"};
      if (std::find(kWithArgument.begin(), kWithArgument.end(), word.text) != kWithArgument.end()) ++i;
      continue;
    }
    pattern = &word;
    break;
  }
  return pattern != nullptr && pattern->blank_quoted ? pattern : nullptr;
}

void CheckBlankedCommands(const Script& script, const std::string& object, const std::string& container,
                          Emitter& emit) {
  const std::string& text = script.view.text;
  auto add = [&](const ShWord& word, std::string message) {
    emit.Add("leftover-placeholder", Severity::kWarning, script.Offset(word.begin), object, container,
             std::move(message));
  };
  for (const ShCommand& command : script.shell.commands) {
    int name_index = CommandNameIndex(command, text);
    if (name_index < 0) continue;
    const ShWord& name_word = command.words[static_cast<std::size_t>(name_index)];
    if (name_word.quoted) continue;
    std::string_view name = ProgramBaseName(name_word.text);
    std::size_t first_arg = static_cast<std::size_t>(name_index) + 1;
    if (name == "echo" && command.piped) {
      if (const ShWord* word = BlankEchoArgument(command, first_arg, false)) {
        add(*word, "`echo " + std::string(text, word->begin, word->end - word->begin) +
                       " | ...` pipes a constant blank string: the shape of `echo \"$VAR\" | ...` after a "
                       "renderer replaced $VAR with nothing");
      }
    } else if (name == "echo") {
      if (const ShWord* word = BlankEchoArgument(command, first_arg, true)) {
        add(*word, "`echo " + std::string(text, word->begin, word->end - word->begin) +
                       "` writes only blanks: what is left of `echo \"$A $B\"` after a renderer replaced both "
                       "variables with nothing");
      }
    } else if (name == "case" && command.words.size() > first_arg && command.words[first_arg].blank_quoted) {
      add(command.words[first_arg],
          "`case` on a constant blank string: the shape of `case \"$VAR\" in` after a renderer replaced $VAR "
          "with nothing");
    } else if (name == "[" || name == "[[" || name == "test") {
      if (const ShWord* word = BlankTestOperand(command, first_arg)) {
        add(*word, "a test of the constant blank string " +
                       std::string(text, word->begin, word->end - word->begin) +
                       ": the shape of `[ \"$VAR\" ... ]` after a renderer replaced $VAR with nothing");
      }
    } else if (name == "grep" || name == "egrep" || name == "fgrep" || name == "zgrep") {
      if (const ShWord* word = BlankGrepPattern(command, first_arg)) {
        add(*word, "`grep` with the constant empty pattern " +
                       std::string(text, word->begin, word->end - word->begin) +
                       " matches every line: the shape of `grep \"$VAR\"` after a renderer replaced $VAR with "
                       "nothing");
      }
    }
  }
}

// Variables only ever assigned a blank value and never read. Names are
// gathered in sets first: a generated script has thousands of assignments.
void CheckBlankAssignments(const Script& script, const std::string& object, const std::string& container,
                           Emitter& emit) {
  const ShScript& shell = script.shell;
  std::unordered_set<std::string_view> disqualified(shell.exported.begin(), shell.exported.end());
  for (const ShRef& ref : shell.refs) disqualified.insert(ref.name);
  for (const ShAssignment& a : shell.assignments) {
    if (!((a.kind == AssignKind::kPlain || a.kind == AssignKind::kDeclare) && a.empty_value)) disqualified.insert(a.name);
  }
  std::unordered_set<std::string_view> reported;
  for (const ShAssignment& assignment : shell.assignments) {
    const std::string& name = assignment.name;
    if (assignment.kind != AssignKind::kPlain || !assignment.empty_value) continue;
    if (disqualified.contains(name) || IsWellKnownVariable(name) || !reported.insert(name).second) continue;
    emit.Add("leftover-placeholder", Severity::kWarning, script.Offset(assignment.begin), object, container,
             name + " is only ever assigned an empty string and never read: the shape of `" + name +
                 "=\"$OTHER\"` after a renderer replaced $OTHER, and every later $" + name +
                 ", with nothing");
  }
}

}  // namespace

void CheckPlaceholders(const Node& document, const Context& context, const std::string& object, Emitter& emit) {
  PlaceholderWalker walker(context, object, ScalarText(Get(document, "kind")), emit);
  walker.Walk(document, false, false, 0);
}

void CheckBlankedScript(const Script& script, const std::string& object, const std::string& container,
                        Emitter& emit) {
  CheckBlankedCommands(script, object, container, emit);
  CheckBlankAssignments(script, object, container, emit);
}

}  // namespace safesubst::lint
