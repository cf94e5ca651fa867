// SPDX-License-Identifier: Apache-2.0
// Finding the program texts a script hands to other interpreters, and where
// in each program a placeholder stands.
//
// A program is the word's text with every expansion replaced by a stand-in
// `0`: a value the rule accepts keeps the program's structure (it stays in
// its field, or is a number where the scanner sees code), so the fields of a
// later placeholder are where the scanner finds them. The scanners read each
// language only as far as needed to delimit strings, regular expressions and
// sed's fields; at a construct they cannot follow they give up, and every
// later place counts as code (the strict rule), never as a field.
#include "interpreter_programs.h"

#include <algorithm>
#include <cctype>
#include <deque>
#include <iterator>
#include <string>
#include <utility>

#include "command_line.h"
#include "references.h"
#include "shell_commands.h"
#include "sql_programs.h"

namespace safesubst {
namespace {

constexpr std::size_t kNone = std::string_view::npos;

enum class Language : std::uint8_t { kSed, kAwk, kPerl, kPython, kNode, kJq, kSql, kUnknown };

// How an interpreter's command line names its program.
struct OptionLetters {
  std::string_view code;      // options whose argument is program text (`-e`)
  std::string_view file;      // options naming a program file or module (then no operand is one)
  std::string_view argument;  // options taking the rest of the word or the next word
  std::string_view attached;  // options taking the rest of their word only (`-i.bak`)
  std::string_view digits;    // options taking the digits after them (perl's `-l`, `-0777`)
};
struct LongOptions {
  std::string_view code;  // long options whose argument is program text
  std::string_view file;
  std::string_view argument;  // long options taking the next word (without `=`)
};
enum Reading : std::uint16_t {
  kOperandIsProgram = 1,  // without a code option, the first operand is the program
  kOptionsAnywhere = 2,   // GNU getopt: options may follow the operands
  kAbbreviations = 4,     // GNU getopt_long: any prefix of a long option names it (`--expr`)
  kAttachedCode = 8,      // a code letter takes the rest of its word (`-e'...'`); node's do not
  kMagicOpen = 16,        // perl: -n, -p and `<>` open the operands with the two-argument open
  // SQL clients (sql_programs.h): the operands are a database, a host or a command, no script file;
  // without a code or file option the program is the standard input (`psql <<EOF`).
  kDataOperands = 32,
  kLaterOperandsAreCode = 64,  // sqlite3 DB SQL...: each operand after the first is a program
  kSingleDashLongs = 128,      // sqlite3's `-cmd`, as `--cmd`
  kEvalOperand = 256,          // redis-cli's EVAL SCRIPT (EVAL_RO, SCRIPT LOAD): SCRIPT is a program
};
struct Interpreter {
  Language language;
  OptionLetters letters;
  LongOptions longs;
  unsigned reading;  // Reading flags
  SqlDialect sql = SqlDialect::kNone;  // Language::kSql

  bool Reads(Reading flag) const { return (reading & flag) != 0; }
};

constexpr Interpreter kSed{Language::kSed, {"e", "f", "l", "i", ""}, {"--expression", "--file", "--line-length"},
                           kOperandIsProgram | kOptionsAnywhere | kAbbreviations | kAttachedCode};
constexpr Interpreter kAwk{Language::kAwk,
                           {"e", "fE", "vFWil", "", ""},
                           {"--source", "--file --exec", "--assign --field-separator --include --load"},
                           kOperandIsProgram | kAbbreviations | kAttachedCode};
constexpr Interpreter kPerl{Language::kPerl, {"eE", "", "I", "iMmxCdDFV", "l0"}, {}, kAttachedCode | kMagicOpen};
constexpr Interpreter kPython{Language::kPython, {"c", "m", "WX", "", ""}, {"", "", "--check-hash-based-pycs"},
                              kAttachedCode};
constexpr Interpreter kNode{
    Language::kNode,
    {"ep", "", "rC", "", ""},
    {"--eval --print", "", "--require --import --loader --experimental-loader --input-type --conditions --title"},
    0};
constexpr Interpreter kJq{Language::kJq,
                          {"", "f", "L", "", ""},
                          {"", "--from-file", "--indent --arg --argjson --slurpfile --rawfile"},
                          kOperandIsProgram | kOptionsAnywhere | kAttachedCode};
// Languages without a scanner: every place in their programs is code.
constexpr Interpreter kRuby{
    Language::kUnknown,
    {"e", "", "rICEF", "xiWKT", "0"},
    {"", "", "--enable --disable --encoding --external-encoding --internal-encoding"},
    kAttachedCode};
constexpr Interpreter kPhp{Language::kUnknown, {"rBRE", "fF", "dcz", "", ""}, {}, kAttachedCode};
constexpr Interpreter kLua{Language::kUnknown, {"e", "", "l", "", ""}, {}, kAttachedCode};
constexpr Interpreter kR{Language::kUnknown, {"e", "f", "", "", ""}, {"", "--file", ""}, 0};
// SQL clients (and mongosh's JavaScript, redis-cli's Lua); only options that require an argument are listed.
constexpr Interpreter kPsql{Language::kSql,
                            {"c", "f", "dhpUvPoLTFR", "", ""},
                            {"--command", "--file",
                             "--dbname --host --port --username --set --variable --pset --output --log-file "
                             "--table-attr --field-separator --record-separator"},
                            kOptionsAnywhere | kAbbreviations | kAttachedCode | kDataOperands,
                            SqlDialect::kPostgres};
constexpr Interpreter kMysql{Language::kSql,
                             {"e", "", "uhPDS", "p", ""},
                             {"--execute --init-command", "",
                              "--user --host --port --database --socket --default-character-set --protocol "
                              "--ssl-ca --ssl-cert --ssl-key --ssl-mode --connect-timeout --delimiter --tee"},
                             kOptionsAnywhere | kAbbreviations | kAttachedCode | kDataOperands, SqlDialect::kMysql};
constexpr Interpreter kSqlite{Language::kSql,
                              {"", "", "", "", ""},
                              {"-cmd --cmd", "-init --init",
                               "-separator --separator -newline --newline -nullvalue --nullvalue -vfs --vfs "
                               "-mmap --mmap -maxsize --maxsize -nonce --nonce -escape --escape"},
                              kOptionsAnywhere | kDataOperands | kLaterOperandsAreCode | kSingleDashLongs,
                              SqlDialect::kSqlite};
constexpr Interpreter kClickhouse{Language::kSql,
                                  {"q", "", "hudfC", "", ""},
                                  {"--query", "--queries-file", "--host --port --user --database --format"},
                                  kOptionsAnywhere | kAbbreviations | kAttachedCode | kDataOperands,
                                  SqlDialect::kClickhouse};
constexpr Interpreter kCqlsh{Language::kSql,
                             {"e", "f", "upk", "", ""},
                             {"--execute", "--file",
                              "--username --password --keyspace --cqlversion --encoding --request-timeout "
                              "--connect-timeout --cqlshrc --protocol-version"},
                             kOptionsAnywhere | kAbbreviations | kAttachedCode | kDataOperands, SqlDialect::kCql};
constexpr Interpreter kMongosh{Language::kNode,
                               {"", "f", "uph", "", ""},
                               {"--eval", "--file",
                                "--host --port --username --password --authenticationDatabase "
                                "--authenticationMechanism --tlsCAFile --tlsCertificateKeyFile --apiVersion"},
                               kOptionsAnywhere | kDataOperands};
constexpr Interpreter kRedisCli{Language::kUnknown,
                                {"", "", "hpanusridD", "", ""},
                                {"", "--eval", "--user --pass --cacert --cacertdir --cert --key --sni"},
                                kDataOperands | kEvalOperand};

// The interpreter `program` names (`sed`, `/usr/bin/python3.11`, `pypy3`), or null.
const Interpreter* InterpreterNamed(std::string_view program) {
  const std::string_view name = ProgramBaseName(program);
  auto versioned = [&](std::string_view base) {  // `python3`, `python3.11`, `lua5.4`
    return name.starts_with(base) &&
           name.find_first_not_of("0123456789.", base.size()) == std::string_view::npos;
  };
  if (name == "sed" || name == "gsed") return &kSed;
  if (name == "awk" || name == "gawk" || name == "mawk" || name == "nawk") return &kAwk;
  if (versioned("perl")) return &kPerl;
  if (versioned("python") || versioned("pypy")) return &kPython;
  if (name == "node" || name == "nodejs" || name == "bun") return &kNode;
  if (name == "jq") return &kJq;
  if (versioned("ruby")) return &kRuby;
  if (versioned("php")) return &kPhp;
  if (versioned("lua") || name == "luajit") return &kLua;
  if (name == "Rscript" || name == "R") return &kR;
  if (name == "psql") return &kPsql;
  if (name == "mysql" || name == "mariadb") return &kMysql;
  if (versioned("sqlite")) return &kSqlite;
  if (name == "clickhouse-client") return &kClickhouse;
  if (name == "cqlsh") return &kCqlsh;
  if (name == "mongosh" || name == "mongo") return &kMongosh;
  if (name == "redis-cli") return &kRedisCli;
  return nullptr;
}

bool Listed(std::string_view list, std::string_view name) {
  for (std::size_t at = list.find(name); at != kNone; at = list.find(name, at + 1)) {
    const std::size_t end = at + name.size();
    if ((at == 0 || list[at - 1] == ' ') && (end == list.size() || list[end] == ' ')) return true;
  }
  return false;
}

// `--expr` shortens a long option of `list` (`--expression`), as getopt_long takes it.
bool Abbreviates(std::string_view list, std::string_view name) {
  if (name.size() <= 2) return false;
  for (std::size_t at = list.find(name); at != kNone; at = list.find(name, at + 1)) {
    if (at == 0 || list[at - 1] == ' ') return true;
  }
  return false;
}

// A file name that is the standard input (`sed -f -`, `awk -f /dev/stdin`, `python3 -`).
bool IsStandardInput(std::string_view file) {
  return file == "-" || file == "/dev/stdin" || file == "/dev/fd/0" || file == "/proc/self/fd/0";
}

// A program text: word `word`'s text from `start` on.
struct ProgramWord {
  std::size_t word = 0;
  std::size_t start = 0;
};

// The programs of one command line: words, or its standard input
// (`python3 - <<EOF`, `perl <<EOF`, `sed -f - <<EOF`: no program word, no
// script file, or a script file that is the standard input).
struct Programs {
  std::vector<ProgramWord> words;
  bool reads_stdin = false;
  bool names_file = false;  // a program file or script operand (which may be a `<(...)`)
  // Operands perl opens with the two-argument open (-n, -p, `<>`): `cmd|` runs cmd.
  std::vector<std::size_t> opened_files;
};

// Reads the options of an interpreter as it does: where its program is.
class OptionReader {
 public:
  OptionReader(const Interpreter& interpreter, const std::vector<ShWord>& words)
      : interpreter_(interpreter), words_(words) {}

  // The programs of the command line whose options begin at word `first`.
  Programs Read(std::size_t first) {
    for (i_ = first; i_ < words_.size(); ++i_) {
      const std::string& word = words_[i_].text;
      if (!options_ || word.size() < 2 || word[0] != '-') {
        if (std::exchange(maybe_argument_, false)) continue;
        if (first_operand_ == kNone) first_operand_ = i_;
        if (!interpreter_.Reads(kOptionsAnywhere)) options_ = false;
        if (interpreter_.Reads(kDataOperands)) {
          DataOperand();
          continue;
        }
        if (!interpreter_.Reads(kOperandIsProgram)) break;  // the script file: the rest are its arguments
        continue;
      }
      maybe_argument_ = false;
      if (word == "--") {
        options_ = false;
      } else if (word.starts_with("--") || interpreter_.Reads(kSingleDashLongs)) {
        LongOption(word);
      } else {
        Letters(word);
      }
    }
    if (found_.words.empty() && !named_file_ && interpreter_.Reads(kOperandIsProgram) && first_operand_ != kNone) {
      found_.words.push_back({first_operand_, 0});
    }
    const bool script_operand = found_.words.empty() && !named_file_ &&
                                !interpreter_.Reads(kOperandIsProgram) && !interpreter_.Reads(kDataOperands);
    found_.reads_stdin = found_.reads_stdin ||
                         (script_operand && (first_operand_ == kNone || IsStandardInput(words_[first_operand_].text))) ||
                         (interpreter_.Reads(kDataOperands) && ClientReadsStdin());
    found_.names_file = named_file_ || (script_operand && first_operand_ != kNone);
    if (interpreter_.Reads(kMagicOpen) && !found_.words.empty() && (loops_ || ReadsDiamond())) {
      for (std::size_t i = first_operand_; i < words_.size(); ++i) found_.opened_files.push_back(i);
    }
    return std::move(found_);
  }

 private:
  void LongOption(std::string_view word) {
    const std::size_t equals = word.find('=');
    const std::string_view name = word.substr(0, equals);
    const bool attached = equals != kNone;
    auto names = [&](std::string_view list) {
      return Listed(list, name) || (interpreter_.Reads(kAbbreviations) && Abbreviates(list, name));
    };
    if (names(interpreter_.longs.code)) {
      Argument(attached ? ProgramWord{i_, equals + 1} : NextWord(), true, false);
    } else if (names(interpreter_.longs.file)) {
      Argument(attached ? ProgramWord{i_, equals + 1} : NextWord(), false, true);
    } else if (names(interpreter_.longs.argument)) {
      // jq's --arg NAME VALUE, --argjson, --slurpfile and --rawfile take two words.
      if (!attached) i_ += name.starts_with("--arg") || name.ends_with("file") ? 2 : 1;
    } else {
      // An option not listed may take the next word (`node --input-type module -e ...`): that word
      // is not yet the script file. (The first operand of sed or awk is still the program.)
      maybe_argument_ = !attached && !interpreter_.Reads(kOperandIsProgram) && !interpreter_.Reads(kLaterOperandsAreCode);
    }
  }

  // An operand of an SQL client: sqlite3's SQL after the database, the script after redis-cli's EVAL.
  void DataOperand() {
    if (InterpreterNamed(words_[i_].text) == &interpreter_) {
      // The first was a container named after the client (`docker exec mysql mysql -e`,
      // `kubectl exec deploy/mysql -- mysql -e`): its options start again here.
      options_ = true;
      first_operand_ = last_operand_ = kNone;
      return;
    }
    const bool sql = interpreter_.Reads(kLaterOperandsAreCode) && i_ != first_operand_;
    if (sql || (interpreter_.Reads(kEvalOperand) && last_operand_ != kNone && NamesEval(words_[last_operand_].text))) {
      found_.words.push_back({i_, 0});
    }
    program_operands_ = program_operands_ || sql;
    last_operand_ = i_;
  }

  static bool NamesEval(std::string_view command) {
    std::string lower(command);
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return Listed("eval eval_ro load", lower);
  }

  // An SQL client with no program word or file reads its standard input (sqlite3 does also after -cmd).
  bool ClientReadsStdin() const {
    if (interpreter_.Reads(kLaterOperandsAreCode)) return !program_operands_;
    if (named_file_) return false;
    return interpreter_.Reads(kEvalOperand) ? first_operand_ == kNone : found_.words.empty();
  }

  // A program word holds perl's `<>` or `<ARGV>` (not the safe `<<>>`).
  bool ReadsDiamond() const {
    for (const ProgramWord& program : found_.words) {
      const std::string_view text = std::string_view(words_[program.word].text).substr(program.start);
      if (text.find("<ARGV>") != kNone) return true;
      for (std::size_t at = text.find("<>"); at != kNone; at = text.find("<>", at + 1)) {
        if (at == 0 || text[at - 1] != '<') return true;
      }
    }
    return false;
  }

  // A bundle of letters (`-ne`, `-Sc`, `-i.bak`, `-0777`).
  void Letters(std::string_view word) {
    for (std::size_t k = 1; k < word.size(); ++k) {
      const char letter = word[k];
      if (interpreter_.letters.attached.find(letter) != kNone) return;
      loops_ = loops_ || letter == 'n' || letter == 'p';
      if (interpreter_.letters.digits.find(letter) != kNone) {
        while (k + 1 < word.size() && std::isdigit(static_cast<unsigned char>(word[k + 1]))) ++k;
        continue;
      }
      const bool code = interpreter_.letters.code.find(letter) != kNone;
      const bool file = interpreter_.letters.file.find(letter) != kNone;
      if (!code && !file && interpreter_.letters.argument.find(letter) == kNone) continue;
      // node reads `-pe` as -p and -e, each taking the next word.
      if (code && !interpreter_.Reads(kAttachedCode) && k + 1 < word.size()) continue;
      Argument(k + 1 < word.size() ? ProgramWord{i_, k + 1} : NextWord(), code, file);
      return;
    }
  }

  // The next word, as an option's argument (npos when there is none).
  ProgramWord NextWord() { return i_ + 1 < words_.size() ? ProgramWord{++i_, 0} : ProgramWord{kNone, 0}; }

  void Argument(ProgramWord argument, bool code, bool file) {
    named_file_ = named_file_ || file;  // without a word: a `<(...)`, which is no word
    if (argument.word == kNone) return;
    if (code) found_.words.push_back(argument);
    if (!file) return;
    found_.reads_stdin =
        found_.reads_stdin || IsStandardInput(std::string_view(words_[argument.word].text).substr(argument.start));
  }

  const Interpreter& interpreter_;
  const std::vector<ShWord>& words_;
  std::size_t i_ = 0;
  Programs found_;
  bool named_file_ = false;
  std::size_t first_operand_ = kNone;
  bool options_ = true;
  bool maybe_argument_ = false;  // the word after an option not listed may be its argument
  bool loops_ = false;           // -n or -p
  std::size_t last_operand_ = kNone;
  bool program_operands_ = false;  // sqlite3's SQL operands
};

// ---- where a place of a program lands --------------------------------------

struct Field {
  ShellOperand kind = ShellOperand::kProgramCode;
  std::string stops;      // kProgramText, kProgramShellText
  std::string_view what;  // "the replacement of an s command"; empty for plain code
  std::string_view runs;  // what the program may do with the field: "in a program that starts commands"
};

constexpr std::string_view kComment = "a comment";

Field Text(std::string stops, std::string_view what) { return {ShellOperand::kProgramText, std::move(stops), what, {}}; }

// `delimiter` and `more`, each character once.
std::string Stops(char delimiter, std::string_view more) {
  std::string stops(1, delimiter);
  for (char c : more) {
    if (stops.find(c) == std::string::npos) stops += c;
  }
  return stops;
}

bool IsWordChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// A field of a program: [begin, end) of its text.
struct Span {
  std::size_t begin = 0, end = 0;
  Field field;
};

// The parts of a program a scanner steps over, one at a time: it goes on, or
// it meets a construct it cannot follow and stops (every later place is code).
enum class Step : std::uint8_t { kGoOn, kLost };

// Steps over the program text both scanners share, recording the fields it
// delimits: a field from i_ to a closing character (a regular expression's
// when `brackets`: a bracket expression hides the delimiter), the rest of a
// line. One pass over the program serves every placeholder in it.
class ProgramScanner {
 public:
  // The fields found, in text order; a place in none of them is code.
  std::vector<Span> spans;
  // An s command's `e` flag was found (sed runs the result as a shell command).
  bool evaluates_replacement = false;

 protected:
  explicit ProgramScanner(std::string_view program) : p_(program) {}

  // Where a field from i_ stops: at its closing character (`closed`), or
  // where the scanner loses it (a newline unless `multiline`, the end, an
  // unclosed bracket expression). The bracket expressions inside it
  // (`brackets`) are added to `holes` as [open, close] pairs: a value there
  // could close one early, so they count as code.
  struct End {
    std::size_t at = 0;
    bool closed = false;
  };
  End FieldEnd(char close, bool brackets, bool multiline, std::vector<std::size_t>* holes) const {
    for (std::size_t j = i_; j < p_.size(); ++j) {
      const char c = p_[j];
      if (c == close) return {j, true};
      if (c == '\n' && !multiline) return {j, false};
      if (c == '\\') {
        ++j;
      } else if (c == '[' && brackets) {
        const std::size_t end = BracketEnd(j);
        if (end == kNone) return {j, false};
        holes->insert(holes->end(), {j, end});
        j = end;
      }
    }
    return {p_.size(), false};
  }

  // The field from i_ to `close`; i_ then stands after it.
  Step Delimited(char close, bool brackets, bool multiline, std::string stops, std::string_view what) {
    std::vector<std::size_t> holes;
    const End end = FieldEnd(close, brackets, multiline, &holes);
    std::size_t begin = i_;
    for (std::size_t h = 0; h < holes.size(); h += 2) {
      Record(begin, holes[h], Text(stops, what));
      begin = holes[h + 1] + 1;
    }
    Record(begin, end.at, Text(std::move(stops), what));
    if (!end.closed) return Step::kLost;
    i_ = end.at + 1;
    return Step::kGoOn;
  }

  void Record(std::size_t begin, std::size_t end, Field field) {
    if (begin < end) spans.push_back(Span{begin, end, std::move(field)});
  }

  // The replacement of an s command from i_ to `close` (the field `text`),
  // then its flags (`flag_chars`; i_ then stands after them): an `e` among
  // them evaluates it.
  Step Replacement(char close, bool multiline, Field text, std::string_view flag_chars, std::string_view evaluated) {
    const std::size_t begin = i_;
    const End end = FieldEnd(close, false, multiline, nullptr);
    const std::size_t flags = end.closed ? end.at + 1 : end.at;
    i_ = flags;
    SkipWhile(flag_chars);
    const bool evaluates = p_.substr(flags, i_ - flags).find('e') != kNone;
    evaluates_replacement = evaluates_replacement || evaluates;
    Record(begin, end.at,
           evaluates ? Field{ShellOperand::kProgramCode, "", evaluated, {}} : std::move(text));
    return end.closed ? Step::kGoOn : Step::kLost;
  }

  void SkipWhile(std::string_view chars) {
    while (i_ < p_.size() && chars.find(p_[i_]) != kNone) ++i_;
  }
  void SkipUntil(std::string_view chars) {
    while (i_ < p_.size() && chars.find(p_[i_]) == kNone) ++i_;
  }

  std::string_view p_;
  std::size_t i_ = 0;

 private:
  // The `]` closing the bracket expression at `open` (`[^]a]`, `[[:alpha:]/]`), or npos.
  std::size_t BracketEnd(std::size_t open) const {
    std::size_t j = open + 1;
    if (j < p_.size() && p_[j] == '^') ++j;
    if (j < p_.size() && p_[j] == ']') ++j;
    for (; j < p_.size() && p_[j] != ']'; ++j) {
      if (p_[j] == '\n') return kNone;
      if (p_[j] == '[' && j + 1 < p_.size() && std::string_view(":.=").find(p_[j + 1]) != kNone) {
        j = p_.find(std::string{p_[j + 1], ']'}, j + 2);
        if (j == kNone) return kNone;
        ++j;
      }
    }
    return j < p_.size() ? j : kNone;
  }
};

// sed's program, as GNU sed and busybox sed read it: commands with up to two
// addresses, separated by `;` or newlines.
class SedScanner : private ProgramScanner {
 public:
  explicit SedScanner(std::string_view program) : ProgramScanner(program) {}
  using ProgramScanner::spans;
  using ProgramScanner::evaluates_replacement;
  bool runs_commands = false;  // an `e` command

  void Scan() {
    while (true) {
      SkipWhile(" \t\n;");
      if (i_ >= p_.size() || Command() == Step::kLost) return;
    }
  }

 private:
  Step Command() {
    if (p_[i_] == '#') return ToLineEnd(kComment);
    for (int address = 0; address < 2; ++address) {
      if (const Step step = Address(); step != Step::kGoOn) return step;
      SkipWhile(" \t");
      if (i_ >= p_.size() || p_[i_] != ',') break;
      ++i_;
      SkipWhile(" \t");
    }
    SkipWhile(" \t!");
    if (i_ >= p_.size()) return Step::kLost;
    switch (p_[i_++]) {
      case '{': case '}': case '=': case 'd': case 'D': case 'g': case 'G': case 'h': case 'H':
      case 'n': case 'N': case 'p': case 'P': case 'x': case 'z': case 'F': return Step::kGoOn;
      case 'a': case 'i': case 'c': return AppendedText();
      case 'r': case 'R': case 'w': case 'W': return FileName();
      case 's': return Substitute();
      case 'y': return Transliterate();
      case 'e':  // a shell command (code), or without one the pattern space run as a command
        runs_commands = true;
        SkipUntil("\n");
        return Step::kGoOn;
      case ':': case 'b': case 't': case 'T': case 'l': case 'L': case 'q': case 'Q': case 'v':
        SkipUntil(";\n}");
        return Step::kGoOn;
      default: return Step::kLost;
    }
  }

  Step ToLineEnd(std::string_view what) { return Delimited('\n', false, true, "\n", what); }

  Step FileName() {
    SkipWhile(" \t");
    return ToLineEnd("a file name");
  }

  // A line number, `$`, `first~step`, `+N`, or a regular expression (`/re/`, `\cREc`).
  Step Address() {
    if (i_ >= p_.size() || (p_[i_] != '/' && p_[i_] != '\\')) {
      SkipWhile("0123456789$~+");
      return Step::kGoOn;
    }
    if (p_[i_] == '\\') ++i_;
    if (i_ + 1 >= p_.size() || p_[i_] == '\n') return Step::kLost;
    const char delimiter = p_[i_++];
    const Step step = Delimited(delimiter, true, false, Stops(delimiter, "\\\n["), "a regular expression");
    SkipWhile("IM");
    return step;
  }

  // The text of `a`, `i`, `c`: to the end of the line (a `\` joins the next one).
  Step AppendedText() {
    SkipWhile(" \t");
    if (i_ + 1 < p_.size() && p_[i_] == '\\' && p_[i_ + 1] == '\n') i_ += 2;
    return Delimited('\n', false, true, "\\\n", "the text of an a, i or c command");
  }

  Step Substitute() {
    if (i_ >= p_.size() || p_[i_] == '\n' || p_[i_] == '\\') return Step::kLost;
    const char delimiter = p_[i_++];
    Step step = Delimited(delimiter, true, false, Stops(delimiter, "\\\n["), "the pattern of an s command");
    if (step != Step::kGoOn) return step;
    // The e flag runs the pattern space, the replacement in it, as a shell command.
    // A backslash makes `\\` `&` newline and a punctuation delimiter literal, in GNU and
    // busybox sed alike (busybox reads `\\n` `\\t` `\\1`... as escapes: a letter or digit delimiter
    // is not escaped, and `[` opens a bracket for busybox even there).
    const bool escapable = std::ispunct(static_cast<unsigned char>(delimiter)) && delimiter != '[';
    step = Replacement(delimiter, false,
                       Field{escapable ? ShellOperand::kProgramEscaped : ShellOperand::kProgramText,
                             Stops(delimiter, "\\\n&"), "the replacement of an s command", {}},
                       "gpiImMe0123456789", "an s command with the e flag");
    if (step != Step::kGoOn || i_ >= p_.size() || p_[i_] != 'w') return step;
    ++i_;
    return FileName();
  }

  Step Transliterate() {
    if (i_ >= p_.size() || p_[i_] == '\n' || p_[i_] == '\\') return Step::kLost;
    const char delimiter = p_[i_++];
    const Step step = Delimited(delimiter, false, false, Stops(delimiter, "\\\n"), "a y command");
    if (step != Step::kGoOn) return step;
    return Delimited(delimiter, false, false, Stops(delimiter, "\\\n"), "a y command");
  }
};

// How a language writes the parts the string scanner must step over.
struct Quote {
  char open = '\0';
  std::string_view stops;
  std::string_view what;
};
struct Syntax {
  std::string_view line_comment;  // "#" or "//"; empty: none
  bool block_comments;            // /* ... */
  Quote quotes[3];
  std::string_view regex_stops;  // non-empty: `/` where an operand is expected opens a regular expression
  std::string_view regex_words;  // words after which `/` opens one
  bool perl;  // sigils (`$'` `$#`), quote-like operators (s/a/b/, qq{}), here-documents
  bool python;  // string prefixes (r b u f), triple quotes, f-string braces
  // What makes a program hand its strings to a shell or start commands with
  // them (words anywhere in its text, even quoted: `require('child_process')`;
  // characters in its code: perl's backticks, awk's pipes), and what makes
  // it run strings as its own code.
  std::string_view command_words;
  std::string_view command_prefixes;  // python's os.execv..., os.spawnl...
  std::string_view command_chars;
  std::string_view eval_words;
  // Modules whose import makes a program run strings as code, named by words
  // too common to list alone (python's `code`, `profile`): a word of an
  // import statement (`import os, code`, `from profile import run`,
  // `__import__('code')`).
  std::string_view eval_modules;
};

constexpr std::string_view kLiteral = "a string literal";
constexpr Syntax kAwkSyntax{"#", false, {{'"', "\"\\\n", kLiteral}}, "/\\\n[", "print printf return in getline",
                            false, false, "system", "", "|", "", ""};
constexpr Syntax kPerlSyntax{"#",
                             false,
                             {{'\'', "'\\", "a single-quoted string"}, {'"', "\"\\$@", "a double-quoted string"}},
                             "/\\$@(",
                             "split grep map join return and or not if unless while until x lt gt le ge eq ne cmp "
                             "print push unshift",
                             true,
                             false,
                             // IPC::Run, IPC::Run3, IPC::Cmd, IPC::System::Simple: run, start, capture, systemx...
                             "system exec qx readpipe open open2 open3 IPC",
                             "",
                             "`",
                             "eval",
                             ""};
constexpr Syntax kPythonSyntax{"#",
                               false,
                               {{'\'', "'\\\n", kLiteral}, {'"', "\"\\\n", kLiteral}},
                               "",
                               "",
                               false,
                               true,
                               "system popen subprocess getoutput getstatusoutput Popen pty commands "
                               "create_subprocess_shell create_subprocess_exec",
                               "exec spawn posix_spawn",
                               "",
                               "eval exec compile execfile timeit runctx runsource runcode runeval cProfile pdb "
                               "InteractiveConsole InteractiveInterpreter",
                               "code profile"};
constexpr Syntax kNodeSyntax{"//",
                             true,
                             {{'\'', "'\\\n", kLiteral},
                              {'"', "\"\\\n", kLiteral},
                              {'`', "`\\$", "a template literal"}},
                             "/\\\n[",
                             "return typeof instanceof in of new delete void throw case do else yield await",
                             false,
                             false,
                             "child_process exec execSync execFile execFileSync spawn spawnSync fork shelljs zx",
                             "execa",  // execa, execaSync, execaCommand, execaNode
                             "",
                             "eval Function vm runInThisContext runInNewContext runInContext compileFunction",
                             ""};
constexpr Syntax kJqSyntax{"#", false, {{'"', "\"\\", kLiteral}}, "", "", false, false, "", "", "", "", ""};

// The string literals, comments and regular expression literals of awk,
// perl, python, node and jq; what lies between them is code.
class StringScanner : private ProgramScanner {
 public:
  StringScanner(const Syntax& syntax, std::string_view program) : ProgramScanner(program), syntax_(syntax) {}
  using ProgramScanner::spans;

  void Scan() {
    while (i_ < p_.size() && Next() != Step::kLost) {
    }
  }

 private:
  Step Next() {
    const std::string_view rest = p_.substr(i_);
    const char c = p_[i_];
    if (!syntax_.line_comment.empty() && rest.starts_with(syntax_.line_comment)) {
      return Delimited('\n', false, true, "\n", kComment);
    }
    if (syntax_.block_comments && rest.starts_with("/*")) {
      i_ += 2;
      const std::size_t end = p_.find("*/", i_);
      Record(i_, std::min(end, p_.size()), Text("*", kComment));
      if (end == kNone) return Step::kLost;
      i_ = end + 2;
      return Step::kGoOn;
    }
    for (const Quote& quote : syntax_.quotes) {
      if (quote.open != '\0' && c == quote.open) return Quoted(quote);
    }
    if (c == '/' && !syntax_.regex_stops.empty()) return Slash();
    if (syntax_.perl) return PerlConstruct();
    ++i_;
    return Step::kGoOn;
  }

  Step Quoted(const Quote& quote) {
    std::string stops(quote.stops);
    bool multiline = quote.stops.find('\n') == kNone;
    const std::string_view prefix = syntax_.python ? PythonPrefix() : std::string_view();
    const bool triple = syntax_.python && p_.substr(i_, 3) == std::string(3, quote.open);
    i_ += triple ? 3 : 1;
    if (triple) {
      stops.erase(std::remove(stops.begin(), stops.end(), '\n'), stops.end());
      multiline = true;
    }
    const bool braces = prefix.find_first_of("fF") != kNone;
    if (braces) stops += "{}";
    for (std::size_t j = i_; j < p_.size(); ++j) {
      const char c = p_[j];
      if (c == '\\') {
        ++j;
      } else if (c == quote.open && (!triple || p_.substr(j, 3) == std::string(3, quote.open))) {
        Record(i_, j, Text(stops, quote.what));
        i_ = j + (triple ? 3 : 1);
        return Step::kGoOn;
      } else if (braces && p_.substr(j, 2) == "{{") {
        ++j;  // a literal brace
      } else if ((braces && c == '{') || (quote.open == '`' && p_.substr(j, 2) == "${")) {
        // An f-string's or a template's expression: code, and the string goes on after it.
        Record(i_, j, Text(stops, quote.what));
        const std::size_t end = ExpressionEnd(p_.find('{', j), quote.open, multiline);
        if (end == kNone) return Step::kLost;
        i_ = end + 1;
        j = end;
      } else if (c == '\n' && !multiline) {
        Record(i_, j, Text(stops, quote.what));
        return Step::kLost;  // an unterminated string
      }
    }
    Record(i_, p_.size(), Text(stops, quote.what));
    return Step::kLost;
  }

  // The `}` closing the expression whose `{` is at `open`, inside a string
  // quoted with `quote`; npos where the scanner does not follow it: the
  // string's own quote or a line break (when it may not hold one) before it,
  // a backslash, a template literal inside. Brackets nest; a string of the
  // other quote is stepped over.
  std::size_t ExpressionEnd(std::size_t open, char quote, bool multiline) const {
    std::size_t depth = 0;
    for (std::size_t k = open + 1; k < p_.size(); ++k) {
      const char c = p_[k];
      if (c == quote || c == '\\' || c == '`' || (c == '\n' && !multiline)) return kNone;
      if (c == '\'' || c == '"') {
        k = p_.find_first_of(std::string{c, '\\', '\n'}, k + 1);
        if (k == kNone || p_[k] != c) return kNone;
      } else if (c == '{' || c == '[' || c == '(') {
        ++depth;
      } else if (c == '}' || c == ']' || c == ')') {
        if (depth == 0) return c == '}' ? k : kNone;
        --depth;
      }
    }
    return kNone;
  }

  // Python's string prefix before i_ (`f`, `rb`...), or "".
  std::string_view PythonPrefix() const {
    std::size_t begin = i_;
    while (begin > 0 && i_ - begin < 2 && std::string_view("rRbBuUfF").find(p_[begin - 1]) != kNone) --begin;
    if (begin > 0 && IsWordChar(p_[begin - 1])) return {};
    return p_.substr(begin, i_ - begin);
  }

  // `/` opens a regular expression literal where an operand is expected,
  // else it divides. Where the two readings would differ on a quote before
  // the next `/`, the scanner does not guess.
  Step Slash() {
    const std::size_t before = p_.find_last_not_of(" \t", i_ == 0 ? kNone : i_ - 1);
    bool regex = before == kNone || std::string_view("(,=:[!&|?{};~+-*%<>^\n").find(p_[before]) != kNone;
    if (!regex && IsWordChar(p_[before])) {
      std::size_t begin = before;
      while (begin > 0 && IsWordChar(p_[begin - 1])) --begin;
      regex = Listed(syntax_.regex_words, p_.substr(begin, before + 1 - begin));
      const bool variable = begin > 0 && std::string_view("$@%").find(p_[begin - 1]) != kNone;
      if (!regex && syntax_.perl && !variable && !std::isdigit(static_cast<unsigned char>(p_[begin]))) {
        return Step::kLost;  // `name /...`: perl decides by what `name` is
      }
    }
    ++i_;
    if (regex) {
      const Step step = Delimited('/', true, false, std::string(syntax_.regex_stops), "a regular expression literal");
      while (i_ < p_.size() && std::isalpha(static_cast<unsigned char>(p_[i_]))) ++i_;  // its flags
      return step;
    }
    // A regular expression would end at the next `/` of the line, if any.
    const std::size_t next = p_.find('/', i_);
    if (next < std::min(p_.find('\n', i_), p_.size()) && p_.substr(i_, next - i_).find_first_of("'\"`") != kNone) {
      return Step::kLost;
    }
    return Step::kGoOn;
  }

  // perl: `$'` and `$#` are variables; s/a/b/, m//, y///, tr/// with a
  // punctuation delimiter, and q, qq, qw with any, are read; qx, the others
  // and here-documents are not followed.
  Step PerlConstruct() {
    const char c = p_[i_];
    if ((c == '$' || c == '@') && i_ + 1 < p_.size() && std::string_view("'\"#`").find(p_[i_ + 1]) != kNone) {
      i_ += 2;
      return Step::kGoOn;
    }
    if (c == '`' || (p_.substr(i_, 2) == "<<" && i_ + 2 < p_.size() &&
                     (IsWordChar(p_[i_ + 2]) || std::string_view("\"'~`").find(p_[i_ + 2]) != kNone))) {
      return Step::kLost;
    }
    if (!IsWordChar(c) || (i_ > 0 && (IsWordChar(p_[i_ - 1]) || std::string_view("$@%&").find(p_[i_ - 1]) != kNone))) {
      ++i_;
      return Step::kGoOn;
    }
    std::size_t end = i_;
    while (end < p_.size() && IsWordChar(p_[end])) ++end;
    const std::string_view word = p_.substr(i_, end - i_);
    i_ = end;
    if (!Listed("s m y tr q qq qw qx", word)) return Step::kGoOn;
    SkipWhile(" \t");
    if (i_ >= p_.size() || IsWordChar(p_[i_]) || std::string_view("=,;)}]\n").find(p_[i_]) != kNone) {
      return Step::kGoOn;  // a name: `s => 1`, `$h{s}`
    }
    const char delimiter = p_[i_];
    if (i_ > end) return Step::kLost;
    if (Listed("q qq qw", word)) return PerlQuoted(word == "qq");
    if (word == "qx" || std::string_view("{([<").find(delimiter) != kNone) return Step::kLost;
    ++i_;
    const bool interpolates = word == "s" || word == "m";
    const Step step = Delimited(delimiter, false, true, Stops(delimiter, interpolates ? "\\$@(" : "\\"),
                                "the pattern of a perl quote-like operator");
    if (step != Step::kGoOn || word == "m") return step;
    // The e flag evaluates the replacement as perl code.
    return Replacement(delimiter, true,
                       Text(Stops(delimiter, interpolates ? "\\$@" : "\\"), "the replacement of a perl quote-like operator"),
                       "msixpodualngcer", "an s operator with the e flag");
  }

  // q{...}, qq(...), qw[...], q!...!: a string to its closing delimiter (a
  // bracket pair nests, as perl counts it); qq interpolates like "...".
  Step PerlQuoted(bool interpolates) {
    const char open = p_[i_];
    const std::size_t pair = std::string_view("{([<").find(open);
    const char close = pair == kNone ? open : std::string_view("})]>")[pair];
    const std::string stops = Stops(close, std::string(interpolates ? "\\$@" : "\\") + open);
    const std::string_view what = interpolates ? "a qq string" : "a q or qw string";
    std::size_t depth = 0;
    for (std::size_t j = ++i_; j < p_.size(); ++j) {
      const char c = p_[j];
      if (c == '\\') {
        ++j;
      } else if (c == open && close != open) {
        ++depth;
      } else if (c == close) {
        if (depth > 0) {
          --depth;
          continue;
        }
        Record(i_, j, Text(stops, what));
        i_ = j + 1;
        return Step::kGoOn;
      }
    }
    Record(i_, p_.size(), Text(stops, what));
    return Step::kLost;
  }

  const Syntax& syntax_;
};

// Where perl's interpolation starts code in [begin, end) of `program`: a
// `${ ... }` or `@{ ... }` block (`"@{[ system ... ]}"`), or a subscript or
// arrow after a variable (`"$a[...]"`, `"$h{...}"`, `"$r->[...]"`), whose
// expression perl evaluates; npos when there is none. (`${name}` is a name.)
std::size_t PerlInterpolatedCode(std::string_view program, std::size_t begin, std::size_t end) {
  for (std::size_t j = begin; j < end; ++j) {
    if (program[j] == '\\') {
      ++j;
      continue;
    }
    if (program[j] != '$' && program[j] != '@') continue;
    std::size_t k = j + 1;
    if (k < end && program[k] == '{') {
      while (++k < end && IsWordChar(program[k])) {
      }
      if (k == j + 2 || k >= end || program[k] != '}') return j;
      ++k;
    } else {
      while (k < end && (IsWordChar(program[k]) || program[k] == ':')) ++k;
      if (k == j + 1) continue;
    }
    if (k < end && (program[k] == '[' || program[k] == '{' || program.substr(k, 2) == "->")) return k;
    j = k - 1;
  }
  return kNone;
}

// perl: the first interpolating field (its stops hold `$`) where the
// template's own text starts code ends there, and every later place is code,
// as when a scanner is lost.
void CutAtInterpolatedCode(std::string_view program, std::vector<Span>* spans) {
  for (std::size_t s = 0; s < spans->size(); ++s) {
    Span& span = (*spans)[s];
    if (span.field.stops.find('$') == kNone) continue;
    const std::size_t code = PerlInterpolatedCode(program, span.begin, span.end);
    if (code == kNone) continue;
    span.end = code;
    spans->resize(span.begin < code ? s + 1 : s);
    return;
  }
}

// What a program may do with its strings beyond reading them as data.
enum class Runs : std::uint8_t { kNothing, kCommands, kCode };

// The fields of a program that runs its strings: a value in one of them
// may become code whatever field it is written in (`x = '${V}';
// os.system('echo ' + x)`), so every field but a comment is restricted, for
// the whole program.
std::vector<Span> Restricted(std::vector<Span> spans, Runs runs) {
  if (runs == Runs::kNothing) return spans;
  for (Span& span : spans) {
    Field& field = span.field;
    const bool text = field.kind == ShellOperand::kProgramText || field.kind == ShellOperand::kProgramEscaped;
    if (!text || field.what == kComment) continue;
    if (runs == Runs::kCode) {
      field = Field{ShellOperand::kProgramCode, "", field.what, "in a program that runs strings as code (eval)"};
    } else {
      field.kind = ShellOperand::kProgramShellText;
      field.runs = "in a program that starts commands (system, exec, backticks, a pipe)";
    }
  }
  return spans;
}

// The word of `list` that `word` starts with (`execv` starts with `exec`).
bool StartsWithListed(std::string_view list, std::string_view word) {
  for (std::size_t at = 0; at < list.size();) {
    const std::size_t end = std::min(list.find(' ', at), list.size());
    if (word.starts_with(list.substr(at, end - at))) return true;
    at = end + 1;
  }
  return false;
}

// `syntax`'s command characters in the code between `spans` (awk's `||` is not a pipe).
bool CommandCharInCode(const Syntax& syntax, std::string_view program, const std::vector<Span>& spans) {
  if (syntax.command_chars.empty()) return false;
  std::size_t code = 0;
  auto search = [&](std::size_t end) {  // in [code, end): each gap is read once
    const std::string_view gap = program.substr(0, end);
    for (std::size_t at = gap.find_first_of(syntax.command_chars, code); at != kNone;
         at = gap.find_first_of(syntax.command_chars, at + 2)) {
      if (program[at] != '|' || (at + 1 < program.size() && program[at + 1] != '|')) return true;
    }
    return false;
  };
  for (const Span& span : spans) {
    if (search(span.begin)) return true;
    code = span.end;
  }
  return search(program.size());
}

// The statement of `text` around `at`: from the `;` or line break before to the one after.
std::string_view StatementAround(std::string_view text, std::size_t at) {
  const std::size_t before = text.find_last_of(";\n", at);
  const std::size_t begin = before == kNone ? 0 : before + 1;
  return text.substr(begin, std::min(text.find_first_of(";\n", at), text.size()) - begin);
}

// What the words of `text` make a program do: `syntax`'s words anywhere,
// its eval_modules in an import statement.
Runs WordsRun(const Syntax& syntax, std::string_view text) {
  Runs runs = Runs::kNothing;
  for (std::size_t i = 0; i < text.size();) {
    std::size_t end = i;
    while (end < text.size() && IsWordChar(text[end])) ++end;
    if (end == i) {
      ++i;
      continue;
    }
    const std::string_view word = text.substr(i, end - i);
    const std::size_t begin = i;
    i = end;
    // perl's `eval { ... }` catches errors; `eval $string` runs code.
    const std::size_t next = text.find_first_not_of(" \t\n", end);
    if (Listed(syntax.eval_words, word) && (next == kNone || text[next] != '{')) return Runs::kCode;
    if (!syntax.eval_modules.empty() && Listed(syntax.eval_modules, word) &&
        StatementAround(text, begin).find("import") != kNone) {
      return Runs::kCode;
    }
    if (Listed(syntax.command_words, word) || (!syntax.command_prefixes.empty() &&
                                               StartsWithListed(syntax.command_prefixes, word))) {
      runs = Runs::kCommands;
    }
  }
  return runs;
}

// What a program does with its strings: its words, and the words `beside` it
// on its command line (perl's `-MIPC::Run`, node's `-r child_process`).
Runs WhatItRuns(const Syntax& syntax, std::string_view program, std::string_view beside,
                const std::vector<Span>& spans) {
  const Runs runs = std::max(WordsRun(syntax, program), WordsRun(syntax, beside));
  return runs == Runs::kNothing && CommandCharInCode(syntax, program, spans) ? Runs::kCommands : runs;
}

std::vector<Span> ScanStrings(const Syntax& syntax, std::string_view program, std::string_view beside) {
  StringScanner scanner(syntax, program);
  scanner.Scan();
  if (syntax.perl) CutAtInterpolatedCode(program, &scanner.spans);
  const Runs runs = WhatItRuns(syntax, program, beside, scanner.spans);
  return Restricted(std::move(scanner.spans), runs);
}

// sql_programs.h's fields as spans.
std::vector<Span> SqlSpans(SqlDialect dialect, std::string_view program) {
  std::vector<Span> spans;
  for (SqlField& field : SqlFields(dialect, program)) {
    spans.push_back(Span{field.begin, field.end, Field{field.kind, std::move(field.stops), field.what, field.runs}});
  }
  return spans;
}

// The fields of a program of `interpreter`, in text order; `beside`: the
// other words of its command line.
std::vector<Span> FieldsOf(const Interpreter& interpreter, std::string_view program, std::string_view beside) {
  switch (interpreter.language) {
    case Language::kSed: {
      SedScanner scanner(program);
      scanner.Scan();
      // `e` runs the pattern space as a shell command: what an s command or y put there too.
      const bool commands = scanner.runs_commands || scanner.evaluates_replacement;
      return Restricted(std::move(scanner.spans), commands ? Runs::kCommands : Runs::kNothing);
    }
    case Language::kAwk: return ScanStrings(kAwkSyntax, program, beside);
    case Language::kPerl: return ScanStrings(kPerlSyntax, program, beside);
    case Language::kPython: return ScanStrings(kPythonSyntax, program, beside);
    case Language::kNode: return ScanStrings(kNodeSyntax, program, beside);
    case Language::kJq: return ScanStrings(kJqSyntax, program, beside);
    case Language::kSql: return SqlSpans(interpreter.sql, program);
    case Language::kUnknown: return {};
  }
  return {};
}

// Where `at` of `program` lands, among its `fields`.
Field FieldAt(const std::vector<Span>& fields, std::string_view program, std::size_t at) {
  // A backslash before the place escapes the value's first character: not followed.
  std::size_t backslashes = 0;
  while (backslashes < at && program[at - 1 - backslashes] == '\\') ++backslashes;
  if (backslashes % 2 == 1) return {};
  auto after = std::upper_bound(fields.begin(), fields.end(), at,
                                [](std::size_t place, const Span& span) { return place < span.begin; });
  if (after == fields.begin() || at >= std::prev(after)->end) return {};
  return std::prev(after)->field;
}

// The placeholders of a script: (offset, index in the caller's contexts), by offset.
using PlaceholderList = std::vector<std::pair<std::size_t, std::size_t>>;

// A program with the stand-in `0` for every expansion and placeholder in it,
// and where the stand-in of each placeholder is (a placeholder inside
// another expansion has none).
class StandIn {
 public:
  explicit StandIn(const PlaceholderList& placeholders) : placeholders_(placeholders) {}

  // `word`'s text from `start` on.
  void Read(const ShWord& word, std::size_t start) {
    for (const ShPiece& piece : word.pieces) {
      const std::size_t end = piece.text_begin + piece.length;
      if (end <= start) continue;
      if (piece.kind == ShPiece::kExpansion) {
        Add(piece.offset);
      } else {
        AddText(word.text, piece, std::max(piece.text_begin, start), end);
      }
    }
  }

  // A here-document body [begin, end) of `script`: an expanding one as the
  // shell hands it over (`\\` `\$` `\`` unescaped, a backslash-newline
  // removed, a `$NAME` the script sets as a stand-in); a command
  // substitution in it leaves every place unknown.
  void ReadBody(std::string_view script, std::size_t begin, std::size_t end, bool expanding) {
    std::vector<std::pair<std::size_t, std::size_t>> forms;  // (offset, length) of the `$` forms
    bool substitutes = false;
    ScanReferences(
        script, begin, end,
        [&](const Reference& reference) {
          const bool runs = reference.kind == RefKind::kKubernetes ||
                            (reference.kind == RefKind::kShell && reference.name.empty());
          substitutes = substitutes || runs;
          // A quoted delimiter: the shell expands nothing, only the render's placeholders change.
          if (expanding || IndexAt(reference.offset) != kNone) forms.emplace_back(reference.offset, reference.length);
        },
        [&](std::size_t) { substitutes = true; });
    if (expanding && (substitutes || script.substr(begin, end - begin).find('`') != kNone)) return;
    auto form = forms.begin();
    for (std::size_t i = begin; i < end; ++i) {
      if (form != forms.end() && form->first == i) {
        Add(i);
        i += form->second - 1;
        ++form;
      } else if (expanding && script[i] == '\\' && i + 1 < end && std::string_view("\\$`\n").find(script[i + 1]) != kNone) {
        if (script[++i] != '\n') text += script[i];
      } else {
        text += script[i];
      }
    }
  }

  std::string text;
  std::vector<std::pair<std::size_t, std::size_t>> places;  // (index of a placeholder, its stand-in in text)

 private:
  void Add(std::size_t offset) {
    if (const std::size_t index = IndexAt(offset); index != kNone) places.emplace_back(index, text.size());
    text += '0';
  }

  // Text the shell does not expand (`'s/x/${V}/'`) holds placeholders too: the render substitutes them.
  void AddText(const std::string& word_text, const ShPiece& piece, std::size_t from, std::size_t end) {
    std::size_t copied = from;
    ScanReferences(
        word_text, from, end,
        [&](const Reference& reference) {
          const std::size_t offset = piece.offset + (reference.offset - piece.text_begin);
          if (IndexAt(offset) == kNone) return;
          text.append(word_text, copied, reference.offset - copied);
          Add(offset);
          copied = reference.offset + reference.length;
        },
        [](std::size_t) {});
    text.append(word_text, copied, end - copied);
  }

  // The index of the placeholder at `offset`, or npos.
  std::size_t IndexAt(std::size_t offset) const {
    auto found = std::lower_bound(placeholders_.begin(), placeholders_.end(), std::make_pair(offset, std::size_t{0}));
    return found != placeholders_.end() && found->first == offset ? found->second : kNone;
  }

  const PlaceholderList& placeholders_;
};

std::string ProgramName(std::string_view word) { return "`" + std::string(ProgramBaseName(word)) + "`"; }

// A command that runs an interpreter, and the programs it hands it.
struct Call {
  ShCommand command;
  const Interpreter* interpreter = nullptr;
  std::size_t interpreter_word = 0;  // the word naming it
  std::string name;  // "`sed`"
  Programs programs;
};

// The words of `call` after the interpreter's name that are no program text,
// one blank apart: what the command line loads beside its program (perl's
// `-MIPC::Run`, node's `-r child_process`). A word `-` and a letter lose
// those two characters, so that the module's name is a word of its own; a
// long option keeps only what follows its `=` (`--require=child_process`),
// since its own name (`--eval`, `--exec`) says nothing about what it loads.
std::string WordsBeside(const Call& call) {
  std::string beside;
  const std::vector<ShWord>& words = call.command.words;
  for (std::size_t i = call.interpreter_word + 1; i < words.size(); ++i) {
    auto is_program = [&](const ProgramWord& program) { return program.word == i; };
    if (std::any_of(call.programs.words.begin(), call.programs.words.end(), is_program)) continue;
    std::string_view word = words[i].text;
    if (word.starts_with("--")) {
      const std::size_t equals = word.find('=');
      if (equals == std::string_view::npos) continue;
      word.remove_prefix(equals + 1);
    } else if (word.size() > 2 && word[0] == '-' && std::isalpha(static_cast<unsigned char>(word[1]))) {
      word.remove_prefix(2);
    }
    beside.append(word).push_back(' ');
  }
  return beside;
}

// Fills `call` from its command's words when the command (from word `name`
// on) runs an interpreter, itself or behind runners (`env`, `xargs`,
// `busybox sed`, `tini --`), or behind any program when `after_any`.
bool ReadCall(std::size_t name, bool after_any, Call* call) {
  const std::vector<ShWord>& words = call->command.words;
  std::size_t program = name;
  while (program < words.size() && !InterpreterNamed(words[program].text)) ++program;
  if (program == words.size() || (program != name && !after_any && !IsRunner(words[name].text))) return false;
  call->interpreter = InterpreterNamed(words[program].text);
  call->interpreter_word = program;
  call->name = ProgramName(words[program].text);
  call->programs = OptionReader(*call->interpreter, words).Read(program + 1);
  return true;
}

PlaceholderList SortedPlaceholders(const std::vector<std::size_t>& offsets) {
  PlaceholderList placeholders;
  for (std::size_t i = 0; i < offsets.size(); ++i) placeholders.emplace_back(offsets[i], i);
  std::sort(placeholders.begin(), placeholders.end());
  return placeholders;
}

// Marks each placeholder in [range.first, range.second) of the script (not
// yet marked otherwise) with where it lands in `program`: one scan of the
// program for all of them.
void MarkPlaces(const Call& call, const PlaceholderList& placeholders, std::pair<std::size_t, std::size_t> range,
                const StandIn& program, std::vector<ShellContext>* contexts) {
  auto first = std::lower_bound(placeholders.begin(), placeholders.end(), std::make_pair(range.first, std::size_t{0}));
  if (first == placeholders.end() || first->first >= range.second) return;
  const std::vector<Span> fields = FieldsOf(*call.interpreter, program.text, WordsBeside(call));
  std::vector<std::pair<std::size_t, std::size_t>> places = program.places;  // by index
  std::sort(places.begin(), places.end());
  for (auto at = first; at != placeholders.end() && at->first < range.second; ++at) {
    ShellContext& context = (*contexts)[at->second];
    if (context.operand != ShellOperand::kNone) continue;
    auto place = std::lower_bound(places.begin(), places.end(), std::make_pair(at->second, std::size_t{0}));
    // No stand-in: inside another expansion, which decides what the program is.
    const bool stands = place != places.end() && place->first == at->second;
    const Field field = stands ? FieldAt(fields, program.text, place->second) : Field{};
    context.operand = field.kind;
    context.evaluated_by = call.name;
    if (!field.what.empty()) {
      context.evaluated_by += " (" + std::string(field.what) + (field.runs.empty() ? "" : ", ") +
                              std::string(field.runs) + ")";
    }
    context.program_stops = field.stops;
  }
}

void MarkProgramWords(const Call& call, const PlaceholderList& placeholders, std::vector<ShellContext>* contexts) {
  for (const ProgramWord& text : call.programs.words) {
    const ShWord& word = call.command.words[text.word];
    StandIn program(placeholders);
    program.Read(word, text.start);
    MarkPlaces(call, placeholders, {word.begin, word.end}, program, contexts);
  }
  // `perl -ne '...' "${F}"`: a file name `touch X|` runs `touch X`; `<`, `>` open otherwise.
  for (std::size_t file : call.programs.opened_files) {
    const ShWord& word = call.command.words[file];
    auto at = std::lower_bound(placeholders.begin(), placeholders.end(), std::make_pair(word.begin, std::size_t{0}));
    for (; at != placeholders.end() && at->first < word.end; ++at) {
      ShellContext& context = (*contexts)[at->second];
      if (context.operand != ShellOperand::kNone) continue;
      context.operand = ShellOperand::kProgramText;
      context.evaluated_by = call.name + " (a file name its -n, -p or <> loop opens with the two-argument open)";
      context.program_stops = "|<>";
    }
  }
}

// The interpreters a script runs, each with its programs, and the
// here-document bodies they read as their program.
class ProgramReader : public CommandReader {
 public:
  struct Body {
    const Call* call = nullptr;  // null: a here-document no interpreter reads as its program
    std::size_t begin = 0, end = 0;
    bool expanding = false;
  };
  std::deque<Call> calls;  // stable addresses for Body::call
  std::vector<Body> bodies;

  void HeredocBody(std::size_t begin, std::size_t end, bool expanding) override {
    if (pending_.empty()) return;
    Body body = pending_.front();
    pending_.pop_front();
    if (body.call == nullptr) return;
    body.begin = begin;
    body.end = end;
    body.expanding = expanding;
    bodies.push_back(body);
  }

 private:
  void CommandEnded(ShCommand command) override {
    const Call* reads_stdin = nullptr;
    const ShCommand* kept = nullptr;
    std::size_t name = 0;
    while (name < command.words.size() && command.words[name].role == ShellWordRole::kAssignment) ++name;
    Call call;
    call.command = std::move(command);
    if (ReadCall(name, /*after_any=*/false, &call)) {
      if (call.programs.reads_stdin) AddHereStrings(&call);
      calls.push_back(std::move(call));
      kept = &calls.back().command;
      if (calls.back().programs.reads_stdin) reads_stdin = &calls.back();
    } else {
      kept = &call.command;
    }
    // One entry for each here-document, in order: HeredocBody comes for each.
    for (const ShRedirect& redirect : kept->redirects) {
      if (redirect.op == "<<" || redirect.op == "<<-") pending_.push_back(Body{reads_stdin});
    }
  }

  // `python3 <<< "print('${V}')"`: the here-string's word is the program (it joins the call's words).
  static void AddHereStrings(Call* call) {
    std::vector<ShWord>& words = call->command.words;
    for (const ShRedirect& redirect : call->command.redirects) {
      if (redirect.op != "<<<") continue;
      words.push_back(redirect.target);
      call->programs.words.push_back({words.size() - 1, 0});
    }
  }

  std::deque<Body> pending_;
};

}  // namespace

bool MayRunPrograms(std::string_view script) {
  std::string unquoted;
  script = NamesAsRead(script, &unquoted);  // `s''ed` is `sed`
  for (std::string_view name : {"sed", "awk", "perl", "python", "pypy", "node", "bun", "jq", "ruby", "php", "lua",
                                 "luajit", "Rscript", "R", "psql", "mysql", "mariadb", "sqlite", "clickhouse",
                                 "cqlsh", "mongosh", "mongo", "redis"}) {
    for (std::size_t at = script.find(name); at != kNone; at = script.find(name, at + 1)) {
      const std::size_t end = at + name.size();
      const bool starts = at == 0 || !std::isalpha(static_cast<unsigned char>(script[at - 1])) ||
                          (name == "awk" && std::string_view("gmn").find(script[at - 1]) != kNone);
      if (starts && (end == script.size() || !std::isalpha(static_cast<unsigned char>(script[end])))) return true;
    }
  }
  return false;
}

void AddProgramReadings(std::string_view script, const std::vector<std::size_t>& offsets,
                        std::vector<ShellContext>* contexts) {
  const PlaceholderList placeholders = SortedPlaceholders(offsets);
  ProgramReader reader;
  ReadShell(script, &reader);
  for (const Call& call : reader.calls) MarkProgramWords(call, placeholders, contexts);
  for (const ProgramReader::Body& body : reader.bodies) {
    StandIn program(placeholders);
    program.ReadBody(script, body.begin, body.end, body.expanding);
    MarkPlaces(*body.call, placeholders, {body.begin, body.end}, program, contexts);
  }
}

ProgramSource ProgramSourceOf(const std::vector<ShWord>& words) {
  Call call;
  call.command.words = words;
  if (!ReadCall(0, /*after_any=*/false, &call)) return {};
  return {call.name, call.programs.reads_stdin, call.programs.names_file};
}

namespace {

// `text` as a word at `offset` of a text: one piece of text, placeholders still in it.
ShWord TextWord(const std::string& text, std::size_t offset) {
  ShWord word;
  word.begin = offset;
  word.end = offset + text.size();
  word.text = text;
  word.pieces.push_back(ShPiece{ShPiece::kText, 0, offset, text.size()});
  return word;
}

}  // namespace

void AddArgvProgramReadings(const std::vector<std::string>& argv, const std::vector<ArgvPlace>& places,
                            std::vector<ShellContext>* contexts) {
  // The items as words of one text, one blank apart.
  Call call;
  std::vector<std::size_t> starts;
  std::size_t offset = 0;
  for (const std::string& item : argv) {
    call.command.words.push_back(TextWord(item, offset));
    starts.push_back(offset);
    offset += item.size() + 1;
  }
  // An image's entrypoint script usually runs its arguments (`/docker-entrypoint.sh python3 -c ...`).
  if (!ReadCall(0, /*after_any=*/true, &call)) return;
  std::vector<std::size_t> offsets;
  for (const ArgvPlace& place : places) offsets.push_back(starts.at(place.item) + place.offset);
  MarkProgramWords(call, SortedPlaceholders(offsets), contexts);
}

std::string_view InterpreterOfFileName(std::string_view file_name) {
  const std::size_t dot = file_name.rfind('.');
  if (dot == std::string_view::npos) return {};
  const std::string_view extension = file_name.substr(dot + 1);
  if (extension == "py") return "python3";
  if (extension == "pl" || extension == "pm") return "perl";
  if (extension == "js" || extension == "mjs" || extension == "cjs") return "node";
  if (extension == "awk" || extension == "sed" || extension == "jq") return extension;
  return {};
}

void AddProgramFileReadings(const std::string& program, std::string_view file_name,
                            const std::vector<std::size_t>& offsets, std::vector<ShellContext>* contexts) {
  std::string_view named = ShebangProgram(program);
  if (InterpreterNamed(named) == nullptr) named = InterpreterOfFileName(file_name);
  Call call;
  call.interpreter = InterpreterNamed(named);
  if (call.interpreter == nullptr) return;
  call.name = ProgramName(named);
  // The whole text is the program: each language reads the `#!` line as a comment (node skips it).
  call.command.words.push_back(TextWord(program, 0));
  call.programs.words.push_back({0, 0});
  MarkProgramWords(call, SortedPlaceholders(offsets), contexts);
}

}  // namespace safesubst
