// SPDX-License-Identifier: Apache-2.0
#include "interrupt_cleanup.h"

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <mutex>

namespace safesubst::detail {

// The handler may run on any thread at any moment, so the list is one a
// signal handler can walk without a lock: entries are only ever pushed at the
// head, and never freed or changed once pushed, but for their `live` flag. A
// process writes a few outputs, so the entries it keeps cost nothing.
struct CleanupEntry {
  const std::string path;
  std::atomic<bool> live{true};
  CleanupEntry* next = nullptr;
};

namespace {

std::atomic<CleanupEntry*> entries{nullptr};

constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP};

void RemoveFilesOnSignal(int signal_number) {
  const int saved_errno = errno;
  for (auto* entry = entries.load(std::memory_order_acquire); entry != nullptr; entry = entry->next) {
    if (entry->live.load(std::memory_order_acquire)) ::unlink(entry->path.c_str());
  }
  errno = saved_errno;
  // Blocked while the handler runs: delivered, with the default action, when it returns.
  ::raise(signal_number);
}

void InstallHandlers() {
  for (int signal_number : kSignals) {
    struct sigaction current{};
    if (::sigaction(signal_number, nullptr, &current) != 0 || current.sa_handler == SIG_IGN) continue;
    struct sigaction action{};
    action.sa_handler = RemoveFilesOnSignal;
    sigemptyset(&action.sa_mask);
    for (int other : kSignals) sigaddset(&action.sa_mask, other);  // one cleanup at a time
    action.sa_flags = SA_RESETHAND;  // the re-raised signal takes its default action
    ::sigaction(signal_number, &action, nullptr);
  }
}

}  // namespace

RemovedOnInterrupt::RemovedOnInterrupt(const std::string& path) : entry_(new CleanupEntry{path}) {
  static std::once_flag installed;
  std::call_once(installed, InstallHandlers);
  entry_->next = entries.load(std::memory_order_relaxed);
  while (!entries.compare_exchange_weak(entry_->next, entry_, std::memory_order_release, std::memory_order_relaxed)) {
  }
}

void RemovedOnInterrupt::Release() { entry_->live.store(false, std::memory_order_release); }

}  // namespace safesubst::detail
