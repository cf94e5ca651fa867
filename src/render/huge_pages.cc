// SPDX-License-Identifier: Apache-2.0
#include "huge_pages.h"

#include <cstdint>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace safesubst {

namespace {

constexpr std::uintptr_t kHugePage = std::uintptr_t{2} << 20;
constexpr std::uintptr_t kPage = 4096;
// What malloc adds to a request in a mapping of its own (glibc: a 16-byte
// chunk header, the request rounded up to 16), with room to spare; the
// string's terminating zero is one more byte.
constexpr std::size_t kMallocOverhead = 64;

constexpr std::uintptr_t RoundDown(std::uintptr_t value, std::uintptr_t unit) { return value & ~(unit - 1); }
constexpr std::uintptr_t RoundUp(std::uintptr_t value, std::uintptr_t unit) { return RoundDown(value + unit - 1, unit); }

}  // namespace

bool AdviseHugePages(void* data, std::size_t size) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  // Out to whole pages (a mapping is made of whole pages, so these are still
  // the block's own mapping), then in to whole huge pages.
  const auto begin = reinterpret_cast<std::uintptr_t>(data);
  const std::uintptr_t first = RoundUp(RoundDown(begin, kPage), kHugePage);
  const std::uintptr_t last = RoundDown(RoundUp(begin + size, kPage), kHugePage);
  if (last <= first) return false;
  if (::madvise(reinterpret_cast<void*>(first), last - first, MADV_HUGEPAGE) != 0) return false;
  // malloc wrote its header before the advice, so the first huge page is
  // already a table of 4 KB pages; collapsed now, it takes no more faults.
  // Only when the block starts on that page's first 4 KB, its own header's:
  // a block inside malloc's heap shares the huge page with others.
  constexpr int kMadvCollapse = 25;  // MADV_COLLAPSE, Linux 6.1; older kernels refuse it
  if (first <= begin && begin - first < kPage) ::madvise(reinterpret_cast<void*>(first), kHugePage, kMadvCollapse);
  return true;
#else
  (void)data;
  (void)size;
  return false;
#endif
}

std::size_t HugePageCapacity(std::size_t bytes) {
  return RoundUp(bytes + kMallocOverhead, kHugePage) - kMallocOverhead;
}

}  // namespace safesubst
