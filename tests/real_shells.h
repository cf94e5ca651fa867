// SPDX-License-Identifier: Apache-2.0
// The real shells that tests run rendered scripts under (safety is proved
// against real interpreters, not a model of them), and the two ways of
// running scripts under all of them at once. Compiled into the test program
// only.
#pragma once

#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace safesubst::testing {

/// The builtin with which a shell writes bytes as they are: mksh and posh
/// have no printf builtin, and one /usr/bin/printf process per output costs
/// tens of seconds in a large corpus.
enum class OutputBuiltin { kPrintf, kPrint /* mksh */, kEcho /* posh */ };

/// A shell the tests run scripts under.
struct RealShell {
  std::string_view name;
  std::string_view command;  ///< run by /bin/sh with the script's name after it
  std::string_view program;  ///< must be on PATH
  std::string_view package;  ///< the Debian package that installs it
  bool reads_dollar_single;  ///< reads $'...' as bash does (else as `$` and '...')
  bool reads_only_utf8;      ///< refuses to read a script that is not valid UTF-8
  OutputBuiltin output;
};

/// The shells that may run a script: /bin/sh is dash on Debian and Ubuntu,
/// busybox ash on Alpine, bash on RHEL; and the other POSIX shells people
/// use. dash, bash, `bash --posix`, `busybox sh`, `zsh --emulate sh`, mksh,
/// posh, yash.
const std::vector<RealShell>& RealShells();

/// RealShells(), each checked: a missing one FAILS the running test case (CI
/// installs the packages of packaging/debian-test-deps.txt) and is left out;
/// each one's reading of $'...' must be the one declared for it.
std::vector<RealShell> InstalledShells();

/// Runs `script_of(shell)` under every one of `shells` at once, each in a
/// fresh directory `work/shellN` (N its index in `shells`) as
/// `COMMAND ./script.sh >stdout 2>stderr`, with its exit status written to
/// `rc`. Returns the directories, in the order of `shells`.
std::vector<std::filesystem::path> RunScriptUnderShells(
    const std::filesystem::path& work, const std::vector<RealShell>& shells,
    const std::function<std::string(const RealShell&)>& script_of);

/// Runs each of `scripts` in a process of its own under every one of
/// `shells` (all shells at once), in a fresh directory `work/shellN` per
/// shell: script i writes `outI` and `errI` there, and the file `canaries`
/// lists, one a line, each i after which a file `canary` was in the
/// directory (it is removed before the next script). Returns the
/// directories, in the order of `shells`.
std::vector<std::filesystem::path> RunEachScriptUnderShells(const std::filesystem::path& work,
                                                            const std::vector<RealShell>& shells,
                                                            const std::vector<std::string>& scripts);

}  // namespace safesubst::testing
