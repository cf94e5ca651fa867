// SPDX-License-Identifier: Apache-2.0
// Scanning `$` forms inside a span of text (a scalar body or a comment).
//
// Shared by the tokenizer, the envsubst SHELL-FORMAT argument and the fragment
// loader, so that every part of safesubst agrees on what `${NAME:-x}` means.
#pragma once

#include <cstddef>
#include <functional>
#include <string_view>

#include "safesubst/tokenizer.h"

namespace safesubst {

/// Scans `text[begin, end)` for `$` forms. For each one, calls `emit` with a
/// Reference whose offset/length/kind/name/op/operand are filled in (line,
/// column, context and scalar are left for the caller). An unterminated `${`
/// is reported through `on_unterminated(offset)` and scanning continues after it.
///
/// Forms are reported in order and do not overlap. A braced form covers its
/// whole text up to the matching `}` (a default operand such as the `${B}` in
/// `${A:-${B}}` is part of it, not reported separately). A command substitution
/// `$(` or arithmetic expansion `$((` is reported as kShell covering only that
/// opener, so that the references inside it (`$(echo "$NODE_IP")`) are found.
/// A `$` followed by nothing that forms a reference (`$ `, `$'`, `$.`, a `$`
/// at the end) is not reported. The string operations of the Flux/clusterctl
/// dialect (`${X%.*}`, `${X/a/b}`, `${X:0:3}`, `${#X}`...) are kOperation with
/// their operator and operand; they are recognised by their shape alone, so
/// `${X,,pattern}` is one too and its evaluation refuses the operand.
/// `$${...}` is kEscape whatever is inside the braces.
void ScanReferences(std::string_view text, std::size_t begin, std::size_t end,
                    const std::function<void(const Reference&)>& emit,
                    const std::function<void(std::size_t offset)>& on_unterminated);

/// True for a character that may start a shell/envsubst variable name.
constexpr bool IsNameStart(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
}
constexpr bool IsNameChar(char c) { return IsNameStart(c) || (c >= '0' && c <= '9'); }

}  // namespace safesubst
