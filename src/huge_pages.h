// Large buffers backed by huge pages where the system offers them.
#ifndef SAFESUBST_HUGE_PAGES_H_
#define SAFESUBST_HUGE_PAGES_H_

#include <cstddef>

namespace safesubst {

/// Asks the kernel to back the whole 2 MB pages inside [data, data + size)
/// with transparent huge pages (Linux, when THP is "madvise" or "always"),
/// and returns whether it agreed. Call it on fresh, untouched memory:
/// writing a 24 MB output otherwise costs about 6,000 page faults of 4 KB,
/// each several microseconds on a virtual machine, on the one thread that
/// merges the pieces. A hint only: on other systems nothing changes.
bool AdviseHugePages(void* data, std::size_t size);

}  // namespace safesubst

#endif  // SAFESUBST_HUGE_PAGES_H_
