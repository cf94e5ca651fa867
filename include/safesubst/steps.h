// Post-substitution steps (SPEC Rule 4): fragment merges, deletes and sets,
// applied to each rendered document with byte preservation.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "safesubst/diagnostic.h"

namespace safesubst {

/// A condition on variables, e.g. `{var: APP, not_in: EFS_ZONE_EXCLUDE_APPS}`.
struct Condition {
  enum class Op : std::uint8_t { kIn, kNotIn, kEquals, kNotEquals, kIsSet, kIsUnset };
  Op op = Op::kIsSet;
  std::string var;
  /// kIn/kNotIn: the name of a `list` variable; kEquals/kNotEquals: a literal.
  std::string operand;
  Location location;
};

/// Which documents of a stream a step applies to; empty fields match anything.
struct DocumentMatch {
  std::string kind;
  std::string name;  ///< metadata.name
  std::vector<std::pair<std::string, std::string>> labels;  ///< metadata.labels, all must match
};

struct Step {
  enum class Action : std::uint8_t { kMerge, kDelete, kSet };
  Action action = Action::kMerge;
  /// Target path: `.a.b`, `[N]`, `[*]`, `[key=value]`.
  std::string path;
  /// kMerge: the fragment file, resolved relative to the manifest's directory.
  std::string fragment_file;
  /// kSet: the value as YAML text.
  std::string value;
  bool append = false;    ///< kMerge: append to sequences instead of replacing them
  bool optional = false;  ///< a path that matches nothing is not an error
  std::vector<Condition> when;  ///< all must hold
  DocumentMatch match;
  Location location;  ///< of the step in the manifest
};

}  // namespace safesubst
