// SPDX-License-Identifier: Apache-2.0
// The nesting depth and alias count of a YAML stream, found as the tokenizer
// reads it (a NodeRecorder), with nothing kept per node: the input limits
// (--max-depth, --max-aliases) are checked on templates of millions of
// nodes, where NodeSpans would cost some 80 bytes each.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "yaml_spans.h"

namespace safesubst {

/// What NodeSpans would tell of the nesting: the depth of a node is the
/// number of mappings and sequences it is in, itself included.
struct Nesting {
  std::uint32_t deepest = 0;
  /// The begin of the first node (in document order) at the deepest depth;
  /// 0 when no node is in a collection.
  std::size_t deepest_offset = 0;
  std::uint32_t aliases = 0;  ///< alias nodes
};

/// The nesting of recorded spans: the definition NestingRecorder follows as
/// it reads (its tests and the tokenizer fuzz target compare the two).
Nesting NestingOf(const NodeSpans& spans);

/// Keeps, for each open node, its depth and the deepest node under it so
/// far, and the span of its last child: the only node an inserted parent
/// (InsertParent) can move one level down, with its subtree.
class NestingRecorder final : public NodeRecorder {
 public:
  NestingRecorder();

  /// The nesting of what was read. Nodes left open (malformed YAML) count.
  Nesting Finish();

  std::uint32_t Mark() const override { return recorded_; }
  void Open(NodeSpan node) override;
  void Close(std::size_t end) override;
  void Leaf(NodeSpan node) override;
  void InsertParent(std::uint32_t mark, NodeSpan node) override;
  NodeSpan& At(std::uint32_t mark) override;
  bool Open() const override { return levels_.size() > 1; }
  void EndExplicitly() override {}

 private:
  // The deepest node of a subtree: its depth and begin.
  struct Deepest {
    std::uint32_t depth = 0;
    std::size_t offset = 0;
  };
  // An open node (or, at the bottom, the stream, whose children are the documents).
  struct Level {
    NodeSpan node;
    std::uint32_t mark = 0;  // where `node` was recorded
    std::uint32_t depth = 0;
    Deepest deepest;         // over the node and its children before the last one
    bool has_last = false;   // a child was recorded
    NodeSpan last;           // the last child
    std::uint32_t last_mark = 0;
    Deepest last_deepest;    // over the last child's subtree
  };
  static bool IsCollection(const NodeSpan& node) {
    return node.kind == NodeKind::kMapping || node.kind == NodeKind::kSequence;
  }
  // The first node reaching a greater depth is the deepest: `later` follows `*into` in document order.
  static void Take(const Deepest& later, Deepest* into) {
    if (later.depth > into->depth) *into = later;
  }
  // Folds the last child of `level` into its deepest.
  static void TakeLast(Level* level);
  // Records `child` (deepest `deepest` in its subtree) as the last child of the open node.
  void AddChild(const NodeSpan& child, std::uint32_t mark, const Deepest& deepest);
  // Opens `node`, recorded at `mark`, under the open node.
  void Push(const NodeSpan& node, std::uint32_t mark);

  std::vector<Level> levels_;  // the stream's, then the open nodes', innermost last
  std::uint32_t recorded_ = 0;
  std::uint32_t aliases_ = 0;
  NodeSpan scratch_;  // At() for a mark that is no last child (never, as the tokenizer calls it)
};

}  // namespace safesubst
