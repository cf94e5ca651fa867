// SPDX-License-Identifier: Apache-2.0
#include "command_line.h"

#include <algorithm>
#include <cctype>
#include <iterator>
#include <span>

namespace safesubst {

namespace {

// The restricted (rbash, rksh), static and versioned names of these are read by ShellName.
constexpr std::string_view kShells[] = {"sh",   "bash", "dash", "ash",   "zsh",   "ksh",  "mksh",  "yash",
                                        "posh", "lksh", "ksh93", "pdksh", "oksh", "loksh", "hush"};
constexpr std::string_view kWrappers[] = {"tini",  "tini-static", "dumb-init", "catatonit", "env",    "busybox",
                                          "timeout", "su-exec",   "gosu",      "nice",      "ionice", "nohup",
                                          "chroot",  "setsid",    "stdbuf",    "runuser",   "setpriv", "chpst",
                                          "sudo",    "doas",      "s6-setuidgid"};

// `su -c CMD` and `runuser -c CMD` run CMD with the user's shell, `flock FILE -c CMD` and `script -c CMD` with sh.
constexpr std::string_view kCommandOptionTakers[] = {"su", "runuser", "flock", "script", "sg"};

bool IsOneOf(std::string_view program, std::span<const std::string_view> names) {
  return std::find(names.begin(), names.end(), ProgramBaseName(program)) != names.end();
}

}  // namespace

std::string_view ProgramBaseName(std::string_view program) {
  const std::size_t slash = program.rfind('/');
  return slash == std::string_view::npos ? program : program.substr(slash + 1);
}

namespace {

// `mksh-static`, `bash.static`, `bash5`, `bash-5.2`, `zsh-5.9`: the same
// shell built or installed under another name (Debian's mksh-static, the
// versioned names that images and package managers leave beside the plain one).
std::string_view WithoutBuildSuffix(std::string_view name) {
  for (std::string_view suffix : {"-static", ".static"}) {
    if (name.ends_with(suffix)) name.remove_suffix(suffix.size());
  }
  std::size_t end = name.size();
  while (end > 0 && (std::isdigit(static_cast<unsigned char>(name[end - 1])) != 0 || name[end - 1] == '.')) --end;
  if (end < name.size() && end > 0 && name[end - 1] == '-') --end;
  return end > 0 && end < name.size() && std::isdigit(static_cast<unsigned char>(name[name.size() - 1])) != 0
             ? name.substr(0, end)
             : name;
}

std::string_view KnownShell(std::string_view name) {
  const auto found = std::find(std::begin(kShells), std::end(kShells), name);
  return found == std::end(kShells) ? std::string_view() : *found;
}

}  // namespace

std::string_view ShellName(std::string_view program) {
  const std::string_view name = ProgramBaseName(program);
  if (const std::string_view shell = KnownShell(name); !shell.empty()) return shell;  // ksh93 is a name of its own
  const std::string_view built = WithoutBuildSuffix(name);
  if (const std::string_view shell = KnownShell(built); !shell.empty()) return shell;
  // The restricted shells: rbash, rksh, rzsh, rmksh. (Not `rsh`, the remote shell, which runs no -c string.)
  if (built.size() > 3 && built[0] == 'r') return KnownShell(built.substr(1));
  return {};
}

bool IsShellProgram(std::string_view program) { return !ShellName(program).empty(); }

bool IsCommandWrapper(std::string_view program) { return IsOneOf(program, kWrappers); }

bool TakesCommandOption(std::string_view program) { return IsOneOf(program, kCommandOptionTakers); }

CommandOption CommandOptionIn(std::string_view option) {
  if (option.starts_with("--")) {
    const std::size_t equals = option.find('=');
    const std::string_view name = option.substr(0, equals);
    // getopt_long takes any unambiguous prefix: `--c` is `--command`, `--se` `--session-command`.
    const bool command = (name.size() >= 3 && std::string_view("--command").starts_with(name)) ||
                         (name.size() >= 4 && std::string_view("--session-command").starts_with(name));
    if (!command) return CommandOption::kNone;
    return equals == std::string_view::npos ? CommandOption::kNextWord : CommandOption::kGlued;
  }
  if (option.size() < 2 || option[0] != '-') return CommandOption::kNone;
  // Short options of su, runuser and script that take an argument: the rest of the word is it.
  constexpr std::string_view kTakesArgument = "sgGwuTIOBEomt";
  for (std::size_t k = 1; k < option.size(); ++k) {
    if (option[k] == 'c') return k + 1 < option.size() ? CommandOption::kGlued : CommandOption::kNextWord;
    if (kTakesArgument.find(option[k]) != std::string_view::npos) return CommandOption::kNone;
  }
  return CommandOption::kNone;
}

std::size_t EnvSplitStringItem(const std::vector<std::string>& argv) {
  constexpr std::size_t kNone = std::string_view::npos;
  std::size_t i = 0;
  while (i < argv.size() && ProgramBaseName(argv[i]) != "env") ++i;
  for (++i; i < argv.size(); ++i) {
    const std::string_view option = argv[i];
    if (option == "--" || option.size() < 2 || option[0] != '-') return kNone;  // the command, or NAME=VALUE
    if (option.starts_with("--")) {
      const std::size_t equals = option.find('=');
      const std::string_view name = option.substr(0, equals);
      // getopt_long takes any unambiguous prefix; `--s` alone is not one.
      if (name.size() >= 4 && std::string_view("--split-string").starts_with(name)) {
        return equals != kNone ? i : (i + 1 < argv.size() ? i + 1 : kNone);
      }
      if (equals == kNone && (name == "--unset" || name == "--chdir")) ++i;  // their argument
      continue;
    }
    for (std::size_t k = 1; k < option.size(); ++k) {
      if (option[k] == 'S') return k + 1 < option.size() ? i : (i + 1 < argv.size() ? i + 1 : kNone);
      if (option[k] == 'u' || option[k] == 'C') {  // the rest, or the next item, is their argument
        if (k + 1 == option.size()) ++i;
        break;
      }
    }
  }
  return kNone;
}

std::size_t ShellOptionArguments(std::string_view option) {
  if (option == "--rcfile" || option == "--init-file") return 1;
  if (option.starts_with("--")) return 0;
  return static_cast<std::size_t>(std::count_if(option.begin() + 1, option.end(),
                                                [](char c) { return c == 'o' || c == 'O'; }));
}

bool IsDashC(std::string_view word) {
  return word.size() >= 2 && word[0] == '-' && word[1] != '-' && word.find('c') != std::string_view::npos;
}

}  // namespace safesubst
