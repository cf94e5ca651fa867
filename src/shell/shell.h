// SPDX-License-Identifier: Apache-2.0
// Shell-aware encoding for script contexts (SPEC Rule 3, shell part): the POSIX
// sh quoting state at each placeholder, and how a value is written in it so
// that it can neither break the script nor inject a command.
//
// Usage, for one shell script (the DECODED scalar text, placeholders still in it):
//
//   std::vector<std::size_t> dollars = ...;  // offset of the `$` of each placeholder, ascending
//   std::vector<ShellContext> contexts = ShellContextsAt(script, dollars);
//   for (i...) {
//     std::string encoded;
//     std::string error = AppendShellEncoded(contexts[i], value_i, variable_i.shell, &encoded);
//     if (!error.empty()) report(error);   // never contains the value
//     else splice `encoded` in place of placeholder i, then YAML-encode the whole scalar
//   }
//
// All placeholders of one script are looked up with ONE call: the lexer reads
// the template, never a partly substituted text, so a value can never change
// the state seen at a later placeholder. The other placeholders must still be
// in the text (a here-document line holding two of them is checked with the
// other one as a wildcard). `DescribeShellContext` gives the text for
// `--explain`; `problems` (optional) reports malformed shell syntax.
//
// The lexer follows POSIX sh as dash, bash and zsh read it (all three run the
// encoder's tests) and knows a few bash-isms: `$'...'`, `$"..."`, `${x/a/b}`,
// `((...))`, `$[...]`. Where the shells read the same text differently, the
// value is refused rather than guessed. Encoding is for scripts run
// non-interactively (`sh -c`, a file): history expansion does not happen
// there, so `!` is an ordinary character inside quotes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "safesubst/diagnostic.h"
#include "safesubst/manifest.h"

namespace safesubst {

enum class ShellState : std::uint8_t {
  kUnquoted,            ///< in an unquoted word (also inside $(...) / backticks)
  kSingleQuoted,        ///< inside '...'
  kDoubleQuoted,        ///< inside "..." (also `$"..."`, and the word of `"${x:-word}"`)
  kComment,             ///< after a `#` at the start of a word
  kHeredocLiteral,      ///< body of a here-document with a quoted delimiter
  kHeredocExpanding,    ///< body of a here-document with an unquoted delimiter
  kArithmetic,          ///< inside $((...)), $[...] or ((...))
  kDollarSingleQuoted,  ///< inside bash's $'...' (dash reads it as `$` and '...')
};

/// Which part of a `${...}` parameter expansion a position is in.
enum class ParameterWord : std::uint8_t {
  kNone,     ///< not directly inside `${...}`
  kValue,    ///< the word of `${x:-word}` `${x=word}` `${x+word}` `${x?word}`, bash's `${x/p/word}`
  kPattern,  ///< the pattern of `${x#p}` `${x%p}` `${x/p/...}`, or bash's `${x:1:2}` `${x^p}`
};

/// The shells that may run a script (SPEC Rule 3). The lexer reads a script
/// as each of them; where their readings of a place differ, a value is
/// written there only when it is written the same way for every reading.
enum class ScriptShells : std::uint8_t {
  /// A script run by bash: a `#!` or command line naming bash (or zsh or ksh,
  /// which read quotes as bash does).
  kBash,
  /// A script run by /bin/sh, whatever it is: dash (Debian, Ubuntu), busybox
  /// ash (Alpine, busybox images) or bash (RHEL, UBI). dash knows neither
  /// `$'...'` nor `$[...]` nor `((...))`; busybox ash knows `$'...'` only.
  kSh,
};

struct OtherShellReading;

/// How a command reads a word that it evaluates itself (ShellContext::operand).
enum class ShellOperand : std::uint8_t {
  kNone,
  kArithmetic,  ///< as an arithmetic expression: `let`, `[ X -gt Y ]`, `shift`, an integer variable's value
  kName,        ///< as a variable name: `unset`, `read`, `printf -v`, `declare NAME=...`, `[ -v ]`
  kLimit,       ///< as a limit: `ulimit` (mksh evaluates a number as arithmetic)
  kExpanded,    ///< as a string expanded again: the value of `PS4`, `PS1`, `ENV`, `BASH_ENV`
  kEnvOperand,  ///< as an operand of `env`, which takes NAME=VALUE as an assignment
  /// In a field of another interpreter's program (a string literal, sed's
  /// s replacement: interpreter_programs.h) that a value leaves through one
  /// of ShellContext::program_stops.
  kProgramText,
  kProgramCode,  ///< elsewhere in another interpreter's program: as its code
  /// In a field where a backslash before each of ShellContext::program_stops
  /// makes it literal (sed's s replacement with a punctuation delimiter:
  /// `\&`, `\/`, `\\`, a backslash-newline): the value is written so.
  kProgramEscaped,
  /// In a field of a program that hands strings to a shell or starts
  /// commands (`system`, `exec`, backticks, a pipe, sed's `e`): the value may
  /// reach a shell from there, so it takes only shell-inert characters, and
  /// none of ShellContext::program_stops.
  kProgramShellText,
  /// In an SQL literal or quoted identifier (sql_programs.h): the first of
  /// ShellContext::program_stops, its quote, is written twice (`''`), which
  /// keeps it inside; a value holding any other of them is refused.
  kProgramDoubled,
};

/// The quoting state at one position of a script, and what else the encoder
/// needs to know there.
struct ShellContext {
  ShellState state = ShellState::kUnquoted;
  /// Nesting depth of command substitutions ($(...) and backticks) around the position.
  std::uint8_t substitution_depth = 0;
  /// The innermost substitution is a backtick one (backslashes are special there).
  bool in_backticks = false;
  bool in_case_pattern = false;  ///< in a `case` pattern (before its `)`)
  /// Every backtick substitution around the position, outermost first; true
  /// when that substitution stands inside double quotes. Each one is a layer of
  /// backslash processing the encoder must add (`\\` `\`` `\$`, and `\"` in
  /// double quotes).
  std::vector<bool> backtick_layers;
  ParameterWord parameter_word = ParameterWord::kNone;
  /// kDoubleQuoted only: a "..." nested in the word of "${x-...}", where bash
  /// (alone) still performs brace expansion: `"${x-"{a,b}"}"` gives two words.
  bool bash_brace_expansion = false;
  /// kUnquoted only: the placeholder begins a word (a value's leading `#` would
  /// start a comment, a leading `=` is zsh's `=cmd`).
  bool word_start = false;
  /// kUnquoted only: the placeholder is the whole word (an empty value would remove it).
  bool whole_word = false;
  /// kUnquoted only: the word is a command name (a value `if` or `a=b` changes its meaning).
  bool command_word = false;
  /// kUnquoted, in a command name, after its start: the word before the
  /// placeholder may be a name, so a value bringing `=` makes the word an
  /// assignment (`pre${V}` with `1=x`) and the next word the command.
  bool name_before = false;
  /// kUnquoted, in a command name: name characters and `=` follow the
  /// placeholder (`${V}=x cmd`), so a value that is a name makes an assignment.
  bool equals_after = false;
  /// Somewhere inside a here-document body: directly (the two kHeredoc states)
  /// or nested in a `$(...)`, `${...}` or backticks there. A value line equal
  /// to the delimiter would end the body early.
  bool inside_heredoc = false;
  /// kHeredoc states: the delimiter (quotes removed), whether it is `<<-`
  /// (leading tabs stripped), and the text of the body line before and after
  /// the placeholder (the placeholder form itself excluded).
  std::string heredoc_delimiter;
  bool heredoc_strip_tabs = false;
  std::string line_before;
  std::string line_after;
  /// Inside a `$(...)`, a place that posh, looking for the `)` that ends the
  /// substitution, reads as unquoted text: a comment, a here-document body, or
  /// a double-quoted string nested in another one (through `$(...)`, `${...}`
  /// or backticks). A parenthesis or quote there ends or breaks the
  /// substitution in posh; in a comment it ends it early and runs the rest.
  bool posh_scans_unquoted = false;
  /// Non-empty when no value can be written at this position at all (for
  /// example right after a backslash, or in a here-document delimiter); says why.
  std::string unsupported;
  /// The word holding the position is evaluated by a command, whatever its
  /// quoting: bash, mksh, zsh and posh evaluate an arithmetic expression or
  /// a variable name there, and a subscript in it (`a[$(cmd)]`) runs a
  /// command. `evaluated_by` names the command for messages ("`let`").
  ShellOperand operand = ShellOperand::kNone;
  std::string evaluated_by;
  std::string program_stops;  ///< kProgramText: the characters that end the field or make it code
  /// Second-order code: the position is inside a string that the script hands
  /// to a shell to run again (`sh -c '...'`, `eval`, `trap '...' EXIT`, a
  /// here-document read by `sh`). `sink` names it for messages ("`sh -c`")
  /// and `reread` holds the one context of the position in that string (which
  /// may itself be read again, up to three readings). A value is encoded for
  /// the innermost reading first, then outwards.
  std::string sink;
  std::vector<ShellContext> reread;
  /// ScriptShells::kSh: how the shells read this place where they read it
  /// otherwise than bash does (this context is bash's reading); empty where
  /// every shell reads it alike.
  std::vector<OtherShellReading> other_readings;

  /// Every field alike (a render keeps one copy of each distinct context).
  /// A new field goes into ShellContextHash (src/render/script_contexts.cc) too.
  bool operator==(const ShellContext&) const = default;
};

/// One shell's reading of a place that bash reads otherwise.
struct OtherShellReading {
  std::string shells;  ///< "dash", "busybox sh", or "dash and busybox sh"
  ShellContext context;

  bool operator==(const OtherShellReading&) const = default;
};

/// OtherShellReading::shells of the reading of a place as plain data, kept
/// beside the reading as code where the script does not say whether a shell
/// runs the string again: its program is named by an expansion (`$cmd ARGS`,
/// shell_sinks.h). A value is written there only when both come out alike.
inline constexpr std::string_view kReadAsData = "a program that is not a shell";

/// Lexes `script` (the decoded script text) once and returns the context at
/// each offset of `offsets`, in the same order (ascending is cheapest). An
/// offset should be the `$` of a placeholder (`$NAME`, `${NAME}`,
/// `${NAME:-x}`): the lexer reads the form there to know what follows it.
/// A placeholder that cannot take any value (right after a backslash, in a
/// here-document delimiter) gets a context whose `unsupported` says why.
/// With `problems`, malformed syntax (an unterminated quote, `$(`, `${` or
/// here-document) is reported as warnings whose offsets are into `script`.
/// With ScriptShells::kSh the script is also read as dash and busybox ash
/// (when it holds a construct they read otherwise: `$'`, `$[` or `((`), and
/// each context lists the readings that differ from bash's.
std::vector<ShellContext> ShellContextsAt(std::string_view script, const std::vector<std::size_t>& offsets,
                                          Diagnostics* problems = nullptr,
                                          ScriptShells shells = ScriptShells::kBash);

/// Appends `value` encoded for `context`. Returns an empty string on success,
/// otherwise a message (not containing the value) saying why it cannot be
/// written there; then nothing is appended. A context with other readings
/// (ScriptShells::kSh) takes a value only where every reading writes it alike.
///
/// kSafe: in "..." the value's `\ " $ \`` are backslash-escaped; in '...' a `'`
/// becomes `'\''`; in an unquoted word (and a case pattern, a `${x-word}`
/// outside quotes) only "ordinary" values are accepted (no blank, control
/// character, `; & | < > ( ) $ \` " ' * ? [ ] { } ! ~`, no leading `#` or `=`
/// at a word start, no empty whole word, no reserved word or assignment as a
/// command name); a here-document body gets `\ $ \`` escaped when its
/// delimiter is unquoted, and a value line that would end the here-document is
/// an error; a comment takes anything but a newline; arithmetic takes only a
/// decimal integer. Backtick layers are added last. A NUL byte is always an error.
/// kRaw: written as is everywhere (only NUL is refused).
std::string AppendShellEncoded(const ShellContext& context, std::string_view value, ShellMode mode,
                               std::string* out);

/// True for a decimal integer every shell and interpreter reads as itself:
/// an optional minus sign, no leading zero, at most 18 digits (not `-0`).
bool IsShellInteger(std::string_view value);

/// True when the shell reads `value` literally in every quoting state, so
/// that AppendShellEncoded (kSafe) writes it unchanged wherever it accepts it,
/// and a value in a script reads the same as the value in data: non-empty,
/// and only ASCII letters, digits and `_ . / : @ % + , -`.
/// (A reserved word such as `if` qualifies; as a command name it would still
/// change the script's syntax, but it cannot run a command.)
bool IsShellInert(std::string_view value);

std::string_view ShellStateName(ShellState state);

/// A one-line description of `context` for `--explain`, e.g.
/// "double-quoted, inside $(...), in a case pattern".
std::string DescribeShellContext(const ShellContext& context);

/// The program the first line of `text` runs when it is a `#!` line: its
/// first word, or, after `env` or `busybox`, the first word after their
/// options (`#!/usr/bin/env -S python3 -u` runs "python3"). Empty when the
/// text has no `#!` line or the line names no program.
std::string_view ShebangProgram(std::string_view text);

/// The shell the first line of `text` runs when it is a `#!` naming a shell
/// (sh, bash, dash, ash, zsh, ksh and their kin), directly, as in
/// `#!/bin/sh -e`, or through `env` or `busybox`, as in `#!/usr/bin/env
/// bash`: e.g. "/bin/bash", or "sh" for `#!/usr/bin/env sh`. Empty when the
/// text has no shell `#!` line (not a shell script by SPEC Rule 3's cheap tests).
std::string_view ShebangShell(std::string_view text);

/// The shells that may run a script that `program` runs (a shell's name or
/// path; empty when unknown): kBash for bash, zsh and ksh, kSh otherwise.
ScriptShells ShellsRunning(std::string_view program);

}  // namespace safesubst
