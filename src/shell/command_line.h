// SPDX-License-Identifier: Apache-2.0
// Which word of a container's command line is a shell script: the programs
// that are shells, the wrappers that run a command after their own options
// (`tini --`, `env A=1`, `su-exec app`), and the shell options before `-c`.
//
// One definition for the render (classify.cc, on tokens) and for lint
// (lint_pod.cc, on yaml-cpp nodes): the two must agree on what is a script,
// or lint would pass a template the render quotes differently.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace safesubst {

/// The last component of a program's path: "/usr/bin/tee" -> "tee".
std::string_view ProgramBaseName(std::string_view program);

/// The shell `program` names (`sh`, `bash`, `mksh`, ...), also given as a
/// path (`/bin/sh`), restricted (`rbash`, `rksh`), static (`mksh-static`) or
/// versioned (`bash5`, `bash-5.2`); empty for any other program.
std::string_view ShellName(std::string_view program);

/// True for a shell (sh, bash, dash, ash, zsh, ksh and their kin): ShellName.
bool IsShellProgram(std::string_view program);

/// True for a program that runs a command given after its own options and
/// operands: init processes, `env`, `busybox`, and the ones that change the
/// user, the limits or the root first (`su-exec`, `timeout`, `chroot`).
bool IsCommandWrapper(std::string_view program);

/// True for a program that runs the argument of its `-c` option with a
/// shell: `su`, `runuser`, `flock`, `script`, `sg`.
bool TakesCommandOption(std::string_view program);

/// The item of `argv` (a command line run without a shell) holding the
/// string that `env -S` / `--split-string` re-splits into a command line
/// with its own quoting and runs (`[env, -S, "sh -c '...'"]`, `-vS...`,
/// `--split-string=...`, `--sp ...`): the item after the option, or the
/// option's own when the string is glued to it. std::string_view::npos when
/// there is none.
std::size_t EnvSplitStringItem(const std::vector<std::string>& argv);

/// How many of the next words a shell option takes as its arguments:
/// `-o pipefail`, `-O extglob`, `--rcfile FILE`, one for each `o`/`O` of a
/// bundle such as `-euo pipefail`.
std::size_t ShellOptionArguments(std::string_view option);

/// `-c`, or a bundle of single-letter options with a c, such as `-ec`.
bool IsDashC(std::string_view word);

/// What the options of the shell at word `shell` of a command line of `size`
/// words say, read as the shell reads them (ShellScriptOperand).
struct ShellOptions {
  std::size_t operand = 0;  ///< the first word after the options (may be `size`)
  bool dash_c = false;      ///< -c: the operand is the script
  bool dash_s = false;      ///< -s: the script is read from standard input
};

template <typename Word, typename MayBeOption>
ShellOptions ReadShellOptions(std::size_t shell, std::size_t size, Word word, MayBeOption may_be_option) {
  ShellOptions options;
  std::size_t i = shell + 1;
  for (; i < size && may_be_option(i); ++i) {
    const std::string option(word(i));
    if (option == "--" || option == "-") {  // both end the options: `sh -c - SCRIPT`
      ++i;
      break;
    }
    if (option.size() < 2 || (option[0] != '-' && option[0] != '+')) break;  // the first operand
    options.dash_c = options.dash_c || IsDashC(option);
    options.dash_s = options.dash_s || (option[0] == '-' && option[1] != '-' && option.find('s') != std::string::npos);
    i += ShellOptionArguments(option);
  }
  options.operand = i;
  return options;
}

/// Where an option word of `su`, `runuser`, `flock` or `script` puts the
/// command those run with a shell, as getopt_long reads it: in the next word
/// (`-c`, `-qc`, `--command`, `--comm`, `--session-command`), in the word
/// itself (`-cCMD`, `-qcCMD`, `--command=CMD`, `--co=CMD`), or nowhere (an
/// option taking another argument first, such as `-sc` whose `c` is the
/// shell's name).
enum class CommandOption : std::uint8_t { kNone, kNextWord, kGlued };
CommandOption CommandOptionIn(std::string_view option);

/// The index of the command that `su`, `runuser`, `flock` or `script` at
/// word `program` runs with a shell (`su app -c CMD`, `flock /l -c CMD`:
/// `$SHELL -c` or `sh -c`), or std::string_view::npos. A command glued to
/// its option is the option's own word, read as the script whole: its
/// prefix (`--command=`, `-qc`) holds no character a shell reads specially,
/// so the quoting at every place after it is the command's own.
template <typename Word, typename MayBeOption>
std::size_t CommandOptionOperand(std::size_t program, std::size_t size, Word word, MayBeOption may_be_option) {
  if (!TakesCommandOption(word(program))) return std::string_view::npos;
  for (std::size_t i = program + 1; i < size; ++i) {
    if (!may_be_option(i)) continue;
    const std::string option(word(i));
    if (option == "--") break;
    switch (CommandOptionIn(option)) {
      case CommandOption::kNone: break;
      case CommandOption::kGlued: return i;
      case CommandOption::kNextWord: return i + 1 < size ? i + 1 : std::string_view::npos;
    }
  }
  return std::string_view::npos;
}

/// The first word of a command line of `size` words that names a shell, or
/// `size`: word 0, or, after any other program, the first word naming one. A
/// wrapper (`tini --`, `env`, `timeout 10`) or an entrypoint script runs its
/// arguments (`docker-entrypoint.sh sh -c ...`, `flock /l sh -c`, `nsenter
/// -t 1 sh -c`, `strace -f sh -c`); the words before the shell count as that
/// program's own, which can only make more text be quoted as shell, never
/// less. `may_be_program(i)` may answer false for a word too long to name a
/// program (PATH_MAX), so that a script is not decoded just to see that it is none.
template <typename Word, typename MayBeProgram>
std::size_t FirstShellWord(std::size_t size, Word word, MayBeProgram may_be_program) {
  for (std::size_t i = 0; i < size; ++i) {
    if ((i == 0 || may_be_program(i)) && IsShellProgram(word(i))) return i;
  }
  return size;
}

/// The command string that a program among the first `shell` words hands to
/// a shell with its `-c` option (`su app -c CMD`, `strace -f su -c CMD`,
/// CommandOptionOperand), or std::string_view::npos.
template <typename Word, typename MayBeOption, typename MayBeProgram>
std::size_t CommandOptionBefore(std::size_t shell, std::size_t size, Word word, MayBeOption may_be_option,
                                MayBeProgram may_be_program) {
  for (std::size_t program = 0; program < shell; ++program) {
    if (!may_be_program(program)) continue;
    const std::size_t command = CommandOptionOperand(program, size, word, may_be_option);
    if (command != std::string_view::npos) return command;
  }
  return std::string_view::npos;
}

/// The index of the script in a command line of `size` words, as the shell
/// reads it (`sh -c SCRIPT`, `bash -euo pipefail -c SCRIPT`, `sh -c -e
/// SCRIPT`, `sh -c - SCRIPT`, `tini -- sh -c SCRIPT`, `su app -c SCRIPT`), or
/// std::string_view::npos. `word(i)` is word i, decoded; `may_be_option(i)`
/// may answer false for a word known not to start with `-` or `+`, and
/// `may_be_program(i)` as FirstShellWord's.
template <typename Word, typename MayBeOption, typename MayBeProgram>
std::size_t ShellScriptOperand(std::size_t size, Word word, MayBeOption may_be_option, MayBeProgram may_be_program) {
  constexpr std::size_t kNone = std::string_view::npos;
  if (size == 0) return kNone;
  const std::size_t shell = FirstShellWord(size, word, may_be_program);
  const std::size_t command = CommandOptionBefore(shell, size, word, may_be_option, may_be_program);
  if (command != kNone) return command;
  if (shell == size) return kNone;
  const ShellOptions options = ReadShellOptions(shell, size, word, may_be_option);
  return options.dash_c && options.operand < size ? options.operand : kNone;
}

template <typename Word, typename MayBeOption>
std::size_t ShellScriptOperand(std::size_t size, Word word, MayBeOption may_be_option) {
  return ShellScriptOperand(size, word, may_be_option, [](std::size_t) { return true; });
}

}  // namespace safesubst
