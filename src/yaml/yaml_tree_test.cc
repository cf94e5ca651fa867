// SPDX-License-Identifier: Apache-2.0
// Tests of the event-built YAML tree shared by the invariant and the encoder.
#include "yaml_tree.h"

#include "yaml_load.h"

#include <doctest/doctest.h>

namespace safesubst::detail {
namespace {

YamlStream Parse(std::string_view text) {
  YamlStream stream;
  YamlParseError error;
  bool ok = ParseYamlStream(text, &stream, &error);
  REQUIRE_MESSAGE(ok, error.message);
  return stream;
}

TEST_CASE("yaml tree: kinds, tags, text and positions") {
  YamlStream stream = Parse("a: plain\nb: 'quoted'\nc: !!int 5\nd:\ne: [x, {f: g}]\n");
  REQUIRE(stream.documents.size() == 1);
  const YamlNode& root = stream.nodes[stream.documents[0]];
  REQUIRE(root.kind == YamlNode::Kind::kMapping);
  REQUIRE(root.children.size() == 10);
  const YamlNode& plain = stream.nodes[root.children[1]];
  CHECK(plain.kind == YamlNode::Kind::kScalar);
  CHECK(plain.tag == "?");
  CHECK(plain.text == "plain");
  CHECK(plain.line == 0);
  CHECK(plain.column == 3);
  CHECK(plain.offset == 3);
  CHECK(stream.nodes[root.children[3]].tag == "!");
  CHECK(stream.nodes[root.children[5]].tag == "tag:yaml.org,2002:int");
  CHECK(stream.nodes[root.children[7]].kind == YamlNode::Kind::kNull);
  const YamlNode& list = stream.nodes[root.children[9]];
  CHECK(list.kind == YamlNode::Kind::kSequence);
  CHECK(list.line == 4);
  REQUIRE(list.children.size() == 2);
  CHECK(stream.nodes[list.children[1]].kind == YamlNode::Kind::kMapping);
}

TEST_CASE("yaml tree: aliases stay references to their anchors") {
  YamlStream stream = Parse("a: &x [1, 2]\nb: *x\n---\nc: &x 3\nd: *x\n");
  REQUIRE(stream.documents.size() == 2);
  const YamlNode& first = stream.nodes[stream.documents[0]];
  const YamlNode& alias = stream.nodes[first.children[3]];
  CHECK(alias.kind == YamlNode::Kind::kAlias);
  CHECK(ResolveAlias(stream, first.children[3]) == first.children[1]);
  // Anchors are per document: the second `*x` names the second `&x`.
  const YamlNode& second = stream.nodes[stream.documents[1]];
  std::uint32_t target = ResolveAlias(stream, second.children[3]);
  CHECK(stream.nodes[target].text == "3");
  // A non-alias resolves to itself.
  CHECK(ResolveAlias(stream, first.children[1]) == first.children[1]);
}

TEST_CASE("yaml tree: errors carry a position and never throw") {
  YamlStream stream;
  YamlParseError error;
  CHECK(!ParseYamlStream("a: 1\nb: [x\n", &stream, &error));
  CHECK(!error.message.empty());
  CHECK(stream.nodes.empty());
  CHECK(!ParseYamlStream("a: *nowhere\n", &stream, &error));
  CHECK(!ParseYamlStream("a: 1\n b: 2\n", &stream, &error));
  CHECK(error.line == 1);
  // Deep nesting is refused by yaml-cpp's depth guard rather than overflowing.
  std::string deep(5000, '[');
  CHECK(!ParseYamlStream(deep, &stream, &error));
  // yaml-cpp's own message for it is "bad file".
  CHECK(error.message.find("collections nest too deeply here") == 0);
  CHECK(ParseYamlStream("", &stream, &error));
  CHECK(stream.documents.empty());
}

TEST_CASE("yaml tree: YamlRef follows aliases and lists children with their locations") {
  YamlStream stream = Parse("a: &x {k: v}\nb: *x\nc:\n  - 1\n  - ~\n");
  const YamlRef root(stream, stream.documents[0]);
  REQUIRE(root.IsMap());
  const std::vector<std::pair<YamlRef, YamlRef>> entries = root.Entries();
  REQUIRE(entries.size() == 3);
  CHECK(entries[0].first.Scalar() == "a");
  CHECK(entries[0].second.node().flow);
  // `*x` reads as the anchored mapping, located where that node starts (at `&x`).
  CHECK(entries[1].second.IsMap());
  CHECK(entries[1].second.index() == entries[0].second.index());
  CHECK(entries[1].second.At("f.yaml").line == 1);
  CHECK(entries[1].second.At("f.yaml").column == 4);
  const std::vector<YamlRef> items = entries[2].second.Items();
  REQUIRE(items.size() == 2);
  CHECK_FALSE(entries[2].second.node().flow);
  CHECK(items[0].IsScalar());
  CHECK(items[1].IsNull());
  CHECK(items[1].At("f.yaml").line == 5);
  // Children of the wrong kind are simply absent.
  CHECK(items[0].Items().empty());
  CHECK(items[0].Entries().empty());
  CHECK(root.Items().empty());
}

}  // namespace
}  // namespace safesubst::detail
