// Rendering a large multi-document stream in pieces, on several threads.
//
// YAML documents are independent: anchors, tags and directives do not cross a
// `---` line, and a line starting with `---` is a document start wherever it
// stands (it ends any scalar or collection still open, as an error if it must).
// So a stream cut at such lines renders, piece by piece, to the same bytes as
// rendered whole, and the pieces can run in parallel. Pieces also keep the
// tokenizer's output (several times the text's size) small and in cache.
#pragma once

#include <cstddef>
#include <functional>
#include <string_view>
#include <vector>

#include "safesubst/manifest.h"
#include "safesubst/render.h"

namespace safesubst::detail {

/// Inputs below this size are rendered whole, on the calling thread.
constexpr std::size_t kChunkingThreshold = std::size_t{1} << 20;

/// Target size of one piece: small enough for the tokens of a piece to stay
/// in the cache, large enough for the per-piece costs not to matter.
constexpr std::size_t kChunkTarget = std::size_t{256} << 10;

/// Where to cut `text` into pieces of about `target` bytes: offsets of lines
/// that start with `---` followed by a blank or a line break, in ascending
/// order, the first one 0. A single {0} when the stream should be rendered
/// whole: smaller than kChunkingThreshold, too large or with too many
/// documents or aliases for `options.limits` (the whole render reports
/// those), with a `%` directive line (a directive belongs to the document
/// after it), or when the manifest's steps will run (a step's "path matched
/// nothing" is decided over the whole stream).
std::vector<std::size_t> ChunkOffsets(std::string_view text, const Manifest& manifest, const RenderOptions& options,
                                      std::size_t target = kChunkTarget);

/// Renders one piece as a complete template.
using RenderPiece = std::function<RenderResult(std::string_view piece)>;

/// Renders the pieces of `text` starting at `offsets` with `render_piece`,
/// on `threads` threads (0: one per core), and merges the results as the
/// render of the whole: the outputs concatenated, reference reports moved to
/// their line in `text`. When any piece has a diagnostic (an error or a
/// warning), the whole text is rendered instead (`render_piece(text)`), so
/// that problems are reported exactly as without pieces: once per template,
/// at their first use. The result does not depend on `threads`.
RenderResult RenderPieces(std::string_view text, const std::vector<std::size_t>& offsets, unsigned threads,
                          const RenderPiece& render_piece);

}  // namespace safesubst::detail
