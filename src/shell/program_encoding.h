// SPDX-License-Identifier: Apache-2.0
// How a value is written into the program text of another interpreter
// (interpreter_programs.h), before any shell quoting around the program:
// the interpreter's layer alone. AppendShellEncoded applies it first, inner
// first, and then quotes the result for the shell; an exec-form container
// argv (`command: ["python3", "-c", "..."]`, no shell between) takes it alone.
#pragma once

#include <string>
#include <string_view>

#include "safesubst/manifest.h"
#include "shell.h"

namespace safesubst {

/// Appends `value` written for the program field of `context` (its operand
/// is kProgramText or kProgramCode; any other operand appends the value
/// unchanged). Returns an empty string on success, otherwise a message that
/// never contains the value; then nothing is appended. kRaw writes the value
/// as is.
std::string AppendProgramEncoded(const ShellContext& context, std::string_view value, ShellMode mode,
                                 std::string* out);

}  // namespace safesubst
