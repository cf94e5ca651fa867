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

namespace {

// Random documents of nested block and flow mappings with few distinct keys,
// so that many repeat, among siblings and elsewhere. The two long keys differ
// only in the middle: the same first and last eight bytes and length.
void AppendMapping(std::mt19937& random, std::size_t indent, int depth, std::string* text) {
  static const char* const kKeys[] = {"a", "b", "ab", "\"a\"", "'b'", "c", "long-key-a-same-end", "long-key-b-same-end"};
  auto key = [&] { return std::string(kKeys[random() % std::size(kKeys)]); };
  for (unsigned entry = 0, entries = 1 + random() % 6; entry < entries; ++entry) {
    *text += std::string(indent, ' ') + key() + ":";
    switch (depth < 3 ? random() % 3 : 0) {
      case 0: *text += " v\n"; break;
      case 1: *text += " {" + key() + ": 1, " + key() + ": 2}\n"; break;
      default:
        *text += "\n";
        AppendMapping(random, indent + 2, depth + 1, text);
    }
  }
}

// What the checker must report, found the slow way: each key that has an
// earlier key with the same text and parent in its document.
std::vector<std::string> ExpectedDuplicates(std::string_view text, const Tokens& tokens) {
  std::vector<std::pair<std::size_t, std::string>> found;
  for (std::size_t i = 0; i < tokens.scalars.size(); ++i) {
    const Scalar& key = tokens.scalars[i];
    if (!key.is_key || key.path == PathSegment::kRoot) continue;
    for (std::size_t j = 0; j < i; ++j) {
      const Scalar& first = tokens.scalars[j];
      if (first.is_key && first.path != PathSegment::kRoot && first.document == key.document &&
          tokens.paths[first.path].parent == tokens.paths[key.path].parent &&
          text.substr(first.offset, first.length) == text.substr(key.offset, key.length)) {
        found.emplace_back(key.offset, std::to_string(key.line) + ":" + std::to_string(key.column) + " '" +
                                           std::string(text.substr(key.offset, key.length)) + "' first at " +
                                           std::to_string(first.line));
        break;
      }
    }
  }
  std::sort(found.begin(), found.end());
  std::vector<std::string> expected;
  for (const auto& [offset, report] : found) expected.push_back(report);
  return expected;
}

}  // namespace

TEST_CASE("text checks: duplicate keys are those a pairwise search finds") {
  std::mt19937 random(5);
  std::size_t duplicates = 0;
  for (int round = 0; round < 300; ++round) {
    std::string text;
    for (unsigned document = 0, documents = 1 + random() % 3; document < documents; ++document) {
      if (document > 0) text += "---\n";
      AppendMapping(random, 0, 0, &text);
    }
    const Tokens tokens = Tokenize(text);
    CAPTURE(text);
    REQUIRE(tokens.diagnostics.empty());
    std::vector<std::string> reported;
    for (const Diagnostic& diagnostic : CheckDuplicateKeys(text, tokens, "t.yaml")) {
      const std::string name = diagnostic.message.substr(diagnostic.message.find('\''));
      reported.push_back(std::to_string(diagnostic.location.line) + ":" + std::to_string(diagnostic.location.column) +
                         " " + name + " first at " +
                         diagnostic.hint.substr(std::string("first defined at line ").size(),
                                                diagnostic.hint.find(';') - std::string("first defined at line ").size()));
    }
    CHECK(reported == ExpectedDuplicates(text, tokens));
    duplicates += reported.size();
  }
  CHECK(duplicates > 100);  // the texts do repeat keys
}

TEST_CASE("text checks: keys crafted to share a hash are still checked, in n log n") {
  // Distinct keys with the same length and first and last eight bytes, in
  // two documents: enough to crowd any run of slots of the checker's table,
  // which then sorts instead. Some are written twice.
  std::string text;
  for (int document = 0; document < 2; ++document) {
    if (document > 0) text += "---\n";
    for (int i = 0; i < 3000; ++i) text += "key-head" + std::to_string(10000 + i) + "key-tail: v\n";
    for (int i = 0; i < 3000; i += 700) text += "key-head" + std::to_string(10000 + i) + "key-tail: again\n";
  }
  const Tokens tokens = Tokenize(text);
  REQUIRE(tokens.diagnostics.empty());
  const Diagnostics reported = CheckDuplicateKeys(text, tokens, "t.yaml");
  REQUIRE(reported.size() == 10);
  CHECK(reported[0].message == "duplicate key 'key-head10000key-tail'");
  CHECK(reported[0].location.line == 3001);
  CHECK(reported[0].hint == "first defined at line 1; YAML parsers keep only one of them");
  CHECK(reported[5].location.line == 6007);  // the second document's first repeat
  CHECK(reported[5].hint == "first defined at line 3007; YAML parsers keep only one of them");
}
