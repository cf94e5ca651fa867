// SPDX-License-Identifier: Apache-2.0
// Keys built from values and texts tell apart what their parts tell apart.
#include "key_bytes.h"

#include <doctest/doctest.h>

#include <cstdint>
#include <set>
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

TEST_CASE("key bytes: TextHash reads every byte, at every length") {
  const TextHash hash;
  // Texts of 0 to 40 bytes, and each with one byte changed: the word loop,
  // the overlapping last word and the short tail all take part.
  std::set<std::size_t> hashes;
  std::size_t texts = 0;
  for (std::size_t size = 0; size <= 40; ++size) {
    std::string text(size, 'a');
    CHECK(hash(text) == hash(std::string(size, 'a')));  // equal texts, equal hashes
    hashes.insert(hash(text));
    ++texts;
    for (std::size_t at = 0; at < size; ++at) {
      std::string changed = text;
      changed[at] = 'b';
      hashes.insert(hash(changed));
      ++texts;
    }
  }
  CHECK(hashes.size() == texts);  // no two of these 861 texts share a hash
}

}  // namespace
}  // namespace safesubst
