// SPDX-License-Identifier: Apache-2.0
#include "redaction.h"

#include <algorithm>

#include "diagnostic_format.h"
#include "yaml_encoding.h"
#include "yaml_load.h"
#include "yaml_tree.h"

namespace safesubst {

namespace {

using detail::YamlNode;
using detail::YamlStream;

bool IsWordChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

bool IsBlank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

std::string_view Trimmed(std::string_view text) {
  while (!text.empty() && IsBlank(text.front())) text.remove_prefix(1);
  while (!text.empty() && IsBlank(text.back())) text.remove_suffix(1);
  return text;
}

// A plain scalar that is no secret worth a mask and a word of many
// messages: a boolean or null ("must be true or false"), a short number
// ("line 2").
bool IsPlainConstant(const YamlNode& node) {
  if (node.tag != "?") return false;
  switch (ResolvePlain(node.text)) {
    case PlainKind::kNull:
    case PlainKind::kBool: return true;
    case PlainKind::kInt:
    case PlainKind::kFloat: return node.text.size() < Redactor::kMinSubstring;
    default: return false;
  }
}

// Index of the last node of the subtree at `index` (nodes are stored in
// document order, each collection before its children).
std::uint32_t SubtreeEnd(const YamlStream& stream, std::uint32_t index) {
  const YamlNode& node = stream.nodes[index];
  return node.children.empty() ? index : SubtreeEnd(stream, node.children.back());
}

// The value of the entry `key` in mapping `map`, or none.
std::vector<std::uint32_t> ValuesOf(const YamlStream& stream, const YamlNode& map, std::string_view key) {
  std::vector<std::uint32_t> values;
  if (map.kind != YamlNode::Kind::kMapping) return values;
  for (std::size_t i = 0; i + 1 < map.children.size(); i += 2) {
    const YamlNode& entry_key = stream.nodes[map.children[i]];
    if (entry_key.kind == YamlNode::Kind::kScalar && entry_key.text == key) {
      values.push_back(detail::ResolveAlias(stream, map.children[i + 1]));
    }
  }
  return values;
}

// `sensitive:` with any value but false (a misspelt `yes` is an error that
// should not show the default either).
bool MarkedSensitive(const YamlStream& stream, const YamlNode& settings) {
  for (std::uint32_t value : ValuesOf(stream, settings, "sensitive")) {
    const YamlNode& node = stream.nodes[value];
    if (!(node.kind == YamlNode::Kind::kScalar && (node.text == "false" || node.text == "False" ||
                                                   node.text == "FALSE"))) {
      return true;
    }
  }
  return false;
}

using Range = TextRange;

}  // namespace

std::vector<TextRange> MergedRanges(std::vector<TextRange> ranges) {
  std::sort(ranges.begin(), ranges.end());
  std::vector<Range> merged;
  for (const Range& range : ranges) {
    if (!merged.empty() && range.first <= merged.back().second) {
      merged.back().second = std::max(merged.back().second, range.second);
    } else {
      merged.push_back(range);
    }
  }
  return merged;
}

namespace {

// Where `word` is in `text` as a whole word: no word character on either side.
bool IsWholeWord(std::string_view text, std::size_t at, std::size_t size) {
  return (at == 0 || !IsWordChar(text[at - 1])) && (at + size >= text.size() || !IsWordChar(text[at + size]));
}

}  // namespace

void Redactor::AddPiece(std::string_view piece) {
  if (!piece.empty()) pieces_.emplace(piece);
}

void Redactor::AddTextAndLines(std::string_view text) {
  AddPiece(text);
  if (text.find('\n') == std::string_view::npos) return;
  for (std::size_t start = 0; start <= text.size();) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    AddPiece(Trimmed(text.substr(start, end - start)));
    start = end + 1;
  }
}

void Redactor::AddSecret(std::string_view value) {
  AddTextAndLines(value);
  YamlStream stream;
  detail::YamlParseError error;
  if (!detail::ParseYamlStream(value, &stream, &error)) return;
  for (const YamlNode& node : stream.nodes) {
    if (node.kind == YamlNode::Kind::kScalar && !IsPlainConstant(node)) AddTextAndLines(node.text);
  }
}

void Redactor::AddValuesFile(std::string_view text, const Manifest& manifest) {
  YamlStream stream;
  detail::YamlParseError error;
  if (!detail::ParseYamlStream(text, &stream, &error) || stream.documents.empty()) return;
  const YamlNode& root = stream.nodes[detail::ResolveAlias(stream, stream.documents[0])];
  for (const Variable& variable : manifest.variables) {
    if (!variable.sensitive) continue;
    for (std::uint32_t value : ValuesOf(stream, root, variable.name)) {
      for (std::uint32_t i = value; i <= SubtreeEnd(stream, value); ++i) {
        const YamlNode& node = stream.nodes[i];
        if (node.kind == YamlNode::Kind::kScalar && (i == value || !IsPlainConstant(node))) AddTextAndLines(node.text);
      }
    }
  }
}

void Redactor::AddManifest(std::string_view text, const std::string& file) {
  if (text.find("sensitive") == std::string_view::npos) return;
  YamlStream stream;
  detail::YamlParseError error;
  if (!detail::ParseYamlStream(text, &stream, &error)) {
    HideFile(file);
    return;
  }
  if (stream.documents.empty()) return;
  const YamlNode& root = stream.nodes[detail::ResolveAlias(stream, stream.documents[0])];
  for (std::uint32_t variables : ValuesOf(stream, root, "variables")) {
    const YamlNode& map = stream.nodes[variables];
    if (map.kind != YamlNode::Kind::kMapping) continue;
    for (std::size_t i = 1; i < map.children.size(); i += 2) {
      const YamlNode& settings = stream.nodes[detail::ResolveAlias(stream, map.children[i])];
      if (!MarkedSensitive(stream, settings)) continue;
      for (std::uint32_t value : ValuesOf(stream, settings, "default")) {
        const std::uint32_t last = SubtreeEnd(stream, value);
        for (std::uint32_t n = value; n <= last; ++n) {
          const YamlNode& node = stream.nodes[n];
          if (node.kind == YamlNode::Kind::kScalar && (n == value || !IsPlainConstant(node))) {
            AddTextAndLines(node.text);
          }
        }
        // The default's bytes run to the next node; what follows the value
        // itself (blanks, a comment, flow closers) may go with it.
        const std::size_t begin = stream.nodes[value].offset;
        std::size_t end = last + 1 < stream.nodes.size() ? stream.nodes[last + 1].offset : text.size();
        end = std::max(begin, std::min(end, text.size()));
        while (end > begin && (IsBlank(text[end - 1]) || text[end - 1] == ',' || text[end - 1] == '}' ||
                               text[end - 1] == ']')) {
          --end;
        }
        if (end > begin) spans_[file].emplace_back(begin, end);
      }
    }
  }
}

void Redactor::AddValues(const Manifest& manifest, const ValueSet& values) {
  for (const Variable& variable : manifest.variables) {
    if (!variable.sensitive) continue;
    if (variable.default_value) AddSecret(*variable.default_value);
    if (const Value* value = values.Find(variable.name)) AddSecret(value->text);
  }
}

void Redactor::HideFile(const std::string& file) { hidden_.insert(file); }

std::vector<Redactor::Range> Redactor::Matches(std::string_view text) const {
  std::vector<Range> found;
  for (const std::string& piece : pieces_) {
    for (std::size_t at = text.find(piece); at != std::string_view::npos; at = text.find(piece, at + 1)) {
      if (piece.size() >= kMinSubstring || IsWholeWord(text, at, piece.size())) {
        found.emplace_back(at, at + piece.size());
      }
    }
  }
  return MergedRanges(std::move(found));
}

namespace {

// `text` with `ranges` (sorted, disjoint) replaced by kMasked; `*column`
// (1-based, 0 for none) follows its byte, onto the mask that covers it.
std::string Replace(std::string_view text, const std::vector<Range>& ranges,
                    std::uint32_t* column = nullptr) {
  std::string out;
  std::size_t done = 0;
  const std::size_t caret = column != nullptr && *column > 0 ? *column - 1 : std::string_view::npos;
  std::size_t new_caret = caret;
  for (const auto& [begin, end] : ranges) {
    out.append(text.substr(done, begin - done));
    if (caret != std::string_view::npos && caret >= done && caret < begin) new_caret = out.size() - (begin - caret);
    if (caret != std::string_view::npos && caret >= begin && caret < end) new_caret = out.size();
    out += kMasked;
    done = end;
  }
  if (caret != std::string_view::npos && caret >= done) new_caret = out.size() + (caret - done);
  out.append(text.substr(std::min(done, text.size())));
  if (caret != std::string_view::npos) *column = static_cast<std::uint32_t>(new_caret + 1);
  return out;
}

}  // namespace

std::string MaskRanges(std::string_view text, const std::vector<TextRange>& ranges) { return Replace(text, ranges); }

std::string Redactor::Mask(std::string_view text) const {
  if (pieces_.empty()) return std::string(text);
  return Replace(text, Matches(text));
}

std::string Redactor::MaskFragments(std::string_view text) const {
  std::string masked = Mask(text);
  std::vector<Range> fragments;
  constexpr std::string_view kBefore = "'\"`(", kAfter = "'\"`),.:;";
  for (std::size_t start = 0; start < masked.size();) {
    while (start < masked.size() && IsBlank(masked[start])) ++start;
    std::size_t end = start;
    while (end < masked.size() && !IsBlank(masked[end])) ++end;
    std::size_t begin = start;
    std::size_t stop = end;
    while (begin < stop && kBefore.find(masked[begin]) != std::string_view::npos) ++begin;
    while (stop > begin && kAfter.find(masked[stop - 1]) != std::string_view::npos) --stop;
    const std::string_view word = std::string_view(masked).substr(begin, stop - begin);
    if (word.size() >= 3 && word != kMasked) {
      const bool in_secret = std::any_of(pieces_.begin(), pieces_.end(), [word](const std::string& piece) {
        return piece.find(word) != std::string::npos;
      });
      if (in_secret) fragments.emplace_back(begin, stop);
    }
    start = end;
  }
  return Replace(masked, fragments);
}

Diagnostic Redactor::Mask(Diagnostic diagnostic) const {
  diagnostic.message = Mask(diagnostic.message);
  diagnostic.hint = Mask(diagnostic.hint);
  return diagnostic;
}

Redactor::ShownLine Redactor::Line(const std::string& file, const SourceText& source, std::uint32_t line,
                                   std::uint32_t column) const {
  if (hidden_.count(file) > 0) return ShownLine{{}, column};
  const std::string_view text = source.Line(line);
  std::vector<Range> ranges = Matches(text);
  if (auto spans = spans_.find(file); spans != spans_.end() && !text.empty()) {
    const std::size_t line_start = static_cast<std::size_t>(text.data() - source.text().data());
    // A span continued from the line above masks this one from its indentation on.
    const std::size_t indented = line_start + std::min(text.find_first_not_of(" \t"), text.size());
    for (const auto& [begin, end] : spans->second) {
      if (end <= indented || begin >= line_start + text.size()) continue;
      ranges.emplace_back(std::max(begin, indented) - line_start, std::min(end, line_start + text.size()) - line_start);
    }
    ranges = MergedRanges(std::move(ranges));
  }
  ShownLine shown{{}, column};
  shown.text = Replace(text, ranges, &shown.column);
  return shown;
}

std::string FormatDiagnostic(const Diagnostic& diagnostic, const SourceText& source, bool color,
                             const Redactor& redactor) {
  const Redactor::ShownLine line =
      redactor.Line(diagnostic.location.file, source, diagnostic.location.line, diagnostic.location.column);
  return FormatDiagnosticAt(redactor.Mask(diagnostic), line.text, line.column, color);
}

}  // namespace safesubst
