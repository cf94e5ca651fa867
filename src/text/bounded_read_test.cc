// SPDX-License-Identifier: Apache-2.0
// Bounded reads: a stream is read no further than its limit and one byte,
// a regular file over the limit is not read at all, and the command refuses
// an endless template, manifest or values file with a located error.
#include "bounded_read.h"

#include <doctest/doctest.h>
#include <fcntl.h>
#include <unistd.h>

#include <string>
#include <thread>

#include "test_support.h"

namespace safesubst::detail {
namespace {

using testing::CommandResult;
using testing::RunShell;
using testing::Safesubst;
using testing::ShellQuote;
using testing::TempDir;
using testing::WriteFile;

// Writes `total` bytes into a pipe on another thread while `read` reads its
// other end; returns how many bytes were left unread after `read`.
template <typename Read>
std::size_t UnreadAfter(std::size_t total, Read read) {
  int ends[2];
  REQUIRE(::pipe(ends) == 0);
  std::thread writer([&] {
    const std::string chunk(4096, 'x');
    for (std::size_t left = total; left > 0;) {
      const ssize_t written = ::write(ends[1], chunk.data(), std::min(left, chunk.size()));
      if (written <= 0) break;
      left -= static_cast<std::size_t>(written);
    }
    ::close(ends[1]);
  });
  read(ends[0]);
  std::size_t unread = 0;
  char buffer[65536];
  for (ssize_t got; (got = ::read(ends[0], buffer, sizeof buffer)) > 0;) unread += static_cast<std::size_t>(got);
  writer.join();
  ::close(ends[0]);
  return unread;
}

TEST_CASE("bounded read: a stream is read up to its limit and one byte, no further") {
  std::string text;
  BoundedRead result;
  const std::size_t unread = UnreadAfter(1 << 20, [&](int fd) { result = ReadBounded(fd, 1000, &text); });
  CHECK(result.status == BoundedRead::Status::kOverLimit);
  CHECK(result.size == 0);
  CHECK(text.empty());
  CHECK(unread == (1 << 20) - 1001);

  // At the limit exactly: all of it.
  CHECK(UnreadAfter(1000, [&](int fd) { result = ReadBounded(fd, 1000, &text); }) == 0);
  CHECK(result.status == BoundedRead::Status::kOk);
  CHECK(text == std::string(1000, 'x'));
}

TEST_CASE("bounded read: a regular file over the limit is refused with its size, one within is read whole") {
  TempDir dir;
  WriteFile(dir / "f", std::string(3000, 'y'));
  std::string text;
  CHECK(ReadFileBounded((dir / "f").string(), 2999, "--max-x", &text) ==
        "is 3000 bytes, over the limit of 2999 bytes; raise it with --max-x");
  CHECK(ReadFileBounded((dir / "f").string(), 3000, "--max-x", &text).empty());
  CHECK(text == std::string(3000, 'y'));
  CHECK(ReadFileBounded(dir.path().string(), 3000, "--max-x", &text) == "is a directory");
  CHECK(ReadFileBounded((dir / "missing").string(), 3000, "--max-x", &text) == "No such file or directory");
  CHECK(ReadFileBounded("/dev/zero", 100, "--max-x", &text) ==
        "is over the limit of 100 bytes (read no further); raise it with --max-x");
}

TEST_CASE("bounded read: the command refuses an endless template, manifest or values file") {
  TempDir dir;
  WriteFile(dir / "m.yaml", "variables:\n  APP: {type: string}\n");
  WriteFile(dir / "t.yaml", "a: \"${APP}\"\n");
  const std::string in_dir = "cd " + ShellQuote(dir.path().string()) + " && ";
  // 1 GiB on standard input, a limit of 1000 bytes: refused after 1001 of them.
  const CommandResult stdin_run = RunShell(in_dir + "head -c 1073741824 /dev/zero | " + Safesubst() +
                                           " render -m m.yaml --set APP=x --max-input-size 1000 -o out.yaml");
  CHECK(stdin_run.code == 1);
  CHECK(stdin_run.err.find("<stdin>: error: input is over the limit of 1000 bytes (read no further)") !=
        std::string::npos);
  CHECK(stdin_run.err.find("raise it with --max-input-size") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(dir / "out.yaml"));

  const CommandResult values = RunShell(in_dir + Safesubst() + " render -m m.yaml --values /dev/zero t.yaml");
  CHECK(values.code == 1);
  CHECK(values.err.find("/dev/zero: error: cannot read values file '/dev/zero': is over the limit of 16777216 "
                        "bytes (read no further); raise it with --max-manifest-size") != std::string::npos);
  CHECK(values.out.empty());
  const CommandResult manifest =
      RunShell(in_dir + Safesubst() + " render -m /dev/zero --max-manifest-size 4096 --set APP=x t.yaml");
  CHECK(manifest.code == 1);
  CHECK(manifest.err.find("cannot read manifest '/dev/zero': is over the limit of 4096 bytes") != std::string::npos);

  // A regular file over a limit is refused with its size; raising the limit lets it through.
  WriteFile(dir / "values.env", "APP=" + std::string(5000, 'v') + "\n");
  CHECK(RunShell(in_dir + Safesubst() + " render -m m.yaml --values values.env --max-manifest-size 5000 t.yaml")
            .err.find("values.env: error: cannot read values file 'values.env': is 5005 bytes, over the limit of "
                      "5000 bytes") != std::string::npos);
  CHECK(RunShell(in_dir + Safesubst() + " render -m m.yaml --values values.env --max-manifest-size 5005 t.yaml")
            .code == 0);
  const CommandResult large_template = RunShell(in_dir + Safesubst() + " render -m m.yaml --set APP=x --max-input-size 10 t.yaml");
  CHECK(large_template.err.find("t.yaml: error: input is 12 bytes, over the limit of 10 bytes") != std::string::npos);
}

}  // namespace
}  // namespace safesubst::detail
