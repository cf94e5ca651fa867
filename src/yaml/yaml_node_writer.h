// SPDX-License-Identifier: Apache-2.0
// The one writer of YAML trees (yaml_tree.h): a node written back as YAML
// text with yaml_encoding's plain-scalar rules and quoting. Aliases are
// written out in full within a bound. Three uses:
//  * a `type: yaml` value replacing a placeholder (EncodeYamlNode): block
//    style where it may stand, scalars plain only where every reader takes
//    them for the same string (or they were plain);
//  * a node of a manifest or values file kept as YAML text (a `type: yaml`
//    default or value, a `set` step's value): a document of its own that
//    keeps what the source wrote, flow collections flow and quoted scalars
//    quoted, so that a quoted `"31"` stays a string (two equal keys in a
//    mapping are refused there);
//  * a node the step editor has to write in block style for one slot of a
//    document (EmitSlotText): it splices source bytes wherever it can, and
//    writes nodes that have no usable bytes of their own, such as a flow
//    collection that must turn into block style before something is merged
//    into it. Multi-line strings become literal blocks (`|`), quoted scalars
//    stay quoted, plain scalars stay plain, so the node reads back the same.
// Internal to the library.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

#include "yaml_encoding.h"
#include "yaml_layout.h"
#include "yaml_tree.h"

namespace safesubst {

/// Why EncodeYamlNode refused a value.
struct YamlValueError {
  enum class Kind : std::uint8_t {
    kInvalid,   ///< not YAML, several documents, a duplicate key, a recursive alias
    kTooLarge,  ///< over the value size limit, through aliases or once written
    kTooDeep,   ///< over the bounds on nodes added by aliases or on nesting
  };
  Kind kind = Kind::kInvalid;
  std::string message;  ///< e.g. "the value expands to more than 100000 nodes through aliases"
};

/// Encodes a `type: yaml` value (YAML text, one document) as a node that
/// replaces a plain scalar standing as a mapping value or sequence item.
///
/// `parent_indent` is the 0-based column of the mapping key the value belongs
/// to, or of the `-` of the sequence item (for `- name: ${X}` that is the
/// column of `name`, not the indentation of the line). With `block_allowed`
/// (the placeholder is the whole scalar, at the end of its line, outside flow
/// collections) a non-empty mapping or sequence is written in block style,
/// starting with a line break and indented by `parent_indent + 2`; otherwise,
/// and for empty collections, in flow style on one line. A scalar is written
/// as one scalar on the same line: plain when that reads back the same (a
/// plain scalar of the value stays plain and keeps its type; a quoted one is
/// quoted unless it reads as a string plain), else double-quoted. Null is
/// written `null`; explicit tags are kept (`!!str`, `!local`); aliases are
/// expanded (within bounds on the nodes and bytes aliases add and on nesting,
/// against "billion laughs" and alias chains);
/// comments and anchors are dropped. Output is deterministic and has no
/// trailing line break.
///
/// Returns false and sets `error` when the value is not valid YAML, holds more
/// than one document, has a recursive alias, passes those bounds, when its
/// aliases add more than `max_bytes` (the value size limit), or when the
/// written text is longer than `max_bytes` plus four times the value's text
/// (indentation and tags repeated through aliases or deep nesting).
bool EncodeYamlNode(std::string_view yaml_text, std::uint32_t parent_indent, bool block_allowed,
                    std::size_t max_bytes, std::string* out, YamlValueError* error);

}  // namespace safesubst

namespace safesubst::detail {

/// Writes `node` as a YAML document of its own, as the source wrote it (see
/// above), without a final line break. Returns false and sets `*problem`
/// ("contains a recursive alias", "has the key 'a' twice", ...) when a bound
/// of `budget` is passed or a mapping has a key twice.
bool NodeAsYaml(const YamlRef& node, ExpansionBudget* budget, std::string* yaml, std::string* problem);

/// How a document lays out block collections, for text written into it.
struct BlockStyle {
  std::uint32_t indent_step = 2;   ///< how much deeper a nested mapping is indented
  bool compact_sequences = false;  ///< `key:\n- item` (dashes at the key's column)
  std::string eol = "\n";
};

/// Where EmitSlotText's text goes and how the surrounding document is laid out.
struct EmitTarget {
  SlotKind slot = SlotKind::kMapValue;
  /// The column of the key (kMapValue) or dash (kSeqItem) the text follows; ignored for kRoot.
  int parent_column = 0;
  BlockStyle style;
};

/// The column of the entries of a block collection (a sequence or not) in
/// `slot` after a key or dash at `parent_column`: 0 at the root, two past a
/// dash, one indentation step past a key (at the key for a compact sequence).
int BlockColumn(SlotKind slot, int parent_column, bool sequence, const BlockStyle& style);

/// Why a node cannot be written (EmitSlotText writes aliases out in full).
class NodeNotEmittable : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// The text that follows `key:` or `-` (starting with a space or a line
/// break, or empty for null), or for kRoot the whole node starting at column 0.
/// It never ends with a line break. Throws NodeNotEmittable, with the reason
/// ("it has a non-scalar key, which is not supported there": the step
/// editor's layout reads no `? [a, b]` or null keys; "it contains a recursive
/// alias"; ...), for a node it cannot write. Aliases are written
/// out within `budget`, which may serve several calls, so that one bound
/// covers a whole step (a fragment merged into many places); null: a budget
/// for this call alone.
std::string EmitSlotText(const YamlRef& node, const EmitTarget& target, ExpansionBudget* budget = nullptr);

/// A mapping key: plain when that reads back as the same string (FitsPlain
/// and ResolvePlain), else double-quoted.
std::string EmitKey(std::string_view key);

}  // namespace safesubst::detail
