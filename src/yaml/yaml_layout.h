// SPDX-License-Identifier: Apache-2.0
// The block layout of one YAML document: where every block-structure node of a
// document starts and ends in the source bytes, so that edits can splice bytes
// instead of re-emitting the document (SPEC Rule 4, byte preservation).
//
// Approach: the tokenizer, tested against every case of the YAML test suite,
// reads the document with its node spans (yaml_spans.h), and the layout turns
// them into what edits need: block mappings and sequences with the offsets of
// each key, `:` and `-`, block scalars, scalars, flow collections (kept as
// opaque spans), aliases and properties, as byte offsets (the way rapidyaml
// does; nothing is copied but decoded keys). A construct the planner does not
// handle (explicit `?` keys, multi-line, flow or alias keys) is reported as an
// error instead of risking a wrong edit.
//
// Scan plans edits from that reading alone: the step engine's hot path does
// not parse documents with yaml-cpp to lay them out (issue 28). yaml-cpp stays
// the independent witness: the step engine parses every edited document with
// it, and ScanChecked (the edit's second opinion whenever the first ends in
// anything but success) parses the text too and requires the two trees to
// agree node by node (kinds, keys in order, sequence lengths). The few
// questions only a full parse answers (the items of a flow collection, a
// multi-line scalar's value, a node to re-emit) load yaml-cpp's tree on first
// use (Layout::Yaml), with the same agreement check.
#pragma once

#include <cstddef>
#include <cstdint>
#include <exception>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "yaml_tree.h"

namespace safesubst::detail {

/// One document of a stream. `[begin, end)` is the whole piece: directives,
/// leading comments, its `---` line, its body and a closing `...` line.
struct DocumentSpan {
  std::size_t begin = 0;
  std::size_t end = 0;
  /// The piece holds some content besides comments, markers and directives.
  bool has_content = false;
};

/// Splits a YAML stream into its documents. The pieces cover the stream
/// without gaps, in order, so that joining them gives the stream back.
std::vector<DocumentSpan> SplitDocuments(std::string_view stream);

enum class LayoutKind : std::uint8_t {
  kEmpty,        ///< no content at all (`key:` with nothing after it)
  kScalar,       ///< a plain or quoted scalar, possibly multi-line; or properties alone
  kBlockScalar,  ///< `|` or `>` with its content lines
  kAlias,        ///< `*name`
  kFlowMap,      ///< `{...}`, kept as one opaque span
  kFlowSeq,      ///< `[...]`, kept as one opaque span
  kBlockMap,
  kBlockSeq,
};

/// How a node hangs in its parent.
enum class SlotKind : std::uint8_t {
  kRoot,      ///< the document's root node
  kMapValue,  ///< after `key:`
  kSeqItem,   ///< after `-`
};

inline constexpr std::uint32_t kNoNode = 0xffffffffu;

struct LayoutNode {
  LayoutKind kind = LayoutKind::kEmpty;
  SlotKind slot_kind = SlotKind::kRoot;
  std::uint32_t parent = kNoNode;
  std::size_t begin = 0;    ///< first byte, properties (`&anchor`, `!tag`) included
  std::size_t content = 0;  ///< first byte after the properties
  std::size_t end = 0;      ///< one past the last content byte; `== begin` for kEmpty
  /// 0-based column of `content`; for a block mapping the column of its keys,
  /// for a block sequence the column of its dashes.
  std::uint32_t column = 0;
  /// kMapValue: the first byte of the key; kSeqItem: the dash; kRoot: the body start.
  std::size_t entry = 0;
  /// kMapValue: just after the `:`; kSeqItem: just after the `-`; kRoot: the body start.
  std::size_t slot = 0;
  std::string key;  ///< kMapValue: the decoded key
  /// kBlockScalar with `+` chomping: the blank lines after its last content
  /// line are part of its value, so its extent reaches over them.
  bool keeps_trailing_lines = false;
  std::vector<std::uint32_t> children;  ///< kBlockMap values / kBlockSeq items, in order

  bool operator==(const LayoutNode&) const = default;
};

/// Why a document could not be laid out.
struct LayoutError {
  std::size_t offset = 0;  ///< in the document text
  std::string message;
};

/// Thrown by Layout::Yaml when yaml-cpp cannot read the text or disagrees
/// with the layout: ScanChecked would have refused the text with `error`.
struct LayoutUnreadable : std::exception {
  explicit LayoutUnreadable(LayoutError e) : error(std::move(e)) {}
  const char* what() const noexcept override { return error.message.c_str(); }
  LayoutError error;
};

/// The layout of one document (one piece of SplitDocuments; the text may also
/// be a whole single-document stream).
class Layout {
 public:
  /// Lays out `text`, which must outlive the layout, from the tokenizer's
  /// reading alone: no yaml-cpp pass, so a text yaml-cpp refuses may be laid
  /// out (the step engine's witness parses every edited text). A null key,
  /// which yaml-cpp reads as no string, and a text of several documents are
  /// scanned as ScanChecked does. Returns false and fills `error` when the
  /// text cannot be laid out, with the error ScanChecked gives (yaml-cpp's
  /// reading first).
  bool Scan(std::string_view text, LayoutError* error);
  /// Scan, and yaml-cpp parses the text: false with `error` when the text is
  /// not valid YAML for it, holds more than one document, or the two readings
  /// disagree.
  bool ScanChecked(std::string_view text, LayoutError* error);

  /// The layout of `remaining`, the text left when the whole lines of each
  /// range `[first, second)` of text() are removed (ranges in order, apart;
  /// each from a line start to a line start or the end), found from this
  /// layout without a new scan: the nodes a range covers go, the others move
  /// up. False where Scan could read the rest otherwise: a range that cuts
  /// into a node it does not remove whole, a collection left empty, a layout
  /// that needed the cross-checked scan. `remaining` must outlive `out`.
  bool WithoutLines(const std::vector<std::pair<std::size_t, std::size_t>>& ranges, std::string_view remaining,
                    Layout* out) const;

  /// Points the layout at `text`, the same bytes as text() in another place
  /// (the string holding them was moved).
  void Rebind(std::string_view text) { text_ = text; }

  std::string_view text() const { return text_; }
  const LayoutNode& node(std::uint32_t index) const { return nodes_[index]; }
  const LayoutNode& root() const { return nodes_[0]; }
  std::uint32_t size() const { return static_cast<std::uint32_t>(nodes_.size()); }
  /// The line break the document uses: "\r\n" when its first line ends so.
  const std::string& eol() const { return eol_; }
  /// The document has no content (empty, or only comments).
  bool empty() const { return nodes_.empty() || nodes_[0].kind == LayoutKind::kEmpty; }

  // Line geometry, all in offsets of text().
  std::size_t LineStart(std::size_t offset) const;
  /// End of the line holding `offset`, before its `\r\n` or `\n`.
  std::size_t LineEnd(std::size_t offset) const;
  /// Start of the next line, or the text size on the last line.
  std::size_t NextLineStart(std::size_t offset) const;
  std::uint32_t Column(std::size_t offset) const;
  /// Only spaces stand between the start of the line and `offset`.
  bool AtLineStart(std::size_t offset) const;

  /// The end of the last line that holds content of `index` (before its line
  /// break); a comment on that line is included. When the node ends with a
  /// `|+` block scalar, the blank lines that belong to it are included too.
  std::size_t LastLineEnd(std::uint32_t index) const;
  /// LastLineEnd, extended over the comment lines right after it (no blank
  /// line between) that are indented deeper than the node's parent collection:
  /// they belong to this entry.
  std::size_t ExtentEnd(std::uint32_t index) const;
  /// Where the entry or item `index` starts, counting the full-line comments
  /// directly above it at its own indentation; `entry` when the entry does not
  /// start its line (the first key of `- key: v`).
  std::size_t ExtentStart(std::uint32_t index) const;
  /// True when `begin` and `end` of the node lie on one line.
  bool SingleLine(std::uint32_t index) const;
  /// The column of the key or dash of `index` (its parent's column), -1 for the root.
  int ParentColumn(std::uint32_t index) const;
  /// The YAML core meaning of the node: a mapping (block or flow), a sequence, or null.
  bool IsMapping(std::uint32_t index) const;
  bool IsSequence(std::uint32_t index) const;
  bool IsNull(std::uint32_t index) const;
  /// A flow collection with no items: `{}` or `[]`.
  bool IsEmptyFlow(std::uint32_t index) const;
  /// The items of a sequence (block or flow).
  std::size_t ItemCount(std::uint32_t index) const;
  /// Flow mapping `index` has the key `key`.
  bool FlowMapHasKey(std::uint32_t index, std::string_view key) const;
  /// The value of `key` in mapping `index` when it is a scalar, as yaml-cpp
  /// reads it; nullopt when `index` is no mapping, has no such key, or its
  /// value is no scalar. Like Yaml, throws LayoutUnreadable where only
  /// yaml-cpp can tell (a flow or aliased mapping, a tagged or multi-line
  /// value) and it cannot read the text.
  std::optional<std::string> ScalarField(std::uint32_t index, std::string_view key) const;
  /// Node `index` is a mapping whose value of `key` is the scalar `value`
  /// (what a `[key=value]` path selector asks of a sequence item).
  bool HasScalarField(std::uint32_t index, std::string_view key, std::string_view value) const;
  /// The node as yaml-cpp reads it, for what only a full parse answers (a
  /// node re-emitted in block style). The first call parses the text and
  /// checks it against the layout, as ScanChecked does; throws
  /// LayoutUnreadable where ScanChecked would have failed.
  YamlRef Yaml(std::uint32_t index) const;
  /// Finds the value of `key` in block mapping `map`, or kNoNode.
  std::uint32_t FindKey(std::uint32_t map, std::string_view key) const;
  /// A human name for the node kind ("a mapping", "a sequence", "a scalar", ...).
  std::string KindName(std::uint32_t index) const;

 private:
  friend class LayoutBuilder;
  void Reset(std::string_view text);
  bool ScanBody(LayoutError* error);
  /// Checks yaml-cpp's reading `stream` against the nodes and keeps it, node by node.
  bool AttachYaml(std::shared_ptr<const YamlStream> stream, LayoutError* error) const;
  /// Reads a node as a possible scalar value without yaml-cpp: `is_scalar`
  /// is false for a collection or a plain null, else `value` is the scalar's
  /// value. Returns false when only yaml-cpp can tell (properties, several
  /// lines, block scalars, aliases, empty nodes).
  bool OwnScalarValue(std::uint32_t index, std::string* value, bool* is_scalar) const;

  std::string_view text_;
  std::vector<LayoutNode> nodes_;
  /// yaml-cpp's reading, and its node for each node, once something asked for it (Yaml).
  mutable std::shared_ptr<const YamlStream> yaml_stream_;
  mutable std::vector<std::uint32_t> yaml_;
  std::vector<std::size_t> line_starts_;
  std::string eol_ = "\n";
  /// The reading met what only the cross-checked scan may accept.
  bool needs_cross_check_ = false;
};

/// Decodes a single-line key as written (plain, '...' or "..."), without properties.
/// Returns false when it cannot (the caller then trusts yaml-cpp's reading).
bool DecodeKeyText(std::string_view raw, std::string* out);

}  // namespace safesubst::detail
