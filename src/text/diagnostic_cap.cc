// SPDX-License-Identifier: Apache-2.0
#include "diagnostic_cap.h"

#include <utility>

namespace safesubst::detail {

namespace {

bool IsCountingNote(const Diagnostic& diagnostic) {
  return diagnostic.omitted_errors > 0 || diagnostic.omitted_others > 0;
}

std::string Counted(std::size_t count, const char* one, const char* many) {
  return std::to_string(count) + " " + (count == 1 ? one : many);
}

// The counting note's words, from its counts.
void Word(Diagnostic* note, std::size_t limit) {
  note->message = Counted(note->omitted_errors, "more error", "more errors") + " and " +
                  Counted(note->omitted_others, "more warning or note", "more warnings or notes") +
                  " not shown (at most " + std::to_string(limit) + " of each are kept)";
  note->hint = "raise the limit with --max-errors (0 keeps them all)";
}

}  // namespace

DiagnosticCap::DiagnosticCap(Diagnostics* out, std::size_t limit) : out_(out), limit_(limit) {}

void DiagnosticCap::Add(Diagnostic diagnostic) {
  if (IsCountingNote(diagnostic)) {  // an earlier cap's
    if (note_ == kNoNote) {
      note_ = out_->size();
      out_->push_back(std::move(diagnostic));
      return;
    }
    (*out_)[note_].omitted_errors += diagnostic.omitted_errors;
    (*out_)[note_].omitted_others += diagnostic.omitted_others;
    return;
  }
  const bool error = diagnostic.severity == Severity::kError;
  std::size_t& kept = error ? errors_ : others_;
  if (limit_ == 0 || kept < limit_) {
    ++kept;
    out_->push_back(std::move(diagnostic));
    return;
  }
  if (note_ == kNoNote) {
    note_ = out_->size();
    Diagnostic note;
    note.severity = Severity::kNote;
    note.location.file = diagnostic.location.file;
    out_->push_back(std::move(note));
  }
  Diagnostic& note = (*out_)[note_];
  ++(error ? note.omitted_errors : note.omitted_others);
}

void CapDiagnostics(Diagnostics* diagnostics, std::size_t limit, const std::string& file) {
  Diagnostics capped;
  DiagnosticCap cap(&capped, limit);
  for (Diagnostic& diagnostic : *diagnostics) cap.Add(std::move(diagnostic));
  // The counting note last, after what it follows.
  for (std::size_t i = 0; i < capped.size(); ++i) {
    if (!IsCountingNote(capped[i])) continue;
    Diagnostic note = std::move(capped[i]);
    capped.erase(capped.begin() + static_cast<std::ptrdiff_t>(i));
    note.location = Location{file};
    Word(&note, limit);
    capped.push_back(std::move(note));
    break;
  }
  *diagnostics = std::move(capped);
}

}  // namespace safesubst::detail
