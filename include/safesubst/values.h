// SPDX-License-Identifier: Apache-2.0
// Values: where each variable's value comes from, and validation against the
// manifest before anything is rendered.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "safesubst/diagnostic.h"
#include "safesubst/export.h"
#include "safesubst/manifest.h"

namespace safesubst {

enum class ValueSource : std::uint8_t { kDefault, kEnvironment, kValuesFile, kCommandLine };

struct Value {
  std::string text;
  ValueSource source = ValueSource::kDefault;
  Location origin;  ///< where it was set (values file line, `--set`), for messages
};

/// The resolved value of every declared variable that has one.
class SAFESUBST_API ValueSet {
 public:
  /// Returns the value of `name`, or nullptr when it has none.
  const Value* Find(std::string_view name) const;
  void Set(std::string name, Value value);
  /// Forgets the value of `name`, if any.
  void Erase(std::string_view name);
  const std::map<std::string, Value, std::less<>>& all() const { return values_; }

 private:
  std::map<std::string, Value, std::less<>> values_;
};

/// Where values come from. Precedence, highest first: `sets`, then
/// `values_files` (later wins), then `environment`, then manifest defaults.
struct ValueInputs {
  std::vector<std::string> environment;   ///< "NAME=VALUE" entries, like environ
  std::vector<std::string> values_files;  ///< dotenv or YAML map files
  std::vector<std::string> sets;          ///< "NAME=VALUE" from --set
  /// Report a required variable that has no value (as an error). Off for
  /// work that needs no values, such as explaining a template.
  bool report_missing = true;
  /// The largest values file; one over it is an error, read no further.
  std::size_t max_file_bytes = kDefaultMaxManifestBytes;
};

/// Parses a values file. `.yaml`, `.yml` and `.json` files are YAML, `.env`
/// files dotenv; any other is YAML when its first line that is neither blank
/// nor a `#` comment starts with `---`, `{` or a name (optionally quoted)
/// followed by `:`, else dotenv. `file` names it in diagnostics; each
/// Value's origin is the position of its value.
///
/// YAML: a mapping of NAME to value. A null value (`NAME:`) is the empty
/// string; a sequence of scalars is its items joined with `,` (a `list`); a
/// mapping or nested sequence is kept as YAML text (for `type: yaml`).
///
/// dotenv: `NAME=VALUE` or `export NAME=VALUE` lines; blank lines and lines
/// starting with `#` are skipped. An unquoted value runs to the end of the
/// line, surrounding blanks trimmed, and a `#` after a blank starts a comment.
/// `'single'` quotes are literal; `"double"` quotes understand `\n` `\t`
/// `\r` `\"` `\\` `\$` (any other backslash is kept as is). Quoted values
/// may span lines. No `${...}` expansion is done. A line without `=`, a bad
/// name, blanks around `=` or text after a closing quote is an error.
///
/// A name set twice is a warning; the later value wins.
SAFESUBST_API Result<std::vector<std::pair<std::string, Value>>> ParseValuesText(std::string_view text,
                                                                                 const std::string& file);

/// Resolves every declared variable's value by precedence, then validates all of
/// them (type, pattern, required). Every failing variable is reported at once;
/// sensitive values appear as `***` in messages.
///
/// Only declared names get values; a name in `sets` or a values file that the
/// manifest does not declare is a warning. In DeclarationMode::kEnvironment
/// every name given (environment, values files, `--set`) is declared, as a
/// string. `required` means set and not empty. Each validation error points at
/// where the value came from: the values file position, `--set`, or the
/// manifest declaration (environment and defaults).
///
/// `value` is filled even when there are errors, so that callers can still
/// redact (RedactSensitive) or explain; use `ok()` to decide whether to render.
SAFESUBST_API Result<ValueSet> CollectValues(const Manifest& manifest, const ValueInputs& inputs);

/// Replaces every occurrence of a sensitive variable's value (or default),
/// or of a piece of one, in `text` with `***`: the masking the command
/// applies to every message it prints.
SAFESUBST_API std::string RedactSensitive(std::string_view text, const Manifest& manifest, const ValueSet& values);

}  // namespace safesubst
