// SPDX-License-Identifier: Apache-2.0
#include "yaml_node_writer.h"

#include <algorithm>
#include <limits>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "yaml_load.h"

namespace safesubst::detail {
namespace {

// An implicit key is limited to 1024 characters (YAML 1.2 7.4.2, 8.2.2); longer
// keys are written as explicit `? ` keys. Counting bytes errs on the safe side.
constexpr std::size_t kMaxImplicitKey = 1000;

constexpr std::string_view kStrTag = "tag:yaml.org,2002:str";

std::string WrittenTooLarge(std::size_t limit) {
  return "is more than " + std::to_string(limit) + " bytes once written out";
}

// Explicit tags: `?` and `!` are the non-specific ones.
bool HasExplicitTag(const YamlNode& node) { return !node.tag.empty() && node.tag != "?" && node.tag != "!"; }

bool IsCollection(const YamlRef& node) { return node.IsSequence() || node.IsMap(); }
bool IsNonEmptyCollection(const YamlRef& node) { return IsCollection(node) && !node.node().children.empty(); }

class NodeWriter {
 public:
  // With `as_written`, flow collections stay flow and quoted scalars stay
  // quoted; otherwise non-empty collections are written in block style where
  // they may be, and a quoted scalar goes plain where it reads as a string.
  // `max_written`: the most the written text may grow to.
  NodeWriter(const YamlStream& stream, ExpansionBudget& budget, std::size_t max_written, bool as_written,
             std::string* out)
      : stream_(stream), max_written_(max_written), as_written_(as_written), out_(*out), budget_(budget) {}

  // What went wrong, without the subject ("is more than ...").
  const YamlValueError& error() const { return error_; }

  // The node replaces the placeholder after `key: ` or `- `.
  bool WriteTopLevel(std::uint32_t index, std::uint32_t parent_indent, bool block_allowed) {
    std::optional<YamlRef> node = Resolve(index);
    if (!node) return false;
    if (block_allowed && IsNonEmptyCollection(*node)) {
      WriteTag(node->node().tag, /*space_after=*/false);
      return WriteBlockCollection(*node, parent_indent + 2);
    }
    return WriteInline(*node, /*in_flow=*/true);
  }

  // The node as a document of its own, starting at column 0.
  bool WriteDocument(const YamlRef& node) {
    if (!Counted(node)) return false;
    if (IsNonEmptyCollection(node) && !node.node().flow) {
      const bool tagged = HasExplicitTag(node.node());
      WriteTag(node.node().tag, /*space_after=*/false);
      return WriteBlockCollection(node, 0, /*first_inline=*/!tagged);
    }
    return WriteInline(node, /*in_flow=*/false);
  }

 private:
  // Follows an alias, counting the node against the expansion budget and the
  // text written so far against `max_written_`.
  std::optional<YamlRef> Resolve(std::uint32_t index) {
    YamlRef node(stream_, index);
    if (!Counted(node)) return std::nullopt;
    return node;
  }

  bool Counted(const YamlRef& node) {
    std::string problem;
    if (!budget_.Count(node, &problem)) {
      Fail(KindOf(budget_.passed()), std::move(problem));
      return false;
    }
    if (out_.size() > max_written_) {
      Fail(YamlValueError::Kind::kTooLarge, WrittenTooLarge(max_written_));
      return false;
    }
    return true;
  }

  // Brackets the children of a collection (see ExpansionBudget::Open), whose
  // keys must differ.
  bool Open(const YamlRef& node) {
    std::string problem;
    if (!budget_.Open(node, &problem)) {
      Fail(KindOf(budget_.passed()), std::move(problem));
      return false;
    }
    if (CheckUniqueKeys(node, &problem)) return true;
    Fail(YamlValueError::Kind::kInvalid, std::move(problem));
    return false;
  }

  void Fail(YamlValueError::Kind kind, std::string message) { error_ = YamlValueError{kind, std::move(message)}; }

  static YamlValueError::Kind KindOf(ExpansionBudget::Bound bound) {
    using Bound = ExpansionBudget::Bound;
    switch (bound) {
      case Bound::kRecursion: return YamlValueError::Kind::kInvalid;
      case Bound::kBytes: return YamlValueError::Kind::kTooLarge;
      case Bound::kNodes:
      case Bound::kDepth: return YamlValueError::Kind::kTooDeep;
    }
    return YamlValueError::Kind::kInvalid;
  }

  void Indent(std::uint32_t indent) {
    out_ += '\n';
    out_.append(indent, ' ');
  }

  // A non-empty collection in block style, each entry on a new line at `indent`.
  // With `first_inline`, the first entry continues the current line (after `- `).
  bool WriteBlockCollection(const YamlRef& collection, std::uint32_t indent, bool first_inline = false) {
    if (!Open(collection)) return false;
    const YamlNode& node = collection.node();
    bool mapping = node.kind == YamlNode::Kind::kMapping;
    std::size_t step = mapping ? 2 : 1;
    for (std::size_t i = 0; i < node.children.size(); i += step) {
      if (i > 0 || !first_inline) Indent(indent);
      if (mapping) {
        if (!WriteBlockKey(node.children[i], indent)) return false;
        out_ += ':';
        if (!WriteAfterIndicator(node.children[i + 1], indent + 2, /*after_dash=*/false)) return false;
      } else {
        out_ += '-';
        if (!WriteAfterIndicator(node.children[i], indent + 2, /*after_dash=*/true)) return false;
      }
    }
    budget_.Close();
    return true;
  }

  // The value after `key:` or `-` (no space written yet).
  bool WriteAfterIndicator(std::uint32_t index, std::uint32_t child_indent, bool after_dash) {
    std::optional<YamlRef> node = Resolve(index);
    if (!node) return false;
    if (IsNonEmptyCollection(*node) && !(as_written_ && node->node().flow)) {
      bool tagged = HasExplicitTag(node->node());
      if (tagged) {
        out_ += ' ';
        WriteTag(node->node().tag, /*space_after=*/false);
      }
      // Compact `- a: 1` and `- - x`; a tag must stay on the `-` line alone.
      bool first_inline = after_dash && !tagged;
      if (first_inline) out_ += ' ';
      return WriteBlockCollection(*node, child_indent, first_inline);
    }
    out_ += ' ';
    // A placeholder's scalar is written as if in flow: the stricter rule.
    return WriteInline(*node, /*in_flow=*/!as_written_);
  }

  bool WriteBlockKey(std::uint32_t index, std::uint32_t indent) {
    std::optional<YamlRef> node = Resolve(index);
    if (!node) return false;
    std::size_t start = out_.size();
    if (IsCollection(*node)) {
      // A complex key: `? [a, b]` then `:` on the next line.
      out_ += "? ";
      if (!WriteFlow(*node)) return false;
      Indent(indent);
      return true;
    }
    WriteScalar(node->node(), /*in_flow=*/false);
    if (out_.size() - start > kMaxImplicitKey) {
      std::string key = out_.substr(start);
      out_.resize(start);
      out_ += "? " + key;
      Indent(indent);
    }
    return true;
  }

  // A scalar, or a collection in flow style.
  bool WriteInline(const YamlRef& node, bool in_flow) {
    if (IsCollection(node)) return WriteFlow(node);
    WriteScalar(node.node(), in_flow);
    return true;
  }

  bool WriteFlow(const YamlRef& collection) {
    const YamlNode& node = collection.node();
    if (!Open(collection)) return false;
    bool mapping = node.kind == YamlNode::Kind::kMapping;
    WriteTag(node.tag);
    out_ += mapping ? '{' : '[';
    std::size_t step = mapping ? 2 : 1;
    for (std::size_t i = 0; i < node.children.size(); i += step) {
      if (i > 0) out_ += ", ";
      std::optional<YamlRef> child = Resolve(node.children[i]);
      if (!child) return false;
      std::size_t key_start = out_.size();
      if (!WriteInline(*child, /*in_flow=*/true)) return false;
      if (mapping && (IsCollection(*child) || out_.size() - key_start > kMaxImplicitKey)) {
        out_.insert(key_start, "? ");
      }
      if (mapping) {
        out_ += ": ";
        std::optional<YamlRef> value = Resolve(node.children[i + 1]);
        if (!value || !WriteInline(*value, /*in_flow=*/true)) return false;
      }
    }
    out_ += mapping ? '}' : ']';
    budget_.Close();
    return true;
  }

  void WriteTag(const std::string& tag, bool space_after = true) {
    if (tag.empty() || tag == "?" || tag == "!") return;
    out_ += TagText(tag);
    if (space_after) out_ += ' ';
  }

  void WriteScalar(const YamlNode& node, bool in_flow) {
    // Where written as the source has it, a null is `~` and a `!!str`
    // scalar is quoted, which says the same to every reader, as yaml-cpp's
    // emitter wrote them before this writer served there: `set` steps copy
    // the text into their output.
    if (node.kind != YamlNode::Kind::kScalar) {
      out_ += as_written_ ? "~" : "null";
      return;
    }
    if (as_written_ && node.tag == kStrTag) {
      out_ += DoubleQuoted(node.text);
      return;
    }
    WriteTag(node.tag);
    // A plain scalar (or an explicitly tagged one) keeps its resolution when
    // written plain again; a quoted one may go plain only when it reads as a
    // string there, and stays quoted when written as the source has it.
    const bool was_plain = HasExplicitTag(node) || node.tag == "?";
    const bool plain = FitsPlain(node.text, in_flow) &&
                       (was_plain || (!as_written_ && ResolvePlain(node.text) == PlainKind::kString));
    if (plain) {
      out_ += node.text;
    } else {
      out_ += DoubleQuoted(node.text);
    }
  }

  const YamlStream& stream_;
  const std::size_t max_written_;
  const bool as_written_;
  std::string& out_;
  ExpansionBudget& budget_;
  YamlValueError error_;
};

}  // namespace

bool WriteValueNode(const YamlStream& stream, std::uint32_t index, std::uint32_t parent_indent, bool block_allowed,
                    ExpansionBudget* budget, std::size_t max_written, std::string* out, YamlValueError* error) {
  std::string written;
  NodeWriter writer(stream, *budget, max_written, /*as_written=*/false, &written);
  const bool ok = writer.WriteTopLevel(index, parent_indent, block_allowed);
  if (ok && written.size() > max_written) {
    *error = {YamlValueError::Kind::kTooLarge, "the value " + WrittenTooLarge(max_written)};
    return false;
  }
  if (!ok) {
    *error = writer.error();
    error->message = "the value " + error->message;
    return false;
  }
  *out += written;
  return true;
}

bool NodeAsYaml(const YamlRef& node, ExpansionBudget* budget, std::string* yaml, std::string* problem) {
  budget->StartValue();
  std::string written;
  NodeWriter writer(node.stream(), *budget, std::numeric_limits<std::size_t>::max(), /*as_written=*/true,
                    &written);
  if (!writer.WriteDocument(node)) {
    *problem = writer.error().message;
    return false;
  }
  *yaml = std::move(written);
  return true;
}

std::string TagText(const std::string& tag) {
  if (tag.empty() || tag == "?" || tag == "!") return {};
  constexpr std::string_view kCore = "tag:yaml.org,2002:";
  if (tag.compare(0, kCore.size(), kCore) == 0) return "!!" + tag.substr(kCore.size());
  if (tag[0] == '!') return tag;
  return "!<" + tag + ">";
}

// ---------------------------------------------------------------------------
// EmitSlotText: a node in block style for one slot of a document.

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

void EmitInto(const YamlRef& node, const EmitTarget& target, ExpansionBudget& budget, std::string* out);

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

// Where entry `first` of a block collection in this slot starts: after the
// dash of a sequence item, on the first line of a root, else on a new line.
void StartEntry(const EmitTarget& target, bool first, int column, std::string* out) {
  if (first && target.slot == SlotKind::kSeqItem) {
    *out += ' ';
  } else if (!(first && target.slot == SlotKind::kRoot)) {
    *out += target.eol + Spaces(column);
  }
}

void EmitMap(const YamlRef& node, const EmitTarget& target, ExpansionBudget& budget, std::string* out) {
  const std::vector<std::pair<YamlRef, YamlRef>> entries = node.Entries();
  if (entries.empty()) {
    *out += target.slot == SlotKind::kRoot ? "{}" : " {}";
    return;
  }
  const int column = ContentColumn(target, false);
  bool first = true;
  for (const auto& [key, value] : entries) {
    StartEntry(target, first, column, out);
    first = false;
    // Block style has no simple way to write `[a, b]: c`; writing the key's
    // empty Scalar() would silently turn it into "".
    if (!key.IsScalar()) throw NodeNotEmittable("a non-scalar key is not supported there");
    *out += EmitKey(key.Scalar());
    *out += ':';
    EmitTarget child = target;
    child.slot = SlotKind::kMapValue;
    child.parent_column = column;
    EmitInto(value, child, budget, out);
  }
}

void EmitSeq(const YamlRef& node, const EmitTarget& target, ExpansionBudget& budget, std::string* out) {
  const std::vector<YamlRef> items = node.Items();
  if (items.empty()) {
    *out += target.slot == SlotKind::kRoot ? "[]" : " []";
    return;
  }
  const int column = ContentColumn(target, true);
  for (std::size_t i = 0; i < items.size(); ++i) {
    StartEntry(target, i == 0, column, out);
    *out += '-';
    EmitTarget child = target;
    child.slot = SlotKind::kSeqItem;
    child.parent_column = column;
    EmitInto(items[i], child, budget, out);
  }
}

void EmitScalar(const YamlRef& node, const EmitTarget& target, std::string* out) {
  const std::string prefix = target.slot == SlotKind::kRoot ? "" : " ";
  const std::string& tag = node.node().tag;
  const bool quoted_string = tag == "!" || tag == kStrTag;
  if (quoted_string && FitsLiteralBlock(node.Scalar())) {
    int content_column = target.slot == SlotKind::kRoot ? static_cast<int>(target.indent_step)
                                                        : target.parent_column + static_cast<int>(target.indent_step);
    *out += prefix;
    if (tag != "!") *out += TagText(tag) + " ";
    *out += LiteralBlock(node.Scalar(), content_column, target.eol);
    return;
  }
  *out += prefix + EmitInlineScalar(node);
}

// Aliases are written out in full, within `budget`; a node it refuses
// (inside itself, expanding or nesting too far) throws NodeNotEmittable.
void EmitInto(const YamlRef& node, const EmitTarget& target, ExpansionBudget& budget, std::string* out) {
  std::string problem;
  const bool collection = node.IsMap() || node.IsSequence();
  if (!budget.Count(node, &problem) || (collection && !budget.Open(node, &problem))) {
    throw NodeNotEmittable("it " + problem);
  }
  if (node.IsMap()) {
    EmitMap(node, target, budget, out);
  } else if (node.IsSequence()) {
    EmitSeq(node, target, budget, out);
  } else if (node.IsScalar()) {
    EmitScalar(node, target, out);
  } else if (target.slot == SlotKind::kRoot) {
    *out += "null";  // elsewhere null is `key:` / `-` with nothing after it
  }
  if (collection) budget.Close();
}

}  // namespace

std::string EmitInlineScalar(const YamlRef& scalar) {
  if (scalar.IsNull()) return "null";
  const std::string& text = scalar.Scalar();
  const std::string& tag = scalar.node().tag;
  const bool plain = FitsPlain(text, /*in_flow=*/false);
  if (tag == "?") return plain ? text : DoubleQuoted(text);
  if (tag == "!") return DoubleQuoted(text);
  std::string value = plain ? text : DoubleQuoted(text);
  return TagText(tag) + " " + value;
}

std::string EmitKey(std::string_view key) {
  if (FitsPlain(key, /*in_flow=*/false) && ResolvePlain(key) == PlainKind::kString) return std::string(key);
  return DoubleQuoted(key);
}

std::string EmitSlotText(const YamlRef& node, const EmitTarget& target, ExpansionBudget* budget) {
  ExpansionBudget own_budget;
  std::string out;
  EmitInto(node, target, budget != nullptr ? *budget : own_budget, &out);
  return out;
}

}  // namespace safesubst::detail

namespace safesubst {

bool EncodeYamlNode(std::string_view yaml_text, std::uint32_t parent_indent, bool block_allowed,
                    std::size_t max_bytes, std::string* out, YamlValueError* error) {
  detail::YamlStream stream;
  detail::YamlParseError parse_error;
  if (!detail::ParseYamlStream(yaml_text, &stream, &parse_error)) {
    *error = {YamlValueError::Kind::kInvalid, parse_error.message + " (line " + std::to_string(parse_error.line + 1) +
                                                  ", column " + std::to_string(parse_error.column + 1) +
                                                  " of the value)"};
    return false;
  }
  if (stream.documents.size() > 1) {
    *error = {YamlValueError::Kind::kInvalid, "the value holds " + std::to_string(stream.documents.size()) +
                                                  " documents; a type: yaml value must be a single node"};
    return false;
  }
  std::string encoded;
  if (stream.documents.empty()) {
    encoded = "null";
  } else {
    // Block style and indentation make a value longer than its text, and
    // tags or deep nesting repeated through aliases far longer: the written
    // text may hold the value four times over plus `max_bytes`.
    const std::size_t max_written = max_bytes + 4 * yaml_text.size();
    detail::ExpansionBudget budget(max_bytes);
    if (!detail::WriteValueNode(stream, stream.documents[0], parent_indent, block_allowed, &budget, max_written,
                                &encoded, error)) {
      return false;
    }
  }
  *out += encoded;
  return true;
}

}  // namespace safesubst
