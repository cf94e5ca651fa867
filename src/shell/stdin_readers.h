// SPDX-License-Identifier: Apache-2.0
// Programs that read commands from their standard input though no shell or
// interpreter is named on their command line (attacker B6, session 31):
// what is piped or redirected into them may run as code.
//   A shell reads it: `ssh HOST` without a command (the remote login
//   shell), `su [USER]` without -c, `sudo -s`/`-i` without a command,
//   `chroot DIR` without a command, `at TIME` and `batch` (run later by
//   /bin/sh). The sink reader takes these for a shell reading its input
//   (a here-document is a shell sink, text piped in is refused).
//   Commands of their own, some of which run a shell or code: `ed` and `ex`
//   (`!cmd`), `vim -e`/`-es` (`:!cmd`), `dc` (`!`), `m4` (`syscmd`), `gdb`
//   (`shell`), `crontab -`, `tclsh`/`expect`/`wish`/`gnuplot` without a
//   script. What reaches their input is refused.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "shell_commands.h"

namespace safesubst {

/// A cheap test: false when `script` names none of the programs above as a
/// word (then neither function finds anything in it).
bool MayReadInput(std::string_view script);

/// The quoted name of the program of `words` (from the command name on,
/// behind runners) that runs a shell reading the command's standard input,
/// or empty.
std::string ShellReadingInput(const std::vector<ShWord>& words);

/// The quoted name of the program of `words` that reads commands of its own
/// from its standard input, or empty.
std::string CommandReaderOfInput(const std::vector<ShWord>& words);

}  // namespace safesubst
