// SPDX-License-Identifier: Apache-2.0
// Post-substitution steps (SPEC Rule 4): fragment merges, deletes and sets,
// applied to each rendered document with byte preservation.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "safesubst/diagnostic.h"
#include "safesubst/export.h"

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

/// A variable's value by name, or std::nullopt when it has none.
using ValueLookup = std::function<std::optional<std::string>(std::string_view name)>;

/// What ApplySteps needs besides the steps.
struct StepContext {
  /// The value a `when` condition tests (a render gives the variable's value,
  /// else its manifest default). Must be set when any step has a condition.
  /// An unset variable is in no list and equals nothing; `in`/`not_in` split
  /// the list variable's value on commas and whitespace.
  ValueLookup value_of;
  /// The first declared deploy-time variable that `text` names in a `$`
  /// form, or empty: a `set` value naming one is refused, since it would
  /// reach the output unsubstituted. When unset, no name is refused.
  std::function<std::string_view(std::string_view text)> declared_name_in;
  /// The rendered stream's name in diagnostics (the template's file name).
  std::string file_name = "<stdin>";
  /// Returns the text of `step.fragment_file`, already rendered by the same
  /// substitution rules as the template (so its runtime `$NODE_IP` survives).
  /// Called at most once per merge step, and only when the step runs.
  std::function<Result<std::string>(const Step&)> load_fragment;
};

/// Applies `steps` in order to every document of a rendered YAML stream and
/// returns the new stream. Outside the nodes a step changes, the output keeps
/// the input's bytes (comments, key order, indentation, quoting, CRLF).
///
/// A step runs when all its `when` conditions hold, on the documents its
/// `match` selects (all documents when `match` is empty; documents without
/// content are skipped). A path that matches nothing is an error unless the
/// step is `optional`: with a `match`, in every selected document (and a match
/// that selects no document is an error too); without one, in at least one
/// document of the stream. Errors are located at the step in the manifest and
/// name the path and the document; every failing step is reported.
SAFESUBST_API Result<std::string> ApplySteps(std::string_view rendered, const std::vector<Step>& steps,
                                             const StepContext& context);

}  // namespace safesubst
