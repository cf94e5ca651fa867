// Values: where each variable's value comes from, and validation against the
// manifest before anything is rendered.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "safesubst/diagnostic.h"
#include "safesubst/manifest.h"

namespace safesubst {

enum class ValueSource : std::uint8_t { kDefault, kEnvironment, kValuesFile, kCommandLine };

struct Value {
  std::string text;
  ValueSource source = ValueSource::kDefault;
  Location origin;  ///< where it was set (values file line, `--set`), for messages
};

/// The resolved value of every declared variable that has one.
class ValueSet {
 public:
  /// Returns the value of `name`, or nullptr when it has none.
  const Value* Find(std::string_view name) const;
  void Set(std::string name, Value value);
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
};

/// Parses a values file: a YAML mapping, or dotenv lines (`K=V`, `export K=V`,
/// `# comments`, single/double quoting). `file` names it in diagnostics.
Result<std::vector<std::pair<std::string, Value>>> ParseValuesText(std::string_view text,
                                                                   const std::string& file);

/// Resolves every declared variable's value by precedence, then validates all of
/// them (type, pattern, required). Every failing variable is reported at once;
/// sensitive values appear as `***` in messages.
Result<ValueSet> CollectValues(const Manifest& manifest, const ValueInputs& inputs);

/// Checks one value against its declaration. Returns an empty string when it is
/// valid, else a message that does not contain the value if it is sensitive.
std::string ValidateValue(const Variable& variable, std::string_view value);

/// Splits a `list` value into its items (comma and/or whitespace separated).
std::vector<std::string> SplitList(std::string_view value);

/// The text to show for a value in messages: the value, or `***` when sensitive.
std::string DisplayValue(const Variable& variable, std::string_view value);

}  // namespace safesubst
