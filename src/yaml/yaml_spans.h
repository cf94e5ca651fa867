// SPDX-License-Identifier: Apache-2.0
// Node spans: an opt-in record, made by the tokenizer's own pass, of every
// node of a YAML stream (documents, mappings, sequences, scalars, aliases)
// with its place in the tree and in the source.
//
// The render's tokenizer pass records none of this (it pays one untaken
// branch per node); TokenizeWithSpans (tokenizer.h) asks for it. The nodes are in document
// order, which is the order of the YAML event stream: a node's descendants
// follow it directly, so the tree is walked with a stack of open nodes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

namespace safesubst {

enum class NodeKind : std::uint8_t { kDocument, kMapping, kSequence, kScalar, kAlias };

/// A source range [begin, end); empty (begin == end == kNone) when absent.
struct SourceRange {
  static constexpr std::size_t kNone = static_cast<std::size_t>(-1);
  std::size_t begin = kNone;
  std::size_t end = kNone;
  bool present() const { return begin != kNone; }
  std::string_view in(std::string_view text) const { return text.substr(begin, end - begin); }
};

struct NodeSpan {
  static constexpr std::uint32_t kNone = 0xffffffffu;
  NodeKind kind = NodeKind::kScalar;
  /// Mappings and sequences: written `{...}` / `[...]`, or a single `key: value`
  /// pair inside a flow sequence (a flow mapping without braces).
  bool flow = false;
  /// Documents: started by `---`, ended by `...`.
  bool explicit_start = false;
  bool explicit_end = false;
  /// A key of its parent mapping (the parent's children alternate key, value).
  bool is_key = false;
  /// The parent node (kNone for a document).
  std::uint32_t parent = kNone;
  /// A value of a mapping: the index of its key node; else kNone.
  std::uint32_t key = kNone;
  /// An item of a sequence: its position (0-based); else -1.
  std::int32_t index = -1;
  /// Scalars: the index into Tokens::scalars (style, chomping, DecodeScalar).
  std::uint32_t scalar = kNone;
  /// 0-based column of `begin`, and the indentation (in spaces) of its line.
  std::uint32_t column = 0;
  std::uint32_t indent = 0;
  /// The node's own text, its properties excluded: a collection from its first
  /// entry (or `[`/`{`) to the end of its last entry (or `]`/`}`); a scalar as
  /// in Scalar::offset/length; an alias `*name`; a document from its `---` or
  /// first content to its end (its `...` included).
  std::size_t begin = 0;
  std::size_t end = 0;
  SourceRange anchor;  ///< `&name`, as written
  SourceRange tag;     ///< `!tag`, `!!tag`, `!<uri>` as written (unresolved)
};

/// The spans of one stream, in document (event) order.
struct NodeSpans {
  std::vector<NodeSpan> nodes;
};

/// What the tokenizer tells as it reads the nodes (with TokenizeWithSpans).
/// A collection that turns out to be the first key of a block mapping (or of
/// a single-pair mapping in a flow sequence) is read before its mapping is
/// known: InsertParent puts the mapping above it afterwards.
class NodeRecorder {
 public:
  virtual ~NodeRecorder() = default;

  /// Where the next node will be recorded.
  virtual std::uint32_t Mark() const = 0;
  /// Opens a document, mapping or sequence: the nodes recorded until its
  /// Close are its children.
  virtual void Open(NodeSpan node) = 0;
  virtual void Close(std::size_t end) = 0;
  /// Records a scalar or an alias, a child of the open node.
  virtual void Leaf(NodeSpan node) = 0;
  /// Opens `node` (a mapping) as the parent of the node recorded at `mark`
  /// and of everything after it; that node becomes the mapping's first key.
  /// It is the last child recorded under the open node, with its subtree.
  virtual void InsertParent(std::uint32_t mark, NodeSpan node) = 0;
  /// The node recorded at `mark`, the last child recorded under the open
  /// node (for moving properties to an inserted parent).
  virtual NodeSpan& At(std::uint32_t mark) = 0;
  virtual bool Open() const = 0;
  /// Marks the open document as ended by `...`.
  virtual void EndExplicitly() = 0;
};

/// Records every node in NodeSpans.
class SpanRecorder final : public NodeRecorder {
 public:
  explicit SpanRecorder(NodeSpans* spans) : nodes_(spans->nodes) { nodes_.clear(); }

  std::uint32_t Mark() const override { return static_cast<std::uint32_t>(nodes_.size()); }
  void Open(NodeSpan node) override;
  void Close(std::size_t end) override;
  void Leaf(NodeSpan node) override;
  void InsertParent(std::uint32_t mark, NodeSpan node) override;
  NodeSpan& At(std::uint32_t mark) override { return nodes_[mark]; }
  bool Open() const override { return !open_.empty(); }
  void EndExplicitly() override { nodes_[open_.back().node].explicit_end = true; }

 private:
  struct OpenNode {
    std::uint32_t node;
    std::uint32_t children = 0;
    std::uint32_t last_child = NodeSpan::kNone;
  };
  // Places `node` (about to be recorded at index `at`) under the open node.
  void Attach(NodeSpan* node, std::uint32_t at);

  std::vector<NodeSpan>& nodes_;
  std::vector<OpenNode> open_;
};

}  // namespace safesubst
