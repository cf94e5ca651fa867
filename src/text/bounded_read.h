// SPDX-License-Identifier: Apache-2.0
// Reading inputs with a bound: a stream (standard input, a FIFO, /dev/zero)
// is read no further than its limit, never to its end, so that a huge or
// endless input costs the limit in memory and time, not its own size.
#pragma once

#include <cstddef>
#include <string>

namespace safesubst::detail {

/// What a bounded read found.
struct BoundedRead {
  enum class Status { kOk, kOverLimit, kError };
  Status status = Status::kOk;
  /// kOverLimit: the size of a regular file (refused without reading it), or
  /// 0 for a stream, of which only the limit and one byte were read.
  std::size_t size = 0;
  int error = 0;  ///< kError: the errno
};

/// Reads `fd` to its end into `text`, but never more than `limit` + 1
/// bytes. A regular file is sized with fstat first: one buffer, and over
/// the limit it is refused before any read.
BoundedRead ReadBounded(int fd, std::size_t limit, std::string* text);

/// Opens `path` and reads it with ReadBounded. Returns "" on success, else
/// why not: strerror's text, "is a directory", or "is N bytes, over the
/// limit of M bytes" (or "is over..." for a stream) followed by `raise_with`,
/// the option that raises the limit.
std::string ReadFileBounded(const std::string& path, std::size_t limit, const std::string& raise_with,
                            std::string* text);

/// The text of an input over its limit: "N bytes, over the limit of M
/// bytes", or for a stream (`size` 0) "over the limit of M bytes (read no further)".
std::string OverLimit(std::size_t size, std::size_t limit);

}  // namespace safesubst::detail
