#include "lint_shell.h"

#include <algorithm>
#include <array>
#include <utility>

namespace safesubst::lint {

namespace {

bool IsNameStartChar(char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_'; }
bool IsNameChar(char c) { return IsNameStartChar(c) || (c >= '0' && c <= '9'); }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsBlank(char c) { return c == ' ' || c == '\t' || c == '\r'; }

// Characters that end an unquoted word.
bool IsWordBreak(char c) {
  switch (c) {
    case ' ': case '\t': case '\r': case '\n': case ';': case '&': case '|': case '<': case '>': case '(': case ')':
      return true;
    default:
      return false;
  }
}

bool IsValidName(std::string_view name) {
  if (name.empty() || !IsNameStartChar(name[0])) return false;
  return std::all_of(name.begin(), name.end(), IsNameChar);
}

// Words that open or close a compound command; dropped from the front of a command.
bool IsLeadingReservedWord(std::string_view word) {
  static constexpr std::array<std::string_view, 13> kWords = {
      "if", "then", "else", "elif", "fi", "do", "done", "while", "until", "!", "{", "}", "time"};
  return std::find(kWords.begin(), kWords.end(), word) != kWords.end();
}

struct PendingHeredoc {
  std::string delimiter;
  bool expanding = true;  // unquoted delimiter: the body expands $ forms
  bool strip_tabs = false;
};

class Parser {
 public:
  Parser(std::string_view script, std::size_t begin, std::size_t end, ShScript* out)
      : s_(script), pos_(begin), end_(end), out_(out) {}

  // Parses commands until the end, or (with `until_paren`) until the `)` that
  // closes a `$(`; the position is then after that `)`.
  void ParseList(bool until_paren);

 private:
  struct ListState {
    ShCommand command;
    int paren_depth = 0;
    // One entry per open `case`: true while the next thing is a pattern.
    std::vector<bool> case_expects_pattern;
  };

  char At(std::size_t i) const { return i < end_ ? s_[i] : '\0'; }
  bool StartsWith(std::string_view prefix) const {
    return pos_ + prefix.size() <= end_ && s_.substr(pos_, prefix.size()) == prefix;
  }

  void SkipBlanks();
  void SkipComment();
  void FinishCommand(ListState& state);
  void AddWord(ListState& state, ShWord word);
  bool ParseCasePattern(ListState& state);
  void ParseRedirect(ListState& state);
  void ParseArithmeticCommand();
  ShWord ReadWord();
  void ReadSingleQuoted(ShWord& word, bool& nonblank);
  void ReadDoubleQuoted(ShWord& word, bool& nonblank);
  void ReadAnsiCQuoted(ShWord& word, bool& nonblank);
  void ReadDollar();
  void ReadBraced(std::size_t dollar);
  void ReadArithmetic(std::size_t close_parens);
  void ReadBacktick();
  void ReadPendingHeredocs();
  void ScanExpansions(std::size_t begin, std::size_t end);

  std::string_view s_;
  std::size_t pos_;
  std::size_t end_;
  ShScript* out_;
  std::vector<PendingHeredoc> heredocs_;
  int guarded_depth_ = 0;
};

void Parser::SkipBlanks() {
  while (pos_ < end_) {
    if (IsBlank(s_[pos_])) {
      ++pos_;
    } else if (s_[pos_] == '\\' && At(pos_ + 1) == '\n') {
      pos_ += 2;  // line continuation
    } else {
      break;
    }
  }
}

void Parser::SkipComment() {
  std::size_t begin = pos_;
  while (pos_ < end_ && s_[pos_] != '\n') ++pos_;
  out_->comments.emplace_back(begin, pos_);
}

void Parser::FinishCommand(ListState& state) {
  ShCommand& command = state.command;
  if (!command.words.empty() || !command.redirects.empty()) out_->commands.push_back(std::move(command));
  command = ShCommand{};
}

void Parser::AddWord(ListState& state, ShWord word) {
  ShCommand& command = state.command;
  if (command.words.empty() && !word.quoted && !word.has_expansion) {
    if (word.text == "esac") {
      if (!state.case_expects_pattern.empty()) state.case_expects_pattern.pop_back();
      return;
    }
    if (IsLeadingReservedWord(word.text)) return;
  }
  bool is_case_in = command.words.size() == 2 && command.words[0].text == "case" && !command.words[0].quoted &&
                    word.text == "in" && !word.quoted;
  command.words.push_back(std::move(word));
  if (is_case_in) {
    FinishCommand(state);
    state.case_expects_pattern.push_back(true);
  }
}

// At the start of a `case` arm: skips `esac` or one pattern list `a|b)`.
// Returns false when `esac` closed the case.
bool Parser::ParseCasePattern(ListState& state) {
  if (StartsWith("esac") && (pos_ + 4 >= end_ || IsWordBreak(At(pos_ + 4)))) {
    pos_ += 4;
    state.case_expects_pattern.pop_back();
    return false;
  }
  if (At(pos_) == '(') ++pos_;
  int depth = 0;
  while (pos_ < end_) {
    char c = s_[pos_];
    if (c == '\\') {
      pos_ += 2;
    } else if (c == '\'') {
      std::size_t close = s_.find('\'', pos_ + 1);
      pos_ = close == std::string_view::npos || close >= end_ ? end_ : close + 1;
    } else if (c == '"') {
      ShWord ignored;
      bool nonblank = false;
      ReadDoubleQuoted(ignored, nonblank);
    } else if (c == '$') {
      ReadDollar();
    } else if (c == '(') {
      ++depth;
      ++pos_;
    } else if (c == ')') {
      ++pos_;
      if (depth == 0) break;
      --depth;
    } else if (c == '\n') {
      break;  // malformed; let the command reader continue from here
    } else {
      ++pos_;
    }
  }
  state.case_expects_pattern.back() = false;
  return true;
}

void Parser::ParseRedirect(ListState& state) {
  static constexpr std::array<std::string_view, 12> kOps = {"<<<", "<<-", "&>>", "<<", "<>", "<&", ">>",
                                                            ">|", ">&", "&>", "<", ">"};
  ShRedirect redirect;
  redirect.begin = pos_;
  for (std::string_view op : kOps) {
    if (StartsWith(op)) {
      redirect.op = std::string(op);
      break;
    }
  }
  pos_ += redirect.op.size();
  SkipBlanks();
  redirect.target = ReadWord();
  if (redirect.op == "<<" || redirect.op == "<<-") {
    heredocs_.push_back(PendingHeredoc{redirect.target.text, !redirect.target.quoted, redirect.op == "<<-"});
  }
  state.command.redirects.push_back(std::move(redirect));
}

// `(( expr ))` as a command.
void Parser::ParseArithmeticCommand() {
  pos_ += 2;
  ReadArithmetic(2);
}

// Reads an arithmetic expression up to the `)` (close_parens == 1) or `))`
// (close_parens == 2) that ends it; records names used and assigned.
void Parser::ReadArithmetic(std::size_t close_parens) {
  int depth = 0;
  while (pos_ < end_) {
    char c = s_[pos_];
    if (c == '$') {
      ReadDollar();
    } else if (c == '`') {
      ReadBacktick();
    } else if (c == '(') {
      ++depth;
      ++pos_;
    } else if (c == ')') {
      if (depth == 0) {
        pos_ += (close_parens == 2 && At(pos_ + 1) == ')') ? 2 : 1;
        return;
      }
      --depth;
      ++pos_;
    } else if (IsNameStartChar(c) && (pos_ == 0 || !IsNameChar(s_[pos_ - 1]))) {
      std::size_t begin = pos_;
      while (pos_ < end_ && IsNameChar(s_[pos_])) ++pos_;
      std::string name(s_.substr(begin, pos_ - begin));
      std::size_t after = pos_;
      while (after < end_ && IsBlank(s_[after])) ++after;
      char next = At(after), next2 = At(after + 1);
      bool assigns = (next == '=' && next2 != '=') || ((next == '+' || next == '-') && next2 == next) ||
                     (std::string_view("+-*/%&|^").find(next) != std::string_view::npos && next2 == '=');
      bool pre_increment = begin >= 2 && ((s_[begin - 1] == '+' && s_[begin - 2] == '+') ||
                                          (s_[begin - 1] == '-' && s_[begin - 2] == '-'));
      if (assigns || pre_increment) {
        out_->assignments.push_back(ShAssignment{name, begin, AssignKind::kArithmetic, false});
      }
      out_->refs.push_back(ShRef{std::move(name), begin, RefOp::kArithmetic, guarded_depth_ > 0});
    } else {
      ++pos_;
    }
  }
}

ShWord Parser::ReadWord() {
  ShWord word;
  word.begin = pos_;
  bool unquoted_text = false;  // a character outside quotes (makes the word not blank_quoted)
  bool quoted_nonblank = false;
  while (pos_ < end_) {
    char c = s_[pos_];
    if (IsWordBreak(c)) {
      // `a=(x y)`: an array assignment keeps its parentheses in the word.
      if (c == '(' && !word.text.empty() && word.text.back() == '=') {
        int depth = 0;
        while (pos_ < end_) {
          char d = s_[pos_];
          word.text += d;
          ++pos_;
          if (d == '(') ++depth;
          if (d == ')' && --depth == 0) break;
        }
        unquoted_text = true;
        continue;
      }
      break;
    }
    if (c == '\\') {
      if (At(pos_ + 1) == '\n') {
        pos_ += 2;
        continue;
      }
      if (pos_ + 1 < end_) word.text += s_[pos_ + 1];
      word.quoted = true;
      unquoted_text = true;
      pos_ += 2;
    } else if (c == '\'') {
      ReadSingleQuoted(word, quoted_nonblank);
    } else if (c == '"') {
      ReadDoubleQuoted(word, quoted_nonblank);
    } else if (c == '$' && At(pos_ + 1) == '\'') {
      ReadAnsiCQuoted(word, quoted_nonblank);
    } else if (c == '$' && At(pos_ + 1) == '"') {
      ++pos_;  // $"..." is a translatable double-quoted string
      ReadDoubleQuoted(word, quoted_nonblank);
    } else if (c == '$') {
      std::size_t begin = pos_;
      ReadDollar();
      word.text.append(s_.substr(begin, pos_ - begin));
      if (pos_ - begin > 1) word.has_expansion = true; else unquoted_text = true;
    } else if (c == '`') {
      std::size_t begin = pos_;
      ReadBacktick();
      word.text.append(s_.substr(begin, pos_ - begin));
      word.has_expansion = true;
    } else {
      word.text += c;
      unquoted_text = true;
      ++pos_;
    }
  }
  word.end = pos_;
  word.blank_quoted = word.quoted && !unquoted_text && !word.has_expansion && !quoted_nonblank;
  return word;
}

void Parser::ReadSingleQuoted(ShWord& word, bool& nonblank) {
  word.quoted = true;
  ++pos_;
  while (pos_ < end_ && s_[pos_] != '\'') {
    if (!IsBlank(s_[pos_])) nonblank = true;
    word.text += s_[pos_++];
  }
  if (pos_ < end_) ++pos_;
}

void Parser::ReadAnsiCQuoted(ShWord& word, bool& nonblank) {
  word.quoted = true;
  pos_ += 2;
  while (pos_ < end_ && s_[pos_] != '\'') {
    if (s_[pos_] == '\\' && pos_ + 1 < end_) {
      word.text += s_[pos_++];
      nonblank = true;
    } else if (!IsBlank(s_[pos_])) {
      nonblank = true;
    }
    word.text += s_[pos_++];
  }
  if (pos_ < end_) ++pos_;
}

void Parser::ReadDoubleQuoted(ShWord& word, bool& nonblank) {
  word.quoted = true;
  ++pos_;
  while (pos_ < end_ && s_[pos_] != '"') {
    char c = s_[pos_];
    if (c == '\\' && std::string_view("$`\"\\\n").find(At(pos_ + 1)) != std::string_view::npos &&
        pos_ + 1 < end_) {
      if (s_[pos_ + 1] != '\n') {
        word.text += s_[pos_ + 1];
        nonblank = true;
      }
      pos_ += 2;
    } else if (c == '$') {
      std::size_t begin = pos_;
      ReadDollar();
      word.text.append(s_.substr(begin, pos_ - begin));
      if (pos_ - begin > 1) word.has_expansion = true; else nonblank = true;
    } else if (c == '`') {
      std::size_t begin = pos_;
      ReadBacktick();
      word.text.append(s_.substr(begin, pos_ - begin));
      word.has_expansion = true;
    } else {
      if (!IsBlank(c)) nonblank = true;
      word.text += c;
      ++pos_;
    }
  }
  if (pos_ < end_) ++pos_;
}

// pos_ at a `$`. Consumes the whole form; records references and parses
// command substitutions. A `$` that starts nothing is consumed alone.
void Parser::ReadDollar() {
  std::size_t dollar = pos_;
  char next = At(pos_ + 1);
  if (next == '(' && At(pos_ + 2) == '(') {
    pos_ += 3;
    ReadArithmetic(2);
  } else if (next == '(') {
    pos_ += 2;
    Parser inner(s_, pos_, end_, out_);
    inner.guarded_depth_ = guarded_depth_;
    inner.ParseList(/*until_paren=*/true);
    pos_ = inner.pos_;
  } else if (next == '[') {  // obsolete $[ expr ]
    pos_ += 2;
    while (pos_ < end_ && s_[pos_] != ']') ++pos_;
    if (pos_ < end_) ++pos_;
  } else if (next == '{') {
    ReadBraced(dollar);
  } else if (IsNameStartChar(next)) {
    pos_ += 1;
    std::size_t begin = pos_;
    while (pos_ < end_ && IsNameChar(s_[pos_])) ++pos_;
    out_->refs.push_back(ShRef{std::string(s_.substr(begin, pos_ - begin)), dollar, RefOp::kPlain, guarded_depth_ > 0});
  } else if (IsDigit(next) || std::string_view("@*#?$!-").find(next) != std::string_view::npos) {
    pos_ += 2;  // positional or special parameter
  } else {
    pos_ += 1;
  }
}

void Parser::ReadBraced(std::size_t dollar) {
  pos_ += 2;  // `${`
  RefOp op = RefOp::kPlain;
  if (At(pos_) == '#' && At(pos_ + 1) != '}') {
    op = RefOp::kLength;
    ++pos_;
  } else if (At(pos_) == '!' && At(pos_ + 1) != '}') {
    op = RefOp::kIndirect;
    ++pos_;
  }
  std::size_t name_begin = pos_;
  if (IsNameStartChar(At(pos_))) {
    while (pos_ < end_ && IsNameChar(s_[pos_])) ++pos_;
  } else if (IsDigit(At(pos_))) {
    while (pos_ < end_ && IsDigit(s_[pos_])) ++pos_;
  } else if (pos_ < end_ && std::string_view("@*#?$!-").find(s_[pos_]) != std::string_view::npos) {
    ++pos_;
  }
  std::string name(s_.substr(name_begin, pos_ - name_begin));
  if (At(pos_) == '[') {  // array subscript
    while (pos_ < end_ && s_[pos_] != ']') ++pos_;
    if (pos_ < end_) ++pos_;
  }
  bool guards = false;
  if (op == RefOp::kPlain && At(pos_) != '}') {
    char c = At(pos_);
    std::size_t skip = 1;
    if (c == ':') {
      char d = At(pos_ + 1);
      if (std::string_view("-=?+").find(d) != std::string_view::npos && d != '\0') {
        c = d;
        skip = 2;
      } else {
        c = '\0';  // ${X:offset:length}
      }
    }
    switch (c) {
      case '-': op = RefOp::kDefault; break;
      case '=': op = RefOp::kAssign; break;
      case '?': op = RefOp::kError; break;
      case '+': op = RefOp::kAlternative; break;
      default: op = RefOp::kOther; skip = 0; break;
    }
    pos_ += skip;
    guards = op != RefOp::kOther;
  }
  if (IsValidName(name)) {
    out_->refs.push_back(ShRef{name, dollar, op, guarded_depth_ > 0});
    if (op == RefOp::kAssign) out_->assignments.push_back(ShAssignment{name, name_begin, AssignKind::kParamDefault, false});
  }
  // The operand, up to the matching `}`: it may hold quotes and expansions.
  if (guards) ++guarded_depth_;
  while (pos_ < end_ && s_[pos_] != '}') {
    char c = s_[pos_];
    if (c == '\\') {
      pos_ += 2;
    } else if (c == '$') {
      ReadDollar();
    } else if (c == '`') {
      ReadBacktick();
    } else if (c == '"') {
      ShWord ignored;
      bool nonblank = false;
      ReadDoubleQuoted(ignored, nonblank);
    } else if (c == '\'') {
      std::size_t close = s_.find('\'', pos_ + 1);
      pos_ = close == std::string_view::npos || close >= end_ ? end_ : close + 1;
    } else {
      ++pos_;
    }
  }
  if (guards) --guarded_depth_;
  if (pos_ < end_) ++pos_;
  pos_ = std::min(pos_, end_);
}

void Parser::ReadBacktick() {
  std::size_t open = pos_;
  std::size_t close = open + 1;
  while (close < end_ && s_[close] != '`') close += s_[close] == '\\' ? 2 : 1;
  close = std::min(close, end_);
  Parser inner(s_, open + 1, close, out_);
  inner.guarded_depth_ = guarded_depth_;
  inner.ParseList(/*until_paren=*/false);
  pos_ = close < end_ ? close + 1 : end_;
}

// Records the references in `[begin, end)` of a here-document body (no quoting).
void Parser::ScanExpansions(std::size_t begin, std::size_t end) {
  std::size_t saved_end = end_;
  end_ = end;
  pos_ = begin;
  while (pos_ < end_) {
    char c = s_[pos_];
    if (c == '\\') {
      pos_ += 2;
    } else if (c == '$') {
      ReadDollar();
    } else if (c == '`') {
      ReadBacktick();
    } else {
      ++pos_;
    }
  }
  end_ = saved_end;
  pos_ = end;
}

// Called after a newline: the bodies of the here-documents started on that line.
void Parser::ReadPendingHeredocs() {
  std::vector<PendingHeredoc> pending;
  pending.swap(heredocs_);
  for (const PendingHeredoc& heredoc : pending) {
    while (pos_ < end_) {
      std::size_t eol = s_.find('\n', pos_);
      if (eol == std::string_view::npos || eol > end_) eol = end_;
      std::string_view line = s_.substr(pos_, eol - pos_);
      if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
      std::string_view candidate = line;
      if (heredoc.strip_tabs) {
        while (!candidate.empty() && candidate.front() == '\t') candidate.remove_prefix(1);
      }
      std::size_t next = eol < end_ ? eol + 1 : end_;
      if (candidate == heredoc.delimiter) {
        pos_ = next;
        break;
      }
      if (heredoc.expanding) ScanExpansions(pos_, eol);
      pos_ = next;
    }
  }
}

void Parser::ParseList(bool until_paren) {
  ListState state;
  while (pos_ < end_) {
    SkipBlanks();
    if (pos_ >= end_) break;
    char c = s_[pos_];
    bool at_command_start = state.command.words.empty() && state.command.redirects.empty();
    if (c == '#' && at_command_start) {
      SkipComment();
      continue;
    }
    if (c == '\n') {
      ++pos_;
      FinishCommand(state);
      ReadPendingHeredocs();
      continue;
    }
    if (at_command_start && !state.case_expects_pattern.empty() && state.case_expects_pattern.back()) {
      ParseCasePattern(state);
      continue;
    }
    if (c == '#') {  // `#` after a blank starts a comment (SkipBlanks stopped at it)
      FinishCommand(state);
      SkipComment();
      continue;
    }
    if (c == ';') {
      bool ends_arm = At(pos_ + 1) == ';' || At(pos_ + 1) == '&';
      pos_ += ends_arm ? 2 : 1;
      if (ends_arm && At(pos_) == '&') ++pos_;  // ;;&
      FinishCommand(state);
      if (ends_arm && !state.case_expects_pattern.empty()) state.case_expects_pattern.back() = true;
      continue;
    }
    if (c == '&') {
      if (At(pos_ + 1) == '>') {
        ParseRedirect(state);
        continue;
      }
      pos_ += At(pos_ + 1) == '&' ? 2 : 1;
      FinishCommand(state);
      continue;
    }
    if (c == '|') {
      if (At(pos_ + 1) == '|') {
        pos_ += 2;
      } else {
        pos_ += At(pos_ + 1) == '&' ? 2 : 1;
        state.command.piped = true;
      }
      FinishCommand(state);
      continue;
    }
    if (c == '<' || c == '>') {
      ParseRedirect(state);
      continue;
    }
    if (c == '(') {
      if (at_command_start && At(pos_ + 1) == '(') {
        ParseArithmeticCommand();
        continue;
      }
      ++pos_;
      std::size_t after = pos_;
      while (after < end_ && IsBlank(s_[after])) ++after;
      if (!at_command_start && At(after) == ')') {  // `name()`: a function definition
        pos_ = after + 1;
      } else {
        ++state.paren_depth;
      }
      FinishCommand(state);
      continue;
    }
    if (c == ')') {
      ++pos_;
      FinishCommand(state);
      if (state.paren_depth > 0) {
        --state.paren_depth;
        continue;
      }
      if (until_paren) return;
      continue;
    }
    ShWord word = ReadWord();
    bool io_number = !word.quoted && !word.text.empty() &&
                     std::all_of(word.text.begin(), word.text.end(), IsDigit) && (At(pos_) == '<' || At(pos_) == '>');
    if (io_number) continue;  // `2>`: the number belongs to the redirection
    if (word.end == word.begin) {  // nothing consumed: skip the character to make progress
      ++pos_;
      continue;
    }
    AddWord(state, std::move(word));
  }
  FinishCommand(state);
}

bool IsAssignmentWord(const ShWord& word, std::string_view script) {
  std::string_view raw = script.substr(word.begin, word.end - word.begin);
  std::size_t i = 0;
  if (raw.empty() || !IsNameStartChar(raw[0])) return false;
  while (i < raw.size() && IsNameChar(raw[i])) ++i;
  if (i < raw.size() && raw[i] == '[') {
    std::size_t close = raw.find(']', i);
    if (close == std::string_view::npos) return false;
    i = close + 1;
  }
  if (i < raw.size() && raw[i] == '+') ++i;
  return i < raw.size() && raw[i] == '=';
}

// NAME of a `NAME=...` word (or a bare NAME), and whether its value is blank.
std::pair<std::string, bool> SplitAssignment(const ShWord& word) {
  std::size_t eq = word.text.find('=');
  std::string name = word.text.substr(0, eq);
  std::size_t bracket = name.find('[');
  if (bracket != std::string::npos) name.resize(bracket);
  if (!name.empty() && name.back() == '+') name.pop_back();
  bool blank = false;
  if (eq != std::string::npos) {
    std::string_view value = std::string_view(word.text).substr(eq + 1);
    blank = !word.has_expansion && std::all_of(value.begin(), value.end(), IsBlank);
  }
  return {name, blank};
}

void AddNameArguments(ShScript& script, const ShCommand& command, std::size_t first, AssignKind kind,
                      std::string_view options_with_argument) {
  for (std::size_t i = first; i < command.words.size(); ++i) {
    const ShWord& word = command.words[i];
    if (!word.text.empty() && word.text[0] == '-') {
      if (word.text.size() == 2 && options_with_argument.find(word.text[1]) != std::string_view::npos) ++i;
      continue;
    }
    if (IsValidName(word.text)) script.assignments.push_back(ShAssignment{word.text, word.begin, kind, false});
  }
}

// Records what each command assigns: plain and prefix assignments, the
// declaration builtins, read/getopts/mapfile/printf -v, for/select, let.
void CollectAssignments(ShScript& script, std::string_view text) {
  for (const ShCommand& command : script.commands) {
    int name_index = CommandNameIndex(command, text);
    std::size_t prefix_end = name_index < 0 ? command.words.size() : static_cast<std::size_t>(name_index);
    AssignKind prefix_kind = name_index < 0 ? AssignKind::kPlain : AssignKind::kPrefix;
    for (std::size_t i = 0; i < prefix_end; ++i) {
      auto [name, blank] = SplitAssignment(command.words[i]);
      script.assignments.push_back(ShAssignment{name, command.words[i].begin, prefix_kind, blank});
    }
    if (name_index < 0) continue;
    const std::size_t first = static_cast<std::size_t>(name_index);
    std::string_view name = CommandBaseName(command.words[first].text);
    if (command.words[first].quoted) continue;
    if (name == "eval" || name == "source" || name == ".") {
      script.dynamic = true;
    } else if (name == "export" || name == "readonly" || name == "local" || name == "declare" ||
               name == "typeset") {
      bool exports = name == "export";
      for (std::size_t i = first + 1; i < command.words.size(); ++i) {
        const ShWord& word = command.words[i];
        if (!word.text.empty() && (word.text[0] == '-' || word.text[0] == '+')) {
          if (word.text[0] == '-' && word.text.find('x') != std::string::npos) exports = true;
          continue;
        }
        bool assigns = IsAssignmentWord(word, text);
        auto [var, blank] = SplitAssignment(word);
        if (!IsValidName(var)) {
          script.dynamic = true;  // export "$k=$v", declare $name
          continue;
        }
        AssignKind kind = exports ? AssignKind::kExport : AssignKind::kDeclare;
        if (assigns) {
          script.assignments.push_back(ShAssignment{var, word.begin, kind, blank});
        } else if (exports) {
          script.exported.push_back(var);
        } else {
          script.assignments.push_back(ShAssignment{var, word.begin, kind, true});
        }
      }
    } else if (name == "read") {
      AddNameArguments(script, command, first + 1, AssignKind::kRead, "dnNptuia");
      for (std::size_t i = first + 1; i + 1 < command.words.size(); ++i) {
        if (command.words[i].text == "-a" && IsValidName(command.words[i + 1].text)) {
          script.assignments.push_back(
              ShAssignment{command.words[i + 1].text, command.words[i + 1].begin, AssignKind::kRead, false});
        }
      }
    } else if (name == "getopts") {
      if (command.words.size() > first + 2 && IsValidName(command.words[first + 2].text)) {
        script.assignments.push_back(
            ShAssignment{command.words[first + 2].text, command.words[first + 2].begin, AssignKind::kRead, false});
      }
    } else if (name == "mapfile" || name == "readarray") {
      std::size_t before = script.assignments.size();
      AddNameArguments(script, command, first + 1, AssignKind::kRead, "dnOsuCc");
      if (script.assignments.size() == before) {
        script.assignments.push_back(ShAssignment{"MAPFILE", command.words[first].begin, AssignKind::kRead, false});
      }
    } else if (name == "printf") {
      for (std::size_t i = first + 1; i + 1 < command.words.size(); ++i) {
        if (command.words[i].text == "-v" && IsValidName(command.words[i + 1].text)) {
          script.assignments.push_back(
              ShAssignment{command.words[i + 1].text, command.words[i + 1].begin, AssignKind::kRead, false});
        }
      }
    } else if (name == "for" || name == "select") {
      if (command.words.size() > first + 1 && IsValidName(command.words[first + 1].text)) {
        script.assignments.push_back(
            ShAssignment{command.words[first + 1].text, command.words[first + 1].begin, AssignKind::kLoop, false});
      }
    } else if (name == "let") {
      for (std::size_t i = first + 1; i < command.words.size(); ++i) {
        const std::string& expr = command.words[i].text;
        std::size_t j = 0;
        while (j < expr.size() && IsNameChar(expr[j])) ++j;
        std::string var = expr.substr(0, j);
        if (IsValidName(var) && j < expr.size() && expr.find('=', j) != std::string::npos) {
          script.assignments.push_back(ShAssignment{var, command.words[i].begin, AssignKind::kArithmetic, false});
        }
      }
    }
  }
}

}  // namespace

int CommandNameIndex(const ShCommand& command, std::string_view script) {
  for (std::size_t i = 0; i < command.words.size(); ++i) {
    if (!IsAssignmentWord(command.words[i], script)) return static_cast<int>(i);
  }
  return -1;
}

std::string_view CommandBaseName(std::string_view name) {
  std::size_t slash = name.rfind('/');
  return slash == std::string_view::npos ? name : name.substr(slash + 1);
}

bool IsWellKnownVariable(std::string_view name) {
  static constexpr std::array<std::string_view, 60> kNames = {
      "HOME", "PATH", "HOSTNAME", "PWD", "OLDPWD", "SHELL", "USER", "LOGNAME", "TERM", "LANG", "LANGUAGE",
      "TZ", "TMPDIR", "IFS", "PS1", "PS2", "PS3", "PS4", "RANDOM", "LINENO", "SECONDS", "PPID", "UID", "EUID",
      "GROUPS", "OPTARG", "OPTIND", "OPTERR", "REPLY", "COLUMNS", "LINES", "SHLVL", "HOSTTYPE", "OSTYPE",
      "MACHTYPE", "PIPESTATUS", "FUNCNAME", "EPOCHSECONDS", "EPOCHREALTIME", "SRANDOM", "BASHPID", "MAPFILE",
      "HISTFILE", "HISTSIZE", "MAIL", "MAILPATH", "CDPATH", "ENV", "FCEDIT", "NLSPATH", "EDITOR", "PAGER",
      "DISPLAY", "_", "COMP_WORDS", "DIRSTACK", "HISTCMD", "PROMPT_COMMAND", "POSIXLY_CORRECT", "TERMINFO"};
  if (std::find(kNames.begin(), kNames.end(), name) != kNames.end()) return true;
  if (name.substr(0, 3) == "LC_" || name.substr(0, 5) == "BASH_" || name == "BASH") return true;
  // Kubernetes service links: FOO_SERVICE_HOST, FOO_SERVICE_PORT[_NAME] and
  // FOO_PORT_443_TCP[_ADDR|_PORT|_PROTO]. A bare FOO_PORT is a service link
  // too, but far more often the user's own variable, so it is left to the rules.
  if (name.find("_SERVICE_HOST") != std::string_view::npos || name.find("_SERVICE_PORT") != std::string_view::npos) {
    return true;
  }
  for (std::size_t p = name.find("_PORT_"); p != std::string_view::npos; p = name.find("_PORT_", p + 1)) {
    std::size_t q = p + 6;
    while (q < name.size() && IsDigit(name[q])) ++q;
    std::string_view rest = name.substr(q);
    if (q > p + 6 && (rest.substr(0, 4) == "_TCP" || rest.substr(0, 4) == "_UDP" || rest.substr(0, 5) == "_SCTP")) {
      return true;
    }
  }
  return false;
}

ShScript ParseShell(std::string_view script) {
  ShScript result;
  Parser parser(script, 0, script.size(), &result);
  parser.ParseList(/*until_paren=*/false);
  std::sort(result.refs.begin(), result.refs.end(),
            [](const ShRef& a, const ShRef& b) { return a.begin < b.begin; });
  CollectAssignments(result, script);
  std::sort(result.assignments.begin(), result.assignments.end(),
            [](const ShAssignment& a, const ShAssignment& b) { return a.begin < b.begin; });
  return result;
}

}  // namespace safesubst::lint
