// SPDX-License-Identifier: Apache-2.0
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
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "safesubst/manifest.h"
#include "safesubst/render.h"

namespace safesubst::detail {

/// Inputs below this size are rendered whole, on the calling thread.
constexpr std::size_t kChunkingThreshold = std::size_t{1} << 20;

/// Target size of one piece: small enough for the tokens of a piece to stay
/// in the cache, large enough for the per-piece costs not to matter. A
/// worker's memory is as large as the biggest piece it rendered needs (about
/// ten times the piece's size), and each fresh page of it costs a page fault:
/// 128 KiB pieces render a 24.6 MB stream about 7 % faster than 256 KiB ones
/// (bench/, interleaved runs), and since the threads merge their own pieces
/// (no wake-up per piece), 64 KiB ones 2 to 4 % faster than 128 KiB (1,300
/// page faults instead of 1,660); 32 KiB ones no faster than 64 KiB.
constexpr std::size_t kChunkTarget = std::size_t{64} << 10;

/// Whether Render cuts `text` into pieces: not when it is smaller than
/// kChunkingThreshold or larger than `options.limits.max_input_bytes` (the
/// whole render reports it), starts with a `%` directive, or when the
/// manifest's steps will run (a step's "path matched nothing" is decided
/// over the whole stream).
bool RendersInPieces(std::string_view text, const Manifest& manifest, const RenderOptions& options);

/// Piece `index` of `text`: [begin, end), empty when begin == end.
struct PieceBounds {
  std::size_t begin = 0, end = 0;
};

/// Piece `index` of `text` cut about every `target` bytes at document start
/// lines (a `---` followed by a blank or a line break, at the start of a
/// line): from the first one in [index * target, (index + 1) * target) (0
/// for the first piece) to the first one at or after (index + 1) * target,
/// or the end of the text. Empty when no document starts in that range: the
/// piece before holds it. Each call reads its range and on to the next
/// document start, no more (so a long document is read by few calls, never
/// by all): the workers find their own pieces, and what needs the whole text
/// (directives further on, the number of documents and aliases) is read
/// piece by piece, in parallel, by RenderPieces.
PieceBounds FindPiece(std::string_view text, std::size_t index, std::size_t target);

/// What a piece holds that may oblige the stream to be rendered whole.
struct PieceFacts {
  std::size_t markers = 0;  ///< document marker lines (`---`, `...`)
  std::uint32_t aliases = 0;  ///< as CountAliases counts them
  bool directive = false;  ///< a `%` line: it belongs to the document after it
  /// an item that takes a ConfigMap's or Secret's entries, checked with every
  /// document (MayTakeOtherObjectsEntries)
  bool other_objects = false;
};

/// The facts of the lines of `text` that start in [begin, end), except the
/// first line of `text` (a stream may start with `---` or a directive).
PieceFacts ReadPieceFacts(std::string_view text, std::size_t begin, std::size_t end);

/// Copies `size` bytes of a template, from `offset`, into `into` and says
/// whether it could; it gives the bytes of the template's view. For a
/// template that is a mapped file, pread(2) on it (InputText::Copy): a large
/// stream's pieces are then copied into buffers each thread reuses, and the
/// mapping's pages are not touched unless the stream is rendered whole (on a
/// virtual machine the first touch of each page costs microseconds). It is
/// called from several threads at once and must not throw: it reports a
/// failure by returning false, and the view is read instead.
using CopyText = std::function<bool(std::size_t offset, char* into, std::size_t size)>;

/// A worker's reader of pieces: FindPiece and ReadPieceFacts on `text`, or,
/// with a `copy` of it, the same on copies of the part of the text around
/// each piece, in a buffer the worker reuses: the pages of a mapped file are
/// then never touched, and on a virtual machine the first touch of each page
/// costs microseconds. A copy that fails falls back to `text`; one that
/// throws is not caught (a render's worker thread would end the process).
class PieceReader {
 public:
  PieceReader(std::string_view text, const CopyText* copy) : text_(text), copy_(copy) {}

  /// Piece `index` of the text, as FindPiece(text, index, target) finds it.
  PieceBounds Find(std::size_t index, std::size_t target);
  /// The bytes of the piece Find found last (valid until the next Find).
  std::string_view Piece() const {
    if (piece_.begin == piece_.end) return {};
    return held_.substr(piece_.begin - held_offset_, piece_.end - piece_.begin);
  }
  /// ReadPieceFacts of that piece (none for an empty one).
  PieceFacts Facts() const;

 private:
  bool FindInCopy(std::size_t index, std::size_t target);
  bool Hold(std::size_t begin, std::size_t end);

  std::string_view text_;
  const CopyText* copy_;
  std::string buffer_;  // the copies: text_[held_offset_, held_offset_ + held_.size())
  std::string_view held_ = text_;  // the bytes around the piece, in text_ or buffer_
  std::size_t held_offset_ = 0;
  PieceBounds piece_;
};

/// Accumulates the pieces' facts; says when the stream must be rendered whole
/// instead: a directive anywhere, an item taking other objects' entries, or
/// more documents or aliases in all than `limits` allow (the whole render
/// reports those).
class StreamFacts {
 public:
  explicit StreamFacts(const Limits& limits) : limits_(limits) {}
  void Add(const PieceFacts& piece);
  bool NeedsWholeRender() const { return whole_; }

 private:
  const Limits& limits_;
  std::size_t documents_ = 1;  // every marker counts as a new document: never fewer than there are
  std::uint64_t aliases_ = 0;
  bool whole_ = false;
};

/// Renders one piece as a complete template.
using RenderPiece = std::function<RenderResult(std::string_view piece)>;

/// Renders the pieces of `text` (FindPiece with `target`) with
/// `render_piece`, on `threads` threads (0: one per core), and merges the
/// results as the render of the whole: the outputs concatenated, reference
/// reports moved to their line in `text`. When any piece has a diagnostic (an
/// error or a warning), or the pieces' facts need it (StreamFacts under
/// `limits`), the whole text is rendered instead (`render_piece(text)`), so
/// that problems are reported exactly as without pieces: once per template,
/// at their first use. The result does not depend on `threads`, nor on
/// `copy` (a PieceReader's, when given).
RenderResult RenderPieces(std::string_view text, std::size_t target, unsigned threads, const Limits& limits,
                          const RenderPiece& render_piece, const CopyText* copy = nullptr);

}  // namespace safesubst::detail
