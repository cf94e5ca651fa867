// SPDX-License-Identifier: Apache-2.0
#include "parallel_render.h"

#include <algorithm>
#include <cstring>
#include <mutex>
#include <optional>
#include <thread>

#include "carried_env_values.h"
#include "huge_pages.h"
#include "input_limits.h"
#include "text_checks.h"

namespace safesubst::detail {

namespace {

// Line breaks as the tokenizer counts them: LF, CRLF, or a lone CR.
std::uint32_t CountLineBreaks(std::string_view text) {
  std::uint32_t lines = static_cast<std::uint32_t>(CountByte(text, '\n'));
  if (text.find('\r') == std::string_view::npos) return lines;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\r' && (i + 1 == text.size() || text[i + 1] != '\n')) ++lines;
  }
  return lines;
}

struct Piece {
  std::uint32_t line_breaks = 0;
  bool to_the_end = false;  // it ends where the text ends
  std::optional<RenderResult> result;
};

// Moves one piece's reference reports to their lines in the whole text.
void Relocate(Piece& piece, std::uint32_t line_base) {
  for (ReferenceReport& reference : piece.result->references) reference.line += line_base;
}

// The first line starting in [from, limit) with a `---` marker, or npos.
// `from` > 0: the line feed before it is looked at.
std::size_t NextDocumentStart(std::string_view text, std::size_t from,
                              std::size_t limit = std::string_view::npos) {
  // A line starting before `limit` has its "\n---" end by limit + 2.
  const std::string_view window = limit < text.size() ? text.substr(0, limit + 2) : text;
  for (std::size_t feed = from - 1; (feed = window.find("\n---", feed)) != std::string_view::npos; ++feed) {
    if (IsDocumentMarkerLine(text, feed + 1)) return feed + 1;
  }
  return std::string_view::npos;
}

constexpr std::size_t kMarkerLine = 4;  // `---` and the byte after it, which decides

// FindPiece on `held`, the bytes of a text of `size` bytes from `offset` on,
// starting at the line feed before the cell (at 0 for the first piece):
// none when they stop before what decides the piece. A `---` at the very end
// of `held` is only a candidate: the byte after it decides.
std::optional<PieceBounds> FindPieceIn(std::string_view held, std::size_t offset, std::size_t size,
                                       std::size_t index, std::size_t target) {
  const std::size_t cell = index * target;
  if (cell >= size) return PieceBounds{size, size};
  const bool to_the_end = offset + held.size() == size;
  // Positions in `held` are `offset` less than in the text.
  std::size_t begin = 0;
  if (index > 0) {
    if (!to_the_end && held.size() < cell - offset + target + kMarkerLine) return std::nullopt;
    begin = NextDocumentStart(held, cell - offset, cell - offset + target);
    if (begin == std::string_view::npos) return PieceBounds{cell, cell};  // no document starts in the cell
    begin += offset;
  }
  const std::size_t end = NextDocumentStart(held, cell + target - offset);
  if (!to_the_end && (end == std::string_view::npos || end + kMarkerLine > held.size())) return std::nullopt;
  return PieceBounds{begin, end == std::string_view::npos ? size : offset + end};
}

}  // namespace

bool RendersInPieces(std::string_view text, const Manifest& manifest, const RenderOptions& options) {
  if (text.size() < kChunkingThreshold || text.size() > options.limits.max_input_bytes) return false;
  if (options.run_steps && !manifest.steps.empty()) return false;
  if (options.report_sensitive_spans) return false;  // the pieces' spans would need moving: rare, not worth it
  return text.front() != '%';
}

PieceBounds FindPiece(std::string_view text, std::size_t index, std::size_t target) {
  return *FindPieceIn(text, 0, text.size(), index, target);  // the whole text decides every piece
}

PieceFacts ReadPieceFacts(std::string_view text, std::size_t begin, std::size_t end) {
  PieceFacts facts;
  // From the line feed before `begin`: the piece's first line is visited too.
  const std::size_t from = begin > 0 ? begin - 1 : 0;
  const std::string_view lines = text.substr(from, end - from);
  ForEachLineStartingWith(lines, "-.%", [&](std::size_t line) {
    if (lines[line] == '%') {
      facts.directive = true;
      return false;
    }
    if (IsDocumentMarkerLine(lines, line)) ++facts.markers;
    return true;
  });
  const std::string_view piece = text.substr(begin, end - begin);
  if (std::memchr(piece.data(), '*', piece.size()) != nullptr) facts.aliases = CountAliases(piece);
  facts.other_objects = MayTakeOtherObjectsEntries(piece);
  return facts;
}

PieceBounds PieceReader::Find(std::size_t index, std::size_t target) {
  if (copy_ == nullptr || !FindInCopy(index, target)) {
    held_ = text_;
    held_offset_ = 0;
    piece_ = FindPiece(text_, index, target);
  }
  return piece_;
}

PieceFacts PieceReader::Facts() const {
  if (piece_.begin == piece_.end) return {};
  return ReadPieceFacts(held_, piece_.begin - held_offset_, piece_.end - held_offset_);
}

// FindPiece's search, on copies: from the line feed before the cell to an
// eighth of a cell past it (most pieces end there: documents are smaller),
// then twice as far each time what decides the piece is not in the copy yet,
// up to kMaxCopiedCells cells: a larger piece (a document of many megabytes)
// is read in place, since each copy outgrown would stay in the worker's
// memory (a 29 MB document left 40 MB of them).
bool PieceReader::FindInCopy(std::size_t index, std::size_t target) {
  constexpr std::size_t kMaxCopiedCells = 16;
  const std::size_t size = text_.size();
  const std::size_t cell = index * target;
  const std::size_t from = std::min(index == 0 ? 0 : cell - 1, size);
  std::size_t to = std::min(size, cell + target + target / 8 + 2 * kMarkerLine);
  for (;;) {
    if (to - from > kMaxCopiedCells * target || !Hold(from, to)) return false;
    if (const std::optional<PieceBounds> bounds = FindPieceIn(held_, from, size, index, target)) {
      piece_ = *bounds;
      return true;
    }
    to = std::min(size, to + (to - from));
  }
}

// Copies text_[begin, end) into buffer_, or only what it lacks when it
// already holds the start of that range.
bool PieceReader::Hold(std::size_t begin, std::size_t end) {
  std::size_t have = 0;
  if (held_.data() == buffer_.data() && held_offset_ == begin) have = std::min(held_.size(), end - begin);
  buffer_.resize(end - begin);
  if (have < buffer_.size() && !(*copy_)(begin + have, buffer_.data() + have, buffer_.size() - have)) return false;
  held_ = buffer_;
  held_offset_ = begin;
  return true;
}

void StreamFacts::Add(const PieceFacts& piece) {
  documents_ += piece.markers;
  aliases_ += piece.aliases;
  if (piece.directive || piece.other_objects || documents_ > limits_.max_documents || aliases_ > limits_.max_aliases) {
    whole_ = true;
  }
}

RenderResult RenderPieces(std::string_view text, std::size_t target, unsigned threads, const Limits& limits,
                          const RenderPiece& render_piece, const CopyText* copy) {
  target = std::max<std::size_t>(target, 1);
  std::vector<Piece> pieces(std::max<std::size_t>(1, (text.size() + target - 1) / target));
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  threads = static_cast<unsigned>(std::min<std::size_t>(threads, pieces.size()));

  // Threads take pieces in order, and merge them in order as they finish:
  // the thread that finishes the piece next in line merges it and any
  // finished ones after it. So no thread sleeps until it is woken to merge
  // (on a virtual machine, each wake-up costs a switch and an interrupt),
  // and finished outputs do not pile up next to the merged one.
  std::mutex mutex;
  std::size_t next_piece = 0, next_merge = 0;
  bool merging = false;
  // A problem is reported once per template, at its first use, so pieces
  // with diagnostics cannot be merged: the whole text is rendered instead.
  // So it is when the pieces' facts say so (a directive, too many documents).
  bool whole = false;
  StreamFacts facts(limits);

  RenderResult merged;
  // Only touched pages count: reserving generously costs no memory.
  merged.output.reserve(HugePageCapacity(text.size() + text.size() / 2));
  AdviseHugePages(merged.output.data(), merged.output.capacity());
  std::uint32_t line_base = 0;
  auto merge = [&](Piece& piece) {
    Relocate(piece, line_base);
    line_base += piece.line_breaks;
    RenderResult& result = *piece.result;
    // A piece that is all the output (a stream of one document) is not copied.
    if (merged.output.empty() && piece.to_the_end) {
      merged.output = std::move(result.output);
    } else {
      merged.output += result.output;
    }
    std::move(result.references.begin(), result.references.end(), std::back_inserter(merged.references));
    piece.result.reset();
  };
  // Stores the result of piece `index` and merges what is ready. Only one
  // thread merges at a time (`merging`); it copies with the lock released,
  // and no other thread touches a piece that is ready to merge.
  auto finish = [&](std::size_t index, RenderResult result, std::uint32_t line_breaks, bool to_the_end) {
    std::unique_lock<std::mutex> lock(mutex);
    Piece& piece = pieces[index];
    piece.line_breaks = line_breaks;
    piece.to_the_end = to_the_end;
    if (!result.diagnostics.empty()) whole = true;
    piece.result = std::move(result);
    if (merging) return;
    merging = true;
    while (!whole && next_merge < pieces.size() && pieces[next_merge].result.has_value()) {
      Piece& ready = pieces[next_merge];
      // Over the output limit together: the whole render refuses it, with its message.
      if (merged.output.size() + ready.result->output.size() > limits.max_output_bytes) {
        whole = true;
        break;
      }
      lock.unlock();
      merge(ready);
      lock.lock();
      ++next_merge;
    }
    merging = false;
  };
  // Renders the next piece; false when there is none left (or the whole text must be rendered).
  auto render_next = [&](PieceReader& reader) {
    std::size_t index;
    {
      std::lock_guard<std::mutex> lock(mutex);
      if (whole || next_piece == pieces.size()) return false;
      index = next_piece++;
    }
    const PieceBounds bounds = reader.Find(index, target);
    if (bounds.begin == bounds.end) {  // its cell is part of the piece before
      finish(index, RenderResult{}, 0, false);
      return true;
    }
    const std::string_view piece_text = reader.Piece();
    const PieceFacts piece_facts = reader.Facts();
    {
      std::lock_guard<std::mutex> lock(mutex);
      facts.Add(piece_facts);
      if (facts.NeedsWholeRender()) {
        whole = true;
        return false;
      }
    }
    RenderResult result = render_piece(piece_text);
    finish(index, std::move(result), CountLineBreaks(piece_text), bounds.end == text.size());
    return true;
  };
  auto work = [&] {
    PieceReader reader(text, copy);
    while (render_next(reader)) {
    }
  };
  // This thread is one of the `threads`.
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t) pool.emplace_back(work);
  work();
  for (std::thread& thread : pool) thread.join();
  if (whole) {
    merged = RenderResult{};  // its memory, before the whole render needs as much again
    return render_piece(text);  // diagnostics exactly as without pieces
  }
  return merged;
}

}  // namespace safesubst::detail
