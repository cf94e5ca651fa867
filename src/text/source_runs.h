// SPDX-License-Identifier: Apache-2.0
// Where the bytes of a decoded scalar came from in the template, in runs.
#ifndef SAFESUBST_SOURCE_RUNS_H_
#define SAFESUBST_SOURCE_RUNS_H_

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace safesubst {

/// The map DecodeScalar's `source_offsets` gives (for each decoded byte, the
/// template offset it came from), kept as runs of bytes copied in order: a
/// block scalar's map is one run a line, where the byte-by-byte vector costs
/// eight bytes for every byte of the script (232 MB for a 29 MB script).
class SourceRuns {
 public:
  void Clear() {
    runs_.clear();
    size_ = 0;
    next_ = 0;
  }
  /// The next decoded byte came from `source`.
  void Add(std::size_t source);
  /// The next decoded bytes are the template's [begin, end).
  void AddRange(std::size_t begin, std::size_t end);
  /// Keeps the first `size` decoded bytes.
  void Truncate(std::size_t size);
  std::size_t size() const { return size_; }

  /// The index of the first decoded byte that came from `source` or after it
  /// (std::lower_bound over the byte-by-byte map), or size().
  std::size_t FirstFrom(std::size_t source) const;

  /// Keeps no runs: turns each of `*sources` (template offsets in ascending
  /// order, each that of a byte decoded as itself, such as a reference's
  /// `$`) into FirstFrom's answer in place as the decoded bytes arrive; the
  /// offsets no byte reached become size() at FinishResolving. For a caller
  /// that asks about a known list once: a script of a million lines then
  /// keeps no run a line.
  void ResolveInPlace(std::vector<std::size_t>* sources) { resolving_ = sources; }
  void FinishResolving();

 private:
  struct Run {
    std::size_t decoded;  ///< index of its first decoded byte
    std::size_t source;   ///< where that byte came from; the next ones follow it
    std::size_t length;
  };
  std::vector<Run> runs_;
  std::size_t size_ = 0;
  std::vector<std::size_t>* resolving_ = nullptr;  // ResolveInPlace
  std::size_t next_ = 0;  // the first of *resolving_ not resolved yet
};

}  // namespace safesubst

#endif  // SAFESUBST_SOURCE_RUNS_H_
