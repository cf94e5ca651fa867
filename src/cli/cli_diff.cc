// SPDX-License-Identifier: Apache-2.0
// `safesubst render --diff`: what rendering would change in its targets.
#include <sys/stat.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>

#include "cli.h"
#include "redacted_diff.h"

namespace safesubst::cli {

namespace {

// The current text of `path`: false (with a message) when it cannot be
// read; an absent file is an empty one, named /dev/null in the diff, as
// `git diff` names a file that is created.
bool ReadTarget(const std::string& path, std::string* text, bool* exists) {
  struct stat info{};
  if (::stat(path.c_str(), &info) != 0) {
    if (errno != ENOENT) {
      std::fprintf(stderr, "%s: error: cannot read: %s\n", path.c_str(), std::strerror(errno));
      return false;
    }
    *exists = false;
    text->clear();
    return true;
  }
  // A FIFO or a device would be read (and perhaps waited on), not compared.
  if (!S_ISREG(info.st_mode)) {
    std::fprintf(stderr, "%s: error: --diff compares regular files; this is not one\n", path.c_str());
    return false;
  }
  Diagnostics problems;
  if (!ReadInput(path, SIZE_MAX, text, &problems)) {  // a regular file, sized by fstat
    Sources sources;
    PrintDiagnostics(problems, sources, /*color=*/false);
    return false;
  }
  *exists = true;
  return true;
}

}  // namespace

int PrintTargetDiffs(const std::vector<RenderTarget>& targets, const Redactor& redactor) {
  bool changes = false, unreadable = false;
  for (const RenderTarget& target : targets) {
    std::string current;
    bool exists = false;
    if (!ReadTarget(target.path, &current, &exists)) {
      unreadable = true;
      continue;
    }
    const std::string diff = RedactedDiff(current, target.text, exists ? target.path : "/dev/null", target.path,
                                          target.sensitive_spans, redactor, target.is_template);
    if (diff.empty()) continue;
    changes = true;
    std::string error;
    if (!WriteStdout(diff, &error)) {
      std::fprintf(stderr, "<stdout>: error: cannot write: %s\n", error.c_str());
      return kExitInputError;
    }
  }
  return changes || unreadable ? kExitInputError : kExitOk;
}

}  // namespace safesubst::cli
