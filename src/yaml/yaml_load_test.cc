// SPDX-License-Identifier: Apache-2.0
#include "yaml_load.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <string>

#include "test_support.h"
#include "tree_oracle.h"

namespace safesubst::detail {

TEST_CASE("yaml_load: the most documents a stream can hold is its marker lines plus one") {
  CHECK(MaxDocumentCount("") == 1);
  CHECK(MaxDocumentCount("a: 1\n") == 1);
  CHECK(MaxDocumentCount("---\na: 1\n---\nb: 2\n...\n") == 4);
  CHECK(MaxDocumentCount("--- |\n  x\n---\r\ny\n") == 3);
  // A lone CR ends a line too; CRLF counts once.
  CHECK(MaxDocumentCount("a: 1\r---\rb: 2\r\n...\r\nc: 3\r") == 3);
  // Not markers: indented, or followed by other text.
  CHECK(MaxDocumentCount("  ---\n----\n---x\na: '---'\n") == 1);
}

TEST_CASE("yaml_load: yaml-cpp's \\N and \\_ come out as UTF-8, other text unchanged") {
  YamlStream stream;
  YamlParseError error;
  REQUIRE(ParseYamlStreamWithYamlCpp("{a: \"x\\Ny\", \"k\\_\": \"\\u00e0 \\u2026 \\N\", b: \"\\xa0\"}\n", &stream, &error));
  std::vector<std::string> texts;
  for (const YamlNode& node : stream.nodes) {
    if (node.kind == YamlNode::Kind::kScalar) texts.push_back(node.text);
  }
  // U+00E0 and U+2026 hold the bytes A0 and 85 inside their UTF-8; \xa0 is U+00A0 already.
  CHECK(texts == std::vector<std::string>{"a", "x\xC2\x85y", "k\xC2\xA0", "\xC3\xA0 \xE2\x80\xA6 \xC2\x85", "b",
                                          "\xC2\xA0"});
}

TEST_CASE("yaml_load: ordinary streams load like LoadAll") {
  std::vector<YAML::Node> documents = testing::LoadAllDocuments("a: 1\n---\n- x\n- y\n");
  REQUIRE(documents.size() == 2);
  CHECK(documents[0]["a"].as<int>() == 1);
  CHECK(documents[1].size() == 2);
  CHECK(testing::LoadAllDocuments("").empty());
  CHECK_THROWS_AS(testing::LoadAllDocuments("a: [1\n"), YAML::Exception);
}

TEST_CASE("yaml_load: a document yaml-cpp cannot get past is an error at that document, not a hang") {
  for (const char* runaway : {",\n", "a: 1\n---\n,\n", "|\n\n,", "|\n,r\n"}) {
    CAPTURE(runaway);
    try {
      testing::LoadAllDocuments(runaway);
      FAIL("no exception");
    } catch (const YAML::Exception& error) {
      CHECK(error.msg == kRunawayDocumentMessage);
      CHECK_FALSE(error.mark.is_null());
    }
  }
}

TEST_CASE("yaml_load: CheckAllDocumentsParse throws where LoadAllDocuments does, and only there") {
  // Valid streams, syntax errors, an alias to no anchor (what a step that
  // deletes an anchored node leaves), runaway documents, and nesting deeper
  // than yaml-cpp's guard.
  const std::string deep = std::string(2000, '[') + std::string(2000, ']') + "\n";
  for (const std::string& text : {std::string("a: 1\n---\n[x, y]\n"), std::string(""), std::string("a: &x 1\nb: *x\n"),
                                 std::string("a: [1\n"), std::string("b: *nowhere\n"), std::string(",\n"),
                                 std::string("a: 1\n---\n,\n"), deep}) {
    CAPTURE(text.substr(0, 40));
    std::string loaded_error = "none", checked_error = "none";
    try {
      testing::LoadAllDocuments(text);
    } catch (const YAML::Exception& error) {
      loaded_error = error.msg;
    }
    try {
      CheckAllDocumentsParse(text);
    } catch (const YAML::Exception& error) {
      checked_error = error.msg;
    }
    CHECK(checked_error == loaded_error);
  }
  CHECK_THROWS_AS(CheckAllDocumentsParse("b: *nowhere\n"), YAML::Exception);
  CHECK_NOTHROW(CheckAllDocumentsParse("a: &x 1\nb: *x\n"));
}

TEST_CASE("yaml_load: where yaml-cpp fails on valid YAML it misreads, the error says so, at the misread line") {
  try {
    testing::LoadAllDocuments("a:\n  - &m |-\n    [x]\n      y\n  - *m\n");
    FAIL("no exception");
  } catch (const YAML::Exception& error) {
    CHECK(error.msg == kMisreadMessage);
    CHECK(error.mark.line == 2);
    CHECK(error.mark.column == 4);
  }
  // Invalid YAML keeps yaml-cpp's own message.
  CHECK_THROWS_WITH_AS(CheckAllDocumentsParse("a: [1\n"), doctest::Contains("end of"), YAML::Exception);
}

namespace {

std::string ErrorOf(const std::function<void(std::string_view)>& load, const std::string& text) {
  try {
    load(text);
  } catch (const YAML::Exception& error) {
    return error.msg + " at " + std::to_string(error.mark.line) + ":" + std::to_string(error.mark.column);
  }
  return "none";
}

// The value of `key` in the first document of `stream`, with aliases followed.
YamlRef ValueOf(const YamlStream& stream, std::string_view key) {
  return YamlRef(stream, stream.documents.at(0)).Find(key).value();
}

}  // namespace

TEST_CASE("yaml_load: LoadYamlStream builds ParseYamlStreamWithYamlCpp's tree, and fails where LoadAllDocuments fails") {
  const std::string deep = std::string(2000, '[') + std::string(2000, ']') + "\n";
  for (const std::string& text :
       {std::string("a: 1\n---\n- x\n- y\n"), std::string(""), std::string("a: &x {k: [1, 2]}\nb: *x\n"),
        std::string("t: !!str 12\nu: !local v\nv: \"q\"\nw: ~\nx:\n"), std::string("{a: 1}: [b, {c: d}]\n"),
        std::string("a: 1\na: 2\n"), std::string("--- |\n  text\n...\n--- [1]\n"), std::string("a: [1\n"),
        std::string("b: *nowhere\n"), std::string(",\n"), std::string("a: 1\n---\n,\n"), deep,
        std::string("a:\n  - &m |-\n    [x]\n      y\n  - *m\n")}) {
    CAPTURE(text.substr(0, 40));
    const std::string expected_error = ErrorOf(testing::LoadAllDocuments, text);
    CHECK(ErrorOf(LoadYamlStream, text) == expected_error);
    if (expected_error != "none") continue;
    YamlStream parsed;
    YamlParseError error;
    REQUIRE(ParseYamlStreamWithYamlCpp(text, &parsed, &error));
    CHECK(*LoadYamlStream(text) == parsed);
    CHECK(LoadYamlStream(text)->documents.size() == testing::LoadAllDocuments(text).size());
  }
  // An alias is its anchor's node.
  const std::shared_ptr<const YamlStream> stream = LoadYamlStream("a: &x [1]\nb: *x\nc: [1]\n");
  CHECK(ValueOf(*stream, "b").index() == ValueOf(*stream, "a").index());
  CHECK(ValueOf(*stream, "c").index() != ValueOf(*stream, "a").index());
}

TEST_CASE("yaml_load: a text loaded once is answered again, and only that text") {
  // Within a RememberLoadedText, LoadYamlStream remembers the last texts it
  // loaded: each answer must still be the one a fresh load gives, whatever
  // came before.
  RememberLoadedText remember;
  RememberLoadedText nested;  // does nothing: the outer one forgets at the end
  const std::string good = "a: &x 1\nb: *x\n";
  std::string bad = good;
  bad.replace(bad.find("*x"), 2, "*y");  // one byte apart: an alias to no anchor
  const std::string other = "c: [1, 2]\n";
  for (int round = 0; round < 2; ++round) {
    CHECK(ValueOf(*LoadYamlStream(good), "b").Scalar() == "1");
    CHECK(ValueOf(*LoadYamlStream(good), "b").Scalar() == "1");
    CHECK_NOTHROW(CheckAllDocumentsParse(good));
    CHECK(ValueOf(*LoadYamlStream(other), "c").Items().size() == 2);
    CHECK_THROWS_AS(LoadYamlStream(bad), YAML::Exception);
    CHECK_THROWS_AS(CheckAllDocumentsParse(bad), YAML::Exception);
    CHECK_THROWS_AS(LoadYamlStream(good + "c: *y\n"), YAML::Exception);  // longer
    CHECK_THROWS_AS(CheckAllDocumentsParse(good.substr(0, 8) + "b: [\n"), YAML::Exception);  // shorter
    CHECK(LoadYamlStream("")->documents.empty());
    CHECK(testing::LoadAllDocuments(good).size() == 1);
    // More texts than it keeps: the oldest are loaded afresh, with the same answer.
    for (int i = 0; i < 6; ++i) {
      CHECK(ValueOf(*LoadYamlStream("k: " + std::to_string(i) + "\n"), "k").Scalar() == std::to_string(i));
    }
  }
}

TEST_CASE("yaml_load: yaml-cpp's tree takes the tokenizer's decoding") {
  // A13: a kept folded block before blank lines, quoted scalars of blank lines.
  const std::shared_ptr<const YamlStream> stream = LoadYamlStream("k: >+\n  x\n\nl: 1\ne: '\n\n  '\ng: \"\n\n  \"\n");
  CHECK(ValueOf(*stream, "k").Scalar() == "x\n\n");
  CHECK(ValueOf(*stream, "e").Scalar() == "\n");
  CHECK(ValueOf(*stream, "g").Scalar() == "\n");
  YamlStream parsed;
  YamlParseError error;
  REQUIRE(ParseYamlStream("- >+\n  x\n\n- '\n\n  '\n", &parsed, &error));
  CHECK(YamlRef(parsed, parsed.documents[0]).Items()[0].Scalar() == "x\n\n");
}

// Over the valid cases of the YAML test suite that yaml-cpp reads, where
// its tree holds other nodes than the tokenizer's (LoadYamlStream refuses
// those), and where it decodes a scalar otherwise (the tokenizer's decoding
// is taken). Each is yaml-cpp's misreading:
//  FP8R: a folded block on the `---` line with its text at column 0 (yaml-cpp: two documents);
//  HWV9, QT73: a stream of only `...` (and a comment) has no document (yaml-cpp: a null one);
//  W4TN: a `---` document holding a comment before `...` (yaml-cpp: one more null document);
//  M7A3: a block scalar after `...` of the previous document (yaml-cpp: empty);
//  NAT4: quoted scalars of blank lines (yaml-cpp: "").
TEST_CASE("yaml_load: yaml-test-suite: yaml-cpp and the tokenizer read the same nodes, two cases' scalars otherwise") {
  const std::filesystem::path suite = testing::YamlTestSuiteOrSkip();
  std::vector<std::string> other_nodes, other_scalars;
  std::size_t compared = 0;
  for (const auto& entry : std::filesystem::directory_iterator(suite)) {
    if (!entry.is_directory() || std::filesystem::exists(entry.path() / "error")) continue;
    const std::string text = testing::ReadFile(entry.path() / "in.yaml");
    YamlStream yaml_cpp;
    YamlParseError error;
    if (!ParseYamlStreamWithYamlCpp(text, &yaml_cpp, &error)) continue;
    ++compared;
    YamlStream decoded = yaml_cpp;
    const std::string name = entry.path().filename().string();
    if (TakeTokenizerDecoding(text, &decoded)) {
      other_nodes.push_back(name);
    } else if (!(decoded == yaml_cpp)) {
      other_scalars.push_back(name);
    }
  }
  std::sort(other_nodes.begin(), other_nodes.end());
  std::sort(other_scalars.begin(), other_scalars.end());
  CHECK(compared > 250);
  CHECK(other_nodes == std::vector<std::string>{"FP8R", "HWV9", "QT73", "W4TN"});
  CHECK(other_scalars == std::vector<std::string>{"M7A3", "NAT4"});
}

TEST_CASE("yaml_load: where yaml-cpp reads other nodes, LoadYamlStream and ParseYamlStream refuse, located") {
  const std::string text = "--- >\nline1\nline2\n";  // FP8R: yaml-cpp reads a second document at line1
  CHECK(ErrorOf(LoadYamlStream, text) == std::string(kOtherNodesMessage) + " at 1:0");
  YamlStream stream;
  YamlParseError error;
  CHECK_FALSE(ParseYamlStream(text, &stream, &error));
  CHECK(error.message == kOtherNodesMessage);
  CHECK(error.line == 1);
  CHECK(error.column == 0);
  CHECK(stream.nodes.empty());
}

}  // namespace safesubst::detail
