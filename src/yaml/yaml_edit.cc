// SPDX-License-Identifier: Apache-2.0
#include "yaml_edit.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <utility>
#include <vector>

#include "yaml_layout.h"
#include "yaml_node_writer.h"

namespace safesubst::detail {
namespace {

std::string Spaces(int count) { return std::string(static_cast<std::size_t>(std::max(count, 0)), ' '); }

bool StartsWithBreak(std::string_view text) { return !text.empty() && (text[0] == '\n' || text[0] == '\r'); }

bool OnlyBlanks(std::string_view text, std::size_t begin, std::size_t end) {
  for (std::size_t p = begin; p < end; ++p) {
    if (text[p] != ' ' && text[p] != '\t') return false;
  }
  return true;
}

// Copies text[begin, end) with every line break written as `eol` and the
// indentation of each line changed by `delta` spaces (at most the spaces a
// line has are removed). The first line is only shifted when `shift_first`;
// empty lines stay empty.
std::string Shifted(std::string_view text, std::size_t begin, std::size_t end, int delta, bool shift_first,
                    const std::string& eol) {
  std::string out;
  bool first = true;
  std::size_t line = begin;
  while (line <= end) {
    std::size_t next = text.find('\n', line);
    std::size_t line_end = next == std::string_view::npos || next >= end ? end : next;
    std::size_t content_end = line_end;
    if (content_end > line && text[content_end - 1] == '\r') --content_end;
    std::string_view piece = text.substr(line, content_end - line);
    if (!first) out += eol;
    if ((shift_first || !first) && !piece.empty()) {
      if (delta > 0) {
        out += Spaces(delta);
      } else {
        std::size_t removable = std::min(static_cast<std::size_t>(-delta), piece.find_first_not_of(' ') == std::string_view::npos
                                                                               ? piece.size()
                                                                               : piece.find_first_not_of(' '));
        piece.remove_prefix(removable);
      }
    }
    out += piece;
    first = false;
    if (line_end >= end) break;
    line = line_end + 1;
  }
  return out;
}

// One byte-range replacement. At equal offsets, the deeper edit comes first
// in the text (an entry added to an inner mapping precedes one added to the
// mapping around it when both end on the same line).
struct Edit {
  std::size_t begin = 0;
  std::size_t end = 0;
  std::string text;
  int depth = 0;
  int order = 0;
};

// Applies non-overlapping edits; returns false when two of them overlap.
bool ApplyEdits(std::string_view text, std::vector<Edit> edits, std::string* out) {
  std::stable_sort(edits.begin(), edits.end(), [](const Edit& a, const Edit& b) {
    if (a.begin != b.begin) return a.begin < b.begin;
    const bool a_insert = a.begin == a.end, b_insert = b.begin == b.end;
    if (a_insert != b_insert) return a_insert;  // an insertion before a replacement starting there
    if (a.depth != b.depth) return a.depth > b.depth;
    return a.order < b.order;
  });
  out->clear();
  std::size_t cursor = 0;
  for (const Edit& edit : edits) {
    if (edit.begin < cursor) return false;
    out->append(text.substr(cursor, edit.begin - cursor));
    out->append(edit.text);
    cursor = edit.end;
  }
  out->append(text.substr(cursor));
  return true;
}

BlockStyle DetectStyle(const Layout& layout) {
  BlockStyle style;
  style.eol = layout.eol();
  bool step_found = false, compact_found = false;
  for (std::uint32_t i = 1; i < layout.size() && !(step_found && compact_found); ++i) {
    const LayoutNode& n = layout.node(i);
    if (n.slot_kind != SlotKind::kMapValue) continue;
    const int parent_column = layout.ParentColumn(i);
    if (!step_found && n.kind == LayoutKind::kBlockMap && static_cast<int>(n.column) > parent_column) {
      style.indent_step = static_cast<std::uint32_t>(static_cast<int>(n.column) - parent_column);
      step_found = true;
    }
    if (!compact_found && n.kind == LayoutKind::kBlockSeq) {
      style.compact_sequences = static_cast<int>(n.column) == parent_column;
      compact_found = true;
    }
  }
  return style;
}

EmitTarget EmitTargetFor(const Layout& layout, std::uint32_t index, const BlockStyle& style) {
  return EmitTarget{layout.node(index).slot_kind, layout.ParentColumn(index), style};
}

// The indentation of the first non-empty content line of a block scalar.
int BlockScalarContentIndent(const Layout& layout, std::uint32_t index) {
  const LayoutNode& n = layout.node(index);
  std::string_view text = layout.text();
  std::size_t line = layout.NextLineStart(n.content);
  while (line < n.end) {
    std::size_t line_end = layout.LineEnd(line);
    std::size_t first = line;
    while (first < line_end && text[first] == ' ') ++first;
    if (first < line_end) return static_cast<int>(first - line);
    line = layout.NextLineStart(line_end);
  }
  return 0;
}

bool HasIndentIndicator(const Layout& layout, std::uint32_t index) {
  std::string_view text = layout.text();
  for (std::size_t p = layout.node(index).content + 1; p < text.size(); ++p) {
    if (text[p] >= '0' && text[p] <= '9') return true;
    if (text[p] != '+' && text[p] != '-') return false;
  }
  return false;
}

// Text for a slot (see EmitSlotText for the conventions), and whether its
// last line ends with a comment of its own.
struct SlotText {
  std::string text;
  bool trailing_comment = false;
};

// True when node `index` ends with a `|+` block scalar, whose value would take
// in any blank lines that follow wherever it is written.
bool EndsWithKeptLines(const Layout& layout, std::uint32_t index) {
  while ((layout.node(index).kind == LayoutKind::kBlockMap || layout.node(index).kind == LayoutKind::kBlockSeq) &&
         !layout.node(index).children.empty()) {
    index = layout.node(index).children.back();
  }
  return layout.node(index).keeps_trailing_lines;
}

// True when the line after the one ending at `line_end` is blank.
bool BlankLineFollows(const Layout& layout, std::size_t line_end) {
  std::size_t next = layout.NextLineStart(line_end);
  if (next >= layout.text().size()) return false;
  std::size_t end = layout.LineEnd(next);
  return OnlyBlanks(layout.text(), next, end);
}

// What a planner asks of the driver.
struct Plan {
  enum class Kind : std::uint8_t { kOk, kBlockifyTarget, kBlockifySource, kNoMatch, kError };
  Kind kind = Kind::kOk;
  std::uint32_t node = kNoNode;
  std::string message;
  std::size_t matched = 0;
};

Plan Ok(std::size_t matched) { return Plan{Plan::Kind::kOk, kNoNode, {}, matched}; }
Plan NoMatch(std::string message) { return Plan{Plan::Kind::kNoMatch, kNoNode, std::move(message), 0}; }
Plan Failure(std::string message) { return Plan{Plan::Kind::kError, kNoNode, std::move(message), 0}; }
Plan BlockifyTarget(std::uint32_t node) { return Plan{Plan::Kind::kBlockifyTarget, node, {}, 0}; }
Plan BlockifySource(std::uint32_t node) { return Plan{Plan::Kind::kBlockifySource, node, {}, 0}; }

std::string Named(const std::string& path) { return path == "." ? "the document root" : "`" + path + "`"; }

// The nodes a path selects in a layout.
struct Selection {
  std::vector<std::uint32_t> nodes;
  std::uint32_t blockify = kNoNode;  ///< a flow collection the path must reach into first
  std::string miss;                  ///< why a branch stopped matching
};

Selection Select(const Layout& layout, const std::vector<PathSelector>& selectors, std::size_t count) {
  Selection selection;
  selection.nodes.push_back(0);
  for (std::size_t i = 0; i < count; ++i) {
    const PathSelector& selector = selectors[i];
    const std::string prefix = Named(FormatYamlPath(selectors, i));
    std::vector<std::uint32_t> next;
    auto miss = [&](std::string message) {
      if (selection.miss.empty()) selection.miss = std::move(message);
    };
    for (std::uint32_t index : selection.nodes) {
      const LayoutNode& n = layout.node(index);
      const bool block_map = n.kind == LayoutKind::kBlockMap, flow_map = n.kind == LayoutKind::kFlowMap;
      const bool block_seq = n.kind == LayoutKind::kBlockSeq, flow_seq = n.kind == LayoutKind::kFlowSeq;
      switch (selector.kind) {
        case PathSelector::Kind::kKey: {
          if (block_map) {
            std::uint32_t child = layout.FindKey(index, selector.key);
            if (child != kNoNode) next.push_back(child);
            else miss(prefix + " has no key `" + selector.key + "`");
          } else if (flow_map) {
            if (layout.FlowMapHasKey(index, selector.key)) return Selection{{}, index, {}};
            miss(prefix + " has no key `" + selector.key + "`");
          } else {
            miss(prefix + " is " + layout.KindName(index) + ", not a mapping");
          }
          break;
        }
        case PathSelector::Kind::kIndex: {
          if (!block_seq && !flow_seq) {
            miss(prefix + " is " + layout.KindName(index) + ", not a sequence");
            break;
          }
          const auto size = static_cast<std::int64_t>(layout.ItemCount(index));
          const std::int64_t at = selector.index < 0 ? size + selector.index : selector.index;
          if (at < 0 || at >= size) {
            miss(prefix + " has " + std::to_string(size) + (size == 1 ? " item" : " items") + "; index " +
                 std::to_string(selector.index) + " is out of range");
          } else if (flow_seq) {
            return Selection{{}, index, {}};
          } else {
            next.push_back(n.children[static_cast<std::size_t>(at)]);
          }
          break;
        }
        case PathSelector::Kind::kAll: {
          if (!block_seq && !flow_seq) {
            miss(prefix + " is " + layout.KindName(index) + ", not a sequence");
          } else if (layout.ItemCount(index) == 0) {
            miss(prefix + " is an empty sequence");
          } else if (flow_seq) {
            return Selection{{}, index, {}};
          } else {
            next.insert(next.end(), n.children.begin(), n.children.end());
          }
          break;
        }
        case PathSelector::Kind::kMatch: {
          if (!block_seq && !flow_seq) {
            miss(prefix + " is " + layout.KindName(index) + ", not a sequence");
            break;
          }
          bool any = false;
          if (flow_seq) {
            for (const YamlRef& item : layout.Yaml(index).Items()) {
              const std::optional<YamlRef> field = item.Find(selector.key);
              if (field && field->IsScalar() && field->Scalar() == selector.value) return Selection{{}, index, {}};
            }
          }
          for (std::uint32_t item : n.children) {
            if (!layout.HasScalarField(item, selector.key, selector.value)) continue;
            next.push_back(item);
            any = true;
          }
          if (!any) miss("no item of " + prefix + " has `" + selector.key + ": " + selector.value + "`");
          break;
        }
      }
    }
    selection.nodes = std::move(next);
  }
  return selection;
}

// Plans edits of the target document. `source` is the fragment (merge) or
// the value (set), whose bytes are copied into the target.
class Planner {
 public:
  Planner(const Layout& target, const Layout* source)
      : target_(target), source_(source), style_(DetectStyle(target)) {}

  const std::vector<Edit>& edits() const { return edits_; }

  Plan Delete(const YamlPath& path) {
    if (path.selectors.empty()) return Failure("cannot delete the document root");
    Selection selection = Select(target_, path.selectors, path.selectors.size());
    if (selection.blockify != kNoNode) return BlockifyTarget(selection.blockify);
    if (selection.nodes.empty()) return NoMatch(selection.miss);
    std::map<std::uint32_t, std::set<std::uint32_t>> by_parent;
    for (std::uint32_t index : selection.nodes) by_parent[target_.node(index).parent].insert(index);
    for (const auto& [parent, doomed] : by_parent) RemoveChildren(parent, doomed);
    return Ok(selection.nodes.size());
  }

  Plan Set(const YamlPath& path) {
    const std::uint32_t value = 0;  // the value document's root
    if (path.selectors.empty()) {
      Replace(0, WriteSlot(*source_, value, target_, 0), 0);
      return Ok(1);
    }
    const PathSelector& last = path.selectors.back();
    if (last.kind != PathSelector::Kind::kKey) {
      Selection selection = Select(target_, path.selectors, path.selectors.size());
      if (selection.blockify != kNoNode) return BlockifyTarget(selection.blockify);
      if (selection.nodes.empty()) return NoMatch(selection.miss);
      for (std::uint32_t index : selection.nodes) Replace(index, WriteSlot(*source_, value, target_, index), 0);
      return Ok(selection.nodes.size());
    }
    const std::size_t parents_count = path.selectors.size() - 1;
    Selection parents = Select(target_, path.selectors, parents_count);
    if (parents.blockify != kNoNode) return BlockifyTarget(parents.blockify);
    if (parents.nodes.empty()) return NoMatch(parents.miss);
    std::size_t matched = 0;
    for (std::uint32_t parent : parents.nodes) {
      const LayoutNode& p = target_.node(parent);
      if (p.kind == LayoutKind::kFlowMap && !target_.IsEmptyFlow(parent)) return BlockifyTarget(parent);
      if (SetKey(parent, last.key)) ++matched;
    }
    if (matched == 0) {
      return NoMatch(Named(FormatYamlPath(path.selectors, parents_count)) + " is " +
                     target_.KindName(parents.nodes[0]) + ", not a mapping");
    }
    return Ok(matched);
  }

  Plan Merge(const YamlPath& path, bool append) {
    append_ = append;
    if (source_->empty()) return Failure("the fragment is empty");
    Selection selection = Select(target_, path.selectors, path.selectors.size());
    if (selection.blockify != kNoNode) return BlockifyTarget(selection.blockify);
    if (selection.nodes.empty()) return NoMatch(selection.miss);
    for (std::uint32_t index : selection.nodes) {
      Plan plan = MergeNode(index, 0, 0, path.text);
      if (plan.kind != Plan::Kind::kOk) return plan;
    }
    return Ok(selection.nodes.size());
  }

  // Re-emits flow collection `index` of `layout` in block style.
  static std::vector<Edit> BlockifyEdits(const Layout& layout, std::uint32_t index) {
    Planner planner(layout, nullptr);
    SlotText text{EmitSlotText(layout.Yaml(index), EmitTargetFor(layout, index, planner.style_),
                                  &planner.expansion_),
                  false};
    planner.Replace(index, std::move(text), 0);
    return planner.edits_;
  }

 private:
  void Add(std::size_t begin, std::size_t end, std::string text, int depth) {
    edits_.push_back(Edit{begin, end, std::move(text), depth, static_cast<int>(edits_.size())});
  }

  // Sets `key` of block mapping `parent` to the value document, replacing
  // its value or appending the key; a null or `{}` parent becomes a mapping.
  // Returns false when `parent` is not a mapping.
  bool SetKey(std::uint32_t parent, const std::string& key) {
    const std::uint32_t value = 0;  // the value document's root
    const LayoutNode& p = target_.node(parent);
    if (target_.IsNull(parent) || target_.IsEmptyFlow(parent)) {
      if (p.kind == LayoutKind::kFlowSeq) return false;
      Replace(parent, NewMappingText(parent, key), 0);
      return true;
    }
    if (p.kind != LayoutKind::kBlockMap) return false;
    if (std::uint32_t child = target_.FindKey(parent, key); child != kNoNode) {
      Replace(child, WriteSlot(*source_, value, target_, child), 0);
      return true;
    }
    const int column = static_cast<int>(p.column);
    std::string text = WriteValueAt(*source_, value, SlotKind::kMapValue, column).text;
    if (EndsWithKeptLines(*source_, value) && BlankLineFollows(target_, target_.ExtentEnd(p.children.back()))) {
      text = EmitSlotText(source_->Yaml(value),
                          EmitTarget{SlotKind::kMapValue, column, style_},
                          &expansion_);
    }
    AddAfterLast(parent, target_.eol() + Spaces(column) + EmitKey(key) + ":" + text, 0);
    return true;
  }

  // Replaces the node `index` (what follows its `:` or `-`) with `text`, which
  // follows the slot conventions of EmitSlotText. A comment after the old
  // value on the key line survives when that is safe: nothing is ever left
  // after the last line of a multi-line new value, where it could become part
  // of a block scalar.
  void Replace(std::uint32_t index, SlotText slot_text, int depth) {
    const LayoutNode& n = target_.node(index);
    std::string_view doc = target_.text();
    std::string text = std::move(slot_text.text);
    const bool multi_line = text.find('\n') != std::string::npos;
    // A new value that brings its own comment replaces the old one's.
    const bool drop_tail = multi_line || slot_text.trailing_comment;
    const std::size_t last_line_end = target_.LastLineEnd(index);
    if (n.slot_kind == SlotKind::kRoot) {
      std::size_t begin = n.kind == LayoutKind::kEmpty ? n.slot : n.begin;
      std::string prefix = target_.AtLineStart(begin) ? "" : target_.eol();
      Add(begin, drop_tail ? last_line_end : n.end, prefix + text, depth);
      return;
    }
    const bool below = StartsWithBreak(text);
    const std::size_t key_line_end = target_.LineEnd(n.slot);
    if (n.kind != LayoutKind::kEmpty && target_.LineStart(n.slot) != target_.LineStart(n.begin)) {
      // The old value starts on a later line than its key.
      if (below) {
        Add(key_line_end, last_line_end, std::move(text), depth);
      } else if (!drop_tail && !OnlyBlanks(doc, n.slot, key_line_end)) {
        Add(n.slot, n.slot, std::move(text), depth);
        Add(key_line_end, last_line_end, "", depth);
      } else {
        Add(n.slot, last_line_end, std::move(text), depth);
      }
      return;
    }
    if (!multi_line) {
      Add(n.slot, drop_tail ? last_line_end : n.end, std::move(text), depth);
    } else if (below && target_.SingleLine(index)) {
      if (OnlyBlanks(doc, n.end, key_line_end)) {
        Add(n.slot, key_line_end, std::move(text), depth);
      } else {  // keep the comment after the old value on the key line
        Add(n.slot, n.end, "", depth);
        Add(key_line_end, key_line_end, std::move(text), depth);
      }
    } else {
      Add(n.slot, last_line_end, std::move(text), depth);
    }
  }

  // Appends `text` (starting with a line break) after the last entry or item
  // of block collection `index`.
  void AddAfterLast(std::uint32_t index, std::string text, int depth) {
    const LayoutNode& n = target_.node(index);
    std::size_t at = target_.ExtentEnd(n.children.back());
    Add(at, at, std::move(text), depth);
  }

  void RemoveChildren(std::uint32_t parent, const std::set<std::uint32_t>& doomed) {
    const LayoutNode& p = target_.node(parent);
    if (doomed.size() == p.children.size()) {
      std::string empty = p.kind == LayoutKind::kBlockMap ? "{}" : "[]";
      Replace(parent, SlotText{p.slot_kind == SlotKind::kRoot ? empty : " " + empty, false}, 0);
      return;
    }
    const std::vector<std::uint32_t>& children = p.children;
    for (std::size_t i = 0; i < children.size();) {
      if (doomed.count(children[i]) == 0) {
        ++i;
        continue;
      }
      std::size_t j = i;
      while (j + 1 < children.size() && doomed.count(children[j + 1]) != 0) ++j;
      const LayoutNode& first = target_.node(children[i]);
      if (!target_.AtLineStart(first.entry)) {
        // The first entry shares its line with a `- ` (or `--- `): the next
        // surviving entry moves up into its place.
        Add(first.entry, target_.node(children[j + 1]).entry, "", 0);
      } else {
        Add(target_.ExtentStart(children[i]), target_.NextLineStart(target_.ExtentEnd(children[j])), "", 0);
      }
      i = j + 1;
    }
  }

  // What leads to the first entry of a block collection at `column` in a
  // slot: nothing at the root, a space after a dash, a new line after a key.
  std::string BlockLead(SlotKind slot, int column) const {
    if (slot == SlotKind::kRoot) return "";
    return slot == SlotKind::kSeqItem ? " " : style_.eol + Spaces(column);
  }

  // The text of a new mapping holding `key: <value>` for the slot of `index`.
  SlotText NewMappingText(std::uint32_t index, const std::string& key) {
    const SlotKind slot = target_.node(index).slot_kind;
    const int column = BlockColumn(slot, target_.ParentColumn(index), /*sequence=*/false, style_);
    SlotText value = WriteValueAt(*source_, 0, SlotKind::kMapValue, column);
    value.text = BlockLead(slot, column) + EmitKey(key) + ":" + value.text;
    return value;
  }

  // The text for the slot of target node `index`, copied from node `s` of `source`.
  SlotText WriteSlot(const Layout& source, std::uint32_t s, const Layout& target, std::uint32_t index) {
    const LayoutNode& t = target.node(index);
    if (EndsWithKeptLines(source, s) && BlankLineFollows(target, target.LastLineEnd(index))) {
      return SlotText{EmitSlotText(source.Yaml(s), EmitTargetFor(target, index, style_), &expansion_), false};
    }
    if (t.slot_kind == SlotKind::kRoot) return WriteValueAt(source, s, SlotKind::kRoot, -1);
    return WriteValueAt(source, s, t.slot_kind, target.ParentColumn(index));
  }

  // The text that puts node `s` of `source` in a slot of kind `slot` after a
  // key or dash at `parent_column`. The source's bytes are copied through the
  // end of its last line, so a comment there comes along.
  SlotText WriteValueAt(const Layout& source, std::uint32_t s, SlotKind slot, int parent_column) {
    const LayoutNode& n = source.node(s);
    const std::size_t end = source.LastLineEnd(s);
    SlotText out;
    out.trailing_comment = !OnlyBlanks(source.text(), n.kind == LayoutKind::kEmpty ? n.slot : n.end, end);
    out.text = WriteValueText(source, s, slot, parent_column, end);
    return out;
  }

  std::string WriteValueText(const Layout& source, std::uint32_t s, SlotKind slot, int parent_column,
                             std::size_t end) {
    const LayoutNode& n = source.node(s);
    const std::string& eol = style_.eol;
    std::string_view text = source.text();
    const int source_parent = source.ParentColumn(s);
    const std::string lead = slot == SlotKind::kRoot ? "" : " ";
    if (n.slot_kind == slot && slot != SlotKind::kRoot) {
      // Same kind of slot: copy everything after the source's `:` or `-`.
      return Shifted(text, n.slot, end, parent_column - source_parent, false, eol);
    }
    switch (n.kind) {
      case LayoutKind::kEmpty:
        return (slot == SlotKind::kRoot ? "null" : "") + std::string(text.substr(n.slot, end - n.slot));
      case LayoutKind::kBlockScalar: {
        int delta = HasIndentIndicator(source, s)
                        ? parent_column - source_parent
                        : parent_column + static_cast<int>(style_.indent_step) - BlockScalarContentIndent(source, s);
        if (slot == SlotKind::kRoot) delta = static_cast<int>(style_.indent_step) - BlockScalarContentIndent(source, s);
        return lead + Shifted(text, n.begin, end, delta, false, eol);
      }
      case LayoutKind::kBlockMap:
      case LayoutKind::kBlockSeq: {
        if (source.LineStart(n.begin) != source.LineStart(n.content)) {
          // Properties on a line of their own: emit rather than splice.
          return EmitSlotText(source.Yaml(s), EmitTarget{slot, parent_column, style_}, &expansion_);
        }
        const int column = BlockColumn(slot, parent_column, n.kind == LayoutKind::kBlockSeq, style_);
        return BlockLead(slot, column) + Shifted(text, n.begin, end, column - static_cast<int>(n.column), false, eol);
      }
      default:
        // Scalars, flow collections, aliases: their own bytes; continuation
        // lines keep their depth below the parent.
        return lead + Shifted(text, n.begin, end, parent_column - source_parent, false, eol);
    }
  }

  // The lines of entry or item `s` of `source` (its comments included),
  // re-indented so that its key or dash lands at `column`.
  std::string EntryLines(const Layout& source, std::uint32_t s, int column, std::size_t insert_at) {
    const LayoutNode& n = source.node(s);
    if (EndsWithKeptLines(source, s) && BlankLineFollows(target_, insert_at)) {
      const std::string indicator = n.slot_kind == SlotKind::kMapValue ? EmitKey(n.key) + ":" : "-";
      return Spaces(column) + indicator +
             EmitSlotText(source.Yaml(s), EmitTarget{n.slot_kind, column, style_}, &expansion_);
    }
    const int delta = column - static_cast<int>(source.Column(n.entry));
    if (source.AtLineStart(n.entry)) {
      return Shifted(source.text(), source.ExtentStart(s), source.ExtentEnd(s), delta, true, style_.eol);
    }
    return Spaces(column) + Shifted(source.text(), n.entry, source.ExtentEnd(s), delta, false, style_.eol);
  }

  // Merges fragment node `f` into target node `t`. `depth` orders edits at
  // equal offsets; `path` names the target in messages.
  Plan MergeNode(std::uint32_t t, std::uint32_t f, int depth, const std::string& path) {
    const Layout& fragment = *source_;
    const LayoutNode& tn = target_.node(t);
    const LayoutNode& fn = fragment.node(f);
    if (fragment.IsMapping(f) && target_.IsMapping(t)) {
      if (fragment.IsEmptyFlow(f)) return Ok(1);
      if (target_.IsEmptyFlow(t)) return ReplaceWith(t, f, depth);
      if (tn.kind == LayoutKind::kFlowMap) return BlockifyTarget(t);
      if (fn.kind == LayoutKind::kFlowMap) return BlockifySource(f);
      return MergeMappings(t, f, depth, path);
    }
    if (fragment.IsSequence(f) && target_.IsSequence(t)) {
      if (!append_ || target_.IsEmptyFlow(t)) return ReplaceWith(t, f, depth);
      if (fragment.IsEmptyFlow(f)) return Ok(1);
      if (tn.kind == LayoutKind::kFlowSeq) return BlockifyTarget(t);
      if (fn.kind == LayoutKind::kFlowSeq) return BlockifySource(f);
      std::string text;
      const std::size_t at = target_.ExtentEnd(tn.children.back());
      for (std::uint32_t item : fn.children) {
        text += style_.eol + EntryLines(fragment, item, static_cast<int>(tn.column), at);
      }
      AddAfterLast(t, std::move(text), depth);
      return Ok(1);
    }
    if (depth == 0) {
      const bool target_collection = target_.IsMapping(t) || target_.IsSequence(t);
      const bool fragment_collection = fragment.IsMapping(f) || fragment.IsSequence(f);
      if (!target_.IsNull(t) && (target_collection || fragment_collection)) {
        return Failure("cannot merge " + fragment.KindName(f) + " fragment into " + Named(path) + ", which is " +
                       target_.KindName(t));
      }
    }
    return ReplaceWith(t, f, depth);  // the fragment wins
  }

  Plan ReplaceWith(std::uint32_t t, std::uint32_t f, int depth) {
    Replace(t, WriteSlot(*source_, f, target_, t), depth);
    return Ok(1);
  }

  Plan MergeMappings(std::uint32_t t, std::uint32_t f, int depth, const std::string& path) {
    const Layout& fragment = *source_;
    std::string added;
    for (std::uint32_t child : fragment.node(f).children) {
      const std::string& key = fragment.node(child).key;
      std::uint32_t existing = target_.FindKey(t, key);
      if (existing == kNoNode) {
        added += style_.eol + EntryLines(fragment, child, static_cast<int>(target_.node(t).column),
                                         target_.ExtentEnd(target_.node(t).children.back()));
        continue;
      }
      PathSelector selector;
      selector.key = key;
      Plan plan = MergeNode(existing, child, depth + 1, (path == "." ? "" : path) + FormatSelector(selector));
      if (plan.kind != Plan::Kind::kOk) return plan;
    }
    if (!added.empty()) AddAfterLast(t, std::move(added), depth);
    return Ok(1);
  }

  const Layout& target_;
  const Layout* source_;
  BlockStyle style_;
  std::vector<Edit> edits_;
  bool append_ = false;
  // What aliases add to everything this plan writes out (EmitSlotText):
  // one bound for a fragment merged into many places. Counted from const
  // helpers, hence mutable.
  mutable ExpansionBudget expansion_;
};

EditOutcome Error(EditOutcome::Source source, const LayoutError& error) {
  EditOutcome outcome;
  outcome.status = EditOutcome::Status::kError;
  outcome.source = source;
  outcome.message = error.message;
  outcome.offset = error.offset;
  outcome.has_offset = true;
  return outcome;
}

EditOutcome Error(std::string message) {
  EditOutcome outcome;
  outcome.status = EditOutcome::Status::kError;
  outcome.message = std::move(message);
  return outcome;
}

// Scans `text` the way `reading` asks.
bool ScanAs(EditReading reading, Layout* layout, std::string_view text, LayoutError* error) {
  return reading == EditReading::kCrossChecked ? layout->ScanChecked(text, error) : layout->Scan(text, error);
}

// Re-emits one flow collection in block style; returns false on an overlap (a bug).
bool Blockify(std::string* text, std::uint32_t index, EditOutcome::Source source, EditReading reading,
              EditOutcome* failure) {
  Layout layout;
  LayoutError error;
  if (!ScanAs(reading, &layout, *text, &error)) {
    *failure = Error(source, error);
    return false;
  }
  std::vector<Edit> edits;
  try {
    edits = Planner::BlockifyEdits(layout, index);
  } catch (const NodeNotEmittable& reason) {
    error.offset = layout.node(index).begin;
    error.message = std::string("this flow collection would have to become block style, and ") + reason.what();
    *failure = Error(source, error);
    return false;
  }
  std::string out;
  if (!ApplyEdits(*text, edits, &out)) {
    *failure = Error("internal error: overlapping edits while converting a flow collection");
    return false;
  }
  *text = std::move(out);
  return true;
}

enum class Op : std::uint8_t { kDelete, kSet, kMerge };

// Scans, plans and applies; converts flow collections to block style and
// plans again when a planner asks for it (each round removes one flow
// collection, so this ends).
EditOutcome PlanAndApply(Op op, std::string_view document, const YamlPath& path, std::string_view source_text,
                         bool append, EditReading reading, const EditLayouts& layouts);

// A node that has to be written out but holds an alias to itself, or whose
// aliases expand too far, fails the step (EmitSlotText throws).
EditOutcome RunAs(EditReading reading, Op op, std::string_view document, const YamlPath& path,
                  std::string_view source_text, bool append, const EditLayouts& layouts = {}) {
  try {
    return PlanAndApply(op, document, path, source_text, append, reading, layouts);
  } catch (const NodeNotEmittable& error) {
    return Error(std::string("a node here cannot be written in block style: ") + error.what());
  }
}

// The layout plans alone; an edit that ends in anything but success is
// planned again cross-checked, so that a refusal, a miss or an error is the
// one it always was (yaml-cpp's reading of invalid input first).
EditOutcome Run(EditReading reading, Op op, std::string_view document, const YamlPath& path,
                std::string_view source_text, bool append, const EditLayouts& layouts) {
  if (reading == EditReading::kTokenizer) {
    try {
      EditOutcome outcome = RunAs(EditReading::kTokenizer, op, document, path, source_text, append, layouts);
      if (outcome.ok()) return outcome;
    } catch (const LayoutUnreadable&) {
      // what ScanChecked refuses, it refuses below
    }
  }
  return RunAs(EditReading::kCrossChecked, op, document, path, source_text, append);
}

// The layout of what a delete leaves (EditOutcome::layout), where its edits
// remove whole lines and no anchor, which an alias left behind could name.
std::shared_ptr<Layout> LayoutAfterDelete(const Layout& target, const std::vector<Edit>& edits,
                                          std::string_view edited) {
  std::vector<std::pair<std::size_t, std::size_t>> ranges;
  for (const Edit& edit : edits) {
    const std::string_view removed = target.text().substr(edit.begin, edit.end - edit.begin);
    if (!edit.text.empty() || target.LineStart(edit.begin) != edit.begin || removed.find('&') != std::string_view::npos ||
        (edit.end < target.text().size() && target.LineStart(edit.end) != edit.end)) {
      return nullptr;
    }
    ranges.emplace_back(edit.begin, edit.end);
  }
  std::sort(ranges.begin(), ranges.end());
  auto layout = std::make_shared<Layout>();
  return target.WithoutLines(ranges, edited, layout.get()) ? layout : nullptr;
}

EditOutcome PlanAndApply(Op op, std::string_view document, const YamlPath& path, std::string_view source_text,
                         bool append, EditReading reading, const EditLayouts& layouts) {
  std::string text(document);
  std::string source(source_text);
  constexpr int kMaxRounds = 64;
  for (int round = 0; round < kMaxRounds; ++round) {
    // The caller's layouts view its texts (the same bytes); the planner reads their text() alone.
    const bool given = round == 0 && reading == EditReading::kTokenizer;
    Layout scanned, source_scanned;
    LayoutError error;
    if (!(given && layouts.document) && !ScanAs(reading, &scanned, text, &error)) {
      return Error(EditOutcome::Source::kDocument, error);
    }
    const Layout& target = given && layouts.document ? *layouts.document : scanned;
    const EditOutcome::Source source_kind = op == Op::kMerge ? EditOutcome::Source::kFragment : EditOutcome::Source::kValue;
    const bool source_given = op != Op::kDelete && given && layouts.source;
    if (op != Op::kDelete && !source_given && !ScanAs(reading, &source_scanned, source, &error)) {
      return Error(source_kind, error);
    }
    const Layout* source_layout = op == Op::kDelete ? nullptr : source_given ? layouts.source : &source_scanned;
    Planner planner(target, source_layout);
    Plan plan;
    switch (op) {
      case Op::kDelete: plan = planner.Delete(path); break;
      case Op::kSet: plan = planner.Set(path); break;
      case Op::kMerge: plan = planner.Merge(path, append); break;
    }
    EditOutcome outcome;
    switch (plan.kind) {
      case Plan::Kind::kOk:
        if (!ApplyEdits(text, planner.edits(), &outcome.text)) {
          return Error("internal error: overlapping edits for path `" + path.text + "`");
        }
        outcome.matched = plan.matched;
        if (op == Op::kDelete && reading == EditReading::kTokenizer) {
          outcome.layout = LayoutAfterDelete(target, planner.edits(), outcome.text);
        }
        return outcome;
      case Plan::Kind::kNoMatch:
        outcome.status = EditOutcome::Status::kNoMatch;
        outcome.message = std::move(plan.message);
        return outcome;
      case Plan::Kind::kError:
        return Error(std::move(plan.message));
      case Plan::Kind::kBlockifyTarget:
        if (!Blockify(&text, plan.node, EditOutcome::Source::kDocument, reading, &outcome)) return outcome;
        break;
      case Plan::Kind::kBlockifySource:
        if (!Blockify(&source, plan.node, source_kind, reading, &outcome)) return outcome;
        break;
    }
  }
  return Error("internal error: too many flow collections to convert");
}

}  // namespace

EditOutcome DeletePath(std::string_view document, const YamlPath& path, EditReading reading,
                       const EditLayouts& layouts) {
  return Run(reading, Op::kDelete, document, path, {}, false, layouts);
}

EditOutcome SetPath(std::string_view document, const YamlPath& path, std::string_view value_yaml,
                    EditReading reading, const EditLayouts& layouts) {
  return Run(reading, Op::kSet, document, path, value_yaml, false, layouts);
}

EditOutcome MergeAtPath(std::string_view document, const YamlPath& path, std::string_view fragment, bool append,
                        EditReading reading, const EditLayouts& layouts) {
  return Run(reading, Op::kMerge, document, path, fragment, append, layouts);
}

}  // namespace safesubst::detail
