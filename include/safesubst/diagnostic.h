// SPDX-License-Identifier: Apache-2.0
// Diagnostics: located messages produced by every stage of the pipeline.
//
// The library never prints and never exits; it returns diagnostics as values and
// the caller (the CLI, or a tool linking the library) decides how to show them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "safesubst/export.h"

namespace safesubst {

/// A position in a source text. `line` and `column` are 1-based (0 means
/// "unknown"); columns count bytes, as GCC does. `offset` is 0-based.
struct Location {
  std::string file;
  std::uint32_t line = 0;
  std::uint32_t column = 0;
  std::size_t offset = 0;
};

enum class Severity : std::uint8_t { kError, kWarning, kNote };

/// "error", "warning" or "note", as diagnostics and reports spell it.
SAFESUBST_API std::string_view SeverityName(Severity severity);

/// One message about one place in one input.
struct Diagnostic {
  Severity severity = Severity::kError;
  Location location;
  std::string message;
  /// What the user can do about it; may be empty.
  std::string hint;
  /// A note that stands for the diagnostics of one input left out past
  /// Limits::max_errors (CapDiagnostics): how many errors, and how many
  /// warnings and notes. 0 in every other diagnostic.
  std::size_t omitted_errors = 0;
  std::size_t omitted_others = 0;
};

/// How many errors, and how many warnings and notes, of one input are kept
/// by default (Limits::max_errors, --max-errors): a template with millions of
/// syntax errors would otherwise hold gigabytes of messages, and the first
/// ones are those worth reading.
inline constexpr std::size_t kDefaultMaxErrors = 50;

using Diagnostics = std::vector<Diagnostic>;

/// True when any diagnostic in `diagnostics` is an error.
SAFESUBST_API bool HasErrors(const Diagnostics& diagnostics);

/// Builds an error diagnostic; a small convenience used all over the library.
SAFESUBST_API Diagnostic MakeError(Location location, std::string message, std::string hint = {});
SAFESUBST_API Diagnostic MakeWarning(Location location, std::string message, std::string hint = {});

/// Computes the 1-based line and column of `offset` in `text`.
SAFESUBST_API Location LocateOffset(std::string_view text, std::size_t offset, std::string file = {});

/// A source text with the start of each of its lines, so that formatting
/// many diagnostics about one large text finds each line in constant time.
class SAFESUBST_API SourceText {
 public:
  SourceText() = default;
  explicit SourceText(std::string text);
  /// The 1-based `line` without its line break; empty when there is none.
  std::string_view Line(std::uint32_t line) const;
  /// LocateOffset(text(), offset, file), found by binary search.
  Location Locate(std::size_t offset, std::string file = {}) const;
  const std::string& text() const { return text_; }

 private:
  std::string text_;
  std::vector<std::size_t> line_starts_;
};

/// Formats a diagnostic the way GCC does:
///   file:line:col: error: message
///     source line
///          ^
///   hint: ...
/// `source` is the text the location points into (may be empty: then no snippet).
/// With `color`, severity words are wrapped in ANSI colors.
SAFESUBST_API std::string FormatDiagnostic(const Diagnostic& diagnostic, std::string_view source, bool color);
/// The same, for many diagnostics about one text.
SAFESUBST_API std::string FormatDiagnostic(const Diagnostic& diagnostic, const SourceText& source, bool color);

/// A value or the diagnostics that explain why there is none: what every
/// call of the library that can fail returns (ParseManifest, CollectValues,
/// ApplySteps, Lint, SurveyTemplates...). A render returns the same shape,
/// RenderResult (render.h): the same diagnostics and ok(), and in place of the
/// optional value the output, empty when the render failed, and the reports
/// of the references, filled either way (to explain a failed render). Errors
/// cross the library boundary as values, never as exceptions.
template <typename T>
struct Result {
  std::optional<T> value;
  Diagnostics diagnostics;

  bool ok() const { return value.has_value() && !HasErrors(diagnostics); }
};

}  // namespace safesubst
