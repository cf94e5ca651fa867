// SPDX-License-Identifier: Apache-2.0
#include "input_limits.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <string_view>
#include <vector>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "bounded_read.h"
#include "text_checks.h"

namespace safesubst {

namespace {

// Scans YAML text well enough to bound its nesting and count its aliases,
// without building anything: flow brackets, block indentation levels, quoted
// scalars (which may span lines), comments and block scalar bodies. A
// document marker line ends whatever was open (YAML forbids one inside a
// quoted scalar or a flow collection), so each document starts afresh.
class StructureScanner {
 public:
  explicit StructureScanner(std::string_view text) : text_(text) {}

  void Run() {
    std::size_t position = 0;
    while (position < text_.size()) {
      std::size_t end = text_.find('\n', position);
      if (end == std::string_view::npos) end = text_.size();
      ScanLine(position, end);
      position = end + 1;
    }
  }

  std::uint32_t deepest() const { return deepest_; }
  std::size_t deepest_offset() const { return deepest_offset_; }
  std::uint32_t aliases() const { return aliases_; }

 private:
  static bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\r'; }
  static bool IsFlowIndicator(char c) { return c == '[' || c == ']' || c == '{' || c == '}' || c == ','; }
  // The characters ScanLine acts on; all others only extend the current token.
  // A table: this test runs once per byte of the template.
  static constexpr std::array<bool, 256> kSpecial = [] {
    std::array<bool, 256> special{};
    for (unsigned char c : std::string_view("\"'#-?[]{}*|>")) special[c] = true;
    return special;
  }();
  static bool IsSpecial(char c) { return kSpecial[static_cast<unsigned char>(c)]; }

  // True when the character at `i` starts a token: at line start or after
  // white space or a flow indicator.
  bool AtTokenStart(std::size_t line_start, std::size_t i) const {
    if (i == line_start) return true;
    char previous = text_[i - 1];
    return IsSpace(previous) || IsFlowIndicator(previous);
  }

  void Record(std::uint32_t depth, std::size_t offset) {
    if (depth > deepest_) {
      deepest_ = depth;
      deepest_offset_ = offset;
    }
  }

  void ScanLine(std::size_t start, std::size_t end) {
    if (IsDocumentMarkerLine(text_, start)) {
      flow_depth_ = 0;
      quote_ = 0;
      block_scalar_parent_ = -1;
    }
    std::size_t i = start;
    while (i < end && text_[i] == ' ') ++i;
    std::uint32_t indent = static_cast<std::uint32_t>(i - start);
    bool blank = i == end || text_[i] == '#' || text_[i] == '\r';
    if (block_scalar_parent_ >= 0) {
      if (blank || static_cast<std::int64_t>(indent) > block_scalar_parent_) return;
      block_scalar_parent_ = -1;
    }
    if (quote_ == 0 && flow_depth_ == 0 && !blank) {
      while (!indents_.empty() && indents_.back() > indent) indents_.pop_back();
      if (indents_.empty() || indents_.back() < indent) indents_.push_back(indent);
    }
    std::uint32_t compact = 0;  // `- - x` and `? ` open a level each on one line
    for (; i < end; ++i) {
      char c = text_[i];
      // Most characters change nothing: record the depth once for a run of them.
      if (quote_ == 0 && !IsSpecial(c)) {
        Record(static_cast<std::uint32_t>(indents_.size()) + compact + flow_depth_, i);
        while (i + 1 < end && !IsSpecial(text_[i + 1])) ++i;
        continue;
      }
      if (quote_ != 0) {
        i = SkipQuoted(i, end);
        continue;
      }
      if ((c == '"' || c == '\'') && AtTokenStart(start, i)) {
        quote_ = c;
        continue;
      }
      if (c == '#' && AtTokenStart(start, i)) break;
      if ((c == '-' || c == '?') && flow_depth_ == 0 && AtTokenStart(start, i) &&
          (i + 1 == end || IsSpace(text_[i + 1]))) {
        ++compact;
      } else if ((c == '[' || c == '{') && (flow_depth_ > 0 || AtTokenStart(start, i))) {
        ++flow_depth_;
      } else if ((c == ']' || c == '}') && flow_depth_ > 0) {
        --flow_depth_;
      } else if (c == '*' && AtTokenStart(start, i) && i + 1 < end && !IsSpace(text_[i + 1])) {
        ++aliases_;
      } else if ((c == '|' || c == '>') && flow_depth_ == 0 && AtTokenStart(start, i) && OnlyIndicatorsFollow(i + 1, end)) {
        block_scalar_parent_ = indent;
      }
      Record(static_cast<std::uint32_t>(indents_.size()) + compact + flow_depth_, i);
    }
  }

  // Skips quoted text from `i`; returns the index of the closing quote or `end - 1`.
  std::size_t SkipQuoted(std::size_t i, std::size_t end) {
    for (; i < end; ++i) {
      char c = text_[i];
      if (quote_ == '"' && c == '\\') {
        ++i;
      } else if (c == quote_) {
        if (quote_ == '\'' && i + 1 < end && text_[i + 1] == '\'') {
          ++i;
          continue;
        }
        quote_ = 0;
        return i;
      }
    }
    return end - 1;
  }

  // After `|` or `>`: only indentation/chomping indicators, spaces and a comment.
  bool OnlyIndicatorsFollow(std::size_t i, std::size_t end) const {
    for (; i < end; ++i) {
      char c = text_[i];
      if (c == '#') return i > 0 && IsSpace(text_[i - 1]);
      if (!(c == '-' || c == '+' || (c >= '1' && c <= '9') || IsSpace(c))) return false;
    }
    return true;
  }

  std::string_view text_;
  std::vector<std::uint32_t> indents_;
  std::uint32_t flow_depth_ = 0;
  char quote_ = 0;
  std::int64_t block_scalar_parent_ = -1;
  std::uint32_t deepest_ = 0;
  std::size_t deepest_offset_ = 0;
  std::uint32_t aliases_ = 0;
};

// What the shortcuts of CheckInputLimits need to know of a text.
struct TextBounds {
  std::size_t longest_line = 0;
  std::size_t most_brackets = 0;  // `[` and `{` in one document
  std::size_t stars = 0;          // `*`, an upper bound on the aliases
};

// One pass over `text`: the line feeds, brackets and stars are found 32
// bytes at a time, then taken in order. A document marker line (after a
// line feed) starts a new document, brackets on it included.
TextBounds MeasureBounds(std::string_view text) {
  TextBounds bounds;
  std::size_t line = 0, brackets = 0;  // the current line's start, the current document's brackets
  auto take_line_feed = [&](std::size_t i) {
    bounds.longest_line = std::max(bounds.longest_line, i - line);
    line = i + 1;
    if (line < text.size() && (text[line] == '-' || text[line] == '.') && IsDocumentMarkerLine(text, line)) {
      bounds.most_brackets = std::max(bounds.most_brackets, brackets);
      brackets = 0;
    }
  };
  auto take = [&](std::size_t i) {
    const char c = text[i];
    if (c == '\n') {
      take_line_feed(i);
    } else if (c == '*') {
      ++bounds.stars;
    } else if (c == '[' || c == '{') {
      ++brackets;
    }
  };
  std::size_t i = 0;
#if defined(__SSE2__)
  const __m128i feed = _mm_set1_epi8('\n'), star = _mm_set1_epi8('*');
  const __m128i square = _mm_set1_epi8('['), curly = _mm_set1_epi8('{');
  auto mask = [](__m128i low, __m128i high) {
    return static_cast<std::uint32_t>(_mm_movemask_epi8(low)) |
           static_cast<std::uint32_t>(_mm_movemask_epi8(high)) << 16;
  };
  auto rare = [&](__m128i bytes) {
    const __m128i opening = _mm_or_si128(_mm_cmpeq_epi8(bytes, square), _mm_cmpeq_epi8(bytes, curly));
    return _mm_or_si128(_mm_cmpeq_epi8(bytes, star), opening);
  };
  for (; i + 32 <= text.size(); i += 32) {
    const __m128i low = _mm_loadu_si128(reinterpret_cast<const __m128i*>(text.data() + i));
    const __m128i high = _mm_loadu_si128(reinterpret_cast<const __m128i*>(text.data() + i + 16));
    std::uint32_t feeds = mask(_mm_cmpeq_epi8(low, feed), _mm_cmpeq_epi8(high, feed));
    const std::uint32_t others = mask(rare(low), rare(high));
    if (others == 0) {  // most blocks: line feeds only, no need to look at each byte found
      for (; feeds != 0; feeds &= feeds - 1) take_line_feed(i + static_cast<std::size_t>(std::countr_zero(feeds)));
    } else {
      for (std::uint32_t bits = feeds | others; bits != 0; bits &= bits - 1) {
        take(i + static_cast<std::size_t>(std::countr_zero(bits)));
      }
    }
  }
#endif
  for (; i < text.size(); ++i) take(i);
  bounds.longest_line = std::max(bounds.longest_line, text.size() - line);
  bounds.most_brackets = std::max(bounds.most_brackets, brackets);
  return bounds;
}

// True when the scanner cannot find a depth over `limit`, by a bound cheap
// to compute. Block levels take one indentation column each, so there are at
// most longest line + 1; the `- `/`? ` levels of one line take two bytes
// each (they can add to levels of earlier lines when the line starts inside
// a quote or a flow collection); a flow level takes an opening bracket of
// the same document, as the scanner starts each document from zero.
bool DepthSurelyWithin(const TextBounds& bounds, std::size_t limit) {
  const std::size_t block_levels = bounds.longest_line + 1 + (bounds.longest_line + 1) / 2;
  return block_levels < limit && bounds.most_brackets <= limit - block_levels;
}

}  // namespace

std::uint32_t NestingDepth(std::string_view text, std::size_t* deepest_offset) {
  StructureScanner scanner(text);
  scanner.Run();
  if (deepest_offset != nullptr) *deepest_offset = scanner.deepest_offset();
  return scanner.deepest();
}

std::uint32_t CountAliases(std::string_view text) {
  StructureScanner scanner(text);
  scanner.Run();
  return scanner.aliases();
}

Diagnostics CheckInputLimits(std::string_view text, const Limits& limits, const std::string& file) {
  Diagnostics errors;
  if (text.size() > limits.max_input_bytes) {
    errors.push_back(MakeError(Location{file}, "input is " + detail::OverLimit(text.size(), limits.max_input_bytes),
                               "raise it with --max-input-size"));
    return errors;
  }
  // Most templates are far from both limits: no need to scan them.
  const TextBounds bounds = MeasureBounds(text);
  if (bounds.stars <= limits.max_aliases && DepthSurelyWithin(bounds, limits.max_depth)) {
    return errors;
  }
  StructureScanner scanner(text);
  scanner.Run();
  if (scanner.deepest() > limits.max_depth) {
    errors.push_back(MakeError(LocateOffset(text, scanner.deepest_offset(), file),
                               "nesting depth " + std::to_string(scanner.deepest()) + " exceeds the limit of " +
                                   std::to_string(limits.max_depth),
                               "raise it with --max-depth"));
  }
  if (scanner.aliases() > limits.max_aliases) {
    errors.push_back(MakeError(Location{file}, std::to_string(scanner.aliases()) +
                                                   " aliases exceed the limit of " + std::to_string(limits.max_aliases),
                               "raise it with --max-aliases"));
  }
  return errors;
}

}  // namespace safesubst
