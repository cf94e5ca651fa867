// SPDX-License-Identifier: Apache-2.0
#include "redacted_diff.h"

#include <doctest/doctest.h>

namespace safesubst {
namespace {

TEST_CASE("RedactedDiff masks the new text by its spans, the old one by what they hold and what replaced it") {
  const std::string after = "a: 1\npw: \"x\\\"y\"\nblock: |\n  one\n  two\nz: 2\n";
  const std::size_t quoted = after.find("x\\\"y"), two = after.find("two");
  const std::vector<TextRange> spans{{quoted, quoted + 4}, {after.find("one"), two + 3}};
  const Redactor none;

  const std::string created = RedactedDiff("", after, "/dev/null", "f", spans, none);
  CHECK(created == "--- /dev/null\n+++ f\n@@ -0,0 +1,6 @@\n+a: 1\n+pw: \"***\"\n+block: |\n+  ***\n+  ***\n+z: 2\n");

  // The same secret in the file, and an older one replaced by the new one.
  const std::string before = "a: 0\npw: \"old\\\\secret\"\nblock: |\n  one\n  two\nz: 2\n";
  const std::string changed = RedactedDiff(before, after, "f", "f", spans, none);
  CHECK(changed ==
        "--- f\n+++ f\n@@ -1,5 +1,5 @@\n-a: 0\n-pw: \"***\"\n+a: 1\n+pw: \"***\"\n block: |\n   ***\n   ***\n");
  CHECK(changed.find("old") == std::string::npos);

  // A removed line that shows the written secret is masked wherever it stands.
  const std::string moved = RedactedDiff("pw: \"x\\\"y\"\n", after, "f", "f", spans, none);
  CHECK(moved.find("x\\\"y") == std::string::npos);

  // What the redactor masks (the value as given) is masked on every line.
  Redactor given;
  given.AddSecret("hunter2");
  CHECK(RedactedDiff("k: hunter2\n", "k: v\n", "f", "f", {}, given) == "--- f\n+++ f\n@@ -1 +1 @@\n-k: ***\n+k: v\n");
}

}  // namespace
}  // namespace safesubst
