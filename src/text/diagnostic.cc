// SPDX-License-Identifier: Apache-2.0
#include "safesubst/diagnostic.h"

#include <algorithm>

#include "diagnostic_format.h"

namespace safesubst {

bool HasErrors(const Diagnostics& diagnostics) {
  return std::any_of(diagnostics.begin(), diagnostics.end(),
                     [](const Diagnostic& d) { return d.severity == Severity::kError; });
}

Diagnostic MakeError(Location location, std::string message, std::string hint) {
  return Diagnostic{Severity::kError, std::move(location), std::move(message), std::move(hint)};
}

Diagnostic MakeWarning(Location location, std::string message, std::string hint) {
  return Diagnostic{Severity::kWarning, std::move(location), std::move(message), std::move(hint)};
}

Location LocateOffset(std::string_view text, std::size_t offset, std::string file) {
  offset = std::min(offset, text.size());
  Location location{std::move(file), 1, 1, offset};
  std::size_t line_start = 0;
  for (std::size_t i = 0; i < offset; ++i) {
    if (text[i] == '\n') {
      ++location.line;
      line_start = i + 1;
    }
  }
  location.column = static_cast<std::uint32_t>(offset - line_start + 1);
  return location;
}

std::string_view SeverityName(Severity severity) {
  switch (severity) {
    case Severity::kError: return "error";
    case Severity::kWarning: return "warning";
    case Severity::kNote: return "note";
  }
  return "error";
}

namespace {

std::string_view SeverityColor(Severity severity) {
  switch (severity) {
    case Severity::kError: return "\033[1;31m";
    case Severity::kWarning: return "\033[1;35m";
    case Severity::kNote: return "\033[1;36m";
  }
  return "";
}

// `text` without the carriage return of a CRLF line break.
std::string_view WithoutCarriageReturn(std::string_view text) {
  if (!text.empty() && text.back() == '\r') text.remove_suffix(1);
  return text;
}

// The text of the 1-based `line` of `source`, without its line break.
std::string_view SourceLine(std::string_view source, std::uint32_t line) {
  std::size_t start = 0;
  for (std::uint32_t current = 1; current < line; ++current) {
    std::size_t newline = source.find('\n', start);
    if (newline == std::string_view::npos) return {};
    start = newline + 1;
  }
  std::size_t end = source.find('\n', start);
  return WithoutCarriageReturn(source.substr(start, end == std::string_view::npos ? source.npos : end - start));
}

// A long source line is shown as a window around the column: a minified
// 1 MB line with thousands of diagnostics would otherwise be copied into each.
constexpr std::size_t kMaxSnippet = 160;

// Appends the source line (or its window) and the caret line under `column`.
void AppendSnippet(std::string_view line, std::uint32_t column, bool color, std::string* out) {
  std::size_t caret = column > 0 ? column - 1 : 0;
  std::string_view before, after;
  if (line.size() > kMaxSnippet) {
    const std::size_t start = caret > kMaxSnippet / 2 ? std::min(caret - kMaxSnippet / 2, line.size() - kMaxSnippet) : 0;
    if (start > 0) before = "...";
    if (start + kMaxSnippet < line.size()) after = "...";
    line = line.substr(start, kMaxSnippet);
    caret -= std::min(caret, start);
  }
  *out += "  ";
  *out += before;
  *out += line;
  *out += after;
  *out += "\n  ";
  out->append(before.size(), ' ');
  // Keep tabs in the caret line so the caret lines up under tabbed source.
  for (std::size_t i = 0; i < caret && i < line.size(); ++i) *out += line[i] == '\t' ? '\t' : ' ';
  if (color) *out += "\033[1;32m";
  *out += '^';
  if (color) *out += "\033[0m";
  *out += '\n';
}

}  // namespace

std::string FormatDiagnosticAt(const Diagnostic& diagnostic, std::string_view line, std::uint32_t caret_column,
                               bool color) {
  const Location& at = diagnostic.location;
  std::string out;
  if (color) out += "\033[1m";
  out += at.file.empty() ? "safesubst" : at.file;
  if (at.line > 0) {
    out += ':' + std::to_string(at.line);
    if (at.column > 0) out += ':' + std::to_string(at.column);
  }
  out += ": ";
  if (color) out += "\033[0m";
  if (color) out += SeverityColor(diagnostic.severity);
  out += SeverityName(diagnostic.severity);
  out += ':';
  if (color) out += "\033[0m";
  out += ' ';
  out += diagnostic.message;
  out += '\n';
  if (!line.empty()) AppendSnippet(line, caret_column, color, &out);
  if (!diagnostic.hint.empty()) {
    out += "  hint: ";
    out += diagnostic.hint;
    out += '\n';
  }
  return out;
}

SourceText::SourceText(std::string text) : text_(std::move(text)) {
  line_starts_.push_back(0);
  for (std::size_t at = text_.find('\n'); at != std::string::npos; at = text_.find('\n', at + 1)) {
    line_starts_.push_back(at + 1);
  }
}

std::string_view SourceText::Line(std::uint32_t line) const {
  if (line == 0 || line > line_starts_.size()) return {};
  const std::size_t start = line_starts_[line - 1];
  const std::size_t end = line < line_starts_.size() ? line_starts_[line] - 1 : text_.size();
  return WithoutCarriageReturn(std::string_view(text_).substr(start, end - start));
}

Location SourceText::Locate(std::size_t offset, std::string file) const {
  offset = std::min(offset, text_.size());
  const auto after = std::upper_bound(line_starts_.begin(), line_starts_.end(), offset);
  const auto line = static_cast<std::size_t>(after - line_starts_.begin());  // 1-based
  return Location{std::move(file), static_cast<std::uint32_t>(line),
                  static_cast<std::uint32_t>(offset - line_starts_[line - 1] + 1), offset};
}

std::string FormatDiagnostic(const Diagnostic& diagnostic, std::string_view source, bool color) {
  const std::uint32_t line = diagnostic.location.line;
  return FormatDiagnosticAt(diagnostic, line > 0 ? SourceLine(source, line) : std::string_view{},
                            diagnostic.location.column, color);
}

std::string FormatDiagnostic(const Diagnostic& diagnostic, const SourceText& source, bool color) {
  return FormatDiagnosticAt(diagnostic, source.Line(diagnostic.location.line), diagnostic.location.column, color);
}

}  // namespace safesubst
