// SPDX-License-Identifier: Apache-2.0
// The SQL scanner: one pass over a program records its literals,
// identifiers and comments (the fields a value may stand in); what lies
// between is code. It reads each dialect only as far as needed to find where
// those end, and where it cannot follow (a backslash outside a literal, an
// unclosed literal) it stops: every later place is code.
#include "sql_programs.h"

#include <algorithm>
#include <cctype>

namespace safesubst {
namespace {

constexpr std::size_t kNone = std::string_view::npos;

constexpr std::string_view kLiteral = "a string literal";
constexpr std::string_view kEscapeLiteral = "an E'...' string literal";
constexpr std::string_view kIdentifier = "a quoted identifier";
constexpr std::string_view kDoubleQuoted = "a double-quoted string or identifier";
constexpr std::string_view kDollarQuoted = "a dollar-quoted string";
constexpr std::string_view kComment = "a comment";

// What a dialect writes where the scanner must step over it.
struct Dialect {
  bool backslash_escapes = false;  // '...' and "..." read `\` escapes (mysql, clickhouse)
  bool hash_comments = false;      // `#` starts a comment
  bool hash_needs_blank = false;   // only `# ` or `#!` does (clickhouse)
  bool dash_needs_blank = false;   // `--` starts a comment only before a blank or control (mysql)
  bool slash_comments = false;     // `//` (cql)
  bool nested_comments = false;    // `/* /* */ */` (postgres)
  bool executable_comments = false;  // `/*!...*/`, `/*+...*/` hold code (mysql)
  bool e_strings = false;          // E'...' reads `\` escapes (postgres)
  bool dollar_quotes = false;      // `$$...$$`
  bool dollar_tags = false;        // `$tag$...$tag$` too
  bool body_is_sql = false;        // a dollar-quoted body is SQL again (postgres DO, CREATE FUNCTION)
  bool literal_bodies = false;     // a '...' after AS, DO or LANGUAGE x is a body run as code (postgres, cql)
  bool backticks = false;          // `...` identifiers
  bool brackets = false;           // [...] identifiers (sqlite)
  bool dot_commands = false;       // a line starting with `.` is a sqlite3 shell command
  bool double_quoted_strings = false;  // "..." may be a string (mysql)
  std::string_view command_words = {};  // starts commands
  std::string_view eval_words = {};     // runs strings as SQL or loads code
};

constexpr Dialect kPostgres{.nested_comments = true,
                            .e_strings = true,
                            .dollar_quotes = true,
                            .dollar_tags = true,
                            .body_is_sql = true,
                            .literal_bodies = true,
                            .command_words = "program",
                            .eval_words = "execute gexec dblink dblink_exec query_to_xml query_to_xmlschema "
                                          "query_to_xml_and_xmlschema ts_stat ts_rewrite"};
constexpr Dialect kSqlite{.backticks = true,
                          .brackets = true,
                          .dot_commands = true,
                          .command_words = "edit",
                          .eval_words = "load_extension eval"};
constexpr Dialect kMysql{.backslash_escapes = true,
                         .hash_comments = true,
                         .dash_needs_blank = true,
                         .executable_comments = true,
                         .backticks = true,
                         .double_quoted_strings = true,
                         .command_words = "system pager sys_exec sys_eval",
                         .eval_words = "prepare"};
constexpr Dialect kClickhouse{.backslash_escapes = true,
                              .hash_comments = true,
                              .hash_needs_blank = true,
                              .dollar_quotes = true,
                              .dollar_tags = true,
                              .backticks = true};
constexpr Dialect kCql{.slash_comments = true, .dollar_quotes = true, .literal_bodies = true};

const Dialect& DialectOf(SqlDialect dialect) {
  switch (dialect) {
    case SqlDialect::kSqlite: return kSqlite;
    case SqlDialect::kMysql: return kMysql;
    case SqlDialect::kClickhouse: return kClickhouse;
    case SqlDialect::kCql: return kCql;
    case SqlDialect::kNone:
    case SqlDialect::kPostgres: break;
  }
  return kPostgres;
}

bool IsIdentifierChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || static_cast<unsigned char>(c) >= 0x80;
}

bool Listed(std::string_view list, std::string_view word) {
  for (std::size_t at = 0; at < list.size();) {
    const std::size_t end = std::min(list.find(' ', at), list.size());
    if (list.substr(at, end - at) == word) return true;
    at = end + 1;
  }
  return false;
}

std::string Lower(std::string_view word) {
  std::string lower(word);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return lower;
}

// The identifier words of [begin, end) of `text`, lower-cased, in order.
std::vector<std::string> WordsOf(std::string_view text, std::size_t begin, std::size_t end) {
  std::vector<std::string> words;
  for (std::size_t i = begin; i < end;) {
    std::size_t stop = i;
    while (stop < end && IsIdentifierChar(text[stop])) ++stop;
    if (stop > i) words.push_back(Lower(text.substr(i, stop - i)));
    i = std::max(stop, i + 1);
  }
  return words;
}

// Program-wide facts the scanner needs before it starts.
struct Setting {
  bool backslash_in_literals = false;  // the program changes how postgres reads `\` in '...'
  bool foreign_bodies = false;         // LANGUAGE plpython3u, java...: dollar bodies are code
};

Setting SettingOf(std::string_view program) {
  Setting setting;
  const std::vector<std::string> words = WordsOf(program, 0, program.size());
  for (std::size_t i = 0; i < words.size(); ++i) {
    const std::string& word = words[i];
    if (word == "standard_conforming_strings" || word == "backslash_quote") setting.backslash_in_literals = true;
    if (word == "language" && i + 1 < words.size() && words[i + 1] != "sql" && words[i + 1] != "plpgsql") {
      setting.foreign_bodies = true;
    }
  }
  return setting;
}

class SqlScanner {
 public:
  SqlScanner(const Dialect& dialect, const Setting& setting, std::string_view program, std::string extra_stops,
             std::vector<SqlField>* fields)
      : d_(dialect), setting_(setting), p_(program), extra_(std::move(extra_stops)), fields_(fields) {}

  void Scan(std::size_t begin, std::size_t end) {
    begin_ = begin;
    end_ = end;
    for (i_ = begin; i_ < end_;) {
      if (!Next()) return;
    }
  }

 private:
  // Steps over one construct from i_; false where the scanner loses the program.
  bool Next() {
    const std::string_view rest = p_.substr(i_, end_ - i_);
    const char c = rest[0];
    if (rest.starts_with("--") && (!d_.dash_needs_blank || rest.size() == 2 ||
                                   std::isspace(static_cast<unsigned char>(rest[2])) ||
                                   std::iscntrl(static_cast<unsigned char>(rest[2])))) {
      return LineComment(2);
    }
    if (c == '#' && d_.hash_comments && (!d_.hash_needs_blank || rest.starts_with("# ") || rest.starts_with("#!"))) {
      return LineComment(1);
    }
    if (rest.starts_with("//") && d_.slash_comments) return LineComment(2);
    if (rest.starts_with("/*")) return BlockComment(rest);
    if (c == '\'') return Literal();
    if (c == '"') return Quoted('"', d_.double_quoted_strings ? kDoubleQuoted : kIdentifier);
    if (c == '`' && d_.backticks) return Quoted('`', kIdentifier);
    if (c == '[' && d_.brackets) return Bracketed();
    if (c == '$' && d_.dollar_quotes && (i_ == 0 || !IsIdentifierChar(p_[i_ - 1]))) return Dollar();
    if (c == '\\') return false;  // psql's and mysql's client commands: `\!`, `\gexec`, `\g`
    if (c == '.' && d_.dot_commands && AtLineStart()) {
      i_ = std::min(p_.find('\n', i_), end_);  // `.shell CMD`: code to the line's end
      return true;
    }
    ++i_;
    return true;
  }

  void Record(std::size_t begin, std::size_t end, ShellOperand kind, std::string stops, std::string_view what) {
    if (begin < end) fields_->push_back(SqlField{begin, end, kind, std::move(stops) + extra_, what, {}});
  }

  bool LineComment(std::size_t opener) {
    const std::size_t begin = i_ + opener;
    i_ = std::min(p_.find('\n', begin), end_);
    Record(begin, i_, ShellOperand::kProgramText, "\n", kComment);
    return true;
  }

  bool BlockComment(std::string_view rest) {
    if (d_.executable_comments && (rest.starts_with("/*!") || rest.starts_with("/*+") || rest.starts_with("/*M!"))) {
      i_ += 2;  // its text is SQL the server runs
      return true;
    }
    const std::size_t begin = i_ + 2;
    int depth = 1;
    std::size_t j = begin;
    for (; j + 1 < end_ && depth > 0; ++j) {
      if (p_[j] == '*' && p_[j + 1] == '/') {
        --depth;
        ++j;
      } else if (d_.nested_comments && p_[j] == '/' && p_[j + 1] == '*') {
        ++depth;
        ++j;
      }
    }
    if (depth > 0) {
      Record(begin, end_, ShellOperand::kProgramText, "*/", kComment);
      return false;
    }
    Record(begin, j - 2, ShellOperand::kProgramText, "*/", kComment);
    i_ = j;
    return true;
  }

  // Where the text quoted by `quote` from i_ + 1 ends (at its closing quote,
  // a doubled quote staying inside), or npos.
  std::size_t QuoteEnd(char quote, bool escapes) const {
    for (std::size_t j = i_ + 1; j < end_; ++j) {
      if (p_[j] == '\\' && escapes) {
        ++j;
      } else if (p_[j] == quote) {
        if (j + 1 < end_ && p_[j + 1] == quote) {
          ++j;
        } else {
          return j;
        }
      }
    }
    return kNone;
  }

  bool Literal() {
    const bool e_string = d_.e_strings && i_ > begin_ && (p_[i_ - 1] == 'E' || p_[i_ - 1] == 'e') &&
                          (i_ - 1 == begin_ || !IsIdentifierChar(p_[i_ - 2]));
    const bool body = d_.literal_bodies && AfterBodyKeyword(e_string ? i_ - 1 : i_);
    // mysql without NO_BACKSLASH_ESCAPES, postgres with standard_conforming_strings off.
    const bool may_escape = d_.backslash_escapes || setting_.backslash_in_literals;
    const std::size_t close = QuoteEnd('\'', e_string || may_escape);
    if (!e_string && may_escape && BackslashBeforeQuote(close, '\'')) return false;
    if (body) return Skip(close);  // code
    if (e_string) return Field(close, ShellOperand::kProgramText, "'\\", kEscapeLiteral);
    return Field(close, ShellOperand::kProgramDoubled, may_escape ? "'\\" : "'", kLiteral);
  }

  // The template's own text from i_ to `close` has `\` before a quote: a
  // reading with `\` escapes and one without would end it at different places.
  bool BackslashBeforeQuote(std::size_t close, char quote) const {
    const std::string_view text = p_.substr(i_, std::min(close, end_) - i_);
    for (std::size_t at = text.find('\\'); at != kNone; at = text.find('\\', at + 1)) {
      if (at + 1 >= text.size() || text[at + 1] == quote) return true;
    }
    return false;
  }

  bool Quoted(char quote, std::string_view what) {
    std::string stops(1, quote);
    if (d_.backslash_escapes) stops += '\\';
    const std::size_t close = QuoteEnd(quote, d_.backslash_escapes);
    if (d_.backslash_escapes && BackslashBeforeQuote(close, quote)) return false;
    return Field(close, ShellOperand::kProgramDoubled, std::move(stops), what);
  }

  bool Bracketed() {
    const std::size_t close = p_.find(']', i_);
    return Field(close < end_ ? close : kNone, ShellOperand::kProgramText, "]", kIdentifier);
  }

  // The field from i_ + 1 to `close` (npos: to the end, and the program is lost).
  bool Field(std::size_t close, ShellOperand kind, std::string stops, std::string_view what) {
    Record(i_ + 1, std::min(close, end_), kind, std::move(stops), what);
    return Skip(close);
  }

  bool Skip(std::size_t close) {
    if (close == kNone) return false;
    i_ = close + 1;
    return true;
  }

  // `$tag$...$tag$` (`$$...$$`); a `$` opening none (`$1`) is code.
  bool Dollar() {
    std::size_t tag_end = i_ + 1;
    if (d_.dollar_tags && tag_end < end_ && !std::isdigit(static_cast<unsigned char>(p_[tag_end]))) {
      while (tag_end < end_ && IsIdentifierChar(p_[tag_end])) ++tag_end;
    }
    if (tag_end >= end_ || p_[tag_end] != '$') {
      ++i_;
      return true;
    }
    const std::string_view tag = p_.substr(i_, tag_end + 1 - i_);
    const std::size_t body = tag_end + 1;
    const std::size_t close = std::min(p_.find(tag, body), end_);
    if (setting_.foreign_bodies) {
      // code: nothing recorded
    } else if (d_.body_is_sql) {
      SqlScanner(d_, setting_, p_, extra_ + "$", fields_).Scan(body, close);
    } else {
      Record(body, close, ShellOperand::kProgramText, "$", kDollarQuoted);
    }
    if (close + tag.size() > end_) return false;
    i_ = close + tag.size();
    return true;
  }

  // Only blanks between the line's start and i_.
  bool AtLineStart() const {
    std::size_t j = i_;
    while (j > begin_ && (p_[j - 1] == ' ' || p_[j - 1] == '\t')) --j;
    return j == begin_ || p_[j - 1] == '\n';
  }

  // The code before `at` ends with AS, DO or LANGUAGE x: a literal there is a body run as code.
  bool AfterBodyKeyword(std::size_t at) const {
    const std::size_t from = at > begin_ + 64 ? at - 64 : begin_;
    const std::size_t last = p_.find_last_not_of(" \t\r\n", at - 1);
    if (at == begin_ || last == kNone || last < from || !IsIdentifierChar(p_[last])) return false;
    const std::vector<std::string> words = WordsOf(p_, from, last + 1);
    const std::string& word = words.back();
    return word == "as" || word == "do" || (words.size() > 1 && words[words.size() - 2] == "language");
  }

  const Dialect& d_;
  const Setting& setting_;
  std::string_view p_;
  std::string extra_;  // stops every field here adds (`$` in a dollar-quoted body)
  std::vector<SqlField>* fields_;
  std::size_t begin_ = 0, end_ = 0, i_ = 0;
};

enum class Runs : std::uint8_t { kNothing, kCommands, kCode };

// What the program's code (outside its fields) does with its strings.
Runs WhatItRuns(const Dialect& dialect, std::string_view program, const std::vector<SqlField>& fields) {
  Runs runs = Runs::kNothing;
  std::size_t code = 0;
  auto read = [&](std::size_t end) {
    const std::vector<std::string> words = WordsOf(program, code, end);
    for (std::size_t i = 0; i < words.size(); ++i) {
      // GRANT EXECUTE ON FUNCTION names a privilege.
      const bool privilege = words[i] == "execute" && i + 1 < words.size() && words[i + 1] == "on";
      if (Listed(dialect.eval_words, words[i]) && !privilege) runs = Runs::kCode;
      if (Listed(dialect.command_words, words[i]) && runs == Runs::kNothing) runs = Runs::kCommands;
    }
  };
  for (const SqlField& field : fields) {
    read(std::max(field.begin, code));
    code = std::max(code, field.end);
  }
  read(program.size());
  return runs;
}

void Restrict(Runs runs, std::vector<SqlField>* fields) {
  if (runs == Runs::kNothing) return;
  for (SqlField& field : *fields) {
    if (field.what == kComment) continue;
    if (runs == Runs::kCode) {
      field.kind = ShellOperand::kProgramCode;
      field.stops.clear();
      field.runs = "in SQL that runs strings as SQL or loads code (EXECUTE, \\gexec, PREPARE, load_extension)";
    } else {
      field.kind = ShellOperand::kProgramShellText;
      field.runs = "in SQL that starts commands (COPY ... PROGRAM, edit(), system, pager)";
    }
  }
}

}  // namespace

std::vector<SqlField> SqlFields(SqlDialect dialect, std::string_view program) {
  const Dialect& rules = DialectOf(dialect);
  const Setting setting = SettingOf(program);
  std::vector<SqlField> fields;
  SqlScanner(rules, setting, program, "", &fields).Scan(0, program.size());
  Restrict(WhatItRuns(rules, program, fields), &fields);
  return fields;
}

}  // namespace safesubst
