// SPDX-License-Identifier: Apache-2.0
#include "text_checks.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <random>
#include <string>

using namespace safesubst;

namespace {

// The offsets of the encoding errors, in order.
std::vector<std::size_t> ErrorOffsets(std::string_view text) {
  std::vector<std::size_t> offsets;
  for (const Diagnostic& diagnostic : CheckTextEncoding(text, "t.yaml")) {
    if (diagnostic.location.line > 0) offsets.push_back(diagnostic.location.offset);
  }
  return offsets;
}

// A plain byte-at-a-time reading of the rules, for ASCII texts: control
// characters other than tab and line feed, and CR unless a line feed
// follows; the first three of each kind are reported.
std::vector<std::size_t> ExpectedOffsets(std::string_view text) {
  std::vector<std::size_t> offsets;
  int lone_returns = 0, controls = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c == '\r') {
      if ((i + 1 == text.size() || text[i + 1] != '\n') && lone_returns++ < 3) offsets.push_back(i);
    } else if (((c < 0x20 && c != '\t' && c != '\n') || c == 0x7f) && controls++ < 3) {
      offsets.push_back(i);
    }
  }
  return offsets;
}

// Calls check(view) on a random text over `alphabet` of every length below
// `lengths`, each at three alignments, so that the 16-byte loops are
// compared with byte loops wherever a block starts and ends.
template <typename Check>
void ForEveryLengthAndAlignment(unsigned seed, std::size_t lengths, std::string_view alphabet, Check check) {
  std::mt19937 random(seed);
  for (std::size_t length = 0; length < lengths; ++length) {
    std::string text(length + 3, 'a');
    for (char& c : text) c = alphabet[random() % alphabet.size()];
    for (std::size_t start = 0; start < 3; ++start) {
      CAPTURE(length);
      CAPTURE(start);
      check(std::string_view(text).substr(start, length));
    }
  }
}

}  // namespace

TEST_CASE("text checks: CountByte agrees with a byte-by-byte count at every length and alignment") {
  ForEveryLengthAndAlignment(5, 70, "a\n\xff\x80", [](std::string_view view) {
    CHECK(CountByte(view, '\n') == static_cast<std::size_t>(std::count(view.begin(), view.end(), '\n')));
    CHECK(CountByte(view, '\xff') == static_cast<std::size_t>(std::count(view.begin(), view.end(), '\xff')));
  });
  CHECK(CountByte(std::string_view(), '\n') == 0);
}

// The vector count sums its per-lane counters every 255 blocks, before a
// lane can wrap: a text of nothing but the byte fills every lane.
TEST_CASE("text checks: CountByte over texts longer than one sum of its lanes") {
  for (std::size_t length : {16 * 255 - 1, 16 * 255, 16 * 255 + 1, 16 * 255 * 3 + 21}) {
    CAPTURE(length);
    const std::string all(length, '\n');
    CHECK(CountByte(all, '\n') == length);
    CHECK(CountByte(std::string_view(all).substr(1), '\n') == length - 1);
    CHECK(CountByte(all, 'a') == 0);
  }
  std::mt19937 random(3);
  std::string text(50000, 'a');
  for (char& c : text) c = "a\n\xff"[random() % 3];
  CHECK(CountByte(text, '\n') == static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')));
  CHECK(CountByte(text, '\xff') == static_cast<std::size_t>(std::count(text.begin(), text.end(), '\xff')));
}

TEST_CASE("text checks: the lines starting with given bytes are found at every length and alignment") {
  ForEveryLengthAndAlignment(7, 90, "a\n-.%\xff", [](std::string_view view) {
    std::vector<std::size_t> expected;
    for (std::size_t i = 1; i < view.size(); ++i) {
      if (view[i - 1] == '\n' && (view[i] == '-' || view[i] == '%')) expected.push_back(i);
    }
    // Two first bytes; five, past the vector loop's four, find the same lines.
    for (std::string_view first_bytes : {std::string_view("-%"), std::string_view("-%%%%")}) {
      std::vector<std::size_t> found;
      ForEachLineStartingWith(view, first_bytes, [&](std::size_t line) {
        found.push_back(line);
        return true;
      });
      CHECK(found == expected);
    }
    // Stopping after the first: nothing more is visited.
    std::size_t visits = 0;
    ForEachLineStartingWith(view, "-%", [&](std::size_t) { return ++visits < 1; });
    CHECK(visits == std::min<std::size_t>(1, expected.size()));
  });
  bool visited = false;
  auto visit = [&](std::size_t) { return visited = true; };
  ForEachLineStartingWith(std::string_view(), "-", visit);
  ForEachLineStartingWith("-\n", "-", visit);  // the first line is not a candidate
  ForEachLineStartingWith(std::string(40, '\n'), "", visit);
  CHECK_FALSE(visited);
}

TEST_CASE("text checks: rare bytes are counted up to one past the stop") {
  CHECK(CountRareByte("a$b$$c", '$') == 3);
  CHECK(CountRareByte("$$$$$", '$', 1) == 2);
  CHECK(CountRareByte("$$$$$", '$', 4) == 5);
  CHECK(CountRareByte("$$$$$", '$', 5) == 5);
  CHECK(CountRareByte("abc", '$') == 0);
  CHECK(CountRareByte(std::string_view(), '$') == 0);
}

TEST_CASE("text checks: control characters and lone carriage returns are located") {
  Diagnostics found = CheckTextEncoding("a: 1\nb: x\x04y\n", "t.yaml");
  REQUIRE(found.size() == 1);
  CHECK(found[0].location.line == 2);
  CHECK(found[0].location.column == 5);
  CHECK(found[0].message == "control character 0x04 in the template");

  found = CheckTextEncoding("a:\r  \"v\"\n", "t.yaml");
  REQUIRE(found.size() == 1);
  CHECK(found[0].location.column == 3);
  CHECK(found[0].message == "carriage return not followed by a line feed");

  found = CheckTextEncoding("a: \x7f\n", "t.yaml");
  REQUIRE(found.size() == 1);
  CHECK(found[0].message == "control character 0x7F in the template");
}

TEST_CASE("text checks: CRLF line ends, tabs and UTF-8 text are fine") {
  CHECK(CheckTextEncoding("a: 1\r\nb:\t\"caf\xc3\xa9\"\r\n", "t.yaml").empty());
  CHECK(CheckTextEncoding("\xef\xbb\xbf" "a: 1\n", "t.yaml").empty());
}

TEST_CASE("text checks: many bad bytes are reported a few at a time, then counted") {
  const Diagnostics found = CheckTextEncoding(std::string(10, '\x01'), "t.yaml");
  REQUIRE(found.size() == 4);
  CHECK(found.back().message == "10 control characters in all");
}

// The block-at-a-time scan must find every bad byte wherever it falls in a block.
TEST_CASE("text checks: the block scan finds what a byte scan finds") {
  const std::string alphabet = "ab: -\n\t\r\x01\x1f\x7f\x20\x7e";
  std::mt19937 random(7);
  for (int round = 0; round < 2000; ++round) {
    std::string text(1 + random() % 70, 'x');
    for (char& c : text) c = random() % 10 < 8 ? "ab: x-"[random() % 6] : alphabet[random() % alphabet.size()];
    CAPTURE(text);
    CHECK(ErrorOffsets(text) == ExpectedOffsets(text));
  }
}
