// The safesubst command: a thin layer over the library (see src/cli_*.cc).
#include "cli.h"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace {

// A large render allocates and frees buffers of megabytes piece by piece.
// glibc hands each one out as a fresh mapping and unmaps it when freed, so
// every piece faults its memory in again (on a virtual machine a page fault
// costs microseconds: a tenth of a 24 MB render went to the kernel). Kept in
// the heap, freed buffers are reused by the next piece; the peak stays the
// same, and the memory returns to the system when the process exits.
void KeepLargeBuffersForReuse() {
#if defined(__GLIBC__)
  constexpr int kLarge = 1 << 30;
  mallopt(M_MMAP_THRESHOLD, kLarge);
  mallopt(M_TRIM_THRESHOLD, kLarge);
#endif
}

}  // namespace

int main(int argc, char** argv) {
  KeepLargeBuffersForReuse();
  return safesubst::cli::Main(argc, argv);
}
