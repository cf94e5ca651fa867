// SPDX-License-Identifier: Apache-2.0
#include "yaml_node_writer.h"

#include <algorithm>
#include <limits>
#include <optional>
#include <string_view>
#include <utility>

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

// An explicit tag as it is written before a node: `!!str` for
// `tag:yaml.org,2002:str`, a local tag (`!local`) as it is, any other as
// `!<tag>`; empty for the non-specific tags `?` and `!` and for none.
std::string TagText(const std::string& tag) {
  if (tag.empty() || tag == "?" || tag == "!") return {};
  constexpr std::string_view kCore = "tag:yaml.org,2002:";
  if (tag.compare(0, kCore.size(), kCore) == 0) return "!!" + tag.substr(kCore.size());
  if (tag[0] == '!') return tag;
  return "!<" + tag + ">";
}

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

void AppendLiteralBlock(std::string_view text, std::uint32_t content_column, const std::string& eol,
                        std::string* out) {
  const std::size_t trailing = !text.empty() && text.back() == '\n' ? 1 : 0;  // FitsLiteralBlock: at most one
  *out += trailing == 0 ? "|-" : "|";
  std::string_view body = text.substr(0, text.size() - trailing);
  std::size_t line_start = 0;
  while (line_start <= body.size()) {
    std::size_t line_end = body.find('\n', line_start);
    if (line_end == std::string_view::npos) line_end = body.size();
    std::string_view line = body.substr(line_start, line_end - line_start);
    *out += eol;
    if (!line.empty()) out->append(content_column, ' ').append(line);
    line_start = line_end + 1;
  }
}

// What the text is for (the three uses in the header); each keeps what its
// readers rely on, and every written node reads back as the same value.
enum class Use : std::uint8_t {
  // EncodeYamlNode: block style where allowed; a quoted string goes plain
  // where it reads as a string; a scalar is held to the stricter flow rule.
  kValue,
  // NodeAsYaml: flow stays flow, quoted stays quoted; null is `~` and a
  // `!!str` scalar is quoted, as yaml-cpp's emitter wrote them (`set` steps
  // copy the text into their output).
  kDocument,
  // EmitSlotText: block style with the document's layout; a quoted
  // multi-line string is a literal block; null after `key:` or `-` is
  // nothing; keys are scalars written implicitly, since the step editor's
  // layout reads no `?` or null keys.
  kSlot,
};

class NodeWriter {
 public:
  // `max_written`: the most the written text may grow to; `style`: the
  // indentation and line break of the document written into (kSlot).
  NodeWriter(const YamlStream& stream, ExpansionBudget& budget, std::size_t max_written, Use use,
             const BlockStyle& style, std::string* out)
      : stream_(stream), max_written_(max_written), use_(use), style_(style), out_(*out), budget_(budget) {}

  // What went wrong, without the subject ("is more than ...").
  const YamlValueError& error() const { return error_; }

  // The node replaces the placeholder after `key: ` or `- ` (kValue).
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
    if (WritesBlock(node)) {
      const bool tagged = HasExplicitTag(node.node());
      WriteTag(node.node().tag, /*space_after=*/false);
      return WriteBlockCollection(node, 0, /*first_inline=*/!tagged);
    }
    return WriteLiteralBlock(node, 0) || WriteInline(node, /*in_flow=*/false);
  }

  // The text after `key:` or `-` of a slot (kSlot), or a document for kRoot.
  bool WriteSlot(const YamlRef& node, const EmitTarget& target) {
    if (target.slot == SlotKind::kRoot) return WriteDocument(node);
    const auto column = static_cast<std::uint32_t>(std::max(target.parent_column, 0));
    return Counted(node) && WriteAfterIndicator(node, column, target.slot == SlotKind::kSeqItem);
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
  // keys must differ. A slot's nodes come from documents whose keys were
  // checked (CheckDuplicateKeys) by a check that names no key, which may
  // hold a value.
  bool Open(const YamlRef& node) {
    std::string problem;
    if (!budget_.Open(node, &problem)) {
      Fail(KindOf(budget_.passed()), std::move(problem));
      return false;
    }
    if (use_ == Use::kSlot || CheckUniqueKeys(node, &problem)) return true;
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

  // A non-empty collection that is not kept in flow style.
  bool WritesBlock(const YamlRef& node) const {
    return IsNonEmptyCollection(node) && !(use_ == Use::kDocument && node.node().flow);
  }

  // The column of a block collection's entries after `key:` (at
  // `parent_column`) or after `-`.
  std::uint32_t ChildColumn(std::uint32_t parent_column, bool after_dash, bool sequence) const {
    const SlotKind slot = after_dash ? SlotKind::kSeqItem : SlotKind::kMapValue;
    return static_cast<std::uint32_t>(BlockColumn(slot, static_cast<int>(parent_column), sequence, style_));
  }

  void Indent(std::uint32_t indent) {
    out_ += style_.eol;
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
      if (mapping && !WriteBlockKey(node.children[i], indent)) return false;
      out_ += mapping ? ':' : '-';
      std::optional<YamlRef> value = Resolve(node.children[i + step - 1]);
      if (!value || !WriteAfterIndicator(*value, indent, /*after_dash=*/!mapping)) return false;
    }
    budget_.Close();
    return true;
  }

  // The value after `key:` or `-` (no space written yet), the key or dash at `parent_column`.
  bool WriteAfterIndicator(const YamlRef& node, std::uint32_t parent_column, bool after_dash) {
    if (WritesBlock(node)) {
      bool tagged = HasExplicitTag(node.node());
      if (tagged) {
        out_ += ' ';
        WriteTag(node.node().tag, /*space_after=*/false);
      }
      // Compact `- a: 1` and `- - x`; a tag must stay on the `-` line alone.
      bool first_inline = after_dash && !tagged;
      if (first_inline) out_ += ' ';
      return WriteBlockCollection(node, ChildColumn(parent_column, after_dash, node.IsSequence()), first_inline);
    }
    if (use_ == Use::kSlot && node.IsNull()) return true;  // `key:` alone
    out_ += ' ';
    // A placeholder's scalar is written as if in flow: the stricter rule.
    return WriteLiteralBlock(node, parent_column) || WriteInline(node, /*in_flow=*/use_ == Use::kValue);
  }

  bool WriteBlockKey(std::uint32_t index, std::uint32_t indent) {
    std::optional<YamlRef> node = Resolve(index);
    if (!node) return false;
    if (use_ == Use::kSlot && !node->IsScalar()) {  // a null key too: the layout reads neither
      Fail(YamlValueError::Kind::kInvalid, "has a non-scalar key, which is not supported there");
      return false;
    }
    std::size_t start = out_.size();
    if (IsCollection(*node)) {
      // A complex key: `? [a, b]` then `:` on the next line.
      out_ += "? ";
      if (!WriteFlow(*node)) return false;
      Indent(indent);
      return true;
    }
    WriteScalar(node->node(), /*in_flow=*/false);
    if (use_ != Use::kSlot && out_.size() - start > kMaxImplicitKey) {
      std::string key = out_.substr(start);
      out_.resize(start);
      out_ += "? " + key;
      Indent(indent);
    }
    return true;
  }

  // In a slot, a quoted string of several lines as a literal block, which
  // reads back the same; false (nothing written) where none is written.
  bool WriteLiteralBlock(const YamlRef& node, std::uint32_t parent_column) {
    const std::string& tag = node.node().tag;
    const bool quoted_string = tag == "!" || tag == kStrTag;
    if (use_ != Use::kSlot || !node.IsScalar() || !quoted_string || !FitsLiteralBlock(node.Scalar())) return false;
    WriteTag(tag);
    AppendLiteralBlock(node.Scalar(), parent_column + style_.indent_step, style_.eol, &out_);
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
    if (node.kind != YamlNode::Kind::kScalar) {
      out_ += use_ == Use::kDocument ? "~" : "null";
      return;
    }
    if (use_ == Use::kDocument && node.tag == kStrTag) {
      out_ += DoubleQuoted(node.text);
      return;
    }
    WriteTag(node.tag);
    // A plain scalar (or an explicitly tagged one) keeps its resolution when
    // written plain again; a quoted one may go plain only in a value, where
    // it reads as a string.
    const bool was_plain = HasExplicitTag(node) || node.tag == "?";
    const bool plain = FitsPlain(node.text, in_flow) &&
                       (was_plain || (use_ == Use::kValue && ResolvePlain(node.text) == PlainKind::kString));
    out_ += plain ? node.text : DoubleQuoted(node.text);
  }

  const YamlStream& stream_;
  const std::size_t max_written_;
  const Use use_;
  const BlockStyle style_;
  std::string& out_;
  ExpansionBudget& budget_;
  YamlValueError error_;
};

}  // namespace

bool NodeAsYaml(const YamlRef& node, ExpansionBudget* budget, std::string* yaml, std::string* problem) {
  budget->StartValue();
  std::string written;
  NodeWriter writer(node.stream(), *budget, std::numeric_limits<std::size_t>::max(), Use::kDocument, BlockStyle{},
                    &written);
  if (!writer.WriteDocument(node)) {
    *problem = writer.error().message;
    return false;
  }
  *yaml = std::move(written);
  return true;
}

int BlockColumn(SlotKind slot, int parent_column, bool sequence, const BlockStyle& style) {
  switch (slot) {
    case SlotKind::kRoot: return 0;
    case SlotKind::kSeqItem: return parent_column + 2;
    case SlotKind::kMapValue: break;
  }
  return parent_column + (sequence && style.compact_sequences ? 0 : static_cast<int>(style.indent_step));
}

std::string EmitKey(std::string_view key) {
  if (FitsPlain(key, /*in_flow=*/false) && ResolvePlain(key) == PlainKind::kString) return std::string(key);
  return DoubleQuoted(key);
}

std::string EmitSlotText(const YamlRef& node, const EmitTarget& target, ExpansionBudget* budget) {
  ExpansionBudget own_budget;
  std::string out;
  NodeWriter writer(node.stream(), budget != nullptr ? *budget : own_budget, std::numeric_limits<std::size_t>::max(),
                    Use::kSlot, target.style, &out);
  if (!writer.WriteSlot(node, target)) throw NodeNotEmittable("it " + writer.error().message);
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
  if (stream.documents.empty()) {
    *out += "null";
    return true;
  }
  // Block style and indentation make a value longer than its text, and tags
  // or deep nesting repeated through aliases far longer: the written text may
  // hold the value four times over plus `max_bytes`.
  const std::size_t max_written = max_bytes + 4 * yaml_text.size();
  detail::ExpansionBudget budget(max_bytes);
  std::string written;
  detail::NodeWriter writer(stream, budget, max_written, detail::Use::kValue, detail::BlockStyle{}, &written);
  if (!writer.WriteTopLevel(stream.documents[0], parent_indent, block_allowed)) {
    *error = writer.error();
    error->message = "the value " + error->message;
    return false;
  }
  if (written.size() > max_written) {
    *error = {YamlValueError::Kind::kTooLarge, "the value " + detail::WrittenTooLarge(max_written)};
    return false;
  }
  *out += written;
  return true;
}

}  // namespace safesubst
