// SPDX-License-Identifier: Apache-2.0
#include "shell_commands.h"

#include <algorithm>
#include <iterator>
#include <set>
#include <utility>

#include "command_line.h"
#include "references.h"

namespace safesubst {

namespace {

bool IsBlank(char c) { return c == ' ' || c == '\t' || c == '\r'; }

// The programs that run a command given after their own words (beyond the
// container wrappers of command_line.h) or hand a string to a shell: one
// table, so that a new wrapper is added in one place. `command`, `builtin`,
// `exec`, `noglob` and `nocorrect` are the shells' own prefix words (`time`
// and `!` are reserved words, which CommandReader drops in front).
struct Runner {
  std::string_view name;
  bool runs_command;     // `nice -n 5 CMD ARGS`: CMD is run (found by CommandAfterRunners)
  bool operands_string;  // its operands, joined with blanks, are run by a shell
};
// (The programs that hand their `-c` string to a shell are command_line.h's TakesCommandOption.)
constexpr Runner kRunners[] = {
    {"exec", true, false},    {"command", true, false}, {"builtin", true, false}, {"noglob", true, false},
    {"nocorrect", true, false}, {"xargs", true, false}, {"find", true, false},    {"kubectl", true, false},
    {"time", true, false},    {"doas", true, false},    {"unshare", true, false}, {"nsenter", true, false},
    {"docker", true, false},  {"podman", true, false},  {"crictl", true, false},  {"oc", true, false},
    {"chrt", true, false},    {"taskset", true, false}, {"flock", true, false},   {"watch", false, true},
    {"parallel", false, true}, {"coproc", true, false},
};

const Runner* FindRunner(std::string_view program) {
  const std::string_view name = ProgramBaseName(program);
  for (const Runner& runner : kRunners) {
    if (runner.name == name) return &runner;
  }
  return nullptr;
}

// Programs that read their words as data (ReadsWordsAsData): printing,
// searching and looking up names, package managers and user tools, which
// take a shell's name as an argument (`-s /bin/bash`) and have a `-c` of their own.
constexpr std::string_view kDataReaders[] = {
    "echo",   "printf",   "print",    "grep",     "egrep",  "fgrep",   "rg",       "which",     "whereis",
    "type",   "hash",     "test",     "[",        "ls",     "stat",    "file",     "ln",        "cp",
    "mv",     "rm",       "install",  "chmod",    "chown",  "readlink", "realpath", "basename", "dirname",
    "touch",  "cat",      "head",     "tail",     "wc",     "sort",    "uniq",     "cut",       "tr",
    "useradd", "usermod", "adduser",  "deluser",  "userdel", "chsh",   "update-alternatives", "dpkg",
    "dpkg-divert", "apt", "apt-get",  "apt-cache", "apk",   "yum",     "dnf",      "microdnf",  "rpm",
    "zypper", "pacman",   "pip",      "pip3",     "ps",     "pgrep",   "pkill",    "killall",   "pidof",
    "logger", "getent",   "id",       "du",       "df",     "chattr",  "setfacl"};

// A runner's own word: an option, an assignment (`env A=1`) or a number (`nice -n 5`, `timeout 5s`).
bool IsRunnerWord(const ShWord& word) {
  const std::string& text = word.text;
  return (!text.empty() && (text[0] == '-' || (text[0] >= '0' && text[0] <= '9'))) || IsShellAssignment(text);
}

// X of `$(command -v X)`, `$(which X)`, `$(type -P X)` and their backtick
// forms: the path the shell would find for X, whose last component is X.
std::string LookedUpProgram(std::string_view expansion) {
  const bool backticks = expansion.starts_with("`") && expansion.ends_with("`") && expansion.size() >= 2;
  const bool dollar = expansion.starts_with("$(") && expansion.ends_with(")");
  if (!backticks && !dollar) return {};
  std::string_view inside = expansion.substr(backticks ? 1 : 2, expansion.size() - (backticks ? 2 : 3));
  for (std::string_view lookup : {"command -v ", "which ", "type -P ", "type -p "}) {
    if (!inside.starts_with(lookup)) continue;
    std::string_view name = inside.substr(lookup.size());
    const bool plain = !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
      return IsNameChar(c) || c == '.' || c == '-' || c == '+' || c == '/';
    });
    return plain ? std::string(name) : std::string();
  }
  return {};
}

}  // namespace

namespace {

// The word's characters outside quotes and escapes, each quoted or escaped
// stretch one `"`: where glob and brace characters are special.
std::string SpecialCharacters(const ShWord& word) {
  std::string special;
  for (const ShPiece& piece : word.pieces) {
    special += piece.unquoted ? std::string_view(word.text).substr(piece.text_begin, piece.length) : "\"";
  }
  return special;
}

bool HasBrace(std::string_view special) {
  const std::size_t brace = special.find('{');
  const std::size_t comma = brace == std::string_view::npos ? brace : special.find(',', brace);
  return comma != std::string_view::npos && special.find('}', comma) != std::string_view::npos;
}

}  // namespace

bool HasBraceExpansion(const ShWord& word) { return HasBrace(SpecialCharacters(word)); }

bool MayExpandToOtherWords(const ShWord& word) {
  const std::string special = SpecialCharacters(word);
  if (special.find_first_of("*?") != std::string::npos) return true;
  const std::size_t bracket = special.find('[');
  return (bracket != std::string::npos && special.find(']', bracket + 1) != std::string::npos) || HasBrace(special);
}

std::string ProgramOf(const ShWord& word) {
  if (MayExpandToOtherWords(word)) return {};
  if (!word.has_expansion) return word.text;
  std::size_t expansions = 0, literal_from = 0;  // the text after the last expansion is literal
  std::string looked_up;
  for (const ShPiece& piece : word.pieces) {
    if (piece.kind != ShPiece::kExpansion) continue;
    ++expansions;
    literal_from = piece.text_begin + piece.length;
    looked_up = LookedUpProgram(std::string_view(word.text).substr(piece.text_begin, piece.length));
  }
  const bool only_the_lookup =
      expansions == 1 && std::all_of(word.pieces.begin(), word.pieces.end(), [](const ShPiece& piece) {
        return piece.kind == ShPiece::kExpansion || piece.length == 0;
      });
  if (only_the_lookup && !looked_up.empty()) return looked_up;
  const std::size_t slash = word.text.rfind('/');
  if (slash == std::string::npos || slash < literal_from || slash + 1 == word.text.size()) return {};
  return word.text.substr(slash + 1);
}

std::optional<ShWord> WordFrom(const ShWord& word, std::size_t cut) {
  for (std::size_t p = 0; p < word.pieces.size(); ++p) {
    const ShPiece& piece = word.pieces[p];
    if (cut < piece.text_begin || cut > piece.text_begin + piece.length) continue;
    if (piece.kind != ShPiece::kText) return std::nullopt;
    const std::size_t at = cut - piece.text_begin;  // into the piece, which maps byte for byte onto the script
    ShWord rest = word;
    rest.begin = piece.offset + at;
    rest.text.erase(0, cut);
    rest.pieces.erase(rest.pieces.begin(), rest.pieces.begin() + static_cast<std::ptrdiff_t>(p));
    rest.pieces.front().offset += at;
    rest.pieces.front().length -= at;
    for (ShPiece& later : rest.pieces) later.text_begin = later.text_begin > cut ? later.text_begin - cut : 0;
    return rest;
  }
  return std::nullopt;
}

std::vector<ShWord> WordsOfPlainText(std::string_view text) {
  std::vector<ShWord> words;
  std::string word;
  for (std::size_t i = 0; i <= text.size(); ++i) {
    const bool end = i == text.size() || IsBlank(text[i]) || text[i] == '\n';
    if (!end && text[i] != '\'' && text[i] != '"') word += text[i];
    if (!end || word.empty()) continue;
    words.emplace_back().text = std::exchange(word, {});
  }
  return words;
}

std::optional<ShWord> AssignedValue(const ShWord& word) {
  for (const ShPiece& piece : word.pieces) {
    if (piece.kind != ShPiece::kText) continue;
    const std::size_t at = std::string_view(word.text).substr(piece.text_begin, piece.length).find('=');
    if (at != std::string_view::npos) return WordFrom(word, piece.text_begin + at + 1);
  }
  return std::nullopt;
}

std::string AssignedName(const ShWord& word, bool declaration) {
  std::size_t end = 0;
  while (end < word.text.size() && IsNameChar(word.text[end])) ++end;
  if (end == 0 || !IsNameStart(word.text[0])) return {};
  if (end == word.text.size()) return declaration ? word.text : std::string();
  const char next = word.text[end];
  return next == '=' || next == '+' || next == '[' ? word.text.substr(0, end) : std::string();
}

std::string_view NamesAsRead(std::string_view script, std::string* storage) {
  if (script.find_first_of("'\"\\") == std::string_view::npos) return script;
  storage->clear();
  storage->reserve(script.size());
  for (std::size_t i = 0; i < script.size(); ++i) {
    const char c = script[i];
    const bool quote_follows = i + 1 < script.size() && (script[i + 1] == '\'' || script[i + 1] == '"');
    if (c == '\\' && i + 1 < script.size() && script[i + 1] == '\n') {
      ++i;
    } else if (c == '$' && quote_follows) {
      // bash's `$'v'` and `$"v"` are `v`: `e$'v'al` is `eval`.
    } else if (c != '\'' && c != '"' && c != '\\') {
      storage->push_back(c);
    }
  }
  return *storage;
}

bool IsDeclaration(std::string_view program) {
  for (std::string_view name : {"declare", "typeset", "local", "export", "readonly", "integer", "nameref"}) {
    if (program == name) return true;
  }
  return false;
}

bool IsRunner(std::string_view program) {
  if (IsCommandWrapper(program)) return true;
  const Runner* runner = FindRunner(program);
  return runner != nullptr && runner->runs_command;
}

bool ReadsWordsAsData(std::string_view program) {
  const std::string_view name = ProgramBaseName(program);
  return std::find(std::begin(kDataReaders), std::end(kDataReaders), name) != std::end(kDataReaders);
}

namespace {

// A program that joins its operands into a string another shell reads
// (`ssh HOST sh -c X`, `watch sh -c X`, `eval sh -c X`, the string of
// `trap` and `alias`): a shell among them is not run as written, and the
// sink of the program itself reads it.
bool JoinsOperands(std::string_view program) {
  const std::string_view name = ProgramBaseName(program);
  return RunsOperandsAsString(program) || name == "ssh" || name == "eval" || name == "trap" || name == "alias";
}

}  // namespace

std::size_t ShellOfCommand(const std::vector<ShWord>& words) {
  constexpr std::size_t kNone = std::string_view::npos;
  if (words.empty()) return kNone;
  const std::string first = ProgramOf(words[0]);
  if (IsShellProgram(first)) return 0;
  if (ReadsWordsAsData(first) || first.empty() || JoinsOperands(first)) return kNone;
  const auto word = [&](std::size_t i) { return ProgramOf(words[i]); };
  // Behind runners, up to the first shell; after any other program too (FirstShellWord), but not past one that joins or reads its words.
  const std::size_t run = CommandAfterRunners(words, 0);
  const std::size_t shell = FirstShellWord(words.size(), word, [](std::size_t) { return true; });
  if (shell == words.size()) return kNone;
  for (std::size_t i = run; i < shell; ++i) {
    const std::string program = ProgramOf(words[i]);
    if (ReadsWordsAsData(program) || JoinsOperands(program)) return kNone;
  }
  return shell;
}

std::size_t LastPossibleProgram(const std::vector<ShWord>& words, std::size_t run) {
  if (run >= words.size() || words.empty()) return run;
  const std::string program = ProgramOf(words[run]);
  return program.empty() || ReadsWordsAsData(program) || JoinsOperands(program) ? run : words.size() - 1;
}

bool RunsOperandsAsString(std::string_view program) {
  const Runner* runner = FindRunner(program);
  return runner != nullptr && runner->operands_string;
}

std::optional<ShWord> ShellStringOption(const std::vector<ShWord>& words, std::size_t at) {
  const std::string& word = words[at].text;
  const bool has_next = at + 1 < words.size();
  if (word.starts_with("--")) {
    // getopt_long takes any prefix of a long option (`--comm`, `--co=`); su
    // and runuser also run `--session-command`'s argument.
    const std::size_t equals = std::min(word.find('='), word.size());
    const std::string_view name = std::string_view(word).substr(2, equals - 2);
    const bool command = !name.empty() && (std::string_view("command").starts_with(name) ||
                                            (name.size() >= 2 && std::string_view("session-command").starts_with(name)));
    if (!command) return std::nullopt;
    if (equals < word.size()) return WordFrom(words[at], equals + 1);
    return has_next ? std::optional<ShWord>(words[at + 1]) : std::nullopt;
  }
  if (!IsDashC(word)) return std::nullopt;
  // `-qc STRING`, or `-cSTRING`: the string begins right after the c.
  const std::size_t after_c = word.find('c') + 1;
  if (after_c < word.size()) return WordFrom(words[at], after_c);
  return has_next ? std::optional<ShWord>(words[at + 1]) : std::nullopt;
}

std::size_t EnvCommand(const std::vector<ShWord>& words, std::size_t env) {
  std::size_t i = env + 1;
  for (; i < words.size(); ++i) {
    const std::string& word = words[i].text;
    if (word == "-" || word == "--") {
      ++i;
      break;
    }
    if (word.size() < 2 || word[0] != '-') break;
    const bool takes_argument = word == "--unset" || word == "--chdir" || word == "--split-string" ||
                                (word.size() == 2 && std::string_view("uCSP").find(word[1]) != std::string_view::npos);
    i += takes_argument ? 1 : 0;
  }
  while (i < words.size() && words[i].text.find('=') != std::string::npos) ++i;  // env reads any `=` so
  return i;
}

std::size_t CommandAfterRunners(const std::vector<ShWord>& words, std::size_t name) {
  while (name < words.size() && IsRunner(words[name].text)) {
    if (ProgramBaseName(words[name].text) == "env") {
      name = EnvCommand(words, name);
      continue;
    }
    ++name;
    while (name < words.size() && IsRunnerWord(words[name])) ++name;
  }
  return name;
}

void CommandReader::ListEnd() {
  FinishCommand(false);
  lists_.pop_back();
}

void CommandReader::CommandEnd(bool piped) { FinishCommand(piped); }

void CommandReader::FinishCommand(bool piped) {
  ShCommand& command = lists_.back().command;
  command.piped = piped;
  ExpandAlias(&command);
  RecordAliases(command);
  CommandEnded(std::move(command));
  command = ShCommand{};
}

namespace {

// The simple command an alias body leaves open for the words after the
// alias: its text after the last `;`, `&`, `|` or newline (`alias e='true;
// eval'` runs `eval ARGS`).
std::string_view OpenCommandOf(std::string_view body) {
  const std::size_t separator = body.find_last_of(";&|\n");
  return separator == std::string_view::npos ? body : body.substr(separator + 1);
}

// Reads only the aliases a string defines (`eval "alias e=eval"`).
class AliasReader : public CommandReader {
 public:
  using CommandReader::CommandReader;
  const std::map<std::string, std::string, std::less<>>& aliases() const { return aliases_; }

 protected:
  void CommandEnded(ShCommand /*command*/) override {}
};

}  // namespace

CommandReader::CommandReader(int alias_depth) : alias_depth_(alias_depth) {}

// Expands the word at `name` while it names an alias, each alias once (an
// alias of an alias: `alias a=b b=eval`); a body ending in a blank has the
// next word expanded too (`alias n='nice '`).
void CommandReader::ExpandAlias(ShCommand* command) const {
  std::vector<ShWord>& words = command->words;
  auto name = std::find_if(words.begin(), words.end(),
                           [](const ShWord& word) { return word.role != ShellWordRole::kAssignment; });
  if (name == words.end() || name->role != ShellWordRole::kCommandName) return;
  std::set<std::string_view> expanded;
  while (name != words.end() && !name->quoted && !name->has_expansion) {  // a quoted name is no alias
    const auto alias = aliases_.find(name->text);
    if (alias == aliases_.end() || !expanded.insert(alias->first).second) return;
    const std::string_view body = OpenCommandOf(alias->second);
    std::vector<ShWord> replacement = WordsOfPlainText(body);
    for (ShWord& word : replacement) {
      word.begin = name->begin;
      word.end = name->end;
    }
    const auto at = words.erase(name);
    const auto first = words.insert(at, replacement.begin(), replacement.end());
    if (replacement.empty()) return;
    first->role = ShellWordRole::kCommandName;
    const bool next_too = !body.empty() && (body.back() == ' ' || body.back() == '\t');
    name = next_too ? first + static_cast<std::ptrdiff_t>(replacement.size()) : first;
  }
}

void CommandReader::RecordAliases(const ShCommand& command) {
  const std::vector<ShWord>& words = command.words;
  std::size_t name = 0;
  while (name < words.size() && words[name].role == ShellWordRole::kAssignment) ++name;
  const std::size_t run = CommandAfterRunners(words, name);
  if (run >= words.size()) return;
  if (words[run].text == "eval" && alias_depth_ < kMaxAliasDepth) {
    // `eval "alias e=eval"`: the string is read for its aliases, three strings deep.
    std::string code;
    for (std::size_t i = run + 1; i < words.size(); ++i) code += words[i].text + " ";
    if (code.find("alias") == std::string::npos) return;
    AliasReader reader(alias_depth_ + 1);
    ReadShell(code, &reader);
    for (const auto& [alias, body] : reader.aliases()) aliases_[alias] = body;
    return;
  }
  if (words[run].text != "alias") return;
  for (std::size_t i = run + 1; i < words.size(); ++i) {
    const std::string alias = AssignedName(words[i], /*declaration=*/false);
    const std::optional<ShWord> body = AssignedValue(words[i]);
    if (!alias.empty() && body) aliases_[alias] = body->text;
  }
}

void CommandReader::WordBegin(std::size_t offset) {
  List& list = lists_.back();
  list.word = ShWord{};
  list.word.begin = offset;
  list.unquoted_text = false;
  list.quoted_nonblank = false;
}

void CommandReader::AddPiece(ShPiece::Kind kind, std::string_view text, std::size_t offset, bool unquoted) {
  ShWord& word = lists_.back().word;
  word.pieces.push_back(ShPiece{kind, word.text.size(), offset, text.size(), unquoted});
  word.text.append(text);
}

void CommandReader::WordText(std::string_view text, std::size_t offset, ShellQuoting quoting) {
  List& list = lists_.back();
  AddPiece(quoting == ShellQuoting::kAnsiC ? ShPiece::kUndecoded : ShPiece::kText, text, offset,
           quoting == ShellQuoting::kUnquoted);
  const bool in_quotes = quoting == ShellQuoting::kQuoted || quoting == ShellQuoting::kAnsiC;
  if (quoting != ShellQuoting::kUnquoted) list.word.quoted = true;
  if (!in_quotes) list.unquoted_text = true;
  if (in_quotes && !std::all_of(text.begin(), text.end(), IsBlank)) list.quoted_nonblank = true;
}

void CommandReader::WordExpansion(std::string_view raw, std::size_t offset, bool /*quoted*/) {
  AddPiece(ShPiece::kExpansion, raw, offset);
  lists_.back().word.has_expansion = true;
}

void CommandReader::WordEnd(std::size_t end, std::string_view /*raw*/, ShellWordRole role) {
  List& list = lists_.back();
  ShWord& word = list.word;
  word.end = end;
  word.role = role;
  word.blank_quoted = word.quoted && !list.unquoted_text && !word.has_expansion && !list.quoted_nonblank;
  ShCommand& command = list.command;
  // `time -p cmd`: the options of the reserved word `time` go with it.
  const bool time_option = std::exchange(list.after_time, false) && command.words.empty() && word.text.starts_with("-");
  if (time_option) return;
  switch (role) {
    case ShellWordRole::kCasePattern:
    case ShellWordRole::kIoNumber: return;
    case ShellWordRole::kReservedWord:
      if (command.words.empty()) {  // `then EFS_IP=""` is the command `EFS_IP=""`
        list.after_time = word.text == "time";
        return;
      }
      break;
    case ShellWordRole::kRedirectTarget:
      if (!command.redirects.empty()) {
        command.redirects.back().target = std::move(word);
        return;
      }
      break;
    default: break;
  }
  command.words.push_back(std::move(word));
  if (role == ShellWordRole::kCaseIn) FinishCommand(false);
}

void CommandReader::Redirection(std::string_view op, std::size_t offset) {
  ShRedirect redirect;
  redirect.op = std::string(op);
  redirect.begin = offset;
  lists_.back().command.redirects.push_back(std::move(redirect));
}

}  // namespace safesubst
