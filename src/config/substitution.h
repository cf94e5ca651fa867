// SPDX-License-Identifier: Apache-2.0
// What one reference becomes: SPEC Rule 1 (only declared names) and the shell
// default forms, decided from the manifest and the values alone.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "safesubst/manifest.h"
#include "tokenizer.h"
#include "safesubst/values.h"

namespace safesubst {

struct Resolution {
  enum class Outcome : std::uint8_t {
    kIgnore,      ///< not a deploy-time reference: comment, $(NAME), $$, shell syntax
    kEscape,      ///< `$${...}`, whatever it names: written as `${...}`
    kRuntime,     ///< listed under `runtime:`, or undeclared in environment mode script
    kSubstitute,  ///< `value` replaces the reference
    /// The default word of the form applies: the word, template text, replaces
    /// the form as written (default_words.h).
    kDefaultWord,
    kFail,        ///< an error: `message` and `hint` say why
    kUndeclared,  ///< not declared: the caller applies SPEC Rule 2 by context
  };
  Outcome outcome = Outcome::kIgnore;
  const Variable* variable = nullptr;  ///< the declaration, when there is one
  std::string value;
  std::string message;
  std::string hint;
  /// A form kept as written (kIgnore, kRuntime, kUndeclared) that deserves a
  /// warning with `hint`, or empty.
  std::string warning;
};

/// The first declared, non-runtime variable that `text` names in any `$`
/// form (`$V`, `${V}`, `${#V}`, `${x:-${V}}`...), or empty. For text that is
/// kept as written, such as the operand of a kept `${HOME:+${V}}` or a step's
/// `set` value, where the shell would read V at run time, when it is not set.
std::string_view DeclaredNameIn(std::string_view text, const Manifest& manifest);

/// Where a reference stands, for ResolveReference.
enum class ShellReading : std::uint8_t {
  kExpanded,  ///< data, or shell text the shell expands
  kLiteral,   ///< shell text the shell never expands: '...', $'...', a quoted here-document
};

/// Decides what `reference` becomes. Default forms (`${NAME:-x}` ...) are
/// evaluated for declared names: a word that applies is kDefaultWord. The
/// string operations (`${NAME%.*}` ...) are computed for declared names
/// (string_operations.h). A shell
/// form kept as written that names a declared variable (`${V#x}`,
/// `${HOME:-$V}`) is an error, since the shell would read V unset; where the
/// shell reads none of it (`reading` kLiteral) it is a warning, since the
/// text may still be run later (`eval`, `trap`, `sh -c '...'`).
Resolution ResolveReference(const Reference& reference, const Manifest& manifest, const ValueSet& values,
                            ShellReading reading = ShellReading::kExpanded);

}  // namespace safesubst
