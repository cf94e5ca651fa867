// SPDX-License-Identifier: Apache-2.0
#include "input_limits.h"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <string_view>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "bounded_read.h"
#include "text_checks.h"
#include "tokenizer.h"
#include "yaml_nesting.h"

namespace safesubst {

namespace {

// Whether some `*` stands where the tokenizer may read an alias: at the start
// of the text (after a BOM too) or of a line, or after a blank, a flow
// indicator or a `:` (`{"a":*x}`). Stars in text (`"*"`, `2*3`, RBAC's
// `verbs: ["*"]`) do not need the tokenizer's pass.
bool MayHoldAlias(std::string_view text) {
  for (std::size_t at = text.find('*'); at != std::string_view::npos; at = text.find('*', at + 1)) {
    if (at <= 3 || std::string_view(" \t\n\r[{,:").find(text[at - 1]) != std::string_view::npos) return true;
  }
  return false;
}

// The nesting depth and alias count of a text, as the tokenizer reads it
// (yaml_nesting.h: nothing is kept per node). The tokenizer stops reading
// past its own depth guard (1000 levels), so a deeper text reports a depth
// just over that.
Nesting ReadStructure(std::string_view text) {
  NestingRecorder recorder;
  TokenizeWithSpans(text, &recorder, {}, SpanReading::kNodesOnly);
  Nesting nesting = recorder.Finish();
  // Reading malformed YAML on after an error, the tokenizer may take any `*`
  // for an alias; only valid YAML goes on to the stages the limit protects.
  if (!MayHoldAlias(text)) nesting.aliases = 0;
  return nesting;
}

// What the shortcuts of CheckInputLimits need to know of a text.
struct TextBounds {
  std::size_t longest_line = 0;
  std::size_t most_brackets = 0;  // flow levels one document may open
  std::size_t stars = 0;          // `*`, an upper bound on the aliases
};

// Whether `document` has an `&`, `!` or `*` that may start an anchor, tag or
// alias: any but a comment's `#!` (a shebang).
bool MayHoldProperty(std::string_view document) {
  auto starts_comment = [&](std::size_t at) {  // a `#` at the document's start or after a blank
    return document[at] == '#' && (at == 0 || std::string_view(" \t\r\n").find(document[at - 1]) != std::string_view::npos);
  };
  for (std::size_t i = 0; i < document.size(); ++i) {
    const char c = document[i];
    if (c == '&' || c == '*' || (c == '!' && !(i > 0 && starts_comment(i - 1)))) return true;
  }
  return false;
}

// The `[` and `{` of one document, the flow collections it may open. The `{`
// of a `${` opens one only inside one (a plain scalar ends before it there)
// or glued to an anchor, tag or alias (`&a${`, `!$${`): a document with no
// other bracket and no such property has none, however many references it
// holds (a template of thousands of them is not read twice).
struct DocumentBrackets {
  std::size_t begin = 0;       // the document's first byte
  std::size_t others = 0;      // `[`, and `{` after anything but `$`
  std::size_t references = 0;  // `{` after `$`
  std::size_t Openings(std::string_view text, std::size_t end) const {
    if (others > 0 || references == 0 || MayHoldProperty(text.substr(begin, end - begin))) return others + references;
    return 0;
  }
};

// One pass over `text`: the line feeds, brackets and stars are found 32
// bytes at a time, then taken in order. A document marker line (after a
// line feed) starts a new document, brackets on it included.
TextBounds MeasureBounds(std::string_view text) {
  TextBounds bounds;
  std::size_t line = 0;       // the current line's start
  DocumentBrackets brackets;  // the current document's
  auto take_line_feed = [&](std::size_t i) {
    bounds.longest_line = std::max(bounds.longest_line, i - line);
    line = i + 1;
    if (line < text.size() && (text[line] == '-' || text[line] == '.') && IsDocumentMarkerLine(text, line)) {
      bounds.most_brackets = std::max(bounds.most_brackets, brackets.Openings(text, line));
      brackets = DocumentBrackets{line};
    }
  };
  auto take = [&](std::size_t i) {
    const char c = text[i];
    if (c == '\n') {
      take_line_feed(i);
    } else if (c == '*') {
      ++bounds.stars;
    } else if (c == '{' && i > 0 && text[i - 1] == '$') {
      ++brackets.references;
    } else if (c == '[' || c == '{') {
      ++brackets.others;
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
  bounds.most_brackets = std::max(bounds.most_brackets, brackets.Openings(text, text.size()));
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
  const Nesting nesting = ReadStructure(text);
  if (deepest_offset != nullptr) *deepest_offset = nesting.deepest_offset;
  return nesting.deepest;
}

std::uint32_t CountAliases(std::string_view text) { return MayHoldAlias(text) ? ReadStructure(text).aliases : 0; }

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
  const Nesting nesting = ReadStructure(text);
  if (nesting.deepest > limits.max_depth) {
    errors.push_back(MakeError(LocateOffset(text, nesting.deepest_offset, file),
                               "nesting depth " + std::to_string(nesting.deepest) + " exceeds the limit of " +
                                   std::to_string(limits.max_depth),
                               "raise it with --max-depth"));
  }
  if (nesting.aliases > limits.max_aliases) {
    errors.push_back(MakeError(Location{file}, std::to_string(nesting.aliases) +
                                                   " aliases exceed the limit of " + std::to_string(limits.max_aliases),
                               "raise it with --max-aliases"));
  }
  return errors;
}

}  // namespace safesubst
