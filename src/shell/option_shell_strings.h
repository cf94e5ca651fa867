// SPDX-License-Identifier: Apache-2.0
// Option values that a program hands to a shell to run (attacker B2, session
// 31): `git -c core.sshCommand=CMD`, `git clone --upload-pack=CMD`, `ssh -o
// ProxyCommand=CMD`, `tar -I CMD`, `tar --to-command=CMD`, `zip -TT CMD`,
// `tmux new-session -d CMD`, `man -P CMD`. The value is a string run again,
// as an `sh -c` operand is: the sink finder (shell_sinks.cc) reads it as a
// script of its own, so a placeholder in it is encoded for both readings or
// refused. Some programs run an option's value as code of another language
// or split it with quoting of their own (`gdb -ex`, `vim -c`, `rsync -e`): a
// placeholder there is refused.
//
// One table of (program, option spelling), each option read the way its
// program parses it: `-IX`, `-I X` and bundles (`-xI X`); `--opt=X`, `--opt
// X` and getopt_long prefixes; ssh's `-o Key=value`, `-oKey=value`, `-o 'Key
// value'` with the key in any case; git's `-c section.name=value` and `git
// config KEY VALUE`, where the key says whether git runs the value.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "shell_commands.h"

namespace safesubst {

/// An option value that a program runs with a shell.
struct OptionShellString {
  std::string name;            ///< for messages: "`git -c core.sshCommand`"
  std::vector<ShWord> words;   ///< the value (words joined with blanks), each piece still saying where it came from
  std::string refusal;         ///< non-empty: no placeholder in the value can be encoded; says why
};

/// The option values that the programs among words [first, last] of a
/// command run with a shell (or as code of their own), in word order.
std::vector<OptionShellString> OptionShellStrings(const std::vector<ShWord>& words, std::size_t first,
                                                  std::size_t last);

/// A cheap test: false when `script` names none of the programs of the
/// table as a word (then OptionShellStrings finds nothing in it).
bool MayNameOptionRunner(std::string_view script);

}  // namespace safesubst
