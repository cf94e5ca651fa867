// SPDX-License-Identifier: Apache-2.0
// Large buffers backed by huge pages where the system offers them.
#ifndef SAFESUBST_HUGE_PAGES_H_
#define SAFESUBST_HUGE_PAGES_H_

#include <cstddef>

namespace safesubst {

/// Asks the kernel to back the whole 2 MB pages of the mapping that holds
/// [data, data + size) with transparent huge pages (Linux, when THP is
/// "madvise" or "always"), and returns whether it agreed. Call it on fresh,
/// untouched memory of a mapping of its own (a malloc block of at least
/// M_MMAP_THRESHOLD bytes): writing a 24 MB output otherwise costs about 6,000
/// page faults of 4 KB, each several microseconds on a virtual machine, on the
/// one thread that merges the pieces. A hint only: on other systems nothing
/// changes.
bool AdviseHugePages(void* data, std::size_t size);

/// A capacity of at least `bytes` for a std::string or vector<char> whose
/// malloc block is a whole number of 2 MB pages. Linux places such a mapping
/// on a 2 MB boundary, so AdviseHugePages covers all of it, the first page
/// (which holds malloc's header) included.
std::size_t HugePageCapacity(std::size_t bytes);

}  // namespace safesubst

#endif  // SAFESUBST_HUGE_PAGES_H_
