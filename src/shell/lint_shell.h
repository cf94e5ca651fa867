// SPDX-License-Identifier: Apache-2.0
// Lint's model of a POSIX sh script (internal to safesubst lint).
//
// It is not an interpreter and not a full parser: it is built from the events
// of the one shell lexer (shell_lexer.h, the reader the render's quoting states
// come from), as the script's simple commands (shell_commands.h), every
// parameter reference and every assignment with its byte offset in the
// script, which is what the rules need to say "line 12, column 5".
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "shell_commands.h"

namespace safesubst::lint {

/// How a parameter is referenced; kArithmetic is a bare name inside $((...)) or ((...)).
using RefOp = ParameterOp;

/// A reference to a named parameter (positional and special ones are not recorded).
struct ShRef {
  std::string name;
  std::size_t begin = 0;  ///< offset of the `$` (or of the name, for kArithmetic)
  RefOp op = RefOp::kPlain;
  /// Inside the operand of ${X:-...}, ${X:+...}, ${X:=...} or ${X:?...}:
  /// only evaluated in some cases.
  bool guarded = false;
};

enum class AssignKind : std::uint8_t {
  kPlain,     ///< X=v as a whole command
  kPrefix,    ///< X=v cmd: only in cmd's environment
  kDeclare,   ///< local/declare/typeset/readonly X[=v]
  kExport,    ///< export X=v, declare -x X=v
  kRead,      ///< read X, getopts o X, mapfile X, printf -v X
  kLoop,      ///< for X in, select X in
  kArithmetic,  ///< let X=1, ((X++)), $((X=1))
  kParamDefault,  ///< ${X:=v}
};

struct ShAssignment {
  std::string name;
  std::size_t begin = 0;  ///< offset of the name
  AssignKind kind = AssignKind::kPlain;
  /// The value is empty or only blanks after quote removal and has no expansion:
  /// `X=`, `X=""`, `X=" "`.
  bool empty_value = false;
};

struct ShScript {
  std::vector<ShCommand> commands;  ///< in the order they end (inner substitutions first)
  std::vector<ShRef> refs;          ///< in source order
  std::vector<ShAssignment> assignments;
  std::vector<std::string> exported;  ///< names given to `export` / `declare -x` without a value
  std::vector<std::pair<std::size_t, std::size_t>> comments;  ///< [begin, end) of each `#` comment
  /// The script runs code the reader cannot see: eval, source, `.`, or an
  /// assignment whose name is computed (`export "$k=$v"`).
  bool dynamic = false;
};

/// Reads `script`. Never fails: unterminated quotes or substitutions end at
/// the end of the text.
ShScript ParseShell(std::string_view script);

/// The first word that is a command name (after prefix assignments), or -1.
int CommandNameIndex(const ShCommand& command, std::string_view script);

/// True when `name` is a variable the shell, the login environment or
/// Kubernetes sets (service links, JOB_COMPLETION_INDEX in an Indexed Job):
/// HOME, PATH, IFS, RANDOM, KUBERNETES_SERVICE_HOST...
bool IsWellKnownVariable(std::string_view name);

}  // namespace safesubst::lint
