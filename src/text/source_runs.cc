// SPDX-License-Identifier: Apache-2.0
#include "source_runs.h"

#include <algorithm>

namespace safesubst {

void SourceRuns::Add(std::size_t source) { AddRange(source, source + 1); }

void SourceRuns::AddRange(std::size_t begin, std::size_t end) {
  if (begin == end) return;
  if (resolving_ != nullptr) {  // FirstFrom's answer for the offsets this range reaches
    std::vector<std::size_t>& sources = *resolving_;
    for (; next_ < sources.size() && sources[next_] < end; ++next_) {
      sources[next_] = size_ + (sources[next_] > begin ? sources[next_] - begin : 0);
    }
    size_ += end - begin;
    return;
  }
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
  if (resolving_ != nullptr) {  // its offsets' own bytes are never dropped
    size_ = size;
    return;
  }
  while (!runs_.empty() && runs_.back().decoded >= size) runs_.pop_back();
  if (!runs_.empty()) runs_.back().length = size - runs_.back().decoded;
  size_ = size;
}

void SourceRuns::FinishResolving() {
  std::fill(resolving_->begin() + static_cast<std::ptrdiff_t>(next_), resolving_->end(), size_);
  resolving_ = nullptr;
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
