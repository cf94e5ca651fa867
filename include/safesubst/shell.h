// Shell-aware encoding for script contexts (SPEC Rule 3, shell part): the POSIX
// sh quoting state at each placeholder, and how a value is written in it so
// that it can neither break the script nor inject a command.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "safesubst/manifest.h"

namespace safesubst {

enum class ShellState : std::uint8_t {
  kUnquoted,         ///< in an unquoted word (also inside $(...) / backticks)
  kSingleQuoted,     ///< inside '...'
  kDoubleQuoted,     ///< inside "..."
  kComment,          ///< after a `#` at the start of a word
  kHeredocLiteral,   ///< body of a here-document with a quoted delimiter
  kHeredocExpanding, ///< body of a here-document with an unquoted delimiter
};

/// The quoting state at one position of a script.
struct ShellContext {
  ShellState state = ShellState::kUnquoted;
  /// Nesting depth of command substitutions ($(...) and backticks) around the position.
  std::uint8_t substitution_depth = 0;
  /// The innermost substitution is a backtick one (backslashes are special there).
  bool in_backticks = false;
  bool in_case_pattern = false;  ///< unquoted word in a `case` pattern list
};

/// Lexes `script` (the decoded script text) once and returns the context at
/// each offset of `offsets`, which must be ascending.
std::vector<ShellContext> ShellContextsAt(std::string_view script,
                                          const std::vector<std::size_t>& offsets);

/// Appends `value` encoded for `context`. Returns an empty string on success,
/// otherwise a message (not containing the value) saying why it cannot be
/// written there; then nothing is appended.
std::string AppendShellEncoded(const ShellContext& context, std::string_view value, ShellMode mode,
                               std::string* out);

std::string_view ShellStateName(ShellState state);

/// True when `text` is a shell script by SPEC Rule 3's cheap tests: its first
/// line is a `#!` naming sh, bash, dash, ash or zsh.
bool HasShellShebang(std::string_view text);

}  // namespace safesubst
