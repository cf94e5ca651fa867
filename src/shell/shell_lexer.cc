// SPDX-License-Identifier: Apache-2.0
// The shell lexer behind ShellContextsAt: one forward pass over a POSIX sh
// script that knows, at every byte, the quoting state a placeholder there
// would be in.
//
// It is a recursive-descent reader over the *template* text. Each construct
// (a quoted string, `${...}`, `$(...)`, a comment, a here-document body)
// pushes a Frame while it is being read; the context at a position is built
// from the frame stack. Backtick substitutions are special: their text is
// first un-escaped (`\\` `\`` `\$`, and `\"` inside double quotes), exactly as
// the shell does, and the result is read by a child Lexer; offsets are mapped
// back so that contexts and problems still point into the caller's script.
//
// The lexer never fails: malformed input (an unterminated quote, `$(`, `${`,
// here-document) is reported as a problem and lexing continues to the end.
#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <numeric>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "shell_lexer.h"

#include "references.h"
#include "shell.h"

namespace safesubst {
namespace {

// Nesting deeper than this is refused rather than risking the stack on a
// hostile template; real scripts nest a handful of levels.
constexpr std::size_t kMaxNesting = 100;

constexpr bool IsBlank(char c) { return c == ' ' || c == '\t'; }
constexpr bool IsOperatorChar(char c) {
  return c == ';' || c == '&' || c == '|' || c == '<' || c == '>' || c == '(' || c == ')';
}

// Character classes, one bit per reader: the bit is set for the characters
// that reader must look at one by one. Every other character only moves the
// reader forward, so a run of them is skipped in one go (SkipOrdinary).
using CharClass = std::uint16_t;
constexpr CharClass kEndsWord = 1 << 0;            // blank, newline, operator: ends an unquoted word
constexpr CharClass kStopsWord = 1 << 1;           // kEndsWord and \ ' " $ `
constexpr CharClass kStopsDouble = 1 << 2;         // in "...": " \ $ `
constexpr CharClass kStopsParameter = 1 << 3;      // in ${...}: } \ " ' $ ` /
constexpr CharClass kStopsArithmetic = 1 << 4;     // in $((...)): ( ) [ ] \ $ `
constexpr CharClass kStopsHeredoc = 1 << 5;        // in an unquoted here-document body: \ $ `
constexpr CharClass kStopsSingle = 1 << 6;         // in '...': '
constexpr CharClass kStopsDollarSingle = 1 << 7;   // in $'...': \ '
constexpr CharClass kStopsComment = 1 << 8;        // in a comment: newline

constexpr std::array<CharClass, 256> MakeCharClasses() {
  std::array<CharClass, 256> classes{};
  auto add = [&classes](std::string_view chars, CharClass bits) {
    for (char c : chars) classes[static_cast<unsigned char>(c)] |= bits;
  };
  add(" \t\n;&|<>()", kEndsWord | kStopsWord);
  add("\\'\"$`", kStopsWord);
  add("\"\\$`", kStopsDouble);
  add("}\\\"'$`/", kStopsParameter);
  add("()[]\\$`", kStopsArithmetic);
  add("\\$`", kStopsHeredoc);
  add("'", kStopsSingle);
  add("\\'", kStopsDollarSingle);
  add("\n", kStopsComment);
  return classes;
}
constexpr std::array<CharClass, 256> kCharClasses = MakeCharClasses();

constexpr bool HasClass(char c, CharClass bits) {
  return (kCharClasses[static_cast<unsigned char>(c)] & bits) != 0;
}

// A character that ends an unquoted word.
constexpr bool EndsWord(char c) { return HasClass(c, kEndsWord); }

// The table's word ends are exactly those of the predicates above.
constexpr bool WordEndsAgree() {
  for (int i = 0; i < 256; ++i) {
    char c = static_cast<char>(i);
    if (EndsWord(c) != (IsBlank(c) || c == '\n' || IsOperatorChar(c))) return false;
  }
  return true;
}
static_assert(WordEndsAgree());
bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsSpecialParameter(char c) {
  return c == '@' || c == '*' || c == '#' || c == '?' || c == '-' || c == '$' || c == '!' || IsDigit(c);
}

// Whether the name at [begin, end) of an arithmetic expression is assigned:
// `=` (not `==`), `++`, `--` or an operator with `=` after it, or `++`/`--`
// before it.
bool ArithmeticAssigns(std::string_view text, std::size_t begin, std::size_t end) {
  std::size_t after = end;
  while (after < text.size() && (text[after] == ' ' || text[after] == '\t' || text[after] == '\r')) ++after;
  const char next = after < text.size() ? text[after] : '\0';
  const char next2 = after + 1 < text.size() ? text[after + 1] : '\0';
  const bool assigns = (next == '=' && next2 != '=') || ((next == '+' || next == '-') && next2 == next) ||
                       (std::string_view("+-*/%&|^").find(next) != std::string_view::npos && next2 == '=');
  const bool pre_increment = begin >= 2 && ((text[begin - 1] == '+' && text[begin - 2] == '+') ||
                                            (text[begin - 1] == '-' && text[begin - 2] == '-'));
  return assigns || pre_increment;
}

// Operators and words looked up in order (longest first where one is a
// prefix of another). Arrays of string_view, so that no length is counted
// at run time.
constexpr std::string_view kCaseItemEnds[] = {";;&", ";;", ";&"};
constexpr std::string_view kRedirections[] = {"<<<", "&>>", ">>", ">&", ">|", "<&", "<>", "&>", "<", ">"};
constexpr std::string_view kSeparators[] = {"&&", "||", "|&", ";", "&", "|"};
// Reserved words (and `time`) after which the next word is still a command name.
constexpr std::string_view kKeepCommandPosition[] = {"if",    "then", "else", "elif", "do",
                                                     "while", "until", "!", "{", "time"};
// Reserved words that close a compound command (the next word is not a command name).
constexpr std::string_view kClosingReservedWords[] = {"fi", "done", "}", "esac"};

struct Heredoc {
  std::string delimiter;
  bool quoted = false;      // any quoting in the delimiter word: the body is literal
  bool strip_tabs = false;  // `<<-`
};

// Where a `case` command is: `case SUBJECT in PATTERN) BODY ;; ... esac`.
enum class CaseStep : std::uint8_t { kSubject, kIn, kPattern, kInPattern, kBody };

// The reading state of one command list: the script itself, or the inside of
// a `$(...)` or of backticks.
struct CommandList {
  bool command_start = true;     // the next word is in command position
  bool redirect_target = false;  // the next word is a redirection's operand
  bool word_started = false;     // some of the current word has been read
  bool word_is_command = false;  // the current word is a command name
  std::size_t word_begin = 0;    // where the current word starts
  bool in_pattern_word = false;  // the current word is a case pattern
  bool function_name = false;    // the next word names a function (`function NAME { ...; }`)
  int paren_depth = 0;           // open `(` subshells
  std::vector<CaseStep> cases;   // innermost last
  std::vector<Heredoc> pending;  // here-documents whose bodies start at the next newline
};

enum class FrameKind : std::uint8_t {
  kCommands,
  kSingle,
  kDollarSingle,
  kDouble,
  kParameter,
  kArithmetic,
  kComment,
  kHeredoc,
  kDelimiter
};

struct Frame {
  FrameKind kind = FrameKind::kCommands;
  CommandList* commands = nullptr;            // kCommands
  bool substitution = false;                  // kCommands: the inside of `$(...)`
  bool in_double_quotes = false;              // kParameter: the `${` stands in double quotes (or a here-document)
  ParameterWord word = ParameterWord::kNone;  // kParameter
  bool saw_single_quote = false;              // kParameter: a literal `'` in "${x-...}" so far
  bool assigns = false;                       // kParameter: `${x=word}` or `${x:=word}`
  const Heredoc* heredoc = nullptr;           // kHeredoc
};

// What surrounds a Lexer's whole text: nothing for the script itself, the
// enclosing constructs for the inside of a backtick substitution.
struct Surroundings {
  std::size_t substitution_depth = 0;
  std::vector<bool> backtick_layers;
  bool in_backticks = false;
  bool inside_heredoc = false;
  /// Inside "`...`" whose text has double quotes of its own (`"`cmd "$x"`"`):
  /// POSIX leaves that unspecified, and bash brace-expands the outer word
  /// with a quote tracking that takes the inner quotes as the outer ones' end,
  /// so a value's `{a,b}` became two words there. No value is written there.
  bool quotes_inside_quoted_backticks = false;
  /// Inside a `$(...)`: how many "..." enclose the text inside the outermost
  /// one (PoshScansUnquoted); -1 outside every `$(...)`.
  int quotes_in_substitution = -1;
  std::size_t nesting = 0;
};

// The places a Lexer answers, in text order. A script's are the caller's
// offsets, read where they are: a script may hold millions of placeholders,
// and a record of each would cost more than the script. Those of a backtick
// substitution (or of a caller's unsorted offsets) are kept here, mapped.
class Queries {
 public:
  /// `sorted` (outliving this), each answered to its own position.
  explicit Queries(std::span<const std::size_t> sorted = {}) : offsets_(sorted) {}
  /// `offsets` in text order; `indexes[i]`: the answer offsets[i] goes to;
  /// `after_backslash[i]`: it is right after a backslash a parent Lexer removed.
  Queries(std::vector<std::size_t> offsets, std::vector<std::size_t> indexes, std::vector<bool> after_backslash)
      : kept_offsets_(std::move(offsets)),
        indexes_(std::move(indexes)),
        after_backslash_(std::move(after_backslash)),
        offsets_(kept_offsets_) {}
  Queries(Queries&&) = default;  // a moved vector keeps its buffer: offsets_ stays valid
  Queries& operator=(Queries&&) = delete;

  std::size_t size() const { return offsets_.size(); }
  std::size_t offset(std::size_t query) const { return offsets_[query]; }
  std::size_t index(std::size_t query) const { return indexes_.empty() ? query : indexes_[query]; }
  bool after_backslash(std::size_t query) const { return !after_backslash_.empty() && after_backslash_[query]; }

 private:
  std::vector<std::size_t> kept_offsets_;
  std::vector<std::size_t> indexes_;
  std::vector<bool> after_backslash_;
  std::span<const std::size_t> offsets_;
};

// The offset of "no query left".
constexpr std::size_t kNoOffset = std::numeric_limits<std::size_t>::max();

// The constructs on which the shells that may run a script disagree
// (ScriptShells): bash reads them all; dash none; busybox ash `$'...'` only.
// Where a shell does not know one, it reads its characters as ordinary ones:
// `$'a'` as `$` and '...', `$[1]` as `$` and a word, `((` as two subshells.
struct Dialect {
  const char* name;
  bool dollar_single_quotes;
  bool bash_arithmetic;  // `((...))` commands and `$[...]`
};
constexpr Dialect kBashDialect{"bash", true, true};
constexpr Dialect kDashDialect{"dash", false, false};
constexpr Dialect kBusyboxDialect{"busybox sh", true, false};

// Shared by a Lexer and its children.
struct Output {
  Dialect dialect = kBashDialect;
  std::vector<ShellContext>* contexts = nullptr;
  /// Instead of `contexts`: takes each context as soon as it is read.
  const TakeShellContext* take = nullptr;
  std::vector<std::pair<std::size_t, std::string>> problems;  // root offset, message
  bool too_deep = false;
  /// Problems are reported: the whole script must be read. Otherwise lexing
  /// stops at the first command boundary after the last query is answered
  /// (a script's placeholders are usually near its top).
  bool want_problems = true;
  /// The reader of ReadShell's events, or none (ShellContextsAt).
  ShellEvents* events = nullptr;
};

constexpr std::string_view kAfterBackslash =
    "the placeholder follows a backslash, which would escape the value's first character";

class Lexer {
 public:
  // `to_root` maps an offset of `text` to an offset of the root script (empty: identity).
  Lexer(std::string_view text, Queries queries, Surroundings around, std::vector<std::size_t> to_root,
        Output* output)
      : text_(text),
        limit_(text.size()),
        queries_(std::move(queries)),
        around_(std::move(around)),
        to_root_(std::move(to_root)),
        output_(output) {}

  void Run() {
    frames_.reserve(8);  // real scripts nest a few levels: one allocation, not one per level
    CommandList top;
    LexCommands(&top, /*substitution=*/false);
    if (!top.pending.empty()) Problem(text_.size(), "a here-document has no body (no line follows its <<)");
    CommandList end;
    frames_.push_back(Frame{FrameKind::kCommands, &end});
    pos_ = text_.size();
    while (next_ < queries_.size()) Record(next_++, {});
    frames_.pop_back();
  }

 private:
  // ---- positions and queries --------------------------------------------
  char At(std::size_t i) const { return i < limit_ ? text_[i] : '\0'; }
  char Peek(std::size_t ahead = 0) const { return At(pos_ + ahead); }
  // The first-character test is a shortcut: operators are looked up in lists, most of them do not match.
  bool LooksAt(std::string_view s) const {
    return pos_ + s.size() <= limit_ && text_[pos_] == s[0] && text_.substr(pos_, s.size()) == s;
  }

  bool Answered() const { return !output_->want_problems && next_ == queries_.size(); }

  std::size_t NextOffset() const { return next_ < queries_.size() ? queries_.offset(next_) : kNoOffset; }

  // Records every query at or before the current position. Called at nearly
  // every character, so only the test is inline.
  void Visit() {
    if (NextOffset() <= pos_) RecordDue();
  }

  [[gnu::noinline]] void RecordDue() {
    while (NextOffset() <= pos_) Record(next_++, {});
  }

  // Moves over the characters that have none of the bits `stops`, up to the
  // limit or the next query: the caller's loop would step over them one at a
  // time, with nothing to record and nothing but the position to change.
  void SkipOrdinary(CharClass stops) {
    std::size_t end = std::min(limit_, NextOffset());
    while (pos_ < end && !HasClass(text_[pos_], stops)) ++pos_;
  }

  // At a backslash that escapes the next character: a placeholder right after
  // it would lose its first character to the escape.
  void SkipEscape() {
    Visit();
    if (NextOffset() == pos_ + 1) Record(next_++, kAfterBackslash);
    pos_ = std::min(pos_ + 2, limit_);
  }

  // Every query is recorded exactly once, so its slot still holds a
  // default-constructed context: it is filled in place, not built and moved.
  void Record(std::size_t query, std::string_view unsupported) {
    ShellContext taken;
    ShellContext& context = output_->take != nullptr ? taken : (*output_->contexts)[queries_.index(query)];
    FillContext(queries_.offset(query), &context);
    if (queries_.after_backslash(query)) context.unsupported = kAfterBackslash;
    if (!unsupported.empty()) context.unsupported = unsupported;
    if (output_->too_deep) context.unsupported = "the script nests constructs too deeply to be read safely";
    if (around_.quotes_inside_quoted_backticks) {
      context.unsupported = "inside a double-quoted `...` command substitution with double quotes of its own, which "
                            "the shells read differently (bash brace-expands the value there); write $(...) instead";
    }
    if (output_->take != nullptr) (*output_->take)(queries_.index(query), std::move(taken));
  }

  void Problem(std::size_t offset, std::string message) {
    std::size_t root = offset;
    if (!to_root_.empty()) root = offset < to_root_.size() ? to_root_[offset] : to_root_.back() + 1;
    output_->problems.emplace_back(root, std::move(message));
  }

  // ---- events (ReadShell only) -------------------------------------------
  ShellEvents* Events() const { return output_->events; }

  // Word text is sent for the characters of the word being read directly,
  // not for those of a `${...}` or `$(...)` inside it: `quote_frames` is 1
  // for the inside of a quote the word opened.
  bool SendsWordText(std::size_t quote_frames) const {
    return output_->events != nullptr && word_frames_ != kNoOffset && frames_.size() == word_frames_ + quote_frames;
  }

  void SendCommandEnd(bool piped = false) {
    if (Events() != nullptr) Events()->CommandEnd(piped);
  }

  // The end of the `$NAME` / `${...}` form at `offset` (or `offset` itself).
  std::size_t PlaceholderEnd(std::size_t offset) const {
    if (At(offset) != '$') return offset;
    if (At(offset + 1) == '{') {
      int depth = 0;
      for (std::size_t i = offset + 1; i < limit_; ++i) {
        if (text_[i] == '{') ++depth;
        if (text_[i] == '}' && --depth == 0) return i + 1;
      }
      return limit_;
    }
    std::size_t i = offset + 1;
    if (!IsNameStart(At(i))) return i;
    while (IsNameChar(At(i))) ++i;
    return i;
  }

  // [begin, end) holds only name characters and `$NAME`/`${NAME}` forms
  // (placeholders, whose values are not known here): with a value, it may be
  // the name of an assignment.
  bool MayBeName(std::size_t begin, std::size_t end) const {
    if (begin >= end || !(IsNameStart(At(begin)) || At(begin) == '$' || At(begin) == '\\')) return false;
    for (std::size_t i = begin; i < end;) {
      if (IsNameChar(At(i))) {
        ++i;
      } else if (At(i) == '\\' && At(i + 1) == '\n') {  // a line continuation joins the word
        i += 2;
      } else if (At(i) == '$' && (IsNameStart(At(i + 1)) || At(i + 1) == '{')) {
        const std::size_t form_end = PlaceholderEnd(i);
        if (form_end > end || text_.substr(i, form_end - i).find_first_of(":-+=?#%/") != std::string_view::npos) {
          return false;
        }
        i = form_end;
      } else {
        return false;
      }
    }
    return true;
  }

  // Name characters and then `=`, `+=` or `[` at `at`: what a name needs to be assigned.
  bool NameAndEqualsAt(std::size_t at) const {
    while (IsNameChar(At(at)) || (At(at) == '\\' && At(at + 1) == '\n')) at += At(at) == '\\' ? 2 : 1;
    return At(at) == '=' || At(at) == '[' || (At(at) == '+' && At(at + 1) == '=');
  }

  ShellContext MakeContext(std::size_t offset) const {
    ShellContext context;
    FillContext(offset, &context);
    return context;
  }

  // Fills a default-constructed `context` with the context at `offset`.
  void FillContext(std::size_t offset, ShellContext* out) const {
    ShellContext& context = *out;
    if (!around_.backtick_layers.empty()) context.backtick_layers = around_.backtick_layers;
    context.inside_heredoc = around_.inside_heredoc;
    std::size_t depth = around_.substitution_depth;
    bool in_backticks = around_.in_backticks;
    for (const Frame& frame : frames_) {
      if (frame.kind == FrameKind::kCommands && frame.substitution) {
        ++depth;
        in_backticks = false;
      }
      if (frame.kind == FrameKind::kHeredoc) context.inside_heredoc = true;
      // Quotes (or a substitution) inside an arithmetic expression do not keep
      // a value from being evaluated there; directly inside, the state says it.
      if (frame.kind == FrameKind::kArithmetic && &frame != &frames_.back()) {
        context.operand = ShellOperand::kArithmetic;
        context.evaluated_by = "an arithmetic expression";
      }
    }
    context.substitution_depth = static_cast<std::uint8_t>(std::min<std::size_t>(depth, 255));
    context.in_backticks = in_backticks;
    for (auto frame = frames_.rbegin(); frame != frames_.rend(); ++frame) {
      if (frame->kind == FrameKind::kCommands) {
        context.in_case_pattern = frame->commands->in_pattern_word;
        break;
      }
    }
    context.posh_scans_unquoted = PoshScansUnquoted();
    const Frame& top = frames_.back();
    switch (top.kind) {
      case FrameKind::kCommands: {
        const CommandList& commands = *top.commands;
        context.state = ShellState::kUnquoted;
        context.word_start = !commands.word_started;
        context.command_word = context.word_start && commands.word_is_command;
        std::size_t end = PlaceholderEnd(offset);
        context.whole_word = context.word_start && (end >= limit_ || EndsWord(text_[end]));
        if (commands.word_is_command) {
          context.name_before = !context.word_start && MayBeName(commands.word_begin, offset);
          context.equals_after = (context.word_start || context.name_before) && NameAndEqualsAt(end);
        }
        break;
      }
      case FrameKind::kSingle: context.state = ShellState::kSingleQuoted; break;
      case FrameKind::kDollarSingle: context.state = ShellState::kDollarSingleQuoted; break;
      case FrameKind::kDouble: {
        context.state = ShellState::kDoubleQuoted;
        const Frame* below = frames_.size() >= 2 ? &frames_[frames_.size() - 2] : nullptr;
        context.bash_brace_expansion = below != nullptr && below->kind == FrameKind::kParameter &&
                                       below->in_double_quotes && below->word == ParameterWord::kValue;
        if (below != nullptr && below->kind == FrameKind::kParameter) RefuseUnquotedAssignment(*below, &context);
        break;
      }
      case FrameKind::kParameter:
        context.state = top.in_double_quotes ? ShellState::kDoubleQuoted : ShellState::kUnquoted;
        context.parameter_word = top.word;
        RefuseUnquotedAssignment(top, &context);
        if (top.word == ParameterWord::kNone) context.unsupported = "inside the name part of a ${...} expansion";
        if (top.saw_single_quote) {
          context.unsupported = "after a single quote inside \"${x-...}\", which dash and bash read differently";
        }
        break;
      case FrameKind::kArithmetic: context.state = ShellState::kArithmetic; break;
      case FrameKind::kComment: context.state = ShellState::kComment; break;
      case FrameKind::kHeredoc: {
        context.state = top.heredoc->quoted ? ShellState::kHeredocLiteral : ShellState::kHeredocExpanding;
        context.heredoc_delimiter = top.heredoc->delimiter;
        context.heredoc_strip_tabs = top.heredoc->strip_tabs;
        std::size_t line_start = text_.rfind('\n', offset == 0 ? 0 : offset - 1);
        line_start = (line_start == std::string_view::npos || offset == 0) ? 0 : line_start + 1;
        context.line_before.assign(text_.substr(line_start, offset - line_start));
        std::size_t end = std::min(PlaceholderEnd(offset), limit_);
        std::size_t line_end = std::min(text_.find('\n', end), limit_);
        context.line_after.assign(text_.substr(end, line_end - end));
        break;
      }
      case FrameKind::kDelimiter:
        context.state = ShellState::kUnquoted;
        context.unsupported = "in a here-document delimiter, which decides where the here-document ends";
        break;
    }
  }

  // The "..." around the current position inside the outermost `$(...)`, or
  // -1 outside every `$(...)`.
  int QuotesInSubstitution() const {
    int quotes = around_.quotes_in_substitution;
    for (const Frame& frame : frames_) {
      if (frame.kind == FrameKind::kCommands && frame.substitution && quotes < 0) quotes = 0;
      if (frame.kind == FrameKind::kDouble && quotes >= 0) ++quotes;
    }
    return quotes;
  }

  // posh finds the end of a `$(...)` with a scanner that knows one level of
  // double quotes and neither comments nor here-documents (see ShellContext).
  bool PoshScansUnquoted() const {
    if (QuotesInSubstitution() >= 2) return true;
    for (auto frame = frames_.rbegin(); frame != frames_.rend(); ++frame) {
      if (frame->kind == FrameKind::kCommands && frame->substitution) return false;
      if (frame->kind == FrameKind::kComment || frame->kind == FrameKind::kHeredoc) {
        return QuotesInSubstitution() >= 0;
      }
    }
    return false;
  }

  // ---- nesting guard ----------------------------------------------------
  // Returns false (and stops lexing) when nesting gets too deep.
  bool Enter() {
    if (frames_.size() + around_.nesting < kMaxNesting && !output_->too_deep) return true;
    if (!output_->too_deep) Problem(pos_, "constructs nested too deeply; the rest of the script is not read");
    output_->too_deep = true;
    pos_ = text_.size();
    return false;
  }

  // ---- command lists ----------------------------------------------------
  // Reads commands up to the end of the text, or (for `$(`) up to and
  // including the closing `)`.
  void LexCommands(CommandList* commands, bool substitution) {
    if (!Enter()) return;
    std::size_t open = pos_;
    frames_.push_back(Frame{FrameKind::kCommands, commands, substitution});
    if (Events() != nullptr) Events()->ListBegin();
    bool closed = false;
    while (pos_ < limit_ && !closed && !Answered()) {
      char c = Peek();
      bool continuation = c == '\\' && Peek(1) == '\n';
      if (!IsBlank(c) && c != '\n' && c != '#' && !IsOperatorChar(c) && !continuation) {
        LexWord(commands);  // it records its own positions once it knows the word's role
        continue;
      }
      Visit();
      if (IsBlank(c)) {
        ++pos_;
      } else if (continuation) {
        pos_ += 2;
      } else if (c == '\n') {
        ++pos_;
        SendCommandEnd();
        if (!commands->pending.empty()) LexHeredocBodies(commands);
        commands->command_start = true;
        commands->redirect_target = false;
      } else if (c == '#') {
        LexComment();
      } else if (c == ')') {
        closed = LexCloseParen(commands, substitution);
      } else if (c == '(') {
        LexOpenParen(commands);
      } else {
        LexOperator(commands);
      }
    }
    if (Events() != nullptr) {
      Events()->CommandEnd(false);
      Events()->ListEnd();
    }
    frames_.pop_back();
    if (substitution && !closed && !output_->too_deep) Problem(open, "unterminated $(...)");
  }

  // Returns true when the `)` closes the `$(` being read.
  bool LexCloseParen(CommandList* commands, bool substitution) {
    ++pos_;
    SendCommandEnd();
    if (!commands->cases.empty() && commands->cases.back() == CaseStep::kInPattern) {
      commands->cases.back() = CaseStep::kBody;
      commands->command_start = true;
      return false;
    }
    if (commands->paren_depth > 0) {
      --commands->paren_depth;
      commands->command_start = false;
      if (Events() != nullptr) Events()->SubshellEnd(RootOffset(pos_ - 1));
      return false;
    }
    if (substitution) return true;
    Problem(pos_ - 1, "unmatched )");
    return false;
  }

  void LexOpenParen(CommandList* commands) {
    if (!commands->cases.empty() && commands->cases.back() == CaseStep::kPattern) {
      commands->cases.back() = CaseStep::kInPattern;  // the optional `(` before a pattern
      ++pos_;
      return;
    }
    if (commands->command_start && Peek(1) == '(' && output_->dialect.bash_arithmetic) {  // `(( expr ))`
      pos_ += 2;
      LexArithmetic("))");
      commands->command_start = false;
      return;
    }
    std::size_t after = pos_ + 1;
    while (IsBlank(At(after))) ++after;
    if (At(after) == ')') {  // `name ()`: a function definition, its body follows
      pos_ = after + 1;
      commands->command_start = true;
      SendCommandEnd();
      return;
    }
    ++commands->paren_depth;
    ++pos_;
    commands->command_start = true;
    commands->redirect_target = false;  // `<(cmd)`, `>(cmd)`: the subshell is the target; `cmd` is a command
    SendCommandEnd();
    if (Events() != nullptr) Events()->SubshellBegin(RootOffset(pos_ - 1));
  }

  void LexOperator(CommandList* commands) {
    bool in_case_body = !commands->cases.empty() && commands->cases.back() == CaseStep::kBody;
    bool in_pattern = !commands->cases.empty() && commands->cases.back() == CaseStep::kInPattern;
    for (std::string_view end : kCaseItemEnds) {
      if (LooksAt(end)) {
        pos_ += end.size();
        if (in_case_body) commands->cases.back() = CaseStep::kPattern;
        commands->command_start = true;
        SendCommandEnd();
        return;
      }
    }
    if (LooksAt("<<-") || (LooksAt("<<") && !LooksAt("<<<"))) {
      bool strip_tabs = LooksAt("<<-");
      if (Events() != nullptr) Events()->Redirection(strip_tabs ? "<<-" : "<<", RootOffset(pos_));
      pos_ += strip_tabs ? 3 : 2;
      LexHeredocDelimiter(commands, strip_tabs);
      return;
    }
    // Redirections: the next word is a file name (or a here-string), and the
    // command position is unchanged (`>f cmd` is legal).
    for (std::string_view redirect : kRedirections) {
      if (LooksAt(redirect)) {
        if (Events() != nullptr) Events()->Redirection(redirect, RootOffset(pos_));
        pos_ += redirect.size();
        commands->redirect_target = true;
        return;
      }
    }
    if (in_pattern && Peek() == '|') {  // `a|b)`: the next pattern of the same item
      ++pos_;
      return;
    }
    for (std::string_view separator : kSeparators) {
      if (LooksAt(separator)) {
        pos_ += separator.size();
        commands->command_start = true;
        commands->redirect_target = false;
        SendCommandEnd(separator == "|" || separator == "|&");
        return;
      }
    }
    ++pos_;  // not reached: every operator character is handled above
  }

  // ---- words ------------------------------------------------------------
  enum class WordRole : std::uint8_t { kNormal, kCaseSubject, kCaseIn, kPattern };

  // The next word if it is made of plain characters only, else empty.
  std::string_view PlainWordAhead() const {
    std::size_t end = pos_;
    while (end < limit_ && !EndsWord(text_[end])) {
      char c = text_[end];
      if (c == '\\' || c == '\'' || c == '"' || c == '$' || c == '`') return {};
      ++end;
    }
    return text_.substr(pos_, end - pos_);
  }

  static bool KeepsCommandPosition(std::string_view word) {
    for (std::string_view reserved : kKeepCommandPosition) {
      if (word == reserved) return true;
    }
    return false;
  }

  static bool IsReservedWord(std::string_view word) {
    if (KeepsCommandPosition(word)) return true;
    for (std::string_view reserved : kClosingReservedWords) {
      if (word == reserved) return true;
    }
    return false;
  }

  // A plain number right before `<` or `>`: `2>file`.
  bool IsIoNumber(std::string_view word, bool plain) const {
    return plain && !word.empty() && std::all_of(word.begin(), word.end(), IsDigit) &&
           (Peek() == '<' || Peek() == '>');
  }

  // What the word just read is to its command (for ShellEvents).
  ShellWordRole RoleOf(WordRole role, bool command_position, bool redirect_target, std::string_view word,
                       bool plain) const {
    switch (role) {
      case WordRole::kCaseSubject: return ShellWordRole::kCaseSubject;
      case WordRole::kCaseIn: return ShellWordRole::kCaseIn;
      case WordRole::kPattern: return ShellWordRole::kCasePattern;
      case WordRole::kNormal: break;
    }
    if (redirect_target) return ShellWordRole::kRedirectTarget;
    if (IsIoNumber(word, plain)) return ShellWordRole::kIoNumber;
    if (!command_position) return ShellWordRole::kArgument;
    if (plain && IsReservedWord(word)) return ShellWordRole::kReservedWord;
    if (IsShellAssignment(word)) return ShellWordRole::kAssignment;
    return ShellWordRole::kCommandName;
  }

  WordRole StartWord(CommandList* commands) {
    if (commands->cases.empty()) return WordRole::kNormal;
    switch (commands->cases.back()) {
      case CaseStep::kSubject: return WordRole::kCaseSubject;
      case CaseStep::kIn: return WordRole::kCaseIn;
      case CaseStep::kPattern:
        commands->cases.back() = CaseStep::kInPattern;
        return WordRole::kPattern;
      case CaseStep::kInPattern: return WordRole::kPattern;
      case CaseStep::kBody: return WordRole::kNormal;
    }
    return WordRole::kNormal;
  }

  void LexWord(CommandList* commands) {
    if (!commands->cases.empty() && commands->cases.back() == CaseStep::kPattern && PlainWordAhead() == "esac") {
      if (Events() != nullptr) {
        Events()->WordBegin(RootOffset(pos_));
        Events()->WordText("esac", RootOffset(pos_), ShellQuoting::kUnquoted);
        Events()->WordEnd(RootOffset(pos_ + 4), "esac", ShellWordRole::kReservedWord);
      }
      pos_ += 4;
      commands->cases.pop_back();
      commands->command_start = false;
      return;
    }
    WordRole role = StartWord(commands);
    commands->in_pattern_word = role == WordRole::kPattern;
    bool command_position = commands->command_start;
    bool redirect_target = commands->redirect_target;
    commands->word_is_command = role == WordRole::kNormal && command_position && !redirect_target;
    commands->word_started = false;
    std::size_t start = pos_;
    commands->word_begin = start;
    std::size_t outer_word_frames = word_frames_;
    word_frames_ = frames_.size();
    if (Events() != nullptr) Events()->WordBegin(RootOffset(start));
    bool plain = true;
    while (pos_ < limit_ && !EndsWord(Peek())) {
      Visit();
      char c = Peek();
      if (c == '\\' && Peek(1) == '\n') {
        pos_ += 2;
        continue;
      }
      std::size_t part = pos_;
      if (c == '\\') {
        if (SendsWordText(0) && pos_ + 1 < limit_) {
          Events()->WordText(text_.substr(pos_ + 1, 1), RootOffset(pos_ + 1), ShellQuoting::kEscaped);
        }
        SkipEscape();
      } else if (c == '\'') {
        LexSingleQuoted();
      } else if (c == '"') {
        ++pos_;
        LexDoubleQuoted();
      } else if (c == '$') {
        LexDollar(/*in_double_quotes=*/false);
        if (SendsWordText(0)) SendDollarPart(part, /*quoted=*/false);
      } else if (c == '`') {
        LexBacktick(/*in_double_quotes=*/false);
        if (SendsWordText(0)) Events()->WordExpansion(text_.substr(part, pos_ - part), RootOffset(part), false);
      } else {
        ++pos_;
        SkipOrdinary(kStopsWord);
        if (SendsWordText(0)) Events()->WordText(text_.substr(part, pos_ - part), RootOffset(part), ShellQuoting::kUnquoted);
      }
      if (c == '\\' || c == '\'' || c == '"' || c == '$' || c == '`') plain = false;
      commands->word_started = true;
    }
    word_frames_ = outer_word_frames;
    commands->word_started = false;
    commands->in_pattern_word = false;
    commands->word_is_command = false;
    std::string_view word = text_.substr(start, pos_ - start);
    if (Events() != nullptr) {
      Events()->WordEnd(RootOffset(pos_), word, RoleOf(role, command_position, redirect_target, word, plain));
    }
    AfterWord(commands, role, word, plain);
  }

  // After LexDollar read the `$` form at `start` of a word's text: a lone `$`
  // is a character, `$'...'` and `$"..."` sent their own text, anything else
  // is an expansion.
  void SendDollarPart(std::size_t start, bool quoted) {
    char next = At(start + 1);
    if (pos_ == start + 1) {
      Events()->WordText("$", RootOffset(start), quoted ? ShellQuoting::kQuoted : ShellQuoting::kUnquoted);
    } else if (quoted || (next != '\'' && next != '"')) {
      Events()->WordExpansion(text_.substr(start, pos_ - start), RootOffset(start), quoted);
    }
  }

  void AfterWord(CommandList* commands, WordRole role, std::string_view word, bool plain) {
    switch (role) {
      case WordRole::kCaseSubject:
        commands->cases.back() = CaseStep::kIn;
        return;
      case WordRole::kCaseIn:
        commands->cases.back() = CaseStep::kPattern;
        if (word != "in") Problem(pos_, "expected `in` after the word of a case command");
        return;
      case WordRole::kPattern: return;
      case WordRole::kNormal: break;
    }
    if (commands->redirect_target) {
      commands->redirect_target = false;
      return;
    }
    // bash, zsh and ksh's `function NAME`: the body, a compound command, follows the name.
    if (std::exchange(commands->function_name, false)) {
      commands->command_start = true;
      SendCommandEnd();
      return;
    }
    if (!commands->command_start) return;
    if (plain && word == "function") {
      commands->function_name = true;
      commands->command_start = false;
      return;
    }
    if (plain && word == "case") {
      commands->cases.push_back(CaseStep::kSubject);
      commands->command_start = false;
      return;
    }
    if (plain && word == "esac" && !commands->cases.empty() && commands->cases.back() == CaseStep::kBody) {
      commands->cases.pop_back();
      commands->command_start = false;
      return;
    }
    if (plain && KeepsCommandPosition(word)) return;
    if (IsShellAssignment(word)) return;
    if (IsIoNumber(word, plain)) return;
    commands->command_start = false;
  }

  // ---- quoting ----------------------------------------------------------
  // At the opening `'`, or after bash's `$'` (`ansi_c`), where a backslash
  // escapes the next character.
  void LexSingleQuoted(bool ansi_c = false) {
    const std::size_t open = ansi_c ? pos_ - 2 : pos_++;
    const std::size_t inside = ansi_c ? open + 2 : open + 1;
    bool send = SendsWordText(0);
    frames_.push_back(Frame{ansi_c ? FrameKind::kDollarSingle : FrameKind::kSingle});
    bool closed = false;
    while (pos_ < limit_) {
      Visit();
      if (ansi_c && Peek() == '\\') {
        SkipEscape();
        continue;
      }
      if (text_[pos_++] == '\'') {
        closed = true;
        break;
      }
      SkipOrdinary(ansi_c ? kStopsDollarSingle : kStopsSingle);
    }
    frames_.pop_back();
    if (send) {
      Events()->WordText(text_.substr(inside, pos_ - inside - (closed ? 1 : 0)), RootOffset(inside),
                         ansi_c ? ShellQuoting::kAnsiC : ShellQuoting::kQuoted);
    }
    if (!closed) Problem(open, ansi_c ? "unterminated $'...' string" : "unterminated single-quoted string");
  }

  // After the opening `"`.
  void LexDoubleQuoted() {
    if (!Enter()) return;
    std::size_t open = pos_ - 1;
    bool send = SendsWordText(0);
    if (send) Events()->WordText({}, RootOffset(open), ShellQuoting::kQuoted);  // `""` is a quoted word
    frames_.push_back(Frame{FrameKind::kDouble});
    bool closed = false;
    while (pos_ < limit_) {
      Visit();
      char c = Peek();
      if (c == '"') {
        ++pos_;
        closed = true;
        break;
      }
      std::size_t part = pos_;
      if (c == '\\') {
        char next = Peek(1);
        if (next == '$' || next == '`' || next == '"' || next == '\\' || next == '\n') {
          if (send && next != '\n') {
            Events()->WordText(text_.substr(pos_ + 1, 1), RootOffset(pos_ + 1), ShellQuoting::kQuoted);
          }
          SkipEscape();
        } else {
          if (send) Events()->WordText("\\", RootOffset(pos_), ShellQuoting::kQuoted);
          ++pos_;
        }
      } else if (c == '$') {
        LexDollar(/*in_double_quotes=*/true);
        if (send) SendDollarPart(part, /*quoted=*/true);
      } else if (c == '`') {
        LexBacktick(/*in_double_quotes=*/true);
        if (send) Events()->WordExpansion(text_.substr(part, pos_ - part), RootOffset(part), true);
      } else {
        ++pos_;
        SkipOrdinary(kStopsDouble);
        if (send) Events()->WordText(text_.substr(part, pos_ - part), RootOffset(part), ShellQuoting::kQuoted);
      }
    }
    frames_.pop_back();
    if (!closed && !output_->too_deep) Problem(open, "unterminated double-quoted string");
  }

  // At a `$`. `in_double_quotes`: inside "..." or an unquoted here-document body.
  void LexDollar(bool in_double_quotes) {
    char next = Peek(1);
    if (next == '{') {
      pos_ += 2;
      LexParameter(in_double_quotes);
    } else if (next == '(' && Peek(2) == '(') {
      pos_ += 3;
      LexArithmetic("))");
    } else if (next == '(') {
      pos_ += 2;
      CommandList inner;
      LexCommands(&inner, /*substitution=*/true);
      if (!inner.pending.empty()) Problem(pos_, "a here-document inside $(...) has no body");
    } else if (next == '[' && output_->dialect.bash_arithmetic) {
      pos_ += 2;
      LexArithmetic("]");
    } else if (next == '\'' && !in_double_quotes && output_->dialect.dollar_single_quotes) {
      pos_ += 2;
      LexSingleQuoted(/*ansi_c=*/true);
    } else if (next == '"' && !in_double_quotes) {  // bash's $"...": a double-quoted string
      pos_ += 2;
      LexDoubleQuoted();
    } else if (IsNameStart(next) || IsSpecialParameter(next)) {
      std::size_t dollar = pos_++;
      if (IsNameStart(next)) {
        while (IsNameChar(Peek())) ++pos_;
      } else {
        ++pos_;
      }
      if (Events() != nullptr) {
        Events()->ParameterBegin(RootOffset(dollar), RootOffset(dollar + 1),
                                 text_.substr(dollar + 1, pos_ - dollar - 1), ParameterOp::kPlain);
        Events()->ParameterEnd();
      }
    } else {
      ++pos_;  // a lone `$` is an ordinary character
    }
  }

  // After `${`.
  void LexParameter(bool in_double_quotes) {
    if (!Enter()) return;
    std::size_t open = pos_ - 2;
    std::size_t frame = frames_.size();
    frames_.push_back(Frame{FrameKind::kParameter});
    frames_[frame].in_double_quotes = in_double_quotes;
    // The parameter (`#x` length, `!x` bash indirection, a name, digits or a
    // special parameter), bash's subscript and the operator, read as
    // references.cc reads every `${`.
    const ParameterHead head = ReadParameterHead(text_, pos_, limit_);
    ParameterOp op = head.prefix == '#'   ? ParameterOp::kLength
                     : head.prefix == '!' ? ParameterOp::kIndirect
                                          : ParameterOp::kPlain;
    const std::size_t name = pos_ + (head.prefix != '\0' ? 1 : 0);
    pos_ = name + head.name.size();
    if (head.subscript != std::string_view::npos) {  // ${a[i]}: its text is read as it is
      while (pos_ < head.subscript_close) {
        Visit();
        ++pos_;
      }
      if (pos_ < limit_) ++pos_;
    }
    bool replacement_follows = StartParameterWord(frame, head, &op);
    std::string_view name_text = head.name;
    if (Events() != nullptr) Events()->ParameterBegin(RootOffset(open), RootOffset(name), name_text, op);
    bool closed = false;
    while (pos_ < limit_) {
      Visit();
      char c = Peek();
      if (c == '}') {
        ++pos_;
        closed = true;
        break;
      }
      if (c == '\\') {
        SkipEscape();
      } else if (c == '"') {
        ++pos_;
        LexDoubleQuoted();
      } else if (c == '\'' && in_double_quotes && frames_[frame].word == ParameterWord::kValue) {
        // Inside "${x:-'a'}" the quotes are literal for dash and zsh; for bash
        // they still hide a `}`. Placeholders after one are refused.
        frames_[frame].saw_single_quote = true;
        ++pos_;
      } else if (c == '\'') {
        LexSingleQuoted();
      } else if (c == '$') {
        LexDollar(in_double_quotes);
      } else if (c == '`') {
        LexBacktick(in_double_quotes);
      } else if (c == '/' && replacement_follows) {  // ${x/pattern/replacement}
        ++pos_;
        frames_[frame].word = ParameterWord::kValue;
        replacement_follows = false;
      } else {
        ++pos_;
        SkipOrdinary(kStopsParameter);
      }
    }
    frames_.pop_back();
    if (Events() != nullptr) Events()->ParameterEnd();
    if (!closed && !output_->too_deep) Problem(open, "unterminated ${...}");
  }

  // The word of an unquoted `${x:=word}` is assigned to x, and the expansion
  // is then x's value unquoted: split into fields and globbed, whatever
  // quoting the word had (`${x:="a b"}` gives two words, `${x:="*"}` the
  // directory). No encoding of the value survives that.
  static void RefuseUnquotedAssignment(const Frame& parameter, ShellContext* context) {
    if (parameter.assigns && !parameter.in_double_quotes && parameter.word == ParameterWord::kValue) {
      context->unsupported = "in the word of an unquoted ${x:=...}, which the shell assigns and then expands "
                             "unquoted (split into words and globbed); quote the expansion";
    }
  }

  static ParameterOp WordOp(char c) {
    switch (c) {
      case '-': return ParameterOp::kDefault;
      case '=': return ParameterOp::kAssign;
      case '?': return ParameterOp::kError;
      default: return ParameterOp::kAlternative;
    }
  }

  // Moves past the operator of `${x<op>word}` (`head`'s), sets the frame's
  // word kind and refines a kPlain `op`. Returns true for bash's
  // `${x/pattern/replacement}`.
  bool StartParameterWord(std::size_t frame, const ParameterHead& head, ParameterOp* op) {
    if (head.op_kind == ParameterHead::OperatorKind::kNone && Peek() == '}') return false;
    const bool plain = *op == ParameterOp::kPlain;
    if (plain) *op = ParameterOp::kOther;
    ParameterWord word = ParameterWord::kPattern;
    if (head.op_kind == ParameterHead::OperatorKind::kDefault) {
      if (plain) *op = WordOp(head.op.back());
      word = ParameterWord::kValue;
      frames_[frame].assigns = head.op.back() == '=';
    }
    pos_ = head.operand;
    frames_[frame].word = word;
    return !head.op.empty() && head.op.front() == '/';
  }

  // After `$((`, `$[` or `((`; reads up to and including `closing`.
  void LexArithmetic(std::string_view closing) {
    if (!Enter()) return;
    std::size_t open = pos_;
    frames_.push_back(Frame{FrameKind::kArithmetic});
    int depth = 0;
    bool closed = false;
    while (pos_ < limit_) {
      Visit();
      if (depth == 0 && LooksAt(closing)) {
        pos_ += closing.size();
        closed = true;
        break;
      }
      char c = Peek();
      if (c == '(' || c == '[') {
        ++depth;
        ++pos_;
      } else if (c == ')' || c == ']') {
        if (depth > 0) --depth;
        ++pos_;
      } else if (c == '\\') {
        SkipEscape();
      } else if (c == '$') {
        LexDollar(/*in_double_quotes=*/true);
      } else if (c == '`') {
        LexBacktick(/*in_double_quotes=*/true);
      } else if (Events() != nullptr && IsNameStart(c) && (pos_ == 0 || !IsNameChar(At(pos_ - 1)))) {
        std::size_t begin = pos_;
        while (IsNameChar(Peek())) ++pos_;
        Events()->ArithmeticName(text_.substr(begin, pos_ - begin), RootOffset(begin),
                                 ArithmeticAssigns(text_.substr(0, limit_), begin, pos_));
      } else {
        ++pos_;
        if (Events() == nullptr) SkipOrdinary(kStopsArithmetic);  // a reader is sent every name
      }
    }
    frames_.pop_back();
    if (!closed && !output_->too_deep) Problem(open, "unterminated arithmetic expression");
  }

  // At a `#` that starts a word: up to, not including, the end of the line.
  void LexComment() {
    std::size_t begin = pos_;
    frames_.push_back(Frame{FrameKind::kComment});
    while (pos_ < limit_ && Peek() != '\n') {
      Visit();
      ++pos_;
      SkipOrdinary(kStopsComment);
    }
    frames_.pop_back();
    if (Events() != nullptr) Events()->Comment(RootOffset(begin), RootOffset(pos_));
  }

  // ---- backticks --------------------------------------------------------
  // At the opening backtick. The text up to the closing one is un-escaped as
  // the shell does and read by a child Lexer as a command list of its own.
  void LexBacktick(bool in_double_quotes) {
    if (!Enter()) return;
    std::size_t open = pos_;
    std::string inner;
    std::vector<std::size_t> inner_to_outer;      // offset in inner → offset in text_
    std::vector<std::size_t> escape_backslashes;  // offsets of removed backslashes
    std::size_t i = open + 1;
    bool closed = false;
    bool raw_double_quote = false;  // a `"` not written `\"`
    while (i < limit_) {
      char c = text_[i];
      raw_double_quote = raw_double_quote || c == '"';
      if (c == '\\' && i + 1 < limit_) {
        char next = text_[i + 1];
        if (next == '\\' || next == '`' || next == '$' || (in_double_quotes && next == '"')) {
          escape_backslashes.push_back(i);
          inner += next;
          inner_to_outer.push_back(i + 1);
          i += 2;
          continue;
        }
      }
      if (c == '`') {
        closed = true;
        break;
      }
      inner += c;
      inner_to_outer.push_back(i);
      ++i;
    }
    std::size_t close = i;
    if (!closed) Problem(open, "unterminated backtick command substitution");

    std::vector<std::size_t> offsets, indexes;
    std::vector<bool> after_backslash;
    for (; NextOffset() < close; ++next_) {
      const std::size_t offset = queries_.offset(next_);
      offsets.push_back(static_cast<std::size_t>(
          std::lower_bound(inner_to_outer.begin(), inner_to_outer.end(), offset) - inner_to_outer.begin()));
      indexes.push_back(queries_.index(next_));
      after_backslash.push_back(
          queries_.after_backslash(next_) ||
          (offset > 0 && std::binary_search(escape_backslashes.begin(), escape_backslashes.end(), offset - 1)));
    }
    Queries queries(std::move(offsets), std::move(indexes), std::move(after_backslash));
    std::vector<std::size_t> to_root;
    to_root.reserve(inner_to_outer.size());
    for (std::size_t outer : inner_to_outer) to_root.push_back(RootOffset(outer));

    Surroundings around;
    ShellContext here = MakeContext(open);
    around.substitution_depth = here.substitution_depth + 1u;
    around.backtick_layers = here.backtick_layers;
    around.backtick_layers.push_back(in_double_quotes);
    around.in_backticks = true;
    around.quotes_inside_quoted_backticks =
        around_.quotes_inside_quoted_backticks || (in_double_quotes && raw_double_quote);
    around.inside_heredoc = here.inside_heredoc;
    around.quotes_in_substitution = QuotesInSubstitution();
    around.nesting = around_.nesting + frames_.size() + 1;
    Lexer child(inner, std::move(queries), std::move(around), std::move(to_root), output_);
    child.Run();
    pos_ = closed ? close + 1 : close;
  }

  std::size_t RootOffset(std::size_t offset) const {
    if (to_root_.empty()) return offset;
    return offset < to_root_.size() ? to_root_[offset] : to_root_.back() + 1;
  }

  // ---- here-documents ---------------------------------------------------
  // After `<<` or `<<-`: the delimiter word.
  void LexHeredocDelimiter(CommandList* commands, bool strip_tabs) {
    while (IsBlank(Peek())) ++pos_;
    Heredoc heredoc;
    heredoc.strip_tabs = strip_tabs;
    std::size_t start = pos_;
    frames_.push_back(Frame{FrameKind::kDelimiter});
    while (pos_ < limit_ && !EndsWord(Peek())) {
      Visit();
      char c = Peek();
      if (c == '\\') {
        heredoc.quoted = true;
        if (pos_ + 1 < limit_) heredoc.delimiter += text_[pos_ + 1];
        SkipEscape();
      } else if (c == '\'' || c == '"') {
        heredoc.quoted = true;
        ++pos_;
        while (pos_ < limit_ && Peek() != c) {
          Visit();
          bool escaped =
              c == '"' && Peek() == '\\' && std::string_view("\"\\$`").find(Peek(1)) != std::string_view::npos;
          if (escaped) ++pos_;  // "a\"b" delimits with a"b
          heredoc.delimiter += Peek();
          ++pos_;
        }
        if (pos_ < limit_) ++pos_;
      } else {
        heredoc.delimiter += c;
        ++pos_;
      }
    }
    frames_.pop_back();
    if (pos_ == start) Problem(start, "a here-document operator without a delimiter word");
    if (Events() != nullptr) {
      Events()->WordBegin(RootOffset(start));
      Events()->WordText(heredoc.delimiter, RootOffset(start),
                         heredoc.quoted ? ShellQuoting::kQuoted : ShellQuoting::kUnquoted);
      Events()->WordEnd(RootOffset(pos_), text_.substr(start, pos_ - start), ShellWordRole::kRedirectTarget);
    }
    commands->pending.push_back(std::move(heredoc));
  }

  // After the newline that ends the line of the `<<` operators: every
  // pending body in order, each up to its delimiter line.
  void LexHeredocBodies(CommandList* commands) {
    std::vector<Heredoc> heredocs = std::move(commands->pending);
    commands->pending.clear();
    for (const Heredoc& heredoc : heredocs) {
      std::size_t body_end = limit_;
      std::size_t after = limit_;
      bool terminated = false;
      for (std::size_t line = pos_; line < limit_;) {
        std::size_t eol = std::min(text_.find('\n', line), limit_);
        std::string_view text = text_.substr(line, eol - line);
        if (heredoc.strip_tabs) text.remove_prefix(std::min(text.find_first_not_of('\t'), text.size()));
        if (text == heredoc.delimiter) {
          body_end = line;
          after = eol < limit_ ? eol + 1 : eol;
          terminated = true;
          break;
        }
        line = eol + 1;
      }
      if (!terminated) Problem(pos_, "here-document not terminated by its delimiter line");
      LexHeredocBody(heredoc, body_end, after);
    }
  }

  void LexHeredocBody(const Heredoc& heredoc, std::size_t body_end, std::size_t after) {
    if (!Enter()) return;
    frames_.push_back(Frame{FrameKind::kHeredoc});
    frames_.back().heredoc = &heredoc;
    if (Events() != nullptr) Events()->HeredocBody(RootOffset(pos_), RootOffset(body_end), !heredoc.quoted);
    std::size_t saved_limit = limit_;
    limit_ = body_end;
    while (pos_ < limit_) {
      Visit();
      char c = Peek();
      if (heredoc.quoted) {
        ++pos_;
        SkipOrdinary(0);  // nothing is special in a literal body
      } else if (c == '\\') {
        char next = Peek(1);
        if (next == '$' || next == '`' || next == '\\' || next == '\n') {
          SkipEscape();
        } else {
          ++pos_;
        }
      } else if (c == '$') {
        LexDollar(/*in_double_quotes=*/true);
      } else if (c == '`') {
        // Backticks in a here-document: dash un-escapes `\"` there, bash does
        // not; the layer never escapes `"` so that both read the same text.
        LexBacktick(/*in_double_quotes=*/false);
      } else {
        ++pos_;
        SkipOrdinary(kStopsHeredoc);
      }
    }
    limit_ = saved_limit;
    while (pos_ < after) {  // the delimiter line
      Visit();
      ++pos_;
    }
    frames_.pop_back();
  }

  std::string_view text_;
  std::size_t pos_ = 0;
  std::size_t limit_;
  Queries queries_;
  std::size_t next_ = 0;
  Surroundings around_;
  std::vector<std::size_t> to_root_;
  Output* output_;
  std::vector<Frame> frames_;
  std::size_t word_frames_ = kNoOffset;  // frames_.size() while a word of the current list is read
};

}  // namespace

bool IsShellAssignment(std::string_view word) {
  if (word.empty() || !IsNameStart(word[0])) return false;
  std::size_t i = 1;
  while (i < word.size() && IsNameChar(word[i])) ++i;
  if (i < word.size() && word[i] == '[') {
    std::size_t close = word.find(']', i);
    if (close == std::string_view::npos) return false;
    i = close + 1;
  }
  if (i < word.size() && word[i] == '+') ++i;
  return i < word.size() && word[i] == '=';
}

void ReadShell(std::string_view script, ShellEvents* events) {
  std::vector<ShellContext> no_contexts;
  Output output;
  output.contexts = &no_contexts;
  output.events = events;
  Lexer lexer(script, Queries(), Surroundings{}, {}, &output);
  lexer.Run();
}

bool SameReading(const ShellContext& a, const ShellContext& b) {
  return a.state == b.state && a.substitution_depth == b.substitution_depth && a.in_backticks == b.in_backticks &&
         a.in_case_pattern == b.in_case_pattern && a.backtick_layers == b.backtick_layers &&
         a.parameter_word == b.parameter_word && a.bash_brace_expansion == b.bash_brace_expansion &&
         a.word_start == b.word_start && a.whole_word == b.whole_word && a.command_word == b.command_word &&
         a.name_before == b.name_before && a.equals_after == b.equals_after &&
         a.inside_heredoc == b.inside_heredoc && a.heredoc_delimiter == b.heredoc_delimiter &&
         a.heredoc_strip_tabs == b.heredoc_strip_tabs && a.line_before == b.line_before &&
         a.line_after == b.line_after && a.posh_scans_unquoted == b.posh_scans_unquoted &&
         a.unsupported == b.unsupported;
}

namespace {

// Queries are answered in text order: the offsets as they are, or sorted
// defensively, so that an unsorted caller still gets every answer in its own order.
Queries QueriesAt(const std::vector<std::size_t>& offsets) {
  if (std::is_sorted(offsets.begin(), offsets.end())) return Queries(offsets);  // nearly every caller
  std::vector<std::size_t> indexes(offsets.size());
  std::iota(indexes.begin(), indexes.end(), std::size_t{0});
  std::stable_sort(indexes.begin(), indexes.end(), [&](std::size_t a, std::size_t b) { return offsets[a] < offsets[b]; });
  std::vector<std::size_t> sorted(offsets.size());
  for (std::size_t i = 0; i < indexes.size(); ++i) sorted[i] = offsets[indexes[i]];
  return Queries(std::move(sorted), std::move(indexes), {});
}

// The contexts at `offsets` as the shell of `dialect` reads `script`.
std::vector<ShellContext> ContextsAs(Dialect dialect, std::string_view script,
                                     const std::vector<std::size_t>& offsets, Diagnostics* problems) {
  std::vector<ShellContext> contexts(offsets.size());
  Queries queries = QueriesAt(offsets);
  Output output;
  output.dialect = dialect;
  output.contexts = &contexts;
  output.want_problems = problems != nullptr;
  Lexer lexer(script, std::move(queries), Surroundings{}, {}, &output);
  lexer.Run();
  if (problems != nullptr) {
    std::sort(output.problems.begin(), output.problems.end());
    for (auto& [offset, message] : output.problems) {
      problems->push_back(MakeWarning(LocateOffset(script, offset), "shell script: " + message));
    }
  }
  return contexts;
}

// Adds to each of `contexts` (bash's reading) the reading of `dialect` where it differs.
void AddOtherReadings(Dialect dialect, std::string_view script, const std::vector<std::size_t>& offsets,
                      std::vector<ShellContext>* contexts) {
  std::vector<ShellContext> others = ContextsAs(dialect, script, offsets, nullptr);
  for (std::size_t i = 0; i < others.size(); ++i) {
    ShellContext& bash = (*contexts)[i];
    if (SameReading(bash, others[i])) continue;
    auto same = std::find_if(bash.other_readings.begin(), bash.other_readings.end(),
                             [&](const OtherShellReading& reading) { return SameReading(reading.context, others[i]); });
    if (same != bash.other_readings.end()) {
      same->shells += std::string(" and ") + dialect.name;
    } else {
      bash.other_readings.push_back(OtherShellReading{dialect.name, std::move(others[i])});
    }
  }
}

}  // namespace

// The shells read alike but for `$'`, `$[` and `((` (Dialect).
bool ShellsMayDiffer(std::string_view script, ScriptShells shells) {
  return shells == ScriptShells::kSh &&
         (script.find("$'") != std::string_view::npos || script.find("$[") != std::string_view::npos ||
          script.find("((") != std::string_view::npos);
}

void AddOtherShellReadings(std::string_view script, const std::vector<std::size_t>& offsets,
                           std::vector<ShellContext>* contexts) {
  AddOtherReadings(kDashDialect, script, offsets, contexts);
  AddOtherReadings(kBusyboxDialect, script, offsets, contexts);
}

void ReadShellContexts(std::string_view script, const std::vector<std::size_t>& offsets,
                       const TakeShellContext& take) {
  Output output;
  output.take = &take;
  output.want_problems = false;
  Lexer lexer(script, QueriesAt(offsets), Surroundings{}, {}, &output);
  lexer.Run();
}

std::vector<ShellContext> ReadShellContexts(std::string_view script, const std::vector<std::size_t>& offsets,
                                            Diagnostics* problems) {
  return ContextsAs(kBashDialect, script, offsets, problems);
}

}  // namespace safesubst
