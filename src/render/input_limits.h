// SPDX-License-Identifier: Apache-2.0
// Input limits checked before the expensive or recursive stages run.
#pragma once

#include <string>
#include <string_view>

#include "safesubst/diagnostic.h"
#include "safesubst/render.h"

namespace safesubst {

/// Checks the size, nesting depth and alias count of `text` against `limits`.
/// A cheap bound (line lengths, brackets, `*`) settles most texts; the others
/// are read by the tokenizer, counting (yaml_nesting.h). Returns the errors found.
Diagnostics CheckInputLimits(std::string_view text, const Limits& limits, const std::string& file);

/// The deepest collection nesting in `text`: the number of mappings and
/// sequences (block or flow) around the deepest node, as the tokenizer reads
/// them. Quoted text, comments and block scalars are text, not structure.
/// `deepest_offset` receives where the deepest collection starts.
std::uint32_t NestingDepth(std::string_view text, std::size_t* deepest_offset);

/// The number of alias nodes (`*name`) in `text`.
std::uint32_t CountAliases(std::string_view text);

}  // namespace safesubst
