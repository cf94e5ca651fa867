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
  std::string path;     ///< node path, e.g. `spec.replicas`; documents as `[N]` prefix when more than one
  std::string message;  ///< e.g. "was a scalar, became a mapping"
  std::uint32_t template_line = 0, template_column = 0;
  std::uint32_t output_line = 0, output_column = 0;
};

/// Parses both streams and compares keys, sequence lengths and node kinds.
/// Differences under a path listed in `exempt_paths` (a `type: yaml`
/// substitution) are ignored. A rendered stream that does not parse is
/// reported as a diagnostic in the result (with the output location).
Result<std::vector<StructureDifference>> CompareStructure(
    std::string_view template_text, std::string_view rendered_text,
    const std::vector<std::string>& exempt_paths, const std::string& file);

}  // namespace safesubst
