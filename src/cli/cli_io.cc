// SPDX-License-Identifier: Apache-2.0
// Files, streams and terminal details of the CLI.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <utility>

#include "bounded_read.h"
#include "cli.h"
#include "output_files.h"

namespace safesubst::cli {

namespace {

// The name diagnostics give `path`.
std::string DisplayName(const std::string& path) { return path == "-" ? "<stdin>" : path; }

}  // namespace

bool Sources::Read(const std::string& path, std::size_t limit, std::string* text, Diagnostics* out) {
  if (!ReadInput(path, limit, text, out)) return false;
  Remember(DisplayName(path), *text);
  return true;
}

namespace {

// Opens a template; -1, with an error diagnostic, when it cannot be opened
// or is a directory. `info` is the file's fstat.
int OpenFile(const std::string& path, struct stat* info, Diagnostics* out) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    out->push_back(MakeError(Location{path}, std::string("cannot open: ") + std::strerror(errno)));
    return -1;
  }
  if (::fstat(fd, info) != 0) info->st_mode = 0;
  if (S_ISDIR(info->st_mode)) {
    ::close(fd);
    out->push_back(MakeError(Location{path}, "is a directory, not a file"));
    return -1;
  }
  return fd;
}

// Reads all of `fd`, up to `limit` bytes, then closes it when `close` (not standard input).
bool ReadAll(int fd, std::size_t limit, bool close, const std::string& path, std::string* text, Diagnostics* out) {
  const detail::BoundedRead read = detail::ReadBounded(fd, limit, text);
  if (close) ::close(fd);
  switch (read.status) {
    case detail::BoundedRead::Status::kOk: return true;
    case detail::BoundedRead::Status::kOverLimit:
      out->push_back(MakeError(Location{DisplayName(path)}, "input is " + detail::OverLimit(read.size, limit),
                               "raise it with --max-input-size"));
      return false;
    case detail::BoundedRead::Status::kError:
      out->push_back(MakeError(Location{DisplayName(path)}, std::string("read error: ") + std::strerror(read.error)));
      return false;
  }
  return false;
}

}  // namespace

bool ReadInput(const std::string& path, std::size_t limit, std::string* text, Diagnostics* out) {
  if (path == "-") return ReadAll(STDIN_FILENO, limit, /*close=*/false, path, text, out);
  struct stat info{};
  const int fd = OpenFile(path, &info, out);
  return fd >= 0 && ReadAll(fd, limit, /*close=*/true, path, text, out);
}

namespace {

// Below this a read costs less than setting up and tearing down a mapping.
constexpr std::size_t kMapThreshold = std::size_t{4} << 20;

// Mapped files kept open for InputText::Copy, at most.
constexpr int kMaxOpenMappedFiles = 64;
std::atomic<int> open_mapped_files{0};

}  // namespace

InputText& InputText::operator=(InputText&& other) noexcept {
  if (this == &other) return *this;
  Unmap();
  owned_ = std::move(other.owned_);
  mapped_ = std::exchange(other.mapped_, nullptr);
  mapped_size_ = std::exchange(other.mapped_size_, 0);
  descriptor_ = std::exchange(other.descriptor_, -1);
  return *this;
}

void InputText::Unmap() {
  if (mapped_ != nullptr) ::munmap(const_cast<char*>(mapped_), mapped_size_);
  mapped_ = nullptr;
  mapped_size_ = 0;
  if (descriptor_ >= 0) {
    ::close(descriptor_);
    --open_mapped_files;
  }
  descriptor_ = -1;
}

detail::CopyText InputText::Copy() const {
  if (descriptor_ < 0) return {};
  return [fd = descriptor_](std::size_t offset, char* into, std::size_t size) {
    while (size > 0) {
      const ssize_t got = ::pread(fd, into, size, static_cast<off_t>(offset));
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0) return false;  // an error, or the file is shorter than it was
      into += got;
      offset += static_cast<std::size_t>(got);
      size -= static_cast<std::size_t>(got);
    }
    return true;
  };
}

bool InputText::Read(const std::string& path, std::size_t limit, Diagnostics* out) {
  Unmap();
  owned_.clear();
  if (path == "-") return ReadInput(path, limit, &owned_, out);
  struct stat info{};
  const int fd = OpenFile(path, &info, out);
  if (fd < 0) return false;
  const auto size = static_cast<std::size_t>(info.st_size);
  if (S_ISREG(info.st_mode) && size >= kMapThreshold && size <= limit) {
    void* map = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (map != MAP_FAILED) {
      mapped_ = static_cast<const char*>(map);
      mapped_size_ = size;
      if (++open_mapped_files <= kMaxOpenMappedFiles) {
        descriptor_ = fd;
      } else {
        --open_mapped_files;
        ::close(fd);
      }
      return true;
    }
  }
  return ReadAll(fd, limit, /*close=*/true, path, &owned_, out);
}

void Sources::Remember(const std::string& name, std::string text) {
  texts_.insert_or_assign(name, SourceText(std::move(text)));
}

const SourceText& Sources::Get(const std::string& name) {
  auto found = texts_.find(name);
  if (found != texts_.end()) return found->second;
  // Only a regular file is read again: a FIFO would wait for another writer.
  std::string text;
  struct stat info{};
  if (::stat(name.c_str(), &info) == 0 && S_ISREG(info.st_mode)) {
    detail::ReadFileBounded(name, Limits{}.max_input_bytes, "", &text);
  }
  return texts_.emplace(name, SourceText(std::move(text))).first->second;
}

void PrintDiagnostics(const Diagnostics& diagnostics, Sources& sources, bool color) {
  for (const Diagnostic& diagnostic : diagnostics) {
    static const SourceText kNoSource;
    const SourceText& source = diagnostic.location.line > 0 ? sources.Get(diagnostic.location.file) : kNoSource;
    std::string text = FormatDiagnostic(diagnostic, source, color, sources.redactor());
    std::fwrite(text.data(), 1, text.size(), stderr);
  }
}

bool UseColor(std::string_view mode, int descriptor) {
  if (mode == "always") return true;
  if (mode == "never") return false;
  const char* no_color = std::getenv("NO_COLOR");
  if (no_color != nullptr && *no_color != '\0') return false;
  const char* term = std::getenv("TERM");
  if (term != nullptr && std::string_view(term) == "dumb") return false;
  return ::isatty(descriptor) != 0;
}

bool WriteFileAtomically(const std::string& path, std::string_view data, std::string* error) {
  detail::OutputBatch batch;
  return batch.Stage(path, data, error) && batch.Commit(error);
}

bool WriteStdout(std::string_view data, std::string* error) {
  std::fflush(stdout);
  return detail::WriteAll(STDOUT_FILENO, data, error);
}

}  // namespace safesubst::cli
