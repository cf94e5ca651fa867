// SPDX-License-Identifier: Apache-2.0
// Emitting a yaml-cpp node as block-style YAML text for one slot of a
// document. The step editor splices source bytes wherever it can; this is the
// fallback for nodes that have no usable bytes of their own, such as a flow
// collection that must turn into block style before something is merged into
// it. Multi-line strings become literal blocks (`|`), quoted scalars stay
// quoted, plain scalars stay plain, so the emitted node reads back the same.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

#include <yaml-cpp/yaml.h>

#include "yaml_layout.h"

namespace safesubst::detail {

/// Where emitted text goes and how the surrounding document is laid out.
struct EmitTarget {
  SlotKind slot = SlotKind::kMapValue;
  /// The column of the key (kMapValue) or dash (kSeqItem) the text follows; ignored for kRoot.
  int parent_column = 0;
  std::uint32_t indent_step = 2;   ///< how much deeper a nested mapping is indented
  bool compact_sequences = false;  ///< `key:\n- item` (dashes at the key's column)
  std::string eol = "\n";
};

/// What aliases added to the writes of one step (EmitSlotText).
struct EmitExpansion {
  std::size_t nodes = 0;
  std::size_t bytes = 0;
};

/// Why a node cannot be written (EmitSlotText writes aliases out in full).
class NodeNotEmittable : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// The text that follows `key:` or `-` (starting with a space or a line
/// break, or empty for null), or for kRoot the whole node starting at column 0.
/// It never ends with a line break. Throws NodeNotEmittable, with the reason
/// ("a non-scalar key is not supported there": block style has no simple
/// way to write `[a, b]: c`; "it holds an alias to itself"; ...), for a node
/// it cannot write. `expansion` counts what aliases add across calls
/// (kMaxExpandedNodes nodes, kMaxExpandedBytes bytes), so that one bound
/// covers a whole step (a fragment merged into many places); null counts
/// this call alone.
std::string EmitSlotText(const YAML::Node& node, const EmitTarget& target, EmitExpansion* expansion = nullptr);

/// A scalar on one line: plain when it was plain and still reads back the
/// same (FitsPlain), else double-quoted (DoubleQuoted); explicit tags are kept.
std::string EmitInlineScalar(const YAML::Node& scalar);

/// A mapping key: plain when that reads back as the same string (FitsPlain
/// and ResolvePlain), else double-quoted.
std::string EmitKey(std::string_view key);

}  // namespace safesubst::detail
