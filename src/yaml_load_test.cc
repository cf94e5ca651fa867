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

}  // namespace safesubst::detail
