// SPDX-License-Identifier: Apache-2.0
// Duplicate mapping keys, found in the tokenizer's keys: YAML forbids them,
// and yaml-cpp silently keeps one, so a render could drop a value.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "safesubst/diagnostic.h"
#include "tokenizer.h"

namespace safesubst {

/// Reports a key that appears twice in the same mapping: YAML forbids it and
/// yaml-cpp silently keeps one of them, so a render could drop a value. Keys
/// are compared by value, as YAML readers compare them: `a`, `"a"`, `'a'`,
/// `"\x61"` and an alias of a scalar `a` are one key; a plain `1` and a
/// quoted `"1"` are two (a number and a string). Collections as keys are
/// not compared.
Diagnostics CheckDuplicateKeys(std::string_view text, const Tokens& tokens, const std::string& file);

/// The keys of a stream read one at a time (detail::TokenizeAsRead, whose
/// path segments are reused), each kept as 8 bytes: a hash of its value and
/// of its mapping's path (the keys and indexes from the document's root),
/// which a mapping of the same document shares only with a repeat of a key
/// above it. A repeated hash may be a collision: CheckDuplicateKeys decides.
class KeyRepeats {
 public:
  /// False when `key` (a key scalar of `tokens`) may repeat an earlier key
  /// of its mapping.
  bool New(const Tokens& tokens, const Scalar& key);

 private:
  void Grow();

  std::uint32_t document_ = 0;
  std::vector<std::uint64_t> slots_ = std::vector<std::uint64_t>(16);  // open addressing; 0: empty
  std::size_t used_ = 0;
};

}  // namespace safesubst
