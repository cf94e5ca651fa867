// SPDX-License-Identifier: Apache-2.0
// Files the process removes when SIGINT, SIGTERM or SIGHUP ends it: a
// cancelled CI job or `timeout` must not leave a half-written output, which
// may hold a secret, in the output directory.
#pragma once

#include <string>

namespace safesubst::detail {

struct CleanupEntry;

/// A file to remove if the process is interrupted, from construction until
/// Release or destruction. The first one installs the handlers of SIGINT,
/// SIGTERM and SIGHUP (a signal the process ignores stays ignored); the
/// handler only calls unlink(2) and re-raises the signal, both
/// async-signal-safe, so the process still ends as the signal says.
class RemovedOnInterrupt {
 public:
  explicit RemovedOnInterrupt(const std::string& path);
  ~RemovedOnInterrupt() { Release(); }
  RemovedOnInterrupt(const RemovedOnInterrupt&) = delete;
  RemovedOnInterrupt& operator=(const RemovedOnInterrupt&) = delete;

  /// The file is no longer ours to remove (renamed, or already removed).
  void Release();

 private:
  CleanupEntry* entry_;  // never freed: see interrupt_cleanup.cc
};

}  // namespace safesubst::detail
