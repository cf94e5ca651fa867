// SPDX-License-Identifier: Apache-2.0
#include "yaml_emit.h"

#include <algorithm>
#include <vector>

#include "yaml_encoding.h"

#include "yaml_node_set.h"
#include "yaml_node_writer.h"
#include "yaml_tree.h"

namespace safesubst::detail {
namespace {

std::string Spaces(int count) { return std::string(static_cast<std::size_t>(std::max(count, 0)), ' '); }

// A string that a literal block scalar (`|` or `|-`) carries exactly: more
// than one line, what any block carries (FitsBlock: no carriage returns, no
// YAML 1.1 line breaks, printable), no lines of only spaces (a block reads
// those as empty lines), not only line breaks, not starting with a space, and
// at most one final line break: `|+` would also take in any blank lines that
// happen to follow it in the document.
bool FitsLiteralBlock(std::string_view text) {
  if (text.find('\n') == std::string_view::npos || !FitsBlock(text)) return false;
  if (text.find_first_not_of('\n') == std::string_view::npos) return false;
  if (text.size() >= 2 && text.substr(text.size() - 2) == "\n\n") return false;
  if (text[text.find_first_not_of('\n')] == ' ') return false;
  std::size_t line_start = 0;
  while (line_start <= text.size()) {
    std::size_t line_end = text.find('\n', line_start);
    if (line_end == std::string_view::npos) line_end = text.size();
    std::string_view line = text.substr(line_start, line_end - line_start);
    if (!line.empty() && line.find_first_not_of(' ') == std::string_view::npos) return false;
    line_start = line_end + 1;
  }
  return true;
}

std::string LiteralBlock(std::string_view text, int content_column, const std::string& eol) {
  const std::size_t trailing = !text.empty() && text.back() == '\n' ? 1 : 0;  // FitsLiteralBlock: at most one
  std::string out = trailing == 0 ? "|-" : "|";
  std::string_view body = text.substr(0, text.size() - trailing);
  std::size_t line_start = 0;
  while (line_start <= body.size()) {
    std::size_t line_end = body.find('\n', line_start);
    if (line_end == std::string_view::npos) line_end = body.size();
    std::string_view line = body.substr(line_start, line_end - line_start);
    out += eol;
    if (!line.empty()) out += Spaces(content_column) + std::string(line);
    line_start = line_end + 1;
  }
  return out;
}

// yaml-cpp shares an aliased node, so writing a node out follows each alias
// again. The guard keeps the path from the root (a node inside itself, or
// nesting past kMaxWriteDepth, stops the write) and counts the nodes written
// a second time, in this write or under one written a second time: what
// aliases add, against kMaxExpandedNodes. yaml-cpp's node does not say it is
// an alias; it is the same node object (YamlNodeSet).
class ExpansionGuard {
 public:
  // `expansion`: the count, shared by the writes of one step.
  explicit ExpansionGuard(EmitExpansion* expansion) : expansion_(*expansion) {}

  // Throws NodeNotEmittable when a bound is passed.
  void Enter(const YAML::Node& node) {
    if (path_.size() >= kMaxWriteDepth) {
      throw NodeNotEmittable("it nests more than " + std::to_string(kMaxWriteDepth) + " levels deep");
    }
    for (const Step& step : path_) {
      if (step.node.is(node)) throw NodeNotEmittable("it holds an alias to itself");
    }
    const bool expanded = (!path_.empty() && path_.back().expanded) || !written_.Insert(node);
    if (expanded && ++expansion_.nodes > kMaxExpandedNodes) {
      throw NodeNotEmittable("its aliases expand to more than " + std::to_string(kMaxExpandedNodes) + " nodes");
    }
    // A byte a node, its tag and text, and the indentation a level adds.
    if (expanded) {
      expansion_.bytes += 1 + node.Tag().size() + (node.IsScalar() ? node.Scalar().size() : 0) + 2 * path_.size();
    }
    if (expansion_.bytes > kMaxExpandedBytes) {
      throw NodeNotEmittable("its aliases expand to more than " + std::to_string(kMaxExpandedBytes) + " bytes");
    }
    path_.push_back(Step{node, expanded});
  }
  void Leave() { path_.pop_back(); }

 private:
  struct Step {
    YAML::Node node;
    bool expanded;
  };

  EmitExpansion& expansion_;
  std::vector<Step> path_;
  YamlNodeSet written_;
};

void EmitInto(const YAML::Node& node, const EmitTarget& target, ExpansionGuard& guard, std::string* out);

// Column where the content of a block collection in this slot starts, and
// whether its first line continues the current one.
int ContentColumn(const EmitTarget& target, bool is_sequence) {
  switch (target.slot) {
    case SlotKind::kRoot: return 0;
    case SlotKind::kSeqItem: return target.parent_column + 2;
    case SlotKind::kMapValue:
      return target.parent_column + (is_sequence && target.compact_sequences ? 0 : static_cast<int>(target.indent_step));
  }
  return 0;
}

void EmitMap(const YAML::Node& node, const EmitTarget& target, ExpansionGuard& guard, std::string* out) {
  if (node.size() == 0) {
    *out += target.slot == SlotKind::kRoot ? "{}" : " {}";
    return;
  }
  const int column = ContentColumn(target, false);
  bool first = true;
  for (auto it = node.begin(); it != node.end(); ++it) {
    if (first && target.slot == SlotKind::kSeqItem) {
      *out += ' ';
    } else if (!(first && target.slot == SlotKind::kRoot)) {
      *out += target.eol + Spaces(column);
    }
    first = false;
    // Block style has no simple way to write `[a, b]: c`; writing the key's
    // empty Scalar() would silently turn it into "".
    if (!it->first.IsScalar()) throw NodeNotEmittable("a non-scalar key is not supported there");
    *out += EmitKey(it->first.Scalar());
    *out += ':';
    EmitTarget child = target;
    child.slot = SlotKind::kMapValue;
    child.parent_column = column;
    EmitInto(it->second, child, guard, out);
  }
}

void EmitSeq(const YAML::Node& node, const EmitTarget& target, ExpansionGuard& guard, std::string* out) {
  if (node.size() == 0) {
    *out += target.slot == SlotKind::kRoot ? "[]" : " []";
    return;
  }
  const int column = ContentColumn(target, true);
  for (std::size_t i = 0; i < node.size(); ++i) {
    if (i == 0 && target.slot == SlotKind::kSeqItem) {
      *out += ' ';
    } else if (!(i == 0 && target.slot == SlotKind::kRoot)) {
      *out += target.eol + Spaces(column);
    }
    *out += '-';
    EmitTarget child = target;
    child.slot = SlotKind::kSeqItem;
    child.parent_column = column;
    EmitInto(node[i], child, guard, out);
  }
}

void EmitScalar(const YAML::Node& node, const EmitTarget& target, std::string* out) {
  const std::string prefix = target.slot == SlotKind::kRoot ? "" : " ";
  const bool quoted_string = node.Tag() == "!" || node.Tag() == "tag:yaml.org,2002:str";
  if (quoted_string && FitsLiteralBlock(node.Scalar())) {
    int content_column = target.slot == SlotKind::kRoot ? static_cast<int>(target.indent_step)
                                                        : target.parent_column + static_cast<int>(target.indent_step);
    *out += prefix;
    if (node.Tag() != "!") *out += TagText(node.Tag()) + " ";
    *out += LiteralBlock(node.Scalar(), content_column, target.eol);
    return;
  }
  *out += prefix + EmitInlineScalar(node);
}

void EmitInto(const YAML::Node& node, const EmitTarget& target, ExpansionGuard& guard, std::string* out) {
  guard.Enter(node);
  switch (node.Type()) {
    case YAML::NodeType::Map: EmitMap(node, target, guard, out); break;
    case YAML::NodeType::Sequence: EmitSeq(node, target, guard, out); break;
    case YAML::NodeType::Scalar: EmitScalar(node, target, out); break;
    default:
      if (target.slot == SlotKind::kRoot) *out += "null";
      break;  // null: `key:` / `-` with nothing after it
  }
  guard.Leave();
}

}  // namespace

std::string EmitInlineScalar(const YAML::Node& scalar) {
  if (scalar.IsNull()) return "null";
  const std::string& text = scalar.Scalar();
  const bool plain = FitsPlain(text, /*in_flow=*/false);
  if (scalar.Tag() == "?") return plain ? text : DoubleQuoted(text);
  if (scalar.Tag() == "!") return DoubleQuoted(text);
  std::string value = plain ? text : DoubleQuoted(text);
  return TagText(scalar.Tag()) + " " + value;
}

std::string EmitKey(std::string_view key) {
  if (FitsPlain(key, /*in_flow=*/false) && ResolvePlain(key) == PlainKind::kString) return std::string(key);
  return DoubleQuoted(key);
}

std::string EmitSlotText(const YAML::Node& node, const EmitTarget& target, EmitExpansion* expansion) {
  EmitExpansion own_count;
  std::string out;
  ExpansionGuard guard(expansion != nullptr ? expansion : &own_count);
  EmitInto(node, target, guard, &out);
  return out;
}

}  // namespace safesubst::detail
