// SPDX-License-Identifier: Apache-2.0
// A set of yaml-cpp nodes by identity, for walks that must reach each node
// once: yaml-cpp shares an aliased node, so through aliases one node can be
// reached 10^9 times (a "billion laughs") or from inside itself (`&a [*a]`).
// Internal to the library.
#pragma once

#include <yaml-cpp/yaml.h>

#include <map>
#include <string>
#include <tuple>
#include <vector>

namespace safesubst::detail {

class YamlNodeSet {
 public:
  /// True the first time `node` is inserted with `context` (a caller's label
  /// for visits that differ, say under `args:` or under `data:`).
  bool Insert(const YAML::Node& node, int context = 0);

 private:
  // An aliased node is the same object as its anchor's. yaml-cpp's public
  // API has no handle on that object to order by, and nodes built without a
  // parse have no mark, but Tag() returns a reference into the node's own
  // data, which aliases share: nodes are bucketed by that address, kind and
  // context. Within a bucket, Node::is tells apart any that still share all
  // three (undefined nodes share one empty tag).
  std::map<std::tuple<const std::string*, int, int>, std::vector<YAML::Node>> buckets_;
};

}  // namespace safesubst::detail
