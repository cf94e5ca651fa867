// SPDX-License-Identifier: Apache-2.0
#include "real_shells.h"

#include <doctest/doctest.h>

#include "test_support.h"

namespace safesubst::testing {

namespace {

// A run of a hostile value only takes this long when the encoder is broken:
// then the value may run thousands of commands.
constexpr std::string_view kTimeout = "timeout 600 ";

// Runs the /bin/sh command `command_in(i, dir)` for every shell i in a fresh
// directory `work/shellI`, all at once, and waits for them all.
std::vector<std::filesystem::path> RunInShellDirectories(
    const std::filesystem::path& work, std::size_t count,
    const std::function<std::string(std::size_t, const std::filesystem::path&)>& command_in) {
  std::string command = "true";  // each shell in the background, then wait for all
  std::vector<std::filesystem::path> dirs;
  for (std::size_t i = 0; i < count; ++i) {
    std::filesystem::path dir = work / ("shell" + std::to_string(i));
    std::filesystem::create_directories(dir);
    command += " & (cd " + ShellQuote(dir.string()) + " && " + command_in(i, dir) + ")";
    dirs.push_back(dir);
  }
  RunShell(command + "; wait");
  return dirs;
}

}  // namespace

// yash reads its script as text in the locale's encoding (UTF-8 here) and
// stops with "cannot read input" at bytes that are not valid UTF-8, a refusal
// to run rather than a misreading.
const std::vector<RealShell>& RealShells() {
  using O = OutputBuiltin;
  static const std::vector<RealShell> shells = {
      {"dash", "dash", "dash", "dash", false, false, O::kPrintf},
      {"bash", "bash", "bash", "bash", true, false, O::kPrintf},
      {"bash --posix", "bash --posix", "bash", "bash", true, false, O::kPrintf},
      {"busybox sh", "busybox sh", "busybox", "busybox", true, false, O::kPrintf},
      {"zsh --emulate sh", "zsh --emulate sh", "zsh", "zsh", true, false, O::kPrintf},
      {"mksh", "mksh", "mksh", "mksh", true, false, O::kPrint},
      {"posh", "posh", "posh", "posh", false, false, O::kEcho},
      {"yash", "env LC_ALL=C.UTF-8 yash", "yash", "yash", false, true, O::kPrintf},
  };
  return shells;
}

std::vector<RealShell> InstalledShells() {
  std::vector<RealShell> found;
  for (const RealShell& shell : RealShells()) {
    if (!HaveProgram(std::string(shell.program))) {
      FAIL_CHECK("shell not installed: " << shell.name << " (Debian package " << shell.package
                                         << ", listed in packaging/debian-test-deps.txt)");
      continue;
    }
    std::string probe = std::string(shell.command) + " -c \"printf '%s' \\$'x'\"";
    CAPTURE(shell.name);
    CHECK(RunShell(probe).out == (shell.reads_dollar_single ? "x" : "$x"));
    found.push_back(shell);
  }
  return found;
}

std::vector<std::filesystem::path> RunScriptUnderShells(
    const std::filesystem::path& work, const std::vector<RealShell>& shells,
    const std::function<std::string(const RealShell&)>& script_of) {
  return RunInShellDirectories(work, shells.size(), [&](std::size_t i, const std::filesystem::path& dir) {
    WriteFile(dir / "script.sh", script_of(shells[i]));
    return std::string(kTimeout) + std::string(shells[i].command) + " ./script.sh >stdout 2>stderr; echo $? >rc";
  });
}

std::vector<std::filesystem::path> RunEachScriptUnderShells(const std::filesystem::path& work,
                                                            const std::vector<RealShell>& shells,
                                                            const std::vector<std::string>& scripts) {
  std::filesystem::create_directories(work);
  for (std::size_t i = 0; i < scripts.size(); ++i) WriteFile(work / ("c" + std::to_string(i) + ".sh"), scripts[i]);
  // One driver per shell; each case in its own process, its canary looked for right after it.
  return RunInShellDirectories(work, shells.size(), [&](std::size_t i, const std::filesystem::path& dir) {
    WriteFile(dir / "driver.sh", "i=0\nwhile [ $i -lt " + std::to_string(scripts.size()) + " ]; do\n  " +
                                     std::string(shells[i].command) +
                                     " ../c$i.sh >out$i 2>err$i\n"
                                     "  if [ -e canary ]; then echo $i >>canaries; rm -f canary; fi\n"
                                     "  i=$((i + 1))\ndone\n");
    return std::string(kTimeout) + "sh ./driver.sh";
  });
}

}  // namespace safesubst::testing
