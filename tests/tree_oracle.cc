// SPDX-License-Identifier: Apache-2.0
#include "tree_oracle.h"

#include <cctype>
#include <optional>
#include <string_view>
#include <regex>

#include <yaml-cpp/depthguard.h>

#include "step_conditions.h"
#include "yaml_path.h"
#include "yaml_load.h"

namespace safesubst::testing {
namespace {

using detail::PathSelector;

int g_checks = 0;

YAML::Node FindValue(const YAML::Node& map, const std::string& key) {
  if (!map.IsDefined() || !map.IsMap()) return YAML::Node(YAML::NodeType::Undefined);
  for (auto it = map.begin(); it != map.end(); ++it) {
    if (it->first.IsScalar() && it->first.Scalar() == key) return it->second;
  }
  return YAML::Node(YAML::NodeType::Undefined);
}

bool HasKey(const YAML::Node& map, const std::string& key) {
  for (auto it = map.begin(); it != map.end(); ++it) {
    if (it->first.IsScalar() && it->first.Scalar() == key) return true;
  }
  return false;
}

// Which children of `node` a selector picks: keys for a mapping, indexes for a sequence.
struct Picked {
  std::vector<std::string> keys;
  std::vector<std::size_t> indexes;
  bool any() const { return !keys.empty() || !indexes.empty(); }
};

Picked Pick(const YAML::Node& node, const PathSelector& selector) {
  Picked picked;
  switch (selector.kind) {
    case PathSelector::Kind::kKey:
      if (node.IsMap() && HasKey(node, selector.key)) picked.keys.push_back(selector.key);
      break;
    case PathSelector::Kind::kIndex:
      if (node.IsSequence()) {
        auto size = static_cast<std::int64_t>(node.size());
        std::int64_t at = selector.index < 0 ? size + selector.index : selector.index;
        if (at >= 0 && at < size) picked.indexes.push_back(static_cast<std::size_t>(at));
      }
      break;
    case PathSelector::Kind::kAll:
      if (node.IsSequence()) {
        for (std::size_t i = 0; i < node.size(); ++i) picked.indexes.push_back(i);
      }
      break;
    case PathSelector::Kind::kMatch:
      if (node.IsSequence()) {
        for (std::size_t i = 0; i < node.size(); ++i) {
          const YAML::Node item = node[i];
          if (!item.IsMap()) continue;
          YAML::Node field = FindValue(item, selector.key);
          if (field.IsDefined() && field.IsScalar() && field.Scalar() == selector.value) picked.indexes.push_back(i);
        }
      }
      break;
  }
  return picked;
}

// Rebuilds `node` with `change` applied to the picked children.
template <typename Change>
YAML::Node RebuildChildren(const YAML::Node& node, const Picked& picked, Change change) {
  if (node.IsMap()) {
    YAML::Node out(YAML::NodeType::Map);
    for (auto it = node.begin(); it != node.end(); ++it) {
      bool hit = it->first.IsScalar() &&
                 std::find(picked.keys.begin(), picked.keys.end(), it->first.Scalar()) != picked.keys.end();
      if (!hit) {
        out.force_insert(YAML::Clone(it->first), YAML::Clone(it->second));
      } else if (std::optional<YAML::Node> changed = change(it->second)) {
        out.force_insert(YAML::Clone(it->first), *changed);
      }
    }
    return out;
  }
  YAML::Node out(YAML::NodeType::Sequence);
  for (std::size_t i = 0; i < node.size(); ++i) {
    bool hit = std::find(picked.indexes.begin(), picked.indexes.end(), i) != picked.indexes.end();
    if (!hit) {
      out.push_back(YAML::Clone(node[i]));
    } else if (std::optional<YAML::Node> changed = change(node[i])) {
      out.push_back(*changed);
    }
  }
  return out;
}

struct MergeError {
  std::string message;
};

YAML::Node MergeTrees(const YAML::Node& target, const YAML::Node& fragment, bool append, bool top,
                      std::optional<MergeError>* error) {
  if (target.IsMap() && fragment.IsMap()) {
    YAML::Node out(YAML::NodeType::Map);
    for (auto it = target.begin(); it != target.end(); ++it) {
      YAML::Node value = it->first.IsScalar() ? FindValue(fragment, it->first.Scalar()) : YAML::Node();
      if (value.IsDefined() && it->first.IsScalar() && HasKey(fragment, it->first.Scalar())) {
        out.force_insert(YAML::Clone(it->first), MergeTrees(it->second, value, append, false, error));
      } else {
        out.force_insert(YAML::Clone(it->first), YAML::Clone(it->second));
      }
    }
    for (auto it = fragment.begin(); it != fragment.end(); ++it) {
      if (!HasKey(target, it->first.Scalar())) out.force_insert(YAML::Clone(it->first), YAML::Clone(it->second));
    }
    return out;
  }
  if (target.IsSequence() && fragment.IsSequence()) {
    if (!append) return YAML::Clone(fragment);
    YAML::Node out = YAML::Clone(target);
    for (std::size_t i = 0; i < fragment.size(); ++i) out.push_back(YAML::Clone(fragment[i]));
    return out;
  }
  const bool collections = target.IsMap() || target.IsSequence() || fragment.IsMap() || fragment.IsSequence();
  if (top && !target.IsNull() && collections && !*error) {
    *error = MergeError{"kind mismatch at the merge target"};
  }
  return YAML::Clone(fragment);
}

// A key named in a path is a string, whatever it looks like (`"true"`, `"8080"`).
YAML::Node StringKey(const std::string& key) {
  YAML::Node node(key);
  node.SetTag("!");
  return node;
}

// One step on one document tree.
class TreeStep {
 public:
  TreeStep(const Step& step, const detail::YamlPath& path, const YAML::Node& value) : step_(step), path_(path), value_(value) {}

  // Returns the new tree; sets matched/error.
  YAML::Node Apply(const YAML::Node& root) {
    if (path_.selectors.empty()) return ApplyAtRoot(root);
    return Walk(root, 0);
  }

  std::size_t matched() const { return matched_; }
  const std::optional<MergeError>& error() const { return error_; }

 private:
  YAML::Node ApplyAtRoot(const YAML::Node& root) {
    switch (step_.action) {
      case Step::Action::kDelete:
        error_ = MergeError{"cannot delete the root"};
        return root;
      case Step::Action::kSet:
        ++matched_;
        return YAML::Clone(value_);
      case Step::Action::kMerge:
        ++matched_;
        return MergeTrees(root, value_, step_.append, true, &error_);
    }
    return root;
  }

  YAML::Node Walk(const YAML::Node& node, std::size_t depth) {
    const PathSelector& selector = path_.selectors[depth];
    const bool last = depth + 1 == path_.selectors.size();
    if (last && step_.action == Step::Action::kSet && selector.kind == PathSelector::Kind::kKey) {
      return SetKey(node, selector.key);
    }
    Picked picked = Pick(node, selector);
    if (!picked.any()) return YAML::Clone(node);
    if (!last) {
      return RebuildChildren(node, picked, [&](const YAML::Node& child) -> std::optional<YAML::Node> {
        return Walk(child, depth + 1);
      });
    }
    matched_ += picked.keys.size() + picked.indexes.size();
    return RebuildChildren(node, picked, [&](const YAML::Node& child) -> std::optional<YAML::Node> {
      switch (step_.action) {
        case Step::Action::kDelete: return std::nullopt;
        case Step::Action::kSet: return YAML::Clone(value_);
        case Step::Action::kMerge: return MergeTrees(child, value_, step_.append, true, &error_);
      }
      return std::nullopt;
    });
  }

  YAML::Node SetKey(const YAML::Node& node, const std::string& key) {
    if (node.IsNull()) {
      ++matched_;
      YAML::Node out(YAML::NodeType::Map);
      out.force_insert(StringKey(key), YAML::Clone(value_));
      return out;
    }
    if (!node.IsMap()) return YAML::Clone(node);
    ++matched_;
    if (HasKey(node, key)) {
      Picked picked;
      picked.keys.push_back(key);
      return RebuildChildren(node, picked, [&](const YAML::Node&) -> std::optional<YAML::Node> { return YAML::Clone(value_); });
    }
    YAML::Node out = YAML::Clone(node);
    out.force_insert(StringKey(key), YAML::Clone(value_));
    return out;
  }

  const Step& step_;
  const detail::YamlPath& path_;
  const YAML::Node& value_;
  std::size_t matched_ = 0;
  std::optional<MergeError> error_;
};

bool HasMatch(const DocumentMatch& match) { return !match.kind.empty() || !match.name.empty() || !match.labels.empty(); }

bool TreeMatches(const DocumentMatch& match, const YAML::Node& root) {
  if (!root.IsMap()) return false;
  if (!match.kind.empty()) {
    YAML::Node kind = FindValue(root, "kind");
    if (!kind.IsDefined() || !kind.IsScalar() || kind.Scalar() != match.kind) return false;
  }
  YAML::Node metadata = FindValue(root, "metadata");
  if (!match.name.empty()) {
    if (!metadata.IsDefined() || !metadata.IsMap()) return false;
    YAML::Node name = FindValue(metadata, "name");
    if (!name.IsDefined() || !name.IsScalar() || name.Scalar() != match.name) return false;
  }
  for (const auto& [key, value] : match.labels) {
    if (!metadata.IsDefined() || !metadata.IsMap()) return false;
    YAML::Node labels = FindValue(metadata, "labels");
    if (!labels.IsDefined() || !labels.IsMap()) return false;
    YAML::Node label = FindValue(labels, key);
    if (!label.IsDefined() || !label.IsScalar() || label.Scalar() != value) return false;
  }
  return true;
}

std::string ResolvePlainType(const std::string& text) {
  static const std::regex kNull("~|null|Null|NULL|");
  static const std::regex kBool("true|True|TRUE|false|False|FALSE");
  static const std::regex kBool11("y|Y|yes|Yes|YES|n|N|no|No|NO|on|On|ON|off|Off|OFF");
  static const std::regex kInt("[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+|[-+]?0b[01_]+|[-+]?[0-9][0-9_]*(:[0-5]?[0-9])+");
  static const std::regex kFloat(
      "[-+]?(\\.[0-9]+|[0-9][0-9_]*(\\.[0-9_]*)?)([eE][-+]?[0-9]+)?|[-+]?\\.(inf|Inf|INF)|\\.(nan|NaN|NAN)");
  // Most scalars start with a letter that no null, bool or number starts with.
  if (!text.empty() && std::isalpha(static_cast<unsigned char>(text[0])) &&
      std::string_view("nNtTfFyYoO").find(text[0]) == std::string_view::npos) {
    return "str";
  }
  if (std::regex_match(text, kNull)) return "null";
  if (std::regex_match(text, kBool)) return "bool";
  if (std::regex_match(text, kBool11)) return "bool1.1";
  if (std::regex_match(text, kInt)) return "int";
  if (std::regex_match(text, kFloat)) return "float";
  return "str";
}

void AppendQuoted(const std::string& text, std::string* out) {
  *out += '"';
  for (char c : text) {
    if (c == '"' || c == '\\') *out += '\\';
    if (c == '\n') {
      *out += "\\n";
      continue;
    }
    *out += c;
  }
  *out += '"';
}

void AppendCanonical(const YAML::Node& node, std::string* out) {
  switch (node.Type()) {
    case YAML::NodeType::Map: {
      *out += '{';
      for (auto it = node.begin(); it != node.end(); ++it) {
        AppendCanonical(it->first, out);
        *out += ": ";
        AppendCanonical(it->second, out);
        *out += ", ";
      }
      *out += '}';
      return;
    }
    case YAML::NodeType::Sequence:
      *out += '[';
      for (std::size_t i = 0; i < node.size(); ++i) {
        AppendCanonical(node[i], out);
        *out += ", ";
      }
      *out += ']';
      return;
    case YAML::NodeType::Scalar: {
      const std::string& tag = node.Tag();
      // Keys the oracle inserts itself carry no tag: they stand for plain scalars.
      std::string type = tag == "?" || tag.empty() ? ResolvePlainType(node.Scalar()) : tag == "!" ? "str" : tag;
      if (type == "tag:yaml.org,2002:str") type = "str";
      *out += type + ':';
      AppendQuoted(node.Scalar(), out);
      return;
    }
    default:
      *out += "null";
  }
}

}  // namespace

std::string CanonicalForm(const YAML::Node& node) {
  std::string out;
  AppendCanonical(node, &out);
  return out;
}

std::string CanonicalDocuments(const std::vector<YAML::Node>& documents) {
  std::string out;
  for (const YAML::Node& document : documents) out += CanonicalForm(document) + "\n";
  return out;
}

std::string CanonicalStream(std::string_view text) {
  try {
    return CanonicalDocuments(LoadAllDocuments(text));
  } catch (const YAML::Exception& e) {
    return "parse error: " + e.msg;
  }
}

std::vector<YAML::Node> LoadAllDocuments(std::string_view text) {
  // The guarded pass first: LoadAll itself cannot be stopped once it loops.
  detail::CheckAllDocumentsParse(text);
  try {
    return YAML::LoadAll(std::string(text));
  } catch (const YAML::DeepRecursion& error) {
    throw YAML::ParserException(error.mark, detail::DescribeParseError(error));
  }
}

TreeResult ApplyStepsOnTrees(std::string_view rendered, const std::vector<Step>& steps, const StepContext& context) {
  TreeResult result;
  try {
    result.documents = LoadAllDocuments(rendered);
  } catch (const YAML::Exception& e) {
    result.error = "input does not parse: " + e.msg;
    return result;
  }
  for (const Step& step : steps) {
    detail::YamlPath path;
    detail::PathError path_error;
    if (!detail::ParseYamlPath(step.path, &path, &path_error)) {
      result.error = "bad path " + step.path;
      return result;
    }
    if (!step.when.empty()) {
      if (!context.value_of) {
        result.error = "conditions without values";
        return result;
      }
      if (!ConditionsHold(step, context.value_of)) continue;
    }
    YAML::Node value;
    bool value_loaded = false;
    std::size_t selected = 0, total_matched = 0, documents_missed = 0;
    for (YAML::Node& document : result.documents) {
      if (document.IsNull()) continue;
      if (HasMatch(step.match) && !TreeMatches(step.match, document)) continue;
      ++selected;
      if (!value_loaded) {
        std::string text = step.value;
        if (step.action == Step::Action::kMerge) {
          if (!context.load_fragment) {
            result.error = "no fragment loader";
            return result;
          }
          Result<std::string> loaded = context.load_fragment(step);
          if (!loaded.ok()) {
            result.error = "fragment not loaded";
            return result;
          }
          text = *loaded.value;
        }
        try {
          value = YAML::Load(text);
        } catch (const YAML::Exception& e) {
          result.error = "value does not parse: " + e.msg;
          return result;
        }
        if (step.action == Step::Action::kMerge && value.IsNull()) {
          result.error = "the fragment is empty";
          return result;
        }
        value_loaded = true;
      }
      TreeStep tree_step(step, path, value);
      YAML::Node changed = tree_step.Apply(document);
      if (tree_step.error()) {
        result.error = tree_step.error()->message;
        return result;
      }
      if (tree_step.matched() == 0) ++documents_missed;
      total_matched += tree_step.matched();
      document = changed;
    }
    if (step.optional) continue;
    if (HasMatch(step.match) ? (selected == 0 || documents_missed > 0) : (selected > 0 && total_matched == 0)) {
      result.error = "path " + step.path + " matches nothing";
      return result;
    }
  }
  result.ok = true;
  return result;
}

OracleCheck CheckAgainstTrees(std::string_view rendered, const std::vector<Step>& steps, const StepContext& context) {
  ++g_checks;
  OracleCheck check;
  check.engine = ApplySteps(rendered, steps, context);
  TreeResult trees = ApplyStepsOnTrees(rendered, steps, context);
  const bool engine_ok = check.engine.ok();
  if (engine_ok != trees.ok) {
    check.report = engine_ok ? "the engine succeeded but the tree oracle failed: " + trees.error
                             : "the tree oracle succeeded but the engine failed: " +
                                   (check.engine.diagnostics.empty() ? std::string("?")
                                                                     : check.engine.diagnostics[0].message);
    return check;
  }
  if (!engine_ok) {
    check.agree = true;
    return check;
  }
  std::string engine_trees = CanonicalStream(*check.engine.value);
  std::string oracle_trees = CanonicalDocuments(trees.documents);
  if (engine_trees != oracle_trees) {
    check.report = "trees differ\n engine: " + engine_trees + " oracle: " + oracle_trees;
    return check;
  }
  check.agree = true;
  return check;
}

int OracleCheckCount() { return g_checks; }

}  // namespace safesubst::testing
