// SPDX-License-Identifier: Apache-2.0
#include "default_words.h"

#include <algorithm>

#include "references.h"

namespace safesubst::detail {

namespace {

// Words inside words: `${A:-${B:-${C:-x}}}`. Deeper is refused, so that a
// crafted template cannot exhaust the stack.
constexpr int kMaxWordDepth = 32;

// Whether `text` ends in what a name written next to it would lengthen: a
// `$` or a bare `$NAME`, not escaped as `$$`.
bool EndsInOpenName(std::string_view text) {
  std::size_t name_start = text.size();
  while (name_start > 0 && IsNameChar(text[name_start - 1])) --name_start;
  if (name_start < text.size() && !IsNameStart(text[name_start])) return false;
  std::size_t dollars = 0;
  while (dollars < name_start && text[name_start - 1 - dollars] == '$') ++dollars;
  return dollars % 2 == 1;
}

}  // namespace

DefaultWordSplicer::DefaultWordSplicer(std::string_view text, Applies applies, bool flux)
    : text_(text), applies_(std::move(applies)), flux_(flux) {}

void DefaultWordSplicer::AppendWordText(std::string_view text, std::string* word) const {
  if (!flux_) {
    word->append(text);
    return;
  }
  for (std::size_t at = 0; at < text.size(); ++at) {
    if (text[at] == '$' && (at + 1 == text.size() || text[at + 1] != '{')) word->push_back('$');
    word->push_back(text[at]);
  }
}

std::string DefaultWordSplicer::Word(const Reference& outer, int depth, std::string* problem) const {
  const std::size_t begin = static_cast<std::size_t>(outer.operand.data() - text_.data());
  const std::size_t end = begin + outer.operand.size();
  std::string word;
  std::size_t copied = begin;
  ScanReferences(
      text_, begin, end,
      [&](const Reference& found) {
        if (TraitsOf(found.kind).use != RefUse::kDefault || !problem->empty()) return;
        Reference inner = found;
        inner.context = outer.context;
        inner.scalar = outer.scalar;
        if (!applies_(inner)) return;
        if (depth >= kMaxWordDepth) {
          *problem = "default words are nested more than " + std::to_string(kMaxWordDepth) + " deep";
          return;
        }
        AppendWordText(text_.substr(copied, inner.offset - copied), &word);
        word += Word(inner, depth + 1, problem);
        copied = inner.offset + inner.length;
      },
      [](std::size_t) {});
  AppendWordText(text_.substr(copied, end - copied), &word);
  return word;
}

std::string DefaultWordSplicer::Splice(const Reference& reference) {
  spliced_.append(text_.substr(copied_, reference.offset - copied_));
  copied_ = reference.offset + reference.length;
  std::string problem;
  const std::string word = Word(reference, 0, &problem);
  const std::string name(reference.name);
  if (problem.empty() && !word.empty() && IsNameChar(word.front()) && EndsInOpenName(spliced_)) {
    problem = "the default word of " + name + " starts with '" + word.front() +
              "', which would join the variable written right before it into another name";
  }
  const char next = copied_ < text_.size() ? text_[copied_] : '\0';
  if (problem.empty() && (IsNameChar(next) || (next == '{' && !word.empty() && word.back() == '$')) &&
      EndsInOpenName(word)) {
    problem = "the default word of " + name + " ends in a variable that the text after it would lengthen";
  }
  edits_.push_back(Edit{reference.offset, copied_, static_cast<std::size_t>(reference.operand.data() - text_.data()),
                        spliced_.size(), spliced_.size() + word.size()});
  spliced_ += word;
  return problem;
}

std::string DefaultWordSplicer::Finish() {
  spliced_.append(text_.substr(copied_));
  copied_ = text_.size();
  spliced_line_starts_.push_back(0);
  for (std::size_t at = spliced_.find('\n'); at != std::string::npos; at = spliced_.find('\n', at + 1)) {
    spliced_line_starts_.push_back(at + 1);
  }
  return spliced_;
}

std::size_t DefaultWordSplicer::OriginalOffset(std::size_t spliced) const {
  auto after = std::upper_bound(edits_.begin(), edits_.end(), spliced,
                                [](std::size_t offset, const Edit& edit) { return offset < edit.spliced; });
  if (after == edits_.begin()) return spliced;
  const Edit& edit = *std::prev(after);
  // Inside a word: its bytes, as far as nested words kept their length.
  if (spliced < edit.spliced_end) return std::min(edit.word + (spliced - edit.spliced), edit.original_end - 1);
  return edit.original_end + (spliced - edit.spliced_end);
}

Location DefaultWordSplicer::MapBack(const Location& location) const {
  std::size_t spliced = location.offset;
  if (location.line > 0 && location.line <= spliced_line_starts_.size()) {
    spliced = spliced_line_starts_[location.line - 1] + (location.column > 0 ? location.column - 1 : 0);
  }
  return LocateOffset(text_, OriginalOffset(spliced), location.file);
}

}  // namespace safesubst::detail
