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

}  // namespace
}  // namespace safesubst
