#include "input_limits.h"

#include <algorithm>
#include <array>
#include <string_view>
#include <vector>

#include "text_checks.h"

namespace safesubst {

namespace {

// Scans YAML text well enough to bound its nesting and count its aliases,
// without building anything: flow brackets, block indentation levels, quoted
// scalars (which may span lines), comments and block scalar bodies. A
// document marker line ends whatever was open (YAML forbids one inside a
// quoted scalar or a flow collection), so each document starts afresh.
class StructureScanner {
 public:
  explicit StructureScanner(std::string_view text) : text_(text) {}

  void Run() {
    std::size_t position = 0;
    while (position < text_.size()) {
      std::size_t end = text_.find('\n', position);
      if (end == std::string_view::npos) end = text_.size();
      ScanLine(position, end);
      position = end + 1;
    }
  }

  std::uint32_t deepest() const { return deepest_; }
  std::size_t deepest_offset() const { return deepest_offset_; }
  std::uint32_t aliases() const { return aliases_; }

 private:
  static bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\r'; }
  static bool IsFlowIndicator(char c) { return c == '[' || c == ']' || c == '{' || c == '}' || c == ','; }
  // The characters ScanLine acts on; all others only extend the current token.
  // A table: this test runs once per byte of the template.
  static constexpr std::array<bool, 256> kSpecial = [] {
    std::array<bool, 256> special{};
    for (unsigned char c : std::string_view("\"'#-?[]{}*|>")) special[c] = true;
    return special;
  }();
  static bool IsSpecial(char c) { return kSpecial[static_cast<unsigned char>(c)]; }

  // True when the character at `i` starts a token: at line start or after
  // white space or a flow indicator.
  bool AtTokenStart(std::size_t line_start, std::size_t i) const {
    if (i == line_start) return true;
    char previous = text_[i - 1];
    return IsSpace(previous) || IsFlowIndicator(previous);
  }

  void Record(std::uint32_t depth, std::size_t offset) {
    if (depth > deepest_) {
      deepest_ = depth;
      deepest_offset_ = offset;
    }
  }

  void ScanLine(std::size_t start, std::size_t end) {
    if (IsDocumentMarkerLine(text_, start)) {
      flow_depth_ = 0;
      quote_ = 0;
      block_scalar_parent_ = -1;
    }
    std::size_t i = start;
    while (i < end && text_[i] == ' ') ++i;
    std::uint32_t indent = static_cast<std::uint32_t>(i - start);
    bool blank = i == end || text_[i] == '#' || text_[i] == '\r';
    if (block_scalar_parent_ >= 0) {
      if (blank || static_cast<std::int64_t>(indent) > block_scalar_parent_) return;
      block_scalar_parent_ = -1;
    }
    if (quote_ == 0 && flow_depth_ == 0 && !blank) {
      while (!indents_.empty() && indents_.back() > indent) indents_.pop_back();
      if (indents_.empty() || indents_.back() < indent) indents_.push_back(indent);
    }
    std::uint32_t compact = 0;  // `- - x` and `? ` open a level each on one line
    for (; i < end; ++i) {
      char c = text_[i];
      // Most characters change nothing: record the depth once for a run of them.
      if (quote_ == 0 && !IsSpecial(c)) {
        Record(static_cast<std::uint32_t>(indents_.size()) + compact + flow_depth_, i);
        while (i + 1 < end && !IsSpecial(text_[i + 1])) ++i;
        continue;
      }
      if (quote_ != 0) {
        i = SkipQuoted(i, end);
        continue;
      }
      if ((c == '"' || c == '\'') && AtTokenStart(start, i)) {
        quote_ = c;
        continue;
      }
      if (c == '#' && AtTokenStart(start, i)) break;
      if ((c == '-' || c == '?') && flow_depth_ == 0 && AtTokenStart(start, i) &&
          (i + 1 == end || IsSpace(text_[i + 1]))) {
        ++compact;
      } else if ((c == '[' || c == '{') && (flow_depth_ > 0 || AtTokenStart(start, i))) {
        ++flow_depth_;
      } else if ((c == ']' || c == '}') && flow_depth_ > 0) {
        --flow_depth_;
      } else if (c == '*' && AtTokenStart(start, i) && i + 1 < end && !IsSpace(text_[i + 1])) {
        ++aliases_;
      } else if ((c == '|' || c == '>') && flow_depth_ == 0 && AtTokenStart(start, i) && OnlyIndicatorsFollow(i + 1, end)) {
        block_scalar_parent_ = indent;
      }
      Record(static_cast<std::uint32_t>(indents_.size()) + compact + flow_depth_, i);
    }
  }

  // Skips quoted text from `i`; returns the index of the closing quote or `end - 1`.
  std::size_t SkipQuoted(std::size_t i, std::size_t end) {
    for (; i < end; ++i) {
      char c = text_[i];
      if (quote_ == '"' && c == '\\') {
        ++i;
      } else if (c == quote_) {
        if (quote_ == '\'' && i + 1 < end && text_[i + 1] == '\'') {
          ++i;
          continue;
        }
        quote_ = 0;
        return i;
      }
    }
    return end - 1;
  }

  // After `|` or `>`: only indentation/chomping indicators, spaces and a comment.
  bool OnlyIndicatorsFollow(std::size_t i, std::size_t end) const {
    for (; i < end; ++i) {
      char c = text_[i];
      if (c == '#') return i > 0 && IsSpace(text_[i - 1]);
      if (!(c == '-' || c == '+' || (c >= '1' && c <= '9') || IsSpace(c))) return false;
    }
    return true;
  }

  std::string_view text_;
  std::vector<std::uint32_t> indents_;
  std::uint32_t flow_depth_ = 0;
  char quote_ = 0;
  std::int64_t block_scalar_parent_ = -1;
  std::uint32_t deepest_ = 0;
  std::size_t deepest_offset_ = 0;
  std::uint32_t aliases_ = 0;
};

std::string Size(std::size_t bytes) { return std::to_string(bytes) + " bytes"; }

// True when the scanner cannot find a depth over `limit`, by a bound cheap
// to compute. Block levels take one indentation column each, so there are at
// most longest line + 1; the `- `/`? ` levels of one line take two bytes
// each (they can add to levels of earlier lines when the line starts inside
// a quote or a flow collection); a flow level takes an opening bracket of
// the same document, as the scanner starts each document from zero.
bool DepthSurelyWithin(std::string_view text, std::size_t limit) {
  std::size_t longest = 0, most_brackets = 0, document_start = 0;
  auto end_document = [&](std::size_t end) {
    const std::string_view document = text.substr(document_start, end - document_start);
    most_brackets = std::max(most_brackets, CountRareByte(document, '[', limit) + CountRareByte(document, '{', limit));
    document_start = end;
  };
  for (std::size_t line = 0; line < text.size();) {
    if (line > 0 && IsDocumentMarkerLine(text, line)) end_document(line);
    std::size_t end = text.find('\n', line);
    if (end == std::string_view::npos) end = text.size();
    longest = std::max(longest, end - line);
    line = end + 1;
  }
  end_document(text.size());
  const std::size_t block_levels = longest + 1 + (longest + 1) / 2;
  return block_levels < limit && most_brackets <= limit - block_levels;
}

}  // namespace

std::uint32_t NestingDepth(std::string_view text, std::size_t* deepest_offset) {
  StructureScanner scanner(text);
  scanner.Run();
  if (deepest_offset != nullptr) *deepest_offset = scanner.deepest_offset();
  return scanner.deepest();
}

std::uint32_t CountAliases(std::string_view text) {
  StructureScanner scanner(text);
  scanner.Run();
  return scanner.aliases();
}

Diagnostics CheckInputLimits(std::string_view text, const Limits& limits, const std::string& file) {
  Diagnostics errors;
  if (text.size() > limits.max_input_bytes) {
    errors.push_back(MakeError(Location{file}, "input is " + Size(text.size()) + ", over the limit of " +
                                                   Size(limits.max_input_bytes),
                               "raise it with --max-input-size"));
    return errors;
  }
  // Most templates are far from both limits: no need to scan them.
  if (CountRareByte(text, '*', limits.max_aliases) <= limits.max_aliases && DepthSurelyWithin(text, limits.max_depth)) {
    return errors;
  }
  StructureScanner scanner(text);
  scanner.Run();
  if (scanner.deepest() > limits.max_depth) {
    errors.push_back(MakeError(LocateOffset(text, scanner.deepest_offset(), file),
                               "nesting depth " + std::to_string(scanner.deepest()) + " exceeds the limit of " +
                                   std::to_string(limits.max_depth),
                               "raise it with --max-depth"));
  }
  if (scanner.aliases() > limits.max_aliases) {
    errors.push_back(MakeError(Location{file}, std::to_string(scanner.aliases()) +
                                                   " aliases exceed the limit of " + std::to_string(limits.max_aliases),
                               "raise it with --max-aliases"));
  }
  return errors;
}

}  // namespace safesubst
