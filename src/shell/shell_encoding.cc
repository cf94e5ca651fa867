// SPDX-License-Identifier: Apache-2.0
// AppendShellEncoded: writes a value so that the shell reads it back as
// exactly that value, in the quoting state the lexer found at the placeholder,
// or refuses with a reason. Every message describes characters by name and
// never quotes the value, which may be sensitive.
//
// Why each unquoted-word character is refused (values are literal script
// text there, so IFS and field splitting of expansions do not matter; the
// shell's tokenizer, glob and expansions do):
//   blank, newline    end the word: the value becomes several arguments;
//                     yash also ends it at the Unicode blanks of a UTF-8
//                     locale (iswblank: U+1680, U+2000-2006, U+2008-200A,
//                     U+205F, U+3000), and iswspace adds U+2028 and U+2029
//   other controls    invisible; CR and friends confuse logs and some shells
//   ; & |             end the command and start another one
//   < >               add a redirection (create or overwrite a file)
//   ( )               subshell or syntax error
//   $ `               parameter expansion, command substitution
//   \ " '             change the quoting of the rest of the script
//   * ? [ ]           pathname expansion (glob)
//   { }               brace expansion in bash, ksh and zsh (`{a,b}`, `{1..9}`),
//                     and reserved words in command position everywhere
//   !                 the `!` reserved word; history expansion in interactive
//                     bash and zsh; `!(...)` with extglob
//   ~                 tilde expansion at a word start and after `=`/`:` in assignments
//   leading #         starts a comment (only at a word start: `a#b` is one word)
//   leading =         zsh's `=cmd` expands to the path of cmd
// Accepted: letters, digits, other non-ASCII characters, and `% + , - . / : = @ ^ _`.
// `^` was a pipe in the pre-POSIX Bourne shell and is a glob operator in zsh
// with EXTENDED_GLOB; neither applies to `sh -c` on a current system.
// Option injection (a value `-n` or `--help` where a command takes options)
// is not a quoting problem and is not detected here.
#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "program_encoding.h"
#include "references.h"
#include "shell.h"
#include "shell_lexer.h"
#include "utf8.h"

namespace safesubst {
namespace {

constexpr std::string_view kQuoteAdvice =
    "; put the placeholder inside double quotes, or declare the variable `shell: raw` if the value is "
    "meant to be shell code";

bool IsControl(unsigned char c) { return c < 0x20 || c == 0x7f; }

// The reason the byte `c` cannot stand in an unquoted word, or empty.
std::string_view UnquotedProblem(char c) {
  switch (c) {
    case ' ':
    case '\t':
    case '\n': return "whitespace (a space, tab or line break), which would split the word into several arguments";
    case ';':
    case '&':
    case '|': return "a semicolon, ampersand or vertical bar, which would end the command and start another one";
    case '<':
    case '>': return "an angle bracket, which would add a redirection";
    case '(':
    case ')': return "a parenthesis, which would start a subshell or end the construct around it";
    case '$':
    case '`': return "a dollar sign or backquote, which would start an expansion or a command substitution";
    case '\\':
    case '"':
    case '\'': return "a quote or backslash, which would change the quoting of the rest of the script";
    case '*':
    case '?':
    case '[':
    case ']':
      return "a glob character (asterisk, question mark or square bracket), which would expand to file names";
    case '{':
    case '}': return "a curly brace, which bash and zsh use for brace expansion";
    case '!': return "an exclamation mark, which negates a command and is history expansion in interactive shells";
    case '~': return "a tilde, which would expand to a home directory";
    default: break;
  }
  if (IsControl(static_cast<unsigned char>(c))) return "a control character";
  return {};
}

// A character some shell splits words at in a UTF-8 locale: yash takes
// iswblank() for blanks; the line separators of iswspace() are refused too,
// should a shell use that one.
bool IsUnicodeBlank(char32_t c) {
  return c == 0x1680 || (c >= 0x2000 && c <= 0x200a && c != 0x2007) || c == 0x2028 || c == 0x2029 ||
         c == 0x205f || c == 0x3000;
}

bool HasUnicodeBlank(std::string_view value) {
  for (std::size_t i = 0; i < value.size(); ++i) {
    if (static_cast<unsigned char>(value[i]) < 0x80) continue;
    char32_t code_point = 0;
    const std::size_t length = detail::DecodeUtf8(value, i, &code_point);
    if (length > 0 && IsUnicodeBlank(code_point)) return true;
    if (length > 0) i += length - 1;
  }
  return false;
}

bool IsReservedWord(std::string_view word) {
  for (std::string_view reserved : {"if", "then", "else", "elif", "fi", "do", "done", "case", "esac", "while",
                                    "until", "for", "in", "function", "select", "time", "coproc"}) {
    if (word == reserved) return true;
  }
  return false;
}

// The shells' assignments (IsShellAssignment), and zsh's to positional
// parameters: `1=x cmd` sets $1 there and runs cmd.
bool IsAnyShellsAssignment(std::string_view word) {
  if (IsShellAssignment(word)) return true;
  const std::size_t digits = std::min(word.find_first_not_of("0123456789"), word.size());
  return digits > 0 && (word.substr(digits).starts_with("=") || word.substr(digits).starts_with("+="));
}

// An unquoted word, a case pattern, an unquoted `${x-word}`, or any pattern
// of `${x#pattern}`: only values that the shell takes literally.
std::string CheckOrdinaryWord(const ShellContext& context, std::string_view value) {
  std::string where = context.parameter_word == ParameterWord::kPattern ? "in the pattern of a ${...} expansion"
                      : context.in_case_pattern                         ? "in an unquoted case pattern"
                                                                        : "in an unquoted shell word";
  if (value.empty() && context.whole_word) {
    return where + ", an empty value would remove the whole word (the command would get one argument less)" +
           std::string(kQuoteAdvice);
  }
  for (char c : value) {
    std::string_view problem = UnquotedProblem(c);
    if (!problem.empty())
      return where + ", the value contains " + std::string(problem) + std::string(kQuoteAdvice);
  }
  if (HasUnicodeBlank(value)) {
    return where + ", the value contains a Unicode space (such as U+3000), at which yash splits the word into "
                   "several arguments in a UTF-8 locale" +
           std::string(kQuoteAdvice);
  }
  if (context.word_start && !value.empty() && value[0] == '#') {
    return where + ", a value starting with a number sign would begin a comment" + std::string(kQuoteAdvice);
  }
  if (context.word_start && !value.empty() && value[0] == '=') {
    return where + ", a value starting with an equals sign is expanded by zsh as =command" +
           std::string(kQuoteAdvice);
  }
  if (context.command_word && IsAnyShellsAssignment(value)) {  // `[` of NAME[i]= is refused above
    return "as a command name, a value of the form NAME=... would become a variable assignment" +
           std::string(kQuoteAdvice);
  }
  // With the name before the placeholder (written `a`) and the `=` after it.
  if ((context.command_word || context.name_before) &&
      IsAnyShellsAssignment((context.name_before ? "a" : "") + std::string(value) + (context.equals_after ? "=" : ""))) {
    return "in a command name, the value would make the word a variable assignment (NAME=...) with the text "
           "around it, and the next word the command" +
           std::string(kQuoteAdvice);
  }
  if ((context.command_word || context.in_case_pattern) && context.whole_word && IsReservedWord(value)) {
    return where + ", the value is a shell reserved word, which would change the syntax of the script" +
           std::string(kQuoteAdvice);
  }
  return {};
}

std::string EncodeDoubleQuoted(const ShellContext& context, std::string_view value, std::string* out) {
  bool parameter_value = context.parameter_word == ParameterWord::kValue;
  if (context.bash_brace_expansion &&
      (value.find_first_of("{},") != std::string_view::npos || value.find("..") != std::string_view::npos)) {
    return "in a double-quoted string nested in \"${x-...}\", bash still applies brace expansion, so a value "
           "with a curly brace, comma or two dots could become several words; move the placeholder out of the "
           "${...}";
  }
  // mksh, posh and yash expand a `~` that begins the word of "${x-~user}" (in
  // a here-document too); an empty "" before it keeps it literal in every shell.
  if (parameter_value && !value.empty() && value[0] == '~') *out += "\"\"";
  for (char c : value) {
    if (parameter_value && c == '\'') {
      // dash reads a `'` in "${x:-...}" literally, bash looks for its closing quote.
      return "in the word of a double-quoted ${...} expansion, a value with a single quote is read "
             "differently by dash and bash; move the placeholder out of the ${...}";
    }
    if (parameter_value && context.inside_heredoc && c == '"') {
      // In ${x:-...} in a here-document, dash and bash read \" as a quote, zsh as a backslash and an opening
      // quote.
      return "in the word of a ${...} expansion inside a here-document, a value with a double quote is read "
             "differently by dash, bash and zsh; move the placeholder out of the ${...}";
    }
    if (c == '\\' || c == '"' || c == '$' || c == '`' || (parameter_value && c == '}')) *out += '\\';
    *out += c;
  }
  return {};
}

void EncodeSingleQuoted(std::string_view value, std::string* out) {
  for (char c : value) {
    if (c == '\'') {
      *out += "'\\''";  // close the quote, an escaped quote, reopen
    } else {
      *out += c;
    }
  }
}

std::string EncodeArithmetic(std::string_view value, std::string* out) {
  if (!IsShellInteger(value)) {
    return "in an arithmetic expansion only a decimal integer is accepted (optional minus sign, no leading "
           "zero, at most 18 digits): anything else would be evaluated as an expression";
  }
  *out += value;
  return {};
}

std::string EncodeForState(const ShellContext& context, std::string_view value, std::string* out) {
  if (context.parameter_word == ParameterWord::kPattern) {
    std::string error = CheckOrdinaryWord(context, value);
    if (error.empty()) *out += value;
    return error;
  }
  switch (context.state) {
    case ShellState::kDoubleQuoted: return EncodeDoubleQuoted(context, value, out);
    case ShellState::kSingleQuoted:
      EncodeSingleQuoted(value, out);
      return {};
    case ShellState::kDollarSingleQuoted:
      if (value.find_first_of("\\'") != std::string_view::npos) {
        return "inside $'...' (a bash extension that dash reads as a dollar sign and a single-quoted string), a "
               "value with a backslash or single quote cannot be written the same way for both; use '...' or "
               "\"...\" around the placeholder";
      }
      *out += value;
      return {};
    case ShellState::kUnquoted: {
      std::string error = CheckOrdinaryWord(context, value);
      if (error.empty()) *out += value;
      return error;
    }
    case ShellState::kComment:
      if (value.find('\n') != std::string_view::npos) {
        return "in a shell comment, a line break in the value would end the comment and run the rest as commands";
      }
      *out += value;
      return {};
    case ShellState::kHeredocLiteral:
      *out += value;
      return {};
    case ShellState::kHeredocExpanding:
      for (char c : value) {
        if (c == '\\' || c == '$' || c == '`') *out += '\\';
        *out += c;
      }
      return {};
    case ShellState::kArithmetic: return EncodeArithmetic(value, out);
  }
  return "unknown shell state";
}

// ---- here-document lines ------------------------------------------------

// A line of template text with its other placeholders as wildcards: the
// template may hold several placeholders on one body line, whose values are
// not known here.
struct Piece {
  bool wildcard = false;
  std::string text;
};

void AppendPieces(std::string_view text, std::vector<Piece>* pieces) {
  auto literal = [&](char c) {
    if (pieces->empty() || pieces->back().wildcard) pieces->push_back(Piece{});
    pieces->back().text += c;
  };
  for (std::size_t i = 0; i < text.size(); ++i) {
    bool braced = text[i] == '$' && i + 1 < text.size() && text[i + 1] == '{';
    bool bare = text[i] == '$' && i + 1 < text.size() && IsNameStart(text[i + 1]);
    if (!braced && !bare) {
      literal(text[i]);
      continue;
    }
    if (braced) {
      std::size_t close = text.find('}', i);
      i = close == std::string_view::npos ? text.size() : close;
    } else {
      ++i;
      while (i + 1 < text.size() && IsNameChar(text[i + 1])) ++i;
    }
    if (pieces->empty() || !pieces->back().wildcard) pieces->push_back(Piece{true, {}});
  }
}

// True when some text for the wildcards makes `pieces` equal to `target`.
bool CanMatch(const std::vector<Piece>& pieces, std::string_view target) {
  std::vector<bool> reachable(target.size() + 1, false);
  reachable[0] = true;
  for (const Piece& piece : pieces) {
    std::vector<bool> next(target.size() + 1, false);
    for (std::size_t at = 0; at <= target.size(); ++at) {
      if (!reachable[at]) continue;
      if (piece.wildcard) {
        for (std::size_t end = at; end <= target.size(); ++end) next[end] = true;
        break;
      }
      if (target.substr(at, piece.text.size()) == piece.text) next[at + piece.text.size()] = true;
    }
    reachable = std::move(next);
  }
  return reachable[target.size()];
}

bool AllTabs(std::string_view text) { return text.find_first_not_of('\t') == std::string_view::npos; }

// `encoded` is the value as it will stand in the body. Refuses a value that
// would put a line equal to the delimiter into the body, or lose leading tabs to `<<-`.
std::string CheckHeredocLines(const ShellContext& context, std::string_view encoded) {
  bool direct = context.state == ShellState::kHeredocLiteral || context.state == ShellState::kHeredocExpanding;
  if (!direct) {
    if (encoded.find('\n') == std::string_view::npos) return {};
    return "inside a construct within a here-document body, a multi-line value could end the here-document "
           "early; put the placeholder directly in the body or use a single-line value";
  }
  std::vector<std::string_view> lines;
  for (std::size_t start = 0;;) {
    std::size_t end = encoded.find('\n', start);
    lines.push_back(encoded.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start));
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  for (std::size_t i = 0; i < lines.size(); ++i) {
    bool first = i == 0;
    bool last = i + 1 == lines.size();
    bool at_line_start = !first || AllTabs(context.line_before);
    if (context.heredoc_strip_tabs && at_line_start && !lines[i].empty() && lines[i][0] == '\t') {
      return "in a <<- here-document, a value line starting with a tab would lose the tab (the shell strips "
             "leading tabs there)";
    }
    std::vector<Piece> pieces;
    if (first) AppendPieces(context.line_before, &pieces);
    if (pieces.empty() || pieces.back().wildcard) pieces.push_back(Piece{});
    pieces.back().text += lines[i];
    if (last) AppendPieces(context.line_after, &pieces);
    if (context.heredoc_strip_tabs && !pieces.empty() && !pieces.front().wildcard) {
      std::string& head = pieces.front().text;
      head.erase(0, std::min(head.find_first_not_of('\t'), head.size()));
    }
    if (CanMatch(pieces, context.heredoc_delimiter)) {
      return "in a here-document body, the value would make a line equal to the here-document's delimiter, "
             "which would end it early and run the rest as commands";
    }
  }
  return {};
}

// posh reads some places inside `$(...)` as unquoted text while it looks for
// the `)` that ends it (ShellContext::posh_scans_unquoted): a parenthesis or
// quote there ends the substitution early. In a double-quoted string the
// encoder's `\"` is read as escaped there too.
std::string CheckPoshScan(const ShellContext& context, std::string_view value) {
  if (!context.posh_scans_unquoted) return {};
  // Outside "..." a backslash too: at a line end it joins the next line to a comment.
  std::string_view breaking = context.state == ShellState::kDoubleQuoted ? "()'" : "()'\"\\";
  if (value.find_first_of(breaking) == std::string_view::npos) return {};
  return "inside $(...), posh reads this place (a comment, a here-document, or a double-quoted string within "
         "another one) as unquoted text while it looks for the end of the $(...), so a parenthesis or quote in "
         "the value would end it early; move the placeholder out of the $(...) or into a variable set outside it";
}

// A word a command evaluates (ShellContext::operand) takes only what it
// reads as a number or a name: in anything else, a subscript runs commands.
std::string CheckEvaluatedOperand(const ShellContext& context, std::string_view value) {
  // A name, or a number (a positional parameter, an element): no subscript either way.
  const bool name = !value.empty() && std::all_of(value.begin(), value.end(), IsNameChar);
  switch (context.operand) {
    case ShellOperand::kNone: return {};
    case ShellOperand::kArithmetic:
      if (std::string unused; EncodeArithmetic(value, &unused).empty()) return {};
      return "the value is evaluated as arithmetic here, by " + context.evaluated_by +
             ", where a subscript such as a[$(cmd)] runs a command, even in quotes: only a decimal integer is "
             "accepted (optional minus sign, no leading zero, at most 18 digits); declare the variable "
             "`shell: raw` if the value is meant to be shell code";
    case ShellOperand::kName:
      if (name) return {};
      return "the value is read as a variable name here, by " + context.evaluated_by +
             ", where a subscript such as a[$(cmd)] runs a command, even in quotes: only ASCII letters, digits "
             "and underscores are accepted; declare the variable `shell: raw` if the value is meant to be "
             "shell code";
    case ShellOperand::kLimit:
      if (std::string unused; EncodeArithmetic(value, &unused).empty()) return {};
      if (value == "unlimited" || value == "hard" || value == "soft") return {};
      return "the value is a limit of " + context.evaluated_by +
             ", which mksh evaluates as arithmetic, where a subscript such as a[$(cmd)] runs a command, even in "
             "quotes: only a decimal integer, `unlimited`, `hard` or `soft` is accepted; declare the variable "
             "`shell: raw` if the value is meant to be shell code";
    case ShellOperand::kEnvOperand:
      if (value.find('=') == std::string_view::npos) return {};
      return "the value would make the command word of " + context.evaluated_by +
             " a NAME=VALUE assignment (env reads any word with `=` so), and the next word its command: a value "
             "with `=` is refused here; declare the variable `shell: raw` if the value is meant to be shell code";
    case ShellOperand::kExpanded:
      if (value.find_first_of("$`\\'\"") == std::string_view::npos) return {};
      return "the value is assigned to " + context.evaluated_by +
             ", which the shell expands again (a prompt, or the name of a start-up file), running any $(...) "
             "or backticks in it: a value with `$`, a backtick, a backslash or a quote is refused; declare the "
             "variable `shell: raw` if the value is meant to be shell code";
    case ShellOperand::kProgramText:
    case ShellOperand::kProgramCode:
    case ShellOperand::kProgramEscaped:
    case ShellOperand::kProgramShellText:
    case ShellOperand::kProgramDoubled: return {};  // AppendProgramEncoded, before the shell's layer
  }
  return {};
}

void AddBacktickLayer(bool in_double_quotes, std::string* text) {
  std::string escaped;
  escaped.reserve(text->size() + text->size() / 8);
  for (char c : *text) {
    if (c == '\\' || c == '`' || c == '$' || (in_double_quotes && c == '"')) escaped += '\\';
    escaped += c;
  }
  *text = std::move(escaped);
}

// A value that would be code in a string that a program named by an
// expansion may run: the hint of `error` (how to change the quoting) does
// not help there, the program's name does.
std::string ReadAsCodeRefused(const ShellContext& context, const std::string& error) {
  const std::string reason = error.substr(0, error.find("; put the placeholder"));
  return "inside the string that " + context.sink + " runs, as code if that program is a shell: " + reason +
         "; name the program literally (or assign it a literal in the script), or declare the variable `shell: "
         "raw` if the value is meant to be shell code";
}

// Second-order code: the value is written for the inner reading first (the
// string a shell runs again), and that text is what the outer script must
// hand over, so it is then written for the outer reading.
std::string AppendRereadEncoded(const ShellContext& context, std::string_view value, std::string* out) {
  std::string inner;
  std::string error = AppendShellEncoded(context.reread.front(), value, ShellMode::kSafe, &inner);
  const bool maybe = std::any_of(context.other_readings.begin(), context.other_readings.end(),
                                 [](const OtherShellReading& reading) { return reading.shells == kReadAsData; });
  if (!error.empty() && maybe) return ReadAsCodeRefused(context, error);
  if (!error.empty()) return "inside the string that " + context.sink + " runs as code: " + error;
  ShellContext outer = context;
  outer.reread.clear();
  outer.other_readings.clear();  // AppendShellEncoded compares the readings of the whole
  error = AppendShellEncoded(outer, inner, ShellMode::kSafe, out);
  if (!error.empty()) {
    return "the value, written for the string that " + context.sink + " runs as code, cannot stand in the script: " +
           error;
  }
  return {};
}

// A value that a string run by a program named by an expansion would have to
// carry escaped if that program is a shell, and as it is if not.
std::string ReadAsDataDiffers(const ShellContext& context) {
  return "inside the string that " + context.sink +
         " runs: as code if that program is a shell, as data if not, and the value would have to be written "
         "differently for the two (it holds a quote, `\\`, `$` or backtick); name the program literally, or "
         "declare the variable `shell: raw` if the value is meant to be shell code";
}

// AppendShellEncoded for one shell's reading of the place.
std::string EncodeForReading(const ShellContext& context, std::string_view value, std::string* out) {
  if (!context.unsupported.empty())
    return "no value can be written at this place of the script: " + context.unsupported;
  if (!context.reread.empty()) return AppendRereadEncoded(context, value, out);
  // Another interpreter's program inside the script: its layer first (program_encoding.h).
  std::string program_text;
  std::string error = AppendProgramEncoded(context, value, ShellMode::kSafe, &program_text);
  if (!error.empty()) return error;
  value = program_text;
  std::string encoded;
  error = CheckPoshScan(context, value);
  if (error.empty()) error = EncodeForState(context, value, &encoded);
  if (error.empty() && context.inside_heredoc) error = CheckHeredocLines(context, encoded);
  if (error.empty()) error = CheckEvaluatedOperand(context, value);
  if (!error.empty()) return error;
  // Innermost backticks first: the outermost shell removes the outermost layer.
  for (auto layer = context.backtick_layers.rbegin(); layer != context.backtick_layers.rend(); ++layer) {
    AddBacktickLayer(*layer, &encoded);
  }
  out->append(encoded);
  return {};
}

}  // namespace

bool IsShellInteger(std::string_view value) {
  const std::string_view digits = value.substr(!value.empty() && value[0] == '-' ? 1 : 0);
  return !digits.empty() && digits.size() <= 18 && (digits == "0" || digits[0] != '0') &&
         digits.find_first_not_of("0123456789") == std::string_view::npos && value != "-0";
}

bool IsShellInert(std::string_view value) {
  auto inert = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           std::string_view("_./:@%+,-").find(c) != std::string_view::npos;
  };
  return !value.empty() && std::all_of(value.begin(), value.end(), inert);
}

std::string AppendShellEncoded(const ShellContext& context, std::string_view value, ShellMode mode,
                               std::string* out) {
  if (value.find('\0') != std::string_view::npos) {
    return "the value contains a NUL byte, which no shell script can hold";
  }
  if (mode == ShellMode::kRaw) {
    out->append(value);
    return {};
  }
  if (context.other_readings.empty()) return EncodeForReading(context, value, out);
  std::string encoded;
  std::string error = EncodeForReading(context, value, &encoded);
  if (!error.empty()) return error;
  for (const OtherShellReading& reading : context.other_readings) {
    std::string other;
    if (!EncodeForReading(reading.context, value, &other).empty() || other != encoded) {
      if (reading.shells == kReadAsData) return ReadAsDataDiffers(context);
      return "the shells that may run this script read this place differently (bash: " +
             DescribeShellContext(context) + "; " + reading.shells + ": " + DescribeShellContext(reading.context) +
             ") because of a construct before it that only some of them know ($'...', $[...] or ((...))), and "
             "the value cannot be written the same way for all of them; write the script for POSIX sh, or run "
             "it with bash (#!/bin/bash or `bash -c`)";
    }
  }
  out->append(encoded);
  return {};
}

}  // namespace safesubst
