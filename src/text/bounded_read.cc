// SPDX-License-Identifier: Apache-2.0
#include "bounded_read.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>

namespace safesubst::detail {

namespace {

constexpr std::size_t kFirstStreamBuffer = std::size_t{1} << 16;

}  // namespace

BoundedRead ReadBounded(int fd, std::size_t limit, std::string* text) {
  BoundedRead result;
  struct stat info{};
  const bool regular = ::fstat(fd, &info) == 0 && S_ISREG(info.st_mode);
  const auto file_size = regular ? static_cast<std::size_t>(info.st_size) : 0;
  if (regular && file_size > limit) {
    result.status = BoundedRead::Status::kOverLimit;
    result.size = file_size;
    return result;
  }
  const std::size_t most = limit == SIZE_MAX ? limit : limit + 1;  // the extra byte tells "over the limit"
  // A regular file's buffer has room for one more byte, to see the end without another read.
  const std::size_t capacity = std::min(regular && file_size > 0 ? file_size + 1 : kFirstStreamBuffer, most);
  text->clear();
  std::size_t size = 0;
  while (size < most) {
    if (size == text->size()) text->resize(std::min(std::max(capacity, text->size() * 2), most));
    const ssize_t got = ::read(fd, text->data() + size, text->size() - size);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) {
      result.status = BoundedRead::Status::kError;
      result.error = errno;
      text->clear();
      return result;
    }
    if (got == 0) break;
    size += static_cast<std::size_t>(got);
  }
  text->resize(size);
  if (size > limit) {
    result.status = BoundedRead::Status::kOverLimit;
    text->clear();
    text->shrink_to_fit();
  }
  return result;
}

std::string OverLimit(std::size_t size, std::size_t limit) {
  const std::string bound = "the limit of " + std::to_string(limit) + " bytes";
  return size > 0 ? std::to_string(size) + " bytes, over " + bound : "over " + bound + " (read no further)";
}

std::string ReadFileBounded(const std::string& path, std::size_t limit, const std::string& raise_with,
                            std::string* text) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::strerror(errno);
  struct stat info{};
  if (::fstat(fd, &info) == 0 && S_ISDIR(info.st_mode)) {
    ::close(fd);
    return "is a directory";
  }
  const BoundedRead read = ReadBounded(fd, limit, text);
  ::close(fd);
  switch (read.status) {
    case BoundedRead::Status::kOk: return {};
    case BoundedRead::Status::kOverLimit: return "is " + OverLimit(read.size, limit) + "; raise it with " + raise_with;
    case BoundedRead::Status::kError: return std::strerror(read.error);
  }
  return {};
}

}  // namespace safesubst::detail
