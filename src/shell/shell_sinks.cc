// SPDX-License-Identifier: Apache-2.0
// Finding the strings a script runs again, and the placeholders in them.
//
// A SinkReader builds commands (words made of pieces that remember where in
// the script each piece of text came from) from the lexer's events, and
// records every sink string with the text the inner shell will read. Then
// each placeholder inside a sink string is mapped into that text, the text
// is lexed as a script of its own, and the inner context is attached.
#include "shell_sinks.h"

#include <algorithm>
#include <deque>
#include <string>
#include <utility>

#include "command_line.h"
#include "references.h"
#include "shell_lexer.h"

namespace safesubst {
namespace {

// Strings inside strings run as code: three levels are read, a fourth is refused.
constexpr int kMaxSinkDepth = 3;

// Programs that run a command given after their own words, beyond the
// container wrappers of command_line.h: the command is the first shell among
// the words (which can only find more sinks, never fewer).
constexpr std::string_view kRunners[] = {"exec", "command", "xargs", "find", "kubectl", "time", "doas", "flock",
                                         "unshare", "nsenter", "docker", "podman", "crictl", "oc"};

std::string_view BaseName(std::string_view program) {
  std::size_t slash = program.rfind('/');
  return slash == std::string_view::npos ? program : program.substr(slash + 1);
}

bool IsRunner(std::string_view program) {
  if (IsCommandWrapper(program)) return true;
  program = BaseName(program);
  return std::find(std::begin(kRunners), std::end(kRunners), program) != std::end(kRunners);
}

// Where a piece of a word's text came from.
struct Piece {
  enum Kind : std::uint8_t { kText, kExpansion, kUndecoded };
  Kind kind = kText;
  std::size_t text_begin = 0;  // in Word::text
  std::size_t offset = 0;      // in the script
  std::size_t length = 0;
};

struct Word {
  std::string text;
  std::vector<Piece> pieces;
  std::size_t begin = 0, end = 0;
};

struct Command {
  std::vector<Word> words;  // from the command name on (assignments and reserved words left out)
  std::vector<std::pair<std::string, Word>> redirects;
  bool piped = false;
};

// A string some shell runs again: the words it is made of (joined with
// blanks, as `eval` joins them), or a here-document body.
struct Sink {
  std::string name;  // "`sh -c`"
  std::vector<const Word*> words;
  std::size_t body_begin = 0, body_end = 0;  // a here-document body: [begin, end) of the script
  bool body_expands = false;
  std::string refusal;  // non-empty: no placeholder in it can be encoded; says why
};

std::string Quoted(std::string_view name) { return "`" + std::string(name) + "`"; }

// How the shell `words[shell]` reads its code: the index of the -c string,
// `stdin` when it reads a script from its standard input, or neither.
struct ShellCall {
  std::size_t dash_c_string = std::string_view::npos;
  bool reads_stdin = false;
};

ShellCall ReadShellCall(const std::vector<Word>& words, std::size_t shell) {
  ShellCall call;
  bool dash_c = false, dash_s = false;
  std::size_t i = shell + 1;
  for (; i < words.size(); ++i) {
    const std::string& option = words[i].text;
    if (option == "--" || option == "-") {
      ++i;
      break;
    }
    if (option.size() < 2 || (option[0] != '-' && option[0] != '+')) break;
    dash_c = dash_c || IsDashC(option);
    dash_s = dash_s || (option[0] == '-' && option[1] != '-' && option.find('s') != std::string::npos);
    i += ShellOptionArguments(option);
  }
  if (dash_c) {
    if (i < words.size()) call.dash_c_string = i;
  } else {
    call.reads_stdin = i >= words.size() || dash_s || words[i].text == "/dev/stdin";
  }
  return call;
}

class SinkReader : public ShellEvents {
 public:
  std::deque<Word> kept_words;  // copies of the words of every sink (stable addresses)
  std::vector<Sink> sinks;

  void ListBegin() override { lists_.emplace_back(); }
  void ListEnd() override {
    EndCommand(false);
    lists_.pop_back();
  }
  void CommandEnd(bool piped) override { EndCommand(piped); }

  void WordBegin(std::size_t offset) override {
    lists_.back().word = Word{};
    lists_.back().word.begin = offset;
  }
  void WordText(std::string_view text, std::size_t offset, ShellQuoting quoting) override {
    Add(quoting == ShellQuoting::kAnsiC ? Piece::kUndecoded : Piece::kText, text, offset);
  }
  void WordExpansion(std::string_view raw, std::size_t offset, bool /*quoted*/) override {
    Add(Piece::kExpansion, raw, offset);
  }
  void WordEnd(std::size_t end, std::string_view /*raw*/, ShellWordRole role) override {
    List& list = lists_.back();
    list.word.end = end;
    Command& command = list.command;
    switch (role) {
      case ShellWordRole::kRedirectTarget:
        if (!command.redirects.empty()) command.redirects.back().second = std::move(list.word);
        return;
      case ShellWordRole::kAssignment:
      case ShellWordRole::kCasePattern:
      case ShellWordRole::kIoNumber:
      case ShellWordRole::kCaseSubject:
      case ShellWordRole::kCaseIn: return;
      case ShellWordRole::kReservedWord:
        if (command.words.empty()) return;
        break;
      default: break;
    }
    command.words.push_back(std::move(list.word));
  }
  void Redirection(std::string_view op, std::size_t /*offset*/) override {
    lists_.back().command.redirects.emplace_back(std::string(op), Word{});
  }
  void HeredocBody(std::size_t begin, std::size_t end, bool expanding) override {
    if (heredocs_.empty()) return;
    Sink sink = std::move(heredocs_.front());
    heredocs_.pop_front();
    if (sink.name.empty()) return;  // a here-document no shell reads as code
    sink.body_begin = begin;
    sink.body_end = end;
    sink.body_expands = expanding;
    sinks.push_back(std::move(sink));
  }

 private:
  struct List {
    Command command;
    Word word;
    std::vector<Command> pipeline;
  };

  void Add(Piece::Kind kind, std::string_view text, std::size_t offset) {
    Word& word = lists_.back().word;
    word.pieces.push_back(Piece{kind, word.text.size(), offset, text.size()});
    word.text.append(text);
  }

  void EndCommand(bool piped) {
    List& list = lists_.back();
    Command command = std::move(list.command);
    list.command = Command{};
    command.piped = piped;
    if (!command.words.empty() || !command.redirects.empty()) list.pipeline.push_back(std::move(command));
    if (piped || list.pipeline.empty()) return;
    std::vector<Command> pipeline = std::move(list.pipeline);
    list.pipeline.clear();
    for (std::size_t i = 0; i < pipeline.size(); ++i) FindSinks(pipeline, i);
  }

  // The sinks of command `at` of a pipeline, and the here-documents its
  // redirections will bring (one entry each, in order, for HeredocBody).
  void FindSinks(std::vector<Command>& pipeline, std::size_t at) {
    Command& command = pipeline[at];
    std::string stdin_shell;  // the name of the shell that reads its standard input as code
    if (!command.words.empty()) stdin_shell = FindWordSinks(command);
    if (!stdin_shell.empty()) {
      for (std::size_t before = 0; before < at; ++before) {
        RefuseAll(pipeline[before], "inside text piped into " + stdin_shell + ", which runs it as code");
      }
    }
    bool fed_to_shell = false;  // a later command of the pipeline reads code from its input
    for (std::size_t after = at + 1; after < pipeline.size() && !fed_to_shell; ++after) {
      fed_to_shell = !pipeline[after].words.empty() && !StdinShellName(pipeline[after]).empty();
    }
    for (auto& [op, target] : command.redirects) {
      if (op == "<<" || op == "<<-") {
        Sink sink;
        if (!stdin_shell.empty()) sink.name = "the here-document that " + stdin_shell + " runs as code";
        if (fed_to_shell) {
          sink.name = "a here-document piped into a shell";
          sink.refusal = "inside a here-document piped into a shell, which runs it as code";
        }
        heredocs_.push_back(std::move(sink));
      } else if (op == "<<<" && !stdin_shell.empty()) {
        AddWordSink("the here-string that " + stdin_shell + " runs as code", {&target});
      }
    }
  }

  // The name (quoted) of the shell that `command` runs on its standard input, or empty.
  static std::string StdinShellName(const Command& command) {
    const std::vector<Word>& words = command.words;
    std::string_view first = BaseName(words[0].text);
    if ((first == "." || first == "source") && words.size() == 2 &&
        (words[1].text == "/dev/stdin" || words[1].text == "/dev/fd/0" || words[1].text == "/proc/self/fd/0")) {
      return Quoted(first);
    }
    std::size_t shell = FindShell(words);
    if (shell == std::string_view::npos) return {};
    return ReadShellCall(words, shell).reads_stdin ? Quoted(BaseName(words[shell].text)) : std::string();
  }

  // The index of the shell a command runs (itself or behind runners), or npos.
  static std::size_t FindShell(const std::vector<Word>& words) {
    if (IsShellProgram(words[0].text)) return 0;
    if (!IsRunner(words[0].text)) return std::string_view::npos;
    for (std::size_t i = 1; i < words.size(); ++i) {
      if (IsShellProgram(words[i].text)) return i;
    }
    return std::string_view::npos;
  }

  // Adds the sinks among the command's own words; returns the name of the
  // shell when the command reads code from its standard input.
  std::string FindWordSinks(Command& command) {
    std::vector<Word>& words = command.words;
    std::string_view name = BaseName(words[0].text);
    std::size_t shell = FindShell(words);
    if (shell != std::string_view::npos) {
      ShellCall call = ReadShellCall(words, shell);
      std::string shell_name(BaseName(words[shell].text));
      if (call.dash_c_string != std::string_view::npos) {
        AddWordSink(Quoted(shell_name + " -c"), {&words[call.dash_c_string]});
        return {};
      }
      if (call.reads_stdin) return Quoted(shell_name);
    }
    std::string stdin_source = StdinShellName(command);
    if (!stdin_source.empty()) return stdin_source;
    if (name == "eval") {
      AddWordSink("`eval`", Operands(words, 1));
    } else if (name == "trap") {
      std::vector<const Word*> operands = Operands(words, 1);
      if (operands.size() >= 2) AddWordSink("`trap`", {operands[0]});
    } else if (name == "su" || name == "runuser") {
      for (std::size_t i = 1; i + 1 < words.size(); ++i) {
        if (words[i].text == "-c" || words[i].text == "--command") {
          AddWordSink(Quoted(std::string(name) + " -c"), {&words[i + 1]});
        }
      }
    } else if (name == "watch") {
      AddWordSink("`watch`", Operands(words, 1, "nqg"));
    } else if (name == "ssh") {
      std::vector<const Word*> operands = Operands(words, 1, "BbcDEeFIiJLlmOopQRSWw");
      if (operands.size() >= 2) {
        AddWordSink("`ssh`", {operands.begin() + 1, operands.end()},
                    "inside the command `ssh` sends to the remote login shell, which runs it as code");
      }
    }
    return {};
  }

  // The words from `first` on that are not options (`-x`, and the argument
  // of each option letter in `with_argument`), after a `--`.
  static std::vector<const Word*> Operands(const std::vector<Word>& words, std::size_t first,
                                           std::string_view with_argument = {}) {
    std::vector<const Word*> operands;
    std::size_t i = first;
    for (; i < words.size(); ++i) {
      const std::string& word = words[i].text;
      if (word == "--") {
        ++i;
        break;
      }
      if (word.size() < 2 || word[0] != '-') break;
      if (word.size() == 2 && with_argument.find(word[1]) != std::string_view::npos) ++i;
    }
    for (; i < words.size(); ++i) operands.push_back(&words[i]);
    return operands;
  }

  void AddWordSink(std::string name, std::vector<const Word*> sink_words, std::string refusal = {}) {
    if (sink_words.empty()) return;
    Sink sink;
    sink.name = std::move(name);
    sink.refusal = std::move(refusal);
    for (const Word* word : sink_words) sink.words.push_back(&kept_words.emplace_back(*word));
    sinks.push_back(std::move(sink));
  }

  void RefuseAll(const Command& command, const std::string& why) {
    std::vector<const Word*> all;
    for (const Word& word : command.words) all.push_back(&word);
    for (const auto& [op, target] : command.redirects) all.push_back(&target);
    AddWordSink("a pipe into a shell", std::move(all), why);
  }

  std::vector<List> lists_;
  std::deque<Sink> heredocs_;  // here-documents whose bodies come next, in order
};

// ---- placing placeholders in the inner text -------------------------------

struct InnerText {
  std::string text;
  std::vector<std::size_t> offsets;  // of the placeholders, into text
  std::vector<std::size_t> indexes;  // their indexes in the caller's contexts
};

// Where placeholder `offset` lands in the string of `sink`; an empty string
// on success, else why it cannot be known.
std::string PlaceInWords(const Sink& sink, std::size_t offset, const std::vector<std::size_t>& placeholders,
                         std::size_t* inner, bool* found) {
  std::size_t text_start = 0;
  bool unknown_before = false;
  for (const Word* word : sink.words) {
    for (const Piece& piece : word->pieces) {
      bool is_placeholder = std::binary_search(placeholders.begin(), placeholders.end(), piece.offset);
      if (piece.kind == Piece::kExpansion && piece.offset == offset) {
        *inner = text_start + piece.text_begin;
        *found = true;
      } else if (offset >= piece.offset && offset < piece.offset + piece.length) {
        *found = true;
        if (piece.kind != Piece::kText) {
          return "in an expansion inside the string that " + sink.name + " runs as code";
        }
        *inner = text_start + piece.text_begin + (offset - piece.offset);
      }
      if (*found) {
        if (unknown_before) {
          return "after an expansion in the string that " + sink.name +
                 " runs as code: its result, which the renderer cannot know, decides how the string is read";
        }
        return {};
      }
      if (piece.kind == Piece::kUndecoded || (piece.kind == Piece::kExpansion && !is_placeholder)) {
        unknown_before = true;
      }
    }
    text_start += word->text.size() + 1;
  }
  return {};
}

std::string JoinedText(const Sink& sink) {
  std::string text;
  for (const Word* word : sink.words) {
    if (!text.empty()) text += ' ';
    text += word->text;
  }
  return text;
}

// An expanding here-document body is read with `\` `$` `` ` `` processed:
// only a body whose every `$` is a placeholder and that has no `\` or `` ` ``
// is the same text for the inner shell.
bool BodyIsLiteral(std::string_view script, const Sink& sink, const std::vector<std::size_t>& placeholders) {
  for (std::size_t i = sink.body_begin; i < sink.body_end; ++i) {
    char c = script[i];
    if (c == '\\' || c == '`') return false;
    if (c != '$') continue;
    if (!std::binary_search(placeholders.begin(), placeholders.end(), i)) return false;
    if (i + 1 < sink.body_end && script[i + 1] == '{') {
      std::size_t close = script.find('}', i);
      if (close == std::string_view::npos || close >= sink.body_end) return false;
      i = close;
    }
  }
  return true;
}

}  // namespace

bool MayRunCodeAgain(std::string_view script) {
  // The `#!` line names a shell in most scripts: it runs nothing again.
  if (script.substr(0, 2) == "#!") script.remove_prefix(std::min(script.find('\n'), script.size()));
  for (std::string_view word : {"eval", "trap", "su", "runuser", "watch", "stdin"}) {
    if (script.find(word) != std::string_view::npos) return true;
  }
  // A shell (or ssh) named as a word: `sh`, `/bin/bash`, followed by what
  // may follow a command name.
  for (std::size_t at = script.find("sh"); at != std::string_view::npos; at = script.find("sh", at + 2)) {
    char next = at + 2 < script.size() ? script[at + 2] : '\n';
    if (std::string_view(" \t\n<;|)'\"").find(next) == std::string_view::npos) continue;
    std::size_t start = at;
    while (start > 0 && (IsNameChar(script[start - 1]) || script[start - 1] == '/')) --start;
    std::string_view word = script.substr(start, at + 2 - start);
    if (IsShellProgram(word) || BaseName(word) == "ssh") return true;
  }
  return false;
}

void AddSecondOrderReadings(std::string_view script, const std::vector<std::size_t>& offsets,
                            std::vector<ShellContext>* contexts, int depth) {
  SinkReader reader;
  ReadShell(script, &reader);
  if (reader.sinks.empty()) return;
  std::vector<std::size_t> placeholders = offsets;
  std::sort(placeholders.begin(), placeholders.end());
  for (const Sink& sink : reader.sinks) {
    InnerText inner;
    inner.text = sink.words.empty() ? std::string(script.substr(sink.body_begin, sink.body_end - sink.body_begin))
                                    : JoinedText(sink);
    for (std::size_t i = 0; i < offsets.size(); ++i) {
      ShellContext& context = (*contexts)[i];
      std::size_t at = 0;
      bool found = false;
      std::string why;
      if (sink.words.empty()) {
        found = offsets[i] >= sink.body_begin && offsets[i] < sink.body_end;
        at = offsets[i] - sink.body_begin;
        if (found && sink.body_expands && !BodyIsLiteral(script, sink, placeholders)) {
          why = "in " + sink.name + ", whose `\\`, `$` or `` ` `` the outer shell processes first";
        }
      } else {
        why = PlaceInWords(sink, offsets[i], placeholders, &at, &found);
      }
      if (!found) continue;
      context.sink = sink.name;
      if (!sink.refusal.empty()) why = sink.refusal;
      if (why.empty() && !context.backtick_layers.empty()) why = "inside backticks and " + sink.name;
      if (why.empty() && depth >= kMaxSinkDepth) {
        why = "in " + sink.name + ", nested in more than three strings that are run as code";
      }
      if (!why.empty()) {
        if (context.unsupported.empty()) context.unsupported = why;
        continue;
      }
      inner.offsets.push_back(at);
      inner.indexes.push_back(i);
    }
    if (inner.offsets.empty()) continue;
    std::vector<ShellContext> inner_contexts = ReadShellContexts(inner.text, inner.offsets);
    if (MayRunCodeAgain(inner.text)) AddSecondOrderReadings(inner.text, inner.offsets, &inner_contexts, depth + 1);
    for (std::size_t k = 0; k < inner.indexes.size(); ++k) {
      (*contexts)[inner.indexes[k]].reread.assign(1, std::move(inner_contexts[k]));
    }
  }
}

std::vector<ShellContext> ShellContextsAt(std::string_view script, const std::vector<std::size_t>& offsets,
                                          Diagnostics* problems, ScriptShells shells) {
  std::vector<ShellContext> contexts = ReadShellContexts(script, offsets, problems);
  // Only a script that names a sink pays for the second read (with events).
  if (!offsets.empty() && MayRunCodeAgain(script)) AddSecondOrderReadings(script, offsets, &contexts);
  if (ShellsMayDiffer(script, shells)) AddOtherShellReadings(script, offsets, &contexts);
  return contexts;
}

void TakeShellContextsAt(std::string_view script, const std::vector<std::size_t>& offsets, ScriptShells shells,
                         const TakeShellContext& take) {
  // The second-order and the other shells' readings are added to all the
  // contexts at once, after they are read.
  if (ShellsMayDiffer(script, shells) || (!offsets.empty() && MayRunCodeAgain(script))) {
    std::vector<ShellContext> contexts = ShellContextsAt(script, offsets, nullptr, shells);
    for (std::size_t i = 0; i < contexts.size(); ++i) take(i, std::move(contexts[i]));
    return;
  }
  ReadShellContexts(script, offsets, take);
}

}  // namespace safesubst
