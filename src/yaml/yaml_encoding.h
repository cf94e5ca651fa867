// SPDX-License-Identifier: Apache-2.0
// YAML-level encoding of substituted values (SPEC Rule 3, YAML part): how a
// value is written so that it keeps its meaning where it lands.
//
// Values must be valid UTF-8 (see IsValidUtf8): YAML streams are Unicode text
// and no YAML escape can stand for a stray byte. The functions below do not
// fail on invalid UTF-8 but copy such bytes through unchanged, which yields a
// document parsers reject; the values stage is expected to refuse them first.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>


namespace safesubst {

/// What a plain scalar resolves to. The answer is the *union* of YAML 1.1 and
/// YAML 1.2 core schema: kubectl (go-yaml), PyYAML and yaml-cpp disagree, so a
/// string that any of them would read as a number, bool or null is not a string.
enum class PlainKind : std::uint8_t {
  kString,
  kNull,
  kBool,
  kInt,
  kFloat,
  kTimestamp,  ///< YAML 1.1 timestamp (`2001-12-14`, `2001-12-14T21:59:43Z`): a date in PyYAML
  kOther,      ///< YAML 1.1 `<<` (merge key) or `=` (value key): not a plain string for PyYAML
};

/// Resolves the text of a plain scalar (after line folding) to its kind, as
/// the most eager of YAML 1.1 and 1.2 readers would. Never allocates.
PlainKind ResolvePlain(std::string_view text);

/// True for the plain texts every YAML 1.1 and 1.2 reader takes for the same
/// integer or bool: a decimal integer without leading zeros (`0`, `3`, `-12`)
/// and `true` / `false`.
bool IsDecimalIntOrBool(std::string_view text);

/// True when `text`, written on its own as a whole plain scalar, is read back as
/// exactly `text`: not empty, no leading indicator (`-?:` followed by a space or
/// the end, or one of `,[]{}#&*!|>'"%@` and backtick), no `---`/`...` marker,
/// no `: ` or ` #` and no trailing `:`, no leading/trailing space, no tab, no
/// line break (including YAML 1.1's NEL, LS, PS), only printable code points
/// (no control characters, DEL, C1 controls, BOM, non-characters, invalid
/// UTF-8), and when `in_flow`: none of `,[]{}` and, because older libyaml-based
/// parsers (go-yaml v2, PyYAML) stop or fail there, no `:` and no `?` at all.
///
/// It says nothing about the type: callers also check ResolvePlain. When the
/// value lands *inside* a plain scalar, use SplicedPlainIsSafe instead: a `#`
/// after a template space, or a `:` before a template space, only forms a
/// comment or a mapping indicator across the boundary.
bool FitsPlain(std::string_view text, bool in_flow);

/// True when the plain scalar that results from writing `value` between the
/// template text `before` and `after` (the raw bytes of the same plain scalar
/// before and after the placeholder; either may be empty, and may hold line
/// breaks of a multi-line plain scalar) still reads back as
/// before + value + after: FitsPlain of the line the value lands on, with
/// the line's indentation and trailing white space left aside. Like FitsPlain
/// it says nothing about the type of the result (check ResolvePlain on the
/// whole rendered scalar), nor about the 1024-character limit of implicit keys.
bool SplicedPlainIsSafe(std::string_view before, std::string_view value, std::string_view after,
                        bool in_flow);

/// True when `value` can be written inside a single-quoted scalar and read back
/// exactly: printable code points only, no line break of any kind (single
/// quotes have no escapes, and a raw break would be folded).
bool FitsSingleQuoted(std::string_view value);

/// True when `value` can be written as (part of) the content of a block scalar:
/// printable code points, tabs and `\n` only. A `\r`, NEL, LS or PS would be
/// read as a line break (normalised to `\n`), and control characters cannot be
/// escaped in a block scalar. See AppendBlockBody for the other duties.
bool FitsBlock(std::string_view value);

/// True when `text` is well-formed UTF-8 (no overlong forms, no surrogates,
/// nothing above U+10FFFF).
bool IsValidUtf8(std::string_view text);

/// Appends `value` escaped for the inside of a double-quoted scalar: `\` and
/// `"`; C0 controls as `\0 \a \b \t \n \v \f \r \e` or `\xNN`; DEL and C1
/// controls (NEL included: yaml-cpp misreads `\N`) as `\xNN`; LS and PS as
/// `\L` and `\P`; BOM and the
/// non-characters U+FFFE/U+FFFF as `\uNNNN`. Other code points (including
/// non-ASCII letters, NBSP and emoji) are copied as they are. The result never
/// contains a raw line break, so it is safe in any double-quoted scalar.
void AppendDoubleQuotedBody(std::string_view value, std::string* out);

/// Appends `value` for the inside of a single-quoted scalar (`'` doubled).
/// Precondition: FitsSingleQuoted(value) (the caller requotes otherwise).
void AppendSingleQuotedBody(std::string_view value, std::string* out);

/// Appends `value` as content of a block scalar whose content lines are
/// indented by `indent` spaces. The first line of the value continues the
/// template line the placeholder is on; every later line gets `indent` spaces;
/// empty lines stay empty (no trailing spaces), except the value's last line,
/// which is always indented because template text may follow the placeholder.
///
/// In a folded block (`folded`) a line break between two text lines would be
/// read as a space, so such a break is written with an extra empty line; breaks
/// next to "more-indented" lines (lines starting with a space or tab) and next
/// to empty lines are kept as they are, because folding does not apply to them.
/// `line_before` is the template text between the indentation of the
/// placeholder's line and the placeholder; `line_after` the text after it up to
/// the line break. Both only matter when `folded`; empty means the placeholder
/// stands alone on its line.
///
/// Reading back `value` exactly is guaranteed for the line breaks inside the
/// value. The caller's duties:
///  * FitsBlock(value) must hold.
///  * Auto-detected indentation: when the value's first line is the first
///    content line of the block and starts with a space, the block's
///    indentation would be detected from it. Use an indentation indicator
///    (`|2`) or requote.
///  * Folded blocks, at the value's edges: a value line starting with a space
///    or tab that lands at the start of a template line turns that line into a
///    more-indented line, so the template's own line break before/after it no
///    longer folds into a space; and a value that starts or ends with a line
///    break next to a template line break that folds cannot be represented.
///    Requote (or use a literal block) in these cases. Breaks inside the value
///    are always exact.
///  * Chomping: trailing line breaks of a value at the end of the block are
///    dropped by clip (`|`) and strip (`|-`) chomping.
///  * With `indent` 0 (a top-level block scalar), a value line `---` or `...`
///    would end the document.
/// Literal blocks need none of the folding duties: leading spaces of a value
/// line are content there.
void AppendBlockBody(std::string_view value, std::uint32_t indent, bool folded, std::string* out,
                     std::string_view line_before = {}, std::string_view line_after = {});

/// Writes a complete double-quoted scalar (quotes included).
std::string DoubleQuoted(std::string_view value);

}  // namespace safesubst
