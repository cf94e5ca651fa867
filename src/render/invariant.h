// SPDX-License-Identifier: Apache-2.0
// The structure invariant (SPEC Rule 3, last paragraph): a render may change
// scalar values, never the shape of the document.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "safesubst/diagnostic.h"

namespace safesubst {

/// One place where the rendered stream's shape differs from the template's.
struct StructureDifference {
  /// Node path in the template, written as Tokens::PathString writes it
  /// (`spec.template.spec.containers[0].args[0]`; empty for the document root
  /// or the stream). The document is in `document`, not in the path.
  std::string path;
  std::string message;  ///< e.g. "was a scalar, became a mapping"
  std::uint32_t document = 0;  ///< 0-based index of the document in the stream
  /// 1-based positions of the differing node (or of its nearest counterpart)
  /// in the template and in the rendered output; 0 when there is none.
  std::uint32_t template_line = 0, template_column = 0;
  std::uint32_t output_line = 0, output_column = 0;
};

/// What a rewritten scalar must read back as: the template scalar that
/// starts at `offset` (Scalar::offset) holds, once parsed from the output,
/// exactly `value` (fast_invariant.h, ExpectedScalarValue).
struct ExpectedValue {
  std::size_t offset = 0;
  std::string value;
};

/// Parses both streams and compares, node by node and in order: the number of
/// documents, node kinds (null, scalar, sequence, mapping; an alias where the
/// other side has none; explicit tags when either side has one), sequence
/// lengths and mapping keys (text and order; a key whose text changed is
/// reported as "key changed"). Scalar values and quoting styles are not
/// compared. Null and scalar are different kinds: a null never holds a
/// placeholder, and a placeholder is never empty text, so a scalar that became
/// null means an empty value was written unquoted. Differences at or under a
/// path in `exempt_paths` (as in StructureDifference::path, a leading `.`
/// ignored), where a `type: yaml` value landed, in any document, are ignored.
/// Aliases are compared through the nodes they stand for, each pair of nodes
/// once, so a "billion laughs" stream costs its size.
///
/// In the template, `${...}` forms are read as opaque plain text (their braces,
/// and flow indicators inside them, are masked before parsing), so that a
/// template such as `args: [${A}, ${B}]` (which is not YAML as written: `{`
/// ends a plain scalar in flow context) is compared as the list it means.
/// Paths use the key text as written in the template (`name-${S}`).
///
/// A template that does not parse is an error diagnostic located in the
/// template (`file`); a rendered stream that does not parse is an error
/// "rendered output is not valid YAML" located in the output, with the file
/// name `file` + " (rendered output)". In both cases the result has no value.
/// An empty vector means the shapes agree.
///
/// Each scalar of `expected` (outside the exempt paths) must read back as
/// its value in the output, or it is a difference ("the rewritten scalar
/// reads back as a different value"), as in CompareStructureByTokens: the
/// yaml-cpp check is never weaker than the token-level one.
Result<std::vector<StructureDifference>> CompareStructure(
    std::string_view template_text, std::string_view rendered_text,
    const std::vector<std::string>& exempt_paths, const std::string& file,
    const std::vector<ExpectedValue>& expected = {});

}  // namespace safesubst
