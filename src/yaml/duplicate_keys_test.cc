// SPDX-License-Identifier: Apache-2.0
#include "duplicate_keys.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

using namespace safesubst;

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

TEST_CASE("duplicate keys: they are those a pairwise search finds") {
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

TEST_CASE("duplicate keys: keys crafted to share a hash are still checked, in n log n") {
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

TEST_CASE("duplicate keys: read one at a time, the first repeat is the first duplicate") {
  // KeyRepeats sees each key as TokenizeAsRead hands it over, its mapping's
  // segments reused; it must stop at the first key CheckDuplicateKeys
  // reports, and not before (a false repeat would only cost the full check).
  struct FirstRepeat final : detail::ScalarSink {
    explicit FirstRepeat(std::string_view read) : text(read) {}
    void Take(Tokens* tokens) override {
      const Scalar& scalar = tokens->scalars[0];
      if (scalar.is_key && offset == std::string_view::npos && !keys.New(text, *tokens, scalar)) offset = scalar.offset;
    }
    void PathsChanged() override {}
    std::string_view text;
    KeyRepeats keys;
    std::size_t offset = std::string_view::npos;
  };
  std::mt19937 random(7);
  std::size_t repeated = 0;
  for (int round = 0; round < 300; ++round) {
    std::string text;
    for (unsigned document = 0, documents = 1 + random() % 3; document < documents; ++document) {
      if (document > 0) text += "---\n";
      AppendMapping(random, 0, 0, &text);
      text += "list:\n  - {a: 1, b: 2}\n  - a: 1\n    b: 2\n";  // the same keys in other mappings
    }
    // Keys are compared as written, paths by value: under `b` and `'b'` the
    // keys would repeat for KeyRepeats alone (the full check then decides).
    std::erase_if(text, [](char c) { return c == '\'' || c == '"'; });
    CAPTURE(text);
    const Diagnostics reported = CheckDuplicateKeys(text, Tokenize(text), "t.yaml");
    FirstRepeat first(text);
    Tokens tokens;
    detail::TokenizeAsRead(text, {}, &tokens, &first);
    CHECK(first.offset == (reported.empty() ? std::string_view::npos : reported[0].location.offset));
    repeated += !reported.empty();
  }
  CHECK(repeated > 50);
  CHECK(repeated < 290);
}
