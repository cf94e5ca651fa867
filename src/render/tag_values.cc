// SPDX-License-Identifier: Apache-2.0
#include "tag_values.h"

#include <algorithm>

#include "references.h"

namespace safesubst {

namespace {

// Whether `offset` lies inside one of `spans` (each with offset and length,
// in source order).
template <typename Span>
bool Inside(const std::vector<Span>& spans, std::size_t offset) {
  auto after = std::upper_bound(spans.begin(), spans.end(), offset,
                                [](std::size_t at, const Span& span) { return at < span.offset; });
  return after != spans.begin() && offset < std::prev(after)->offset + std::prev(after)->length;
}

class TagChecker {
 public:
  TagChecker(std::string_view text, const Manifest& manifest, const std::string& file, Diagnostics* out)
      : text_(text), manifest_(manifest), file_(file), out_(*out) {}

  // Reports the declared references in text_[begin, end), which is `what`.
  void Check(std::size_t begin, std::size_t end, std::string_view what) {
    ScanReferences(
        text_, begin, end,
        [&](const Reference& reference) {
          if (!TraitsOf(reference.kind).WritesValue() || manifest_.Find(reference.name) == nullptr) return;
          out_.push_back(MakeError(LocateOffset(text_, reference.offset, file_),
                                   "'" + std::string(text_.substr(reference.offset, reference.length)) +
                                       "' is in " + std::string(what) + ", where no value is substituted",
                                   "a tag is not a place for a value: write the tag in full, and the "
                                   "value in the node after it"));
        },
        [](std::size_t) {});
  }

 private:
  std::string_view text_;
  const Manifest& manifest_;
  const std::string& file_;
  Diagnostics& out_;
};

}  // namespace

Diagnostics CheckNoValuesInTags(std::string_view text, const Tokens& tokens, const Manifest& manifest,
                                const std::string& file) {
  Diagnostics out;
  if (manifest.variables.empty()) return out;
  TagChecker checker(text, manifest, file, &out);
  for (const Marker& marker : tokens.markers) {
    if (marker.kind != Marker::Kind::kDirective) continue;
    if (text.substr(marker.offset, 4) == "%TAG") checker.Check(marker.offset, marker.offset + marker.length, "a %TAG directive");
  }
  for (std::size_t at = text.find("!<"); at != std::string_view::npos; at = text.find("!<", at + 2)) {
    if (Inside(tokens.scalars, at) || Inside(tokens.comments, at)) continue;
    std::size_t end = at + 2;
    while (end < text.size() && text[end] != '>' && text[end] != '\n' && text[end] != '\r') ++end;
    checker.Check(at, end, "a verbatim tag");
  }
  return out;
}

}  // namespace safesubst
