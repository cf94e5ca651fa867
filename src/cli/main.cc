// SPDX-License-Identifier: Apache-2.0
// The safesubst command: a thin layer over the library (see src/cli/cli_*.cc).
#include "cli.h"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace {

// A large render allocates and frees buffers of megabytes piece by piece.
// glibc hands each one out as a fresh mapping and unmaps it when freed, so
// every piece faults its memory in again (on a virtual machine a page fault
// costs microseconds: a tenth of a 24 MB render went to the kernel). Kept in
// the heap, freed buffers are reused by the next piece, and the memory returns
// to the system when the process exits. Buffers above 32 MiB (the largest
// threshold glibc accepts on 64-bit systems), such as the merged output of a
// large stream, still get a fresh mapping of their own (huge_pages.h).
void KeepLargeBuffersForReuse() {
#if defined(__GLIBC__)
  constexpr int kMmapThreshold = 32 << 20;
  constexpr int kTrimThreshold = 1 << 30;
  // Either call failing leaves glibc's defaults, which are correct, only slower.
  if (mallopt(M_MMAP_THRESHOLD, kMmapThreshold) == 1) mallopt(M_TRIM_THRESHOLD, kTrimThreshold);
#endif
}

}  // namespace

int main(int argc, char** argv) {
  KeepLargeBuffersForReuse();
  return safesubst::cli::Main(argc, argv);
}
