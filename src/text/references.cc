// SPDX-License-Identifier: Apache-2.0
#include "references.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <vector>

namespace safesubst {

namespace {

constexpr std::size_t kNotFound = std::string_view::npos;

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// IsNameChar as a table: names are scanned for every reference, and one
// lookup per byte is cheaper than its four range checks.
constexpr std::array<bool, 256> MakeNameChars() {
  std::array<bool, 256> table{};
  for (int c = 0; c < 256; ++c) table[static_cast<std::size_t>(c)] = IsNameChar(static_cast<char>(c));
  return table;
}
constexpr std::array<bool, 256> kNameChars = MakeNameChars();

// Length of the identifier starting at `at` (0 when none starts there).
std::size_t NameLength(std::string_view text, std::size_t at, std::size_t end) {
  if (at >= end || !IsNameStart(text[at])) return 0;
  std::size_t i = at + 1;
  while (i < end && kNameChars[static_cast<unsigned char>(text[i])]) ++i;
  return i - at;
}

// Finds the `}` that balances a `{` in `text[begin, end)`, counting nested
// pairs. Quotes are not special: envsubst and the Kubernetes expander do not
// treat them specially either.
//
// A search that fails scans to `end`, so many unclosed `${` in one long span
// would cost quadratic time. After the first failure the matcher therefore
// records brace balances once (memory only on this error path) and answers
// whether a later `{` can close at all without scanning.
class BraceMatcher {
 public:
  BraceMatcher(std::string_view text, std::size_t begin, std::size_t end) : text_(text), begin_(begin), end_(end) {}

  // Offset of the `}` matching the `{` at `open`, or kNotFound.
  std::size_t Close(std::size_t open) {
    if (!balance_.empty() && !CanClose(open)) return kNotFound;
    int depth = 0;
    for (std::size_t i = open; i < end_; ++i) {
      if (text_[i] == '{') {
        ++depth;
      } else if (text_[i] == '}' && --depth == 0) {
        return i;
      }
    }
    if (balance_.empty()) Record();
    return kNotFound;
  }

 private:
  // balance_[k]: opened minus closed braces before begin_ + k;
  // lowest_after_[k]: the lowest balance at or after begin_ + k.
  void Record() {
    const std::size_t n = end_ - begin_;
    balance_.resize(n + 1);
    lowest_after_.resize(n + 1);
    int balance = 0;
    for (std::size_t k = 0; k < n; ++k) {
      balance_[k] = balance;
      if (text_[begin_ + k] == '{') ++balance;
      if (text_[begin_ + k] == '}') --balance;
    }
    balance_[n] = balance;
    lowest_after_[n] = balance;
    for (std::size_t k = n; k-- > 0;) lowest_after_[k] = std::min(balance_[k], lowest_after_[k + 1]);
  }
  // The `{` at `open` closes when the balance later falls back to its level
  // before the `{` (it moves by one, so reaching below means passing it).
  bool CanClose(std::size_t open) const {
    const std::size_t k = open - begin_;
    return lowest_after_[k + 1] <= balance_[k];
  }

  std::string_view text_;
  std::size_t begin_, end_;
  std::vector<int> balance_, lowest_after_;
};

// The default operators of `${NAME<op>word}`, longest first.
std::string_view DefaultOperator(std::string_view text, std::size_t at, std::size_t end) {
  auto is_op_char = [](char c) { return c == '-' || c == '=' || c == '?' || c == '+'; };
  if (at < end && text[at] == ':' && at + 1 < end && is_op_char(text[at + 1])) return text.substr(at, 2);
  if (at < end && is_op_char(text[at])) return text.substr(at, 1);
  return {};
}

// The string operators of the Flux/clusterctl dialect that may follow the
// name in `${NAME<op>...}`, longest first (RefKind::kOperation). A `:` not
// followed by a default operator starts a substring, `${NAME:offset:length}`.
std::string_view StringOperator(std::string_view text, std::size_t at, std::size_t end) {
  if (at >= end) return {};
  const char first = text[at];
  const char second = at + 1 < end ? text[at + 1] : '\0';
  switch (first) {
    case '%':
    case '#':
    case ',':
    case '^':
      return text.substr(at, second == first ? 2 : 1);
    case '/':
      return text.substr(at, second == '/' || second == '#' || second == '%' ? 2 : 1);
    case ':':
      return text.substr(at, 1);
    default:
      return {};
  }
}

bool IsSpecialParameter(char c) {
  return IsDigit(c) || c == '@' || c == '*' || c == '#' || c == '?' || c == '!' || c == '-';
}

// A special parameter as `${` may name it: `$` too (`${$}`, the shell's
// process), which outside braces is the `$$` of Kubernetes and Flux.
bool IsBracedSpecialParameter(char c) { return IsSpecialParameter(c) || c == '$'; }

// Scans the braced form whose `$` is at `dollar` (text[dollar + 1] == '{').
// Returns false when it has no closing brace.
bool ScanBraced(std::string_view text, std::size_t dollar, std::size_t end, BraceMatcher* braces,
                Reference* reference) {
  const std::size_t name_at = dollar + 2;
  reference->offset = dollar;
  // The common `${NAME}`, answered at once (ReadParameterHead would say a
  // name and no operator): a name holds no brace, so a `}` right after it is
  // the one that balances the `{` (what braces->Close would find, slower).
  if (const std::size_t length = NameLength(text, name_at, end);
      length > 0 && name_at + length < end && text[name_at + length] == '}') {
    reference->kind = RefKind::kBraced;
    reference->length = length + 3;
    reference->name = text.substr(name_at, length);
    return true;
  }
  const ParameterHead head = ReadParameterHead(text, name_at, end);
  const bool named = head.NamedPlainly();
  const std::size_t close = braces->Close(dollar + 1);
  if (close == kNotFound) return false;
  reference->length = close + 1 - dollar;
  const bool has_name = !head.name.empty() && IsNameStart(head.name.front());
  if (!named) {  // ${#x} ${!x} ${x[0]} (named, so that a declared x is noticed), ${1} ${@} ${#} ${}
    reference->kind = RefKind::kShell;
    if (has_name) reference->name = head.name;
    if (has_name && head.prefix == '\0') {  // ${x[0]}: the subscript on
      reference->operand = text.substr(name_at + head.name.size(), close - name_at - head.name.size());
    }
    const bool length = head.prefix == '#' && has_name && head.subscript == kNotFound &&
                        head.op_kind == ParameterHead::OperatorKind::kNone && head.operand == close;
    if (length) {
      reference->kind = RefKind::kOperation;  // ${#NAME}: the length
      reference->op = text.substr(name_at, 1);
    }
    return true;
  }
  reference->name = head.name;
  const std::size_t after = name_at + head.name.size();
  switch (head.op_kind) {
    case ParameterHead::OperatorKind::kNone:  // `${NAME}` was answered above
      break;
    case ParameterHead::OperatorKind::kDefault:
    case ParameterHead::OperatorKind::kString:
      reference->kind = head.op_kind == ParameterHead::OperatorKind::kDefault ? RefKind::kBracedDefault
                                                                                : RefKind::kOperation;
      reference->op = head.op;
      reference->operand = text.substr(head.operand, close - head.operand);
      return true;
    case ParameterHead::OperatorKind::kBash:
      break;
  }
  reference->kind = RefKind::kShell;  // ${x@Q}, ${x*}: named, so that a declared x is noticed
  reference->operand = text.substr(after, close - after);
  return true;
}

// Scans `$(` at `dollar`: Kubernetes `$(NAME)`, else the opener of a command
// substitution `$(` or an arithmetic expansion `$((`. Only the opener is
// covered, so that the references inside (`$(echo "$NODE_IP")`) are found too.
void ScanParenthesized(std::string_view text, std::size_t dollar, std::size_t end, Reference* reference) {
  reference->offset = dollar;
  std::size_t name_at = dollar + 2;
  std::size_t name_length = NameLength(text, name_at, end);
  if (name_length > 0 && name_at + name_length < end && text[name_at + name_length] == ')') {
    reference->kind = RefKind::kKubernetes;
    reference->name = text.substr(name_at, name_length);
    reference->length = name_length + 3;
    return;
  }
  reference->kind = RefKind::kShell;
  reference->length = dollar + 2 < end && text[dollar + 2] == '(' ? 3 : 2;
}


}  // namespace

bool ParameterHead::NamedPlainly() const {
  return prefix == '\0' && !name.empty() && IsNameStart(name.front()) && subscript == std::string_view::npos;
}

ParameterHead ReadParameterHead(std::string_view text, std::size_t at, std::size_t end) {
  end = std::min(end, text.size());
  auto byte = [&](std::size_t i) { return i < end ? text[i] : '\0'; };
  ParameterHead head;
  std::size_t i = at;
  if ((byte(i) == '#' || byte(i) == '!') && byte(i + 1) != '}') head.prefix = text[i++];
  std::size_t length = NameLength(text, i, end);
  if (length == 0) {
    while (IsDigit(byte(i + length))) ++length;
  }
  if (length == 0 && IsBracedSpecialParameter(byte(i))) length = 1;
  head.name = text.substr(i, length);
  i += length;
  if (byte(i) == '[') {  // bash arrays: ${a[i]}
    head.subscript = i;
    while (i < end && text[i] != ']') ++i;
    head.subscript_close = i;
    if (i < end) ++i;
  }
  head.op = DefaultOperator(text, i, end);
  if (!head.op.empty()) {
    head.op_kind = ParameterHead::OperatorKind::kDefault;
  } else if (head.op = StringOperator(text, i, end); !head.op.empty()) {
    head.op_kind = ParameterHead::OperatorKind::kString;
  } else if (byte(i) == '@') {
    head.op = text.substr(i, 1);
    head.op_kind = ParameterHead::OperatorKind::kBash;
  }
  head.operand = i + head.op.size();
  return head;
}

void ScanReferences(std::string_view text, std::size_t begin, std::size_t end,
                    const std::function<void(const Reference&)>& emit,
                    const std::function<void(std::size_t offset)>& on_unterminated) {
  end = std::min(end, text.size());
  BraceMatcher braces(text, begin, end);
  std::size_t i = begin;
  while (i < end) {
    const void* found = std::memchr(text.data() + i, '$', end - i);
    if (found == nullptr) return;
    i = static_cast<std::size_t>(static_cast<const char*>(found) - text.data());
    if (i + 1 >= end) return;  // a lone `$` at the end
    const char next = text[i + 1];
    Reference reference;
    reference.offset = i;
    if (next == '$') {
      if (i + 2 < end && text[i + 2] == '{') {
        // `$${...}`: the Flux escape for a literal `${...}`.
        if (!ScanBraced(text, i + 1, end, &braces, &reference)) {
          on_unterminated(i + 1);
          i += 3;
          continue;
        }
        reference.kind = RefKind::kEscape;
        reference.offset = i;
        reference.length += 1;
      } else {
        reference.kind = RefKind::kDollarDollar;
        reference.length = 2;
      }
    } else if (next == '{') {
      if (!ScanBraced(text, i, end, &braces, &reference)) {
        on_unterminated(i);
        i += 2;
        continue;
      }
    } else if (next == '(') {
      ScanParenthesized(text, i, end, &reference);
    } else if (IsNameStart(next)) {
      std::size_t length = NameLength(text, i + 1, end);
      reference.kind = RefKind::kBare;
      reference.name = text.substr(i + 1, length);
      reference.length = length + 1;
    } else if (IsSpecialParameter(next)) {
      reference.kind = RefKind::kShell;
      reference.length = 2;
    } else {
      ++i;  // a lone `$`: not a reference of any kind
      continue;
    }
    emit(reference);
    i += reference.length;
  }
}

}  // namespace safesubst
