// SPDX-License-Identifier: Apache-2.0
#include "option_shell_strings.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <initializer_list>
#include <iterator>
#include <optional>
#include <string_view>
#include <utility>

#include "command_line.h"

namespace safesubst {
namespace {

constexpr std::string_view kRsyncSplits =
    "inside the command `rsync -e` splits into words with quoting of its own (no shell reads it)";
constexpr std::string_view kGdbCommand = "inside a gdb command, which may run shell commands or Python (`shell`, `!`)";
constexpr std::string_view kEditorCommand = "inside an editor command, which may run shell commands (`:!`, `system()`)";

// How an option is spelled.
enum class Spelling : std::uint8_t {
  kShort,     // `-I X`, `-IX`, and last in a bundle of the program's short options (`-xI X`)
  kLong,      // `--opt X`, `--opt=X`, getopt_long prefixes of it
  kLongOnly,  // gdb's `-ex X`, `--ex=X`: one dash or two
  kExact,     // `-TT X`, `-TT=X`: a word of its own
  kPlus,      // vim's `+CMD`
};

// An option whose value its program runs.
struct OptionRow {
  std::string_view program;  // base name
  std::string_view option;
  Spelling spelling;
  std::string_view action = {};   // the value runs after this literal: `exec=` of `--checkpoint-action`
  std::string_view refusal = {};  // non-empty: the value is code of another kind, or split by the program itself
};

constexpr OptionRow kOptionRows[] = {
    {"tar", "-I", Spelling::kShort},
    {"tar", "--use-compress-program", Spelling::kLong},
    {"tar", "--to-command", Spelling::kLong},
    {"tar", "-F", Spelling::kShort},
    {"tar", "--info-script", Spelling::kLong},
    {"tar", "--new-volume-script", Spelling::kLong},
    {"tar", "--rsh-command", Spelling::kLong},
    {"tar", "--checkpoint-action", Spelling::kLong, "exec="},
    {"zip", "-TT", Spelling::kExact},
    {"zip", "--unzip-command", Spelling::kLong},
    {"rsync", "--rsync-path", Spelling::kLong},  // joined into the command the remote shell runs
    {"rsync", "-e", Spelling::kShort, {}, kRsyncSplits},
    {"rsync", "--rsh", Spelling::kLong, {}, kRsyncSplits},
    {"man", "-P", Spelling::kShort},
    {"man", "--pager", Spelling::kLong},
    {"gdb", "-ex", Spelling::kLongOnly, {}, kGdbCommand},
    {"gdb", "-eval-command", Spelling::kLongOnly, {}, kGdbCommand},
    {"gdb", "-iex", Spelling::kLongOnly, {}, kGdbCommand},
    {"gdb", "-init-eval-command", Spelling::kLongOnly, {}, kGdbCommand},
};

// The editors whose `-c CMD`, `--cmd CMD` and `+CMD` run an editor command.
constexpr std::string_view kEditors[] = {"vi", "vim", "nvim", "ex", "view", "vimdiff", "gvim", "evim"};

// The short options of a program that take an argument, for reading bundles (`-xvI X`).
std::string_view ShortOptionsWithArgument(std::string_view program) {
  if (program == "tar") return "bCfFgHIKLNTVX";
  if (program == "rsync") return "BefMT";
  return {};
}

// The programs whose `-o` takes an ssh option.
bool TakesSshOptions(std::string_view program) {
  return program == "ssh" || program == "scp" || program == "sftp" || program == "autossh" || program == "slogin";
}

bool HasExpansionBefore(const ShWord& word, std::size_t end) {
  return std::any_of(word.pieces.begin(), word.pieces.end(), [&](const ShPiece& piece) {
    return piece.kind != ShPiece::kText && piece.text_begin < end;
  });
}

std::string Lower(std::string_view text) {
  std::string lower(text);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); });
  return lower;
}

std::string Quoted(std::string_view name) { return "`" + std::string(name) + "`"; }

// Collects the strings of one command.
class Finder {
 public:
  explicit Finder(const std::vector<ShWord>& words) : words_(words) {}

  std::vector<OptionShellString> found;

  // The value in word `at` from byte `cut` of its text on, run as `name` says.
  void AddValue(std::string name, std::size_t at, std::size_t cut, std::string_view refusal = {}) {
    OptionShellString string{std::move(name), {}, std::string(refusal)};
    std::optional<ShWord> value = cut == 0 ? std::optional<ShWord>(words_[at]) : WordFrom(words_[at], cut);
    if (!value) {  // the option and its value made by one expansion
      value = words_[at];
      string.refusal = "inside an option whose value " + string.name + " runs, made by an expansion";
    }
    string.words.push_back(std::move(*value));
    found.push_back(std::move(string));
  }

  // The value of an option word `at` whose value begins at `cut`: the rest
  // of the word, or the next word when the option ends the word. Returns
  // the last word read.
  std::size_t AddOptionValue(std::string name, std::size_t at, std::size_t cut, std::string_view refusal = {}) {
    if (!ValueIsNextWord(at, cut)) {
      AddValue(std::move(name), at, cut, refusal);
      return at;
    }
    if (at + 1 < words_.size()) AddValue(std::move(name), at + 1, 0, refusal);
    return at + 1;
  }

  bool ValueIsNextWord(std::size_t at, std::size_t cut) const {
    const std::string& word = words_[at].text;
    return cut >= word.size() && (word.empty() || word.back() != '=');
  }

  // The value of option word `at` (from `cut`, or the next word), which
  // must begin with `action` for the program to run the rest (`exec=` of
  // --checkpoint-action): one that an expansion begins may be that action.
  std::size_t AddActionValue(std::string name, std::size_t at, std::size_t cut, std::string_view action) {
    const bool next = ValueIsNextWord(at, cut);
    const std::size_t in = next ? at + 1 : at;
    if (in >= words_.size()) return in;
    const std::size_t begin = next ? 0 : cut;
    const ShWord& word = words_[in];
    if (HasExpansionBefore(word, begin + action.size())) {
      OptionShellString string{std::move(name), {word}, {}};
      string.refusal = "inside the value of " + string.name + ", whose start (`" + std::string(action) +
                       "` runs a command) an expansion decides";
      found.push_back(std::move(string));
    } else if (std::string_view(word.text).substr(begin).starts_with(action)) {
      AddValue(std::move(name), in, begin + action.size());
    }
    return in;
  }

  // Word `at` against one row: where its value begins, or npos.
  std::size_t ValueCut(const OptionRow& row, std::size_t at) const {
    constexpr std::size_t kNone = std::string_view::npos;
    const std::string_view word = words_[at].text;
    switch (row.spelling) {
      case Spelling::kExact:
        if (word == row.option) return word.size();
        return word.starts_with(std::string(row.option) + "=") ? row.option.size() + 1 : kNone;
      case Spelling::kPlus: return word.size() > 1 && word[0] == '+' ? 1 : kNone;
      case Spelling::kShort: return ShortValueCut(row, word);
      case Spelling::kLong:
      case Spelling::kLongOnly: return LongValueCut(row, word);
    }
    return kNone;
  }

  void ReadTableOptions(std::size_t program, std::size_t end) {
    const std::string name(ProgramBaseName(ProgramOf(words_[program])));
    for (std::size_t at = program + 1; at < end && words_[at].text != "--"; ++at) {
      for (const OptionRow& row : kOptionRows) {
        if (row.program != name) continue;
        const std::size_t cut = ValueCut(row, at);
        if (cut == std::string_view::npos) continue;
        const std::string label = Quoted(std::string(name) + " " + std::string(row.option));
        at = row.action.empty() ? AddOptionValue(label, at, cut, row.refusal) : AddActionValue(label, at, cut, row.action);
        break;
      }
    }
  }

  void ReadEditorOptions(std::size_t program, std::size_t end) {
    const std::string name(ProgramBaseName(ProgramOf(words_[program])));
    for (std::size_t at = program + 1; at < end && words_[at].text != "--"; ++at) {
      const std::string& word = words_[at].text;
      if (word == "-c" || word == "--cmd") {
        at = AddOptionValue(Quoted(std::string(name) + " " + word), at, word.size(), kEditorCommand);
      } else if (word.size() > 1 && word[0] == '+') {
        AddValue(Quoted(std::string(name) + " +"), at, 1, kEditorCommand);
      }
    }
  }

  // `-o Key=value`, `-oKey value`, `-o 'Key = value'`: ssh reads the key up
  // to a blank or `=`, then blanks and one `=` (any case: ProxyCommand, proxycommand).
  void ReadSshOptions(std::size_t program, std::size_t end) {
    for (std::size_t at = program + 1; at < end; ++at) {
      const std::string& word = words_[at].text;
      if (!word.starts_with("-o")) continue;
      const bool glued = word.size() > 2;
      const std::size_t option = glued ? at : at + 1;
      if (option >= end) return;
      ReadSshOption(option, glued ? 2 : 0);
      at = option;
    }
  }

  void ReadSshOption(std::size_t at, std::size_t begin) {
    const std::string& text = words_[at].text;
    std::size_t key_end = begin;
    while (key_end < text.size() && text[key_end] != '=' && text[key_end] != ' ' && text[key_end] != '\t') ++key_end;
    const std::string key = Lower(std::string_view(text).substr(begin, key_end - begin));
    std::size_t cut = key_end;
    while (cut < text.size() && (text[cut] == ' ' || text[cut] == '\t')) ++cut;
    if (cut < text.size() && text[cut] == '=') ++cut;
    while (cut < text.size() && (text[cut] == ' ' || text[cut] == '\t')) ++cut;
    const std::string name = "`ssh -o " + std::string(text.substr(begin, key_end - begin)) + "`";
    if (HasExpansionBefore(words_[at], key_end)) {
      OptionShellString string{"`ssh -o`", {words_[at]}, {}};
      string.refusal = "inside an ssh option whose name an expansion decides (ProxyCommand, LocalCommand run a command)";
      found.push_back(std::move(string));
      return;
    }
    for (std::string_view runs : {"proxycommand", "localcommand", "knownhostscommand", "remotecommand"}) {
      if (key == runs && cut < text.size()) AddValue(name, at, cut);
    }
  }

  void ReadGit(std::size_t git, std::size_t end);
  void ReadTmux(std::size_t tmux, std::size_t end);

 private:
  std::size_t ShortValueCut(const OptionRow& row, std::string_view word) const {
    if (word.size() < 2 || word[0] != '-' || word[1] == '-') return std::string_view::npos;
    const std::string_view with_argument = ShortOptionsWithArgument(row.program);
    for (std::size_t k = 1; k < word.size(); ++k) {
      if (word[k] == row.option[1]) return k + 1;
      // A bundle of flags may come first; another option taking an argument ends it.
      if (k == 1 && with_argument.empty()) return std::string_view::npos;
      if (with_argument.find(word[k]) != std::string_view::npos) return std::string_view::npos;
    }
    return std::string_view::npos;
  }

  static std::size_t LongValueCut(const OptionRow& row, std::string_view word) {
    const bool one_dash = row.spelling == Spelling::kLongOnly;
    const std::string_view option = row.option.substr(row.option.find_first_not_of('-'));
    const std::size_t dashes = word.starts_with("--") ? 2 : word.starts_with("-") && one_dash ? 1 : 0;
    if (dashes == 0) return std::string_view::npos;
    const std::size_t equals = std::min(word.find('='), word.size());
    const std::string_view name = word.substr(dashes, equals - dashes);
    // getopt_long takes any unambiguous prefix; three letters at least here (`--to` is not only `--to-command`).
    const bool matches = name == option || (name.size() >= 3 && option.starts_with(name));
    if (!matches) return std::string_view::npos;
    return equals < word.size() ? equals + 1 : word.size();
  }

  const std::vector<ShWord>& words_;
};

// git runs the value of these keys with a shell (`git -c KEY=VALUE`, `git
// config KEY VALUE`): by the last part of the key, or the section (aliases,
// pagers). Sections and names are read in any case, as git reads them.
bool GitRunsValue(std::string_view key) {
  const std::string lower = Lower(key);
  const std::size_t dot = lower.find('.'), last = lower.rfind('.');
  if (dot == std::string::npos) return false;
  const std::string_view section = std::string_view(lower).substr(0, dot);
  const std::string_view name = std::string_view(lower).substr(last + 1);
  if (section == "alias" || section == "pager") return true;
  for (std::string_view runs :
       {"sshcommand", "editor", "pager", "askpass", "fsmonitor", "gitproxy", "external", "command", "textconv",
        "clean", "smudge", "process", "driver", "helper", "program", "defaultkeycommand", "uploadpack", "receivepack",
        "cmd", "sendmailcmd", "tocmd", "cccmd", "packobjectshook", "alternaterefscommand", "httpd"}) {
    if (name == runs) return true;
  }
  return false;
}

// Where the value of `KEY=VALUE` (or of git config's VALUE word) begins for
// the shell: after a `!` that aliases and credential helpers start with.
std::size_t AfterBang(const ShWord& word, std::size_t cut) {
  return cut < word.text.size() && word.text[cut] == '!' && !HasExpansionBefore(word, cut + 1) ? cut + 1 : cut;
}

}  // namespace

void Finder::ReadGit(std::size_t git, std::size_t end) {
  // `-c KEY=VALUE` before the subcommand and in `git clone -c/--config`.
  const auto config_pair = [&](std::size_t at) {
    const ShWord& word = words_[at];
    const std::size_t equals = word.text.find('=');
    if (HasExpansionBefore(word, std::min(equals, word.text.size()))) {
      OptionShellString string{"`git -c`", {word}, {}};
      string.refusal = "inside a git setting whose name an expansion decides (core.sshCommand, alias.* run commands)";
      found.push_back(std::move(string));
    } else if (equals == std::string::npos) {
      return;  // a setting made true
    } else if (const std::string key = word.text.substr(0, equals); GitRunsValue(key)) {
      AddValue("`git -c " + key + "`", at, AfterBang(word, equals + 1));
    }
  };
  std::size_t at = git + 1;
  for (; at < end && words_[at].text.starts_with("-"); ++at) {
    const std::string& word = words_[at].text;
    if (word == "-c" && at + 1 < end) config_pair(++at);
    if (word == "-C" || word == "--git-dir" || word == "--work-tree" || word == "--namespace" ||
        word == "--config-env") {
      ++at;
    }
  }
  if (at >= end) return;
  const std::string& command = words_[at].text;
  if (command == "config") {
    // `git config [set] [OPTIONS] KEY VALUE`: the key says whether git runs the value.
    std::vector<std::size_t> operands;
    for (std::size_t i = at + 1; i < end; ++i) {
      const std::string& word = words_[i].text;
      if (word == "set" && operands.empty() && i == at + 1) continue;
      if (word.starts_with("-")) {
        const bool takes = word == "-f" || word == "--file" || word == "--blob" || word == "--type" ||
                           word == "--default" || word == "--comment" || word == "--value";
        i += takes ? 1 : 0;
        continue;
      }
      operands.push_back(i);
    }
    if (operands.size() < 2) return;
    const ShWord& key = words_[operands[0]];
    if (key.has_expansion || GitRunsValue(key.text)) {
      AddValue("`git config " + key.text + "`", operands[1], AfterBang(words_[operands[1]], 0));
    }
    return;
  }
  // Subcommand options that name the program git runs on the other side, with a shell for a local path.
  for (std::size_t i = at + 1; i < end && words_[i].text != "--"; ++i) {
    const std::string& word = words_[i].text;
    const bool clone = command == "clone";
    if (clone && (word == "-c" || word == "--config") && i + 1 < end) {
      config_pair(++i);
      continue;
    }
    if (clone && word.starts_with("--config=")) continue;  // (rare; its key is read below as any long option)
    std::string_view option;
    for (std::string_view runs : {"--upload-pack", "--receive-pack", "--exec"}) {
      const OptionRow row{"git", runs, Spelling::kLong};
      if (LongValueCut(row, word) != std::string_view::npos) option = runs;
    }
    const bool short_upload = clone && (word == "-u" || (word.starts_with("-u") && word.size() > 2));
    const bool rebase_exec = command == "rebase" && (word == "-x" || word == "--exec" || word.starts_with("--exec="));
    if (option.empty() && !short_upload && !rebase_exec) continue;
    const std::size_t equals = word.find('=');
    const std::size_t cut = short_upload ? 2 : equals == std::string::npos ? word.size() : equals + 1;
    const std::string spelled = option.empty() ? word.substr(0, 2) : std::string(option);
    i = AddOptionValue("`git " + command + " " + spelled + "`", i, cut);
  }
}

// tmux runs the string of `-c` and of its commands that start a shell
// command (`new-session -d CMD`, `run-shell CMD`, `if-shell CMD ...`,
// `pipe-pane CMD`); several operands of new-session/new-window/split-window
// are a command line run without a shell (the first shell after any program is found for those).
void Finder::ReadTmux(std::size_t tmux, std::size_t end) {
  struct TmuxCommand {
    std::string_view name, alias, with_argument;
    bool first_operand_always;  // run-shell, if-shell, pipe-pane: the first operand is the shell command
  };
  static constexpr TmuxCommand kCommands[] = {
      {"new-session", "new", "cefFnstxy", false},  {"new-window", "neww", "ceFnt", false},
      {"split-window", "splitw", "celtF", false},  {"respawn-pane", "respawnp", "cet", false},
      {"respawn-window", "respawnw", "cet", false}, {"run-shell", "run", "cdt", true},
      {"if-shell", "if", "t", true},               {"pipe-pane", "pipep", "t", true},
      {"display-popup", "popup", "bcdehsStTwxy", false},
  };
  std::size_t at = tmux + 1;
  for (; at < end && words_[at].text.starts_with("-"); ++at) {
    const std::string& word = words_[at].text;
    if (word == "-c") {
      at = AddOptionValue("`tmux -c`", at, word.size());
    } else if (word == "-L" || word == "-S" || word == "-f" || word == "-T") {
      ++at;
    }
  }
  while (at < end) {
    const std::string& name = words_[at].text;
    const TmuxCommand* command = nullptr;
    for (const TmuxCommand& known : kCommands) {
      if (name == known.name || name == known.alias) command = &known;
    }
    std::vector<std::size_t> operands;
    std::size_t i = at + 1;
    for (; i < end && words_[i].text != ";"; ++i) {
      const std::string& word = words_[i].text;
      if (command != nullptr && operands.empty() && word.size() >= 2 && word[0] == '-') {
        if (word.size() == 2 && command->with_argument.find(word[1]) != std::string_view::npos) ++i;
        continue;
      }
      operands.push_back(i);
    }
    if (command != nullptr && !operands.empty() && (command->first_operand_always || operands.size() == 1)) {
      AddValue("`tmux " + std::string(command->name) + "`", operands[0], 0);
    }
    at = i + 1;
  }
}

namespace {

// Whether `script` holds text that may spell an option `program` runs (a
// cheap test: any substring will do).
bool MaySpellRunOption(std::string_view program, std::string_view script) {
  const auto holds = [&](std::initializer_list<std::string_view> markers) {
    return std::any_of(markers.begin(), markers.end(),
                       [&](std::string_view marker) { return script.find(marker) != std::string_view::npos; });
  };
  if (program == "git") return holds({"-c", "config", "-u", "upload", "receive", "exec", "-x"});
  if (program == "tmux") return holds({"-c", "new", "run", "if", "pipe", "split", "respawn", "popup"});
  if (TakesSshOptions(program)) return holds({"-o"});
  if (std::find(std::begin(kEditors), std::end(kEditors), program) != std::end(kEditors)) return holds({"-c", "+"});
  return std::any_of(std::begin(kOptionRows), std::end(kOptionRows), [&](const OptionRow& row) {
    return row.program == program && script.find(row.option.substr(0, 4)) != std::string_view::npos;  // (`--us`: prefixes)
  });
}

}  // namespace

bool MayNameOptionRunner(std::string_view script) {
  // Each word once: the text between blanks, separators and quotes, its path's last component.
  constexpr std::string_view kBetweenWords = " \t\n;|&()'\"`$={}";
  for (std::size_t begin = 0; begin < script.size();) {
    const std::size_t end = std::min(script.find_first_of(kBetweenWords, begin), script.size());
    if (end > begin && MaySpellRunOption(ProgramBaseName(script.substr(begin, end - begin)), script)) return true;
    begin = end + 1;
  }
  return false;
}

std::vector<OptionShellString> OptionShellStrings(const std::vector<ShWord>& words, std::size_t first,
                                                  std::size_t last) {
  Finder finder(words);
  for (std::size_t program = first; program <= last && program < words.size(); ++program) {
    const std::string name(ProgramBaseName(ProgramOf(words[program])));
    if (name.empty()) continue;
    // Each program reads the options up to the next program among the words (`sshpass -p x ssh -o ...`).
    const std::size_t end = words.size();
    if (name == "git") finder.ReadGit(program, end);
    if (name == "tmux") finder.ReadTmux(program, end);
    if (TakesSshOptions(name)) finder.ReadSshOptions(program, end);
    if (std::find(std::begin(kEditors), std::end(kEditors), name) != std::end(kEditors)) {
      finder.ReadEditorOptions(program, end);
    }
    finder.ReadTableOptions(program, end);
  }
  return std::move(finder.found);
}

}  // namespace safesubst
