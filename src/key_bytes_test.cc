// Keys built from values and texts tell apart what their parts tell apart.
#include "key_bytes.h"

#include <doctest/doctest.h>

#include <cstdint>
#include <string>

namespace safesubst {
namespace {

std::string KeyOf(std::string_view first, std::string_view second) {
  std::string key;
  AppendKeyText(first, &key);
  AppendKeyText(second, &key);
  return key;
}

TEST_CASE("key bytes: texts keep their boundaries") {
  CHECK(KeyOf("ab", "c") != KeyOf("a", "bc"));
  CHECK(KeyOf("", "x") != KeyOf("x", ""));
  CHECK(KeyOf("ab", "c") == KeyOf("ab", "c"));
}

TEST_CASE("key bytes: values are appended whole, one key per value") {
  std::string one, two;
  AppendKeyBytes(std::uint32_t{1}, &one);
  AppendKeyBytes(std::uint32_t{256}, &two);
  CHECK(one.size() == sizeof(std::uint32_t));
  CHECK(one != two);
  int x = 0, y = 0;
  std::string at_x, at_y;
  AppendKeyBytes(&x, &at_x);
  AppendKeyBytes(&y, &at_y);
  CHECK(at_x.size() == sizeof(int*));
  CHECK(at_x != at_y);
}

}  // namespace
}  // namespace safesubst
