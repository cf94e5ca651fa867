// SPDX-License-Identifier: Apache-2.0
// A set of yaml-cpp nodes by identity, for walks that must reach each node
// once: yaml-cpp shares an aliased node, so through aliases one node can be
// reached 10^9 times (a "billion laughs") or from inside itself (`&a [*a]`).
// Internal to the library.
#pragma once

#include <yaml-cpp/yaml.h>

#include <map>
#include <tuple>
#include <vector>

namespace safesubst::detail {

class YamlNodeSet {
 public:
  /// True the first time `node` is inserted with `context` (a caller's label
  /// for visits that differ, say under `args:` or under `data:`).
  bool Insert(const YAML::Node& node, int context = 0);

 private:
  // An aliased node is the same object as its anchor's and carries its mark.
  // Nodes are bucketed by start, kind and context; within a bucket the node
  // objects themselves tell apart the rare ones that share all three (a
  // mapping and its first key, `{a: 1}: 2`).
  std::map<std::tuple<int, int, int>, std::vector<YAML::Node>> buckets_;
};

}  // namespace safesubst::detail
