// SPDX-License-Identifier: Apache-2.0
// Render (render.h) as the library's own callers and tests call it: through
// a copy function for a large stream's pieces (parallel_render.h), or
// streaming from a chosen number of references.
//
// When a render streams (render.cc): a template with many references is
// rendered scalar by scalar, each scalar's references found again when it is
// written (ForEachReferenceOf, tokenizer.h), decided and encoded by the
// whole-document render's own steps, and written and proved (fast_invariant.h,
// InPlaceProof) before the next, so that no record per reference is kept for
// the whole template: a placeholder-dense template holds millions. What needs
// every reference at once (diagnostics in their order, `explain`,
// --full-check, steps, keys, escapes, default words, Flux) renders the whole
// template as before instead.
#pragma once

#include <cstddef>
#include <limits>
#include <string_view>

#include "parallel_render.h"
#include "safesubst/render.h"

namespace safesubst::detail {

/// A template with at least this many `$` streams. Below it, the records
/// kept per reference (about 110 bytes each) stay under 7 MB.
inline constexpr std::size_t kStreamingDollars = std::size_t{1} << 16;
inline constexpr std::size_t kNeverStreams = std::numeric_limits<std::size_t>::max();

/// Render, reading the pieces of a large stream through `copy` when it is
/// not null. Output and diagnostics do not depend on it.
RenderResult RenderWithCopy(std::string_view template_text, const Manifest& manifest, const ValueSet& values,
                            const RenderOptions& options, const CopyText* copy);

/// Render, streaming from `dollars` `$` on (kNeverStreams: never), without
/// parallel pieces: for the tests that compare the two ways of rendering.
/// `streamed`, when given, tells whether it streamed to the end.
RenderResult RenderStreamingFrom(std::size_t dollars, std::string_view template_text, const Manifest& manifest,
                                 const ValueSet& values, const RenderOptions& options, bool* streamed = nullptr);

}  // namespace safesubst::detail
