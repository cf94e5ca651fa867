#include "safesubst/references.h"

#include <algorithm>
#include <cstring>

namespace safesubst {

namespace {

constexpr std::size_t kNotFound = std::string_view::npos;

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// Length of the identifier starting at `at` (0 when none starts there).
std::size_t NameLength(std::string_view text, std::size_t at, std::size_t end) {
  if (at >= end || !IsNameStart(text[at])) return 0;
  std::size_t i = at + 1;
  while (i < end && IsNameChar(text[i])) ++i;
  return i - at;
}

// Offset of the `close` that balances the `open` at `at`, counting nested
// pairs, or kNotFound before `end`. Quotes are not special: envsubst and the
// Kubernetes expander do not treat them specially either.
std::size_t MatchingClose(std::string_view text, std::size_t at, std::size_t end, char open, char close) {
  int depth = 0;
  for (std::size_t i = at; i < end; ++i) {
    if (text[i] == open) {
      ++depth;
    } else if (text[i] == close && --depth == 0) {
      return i;
    }
  }
  return kNotFound;
}

// The default operators of `${NAME<op>word}`, longest first.
std::string_view DefaultOperator(std::string_view text, std::size_t at, std::size_t end) {
  auto is_op_char = [](char c) { return c == '-' || c == '=' || c == '?' || c == '+'; };
  if (at < end && text[at] == ':' && at + 1 < end && is_op_char(text[at + 1])) return text.substr(at, 2);
  if (at < end && is_op_char(text[at])) return text.substr(at, 1);
  return {};
}

// Scans the braced form whose `$` is at `dollar` (text[dollar + 1] == '{').
// Returns false when it has no closing brace.
bool ScanBraced(std::string_view text, std::size_t dollar, std::size_t end, Reference* reference) {
  std::size_t close = MatchingClose(text, dollar + 1, end, '{', '}');
  if (close == kNotFound) return false;
  reference->offset = dollar;
  reference->length = close + 1 - dollar;
  std::size_t name_at = dollar + 2;
  std::size_t name_length = NameLength(text, name_at, close);
  if (name_length == 0) {  // ${#x} ${!x} ${1} ${@} ${}: shell syntax
    reference->kind = RefKind::kShell;
    return true;
  }
  std::size_t after = name_at + name_length;
  if (after == close) {
    reference->kind = RefKind::kBraced;
    reference->name = text.substr(name_at, name_length);
    return true;
  }
  std::string_view op = DefaultOperator(text, after, close);
  if (op.empty()) {  // ${x[0]} ${x#pat} ${x%pat} ${x/a/b} ${x:1:2}
    reference->kind = RefKind::kShell;
    return true;
  }
  reference->kind = RefKind::kBracedDefault;
  reference->name = text.substr(name_at, name_length);
  reference->op = op;
  reference->operand = text.substr(after + op.size(), close - after - op.size());
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

bool IsSpecialParameter(char c) {
  return IsDigit(c) || c == '@' || c == '*' || c == '#' || c == '?' || c == '!' || c == '-';
}

}  // namespace

void ScanReferences(std::string_view text, std::size_t begin, std::size_t end,
                    const std::function<void(const Reference&)>& emit,
                    const std::function<void(std::size_t offset)>& on_unterminated) {
  end = std::min(end, text.size());
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
        if (!ScanBraced(text, i + 1, end, &reference)) {
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
      if (!ScanBraced(text, i, end, &reference)) {
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
