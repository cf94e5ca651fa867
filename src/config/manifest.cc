// SPDX-License-Identifier: Apache-2.0
// The manifest loader: YAML text -> Manifest, with a located diagnostic for
// every problem found (unknown keys, bad types, invalid patterns and defaults,
// malformed steps), all of them in one pass.
#include "safesubst/manifest.h"

#include <algorithm>
#include <filesystem>
#include <map>

#include "default_references.h"
#include "references.h"
#include "safesubst/values.h"
#include "bounded_read.h"
#include "validate.h"
#include "yaml_node_writer.h"
#include "yaml_load.h"
#include "yaml_path.h"
#include "yaml_tree.h"

namespace safesubst {

const Variable* Manifest::Find(std::string_view name) const {
  for (const Variable& variable : variables) {
    if (variable.name == name) return &variable;
  }
  return nullptr;
}

bool Manifest::IsRuntime(std::string_view name) const {
  return std::find(runtime.begin(), runtime.end(), name) != runtime.end();
}

std::string_view VarTypeName(VarType type) {
  return detail::VarTypeNames()[static_cast<std::size_t>(type)];
}

namespace {

const std::vector<std::string_view> kTopLevelKeys = {"variables", "runtime", "scripts", "shell", "steps"};
const std::vector<std::string_view> kVariableKeys = {"type",      "pattern",     "default", "required",
                                                     "sensitive", "description", "values",  "shell"};
const std::vector<std::string_view> kStepKeys = {"merge",    "delete", "set",  "into", "value",
                                                 "append",   "optional", "when", "match"};
const std::vector<std::string_view> kActionKeys = {"merge", "delete", "set"};
const std::vector<std::string_view> kConditionKeys = {"var", "in", "not_in", "equals", "not_equals", "set"};
const std::vector<std::string_view> kConditionOps = {"in", "not_in", "equals", "not_equals", "set"};
const std::vector<std::string_view> kMatchKeys = {"kind", "name", "labels"};

bool IsTrueWord(std::string_view s) { return s == "true" || s == "True" || s == "TRUE"; }
bool IsFalseWord(std::string_view s) { return s == "false" || s == "False" || s == "FALSE"; }

std::string Quoted(std::string_view s) { return "'" + std::string(s) + "'"; }

// " (column N)": where in a path text a problem is.
std::string ColumnNote(std::uint32_t column) { return " (column " + std::to_string(column) + ")"; }

// A step target path, checked with the step engine's own grammar
// (yaml_path.h). Returns a problem or empty.
std::string CheckStepPath(std::string_view path) {
  detail::YamlPath parsed;
  detail::PathError error;
  if (detail::ParseYamlPath(path, &parsed, &error)) return {};
  return error.message + ColumnNote(error.column);
}

// A `scripts:`/`shell:` path, read with the step grammar, as the render
// matches it (ListedPaths, classify.h). Forms that select no one node by
// its place (`[key=value]`, a negative index) are refused. Returns a problem
// or empty.
std::string ScriptPathProblem(std::string_view path) {
  detail::YamlPath parsed;
  detail::PathError error;
  if (!detail::ParseYamlPath(path, &parsed, &error)) return error.message + ColumnNote(error.column);
  for (const detail::PathSelector& selector : parsed.selectors) {
    std::string at = ColumnNote(selector.column);
    switch (selector.kind) {
      case detail::PathSelector::Kind::kKey:
        // An unquoted `*` reads as a key named `*`, never as "any key".
        if (selector.key == "*" && path[selector.column] == '*') return "`.*` is not a wildcard here; use [*]" + at;
        break;
      case detail::PathSelector::Kind::kAll: break;
      case detail::PathSelector::Kind::kIndex:
        if (selector.index < 0) return "a negative index selects from the end in steps only" + at;
        break;
      case detail::PathSelector::Kind::kMatch:
        return "`[key=value]` selects items in steps only; here use [N] or [*]" + at;
    }
  }
  return {};
}

using detail::YamlRef;

struct KeyEntry {
  Location key_location;
  Location value_location;  ///< the key's location when the value is null
  YamlRef value;
};
using KeyMap = std::map<std::string, KeyEntry, std::less<>>;

class ManifestParser {
 public:
  ManifestParser(const std::string& file, Manifest* manifest, Diagnostics* diagnostics)
      : file_(file.empty() ? "<manifest>" : file), manifest_(*manifest), diagnostics_(*diagnostics) {}

  void Parse(const YamlRef& root) {
    if (root.IsNull()) return;  // an empty manifest declares nothing
    if (!root.IsMap()) {
      Error(At(root), "the manifest must be a YAML mapping", detail::KeysHint("", kTopLevelKeys));
      return;
    }
    KeyMap keys = CollectKeys(root, kTopLevelKeys, "the manifest");
    // Variables first: runtime names and step conditions are checked against them.
    if (const KeyEntry* entry = Get(keys, "variables")) ParseVariables(*entry);
    if (const KeyEntry* entry = Get(keys, "runtime")) ParseRuntime(*entry);
    if (const KeyEntry* entry = Get(keys, "scripts")) ParsePathList(*entry, "scripts", &manifest_.script_paths);
    if (const KeyEntry* entry = Get(keys, "shell")) ParsePathList(*entry, "shell", &manifest_.shell_paths);
    if (const KeyEntry* entry = Get(keys, "steps")) ParseSteps(*entry);
  }

  Location At(const YamlRef& node) const { return node.At(file_); }

  void Error(Location location, std::string message, std::string hint = {}) {
    diagnostics_.push_back(MakeError(std::move(location), std::move(message), std::move(hint)));
  }
  void Warning(Location location, std::string message, std::string hint = {}) {
    diagnostics_.push_back(MakeWarning(std::move(location), std::move(message), std::move(hint)));
  }

 private:
  static const KeyEntry* Get(const KeyMap& keys, std::string_view key) {
    auto it = keys.find(key);
    return it == keys.end() ? nullptr : &it->second;
  }

  // The entries of a mapping whose keys must come from `valid`; reports
  // unknown, non-scalar and repeated keys.
  KeyMap CollectKeys(const YamlRef& map, const std::vector<std::string_view>& valid, std::string_view context) {
    KeyMap keys;
    for (const auto& [key_node, value_node] : map.Entries()) {
      Location key_location = At(key_node);
      if (!key_node.IsScalar()) {
        Error(key_location, "a key in " + std::string(context) + " must be a plain name",
              detail::KeysHint("", valid));
        continue;
      }
      const std::string& key = key_node.Scalar();
      if (std::find(valid.begin(), valid.end(), key) == valid.end()) {
        Error(key_location, "unknown key " + Quoted(key) + " in " + std::string(context),
              detail::KeysHint(key, valid));
        continue;
      }
      if (const KeyEntry* first = Get(keys, key)) {
        Error(key_location, Quoted(key) + " appears twice in " + std::string(context),
              "first at line " + std::to_string(first->key_location.line) + "; keep one");
        continue;
      }
      Location value_location = value_node.IsNull() ? key_location : At(value_node);
      keys.emplace(key, KeyEntry{key_location, value_location, value_node});
    }
    return keys;
  }

  std::optional<std::string> ScalarOf(const KeyEntry& entry, std::string_view key, bool allow_empty = true) {
    if (!entry.value.IsScalar()) {
      Error(entry.value_location, Quoted(key) + " must be a single value",
            entry.value.IsNull() ? "give it a value after the ':'" : "");
      return std::nullopt;
    }
    if (!allow_empty && entry.value.Scalar().empty()) {
      Error(entry.value_location, Quoted(key) + " must not be empty");
      return std::nullopt;
    }
    return entry.value.Scalar();
  }

  std::optional<bool> BoolOf(const KeyEntry& entry, std::string_view key) {
    if (entry.value.IsScalar()) {
      if (IsTrueWord(entry.value.Scalar())) return true;
      if (IsFalseWord(entry.value.Scalar())) return false;
    }
    const std::string text = entry.value.IsScalar() ? entry.value.Scalar() : "";
    const std::string_view close = detail::ClosestMatch(text, {"true", "false"});
    Error(entry.value_location, Quoted(key) + " must be true or false",
          close.empty() ? "" : "did you mean '" + std::string(close) + "'?");
    return std::nullopt;
  }

  // ---- variables ----------------------------------------------------------

  void ParseVariables(const KeyEntry& entry) {
    if (entry.value.IsNull()) return;
    if (!entry.value.IsMap()) {
      Error(entry.value_location, "'variables' must be a mapping of NAME: {settings}",
            "for example:  variables: {TENANT_ID: {type: dns-label, required: true}}");
      return;
    }
    std::map<std::string, Location, std::less<>> seen;
    for (const auto& [key_node, value_node] : entry.value.Entries()) {
      Location key_location = At(key_node);
      if (!key_node.IsScalar() || !detail::IsIdentifier(key_node.Scalar())) {
        Error(key_location, "invalid variable name" + (key_node.IsScalar() ? " " + Quoted(key_node.Scalar()) : ""),
              "a name is a letter or '_' followed by letters, digits or '_'");
        continue;
      }
      const std::string& name = key_node.Scalar();
      if (auto it = seen.find(name); it != seen.end()) {
        Error(key_location, "variable " + Quoted(name) + " is declared twice",
              "first declared at line " + std::to_string(it->second.line) + "; keep one");
        continue;
      }
      seen.emplace(name, key_location);
      ParseVariable(name, key_location, value_node);
    }
  }

  void ParseVariable(const std::string& name, const Location& location, const YamlRef& node) {
    Variable variable;
    variable.name = name;
    variable.location = location;
    const std::size_t errors_before = ErrorCount();
    if (node.IsNull()) {
      manifest_.variables.push_back(std::move(variable));
      return;
    }
    if (node.IsScalar()) {  // shorthand: `APP: dns-label`
      if (auto type = ParseType(node.Scalar(), At(node))) variable.type = *type;
      ParseEnumValues(nullptr, &variable);
      manifest_.variables.push_back(std::move(variable));
      return;
    }
    if (!node.IsMap()) {
      Error(At(node), "variable " + Quoted(name) + " must be a mapping of settings or a type name",
            "for example:  " + name + ": {type: string, required: true}");
      return;
    }
    KeyMap keys = CollectKeys(node, kVariableKeys, "variable " + Quoted(name));
    if (const KeyEntry* e = Get(keys, "type")) {
      if (auto text = ScalarOf(*e, "type")) {
        if (auto type = ParseType(*text, e->value_location)) variable.type = *type;
      }
    }
    if (const KeyEntry* e = Get(keys, "pattern")) ParsePattern(*e, &variable);
    if (const KeyEntry* e = Get(keys, "required")) variable.required = BoolOf(*e, "required").value_or(false);
    if (const KeyEntry* e = Get(keys, "sensitive")) variable.sensitive = BoolOf(*e, "sensitive").value_or(false);
    if (const KeyEntry* e = Get(keys, "description")) variable.description = ScalarOf(*e, "description").value_or("");
    if (const KeyEntry* e = Get(keys, "shell")) ParseShellMode(*e, &variable);
    ParseEnumValues(Get(keys, "values"), &variable);
    const KeyEntry* default_entry = Get(keys, "default");
    if (default_entry != nullptr) ParseDefault(*default_entry, &variable);
    if (variable.required && variable.default_value) {
      Warning(default_entry->key_location,
              "variable " + Quoted(name) + " is required and has a default; the default always satisfies it",
              "drop 'required: true' or the default");
    }
    // Only check the default when the declaration itself is sound: a bad type
    // or pattern would make the default's error misleading.
    // A default naming other variables is checked once they are expanded.
    if (variable.default_value && ErrorCount() == errors_before && !detail::DefaultHasReferences(variable)) {
      std::string problem = ValidateValue(variable, *variable.default_value);
      if (!problem.empty()) {
        Error(default_entry->value_location, "invalid default: " + problem,
              "a default must itself satisfy the variable's type and pattern");
      }
    }
    manifest_.variables.push_back(std::move(variable));
  }

  std::optional<VarType> ParseType(const std::string& text, const Location& location) {
    if (auto type = detail::ParseVarType(text)) return type;
    Error(location, "unknown type " + Quoted(text), detail::KeysHint(text, detail::VarTypeNames(), "valid types"));
    return std::nullopt;
  }

  void ParsePattern(const KeyEntry& entry, Variable* variable) {
    auto text = ScalarOf(entry, "pattern", /*allow_empty=*/false);
    if (!text) return;
    std::string error;
    if (detail::CompiledPattern(*text, &error) == nullptr) {
      Error(entry.value_location, "invalid pattern: " + error,
            "patterns are RE2 expressions matched against the whole value");
      return;
    }
    variable->pattern = *text;
  }

  void ParseShellMode(const KeyEntry& entry, Variable* variable) {
    auto text = ScalarOf(entry, "shell");
    if (!text) return;
    if (*text == "raw") {
      variable->shell = ShellMode::kRaw;
    } else if (*text == "safe") {
      variable->shell = ShellMode::kSafe;
    } else {
      Error(entry.value_location, "unknown shell mode " + Quoted(*text),
            detail::KeysHint(*text, {"safe", "raw"}, "valid modes (safe is the default)"));
    }
  }

  void ParseEnumValues(const KeyEntry* entry, Variable* variable) {
    if (variable->type != VarType::kEnum) {
      if (entry != nullptr) {
        Error(entry->key_location, "'values' is only valid with type: enum",
              "variable " + Quoted(variable->name) + " is type " + std::string(VarTypeName(variable->type)));
      }
      return;
    }
    if (entry == nullptr) {
      Error(variable->location, "enum variable " + Quoted(variable->name) + " has no 'values'",
            "list the allowed values, e.g.  values: [dev, staging, prod]");
      return;
    }
    if (!entry->value.IsSequence() || entry->value.Items().empty()) {
      Error(entry->value_location, "'values' must be a non-empty list", "e.g.  values: [dev, staging, prod]");
      return;
    }
    for (const YamlRef& item : entry->value.Items()) {
      if (!item.IsScalar()) {
        Error(At(item), "each of 'values' must be a single value");
        continue;
      }
      const std::string& option = item.Scalar();
      if (std::find(variable->enum_values.begin(), variable->enum_values.end(), option) !=
          variable->enum_values.end()) {
        Error(At(item), "value " + Quoted(option) + " is listed twice");
        continue;
      }
      variable->enum_values.push_back(option);
    }
  }

  void ParseDefault(const KeyEntry& entry, Variable* variable) {
    const YamlRef& node = entry.value;
    variable->default_location = entry.value_location;
    if (node.IsNull()) {
      Error(entry.value_location, "the default of " + Quoted(variable->name) + " is null",
            "write default: \"\" for an empty default, or quote the text");
    } else if (node.IsScalar()) {
      variable->default_value = node.Scalar();
    } else if (variable->type == VarType::kYaml) {
      std::string yaml, problem;
      if (!detail::NodeAsYaml(node, &budget_, &yaml, &problem)) {
        Error(entry.value_location, "the default of " + Quoted(variable->name) + " " + problem);
        return;
      }
      variable->default_value = std::move(yaml);
    } else if (variable->type == VarType::kList && node.IsSequence()) {
      std::string joined;
      for (const YamlRef& item : node.Items()) {
        if (!item.IsScalar()) {
          Error(At(item), "list items must be single values");
          return;
        }
        if (!joined.empty()) joined += ',';
        joined += item.Scalar();
      }
      variable->default_value = joined;
    } else {
      Error(entry.value_location, "the default of " + Quoted(variable->name) + " must be a single value",
            "only type: yaml (any node) and type: list (a sequence) take structured defaults");
    }
  }

  // ---- runtime, scripts, shell --------------------------------------------

  void ParseRuntime(const KeyEntry& entry) {
    if (entry.value.IsNull()) return;
    if (!entry.value.IsSequence()) {
      Error(entry.value_location, "'runtime' must be a list of names", "e.g.  runtime: [NODE_IP, HOME]");
      return;
    }
    for (const YamlRef& item : entry.value.Items()) {
      Location location = At(item);
      if (!item.IsScalar() || !detail::IsIdentifier(item.Scalar())) {
        Error(location, "invalid runtime name", "a name is a letter or '_' followed by letters, digits or '_'");
        continue;
      }
      const std::string& name = item.Scalar();
      if (manifest_.Find(name) != nullptr) {
        Error(location, Quoted(name) + " is declared under 'variables' and also listed as runtime",
              "a name is either deploy-time or runtime; remove it from one list (or write $${" + name +
                  "} in the template for one runtime use)");
        continue;
      }
      if (manifest_.IsRuntime(name)) {
        Warning(location, Quoted(name) + " is listed twice under 'runtime'");
        continue;
      }
      manifest_.runtime.push_back(name);
    }
  }

  void ParsePathList(const KeyEntry& entry, std::string_view key, std::vector<std::string>* paths) {
    if (entry.value.IsNull()) return;
    if (!entry.value.IsSequence()) {
      Error(entry.value_location, Quoted(key) + " must be a list of node paths",
            "e.g.  " + std::string(key) + ": [.data.\"entrypoint\"]");
      return;
    }
    for (const YamlRef& item : entry.value.Items()) {
      if (!item.IsScalar() || item.Scalar().empty()) {
        Error(At(item), "each entry of " + Quoted(key) + " must be a node path");
        continue;
      }
      // A path that loads must match: one that silently matched nothing would
      // leave its scripts to the data rules, where a value lands unquoted.
      std::string problem = ScriptPathProblem(item.Scalar());
      if (!problem.empty()) {
        Error(At(item), "invalid path " + Quoted(item.Scalar()) + " in " + Quoted(key) + ": " + problem,
              "paths look like .data.\"entrypoint.sh\" or .spec.containers[*].args[0]");
        continue;
      }
      paths->push_back(item.Scalar());
    }
  }

  // ---- steps --------------------------------------------------------------

  void ParseSteps(const KeyEntry& entry) {
    if (entry.value.IsNull()) return;
    if (!entry.value.IsSequence()) {
      Error(entry.value_location, "'steps' must be a list", "e.g.  steps: [{delete: .spec.template.spec.hostAliases}]");
      return;
    }
    for (const YamlRef& item : entry.value.Items()) ParseStep(item);
  }

  std::optional<std::string> PathOf(const KeyEntry& entry, std::string_view key) {
    auto text = ScalarOf(entry, key, /*allow_empty=*/false);
    if (!text) return std::nullopt;
    std::string problem = CheckStepPath(*text);
    if (!problem.empty()) {
      Error(entry.value_location, "invalid path " + Quoted(*text) + ": " + problem,
            "paths look like .spec.template.spec.containers[0], [*] or [name=app]");
      return std::nullopt;
    }
    return text;
  }

  void ParseStep(const YamlRef& node) {
    Location location = At(node);
    if (!node.IsMap()) {
      Error(location, "a step must be a mapping", "e.g.  - delete: .spec.template.spec.hostAliases");
      return;
    }
    const std::size_t errors_before = ErrorCount();
    KeyMap keys = CollectKeys(node, kStepKeys, "a step");
    Step step;
    step.location = location;
    std::vector<std::string_view> actions;
    for (std::string_view action : kActionKeys) {
      if (Get(keys, action) != nullptr) actions.push_back(action);
    }
    if (actions.empty()) {
      // Unknown keys were already reported; a typo'd action needs no second error.
      if (ErrorCount() == errors_before) {
        Error(location, "a step needs an action", "add one of merge: FILE, delete: PATH, set: PATH");
      }
      return;
    }
    if (actions.size() > 1) {
      Error(Get(keys, actions[1])->key_location,
            "a step has exactly one action; this one has both " + Quoted(actions[0]) + " and " + Quoted(actions[1]),
            "split it into two steps");
      return;
    }
    const std::string_view action = actions[0];
    const KeyEntry& action_entry = *Get(keys, action);
    if (action == "merge") {
      step.action = Step::Action::kMerge;
      if (auto file = ScalarOf(action_entry, "merge", /*allow_empty=*/false)) step.fragment_file = ResolveFragment(*file);
      if (const KeyEntry* into = Get(keys, "into")) {
        step.path = PathOf(*into, "into").value_or("");
      } else {
        Error(action_entry.key_location, "'merge' needs 'into: PATH', the node the fragment merges into",
              "e.g.  into: .spec.template.spec.containers[0]");
      }
    } else if (action == "delete") {
      step.action = Step::Action::kDelete;
      step.path = PathOf(action_entry, "delete").value_or("");
    } else {
      step.action = Step::Action::kSet;
      step.path = PathOf(action_entry, "set").value_or("");
      if (const KeyEntry* value = Get(keys, "value")) {
        if (std::string problem; !detail::NodeAsYaml(value->value, &budget_, &step.value, &problem)) {
          Error(value->value_location, "the value of the step " + problem);
        }
      } else {
        Error(action_entry.key_location, "'set' needs 'value:', the YAML to write at the path");
      }
    }
    RejectUnless(keys, "into", action == "merge", "'into' only goes with 'merge'");
    RejectUnless(keys, "append", action == "merge", "'append' only goes with 'merge'");
    RejectUnless(keys, "value", action == "set", "'value' only goes with 'set'");
    if (const KeyEntry* e = Get(keys, "append"); e != nullptr && action == "merge") {
      step.append = BoolOf(*e, "append").value_or(false);
    }
    if (const KeyEntry* e = Get(keys, "optional")) step.optional = BoolOf(*e, "optional").value_or(false);
    if (const KeyEntry* e = Get(keys, "when")) ParseWhen(*e, &step.when);
    if (const KeyEntry* e = Get(keys, "match")) ParseMatch(*e, &step.match);
    manifest_.steps.push_back(std::move(step));
  }

  void RejectUnless(const KeyMap& keys, std::string_view key, bool allowed, std::string message) {
    if (const KeyEntry* e = Get(keys, key); e != nullptr && !allowed) Error(e->key_location, std::move(message));
  }

  std::string ResolveFragment(const std::string& file) const {
    std::filesystem::path path(file);
    if (path.is_absolute() || manifest_.directory.empty()) return path.lexically_normal().string();
    return (std::filesystem::path(manifest_.directory) / path).lexically_normal().string();
  }

  void ParseWhen(const KeyEntry& entry, std::vector<Condition>* conditions) {
    if (entry.value.IsMap()) {
      ParseCondition(entry.value, conditions);
    } else if (entry.value.IsSequence()) {
      for (const YamlRef& item : entry.value.Items()) {
        if (item.IsMap()) {
          ParseCondition(item, conditions);
        } else {
          Error(At(item), "each condition must be a mapping", "e.g.  - {var: APP, not_in: EXCLUDED_APPS}");
        }
      }
    } else {
      Error(entry.value_location, "'when' must be a condition or a list of conditions",
            "e.g.  when: {var: APP, not_in: EXCLUDED_APPS}");
    }
  }

  void ParseCondition(const YamlRef& node, std::vector<Condition>* conditions) {
    Condition condition;
    condition.location = At(node);
    const std::size_t errors_before = ErrorCount();
    KeyMap keys = CollectKeys(node, kConditionKeys, "a condition");
    const KeyEntry* var = Get(keys, "var");
    if (var == nullptr) {
      Error(condition.location, "a condition needs 'var: NAME'", "e.g.  {var: APP, not_in: EXCLUDED_APPS}");
    } else if (auto name = ScalarOf(*var, "var", /*allow_empty=*/false)) {
      condition.var = *name;
      CheckConditionVariable(*name, var->value_location);
    }
    std::vector<std::string_view> ops;
    for (std::string_view op : kConditionOps) {
      if (Get(keys, op) != nullptr) ops.push_back(op);
    }
    if (ops.empty()) {
      Error(condition.location, "a condition needs one test",
            "add one of in: LIST, not_in: LIST, equals: TEXT, not_equals: TEXT, set: true|false");
    } else if (ops.size() > 1) {
      Error(Get(keys, ops[1])->key_location,
            "a condition has one test; this one has both " + Quoted(ops[0]) + " and " + Quoted(ops[1]),
            "list several conditions under 'when' (all must hold)");
    } else {
      ParseConditionTest(ops[0], *Get(keys, ops[0]), &condition);
    }
    if (ErrorCount() == errors_before) conditions->push_back(std::move(condition));
  }

  void ParseConditionTest(std::string_view op, const KeyEntry& entry, Condition* condition) {
    if (op == "set") {
      if (auto set = BoolOf(entry, "set")) condition->op = *set ? Condition::Op::kIsSet : Condition::Op::kIsUnset;
      return;
    }
    if (op == "equals" || op == "not_equals") {
      condition->op = op == "equals" ? Condition::Op::kEquals : Condition::Op::kNotEquals;
      if (entry.value.IsNull()) {
        Error(entry.value_location, Quoted(op) + " needs a value", "write " + std::string(op) + ": \"\" to test for empty");
        return;
      }
      condition->operand = ScalarOf(entry, op).value_or("");
      return;
    }
    condition->op = op == "in" ? Condition::Op::kIn : Condition::Op::kNotIn;
    auto list = ScalarOf(entry, op, /*allow_empty=*/false);
    if (!list) return;
    condition->operand = *list;
    const Variable* variable = manifest_.Find(*list);
    if (variable == nullptr) {
      Error(entry.value_location, Quoted(op) + " names " + Quoted(*list) + ", which is not a declared variable",
            UndeclaredHint(*list, "declare it under 'variables' with type: list"));
    } else if (variable->type != VarType::kList) {
      Error(entry.value_location,
            Quoted(op) + " needs a list variable; " + Quoted(*list) + " is type " +
                std::string(VarTypeName(variable->type)),
            "declare it with type: list, or use equals/not_equals for a single value");
    }
  }

  void CheckConditionVariable(const std::string& name, const Location& location) {
    if (manifest_.Find(name) != nullptr) return;
    if (manifest_.IsRuntime(name)) {
      Error(location, "condition on runtime name " + Quoted(name),
            "conditions test deploy-time values; declare it under 'variables' instead of 'runtime'");
      return;
    }
    Error(location, "condition on undeclared variable " + Quoted(name),
          UndeclaredHint(name, "declare it under 'variables'"));
  }

  std::string UndeclaredHint(const std::string& name, std::string advice) {
    std::string_view close = suggester_.Suggest(name);
    if (!close.empty()) return "did you mean '" + std::string(close) + "'? or " + advice;
    return advice;
  }

  void ParseMatch(const KeyEntry& entry, DocumentMatch* match) {
    if (!entry.value.IsMap()) {
      Error(entry.value_location, "'match' must be a mapping", "e.g.  match: {kind: Deployment, name: web}");
      return;
    }
    KeyMap keys = CollectKeys(entry.value, kMatchKeys, "'match'");
    if (const KeyEntry* e = Get(keys, "kind")) match->kind = ScalarOf(*e, "kind", false).value_or("");
    if (const KeyEntry* e = Get(keys, "name")) match->name = ScalarOf(*e, "name", false).value_or("");
    const KeyEntry* labels = Get(keys, "labels");
    if (labels == nullptr) return;
    if (!labels->value.IsMap()) {
      Error(labels->value_location, "'labels' must be a mapping of label: value", "e.g.  labels: {app: web}");
      return;
    }
    for (const auto& [key_node, value_node] : labels->value.Entries()) {
      if (!key_node.IsScalar() || !value_node.IsScalar()) {
        Error(At(key_node), "each label must be a single key and value");
        continue;
      }
      match->labels.emplace_back(key_node.Scalar(), value_node.Scalar());
    }
  }

  std::size_t ErrorCount() const {
    return static_cast<std::size_t>(std::count_if(diagnostics_.begin(), diagnostics_.end(),
                                                  [](const Diagnostic& d) { return d.severity == Severity::kError; }));
  }

  std::string file_;
  Manifest& manifest_;
  Diagnostics& diagnostics_;
  detail::NameSuggester suggester_{manifest_.variables};
  detail::ExpansionBudget budget_;  // for every structured value of the manifest together
};

void SortByLocation(Diagnostics* diagnostics) {
  std::stable_sort(diagnostics->begin(), diagnostics->end(), [](const Diagnostic& a, const Diagnostic& b) {
    if (a.location.line != b.location.line) return a.location.line < b.location.line;
    return a.location.column < b.location.column;
  });
}

}  // namespace

Result<Manifest> ParseManifest(std::string_view text, const std::string& file) {
  Result<Manifest> result;
  Manifest manifest;
  manifest.file = file;
  manifest.directory = std::filesystem::path(file).parent_path().string();
  const std::string shown_file = file.empty() ? "<manifest>" : file;
  detail::YamlStream stream;
  if (detail::YamlParseError error; !detail::ParseYamlStream(text, &stream, &error)) {
    result.diagnostics.push_back(
        MakeError(detail::ParseErrorLocation(error, shown_file), "invalid YAML: " + error.message));
  } else if (!stream.documents.empty()) {
    if (stream.documents.size() > 1) {
      result.diagnostics.push_back(MakeError(YamlRef(stream, stream.documents[1]).At(shown_file),
                                             "a manifest is a single YAML document",
                                             "remove the '---' separator and merge the documents"));
    }
    ManifestParser parser(file, &manifest, &result.diagnostics);
    parser.Parse(YamlRef(stream, stream.documents[0]));
    if (!HasErrors(result.diagnostics)) {
      Diagnostics references = detail::CheckDefaultReferences(manifest);
      result.diagnostics.insert(result.diagnostics.end(), references.begin(), references.end());
    }
  }
  SortByLocation(&result.diagnostics);
  if (!HasErrors(result.diagnostics)) result.value = std::move(manifest);
  return result;
}

Result<Manifest> LoadManifestFile(const std::string& path, std::size_t max_bytes) {
  std::string text;
  if (std::string error = detail::ReadFileBounded(path, max_bytes, "--max-manifest-size", &text); !error.empty()) {
    Result<Manifest> result;
    result.diagnostics.push_back(MakeError(Location{path}, "cannot read manifest " + Quoted(path) + ": " + error,
                                           "check the -m/--manifest path or SAFESUBST_MANIFEST"));
    return result;
  }
  Result<Manifest> result = ParseManifest(text, path);
  if (!result.value) return result;
  // A missing fragment is caught here, at the step that names it, rather than
  // at render time.
  for (const Step& step : result.value->steps) {
    if (step.action != Step::Action::kMerge) continue;
    std::error_code error;
    const std::filesystem::file_status status = std::filesystem::status(step.fragment_file, error);
    if (std::filesystem::is_regular_file(status)) continue;
    const std::string problem = !std::filesystem::exists(status)      ? " does not exist"
                                : std::filesystem::is_directory(status) ? " is a directory, not a YAML file"
                                                                        : " is not a regular file";
    result.diagnostics.push_back(MakeError(step.location, "fragment file " + Quoted(step.fragment_file) + problem,
                                           "merge paths are relative to the manifest's directory"));
  }
  if (HasErrors(result.diagnostics)) result.value.reset();
  return result;
}

Manifest ManifestFromShellFormat(std::string_view shell_format) {
  Manifest manifest;
  manifest.mode = DeclarationMode::kShellFormat;
  ScanReferences(
      shell_format, 0, shell_format.size(),
      [&manifest](const Reference& reference) {
        const bool declares = TraitsOf(reference.kind).WritesValue() && !reference.name.empty();
        if (!declares || manifest.Find(reference.name) != nullptr) return;
        Variable variable;
        variable.name = std::string(reference.name);
        manifest.variables.push_back(std::move(variable));
      },
      [](std::size_t) {});
  return manifest;
}

}  // namespace safesubst
