// SPDX-License-Identifier: Apache-2.0
#include "tokenizer.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "test_support.h"

namespace safesubst {
namespace {

// Decoded values of all scalars, in order.
std::vector<std::string> Values(std::string_view text) {
  Tokens tokens = Tokenize(text);
  std::vector<std::string> values;
  for (const Scalar& scalar : tokens.scalars) values.push_back(DecodeScalar(text, scalar));
  return values;
}

std::string_view Raw(std::string_view text, const Scalar& scalar) { return text.substr(scalar.offset, scalar.length); }

std::string_view Raw(std::string_view text, const Reference& reference) {
  return text.substr(reference.offset, reference.length);
}

// The first scalar whose decoded value is `value` (fails the test if none).
const Scalar& Find(const Tokens& tokens, std::string_view text, std::string_view value) {
  for (const Scalar& scalar : tokens.scalars) {
    if (DecodeScalar(text, scalar) == value) return scalar;
  }
  FAIL("no scalar with value '" << std::string(value) << "'");
  return tokens.scalars.front();
}

const Reference& FindReference(const Tokens& tokens, std::string_view name) {
  for (const Reference& reference : tokens.references) {
    if (reference.name == name) return reference;
  }
  FAIL("no reference named " << std::string(name));
  return tokens.references.front();
}

bool HasErrorAt(const Tokens& tokens, std::uint32_t line, std::uint32_t column, std::string_view words) {
  return std::any_of(tokens.diagnostics.begin(), tokens.diagnostics.end(), [&](const Diagnostic& diagnostic) {
    return diagnostic.severity == Severity::kError && diagnostic.location.line == line &&
           diagnostic.location.column == column && diagnostic.message.find(words) != std::string::npos;
  });
}

// ---------------------------------------------------------------------------
// Scalar styles

TEST_CASE("tokenizer: each scalar style, with raw span, position and decoded value") {
  const std::string_view text =
      "plain: a b\n"
      "single: 'it''s'\n"
      "double: \"tab\\tnew\\nline\"\n"
      "literal: |\n"
      "  one\n"
      "  two\n"
      "folded: >\n"
      "  one\n"
      "  two\n";
  Tokens tokens = Tokenize(text);
  REQUIRE(tokens.diagnostics.empty());
  REQUIRE(tokens.scalars.size() == 10);
  const Scalar& plain = tokens.scalars[1];
  CHECK(plain.style == ScalarStyle::kPlain);
  CHECK(Raw(text, plain) == "a b");
  CHECK(plain.line == 1);
  CHECK(plain.column == 8);
  const Scalar& single = tokens.scalars[3];
  CHECK(single.style == ScalarStyle::kSingleQuoted);
  CHECK(Raw(text, single) == "'it''s'");
  CHECK(DecodeScalar(text, single) == "it's");
  const Scalar& dquoted = tokens.scalars[5];
  CHECK(dquoted.style == ScalarStyle::kDoubleQuoted);
  CHECK(Raw(text, dquoted) == "\"tab\\tnew\\nline\"");
  CHECK(DecodeScalar(text, dquoted) == "tab\tnew\nline");
  const Scalar& literal = tokens.scalars[7];
  CHECK(literal.style == ScalarStyle::kLiteral);
  CHECK(Raw(text, literal) == "|\n  one\n  two");
  CHECK(literal.indent == 2);
  CHECK(literal.chomping == Chomping::kClip);
  CHECK(DecodeScalar(text, literal) == "one\ntwo\n");
  const Scalar& folded = tokens.scalars[9];
  CHECK(folded.style == ScalarStyle::kFolded);
  CHECK(DecodeScalar(text, folded) == "one two\n");
  CHECK(folded.line == 7);
  CHECK(folded.column == 9);
}

TEST_CASE("tokenizer: style names") {
  CHECK(StyleName(ScalarStyle::kPlain) == "plain");
  CHECK(StyleName(ScalarStyle::kSingleQuoted) == "single-quoted");
  CHECK(StyleName(ScalarStyle::kDoubleQuoted) == "double-quoted");
  CHECK(StyleName(ScalarStyle::kLiteral) == "literal");
  CHECK(StyleName(ScalarStyle::kFolded) == "folded");
  CHECK(ContextName(ContextClass::kComment) == "comment");
  CHECK(ContextName(ContextClass::kScript) == "script");
  CHECK(ContextName(ContextClass::kData) == "data");
}

TEST_CASE("tokenizer: multi-line plain and quoted scalars fold") {
  CHECK(Values("k: a\n  b\n\n  c\n") == std::vector<std::string>{"k", "a b\nc"});
  CHECK(Values("k: 'a\n   b  \n\n\n  c'\n") == std::vector<std::string>{"k", "a b\n\nc"});
  CHECK(Values("k: \"a  \n  b\"\n") == std::vector<std::string>{"k", "a b"});
  // An escaped line break joins without a space and keeps the blanks before it.
  CHECK(Values("k: \"a \\\n   b\"\n") == std::vector<std::string>{"k", "a b"});
  CHECK(Values("k: \"a\\\n   b\"\n") == std::vector<std::string>{"k", "ab"});
  // An escaped tab before a line break is content, not trailing white space.
  CHECK(Values("k: \"a\\t\n b\"\n") == std::vector<std::string>{"k", "a\t b"});
  // A plain scalar continues only on lines indented more than its key.
  Tokens tokens = Tokenize("k: a\nb: c\n");
  CHECK(tokens.scalars.size() == 4);
}

TEST_CASE("tokenizer: double-quoted escapes decode like a YAML parser") {
  const std::string_view text =
      R"(v: "\x41\u00e9\U0001F600\N\_\L\P\0\a\b\e\f\r\v\/\\\"\ \	end")";
  Tokens tokens = Tokenize(text);
  REQUIRE(tokens.diagnostics.empty());
  CHECK(DecodeScalar(text, tokens.scalars[1]) ==
        std::string("A\xC3\xA9\xF0\x9F\x98\x80\xC2\x85\xC2\xA0\xE2\x80\xA8\xE2\x80\xA9") + std::string(1, '\0') +
            "\a\b\x1b\f\r\v/\\\" \tend");
}

TEST_CASE("tokenizer: plain scalars keep indicators that are not followed by a space") {
  CHECK(Values("url: http://x.example/a#frag\n") == std::vector<std::string>{"url", "http://x.example/a#frag"});
  CHECK(Values("a:b: c\n") == std::vector<std::string>{"a:b", "c"});
  CHECK(Values("k: -1\n") == std::vector<std::string>{"k", "-1"});
  CHECK(Values("k: a # comment\n") == std::vector<std::string>{"k", "a"});
  CHECK(Values("k: [a:b, c]\n") == std::vector<std::string>{"k", "a:b", "c"});
}

// ---------------------------------------------------------------------------
// Block scalars

TEST_CASE("tokenizer: block scalar chomping") {
  const std::string_view text =
      "strip: |-\n"
      "  text\n"
      "\n"
      "clip: |\n"
      "  text\n"
      "\n"
      "keep: |+\n"
      "  text\n"
      "\n"
      "end: x\n";
  Tokens tokens = Tokenize(text);
  REQUIRE(tokens.scalars.size() == 8);
  CHECK(tokens.scalars[1].chomping == Chomping::kStrip);
  CHECK(tokens.scalars[3].chomping == Chomping::kClip);
  CHECK(tokens.scalars[5].chomping == Chomping::kKeep);
  CHECK(DecodeScalar(text, tokens.scalars[1]) == "text");
  CHECK(DecodeScalar(text, tokens.scalars[3]) == "text\n");
  CHECK(DecodeScalar(text, tokens.scalars[5]) == "text\n\n");
  // The raw span ends at the last non-empty content line.
  CHECK(Raw(text, tokens.scalars[5]) == "|+\n  text");
}

TEST_CASE("tokenizer: block scalar indentation indicators") {
  const std::string_view text =
      "a: |2-\n"
      "    more indented\n"
      "   less\n"
      "b: >+1\n"
      "  x\n"
      "\n"
      "c: |1\n"
      "  leading space\n";
  Tokens tokens = Tokenize(text);
  REQUIRE(tokens.diagnostics.empty());
  REQUIRE(tokens.scalars.size() == 6);
  const Scalar& a = tokens.scalars[1];
  CHECK(a.indent_indicator == 2);
  CHECK(a.chomping == Chomping::kStrip);
  CHECK(a.indent == 2);
  CHECK(DecodeScalar(text, a) == "  more indented\n less");
  const Scalar& b = tokens.scalars[3];
  CHECK(b.indent_indicator == 1);
  CHECK(b.chomping == Chomping::kKeep);
  CHECK(b.indent == 1);
  CHECK(DecodeScalar(text, b) == " x\n\n");
  const Scalar& c = tokens.scalars[5];
  CHECK(c.indent == 1);
  CHECK(DecodeScalar(text, c) == " leading space\n");
}

TEST_CASE("tokenizer: block scalar indentation is detected from the first content line") {
  const std::string_view text =
      "- |\n"
      "\n"
      "      six\n"
      "       seven\n"
      "- next\n";
  Tokens tokens = Tokenize(text);
  REQUIRE(tokens.scalars.size() == 2);
  CHECK(tokens.scalars[0].indent == 6);
  CHECK(DecodeScalar(text, tokens.scalars[0]) == "\nsix\n seven\n");
}

TEST_CASE("tokenizer: folded block scalars keep more-indented lines and empty lines") {
  const std::string_view text =
      ">\n"
      "\n"
      " folded\n"
      " line\n"
      "\n"
      " next\n"
      " line\n"
      "   * bullet\n"
      "\n"
      "   * list\n"
      "   * lines\n"
      "\n"
      " last\n"
      " line\n"
      "\n"
      "# Comment\n";
  Tokens tokens = Tokenize(text);
  REQUIRE(tokens.scalars.size() == 1);
  CHECK(DecodeScalar(text, tokens.scalars[0]) ==
        "\nfolded line\nnext line\n  * bullet\n\n  * list\n  * lines\n\nlast line\n");
  REQUIRE(tokens.comments.size() == 1);
  CHECK(tokens.comments[0].line == 16);
}

TEST_CASE("tokenizer: a block scalar ends at a less indented line, and `#` inside it is content") {
  const std::string_view text =
      "script: |\n"
      "  # not a comment\n"
      "  echo hi\n"
      "# a comment\n"
      "next: 1\n";
  Tokens tokens = Tokenize(text);
  REQUIRE(tokens.scalars.size() == 4);
  CHECK(DecodeScalar(text, tokens.scalars[1]) == "# not a comment\necho hi\n");
  REQUIRE(tokens.comments.size() == 1);
  CHECK(tokens.comments[0].line == 4);
  CHECK(tokens.scalars[2].is_key);
}

TEST_CASE("tokenizer: empty block scalars and a comment on the header line") {
  const std::string_view text =
      "a: | # header comment $X\n"
      "b: >-\n"
      "c: |+\n"
      "\n"
      "d: x\n";
  Tokens tokens = Tokenize(text);
  REQUIRE(tokens.scalars.size() == 8);
  CHECK(DecodeScalar(text, tokens.scalars[1]).empty());
  CHECK(Raw(text, tokens.scalars[1]) == "|");
  CHECK(DecodeScalar(text, tokens.scalars[3]).empty());
  CHECK(DecodeScalar(text, tokens.scalars[5]) == "\n");
  REQUIRE(tokens.comments.size() == 1);
  // The header comment's `$X` is a comment reference, not part of the scalar.
  REQUIRE(tokens.references.size() == 1);
  CHECK(tokens.references[0].context == ContextClass::kComment);
  CHECK(tokens.references[0].scalar == Reference::kNoScalar);
}

// ---------------------------------------------------------------------------
// Keys, values and paths

TEST_CASE("tokenizer: keys and values, a key has the path of the entry it names") {
  const std::string_view text =
      "metadata:\n"
      "  name: web\n"
      "  \"quoted key\": v\n";
  Tokens tokens = Tokenize(text);
  REQUIRE(tokens.scalars.size() == 5);
  CHECK(tokens.scalars[0].is_key);
  CHECK(tokens.PathString(tokens.scalars[0].path) == "metadata");
  CHECK(tokens.scalars[1].is_key);
  CHECK_FALSE(tokens.scalars[2].is_key);
  CHECK(tokens.scalars[1].path == tokens.scalars[2].path);
  CHECK(tokens.PathString(tokens.scalars[2].path) == "metadata.name");
  CHECK(tokens.PathString(tokens.scalars[4].path) == "metadata.quoted key");
}

TEST_CASE("tokenizer: paths through sequences of mappings (the seed's container path)") {
  const std::string_view text =
      "spec:\n"
      "  template:\n"
      "    spec:\n"
      "      containers:\n"
      "        - name: app\n"
      "          args:\n"
      "            - first\n"
      "            - second\n"
      "        - name: sidecar\n";
  Tokens tokens = Tokenize(text);
  REQUIRE(tokens.diagnostics.empty());
  CHECK(tokens.PathString(Find(tokens, text, "app").path) == "spec.template.spec.containers[0].name");
  CHECK(tokens.PathString(Find(tokens, text, "first").path) == "spec.template.spec.containers[0].args[0]");
  CHECK(tokens.PathString(Find(tokens, text, "second").path) == "spec.template.spec.containers[0].args[1]");
  CHECK(tokens.PathString(Find(tokens, text, "sidecar").path) == "spec.template.spec.containers[1].name");
}

TEST_CASE("tokenizer: nested and compact sequences, root paths") {
  const std::string_view text =
      "- - a\n"
      "  - b\n"
      "- k: v\n"
      "  k2: w\n"
      "-\n"
      "  - c\n";
  Tokens tokens = Tokenize(text);
  REQUIRE(tokens.diagnostics.empty());
  CHECK(tokens.PathString(Find(tokens, text, "a").path) == "[0][0]");
  CHECK(tokens.PathString(Find(tokens, text, "b").path) == "[0][1]");
  CHECK(tokens.PathString(Find(tokens, text, "v").path) == "[1].k");
  CHECK(tokens.PathString(Find(tokens, text, "w").path) == "[1].k2");
  CHECK(tokens.PathString(Find(tokens, text, "c").path) == "[2][0]");

  Tokens root = Tokenize("just a scalar\n");
  REQUIRE(root.scalars.size() == 1);
  CHECK(root.scalars[0].path == PathSegment::kRoot);
  CHECK(root.PathString(root.scalars[0].path).empty());
}

TEST_CASE("tokenizer: a sequence may stand at the indentation of its key") {
  const std::string_view text =
      "a:\n"
      "- x\n"
      "- y\n"
      "b: z\n";
  Tokens tokens = Tokenize(text);
  REQUIRE(tokens.diagnostics.empty());
  CHECK(tokens.PathString(Find(tokens, text, "y").path) == "a[1]");
  CHECK(tokens.PathString(Find(tokens, text, "z").path) == "b");
}

TEST_CASE("tokenizer: flow collections, nested and over several lines") {
  const std::string_view text =
      "labels: {app: web, tier: \"front\"}\n"
      "ports: [80, [443, 8443], {name: http}]\n"
      "multi: [\n"
      "  one,   # first\n"
      "  two\n"
      "]\n"
      "json: {\"k\":1}\n"
      "pair: [a: b]\n";
  Tokens tokens = Tokenize(text);
  REQUIRE(tokens.diagnostics.empty());
  CHECK(tokens.PathString(Find(tokens, text, "web").path) == "labels.app");
  CHECK(tokens.PathString(Find(tokens, text, "front").path) == "labels.tier");
  CHECK(tokens.PathString(Find(tokens, text, "80").path) == "ports[0]");
  CHECK(tokens.PathString(Find(tokens, text, "8443").path) == "ports[1][1]");
  CHECK(tokens.PathString(Find(tokens, text, "http").path) == "ports[2].name");
  CHECK(tokens.PathString(Find(tokens, text, "two").path) == "multi[1]");
  CHECK(tokens.PathString(Find(tokens, text, "1").path) == "json.k");
  CHECK(tokens.PathString(Find(tokens, text, "b").path) == "pair[0].a");
  CHECK(Find(tokens, text, "web").in_flow);
  CHECK_FALSE(tokens.scalars[0].in_flow);  // the key `labels`
  CHECK(Find(tokens, text, "a").is_key);
  CHECK(tokens.comments.size() == 1);
}

TEST_CASE("tokenizer: documents of a stream") {
  const std::string_view text =
      "%YAML 1.2\n"
      "---\n"
      "a: 1\n"
      "...\n"
      "--- text\n"
      "---\n"
      "- x\n";
  Tokens tokens = Tokenize(text);
  REQUIRE(tokens.diagnostics.empty());
  REQUIRE(tokens.scalars.size() == 4);
  CHECK(tokens.scalars[0].document == 0);
  CHECK(tokens.scalars[1].document == 0);
  CHECK(tokens.scalars[2].document == 1);
  CHECK(tokens.PathString(tokens.scalars[2].path).empty());
  CHECK(tokens.scalars[3].document == 2);
  CHECK(tokens.PathString(tokens.scalars[3].path) == "[0]");
  REQUIRE(tokens.markers.size() == 5);
  CHECK(tokens.markers[0].kind == Marker::Kind::kDirective);
  CHECK(text.substr(tokens.markers[0].offset, tokens.markers[0].length) == "%YAML 1.2");
  CHECK(tokens.markers[1].kind == Marker::Kind::kDocumentStart);
  CHECK(tokens.markers[2].kind == Marker::Kind::kDocumentEnd);
  CHECK(tokens.markers[2].line == 4);
  CHECK(tokens.markers[3].column == 1);
  CHECK(tokens.markers[4].line == 6);
}

TEST_CASE("tokenizer: the first document may follow comments, a bare document needs no marker") {
  Tokens tokens = Tokenize("# header\n---\na: 1\n---\nb: 2\n");
  REQUIRE(tokens.scalars.size() == 4);
  CHECK(tokens.scalars[0].document == 0);
  CHECK(tokens.scalars[2].document == 1);
  Tokens bare = Tokenize("a: 1\n---\nb: 2\n");
  CHECK(bare.scalars[2].document == 1);
}

TEST_CASE("tokenizer: empty values are plain scalars of length 0") {
  const std::string_view text =
      "key:\n"
      "list:\n"
      "  -\n"
      "  - # only a comment\n"
      "flow: {a: , b}\n"
      "empty doc follows:\n"
      "---\n";
  Tokens tokens = Tokenize(text);
  REQUIRE(tokens.diagnostics.empty());
  std::vector<const Scalar*> empty;
  for (const Scalar& scalar : tokens.scalars) {
    if (scalar.length == 0) empty.push_back(&scalar);
  }
  REQUIRE(empty.size() == 7);
  CHECK(empty[0]->line == 1);
  CHECK(empty[0]->column == 5);  // just after the `:`
  CHECK_FALSE(empty[0]->is_key);
  CHECK(empty[0]->style == ScalarStyle::kPlain);
  CHECK(tokens.PathString(empty[0]->path) == "key");
  CHECK(tokens.PathString(empty[1]->path) == "list[0]");
  CHECK(tokens.PathString(empty[2]->path) == "list[1]");
  CHECK(tokens.PathString(empty[3]->path) == "flow.a");
  CHECK(tokens.PathString(empty[4]->path) == "flow.b");
  CHECK(tokens.PathString(empty[5]->path) == "empty doc follows");
  CHECK(empty[6]->document == 1);  // the empty document after `---`
}

TEST_CASE("tokenizer: anchors, tags and aliases") {
  const std::string_view text =
      "base: &base {a: 1}\n"
      "copy: *base\n"
      "&k key: !!str 123\n"
      "tagged: !<tag:example.com,2024:x> v\n"
      "node: &n\n"
      "  inner: !local 2\n"
      "seq: !!seq\n"
      "- &i item\n"
      "alias key:\n"
      "  *base : value\n";
  Tokens tokens = Tokenize(text);
  REQUIRE(tokens.diagnostics.empty());
  std::vector<std::string> values;
  for (const Scalar& scalar : tokens.scalars) values.push_back(DecodeScalar(text, scalar));
  CHECK(values == std::vector<std::string>{"base", "a", "1", "copy", "key", "123", "tagged", "v", "node", "inner",
                                           "2", "seq", "item", "alias key", "value"});
  CHECK(tokens.scalars[4].is_key);
  CHECK(tokens.scalars[4].column == 4);
  CHECK(tokens.PathString(Find(tokens, text, "2").path) == "node.inner");
  CHECK(tokens.PathString(Find(tokens, text, "item").path) == "seq[0]");
  CHECK(tokens.PathString(Find(tokens, text, "value").path) == "alias key.*base");
}

TEST_CASE("tokenizer: complex keys") {
  const std::string_view text =
      "? complex key\n"
      ": complex value\n"
      "? lonely key\n"
      "? [f1, f2]\n"
      ": flow key value\n"
      "? a: b\n"
      ": c\n";
  Tokens tokens = Tokenize(text);
  REQUIRE(tokens.diagnostics.empty());
  const Scalar& key = Find(tokens, text, "complex key");
  CHECK(key.is_key);
  CHECK(tokens.PathString(key.path) == "complex key");
  const Scalar& value = Find(tokens, text, "complex value");
  CHECK_FALSE(value.is_key);
  CHECK(value.path == key.path);
  // A key without a value has an empty value.
  const Scalar& lonely = Find(tokens, text, "lonely key");
  const Scalar& after = tokens.scalars[static_cast<std::size_t>(&lonely - tokens.scalars.data()) + 1];
  CHECK(after.length == 0);
  CHECK(after.path == lonely.path);
  CHECK(tokens.PathString(Find(tokens, text, "flow key value").path) == "[f1, f2]");
  CHECK(tokens.PathString(Find(tokens, text, "f2").path) == "[f1, f2][1]");
  CHECK(Find(tokens, text, "a").is_key);
}

TEST_CASE("tokenizer: a huge collection used as a key keeps paths short") {
  std::string text = "[";
  for (int i = 0; i < 1000; ++i) text += "item" + std::to_string(i) + ", ";
  text += "last]: value\n";
  Tokens tokens = Tokenize(text);
  REQUIRE(tokens.diagnostics.empty());
  REQUIRE(tokens.scalars.size() == 1002);
  const std::string path = tokens.PathString(tokens.scalars.back().path);
  CHECK(path.size() <= 64);
  CHECK(path.rfind("[item0, item1, ", 0) == 0);
}

TEST_CASE("tokenizer: tabs as separation") {
  CHECK(Values("key:\tvalue\nk: a\tb \n") == std::vector<std::string>{"key", "value", "k", "a\tb"});
  CHECK(Values("seq:\n-\titem\n") == std::vector<std::string>{"seq", "item"});
  CHECK(Tokenize("key:\tvalue\nseq:\n-\titem\nk: a\tb\n").diagnostics.empty());
}

// ---------------------------------------------------------------------------
// Context classes (SPEC Rule 2)

TEST_CASE("tokenizer: context classes") {
  const std::string_view text =
      "containers:\n"
      "  - name: app                   # name ${COMMENT_REF}\n"
      "    image: img:${TAG}\n"
      "    command: [\"/bin/sh\", \"-c\"]\n"
      "    args:\n"
      "      - echo $ARG_ITEM\n"
      "      - [\"$NESTED\"]\n"
      "      - {k: $MAPPED}\n"
      "    env:\n"
      "      - value: |\n"
      "          $BLOCK\n"
      "    ${KEY_REF}: x\n"
      "    command2: [\"$NOT_SCRIPT\"]\n";
  Tokens tokens = Tokenize(text);
  REQUIRE(tokens.diagnostics.empty());
  CHECK(Find(tokens, text, "/bin/sh").context == ContextClass::kScript);
  CHECK(Find(tokens, text, "-c").context == ContextClass::kScript);
  CHECK(Find(tokens, text, "echo $ARG_ITEM").context == ContextClass::kScript);
  CHECK(Find(tokens, text, "command").context == ContextClass::kData);  // keys are data
  CHECK(Find(tokens, text, "app").context == ContextClass::kData);

  CHECK(FindReference(tokens, "COMMENT_REF").context == ContextClass::kComment);
  CHECK(FindReference(tokens, "COMMENT_REF").scalar == Reference::kNoScalar);
  CHECK(FindReference(tokens, "TAG").context == ContextClass::kData);
  CHECK(FindReference(tokens, "ARG_ITEM").context == ContextClass::kScript);
  CHECK(FindReference(tokens, "NESTED").context == ContextClass::kData);  // not a direct item
  CHECK(FindReference(tokens, "MAPPED").context == ContextClass::kData);
  CHECK(FindReference(tokens, "BLOCK").context == ContextClass::kScript);  // any block scalar
  CHECK(FindReference(tokens, "KEY_REF").context == ContextClass::kData);
  CHECK(FindReference(tokens, "NOT_SCRIPT").context == ContextClass::kData);
  for (const Scalar& scalar : tokens.scalars) CHECK_FALSE(scalar.is_shell);
  // Each reference names its scalar.
  const Reference& tag = FindReference(tokens, "TAG");
  CHECK(DecodeScalar(text, tokens.scalars[tag.scalar]) == "img:${TAG}");
}

TEST_CASE("tokenizer: the seed wrapper (SPEC.md) with exact reference positions") {
  const std::string_view text =
      "apiVersion: v1\n"
      "kind: Pod\n"
      "spec:\n"
      "  containers:\n"
      "    - name: app\n"
      "      command: [\"/bin/sh\", \"-c\"]\n"
      "      args:\n"
      "        - |\n"
      "          EFS_2A=\"${EFS_PRIMARY_IP}\"                 # deploy-time: substitute\n"
      "          OCT3=$(echo \"$NODE_IP\" | cut -d. -f3)      # runtime: must survive untouched\n"
      "          echo \"$EFS_IP $EFS_HOST\" >> /etc/hosts     # runtime\n"
      "      # comment ${X}\n";
  Tokens tokens = Tokenize(text);
  REQUIRE(tokens.diagnostics.empty());

  const Reference& primary = FindReference(tokens, "EFS_PRIMARY_IP");
  CHECK(primary.kind == RefKind::kBraced);
  CHECK(primary.context == ContextClass::kScript);
  CHECK(primary.line == 9);
  CHECK(primary.column == 19);
  CHECK(Raw(text, primary) == "${EFS_PRIMARY_IP}");

  const Reference& node_ip = FindReference(tokens, "NODE_IP");
  CHECK(node_ip.kind == RefKind::kBare);
  CHECK(node_ip.context == ContextClass::kScript);
  CHECK(node_ip.line == 10);
  CHECK(node_ip.column == 24);
  CHECK(tokens.PathString(tokens.scalars[node_ip.scalar].path) == "spec.containers[0].args[0]");

  CHECK(FindReference(tokens, "EFS_IP").column == 17);
  CHECK(FindReference(tokens, "EFS_HOST").column == 25);

  const Reference& comment = FindReference(tokens, "X");
  CHECK(comment.context == ContextClass::kComment);
  CHECK(comment.line == 12);
  CHECK(comment.column == 17);
  REQUIRE(tokens.comments.size() == 1);
  CHECK(tokens.comments[0].line == 12);
  CHECK(tokens.comments[0].column == 7);
  CHECK(text.substr(tokens.comments[0].offset, tokens.comments[0].length) == "# comment ${X}");

  // The `#` in the script is shell text inside the block scalar, not a YAML comment.
  for (const Reference& reference : tokens.references) {
    if (reference.line >= 9 && reference.line <= 11) CHECK(reference.context == ContextClass::kScript);
  }
}

TEST_CASE("tokenizer: reference positions inside multi-line flow scalars and keys") {
  const std::string_view text =
      "k: \"first $A\n"
      "  second ${B}\"\n"
      "p: one\n"
      "  two $C\n";
  Tokens tokens = Tokenize(text);
  REQUIRE(tokens.diagnostics.empty());
  CHECK(FindReference(tokens, "A").line == 1);
  CHECK(FindReference(tokens, "A").column == 11);
  CHECK(FindReference(tokens, "B").line == 2);
  CHECK(FindReference(tokens, "B").column == 10);
  CHECK(FindReference(tokens, "C").line == 4);
  CHECK(FindReference(tokens, "C").column == 7);
  // References are in source order.
  for (std::size_t i = 1; i < tokens.references.size(); ++i) {
    CHECK(tokens.references[i - 1].offset < tokens.references[i].offset);
  }
}

// ---------------------------------------------------------------------------
// Line ends, BOM, offsets

TEST_CASE("tokenizer: CRLF line ends") {
  const std::string_view text =
      "a: x\r\n"
      "b: |\r\n"
      "  one $V\r\n"
      "  two\r\n"
      "c: \"q\r\n"
      "  r\"  # note\r\n"
      "d: plain\r\n"
      "  folded\r\n";
  Tokens tokens = Tokenize(text);
  REQUIRE(tokens.diagnostics.empty());
  REQUIRE(tokens.scalars.size() == 8);
  CHECK(DecodeScalar(text, tokens.scalars[1]) == "x");
  CHECK(DecodeScalar(text, tokens.scalars[3]) == "one $V\ntwo\n");
  CHECK(DecodeScalar(text, tokens.scalars[5]) == "q r");
  CHECK(DecodeScalar(text, tokens.scalars[7]) == "plain folded");
  CHECK(tokens.scalars[2].line == 2);
  CHECK(tokens.scalars[4].line == 5);
  CHECK(tokens.scalars[4].offset == text.find("c:"));
  CHECK(FindReference(tokens, "V").line == 3);
  CHECK(FindReference(tokens, "V").column == 7);
  REQUIRE(tokens.comments.size() == 1);
  CHECK(text.substr(tokens.comments[0].offset, tokens.comments[0].length) == "# note");
  CHECK(tokens.comments[0].line == 6);
  CHECK(tokens.comments[0].column == 7);
}

TEST_CASE("tokenizer: a UTF-8 byte order mark is skipped, columns count from after it") {
  const std::string_view text = "\xEF\xBB\xBFkey: $V\n";
  Tokens tokens = Tokenize(text);
  REQUIRE(tokens.diagnostics.empty());
  REQUIRE(tokens.scalars.size() == 2);
  CHECK(tokens.scalars[0].offset == 3);
  CHECK(tokens.scalars[0].column == 1);
  CHECK(tokens.scalars[0].indent == 0);
  CHECK(tokens.PathString(tokens.scalars[1].path) == "key");
  CHECK(FindReference(tokens, "V").column == 6);
  CHECK(FindReference(tokens, "V").offset == 8);
}

TEST_CASE("tokenizer: indentation of flow scalars is that of their line") {
  const std::string_view text =
      "a:\n"
      "    b: [x, \"y\"]\n"
      "    c: >\n"
      "      z\n";
  Tokens tokens = Tokenize(text);
  CHECK(Find(tokens, text, "b").indent == 4);
  CHECK(Find(tokens, text, "y").indent == 4);
  CHECK(Find(tokens, text, "z\n").indent == 6);
}

TEST_CASE("tokenizer: DecodeScalar records the source offset of every decoded byte") {
  const std::string_view text =
      "a: \"x\\ty $V\"\n"
      "b: |\n"
      "  l1\n"
      "  l2 $W\n";
  Tokens tokens = Tokenize(text);
  std::vector<std::size_t> offsets;
  std::string quoted = DecodeScalar(text, tokens.scalars[1], &offsets);
  REQUIRE(quoted == "x\ty $V");
  REQUIRE(offsets.size() == quoted.size());
  CHECK(offsets[1] == text.find("\\t"));  // an escape maps to its backslash
  CHECK(offsets[quoted.find('$')] == FindReference(tokens, "V").offset);

  std::string block = DecodeScalar(text, tokens.scalars[3], &offsets);
  REQUIRE(block == "l1\nl2 $W\n");
  REQUIRE(offsets.size() == block.size());
  CHECK(offsets[block.find('$')] == FindReference(tokens, "W").offset);
  CHECK(offsets[0] == text.find("l1"));
  for (std::size_t i = 0; i < block.size(); ++i) {
    if (block[i] != '\n') CHECK(text[offsets[i]] == block[i]);
  }
}

// ---------------------------------------------------------------------------
// Errors: located diagnostics, and tokenizing goes on

TEST_CASE("tokenizer: unterminated double-quoted scalar") {
  const std::string_view text = "a: \"open\nb: c\n";
  Tokens tokens = Tokenize(text);
  CHECK(HasErrorAt(tokens, 1, 4, "unterminated double-quoted"));
  // The rest of the file is still read.
  CHECK(tokens.PathString(Find(tokens, text, "c").path) == "b");
}

TEST_CASE("tokenizer: unterminated single-quoted scalar") {
  Tokens tokens = Tokenize("x: 1\ny: 'open\n");
  CHECK(HasErrorAt(tokens, 2, 4, "unterminated single-quoted"));
  REQUIRE(tokens.diagnostics[0].location.offset == 8);
  CHECK(tokens.diagnostics[0].location.file == "<stdin>");
}

TEST_CASE("tokenizer: unterminated ${ is an error at the $, in a comment only a warning") {
  const std::string_view text =
      "a: ${OPEN and more\n"
      "b: ${FINE}\n"
      "# see ${this\n";
  TokenizerOptions options;
  options.file_name = "app.yaml";
  Tokens tokens = Tokenize(text, options);
  REQUIRE(tokens.diagnostics.size() == 2);
  CHECK(tokens.diagnostics[0].severity == Severity::kError);
  CHECK(tokens.diagnostics[0].message == "unterminated '${': expected '}'");
  CHECK_FALSE(tokens.diagnostics[0].hint.empty());
  CHECK(tokens.diagnostics[0].location.file == "app.yaml");
  CHECK(tokens.diagnostics[0].location.line == 1);
  CHECK(tokens.diagnostics[0].location.column == 4);
  CHECK(tokens.diagnostics[1].severity == Severity::kWarning);
  CHECK(tokens.diagnostics[1].location.line == 3);
  CHECK(tokens.diagnostics[1].location.column == 7);
  CHECK(FindReference(tokens, "FINE").kind == RefKind::kBraced);
}

TEST_CASE("tokenizer: EscapeLength knows every YAML escape and only those") {
  CHECK(EscapeLength("\\n", 0) == 2);
  CHECK(EscapeLength("a\\\"", 1) == 2);
  CHECK(EscapeLength("\\\t", 0) == 2);
  CHECK(EscapeLength("\\x41", 0) == 4);
  CHECK(EscapeLength("\\u00e9z", 0) == 6);
  CHECK(EscapeLength("\\U0001F600", 0) == 10);
  for (const char* bad : {"\\", "\\q", "\\x4", "\\u00eg", "\\U0001F60"}) {
    CAPTURE(bad);
    CHECK(EscapeLength(bad, 0) == 0);
  }
}

TEST_CASE("tokenizer: structural errors are located") {
  CHECK(HasErrorAt(Tokenize("a: b: c\n"), 1, 5, "mapping values are not allowed"));
  CHECK(HasErrorAt(Tokenize("a: 1\n  b: 2\n"), 2, 4, "mapping values are not allowed"));
  CHECK(HasErrorAt(Tokenize("--- a: b\n"), 1, 6, "mapping values are not allowed"));
  CHECK(HasErrorAt(Tokenize("a: - b\n"), 1, 4, "block sequence cannot start"));
  CHECK(HasErrorAt(Tokenize("a: 1\nb\nc: 2\n"), 2, 1, "could not find the ':'"));
  CHECK(HasErrorAt(Tokenize("a:\n  - x\n - y\n"), 3, 2, "unexpected indentation"));
  CHECK(HasErrorAt(Tokenize("- a\nb: c\n"), 2, 1, "unexpected content after the document"));
  CHECK(HasErrorAt(Tokenize("key: [a, b\n"), 1, 6, "unterminated flow sequence"));
  CHECK(HasErrorAt(Tokenize("key: {a: 1\n"), 1, 6, "unterminated flow mapping"));
  CHECK(HasErrorAt(Tokenize("[a, }\n"), 1, 5, "expected ']'"));
  CHECK(HasErrorAt(Tokenize("a: \"\\q\"\n"), 1, 5, "invalid escape sequence"));
  CHECK(HasErrorAt(Tokenize("a: \"\\x4\"\n"), 1, 5, "hexadecimal digits"));
  CHECK(HasErrorAt(Tokenize("a: |0\n  x\n"), 1, 5, "indentation indicator"));
  CHECK(HasErrorAt(Tokenize("a: |x\n  y\n"), 1, 5, "after a block scalar indicator"));
  CHECK(HasErrorAt(Tokenize("a: @b\n"), 1, 4, "unexpected '@'"));
  CHECK(HasErrorAt(Tokenize("a: 1\n%YAML 1.2\n---\n"), 2, 1, "directive"));
  CHECK(HasErrorAt(Tokenize("a: |\n    \n  x\n"), 2, 1, "leading empty line"));
  CHECK(HasErrorAt(Tokenize("key: \"value\"# glued\n"), 1, 13, "comment must be separated"));
  CHECK(HasErrorAt(Tokenize("block: ># glued\n  x\n"), 1, 9, "comment must be separated"));
  CHECK(HasErrorAt(Tokenize("\"multi\n line\": 1\n"), 1, 1, "implicit mapping key must be on a single line"));
  CHECK(HasErrorAt(Tokenize("[ key\n  : value ]\n"), 1, 3, "flow sequence must be on a single line"));
  CHECK(HasErrorAt(Tokenize("%YAML 1.2\n"), 1, 1, "directive must be followed by a document"));
  CHECK(HasErrorAt(Tokenize("&anchor - item\n"), 1, 9, "cannot start on the line of its anchor"));
  CHECK(Tokenize("a: 1\n").diagnostics.empty());
  CHECK(Tokenize("%YAML 1.2\n---\na: 1 # fine\n").diagnostics.empty());
}

// Invalid YAML the YAML test suite lists (the case ids in the comments); the
// conformance test checks every case when the suite is at hand, these
// without it.
TEST_CASE("tokenizer: invalid YAML of the test suite is an error") {
  CHECK(HasErrorAt(Tokenize("a:\n\tb: c\n"), 2, 1, "tab used as indentation"));                  // 4EJS
  CHECK(HasErrorAt(Tokenize("a:\n\tb\n"), 2, 1, "tab used as indentation"));
  CHECK(HasErrorAt(Tokenize("a: 1\n\tb: 2\n"), 2, 1, "tab used as indentation"));
  CHECK(HasErrorAt(Tokenize("- \t- x\n"), 1, 3, "a tab cannot indent a block collection"));      // Y79Y/005
  CHECK(HasErrorAt(Tokenize("?\tkey: v\n"), 1, 2, "a tab cannot indent a block collection"));     // Y79Y/008
  CHECK(HasErrorAt(Tokenize("foo: |\n\t\nbar: 1\n"), 2, 1, "a tab cannot indent the content"));  // Y79Y/000
  CHECK(HasErrorAt(Tokenize("a: &x\n  &y v\n"), 2, 3, "two anchors"));                              // 4JVG
  CHECK(HasErrorAt(Tokenize("a: &x &y v\n"), 1, 7, "two anchors"));
  CHECK(HasErrorAt(Tokenize("a: &x v\nb: &y *x\n"), 2, 7, "an alias cannot have an anchor"));       // SR86
  CHECK(HasErrorAt(Tokenize("a: &x v\n&y *x : w\n"), 2, 4, "an alias cannot have an anchor"));      // SU74
  CHECK(HasErrorAt(Tokenize("flow: [a,\nb]\n"), 2, 1, "a line of a flow collection"));               // 9C9N
  CHECK(HasErrorAt(Tokenize("k: {\nk\n:\nv\n}\n"), 2, 1, "a line of a flow collection"));         // VJP3/00
  CHECK(HasErrorAt(Tokenize("%YAML 1.2 foo\n---\n"), 1, 1, "takes one version number"));           // H7TQ
  CHECK(HasErrorAt(Tokenize("%YAML 1.1#x\n---\n"), 1, 1, "takes one version number"));              // MUS6/00
  CHECK(HasErrorAt(Tokenize("%YAML 1.2\n%YAML 1.2\n---\n"), 2, 1, "a second %YAML directive"));   // SF5V
  CHECK(HasErrorAt(Tokenize("%TAG !p! tag:x,2024:\n--- !p!a\nb\n--- !p!c\nd\n"), 4, 5,           // QLJ7
                   "tag handle '!p!' is not declared"));
  // Valid neighbours of each.
  for (const char* fine : {"a:\n  b: c\n", "-\tx\n", "foo:\n \tbar\n", "\t{}\n", "a: 1\n\t\nb: 2\n", "a: |\n  x\n\t\nb: 1\n", "&m\n&k a: v\n", "a: &x v\nb: *x\n",
                           "flow: [a,\n b]\n", "[a,\nb]\n", "%YAML 1.1 # c\n---\n", "%YAML 1.2\n---\na\n...\n%YAML 1.2\n---\nb\n",
                           "%TAG !p! tag:x,2024:\n--- !p!a\nb\n"}) {
    CAPTURE(fine);
    CHECK(Tokenize(fine).diagnostics.empty());
  }
}

// Invalid YAML that yaml-cpp refuses too, and that the tokenizer used to
// accept and write unchanged (a later step could delete it unseen).
TEST_CASE("tokenizer: an anchor or alias needs a name, a tag handle a suffix, and a node has one tag") {
  CHECK(HasErrorAt(Tokenize("a: &\n"), 1, 4, "an anchor needs a name"));
  CHECK(HasErrorAt(Tokenize("a: & b\n"), 1, 4, "an anchor needs a name"));
  CHECK(HasErrorAt(Tokenize("[&, b]\n"), 1, 2, "an anchor needs a name"));
  CHECK(HasErrorAt(Tokenize("a: *\n"), 1, 4, "an alias needs a name"));
  CHECK(HasErrorAt(Tokenize("{a: *}\n"), 1, 5, "an alias needs a name"));
  CHECK(HasErrorAt(Tokenize("a: !! x\n"), 1, 4, "tag handle '!!' needs a suffix"));
  CHECK(HasErrorAt(Tokenize("- !!\n"), 1, 3, "tag handle '!!' needs a suffix"));
  CHECK(HasErrorAt(Tokenize("%TAG !e! tag:e.org,2024:\n---\na: !e! v\n"), 3, 4, "tag handle '!e!' needs a suffix"));
  CHECK(HasErrorAt(Tokenize("a: !<tag:x y\n"), 1, 4, "verbatim tag is not closed"));
  CHECK(HasErrorAt(Tokenize("a: ! ! x\n"), 1, 6, "two tags"));
  CHECK(HasErrorAt(Tokenize("a: !a !b x\n"), 1, 7, "two tags"));
  CHECK(HasErrorAt(Tokenize("a: !!str\n  !!str x\n"), 2, 3, "two tags"));
  CHECK(HasErrorAt(Tokenize("a: !t\n  !u\n  - x\n"), 2, 3, "two tags"));
  CHECK(HasErrorAt(Tokenize("[!a !b x]\n"), 1, 5, "two tags"));
  CHECK(HasErrorAt(Tokenize("{!a &x !b k: v}\n"), 1, 8, "two tags"));
  // A flow indicator ends a property, but its node must be set apart by a
  // blank (the attacker's F1); `?` is an explicit key only before a blank (F2).
  CHECK(HasErrorAt(Tokenize("k: &a{b}\n"), 1, 6, "a space must separate an anchor from the '{'"));
  CHECK(HasErrorAt(Tokenize("k: [&a[b]]\n"), 1, 7, "a space must separate an anchor from the '['"));
  CHECK(HasErrorAt(Tokenize("k: !t{b}\n"), 1, 6, "a space must separate a tag from the '{'"));
  CHECK(HasErrorAt(Tokenize("k: !<tag:x>[b]\n"), 1, 12, "a space must separate a tag"));
  CHECK(HasErrorAt(Tokenize("- &a[b]\n"), 1, 5, "a space must separate an anchor"));
  CHECK(HasErrorAt(Tokenize("k: [?]\n"), 1, 5, "unexpected '?'"));
  CHECK(HasErrorAt(Tokenize("k: {?}\n"), 1, 5, "unexpected '?'"));
  CHECK(HasErrorAt(Tokenize("k: [?, a]\n"), 1, 5, "unexpected '?'"));
  CHECK(HasErrorAt(Tokenize("k: {a: 1, ?}\n"), 1, 11, "unexpected '?'"));
  // Two anchors were caught only before a block node's content.
  CHECK(HasErrorAt(Tokenize("a: 1\n&x &y b: 2\n"), 2, 4, "two anchors"));
  // An alias names an anchor defined before it in its own document.
  CHECK(HasErrorAt(Tokenize("a: *nowhere\n"), 1, 4, "the alias '*nowhere' names no anchor"));
  CHECK(HasErrorAt(Tokenize("a: [*x, &x 1]\n"), 1, 5, "names no anchor"));
  CHECK(HasErrorAt(Tokenize("a: &x 1\n---\nb: *x\n"), 3, 4, "names no anchor"));
  CHECK(HasErrorAt(Tokenize("[&a &b x]\n"), 1, 5, "two anchors"));
  CHECK(HasErrorAt(Tokenize("m:\n  &a\n  &b\n  &c k: v\n"), 3, 3, "two anchors"));
  // Valid neighbours: the non-specific tag `!`, and a mapping's properties on
  // the line above those of its first key.
  for (const char* fine : {"a: ! x\n", "[! a, !b c]\n", "a: &x !t v\n", "m: !t\n  &a\n  &b k: v\n", "&m !t\n&k a: v\n",
                           "a: !<tag:x.org,2024:t> v\n", "a: &x v\nb: *x\n",
                           "k: &a {b: 1}\n", "k: [&a, !t, &b [c]]\n", "k: [? ]\n", "k: {? a: b, ?x: y}\n"}) {
    CAPTURE(fine);
    CHECK(Tokenize(fine).diagnostics.empty());
  }
}

TEST_CASE("tokenizer: a tag holds URI characters only, since yaml-cpp ends it at the first other one") {
  CHECK(HasErrorAt(Tokenize("a: !t\\ \"x\"\n"), 1, 6, "character '\\' is not allowed in a tag"));
  CHECK(HasErrorAt(Tokenize("a: !t^ v\n"), 1, 6, "character '^' is not allowed in a tag"));
  CHECK(HasErrorAt(Tokenize("a: !caf\xc3\xa9 |\n  x\n"), 1, 8, "non-ASCII character is not allowed in a tag"));
  CHECK(HasErrorAt(Tokenize("- !t%4 v\n"), 1, 5, "character '%' is not allowed in a tag"));
  // Past the handle (`!`, `!!`, `!word!`) a `!` would start a second tag for yaml-cpp.
  CHECK(HasErrorAt(Tokenize("- !x!y!z v\n"), 1, 7, "character '!' is not allowed in a tag"));
  CHECK(HasErrorAt(Tokenize("a: !!a!b v\n"), 1, 7, "character '!' is not allowed in a tag"));
  for (const char* fine : {"a: !caf%C3%A9 v\n", "a: !!str 1\n", "%TAG !e! tag:e.org,2024:\n---\na: !e!x v\n", "a: !<tag:x.org,2024:t^> v\n",
                           "a: !x-y_z.w/v:u;t?s=r+q@p&o~n*m'l(k)j# v\n", "[!t, !u a]\n"}) {
    CAPTURE(fine);
    CHECK(Tokenize(fine).diagnostics.empty());
  }
}

// yaml-cpp ends such a node early (then rejects the document or reads one
// more), where YAML reads on: valid YAML (issue 26: `- &mounts |-` in Talos
// configs was refused), so the place is recorded for the checks that would
// rely on yaml-cpp, and nothing is an error.
TEST_CASE("tokenizer: a scalar not indented past its leading anchor or tag is valid, and recorded as misread by yaml-cpp") {
  const std::pair<const char*, std::size_t> kMisread[] = {
      {"- &a |\n  echo ${X}\n", 9},  {"k:\n  - !t |\n    x\n", 16},       {"---\n &a |\n x ${X}\n", 11},
      {"---\n&a x${X}\n- 2\n", 13}, {"- &a x\n  y\n", 9},                 {"a:\n  &a |\n  x\n", 12},
      {"? &a |\n  x\n: v\n", 9},   {"- &mounts |-\n  [plugins]\n- *mounts\n", 15}};
  for (const auto& [text, offset] : kMisread) {
    CAPTURE(text);
    Tokens tokens = Tokenize(text);
    CHECK(tokens.diagnostics.empty());
    CHECK(tokens.yaml_cpp_misreads == std::vector<std::size_t>{offset});
  }
  for (const char* fine : {"- &a |\n   x\n", "k: &a |\n x\n", "--- &a |\n x\n", "- &a \"x\n  y\"\n", "- &a\n  x\n",
                           "a:\n  &a x\n   y\n", "- &a |\n\n   x\n\n  # c\n", "- &a x y\n"}) {
    CAPTURE(fine);
    Tokens tokens = Tokenize(fine);
    CHECK(tokens.diagnostics.empty());
    CHECK(tokens.yaml_cpp_misreads.empty());
  }
}

TEST_CASE("tokenizer: deep nesting is refused, not a crash") {
  std::string text(5000, '[');
  Tokens tokens = Tokenize(text);
  REQUIRE_FALSE(tokens.diagnostics.empty());
  CHECK(tokens.diagnostics.front().message.find("nesting deeper") != std::string::npos);
  std::string block;
  for (int i = 0; i < 3000; ++i) block += "- ";
  block += "x\n";
  CHECK(HasErrors(Tokenize(block).diagnostics));
}

TEST_CASE("tokenizer: markers and comments have exact spans") {
  const std::string_view text = "--- # start\na: 1 # trailing\n... # end\n";
  Tokens tokens = Tokenize(text);
  REQUIRE(tokens.comments.size() == 3);
  CHECK(text.substr(tokens.comments[1].offset, tokens.comments[1].length) == "# trailing");
  CHECK(tokens.comments[1].column == 6);
  REQUIRE(tokens.markers.size() == 2);
  CHECK(tokens.markers[0].length == 3);
  CHECK(tokens.markers[1].offset == text.find("..."));
  // A `#` inside quotes or without a space before it is not a comment.
  CHECK(Tokenize("a: \"# no\"\nb: x#y\n").comments.empty());
}

// Only the aliases that can stand for part of a command line are kept.
TEST_CASE("tokenizer: aliases in command lines and << merges are recorded with their path") {
  const std::string text =
      "base: &b {command: [sh, -c]}\nlabels: &l {a: b}\nx: *l\n---\n"
      "anchors: [&cmd [sh], &s x, &e {name: E}, &k command, &q q, &b {command: [sh, -c]}, &l {a: b}]\n"
      "c:\n  command: *cmd\n  args: [\"-c\", *s]\n  env:\n    - *e\n"
      "d:\n  <<: *b\n  args:\n    - *s\n"
      "e:\n  <<: [*b, *l]\n  *k : [sh]\n  ? *q\n  : x\n";
  Tokens tokens = Tokenize(text);
  REQUIRE(tokens.diagnostics.empty());
  std::vector<std::string> found;
  for (const Alias& alias : tokens.command_line_aliases) {
    found.push_back(std::string(text.substr(alias.offset, alias.length)) + "@" + tokens.PathString(alias.path) +
                    "#" + std::to_string(alias.document));
  }
  CHECK(found == std::vector<std::string>{"*cmd@c.command#1", "*s@c.args[1]#1", "*b@d.<<#1", "*s@d.args[0]#1",
                                          "*b@e.<<[0]#1", "*l@e.<<[1]#1", "*k@e.*k#1", "*q@e.*q#1"});
}

TEST_CASE("tokenizer: a key's path segment is its value, also when its text has escapes") {
  const std::string text = "\"comm\\x61nd\": 1\n'it''s': 2\n\"a\\\"b\": 3\n'plain': 4\n\"q'\": 5\n";
  Tokens tokens = Tokenize(text);
  REQUIRE(tokens.diagnostics.empty());
  std::vector<std::string> keys;
  for (const Scalar& scalar : tokens.scalars) {
    if (scalar.is_key) keys.push_back(tokens.PathString(scalar.path));
  }
  CHECK(keys == std::vector<std::string>{"command", "it's", "a\"b", "plain", "q'"});
  // A block scalar key (after `? `) is its value too (found by review).
  Tokens block = Tokenize("? |-\n  command\n: [sh, -c]\n? >\n  args\n: [x]\n");
  REQUIRE(block.diagnostics.empty());
  std::vector<std::string> block_keys;
  for (const Scalar& scalar : block.scalars) {
    if (scalar.is_key) block_keys.push_back(block.PathString(scalar.path));
  }
  CHECK(block_keys == std::vector<std::string>{"command", "args\n"});
  // So is a plain key folded over lines (after `? `, in a flow mapping).
  Tokens folded = Tokenize("? a\n  b\n: 1\nc: {d\n  e: 2}\n");
  REQUIRE(folded.diagnostics.empty());
  CHECK(folded.PathString(folded.scalars[0].path) == "a b");
  CHECK(folded.PathString(folded.scalars[3].path) == "c.d e");
  // Only keys that needed it were decoded; a copy keeps them.
  REQUIRE(tokens.decoded_keys);
  CHECK(tokens.decoded_keys->size() == 3);
  const Tokens copy = tokens;
  tokens = Tokens{};
  CHECK(copy.PathString(copy.scalars[0].path) == "command");
}

TEST_CASE("tokenizer: anchors on mappings are recorded with the mapping's path, others as unknown") {
  const std::string text =
      "a: &block\n  x: 1\nb: &flow {y: 2}\nc:\n  - &item\n    z: 3\n  - &key k: v\n"
      "d: &scalar s\ne: &seq [1]\nf: [&inner {w: 4}]\n---\ng: &next\n  v: 5\n";
  Tokens tokens = Tokenize(text);
  REQUIRE(tokens.diagnostics.empty());
  std::vector<std::string> found;
  std::vector<std::string> unknown;
  for (const Anchor& anchor : tokens.anchors) {
    CHECK(text.substr(anchor.offset, anchor.length) == "&" + std::string(anchor.name));
    if (!anchor.on_mapping) {
      unknown.push_back(std::string(anchor.name));
      continue;
    }
    found.push_back(std::string(anchor.name) + "@" + tokens.PathString(anchor.path) + "#" +
                    std::to_string(anchor.document));
  }
  CHECK(found == std::vector<std::string>{"block@a#0", "flow@b#0", "item@c[0]#0", "inner@f[0]#0", "next@g#1"});
  CHECK(unknown == std::vector<std::string>{"key", "scalar", "seq"});
}

TEST_CASE("tokenizer: a tag on a mapping key other than !!str is an error") {
  // go-yaml reads `!!binary Y29tbWFuZA==` as the key `command` (found by review).
  for (const char* text : {"c:\n  !!binary Y29tbWFuZA==: [sh, -c]\n", "- !!binary Y29tbWFuZA==: x\n",
                           "{!local k: v}\n", "? !!binary Y29tbWFuZA==\n: x\n", "c: {&a !!binary eA==: 1}\n",
                           "c:\n  !<tag:yaml.org,2002:binary> eA==: 1\n"}) {
    CAPTURE(text);
    Tokens tokens = Tokenize(text);
    REQUIRE(tokens.diagnostics.size() == 1);
    CHECK(tokens.diagnostics[0].message.find("which decides the key's value") != std::string::npos);
  }
  for (const char* text : {"c:\n  !!str command: [sh]\n", "- &a k: v\n", "c: !!map\n  k: v\n", "k: !!binary eA==\n",
                           "{&a !!str k: v}\n", "c:\n  !<tag:yaml.org,2002:str> k: 1\n", "--- !!map\nk: v\n"}) {
    CAPTURE(text);
    CHECK(Tokenize(text).diagnostics.empty());
  }
}

// What TokenizeAsRead hands over: each scalar with its path as written
// then, and how many path segments were kept at most.
struct HandedScalars final : detail::ScalarSink {
  void Take(Tokens* tokens) override {
    REQUIRE(tokens->scalars.size() == 1);
    scalars.push_back(tokens->scalars[0]);
    paths.push_back(tokens->PathString(tokens->scalars[0].path));
    most_segments = std::max(most_segments, tokens->paths.size());
  }
  void PathsChanged() override { paths_changed = true; }

  std::vector<Scalar> scalars;
  std::vector<std::string> paths;
  std::size_t most_segments = 0;
  bool paths_changed = false;
};

// `text` read as it is read (TokenizeAsRead) and whole (Tokenize): the same
// scalars with the same paths, unless a key came after its scalars (then
// the sink is told); the same comments, markers and diagnostics.
void CheckHandedAsTokenized(std::string_view text, HandedScalars* handed) {
  const Tokens whole = Tokenize(text);
  Tokens read;
  detail::TokenizeAsRead(text, {}, &read, handed);
  CHECK(read.scalars.empty());
  CHECK(read.comments.size() == whole.comments.size());
  CHECK(read.markers.size() == whole.markers.size());
  CHECK(read.diagnostics.size() == whole.diagnostics.size());
  REQUIRE(handed->scalars.size() == whole.scalars.size());
  for (std::size_t i = 0; i < whole.scalars.size() && !handed->paths_changed; ++i) {
    const Scalar& a = handed->scalars[i];
    const Scalar& b = whole.scalars[i];
    INFO("scalar " << i << ": " << std::string(Raw(text, b)));
    CHECK(std::tie(a.offset, a.length, a.line, a.column, a.document, a.indent, a.is_key, a.in_flow) ==
          std::tie(b.offset, b.length, b.line, b.column, b.document, b.indent, b.is_key, b.in_flow));
    CHECK((a.style == b.style && a.chomping == b.chomping && a.context == b.context));
    CHECK(handed->paths[i] == whole.PathString(b.path));
  }
}

TEST_CASE("tokenizer: read as it is read, each scalar is handed over with its path, and segments are reused") {
  std::size_t files = 0;
  for (const std::filesystem::path& file : testing::RepositoryYamlFiles()) {
    INFO(file.string());
    HandedScalars handed;
    CheckHandedAsTokenized(testing::ReadFile(file), &handed);
    files += !handed.paths_changed;
  }
  CHECK(files > 100);
  // A key that gets its text after its own scalars were handed over.
  for (const char* complex : {"[a, b]: c\n", "? - a\n: b\n", "?\tey:\n", "x:\n  ? a\n  : b\n", "{[a]: b}\n", "[{a: b}: c]\n"}) {
    INFO(complex);
    HandedScalars handed;
    CheckHandedAsTokenized(complex, &handed);
    CHECK(handed.paths_changed);
  }
  // A finished entry's segment is reused: a sequence of a thousand costs a few.
  std::string items = "a:\n  b: [";
  for (int i = 0; i < 1000; ++i) items += i == 0 ? "x" : ", {k: [x, y]}";
  items += "]\n  c:\n";
  for (int i = 0; i < 1000; ++i) items += "    - k" + std::to_string(i) + ": {l: m}\n";
  HandedScalars handed;
  CheckHandedAsTokenized(items, &handed);
  CHECK(!handed.paths_changed);
  CHECK(handed.most_segments <= 6);
  // A sink that wants no more stops the reading at the next document.
  struct First final : detail::ScalarSink {
    void Take(Tokens*) override { ++taken; }
    void PathsChanged() override {}
    bool WantsMore() const override { return taken == 0; }
    int taken = 0;
  } first;
  Tokens read;
  detail::TokenizeAsRead("a: b\nc: d\n---\ne: f\n---\ng: h\n", {}, &read, &first);
  CHECK(first.taken == 4);  // the first document's
}

}  // namespace
}  // namespace safesubst
