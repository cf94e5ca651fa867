// SPDX-License-Identifier: Apache-2.0
#include "yaml_node_set.h"

namespace safesubst::detail {

bool YamlNodeSet::Insert(const YAML::Node& node, int context) {
  std::vector<YAML::Node>& bucket = buckets_[{&node.Tag(), static_cast<int>(node.Type()), context}];
  for (const YAML::Node& member : bucket) {
    if (member.is(node)) return false;
  }
  bucket.push_back(node);
  return true;
}

}  // namespace safesubst::detail
