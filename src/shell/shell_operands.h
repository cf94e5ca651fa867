// SPDX-License-Identifier: Apache-2.0
// Words a command evaluates (SPEC Rule 3: a value never runs as code). Some
// commands read a word as an arithmetic expression or as a variable name,
// and bash, mksh, zsh and posh evaluate a subscript there, running the
// command substitutions in it: `let "n = ${V}"`, `[ "${V}" -gt 3 ]`,
// `unset "${V}"` or `read "${V}"` with V=`a[$(cmd)]` run cmd, though the
// value stands in double quotes. A placeholder in such a word is marked
// (ShellContext::operand), so that it takes only a decimal integer or a
// plain name.
//
// The words (from the one command model, shell_commands.h):
//   arithmetic: every argument of `let`; the operands of `-eq -ne -lt -le
//     -gt -ge` in `[`, `test` and `[[`; the count of `shift`; the value of a
//     variable declared integer (`declare -i`, `typeset -i`, `local -i`,
//     `integer`), or of one the script uses in arithmetic (`$((v+1))`,
//     `let`, `[ "$v" -gt 1 ]`), wherever the script assigns it;
//   name: the operands of `unset`, `read`, `[ -v ]`; `printf -v NAME`;
//     the name of `getopts`; the name part of the arguments of `declare`,
//     `typeset`, `local`, `export`, `readonly`, `integer`, and the inside of
//     a compound assignment there (`declare -a "arr=(...)"`).
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

#include "shell.h"

namespace safesubst {

/// A cheap test: false when `script` names none of the commands above (then
/// AddOperandReadings would change nothing).
bool MayEvaluateOperands(std::string_view script);

/// Marks each of `contexts` (at `offsets` of `script`) whose placeholder
/// stands in a word a command evaluates.
void AddOperandReadings(std::string_view script, const std::vector<std::size_t>& offsets,
                        std::vector<ShellContext>* contexts);

}  // namespace safesubst
