// SPDX-License-Identifier: Apache-2.0
// UnifiedDiff against GNU diff and patch: the same hunks where the lines are
// distinct, as few changed lines on random texts, and a diff that patch
// applies to give the new text.
#include "text_diff.h"

#include <doctest/doctest.h>

#include <cstdint>
#include <string>

#include "test_support.h"

namespace safesubst {
namespace {

using testing::ReadFile;
using testing::RunShell;
using testing::ShellQuote;
using testing::TempDir;
using testing::WriteFile;

// Numbered lines first..last, one per line.
std::string Lines(int first, int last) {
  std::string text;
  for (int i = first; i <= last; ++i) text += "line " + std::to_string(i) + "\n";
  return text;
}

// GNU diff -u of the two texts without its two header lines (they hold time stamps).
std::string GnuDiffBody(const std::string& before, const std::string& after) {
  TempDir dir;
  WriteFile(dir / "before", before);
  WriteFile(dir / "after", after);
  const testing::CommandResult run =
      RunShell("cd " + ShellQuote(dir.path().string()) + " && diff -u before after | tail -n +3");
  return run.out;
}

std::string WithoutHeaders(const std::string& diff) {
  std::size_t second_newline = diff.find('\n', diff.find('\n') + 1);
  return diff.substr(second_newline + 1);
}

TEST_CASE("text diff: equal texts have no diff") {
  CHECK(UnifiedDiff("", "", "a", "b").empty());
  CHECK(UnifiedDiff("x\ny\n", "x\ny\n", "a", "b").empty());
}

TEST_CASE("text diff: one changed line, with headers and three lines of context") {
  CHECK(UnifiedDiff(Lines(1, 9), Lines(1, 4) + "five\n" + Lines(6, 9), "out.yaml", "out.yaml") ==
        "--- out.yaml\n+++ out.yaml\n@@ -2,7 +2,7 @@\n line 2\n line 3\n line 4\n-line 5\n+five\n line 6\n"
        " line 7\n line 8\n");
}

TEST_CASE("text diff: a new file and an emptied one") {
  CHECK(UnifiedDiff("", "a\nb\n", "/dev/null", "new.yaml") == "--- /dev/null\n+++ new.yaml\n@@ -0,0 +1,2 @@\n+a\n+b\n");
  CHECK(UnifiedDiff("a\n", "", "old", "old") == "--- old\n+++ old\n@@ -1 +0,0 @@\n-a\n");
}

TEST_CASE("text diff: a last line without a newline is marked as diff marks it") {
  CHECK(UnifiedDiff("a\nb", "a\nb\n", "f", "f") ==
        "--- f\n+++ f\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n");
  CHECK(WithoutHeaders(UnifiedDiff("x\ny", "x\nz", "f", "f")) == GnuDiffBody("x\ny", "x\nz"));
}

TEST_CASE("text diff: hunks are joined and split where GNU diff joins and splits them") {
  REQUIRE(testing::HaveProgram("diff"));
  const std::string before = Lines(1, 40);
  for (int gap = 4; gap <= 9; ++gap) {  // 6 unchanged lines between two changes join them, 7 do not
    CAPTURE(gap);
    const int second = 10 + gap + 1;
    const std::string after = Lines(1, 9) + "changed\n" + Lines(11, second - 1) + "changed too\n" + Lines(second + 1, 40);
    CHECK(WithoutHeaders(UnifiedDiff(before, after, "a", "b")) == GnuDiffBody(before, after));
  }
  const std::string inserted = Lines(1, 2) + "new\n" + Lines(3, 38) + "appended\n";
  CHECK(WithoutHeaders(UnifiedDiff(before, inserted, "a", "b")) == GnuDiffBody(before, inserted));
  CHECK(WithoutHeaders(UnifiedDiff(before, Lines(5, 36), "a", "b")) == GnuDiffBody(before, Lines(5, 36)));
}

// A text of `count` lines drawn from a few, so that many alignments exist.
std::string RandomText(std::uint32_t* state, int count) {
  std::string text;
  for (int i = 0; i < count; ++i) {
    *state = *state * 1664525u + 1013904223u;
    text += "v" + std::to_string((*state >> 16) % 5) + "\n";
  }
  if (!text.empty() && (*state >> 8) % 4 == 0) text.pop_back();  // sometimes no final newline
  return text;
}

int ChangedLines(const std::string& diff) {
  int changed = 0;
  for (std::size_t at = 0; at < diff.size(); at = diff.find('\n', at) + 1) {
    if ((diff[at] == '-' || diff[at] == '+') && diff.compare(at, 4, "--- ") != 0 && diff.compare(at, 4, "+++ ") != 0) {
      ++changed;
    }
    if (diff.find('\n', at) == std::string::npos) break;
  }
  return changed;
}

TEST_CASE("text diff: on random texts, as few changes as GNU diff, and patch applies the diff") {
  REQUIRE(testing::HaveProgram("diff"));
  REQUIRE(testing::HaveProgram("patch"));
  std::uint32_t state = 27;
  for (int round = 0; round < 60; ++round) {
    const std::string before = RandomText(&state, round % 23);
    const std::string after = RandomText(&state, (round * 7) % 29);
    CAPTURE(before);
    CAPTURE(after);
    const std::string ours = UnifiedDiff(before, after, "before", "before");
    CHECK(ChangedLines(ours) == ChangedLines(GnuDiffBody(before, after)));
    TempDir dir;
    WriteFile(dir / "before", before);
    WriteFile(dir / "ours.diff", ours);
    const testing::CommandResult applied =
        RunShell("cd " + ShellQuote(dir.path().string()) + " && patch -s -o patched before ours.diff");
    CHECK(applied.code == 0);
    CHECK(ReadFile(dir / "patched") == after);
  }
}

TEST_CASE("text diff: long texts with few changes stay fast and exact") {
  std::string before, after;
  for (int i = 0; i < 50000; ++i) {
    before += "item " + std::to_string(i) + "\n";
    after += i % 10000 == 5 ? "edited\n" : "item " + std::to_string(i) + "\n";
  }
  const std::string diff = UnifiedDiff(before, after, "a", "b");
  CHECK(ChangedLines(diff) == 10);
  CHECK(diff.find("@@ -3,7 +3,7 @@\n") != std::string::npos);
}

}  // namespace
}  // namespace safesubst
