// SPDX-License-Identifier: Apache-2.0
// The programs a script names through its own variables: `CURL="curl -fsS"`
// and later `$CURL "$URL"` runs curl. A command word that is such a variable
// is read as the words the script assigned (shell_sinks.h), so that its
// arguments are the data they are (attacker s30 A7: every URL after `$CURL`
// was refused as possibly shell code), and `CMD="sh -c"; $CMD "..."` is the
// `sh -c` sink it is.
//
// A variable counts only when the script says all there is to say of it:
// every assignment to it is a literal (no expansion), one of them comes
// before the command word, and the name stands nowhere else as a word (`read
// CURL`, `for CURL in`, `unset CURL`, `export CURL`, `printf -v CURL`). Any
// other variable is named by an expansion the renderer cannot know.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "shell_commands.h"

namespace safesubst {

class ProgramVariables {
 public:
  /// Reads `script` once.
  explicit ProgramVariables(std::string_view script);

  /// The words `$NAME`, `${NAME}` or `"$NAME"` at command word `word` stand
  /// for, or nothing when the script does not say (see above).
  std::optional<std::vector<ShWord>> WordsOf(const ShWord& word) const;

 private:
  struct Variable {
    std::optional<std::string> literal;  // nothing: assigned otherwise, or named as a word
    std::size_t first_assigned = 0;      // offset of its first assignment
  };
  friend class ProgramVariableReader;

  std::map<std::string, Variable, std::less<>> variables_;
};

/// The name of a parameter expansion that is the whole of `word` (`$NAME`,
/// `${NAME}`, `"$NAME"`), or "".
std::string WholeWordVariable(const ShWord& word);

}  // namespace safesubst
