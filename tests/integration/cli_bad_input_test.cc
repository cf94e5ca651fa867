// SPDX-License-Identifier: Apache-2.0
// Bad input through the command: each case gets a located message, exit 1,
// and leaves the output file exactly as it was.
#include <doctest/doctest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <string>

#include "test_support.h"

using namespace safesubst::testing;

namespace {

constexpr const char* kPrevious = "previous output\n";

struct BadRun {
  CommandResult result;
  bool output_untouched;
};

// Renders tests/data/bad-input/<name> with `-o out.yaml` over an existing out.yaml.
BadRun RenderBad(const std::string& name, const std::string& extra = "") {
  TempDir dir;
  WriteFile(dir / "out.yaml", kPrevious);
  std::string input = (SourceDir() / "tests/data/bad-input" / name).string();
  CommandResult result = RunShell("cd " + ShellQuote(dir.path().string()) + " && NO_COLOR=1 " + Safesubst() +
                                  " render " + extra + " -o out.yaml " + ShellQuote(input));
  bool untouched = ReadFile(dir / "out.yaml") == kPrevious;
  // No temporary file may be left behind either.
  int entries = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir.path())) entries += entry.is_regular_file();
  return BadRun{result, untouched && entries == 1};
}

void ExpectRefused(const std::string& name, const std::string& location, const std::string& message) {
  CAPTURE(name);
  BadRun run = RenderBad(name);
  CHECK(run.result.code == 1);
  CHECK(run.output_untouched);
  CHECK(run.result.out == "");
  CHECK(run.result.err.find(location + ": error: ") != std::string::npos);
  CHECK(run.result.err.find(message) != std::string::npos);
  if (run.result.err.find(message) == std::string::npos) MESSAGE(run.result.err);
}

}  // namespace

TEST_CASE("bad input: each malformed template is refused with its location, nothing written") {
  ExpectRefused("invalid-utf8.yaml", "invalid-utf8.yaml:2:4", "invalid UTF-8 (byte 0xFF)");
  ExpectRefused("nul-byte.yaml", "nul-byte.yaml:2:5", "NUL byte");
  ExpectRefused("utf16.yaml", "utf16.yaml:1:1", "UTF-16");
  ExpectRefused("tab-indent.yaml", "tab-indent.yaml:2:1", "tab used as indentation");
  ExpectRefused("unterminated-double.yaml", "unterminated-double.yaml:1:4", "unterminated");
  ExpectRefused("unterminated-single.yaml", "unterminated-single.yaml:1:4", "unterminated");
  ExpectRefused("duplicate-key.yaml", "duplicate-key.yaml:3:1", "duplicate key 'a'");
  ExpectRefused("not-yaml.yaml", "not-yaml.yaml:1:13", "mapping values are not allowed");
  ExpectRefused("empty.yaml", "empty.yaml", "the template is empty");
  ExpectRefused("unterminated-reference.yaml", "unterminated-reference.yaml:1:7", "unterminated '${'");
  ExpectRefused("lone-cr.yaml", "lone-cr.yaml:2:7", "carriage return not followed by a line feed");
  ExpectRefused("control-char.yaml", "control-char.yaml:2:11", "control character 0x07");
  ExpectRefused("bad-tag.yaml", "bad-tag.yaml:2:12", "character '\\' is not allowed in a tag");
}

TEST_CASE("bad input: an output path that is a directory") {
  TempDir dir;
  std::filesystem::create_directory(dir / "out.yaml");
  CommandResult result = RunShell("cd " + ShellQuote(dir.path().string()) + " && echo 'a: 1' | " + Safesubst() +
                                  " render -o out.yaml");
  CHECK(result.code == 1);
  CHECK(result.err.find("out.yaml: error: cannot write: is a directory") != std::string::npos);
}

TEST_CASE("bad input: a read-only output directory leaves nothing behind") {
  TempDir dir;
  std::filesystem::create_directory(dir / "ro");
  ::chmod(dir.path().c_str(), 0755);
  ::chmod((dir / "ro").c_str(), 0555);
  // root writes anywhere, so as root the command runs as nobody (CI runs as root).
  std::string as_user = ::geteuid() == 0 ? "setpriv --reuid=65534 --regid=65534 --clear-groups " : "";
  CommandResult result = RunShell("cd " + ShellQuote(dir.path().string()) + " && echo 'a: 1' | " + as_user +
                                  Safesubst() + " render -o ro/out.yaml");
  ::chmod((dir / "ro").c_str(), 0755);
  CHECK(result.code == 1);
  CHECK(result.err.find("cannot create a temporary file in ro") != std::string::npos);
  CHECK(std::filesystem::is_empty(dir / "ro"));
}

TEST_CASE("bad input: disk full (file size limit) keeps the old output") {
  TempDir dir;
  WriteFile(dir / "out.yaml", kPrevious);
  std::string big = "a: \"" + std::string(200000, 'x') + "\"\n";
  WriteFile(dir / "big.yaml", big);
  // ulimit -f counts 512-byte blocks (dash, bash): 8 blocks = 4 KiB. SIGXFSZ is
  // ignored so that write() fails with EFBIG instead of killing the process.
  CommandResult result = RunShell("cd " + ShellQuote(dir.path().string()) + " && trap '' XFSZ && ulimit -f 8 && " +
                                  Safesubst() + " render -o out.yaml big.yaml");
  CHECK(result.code == 1);
  CHECK(result.err.find("out.yaml: error: cannot write") != std::string::npos);
  CHECK(ReadFile(dir / "out.yaml") == kPrevious);
  int entries = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir.path())) entries += entry.is_regular_file();
  CHECK(entries == 2);  // out.yaml and big.yaml; no temporary file left
}

TEST_CASE("bad input: SIGPIPE on stdout is an error exit, not a hang or a success") {
  TempDir dir;
  std::string big;
  for (int i = 0; i < 20000; ++i) big += "k" + std::to_string(i) + ": value\n";
  WriteFile(dir / "big.yaml", big);
  CommandResult result = RunShell("cd " + ShellQuote(dir.path().string()) + " && { " + Safesubst() +
                                  " render big.yaml; echo \"status=$?\" >&2; } | head -c 10 >/dev/null");
  // Killed by SIGPIPE (141 in the shell) or exiting 1 after EPIPE: never 0.
  CHECK(result.err.find("status=0") == std::string::npos);
  CHECK(result.err.find("status=") != std::string::npos);
}

// A generated file with thousands of problems on one long line: the first
// --max-errors (50) are printed, each quoting a window of the line, then a count.
TEST_CASE("bad input: many diagnostics on one long line are capped and windowed") {
  TempDir dir;
  std::string line = "k: x";
  for (int i = 0; i < 3000; ++i) line += " a${U" + std::to_string(i) + "}";
  WriteFile(dir / "t.yaml", line + "\n");
  WriteFile(dir / "m.yaml", "variables: {A: {type: string}}\n");
  CommandResult result = RunShell("cd " + ShellQuote(dir.path().string()) + " && NO_COLOR=1 " + Safesubst() +
                                  " render -m m.yaml t.yaml");
  CHECK(result.code == 1);
  CHECK(result.out.empty());
  std::size_t errors = 0;
  for (std::size_t at = result.err.find(": error: "); at != std::string::npos; at = result.err.find(": error: ", at + 1)) {
    ++errors;
  }
  CHECK(errors == 50);
  CHECK(result.err.find("t.yaml: note: 2950 more errors and 0 more warnings or notes not shown (at most 50 of each "
                        "are kept)") != std::string::npos);
  // Each quoted line is a window of at most 160 bytes plus the "..." marks.
  CHECK(result.err.size() < 50 * 600);
  // The 50th reference, about 400 bytes into the line, is quoted in its window.
  const std::string column = std::to_string(line.find("${U49}") + 1);
  const std::size_t last = result.err.find("t.yaml:1:" + column + ": error: undeclared variable 'U49'");
  REQUIRE(last != std::string::npos);
  CHECK(result.err.find("  ...", last) != std::string::npos);
  // --max-errors raises the limit; 0 shows them all.
  auto count_errors = [&](const std::string& option) {
    CommandResult run = RunShell("cd " + ShellQuote(dir.path().string()) + " && NO_COLOR=1 " + Safesubst() +
                                 " render " + option + " -m m.yaml t.yaml");
    std::size_t count = 0;
    for (std::size_t at = run.err.find(": error: "); at != std::string::npos; at = run.err.find(": error: ", at + 1)) {
      ++count;
    }
    return std::make_pair(count, run.err.find("more errors and") != std::string::npos);
  };
  CHECK(count_errors("--max-errors 120") == std::make_pair(std::size_t{120}, true));
  CHECK(count_errors("--max-errors 0") == std::make_pair(std::size_t{3000}, false));
}

TEST_CASE("bad input: explain and vars report a template they cannot read, exit 1") {
  TempDir dir;
  WriteFile(dir / "t.yaml", "a: ${A}\nx: \"unterminated\n");
  WriteFile(dir / "m.yaml", "variables: {A: {type: string}}\n");
  for (const char* command : {"explain", "vars", "vars --format json"}) {
    CAPTURE(command);
    CommandResult result = RunShell("cd " + ShellQuote(dir.path().string()) + " && NO_COLOR=1 " + Safesubst() + " " +
                                    command + " -m m.yaml t.yaml");
    CHECK(result.code == 1);
    CHECK(result.err.find("t.yaml:2:4: error: unterminated double-quoted scalar") != std::string::npos);
  }
}

TEST_CASE("bad input: lint --format json lists a file it cannot read or parse as an error") {
  TempDir dir;
  WriteFile(dir / "broken.yaml", "a: [\n");
  CommandResult result = RunShell("cd " + ShellQuote(dir.path().string()) + " && " + Safesubst() +
                                  " lint --format json broken.yaml missing.yaml");
  CHECK(result.code == 1);
  CHECK(result.out.find("{\"rule\":\"input\",\"severity\":\"error\",\"file\":\"broken.yaml\",\"line\":2") !=
        std::string::npos);
  CHECK(result.out.find("\"file\":\"missing.yaml\"") != std::string::npos);
  CHECK(result.out.find("\"errors\":2") != std::string::npos);
}
