// SPDX-License-Identifier: Apache-2.0
#include "output_files.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <optional>

namespace safesubst::detail {

namespace fs = std::filesystem;

struct OutputBatch::Staged {
  std::string target;     // the file replaced (symlinks followed), or the path written through
  std::string temporary;  // empty when written through, or once renamed
  std::unique_ptr<RemovedOnInterrupt> cleanup;
  mode_t mode = 0;              // the target's, given to the temporary at Commit
  int descriptor = -1;          // write through this descriptor of ours, else open `target`
  std::string_view data;        // kept only to be written through
};

namespace {

// A test hook: with SAFESUBST_TEST_STOP_AT=<point>, the process stops
// (SIGSTOP) at that point of writing its outputs, so that a test can look at
// the temporaries and signal the process there (cli_output_test.cc) without
// racing it. Points: created, half-written, staged.
void StopIfTestAsks(std::string_view point) {
  static const char* const wanted = std::getenv("SAFESUBST_TEST_STOP_AT");
  if (wanted != nullptr && point == wanted) ::raise(SIGSTOP);
}

bool Fail(std::string* error, const std::string& what = "") {
  *error = what.empty() ? std::strerror(errno) : what + ": " + std::strerror(errno);
  return false;
}

std::string DirectoryOf(const std::string& path) {
  std::size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

// The file a write to `path` replaces: where its symlinks lead (a dangling
// one's target is created), as a shell's `>` writes.
std::string FollowSymlinks(const std::string& path) {
  std::error_code error;
  const fs::path existing = fs::canonical(path, error);
  if (!error) return existing.string();
  fs::path resolved = path;
  for (int hops = 0; hops < 40 && fs::is_symlink(resolved, error); ++hops) {
    const fs::path target = fs::read_symlink(resolved, error);
    if (error) break;
    resolved = target.is_absolute() ? target : resolved.parent_path() / target;
  }
  return resolved.string();
}

// N when `rest` is a whole decimal number.
std::optional<int> Number(std::string_view rest) {
  int number = -1;
  const auto [end, problem] = std::from_chars(rest.data(), rest.data() + rest.size(), number);
  if (problem != std::errc() || end != rest.data() + rest.size() || rest.empty()) return std::nullopt;
  return number;
}

// The descriptor `path` names by its spelling alone, or -1.
int DescriptorSpelledBy(std::string_view path) {
  if (path == "/dev/stdin") return 0;
  if (path == "/dev/stdout") return 1;
  if (path == "/dev/stderr") return 2;
  for (std::string_view prefix : {"/dev/fd/", "/proc/self/fd/", "/proc/thread-self/fd/"}) {
    if (path.substr(0, prefix.size()) == prefix) return Number(path.substr(prefix.size())).value_or(-1);
  }
  const std::string own = "/proc/" + std::to_string(::getpid()) + "/fd/";
  if (path.substr(0, own.size()) == own) return Number(path.substr(own.size())).value_or(-1);
  return -1;
}

// Opens a FIFO or a device and writes `data` to it.
bool WriteThroughPath(const std::string& path, std::string_view data, std::string* error) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) return Fail(error);
  bool ok = WriteAll(fd, data, error);
  if (::close(fd) != 0 && ok) ok = Fail(error);
  return ok;
}

bool WriteThroughDescriptor(int fd, std::string_view data, std::string* error) {
  if (::fcntl(fd, F_GETFL) < 0) return Fail(error);  // not open
  if (fd == STDOUT_FILENO) std::fflush(stdout);
  return WriteAll(fd, data, error);
}

// The new file's mode: the replaced file's, else 0644 less the umask.
mode_t ModeFor(bool exists, const struct stat& info) {
  if (exists) return info.st_mode & 07777;
  const mode_t mask = ::umask(0);
  ::umask(mask);
  return 0644 & ~mask;
}

}  // namespace

bool WriteAll(int fd, std::string_view data, std::string* error) {
  while (!data.empty()) {
    const ssize_t written = ::write(fd, data.data(), data.size());
    if (written < 0 && errno == EINTR) continue;
    if (written < 0) return Fail(error);
    data.remove_prefix(static_cast<std::size_t>(written));
  }
  return true;
}

int OwnDescriptorNamedBy(const std::string& path) {
  fs::path current = fs::path(path).lexically_normal();
  std::error_code error;
  for (int hops = 0; hops < 40; ++hops) {
    if (const int fd = DescriptorSpelledBy(current.string()); fd >= 0) return fd;
    if (!fs::is_symlink(current, error)) return -1;
    const fs::path target = fs::read_symlink(current, error);
    if (error) return -1;
    current = (target.is_absolute() ? target : current.parent_path() / target).lexically_normal();
  }
  return -1;
}

OutputBatch::OutputBatch() = default;

OutputBatch::~OutputBatch() {
  for (Staged& staged : staged_) {
    if (staged.temporary.empty()) continue;
    ::unlink(staged.temporary.c_str());
    staged.cleanup->Release();
  }
}

bool OutputBatch::Stage(const std::string& path, std::string_view data, std::string* error) {
  Staged staged;
  staged.data = data;
  staged.descriptor = OwnDescriptorNamedBy(path);
  struct stat info{};
  const bool exists = ::stat(path.c_str(), &info) == 0;
  if (staged.descriptor < 0 && exists && S_ISDIR(info.st_mode)) {
    *error = "is a directory";
    return false;
  }
  if (staged.descriptor >= 0 || (exists && !S_ISREG(info.st_mode))) {
    staged.target = path;
    staged_.push_back(std::move(staged));
    return true;
  }
  staged.target = FollowSymlinks(path);
  staged.mode = ModeFor(exists, info);
  staged.temporary = DirectoryOf(staged.target) + "/.safesubst-XXXXXX";
  const int fd = ::mkstemp(staged.temporary.data());  // mode 0600 until Commit
  if (fd < 0) return Fail(error, "cannot create a temporary file in " + DirectoryOf(staged.target));
  staged.cleanup = std::make_unique<RemovedOnInterrupt>(staged.temporary);
  staged_.push_back(std::move(staged));  // from here on, ~OutputBatch removes it
  StopIfTestAsks("created");
  // In two halves only so that the test hook can stop in the middle.
  bool ok = WriteAll(fd, data.substr(0, data.size() / 2), error);
  StopIfTestAsks("half-written");
  ok = ok && WriteAll(fd, data.substr(data.size() / 2), error);
  if (ok && ::fsync(fd) != 0) ok = Fail(error);
  if (::close(fd) != 0 && ok) ok = Fail(error);
  return ok;
}

bool OutputBatch::Commit(std::string* error) {
  StopIfTestAsks("staged");
  std::string replaced;  // the targets replaced so far, for the message of a failure
  auto fail = [&] {
    if (!replaced.empty()) *error += " (already replaced:" + replaced + ")";
    return false;
  };
  for (Staged& staged : staged_) {
    if (staged.temporary.empty()) continue;
    if (::chmod(staged.temporary.c_str(), staged.mode) != 0 ||
        ::rename(staged.temporary.c_str(), staged.target.c_str()) != 0) {
      Fail(error, "cannot replace " + staged.target);
      return fail();
    }
    staged.temporary.clear();
    staged.cleanup->Release();
    replaced += " " + staged.target;
  }
  for (const Staged& staged : staged_) {
    if (!staged.cleanup) {
      const bool ok = staged.descriptor >= 0 ? WriteThroughDescriptor(staged.descriptor, staged.data, error)
                                             : WriteThroughPath(staged.target, staged.data, error);
      if (!ok) return fail();
    }
  }
  return true;
}

}  // namespace safesubst::detail
