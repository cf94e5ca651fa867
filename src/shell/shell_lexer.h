// SPDX-License-Identifier: Apache-2.0
// The one shell lexer's second interface: the events of a read, for readers
// that build a model of a script (lint's commands, words and assignments,
// the second-order sink finder). The render asks the same lexer only for the
// quoting state at its placeholders (ReadShellContexts, which ShellContextsAt
// in shell.h completes) and pays nothing for the events: they are sent only to a reader that asks.
//
// As ninja's manifest and depfile parsers share one Lexer, every part of
// safesubst that reads shell goes through this lexer, so that they cannot
// disagree on where a word, a quote or a command ends.
//
// Offsets are into the script given to ReadShell. Text passed with an event
// is the text the shell reads there; inside backticks that is the text after
// the shell removed the backslashes of `\\` `\`` `\$` (so it may not be a
// substring of the script).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string_view>
#include <vector>

#include "shell.h"

namespace safesubst {

/// How the characters of a WordText event are written.
enum class ShellQuoting : std::uint8_t {
  kUnquoted,  ///< plain characters of the word
  kEscaped,   ///< one character after a backslash, outside quotes
  kQuoted,    ///< inside '...', "..." or $"..."
  kAnsiC,     ///< inside $'...', as written (its escapes are not decoded)
};

/// What a finished word is to its command.
enum class ShellWordRole : std::uint8_t {
  kCommandName,     ///< the first word that is not an assignment or a reserved word
  kAssignment,      ///< `NAME=value` before the command name
  kArgument,        ///< any later word
  kReservedWord,    ///< `if` `then` `do` `fi` `done` `{` `}` `!` `time` ... in command position
  kRedirectTarget,  ///< the file of `>f`, the delimiter of `<<EOF`
  kIoNumber,        ///< the `2` of `2>f`
  kCaseSubject,     ///< the word of `case WORD in`
  kCaseIn,          ///< the `in` of `case WORD in`
  kCasePattern,     ///< a pattern of a case item
};

/// The operator of a parameter expansion.
enum class ParameterOp : std::uint8_t {
  kPlain,        ///< $X ${X}
  kDefault,      ///< ${X-w} ${X:-w}
  kAssign,       ///< ${X=w} ${X:=w}
  kError,        ///< ${X?m} ${X:?m}
  kAlternative,  ///< ${X+w} ${X:+w}
  kLength,       ///< ${#X}
  kIndirect,     ///< ${!X}
  kOther,        ///< ${X%p} ${X/p/r} ${X:1:2} ${X^^} ...
  kArithmetic,   ///< a bare name inside $((...)) or ((...)) (ArithmeticName, for readers' models)
};

/// Receives the events of ReadShell, in text order. Every event has an empty
/// default, so a reader overrides only what it needs.
class ShellEvents {
 public:
  virtual ~ShellEvents() = default;

  /// A command list starts: the script, the inside of `$(...)` or of backticks.
  virtual void ListBegin() {}
  virtual void ListEnd() {}
  /// The words since the last end form a command (may be none). `piped`: it
  /// ends with `|` or `|&`, its output feeds the next command.
  virtual void CommandEnd(bool /*piped*/) {}

  virtual void WordBegin(std::size_t /*offset*/) {}
  /// Characters of the word after quote removal (an empty text for `''`),
  /// the first at `offset` (the rest follow it in the script, but inside backticks).
  virtual void WordText(std::string_view /*text*/, std::size_t /*offset*/, ShellQuoting /*quoting*/) {}
  /// A `$...` form or backtick substitution in the word, as written, at
  /// `offset`; `quoted` when it stands in double quotes.
  virtual void WordExpansion(std::string_view /*raw*/, std::size_t /*offset*/, bool /*quoted*/) {}
  /// `raw` is the word as written in the lexer's text.
  virtual void WordEnd(std::size_t /*end*/, std::string_view /*raw*/, ShellWordRole /*role*/) {}

  /// A subshell `( ... )`: its `(` at `offset` (after the CommandEnd of
  /// what came before; also the `(` of an array `NAME=(...)` and of a
  /// process substitution `<(...)`), and its `)` (after the CommandEnd of its
  /// last command).
  virtual void SubshellBegin(std::size_t /*offset*/) {}
  virtual void SubshellEnd(std::size_t /*offset*/) {}

  /// A redirection operator (`>`, `>>`, `<<`, `<<-`, `<<<`, `2>&1`'s `>&`...);
  /// its target is the next word (role kRedirectTarget).
  virtual void Redirection(std::string_view /*op*/, std::size_t /*offset*/) {}
  /// A here-document body: [begin, end) of the text, and whether it expands `$`.
  virtual void HeredocBody(std::size_t /*begin*/, std::size_t /*end*/, bool /*expanding*/) {}

  /// A parameter expansion at `dollar`; ParameterEnd follows when its `}` is read
  /// (at once for `$X`). `name` is the parameter (a name, digits or a special one).
  virtual void ParameterBegin(std::size_t /*dollar*/, std::size_t /*name_offset*/, std::string_view /*name*/,
                              ParameterOp /*op*/) {}
  virtual void ParameterEnd() {}
  /// A name inside an arithmetic expression, at `offset`; `assigned` when
  /// the expression assigns it (`X=1`, `X+=1`, `X++`, `--X`...).
  virtual void ArithmeticName(std::string_view /*name*/, std::size_t /*offset*/, bool /*assigned*/) {}
  /// A `#` comment, [begin, end) in the script.
  virtual void Comment(std::size_t /*begin*/, std::size_t /*end*/) {}
};

/// ShellContextsAt without the second-order readings (shell_sinks.h) and
/// the other shells' readings: the contexts bash's reading finds at
/// `offsets` of `script` itself.
std::vector<ShellContext> ReadShellContexts(std::string_view script, const std::vector<std::size_t>& offsets,
                                            Diagnostics* problems = nullptr);

/// Receives the context at `offsets[index]`.
using TakeShellContext = std::function<void(std::size_t index, ShellContext&& context)>;

/// ReadShellContexts (without problems) for a caller that keeps few distinct
/// contexts: each one is passed to `take` as soon as it is read, in no
/// particular order, instead of all of them being held at once.
void ReadShellContexts(std::string_view script, const std::vector<std::size_t>& offsets,
                       const TakeShellContext& take);

/// True when dash or busybox sh may read `script` otherwise than bash: run
/// by sh (`shells`), and holding `$'`, `$[` or `((`.
bool ShellsMayDiffer(std::string_view script, ScriptShells shells);

/// Adds to each of `contexts` (bash's reading at `offsets`) the readings of
/// dash and busybox sh where they differ (ShellContext::other_readings).
void AddOtherShellReadings(std::string_view script, const std::vector<std::size_t>& offsets,
                           std::vector<ShellContext>* contexts);

/// Reads all of `script` and sends its events to `events`.
void ReadShell(std::string_view script, ShellEvents* events);

/// True when `a` and `b` read a place alike: every field the encoder reads,
/// not the second-order and other-shell readings attached to a context.
bool SameReading(const ShellContext& a, const ShellContext& b);

/// `NAME=...`, and bash's `NAME+=...` and `NAME[i]=...` (the word as written).
bool IsShellAssignment(std::string_view word);

}  // namespace safesubst
