// SPDX-License-Identifier: Apache-2.0
// The interpreter's layer of a value in program text: a field takes a value
// without the characters that would end it or make it code (the set is
// ShellContext::program_stops), or with them escaped (sed's `\&`, SQL's
// `''`); code takes only a decimal integer.
#include "program_encoding.h"

namespace safesubst {
namespace {

// "`/`, `\`, a newline or `&`": ShellContext::program_stops, for a message.
std::string ProgramStopList(std::string_view stops) {
  std::string list;
  for (std::size_t i = 0; i < stops.size(); ++i) {
    if (i > 0) list += i + 1 == stops.size() ? " or " : ", ";
    if (stops[i] == '\n') {
      list += "a newline";
    } else {
      list += stops[i] == '`' ? "`` ` ``" : "`" + std::string(1, stops[i]) + "`";
    }
  }
  return list;
}

// `stops`: the characters refused in the field.
std::string CheckProgramText(const ShellContext& context, std::string_view stops, std::string_view value) {
  // The set, not the character found: no piece of a sensitive value is ever printed.
  if (value.find_first_of(stops) == std::string_view::npos) return {};
  return "the value lands in the program text of " + context.evaluated_by + ", where " + ProgramStopList(stops) +
         " would end that part or turn it into code, and the value holds one of them; declare the variable "
         "`shell: raw` if the value is meant to be code";
}

std::string CheckProgramCode(const ShellContext& context, std::string_view value) {
  if (IsShellInteger(value)) return {};
  return "the value lands in the program text of " + context.evaluated_by +
         ", where it would run as code (outside the strings the renderer can delimit there, or in a program "
         "that runs its strings as code): only a decimal integer is accepted (optional minus sign, no leading "
         "zero, at most 18 digits); put the placeholder inside a string literal of the program, or declare the "
         "variable `shell: raw` if the value is meant to be code";
}

// A string of a program that starts commands may reach a shell, as a whole
// command line or a piece of one, in any of its quoting states.
std::string CheckShellBoundText(const ShellContext& context, std::string_view value) {
  if (value.empty() || (IsShellInert(value) && value.find_first_of(context.program_stops) == std::string_view::npos)) {
    return {};
  }
  return "the value lands in the program text of " + context.evaluated_by +
         ", whose strings may reach a shell: only ASCII letters, digits and `_ . / : @ % + , -` are accepted there" +
         (context.program_stops.empty() ? std::string() : " (and none of " + ProgramStopList(context.program_stops) + ")") +
         "; pass the value in the environment or as an argument instead, or declare the variable `shell: raw` if "
         "the value is meant to be code";
}

// sed's replacement: `\\` `&` the delimiter and a newline, each after a backslash.
void AppendEscaped(const ShellContext& context, std::string_view value, std::string* out) {
  for (char c : value) {
    if (context.program_stops.find(c) != std::string::npos) *out += '\\';
    *out += c;
  }
}

// SQL's literals: the quote, the first stop, twice (`it''s`); the other stops refused.
std::string AppendDoubled(const ShellContext& context, std::string_view value, std::string* out) {
  const std::string_view stops = context.program_stops;
  if (stops.empty()) return CheckProgramCode(context, value);
  if (std::string error = CheckProgramText(context, stops.substr(1), value); !error.empty()) return error;
  for (char c : value) {
    if (c == stops[0]) *out += c;
    *out += c;
  }
  return {};
}

}  // namespace

std::string AppendProgramEncoded(const ShellContext& context, std::string_view value, ShellMode mode,
                                 std::string* out) {
  if (mode == ShellMode::kSafe && context.operand == ShellOperand::kProgramEscaped) {
    AppendEscaped(context, value, out);
    return {};
  }
  std::string error;
  if (mode == ShellMode::kSafe && context.operand == ShellOperand::kProgramDoubled) {
    return AppendDoubled(context, value, out);
  }
  if (mode == ShellMode::kSafe && context.operand == ShellOperand::kProgramText) {
    error = CheckProgramText(context, context.program_stops, value);
  } else if (mode == ShellMode::kSafe && context.operand == ShellOperand::kProgramCode) {
    error = CheckProgramCode(context, value);
  } else if (mode == ShellMode::kSafe && context.operand == ShellOperand::kProgramShellText) {
    error = CheckShellBoundText(context, value);
  }
  if (error.empty()) out->append(value);
  return error;
}

}  // namespace safesubst
