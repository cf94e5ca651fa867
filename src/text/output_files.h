// SPDX-License-Identifier: Apache-2.0
// Writing outputs: a batch of files written all or none, each through a
// temporary file beside it and a rename, or straight through when the path is
// not a regular file (a FIFO, a terminal, /dev/stdout).
#pragma once

#include <sys/types.h>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "interrupt_cleanup.h"

namespace safesubst::detail {

/// Outputs that replace their files together. Stage writes each one's data
/// to a temporary file in its target's directory: created readable by the
/// owner only (the output may hold secrets), synced, and removed if SIGINT,
/// SIGTERM or SIGHUP ends the process. Commit then gives each temporary its
/// target's mode and renames it over the target, so that a reader sees the
/// old file or the whole new one. Destroying a batch that was not committed
/// removes its temporaries: a failure while staging changes no target.
///
/// A symlink is followed (its target is replaced, not the link). A path that
/// is not a regular file is written through at Commit instead of replaced:
/// a FIFO or a device is opened and written; a name of one of this process's
/// own descriptors (/dev/stdout, /dev/fd/N, /proc/self/fd/N, or a symlink to
/// one) is written to that descriptor, at its offset and with its O_APPEND,
/// as `cat > /dev/stdout` does inside `{ ...; } >> log`.
class OutputBatch {
 public:
  OutputBatch();
  ~OutputBatch();
  OutputBatch(const OutputBatch&) = delete;
  OutputBatch& operator=(const OutputBatch&) = delete;

  /// Stages `data` (which must outlive Commit) for `path`. False, with
  /// `error`, when the temporary cannot be made or written.
  bool Stage(const std::string& path, std::string_view data, std::string* error);

  /// Replaces every target. False, with `error`, when a rename or a write
  /// through fails; `error` then also names the targets already replaced
  /// (a rename in a directory where a temporary was just made rarely fails).
  bool Commit(std::string* error);

 private:
  struct Staged;
  std::vector<Staged> staged_;
};

/// Writes all of `data` to `fd`, again after EINTR; false with `error` (strerror) on a failed write.
bool WriteAll(int fd, std::string_view data, std::string* error);

/// The descriptor of this process that `path` names, through symlinks:
/// 0, 1 or 2 for /dev/stdin, /dev/stdout and /dev/stderr; N for /dev/fd/N,
/// /proc/self/fd/N, /proc/thread-self/fd/N and /proc/PID/fd/N with this
/// process's PID; -1 for any other path.
int OwnDescriptorNamedBy(const std::string& path);

}  // namespace safesubst::detail
