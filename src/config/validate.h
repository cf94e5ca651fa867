// SPDX-License-Identifier: Apache-2.0
// Internal helpers shared by the manifest loader and value validation: type
// names, RE2 pattern cache, identifier checks and did-you-mean suggestions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "safesubst/manifest.h"

namespace re2 {
class RE2;
}
namespace safesubst::detail {

/// Parses a type name as written in a manifest (`dns-label`, `ipv4`, ...).
std::optional<VarType> ParseVarType(std::string_view name);

/// Every type name, in declaration order, for hints.
const std::vector<std::string_view>& VarTypeNames();

/// True for a shell/envsubst variable name: `[A-Za-z_][A-Za-z0-9_]*`.
bool IsIdentifier(std::string_view name);

/// Returns the compiled pattern, compiling it on first use. Patterns are cached
/// for the life of the process (a manifest has few, and values are validated
/// many times), and the cache is safe to use from several threads. Returns
/// nullptr and sets `error` when the pattern does not compile.
const re2::RE2* CompiledPattern(const std::string& pattern, std::string* error);

/// The candidate closest to `word` by edit distance, or empty when none is
/// close enough to be a plausible typo (at most 2 edits, and fewer than half
/// of the word's length).
std::string_view ClosestMatch(std::string_view word, const std::vector<std::string_view>& candidates);

/// ClosestMatch among a manifest's variable names, for many unknown names:
/// each lookup compares with every variable, so after kMaxLookups (more
/// than are ever shown: diagnostics are capped) it suggests nothing, so
/// 30,000 unknown keys against 30,000 variables take a fraction of a second.
class NameSuggester {
 public:
  static constexpr std::size_t kMaxLookups = 200;
  explicit NameSuggester(const std::vector<Variable>& variables) : variables_(variables) {}
  /// The variable name closest to `unknown`; empty when none is close or the lookups are spent.
  std::string_view Suggest(std::string_view unknown);

 private:
  const std::vector<Variable>& variables_;
  std::vector<std::string_view> names_;  // of variables_, taken again when it grows
  std::size_t lookups_ = 0;
};

/// "valid keys: a, b, c" plus "; did you mean 'b'?" when one is close to `word`.
std::string KeysHint(std::string_view word, const std::vector<std::string_view>& candidates,
                     std::string_view what = "valid keys");

/// A value as it appears in a message: `"text"` with control characters and
/// quotes escaped and long values shortened, or `***` for a sensitive variable.
std::string QuoteForMessage(const Variable& variable, std::string_view value);

}  // namespace safesubst::detail

namespace safesubst {

/// Checks one value against its declaration. Returns an empty string when it is
/// valid, else a message that does not contain the value if it is sensitive.
std::string ValidateValue(const Variable& variable, std::string_view value);

/// Splits a `list` value into its items (comma and/or whitespace separated).
std::vector<std::string> SplitList(std::string_view value);

/// The text to show for a value in messages: the value, or `***` when sensitive.
std::string DisplayValue(const Variable& variable, std::string_view value);

/// The two formats of a values file.
enum class ValuesFormat : std::uint8_t { kDotenv, kYaml };

/// Decides how a values file is read. By name first: `.yaml`, `.yml` and
/// `.json` are YAML, `.env` is dotenv. Otherwise by content: the first line
/// that is neither blank nor a `#` comment decides; it is YAML when it starts
/// with `---` or `{`, or with a name (optionally quoted) followed by `:`; it
/// is dotenv otherwise (`NAME=`, `export NAME=`, or a malformed line that the
/// dotenv reader then reports with its position).
ValuesFormat DetectValuesFormat(std::string_view text, std::string_view file);

}  // namespace safesubst
