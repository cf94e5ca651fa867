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
#include <cctype>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <utility>

#include "command_line.h"
#include "interpreter_programs.h"
#include "option_shell_strings.h"
#include "program_variables.h"
#include "references.h"
#include "shell_commands.h"
#include "shell_operands.h"
#include "stdin_readers.h"

namespace safesubst {
namespace {

// Strings inside strings run as code: three levels are read, a fourth is refused.
constexpr int kMaxSinkDepth = 3;

// A string some shell runs again: the words it is made of (joined with
// blanks, as `eval` joins them), or a here-document body.
struct Sink {
  std::string name;  // "`sh -c`"
  std::vector<const ShWord*> words;
  std::size_t body_begin = 0, body_end = 0;  // a here-document body: [begin, end) of the script
  bool body_expands = false;
  std::string refusal;  // non-empty: no placeholder in it can be encoded; says why
  // Run by a program named by an expansion, which may or may not be a shell:
  // a value is written only where it reads alike as data and as code.
  bool maybe = false;
};

// The sink reader has something to find: a sink word, or an interpreter or
// a program reading commands, which may read its program from a pipe (the
// sink reader refuses what is fed to it: FindProgramFeeds).
bool MayReadAgain(std::string_view script) {
  return MayRunCodeAgain(script) || MayRunPrograms(script) || MayReadInput(script);
}

std::string Quoted(std::string_view name) { return "`" + std::string(name) + "`"; }

// How the shell `words[shell]` reads its code: the index of the -c string,
// `stdin` when it reads a script from its standard input, or neither.
struct ShellCall {
  std::size_t dash_c_string = std::string_view::npos;
  bool reads_stdin = false;
};

// The paths of a process's standard input.
bool IsStdinPath(std::string_view path) {
  return path == "/dev/stdin" || path == "/dev/fd/0" || path == "/proc/self/fd/0";
}

// `xargs -I{} ...`, `-i`, `--replace`: xargs writes what it reads into the
// words of the command, a shell's -c string among them.
bool XargsReplaces(const std::vector<ShWord>& words) {
  for (std::size_t i = 1; i < words.size() && words[i].text.starts_with("-"); ++i) {
    const std::string& option = words[i].text;
    if (option.starts_with("--replace") || (option[1] != '-' && option.find_first_of("Ii") != std::string::npos)) {
      return true;
    }
  }
  return false;
}

ShellCall ReadShellCall(const std::vector<ShWord>& words, std::size_t shell) {
  const ShellOptions options = ReadShellOptions(
      shell, words.size(), [&](std::size_t i) { return words[i].text; }, [](std::size_t) { return true; });
  ShellCall call;
  // `xargs sh -c` without a string: xargs appends what it reads from standard input.
  const bool after_xargs = shell > 0 && ProgramBaseName(words[0].text) == "xargs";
  if (options.dash_c) {
    if (options.operand < words.size()) call.dash_c_string = options.operand;
    call.reads_stdin = after_xargs && (options.operand >= words.size() || XargsReplaces(words));
  } else {
    call.reads_stdin = options.operand >= words.size() || options.dash_s || IsStdinPath(words[options.operand].text);
  }
  return call;
}

// A command of a pipeline as the sink finder sees it: a simple command, or a
// compound command (`{ ...; }`, `( ... )`, `if`, `while`, `until`, `for`,
// `case`) as a whole, with the redirections and the pipe after its end.
struct Member {
  ShCommand command;  // of a compound command: no words, the redirections after it
  bool compound = false;
  std::size_t begin = 0, end = 0;  // a compound command's text in the script
  std::string shell;               // a compound command: the first shell in it that reads its standard input
  std::string program;             // a compound command: the first interpreter in it that reads its program there
};

bool OpensCompound(std::string_view word, ShellWordRole role) {
  if (role == ShellWordRole::kReservedWord) return word == "{" || word == "if" || word == "while" || word == "until";
  return role == ShellWordRole::kCommandName && (word == "for" || word == "select" || word == "case");
}

bool ClosesCompound(std::string_view word, ShellWordRole role) {
  return role == ShellWordRole::kReservedWord && (word == "}" || word == "fi" || word == "done" || word == "esac");
}

// `sh <(cmd)`: the lexer reads `<` and a subshell (SubshellBegin), which
// writes what the command reads.
bool ReadsSubstitution(const ShCommand& command) {
  return std::any_of(command.redirects.begin(), command.redirects.end(), [](const ShRedirect& redirect) {
    return redirect.op == "<" && redirect.target.text.empty() && redirect.target.pieces.empty();
  });
}

std::string JoinedText(const Sink& sink) {
  std::string text;
  for (const ShWord* word : sink.words) {
    if (!text.empty()) text += ' ';
    text += word->text;
  }
  return text;
}

// `cmd > >(sh)`: the lexer reads `>` and a subshell, which reads what the command writes.
bool WritesSubstitution(const ShCommand& command) {
  return !command.redirects.empty() && command.redirects.back().op == ">" &&
         command.redirects.back().target.text.empty() && command.redirects.back().target.pieces.empty();
}

class SinkReader : public CommandReader {
 public:
  // `depth`: how many strings run again hold `script` (StdinShellInCode).
  explicit SinkReader(std::string_view script, int depth = 0) : script_(script), depth_(depth) {}

  std::deque<ShWord> kept_words;  // copies of the words of every sink (stable addresses)
  std::vector<Sink> sinks;
  std::string any_stdin_shell;  // a shell that reads its standard input as code, if any
  std::string any_stdin_program;  // an interpreter that reads its program from its standard input, if any

  void ListBegin() override {
    CommandReader::ListBegin();
    sink_lists_.emplace_back();
  }
  void ListEnd() override {
    CommandReader::ListEnd();
    if (!sink_lists_.back().pipeline.empty()) EndPipeline();  // `a |` at the end
    sink_lists_.pop_back();
  }
  void WordBegin(std::size_t offset) override {
    CommandReader::WordBegin(offset);
    word_begin_ = offset;
  }
  void WordEnd(std::size_t end, std::string_view raw, ShellWordRole role) override {
    if (OpensCompound(raw, role)) Open(word_begin_);
    if (ClosesCompound(raw, role)) Close(end);
    array_name_end_ = !raw.empty() && raw.back() == '=' ? end : std::string_view::npos;
    CommandReader::WordEnd(end, raw, role);
  }
  void SubshellBegin(std::size_t offset) override {
    List& list = sink_lists_.back();
    // `NAME=(...)` is an array's words, not a subshell.
    Open(offset, offset == array_name_end_);
    Compound& opened = list.open.back();
    opened.feeds = std::exchange(list.feeds_next, {});
    opened.exec_feeds = std::exchange(list.exec_feeds_next, false);
    // `cmd > >(sh)`, `cmd | tee >(sh)`: what the pipeline writes is read in the subshell.
    if (!list.last_pipeline.empty() && WritesSubstitution(list.last_pipeline.back().command)) {
      opened.writers = std::move(list.last_pipeline);
    }
    list.last_pipeline.clear();
  }
  void SubshellEnd(std::size_t offset) override { Close(offset + 1); }
  void Redirection(std::string_view op, std::size_t offset) override {
    CommandReader::Redirection(op, offset);
    if (op == "<<" || op == "<<-") heredoc_operators_.push_back(offset);
  }
  // The bodies come in the order of their `<<`; whether a shell reads one
  // may be known before or after (when its pipeline ends).
  void HeredocBody(std::size_t begin, std::size_t end, bool expanding) override {
    if (heredoc_operators_.empty()) return;
    const std::size_t op = heredoc_operators_.front();
    heredoc_operators_.pop_front();
    Heredoc& heredoc = heredocs_[op];
    heredoc.sink.body_begin = begin;
    heredoc.sink.body_end = end;
    heredoc.sink.body_expands = expanding;
    heredoc.read = true;
    AddHeredocSink(op);
  }

 private:
  // A compound command being read.
  struct Compound {
    std::size_t begin = 0;
    std::string function;        // the body of function `function`: a shell in it reads the caller's input
    bool exec_feeds = false;     // `exec < <(...)`: the script's own input from now on
    std::vector<Member> writers;  // `... > >(...)`: the pipeline whose output the subshell reads
    bool array = false;        // the words of `NAME=(...)`
    std::vector<Member> outer;  // the pipeline it belongs to, up to it
    std::string shell;          // a shell in it that reads standard input
    std::string program;        // an interpreter in it that reads its program from standard input
    std::string feeds;          // a subshell whose output a shell runs (`sh <(...)`): why
  };

  // What is known of each open command list.
  struct List {
    std::vector<Member> pipeline;  // the pipeline being read
    std::vector<Compound> open;    // compound commands being read, innermost last
    std::optional<Member> closed;  // a compound command that ended; its redirections come next
    std::string feeds_next;        // the next subshell writes a shell's script (`sh <(...)`): why
    bool exec_feeds_next = false;  // the next subshell writes the script's own input (`exec < <(...)`)
    std::string function_next;     // the next compound command is the body of this function
    std::vector<Member> last_pipeline;  // the pipeline that ended last, until the next command
  };

  struct Heredoc {
    Sink sink;  // a name when a shell reads it
    bool read = false, decided = false;
  };

  void Open(std::size_t begin, bool array = false) {
    List& list = sink_lists_.back();
    Compound compound;
    compound.begin = begin;
    compound.array = array;
    compound.outer = std::exchange(list.pipeline, {});
    compound.function = std::exchange(list.function_next, {});
    list.open.push_back(std::move(compound));
  }

  void Close(std::size_t end) {
    List& list = sink_lists_.back();
    if (list.open.empty()) return;
    if (!list.pipeline.empty()) EndPipeline();
    Compound compound = std::move(list.open.back());
    list.open.pop_back();
    list.pipeline = std::move(compound.outer);
    if (compound.array) return;
    // `sh <(...)`: what the subshell writes is the script.
    if (!compound.feeds.empty()) AddRangeSink(compound.begin, end, compound.feeds);
    if (compound.exec_feeds) exec_input_ranges_.emplace_back(compound.begin, end);
    if (!compound.function.empty() && !compound.shell.empty()) {
      stdin_functions_[compound.function] = compound.shell;
    } else if (!compound.function.empty() && !compound.program.empty()) {
      program_functions_[compound.function] = compound.program;
    }
    if (!compound.writers.empty() && (!compound.shell.empty() || !compound.program.empty())) {
      const std::string why = "inside text written into a process substitution where " +
                              (compound.shell.empty() ? compound.program + " runs it as its program"
                                                      : compound.shell + " runs it as code");
      for (const Member& writer : compound.writers) Refuse(writer, why);
    }
    Member member;
    member.compound = true;
    member.begin = compound.begin;
    member.end = end;
    member.shell = std::move(compound.shell);
    member.program = std::move(compound.program);
    list.closed = std::move(member);
  }

  // Each command of a pipeline is looked at once the pipeline has ended.
  void CommandEnded(ShCommand command) override {
    List& list = sink_lists_.back();
    list.feeds_next.clear();
    if (!list.open.empty() && list.open.back().array) return;
    for (const ShWord& word : command.words) {
      if (word.role == ShellWordRole::kAssignment) FindAssignedCode(word);
    }
    DropWordsBeforeName(&command);
    list.function_next = DefinedFunction(command);
    Member member;
    if (list.closed) {  // the redirections and pipe of a compound command
      member = std::move(*list.closed);
      list.closed.reset();
      member.command.redirects = std::move(command.redirects);
      member.command.piped = command.piped;
    } else {
      member.command = std::move(command);
    }
    const bool piped = member.command.piped;
    if (member.compound || !member.command.words.empty() || !member.command.redirects.empty()) {
      list.pipeline.push_back(std::move(member));
    }
    // A newline or a `(` after `|` ends no pipeline.
    if (piped || list.pipeline.empty() || list.pipeline.back().command.piped) return;
    EndPipeline();
  }

  // Linear in the pipeline's length (attacker A18: a pipeline of 10,000
  // members took seconds when each looked at every later one).
  void EndPipeline() {
    std::vector<Member> ended = std::exchange(sink_lists_.back().pipeline, {});
    // For each member, what reads code from the input of the nearest later member that does.
    std::vector<std::string_view> fed_to(ended.size());
    for (std::size_t i = ended.size(); i-- > 1;) {
      const std::string_view reader = CodeReaderOfStdin(ended[i]);
      fed_to[i - 1] = reader.empty() ? fed_to[i] : reader;
    }
    refused_before_ = 0;
    for (std::size_t i = 0; i < ended.size(); ++i) FindSinks(ended, i, fed_to[i]);
    sink_lists_.back().last_pipeline = std::move(ended);
  }

  // The name of the function that `command` begins to define: `f()` (the
  // lexer ends the command at its `()`) or `function f`; else empty.
  std::string DefinedFunction(const ShCommand& command) const {
    const std::vector<ShWord>& words = command.words;
    if (words.size() == 2 && words[0].text == "function") return words[1].text;
    if (words.size() != 1 || words[0].has_expansion) return {};
    std::size_t at = words[0].end;
    while (at < script_.size() && (script_[at] == ' ' || script_[at] == '\t')) ++at;
    return at < script_.size() && script_[at] == '(' ? words[0].text : std::string();
  }

  // Leaves the words from the command name on: no assignment, reserved word
  // in front, word of `case WORD in`, or target of a redirection that ended
  // no command of its own.
  static void DropWordsBeforeName(ShCommand* command) {
    std::vector<ShWord> kept;
    for (ShWord& word : command->words) {
      const ShellWordRole role = word.role;
      if (role == ShellWordRole::kAssignment || role == ShellWordRole::kCaseSubject ||
          role == ShellWordRole::kCaseIn || role == ShellWordRole::kRedirectTarget ||
          (role == ShellWordRole::kReservedWord && kept.empty())) {
        continue;
      }
      kept.push_back(std::move(word));
    }
    command->words = std::move(kept);
  }

  // The sinks of command `at` of a pipeline, and whether a shell reads the
  // here-documents its redirections bring; `fed_to`: what reads code from
  // the output of the command, through the pipeline (a shell, an
  // interpreter), if anything does.
  void FindSinks(std::vector<Member>& pipeline, std::size_t at, std::string_view fed_to) {
    Member& member = pipeline[at];
    ShCommand& command = member.command;
    // The name of the shell that reads its standard input as code.
    string_runs_program_.clear();
    words_rewritten_ = false;
    std::string stdin_shell = member.compound ? member.shell : command.words.empty() ? "" : FindWordSinks(command);
    const bool maybe_shell = !member.compound && !command.words.empty() && stdin_shell_maybe_;
    const bool exec_alone = !member.compound && command.words.size() == 1 && command.words[0].text == "exec";
    if (exec_alone) KeepExecInput(command);
    if (!stdin_shell.empty()) {
      any_stdin_shell = stdin_shell;
      GiveExecInputTo(stdin_shell);
      const std::string why = "inside text piped into " + stdin_shell + ", which runs it as code";
      RefuseEarlier(pipeline, at, why);
      // `{ sh; } <<EOF`, `a | while ...; do sh; done`: a compound command's input may reach it.
      MarkOpenCompounds(&Compound::shell, stdin_shell);
      if (ReadsSubstitution(command)) sink_lists_.back().feeds_next = why;
    }
    // Why the command's own here-documents and here-strings are refused, if they are.
    const std::string own_input = stdin_shell.empty() ? FindProgramFeeds(pipeline, at) : std::string();
    if (!member.compound && !command.words.empty() && command.words[0].text == "coproc") {
      const std::string_view reader = CodeReaderOfStdin(member);
      if (!reader.empty()) RefuseAfterCoprocess(command, reader);
    }
    for (ShRedirect& redirect : command.redirects) {
      if ((redirect.op == "<<" || redirect.op == "<<-") && !exec_alone) {
        Heredoc& heredoc = heredocs_[redirect.begin];
        if (!stdin_shell.empty()) {
          heredoc.sink.name = "the here-document that " + stdin_shell + (maybe_shell ? "" : " runs as code");
          heredoc.sink.maybe = maybe_shell;
        }
        if (!fed_to.empty()) {
          heredoc.sink.name = "a here-document piped into " + std::string(fed_to);
          heredoc.sink.refusal = "inside a here-document piped into " + std::string(fed_to) + ", which runs it as code";
        } else if (!own_input.empty()) {
          heredoc.sink.name = "a here-document read as a program";
          heredoc.sink.refusal = own_input;
        }
        heredoc.decided = true;
        AddHeredocSink(redirect.begin);
      } else if (redirect.op == "<<<" && !stdin_shell.empty()) {
        AddWordSink("the here-string that " + stdin_shell + (maybe_shell ? "" : " runs as code"), {&redirect.target});
        sinks.back().maybe = maybe_shell;
      } else if (redirect.op == "<<<" && !own_input.empty()) {
        AddWordSink("a here-string read as a program", {&redirect.target}, own_input);
      }
    }
  }

  // `exec <<EOF`, `exec <<< STRING`, `exec < <(...)`: the script's own input
  // from now on (any descriptor: `exec 3<<EOF` ... `sh <&3`), which a later
  // shell may read as code. Kept until one does (GiveExecInputTo).
  void KeepExecInput(const ShCommand& exec) {
    for (const ShRedirect& redirect : exec.redirects) {
      if (redirect.op == "<<" || redirect.op == "<<-") exec_heredocs_.push_back(redirect.begin);
      if (redirect.op == "<<<") exec_strings_.push_back(redirect.target);
    }
    if (ReadsSubstitution(exec)) sink_lists_.back().exec_feeds_next = true;
  }

  // `program`: an interpreter, not a shell, reads it as its program (then
  // every placeholder in it is refused).
  void GiveExecInputTo(const std::string& shell, bool program = false) {
    const std::string name = "the input `exec` gave the script, which " + shell + " reads";
    const std::string why = "inside text that `exec` gave the script as its input, which " + shell +
                            (program ? " runs as its program" : " runs as code");
    for (std::size_t op : std::exchange(exec_heredocs_, {})) {
      Heredoc& heredoc = heredocs_[op];
      heredoc.sink.name = name;
      if (program) heredoc.sink.refusal = why;
      heredoc.decided = true;
      AddHeredocSink(op);
    }
    for (const ShWord& string : std::exchange(exec_strings_, {})) AddWordSink(name, {&string}, program ? why : "");
    for (const auto& [begin, end] : std::exchange(exec_input_ranges_, {})) AddRangeSink(begin, end, why);
  }

  void AddHeredocSink(std::size_t op) {
    auto heredoc = heredocs_.find(op);
    if (!heredoc->second.read || !heredoc->second.decided) return;
    if (!heredoc->second.sink.name.empty()) sinks.push_back(std::move(heredoc->second.sink));
    heredocs_.erase(heredoc);
  }

  // "a shell" or "an interpreter" when `member` reads code from its standard input, else empty.
  std::string_view CodeReaderOfStdin(const Member& member) const {
    if (member.compound) {
      return !member.shell.empty() ? "a shell" : !member.program.empty() ? "an interpreter" : "";
    }
    if (member.command.words.empty()) return {};
    if (!StdinShellName(member.command).empty()) return "a shell";
    return StdinProgramOf(member).source.from_stdin ? "an interpreter" : "";
  }

  // `coproc sh`, `coproc python3` (bash): what later commands write to the
  // coprocess (`>&${COPROC[1]}`) is read as code; every placeholder after it
  // is refused.
  void RefuseAfterCoprocess(const ShCommand& command, std::string_view reader) {
    std::size_t end = command.words.back().end;
    for (const ShRedirect& redirect : command.redirects) end = std::max(end, redirect.target.end);
    AddRangeSink(end, script_.size(),
                 "after `coproc` runs " + std::string(reader) +
                     " that reads code from its input, which any later command may write to");
  }

  // Refuses every placeholder in the commands of `pipeline` before `at`
  // (each command once: `sh | sh | ... | sh`).
  void RefuseEarlier(const std::vector<Member>& pipeline, std::size_t at, const std::string& why) {
    for (; refused_before_ < at; ++refused_before_) Refuse(pipeline[refused_before_], why);
  }

  // Sets `field` (Compound::shell or ::program) of the open compound
  // commands that have none: what reaches their input may reach `name`.
  // (Innermost first: the enclosing ones of a marked compound command are marked.)
  void MarkOpenCompounds(std::string Compound::*field, const std::string& name) {
    for (auto list = sink_lists_.rbegin(); list != sink_lists_.rend(); ++list) {
      for (auto open = list->open.rbegin(); open != list->open.rend() && ((*open).*field).empty(); ++open) {
        (*open).*field = name;
      }
    }
  }

  // An interpreter (python3, perl, node, sed -f -, awk -f /dev/stdin, ...)
  // a pipeline member runs: where it reads its program from
  // (interpreter_programs.h), and whether its own here-documents and
  // here-strings are read as that program by the program readings, which
  // they are for a simple command naming the interpreter (not for a
  // compound command or a function running it).
  struct StdinProgram {
    ProgramSource source;
    bool own_input_read = false;
  };
  StdinProgram StdinProgramOf(const Member& member) const {
    if (member.compound) return {{member.program, !member.program.empty(), false}, false};
    const std::vector<ShWord>& words = member.command.words;
    if (words.empty()) return {};
    const std::size_t run = std::min(CommandAfterRunners(words, 0), words.size() - 1);
    if (const auto function = program_functions_.find(ProgramOf(words[run])); function != program_functions_.end()) {
      return {{Quoted(function->first) + " (a function in which " + function->second + " reads its program)", true,
               false},
              false};
    }
    ProgramSource source = ProgramSourceOf(words);
    if (!source.name.empty()) return {std::move(source), true};
    // `ed`, `vim -es`, `m4`, ...: commands of their own, read from the input.
    const std::string reader = CommandReaderOfInput(words);
    return {{reader, !reader.empty(), false}, false};
  }

  // An interpreter that reads its program from its standard input (`echo
  // "..." | python3`, `| sed -f -`) or from a `<(...)` (`python3 <(...)`,
  // `sed -f <(...)`): the text fed to it is program text nobody delimits,
  // refused as text piped into a shell is. Returns why the command's own
  // here-documents and here-strings are refused (when the program readings
  // do not read them: StdinProgram::own_input_read), else empty.
  std::string FindProgramFeeds(const std::vector<Member>& pipeline, std::size_t at) {
    // (`sh -c python3`, `eval python3`: FindWordSinks read the string.)
    const StdinProgram program = string_runs_program_.empty()
                                     ? StdinProgramOf(pipeline[at])
                                     : StdinProgram{{string_runs_program_, true, false}, false};
    const ProgramSource& source = program.source;
    if (source.name.empty() || (!source.from_stdin && !source.from_file)) return {};
    const std::string why = "inside text fed to " + source.name + ", which runs it as its program";
    if (source.from_stdin) {
      any_stdin_program = source.name;
      GiveExecInputTo(source.name, /*program=*/true);
      RefuseEarlier(pipeline, at, why);
      MarkOpenCompounds(&Compound::program, source.name);
    }
    if (ReadsSubstitution(pipeline[at].command)) sink_lists_.back().feeds_next = why;
    // (The program readings read the words as written: after `env -S` or a
    // program variable, the here-documents are not theirs.)
    return source.from_stdin && (!program.own_input_read || words_rewritten_) ? why : std::string();
  }

  // The name (quoted) of the shell that `command` runs on its standard
  // input, or empty; `maybe` is set when the program is named by an
  // expansion and has no operand (`$SH`, `"$@" -s`): it may be a shell.
  std::string StdinShellName(const ShCommand& command, bool* maybe = nullptr) const {
    const std::vector<ShWord>& words = command.words;
    const std::size_t run = std::min(CommandAfterRunners(words, 0), words.size() - 1);
    if (const auto function = stdin_functions_.find(ProgramOf(words[run])); function != stdin_functions_.end()) {
      return Quoted(function->first) + " (a function in which " + function->second + " reads its input)";
    }
    // `ssh HOST`, `su USER`, `sudo -s`, `at now`: a shell no word names.
    if (std::string reader = ShellReadingInput(words); !reader.empty()) return reader;
    std::string_view first = ProgramBaseName(words[0].text);
    if ((first == "." || first == "source") &&
        (words.size() == 2 ? IsStdinPath(words[1].text) : words.size() == 1 && ReadsSubstitution(command))) {
      return Quoted(first);
    }
    std::size_t shell = FindShell(words);
    if (shell == std::string_view::npos) {
      const std::size_t expanded = FindExpandedProgram(words);
      if (expanded == std::string_view::npos || !ReadShellCall(words, expanded).reads_stdin) return {};
      if (maybe != nullptr) *maybe = true;
      return Quoted(words[expanded].text) + " (named by an expansion, so possibly a shell)";
    }
    return ReadShellCall(words, shell).reads_stdin ? Quoted(ProgramBaseName(ProgramOf(words[shell]))) : std::string();
  }

  // A variable whose value the shell runs as code: bash's PROMPT_COMMAND,
  // before each prompt of an interactive shell (which a child may be).
  void FindAssignedCode(const ShWord& word) {
    if (AssignedName(word, /*declaration=*/false) != "PROMPT_COMMAND") return;
    if (const std::optional<ShWord> value = AssignedValue(word)) AddWordSink("`PROMPT_COMMAND`", {&*value});
  }

  // The index of the shell a command runs, or npos (ShellOfCommand).
  static std::size_t FindShell(const std::vector<ShWord>& words) { return ShellOfCommand(words); }

  // The index of a program named by an expansion (itself or behind runners), or npos.
  static std::size_t FindExpandedProgram(const std::vector<ShWord>& words) {
    const std::size_t program = CommandAfterRunners(words, 0);
    return program < words.size() && ProgramOf(words[program]).empty() ? program : std::string_view::npos;
  }

  // `CURL="curl -fsS"; $CURL URL`: the command word is the program the
  // script assigned (ProgramVariables; the script is read for them once),
  // when that program reads its arguments as data: one naming a shell, a
  // sink, a runner, an interpreter or a command that evaluates its words
  // stays a program named by an expansion (the other readers do not follow
  // the variable).
  void SubstituteProgramVariable(std::vector<ShWord>* words) {
    const std::size_t run = CommandAfterRunners(*words, 0);
    if (run >= words->size() || WholeWordVariable((*words)[run]).empty()) return;
    if (!program_variables_) program_variables_.emplace(script_);
    std::optional<std::vector<ShWord>> program = program_variables_->WordsOf((*words)[run]);
    if (!program || program->empty()) return;
    std::string literal;
    for (const ShWord& word : *program) literal += word.text + " ";
    const std::string_view first = program->front().text;
    if (IsShellProgram(first) || IsRunner(first) || TakesCommandOption(first) || RunsOperandsAsString(first) ||
        MayRunCodeAgain(literal) || MayEvaluateOperands(literal) || MayRunPrograms(literal)) {
      return;
    }
    words->erase(words->begin() + static_cast<std::ptrdiff_t>(run));
    words->insert(words->begin() + static_cast<std::ptrdiff_t>(run), program->begin(), program->end());
    words_rewritten_ = true;
  }

  // `env -S 'sh -c' STRING` (`--split-string`): env splits its option's
  // argument into words of the command line, with a quoting and a `${NAME}`
  // expansion of its own. A placeholder in it is refused; the words it names
  // take its place, so that `sh -c` is found there.
  void SplitEnvStrings(std::vector<ShWord>* words) {
    for (std::size_t env = 0; env < words->size(); ++env) {
      if (ProgramBaseName((*words)[env].text) != "env") continue;
      for (std::size_t option = env + 1; option < EnvCommand(*words, env); ++option) {
        const std::string& text = (*words)[option].text;
        const bool separate = text == "-S" || text == "--split-string";
        const std::size_t glued = text.starts_with("--split-string=") ? std::string_view("--split-string=").size()
                                  : text.starts_with("-S") && !separate ? 2
                                                                         : 0;
        if (!separate && glued == 0) continue;
        const std::size_t last = separate ? option + 1 : option;
        if (last >= words->size()) return;
        const std::optional<ShWord> string = separate ? std::optional<ShWord>((*words)[last]) : WordFrom((*words)[option], glued);
        if (string) {
          AddWordSink("`env -S`", {&*string},
                      "inside the string that `env -S` splits into a command line, with quotes, `\\` and `${NAME}` "
                      "of its own");
        }
        std::vector<ShWord> split = WordsOfPlainText(string ? string->text : std::string());
        words->erase(words->begin() + static_cast<std::ptrdiff_t>(option),
                     words->begin() + static_cast<std::ptrdiff_t>(last + 1));
        words->insert(words->begin() + static_cast<std::ptrdiff_t>(option), split.begin(), split.end());
        words_rewritten_ = true;
        option += split.size();
        --option;
      }
    }
  }


  // Adds the sinks among the command's own words; returns the name of the
  // shell when the command reads code from its standard input.
  std::string FindWordSinks(ShCommand& command) {
    stdin_shell_maybe_ = false;
    std::vector<ShWord>& words = command.words;
    SplitEnvStrings(&words);
    SubstituteProgramVariable(&words);
    std::string_view name = ProgramBaseName(words[0].text);
    // The builtin behind prefix words (`command eval`, `builtin alias`), and
    // the variables `env` sets (`env PROMPT_COMMAND=... bash -i`, `find -exec env`).
    const std::size_t run = CommandAfterRunners(words, 0);
    // After a program no table lists (`strace -f su app -c X`), its words may run too: their -c strings.
    const std::size_t last = LastPossibleProgram(words, run);
    if (last > run) FindRunnerStrings(words, last);
    for (OptionShellString& option : OptionShellStrings(words, run, last)) {
      std::vector<const ShWord*> value;
      for (const ShWord& word : option.words) value.push_back(&word);
      AddWordSink(std::move(option.name), std::move(value), std::move(option.refusal));
    }
    for (std::size_t env = 0; env < words.size(); ++env) {
      if (ProgramBaseName(words[env].text) != "env") continue;
      const std::size_t runs = EnvCommand(words, env);
      for (std::size_t i = env + 1; i < runs; ++i) FindAssignedCode(words[i]);
    }
    std::size_t shell = FindShell(words);
    if (shell != std::string_view::npos) {
      ShellCall call = ReadShellCall(words, shell);
      std::string shell_name(ProgramBaseName(ProgramOf(words[shell])));
      RefuseBraceWords(words, shell + 1, Quoted(shell_name));
      if (call.dash_c_string != std::string_view::npos) {
        AddWordSink(Quoted(shell_name + " -c"), {&words[call.dash_c_string]});
        std::string runs_shell = StdinShellInCode(words[call.dash_c_string].text, Quoted(shell_name + " -c"));
        if (!runs_shell.empty()) return runs_shell;
        // (`xargs -I{} sh -c {}` writes its input into the string.)
        return call.reads_stdin ? Quoted(shell_name) : std::string();
      }
      if (call.reads_stdin) return Quoted(shell_name);
    }
    if (shell == std::string_view::npos) {
      // A program named by an expansion (`"$SH" -c '...'`, `${SHELL:-sh} -c`)
      // may be a shell: a -c string after it is read as one.
      const std::size_t expanded = FindExpandedProgram(words);
      if (expanded != std::string_view::npos) {
        const ShellCall call = ReadShellCall(words, expanded);
        if (call.dash_c_string != std::string_view::npos) {
          AddWordSink(Quoted(words[expanded].text + " -c"), {&words[call.dash_c_string]});
          return {};
        }
        // `{sh,-c,CMD}`: brace expansion makes the word a command line.
        if (MayExpandToOtherWords(words[expanded])) {
          AddWordSink("a command word that expands to several words", {&words[expanded]},
                      "in a command word that brace expansion or a glob makes into other words (bash, mksh, zsh: "
                      "`{sh,-c,CMD}`), which may be a command line");
        }
        // `$cmd ARGS` with cmd="sh -c" or "eval", `"$@" ARGS`: what runs the
        // arguments is not known. A value is written only where it reads the
        // same whether they are data or code (Sink::maybe).
        std::vector<const ShWord*> arguments;
        for (std::size_t i = expanded + 1; i < words.size(); ++i) arguments.push_back(&words[i]);
        if (!arguments.empty()) {
          AddWordSink(Quoted(words[expanded].text) + " (named by an expansion, so possibly a shell or `eval`)",
                      std::move(arguments));
          sinks.back().maybe = true;
        }
        return StdinShellName(command, &stdin_shell_maybe_);
      }
    }
    std::string stdin_source = StdinShellName(command);
    if (!stdin_source.empty()) return stdin_source;
    std::string runner_stdin = FindRunnerStrings(words, run);
    if (run < words.size()) name = ProgramBaseName(words[run].text);
    if (name == "eval") {
      AddWordSink("`eval`", Operands(words, run + 1));
      if (!sinks.empty() && sinks.back().name == "`eval`") return StdinShellInCode(JoinedText(sinks.back()), "`eval`");
    } else if (name == "trap") {
      std::vector<const ShWord*> operands = Operands(words, run + 1);
      if (operands.size() >= 2) AddWordSink("`trap`", {operands[0]});
    } else if (name == "alias") {
      // `alias p='...'`: the body is read as code wherever `p` is used.
      for (const ShWord* word : Operands(words, run + 1)) {
        if (const std::optional<ShWord> body = AssignedValue(*word)) AddWordSink("`alias`", {&*body});
      }
    } else if (IsDeclaration(name)) {
      for (const ShWord* word : Operands(words, run + 1)) FindAssignedCode(*word);
    } else if (name == "ssh") {
      std::vector<const ShWord*> operands = Operands(words, run + 1, "BbcDEeFIiJLlmOopQRSWw");
      if (operands.size() >= 2) {
        AddWordSink("`ssh`", {operands.begin() + 1, operands.end()},
                    "inside the command `ssh` sends to the remote login shell, which runs it as code");
      }
    }
    return runner_stdin;
  }

  // The strings that the runners up to word `run` (the command they run)
  // hand to a shell: `su -c STRING`, `nohup flock FILE -c STRING`, `watch ARGS`.
  // Returns the name of a shell that a -c string runs on the command's input
  // (`su -c sh`; StdinShellInCode), or empty.
  std::string FindRunnerStrings(const std::vector<ShWord>& words, std::size_t run) {
    std::string stdin_shell;
    for (std::size_t runner = 0; runner <= run && runner < words.size(); ++runner) {
      const std::string_view name = ProgramBaseName(words[runner].text);
      if (RunsOperandsAsString(name)) {
        // watch -n SECONDS, -q CYCLES; parallel's input sources begin at `:::`.
        std::vector<const ShWord*> operands = Operands(words, runner + 1, name == "watch" ? "nq" : "");
        auto sources = std::find_if(operands.begin(), operands.end(), [](const ShWord* word) {
          return word->text.starts_with(":::");
        });
        AddWordSink(Quoted(name), {operands.begin(), sources});
      }
      if (!TakesCommandOption(name)) continue;
      for (std::size_t option = runner + 1; option < words.size(); ++option) {
        const std::optional<ShWord> string = ShellStringOption(words, option);
        if (!string) continue;
        AddWordSink(Quoted(std::string(name) + " -c"), {&*string});
        if (stdin_shell.empty()) stdin_shell = StdinShellInCode(string->text, Quoted(std::string(name) + " -c"));
        if (option + 1 < words.size() && string->begin == words[option + 1].begin) ++option;  // the string itself
      }
    }
    return stdin_shell;
  }

  // `sh {-c,CMD}` (bash, mksh, zsh): brace expansion makes a word several,
  // which may be the shell's -c and its string; a placeholder in it is refused.
  void RefuseBraceWords(const std::vector<ShWord>& words, std::size_t first, const std::string& shell) {
    for (std::size_t i = first; i < words.size(); ++i) {
      if (!HasBraceExpansion(words[i])) continue;
      AddWordSink(shell, {&words[i]},
                  "in a word that brace expansion makes into several (bash, mksh, zsh), which " + shell +
                      " may read as options and a script");
    }
  }

  // `sh -c 'sh' <<EOF`, `eval 'cat | sh' <<<...`: the string runs a shell
  // that reads the input of the command running the string. Returns that
  // command's name for messages, or empty.
  // (As deep as the readings of AddSecondOrderReadings: `eval eval ... sh`
  // would otherwise read its tail once per word. Deeper, a string that names
  // a sink is taken for one that runs a shell.)
  // A string that runs an interpreter reading its program from that input
  // (`sh -c python3 <<EOF`) sets string_runs_program_ instead.
  std::string StdinShellInCode(const std::string& code, const std::string& runner) {
    if (!MayReadAgain(code)) return {};
    if (depth_ >= kMaxSinkDepth) return runner + " (whose string, nested too deep to be read, may run a shell)";
    SinkReader reader(code, depth_ + 1);
    ReadShell(code, &reader);
    if (reader.any_stdin_shell.empty()) {
      if (!reader.any_stdin_program.empty()) {
        string_runs_program_ = runner + " (whose string runs " + reader.any_stdin_program + ")";
      }
      return {};
    }
    return runner + " (whose string runs " + reader.any_stdin_shell + ")";
  }

  // The words from `first` on that are not options (`-x`, and the argument
  // of each option letter in `with_argument`), after a `--`.
  static std::vector<const ShWord*> Operands(const std::vector<ShWord>& words, std::size_t first,
                                           std::string_view with_argument = {}) {
    std::vector<const ShWord*> operands;
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

  void AddWordSink(std::string name, std::vector<const ShWord*> sink_words, std::string refusal = {}) {
    if (sink_words.empty()) return;
    Sink sink;
    sink.name = std::move(name);
    sink.refusal = std::move(refusal);
    for (const ShWord* word : sink_words) sink.words.push_back(&kept_words.emplace_back(*word));
    sinks.push_back(std::move(sink));
  }

  void RefuseAll(const ShCommand& command, const std::string& why) {
    std::vector<const ShWord*> all;
    for (const ShWord& word : command.words) all.push_back(&word);
    for (const ShRedirect& redirect : command.redirects) all.push_back(&redirect.target);
    AddWordSink("a pipe into a shell", std::move(all), why);
  }

  void Refuse(const Member& member, const std::string& why) {
    if (member.compound) AddRangeSink(member.begin, member.end, why);
    RefuseAll(member.command, why);
  }

  // Every placeholder in [begin, end) of the script is refused.
  void AddRangeSink(std::size_t begin, std::size_t end, const std::string& why) {
    Sink sink;
    sink.name = "a pipe into a shell";
    sink.refusal = why;
    sink.body_begin = begin;
    sink.body_end = end;
    sinks.push_back(std::move(sink));
  }

  std::vector<List> sink_lists_;
  std::deque<std::size_t> heredoc_operators_;  // the `<<` whose bodies come next, in order
  std::map<std::size_t, Heredoc> heredocs_;    // by the offset of their `<<`, until both are known
  std::size_t word_begin_ = 0;
  bool stdin_shell_maybe_ = false;
  std::string string_runs_program_;  // FindWordSinks: the command's -c or eval string runs a stdin interpreter
  bool words_rewritten_ = false;
  std::size_t refused_before_ = 0;  // EndPipeline: the commands before it are refused (RefuseEarlier)     // FindWordSinks: `env -S` or a program variable changed the command's words
  std::string_view script_;
  int depth_ = 0;
  std::optional<ProgramVariables> program_variables_;
  std::map<std::string, std::string> stdin_functions_;  // a function in which a shell reads its input: that shell
  std::map<std::string, std::string> program_functions_;  // a function in which an interpreter reads its program from its input
  std::vector<std::size_t> exec_heredocs_;              // KeepExecInput: the `<<` of each
  std::vector<ShWord> exec_strings_;
  std::vector<std::pair<std::size_t, std::size_t>> exec_input_ranges_;  // the shell FindWordSinks returned may be no shell (StdinShellName)
  std::size_t array_name_end_ = std::string_view::npos;  // where a word `NAME=` ended
};

// ---- placing placeholders in the inner text -------------------------------

// The placeholders of a script in text order, so that each sink visits only
// those inside it (a script may hold thousands of sinks and placeholders).
class Placeholders {
 public:
  explicit Placeholders(const std::vector<std::size_t>& offsets) : offsets_(offsets), order_(offsets.size()) {
    for (std::size_t i = 0; i < order_.size(); ++i) order_[i] = i;
    if (!std::is_sorted(offsets.begin(), offsets.end())) {
      std::stable_sort(order_.begin(), order_.end(),
                       [&](std::size_t a, std::size_t b) { return offsets[a] < offsets[b]; });
    }
  }

  bool At(std::size_t offset) const {
    auto found = First(offset);
    return found != order_.end() && offsets_[*found] == offset;
  }

  /// Calls visit(index, offset) for each placeholder in [begin, end), in text order.
  template <typename Visit>
  void ForEachIn(std::size_t begin, std::size_t end, const Visit& visit) const {
    for (auto at = First(begin); at != order_.end() && offsets_[*at] < end; ++at) visit(*at, offsets_[*at]);
  }

 private:
  std::vector<std::size_t>::const_iterator First(std::size_t offset) const {
    return std::lower_bound(order_.begin(), order_.end(), offset,
                            [&](std::size_t index, std::size_t value) { return offsets_[index] < value; });
  }

  const std::vector<std::size_t>& offsets_;
  std::vector<std::size_t> order_;  // indexes of offsets_, by offset
};

// A placeholder found in a sink's string: its index in the caller's
// contexts, where it lands in the inner text, or why that cannot be known.
struct Placement {
  std::size_t index = 0;
  std::size_t at = 0;
  std::string why;
};

// The placeholders in the words of `sink`, each placed by the first piece
// that holds it, in the caller's order.
std::vector<Placement> PlaceInWords(const Sink& sink, const Placeholders& placeholders) {
  std::vector<Placement> placed;
  std::size_t text_start = 0;
  bool unknown_before = false;  // an expansion before decides how the rest of the string is read
  for (const ShWord* word : sink.words) {
    for (const ShPiece& piece : word->pieces) {
      placeholders.ForEachIn(piece.offset, piece.offset + piece.length, [&](std::size_t index, std::size_t offset) {
        Placement placement{index, text_start + piece.text_begin + (offset - piece.offset), {}};
        if (piece.kind != ShPiece::kText && !(piece.kind == ShPiece::kExpansion && piece.offset == offset)) {
          placement.why = "in an expansion inside the string that " + sink.name + " runs as code";
        } else if (unknown_before) {
          placement.why = "after an expansion in the string that " + sink.name +
                          " runs as code: its result, which the renderer cannot know, decides how the string is read";
        }
        placed.push_back(std::move(placement));
      });
      if (piece.kind == ShPiece::kUndecoded || (piece.kind == ShPiece::kExpansion && !placeholders.At(piece.offset))) {
        unknown_before = true;
      }
    }
    text_start += word->text.size() + 1;
  }
  // In the caller's order; a placeholder two pieces hold is placed by the first.
  std::stable_sort(placed.begin(), placed.end(),
                   [](const Placement& a, const Placement& b) { return a.index < b.index; });
  placed.erase(std::unique(placed.begin(), placed.end(),
                           [](const Placement& a, const Placement& b) { return a.index == b.index; }),
               placed.end());
  return placed;
}

// An expanding here-document body is read with `\` `$` `` ` `` processed:
// only a body whose every `$` is a placeholder and that has no `\` or `` ` ``
// is the same text for the inner shell.
bool BodyIsLiteral(std::string_view script, const Sink& sink, const Placeholders& placeholders) {
  for (std::size_t i = sink.body_begin; i < sink.body_end; ++i) {
    char c = script[i];
    if (c == '\\' || c == '`') return false;
    if (c != '$') continue;
    if (!placeholders.At(i)) return false;
    if (i + 1 < sink.body_end && script[i + 1] == '{') {
      std::size_t close = script.find('}', i);
      if (close == std::string_view::npos || close >= sink.body_end) return false;
      i = close;
    }
  }
  return true;
}

// The placeholders in the here-document body of `sink`, in the caller's order.
std::vector<Placement> PlaceInBody(std::string_view script, const Sink& sink, const Placeholders& placeholders) {
  std::vector<Placement> placed;
  placeholders.ForEachIn(sink.body_begin, sink.body_end, [&](std::size_t index, std::size_t offset) {
    placed.push_back(Placement{index, offset - sink.body_begin, {}});
  });
  if (!placed.empty() && sink.body_expands && !BodyIsLiteral(script, sink, placeholders)) {
    for (Placement& placement : placed) {
      placement.why = "in " + sink.name + ", whose `\\`, `$` or `` ` `` the outer shell processes first";
    }
  }
  std::sort(placed.begin(), placed.end(), [](const Placement& a, const Placement& b) { return a.index < b.index; });
  return placed;
}

// Attaches `inner`, the reading of a position in a string that is run
// again. When the string may be run or not (Sink::maybe), the reading as
// data is kept beside it (kReadAsData), and AppendShellEncoded writes only a
// value that comes out alike for both.
void AttachReread(ShellContext* context, ShellContext inner, bool maybe) {
  if (maybe) {
    ShellContext data = *context;
    data.sink.clear();
    data.reread.clear();
    data.other_readings.clear();
    context->other_readings.push_back(OtherShellReading{std::string(kReadAsData), std::move(data)});
  }
  context->reread.assign(1, std::move(inner));
}

// The words a command evaluates (`let`, `[ -gt ]`, names) and the programs
// other interpreters run (sed, awk, perl, ...): the same two readings for a
// script and for every string it runs again.
void AddEvaluatedWordReadings(std::string_view script, const std::vector<std::size_t>& offsets,
                              std::vector<ShellContext>* contexts) {
  if (MayEvaluateOperands(script)) AddOperandReadings(script, offsets, contexts);
  if (MayRunPrograms(script)) AddProgramReadings(script, offsets, contexts);
}

// A `$`, backtick, glob or brace character in a word that may be a command
// word: at the start of a line or after `;` `|` `&` `(` `{`, a reserved word
// or a runner (`exec "$@"`, `/bin/[s]h`, `{sh,-c,...}`).
bool MayNameProgramByExpansion(std::string_view script) {
  constexpr std::string_view kDeciding = "$`*?[{";
  constexpr std::string_view kEndsWord = " \t\n;|&()";
  // Each word is looked at once, from its first such character (linear time).
  for (std::size_t at = script.find_first_of(kDeciding); at != std::string_view::npos;
       at = script.find_first_of(kDeciding, std::min(script.find_first_of(kEndsWord, at), script.size()))) {
    std::size_t before = at;  // the start of the word holding `at`
    while (before > 0 && kEndsWord.find(script[before - 1]) == std::string_view::npos) --before;
    if (IsShellAssignment(script.substr(before, at - before))) continue;  // `X=$(...)` names no program
    while (before > 0 && std::string_view(" \t\"").find(script[before - 1]) != std::string_view::npos) --before;
    if (before == 0 || std::string_view("\n;|&({`").find(script[before - 1]) != std::string_view::npos) return true;
    std::size_t start = before;
    while (start > 0 && kEndsWord.find(script[start - 1]) == std::string_view::npos) --start;
    const std::string_view word = script.substr(start, before - start);
    if (IsShellAssignment(word)) return true;  // `A=1 $cmd`
    for (std::string_view reserved : {"if", "then", "else", "elif", "do", "while", "until", "!", "time"}) {
      if (word == reserved) return true;
    }
    if (!word.empty() && IsRunner(word)) return true;
  }
  return false;
}

}  // namespace

bool MayRunCodeAgain(std::string_view script) {
  std::string unquoted;
  script = NamesAsRead(script, &unquoted);  // `ev''al` is `eval`
  // The `#!` line names a shell in most scripts: it runs nothing again.
  if (script.substr(0, 2) == "#!") script.remove_prefix(std::min(script.find('\n'), script.size()));
  // (`<(`: `. <(cmd)` runs what cmd writes.)
  for (std::string_view word : {"eval", "trap", "su", "runuser", "watch", "stdin", "alias", "PROMPT_COMMAND", "<(",
                                "script", "sg", "flock", "parallel"}) {
    if (script.find(word) != std::string_view::npos) return true;
  }
  // A shell (or ssh) named as a word: `sh`, `/bin/bash`, followed by what
  // may follow a command name.
  // (`mksh-static`, `bash5`: ShellName's suffixes follow the `sh`.)
  const auto in_name = [](char c) { return IsNameChar(c) || c == '-' || c == '.'; };
  for (std::size_t at = script.find("sh"); at != std::string_view::npos; at = script.find("sh", at + 2)) {
    std::size_t end = at + 2;
    while (end < script.size() && in_name(script[end])) ++end;
    char next = end < script.size() ? script[end] : '\n';
    if (std::string_view(" \t\n<;|)'\"").find(next) == std::string_view::npos) continue;
    std::size_t start = at;
    while (start > 0 && (in_name(script[start - 1]) || script[start - 1] == '/')) --start;
    std::string_view word = script.substr(start, end - start);
    if (IsShellProgram(word) || ProgramBaseName(word) == "ssh") return true;
  }
  // A program named by an expansion may be a shell or `eval` (`$cmd ARGS`).
  if (MayNameProgramByExpansion(script)) return true;
  if (MayNameOptionRunner(script)) return true;  // `git -c core.sshCommand=...`, `ssh -o ProxyCommand=...`
  // A -c option (or a bundle with c) after a `$` on its line: the program may
  // be named by an expansion (`"$SH" -c`).
  for (std::size_t at = script.find('-'); at != std::string_view::npos; at = script.find('-', at + 1)) {
    if (at == 0 || (script[at - 1] != ' ' && script[at - 1] != '\t')) continue;
    std::size_t end = at + 1;
    while (end < script.size() && std::isalpha(static_cast<unsigned char>(script[end]))) ++end;
    if (!IsDashC(script.substr(at, end - at))) continue;
    const std::size_t line = script.rfind('\n', at);
    const std::size_t line_start = line == std::string_view::npos ? 0 : line + 1;
    if (script.substr(line_start, at - line_start).find('$') != std::string_view::npos) return true;
  }
  return false;
}

void AddSecondOrderReadings(std::string_view script, const std::vector<std::size_t>& offsets,
                            std::vector<ShellContext>* contexts, int depth) {
  SinkReader reader(script);
  ReadShell(script, &reader);
  if (reader.sinks.empty()) return;
  const Placeholders placeholders(offsets);
  for (const Sink& sink : reader.sinks) {
    std::vector<std::size_t> inner_offsets, indexes;
    std::vector<std::size_t> unknown;  // of a maybe sink: the reading as code is not known
    for (Placement& placement : sink.words.empty() ? PlaceInBody(script, sink, placeholders)
                                                   : PlaceInWords(sink, placeholders)) {
      ShellContext& context = (*contexts)[placement.index];
      std::string& why = placement.why;
      context.sink = sink.name;
      if (!sink.refusal.empty()) why = sink.refusal;
      if (why.empty() && !context.backtick_layers.empty()) why = "inside backticks and " + sink.name;
      if (why.empty() && depth >= kMaxSinkDepth) {
        why = "in " + sink.name + ", nested in more than three strings that are run as code";
      }
      if (!why.empty() && sink.maybe) {
        unknown.push_back(placement.index);
      } else if (!why.empty()) {
        if (context.unsupported.empty()) context.unsupported = why;
      }
      if (!why.empty()) continue;
      inner_offsets.push_back(placement.at);
      indexes.push_back(placement.index);
    }
    // Only a value that is data in every quoting state reads alike there: an
    // unquoted word's rules let only such values through.
    for (std::size_t index : unknown) AttachReread(&(*contexts)[index], ShellContext{}, true);
    if (inner_offsets.empty()) continue;
    const std::string inner = sink.words.empty()
                                  ? std::string(script.substr(sink.body_begin, sink.body_end - sink.body_begin))
                                  : JoinedText(sink);
    std::vector<ShellContext> inner_contexts = ReadShellContexts(inner, inner_offsets);
    if (MayReadAgain(inner)) AddSecondOrderReadings(inner, inner_offsets, &inner_contexts, depth + 1);
    AddEvaluatedWordReadings(inner, inner_offsets, &inner_contexts);
    for (std::size_t k = 0; k < indexes.size(); ++k) {
      AttachReread(&(*contexts)[indexes[k]], std::move(inner_contexts[k]), sink.maybe);
    }
  }
}

std::vector<ShellContext> ShellContextsAt(std::string_view script, const std::vector<std::size_t>& offsets,
                                          Diagnostics* problems, ScriptShells shells) {
  std::vector<ShellContext> contexts = ReadShellContexts(script, offsets, problems);
  // Only a script that names a sink pays for the second read (with events).
  if (!offsets.empty() && MayReadAgain(script)) AddSecondOrderReadings(script, offsets, &contexts);
  if (ShellsMayDiffer(script, shells)) AddOtherShellReadings(script, offsets, &contexts);
  if (!offsets.empty()) AddEvaluatedWordReadings(script, offsets, &contexts);
  return contexts;
}

void TakeShellContextsAt(std::string_view script, const std::vector<std::size_t>& offsets, ScriptShells shells,
                         const TakeShellContext& take) {
  // The second-order and the other shells' readings, the words commands
  // evaluate and other interpreters' programs are added to all the contexts at once, after they are read.
  if (ShellsMayDiffer(script, shells) ||
      (!offsets.empty() && (MayReadAgain(script) || MayEvaluateOperands(script)))) {
    std::vector<ShellContext> contexts = ShellContextsAt(script, offsets, nullptr, shells);
    for (std::size_t i = 0; i < contexts.size(); ++i) take(i, std::move(contexts[i]));
    return;
  }
  ReadShellContexts(script, offsets, take);
}

}  // namespace safesubst
