// SPDX-License-Identifier: Apache-2.0
// Checks on the raw template text that no YAML parser reports well: encoding
// (UTF-8 only, no NUL or other control character, no lone CR, no UTF-16),
// and the byte and line scans the readers of a stream share.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "safesubst/diagnostic.h"

namespace safesubst {

/// How many bytes of `text` equal `byte`, counting no further than
/// `stop_after` + 1: one memchr from each to the next, so meant for rare bytes.
std::size_t CountRareByte(std::string_view text, char byte, std::size_t stop_after = SIZE_MAX);

/// How many bytes of `text` equal `byte`, 16 at a time: for common bytes
/// such as line feeds.
std::size_t CountByte(std::string_view text, char byte);

/// Calls `visit(line)` with the offset of each line after the first whose
/// first byte is one of `first_bytes`, in order, until it returns false.
/// Line feeds are found 32 bytes at a time: it finds the few document markers
/// of a whole stream on one thread, before its pieces can be rendered.
void ForEachLineStartingWith(std::string_view text, std::string_view first_bytes,
                             const std::function<bool(std::size_t)>& visit);

/// True when the line starting at `line` is a document marker: `---` or
/// `...` followed by a blank, a line break or the end of the text.
bool IsDocumentMarkerLine(std::string_view text, std::size_t line);

/// Reports a UTF-16/32 byte order mark, NUL bytes, other C0 control
/// characters and DEL (YAML forbids them), a carriage return not followed by
/// a line feed (YAML and yaml-cpp read it differently) and invalid UTF-8, each
/// at its location (the first few of each kind, then a count).
Diagnostics CheckTextEncoding(std::string_view text, const std::string& file);

}  // namespace safesubst
