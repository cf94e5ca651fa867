// SPDX-License-Identifier: Apache-2.0
// Value validation against a variable's declared type and pattern.
#include "validate.h"

#include <re2/re2.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cstring>
#include <charconv>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>

#include "yaml_load.h"
#include "references.h"
#include "safesubst/values.h"

namespace safesubst {
namespace detail {

namespace {

struct TypeEntry {
  VarType type;
  std::string_view name;
};

constexpr TypeEntry kTypes[] = {
    {VarType::kString, "string"},     {VarType::kInt, "int"},   {VarType::kBool, "bool"},
    {VarType::kIpv4, "ipv4"},         {VarType::kCidr, "cidr"}, {VarType::kHostname, "hostname"},
    {VarType::kDnsLabel, "dns-label"}, {VarType::kList, "list"}, {VarType::kEnum, "enum"},
    {VarType::kYaml, "yaml"},
};

// Classic two-row Levenshtein distance; the words compared are short keys.
std::size_t EditDistance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> previous(b.size() + 1);
  std::vector<std::size_t> current(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) previous[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    current[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      std::size_t substitution = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      current[j] = std::min({previous[j] + 1, current[j - 1] + 1, substitution});
    }
    std::swap(previous, current);
  }
  return previous[b.size()];
}

}  // namespace

std::optional<VarType> ParseVarType(std::string_view name) {
  for (const TypeEntry& entry : kTypes) {
    if (entry.name == name) return entry.type;
  }
  return std::nullopt;
}

const std::vector<std::string_view>& VarTypeNames() {
  static const std::vector<std::string_view> names = [] {
    std::vector<std::string_view> result;
    for (const TypeEntry& entry : kTypes) result.push_back(entry.name);
    return result;
  }();
  return names;
}

bool IsIdentifier(std::string_view name) {
  if (name.empty() || !IsNameStart(name.front())) return false;
  return std::all_of(name.begin(), name.end(), [](char c) { return IsNameChar(c); });
}

const re2::RE2* CompiledPattern(const std::string& pattern, std::string* error) {
  static std::mutex mutex;
  static std::map<std::string, std::unique_ptr<re2::RE2>, std::less<>> cache;
  std::lock_guard<std::mutex> lock(mutex);
  auto it = cache.find(pattern);
  if (it == cache.end()) {
    re2::RE2::Options options;
    options.set_log_errors(false);
    it = cache.emplace(pattern, std::make_unique<re2::RE2>(pattern, options)).first;
  }
  if (!it->second->ok()) {
    if (error != nullptr) *error = it->second->error();
    return nullptr;
  }
  return it->second.get();
}

std::string_view ClosestMatch(std::string_view word, const std::vector<std::string_view>& candidates) {
  std::string_view best;
  std::size_t best_distance = 3;  // at most 2 edits
  for (std::string_view candidate : candidates) {
    std::size_t distance = EditDistance(word, candidate);
    if (distance < best_distance && distance * 2 < std::max(word.size(), candidate.size())) {
      best = candidate;
      best_distance = distance;
    }
  }
  return best;
}

std::string_view NameSuggester::Suggest(std::string_view unknown) {
  if (++lookups_ > kMaxLookups) return {};
  // Names point into the variables: take them again when the list changed
  // (a manifest is still being read when its steps ask).
  if (names_.size() != variables_.size()) {
    names_.clear();
    for (const Variable& variable : variables_) names_.push_back(variable.name);
  }
  return ClosestMatch(unknown, names_);
}

std::string KeysHint(std::string_view word, const std::vector<std::string_view>& candidates,
                     std::string_view what) {
  std::string hint;
  std::string_view close = ClosestMatch(word, candidates);
  if (!close.empty()) {
    hint += "did you mean '";
    hint += close;
    hint += "'? ";
  }
  hint += what;
  hint += ": ";
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    if (i > 0) hint += ", ";
    hint += candidates[i];
  }
  return hint;
}

std::string QuoteForMessage(const Variable& variable, std::string_view value) {
  if (variable.sensitive) return "***";
  // Long values (a YAML blob, a certificate) would drown the message.
  constexpr std::size_t kMaxShown = 60;
  std::string out = "\"";
  std::size_t shown = 0;
  for (char c : value) {
    if (shown++ == kMaxShown) {
      out += "...";
      break;
    }
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      case '\0': out += "\\0"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
          static constexpr char kHex[] = "0123456789abcdef";
          out += "\\x";
          out += kHex[(static_cast<unsigned char>(c) >> 4) & 0xf];
          out += kHex[static_cast<unsigned char>(c) & 0xf];
        } else {
          out += c;
        }
    }
  }
  out += '"';
  return out;
}

}  // namespace detail

namespace {

// Why a value is not of its type. `detail` may quote parts of the value; it is
// left out of messages about sensitive variables when `detail_shows_value`.
struct Problem {
  std::string expected;  ///< "is not an IPv4 address"
  std::string detail;    ///< "octet 4 is 300 > 255"
  bool detail_shows_value = false;
};

using Check = std::optional<Problem>;

bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsLower(char c) { return c >= 'a' && c <= 'z'; }
bool IsUpper(char c) { return c >= 'A' && c <= 'Z'; }
bool IsAlnum(char c) { return IsDigit(c) || IsLower(c) || IsUpper(c); }

std::string Char(char c) {
  if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f) {
    return "byte " + std::to_string(static_cast<unsigned char>(c));
  }
  return std::string("'") + c + "'";
}

Check CheckInt(std::string_view value) {
  const std::string expected = "is not an integer";
  std::string_view digits = value;
  if (!digits.empty() && (digits.front() == '+' || digits.front() == '-')) digits.remove_prefix(1);
  if (digits.empty()) return Problem{expected, "expected decimal digits with an optional sign"};
  for (char c : digits) {
    if (!IsDigit(c)) return Problem{expected, "unexpected " + Char(c) + "; expected decimal digits", true};
  }
  if (digits.size() > 1 && digits.front() == '0') {
    // YAML 1.1 parsers (Kubernetes' among them) read 010 as octal 8.
    return Problem{expected, "leading zeros are not allowed (YAML 1.1 reads 010 as octal)"};
  }
  std::int64_t parsed = 0;
  // from_chars accepts '-' but not '+'.
  std::string_view number = value.front() == '+' ? value.substr(1) : value;
  auto [end, error] = std::from_chars(number.data(), number.data() + number.size(), parsed);
  if (error != std::errc() || end != number.data() + number.size()) {
    return Problem{expected, "out of the 64-bit integer range"};
  }
  return std::nullopt;
}

Check CheckBool(std::string_view value) {
  if (value == "true" || value == "false") return std::nullopt;
  return Problem{"is not a boolean", "expected exactly true or false"};
}

// A decimal number without leading zeros, at most `max`. `what` names it in details.
std::optional<std::string> CheckDecimal(std::string_view text, unsigned max, const std::string& what,
                                        bool* shows_value) {
  *shows_value = false;
  if (text.empty()) return what + " is empty";
  for (char c : text) {
    if (!IsDigit(c)) {
      *shows_value = true;
      return what + " contains " + Char(c);
    }
  }
  if (text.size() > 1 && text.front() == '0') return what + " has a leading zero";
  *shows_value = true;
  if (text.size() > 3) return what + " is " + std::string(text) + " > " + std::to_string(max);
  unsigned number = 0;
  for (char c : text) number = number * 10 + static_cast<unsigned>(c - '0');
  if (number > max) return what + " is " + std::string(text) + " > " + std::to_string(max);
  return std::nullopt;
}

Check CheckIpv4(std::string_view value) {
  const std::string expected = "is not an IPv4 address";
  std::vector<std::string_view> octets;
  std::size_t start = 0;
  while (true) {
    std::size_t dot = value.find('.', start);
    octets.push_back(value.substr(start, dot == value.npos ? value.npos : dot - start));
    if (dot == value.npos) break;
    start = dot + 1;
  }
  if (octets.size() != 4) {
    return Problem{expected, "expected 4 dot-separated octets, found " + std::to_string(octets.size())};
  }
  for (std::size_t i = 0; i < octets.size(); ++i) {
    bool shows_value = false;
    if (auto detail = CheckDecimal(octets[i], 255, "octet " + std::to_string(i + 1), &shows_value)) {
      return Problem{expected, *detail, shows_value};
    }
  }
  return std::nullopt;
}

Check CheckCidr(std::string_view value) {
  const std::string expected = "is not an IPv4 CIDR block";
  std::size_t slash = value.find('/');
  if (slash == value.npos) return Problem{expected, "expected ADDRESS/PREFIX, e.g. 10.0.0.0/16"};
  if (Check address = CheckIpv4(value.substr(0, slash))) {
    return Problem{expected, "address: " + address->detail, address->detail_shows_value};
  }
  bool shows_value = false;
  if (auto detail = CheckDecimal(value.substr(slash + 1), 32, "prefix length", &shows_value)) {
    return Problem{expected, *detail, shows_value};
  }
  return std::nullopt;
}

Check CheckHostnameLabel(std::string_view label, std::size_t index) {
  const std::string expected = "is not a valid hostname (RFC 1123)";
  const std::string what = "label " + std::to_string(index);
  if (label.empty()) return Problem{expected, what + " is empty"};
  if (label.size() > 63) {
    return Problem{expected, what + " is " + std::to_string(label.size()) + " characters long; at most 63"};
  }
  for (char c : label) {
    if (!IsAlnum(c) && c != '-') {
      return Problem{expected, what + " contains " + Char(c) + "; only letters, digits and '-' are allowed",
                     true};
    }
  }
  if (label.front() == '-') return Problem{expected, what + " starts with '-'"};
  if (label.back() == '-') return Problem{expected, what + " ends with '-'"};
  return std::nullopt;
}

Check CheckHostname(std::string_view value) {
  const std::string expected = "is not a valid hostname (RFC 1123)";
  if (value.empty()) return Problem{expected, "it is empty"};
  if (value.size() > 253) {
    return Problem{expected, "it is " + std::to_string(value.size()) + " characters long; at most 253"};
  }
  std::size_t start = 0;
  for (std::size_t index = 1;; ++index) {
    std::size_t dot = value.find('.', start);
    std::string_view label = value.substr(start, dot == value.npos ? value.npos : dot - start);
    if (Check problem = CheckHostnameLabel(label, index)) return problem;
    if (dot == value.npos) break;
    start = dot + 1;
  }
  return std::nullopt;
}

Check CheckDnsLabel(std::string_view value) {
  const std::string expected = "is not a DNS label (RFC 1123)";
  if (value.empty()) return Problem{expected, "it is empty"};
  if (value.size() > 63) {
    return Problem{expected, "it is " + std::to_string(value.size()) + " characters long; at most 63"};
  }
  for (char c : value) {
    if (IsUpper(c)) return Problem{expected, "contains uppercase " + Char(c) + "; DNS labels are lowercase", true};
    if (!IsLower(c) && !IsDigit(c) && c != '-') {
      return Problem{expected, "contains " + Char(c) + "; only lowercase letters, digits and '-' are allowed",
                     true};
    }
  }
  if (value.front() == '-') return Problem{expected, "starts with '-'"};
  if (value.back() == '-') return Problem{expected, "ends with '-'"};
  return std::nullopt;
}

Check CheckEnum(const Variable& variable, std::string_view value) {
  if (std::find(variable.enum_values.begin(), variable.enum_values.end(), value) != variable.enum_values.end()) {
    return std::nullopt;
  }
  std::string allowed;
  for (const std::string& option : variable.enum_values) {
    if (!allowed.empty()) allowed += ", ";
    allowed += option;
  }
  std::vector<std::string_view> options(variable.enum_values.begin(), variable.enum_values.end());
  std::string_view close = detail::ClosestMatch(value, options);
  std::string typo = close.empty() ? "" : "did you mean '" + std::string(close) + "'? ";
  return Problem{"is not one of the allowed values", typo + "expected one of: " + allowed};
}

Check CheckYaml(std::string_view value) {
  try {
    const std::size_t documents = detail::LoadYamlStream(value)->documents.size();
    if (documents > 1) {
      return Problem{"is not a single YAML node", "it holds " + std::to_string(documents) + " YAML documents"};
    }
  } catch (const YAML::Exception& error) {
    return Problem{"is not valid YAML", "line " + std::to_string(error.mark.line + 1) + ", column " +
                                            std::to_string(error.mark.column + 1) + ": " + error.msg};
  }
  return std::nullopt;
}

Check CheckType(const Variable& variable, std::string_view value) {
  switch (variable.type) {
    case VarType::kString: return std::nullopt;
    case VarType::kInt: return CheckInt(value);
    case VarType::kBool: return CheckBool(value);
    case VarType::kIpv4: return CheckIpv4(value);
    case VarType::kCidr: return CheckCidr(value);
    case VarType::kHostname: return CheckHostname(value);
    case VarType::kDnsLabel: return CheckDnsLabel(value);
    case VarType::kList: return std::nullopt;  // items are checked against the pattern only
    case VarType::kEnum: return CheckEnum(variable, value);
    case VarType::kYaml: return CheckYaml(value);
  }
  return std::nullopt;
}

std::string PatternMessage(const Variable& variable, std::string_view value) {
  std::string error;
  const re2::RE2* pattern = detail::CompiledPattern(variable.pattern, &error);
  if (pattern == nullptr) {
    return variable.name + ": the pattern '" + variable.pattern + "' is not a valid RE2 expression: " + error;
  }
  if (variable.type == VarType::kList) {
    for (const std::string& item : SplitList(value)) {
      if (!re2::RE2::FullMatch(item, *pattern)) {
        return variable.name + ": item " + detail::QuoteForMessage(variable, item) +
               " does not match the pattern '" + variable.pattern + "'";
      }
    }
    return {};
  }
  if (re2::RE2::FullMatch(re2::StringPiece(value.data(), value.size()), *pattern)) return {};
  return variable.name + ": " + detail::QuoteForMessage(variable, value) + " does not match the pattern '" +
         variable.pattern + "'";
}

}  // namespace

std::string ValidateValue(const Variable& variable, std::string_view value) {
  if (value.find('\0') != value.npos) return variable.name + ": the value contains a NUL byte";
  if (Check problem = CheckType(variable, value)) {
    std::string message = variable.name + ": " + detail::QuoteForMessage(variable, value) + " " + problem->expected;
    if (!problem->detail.empty() && !(variable.sensitive && problem->detail_shows_value)) {
      message += " (" + problem->detail + ")";
    }
    return message;
  }
  if (!variable.pattern.empty()) return PatternMessage(variable, value);
  return {};
}

std::vector<std::string> SplitList(std::string_view value) {
  std::vector<std::string> items;
  std::string current;
  for (char c : value) {
    if (c == ',' || c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      if (!current.empty()) items.push_back(std::move(current));
      current.clear();
    } else {
      current += c;
    }
  }
  if (!current.empty()) items.push_back(std::move(current));
  return items;
}

std::string DisplayValue(const Variable& variable, std::string_view value) {
  return variable.sensitive ? std::string("***") : std::string(value);
}

}  // namespace safesubst
