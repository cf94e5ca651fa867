// SPDX-License-Identifier: Apache-2.0
// Values in the program text of other interpreters (SPEC Rule 3: a value
// never runs as code, at any depth). `sed -i "s/x/${V}/" f` quotes the value
// for the shell, which hands it to sed as part of sed's program: with
// V=`x/;e touch F #` GNU sed runs `touch F`. Likewise `awk "BEGIN { print
// \"${V}\" }"` with V=`"; system("touch F"); "`, and the -e/-c programs of
// perl, python and node, and jq's filter.
//
// The rule depends on where in the program the placeholder stands, found by
// a small scanner of each language (not an interpreter of it):
//   in a field the scanner can delimit (a string literal; in sed the
//     pattern or replacement of an s command, an address's regular
//     expression, the text of a/i/c, a file name, a comment), a value takes
//     none of the characters that would end the field or make it code: its
//     closing quote or delimiter, `\`, a newline where it ends the field, and
//     what interpolates or has a meaning there (`$` `@` in perl's "...",
//     `{` `}` in a python f-string, `&` in sed's replacement,
//     `[` in a regular expression, whose brackets hide a delimiter);
//     the value then stays data, and the common `sed "s/X/${V}/"` keeps
//     rendering for values such as `v1.2.3`, `my-app` or `10.0.0.1`;
//   sed's replacement with a punctuation delimiter is encoded instead: `\`,
//     `&`, the delimiter and a newline each get a backslash before them, so
//     `sed -i "s|X|${URL}|g"` takes `https://x/y?a=1&b=2` (GNU and busybox sed
//     read those escapes alike; with a letter or digit delimiter busybox reads
//     `\n`, `\t`, `\1` as escapes, so the value is refused there);
//   anywhere else (a command or flag position, after a construct the scanner
//     does not follow): only a decimal integer, since letters are code there
//     (sed's `e/sbin/reboot`, perl's `qx.reboot.`, python's `import os`).
//
// A program that runs its strings changes the rule for all of its fields but
// comments, since a value may flow from any literal into the call
// (`x = '${V}'; os.system('echo ' + x)`) and the scanners follow no data:
//   it starts commands (the words system, exec, qx, readpipe, open,
//     open2, open3, the IPC:: modules (IPC::Run, IPC::Cmd,
//     IPC::System::Simple: run, start, capture) and backticks in perl;
//     system, popen, subprocess, getoutput, Popen, pty, commands,
//     create_subprocess_* and os.exec*/os.spawn* in python; child_process,
//     exec, execSync, execFile, spawn, fork, execa*, shelljs, zx in node;
//     system and a `|` pipe in awk code; sed's `e` command or `e` flag): a
//     field takes only shell-inert values (ASCII letters, digits,
//     `_ . / : @ % + , -`, or empty), and none of its own stops;
//   it runs strings as its own code (eval in perl, but not `eval { }`;
//     eval, exec, compile, timeit, runctx, runsource, runcode, runeval,
//     cProfile, pdb, InteractiveConsole, InteractiveInterpreter, and an
//     import of `code` or `profile` (whose run() evaluates; a bare run, as
//     in subprocess.run, does not) in python; eval, Function, vm in node):
//     every field is code (only a decimal integer).
// The words count anywhere in the program, quoted too (`require(
// 'child_process')`), and on its command line beside it (perl's
// `-MIPC::Run`, node's `-r child_process`); a mention in a comment
// restricts more than needed.
// An awk file name after `>` or `>>` is data.
// The placeholders are marked (ShellContext::operand: kProgramText with the
// characters refused, kProgramEscaped, kProgramShellText, or kProgramCode);
// `shell: raw` lifts the rule.
//
// Programs found: the word after sed's -e/--expression (or its first operand),
// awk's first operand (or gawk's -e/--source), the -e/-E of perl,
// python's -c, node's -e/-p/--eval/--print, jq's filter, and a here-document
// that python, perl or node reads as its program (`python3 - <<EOF`);
// directly or behind runners (`env`, `xargs`, `find -exec`, `busybox sed`).
// Options are read as each interpreter reads them: GNU getopt_long's
// prefixes for sed and gawk (`--expr=`, `--e`, `--so`), bundles (`-lne`,
// `-Sc`, node's `-pe`, whose -p and -e each take the next word), and an
// option the table does not know may take the next word, which then does not
// end the options of perl, python or node (`node --input-type module -e`).
// ruby -e, php -r, lua -e, Rscript/R -e have no scanner: anywhere in their
// programs a value is code (only a decimal integer). pypy is python, bun is node.
// A here-string is the program of an interpreter that reads its standard
// input (`python3 <<< "..."`). The operands of `perl -n`, `-p` or a `<>`
// loop are file names perl opens with the two-argument open, where `cmd|`
// runs cmd: a value there takes no `|`, `<` or `>`.
// A scalar whose `#!` line names one of these interpreters is its program
// file (AddProgramFileReadings). Out of reach: a program the script builds
// at run time (`p="s/x/${V}/"; sed "$p"`), a program file without a `#!`
// line (`python3 /scripts/migrate.py` with the file in a ConfigMap). Text piped into an interpreter that reads its
// program from its standard input, and a `<(...)` it reads, are refused by
// the sink reader (ProgramSourceOf, shell_sinks.cc).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "shell.h"

namespace safesubst {

struct ShWord;  // shell_commands.h

/// A cheap test: false when `script` names none of the interpreters above
/// (then AddProgramReadings would change nothing).
bool MayRunPrograms(std::string_view script);

/// Marks each of `contexts` (at `offsets` of `script`) whose placeholder
/// stands in the program text of an interpreter the script runs.
void AddProgramReadings(std::string_view script, const std::vector<std::size_t>& offsets,
                        std::vector<ShellContext>* contexts);

/// Where the interpreter a command runs (its words from the command name on)
/// takes its program from: its standard input (`python3`, `perl -`, `sed -f
/// -`, `awk -f /dev/stdin`), or a file, which may be a `<(...)` (`sed -f
/// <(...)`, `python3 <(...)`, where the `<(...)` is no word). For the sink
/// reader (shell_sinks.cc): text piped into such a command, or written by a
/// `<(...)` it reads, is program text the renderer cannot delimit.
struct ProgramSource {
  std::string name;  ///< "`python3`"; empty when the command runs no interpreter
  bool from_stdin = false;
  bool from_file = false;
};
ProgramSource ProgramSourceOf(const std::vector<ShWord>& words);

/// A placeholder in an exec-form argv: the item, and the offset of its `$` in it.
struct ArgvPlace {
  std::size_t item = 0;
  std::size_t offset = 0;
};

/// AddProgramReadings for an exec-form container argv (`command:
/// ["python3", "-c", "print('${V}')"]`: no shell between, so the items are
/// the words as the interpreter gets them, placeholders still in them). The
/// interpreter is the first item that names one: argv[0], or after any
/// program, since an image's entrypoint script usually runs its arguments
/// (`/docker-entrypoint.sh python3 -c ...`). A place is the `$` of any
/// `$NAME` or `${...}` form. contexts[i] belongs to places[i]; only its
/// operand, evaluated_by and program_stops are set, and only where the
/// operand is kNone. Write values there with AppendProgramEncoded
/// (program_encoding.h), which adds no shell quoting.
void AddArgvProgramReadings(const std::vector<std::string>& argv, const std::vector<ArgvPlace>& places,
                            std::vector<ShellContext>* contexts);

/// The interpreter that runs a program file named `file_name` (a ConfigMap
/// key) when it has no `#!` line: "python3" for `.py`, "perl" for `.pl` and
/// `.pm`, "node" for `.js`, `.mjs`, `.cjs`, "awk", "sed" and "jq" for
/// `.awk`, `.sed`, `.jq`; empty otherwise. (Ruby's and PHP's files are left
/// out: without a scanner every value in them would be code, and a
/// `wp-config.php` with `define('DB_HOST', '${DB_HOST}')` must render.)
std::string_view InterpreterOfFileName(std::string_view file_name);

/// AddArgvProgramReadings for a program file: a text whose `#!` line names
/// an interpreter (ShebangProgram: `#!/usr/bin/env python3`,
/// `#!/usr/bin/perl -w`, `#!/usr/bin/awk -f`, `#!/bin/sed -f`), or else
/// whose `file_name` does (InterpreterOfFileName), which runs the whole text
/// as its program (a ConfigMap's `migrate.py: |`, a Tekton step's `script`,
/// an Argo template's `source`). `offsets`: the `$` of each placeholder in
/// `program`; contexts[i] belongs to offsets[i], set as
/// AddArgvProgramReadings sets them. A text for which neither names an
/// interpreter read here (a shell, `/app/run`) is left alone.
void AddProgramFileReadings(const std::string& program, std::string_view file_name,
                            const std::vector<std::size_t>& offsets, std::vector<ShellContext>* contexts);

}  // namespace safesubst
