// SPDX-License-Identifier: Apache-2.0
#include "text_checks.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <cstring>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#include <string>
#include <vector>

#include "utf8.h"

namespace safesubst {

namespace {

// Reporting every bad byte of a binary file helps nobody.
constexpr int kMaxReportsPerKind = 3;

class Reporter {
 public:
  Reporter(std::string_view text, const std::string& file, Diagnostics* out) : text_(text), file_(file), out_(out) {}

  void Report(int* count, std::size_t offset, const std::string& message, const std::string& hint) {
    if ((*count)++ < kMaxReportsPerKind) out_->push_back(MakeError(LocateOffset(text_, offset, file_), message, hint));
  }
  void Summarize(int count, const std::string& what) {
    if (count > kMaxReportsPerKind) {
      out_->push_back(MakeError(Location{file_}, std::to_string(count) + " " + what + " in all"));
    }
  }

 private:
  std::string_view text_;
  const std::string& file_;
  Diagnostics* out_;
};

// The number of bytes from `i` on (a multiple of the block size) that are
// printable ASCII, tab or line feed: text that needs no closer look.
#if defined(__SSE2__)
std::size_t PlainTextRun(std::string_view text, std::size_t i) {
  const std::size_t start = i;
  const __m128i below_space = _mm_set1_epi8(0x1f), del = _mm_set1_epi8(0x7f);
  const __m128i tab = _mm_set1_epi8('\t'), line_feed = _mm_set1_epi8('\n');
  for (; i + 16 <= text.size(); i += 16) {
    const __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(text.data() + i));
    // Signed compares: bytes from 0x80 on are negative, so not printable.
    const __m128i printable = _mm_and_si128(_mm_cmpgt_epi8(bytes, below_space), _mm_cmplt_epi8(bytes, del));
    const __m128i breaks = _mm_or_si128(_mm_cmpeq_epi8(bytes, tab), _mm_cmpeq_epi8(bytes, line_feed));
    if (_mm_movemask_epi8(_mm_or_si128(printable, breaks)) != 0xffff) break;
  }
  return i - start;
}
#else
std::size_t PlainTextRun(std::string_view text, std::size_t i) {
  const std::size_t start = i;
  for (; i + 8 <= text.size(); i += 8) {
    std::uint64_t word;
    std::memcpy(&word, text.data() + i, 8);
    constexpr std::uint64_t kOnes = 0x0101010101010101ull, kHighBits = 0x8080808080808080ull;
    // Any byte below 0x20 or equal to 0x7f (tabs and line feeds go the slow way here).
    const std::uint64_t below_space = (word - 0x20 * kOnes) & ~word;
    const std::uint64_t is_del = ((word ^ 0x7f * kOnes) - kOnes) & ~(word ^ 0x7f * kOnes);
    if (((word | below_space | is_del) & kHighBits) != 0) break;
  }
  return i - start;
}
#endif

}  // namespace

std::size_t CountByte(std::string_view text, char byte) {
  std::size_t count = 0, i = 0;
#if defined(__SSE2__)
  // Each lane of `lanes` counts the matches at its position (a match compares
  // as -1, so subtracting it adds one); the lanes are summed before one can
  // pass 255. No popcount per block: without -mpopcnt it is a libgcc call.
  constexpr std::size_t kBlocksPerSum = 255;
  const __m128i wanted = _mm_set1_epi8(byte), zero = _mm_setzero_si128();
  while (i + 16 <= text.size()) {
    const std::size_t end = i + 16 * std::min(kBlocksPerSum, (text.size() - i) / 16);
    __m128i lanes = zero;
    for (; i < end; i += 16) {
      const __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(text.data() + i));
      lanes = _mm_sub_epi8(lanes, _mm_cmpeq_epi8(bytes, wanted));
    }
    const __m128i sums = _mm_sad_epu8(lanes, zero);  // two 16-bit sums, in bits 0-15 and 64-79
    count += static_cast<std::size_t>(_mm_cvtsi128_si32(sums)) + static_cast<std::size_t>(_mm_extract_epi16(sums, 4));
  }
#endif
  for (; i < text.size(); ++i) count += text[i] == byte ? 1 : 0;
  return count;
}

void ForEachLineStartingWith(std::string_view text, std::string_view first_bytes,
                             const std::function<bool(std::size_t)>& visit) {
  if (first_bytes.empty()) return;
  std::array<bool, 256> wanted{};
  for (char c : first_bytes) wanted[static_cast<unsigned char>(c)] = true;
  // Visits the line after the line feed at `feed`, if it starts with a
  // wanted byte; false when `visit` asks to stop.
  auto after_line_feed = [&](std::size_t feed) {
    const std::size_t line = feed + 1;
    return line == text.size() || !wanted[static_cast<unsigned char>(text[line])] || visit(line);
  };
  std::size_t i = 0;
#if defined(__SSE2__)
  // Line feeds come every few dozen bytes: finding them 32 bytes at a time
  // and looking at the byte after each costs less than comparing every byte
  // with every first byte (and keeps a single constant in a register).
  const __m128i line_feed = _mm_set1_epi8('\n');
  for (; i + 32 <= text.size(); i += 32) {
    const __m128i low = _mm_loadu_si128(reinterpret_cast<const __m128i*>(text.data() + i));
    const __m128i high = _mm_loadu_si128(reinterpret_cast<const __m128i*>(text.data() + i + 16));
    auto feeds = static_cast<std::uint32_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(low, line_feed))) |
                 static_cast<std::uint32_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(high, line_feed))) << 16;
    for (; feeds != 0; feeds &= feeds - 1) {
      if (!after_line_feed(i + static_cast<std::size_t>(std::countr_zero(feeds)))) return;
    }
  }
#endif
  for (; i < text.size(); ++i) {
    if (text[i] == '\n' && !after_line_feed(i)) return;
  }
}

bool IsDocumentMarkerLine(std::string_view text, std::size_t line) {
  if (text.size() < line + 3) return false;
  const char c = text[line];
  if ((c != '-' && c != '.') || text[line + 1] != c || text[line + 2] != c) return false;
  if (text.size() == line + 3) return true;
  const char after = text[line + 3];
  return after == ' ' || after == '\t' || after == '\n' || after == '\r';
}

std::size_t CountRareByte(std::string_view text, char byte, std::size_t stop_after) {
  std::size_t count = 0;
  if (text.empty()) return 0;  // data() may be null, which memchr must not see
  const char* const end = text.data() + text.size();
  for (const char* at = text.data(); count <= stop_after; ++at, ++count) {
    at = static_cast<const char*>(std::memchr(at, byte, static_cast<std::size_t>(end - at)));
    if (at == nullptr) break;
  }
  return count;
}

Diagnostics CheckTextEncoding(std::string_view text, const std::string& file) {
  Diagnostics out;
  std::string_view start = text.substr(0, 4);
  if (start.substr(0, 2) == "\xFF\xFE" || start.substr(0, 2) == "\xFE\xFF" ||
      start == std::string_view("\x00\x00\xFE\xFF", 4)) {
    out.push_back(MakeError(Location{file, 1, 1, 0}, "the file is UTF-16 or UTF-32 (byte order mark); safesubst reads UTF-8",
                            "convert it, e.g. iconv -f UTF-16 -t UTF-8"));
    return out;
  }
  Reporter reporter(text, file, &out);
  int nuls = 0, controls = 0, lone_returns = 0, invalid = 0;
  // Checks the character at i and returns its length.
  auto check_character = [&](std::size_t i) -> std::size_t {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if ((c >= 0x20 && c < 0x7f) || c == '\n' || c == '\t') return 1;
    if (c == '\r') {
      if (i + 1 < text.size() && text[i + 1] == '\n') return 2;
      // YAML 1.2 reads a lone CR as a line break, yaml-cpp as an ordinary
      // character: the two would see different documents.
      reporter.Report(&lone_returns, i, "carriage return not followed by a line feed",
                      "YAML readers disagree on a lone CR; end lines with LF or CRLF (e.g. dos2unix -c mac)");
      return 1;
    }
    if (c == 0) {
      reporter.Report(&nuls, i, "NUL byte in the template", "a YAML template is text; is this a binary file?");
      return 1;
    }
    if (c < 0x80) {
      char code[8];
      std::snprintf(code, sizeof code, "0x%02X", c);
      reporter.Report(&controls, i, std::string("control character ") + code + " in the template",
                      "YAML allows only printable characters; write it as an escape in a double-quoted scalar");
      return 1;
    }
    char32_t code_point;
    const std::size_t length = detail::DecodeUtf8(text, i, &code_point);
    if (length > 0) return length;
    char byte[8];
    std::snprintf(byte, sizeof byte, "0x%02X", c);
    reporter.Report(&invalid, i, std::string("invalid UTF-8 (byte ") + byte + ")",
                    "save the file as UTF-8, e.g. iconv -f LATIN1 -t UTF-8");
    return 1;
  };
  for (std::size_t i = 0; i < text.size();) {
    i += PlainTextRun(text, i);
    // A block with something else in it, or the last few bytes: byte by byte.
    const std::size_t stop = std::min(i + 16, text.size());
    while (i < stop) i += check_character(i);
  }
  reporter.Summarize(nuls, "NUL bytes");
  reporter.Summarize(controls, "control characters");
  reporter.Summarize(lone_returns, "lone carriage returns");
  reporter.Summarize(invalid, "invalid UTF-8 bytes");
  return out;
}

}  // namespace safesubst
