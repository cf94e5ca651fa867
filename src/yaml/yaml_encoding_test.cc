// SPDX-License-Identifier: Apache-2.0
// Tests of YAML-level value encoding: plain scalar resolution, the plain
// scalar fit, the escapes, block bodies, `type: yaml` nodes, and a round-trip
// property over a generated corpus of tricky values read back with yaml-cpp.
#include "yaml_encoding.h"

#include <doctest/doctest.h>
#include <yaml-cpp/yaml.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "alias_bomb.h"
#include "yaml_node_writer.h"

namespace safesubst {
namespace {

const std::string kDataDir = std::string(SAFESUBST_SOURCE_DIR) + "/tests/data/encoding";
constexpr std::size_t kNoByteLimit = std::size_t{1} << 40;

std::string_view KindName(PlainKind kind) {
  switch (kind) {
    case PlainKind::kString: return "string";
    case PlainKind::kNull: return "null";
    case PlainKind::kBool: return "bool";
    case PlainKind::kInt: return "int";
    case PlainKind::kFloat: return "float";
    case PlainKind::kTimestamp: return "timestamp";
    case PlainKind::kOther: return "other";
  }
  return "?";
}

// Shows control characters readably in failure messages.
std::string Show(std::string_view text) {
  std::string out = "\"";
  for (unsigned char c : text) {
    if (c == '\n') {
      out += "\\n";
    } else if (c < 0x20 || c == 0x7F) {
      static constexpr char kHex[] = "0123456789ABCDEF";
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

// ---------------------------------------------------------------------------
// ResolvePlain

TEST_CASE("ResolvePlain: the examples of the brief") {
  for (const char* text : {"1.10", "on", "no", "~", "0o17", "1e3", "0x1F", "null"}) {
    CHECK_MESSAGE(ResolvePlain(text) != PlainKind::kString, text);
  }
  for (const char* text : {"1.10.3", "online", "v1", "10.0.1.10", "abc"}) {
    CHECK_MESSAGE(ResolvePlain(text) == PlainKind::kString, text);
  }
  CHECK(ResolvePlain("1.10") == PlainKind::kFloat);
  CHECK(ResolvePlain("on") == PlainKind::kBool);
  CHECK(ResolvePlain("no") == PlainKind::kBool);
  CHECK(ResolvePlain("~") == PlainKind::kNull);
  CHECK(ResolvePlain("") == PlainKind::kNull);
  CHECK(ResolvePlain("0o17") == PlainKind::kInt);
  CHECK(ResolvePlain("1e3") == PlainKind::kFloat);
  CHECK(ResolvePlain("0x1F") == PlainKind::kInt);
}

TEST_CASE("ResolvePlain: every row of tests/data/encoding/resolve.tsv") {
  std::ifstream in(kDataDir + "/resolve.tsv");
  REQUIRE(in.good());
  std::string line;
  int rows = 0;
  std::map<std::string, int> per_kind;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::size_t tab = line.find('\t');
    REQUIRE(tab != std::string::npos);
    std::string kind = line.substr(0, tab);
    std::string text = line.substr(tab + 1);
    text = text.substr(0, text.find('\t'));
    CHECK_MESSAGE(KindName(ResolvePlain(text)) == kind, "text " << Show(text) << " expected " << kind);
    ++rows;
    ++per_kind[kind];
  }
  CHECK(rows > 170);
  for (const char* kind : {"string", "null", "bool", "int", "float", "timestamp", "other"}) {
    CHECK_MESSAGE(per_kind[kind] >= 2, kind);
  }
}

TEST_CASE("ResolvePlain: numbers in all the casings and signs") {
  for (std::string sign : {"", "+", "-"}) {
    for (const char* body : {"0", "12", "0x1f", "0X1F", "0o7", "0b1", "017", "1_000", "3:25:45"}) {
      CHECK_MESSAGE(ResolvePlain(sign + body) == PlainKind::kInt, sign << body);
    }
    for (const char* body : {"1.5", "1.", ".5", "1e9", "1.5E-9", "6.8523015e+5", "685.230_15e+03",
                             "685_230.15", "190:20:30.15", ".inf", ".Inf", ".INF"}) {
      CHECK_MESSAGE(ResolvePlain(sign + body) == PlainKind::kFloat, sign << body);
    }
  }
  for (const char* word : {"inf", "Inf", "-inf", ".iNF", "+.nan", "-.NaN", "1.2.3", "1.2e3.4"}) {
    CHECK_MESSAGE(ResolvePlain(word) == PlainKind::kString, word);
  }
}

// ---------------------------------------------------------------------------
// FitsPlain and SplicedPlainIsSafe

TEST_CASE("IsDecimalIntOrBool: only what every YAML reader reads the same way") {
  for (const char* yes : {"0", "3", "-12", "8080", "true", "false"}) {
    CAPTURE(yes);
    CHECK(IsDecimalIntOrBool(yes));
    CHECK(ResolvePlain(yes) != PlainKind::kString);
  }
  for (const char* no : {"", "-", "017", "+3", "1.10", "0x1F", "0o17", "1_000", "True", "on", "yes", "null", "3 ",
                         "1e3", "12:30"}) {
    CAPTURE(no);
    CHECK_FALSE(IsDecimalIntOrBool(no));
  }
}

TEST_CASE("FitsPlain: indicators, comments, mapping values") {
  for (const char* ok : {"abc", "a b", "a:b", "a#b", "-x", "--flag=1", "?x", ":x", "a-", "a?", "x'y",
                         "x\"y", "a,b", "a[0]", "x{{y}}", "http://example.com/a?b=c#d", "..x", "---x",
                         "é", "日本語", "a\xC2\xA0" "b", "100%", "a@b", "a!", "a&b", "a*b", "a|b", "a>b"}) {
    CHECK_MESSAGE(FitsPlain(ok, false), Show(ok));
  }
  for (const char* bad : {"", " a", "a ", "a: b", "a:", "a #b", "#a", "- x", "-", "? x", "?", ": x", ":",
                          ",a", "[a", "]a", "{a", "}a", "&a", "*a", "!a", "|", "|a", ">", ">a", "'a", "\"a",
                          "%a", "@a", "`a", "---", "--- a", "...", "... a", "a\tb", "a\nb", "a\rb",
                          "a\x7F", "a\x01", "a\xC2\x85" "b", "a\xE2\x80\xA8" "b", "\xEF\xBB\xBF" "a",
                          "a\xC2\x80", "a\xFF", "a\xC0\xAF"}) {
    CHECK_MESSAGE(!FitsPlain(bad, false), Show(bad));
  }
  std::string nul("a\0b", 3);
  CHECK(!FitsPlain(nul, false));
}

TEST_CASE("FitsPlain: flow context forbids flow indicators, `:` and `?`") {
  for (std::string bad : {"a,b", "a[0]", "a]", "a{x}", "x}", "a:b", "http://x", "a?b"}) {
    CHECK_MESSAGE(!FitsPlain(bad, true), bad);
    CHECK_MESSAGE(FitsPlain(bad, false), bad);
  }
  CHECK(FitsPlain("a-b.c_d/e", true));
}

TEST_CASE("SplicedPlainIsSafe: what forms across the boundary") {
  // `#` after a template space starts a comment; after a letter it is text.
  CHECK(!SplicedPlainIsSafe("a ", "#x", "", false));
  CHECK(SplicedPlainIsSafe("a", "#x", "", false));
  // A value ending in `:` before a template space, or at the end, makes a key.
  CHECK(!SplicedPlainIsSafe("", "x:", " b", false));
  CHECK(!SplicedPlainIsSafe("", "x:", "", false));
  CHECK(SplicedPlainIsSafe("", "x:", "b", false));
  // A value ending in a space before a template `#`.
  CHECK(!SplicedPlainIsSafe("", "x ", "#b", false));
  // Leading/trailing space only matters at the scalar's edges.
  CHECK(SplicedPlainIsSafe("a", " b ", "c", false));
  CHECK(!SplicedPlainIsSafe("", " b", "c", false));
  CHECK(!SplicedPlainIsSafe("a", "b ", "", false));
  // Indicators only at the start of the scalar.
  CHECK(!SplicedPlainIsSafe("", "*x", "", false));
  CHECK(SplicedPlainIsSafe("a", "*x", "", false));
  CHECK(!SplicedPlainIsSafe("", "-", " x", false));
  CHECK(SplicedPlainIsSafe("", "-", "x", false));
  // An empty value can also join template text into a comment.
  CHECK(!SplicedPlainIsSafe("a ", "", "#b", false));
  CHECK(SplicedPlainIsSafe("a ", "", "b", false));
  // Flow context.
  CHECK(!SplicedPlainIsSafe("a", ",", "b", true));
  CHECK(SplicedPlainIsSafe("a", ",", "b", false));
  // Multi-line plain scalars: only the value's line counts, and a line start
  // behaves like the scalar start (indentation is not text).
  CHECK(SplicedPlainIsSafe("first line\n    ", "x", " tail\n  more", false));
  CHECK(!SplicedPlainIsSafe("first line\n    ", " x", "", false));
  CHECK(!SplicedPlainIsSafe("first line\n    ", "#x", "", false));
  // Line breaks inside the value are never spliced raw.
  CHECK(!SplicedPlainIsSafe("a", "x\ny", "b", false));
}

// ---------------------------------------------------------------------------
// Escapes and block bodies

TEST_CASE("AppendDoubleQuotedBody: escapes") {
  auto body = [](std::string_view value) {
    std::string out;
    AppendDoubleQuotedBody(value, &out);
    return out;
  };
  CHECK(body("plain text") == "plain text");
  CHECK(body("a\\b\"c") == "a\\\\b\\\"c");
  CHECK(body(std::string("\0\a\b\t\n\v\f\r\x1B", 9)) == "\\0\\a\\b\\t\\n\\v\\f\\r\\e");
  CHECK(body("\x01\x1F\x7F") == "\\x01\\x1F\\x7F");
  CHECK(body("\xC2\x85") == "\\x85");
  CHECK(body("\xC2\x80\xC2\x9F") == "\\x80\\x9F");
  CHECK(body("\xE2\x80\xA8\xE2\x80\xA9") == "\\L\\P");
  CHECK(body("\xEF\xBB\xBF\xEF\xBF\xBE\xEF\xBF\xBF") == "\\uFEFF\\uFFFE\\uFFFF");
  CHECK(body("caf\xC3\xA9 \xC2\xA0 \xF0\x9F\x98\x80 \xE6\x97\xA5") == "caf\xC3\xA9 \xC2\xA0 \xF0\x9F\x98\x80 \xE6\x97\xA5");
  CHECK(body("$x 'q'") == "$x 'q'");
  // Invalid UTF-8 is the caller's to refuse (see the header): copied through.
  CHECK(body("a\xFF") == "a\xFF");
  CHECK(DoubleQuoted("a\"b") == "\"a\\\"b\"");
}

TEST_CASE("AppendSingleQuotedBody and FitsSingleQuoted") {
  std::string out;
  AppendSingleQuotedBody("it's 'x'", &out);
  CHECK(out == "it''s ''x''");
  CHECK(FitsSingleQuoted("it's \"fine\"\t# ok: yes"));
  CHECK(FitsSingleQuoted(""));
  for (const char* bad : {"a\nb", "a\rb", "a\x01", "a\xC2\x85", "a\xE2\x80\xA8", "a\xFF"}) {
    CHECK_MESSAGE(!FitsSingleQuoted(bad), Show(bad));
  }
}

TEST_CASE("FitsBlock and IsValidUtf8") {
  CHECK(FitsBlock("line 1\n\tline 2\n\n# not a comment\n"));
  for (const char* bad : {"a\r\nb", "a\x01", "a\xC2\x85", "a\xE2\x80\xA9", "\xEF\xBB\xBF", "a\xFF"}) {
    CHECK_MESSAGE(!FitsBlock(bad), Show(bad));
  }
  CHECK(IsValidUtf8("ascii \xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80"));
  for (const char* bad : {"\xFF", "\xC3", "\xC0\xAF", "\xE0\x80\xAF", "\xED\xA0\x80", "\xF4\x90\x80\x80",
                          "\xE2\x82", "\x80"}) {
    CHECK_MESSAGE(!IsValidUtf8(bad), Show(bad));
  }
}

// ASCII is passed over a run at a time (FitsBlock, FitsPlain): what ends a
// run, anywhere in the value, must still be looked at.
TEST_CASE("FitsBlock and FitsPlain: what ends a run of ASCII text") {
  const std::string run = "plain-ASCII.text/0123456789";
  for (const char* tail : {"\xC3\xA9", "\xE2\x82\xAC", "\ttab", "\nline"}) {
    CHECK_MESSAGE(FitsBlock(run + tail + run), Show(tail));
  }
  for (const char* tail : {"\r", "\x01", "\x7F", "\xC2\x85", "\xFF", "\xE2\x82"}) {
    CHECK_MESSAGE(!FitsBlock(run + tail + run), Show(tail));
    CHECK_MESSAGE(!FitsPlain(run + tail + run, false), Show(tail));
  }
  for (const char* ok : {":x", "#x", " x", "?x", ",x", "\xC3\xA9"}) CHECK_MESSAGE(FitsPlain(run + ok, false), Show(ok));
  for (const char* bad : {": x", " #x", "\t"}) CHECK_MESSAGE(!FitsPlain(run + bad + run, false), Show(bad));
  CHECK(!FitsPlain(run + ":", false));
  for (const char* bad : {",", "[", "]", "{", "}", "?", ":"}) {
    CHECK_MESSAGE(!FitsPlain(run + bad + run, true), Show(bad));
    CHECK_MESSAGE(FitsPlain(run + bad + run, false), Show(bad));
  }
}

TEST_CASE("AppendBlockBody: literal re-indents, empty lines stay empty") {
  std::string out;
  AppendBlockBody("a\n  b\n\nc\n", 4, false, &out);
  CHECK(out == "a\n      b\n\n    c\n    ");
}

TEST_CASE("AppendBlockBody: folded adds an empty line between text lines only") {
  auto folded = [](std::string_view value, std::string_view before = {}, std::string_view after = {}) {
    std::string out;
    AppendBlockBody(value, 2, true, &out, before, after);
    return out;
  };
  CHECK(folded("a\nb") == "a\n\n  b");
  CHECK(folded("a\n\nb") == "a\n\n\n  b");
  // Next to a more-indented line a break is not folded: written as is.
  CHECK(folded("a\n  b\nc") == "a\n    b\n  c");
  CHECK(folded("a\n\tb") == "a\n  \tb");
  // The template text before the placeholder is part of the first line.
  CHECK(folded("\nb", "text ") == "\n\n  b");
  CHECK(folded("\nb") == "\n  b");
  CHECK(folded("a\n", {}, "tail") == "a\n\n  ");
  CHECK(folded("a\n", {}, " tail") == "a\n  ");
  CHECK(folded("a\n") == "a\n  ");
}

// ---------------------------------------------------------------------------
// The round-trip property

// Reads `document` back; the value of its single key `key`, or nullopt (with
// `why`) when the document is not a one-key map with a scalar value.
std::optional<std::string> ReadBack(const std::string& document, std::string* why, bool* plain = nullptr) {
  try {
    YAML::Node root = YAML::Load(document);
    if (!root.IsMap() || root.size() != 1) {
      *why = "not a one-key map";
      return std::nullopt;
    }
    auto entry = root.begin();
    if (entry->first.Scalar() != "key") {
      *why = "key is " + Show(entry->first.Scalar());
      return std::nullopt;
    }
    YAML::Node value = entry->second;
    if (value.IsSequence() && value.size() == 1) value = value[0];  // the flow form `key: [v]`
    if (!value.IsScalar()) {
      *why = "value is not a scalar";
      return std::nullopt;
    }
    if (plain) *plain = value.Tag() == "?";
    return value.Scalar();
  } catch (const YAML::Exception& e) {
    *why = std::string("parse error: ") + e.what();
    return std::nullopt;
  }
}

std::vector<std::string> KeywordCorpus() {
  std::vector<std::string> words = {
      "", "~", "null", "Null", "NULL", "true", "True", "TRUE", "false", "False", "FALSE", "yes", "Yes",
      "YES", "no", "No", "NO", "on", "On", "ON", "off", "Off", "OFF", "y", "Y", "n", "N", "0", "-1",
      "+1", "017", "0o17", "0x1F", "0b101", "1_000", "1:20", "1.10", ".5", "1e3", "-1.5E+3", ".inf",
      "-.Inf", ".nan", "1_0.5", "1:20.5", "2001-12-14", "2001-12-14T21:59:43Z", "<<", "=", "1.10.3",
      "online", "v1", "10.0.1.10", "abc"};
  return words;
}

std::vector<std::string> TrickyCorpus() {
  std::vector<std::string> values;
  // Every printable ASCII character alone, and between letters.
  for (char c = 0x20; c < 0x7F; ++c) {
    values.push_back(std::string(1, c));
    values.push_back(std::string("a") + c + "b");
  }
  // All pairs and triples of the characters that matter to YAML.
  const std::string tricky = "-?:,[]{}#&*!|>'\"%@` \\.~x\t\n";
  for (char a : tricky) {
    for (char b : tricky) {
      values.push_back(std::string{a, b});
      for (char c : tricky) values.push_back(std::string{a, b, c});
    }
  }
  // Indicator forms in context.
  for (const char* s : {"- x", "? x", ": ", " #", "#x", "@x", "%x", "*x", "&x", "!x", "|", ">", "'", "\"",
                        "{", "[", "x: y", "x #y", "x:", "--- x", "---", "...", "%YAML 1.2", "!!str x",
                        "&a x", "*a", "- - x", "key: value\nother: 2", "[a, b]", "{a: b}", "a\n---\nb",
                        "http://example.com:8080/a?b#c", "${HOME}", "$(cmd)", "`cmd`", "C:\\path\\x"}) {
    values.push_back(s);
  }
  // Control characters alone and in text.
  for (int c = 0; c < 0x20; ++c) {
    values.push_back(std::string(1, static_cast<char>(c)));
    values.push_back("a" + std::string(1, static_cast<char>(c)) + "b");
  }
  values.push_back("\x7F");
  values.push_back("a\x7F" "b");
  // Unicode: letters, wide characters, emoji, NBSP, NEL, LS, PS, BOM, C1,
  // zero-width space, non-characters.
  for (const char* s : {"caf\xC3\xA9", "\xE6\x97\xA5\xE6\x9C\xAC", "\xF0\x9F\x98\x80", "\xC2\xA0",
                        "a\xC2\xA0", "\xC2\xA0" "a", "a\xC2\x85" "b", "a\xE2\x80\xA8" "b", "a\xE2\x80\xA9" "b",
                        "\xEF\xBB\xBF" "a", "a\xC2\x80" "b", "a\xC2\x9F", "a\xE2\x80\x8B" "b", "\xEF\xBF\xBE",
                        "\xEF\xBF\xBF", "\xEE\x80\x80", "\xF4\x8F\xBF\xBF"}) {
    values.push_back(s);
  }
  // White space and line breaks at the edges and inside.
  for (const char* s : {" ", "  ", " a", "a ", " a ", "\ta", "a\t", "\n", "\n\n", "a\n", "\na", "a\nb",
                        "a\n\nb", "a\n\n\nb", " a\nb", "a\n b", "a \nb", "a\n\n", "\n\na", "a\r\nb", "a\rb",
                        "  indented\nnot", "a\n  b\nc", "a\n\n  b\n\nc", "\n  x", "a\n  \nb", "a\n  ",
                        "x\n#y", "x\n- y", "x\n---\ny", "x\n...\ny", "\t\n\t"}) {
    values.push_back(s);
  }
  // Long values.
  values.push_back(std::string(5000, 'x'));
  values.push_back(std::string(3000, ' ') + "x");
  std::string lines;
  for (int i = 0; i < 200; ++i) lines += "line " + std::to_string(i) + (i % 7 == 0 ? "\n\n" : "\n");
  values.push_back(lines);
  return values;
}

struct FormCounts {
  int values = 0, plain = 0, flow = 0, spliced = 0, double_quoted = 0, single_quoted = 0, literal = 0,
      folded = 0, folded_keep_not_checked = 0;
};

std::string JsonString(std::string_view text) {
  std::string out = "\"";
  for (unsigned char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20 || c == 0x7F) {
      static constexpr char kHex[] = "0123456789abcdef";
      out += "\\u00";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

// With SAFESUBST_ROUNDTRIP_DUMP set, every document the round trip builds is
// also written there as JSON lines, for tests/data/encoding/crosscheck_pyyaml.py
// to read back with a second parser.
std::ofstream* DumpFile() {
  static std::unique_ptr<std::ofstream> file = []() -> std::unique_ptr<std::ofstream> {
    const char* path = std::getenv("SAFESUBST_ROUNDTRIP_DUMP");
    return path ? std::make_unique<std::ofstream>(path) : nullptr;
  }();
  return file.get();
}

// Writes `value` in every form it fits and reads each back.
void RoundTrip(const std::string& value, FormCounts* counts, std::vector<std::string>* failures) {
  ++counts->values;
  auto expect = [&](std::string_view form, const std::string& document, const std::string& expected,
                    bool want_plain = false, bool check = true) {
    if (std::ofstream* dump = DumpFile()) {
      *dump << "{\"form\": " << JsonString(form) << ", \"document\": " << JsonString(document)
            << ", \"expected\": " << JsonString(expected) << ", \"plain\": " << (want_plain ? "true" : "false")
            << "}\n";
    }
    if (!check) return;
    std::string why;
    bool plain = false;
    std::optional<std::string> back = ReadBack(document, &why, &plain);
    if (!back) {
      failures->push_back(std::string(form) + " " + Show(value) + ": " + why + " in " + Show(document));
    } else if (*back != expected) {
      failures->push_back(std::string(form) + " " + Show(value) + ": read back " + Show(*back) + " from " +
                          Show(document));
    } else if (want_plain && !plain) {
      failures->push_back(std::string(form) + " " + Show(value) + ": not read as a plain scalar");
    }
  };
  bool is_string = ResolvePlain(value) == PlainKind::kString;
  if (FitsPlain(value, false) && is_string) {
    ++counts->plain;
    expect("plain", "key: " + value + "\n", value, true);
  }
  if (FitsPlain(value, true) && is_string) {
    ++counts->flow;
    expect("flow", "key: [" + value + "]\n", value, true);
  }
  if (SplicedPlainIsSafe("a ", value, " b", false)) {
    ++counts->spliced;
    expect("spliced", "key: a " + value + " b\n", "a " + value + " b", true);
  }
  if (IsValidUtf8(value)) {
    ++counts->double_quoted;
    expect("double-quoted", "key: " + DoubleQuoted(value) + "\n", value);
  }
  if (FitsSingleQuoted(value)) {
    ++counts->single_quoted;
    std::string body;
    AppendSingleQuotedBody(value, &body);
    expect("single-quoted", "key: '" + body + "'\n", value);
  }
  if (FitsBlock(value)) {
    // As the template `key: |2+` + newline + `  ${X}` + newline would have it: an
    // explicit indentation indicator (the value may start with spaces), keep
    // chomping, and the template's own line break after the placeholder.
    for (bool folded : {false, true}) {
      std::string body;
      AppendBlockBody(value, 2, folded, &body);
      std::string document = std::string("key: ") + (folded ? ">" : "|") + "2+\n  " + body + "\n";
      // yaml-cpp 0.7 drops one trailing empty line of a folded `>+` block
      // (`>+\n  x\n\n` reads "x\n"; the spec and PyYAML say "x\n\n"). Values
      // that end with a line break are therefore left to the PyYAML cross-check
      // (the dump), and counted.
      if (folded && !value.empty() && value.back() == '\n') {
        ++counts->folded_keep_not_checked;
        expect("folded (PyYAML only)", document, value + "\n", false, /*check=*/false);
        continue;
      }
      ++(folded ? counts->folded : counts->literal);
      expect(folded ? "folded" : "literal", document, value + "\n");
    }
  }
}

TEST_CASE("Round trip: every value reads back exactly in every form it fits") {
  std::vector<std::string> corpus = KeywordCorpus();
  std::vector<std::string> tricky = TrickyCorpus();
  corpus.insert(corpus.end(), tricky.begin(), tricky.end());
  FormCounts counts;
  std::vector<std::string> failures;
  for (const std::string& value : corpus) RoundTrip(value, &counts, &failures);
  std::string report;
  for (std::size_t i = 0; i < failures.size() && i < 30; ++i) report += failures[i] + "\n";
  CHECK_MESSAGE(failures.empty(), failures.size() << " failures, first ones:\n" << report);
  MESSAGE("round trip: " << counts.values << " values; plain " << counts.plain << ", flow " << counts.flow
                         << ", spliced " << counts.spliced << ", double-quoted " << counts.double_quoted
                         << ", single-quoted " << counts.single_quoted << ", literal " << counts.literal
                         << ", folded " << counts.folded << " (+" << counts.folded_keep_not_checked
                         << " ending in a line break left to PyYAML)");
  // Every value has at least one form: double quotes take anything valid.
  CHECK(counts.double_quoted == counts.values);
  CHECK(counts.values > 18000);
  CHECK(counts.plain > 1000);
  CHECK(counts.literal > 5000);
}

TEST_CASE("Round trip: non-string keywords are never written plain by the rules") {
  for (const std::string& word : KeywordCorpus()) {
    if (ResolvePlain(word) == PlainKind::kString) continue;
    // The renderer writes such a value double-quoted; it reads back as the string.
    std::string why;
    bool plain = true;
    std::optional<std::string> back = ReadBack("key: " + DoubleQuoted(word) + "\n", &why, &plain);
    REQUIRE_MESSAGE(back.has_value(), why);
    CHECK(*back == word);
    CHECK(!plain);
  }
}

// ---------------------------------------------------------------------------
// EncodeYamlNode

// A canonical description of a node, with the type a scalar resolves to.
std::string Canon(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Null: return "~";
    case YAML::NodeType::Scalar: {
      std::string type = node.Tag() == "?" ? std::string(KindName(ResolvePlain(node.Scalar())))
                         : node.Tag() == "!" ? "string" : node.Tag();
      return type + "(" + node.Scalar() + ")";
    }
    case YAML::NodeType::Sequence: {
      std::string out = "[";
      for (const YAML::Node& item : node) out += Canon(item) + ",";
      return out + "]";
    }
    case YAML::NodeType::Map: {
      std::string out = "{";
      for (const auto& entry : node) out += Canon(entry.first) + ":" + Canon(entry.second) + ",";
      return out + "}";
    }
    default: return "undefined";
  }
}

std::string Encode(std::string_view value, std::uint32_t indent, bool block) {
  std::string out;
  YamlValueError error;
  bool ok = EncodeYamlNode(value, indent, block, kNoByteLimit, &out, &error);
  CHECK_MESSAGE(ok, error.message);
  CHECK_MESSAGE(error.message.empty(), error.message);
  return out;
}

// Encodes `value` into several template positions and checks that each reads
// back as the same node.
void CheckEncodedNode(const std::string& value) {
  CAPTURE(value);
  std::string expected = Canon(YAML::Load(value));
  struct Position {
    std::string prefix;
    std::uint32_t indent;
    bool block;
    std::string suffix;
    std::vector<std::string> path;  // keys (or "0" for the first item) down to the value
  };
  const std::vector<Position> positions = {
      {"key: ", 0, true, "\nnext: 1\n", {"key"}},
      {"- ", 0, true, "\n- next\n", {"0"}},
      {"outer:\n  key: ", 2, true, "\n  next: 1\n", {"outer", "key"}},
      {"- name: ", 2, true, "\n  next: 1\n", {"0", "name"}},
      {"list:\n  - ", 2, true, "\n  - next\n", {"list", "0"}},
      {"key: ", 0, false, "\n", {"key"}},
      {"key: [", 0, false, ", next]\n", {"key", "0"}},
      {"key: {a: ", 0, false, ", b: next}\n", {"key", "a"}},
  };
  for (const Position& position : positions) {
    std::string document = position.prefix + Encode(value, position.indent, position.block) + position.suffix;
    CAPTURE(document);
    try {
      YAML::Node node = YAML::Load(document);
      for (const std::string& step : position.path) {
        node = step == "0" && node.IsSequence() ? node[0] : node[step];
      }
      CHECK(Canon(node) == expected);
    } catch (const YAML::Exception& e) {
      FAIL("does not parse: " << e.what());
    }
  }
}

TEST_CASE("EncodeYamlNode: values read back as the same node in every position") {
  for (const std::string& value : std::vector<std::string>{
           "a: 1\nb: [x, y]\nc: {d: e}", "- 1\n- two\n- [3]\n- {four: 4}", "{limits: {cpu: 500m, memory: 1Gi}}",
           "[]", "{}", "plain", "'1.10'", "\"on\"", "1.10", "on", "~", "", "null", "multi\n\nline",
           "\"line\\nbreak\"", "- - a\n  - b\n- - c", "key: \"a: b\"\nhash: \"#x\"\nquote: \"'\"",
           "- name: a\n  value: '1'\n- name: b\n  value: \"\"", "empty: {}\nlist: []\nnull_value:",
           "!!str 123", "[!!int '5', !!float '1.5']", "\"\\t tab and \\u00e9\"", "a: &x {b: 1}\nc: *x",
           "long: " + std::string(200, 'z'), "'it''s'", "? [complex, key]\n: value", "x: |\n  literal\n  text\n",
           "{\"quoted key\": 1, \"2\": two, \"\": empty}", "[a, 'b, c', \"d]\"]",
           "? " + std::string(1500, 'k') + "\n: long key\nshort: 1", "{? " + std::string(1100, 'q') + ": v}"}) {
    CheckEncodedNode(value);
  }
}

TEST_CASE("EncodeYamlNode: block and flow layout") {
  CHECK(Encode("a: 1\nb:\n  - x\n  - y: 2\n    z: 3", 0, true) == "\n  a: 1\n  b:\n    - x\n    - y: 2\n      z: 3");
  CHECK(Encode("a: 1\nb: [x, {y: 2}]", 4, false) == "{a: 1, b: [x, {y: 2}]}");
  CHECK(Encode("- - a\n  - b", 2, true) == "\n    - - a\n      - b");
  CHECK(Encode("[]", 0, true) == "[]");
  CHECK(Encode("'1.10'", 0, true) == "\"1.10\"");
  CHECK(Encode("1.10", 0, true) == "1.10");
  CHECK(Encode("'text'", 0, true) == "text");
  CHECK(Encode("", 0, true) == "null");
  CHECK(Encode("# only a comment\n", 0, true) == "null");
  CHECK(Encode("!!str 5", 0, true) == "!!str 5");
  CHECK(Encode("!!set {a, b}", 0, true) == "!!set\n  a: null\n  b: null");
  CHECK(Encode("a: &x [1, 2]\nb: *x", 0, false) == "{a: [1, 2], b: [1, 2]}");
  CHECK(Encode("\"a\\nb\"", 0, true) == "\"a\\nb\"");
  CHECK(Encode("? " + std::string(1001, 'k') + "\n: v", 0, true) == "\n  ? " + std::string(1001, 'k') + "\n  : v");
  CHECK(Encode("{? " + std::string(1001, 'k') + ": v}", 0, false) == "{? " + std::string(1001, 'k') + ": v}");
}

TEST_CASE("EncodeYamlNode: errors") {
  std::string out;
  YamlValueError error;
  CHECK(!EncodeYamlNode("a: [unclosed", 0, true, kNoByteLimit, &out, &error));
  CHECK(error.message.find("line 1") != std::string::npos);
  CHECK(error.kind == YamlValueError::Kind::kInvalid);
  CHECK(out.empty());
  error = {};
  CHECK(!EncodeYamlNode("a: 1\n---\nb: 2", 0, true, kNoByteLimit, &out, &error));
  CHECK(error.message.find("2 documents") != std::string::npos);
  CHECK(error.kind == YamlValueError::Kind::kInvalid);
  error = {};
  CHECK(!EncodeYamlNode("*undefined", 0, true, kNoByteLimit, &out, &error));
  CHECK(error.kind == YamlValueError::Kind::kInvalid);
  // Billion laughs: nine levels of ten aliases would be 10^9 nodes.
  const std::string bomb = testing::AliasBomb(9);
  error = {};
  CHECK(!EncodeYamlNode(bomb, 0, true, kNoByteLimit, &out, &error));
  CHECK(error.message.find("expands to more than") != std::string::npos);
  CHECK(error.kind == YamlValueError::Kind::kTooDeep);
  CHECK(out.empty());
  // A chain of aliases nests one level per anchor; written whole, its links
  // add up to more nodes than the bound (manifest_test checks the depth bound).
  error = {};
  CHECK(!EncodeYamlNode(testing::AliasChain(1500), 0, true, kNoByteLimit, &out, &error));
  CHECK(error.message.find("expands to more than") != std::string::npos);
  // The value size limit bounds what aliases add: 10 KB of scalar and a few
  // aliases would otherwise land as 100 MB.
  std::string amplified = "[&s " + std::string(10000, 'A') + ", &l [*s";
  for (int i = 0; i < 99; ++i) amplified += ", *s";
  amplified += "], [*l";
  for (int i = 0; i < 99; ++i) amplified += ", *l";
  amplified += "]]";
  error = {};
  CHECK(!EncodeYamlNode(amplified, 0, true, std::size_t{1} << 20, &out, &error));
  CHECK(error.message.find("more than 1048576 bytes through aliases") != std::string::npos);
  CHECK(error.kind == YamlValueError::Kind::kTooLarge);
  CHECK(out.empty());
}

TEST_CASE("EncodeYamlNode: a mapping with a key twice is refused") {
  std::string out;
  YamlValueError error;
  CHECK_FALSE(EncodeYamlNode("{a: 1, b: {c: 1, c: 2}}", 0, true, kNoByteLimit, &out, &error));
  CHECK(error.message == "the value has the key 'c' twice");
  CHECK(error.kind == YamlValueError::Kind::kInvalid);
  // Keys are one key when some reader reads them as one (KeyIdentity,
  // duplicate_keys.h): the same text (go-yaml v3), or the same resolved value.
  for (const char* duplicated : {"{a: 1, \"a\": 2}", "{a: 1, !!str a: 2}", "{~: 1, null: 2}", "{1: a, 0x1: b}",
                                 "{True: 1, true: 2}", "{1: a, \"1\": b}", "{!!int 1: a, \"1\": b}",
                                 "{!a x: 1, !b x: 2}"}) {
    CAPTURE(duplicated);
    CHECK_FALSE(EncodeYamlNode(duplicated, 0, false, kNoByteLimit, &out, &error));
  }
  for (const char* distinct : {"{\"\": a, ~: b}", "{on: a, off: b}", "{yes: 1, no: 2}"}) {
    CAPTURE(distinct);
    out.clear();
    CHECK(EncodeYamlNode(distinct, 0, false, kNoByteLimit, &out, &error));
  }
  CHECK(out == "{yes: 1, no: 2}");
}

TEST_CASE("EncodeYamlNode: large values without aliases are not bounded by the alias limits") {
  std::string list = "[";
  for (int i = 0; i < 150000; ++i) list += i ? ", 1" : "1";
  list += "]";
  std::string out;
  YamlValueError error;
  CHECK(EncodeYamlNode(list, 0, false, kNoByteLimit, &out, &error));
  CHECK(out.size() == list.size());
  // Aliases count only what they add: two uses of a 60,000-item list pass.
  out.clear();
  const std::string items = list.substr(0, 3 * 60000 - 2) + "]";
  CHECK(EncodeYamlNode("{a: &x " + items + ", b: *x}", 0, false, kNoByteLimit, &out, &error));
  // Block style and indentation make the written text longer than the value:
  // it may hold the value four times over plus the limit (review found an
  // 82-byte list under a 100-byte limit refused).
  out.clear();
  CHECK(EncodeYamlNode("[1, 2, 3, 4, 5, 6, 7, 8, 9, 10]", 12, true, 100, &out, &error));
  CHECK(out.size() > 100);
  // Deep nesting repeated through aliases is bounded by the written text
  // (a 4 KB value wrote 73 MB, found by review).
  std::string deep;
  for (int i = 0; i < 450; ++i) deep += "{k: ";
  deep += "[&x [1, 1, 1, 1, 1, 1, 1, 1, 1, 1]";
  for (int i = 0; i < 400; ++i) deep += ", *x";
  deep += "]";
  for (int i = 0; i < 450; ++i) deep += "}";
  out.clear();
  CHECK_FALSE(EncodeYamlNode(deep, 0, true, std::size_t{1} << 20, &out, &error));
  CHECK(error.message.find("bytes once written out") != std::string::npos);
  CHECK(error.kind == YamlValueError::Kind::kTooLarge);
}

}  // namespace
}  // namespace safesubst
