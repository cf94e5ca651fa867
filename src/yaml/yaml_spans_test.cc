// SPDX-License-Identifier: Apache-2.0
#include "yaml_spans.h"

#include <doctest/doctest.h>

#include <string>
#include <string_view>
#include <vector>

#include "tokenizer.h"

namespace safesubst {
namespace {

struct Read {
  Tokens tokens;
  NodeSpans spans;
};

// The spans of valid YAML (fails the test on an error).
Read ReadSpans(std::string_view text) {
  Read read;
  read.tokens = TokenizeWithSpans(text, &read.spans);
  REQUIRE_FALSE(HasErrors(read.tokens.diagnostics));
  return read;
}

std::string_view Text(std::string_view text, const NodeSpan& node) {
  return text.substr(node.begin, node.end - node.begin);
}

// The first node whose text is `text_of_node` (fails the test if none).
std::uint32_t Find(const Read& read, std::string_view text, std::string_view text_of_node) {
  for (std::uint32_t i = 0; i < read.spans.nodes.size(); ++i) {
    if (Text(text, read.spans.nodes[i]) == text_of_node) return i;
  }
  FAIL("no node " << text_of_node);
  return 0;
}

TEST_CASE("yaml spans: every node with its kind, place in the tree, and source range") {
  const std::string_view text =
      "apiVersion: v1\n"
      "kind: Pod\n"
      "spec:\n"
      "  containers:\n"
      "    - name: app\n"
      "      args: [a, \"b\"]\n";
  const Read read = ReadSpans(text);
  const std::vector<NodeSpan>& nodes = read.spans.nodes;
  REQUIRE(nodes.size() == 17);
  CHECK(nodes[0].kind == NodeKind::kDocument);
  CHECK_FALSE(nodes[0].explicit_start);
  CHECK(nodes[1].kind == NodeKind::kMapping);
  CHECK(nodes[1].parent == 0);
  CHECK(Text(text, nodes[1]) == text.substr(0, text.size() - 1));  // up to the last `]`

  const std::uint32_t kind_key = Find(read, text, "kind");
  const std::uint32_t pod = Find(read, text, "Pod");
  CHECK(nodes[kind_key].is_key);
  CHECK(nodes[kind_key].parent == 1);
  CHECK(nodes[pod].key == kind_key);
  CHECK_FALSE(nodes[pod].is_key);
  CHECK(nodes[pod].kind == NodeKind::kScalar);
  CHECK(read.tokens.scalars[nodes[pod].scalar].offset == nodes[pod].begin);

  // The sequence under `containers` and its one item, a mapping.
  const std::uint32_t containers = Find(read, text, "containers");
  const NodeSpan& sequence = nodes[containers + 1];
  CHECK(sequence.kind == NodeKind::kSequence);
  CHECK_FALSE(sequence.flow);
  CHECK(sequence.key == containers);
  CHECK(sequence.column == 4);
  CHECK(sequence.indent == 4);
  const NodeSpan& item = nodes[containers + 2];
  CHECK(item.kind == NodeKind::kMapping);
  CHECK(item.parent == containers + 1);
  CHECK(item.index == 0);
  CHECK(item.column == 6);
  CHECK(item.indent == 4);  // its line is indented to the `-`

  const std::uint32_t flow = Find(read, text, "[a, \"b\"]");
  CHECK(nodes[flow].kind == NodeKind::kSequence);
  CHECK(nodes[flow].flow);
  const std::uint32_t b = Find(read, text, "\"b\"");
  CHECK(nodes[b].parent == flow);
  CHECK(nodes[b].index == 1);
  CHECK(read.tokens.scalars[nodes[b].scalar].style == ScalarStyle::kDoubleQuoted);
}

TEST_CASE("yaml spans: a collection read before it is known to be a key moves under its mapping") {
  const std::string_view text = "- [a, b]: c\n  d: e\n";
  const Read read = ReadSpans(text);
  const std::vector<NodeSpan>& nodes = read.spans.nodes;
  // document, sequence, mapping, [a, b], a, b, c, d, e
  REQUIRE(nodes.size() == 9);
  CHECK(nodes[2].kind == NodeKind::kMapping);
  CHECK(nodes[2].parent == 1);
  CHECK(nodes[2].index == 0);
  CHECK(Text(text, nodes[2]) == "[a, b]: c\n  d: e");
  CHECK(nodes[3].kind == NodeKind::kSequence);
  CHECK(nodes[3].is_key);
  CHECK(nodes[3].parent == 2);
  CHECK(nodes[3].index == -1);
  CHECK(nodes[4].parent == 3);
  CHECK(nodes[5].parent == 3);
  CHECK(nodes[5].index == 1);
  CHECK(Text(text, nodes[6]) == "c");
  CHECK(nodes[6].key == 3);
  CHECK(nodes[8].key == 7);
}

TEST_CASE("yaml spans: properties go to the node they belong to") {
  SUBCASE("an anchor above a mapping is the mapping's; one before the first key is the key's") {
    const std::string_view text = "&m\n&k key: !t value\n";
    const Read read = ReadSpans(text);
    const std::vector<NodeSpan>& nodes = read.spans.nodes;
    REQUIRE(nodes.size() == 4);
    CHECK(nodes[1].anchor.in(text) == "&m");
    CHECK(nodes[1].begin == 3);  // at the key's anchor
    CHECK(nodes[2].anchor.in(text) == "&k");
    CHECK_FALSE(nodes[2].tag.present());
    CHECK(nodes[3].tag.in(text) == "!t");
    CHECK_FALSE(nodes[3].anchor.present());
  }
  SUBCASE("a single pair in a flow sequence: the properties are the key's") {
    const std::string_view text = "[&a k: v, *a]";
    const Read read = ReadSpans(text);
    const std::vector<NodeSpan>& nodes = read.spans.nodes;
    REQUIRE(nodes.size() == 6);
    CHECK(nodes[2].kind == NodeKind::kMapping);
    CHECK(nodes[2].flow);
    CHECK_FALSE(nodes[2].anchor.present());
    CHECK(nodes[3].anchor.in(text) == "&a");
    CHECK(nodes[5].kind == NodeKind::kAlias);
    CHECK(Text(text, nodes[5]) == "*a");
    CHECK(nodes[5].index == 1);
  }
}

TEST_CASE("yaml spans: documents with their markers") {
  const std::string_view text = "a\n---\nb\n...\n--- c\n";
  const Read read = ReadSpans(text);
  std::vector<const NodeSpan*> documents;
  for (const NodeSpan& node : read.spans.nodes) {
    if (node.kind == NodeKind::kDocument) documents.push_back(&node);
  }
  REQUIRE(documents.size() == 3);
  CHECK_FALSE(documents[0]->explicit_start);
  CHECK_FALSE(documents[0]->explicit_end);
  CHECK(documents[1]->explicit_start);
  CHECK(documents[1]->explicit_end);
  CHECK(Text(text, *documents[1]) == "---\nb\n...");
  CHECK(documents[2]->explicit_start);
  CHECK_FALSE(documents[2]->explicit_end);
}

TEST_CASE("yaml spans: asking for spans changes nothing else the tokenizer records") {
  const std::string_view text =
      "a: &x ${A}\nb: [*x, {c: d}]\n? e\n: |\n  run $B\n--- &y\nf: \"g\\n\"  # ${C}\n";
  NodeSpans spans;
  const Tokens with = TokenizeWithSpans(text, &spans);
  const Tokens without = Tokenize(text);
  REQUIRE(with.scalars.size() == without.scalars.size());
  for (std::size_t i = 0; i < with.scalars.size(); ++i) {
    CHECK(with.scalars[i].offset == without.scalars[i].offset);
    CHECK(with.scalars[i].length == without.scalars[i].length);
    CHECK(with.scalars[i].path == without.scalars[i].path);
  }
  CHECK(with.references.size() == without.references.size());
  CHECK(with.anchors.size() == without.anchors.size());
  CHECK(with.comments.size() == without.comments.size());
  CHECK(with.diagnostics.size() == without.diagnostics.size());
  CHECK(spans.nodes.size() == 16);
}

}  // namespace
}  // namespace safesubst
