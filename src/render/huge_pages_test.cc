// SPDX-License-Identifier: Apache-2.0
// Advice on huge pages never changes what a buffer holds.
#include "huge_pages.h"

#include <doctest/doctest.h>

#include <string>

namespace safesubst {
namespace {

TEST_CASE("huge pages: a buffer too small for one huge page is left alone") {
  std::string small(4096, 'x');
  CHECK_FALSE(AdviseHugePages(small.data(), small.size()));
  CHECK(small == std::string(4096, 'x'));
}

TEST_CASE("huge pages: an advised buffer keeps its bytes and takes new ones") {
  std::string text = "already written";
  text.reserve(8u << 20);
  AdviseHugePages(text.data(), text.capacity());  // may be refused (no THP): the bytes are the point
  CHECK(text == "already written");
  text.append(6u << 20, 'y');
  CHECK(text.size() == 15 + (6u << 20));
  CHECK(text.compare(0, 15, "already written") == 0);
  CHECK(text.back() == 'y');
}

TEST_CASE("huge pages: a huge-page capacity fills whole 2 MB pages with malloc's header") {
  constexpr std::size_t kHugePage = std::size_t{2} << 20;
  for (std::size_t bytes : {std::size_t{1}, kHugePage - 64, kHugePage, std::size_t{37'000'000}, std::size_t{100} << 20}) {
    const std::size_t capacity = HugePageCapacity(bytes);
    CAPTURE(bytes);
    CHECK(capacity >= bytes);
    CHECK(capacity < bytes + kHugePage);  // never a whole huge page more than asked
    CHECK((capacity + 64) % kHugePage == 0);
  }
}

TEST_CASE("huge pages: a string of huge-page capacity is advised and keeps its bytes") {
  std::string text = "head";
  text.reserve(HugePageCapacity(5u << 20));
  AdviseHugePages(text.data(), text.capacity());
  text.append(5u << 20, 'z');
  CHECK(text.compare(0, 4, "head") == 0);
  CHECK(text.size() == 4 + (5u << 20));
}

}  // namespace
}  // namespace safesubst
