// SPDX-License-Identifier: Apache-2.0
// Which word of a command line is a shell script, as the render and lint
// both read it.
#include "command_line.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

namespace safesubst {
namespace {

// The script's index in `words`, or -1.
int ScriptIndex(const std::vector<std::string>& words) {
  const std::size_t index = ShellScriptOperand(
      words.size(), [&](std::size_t i) { return words[i]; }, [](std::size_t) { return true; });
  return index == std::string_view::npos ? -1 : static_cast<int>(index);
}

}  // namespace

TEST_CASE("command line: the -c operand of a shell") {
  CHECK(ScriptIndex({"/bin/sh", "-c", "echo"}) == 2);
  CHECK(ScriptIndex({"bash", "-euo", "pipefail", "-c", "echo", "arg0"}) == 4);
  CHECK(ScriptIndex({"/bin/bash", "-ec", "echo"}) == 2);
  CHECK(ScriptIndex({"sh", "-c", "-e", "echo"}) == 3);  // options after -c
  CHECK(ScriptIndex({"sh", "-c", "--", "echo"}) == 3);
  CHECK(ScriptIndex({"sh", "-c", "-", "echo"}) == 3);  // a lone `-` ends the options too (found by review)
  CHECK(ScriptIndex({"bash", "--rcfile", "-c", "-c", "echo"}) == 4);  // --rcfile takes `-c` as its file
  CHECK(ScriptIndex({"bash", "-O", "extglob", "-c", "echo"}) == 4);
  CHECK(ScriptIndex({"/bin/ksh", "-c", "x"}) == 2);
  CHECK(ScriptIndex({"/bin/sh", "-c"}) == -1);  // the script is missing
  CHECK(ScriptIndex({"/bin/sh", "start.sh"}) == -1);  // a file, not a script text
  CHECK(ScriptIndex({"/bin/sh", "start.sh", "-c"}) == -1);  // `-c` after the first operand is the script's
  CHECK(ScriptIndex({"python3", "-c", "print(1)"}) == -1);
  CHECK(ScriptIndex({"/bin/shell", "-c", "x"}) == -1);
  CHECK(ScriptIndex({}) == -1);
}

TEST_CASE("command line: after any other program, the first shell is the program") {
  CHECK(ScriptIndex({"/usr/bin/env", "A=1", "bash", "--noprofile", "-c", "x"}) == 5);
  CHECK(ScriptIndex({"busybox", "sh", "-c", "x"}) == 3);
  CHECK(ScriptIndex({"tini", "--", "sh", "-c", "x"}) == 4);
  CHECK(ScriptIndex({"su-exec", "app", "/bin/sh", "-ec", "x"}) == 4);
  CHECK(ScriptIndex({"timeout", "300", "sh", "-c", "x"}) == 4);
  CHECK(ScriptIndex({"/bin/bash", "-lc", "x"}) == 2);
  CHECK(ScriptIndex({"tini", "--", "/app/run", "-c", "x"}) == -1);  // no shell at all
  // Runners that no list named (s29 left them to the value): each runs the shell after it.
  CHECK(ScriptIndex({"flock", "/run/lock", "sh", "-c", "x"}) == 4);
  CHECK(ScriptIndex({"xargs", "-0", "sh", "-c", "x"}) == 4);
  CHECK(ScriptIndex({"nsenter", "-t", "1", "-m", "sh", "-c", "x"}) == 6);
  CHECK(ScriptIndex({"unshare", "-n", "sh", "-c", "x"}) == 4);
  CHECK(ScriptIndex({"taskset", "1", "sh", "-c", "x"}) == 4);
  CHECK(ScriptIndex({"chrt", "-f", "1", "sh", "-c", "x"}) == 5);
  CHECK(ScriptIndex({"strace", "-f", "sh", "-c", "x"}) == 4);
  CHECK(ScriptIndex({"/docker-entrypoint.sh", "sh", "-c", "x"}) == 3);  // `exec "$@"`
  CHECK(ScriptIndex({"/app/run", "sh", "-c", "x"}) == 3);
  CHECK(ScriptIndex({"/app/run", "sh", "start.sh"}) == -1);
}

TEST_CASE("command line: the -c of su, runuser, flock and script runs its operand with a shell") {
  CHECK(ScriptIndex({"su", "app", "-c", "x"}) == 3);
  CHECK(ScriptIndex({"su", "-s", "/bin/bash", "app", "-c", "x"}) == 5);
  CHECK(ScriptIndex({"/bin/su", "-l", "app", "--command", "x"}) == 4);
  CHECK(ScriptIndex({"runuser", "-u", "app", "-c", "x"}) == 4);  // util-linux: also with -u
  CHECK(ScriptIndex({"flock", "-w", "5", "/run/lock", "-c", "x"}) == 5);
  CHECK(ScriptIndex({"script", "-qc", "x", "/dev/null"}) == 2);
  CHECK(ScriptIndex({"tini", "--", "su", "app", "-c", "x"}) == 5);
  CHECK(ScriptIndex({"su", "app"}) == -1);
  // getopt_long's other spellings (attacker s30 A5): a command glued to its option is that word.
  CHECK(ScriptIndex({"su", "--command=echo x", "root"}) == 1);
  CHECK(ScriptIndex({"su", "-cecho x", "root"}) == 1);
  CHECK(ScriptIndex({"su", "-lcecho x", "root"}) == 1);
  CHECK(ScriptIndex({"su", "--comm", "x", "root"}) == 2);
  CHECK(ScriptIndex({"su", "--co=x", "root"}) == 1);
  CHECK(ScriptIndex({"su", "--session-command", "x", "root"}) == 2);
  CHECK(ScriptIndex({"runuser", "--session-command=x", "root"}) == 1);
  CHECK(ScriptIndex({"script", "-qcx"}) == 1);
  CHECK(ScriptIndex({"su", "-s", "/bin/csh", "root"}) == -1);
  CHECK(ScriptIndex({"su", "-sc", "root"}) == -1);  // `c` is -s's argument: the shell named `c`
  CHECK(ScriptIndex({"su", "--shell=/bin/sh", "root"}) == -1);
  CHECK(ScriptIndex({"runuser", "-u", "app", "--", "/app/run", "-c", "x"}) == -1);  // after `--`: a command, no shell
}

TEST_CASE("command line: an item too long to name a program is not decoded to look for a shell") {
  const std::vector<std::string> words = {"/app/run", "a long script", "sh", "-c", "x"};
  std::vector<std::size_t> read;
  auto word = [&](std::size_t i) {
    read.push_back(i);
    return words[i];
  };
  auto may_be_option = [&](std::size_t i) { return words[i].starts_with('-'); };
  CHECK(ShellScriptOperand(words.size(), word, may_be_option, [](std::size_t i) { return i != 1; }) == 4);
  CHECK(std::find(read.begin(), read.end(), 1) == read.end());
}

TEST_CASE("command line: a word known not to be an option is not read") {
  const std::vector<std::string> words = {"sh", "-c", "echo $HOME"};
  std::vector<std::size_t> read;
  auto word = [&](std::size_t i) {
    read.push_back(i);
    return words[i];
  };
  CHECK(ShellScriptOperand(words.size(), word, [](std::size_t i) { return i != 2; }) == 2);
  CHECK(read == std::vector<std::size_t>{0, 1});
}

TEST_CASE("command line: shells, wrappers and shell options") {
  for (const char* shell : {"sh", "/bin/bash", "dash", "ash", "zsh", "ksh", "mksh", "/usr/bin/yash", "hush"}) {
    CHECK(IsShellProgram(shell));
  }
  CHECK_FALSE(IsShellProgram("python3"));
  CHECK_FALSE(IsShellProgram("/bin/shx"));
  // Restricted, static and versioned names (attacker B1, session 31): `rksh -c`, `mksh-static -c` ran the value.
  CHECK(ShellName("/usr/bin/rksh") == "ksh");
  CHECK(ShellName("rbash") == "bash");
  CHECK(ShellName("rzsh") == "zsh");
  CHECK(ShellName("mksh-static") == "mksh");
  CHECK(ShellName("/bin/bash.static") == "bash");
  CHECK(ShellName("bash5") == "bash");
  CHECK(ShellName("bash-5.2") == "bash");
  CHECK(ShellName("zsh-5.9") == "zsh");
  CHECK(ShellName("ksh93") == "ksh93");
  for (const char* other : {"rsh", "ssh", "python3", "ssh-keygen", "bash-completion", "shx5", "r", "-static", "5"}) {
    CAPTURE(other);
    CHECK(ShellName(other).empty());
  }
  CHECK(IsCommandWrapper("/sbin/tini"));
  CHECK(IsCommandWrapper("env"));
  CHECK_FALSE(IsCommandWrapper("sh"));
  CHECK(ShellOptionArguments("-euo") == 1);
  CHECK(ShellOptionArguments("-oO") == 2);
  CHECK(ShellOptionArguments("--rcfile") == 1);
  CHECK(ShellOptionArguments("--noprofile") == 0);
  CHECK(IsDashC("-c"));
  CHECK(IsDashC("-ec"));
  CHECK_FALSE(IsDashC("--c"));
  CHECK_FALSE(IsDashC("c"));
  CHECK(ProgramBaseName("/usr/bin/tee") == "tee");
  CHECK(ProgramBaseName("tee") == "tee");
}

}  // namespace safesubst

namespace safesubst {

TEST_CASE("command line: the string env -S splits into a command line") {
  auto item = [](const std::vector<std::string>& argv) {
    const std::size_t index = EnvSplitStringItem(argv);
    return index == std::string_view::npos ? -1 : static_cast<int>(index);
  };
  CHECK(item({"env", "-S", "sh -c 'x'"}) == 2);
  CHECK(item({"/usr/bin/env", "-vS", "sh -c 'x'"}) == 2);
  CHECK(item({"env", "-Ssh -c 'x'"}) == 1);
  CHECK(item({"env", "-i", "--split-string=sh -c 'x'"}) == 2);
  CHECK(item({"env", "--sp", "sh -c 'x'"}) == 2);
  CHECK(item({"tini", "--", "env", "-u", "S", "-S", "x"}) == 6);
  CHECK(item({"env", "-uS", "sh"}) == -1);  // S is the name -u unsets
  CHECK(item({"env", "A=1", "-S", "x"}) == -1);  // after NAME=VALUE, -S is the command's
  CHECK(item({"env", "sh", "-c", "x"}) == -1);
  CHECK(item({"python3", "-S", "x"}) == -1);
}

}  // namespace safesubst
