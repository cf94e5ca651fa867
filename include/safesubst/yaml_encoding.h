// YAML-level encoding of substituted values (SPEC Rule 3, YAML part): how a
// value is written so that it keeps its meaning where it lands.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace safesubst {

/// What a plain scalar resolves to. The answer is the *union* of YAML 1.1 and
/// YAML 1.2 core schema: kubectl (go-yaml), PyYAML and yaml-cpp disagree, so a
/// string that any of them would read as a number, bool or null is not a string.
enum class PlainKind : std::uint8_t { kString, kNull, kBool, kInt, kFloat };

PlainKind ResolvePlain(std::string_view text);

/// True when `text`, written as (part of) a plain scalar, is read back as
/// exactly `text`: no leading indicator, no `: ` or ` #`, no leading/trailing
/// space, no line break, no control characters, and no flow indicators
/// (`,[]{}`) when `in_flow`.
bool FitsPlain(std::string_view text, bool in_flow);

/// Appends `value` escaped for the inside of a double-quoted scalar (`\` `"`,
/// control characters, line breaks, and non-printable code points).
void AppendDoubleQuotedBody(std::string_view value, std::string* out);

/// Appends `value` for the inside of a single-quoted scalar (`'` doubled).
/// Precondition: no line break in `value` (the caller requotes instead).
void AppendSingleQuotedBody(std::string_view value, std::string* out);

/// Appends `value` as content of a block scalar whose content lines are
/// indented by `indent` spaces: every line after the first gets the
/// indentation; empty lines stay empty. In a folded block (`folded`), each line
/// break of the value is written as an empty line so that it is not folded.
void AppendBlockBody(std::string_view value, std::uint32_t indent, bool folded, std::string* out);

/// Writes a complete double-quoted scalar (quotes included).
std::string DoubleQuoted(std::string_view value);

/// Encodes a `type: yaml` value (YAML text) as a node that replaces a plain
/// scalar standing as a mapping value or sequence item whose parent
/// indentation is `parent_indent`. Block style when `block_allowed` (the
/// placeholder is the whole scalar, at the end of its line, outside flow
/// collections), flow style otherwise. Returns false and sets `error` when the
/// value is not valid YAML.
bool EncodeYamlNode(std::string_view yaml_text, std::uint32_t parent_indent, bool block_allowed,
                    std::string* out, std::string* error);

}  // namespace safesubst
