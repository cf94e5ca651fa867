// SPDX-License-Identifier: Apache-2.0
// The simple commands of a script, built from the events of the one shell
// lexer (shell_lexer.h): each word with its text after quote removal and
// where each piece of that text came from, each redirection, and whether the
// command's output is piped. Lint's model of a script (lint_shell.h) and the
// finder of strings a script runs again (shell_sinks.h) both read commands
// from here, so that they agree on what a word and a command are.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "shell_lexer.h"

namespace safesubst {

/// Where a piece of a word's text came from.
struct ShPiece {
  enum Kind : std::uint8_t {
    kText,       ///< characters of the word, quotes and escapes removed
    kExpansion,  ///< a `$...` form or a backtick substitution, as written
    kUndecoded,  ///< the inside of bash's $'...', its escapes not decoded
  };
  Kind kind = kText;
  std::size_t text_begin = 0;  ///< in ShWord::text
  std::size_t offset = 0;      ///< in the script
  std::size_t length = 0;
  bool unquoted = false;  ///< kText outside quotes and escapes: its `*` `?` `[` `{` are special
};

/// One shell word.
struct ShWord {
  std::size_t begin = 0;  ///< offset of the first byte in the script
  std::size_t end = 0;    ///< one past the last byte
  /// The word with quotes removed and escapes resolved; expansions are kept as
  /// written (`"$X"` gives `$X`).
  std::string text;
  std::vector<ShPiece> pieces;  ///< `text`, piece by piece
  ShellWordRole role = ShellWordRole::kArgument;
  bool quoted = false;         ///< has quotes or backslash escapes
  bool has_expansion = false;  ///< has `$...` or a command substitution outside single quotes
  /// Only quotes around blanks: `""`, `" "`, `''`. What `"$A"` or `"$A $B"`
  /// becomes when a renderer blanks the variables.
  bool blank_quoted = false;
};

struct ShRedirect {
  std::string op;         ///< ">", ">>", ">|", "&>", "&>>", "<", "<<", "<<-", "<<<", "<>", ">&", "<&"
  std::size_t begin = 0;  ///< offset of the operator
  ShWord target;          ///< the file (or here-document delimiter)
};

/// A simple command: reserved words (`if`, `then`, `do`, `!`, ...) in front
/// are dropped, so `then EFS_IP=""` is the command `EFS_IP=""`; so are the
/// options of `time` (`time -p`), case patterns and the `2` of `2>f`.
/// `case WORD in` is a command of its own.
struct ShCommand {
  std::vector<ShWord> words;
  std::vector<ShRedirect> redirects;
  bool piped = false;  ///< its output feeds the next command (`|`)
};

/// The part of `word` from byte `cut` of its text on, its pieces still
/// saying where they came from; nothing when `cut` is inside an expansion.
std::optional<ShWord> WordFrom(const ShWord& word, std::size_t cut);

/// The words of `text` split at blanks, quotes removed: what an alias body
/// or an `env -S` string names (enough to find a program and its options;
/// no piece of them is a placeholder's place).
std::vector<ShWord> WordsOfPlainText(std::string_view text);

/// The part of `word` after its first `=` outside expansions (`VALUE` of
/// `NAME=VALUE`), its pieces still saying where they came from; nothing
/// when the word has no such `=`.
std::optional<ShWord> AssignedValue(const ShWord& word);

/// The name `word` assigns (`NAME=`, `NAME+=`, `NAME[i]=`, or, as an
/// argument of a declaration, a bare `NAME`), or "".
std::string AssignedName(const ShWord& word, bool declaration);

/// The builtins whose arguments declare variables: `declare`, `typeset`,
/// `local`, `export`, `readonly`, `integer`, `nameref`.
bool IsDeclaration(std::string_view program);

/// `script` without its quotes, backslashes and line continuations, for the
/// cheap tests that look for command names in it (MayRunCodeAgain,
/// MayEvaluateOperands, MayRunPrograms): the shell runs `ev''al`, `e\val`, `e$'v'al`
/// and `s\<newline>h` as `eval` and `sh`. Returns `script` itself when it has
/// none of them, else the text kept in `storage`.
std::string_view NamesAsRead(std::string_view script, std::string* storage);

/// True for a word holding an unquoted `{a,b}`, which bash, mksh and zsh
/// make into several words.
bool HasBraceExpansion(const ShWord& word);

/// True when the shell may make `word` into other words before it runs:
/// an unquoted glob (`/bin/[s]h`, `das*`) or brace expansion
/// (`{sh,-c,CMD}`, bash, mksh and zsh).
bool MayExpandToOtherWords(const ShWord& word);

/// The program that command word `word` runs, as far as the script says:
/// the word itself when it has no expansion; X for `$(command -v X)`,
/// `$(which X)`, `$(type -P X)` or their backtick forms; the literal last
/// component of a path built with expansions (`"$DIR/run.sh"` runs a
/// `run.sh`). Empty when an expansion decides the program (`$cmd`, `"$@"`,
/// `"${a[@]}"`, `${SH:-sh}`, `` `pick` ``): it may then be any program, a
/// shell or `eval` among them; also for a word that MayExpandToOtherWords.
std::string ProgramOf(const ShWord& word);

/// True for a program that runs a command given after its own words: the
/// container wrappers of command_line.h, and `command`, `builtin`, `exec`,
/// `time`, `xargs`, `find`, `kubectl`, ... (a shell's prefix words among them).
bool IsRunner(std::string_view program);

/// True for a program that reads its words as data, never as a command line
/// it runs: `echo`, `printf`, `grep`, `which`, `apt-get`, `useradd` (`echo sh
/// -c X`, `grep -c sh F`, `apt-get install -y bash`, `useradd -s /bin/bash -c
/// COMMENT` name a shell that nothing runs).
bool ReadsWordsAsData(std::string_view program);

/// The index of the shell that a command runs, or std::string_view::npos:
/// word 0, the first shell behind runners (`nice -n 5 sh`), or, as
/// command_line.h's FirstShellWord reads a container's command line, the
/// first word naming a shell after any other program (`strace -f sh -c`,
/// `fakeroot -- sh`, `/docker-entrypoint.sh bash -c`, `prlimit --nofile=100
/// sh`), unless that program ReadsWordsAsData or joins its operands into a
/// string that another shell reads first (`ssh HOST sh -c X`, `watch sh -c
/// X`: their own sinks). A shell is named as ProgramOf reads a command word
/// (`$(command -v sh)`).
std::size_t ShellOfCommand(const std::vector<ShWord>& words);

/// The last word of a command that may be a program it runs, given `run`,
/// the command behind its runners (CommandAfterRunners): `run`, or, after a
/// program that may run its operands as a command (any but those that
/// ReadsWordsAsData), the last word, so that `strace -f su app -c X` is
/// found as `su app -c X` is.
std::size_t LastPossibleProgram(const std::vector<ShWord>& words, std::size_t run);

/// True for a program whose operands, joined with blanks, a shell runs:
/// `watch`, GNU `parallel`.
bool RunsOperandsAsString(std::string_view program);

/// For a program that hands its `-c` option's argument to a shell
/// (TakesCommandOption, command_line.h): the string a shell runs when word `at` is its `-c`
/// option (`-c STRING`, `-lc STRING`, `-cSTRING`, `--command STRING`,
/// `--command=STRING`, a prefix such as `--comm`, `--session-command`), or nothing.
std::optional<ShWord> ShellStringOption(const std::vector<ShWord>& words, std::size_t at);

/// The index of the command that `env` at word `env` runs (may be
/// `words.size()`): after its options, their arguments (`-u NAME`, `-C DIR`,
/// `-S STRING`, `-P PATH`, `--unset NAME`, `--chdir DIR`) and its NAME=VALUE
/// operands, which are assignments for that command as much as the shell's own.
std::size_t EnvCommand(const std::vector<ShWord>& words, std::size_t env);

/// The index of the command that word `name` of `words` runs: `name` itself,
/// or, when it is a runner, the first word after the runners and their
/// options, assignments and numbers (`command [`, `builtin eval`, `nice -n 5
/// let`, `env A=1 test`). May be `words.size()`.
std::size_t CommandAfterRunners(const std::vector<ShWord>& words, std::size_t name);

/// Builds the commands of each command list (the script, a `$(...)`, a
/// backtick substitution) from the lexer's events, and hands each one to
/// CommandEnded as it ends. A command named by an alias the script defined
/// earlier is handed on with the alias's words in place of its name
/// (`alias e=eval` ... `e "$X"` is `eval "$X"`), as dash, mksh, zsh and bash
/// as sh read it; the definition's line does not matter. A reader that needs other events too overrides
/// them; one that overrides these calls them first.
class CommandReader : public ShellEvents {
 public:
  /// `alias_depth`: how many `eval` strings hold the script read (aliases
  /// defined in an eval string are read three strings deep).
  explicit CommandReader(int alias_depth = 0);

  void ListBegin() override { lists_.emplace_back(); }
  void ListEnd() override;
  void CommandEnd(bool piped) override;
  void WordBegin(std::size_t offset) override;
  void WordText(std::string_view text, std::size_t offset, ShellQuoting quoting) override;
  void WordExpansion(std::string_view raw, std::size_t offset, bool quoted) override;
  void WordEnd(std::size_t end, std::string_view raw, ShellWordRole role) override;
  void Redirection(std::string_view op, std::size_t offset) override;

 protected:
  std::map<std::string, std::string, std::less<>> aliases_;  // name -> body, as `alias` defined them

  /// A command of the innermost open list ended: at every end the lexer
  /// reads, so `command` may have no word and no redirection.
  virtual void CommandEnded(ShCommand command) = 0;

 private:
  // The command being read in one command list.
  struct List {
    ShCommand command;
    ShWord word;
    bool unquoted_text = false;  // a character outside quotes (the word is not blank_quoted)
    bool quoted_nonblank = false;
    bool after_time = false;  // the word before was a dropped `time`
  };

  void AddPiece(ShPiece::Kind kind, std::string_view text, std::size_t offset, bool unquoted = false);
  void FinishCommand(bool piped);
  void ExpandAlias(ShCommand* command) const;
  void RecordAliases(const ShCommand& command);

  static constexpr int kMaxAliasDepth = 3;

  std::vector<List> lists_;
  int alias_depth_ = 0;
};

}  // namespace safesubst
