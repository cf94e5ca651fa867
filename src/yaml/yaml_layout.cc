// SPDX-License-Identifier: Apache-2.0
#include "yaml_layout.h"
#include "yaml_load.h"

#include "text_checks.h"
#include "tokenizer.h"
#include "yaml_spans.h"

#include <algorithm>
#include <cstdint>

namespace safesubst::detail {
namespace {

bool IsBreakChar(char c) { return c == '\n' || c == '\r'; }
bool IsBlankChar(char c) { return c == ' ' || c == '\t'; }

// The document marker `---` (`c` is '-') or `...` ('.') starts the line at `line_start`.
bool IsMarkerAt(std::string_view text, std::size_t line_start, char c) {
  return IsDocumentMarkerLine(text, line_start) && text[line_start] == c;
}

std::size_t RawLineEnd(std::string_view text, std::size_t offset) {
  std::size_t end = text.find('\n', offset);
  if (end == std::string_view::npos) end = text.size();
  if (end > offset && text[end - 1] == '\r') --end;
  return end;
}

std::size_t FirstNonSpace(std::string_view text, std::size_t offset, std::size_t limit) {
  while (offset < limit && text[offset] == ' ') ++offset;
  return offset;
}

// What a line holds, for document splitting.
enum class LineClass : std::uint8_t { kBlank, kComment, kDirective, kStart, kEnd, kContent };

LineClass Classify(std::string_view text, std::size_t line_start) {
  if (IsMarkerAt(text, line_start, '-')) return LineClass::kStart;
  if (IsMarkerAt(text, line_start, '.')) return LineClass::kEnd;
  if (line_start < text.size() && text[line_start] == '%') return LineClass::kDirective;
  std::size_t end = RawLineEnd(text, line_start);
  std::size_t first = line_start;
  while (first < end && IsBlankChar(text[first])) ++first;
  if (first == end) return LineClass::kBlank;
  return text[first] == '#' ? LineClass::kComment : LineClass::kContent;
}

// Content after `--- ` on the marker line itself (`--- |`, `--- a`).
bool MarkerLineHasContent(std::string_view text, std::size_t line_start) {
  std::size_t end = RawLineEnd(text, line_start);
  std::size_t p = line_start + 3;
  while (p < end && IsBlankChar(text[p])) ++p;
  return p < end && text[p] != '#';
}

}  // namespace

bool DecodeKeyText(std::string_view raw, std::string* out) {
  Scalar key;
  key.style = raw.empty()          ? ScalarStyle::kPlain
              : raw.front() == '"'  ? ScalarStyle::kDoubleQuoted
              : raw.front() == '\'' ? ScalarStyle::kSingleQuoted
                                    : ScalarStyle::kPlain;
  key.length = raw.size();
  if (key.style == ScalarStyle::kPlain && raw.find('\n') == std::string_view::npos &&
      raw.find('\r') == std::string_view::npos &&
      (raw.empty() || (raw.back() != ' ' && raw.back() != '\t'))) {
    out->assign(raw);  // one plain line without trailing blanks is its own value
    return true;
  }
  if (key.style != ScalarStyle::kPlain && (raw.size() < 2 || raw.back() != raw.front())) return false;
  *out = DecodeScalar(raw, key);
  return true;
}

std::vector<DocumentSpan> SplitDocuments(std::string_view stream) {
  std::vector<DocumentSpan> pieces;
  DocumentSpan current;
  bool seen_start = false;
  std::size_t line = 0;
  auto close_at = [&](std::size_t offset) {
    current.end = offset;
    pieces.push_back(current);
    current = DocumentSpan{};
    current.begin = offset;
    seen_start = false;
  };
  while (line < stream.size()) {
    std::size_t next = stream.find('\n', line);
    next = next == std::string_view::npos ? stream.size() : next + 1;
    switch (Classify(stream, line)) {
      case LineClass::kStart:
        // A `---` after content (or after another `---`) starts the next document;
        // the first one only ends the comments and directives before it.
        if (current.has_content || seen_start) close_at(line);
        seen_start = true;
        if (MarkerLineHasContent(stream, line)) current.has_content = true;
        break;
      case LineClass::kEnd:
        close_at(next);
        break;
      case LineClass::kContent:
        current.has_content = true;
        break;
      case LineClass::kBlank: case LineClass::kComment: case LineClass::kDirective:
        break;
    }
    line = next;
  }
  if (current.begin < stream.size() || pieces.empty()) close_at(stream.size());
  return pieces;
}

// ---------------------------------------------------------------------------
// Layout geometry

std::size_t Layout::LineStart(std::size_t offset) const {
  auto it = std::upper_bound(line_starts_.begin(), line_starts_.end(), offset);
  return *(it - 1);
}

std::size_t Layout::LineEnd(std::size_t offset) const { return RawLineEnd(text_, LineStart(offset)); }

std::size_t Layout::NextLineStart(std::size_t offset) const {
  auto it = std::upper_bound(line_starts_.begin(), line_starts_.end(), offset);
  return it == line_starts_.end() ? text_.size() : *it;
}

std::uint32_t Layout::Column(std::size_t offset) const {
  return static_cast<std::uint32_t>(offset - LineStart(offset));
}

bool Layout::AtLineStart(std::size_t offset) const {
  for (std::size_t p = LineStart(offset); p < offset; ++p) {
    if (text_[p] != ' ') return false;
  }
  return true;
}

std::size_t Layout::LastLineEnd(std::uint32_t index) const {
  const LayoutNode& n = nodes_[index];
  std::size_t last = n.end > n.begin ? n.end - 1 : n.slot;
  std::size_t end = LineEnd(last);
  std::uint32_t leaf = index;
  while ((nodes_[leaf].kind == LayoutKind::kBlockMap || nodes_[leaf].kind == LayoutKind::kBlockSeq) &&
         !nodes_[leaf].children.empty()) {
    leaf = nodes_[leaf].children.back();
  }
  if (!nodes_[leaf].keeps_trailing_lines) return end;
  while (true) {  // the blank lines a `|+` scalar keeps
    std::size_t next = NextLineStart(end);
    if (next >= text_.size()) break;
    std::size_t line_end = RawLineEnd(text_, next);
    if (FirstNonSpace(text_, next, line_end) != line_end) break;
    end = line_end;
  }
  return end;
}

std::size_t Layout::ExtentEnd(std::uint32_t index) const {
  std::size_t end = LastLineEnd(index);
  const int parent_column = ParentColumn(index);
  if (parent_column < 0) return end;
  while (true) {
    std::size_t next = NextLineStart(end);
    if (next >= text_.size()) break;
    std::size_t line_end = RawLineEnd(text_, next);
    std::size_t first = FirstNonSpace(text_, next, line_end);
    if (first == line_end || text_[first] != '#') break;
    if (static_cast<int>(first - next) <= parent_column) break;
    end = line_end;
  }
  return end;
}

std::size_t Layout::ExtentStart(std::uint32_t index) const {
  const LayoutNode& n = nodes_[index];
  if (!AtLineStart(n.entry)) return n.entry;
  const std::uint32_t column = Column(n.entry);
  std::size_t start = LineStart(n.entry);
  while (start > 0) {
    std::size_t previous = LineStart(start - 1);
    std::size_t line_end = RawLineEnd(text_, previous);
    std::size_t first = FirstNonSpace(text_, previous, line_end);
    if (first == line_end || text_[first] != '#' || first - previous != column) break;
    start = previous;
  }
  return start;
}

bool Layout::SingleLine(std::uint32_t index) const {
  const LayoutNode& n = nodes_[index];
  std::size_t last = n.end > n.begin ? n.end - 1 : n.begin;
  return LineStart(n.begin) == LineStart(last);
}

int Layout::ParentColumn(std::uint32_t index) const {
  const LayoutNode& n = nodes_[index];
  if (n.slot_kind == SlotKind::kRoot) return -1;
  return static_cast<int>(Column(n.entry));
}

bool Layout::IsMapping(std::uint32_t index) const {
  LayoutKind kind = nodes_[index].kind;
  return kind == LayoutKind::kBlockMap || kind == LayoutKind::kFlowMap;
}

bool Layout::IsSequence(std::uint32_t index) const {
  LayoutKind kind = nodes_[index].kind;
  return kind == LayoutKind::kBlockSeq || kind == LayoutKind::kFlowSeq;
}

namespace {

// The plain scalars YAML's core schema (and yaml-cpp) reads as null.
bool IsNullWord(std::string_view plain) {
  return plain.empty() || plain == "~" || plain == "null" || plain == "Null" || plain == "NULL";
}

}  // namespace

bool Layout::IsNull(std::uint32_t index) const {
  const LayoutNode& n = nodes_[index];
  if (n.kind == LayoutKind::kEmpty) return true;
  if (n.kind != LayoutKind::kScalar) return false;
  if (n.begin != n.content) return Yaml(index).IsNull();  // a tag decides, or properties alone
  const char first = text_[n.content];
  // A multi-line plain scalar holds a space once folded: never a null word.
  return first != '"' && first != '\'' && IsNullWord(text_.substr(n.content, n.end - n.content));
}

bool Layout::IsEmptyFlow(std::uint32_t index) const {
  const LayoutNode& n = nodes_[index];
  if (n.kind != LayoutKind::kFlowMap && n.kind != LayoutKind::kFlowSeq) return false;
  std::size_t p = n.content + 1;  // after the bracket
  while (p < n.end) {
    const char c = text_[p];
    if (c == '#' && (IsBlankChar(text_[p - 1]) || IsBreakChar(text_[p - 1]))) {
      while (p < n.end && !IsBreakChar(text_[p])) ++p;  // a comment
    } else if (IsBlankChar(c) || IsBreakChar(c)) {
      ++p;
    } else {
      break;
    }
  }
  return p < n.end && (text_[p] == ']' || text_[p] == '}');
}

std::size_t Layout::ItemCount(std::uint32_t index) const {
  const LayoutNode& n = nodes_[index];
  if (n.kind == LayoutKind::kBlockSeq || n.kind == LayoutKind::kBlockMap) return n.children.size();
  const YamlRef yaml = Yaml(index);
  return yaml.IsMap() ? yaml.node().children.size() / 2 : yaml.node().children.size();
}

bool Layout::FlowMapHasKey(std::uint32_t index, std::string_view key) const {
  return Yaml(index).Find(key).has_value();
}

bool Layout::OwnScalarValue(std::uint32_t index, std::string* value, bool* is_scalar) const {
  const LayoutNode& n = nodes_[index];
  switch (n.kind) {
    case LayoutKind::kBlockMap: case LayoutKind::kBlockSeq: case LayoutKind::kFlowMap: case LayoutKind::kFlowSeq:
      *is_scalar = false;
      return true;
    case LayoutKind::kScalar:
      break;
    default:
      return false;  // block scalars, aliases, empty nodes: as yaml-cpp reads them
  }
  if (n.begin != n.content || !SingleLine(index)) return false;
  const std::string_view raw = text_.substr(n.content, n.end - n.content);
  if (raw.empty()) return false;
  const bool quoted = raw.front() == '"' || raw.front() == '\'';
  *is_scalar = quoted || !IsNullWord(raw);
  return DecodeKeyText(raw, value);
}

std::optional<std::string> Layout::ScalarField(std::uint32_t index, std::string_view key) const {
  const LayoutNode& n = nodes_[index];
  if (n.kind == LayoutKind::kBlockMap && !IsNullWord(key)) {  // a null key is no string key for yaml-cpp
    const std::uint32_t field = FindKey(index, key);
    if (field == kNoNode) return std::nullopt;
    std::string text;
    bool is_scalar = false;
    if (OwnScalarValue(field, &text, &is_scalar)) return is_scalar ? std::optional<std::string>(text) : std::nullopt;
  } else if (n.kind != LayoutKind::kBlockMap && n.kind != LayoutKind::kFlowMap && n.kind != LayoutKind::kAlias) {
    return std::nullopt;
  }
  const std::optional<YamlRef> field = Yaml(index).Find(key);
  if (!field || !field->IsScalar()) return std::nullopt;
  return field->Scalar();
}

bool Layout::HasScalarField(std::uint32_t index, std::string_view key, std::string_view value) const {
  const std::optional<std::string> field = ScalarField(index, key);
  return field && *field == value;
}

std::uint32_t Layout::FindKey(std::uint32_t map, std::string_view key) const {
  if (nodes_[map].kind != LayoutKind::kBlockMap) return kNoNode;
  for (std::uint32_t child : nodes_[map].children) {
    if (nodes_[child].key == key) return child;
  }
  return kNoNode;
}

std::string Layout::KindName(std::uint32_t index) const {
  if (IsNull(index)) return "null";
  if (IsMapping(index)) return "a mapping";
  if (IsSequence(index)) return "a sequence";
  if (nodes_[index].kind == LayoutKind::kAlias) return "an alias";
  return "a scalar";
}

// ---------------------------------------------------------------------------
// The layout from the tokenizer's node spans

namespace {

// Skips blanks, comments and line breaks from `p`; the next content byte or `end`.
std::size_t SkipToContent(std::string_view text, std::size_t p, std::size_t end) {
  while (p < end) {
    const char c = text[p];
    if (c == '#') {
      while (p < end && !IsBreakChar(text[p])) ++p;
    } else if (IsBlankChar(c) || IsBreakChar(c)) {
      ++p;
    } else {
      break;
    }
  }
  return std::min(p, end);
}

// The tokenizer reads templates: one of its errors is about the template, not
// about YAML (a tag that decides a key's value), and leaves the node spans
// whole. (It reads no `$` references here, so it reports none.)
bool IsYamlError(const Diagnostic& diagnostic) {
  return diagnostic.severity == Severity::kError && diagnostic.message.rfind("a mapping key has the tag", 0) != 0;
}

// Where a node's properties (`&anchor`, `!tag`) or, without them, its text begins.
std::size_t PropertiesBegin(const NodeSpan& span) {
  std::size_t begin = span.begin;
  if (span.anchor.present()) begin = std::min(begin, span.anchor.begin);
  if (span.tag.present()) begin = std::min(begin, span.tag.begin);
  return begin;
}

std::size_t PropertiesEnd(const NodeSpan& span) {
  std::size_t end = 0;
  if (span.anchor.present()) end = std::max(end, span.anchor.end);
  if (span.tag.present()) end = std::max(end, span.tag.end);
  return end;
}

}  // namespace

// Builds the layout of one document from TokenizeWithSpans: the tokenizer,
// tested against the whole YAML test suite, reads the structure; this turns
// its nodes into the extents edits need (where a `:` or `-` is, which nodes
// are empty) and refuses what the planner does not handle (explicit `?`
// keys, flow or alias keys, keys over several lines).
class LayoutBuilder {
 public:
  LayoutBuilder(Layout* layout, LayoutError* error) : layout_(*layout), text_(layout->text_), error_(*error) {}

  bool Run(std::size_t body_begin) {
    NodeSpans spans;
    const Tokens tokens = TokenizeWithSpans(text_, &spans, {}, SpanReading::kNoReferences);
    for (const Diagnostic& diagnostic : tokens.diagnostics) {
      if (IsYamlError(diagnostic)) return Fail(diagnostic.location.offset, "not valid YAML: " + diagnostic.message);
    }
    spans_ = &spans.nodes;
    tokens_ = &tokens;
    IndexSubtrees();
    std::uint32_t document = NodeSpan::kNone;
    int documents = 0;
    for (std::uint32_t i = 0; i < spans.nodes.size(); ++i) {
      if (spans.nodes[i].kind != NodeKind::kDocument) continue;
      if (++documents == 1) document = i;
    }
    if (documents > 1) return Fail(0, "expected one YAML document, found " + std::to_string(documents));
    const std::uint32_t root = document != NodeSpan::kNone && document + 1 < subtree_end_[document]
                                   ? document + 1
                                   : NodeSpan::kNone;
    return Build(root, SlotKind::kRoot, kNoNode, body_begin, body_begin) != kNoNode;
  }

 private:
  bool Fail(std::size_t offset, std::string message) {
    if (error_.message.empty()) {
      error_.offset = offset;
      error_.message = std::move(message);
    }
    return false;
  }
  std::uint32_t FailNode(std::size_t offset, std::string message) {
    Fail(offset, std::move(message));
    return kNoNode;
  }

  // subtree_end_[i]: one past the last descendant of span i (spans are in
  // document order, a node's descendants right after it).
  void IndexSubtrees() {
    const std::vector<NodeSpan>& nodes = *spans_;
    subtree_end_.assign(nodes.size(), 0);
    for (std::uint32_t i = static_cast<std::uint32_t>(nodes.size()); i-- > 0;) {  // descendants first
      subtree_end_[i] = std::max(subtree_end_[i], i + 1);
      const std::uint32_t parent = nodes[i].parent;
      if (parent != NodeSpan::kNone) subtree_end_[parent] = std::max(subtree_end_[parent], subtree_end_[i]);
    }
  }

  std::uint32_t Column(std::size_t offset) const { return layout_.Column(offset); }

  std::uint32_t NewNode(SlotKind slot_kind, std::uint32_t parent, std::size_t entry, std::size_t slot) {
    LayoutNode& node = layout_.nodes_.emplace_back();
    node.slot_kind = slot_kind;
    node.parent = parent;
    node.entry = entry;
    node.slot = slot;
    node.begin = node.content = node.end = slot;
    return static_cast<std::uint32_t>(layout_.nodes_.size() - 1);
  }

  // How many children span `s` has.
  std::size_t ChildCount(std::uint32_t s) const {
    std::size_t count = 0;
    for (std::uint32_t child = s + 1; child < subtree_end_[s]; child = subtree_end_[child]) ++count;
    return count;
  }
  LayoutNode& N(std::uint32_t index) { return layout_.nodes_[index]; }

  // The layout node for span `s` (kNone: nothing, an empty node) in the slot
  // at `slot` (after `:`, `-`, or the document start).
  std::uint32_t Build(std::uint32_t s, SlotKind slot_kind, std::uint32_t parent, std::size_t entry,
                      std::size_t slot) {
    const std::uint32_t index = NewNode(slot_kind, parent, entry, slot);
    if (s == NodeSpan::kNone || IsEmpty(s)) {
      N(index).column = Column(slot);
      return index;  // kEmpty
    }
    const NodeSpan& span = (*spans_)[s];
    const std::size_t properties = PropertiesBegin(span);
    switch (span.kind) {
      case NodeKind::kScalar: {
        const Scalar& scalar = tokens_->scalars[span.scalar];
        LayoutNode& n = N(index);
        n.begin = properties;
        n.content = scalar.length == 0 ? PropertiesEnd(span) : span.begin;  // properties alone: after them
        n.end = scalar.length == 0 ? n.content : span.end;
        n.column = scalar.length == 0 ? Column(n.content) : span.column;
        const bool block = scalar.style == ScalarStyle::kLiteral || scalar.style == ScalarStyle::kFolded;
        n.kind = block ? LayoutKind::kBlockScalar : LayoutKind::kScalar;
        n.keeps_trailing_lines = block && scalar.chomping == Chomping::kKeep;
        return index;
      }
      case NodeKind::kAlias:
        N(index).kind = LayoutKind::kAlias;
        break;
      case NodeKind::kMapping:
        if (!span.flow) return BuildBlockMap(index, s);
        N(index).kind = LayoutKind::kFlowMap;
        break;
      case NodeKind::kSequence:
        if (!span.flow) return BuildBlockSeq(index, s);
        N(index).kind = LayoutKind::kFlowSeq;
        break;
      case NodeKind::kDocument:
        return FailNode(span.begin, "a document inside a document");
    }
    LayoutNode& n = N(index);
    n.begin = properties;
    n.content = span.begin;
    n.end = span.end;
    n.column = span.column;
    return index;
  }

  // A scalar of no text and no properties: `key:` or `-` with nothing after.
  bool IsEmpty(std::uint32_t s) const {
    const NodeSpan& span = (*spans_)[s];
    return span.kind == NodeKind::kScalar && tokens_->scalars[span.scalar].length == 0 &&
           PropertiesBegin(span) == span.begin;
  }

  // Block collection `index` from span `s`, before its children.
  void StartCollection(std::uint32_t index, std::uint32_t s, LayoutKind kind, std::size_t children) {
    const NodeSpan& span = (*spans_)[s];
    LayoutNode& n = N(index);
    n.kind = kind;
    n.begin = PropertiesBegin(span);
    n.content = span.begin;
    n.column = span.column;
    n.children.reserve(children);
  }

  std::uint32_t BuildBlockMap(std::uint32_t index, std::uint32_t s) {
    StartCollection(index, s, LayoutKind::kBlockMap, ChildCount(s) / 2);
    // The children alternate key, value; a subtree ends where the next sibling starts.
    for (std::uint32_t k = s + 1; k < subtree_end_[s] && subtree_end_[k] < subtree_end_[s];
         k = subtree_end_[subtree_end_[k]]) {
      const NodeSpan& key = (*spans_)[k];
      std::string key_text;
      std::size_t slot = 0;
      if (!ReadKey(key, &key_text, &slot)) return kNoNode;
      std::uint32_t child = Build(subtree_end_[k], SlotKind::kMapValue, index, PropertiesBegin(key), slot);
      if (child == kNoNode) return kNoNode;
      N(child).key = std::move(key_text);
      N(index).children.push_back(child);
      N(index).end = N(child).end;  // an empty value ends at its slot, just after the colon
    }
    return index;
  }

  // A key the planner can use: one line, a scalar written before its `:`.
  // Its decoded text, and the slot just after its colon.
  bool ReadKey(const NodeSpan& key, std::string* text, std::size_t* slot) {
    std::size_t before = PropertiesBegin(key);
    while (before > 0 && IsBlankChar(text_[before - 1])) --before;
    if (before > 0 && text_[before - 1] == '?') return Fail(before - 1, "explicit `?` mapping keys are not supported");
    if (key.kind == NodeKind::kAlias) return Fail(key.begin, "an alias used as a mapping key is not supported");
    if (key.kind != NodeKind::kScalar) {
      return Fail(key.begin, key.flow ? "a flow collection used as a mapping key is not supported"
                                      : "explicit `?` mapping keys are not supported");
    }
    const std::string_view raw = text_.substr(key.begin, key.end - key.begin);
    if (raw.find('\n') != std::string_view::npos || raw.find('\r') != std::string_view::npos) {
      return Fail(key.begin, "a multi-line mapping key is not supported");
    }
    std::size_t colon = key.end;
    while (colon < text_.size() && IsBlankChar(text_[colon])) ++colon;
    if (colon >= text_.size() || text_[colon] != ':') return Fail(key.begin, "explicit `?` mapping keys are not supported");
    if (!DecodeKeyText(raw, text)) return Fail(key.begin, "cannot read this mapping key");
    // A plain null key (`~:`, `null:`, or none at all) is no string key
    // for yaml-cpp: only the cross-checked scan may take it on.
    const bool quoted = !raw.empty() && (raw.front() == '"' || raw.front() == '\'');
    if (!quoted && IsNullWord(*text)) layout_.needs_cross_check_ = true;
    *slot = colon + 1;
    return true;
  }

  std::uint32_t BuildBlockSeq(std::uint32_t index, std::uint32_t s) {
    StartCollection(index, s, LayoutKind::kBlockSeq, ChildCount(s));
    std::size_t dash = (*spans_)[s].begin;
    for (std::uint32_t item = s + 1; item < subtree_end_[s]; item = subtree_end_[item]) {
      if (text_[dash] != '-') return FailNode(dash, "expected a `-` sequence item");
      std::uint32_t child = Build(item, SlotKind::kSeqItem, index, dash, dash + 1);
      if (child == kNoNode) return kNoNode;
      N(index).children.push_back(child);
      N(index).end = std::max(N(child).end, dash + 1);
      dash = SkipToContent(text_, N(child).end, text_.size());
    }
    return index;
  }

  Layout& layout_;
  std::string_view text_;
  LayoutError& error_;
  const std::vector<NodeSpan>* spans_ = nullptr;
  const Tokens* tokens_ = nullptr;
  std::vector<std::uint32_t> subtree_end_;
};

namespace {

// Where the body of a one-document piece starts: after its `---` marker, or
// at the start.
std::size_t BodyBegin(std::string_view text) {
  for (std::size_t line = 0; line < text.size();) {
    const LineClass kind = Classify(text, line);
    if (kind == LineClass::kStart) return line + 3;
    if (kind == LineClass::kContent) return 0;
    const std::size_t next = text.find('\n', line);
    if (next == std::string_view::npos) break;
    line = next + 1;
  }
  return 0;
}

std::string Describe(const YamlRef& node) {
  if (node.IsMap()) return "a mapping";
  if (node.IsSequence()) return "a sequence";
  return node.IsScalar() ? "a scalar" : "null";
}

}  // namespace

// Checks that the scanned layout and yaml-cpp's tree agree, and attaches the
// yaml-cpp nodes. Returns false with an error at the first disagreement.
class LayoutChecker {
 public:
  LayoutChecker(const std::vector<LayoutNode>& nodes, std::vector<std::uint32_t>* yaml, LayoutError* error)
      : nodes_(nodes), yaml_(*yaml), error_(*error) {}

  bool Attach(std::uint32_t index, const YamlRef& yaml) {
    const LayoutNode& n = nodes_[index];
    yaml_[index] = yaml.index();
    bool ok = true;
    switch (n.kind) {
      case LayoutKind::kEmpty: ok = yaml.IsNull() || (yaml.IsScalar() && yaml.Scalar().empty()); break;
      case LayoutKind::kScalar: ok = yaml.IsScalar() || yaml.IsNull(); break;
      case LayoutKind::kBlockScalar: ok = yaml.IsScalar(); break;
      case LayoutKind::kAlias: break;
      case LayoutKind::kFlowMap: ok = yaml.IsMap(); break;
      case LayoutKind::kFlowSeq: ok = yaml.IsSequence(); break;
      case LayoutKind::kBlockMap: return AttachMap(index, yaml);
      case LayoutKind::kBlockSeq: return AttachSeq(index, yaml);
    }
    if (!ok) return Mismatch(index, "the scanner saw a different kind of node than the YAML parser (" + Describe(yaml) + ")");
    return true;
  }

 private:
  bool Mismatch(std::uint32_t index, std::string message) {
    if (error_.message.empty()) {
      error_.offset = nodes_[index].begin;
      error_.message = std::move(message);
    }
    return false;
  }

  bool AttachMap(std::uint32_t index, const YamlRef& yaml) {
    const std::vector<std::pair<YamlRef, YamlRef>> entries = yaml.Entries();
    if (!yaml.IsMap() || entries.size() != nodes_[index].children.size()) {
      return Mismatch(index, "the scanner and the YAML parser disagree about this mapping (" + Describe(yaml) + ")");
    }
    for (std::size_t i = 0; i < entries.size(); ++i) {
      const auto& [key, value] = entries[i];
      const std::uint32_t child = nodes_[index].children[i];
      if (!key.IsScalar()) return Mismatch(child, "only scalar mapping keys are supported");
      if (key.Scalar() != nodes_[child].key) {
        return Mismatch(child, "the scanner read key `" + nodes_[child].key + "` where the YAML parser read `" +
                                   key.Scalar() + "`");
      }
      if (!Attach(child, value)) return false;
    }
    return true;
  }

  bool AttachSeq(std::uint32_t index, const YamlRef& yaml) {
    const std::vector<YamlRef> items = yaml.Items();
    if (!yaml.IsSequence() || items.size() != nodes_[index].children.size()) {
      return Mismatch(index, "the scanner and the YAML parser disagree about this sequence (" + Describe(yaml) + ")");
    }
    for (std::size_t i = 0; i < items.size(); ++i) {
      if (!Attach(nodes_[index].children[i], items[i])) return false;
    }
    return true;
  }

  const std::vector<LayoutNode>& nodes_;
  std::vector<std::uint32_t>& yaml_;
  LayoutError& error_;
};

namespace {

// SplitDocuments(text) is one piece. Without a marker line after the first
// line it is (a step engine's document starts with its `---` line, if any),
// found without classifying every line.
bool OneDocumentPiece(std::string_view text) {
  bool marker_after_first_line = IsMarkerAt(text, 0, '.');
  for (std::size_t p = text.find('\n'); p != std::string_view::npos && !marker_after_first_line;
       p = text.find('\n', p + 1)) {
    marker_after_first_line = IsDocumentMarkerLine(text, p + 1);
  }
  return !marker_after_first_line || SplitDocuments(text).size() == 1;
}

// yaml-cpp's reading of a text that must hold one document; false with the
// error a scan reports. An empty stream reads as one null document.
bool LoadOneDocument(std::string_view text, std::shared_ptr<const YamlStream>* stream, LayoutError* error) {
  try {
    *stream = LoadYamlStream(text);
  } catch (const YAML::Exception& e) {
    error->offset = e.mark.pos >= 0 ? static_cast<std::size_t>(e.mark.pos) : 0;
    error->message = "not valid YAML: " + e.msg;
    return false;
  }
  if ((*stream)->documents.size() > 1) {
    error->message = "expected one YAML document, found " + std::to_string((*stream)->documents.size());
    return false;
  }
  if ((*stream)->documents.empty()) {
    auto null_document = std::make_shared<YamlStream>();
    null_document->nodes.emplace_back();
    null_document->documents.push_back(0);
    *stream = std::move(null_document);
  }
  return true;
}

}  // namespace

void Layout::Reset(std::string_view text) {
  text_ = text;
  nodes_.clear();
  yaml_.clear();
  yaml_stream_.reset();
  needs_cross_check_ = false;
  line_starts_.assign(1, 0);
  for (std::size_t i = text.find('\n'); i != std::string_view::npos; i = text.find('\n', i + 1)) {
    line_starts_.push_back(i + 1);
  }
  std::size_t first_break = text.find('\n');
  eol_ = first_break != std::string_view::npos && first_break > 0 && text[first_break - 1] == '\r' ? "\r\n" : "\n";
}

bool Layout::ScanBody(LayoutError* error) {
  nodes_.reserve(2 * line_starts_.size());  // about what a manifest holds, so nodes seldom move
  LayoutBuilder builder(this, error);
  if (builder.Run(BodyBegin(text_))) return true;
  nodes_.clear();
  return false;
}

bool Layout::AttachYaml(std::shared_ptr<const YamlStream> stream, LayoutError* error) const {
  std::vector<std::uint32_t> yaml(nodes_.size());
  LayoutChecker checker(nodes_, &yaml, error);
  if (!checker.Attach(0, YamlRef(*stream, stream->documents[0]))) return false;
  yaml_ = std::move(yaml);
  yaml_stream_ = std::move(stream);
  return true;
}

bool Layout::Scan(std::string_view text, LayoutError* error) {
  *error = LayoutError{};
  Reset(text);
  // A stream of several documents is left to the cross-checked scan.
  if (OneDocumentPiece(text) && ScanBody(error) && !needs_cross_check_) return true;
  // Refused, or doubtful: the cross-checked scan decides, and its error is
  // the one yaml-cpp's reading gives first, as it was when every scan parsed
  // with yaml-cpp.
  return ScanChecked(text, error);
}

bool Layout::ScanChecked(std::string_view text, LayoutError* error) {
  *error = LayoutError{};
  Reset(text);
  std::shared_ptr<const YamlStream> stream;
  if (!LoadOneDocument(text, &stream, error) || !ScanBody(error)) return false;
  if (AttachYaml(std::move(stream), error)) return true;
  nodes_.clear();
  return false;
}

bool Layout::WithoutLines(const std::vector<std::pair<std::size_t, std::size_t>>& ranges, std::string_view remaining,
                          Layout* out) const {
  // A layout yaml-cpp read (the cross-checked scan decided, or Yaml() was asked) is scanned again.
  if (needs_cross_check_ || yaml_stream_ || nodes_.empty()) return false;
  // Where the byte at `offset` goes: up by the ranges before it; `*cut` when a range holds it.
  auto moved = [&](std::size_t offset, bool* cut) {
    std::size_t removed = 0;
    for (const auto& [first, second] : ranges) {
      if (offset < first) break;
      if (offset < second) *cut = true;
      removed += std::min(offset, second) - first;
    }
    return offset - removed;
  };
  std::vector<std::uint32_t> renumbered(nodes_.size(), kNoNode);  // kNoNode: the node goes
  out->Reset(remaining);
  out->nodes_.reserve(nodes_.size());
  for (std::uint32_t i = 0; i < nodes_.size(); ++i) {
    const LayoutNode& n = nodes_[i];
    if (n.parent != kNoNode && renumbered[n.parent] == kNoNode) continue;  // inside an entry that goes
    const std::size_t last = n.end > n.begin ? n.end - 1 : n.begin;
    if (n.slot_kind != SlotKind::kRoot) {
      const auto holder = std::find_if(ranges.begin(), ranges.end(), [&](const auto& range) {
        return range.first <= n.entry && n.entry < range.second;
      });
      if (holder != ranges.end()) {
        if (last >= holder->second) return false;  // a range that cuts into an entry
        continue;  // the entry goes whole
      }
    }
    const bool collection = n.kind == LayoutKind::kBlockMap || n.kind == LayoutKind::kBlockSeq;
    bool cut = false;
    LayoutNode& copy = out->nodes_.emplace_back(n);
    copy.entry = moved(n.entry, &cut);
    copy.slot = moved(n.slot, &cut);
    if (cut) return false;
    copy.begin = moved(n.begin, &cut);
    copy.content = moved(n.content, &cut);
    if (cut) {
      // A collection whose first entries go starts with its new first one (below).
      if (!collection || n.begin != n.content || n.content != nodes_[n.children.front()].entry) return false;
      copy.begin = copy.content = std::string_view::npos;
      cut = false;
    }
    copy.end = n.end > n.begin ? moved(last, &cut) + 1 : copy.begin;
    // A collection whose last entries go ends with its new last one (below).
    if (cut && !collection) return false;
    copy.children.clear();
    renumbered[i] = static_cast<std::uint32_t>(out->nodes_.size() - 1);
    if (n.parent != kNoNode) {
      copy.parent = renumbered[n.parent];
      out->nodes_[copy.parent].children.push_back(renumbered[i]);
    }
  }
  // The extents of collections, their entries first.
  for (std::uint32_t i = static_cast<std::uint32_t>(out->nodes_.size()); i-- > 0;) {
    LayoutNode& n = out->nodes_[i];
    if (n.kind != LayoutKind::kBlockMap && n.kind != LayoutKind::kBlockSeq) continue;
    if (n.children.empty()) return false;  // a delete writes `{}` or `[]` there instead
    if (n.content == std::string_view::npos) n.begin = n.content = out->nodes_[n.children.front()].entry;
    const LayoutNode& last = out->nodes_[n.children.back()];
    n.end = n.kind == LayoutKind::kBlockMap ? last.end : std::max(last.end, last.entry + 1);
  }
  return true;
}

YamlRef Layout::Yaml(std::uint32_t index) const {
  if (yaml_.empty()) {
    LayoutError error;
    std::shared_ptr<const YamlStream> stream;
    if (!LoadOneDocument(text_, &stream, &error) || !AttachYaml(std::move(stream), &error)) {
      throw LayoutUnreadable(std::move(error));
    }
  }
  return YamlRef(*yaml_stream_, yaml_[index]);
}

}  // namespace safesubst::detail
