// SPDX-License-Identifier: Apache-2.0
// Input limits checked before the expensive or recursive stages run.
#pragma once

#include <string>
#include <string_view>

#include "safesubst/diagnostic.h"
#include "safesubst/render.h"

namespace safesubst {

/// Checks the size, nesting depth and alias count of `text` against `limits`
/// with one cheap forward scan (no parsing). Returns the errors found.
Diagnostics CheckInputLimits(std::string_view text, const Limits& limits, const std::string& file);

/// The deepest collection nesting in `text`: flow brackets plus block levels
/// (indentation steps and `- `/`? ` entries). Block scalar bodies and quoted
/// text are skipped. The result may overstate the true depth by one (a line
/// opening with `- ` counts both its indentation level and its entry), never
/// understate it. `deepest_offset` receives where the maximum is reached.
std::uint32_t NestingDepth(std::string_view text, std::size_t* deepest_offset);

/// The number of alias nodes (`*name`) in `text`, outside quotes and comments.
std::uint32_t CountAliases(std::string_view text);

}  // namespace safesubst
