// SPDX-License-Identifier: Apache-2.0
// Second-order code (SPEC Rule 3): strings that a script hands to a shell to
// run again. `sh -c 'echo ${V}'` quotes the placeholder for the script's own
// shell only; the inner shell reads the string again and would run the value.
//
// The sinks found (from the one lexer's command model, shell_lexer.h):
//   a shell with -c (sh bash dash ash zsh ksh mksh ..., also `busybox sh`),
//   directly or behind wrappers (env, nohup, timeout N, nice, exec, command,
//   sudo, setsid, chroot DIR, chrt, taskset, xargs, find -exec, kubectl exec
//   --, ...: the one table of runners in shell_commands.cc), also named by
//   `$(command -v sh)` or `` `which sh` ``, or split out of `env -S`;
//   the `-c` string of `su`, `runuser`, `script`, `sg`, `flock FILE`;
//   `eval`; `trap STRING SIGNAL`; the operands of `watch` and `parallel`;
//   an alias of any of them (`alias e=eval`);
//   a here-document or here-string read by a shell (`sh <<EOF`, `sh <<<`),
//   also through a function whose body runs the shell (`f() { sh; }; f
//   <<EOF`), a -c string or `eval` string that runs one (`sh -c 'sh'
//   <<EOF`), or `exec <<EOF` (`exec < <(...)`) before a later shell.
// A program named by an expansion (`$cmd ARGS`, `"$@" ARGS`, `"${a[@]}"`,
// `${SH:-sh}`) may be any program, a shell or `eval` included: its
// arguments are read both as data and as a string run again, and a value
// is written only where it comes out alike for the two (kReadAsData); a
// value that would be code there is refused. Followed by `-c`, it is taken
// for a shell. Named so and reading its input (no operand: `$SH <<EOF`), its
// here-document is read the same two ways; text piped into it is refused.
// Text piped into an interpreter that reads its program from its standard
// input (`echo "..." | python3`, `| sed -f -`; ProgramSourceOf,
// interpreter_programs.h), or written by a `<(...)` it reads its program
// from, is refused the same way; its own here-documents and here-strings
// are its program, which the program readings read (not through a compound
// command or a function, where they are refused).
// For a placeholder inside such a string, the string is read as a script of
// its own and the context there is attached to the outer one (reread), so
// that the encoder writes the value for the inner reading first, then the
// outer. Where that reading cannot be known (text piped into a shell or
// written into `>(sh)`, a command sent by `ssh`, an `env -S` string, an
// expansion of the outer shell before the placeholder in the string), the
// context is marked unsupported, naming the sink, so that only a `shell:
// raw` value can go there.
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

#include "shell.h"
#include "shell_lexer.h"

namespace safesubst {

// ShellContextsAt (shell.h) is defined here, above the lexer: the
// lexer's reading, then the second-order and the other shells' readings.

/// ShellContextsAt (without problems) for a caller that keeps few distinct
/// contexts: each one is passed to `take` as soon as it is read, in no
/// particular order, instead of all of them being held at once.
void TakeShellContextsAt(std::string_view script, const std::vector<std::size_t>& offsets, ScriptShells shells,
                         const TakeShellContext& take);

/// A cheap test: false when `script` has none of the sink words (then
/// AddSecondOrderReadings would change nothing).
bool MayRunCodeAgain(std::string_view script);

/// Adds the second-order readings to `contexts` (the contexts at `offsets`
/// of `script`, as the lexer found them). `depth` is how many sink strings
/// `script` is nested in (0 for the script itself); a fourth is refused.
void AddSecondOrderReadings(std::string_view script, const std::vector<std::size_t>& offsets,
                            std::vector<ShellContext>* contexts, int depth = 0);

}  // namespace safesubst
