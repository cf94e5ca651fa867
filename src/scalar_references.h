// SPDX-License-Identifier: Apache-2.0
// The references of a template found scalar by scalar, when they are needed,
// instead of kept for the whole template (Tokens::references): a
// placeholder-dense template holds millions, and a render that streams
// (render.cc) keeps none of them longer than the scalar it is writing.
// Both are defined in tokenizer.cc, beside the pass they must agree with.
#pragma once

#include <cstdint>
#include <functional>
#include <string_view>

#include "tokenizer.h"

namespace safesubst::detail {

/// Tokenize, with Tokens::references left empty. The references are still
/// scanned, so that the diagnostics are Tokenize's (an unterminated `${`).
Tokens TokenizeWithoutReferences(std::string_view text, const TokenizerOptions& options);

/// Where a reference stands, for ForEachReferenceOf.
enum class ReferencePlace : std::uint8_t {
  kLocated,    ///< line and column, as Tokenize finds them
  kOffsetOnly, ///< line and column left 0: a render that reports nothing per reference skips counting lines
};

/// Calls `each` with every reference of scalar `index` of `tokens`, in source
/// order, exactly as Tokenize records it in Tokens::references (line, column,
/// context and scalar filled in; the context is the scalar's, so after
/// Classify the classified one). `tokens` are `text`'s.
void ForEachReferenceOf(std::string_view text, const Tokens& tokens, std::uint32_t index,
                        const std::function<void(const Reference&)>& each,
                        ReferencePlace place = ReferencePlace::kLocated);

}  // namespace safesubst::detail
