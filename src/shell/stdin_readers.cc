// SPDX-License-Identifier: Apache-2.0
#include "stdin_readers.h"

#include <string_view>

#include "command_line.h"

namespace safesubst {
namespace {

std::string Quoted(std::string_view name) { return "`" + std::string(name) + "`"; }

bool IsOption(const ShWord& word) { return word.text.size() >= 2 && word.text[0] == '-'; }

// An option word of `words` after `first` (a bundle of letters, not `--long`) holding one of `letters`.
bool HasOptionLetter(const std::vector<ShWord>& words, std::size_t first, std::string_view letters) {
  for (std::size_t i = first; i < words.size(); ++i) {
    const std::string& text = words[i].text;
    if (IsOption(words[i]) && text[1] != '-' && text.find_first_of(letters, 1) != std::string::npos) return true;
  }
  return false;
}

// The words after `first` that are no option and no option's argument (the
// option letters in `with_argument` take the next word).
std::vector<const ShWord*> OperandsAfter(const std::vector<ShWord>& words, std::size_t first,
                                         std::string_view with_argument) {
  std::vector<const ShWord*> operands;
  for (std::size_t i = first; i < words.size(); ++i) {
    const std::string& text = words[i].text;
    if (!IsOption(words[i])) {
      operands.push_back(&words[i]);
    } else if (text.size() == 2 && with_argument.find(text[1]) != std::string_view::npos) {
      ++i;
    }
  }
  return operands;
}

// `sudo -s`, `sudo -u app -i` (`--shell`, `--login`) with no command after its options.
bool SudoShell(const std::vector<ShWord>& words) {
  if (ProgramBaseName(words[0].text) != "sudo") return false;
  bool shell = false;
  for (std::size_t i = 1; i < words.size(); ++i) {
    const std::string& text = words[i].text;
    if (!IsOption(words[i])) return false;  // the command
    if (text == "--shell" || text == "--login") {
      shell = true;
    } else if (text[1] != '-') {
      shell = shell || text.find_first_of("si", 1) != std::string::npos;
      if (text.size() == 2 && std::string_view("ugCDhprtTU").find(text[1]) != std::string_view::npos) ++i;
    }
  }
  return shell;
}

constexpr std::string_view kNames[] = {"ssh", "su", "sudo", "chroot", "at", "batch", "ed", "ex", "vi", "vim",
                                       "nvim", "view", "dc", "m4", "gdb", "crontab", "tclsh", "wish", "expect",
                                       "gnuplot"};

}  // namespace

bool MayReadInput(std::string_view script) {
  std::string unquoted;
  script = NamesAsRead(script, &unquoted);  // `e''d` is `ed`
  constexpr std::string_view kBefore = " \t\n;|&(`/", kAfter = " \t\n;|&)`<>";
  for (std::string_view name : kNames) {
    for (std::size_t at = script.find(name); at != std::string_view::npos; at = script.find(name, at + 1)) {
      const std::size_t end = at + name.size();
      if ((at == 0 || kBefore.find(script[at - 1]) != std::string_view::npos) &&
          (end == script.size() || kAfter.find(script[end]) != std::string_view::npos)) {
        return true;
      }
    }
  }
  return false;
}

std::string ShellReadingInput(const std::vector<ShWord>& words) {
  if (words.empty()) return {};
  if (SudoShell(words)) return Quoted("sudo") + " (a shell that reads its input)";
  // (chroot is a runner: CommandAfterRunners would take DIR for the command.)
  if (ProgramBaseName(words[0].text) == "chroot") {
    return OperandsAfter(words, 1, "").size() == 1 ? Quoted("chroot") + " (a shell that reads its input)" : "";
  }
  const std::size_t run = CommandAfterRunners(words, 0);
  if (run >= words.size()) return {};
  const std::string_view name = ProgramBaseName(words[run].text);
  const std::string shell = Quoted(name) + " (a shell that reads its input)";
  if (name == "ssh") {
    if (HasOptionLetter(words, run + 1, "N")) return {};  // no remote command, no shell
    return OperandsAfter(words, run + 1, "BbcDEeFIiJLlmOopQRSWw").size() == 1 ? shell : "";
  }
  if (name == "su") {
    for (std::size_t option = run + 1; option < words.size(); ++option) {
      if (ShellStringOption(words, option)) return {};
    }
    return shell;
  }
  if (name == "at" || name == "batch") {
    // -f FILE reads the commands from the file; -l, -r, -d, -c list, remove or show jobs.
    return HasOptionLetter(words, run + 1, "flrdc") ? "" : shell;
  }
  return {};
}

std::string CommandReaderOfInput(const std::vector<ShWord>& words) {
  if (words.empty()) return {};
  const std::size_t run = CommandAfterRunners(words, 0);
  if (run >= words.size()) return {};
  const std::string_view name = ProgramBaseName(words[run].text);
  const std::string reader = Quoted(name) + " (which reads commands from its input, some of which run code)";
  const bool no_script = OperandsAfter(words, run + 1, "").empty() || words.back().text == "-";
  if (name == "ed" || name == "ex" || name == "dc" || name == "gdb") return reader;
  if (name == "vi" || name == "vim" || name == "nvim" || name == "view") {
    return HasOptionLetter(words, run + 1, "eE") ? reader : "";
  }
  if (name == "crontab") return !HasOptionLetter(words, run + 1, "lre") && no_script ? reader : "";
  if (name == "m4" || name == "tclsh" || name == "wish" || name == "expect" || name == "gnuplot") {
    return no_script ? reader : "";
  }
  return {};
}

}  // namespace safesubst
