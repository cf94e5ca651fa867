// SPDX-License-Identifier: Apache-2.0
#include "source_runs.h"

#include <algorithm>

namespace safesubst {

void SourceRuns::Add(std::size_t source) { AddRange(source, source + 1); }

void SourceRuns::AddRange(std::size_t begin, std::size_t end) {
  if (begin == end) return;
  // An escape's bytes all come from its backslash: only a byte from the next
  // offset continues a run.
  if (!runs_.empty() && runs_.back().source + runs_.back().length == begin) {
    runs_.back().length += end - begin;
  } else {
    runs_.push_back(Run{size_, begin, end - begin});
  }
  size_ += end - begin;
}

void SourceRuns::Truncate(std::size_t size) {
  if (size >= size_) return;
  while (!runs_.empty() && runs_.back().decoded >= size) runs_.pop_back();
  if (!runs_.empty()) runs_.back().length = size - runs_.back().decoded;
  size_ = size;
}

std::size_t SourceRuns::FirstFrom(std::size_t source) const {
  // Sources never decrease from one byte to the next: the first run that
  // reaches `source` holds the answer.
  auto run = std::partition_point(runs_.begin(), runs_.end(),
                                  [source](const Run& r) { return r.source + r.length <= source; });
  if (run == runs_.end()) return size_;
  return run->decoded + (source > run->source ? source - run->source : 0);
}

}  // namespace safesubst
