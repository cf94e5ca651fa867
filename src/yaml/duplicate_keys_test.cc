// SPDX-License-Identifier: Apache-2.0
#include "duplicate_keys.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "test_support.h"
#include "yaml_encoding.h"
#include "yaml_load.h"
#include "yaml_tree.h"

using namespace safesubst;

namespace {

// Random documents of nested block and flow mappings with few distinct keys,
// so that many repeat, among siblings and elsewhere, written several ways.
// The two long keys differ only in the middle: the same first and last eight
// bytes and length. With `typed`, also `1`, `"1"`, `0x1` and `+1`: one key.
void AppendMapping(std::mt19937& random, std::size_t indent, int depth, bool typed, std::string* text) {
  static const char* const kKeys[] = {"a",  "b", "ab", "\"a\"", "'b'", "\"\\x61\"", "'a''b'", "\"a'b\"", "c",
                                      "long-key-a-same-end", "long-key-b-same-end", "1", "\"1\"", "0x1", "+1"};
  auto key = [&] { return std::string(kKeys[random() % (std::size(kKeys) - (typed ? 0 : 4))]); };
  for (unsigned entry = 0, entries = 1 + random() % 6; entry < entries; ++entry) {
    *text += std::string(indent, ' ') + key() + ":";
    switch (depth < 3 ? random() % 3 : 0) {
      case 0: *text += " v\n"; break;
      case 1: *text += " {" + key() + ": 1, " + key() + ": 2}\n"; break;
      default:
        *text += "\n";
        AppendMapping(random, indent + 2, depth + 1, typed, text);
    }
  }
}

// What the checker must report, found the slow way: each key that has an
// earlier key of the same parent in its document with the same decoded
// value, or the same number (the typed keys all name 1).
std::vector<std::string> ExpectedDuplicates(std::string_view text, const Tokens& tokens) {
  auto name = [&](const Scalar& key) {
    const std::string value = DecodeScalar(text, key);
    return key.style == ScalarStyle::kPlain && (value == "0x1" || value == "+1") ? std::string("1") : value;
  };
  auto same = [&](const Scalar& a, const Scalar& b) { return name(a) == name(b); };
  std::vector<std::pair<std::size_t, std::string>> found;
  for (std::size_t i = 0; i < tokens.scalars.size(); ++i) {
    const Scalar& key = tokens.scalars[i];
    if (!key.is_key || key.path == PathSegment::kRoot) continue;
    for (std::size_t j = 0; j < i; ++j) {
      const Scalar& first = tokens.scalars[j];
      if (first.is_key && first.path != PathSegment::kRoot && first.document == key.document &&
          tokens.paths[first.path].parent == tokens.paths[key.path].parent && same(first, key)) {
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

// The documents of `stream` in which CheckDuplicateKeys finds a duplicate.
std::vector<bool> DocumentsWithDuplicates(const std::string& stream, std::size_t documents) {
  const Tokens tokens = Tokenize(stream);
  REQUIRE(tokens.diagnostics.empty());
  std::vector<bool> found(documents);
  for (const Diagnostic& duplicate : CheckDuplicateKeys(stream, tokens, "t.yaml")) {
    const auto first_after = std::find_if(tokens.scalars.begin(), tokens.scalars.end(),
                                          [&](const Scalar& s) { return s.offset >= duplicate.location.offset; });
    REQUIRE(first_after != tokens.scalars.end());
    found[first_after->document] = true;
  }
  return found;
}

// Whether PyYAML reads fewer keys than each document writes: it took two of
// them for one (it keeps the last without a word).
std::vector<bool> PyYamlMerges(const std::string& stream, const std::vector<std::size_t>& entries) {
  const testing::CommandResult read = testing::RunShell(
      "python3 -c 'import sys, yaml; print(\" \".join(str(len(d)) for d in yaml.safe_load_all(sys.stdin.read())))'",
      stream);
  INFO("python3: ", read.err);
  REQUIRE_MESSAGE(read.code == 0, "python3 could not read the stream (is python3-yaml installed?)");
  std::istringstream counts(read.out);
  std::vector<bool> merged;
  for (std::size_t wrote : entries) {
    std::size_t kept = 0;
    REQUIRE(static_cast<bool>(counts >> kept));
    merged.push_back(kept < wrote);
  }
  return merged;
}

}  // namespace

TEST_CASE("duplicate keys: they are those a pairwise search finds") {
  std::mt19937 random(5);
  std::size_t duplicates = 0;
  for (int round = 0; round < 300; ++round) {
    std::string text;
    for (unsigned document = 0, documents = 1 + random() % 3; document < documents; ++document) {
      if (document > 0) text += "---\n";
      AppendMapping(random, 0, 0, /*typed=*/true, &text);
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
    void Take(Tokens* tokens) override {
      const Scalar& scalar = tokens->scalars[0];
      if (scalar.is_key && offset == std::string_view::npos && !keys.New(*tokens, scalar)) offset = scalar.offset;
    }
    void PathsChanged() override {}
    KeyRepeats keys;
    std::size_t offset = std::string_view::npos;
  };
  std::mt19937 random(7);
  std::size_t repeated = 0;
  for (int round = 0; round < 300; ++round) {
    std::string text;
    for (unsigned document = 0, documents = 1 + random() % 3; document < documents; ++document) {
      if (document > 0) text += "---\n";
      // Not `1` and `"1"`, which KeyRepeats takes for a repeat (the full check then decides).
      AppendMapping(random, 0, 0, /*typed=*/false, &text);
      text += "list:\n  - {a: 1, b: 2}\n  - a: 1\n    b: 2\n";  // the same keys in other mappings
    }
    CAPTURE(text);
    const Diagnostics reported = CheckDuplicateKeys(text, Tokenize(text), "t.yaml");
    FirstRepeat first;
    Tokens tokens;
    detail::TokenizeAsRead(text, {}, &tokens, &first);
    CHECK(first.offset == (reported.empty() ? std::string_view::npos : reported[0].location.offset));
    repeated += !reported.empty();
  }
  CHECK(repeated > 50);
  CHECK(repeated < 290);
}

TEST_CASE("duplicate keys: one key however it is written, as some reader reads it") {
  // Each document a mapping of `entries` entries, two of which some reader
  // takes for one key (KeyIdentity), or none.
  struct Case {
    std::string document;
    std::size_t entries;
    bool one_key;
  };
  const std::vector<Case> cases = {
      {"a: 1\n\"a\": 2\n", 2, true},
      {"a: 1\n'a': 2\n", 2, true},
      {"a: 1\n\"\\x61\": 2\n", 2, true},
      {"\"a b\": 1\n'a b': 2\n", 2, true},
      {"'it''s': 1\n\"it's\": 2\n", 2, true},
      {"\"1\": 1\n'1': 2\n", 2, true},
      {"{a: 1, \"a\": 2}\n", 2, true},
      {"? a\n  b\n: 1\n\"a b\": 2\n", 2, true},              // a plain key folded over lines
      {"? |\n  a\n: 1\n\"a\\n\": 2\n", 2, true},           // a block scalar key
      {"&k a: 1\n*k : 2\n", 2, true},                        // an alias of a key
      {"x: &k a\n*k : 2\na: 3\n", 3, true},                  // an alias of a value
      {"x: &k \"a\"\ny: *k\n*k : 2\n'a': 3\n", 4, true},
      {"a: 1\nb: 2\n\"c\": 3\n", 3, false},                 // not the same
      {"1: a\n\"1\": b\n", 2, true},                          // a number and a string: go-yaml v3, Kubernetes
      {"true: a\n\"true\": b\n", 2, true},
      {"~: a\n'~': b\n", 2, true},
      {"2001-12-14: a\n\"2001-12-14\": b\n", 2, true},
      {"x: &k 1\n*k : 2\n\"1\": 3\n", 3, true},              // an alias of a number
      {"a: 1\nb: {a: 2, \"b\": 3}\n", 2, false},               // other mappings
      {"1: a\n0x1: b\n", 2, true},                            // one value: PyYAML, go-yaml v2
      {"1: a\n01: b\n", 2, true},
      {"1: a\n1.0: b\n", 2, true},
      {"+1: a\n\"1\": b\n", 2, true},                         // Kubernetes names both "1"
      {"True: a\ntrue: b\n", 2, true},
      {"yes: a\non: b\n", 2, true},                           // YAML 1.1 bools
      {"yes: a\n\"yes\": b\n", 2, true},                      // one text (YAML 1.2)
      {"~: a\nnull: b\n", 2, true},
      {"\"\": a\n~: b\n", 2, false},                          // "" and null
      {"1: a\n2: b\n0x3: c\n", 3, false},
      {"on: a\noff: b\n", 2, false},
  };
  std::string stream;
  std::vector<std::size_t> entries;
  std::vector<bool> expected;
  for (const Case& one : cases) {
    stream += "---\n" + one.document;
    entries.push_back(one.entries);
    expected.push_back(one.one_key);
  }
  CAPTURE(stream);
  const std::vector<bool> found = DocumentsWithDuplicates(stream, cases.size());
  CHECK(found == expected);
  // Every pair PyYAML (YAML 1.1) merges is found.
  const std::vector<bool> merged = PyYamlMerges(stream, entries);
  for (std::size_t i = 0; i < cases.size(); ++i) {
    CAPTURE(cases[i].document);
    CHECK((!merged[i] || found[i]));
  }
  // Valid YAML that PyYAML cannot read: a plain key folded over lines in a flow mapping.
  CHECK(DocumentsWithDuplicates("{a\n  b: 1, \"a b\": 2}\n", 1) == std::vector<bool>{true});
  CHECK(DocumentsWithDuplicates("---\n[a]: 1\n[a]: 2\n---\nx: &m {k: v}\n*m : 1\n*m : 2\n", 2) ==
        std::vector<bool>{false, false});
}

// The other check (values, fragments, `type: yaml` values) on yaml-cpp's
// tree follows the same rule.
TEST_CASE("duplicate keys: CheckUniqueKeys on a tree finds the same keys") {
  for (const char* mapping : {"{a: 1, \"a\": 2}", "{1: a, 0x1: b}", "{True: a, true: b}", "{1: a, \"1\": b}",
                              "{yes: a, on: b}", "{~: a, null: b}", "{1: a, 1.0: b}", "{!!int 0x1: a, 1: b}",
                              "{a: 1, b: 2}", "{\"\": a, ~: b}", "{on: a, off: b}", "{!!str 1: a, 0x1: b}"}) {
    CAPTURE(mapping);
    const std::string text = std::string(mapping) + "\n";
    const bool in_template = !CheckDuplicateKeys(text, Tokenize(text), "t.yaml").empty();
    const std::shared_ptr<const detail::YamlStream> stream = detail::LoadYamlStream(text);
    std::string problem;
    const bool in_tree = !detail::CheckUniqueKeys(detail::YamlRef(*stream, stream->documents[0]), &problem);
    CHECK(in_tree == in_template);
    if (in_tree) CHECK(problem.ends_with("' twice"));
  }
}

TEST_CASE("duplicate keys: an alias key is reported where it is written") {
  const std::string text = "a: &k x\nx: 1\n*k : 2\n";
  const Diagnostics reported = CheckDuplicateKeys(text, Tokenize(text), "t.yaml");
  REQUIRE(reported.size() == 1);
  CHECK(reported[0].message == "duplicate key '*k'");
  CHECK(reported[0].location.line == 3);
  CHECK(reported[0].location.column == 1);
  CHECK(reported[0].hint == "first defined at line 2; YAML parsers keep only one of them");
}
