// SPDX-License-Identifier: Apache-2.0
// One UTF-8 decoder for the library's internal readers and writers.
#pragma once

#include <cstddef>
#include <string_view>

namespace safesubst::detail {

/// Decodes the UTF-8 sequence starting at text[i]. Returns its length and sets
/// `code_point`, or returns 0 for a malformed sequence (overlong, surrogate,
/// above U+10FFFF, truncated).
std::size_t DecodeUtf8(std::string_view text, std::size_t i, char32_t* code_point);

}  // namespace safesubst::detail
