#include "parallel_render.h"

#include <algorithm>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <optional>
#include <thread>

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
  std::string_view text;
  std::size_t offset = 0;
  std::uint32_t line_breaks = 0;
  std::optional<RenderResult> result;
};

// Moves one piece's reference reports to their lines in the whole text.
void Relocate(Piece& piece, std::uint32_t line_base) {
  for (ReferenceReport& reference : piece.result->references) reference.line += line_base;
}

}  // namespace

std::vector<std::size_t> ChunkOffsets(std::string_view text, const Manifest& manifest, const RenderOptions& options,
                                      std::size_t target) {
  const std::vector<std::size_t> whole = {0};
  if (text.size() < kChunkingThreshold || text.size() > options.limits.max_input_bytes) return whole;
  if (options.run_steps && !manifest.steps.empty()) return whole;
  if (text.front() == '%') return whole;
  if (std::memchr(text.data(), '*', text.size()) != nullptr && CountAliases(text) > options.limits.max_aliases) {
    return whole;
  }
  std::vector<std::size_t> offsets = whole;
  // Counts every marker as a new document: never fewer than there are.
  std::size_t documents = 1;
  std::size_t next_cut = target;
  bool directive = false;
  ForEachLineStartingWith(text, "-.%", [&](std::size_t line) {
    if (text[line] == '%') {
      directive = true;
      return false;
    }
    if (!IsDocumentMarkerLine(text, line)) return true;
    ++documents;
    if (text[line] == '-' && line >= next_cut) {
      offsets.push_back(line);
      next_cut = line + target;
    }
    return true;
  });
  if (directive) return whole;
  if (documents > options.limits.max_documents) return whole;
  return offsets;
}

RenderResult RenderPieces(std::string_view text, const std::vector<std::size_t>& offsets, unsigned threads,
                          const RenderPiece& render_piece) {
  std::vector<Piece> pieces(offsets.size());
  for (std::size_t i = 0; i < offsets.size(); ++i) {
    const std::size_t end = i + 1 < offsets.size() ? offsets[i + 1] : text.size();
    pieces[i].offset = offsets[i];
    pieces[i].text = text.substr(offsets[i], end - offsets[i]);
  }
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  threads = static_cast<unsigned>(std::min<std::size_t>(threads, pieces.size()));

  // Workers take pieces in order; this thread merges them in order as they
  // finish, so that finished outputs do not pile up next to the merged one.
  std::mutex mutex;
  std::condition_variable finished;
  std::size_t next_piece = 0;
  // A problem is reported once per template, at its first use, so pieces
  // with diagnostics cannot be merged: the whole text is rendered instead.
  bool reported = false;
  // Renders the next piece; false when there is none left (or one reported).
  auto render_next = [&] {
    std::size_t index;
    {
      std::lock_guard<std::mutex> lock(mutex);
      if (reported || next_piece == pieces.size()) return false;
      index = next_piece++;
    }
    Piece& piece = pieces[index];
    RenderResult result = render_piece(piece.text);
    const std::uint32_t line_breaks = CountLineBreaks(piece.text);
    std::lock_guard<std::mutex> lock(mutex);
    piece.line_breaks = line_breaks;
    if (!result.diagnostics.empty()) reported = true;
    piece.result = std::move(result);
    finished.notify_all();
    return true;
  };
  std::vector<std::thread> pool;
  if (threads > 1) {
    for (unsigned t = 0; t < threads; ++t) {
      pool.emplace_back([&] {
        while (render_next()) {
        }
      });
    }
  }

  RenderResult merged;
  // Only touched pages count: reserving generously costs no memory.
  merged.output.reserve(text.size() + text.size() / 2);
  AdviseHugePages(merged.output.data(), merged.output.capacity());
  std::uint32_t line_base = 0;
  for (Piece& piece : pieces) {
    if (threads <= 1) render_next();  // one piece at a time, on this thread
    {
      std::unique_lock<std::mutex> lock(mutex);
      finished.wait(lock, [&] { return reported || piece.result.has_value(); });
      if (reported) break;
    }
    Relocate(piece, line_base);
    line_base += piece.line_breaks;
    RenderResult& result = *piece.result;
    merged.output += result.output;
    std::move(result.references.begin(), result.references.end(), std::back_inserter(merged.references));
    piece.result.reset();
  }
  for (std::thread& thread : pool) thread.join();
  if (reported) return render_piece(text);  // diagnostics exactly as without pieces
  return merged;
}

}  // namespace safesubst::detail
