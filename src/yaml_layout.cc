// SPDX-License-Identifier: Apache-2.0
#include "yaml_layout.h"
#include "yaml_load.h"

#include "safesubst/tokenizer.h"

#include <algorithm>
#include <cstdint>

namespace safesubst::detail {
namespace {

bool IsBreakChar(char c) { return c == '\n' || c == '\r'; }
bool IsBlankChar(char c) { return c == ' ' || c == '\t'; }

// `---` or `...` at the start of a line, followed by a blank, a break or the end.
bool IsMarkerAt(std::string_view text, std::size_t line_start, std::string_view marker) {
  if (text.compare(line_start, 3, marker) != 0) return false;
  std::size_t after = line_start + 3;
  return after >= text.size() || IsBlankChar(text[after]) || IsBreakChar(text[after]);
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
  if (IsMarkerAt(text, line_start, "---")) return LineClass::kStart;
  if (IsMarkerAt(text, line_start, "...")) return LineClass::kEnd;
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
  // A tag decides, or properties alone; a `...` line the scanner took for a
  // scalar is yaml-cpp's empty document.
  if (n.begin != n.content || StartsWithMarker(index)) return Yaml(index).IsNull();
  const char first = text_[n.content];
  // A multi-line plain scalar holds a space once folded: never a null word.
  return first != '"' && first != '\'' && IsNullWord(text_.substr(n.content, n.end - n.content));
}

bool Layout::StartsWithMarker(std::uint32_t index) const {
  const std::size_t content = nodes_[index].content;
  return IsMarkerAt(text_, content, "---") || IsMarkerAt(text_, content, "...");
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
  return Yaml(index).size();
}

bool Layout::FlowMapHasKey(std::uint32_t index, std::string_view key) const {
  return Yaml(index)[std::string(key)].IsDefined();
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
  if (n.begin != n.content || !SingleLine(index) || StartsWithMarker(index)) return false;
  const std::string_view raw = text_.substr(n.content, n.end - n.content);
  if (raw.empty()) return false;
  const bool quoted = raw.front() == '"' || raw.front() == '\'';
  *is_scalar = quoted || !IsNullWord(raw);
  return DecodeKeyText(raw, value);
}

bool Layout::HasScalarField(std::uint32_t index, std::string_view key, std::string_view value) const {
  const LayoutNode& n = nodes_[index];
  if (n.kind == LayoutKind::kBlockMap && !IsNullWord(key)) {  // a null key is no string key for yaml-cpp
    const std::uint32_t field = FindKey(index, key);
    if (field == kNoNode) return false;
    std::string text;
    bool is_scalar = false;
    if (OwnScalarValue(field, &text, &is_scalar)) return is_scalar && text == value;
  } else if (n.kind != LayoutKind::kBlockMap && n.kind != LayoutKind::kFlowMap && n.kind != LayoutKind::kAlias) {
    return false;
  }
  const YAML::Node item = Yaml(index);
  if (!item.IsMap()) return false;
  const YAML::Node field = item[std::string(key)];
  return field.IsDefined() && field.IsScalar() && field.Scalar() == value;
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
// The scanner

class LayoutScanner {
 public:
  LayoutScanner(Layout* layout, LayoutError* error) : layout_(*layout), text_(layout->text_), error_(*error) {}

  bool Run(std::size_t body_begin, std::size_t body_end) {
    end_ = body_end;
    std::uint32_t root = ParseNode(body_begin, -1, false, SlotKind::kRoot, kNoNode, body_begin);
    if (root == kNoNode) return false;
    std::size_t after = SkipToContent(layout_.nodes_[root].end);
    if (after < end_) return Fail(after, "unexpected content after the end of the document's root node");
    return true;
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

  char At(std::size_t p) const { return p < end_ ? text_[p] : '\0'; }
  bool BlankOrEnd(std::size_t p) const { return p >= end_ || IsBlankChar(text_[p]) || IsBreakChar(text_[p]); }
  bool IsDash(std::size_t p) const { return At(p) == '-' && BlankOrEnd(p + 1); }
  bool SameLine(std::size_t a, std::size_t b) const {
    return text_.substr(a, b - a).find('\n') == std::string_view::npos;
  }
  int Column(std::size_t p) const { return static_cast<int>(layout_.Column(p)); }

  std::size_t SkipBlanks(std::size_t p) const {
    while (p < end_ && IsBlankChar(text_[p])) ++p;
    return p;
  }

  // Skips blanks, comments and line breaks; returns the next content byte or end_.
  std::size_t SkipToContent(std::size_t p) const {
    while (true) {
      p = SkipBlanks(p);
      if (p >= end_) return end_;
      if (text_[p] == '#') {
        while (p < end_ && !IsBreakChar(text_[p])) ++p;
        continue;
      }
      if (IsBreakChar(text_[p])) {
        ++p;
        continue;
      }
      return p;
    }
  }

  // `:` followed by a blank: what makes the text before it an implicit key.
  bool ColonFollows(std::size_t p) const {
    std::size_t q = SkipBlanks(p);
    return At(q) == ':' && BlankOrEnd(q + 1);
  }

  std::uint32_t NewNode(SlotKind slot_kind, std::uint32_t parent, std::size_t entry, std::size_t slot) {
    LayoutNode node;
    node.slot_kind = slot_kind;
    node.parent = parent;
    node.entry = entry;
    node.slot = slot;
    node.begin = node.content = node.end = slot;
    layout_.nodes_.push_back(std::move(node));
    return static_cast<std::uint32_t>(layout_.nodes_.size() - 1);
  }
  LayoutNode& N(std::uint32_t index) { return layout_.nodes_[index]; }

  // Parses the node that fills a slot starting at `from` (after `:`, `-`, or
  // the document start). Content on the same line belongs to the slot; on later
  // lines it must be indented deeper than `parent_column`, except that a
  // mapping value may be a sequence whose dashes sit at the key's column.
  std::uint32_t ParseNode(std::size_t from, int parent_column, bool compact_ok, SlotKind slot_kind,
                          std::uint32_t parent, std::size_t entry) {
    const std::uint32_t index = NewNode(slot_kind, parent, entry, from);
    auto present = [&](std::size_t q) {
      if (q >= end_) return false;
      if (SameLine(from, q)) return true;
      const int column = Column(q);
      return column > parent_column || (compact_ok && column == parent_column && IsDash(q));
    };
    std::size_t p = SkipToContent(from);
    if (!present(p)) {
      N(index).column = static_cast<std::uint32_t>(Column(from));
      return index;  // kEmpty
    }
    N(index).begin = p;
    while (At(p) == '&' || At(p) == '!') {
      std::size_t q = p;
      while (!BlankOrEnd(q)) ++q;
      std::size_t next = SkipToContent(q);
      if (!present(next)) {
        // Properties alone: an empty scalar such as `!!str` or `&a`.
        LayoutNode& n = N(index);
        n.kind = LayoutKind::kScalar;
        n.content = n.end = q;
        n.column = static_cast<std::uint32_t>(Column(n.begin));
        return index;
      }
      // Properties written on the same line as an implicit key belong to the key.
      if (SameLine(p, next) && KeyFollowsAt(next)) {
        return ParseBlockMapAt(index, N(index).begin, p);
      }
      p = next;
    }
    N(index).content = p;
    N(index).column = static_cast<std::uint32_t>(Column(p));
    const char c = text_[p];
    if (IsDash(p)) {
      if (slot_kind == SlotKind::kMapValue && SameLine(from, p)) {
        return FailNode(p, "a block sequence cannot start on the line of its key");
      }
      return ParseBlockSeq(index, p);
    }
    if (c == '|' || c == '>') return ParseBlockScalar(index, p, parent_column);
    if (c == '[' || c == '{') {
      std::size_t q = ScanFlow(p);
      if (q == 0) return kNoNode;
      if (ColonFollows(q)) return FailNode(p, "a flow collection used as a mapping key is not supported");
      LayoutNode& n = N(index);
      n.kind = c == '[' ? LayoutKind::kFlowSeq : LayoutKind::kFlowMap;
      n.end = q;
      return index;
    }
    if (c == '*') {
      std::size_t q = p + 1;
      while (!BlankOrEnd(q)) ++q;
      if (ColonFollows(q)) return FailNode(p, "an alias used as a mapping key is not supported");
      N(index).kind = LayoutKind::kAlias;
      N(index).end = q;
      return index;
    }
    if (c == '?' && BlankOrEnd(p + 1)) return FailNode(p, "explicit `?` mapping keys are not supported");
    if (KeyFollowsAt(p)) {
      if (slot_kind == SlotKind::kMapValue && SameLine(from, p)) {
        return FailNode(p, "a mapping cannot start on the line of its key");
      }
      return ParseBlockMapAt(index, N(index).begin, p);
    }
    std::size_t q = 0;
    if (c == '"' || c == '\'') {
      q = ScanQuoted(p);
      if (q == 0) return kNoNode;
    } else {
      q = ExtendPlain(ScanPlainLine(p), parent_column);
    }
    N(index).kind = LayoutKind::kScalar;
    N(index).end = q;
    return index;
  }

  // True when a single-line scalar starting at `p` is followed by `: `.
  bool KeyFollowsAt(std::size_t p) const {
    char c = At(p);
    if (c == '[' || c == '{' || c == '|' || c == '>' || c == '*' || IsDash(p)) return false;
    if (c == '?' && BlankOrEnd(p + 1)) return false;
    std::size_t q;
    if (c == '"' || c == '\'') {
      q = ScanQuotedQuiet(p);
      if (q == 0 || !SameLine(p, q)) return false;
    } else {
      q = ScanPlainLine(p);
    }
    return ColonFollows(q);
  }

  // The block mapping whose first key starts at `key` (properties of the key
  // included), at the key's column.
  std::uint32_t ParseBlockMapAt(std::uint32_t index, std::size_t begin, std::size_t key) {
    {
      LayoutNode& n = N(index);
      n.kind = LayoutKind::kBlockMap;
      n.begin = begin;
      n.content = key;
      n.column = static_cast<std::uint32_t>(Column(key));
    }
    const int column = Column(key);
    std::size_t k = key;
    while (true) {
      std::size_t key_begin = k;
      std::size_t kp = k;
      while (At(kp) == '&' || At(kp) == '!') {
        while (!BlankOrEnd(kp)) ++kp;
        kp = SkipBlanks(kp);
      }
      const char c = At(kp);
      if (c == '?' && BlankOrEnd(kp + 1)) return FailNode(kp, "explicit `?` mapping keys are not supported");
      if (c == '[' || c == '{') return FailNode(kp, "a flow collection used as a mapping key is not supported");
      if (c == '*') return FailNode(kp, "an alias used as a mapping key is not supported");
      const bool quoted = c == '"' || c == '\'';
      const std::size_t ke = quoted ? ScanQuoted(kp) : ScanPlainLine(kp);
      if (quoted && ke == 0) return kNoNode;
      if (!SameLine(kp, ke)) return FailNode(kp, "a multi-line mapping key is not supported");
      std::size_t colon = SkipBlanks(ke);
      if (!(At(colon) == ':' && BlankOrEnd(colon + 1))) {
        return FailNode(kp, "expected `key: value` in a block mapping");
      }
      std::string key_text;
      if (!DecodeKeyText(text_.substr(kp, ke - kp), &key_text)) {
        return FailNode(kp, "cannot read this mapping key");
      }
      // A plain null key (`~:`, `null:`, or none at all) is no string key
      // for yaml-cpp: only the cross-checked scan may take it on.
      if (!quoted && IsNullWord(key_text)) layout_.needs_cross_check_ = true;
      std::uint32_t child = ParseNode(colon + 1, column, true, SlotKind::kMapValue, index, key_begin);
      if (child == kNoNode) return kNoNode;
      N(child).key = std::move(key_text);
      N(index).children.push_back(child);
      N(index).end = N(child).end;  // an empty value ends at its slot, just after the colon
      std::size_t next = SkipToContent(N(child).end);
      if (next >= end_ || Column(next) < column) break;
      if (Column(next) == column && layout_.AtLineStart(next) && !IsDash(next)) {
        k = next;
        continue;
      }
      return FailNode(next, Column(next) == column ? "a sequence item where a mapping key was expected"
                                                   : "unexpected indentation in a block mapping");
    }
    return index;
  }

  std::uint32_t ParseBlockSeq(std::uint32_t index, std::size_t dash) {
    N(index).kind = LayoutKind::kBlockSeq;
    const int column = Column(dash);
    while (true) {
      std::uint32_t child = ParseNode(dash + 1, column, false, SlotKind::kSeqItem, index, dash);
      if (child == kNoNode) return kNoNode;
      N(index).children.push_back(child);
      N(index).end = std::max(N(child).end, dash + 1);
      std::size_t next = SkipToContent(N(child).end);
      if (next >= end_ || Column(next) < column) break;
      if (Column(next) == column && IsDash(next) && layout_.AtLineStart(next)) {
        dash = next;
        continue;
      }
      if (Column(next) == column) break;  // the next key of the mapping this compact sequence is a value of
      return FailNode(next, "unexpected indentation in a block sequence");
    }
    return index;
  }

  // `|` or `>` with its header and content lines.
  std::uint32_t ParseBlockScalar(std::uint32_t index, std::size_t p, int parent_column) {
    N(index).kind = LayoutKind::kBlockScalar;
    std::size_t q = p + 1;
    bool explicit_indent = false;
    while (q < end_ && (text_[q] == '+' || text_[q] == '-' || (text_[q] >= '0' && text_[q] <= '9'))) {
      if (text_[q] != '+' && text_[q] != '-') explicit_indent = true;
      if (text_[q] == '+') N(index).keeps_trailing_lines = true;
      ++q;
    }
    std::size_t header_end = RawLineEnd(text_, q);
    std::size_t after = SkipBlanks(q);
    if (after < header_end && text_[after] != '#') {
      return FailNode(after, "unexpected text after a block scalar header");
    }
    std::size_t end = q;
    int content_indent = explicit_indent ? parent_column + 1 : -1;
    std::size_t line = layout_.NextLineStart(header_end);
    while (line < end_) {
      std::size_t line_end = std::min(RawLineEnd(text_, line), end_);
      std::size_t first = FirstNonSpace(text_, line, line_end);
      if (first == line_end) {  // an empty line belongs to the scalar (tentatively)
        line = layout_.NextLineStart(line_end);
        continue;
      }
      const int indent = static_cast<int>(first - line);
      if (content_indent < 0) {
        if (indent <= parent_column) break;
        content_indent = indent;
      }
      if (indent < content_indent) break;
      end = line_end;
      line = layout_.NextLineStart(line_end);
    }
    N(index).end = end;
    return index;
  }

  // Returns one past the closing quote, or 0 after reporting an error.
  std::size_t ScanQuoted(std::size_t p) {
    std::size_t q = ScanQuotedQuiet(p);
    if (q == 0) Fail(p, "unterminated quoted scalar");
    return q;
  }
  std::size_t ScanQuotedQuiet(std::size_t p) const {
    const char quote = text_[p];
    std::size_t q = p + 1;
    while (q < end_) {
      char c = text_[q];
      if (quote == '\'' && c == '\'') {
        if (At(q + 1) == '\'') {
          q += 2;
          continue;
        }
        return q + 1;
      }
      if (quote == '"' && c == '\\') {
        q += 2;
        continue;
      }
      if (quote == '"' && c == '"') return q + 1;
      ++q;
    }
    return 0;
  }

  // The first line of a plain scalar: stops before `: `, ` #` and the line
  // break; trailing blanks are not part of it.
  std::size_t ScanPlainLine(std::size_t p) const {
    std::size_t last = p;
    for (std::size_t q = p; q < end_ && !IsBreakChar(text_[q]); ++q) {
      const char c = text_[q];
      if (c == ':' && BlankOrEnd(q + 1)) break;
      if (c == '#' && q > p && IsBlankChar(text_[q - 1])) break;
      if (!IsBlankChar(c)) last = q + 1;
    }
    return last;
  }

  // Continuation lines of a multi-line plain scalar: more indented than the
  // parent, not comments. `q` is the end of the content so far.
  std::size_t ExtendPlain(std::size_t q, int parent_column) const {
    while (true) {
      std::size_t r = SkipBlanks(q);
      if (r < end_ && !IsBreakChar(text_[r])) return q;  // a comment (or `: `) ends the scalar
      std::size_t line = layout_.NextLineStart(q);
      std::size_t first = line;
      while (line < end_) {
        std::size_t line_end = std::min(RawLineEnd(text_, line), end_);
        first = line;
        while (first < line_end && IsBlankChar(text_[first])) ++first;
        if (first < line_end) break;
        line = layout_.NextLineStart(line_end);
        first = end_;
      }
      if (first >= end_) return q;
      if (Column(first) <= parent_column || text_[first] == '#') return q;
      std::size_t e = ScanPlainLine(first);
      if (e == first) return q;
      q = e;
    }
  }

  // A flow collection from its opening bracket; returns one past the closing
  // bracket, or 0 after reporting an error. Quotes only open at the start of
  // a scalar, so `[don't]` is one plain scalar.
  std::size_t ScanFlow(std::size_t p) {
    int depth = 0;
    bool scalar_start = true;
    std::size_t q = p;
    while (q < end_) {
      const char c = text_[q];
      if (c == '[' || c == '{') {
        ++depth;
        scalar_start = true;
      } else if (c == ']' || c == '}') {
        if (--depth == 0) return q + 1;
        scalar_start = false;
      } else if ((c == '"' || c == '\'') && scalar_start) {
        std::size_t e = ScanQuoted(q);
        if (e == 0) return 0;
        q = e;
        scalar_start = false;
        continue;
      } else if (c == '#' && q > p && (IsBlankChar(text_[q - 1]) || IsBreakChar(text_[q - 1]))) {
        while (q < end_ && !IsBreakChar(text_[q])) ++q;
        continue;
      } else if (c == ',' || c == ':' || c == '?') {
        scalar_start = true;
      } else if (!IsBlankChar(c) && !IsBreakChar(c)) {
        scalar_start = false;
      }
      ++q;
    }
    Fail(p, "unterminated flow collection");
    return 0;
  }

  Layout& layout_;
  std::string_view text_;
  LayoutError& error_;
  std::size_t end_ = 0;
};

namespace {

// The body of a one-document piece: after its `---` marker (or from the start),
// up to a `...` line (or the end).
void FindBody(std::string_view text, std::size_t* body_begin, std::size_t* body_end) {
  *body_begin = 0;
  *body_end = text.size();
  std::size_t line = 0;
  bool started = false;
  while (line < text.size()) {
    std::size_t next = text.find('\n', line);
    next = next == std::string_view::npos ? text.size() : next + 1;
    LineClass kind = Classify(text, line);
    if (!started) {
      if (kind == LineClass::kStart) {
        *body_begin = line + 3;
        started = true;
      } else if (kind == LineClass::kContent) {
        started = true;
      }
    } else if (kind == LineClass::kEnd || kind == LineClass::kStart) {
      *body_end = line;
      return;
    }
    line = next;
  }
}

std::string Describe(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Map: return "a mapping";
    case YAML::NodeType::Sequence: return "a sequence";
    case YAML::NodeType::Null: return "null";
    case YAML::NodeType::Scalar: return "a scalar";
    default: return "nothing";
  }
}

}  // namespace

// Checks that the scanned layout and yaml-cpp's tree agree, and attaches the
// yaml-cpp nodes. Returns false with an error at the first disagreement.
class LayoutChecker {
 public:
  LayoutChecker(const std::vector<LayoutNode>& nodes, std::vector<YAML::Node>* yaml, LayoutError* error)
      : nodes_(nodes), yaml_(*yaml), error_(*error) {}

  bool Attach(std::uint32_t index, const YAML::Node& yaml) {
    const LayoutNode& n = nodes_[index];
    yaml_[index] = yaml;
    bool ok = true;
    switch (n.kind) {
      case LayoutKind::kEmpty: ok = yaml.IsNull() || (yaml.IsScalar() && yaml.Scalar().empty()); break;
      case LayoutKind::kScalar: ok = yaml.IsScalar() || yaml.IsNull(); break;
      case LayoutKind::kBlockScalar: ok = yaml.IsScalar(); break;
      case LayoutKind::kAlias: ok = yaml.IsDefined(); break;
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

  bool AttachMap(std::uint32_t index, const YAML::Node& yaml) {
    if (!yaml.IsMap() || yaml.size() != nodes_[index].children.size()) {
      return Mismatch(index, "the scanner and the YAML parser disagree about this mapping (" + Describe(yaml) + ")");
    }
    std::size_t i = 0;
    for (auto it = yaml.begin(); it != yaml.end(); ++it, ++i) {
      const std::uint32_t child = nodes_[index].children[i];
      if (!it->first.IsScalar()) return Mismatch(child, "only scalar mapping keys are supported");
      if (it->first.Scalar() != nodes_[child].key) {
        return Mismatch(child, "the scanner read key `" + nodes_[child].key + "` where the YAML parser read `" +
                                   it->first.Scalar() + "`");
      }
      if (!Attach(child, it->second)) return false;
    }
    return true;
  }

  bool AttachSeq(std::uint32_t index, const YAML::Node& yaml) {
    if (!yaml.IsSequence() || yaml.size() != nodes_[index].children.size()) {
      return Mismatch(index, "the scanner and the YAML parser disagree about this sequence (" + Describe(yaml) + ")");
    }
    for (std::size_t i = 0; i < yaml.size(); ++i) {
      if (!Attach(nodes_[index].children[i], yaml[i])) return false;
    }
    return true;
  }

  const std::vector<LayoutNode>& nodes_;
  std::vector<YAML::Node>& yaml_;
  LayoutError& error_;
};

namespace {

bool StartsWithBom(std::string_view text) { return text.substr(0, 3) == "\xEF\xBB\xBF"; }

// SplitDocuments(text) is one piece. Without a marker line after the first
// line it is (a step engine's document starts with its `---` line, if any),
// found without classifying every line.
bool OneDocumentPiece(std::string_view text) {
  bool marker_after_first_line = IsMarkerAt(text, 0, "...");
  for (std::size_t p = text.find('\n'); p != std::string_view::npos && !marker_after_first_line;
       p = text.find('\n', p + 1)) {
    marker_after_first_line = IsMarkerAt(text, p + 1, "---") || IsMarkerAt(text, p + 1, "...");
  }
  return !marker_after_first_line || SplitDocuments(text).size() == 1;
}

// yaml-cpp's reading of a text that must hold one document; false with the
// error a scan reports.
bool LoadOneDocument(std::string_view text, YAML::Node* document, LayoutError* error) {
  std::vector<YAML::Node> documents;
  try {
    documents = LoadAllDocumentsUnmarked(text);
  } catch (const YAML::Exception& e) {
    error->offset = e.mark.pos >= 0 ? static_cast<std::size_t>(e.mark.pos) : 0;
    error->message = "not valid YAML: " + e.msg;
    return false;
  }
  if (documents.size() > 1) {
    error->message = "expected one YAML document, found " + std::to_string(documents.size());
    return false;
  }
  *document = documents.empty() ? YAML::Node() : documents[0];
  return true;
}

}  // namespace

void Layout::Reset(std::string_view text) {
  text_ = text;
  nodes_.clear();
  yaml_.clear();
  needs_cross_check_ = false;
  line_starts_.assign(1, 0);
  for (std::size_t i = text.find('\n'); i != std::string_view::npos; i = text.find('\n', i + 1)) {
    line_starts_.push_back(i + 1);
  }
  std::size_t first_break = text.find('\n');
  eol_ = first_break != std::string_view::npos && first_break > 0 && text[first_break - 1] == '\r' ? "\r\n" : "\n";
}

bool Layout::ScanBody(LayoutError* error) {
  std::size_t body_begin = 0;
  std::size_t body_end = 0;
  FindBody(text_, &body_begin, &body_end);
  nodes_.reserve(2 * line_starts_.size());  // about what a manifest holds, so nodes seldom move
  LayoutScanner scanner(this, error);
  if (scanner.Run(body_begin, body_end)) return true;
  nodes_.clear();
  return false;
}

bool Layout::AttachYaml(const YAML::Node& document, LayoutError* error) const {
  std::vector<YAML::Node> yaml(nodes_.size());
  LayoutChecker checker(nodes_, &yaml, error);
  if (!checker.Attach(0, document)) return false;
  yaml_ = std::move(yaml);
  return true;
}

bool Layout::Scan(std::string_view text, LayoutError* error) {
  *error = LayoutError{};
  Reset(text);
  // A BOM, which the scanner would take for content, and a stream of
  // several documents are left to the cross-checked scan.
  if (!StartsWithBom(text) && OneDocumentPiece(text) && ScanBody(error) && !needs_cross_check_) {
    return true;
  }
  // Refused, or doubtful: the cross-checked scan decides, and its error is
  // the one yaml-cpp's reading gives first, as it was when every scan parsed
  // with yaml-cpp.
  return ScanChecked(text, error);
}

bool Layout::ScanChecked(std::string_view text, LayoutError* error) {
  *error = LayoutError{};
  Reset(text);
  YAML::Node document;
  if (!LoadOneDocument(text, &document, error) || !ScanBody(error)) return false;
  if (AttachYaml(document, error)) return true;
  nodes_.clear();
  return false;
}

const YAML::Node& Layout::Yaml(std::uint32_t index) const {
  if (yaml_.empty()) {
    LayoutError error;
    YAML::Node document;
    if (!LoadOneDocument(text_, &document, &error) || !AttachYaml(document, &error)) {
      throw LayoutUnreadable(std::move(error));
    }
  }
  return yaml_[index];
}

}  // namespace safesubst::detail
