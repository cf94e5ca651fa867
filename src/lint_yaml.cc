// SPDX-License-Identifier: Apache-2.0
// Source positions for lint findings: from yaml-cpp marks and decoded scalar
// values back to exact byte offsets in the input.
//
// yaml-cpp gives each node the position where it starts, and the decoded
// value, but not where each character of the value came from. The rules need
// that for scripts (a finding on line 12 of a block scalar must say line 12),
// so ViewScalar re-decodes the scalar from the source while recording offsets,
// then checks that the result equals yaml-cpp's value. If it does not (an
// alias, a style this code does not handle), every offset is the node's own:
// still a correct, if coarser, location.
#include <yaml-cpp/eventhandler.h>

#include <algorithm>
#include <sstream>

#include "lint_internal.h"

namespace safesubst::lint {

namespace {

bool IsBlank(char c) { return c == ' ' || c == '\t'; }

std::string_view StripTrailingNewlines(std::string_view text) {
  while (!text.empty() && text.back() == '\n') text.remove_suffix(1);
  return text;
}

// Appends the UTF-8 encoding of `code_point`.
void AppendUtf8(std::string& out, unsigned long code_point) {
  if (code_point < 0x80) {
    out += static_cast<char>(code_point);
  } else if (code_point < 0x800) {
    out += static_cast<char>(0xC0 | (code_point >> 6));
    out += static_cast<char>(0x80 | (code_point & 0x3F));
  } else if (code_point < 0x10000) {
    out += static_cast<char>(0xE0 | (code_point >> 12));
    out += static_cast<char>(0x80 | ((code_point >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (code_point & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (code_point >> 18));
    out += static_cast<char>(0x80 | ((code_point >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((code_point >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (code_point & 0x3F));
  }
}

// Text under construction with the source offset of each byte.
struct Builder {
  std::string text;
  std::vector<std::size_t> offsets;

  void Append(char c, std::size_t offset) {
    text += c;
    offsets.push_back(offset);
  }
  void AppendAll(std::string_view bytes, std::size_t offset) {
    for (char c : bytes) Append(c, offset);
  }
};

// One line of the source: [begin, end) without the line break (and without a '\r').
struct Line {
  std::size_t begin = 0;
  std::size_t end = 0;
};

Line LineAt(std::string_view text, std::size_t begin) {
  std::size_t end = text.find('\n', begin);
  if (end == std::string_view::npos) end = text.size();
  Line line{begin, end};
  if (line.end > line.begin && text[line.end - 1] == '\r') --line.end;
  return line;
}

std::size_t NextLineStart(std::string_view text, std::size_t begin) {
  std::size_t newline = text.find('\n', begin);
  return newline == std::string_view::npos ? text.size() : newline + 1;
}

std::size_t LeadingSpaces(std::string_view text, Line line) {
  std::size_t n = 0;
  while (line.begin + n < line.end && text[line.begin + n] == ' ') ++n;
  return n;
}

// Flow scalar line folding (YAML 1.2 §7.3): at `pos` (a line break inside a
// quoted or plain scalar), trailing blanks already written are dropped, the
// break and the next lines' leading blanks are skipped, and one space (or one
// '\n' per empty line) is written. Returns the position after the blanks.
std::size_t FoldLineBreak(std::string_view text, std::size_t pos, std::size_t trimmable, Builder& out) {
  while (trimmable > 0 && !out.text.empty() && IsBlank(out.text.back())) {
    out.text.pop_back();
    out.offsets.pop_back();
    --trimmable;
  }
  std::size_t break_offset = pos;
  std::size_t empty_lines = 0;
  pos = NextLineStart(text, pos);
  while (true) {
    while (pos < text.size() && IsBlank(text[pos])) ++pos;
    if (pos < text.size() && text[pos] == '\r') ++pos;
    if (pos < text.size() && text[pos] == '\n') {
      ++empty_lines;
      ++pos;
      continue;
    }
    break;
  }
  if (empty_lines == 0) {
    out.Append(' ', break_offset);
  } else {
    for (std::size_t i = 0; i < empty_lines; ++i) out.Append('\n', break_offset);
  }
  return pos;
}

bool IsHex(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
unsigned long HexValue(char c) {
  if (c >= '0' && c <= '9') return static_cast<unsigned long>(c - '0');
  if (c >= 'a' && c <= 'f') return static_cast<unsigned long>(c - 'a' + 10);
  return static_cast<unsigned long>(c - 'A' + 10);
}

// `"..."` starting at `quote`.
Builder DecodeDoubleQuoted(std::string_view text, std::size_t quote) {
  Builder out;
  std::size_t pos = quote + 1;
  std::size_t trimmable = 0;  // literal blanks at the end of `out` (escaped ones are kept)
  while (pos < text.size() && text[pos] != '"') {
    char c = text[pos];
    if (c == '\\' && pos + 1 < text.size()) {
      char e = text[pos + 1];
      std::size_t at = pos;
      trimmable = 0;
      if (e == '\n' || e == '\r') {  // escaped line break: join without a space
        pos = NextLineStart(text, pos + 1);
        while (pos < text.size() && IsBlank(text[pos])) ++pos;
        continue;
      }
      // The one-character escapes and what they stand for (kDecoded holds a NUL,
      // so it is built with an explicit length).
      static constexpr std::string_view kSimple = "0abt\tnvfre \"/\\";
      static constexpr std::string_view kDecoded("\0\a\b\t\t\n\v\f\r\x1b \"/\\", 14);
      static_assert(kSimple.size() == kDecoded.size());
      std::size_t simple = kSimple.find(e);
      if (simple != std::string_view::npos) {
        out.Append(kDecoded[simple], at);
        pos += 2;
      } else if (e == 'N' || e == '_' || e == 'L' || e == 'P') {
        std::string bytes;
        AppendUtf8(bytes, e == 'N' ? 0x85 : e == '_' ? 0xA0 : e == 'L' ? 0x2028 : 0x2029);
        out.AppendAll(bytes, at);
        pos += 2;
      } else if (e == 'x' || e == 'u' || e == 'U') {
        std::size_t digits = e == 'x' ? 2 : e == 'u' ? 4 : 8;
        unsigned long code_point = 0;
        std::size_t i = pos + 2;
        for (; i < pos + 2 + digits && i < text.size() && IsHex(text[i]); ++i) {
          code_point = code_point * 16 + HexValue(text[i]);
        }
        std::string bytes;
        AppendUtf8(bytes, code_point);
        out.AppendAll(bytes, at);
        pos = i;
      } else {
        out.Append(e, at);  // not valid YAML; yaml-cpp would have refused it
        pos += 2;
      }
    } else if (c == '\n' || (c == '\r' && pos + 1 < text.size() && text[pos + 1] == '\n')) {
      pos = FoldLineBreak(text, pos, trimmable, out);
      trimmable = 0;
    } else {
      out.Append(c, pos);
      trimmable = IsBlank(c) ? trimmable + 1 : 0;
      ++pos;
    }
  }
  return out;
}

// `'...'` starting at `quote`.
Builder DecodeSingleQuoted(std::string_view text, std::size_t quote) {
  Builder out;
  std::size_t pos = quote + 1;
  std::size_t trimmable = 0;
  while (pos < text.size()) {
    char c = text[pos];
    if (c == '\'') {
      if (pos + 1 < text.size() && text[pos + 1] == '\'') {
        out.Append('\'', pos);
        pos += 2;
        trimmable = 0;
        continue;
      }
      break;
    }
    if (c == '\n' || (c == '\r' && pos + 1 < text.size() && text[pos + 1] == '\n')) {
      pos = FoldLineBreak(text, pos, trimmable, out);
      trimmable = 0;
    } else {
      out.Append(c, pos);
      trimmable = IsBlank(c) ? trimmable + 1 : 0;
      ++pos;
    }
  }
  return out;
}

// A plain scalar of `length` decoded bytes starting at `begin`.
Builder DecodePlain(std::string_view text, std::size_t begin, std::size_t length) {
  Builder out;
  std::size_t pos = begin;
  std::size_t trimmable = 0;
  while (pos < text.size() && out.text.size() < length) {
    char c = text[pos];
    if (c == '\n' || (c == '\r' && pos + 1 < text.size() && text[pos + 1] == '\n')) {
      pos = FoldLineBreak(text, pos, trimmable, out);
      trimmable = 0;
    } else {
      out.Append(c, pos);
      trimmable = IsBlank(c) ? trimmable + 1 : 0;
      ++pos;
    }
  }
  return out;
}

// The content lines of a block scalar whose header ends the line of
// `indicator`, taking `indent` as the content indentation.
std::vector<Line> BlockLines(std::string_view text, std::size_t indicator, std::size_t indent) {
  std::vector<Line> lines;
  std::size_t pos = NextLineStart(text, indicator);
  while (pos < text.size()) {
    Line line = LineAt(text, pos);
    std::size_t spaces = LeadingSpaces(text, line);
    bool blank = spaces == line.end - line.begin;
    if (!blank && spaces < indent) break;
    lines.push_back(line);
    pos = NextLineStart(text, pos);
  }
  return lines;
}

// Decodes a literal (`|`) or folded (`>`) block with content indentation `indent`.
Builder DecodeBlock(std::string_view text, std::size_t indicator, std::size_t indent, bool folded) {
  Builder out;
  std::vector<Line> lines = BlockLines(text, indicator, indent);
  std::size_t pending_breaks = 0;  // line breaks not yet written
  bool have_content = false;
  bool previous_more_indented = false;
  std::size_t previous_end = indicator;
  for (const Line& line : lines) {
    std::size_t length = line.end - line.begin;
    bool empty = length <= indent && LeadingSpaces(text, line) == length;
    if (empty) {
      ++pending_breaks;
      continue;
    }
    std::size_t content = line.begin + indent;
    bool more_indented = IsBlank(text[content]);
    if (have_content) {
      if (folded && !previous_more_indented && !more_indented) {
        // One break between two normal lines is a space; with empty lines in
        // between, the first break is dropped and each empty line is a '\n'.
        if (pending_breaks == 1) {
          out.Append(' ', previous_end);
        } else {
          for (std::size_t i = 1; i < pending_breaks; ++i) out.Append('\n', previous_end);
        }
      } else {
        for (std::size_t i = 0; i < pending_breaks; ++i) out.Append('\n', previous_end);
      }
    } else {
      for (std::size_t i = 0; i < pending_breaks; ++i) out.Append('\n', line.begin);
    }
    for (std::size_t pos = content; pos < line.end; ++pos) out.Append(text[pos], pos);
    have_content = true;
    previous_more_indented = more_indented;
    previous_end = line.end;
    pending_breaks = 1;
  }
  return out;
}

// Tries the block's auto-detected indentation, then (for an explicit
// indentation indicator) the smaller ones, until the decoding matches `value`.
bool ViewBlock(std::string_view text, std::size_t indicator, std::string_view value, ScalarView* view) {
  bool folded = text[indicator] == '>';
  std::size_t first_content_indent = 0;
  for (std::size_t pos = NextLineStart(text, indicator); pos < text.size(); pos = NextLineStart(text, pos)) {
    Line line = LineAt(text, pos);
    std::size_t spaces = LeadingSpaces(text, line);
    if (spaces < line.end - line.begin) {
      first_content_indent = spaces;
      break;
    }
  }
  for (std::size_t indent = first_content_indent; indent >= 1; --indent) {
    Builder decoded = DecodeBlock(text, indicator, indent, folded);
    if (StripTrailingNewlines(decoded.text) == StripTrailingNewlines(value)) {
      view->offsets = std::move(decoded.offsets);
      return true;
    }
  }
  return false;
}

}  // namespace

Source::Source(std::string_view text, std::string file) : text_(text), file_(std::move(file)) {
  if (text_.substr(0, 3) == "\xEF\xBB\xBF") bom_ = 3;
  line_starts_.push_back(0);
  for (std::size_t i = 0; i < text_.size(); ++i) {
    if (text_[i] == '\n') line_starts_.push_back(i + 1);
  }
}

std::size_t Source::NodeOffset(const YAML::Node& node) const {
  YAML::Mark mark = node.Mark();
  if (mark.pos < 0) return 0;
  return std::min(static_cast<std::size_t>(mark.pos) + bom_, text_.size());
}

std::size_t Source::ScalarOffset(const YAML::Node& node) const {
  std::size_t pos = NodeOffset(node);
  // Skip a tag (`!!str`) and an anchor (`&a`) in front of the scalar.
  while (pos < text_.size() && (text_[pos] == '!' || text_[pos] == '&')) {
    while (pos < text_.size() && !IsBlank(text_[pos]) && text_[pos] != '\n') ++pos;
    while (pos < text_.size() && IsBlank(text_[pos])) ++pos;
  }
  return pos;
}

Location Source::At(std::size_t offset) const {
  offset = std::min(offset, text_.size());
  auto next = std::upper_bound(line_starts_.begin(), line_starts_.end(), offset);
  std::size_t line_index = static_cast<std::size_t>(next - line_starts_.begin()) - 1;
  Location location;
  location.file = file_;
  location.line = static_cast<std::uint32_t>(line_index + 1);
  location.column = static_cast<std::uint32_t>(offset - line_starts_[line_index] + 1);
  location.offset = offset;
  return location;
}

std::size_t ScalarView::Offset(std::size_t index) const {
  if (offsets.empty()) return node_offset;
  return offsets[std::min(index, offsets.size() - 1)];
}

ScalarView ViewScalar(const Source& source, const YAML::Node& node) {
  ScalarView view;
  view.node_offset = source.NodeOffset(node);
  if (!node.IsScalar()) return view;
  view.text = node.Scalar();
  std::string_view text = source.text();
  const std::size_t pos = source.ScalarOffset(node);
  if (pos >= text.size()) return view;
  char style = text[pos];
  bool matched = false;
  if (style == '|' || style == '>') {
    view.block = true;
    matched = ViewBlock(text, pos, view.text, &view);
  } else {
    Builder decoded = style == '"'    ? DecodeDoubleQuoted(text, pos)
                      : style == '\'' ? DecodeSingleQuoted(text, pos)
                                      : DecodePlain(text, pos, view.text.size());
    matched = decoded.text == view.text;
    if (matched) view.offsets = std::move(decoded.offsets);
  }
  if (matched) {
    view.exact = true;
    // One past the end maps just after the last byte, for empty spans at the end.
    view.offsets.push_back(view.offsets.empty() ? pos : view.offsets.back() + 1);
  } else {
    view.offsets.clear();
  }
  return view;
}

YAML::Node Get(const YAML::Node& map, std::string_view key) {
  // Not `YAML::Node value;`: a default-constructed Node is a defined null, and
  // callers need to tell "absent" from "key: ~".
  YAML::Node value(YAML::NodeType::Undefined);
  GetWithKey(map, key, nullptr, &value);
  return value;
}

bool GetWithKey(const YAML::Node& map, std::string_view key, YAML::Node* key_node, YAML::Node* value) {
  if (!map.IsMap()) return false;
  for (auto it = map.begin(); it != map.end(); ++it) {
    if (it->first.IsScalar() && it->first.Scalar() == key) {
      // reset(), not operator=: assigning to a bound yaml-cpp Node rewrites the
      // node it refers to (here: the caller's document) instead of rebinding.
      if (key_node != nullptr) key_node->reset(it->first);
      value->reset(it->second);
      return true;
    }
  }
  return false;
}

std::string ScalarText(const YAML::Node& node) { return node.IsScalar() ? node.Scalar() : std::string(); }

YAML::Node Path(const YAML::Node& node, std::initializer_list<std::string_view> keys) {
  YAML::Node current = node;
  for (std::string_view key : keys) {
    YAML::Node next = Get(current, key);
    if (!next.IsDefined() || next.IsNull()) return YAML::Node(YAML::NodeType::Undefined);
    current.reset(next);
  }
  return current;
}

Script MakeScript(const Source& source, const YAML::Node& node, ScriptShells shells) {
  Script script;
  script.node.reset(node);
  script.view = ViewScalar(source, node);
  script.shell = ParseShell(script.view.text);
  script.shells = shells;
  return script;
}

}  // namespace safesubst::lint
