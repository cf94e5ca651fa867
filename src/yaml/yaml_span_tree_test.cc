// SPDX-License-Identifier: Apache-2.0
// ReadYamlStreamFromSpans must build exactly yaml-cpp's tree, with the
// tokenizer's decoding (TakeTokenizerDecoding), or decline:
// checked on hand-written cases, on every YAML file of the repository and of
// the YAML test suite, and on thousands of generated and mutated manifests.
#include "yaml_span_tree.h"

#include <doctest/doctest.h>

#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "test_support.h"
#include "yaml_load.h"
#include "yaml_tree.h"

namespace safesubst::detail {
namespace {

std::string Describe(const YamlStream& stream) {
  std::string out;
  for (std::uint32_t root : stream.documents) out += "doc " + std::to_string(root) + "\n";
  for (std::size_t i = 0; i < stream.nodes.size(); ++i) {
    const YamlNode& node = stream.nodes[i];
    out += std::to_string(i) + ": kind " + std::to_string(static_cast<int>(node.kind)) + " tag '" + node.tag +
           "' text '" + node.text + "' at " + std::to_string(node.line) + ":" + std::to_string(node.column) + "@" +
           std::to_string(node.offset) + (node.flow ? " flow" : "") + " children";
    for (std::uint32_t child : node.children) out += " " + std::to_string(child);
    out += "\n";
  }
  return out;
}

// The oracle: when the spans reader takes `text`, yaml-cpp must take it too
// and build the same tree. Returns whether the spans reader took it.
bool AgreesWithYamlCpp(const std::string& text) {
  YamlStream spans;
  if (!ReadYamlStreamFromSpans(text, &spans)) {
    CHECK(spans.nodes.empty());
    return false;
  }
  YamlStream full;
  YamlParseError error;
  CAPTURE(text);
  if (!ParseYamlStreamWithYamlCpp(text, &full, &error)) {
    FAIL_CHECK("yaml-cpp rejects what the spans reader took: " << error.message);
    return true;
  }
  CHECK_FALSE(TakeTokenizerDecoding(text, &full));
  CHECK(Describe(spans) == Describe(full));
  CHECK(spans == full);
  return true;
}

TEST_CASE("spans tree: builds yaml-cpp's tree for the subset, marks included") {
  const std::vector<std::string> accepted = {
      "a: 1\n",
      "a: 1",
      "# Korean comment: \xea\xb0\x80\nvariables:\n  A: {type: int}   # note\n  B:\n  C: null\n  D: 'q s'\n"
      "  E: \"d q\"\n  F: [a, b c, {x: y}]\n  G: []\n  H: {}\n  nested:\n    k: v\nruntime:\n- X\n- Y\n"
      "list:\n  - a\n  - [b]\nlast:\n",
      "a:\n",
      "a:\n# trailing comment\n",
      "a:\n  b:\n    c: d\n  e: f\ng: h\n",
      "a:\n- x\nb: y\n",
      "key with spaces: value with spaces\n",
      "v: 1.5e3\nw: 0x1F\nx: -z\ny: a/b+c-d.e\n",
      "n: Null\nm: NULL\nk: nully\n",
      "  \n\na: b\n\n   \n",
      "f: {a: [1, 2], b: {c: d}}\n",
      "steps:\n  - delete: .spec.template.spec.hostAliases\n    when: {var: APP, not_in: X}\n"
      "  - merge: common/efs-zone-command.yaml\n    into: .spec.template.spec.containers[0]\n"
      "    when:\n    - {var: APP}\n    - x\n  - set: a\n    value:\n      k: v\nafter: 1\n",
      "l:\n- a: 1\n  b:\n- c\n",
      "v: {d: \"\", e: '', f: \"1.10\", g: '[A-Z]{1,2}'}\n",
      // Decoded otherwise by yaml-cpp, read as the tokenizer decodes them (TakeTokenizerDecoding).
      "a: \"multi\n  line\"\n",
      "a: |\n  text at the end\n",
      "a: |+\n  kept\n\nb: 1\n",
      "a: >+\n  x\n\nl: 1\ne: '\n\n  '\n",
      "\"foo: bar\\NULL\": baz\"\n",  // found by the manifest fuzzer: an escape (NEL) in a key
  };
  for (const std::string& text : accepted) {
    CAPTURE(text);
    CHECK(AgreesWithYamlCpp(text));
  }
}

TEST_CASE("spans tree: takes what simple_yaml declined: block scalars, escapes, documents") {
  const std::vector<std::string> taken = {
      "- a\n",
      "scalar\n",
      "a: |\n  text\nb: 1\n",
      "a: >-\n  text\n\n  more\nb: |2\n   x\nc: 1\n",
      "a: 'it''s'\n",
      "a: \"tab\\t\"\n",
      "a:b: c\n",
      "a: [1,\n  2]\n",
      "---\na: 1\n",
      "a: 1\n---\nb: 2\n",
      "a: 1\n...\n",
      "a: b  c\n",
      "a: 'x #y'\n",
      "a: caf\xc3\xa9\n",
      "a: -1\n",
      "\"a\": 1\n",
      "a: ~\n",
      "- a: 1\n",
      "a: 1 # c\nb:\n  # c\nc: 3\n",
  };
  for (const std::string& text : taken) {
    CAPTURE(text);
    CHECK(AgreesWithYamlCpp(text));
  }
}

TEST_CASE("spans tree: declines what yaml-cpp may read or mark differently, leaving it to yaml-cpp") {
  const std::vector<std::string> declined = {
      "",
      "# only a comment\n",
      "a: !tag 1\n",
      "a: !!str 1\n",
      "%YAML 1.2\n---\na: 1\n",
      "a: b\r\n",
      "\xef\xbb\xbf" "a: b\n",
      "? a\n: b\n",
      "a: [b: c]\n",
      "a: {b: }\n",
      "- \n- a\n",
      "a: &x\nb: 1\n",
      "a:",
      "---\n",
      "a: *nowhere\n",
      "a: 1\n  b: 2\n",
      "a: {\"k\"\n  : v}\n",
      std::string("# \0 x\na: 1\n", 10),
      "-\x04",              // found by the manifest fuzzer: yaml-cpp's tree differed
      "a: b\x7f\n",
      "a: \"x\xc2\x85y\"\n",  // NEL
      "a: x\xe2\x80\xa8y\n",  // LS
      "&a a# b\nc\n",         // found by the manifest fuzzer: an anchored plain scalar over two lines
      "a: &a [*a]\n",           // found by the manifest fuzzer: an alias inside its own anchor
      "a: &c[1]\nb: *c\n",      // found by the manifest fuzzer: an anchor ended by a bracket
      "...\ne\xf9\xdd\n",         // found by the manifest fuzzer: invalid UTF-8
      "\n...\na\\/b\n",           // found by the manifest fuzzer: a document after `...` without `---`
      "...\n---\nkey ends with two colons::: value\n",  // found by the manifest fuzzer: yaml-cpp reads
      "# c\n  \n...\n---\na: b\n",                       // a null document before a first `...`
      "&f [\n&e\n &g { g: h }\n]\n",  // found by the manifest fuzzer: anchors inside a flow collection
      "top: &n1\n  &n2\n  k: v\n",      // found by the manifest fuzzer: two anchors on one mapping
      "a: &x 1\nb: *x\n",               // every anchor and alias is left to yaml-cpp
      "a: &m\n  k: v\nb: *m\n",
  };
  for (const std::string& text : declined) {
    CAPTURE(text);
    YamlStream stream;
    CHECK_FALSE(ReadYamlStreamFromSpans(text, &stream));
    CHECK(stream.nodes.empty());
  }
}

TEST_CASE("spans tree: ParseYamlStream gives the same tree with or without it") {
  const std::string text = "variables:\n  A: {type: int, default: 3}\nruntime: [X]\n";
  YamlStream fast, full;
  YamlParseError error;
  REQUIRE(ParseYamlStream(text, &fast, &error));
  REQUIRE(ParseYamlStreamWithYamlCpp(text, &full, &error));
  CHECK(Describe(fast) == Describe(full));
}

TEST_CASE("spans tree: deep nesting is declined, not recursed into") {
  std::string text;
  for (int level = 0; level < 200; ++level) text += std::string(level, ' ') + "k:\n";
  YamlStream stream;
  CHECK_FALSE(ReadYamlStreamFromSpans(text, &stream));
  CHECK(ReadYamlStreamFromSpans(std::string("a: ") + std::string(60, '[') + std::string(60, ']') + "\n", &stream));
  CHECK_FALSE(ReadYamlStreamFromSpans(std::string("a: ") + std::string(100, '[') + std::string(100, ']') + "\n", &stream));
}

TEST_CASE("spans tree: agrees with yaml-cpp on every YAML file of the repository") {
  int taken = 0, files = 0;
  for (const char* folder : {"examples", "tests", "packaging"}) {
    for (const auto& entry : std::filesystem::recursive_directory_iterator(testing::SourceDir() / folder)) {
      const std::string extension = entry.path().extension().string();
      if (!entry.is_regular_file() || (extension != ".yaml" && extension != ".yml")) continue;
      ++files;
      taken += AgreesWithYamlCpp(testing::ReadFile(entry.path()));
    }
  }
  MESSAGE(taken << " of " << files << " files taken by the spans reader");
  CHECK(files > 50);
  CHECK(taken > 10);
}

TEST_CASE("spans tree: agrees with yaml-cpp on the YAML test suite") {
  const std::filesystem::path suite = testing::YamlTestSuiteOrSkip();
  int taken = 0, files = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(suite)) {
    if (entry.path().filename() != "in.yaml") continue;
    ++files;
    taken += AgreesWithYamlCpp(testing::ReadFile(entry.path()));
  }
  MESSAGE(taken << " of " << files << " suite inputs taken by the spans reader");
  CHECK(files > 300);
  CHECK(taken > 5);
}

// Manifest-like texts from a small grammar, then each mutated at random
// places with bytes that matter to YAML: the parser must agree or decline.
std::string GeneratedManifest(std::mt19937& random) {
  const std::vector<std::string> words = {"a",    "B_2",     "x.y", "v1-2",      "p/q+r",
                                          "null", "one two", "0",   "TENANT_ID", ".spec.c[0].x"};
  const std::vector<std::string> values = {"int", "'q'", "\"d d\"", "[a, b]", "{type: int}", "{}", "[]",
                                           "{a: [1, {b: c}]}", "Null", "x y z"};
  auto pick = [&](const std::vector<std::string>& from) { return from[random() % from.size()]; };
  std::string text;
  const int entries = 1 + static_cast<int>(random() % 6);
  for (int e = 0; e < entries; ++e) {
    text += pick(words) + ":";
    switch (random() % 5) {
      case 0: text += " " + pick(values) + (random() % 3 == 0 ? "  # c" : "") + "\n"; break;
      case 1: text += "\n  " + pick(words) + ": " + pick(values) + "\n  " + pick(words) + ":\n"; break;
      case 2: text += "\n" + std::string(random() % 2 == 0 ? "" : "  ") + "- " + pick(values) + "\n"; break;
      case 3: {
        const std::string indent = random() % 2 == 0 ? "" : "  ";
        text += "\n" + indent + "- " + pick(words) + ": " + pick(values) + "\n" + indent + "  " + pick(words) + ":\n" +
                indent + "- " + pick(values) + "\n";
        break;
      }
      default: text += "\n"; break;
    }
  }
  return text;
}

TEST_CASE("spans tree: agrees with yaml-cpp on generated and mutated manifests") {
  std::mt19937 random(20261203);
  const std::string mutations = " \n:-#'\"[]{},&*!|>?%@`\t\\~";
  int taken = 0, mutated_taken = 0;
  for (int round = 0; round < 3000; ++round) {
    std::string text = GeneratedManifest(random);
    taken += AgreesWithYamlCpp(text);
    for (int m = 0; m < 3; ++m) {
      std::string mutated = text;
      const std::size_t at = random() % (mutated.size() + 1);
      const char byte = mutations[random() % mutations.size()];
      switch (random() % 3) {
        case 0: mutated.insert(at, 1, byte); break;
        case 1: if (at < mutated.size()) mutated[at] = byte; break;
        default: if (at < mutated.size()) mutated.erase(at, 1); break;
      }
      mutated_taken += AgreesWithYamlCpp(mutated);
    }
  }
  MESSAGE(taken << " of 3000 generated and " << mutated_taken << " of 9000 mutated texts taken");
  CHECK(taken > 2000);
  CHECK(mutated_taken > 1000);
}

}  // namespace
}  // namespace safesubst::detail
