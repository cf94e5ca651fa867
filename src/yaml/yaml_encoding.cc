// SPDX-License-Identifier: Apache-2.0
// YAML-level value encoding (SPEC Rule 3).
//
// Sources of truth for plain scalar resolution (ResolvePlain):
//  * YAML 1.1 type repository, https://yaml.org/type/ : bool, null, int, float,
//    timestamp, merge (`<<`) and value (`=`). Its published float regex
//    (`[-+]?([0-9][0-9_]*)?\.[0-9.]*([eE][-+][0-9]+)?`) also matches `1.2.3`
//    and `.`; no implementation uses it as printed, so the regexes that
//    implementations do use are followed instead:
//  * PyYAML's resolver (YAML 1.1): bool yes/no/true/false/on/off in three
//    casings; int `[-+]?0b[0-1_]+`, `[-+]?0[0-7_]+`, `[-+]?(0|[1-9][0-9_]*)`,
//    `[-+]?0x[0-9a-fA-F_]+`, `[-+]?[1-9][0-9_]*(:[0-5]?[0-9])+`; float
//    `[-+]?[0-9][0-9_]*\.[0-9_]*([eE][-+][0-9]+)?`, `\.[0-9][0-9_]*([eE][-+][0-9]+)?`,
//    `[-+]?[0-9][0-9_]*(:[0-5]?[0-9])+\.[0-9_]*`, `[-+]?\.(inf|Inf|INF)`,
//    `\.(nan|NaN|NAN)`; null `~|null|Null|NULL|`; timestamps; `<<`; `=`.
//  * go-yaml v2 (kubectl, helm via sigs.k8s.io/yaml): also `y Y n N` as bools;
//    for text starting with a sign or digit it removes every `_` and then tries
//    Go's strconv.ParseInt(s, 0, 64) (so `0x`, `0X`, `0o`, `0O`, `0b`, `0B`
//    and a leading `0` for octal, signs allowed) and the YAML 1.2 float
//    pattern; timestamps `2006-1-2` with optional time.
//  * YAML 1.2.2 core schema (10.3.2): null `null|Null|NULL|~|`, bool
//    `true|True|TRUE|false|False|FALSE`, int `[-+]?[0-9]+`, `0o[0-7]+`,
//    `0x[0-9a-fA-F]+`, float `[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?`,
//    `[-+]?\.(inf|Inf|INF)`, `\.(nan|NaN|NAN)`.
// Where these disagree the union is taken, slightly generously (for instance a
// sexagesimal `0:30` counts as an int): a string wrongly taken for a number is
// merely quoted, a number wrongly taken for a string would change type.
//
// Plain scalar syntax (FitsPlain): YAML 1.2.2 section 7.3.3 (ns-plain-first,
// ns-plain-char), tightened where libyaml 0.1 (go-yaml v2) and PyYAML are
// stricter in flow context, and YAML 1.1's extra line breaks (NEL, LS, PS).
#include "yaml_encoding.h"

#include <algorithm>
#include <array>
#include <cstddef>
#include <initializer_list>
#include <optional>

#include "utf8.h"

namespace safesubst {

namespace {

// ---------------------------------------------------------------------------
// Characters

constexpr bool IsDigit(char c) { return c >= '0' && c <= '9'; }
constexpr bool IsHexDigit(char c) {
  return IsDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}
constexpr bool IsBlank(char c) { return c == ' ' || c == '\t'; }

using detail::DecodeUtf8;

// What a code point is to YAML, for the encoders' purposes.
enum class CharKind : std::uint8_t {
  kText,       // printable, no special meaning as a character
  kTab,
  kLineFeed,   // \n
  kOtherBreak, // \r, and YAML 1.1's NEL, LS, PS (YAML 1.2 reads them as text)
  kNonPrintable,  // C0 controls, DEL, C1 controls, BOM, U+FFFE, U+FFFF
};

// Classify for the ASCII characters, short enough to be inlined where most
// of the text is ASCII.
constexpr CharKind ClassifyAscii(unsigned char c) {
  if (c >= 0x20 && c < 0x7F) return CharKind::kText;
  if (c == '\t') return CharKind::kTab;
  if (c == '\n') return CharKind::kLineFeed;
  if (c == '\r') return CharKind::kOtherBreak;
  return CharKind::kNonPrintable;  // C0 controls and DEL
}

CharKind Classify(char32_t c) {
  if (c < 0x80) return ClassifyAscii(static_cast<unsigned char>(c));
  if (c == 0x85 || c == 0x2028 || c == 0x2029) return CharKind::kOtherBreak;
  if (c < 0xA0) return CharKind::kNonPrintable;  // C0, DEL, C1
  if (c == 0xFEFF || c == 0xFFFE || c == 0xFFFF) return CharKind::kNonPrintable;
  return CharKind::kText;
}

// Calls `visit(kind, code_point, begin, length)` for every character; a
// malformed byte is reported as kNonPrintable with length 1. Stops early when
// `visit` returns false; returns whether it ran to the end.
template <typename Visit>
bool ForEachChar(std::string_view text, Visit visit) {
  for (std::size_t i = 0; i < text.size();) {
    const auto lead = static_cast<unsigned char>(text[i]);
    if (lead < 0x80) {  // most characters: nothing to decode, no call
      if (!visit(ClassifyAscii(lead), char32_t{lead}, i, std::size_t{1})) return false;
      ++i;
      continue;
    }
    char32_t c = 0;
    std::size_t length = DecodeUtf8(text, i, &c);
    bool ok = length == 0 ? visit(CharKind::kNonPrintable, char32_t{0xFFFD}, i, std::size_t{1})
                          : visit(Classify(c), c, i, length);
    if (!ok) return false;
    i += length == 0 ? 1 : length;
  }
  return true;
}

// ---------------------------------------------------------------------------
// ResolvePlain

bool IsOneOf(std::string_view text, std::initializer_list<std::string_view> words) {
  return std::find(words.begin(), words.end(), text) != words.end();
}

bool IsNullWord(std::string_view t) { return IsOneOf(t, {"~", "null", "Null", "NULL"}); }

bool IsBoolWord(std::string_view t) {
  return IsOneOf(t, {"true", "True", "TRUE", "false", "False", "FALSE",  // 1.1 and 1.2
                     "yes", "Yes", "YES", "no", "No", "NO",              // 1.1
                     "on", "On", "ON", "off", "Off", "OFF",              // 1.1
                     "y", "Y", "n", "N"});                               // 1.1, go-yaml
}

bool IsInfOrNan(std::string_view t) {
  return IsOneOf(t, {".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF", "-.inf", "-.Inf", "-.INF",
                     ".nan", ".NaN", ".NAN"});
}

bool HasSign(std::string_view t) { return !t.empty() && (t[0] == '+' || t[0] == '-'); }

bool AllOf(std::string_view t, bool (*accept)(char)) {
  return !t.empty() && std::all_of(t.begin(), t.end(), accept);
}

// Sexagesimal (YAML 1.1 base 60): [0-9][0-9_]*(:[0-5]?[0-9])+ and, for a
// float, a trailing \.[0-9_]*. (1.1 wants the first digit of an int to be
// 1-9; accepting 0 too only quotes a little more.)
bool MatchesSexagesimal(std::string_view t, bool fraction) {
  std::size_t i = 0, n = t.size();
  if (n == 0 || !IsDigit(t[0])) return false;
  while (i < n && (IsDigit(t[i]) || t[i] == '_')) ++i;
  int groups = 0;
  while (i < n && t[i] == ':') {
    ++i;
    if (i >= n || !IsDigit(t[i])) return false;
    bool two_digits = i + 1 < n && IsDigit(t[i + 1]);
    if (two_digits && t[i] > '5') return false;  // `:60` is not a base-60 digit
    i += two_digits ? 2 : 1;
    ++groups;
  }
  if (groups == 0) return false;
  if (!fraction) return i == n;
  if (i >= n || t[i] != '.') return false;
  return std::all_of(t.begin() + static_cast<std::ptrdiff_t>(i) + 1, t.end(),
                     [](char c) { return IsDigit(c) || c == '_'; });
}

bool IsInt(std::string_view t) {
  std::string_view rest = HasSign(t) ? t.substr(1) : t;
  if (rest.empty()) return false;
  if (rest.size() >= 2 && rest[0] == '0') {
    std::string_view digits = rest.substr(2);
    switch (rest[1]) {
      case 'x': case 'X':
        return AllOf(digits, [](char c) { return IsHexDigit(c) || c == '_'; });
      case 'o': case 'O':
        return AllOf(digits, [](char c) { return (c >= '0' && c <= '7') || c == '_'; });
      case 'b': case 'B':
        return AllOf(digits, [](char c) { return c == '0' || c == '1' || c == '_'; });
      default:
        break;
    }
  }
  // Decimal, 1.1 octal `017`, 1.2 `007`, and go-yaml's `-_1` (underscores are
  // removed after the sign/digit check): digits and underscores, one digit at least.
  if (rest.size() == t.size() && !IsDigit(rest[0])) return false;
  bool digits_only = std::all_of(rest.begin(), rest.end(), [](char c) { return IsDigit(c) || c == '_'; });
  if (digits_only) return std::any_of(rest.begin(), rest.end(), IsDigit);
  return MatchesSexagesimal(rest, /*fraction=*/false);
}

// [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)? with every `_` ignored,
// which is how go-yaml reads text that starts with a sign or a digit; it also
// covers PyYAML's `[-+]?[0-9][0-9_]*\.[0-9_]*([eE][-+][0-9]+)?`.
bool MatchesFloatIgnoringUnderscores(std::string_view t) {
  std::size_t i = 0, n = t.size();
  auto skip = [&] { while (i < n && t[i] == '_') ++i; };
  auto digits = [&] {
    std::size_t count = 0;
    for (skip(); i < n && IsDigit(t[i]); skip()) ++i, ++count;
    return count;
  };
  skip();
  if (i < n && (t[i] == '+' || t[i] == '-')) ++i;
  std::size_t mantissa = digits();
  skip();
  if (i < n && t[i] == '.') {
    ++i;
    mantissa += digits();
  }
  if (mantissa == 0) return false;
  skip();
  if (i < n && (t[i] == 'e' || t[i] == 'E')) {
    ++i;
    skip();
    if (i < n && (t[i] == '+' || t[i] == '-')) ++i;
    if (digits() == 0) return false;
  }
  skip();
  return i == n;
}

// Text starting with `.`: PyYAML's \.[0-9][0-9_]*([eE][-+][0-9]+)? and YAML
// 1.2's \.[0-9]+([eE][-+]?[0-9]+)? (go-yaml does not strip `_` here).
bool MatchesLeadingDotFloat(std::string_view t) {
  std::size_t i = 1, n = t.size();
  if (n < 2 || t[0] != '.' || !IsDigit(t[1])) return false;
  while (i < n && (IsDigit(t[i]) || t[i] == '_')) ++i;
  if (i == n) return true;
  if (t[i] != 'e' && t[i] != 'E') return false;
  ++i;
  if (i < n && (t[i] == '+' || t[i] == '-')) ++i;
  if (i >= n) return false;
  return std::all_of(t.begin() + static_cast<std::ptrdiff_t>(i), t.end(), IsDigit);
}

bool IsFloat(std::string_view t) {
  if (IsInfOrNan(t)) return true;
  if (t[0] == '.') return MatchesLeadingDotFloat(t);
  std::string_view rest = HasSign(t) ? t.substr(1) : t;
  return MatchesSexagesimal(rest, /*fraction=*/true) || MatchesFloatIgnoringUnderscores(t);
}

// Reads 1 to `max` digits at t[*i].
bool ReadDigits(std::string_view t, std::size_t* i, std::size_t min, std::size_t max) {
  std::size_t count = 0;
  while (*i < t.size() && count < max && IsDigit(t[*i])) ++*i, ++count;
  return count >= min;
}

bool ReadChar(std::string_view t, std::size_t* i, char c) {
  if (*i < t.size() && t[*i] == c) {
    ++*i;
    return true;
  }
  return false;
}

// YAML 1.1 timestamp, with go-yaml's one-digit month, day, minute and second:
//   [0-9]{4}-[0-9]{1,2}-[0-9]{1,2}
//   ( ([Tt]|[ \t]+) [0-9]{1,2}:[0-9]{1,2}:[0-9]{1,2} (\.[0-9]*)?
//     ([ \t]*(Z|[-+][0-9]{1,2}(:[0-9]{2})?))? )?
bool IsTimestamp(std::string_view t) {
  std::size_t i = 0;
  if (!ReadDigits(t, &i, 4, 4) || !ReadChar(t, &i, '-') || !ReadDigits(t, &i, 1, 2) ||
      !ReadChar(t, &i, '-') || !ReadDigits(t, &i, 1, 2)) {
    return false;
  }
  if (i == t.size()) return true;
  if (t[i] == 'T' || t[i] == 't') {
    ++i;
  } else {
    if (!IsBlank(t[i])) return false;
    while (i < t.size() && IsBlank(t[i])) ++i;
  }
  if (!ReadDigits(t, &i, 1, 2) || !ReadChar(t, &i, ':') || !ReadDigits(t, &i, 1, 2) ||
      !ReadChar(t, &i, ':') || !ReadDigits(t, &i, 1, 2)) {
    return false;
  }
  if (ReadChar(t, &i, '.')) ReadDigits(t, &i, 0, t.size());
  while (i < t.size() && IsBlank(t[i])) ++i;
  if (i == t.size()) return true;
  if (ReadChar(t, &i, 'Z')) return i == t.size();
  if (!ReadChar(t, &i, '+') && !ReadChar(t, &i, '-')) return false;
  if (!ReadDigits(t, &i, 1, 2)) return false;
  if (ReadChar(t, &i, ':') && !ReadDigits(t, &i, 2, 2)) return false;
  return i == t.size();
}

// ---------------------------------------------------------------------------
// Plain scalars

constexpr std::string_view kFlowIndicators = ",[]{}";
// c-indicator minus `-?:`, which may start a plain scalar when followed by a
// non-space character.
constexpr std::string_view kNeverFirst = ",[]{}#&*!|>'\"%@`";

// The start of a plain scalar whose first bytes are `head` (up to 4) and whose
// length is `size`.
bool PlainStartOk(std::string_view head, std::size_t size) {
  char first = head[0];
  if (first == ' ') return false;
  if (kNeverFirst.find(first) != std::string_view::npos) return false;
  if ((first == '-' || first == '?' || first == ':') && (size == 1 || head[1] == ' ')) return false;
  bool marker = head.substr(0, 3) == "---" || head.substr(0, 3) == "...";
  return !(marker && (size == 3 || head[3] == ' '));
}

// The ASCII bytes that PiecesFitPlain lets through whatever comes before
// them, out of flow context and in it: printable, not a blank, not `:` or
// `#` (which form `: ` and ` #`), and in flow context no flow indicator or `?`.
constexpr std::array<bool, 256> OrdinaryPlainBytes(bool in_flow) {
  std::array<bool, 256> ordinary{};
  for (int c = 0x21; c < 0x7F; ++c) ordinary[c] = c != ':' && c != '#';
  if (in_flow) {
    for (char c : std::string_view(",[]{}?")) ordinary[static_cast<unsigned char>(c)] = false;
  }
  return ordinary;
}
constexpr std::array<bool, 256> kOrdinaryInPlain = OrdinaryPlainBytes(false);
constexpr std::array<bool, 256> kOrdinaryInFlowPlain = OrdinaryPlainBytes(true);

// FitsPlain of the concatenation of `pieces`, without building it. Each piece
// is whole UTF-8 (no character spans two pieces); only `: `, ` #`, the start
// and the end can form across a boundary, and those are checked on the joined
// sequence. One pass, ASCII without decoding.
bool PiecesFitPlain(std::initializer_list<std::string_view> pieces, bool in_flow) {
  char head[4] = {};
  std::size_t head_size = 0, size = 0;
  char last = 0;
  for (std::string_view piece : pieces) {
    for (std::size_t i = 0; i < piece.size() && head_size < 4; ++i) head[head_size++] = piece[i];
    if (!piece.empty()) last = piece.back();
    size += piece.size();
  }
  if (size == 0 || !PlainStartOk(std::string_view(head, head_size), size)) return false;
  if (last == ' ' || last == ':') return false;
  // Bytes that need a closer look (a control, a blank, `:` or `#`, and in
  // flow context the flow indicators and `?`) stop a run of ordinary ones,
  // which only the last of them can affect (as `previous`).
  const std::array<bool, 256>& ordinary = in_flow ? kOrdinaryInFlowPlain : kOrdinaryInPlain;
  char previous = 0;
  for (std::string_view piece : pieces) {
    for (std::size_t i = 0; i < piece.size();) {
      if (ordinary[static_cast<unsigned char>(piece[i])]) {
        while (++i < piece.size() && ordinary[static_cast<unsigned char>(piece[i])]) {
        }
        previous = piece[i - 1];
        continue;
      }
      auto c = static_cast<unsigned char>(piece[i]);
      if (c < 0x80) {
        if (c < 0x20 || c == 0x7F) return false;  // controls, tab, line breaks
        if ((c == ' ' && previous == ':') || (c == '#' && previous == ' ')) return false;
        if (in_flow && (kFlowIndicators.find(static_cast<char>(c)) != std::string_view::npos || c == ':' ||
                        c == '?')) {
          return false;
        }
        previous = static_cast<char>(c);
        ++i;
        continue;
      }
      char32_t code_point = 0;
      std::size_t length = DecodeUtf8(piece, i, &code_point);
      if (length == 0 || Classify(code_point) != CharKind::kText) return false;
      previous = 'x';  // any non-ASCII text character
      i += length;
    }
  }
  return true;
}

std::string_view TrimLeadingBlanks(std::string_view t) {
  while (!t.empty() && IsBlank(t.front())) t.remove_prefix(1);
  return t;
}

std::string_view TrimTrailingBlanks(std::string_view t) {
  while (!t.empty() && IsBlank(t.back())) t.remove_suffix(1);
  return t;
}

// ---------------------------------------------------------------------------
// Escapes

void AppendHex(std::string* out, char32_t value, int digits) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  for (int shift = (digits - 1) * 4; shift >= 0; shift -= 4) *out += kHex[(value >> shift) & 0xF];
}

// The escape for `c` inside a double-quoted scalar, or nullptr when `c` is
// written as it is (code points above U+00FF are handled by the caller).
const char* NamedEscape(char32_t c) {
  switch (c) {
    case '\\': return "\\\\";
    case '"': return "\\\"";
    case 0x00: return "\\0";
    case 0x07: return "\\a";
    case 0x08: return "\\b";
    case 0x09: return "\\t";
    case 0x0A: return "\\n";
    case 0x0B: return "\\v";
    case 0x0C: return "\\f";
    case 0x0D: return "\\r";
    case 0x1B: return "\\e";
    // Not `\N`: yaml-cpp 0.7 decodes `\N` to a lone 0x85 byte (invalid UTF-8);
    // `\x85` means the same code point to every reader.
    case 0x85: return "\\x85";
    case 0x2028: return "\\L";
    case 0x2029: return "\\P";
    default: return nullptr;
  }
}

// ---------------------------------------------------------------------------
// Block scalars

// How a line of a folded block takes part in folding (YAML 1.2.2 8.1.3).
enum class FoldLine : std::uint8_t { kEmpty, kText, kMoreIndented };

// The kind of the line made of `pieces` joined (template text and value text).
FoldLine ClassifyFoldLine(std::initializer_list<std::string_view> pieces) {
  for (std::string_view piece : pieces) {
    if (!piece.empty()) return IsBlank(piece.front()) ? FoldLine::kMoreIndented : FoldLine::kText;
  }
  return FoldLine::kEmpty;
}

}  // namespace

PlainKind ResolvePlain(std::string_view text) {
  if (text.empty()) return PlainKind::kNull;
  // Every number and timestamp starts with a digit, a sign or a dot; every
  // keyword is at most 5 characters long.
  char first = text[0];
  if (!IsDigit(first) && first != '-' && first != '+' && first != '.') {
    if (text.size() > 5) return PlainKind::kString;
    if (IsNullWord(text)) return PlainKind::kNull;
    if (IsBoolWord(text)) return PlainKind::kBool;
    if (text == "<<" || text == "=") return PlainKind::kOther;
    return PlainKind::kString;
  }
  if (IsInt(text)) return PlainKind::kInt;
  if (IsFloat(text)) return PlainKind::kFloat;
  if (IsTimestamp(text)) return PlainKind::kTimestamp;
  return PlainKind::kString;
}

bool IsDecimalIntOrBool(std::string_view text) {
  if (text == "true" || text == "false") return true;
  if (text.starts_with('-')) text.remove_prefix(1);
  if (text.empty() || (text[0] == '0' && text.size() > 1)) return false;
  return std::all_of(text.begin(), text.end(), IsDigit);
}

bool FitsPlain(std::string_view text, bool in_flow) { return PiecesFitPlain({text}, in_flow); }

bool SplicedPlainIsSafe(std::string_view before, std::string_view value, std::string_view after,
                        bool in_flow) {
  // A line break in the template text ends the line the value lands on: what
  // lies beyond it cannot combine with the value, and the indentation (or the
  // trailing white space) next to it is not part of the scalar's text.
  auto is_break = [](char c) { return c == '\n' || c == '\r'; };
  auto line_start = std::find_if(before.rbegin(), before.rend(), is_break);
  if (line_start != before.rend()) {
    before = TrimLeadingBlanks(before.substr(static_cast<std::size_t>(before.rend() - line_start)));
  }
  auto line_end = std::find_if(after.begin(), after.end(), is_break);
  if (line_end != after.end()) {
    after = TrimTrailingBlanks(after.substr(0, static_cast<std::size_t>(line_end - after.begin())));
  }
  return PiecesFitPlain({before, value, after}, in_flow);
}

bool FitsSingleQuoted(std::string_view value) {
  return ForEachChar(value, [](CharKind kind, char32_t, std::size_t, std::size_t) {
    return kind == CharKind::kText || kind == CharKind::kTab;
  });
}

bool FitsBlock(std::string_view value) {
  // Most values are printable ASCII with tabs and line feeds: a run of it is
  // passed over first, a byte at a time; the rest, if any, is decoded.
  std::size_t ascii = 0;
  for (; ascii < value.size(); ++ascii) {
    const auto c = static_cast<unsigned char>(value[ascii]);
    if (!((c >= 0x20 && c < 0x7F) || c == '\t' || c == '\n')) break;
  }
  return ForEachChar(value.substr(ascii), [](CharKind kind, char32_t, std::size_t, std::size_t) {
    return kind == CharKind::kText || kind == CharKind::kTab || kind == CharKind::kLineFeed;
  });
}

bool IsValidUtf8(std::string_view text) {
  for (std::size_t i = 0; i < text.size();) {
    if (static_cast<unsigned char>(text[i]) < 0x80) {  // ASCII: nothing to decode
      ++i;
      continue;
    }
    char32_t c;
    std::size_t length = DecodeUtf8(text, i, &c);
    if (length == 0) return false;
    i += length;
  }
  return true;
}

void AppendDoubleQuotedBody(std::string_view value, std::string* out) {
  out->reserve(out->size() + value.size() + 8);
  std::size_t i = 0;
  while (i < value.size()) {
    // Runs of printable ASCII other than `\` and `"` are copied at once.
    std::size_t run = i;
    while (run < value.size()) {
      auto c = static_cast<unsigned char>(value[run]);
      if (c < 0x20 || c >= 0x7F || c == '\\' || c == '"') break;
      ++run;
    }
    out->append(value, i, run - i);
    i = run;
    if (i == value.size()) break;
    char32_t c = 0;
    std::size_t length = DecodeUtf8(value, i, &c);
    if (length == 0) {
      *out += value[i];  // invalid UTF-8: copied, see the header
      ++i;
      continue;
    }
    if (const char* escape = NamedEscape(c)) {
      *out += escape;
    } else if (Classify(c) != CharKind::kNonPrintable) {
      out->append(value, i, length);
    } else if (c <= 0xFF) {
      *out += "\\x";
      AppendHex(out, c, 2);
    } else {
      *out += "\\u";
      AppendHex(out, c, 4);
    }
    i += length;
  }
}

void AppendSingleQuotedBody(std::string_view value, std::string* out) {
  out->reserve(out->size() + value.size() + 2);
  for (char c : value) {
    if (c == '\'') *out += '\'';
    *out += c;
  }
}

void AppendBlockBody(std::string_view value, std::uint32_t indent, bool folded, std::string* out,
                     std::string_view line_before, std::string_view line_after) {
  out->reserve(out->size() + value.size() + value.size() / 8);
  // Kind of the last non-empty line written, as folding sees it (the template
  // text before the placeholder counts as part of the first line).
  std::optional<FoldLine> previous;
  std::size_t start = 0;
  bool first = true;
  while (true) {
    std::size_t end = value.find('\n', start);
    bool last = end == std::string_view::npos;
    std::string_view line = value.substr(start, last ? std::string_view::npos : end - start);
    if (folded) {
      FoldLine kind = ClassifyFoldLine({first ? line_before : std::string_view{}, line,
                                        last ? line_after : std::string_view{}});
      if (kind != FoldLine::kEmpty) {
        // A break between two text lines folds into a space: add an empty line.
        if (!first && previous == FoldLine::kText && kind == FoldLine::kText) *out += '\n';
        previous = kind;
      }
    }
    // The last line is indented even when empty: template text may follow the
    // placeholder on it. (A line of `indent` spaces alone is an empty line.)
    if (!first && (!line.empty() || last)) out->append(indent, ' ');
    out->append(line);
    if (last) break;
    *out += '\n';
    start = end + 1;
    first = false;
  }
}

std::string DoubleQuoted(std::string_view value) {
  std::string out = "\"";
  AppendDoubleQuotedBody(value, &out);
  out += '"';
  return out;
}

}  // namespace safesubst
