// SPDX-License-Identifier: Apache-2.0
#include "simple_yaml.h"

#include <cstdint>
#include <vector>

#include "safesubst/yaml_encoding.h"
#include "text_checks.h"

namespace safesubst::detail {

namespace {

bool IsWordStart(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' ||
         c == '/';
}
bool IsWordChar(char c) { return IsWordStart(c) || c == '-' || c == '+'; }
bool IsPrintableAscii(char c) { return c >= 0x20 && c <= 0x7e; }

// A comment yaml-cpp reads byte for byte, so that the marks after it agree:
// printable ASCII and valid UTF-8. yaml-cpp reads control characters (a NUL,
// a lone CR) and invalid UTF-8 its own way, found by fuzzing.
bool IsPlainComment(std::string_view comment) {
  for (char c : comment) {
    if (static_cast<unsigned char>(c) < 0x80 && !IsPrintableAscii(c)) return false;
  }
  return IsValidUtf8(comment);
}

// One line with content: where its content starts and ends (before any
// comment and trailing spaces).
struct Line {
  std::size_t start;    // offset of the line's first byte
  std::size_t content;  // offset of the first non-space byte
  std::size_t end;      // offset after the last content byte
  std::uint32_t number;
  std::uint32_t indent() const { return static_cast<std::uint32_t>(content - start); }
};

// Declines by returning false from every function; `stream_` is filled as
// yaml-cpp's TreeBuilder fills it (documents, nodes in event order).
class SimpleParser {
 public:
  SimpleParser(std::string_view text, YamlStream* stream) : text_(text), stream_(stream) {}

  bool Parse() {
    if (!SplitLines() || lines_.empty() || lines_[0].indent() != 0) return false;
    std::size_t next = 0;
    if (!ParseBlockMapping(0, lines_[0].content, &next, kNoParent)) return false;
    return next == lines_.size();
  }

 private:
  static constexpr std::uint32_t kNoParent = UINT32_MAX;

  // Finds the content lines; false for bytes outside the subset (tabs, CR,
  // non-ASCII or control characters outside comments, control characters or
  // invalid UTF-8 in them, document markers, directives).
  bool SplitLines() {
    std::size_t start = 0;
    std::uint32_t number = 0;
    while (start < text_.size()) {
      std::size_t newline = text_.find('\n', start);
      std::size_t stop = newline == std::string_view::npos ? text_.size() : newline;
      std::size_t content = start;
      while (content < stop && text_[content] == ' ') ++content;
      std::size_t end = content;
      for (std::size_t i = content; i < stop; ++i) {
        const char c = text_[i];
        if (c == '#' && (i == content || text_[i - 1] == ' ')) {
          if (!IsPlainComment(text_.substr(i, stop - i))) return false;
          break;
        }
        if (!IsPrintableAscii(c)) return false;
        if (c != ' ') end = i + 1;
      }
      if (end > content) {
        if (content == start && (text_[start] == '%' || text_.compare(start, 3, "---") == 0 ||
                                 text_.compare(start, 3, "...") == 0)) {
          return false;
        }
        lines_.push_back(Line{start, content, end, number});
      }
      if (newline == std::string_view::npos) break;
      start = newline + 1;
      ++number;
    }
    return true;
  }

  std::uint32_t Add(YamlNode::Kind kind, std::size_t offset, std::uint32_t parent, const char* tag) {
    auto index = static_cast<std::uint32_t>(stream_->nodes.size());
    YamlNode node;
    node.kind = kind;
    node.tag = tag;
    node.offset = offset;
    node.line = lines_[line_].number;
    node.column = static_cast<std::uint32_t>(offset - lines_[line_].start);
    stream_->nodes.push_back(std::move(node));
    if (parent == kNoParent) {
      stream_->documents.push_back(index);
    } else {
      stream_->nodes[parent].children.push_back(index);
    }
    return index;
  }

  // A null for a key with nothing after it: yaml-cpp marks it where the next
  // token starts, the next content line or the end of the text.
  bool AddEmptyNull(std::size_t next_line, std::uint32_t parent) {
    if (next_line < lines_.size()) {
      Enter(next_line);
      Add(YamlNode::Kind::kNull, lines_[next_line].content, parent, "");
      return true;
    }
    // yaml-cpp's end mark after a last line break: the line count, column 0.
    // Without that break its column varies; leave that to yaml-cpp.
    if (text_.back() != '\n') return false;
    YamlNode& null = stream_->nodes[Add(YamlNode::Kind::kNull, text_.size(), parent, "")];
    null.line = static_cast<std::uint32_t>(CountByte(text_, '\n'));
    null.column = 0;
    return true;
  }

  // Block mapping whose first key starts at `start` on lines_[first] (after
  // `- ` for a mapping in a sequence); its other keys start lines at that
  // column, up to the first line indented less.
  bool ParseBlockMapping(std::size_t first, std::size_t start, std::size_t* next, std::uint32_t parent) {
    const auto indent = static_cast<std::uint32_t>(start - lines_[first].start);
    if (++depth_ > kMaxDepth) return false;
    Enter(first);
    const std::uint32_t mapping = Add(YamlNode::Kind::kMapping, start, parent, "?");
    std::size_t at = first;
    if (!ParseEntry(at, start, mapping, &at)) return false;
    while (at < lines_.size() && lines_[at].indent() == indent) {
      if (!ParseEntry(at, lines_[at].content, mapping, &at)) return false;
    }
    if (at < lines_.size() && lines_[at].indent() > indent) return false;
    --depth_;
    *next = at;
    return true;
  }

  // `key: value`, `key:` then a nested block, or `key:` alone (null).
  bool ParseEntry(std::size_t at, std::size_t start, std::uint32_t mapping, std::size_t* next) {
    Enter(at);
    std::size_t pos = start;
    const std::size_t end = lines_[at].end;
    if (!ParseWord(&pos, end, mapping, /*in_flow=*/false)) return false;
    if (pos >= end || text_[pos] != ':') return false;
    ++pos;
    if (pos < end) {
      if (text_[pos] != ' ') return false;
      while (text_[pos] == ' ') ++pos;
      if (!ParseInlineValue(&pos, end, mapping) || pos != end) return false;
      *next = at + 1;
      return true;
    }
    return ParseNestedValue(at, static_cast<std::uint32_t>(start - lines_[at].start), mapping, next);
  }

  // What follows `key:` on the lines after it.
  bool ParseNestedValue(std::size_t at, std::uint32_t indent, std::uint32_t mapping, std::size_t* next) {
    const std::size_t below = at + 1;
    if (below < lines_.size() && IsSequenceItem(lines_[below]) && lines_[below].indent() >= indent) {
      return ParseBlockSequence(below, next, mapping);
    }
    if (below < lines_.size() && lines_[below].indent() > indent) {
      return ParseBlockMapping(below, lines_[below].content, next, mapping);
    }
    *next = below;
    return AddEmptyNull(below, mapping);
  }

  bool IsSequenceItem(const Line& line) const {
    return text_[line.content] == '-' && line.content + 1 < line.end && text_[line.content + 1] == ' ';
  }

  // `- value` lines at one indent, each value a scalar, a flow collection or
  // a block mapping that starts on the item's line (`- key: value`).
  bool ParseBlockSequence(std::size_t first, std::size_t* next, std::uint32_t parent) {
    const std::uint32_t indent = lines_[first].indent();
    Enter(first);
    const std::uint32_t sequence = Add(YamlNode::Kind::kSequence, lines_[first].content, parent, "?");
    std::size_t at = first;
    while (at < lines_.size() && lines_[at].indent() == indent && IsSequenceItem(lines_[at])) {
      Enter(at);
      std::size_t pos = lines_[at].content + 1;
      while (text_[pos] == ' ') ++pos;
      if (StartsKey(pos, lines_[at].end)) {
        if (!ParseBlockMapping(at, pos, &at, sequence)) return false;
        continue;
      }
      if (!ParseInlineValue(&pos, lines_[at].end, sequence) || pos != lines_[at].end) return false;
      ++at;
    }
    // A less indented line ends it; anything else at or below this indent
    // (a mapping key beside the items, a deeper line) is outside the subset.
    if (at < lines_.size() && lines_[at].indent() >= indent) {
      if (parent == kNoParent || lines_[at].indent() > indent) return false;
      const YamlNode& owner = stream_->nodes[parent];
      if (owner.kind != YamlNode::Kind::kMapping || owner.column != indent) return false;
    }
    *next = at;
    return true;
  }

  // A value on the line: a word, quoted text or a flow collection.
  bool ParseInlineValue(std::size_t* pos, std::size_t end, std::uint32_t parent) {
    return ParseFlowNode(pos, end, parent, /*in_flow=*/false);
  }

  bool ParseFlowNode(std::size_t* pos, std::size_t end, std::uint32_t parent, bool in_flow) {
    if (*pos >= end) return false;
    switch (text_[*pos]) {
      case '{': return ParseFlowCollection(pos, end, parent, YamlNode::Kind::kMapping);
      case '[': return ParseFlowCollection(pos, end, parent, YamlNode::Kind::kSequence);
      case '\'':
      case '"': return ParseQuoted(pos, end, parent);
      default: return ParseWord(pos, end, parent, in_flow);
    }
  }

  // `{k: v, ...}` or `[v, ...]` on one line; nested collections allowed.
  bool ParseFlowCollection(std::size_t* pos, std::size_t end, std::uint32_t parent, YamlNode::Kind kind) {
    const bool mapping = kind == YamlNode::Kind::kMapping;
    const char close = mapping ? '}' : ']';
    const std::uint32_t collection = Add(kind, *pos, parent, "?");
    stream_->nodes[collection].flow = true;
    if (++depth_ > kMaxDepth) return false;
    ++*pos;
    SkipSpaces(pos, end);
    if (*pos < end && text_[*pos] == close) {
      ++*pos;
      --depth_;
      return true;
    }
    while (true) {
      if (mapping) {
        if (!ParseWord(pos, end, collection, /*in_flow=*/true)) return false;
        if (*pos + 1 >= end || text_[*pos] != ':' || text_[*pos + 1] != ' ') return false;
        *pos += 2;
        SkipSpaces(pos, end);
      }
      if (!ParseFlowNode(pos, end, collection, /*in_flow=*/true)) return false;
      SkipSpaces(pos, end);
      if (*pos >= end) return false;
      if (text_[*pos] == close) break;
      if (text_[*pos] != ',') return false;
      ++*pos;
      SkipSpaces(pos, end);
    }
    ++*pos;
    --depth_;
    return true;
  }

  // 'text' without '' inside, or "text" without \ or " inside.
  bool ParseQuoted(std::size_t* pos, std::size_t end, std::uint32_t parent) {
    const char quote = text_[*pos];
    const std::size_t close = text_.find(quote, *pos + 1);
    // Beyond `end` also when a ` #` inside the quotes was taken for a comment.
    if (close == std::string_view::npos || close >= end) return false;
    const std::string_view inside = text_.substr(*pos + 1, close - *pos - 1);
    if (quote == '"' && inside.find('\\') != std::string_view::npos) return false;
    if (close + 1 < text_.size() && text_[close + 1] == quote) return false;  // '' escape
    const std::uint32_t scalar = Add(YamlNode::Kind::kScalar, *pos, parent, "!");
    stream_->nodes[scalar].text = std::string(inside);
    *pos = close + 1;
    return true;
  }

  // A plain word (see WordEnd); `null`, `Null` and `NULL` are nulls.
  bool ParseWord(std::size_t* pos, std::size_t end, std::uint32_t parent, bool in_flow) {
    const std::size_t start = *pos;
    const std::size_t stop = WordEnd(start, end, in_flow);
    if (stop == start) return false;
    const std::string_view word = text_.substr(start, stop - start);
    if (word == "null" || word == "Null" || word == "NULL") {
      Add(YamlNode::Kind::kNull, start, parent, "");
    } else {
      const std::uint32_t scalar = Add(YamlNode::Kind::kScalar, start, parent, "?");
      stream_->nodes[scalar].text = std::string(word);
    }
    *pos = stop;
    return true;
  }

  // Where the word at `start` ends; `start` when there is none. A word: a
  // letter, digit or one of `_./`, then those and `-+` (and `[]` outside flow
  // collections), words separated by single spaces. What may follow a word: the end, `: ` or a `:` that ends the line (a key), spaces,
  // and in flow `,`, `]` or `}`.
  std::size_t WordEnd(std::size_t start, std::size_t end, bool in_flow) const {
    if (start >= end || !IsWordStart(text_[start])) return start;
    auto inside = [&](char c) { return IsWordChar(c) || (!in_flow && (c == '[' || c == ']')); };
    std::size_t stop = start + 1;
    while (stop < end) {
      if (inside(text_[stop])) {
        ++stop;
      } else if (text_[stop] == ' ' && stop + 1 < end && inside(text_[stop + 1])) {
        stop += 2;
      } else {
        break;
      }
    }
    if (stop == end) return stop;
    const char after = text_[stop];
    if (after == ':') return stop + 1 == end || text_[stop + 1] == ' ' ? stop : start;
    return after == ' ' || (in_flow && (after == ',' || after == ']' || after == '}')) ? stop : start;
  }

  // A block mapping key at `start`: a word, then `: ` or a `:` ending the line.
  bool StartsKey(std::size_t start, std::size_t end) const {
    const std::size_t stop = WordEnd(start, end, /*in_flow=*/false);
    return stop != start && stop < end && text_[stop] == ':';
  }

  void SkipSpaces(std::size_t* pos, std::size_t end) const {
    while (*pos < end && text_[*pos] == ' ') ++*pos;
  }

  // Makes lines_[at] the line that new nodes' marks are on.
  void Enter(std::size_t at) { line_ = at; }

  // Nesting deeper than configuration ever does is left to yaml-cpp and its
  // own guard: this parser recurses once per level.
  static constexpr int kMaxDepth = 64;

  std::string_view text_;
  YamlStream* stream_;
  std::vector<Line> lines_;
  std::size_t line_ = 0;
  int depth_ = 0;
};

}  // namespace

bool ParseSimpleYaml(std::string_view text, YamlStream* stream) {
  *stream = YamlStream{};
  if (SimpleParser(text, stream).Parse()) return true;
  *stream = YamlStream{};
  return false;
}

}  // namespace safesubst::detail
