// SPDX-License-Identifier: Apache-2.0
#include <doctest/doctest.h>

#include <string>
#include <string_view>

#include "lint_internal.h"
#include "yaml_load.h"

namespace safesubst::lint {
namespace {

// "line:col" of the byte that `needle` (found in the decoded value) comes from.
std::string PositionOf(const Source& source, const ScalarView& view, std::string_view needle) {
  std::size_t index = view.text.find(needle);
  REQUIRE_MESSAGE(index != std::string::npos, needle);
  Location location = source.At(view.Offset(index));
  return std::to_string(location.line) + ":" + std::to_string(location.column);
}

// The first document of a text, read as Lint reads it.
class Document {
 public:
  explicit Document(std::string_view text) {
    detail::YamlParseError error;
    REQUIRE(detail::ParseYamlStream(text, &stream_, &error));
  }
  Node root() const { return detail::YamlRef(stream_, stream_.documents.front()); }

 private:
  detail::YamlStream stream_;
};

ScalarView ViewOfKey(const Source& source, const Node& root, std::string_view key) {
  Node value = Get(root, key);
  REQUIRE(value.IsScalar());
  return ViewScalar(source, value);
}

TEST_CASE("lint yaml: literal block lines map to their own lines and columns") {
  std::string text =
      "a: 1\n"
      "script: |\n"
      "  first $A\n"
      "\n"
      "    indented $B\n"
      "  last $C\n"
      "after: 2\n";
  Source source(text, "f.yaml");
  const Document document(text);
  const Node root = document.root();
  ScalarView view = ViewOfKey(source, root, "script");
  CHECK(view.block);
  CHECK(view.exact);
  CHECK(PositionOf(source, view, "$A") == "3:9");
  CHECK(PositionOf(source, view, "$B") == "5:14");
  CHECK(PositionOf(source, view, "$C") == "6:8");
}

TEST_CASE("lint yaml: block scalars in a sequence, with a header comment and keep chomping") {
  std::string text =
      "args:\n"
      "  - |+ # the wrapper\n"
      "    echo $X\n"
      "\n"
      "  - >-\n"
      "    folded $Y\n"
      "    joined $Z\n"
      "\n"
      "    para $W\n";
  Source source(text, "f.yaml");
  const Document document(text);
  const Node root = document.root();
  const std::vector<Node> args = Get(root, "args").Items();
  ScalarView literal = ViewScalar(source, args[0]);
  CHECK(literal.exact);
  CHECK(PositionOf(source, literal, "$X") == "3:10");
  ScalarView folded = ViewScalar(source, args[1]);
  CHECK(folded.exact);
  CHECK(folded.text == "folded $Y joined $Z\npara $W");
  CHECK(PositionOf(source, folded, "$Y") == "6:12");
  CHECK(PositionOf(source, folded, "$Z") == "7:12");
  CHECK(PositionOf(source, folded, "$W") == "9:10");
}

TEST_CASE("lint yaml: explicit indentation indicator") {
  std::string text =
      "k: |2\n"
      "    two more $A\n"
      "  base $B\n";
  Source source(text, "f.yaml");
  const Document document(text);
  const Node root = document.root();
  ScalarView view = ViewOfKey(source, root, "k");
  CHECK(view.exact);
  CHECK(view.text == "  two more $A\nbase $B\n");
  CHECK(PositionOf(source, view, "$A") == "2:14");
  CHECK(PositionOf(source, view, "$B") == "3:8");
}

TEST_CASE("lint yaml: quoted scalars with escapes and folding") {
  std::string text =
      "dq: \"a\\t\\\"b\\\" \\u00e9 $X\"\n"
      "sq: 'it''s $Y'\n"
      "ml: \"one\n"
      "  two $Z\n"
      "\n"
      "  three\\\n"
      "  four $V\"\n"
      "tagged: !!str &anchor \"$T\"\n";
  Source source(text, "f.yaml");
  const Document document(text);
  const Node root = document.root();
  ScalarView dq = ViewOfKey(source, root, "dq");
  CHECK(dq.exact);
  CHECK(PositionOf(source, dq, "$X") == "1:22");
  ScalarView sq = ViewOfKey(source, root, "sq");
  CHECK(sq.exact);
  CHECK(PositionOf(source, sq, "$Y") == "2:12");
  ScalarView ml = ViewOfKey(source, root, "ml");
  CHECK(ml.exact);
  CHECK(ml.text == "one two $Z\nthreefour $V");
  CHECK(PositionOf(source, ml, "$Z") == "4:7");
  CHECK(PositionOf(source, ml, "$V") == "7:8");
  ScalarView tagged = ViewOfKey(source, root, "tagged");
  CHECK(tagged.exact);
  CHECK(PositionOf(source, tagged, "$T") == "8:24");
}

TEST_CASE("lint yaml: positions after hexadecimal, Unicode and line-break escapes") {
  // Every byte of an escape maps to its backslash; an escaped line break
  // followed by an empty line decodes to one line feed.
  std::string text =
      "e: \"\\x41\\U0001F600\\L $A\\\n"
      "  \n"
      "  b $B \\\" $C\"\n";
  Source source(text, "f.yaml");
  const Document document(text);
  const Node root = document.root();
  ScalarView e = ViewOfKey(source, root, "e");
  CHECK(e.text == "A\U0001F600\u2028 $A\nb $B \" $C");
  CHECK(e.exact);
  CHECK(PositionOf(source, e, "A") == "1:5");
  CHECK(PositionOf(source, e, "\U0001F600") == "1:9");
  CHECK(PositionOf(source, e, "\u2028") == "1:19");
  CHECK(PositionOf(source, e, "$A") == "1:22");
  CHECK(PositionOf(source, e, "b") == "3:3");
  CHECK(PositionOf(source, e, "$B") == "3:5");
  CHECK(PositionOf(source, e, "\"") == "3:8");
  CHECK(PositionOf(source, e, "$C") == "3:11");
}

TEST_CASE("lint yaml: plain scalars, multi-line plain, CRLF and a byte order mark") {
  std::string text = "\xEF\xBB\xBF" "a: x $P\r\nb: one\r\n  two $Q\r\n";
  Source source(text, "f.yaml");
  const Document document(text);
  const Node root = document.root();
  ScalarView a = ViewOfKey(source, root, "a");
  CHECK(a.exact);
  CHECK(PositionOf(source, a, "$P") == "1:9");  // columns count bytes, the BOM included
  ScalarView b = ViewOfKey(source, root, "b");
  CHECK(b.exact);
  CHECK(b.text == "one two $Q");
  CHECK(PositionOf(source, b, "$Q") == "3:7");
}

TEST_CASE("lint yaml: an alias falls back to its node's position") {
  std::string text = "a: &x \"v $A\"\nb: *x\n";
  Source source(text, "f.yaml");
  const Document document(text);
  const Node root = document.root();
  ScalarView b = ViewOfKey(source, root, "b");
  CHECK(b.text == "v $A");
  CHECK(source.At(b.Offset(2)).line >= 1);  // some valid place, never out of range
  CHECK(b.Offset(1000) <= text.size());
}

TEST_CASE("lint yaml: Get tells an absent key from a null one") {
  const Document document("a: ~\nb:\n  c: 1\n");
  const Node root = document.root();
  CHECK_FALSE(Get(root, "missing").IsDefined());
  CHECK(Get(root, "a").IsDefined());
  CHECK(Get(root, "a").IsNull());
  CHECK(ScalarText(Path(root, {"b", "c"})) == "1");
  CHECK_FALSE(Path(root, {"b", "x"}).IsDefined());
  CHECK_FALSE(Path(root, {"a", "x"}).IsDefined());
  CHECK(root.Entries().size() == 2);
}

}  // namespace
}  // namespace safesubst::lint
