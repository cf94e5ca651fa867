// SPDX-License-Identifier: Apache-2.0
// A cap on the diagnostics kept of one input (Limits::max_errors, like GCC's
// -fmax-errors): past it, diagnostics are counted in one note instead of kept,
// so that a template with millions of errors costs no more memory than one
// with fifty. Errors and warnings are capped apart, so that an error is never
// left out for warnings that came first: HasErrors tells the truth.
#pragma once

#include <cstddef>
#include <string>

#include "safesubst/diagnostic.h"

namespace safesubst::detail {

/// Adds diagnostics to a list, at most `limit` errors and `limit` warnings
/// and notes (0: all); the others are counted in the list's one note with
/// Diagnostic::omitted_errors/omitted_others, made on the first left out.
class DiagnosticCap {
 public:
  DiagnosticCap(Diagnostics* out, std::size_t limit);

  void Add(Diagnostic diagnostic);

 private:
  Diagnostics* out_;
  std::size_t limit_;
  std::size_t errors_ = 0, others_ = 0;  // kept
  std::size_t note_ = kNoNote;           // index of the counting note in *out_
  static constexpr std::size_t kNoNote = static_cast<std::size_t>(-1);
};

/// Caps `diagnostics` (those of one input, in order) as DiagnosticCap would
/// have: the notes of earlier caps add up in one, which comes last and says
/// how many were left out. `file` names the input in that note.
void CapDiagnostics(Diagnostics* diagnostics, std::size_t limit, const std::string& file);

}  // namespace safesubst::detail
