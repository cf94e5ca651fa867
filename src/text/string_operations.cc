// SPDX-License-Identifier: Apache-2.0
#include "string_operations.h"

#include <algorithm>
#include <vector>

namespace safesubst {

namespace {

using Kind = StringOperation::Kind;

bool IsAscii(std::string_view text) {
  return std::all_of(text.begin(), text.end(), [](char c) { return static_cast<unsigned char>(c) < 0x80; });
}

// Characters that quote or expand in bash but are literal to Flux and
// clusterctl, anywhere in an operation's argument.
constexpr std::string_view kReadDifferently = "$`\"'";

std::string CheckArgument(std::string_view argument) {
  if (argument.find_first_of(kReadDifferently) != std::string_view::npos) {
    return "has a quote, a backquote or a `$` in its argument, which bash reads as shell syntax and Flux and "
           "clusterctl as text";
  }
  return {};
}

// A trim pattern: Flux and clusterctl match it with Go's path.Match, bash as
// a glob. They agree on `*`, `?` and literal characters.
std::string CheckTrimPattern(std::string_view pattern, bool shortest) {
  if (pattern.empty()) return "has an empty pattern, which Flux and clusterctl refuse";
  if (std::string problem = CheckArgument(pattern); !problem.empty()) return problem;
  if (pattern.find_first_of("[\\") != std::string_view::npos) {
    return "has a bracket expression or a backslash in its pattern, which Flux and clusterctl match differently "
           "from bash; use `*`, `?` and literal characters";
  }
  if (shortest && pattern.find_first_not_of('*') == std::string_view::npos) {
    return "removes the shortest match of a pattern that matches nothing at all: bash removes nothing, Flux and "
           "clusterctl one character";
  }
  return {};
}

// Undoes the `\/` and `\\` escapes of a replace argument (the only ones Flux
// and clusterctl know). False for any other backslash.
bool UnescapeReplaceArgument(std::string_view text, std::string* out) {
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '\\') {
      *out += text[i];
      continue;
    }
    if (i + 1 == text.size() || (text[i + 1] != '/' && text[i + 1] != '\\')) return false;
    *out += text[++i];
  }
  return true;
}

std::string ParseReplace(const Reference& reference, StringOperation* operation) {
  const std::string_view op = reference.op;
  operation->kind = op == "//"  ? Kind::kReplaceAll
                    : op == "/#" ? Kind::kReplacePrefix
                    : op == "/%" ? Kind::kReplaceSuffix
                                 : Kind::kReplaceFirst;
  std::string_view operand = reference.operand;
  std::size_t slash = 0;
  while (slash < operand.size() && operand[slash] != '/') slash += operand[slash] == '\\' ? 2 : 1;
  if (slash >= operand.size()) {
    return "has no `/` before a replacement, which Flux and clusterctl refuse (write ${" + std::string(reference.name) +
           std::string(op) + std::string(operand) + "/} to delete the match)";
  }
  std::string_view pattern = operand.substr(0, slash), replacement = operand.substr(slash + 1);
  if (std::string problem = CheckArgument(operand); !problem.empty()) return problem;
  if (!UnescapeReplaceArgument(pattern, &operation->pattern) ||
      !UnescapeReplaceArgument(replacement, &operation->replacement)) {
    return "has a backslash other than `\\/` or `\\\\`, which Flux and clusterctl keep and bash removes";
  }
  if (operation->pattern.empty()) return "has an empty pattern, which Flux and clusterctl refuse";
  if (operation->pattern.find_first_of("*?[") != std::string::npos) {
    return "has `*`, `?` or `[` in its pattern: Flux and clusterctl replace the pattern as literal text, bash as a "
           "glob";
  }
  if (operation->replacement.find('&') != std::string::npos || replacement.substr(0, 1) == "~") {
    return "has `&` or a leading `~` in its replacement, which bash expands and Flux and clusterctl do not";
  }
  if (operation->replacement.empty() && (operation->kind == Kind::kReplacePrefix || operation->kind == Kind::kReplaceSuffix)) {
    return "has an empty replacement, with which Flux and clusterctl leave the value unchanged and bash removes "
           "the match";
  }
  return {};
}

// A decimal offset or length as both readers take it: no sign, no spaces, no
// leading zero (bash reads `010` as octal), at most nine digits.
bool ParseCount(std::string_view text, std::size_t* count) {
  if (text.empty() || text.size() > 9 || (text.size() > 1 && text[0] == '0')) return false;
  *count = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
    *count = *count * 10 + static_cast<std::size_t>(c - '0');
  }
  return true;
}

std::string ParseSubstring(std::string_view operand, StringOperation* operation) {
  operation->kind = Kind::kSubstring;
  const std::size_t colon = operand.find(':');
  operation->has_length = colon != std::string_view::npos;
  if (ParseCount(operand.substr(0, colon), &operation->offset) &&
      (!operation->has_length || ParseCount(operand.substr(colon + 1), &operation->length))) {
    return {};
  }
  return "needs a plain decimal offset and length: Flux and clusterctl ignore negative, spaced or computed ones, "
         "which bash evaluates";
}

// Matches a glob of `*`, `?` (one byte: the value is ASCII then) and literal
// bytes against each prefix of `text`, as a set of pattern positions advanced
// byte by byte: `matched[k]` says whether the first k bytes match. Linear in
// the text for a given pattern, whatever the pattern.
std::vector<bool> MatchingPrefixes(std::string_view pattern, std::string_view text) {
  const std::size_t m = pattern.size();
  std::vector<bool> matched(text.size() + 1, false);
  std::vector<char> active(m + 1, 0), next(m + 1, 0);
  auto close_over_stars = [&](std::vector<char>& states) {
    for (std::size_t p = 0; p < m; ++p) {
      if (states[p] && pattern[p] == '*') states[p + 1] = 1;
    }
  };
  active[0] = 1;
  close_over_stars(active);
  matched[0] = active[m] != 0;
  for (std::size_t k = 0; k < text.size(); ++k) {
    std::fill(next.begin(), next.end(), 0);
    bool any = false;
    for (std::size_t p = 0; p < m; ++p) {
      if (!active[p]) continue;
      if (pattern[p] == '*') {
        next[p] = 1;
      } else if (pattern[p] == '?' || pattern[p] == text[k]) {
        next[p + 1] = 1;
      } else {
        continue;
      }
      any = true;
    }
    if (!any) break;
    close_over_stars(next);
    active.swap(next);
    matched[k + 1] = active[m] != 0;
  }
  return matched;
}

// Flux and clusterctl try prefixes of one byte or more only: an empty match
// removes nothing either way (CheckTrimPattern refuses the pattern where
// bash's shortest match would be empty).
std::string Trim(const StringOperation& operation, std::string_view value) {
  const bool suffix = operation.kind == Kind::kTrimShortestSuffix || operation.kind == Kind::kTrimLongestSuffix;
  const bool shortest = operation.kind == Kind::kTrimShortestPrefix || operation.kind == Kind::kTrimShortestSuffix;
  std::string text(value), pattern(operation.pattern);
  if (suffix) {  // a suffix of the value is a prefix of it reversed
    std::reverse(text.begin(), text.end());
    std::reverse(pattern.begin(), pattern.end());
  }
  const std::vector<bool> matched = MatchingPrefixes(pattern, text);
  std::size_t cut = 0;
  for (std::size_t k = 1; k <= text.size(); ++k) {
    if (!matched[k]) continue;
    cut = k;
    if (shortest) break;
  }
  return suffix ? std::string(value.substr(0, value.size() - cut)) : std::string(value.substr(cut));
}

std::string Replace(const StringOperation& operation, std::string_view value) {
  const std::string_view pattern = operation.pattern;
  switch (operation.kind) {
    case Kind::kReplacePrefix:
      if (value.substr(0, pattern.size()) != pattern) return std::string(value);
      return operation.replacement + std::string(value.substr(pattern.size()));
    case Kind::kReplaceSuffix:
      if (value.size() < pattern.size() || value.substr(value.size() - pattern.size()) != pattern) {
        return std::string(value);
      }
      return std::string(value.substr(0, value.size() - pattern.size())) + operation.replacement;
    default:
      break;
  }
  std::string result;
  std::size_t from = 0;
  for (std::size_t at = value.find(pattern); at != std::string_view::npos; at = value.find(pattern, from)) {
    result.append(value, from, at - from);
    result += operation.replacement;
    from = at + pattern.size();
    if (operation.kind == Kind::kReplaceFirst) break;
  }
  result.append(value, from);
  return result;
}

char AsciiLower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }
char AsciiUpper(char c) { return c >= 'a' && c <= 'z' ? static_cast<char>(c - 'a' + 'A') : c; }

std::string Substring(const StringOperation& operation, std::string_view value) {
  if (operation.offset >= value.size()) return {};
  const std::size_t available = value.size() - operation.offset;
  return std::string(value.substr(operation.offset, operation.has_length ? std::min(operation.length, available)
                                                                         : available));
}

// Whether the operation counts or maps characters, so that bytes and
// characters must be the same thing in the value.
bool NeedsAscii(const StringOperation& operation, std::string_view value) {
  switch (operation.kind) {
    case Kind::kLength:
    case Kind::kSubstring:
    case Kind::kLowerAll:
    case Kind::kUpperAll:
      return !IsAscii(value);
    case Kind::kLowerFirst:
    case Kind::kUpperFirst:
      return !value.empty() && static_cast<unsigned char>(value.front()) >= 0x80;
    case Kind::kTrimShortestPrefix:
    case Kind::kTrimLongestPrefix:
    case Kind::kTrimShortestSuffix:
    case Kind::kTrimLongestSuffix:
      return operation.pattern.find('?') != std::string::npos && !IsAscii(value);
    default:
      return false;
  }
}

}  // namespace

std::string ParseStringOperation(const Reference& reference, StringOperation* operation) {
  *operation = StringOperation{};
  const std::string_view op = reference.op, operand = reference.operand;
  if (op == "#" && op.data() < reference.name.data()) {
    operation->kind = Kind::kLength;
    return {};
  }
  if (op == "#" || op == "##" || op == "%" || op == "%%") {
    operation->kind = op == "#"    ? Kind::kTrimShortestPrefix
                      : op == "##" ? Kind::kTrimLongestPrefix
                      : op == "%"  ? Kind::kTrimShortestSuffix
                                   : Kind::kTrimLongestSuffix;
    operation->pattern = std::string(operand);
    return CheckTrimPattern(operand, op.size() == 1);
  }
  if (op.front() == '/') return ParseReplace(reference, operation);
  if (op == ":") return ParseSubstring(operand, operation);
  operation->kind = op == "," ? Kind::kLowerFirst : op == ",," ? Kind::kLowerAll : op == "^" ? Kind::kUpperFirst
                                                                                             : Kind::kUpperAll;
  if (!operand.empty()) return "has a pattern after its case operator, which Flux and clusterctl refuse";
  return {};
}

std::string ApplyStringOperation(const StringOperation& operation, std::string_view value, std::string* result) {
  if (NeedsAscii(operation, value)) {
    return "counts or maps characters of a value that is not ASCII, which Flux and clusterctl do byte by byte "
           "and bash character by character";
  }
  switch (operation.kind) {
    case Kind::kLength:
      *result = std::to_string(value.size());
      break;
    case Kind::kTrimShortestPrefix:
    case Kind::kTrimLongestPrefix:
    case Kind::kTrimShortestSuffix:
    case Kind::kTrimLongestSuffix:
      *result = Trim(operation, value);
      break;
    case Kind::kReplaceFirst:
    case Kind::kReplaceAll:
    case Kind::kReplacePrefix:
    case Kind::kReplaceSuffix:
      *result = Replace(operation, value);
      break;
    case Kind::kLowerFirst:
    case Kind::kUpperFirst:
      *result = std::string(value);
      if (!result->empty()) result->front() = operation.kind == Kind::kLowerFirst ? AsciiLower(result->front())
                                                                                  : AsciiUpper(result->front());
      break;
    case Kind::kLowerAll:
    case Kind::kUpperAll:
      *result = std::string(value);
      for (char& c : *result) c = operation.kind == Kind::kLowerAll ? AsciiLower(c) : AsciiUpper(c);
      break;
    case Kind::kSubstring:
      *result = Substring(operation, value);
      break;
  }
  return {};
}

}  // namespace safesubst
