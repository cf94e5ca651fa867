// SPDX-License-Identifier: Apache-2.0
#include "json_text.h"

#include <doctest/doctest.h>

namespace safesubst {
namespace {

TEST_CASE("json text: escapes what JSON needs and keeps the order of keys") {
  Json object;
  object["z"] = "quote \" backslash \\ newline \n tab \t bell \a";
  object["a"] = 1;
  CHECK(JsonText(object) == "{\"z\":\"quote \\\" backslash \\\\ newline \\n tab \\t bell \\u0007\",\"a\":1}");
}

TEST_CASE("json text: a string that is not UTF-8 becomes valid JSON with U+FFFD") {
  // A Latin-1 file name ("caf\xe9.yaml") and a lone continuation byte.
  const std::string text = JsonText(Json{{"file", "caf\xe9.yaml"}, {"odd", "a\x80z"}});
  CHECK(text == "{\"file\":\"caf\xef\xbf\xbd.yaml\",\"odd\":\"a\xef\xbf\xbdz\"}");
  CHECK(Json::parse(text)["file"] == "caf\xef\xbf\xbd.yaml");
  // Valid UTF-8 is written as it is, not as \u escapes.
  CHECK(JsonText(Json("\xed\x95\x9c")) == "\"\xed\x95\x9c\"");
}

TEST_CASE("json text: an array with one element per line") {
  CHECK(JsonLinesText(Json::array()) == "[]");
  const Json array = Json::array({Json{{"a", 1}}, Json{{"b", "x\ny"}}});
  CHECK(JsonLinesText(array) == "[\n  {\"a\":1},\n  {\"b\":\"x\\ny\"}\n]");
  CHECK(Json::parse(JsonLinesText(array)) == array);
}

}  // namespace
}  // namespace safesubst
