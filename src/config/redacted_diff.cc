// SPDX-License-Identifier: Apache-2.0
#include "redacted_diff.h"

#include <algorithm>
#include <optional>

#include "text_diff.h"

namespace safesubst {

namespace {

std::string_view WithoutNewline(std::string_view line) {
  if (!line.empty() && line.back() == '\n') line.remove_suffix(1);
  return line;
}

class DiffRedaction {
 public:
  DiffRedaction(std::string_view after, const std::vector<TextRange>& secrets, const Redactor& redactor,
                bool before_is_template)
      : after_(after), secrets_(secrets), redactor_(redactor), before_redactor_(redactor),
        before_is_template_(before_is_template) {
    // The same secret, written the same way, in the file as it is now.
    for (const auto& [begin, end] : secrets) before_redactor_.AddSecret(after.substr(begin, end - begin));
  }

  std::string Show(const DiffLine& line) const {
    const std::string_view text = WithoutNewline(line.text);
    std::vector<TextRange> ranges;
    if (line.kind == '-') {
      ranges = before_redactor_.Ranges(text);
      const auto replaced = before_is_template_ ? std::nullopt : ReplacedSecret(text, WithoutNewline(line.pair));
      if (replaced) ranges.push_back(*replaced);
    } else {
      ranges = redactor_.Ranges(text);
      const std::vector<TextRange> spans = SecretsOn(text);
      ranges.insert(ranges.end(), spans.begin(), spans.end());
    }
    return MaskRanges(text, MergedRanges(std::move(ranges)));
  }

 private:
  // The parts of `line` (a line of after_) that the secrets cover; a secret
  // continued from the line above covers it from its indentation on.
  std::vector<TextRange> SecretsOn(std::string_view line) const {
    std::vector<TextRange> on_line;
    if (line.empty()) return on_line;
    const std::size_t start = static_cast<std::size_t>(line.data() - after_.data()), end = start + line.size();
    const std::size_t indented = start + std::min(line.find_first_not_of(" \t"), line.size());
    auto secret = std::lower_bound(secrets_.begin(), secrets_.end(), start,
                                   [](const TextRange& range, std::size_t at) { return range.second <= at; });
    for (; secret != secrets_.end() && secret->first < end; ++secret) {
      const std::size_t begin = secret->first < start ? indented : secret->first;
      const std::size_t stop = std::min(secret->second, end);
      if (begin < stop) on_line.emplace_back(begin - start, stop - start);
    }
    return on_line;
  }

  // For a removed line replaced by `added` (a line of after_) that holds a
  // secret: the part of `removed` that differs from it, widened to where
  // its secrets would stand, which may be an older secret.
  std::optional<TextRange> ReplacedSecret(std::string_view removed, std::string_view added) const {
    if (added.empty()) return std::nullopt;
    const std::vector<TextRange> secrets = SecretsOn(added);
    if (secrets.empty()) return std::nullopt;
    const std::size_t shorter = std::min(removed.size(), added.size());
    std::size_t prefix = 0, suffix = 0;
    while (prefix < shorter && removed[prefix] == added[prefix]) ++prefix;
    while (suffix < shorter - prefix && removed[removed.size() - 1 - suffix] == added[added.size() - 1 - suffix]) {
      ++suffix;
    }
    const std::size_t begin = std::min({prefix, secrets.front().first, removed.size()});
    const std::size_t kept_end = std::min(suffix, added.size() - secrets.back().second);
    const std::size_t end = std::max(begin, removed.size() - std::min(kept_end, removed.size()));
    if (begin == end) return std::nullopt;
    return TextRange{begin, end};
  }

  std::string_view after_;
  const std::vector<TextRange>& secrets_;
  const Redactor& redactor_;
  Redactor before_redactor_;
  const bool before_is_template_;
};

}  // namespace

std::string RedactedDiff(std::string_view before, std::string_view after, std::string_view before_name,
                         std::string_view after_name, const std::vector<TextRange>& after_secrets,
                         const Redactor& redactor, bool before_is_template) {
  const DiffRedaction redaction(after, after_secrets, redactor, before_is_template);
  return UnifiedDiff(before, after, before_name, after_name, 3,
                     [&](const DiffLine& line) { return redaction.Show(line); });
}

}  // namespace safesubst
