// SPDX-License-Identifier: Apache-2.0
#include "yaml_path.h"

#include <charconv>

namespace safesubst::detail {
namespace {

bool IsKeyByte(char c) {
  switch (c) {
    case '.': case '[': case ']': case '=': case '"': case '\'':
    case ' ': case '\t': case '\r': case '\n':
      return false;
    default:
      return true;
  }
}

// A recursive-descent parser over the path text; `pos_` is 0-based.
class PathParser {
 public:
  explicit PathParser(std::string_view text) : text_(text) {}

  bool Parse(YamlPath* path, PathError* error) {
    path->text = std::string(text_);
    path->selectors.clear();
    if (text_.empty()) return Fail(0, "the path is empty; use `.` for the document root", error);
    if (text_ == ".") return true;
    while (pos_ < text_.size()) {
      PathSelector selector;
      selector.column = Column(pos_);
      if (text_[pos_] == '.') {
        ++pos_;
        if (!ParseKey(&selector.key, "a key after `.`", error)) return false;
        selector.kind = PathSelector::Kind::kKey;
      } else if (text_[pos_] == '[') {
        ++pos_;
        if (!ParseBracket(&selector, error)) return false;
      } else {
        return Fail(pos_, "expected `.key` or `[...]`, found `" + std::string(1, text_[pos_]) + "`", error);
      }
      path->selectors.push_back(std::move(selector));
    }
    return true;
  }

 private:
  static std::uint32_t Column(std::size_t pos) { return static_cast<std::uint32_t>(pos + 1); }

  bool Fail(std::size_t pos, std::string message, PathError* error) const {
    error->column = Column(pos);
    error->message = std::move(message);
    return false;
  }

  // A plain run of key bytes or a quoted string; `what` names it in errors.
  bool ParseKey(std::string* key, std::string_view what, PathError* error) {
    if (pos_ < text_.size() && (text_[pos_] == '"' || text_[pos_] == '\'')) return ParseQuoted(key, error);
    const std::size_t start = pos_;
    while (pos_ < text_.size() && IsKeyByte(text_[pos_])) ++pos_;
    if (pos_ == start) {
      if (pos_ == text_.size()) return Fail(pos_, "expected " + std::string(what) + ", found the end of the path", error);
      return Fail(pos_, "expected " + std::string(what) + ", found `" + std::string(1, text_[pos_]) + "`", error);
    }
    key->assign(text_.substr(start, pos_ - start));
    return true;
  }

  bool ParseQuoted(std::string* out, PathError* error) {
    const char quote = text_[pos_];
    const std::size_t open = pos_++;
    out->clear();
    while (pos_ < text_.size()) {
      char c = text_[pos_++];
      if (c == quote) {
        if (quote == '\'' && pos_ < text_.size() && text_[pos_] == '\'') {
          out->push_back('\'');
          ++pos_;
          continue;
        }
        return true;
      }
      if (quote == '"' && c == '\\') {
        if (pos_ == text_.size()) break;
        char escaped = text_[pos_];
        if (escaped != '"' && escaped != '\\') {
          return Fail(pos_ - 1, "only \\\" and \\\\ escapes are allowed in a quoted key", error);
        }
        out->push_back(escaped);
        ++pos_;
        continue;
      }
      out->push_back(c);
    }
    return Fail(open, "the quoted key that starts here is not closed", error);
  }

  // After `[`: `*]`, `N]` or `key=value]`.
  bool ParseBracket(PathSelector* selector, PathError* error) {
    if (pos_ < text_.size() && text_[pos_] == '*') {
      ++pos_;
      selector->kind = PathSelector::Kind::kAll;
      return ExpectClose(error);
    }
    if (pos_ < text_.size() && (text_[pos_] == '-' || (text_[pos_] >= '0' && text_[pos_] <= '9'))) {
      return ParseIndex(selector, error);
    }
    selector->kind = PathSelector::Kind::kMatch;
    if (!ParseKey(&selector->key, "`*`, an index or `key=value` inside `[...]`", error)) return false;
    if (pos_ >= text_.size() || text_[pos_] != '=') {
      return Fail(pos_, "expected `=` after the key in `[key=value]`", error);
    }
    ++pos_;
    if (pos_ < text_.size() && (text_[pos_] == '"' || text_[pos_] == '\'')) {
      if (!ParseQuoted(&selector->value, error)) return false;
    } else {
      const std::size_t start = pos_;
      while (pos_ < text_.size() && text_[pos_] != ']' && text_[pos_] != '[') ++pos_;
      if (pos_ == start) return Fail(pos_, "expected a value after `=` in `[key=value]`", error);
      selector->value.assign(text_.substr(start, pos_ - start));
    }
    return ExpectClose(error);
  }

  bool ParseIndex(PathSelector* selector, PathError* error) {
    const std::size_t start = pos_;
    if (text_[pos_] == '-') ++pos_;
    while (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9') ++pos_;
    std::string_view digits = text_.substr(start, pos_ - start);
    std::int64_t index = 0;
    auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), index);
    if (ec != std::errc() || end != digits.data() + digits.size()) {
      return Fail(start, "`" + std::string(digits) + "` is not a valid index", error);
    }
    selector->kind = PathSelector::Kind::kIndex;
    selector->index = index;
    return ExpectClose(error);
  }

  bool ExpectClose(PathError* error) {
    if (pos_ < text_.size() && text_[pos_] == ']') {
      ++pos_;
      return true;
    }
    if (pos_ == text_.size()) return Fail(pos_, "expected `]`, found the end of the path", error);
    return Fail(pos_, "expected `]`, found `" + std::string(1, text_[pos_]) + "`", error);
  }

  std::string_view text_;
  std::size_t pos_ = 0;
};

bool NeedsQuotes(std::string_view key) {
  if (key.empty()) return true;
  for (char c : key) {
    if (!IsKeyByte(c)) return true;
  }
  return false;
}

std::string DoubleQuote(std::string_view text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') out.push_back('\\');
    out.push_back(c);
  }
  out.push_back('"');
  return out;
}

std::string QuoteKey(std::string_view key) { return NeedsQuotes(key) ? DoubleQuote(key) : std::string(key); }

}  // namespace

bool ParseYamlPath(std::string_view text, YamlPath* path, PathError* error) {
  return PathParser(text).Parse(path, error);
}

std::string FormatSelector(const PathSelector& selector) {
  switch (selector.kind) {
    case PathSelector::Kind::kKey: return "." + QuoteKey(selector.key);
    case PathSelector::Kind::kIndex: return "[" + std::to_string(selector.index) + "]";
    case PathSelector::Kind::kAll: return "[*]";
    case PathSelector::Kind::kMatch: {
      const bool plain_value =
          !selector.value.empty() && selector.value.find_first_of("[]\"'") == std::string::npos;
      return "[" + QuoteKey(selector.key) + "=" + (plain_value ? selector.value : DoubleQuote(selector.value)) + "]";
    }
  }
  return {};
}

std::string FormatYamlPath(const std::vector<PathSelector>& selectors, std::size_t count) {
  if (count == 0) return ".";
  std::string out;
  for (std::size_t i = 0; i < count && i < selectors.size(); ++i) out += FormatSelector(selectors[i]);
  return out;
}

}  // namespace safesubst::detail
