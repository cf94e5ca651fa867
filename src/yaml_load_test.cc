// SPDX-License-Identifier: Apache-2.0
#include "yaml_load.h"

#include <doctest/doctest.h>

#include <string>

namespace safesubst::detail {

TEST_CASE("yaml_load: the most documents a stream can hold is its marker lines plus one") {
  CHECK(MaxDocumentCount("") == 1);
  CHECK(MaxDocumentCount("a: 1\n") == 1);
  CHECK(MaxDocumentCount("---\na: 1\n---\nb: 2\n...\n") == 4);
  CHECK(MaxDocumentCount("--- |\n  x\n---\r\ny\n") == 3);
  // Not markers: indented, or followed by other text.
  CHECK(MaxDocumentCount("  ---\n----\n---x\na: '---'\n") == 1);
}

TEST_CASE("yaml_load: ordinary streams load like LoadAll") {
  std::vector<YAML::Node> documents = LoadAllDocuments("a: 1\n---\n- x\n- y\n");
  REQUIRE(documents.size() == 2);
  CHECK(documents[0]["a"].as<int>() == 1);
  CHECK(documents[1].size() == 2);
  CHECK(LoadAllDocuments("").empty());
  CHECK_THROWS_AS(LoadAllDocuments("a: [1\n"), YAML::Exception);
}

TEST_CASE("yaml_load: a document yaml-cpp cannot get past is an error at that document, not a hang") {
  for (const char* runaway : {",\n", "a: 1\n---\n,\n", "|\n\n,", "|\n,r\n"}) {
    CAPTURE(runaway);
    try {
      LoadAllDocuments(runaway);
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
      LoadAllDocuments(text);
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
    LoadAllDocuments("a:\n  - &m |-\n    [x]\n      y\n  - *m\n");
    FAIL("no exception");
  } catch (const YAML::Exception& error) {
    CHECK(error.msg == kMisreadMessage);
    CHECK(error.mark.line == 2);
    CHECK(error.mark.column == 4);
  }
  // Invalid YAML keeps yaml-cpp's own message.
  CHECK_THROWS_WITH_AS(CheckAllDocumentsParse("a: [1\n"), doctest::Contains("end of"), YAML::Exception);
}

TEST_CASE("yaml_load: a text accepted once is accepted again, and only that text") {
  // Within a RememberAcceptedText, CheckAllDocumentsParse remembers the last
  // text it accepted: each answer must still be the one a fresh check gives,
  // whatever came before.
  RememberAcceptedText remember;
  RememberAcceptedText nested;  // does nothing: the outer one forgets at the end
  const std::string good = "a: &x 1\nb: *x\n";
  std::string bad = good;
  bad.replace(bad.find("*x"), 2, "*y");  // one byte apart: an alias to no anchor
  for (int round = 0; round < 2; ++round) {
    CHECK_NOTHROW(CheckAllDocumentsParse(good));
    CHECK_NOTHROW(CheckAllDocumentsParse(good));
    CHECK_THROWS_AS(CheckAllDocumentsParse(bad), YAML::Exception);
    CHECK_THROWS_AS(CheckAllDocumentsParse(good + "c: *y\n"), YAML::Exception);  // longer
    CHECK_THROWS_AS(CheckAllDocumentsParse(good.substr(0, 8) + "b: [\n"), YAML::Exception);  // shorter
    CHECK_NOTHROW(CheckAllDocumentsParse(""));
    CHECK(LoadAllDocuments(good).size() == 1);
  }
}

}  // namespace safesubst::detail
