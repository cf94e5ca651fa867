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

}  // namespace
}  // namespace safesubst::detail
