// SPDX-License-Identifier: Apache-2.0
#include "yaml_node_set.h"

#include <doctest/doctest.h>

namespace safesubst::detail {
namespace {

TEST_CASE("yaml node set: an aliased node is the node itself, context apart") {
  const YAML::Node root = YAML::Load("a: &x [1]\nb: *x\nc: [1]\n");
  YamlNodeSet set;
  CHECK(set.Insert(root["a"]));
  CHECK_FALSE(set.Insert(root["b"]));  // the alias reaches the same node
  CHECK(set.Insert(root["c"]));        // equal, but another node
  CHECK(set.Insert(root["b"], 1));     // the same node in another context
  CHECK_FALSE(set.Insert(root["a"], 1));
}

TEST_CASE("yaml node set: a mapping and its first key start at the same place and stay apart") {
  const YAML::Node root = YAML::Load("{a: 1}: 2\n");
  const YAML::Node key = root.begin()->first;
  REQUIRE(key.IsMap());
  REQUIRE(key.Mark().pos == root.Mark().pos);
  YamlNodeSet set;
  CHECK(set.Insert(root));
  CHECK(set.Insert(key));
  CHECK_FALSE(set.Insert(key));
}

TEST_CASE("yaml node set: nodes built without marks are told apart by identity, not position") {
  // The step engine's layouts are built without marks (yaml_load.h): every
  // node's mark is the same null mark.
  YAML::Node shared(YAML::NodeType::Sequence);
  shared.push_back(1);
  YAML::Node root(YAML::NodeType::Map);
  root.force_insert("a", shared);
  root.force_insert("b", shared);
  YAML::Node twin(YAML::NodeType::Sequence);
  twin.push_back(1);
  root.force_insert("c", twin);
  REQUIRE(root["a"].Mark().pos == root["c"].Mark().pos);
  YamlNodeSet set;
  CHECK(set.Insert(root["a"]));
  CHECK_FALSE(set.Insert(root["b"]));
  CHECK(set.Insert(root["c"]));
  CHECK(set.Insert(root));
}

}  // namespace
}  // namespace safesubst::detail
