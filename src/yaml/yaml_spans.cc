// SPDX-License-Identifier: Apache-2.0
#include "yaml_spans.h"

#include <algorithm>

namespace safesubst {

void SpanRecorder::Attach(NodeSpan* node, std::uint32_t at) {
  if (open_.empty()) return;  // a document
  OpenNode& parent = open_.back();
  node->parent = parent.node;
  const NodeKind kind = nodes_[parent.node].kind;
  if (kind == NodeKind::kMapping) {
    node->is_key = parent.children % 2 == 0;
    if (!node->is_key) node->key = parent.last_child;
  } else if (kind == NodeKind::kSequence) {
    node->index = static_cast<std::int32_t>(parent.children);
  }
  ++parent.children;
  parent.last_child = at;
}

void SpanRecorder::Open(NodeSpan node) {
  const std::uint32_t at = Mark();
  Attach(&node, at);
  nodes_.push_back(node);
  open_.push_back(OpenNode{at});
}

void SpanRecorder::Close(std::size_t end) {
  NodeSpan& node = nodes_[open_.back().node];
  node.end = std::max(end, node.begin);
  open_.pop_back();
}

void SpanRecorder::Leaf(NodeSpan node) {
  Attach(&node, Mark());
  nodes_.push_back(node);
}

void SpanRecorder::InsertParent(std::uint32_t mark, NodeSpan node) {
  NodeSpan& first = nodes_[mark];
  node.parent = first.parent;
  node.is_key = first.is_key;
  node.key = first.key;
  node.index = first.index;
  first.is_key = true;
  first.key = NodeSpan::kNone;
  first.index = -1;
  // Only the first node's subtree moves: it was the last thing recorded.
  nodes_.insert(nodes_.begin() + mark, node);
  for (std::size_t i = mark + 1; i < nodes_.size(); ++i) {
    NodeSpan& moved = nodes_[i];
    if (moved.parent != NodeSpan::kNone && moved.parent >= mark) ++moved.parent;
    if (moved.key != NodeSpan::kNone && moved.key >= mark) ++moved.key;
  }
  nodes_[mark + 1].parent = mark;
  open_.push_back(OpenNode{mark, 1, mark + 1});
}

}  // namespace safesubst
