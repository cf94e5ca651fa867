// SPDX-License-Identifier: Apache-2.0
#include "yaml_nesting.h"

namespace safesubst {

Nesting NestingOf(const NodeSpans& spans) {
  Nesting nesting;
  std::vector<std::uint32_t> depth(spans.nodes.size(), 0);
  for (std::size_t i = 0; i < spans.nodes.size(); ++i) {
    const NodeSpan& node = spans.nodes[i];
    const std::uint32_t above = node.parent == NodeSpan::kNone ? 0 : depth[node.parent];
    const bool collection = node.kind == NodeKind::kMapping || node.kind == NodeKind::kSequence;
    depth[i] = above + (collection ? 1 : 0);
    if (depth[i] > nesting.deepest) {
      nesting.deepest = depth[i];
      nesting.deepest_offset = node.begin;
    }
    if (node.kind == NodeKind::kAlias) ++nesting.aliases;
  }
  return nesting;
}

NestingRecorder::NestingRecorder() { levels_.emplace_back(); }

void NestingRecorder::TakeLast(Level* level) {
  if (level->has_last) Take(level->last_deepest, &level->deepest);
  level->has_last = false;
}

void NestingRecorder::AddChild(const NodeSpan& child, std::uint32_t mark, const Deepest& deepest) {
  Level& parent = levels_.back();
  TakeLast(&parent);
  parent.has_last = true;
  parent.last = child;
  parent.last_mark = mark;
  parent.last_deepest = deepest;
}

void NestingRecorder::Push(const NodeSpan& node, std::uint32_t mark) {
  Level level;
  level.node = node;
  level.mark = mark;
  level.depth = levels_.back().depth + (IsCollection(node) ? 1 : 0);
  level.deepest = Deepest{level.depth, node.begin};
  levels_.push_back(level);
}

void NestingRecorder::Open(NodeSpan node) {
  TakeLast(&levels_.back());  // the nodes before this one come first
  Push(node, recorded_++);
}

void NestingRecorder::Close(std::size_t /*end*/) {
  if (levels_.size() == 1) return;  // nothing open (SpanRecorder is never asked that)
  Level closed = levels_.back();
  levels_.pop_back();
  TakeLast(&closed);
  AddChild(closed.node, closed.mark, closed.deepest);
}

void NestingRecorder::Leaf(NodeSpan node) {
  if (node.kind == NodeKind::kAlias) ++aliases_;
  AddChild(node, recorded_++, Deepest{levels_.back().depth + (IsCollection(node) ? 1 : 0), node.begin});
}

void NestingRecorder::InsertParent(std::uint32_t mark, NodeSpan node) {
  Level& parent = levels_.back();
  if (!parent.has_last || parent.last_mark != mark) return Open(node);  // not as the tokenizer calls it
  // The first key and its subtree move one level down, under the new mapping.
  const NodeSpan key = parent.last;
  Deepest deepest = parent.last_deepest;
  parent.has_last = false;
  Push(node, mark);
  ++recorded_;
  ++deepest.depth;
  AddChild(key, mark + 1, deepest);
}

NodeSpan& NestingRecorder::At(std::uint32_t mark) {
  Level& level = levels_.back();
  if (level.has_last && level.last_mark == mark) return level.last;
  scratch_ = NodeSpan{};
  return scratch_;
}

Nesting NestingRecorder::Finish() {
  while (levels_.size() > 1) Close(0);
  TakeLast(&levels_.back());
  const Deepest& deepest = levels_.back().deepest;
  return Nesting{deepest.depth, deepest.offset, aliases_};
}

}  // namespace safesubst
