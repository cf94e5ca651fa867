// SPDX-License-Identifier: Apache-2.0
// Duplicate mapping keys, found in the tokenizer's keys: YAML forbids them,
// and yaml-cpp silently keeps one, so a render could drop a value.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "safesubst/diagnostic.h"
#include "tokenizer.h"

namespace safesubst {

/// A scalar mapping key as the readers of a deploy chain tell keys apart:
/// the one rule of both duplicate-key checks (CheckDuplicateKeys for
/// templates, CheckUniqueKeys in yaml_tree.h for values, fragments and
/// `type: yaml` values). Two keys of one mapping are one key when some
/// reader reads them as one:
///  * the same text, however quoted (`a`, `"a"`, `'a'`, `"\x61"`, and `1`
///    with `"1"`): go-yaml v3 refuses keys of equal text whatever their
///    type, and yaml-cpp finds a key by its text;
///  * the same value once a plain key is resolved as YAML 1.1 resolves it
///    (`1`, `0x1`, `01`, `+1`, `1.0`; `true`, `True`, `yes`, `on`, `y`; `~`,
///    `null`): PyYAML and go-yaml v2 compare values, and Kubernetes
///    (sigs.k8s.io/yaml on go-yaml v2) names each key by its value in JSON
///    ("1", "true", "null"), where it meets a quoted "1" or "true".
/// Python's `1 == True` (PyYAML alone merges `1` and `true`) is left apart,
/// as are sexagesimal numbers and timestamps, compared as text.
struct KeyIdentity {
  std::string_view text;  ///< the key's value as written, decoded
  std::optional<std::string> resolved;  ///< a plain null, bool or number: its value's JSON name
  std::string_view name() const { return resolved ? std::string_view(*resolved) : text; }
};

/// `text` (decoded) as a key; `plain`: a plain scalar, whose value is resolved.
KeyIdentity IdentifyKey(std::string_view text, bool plain);

/// A key of some mapping, for FindRepeatedKeys: `group` tells mappings apart.
struct GroupedKey {
  std::uint32_t group = 0;
  KeyIdentity key;
};

/// Each key that is one key (KeyIdentity) with an earlier key of its group,
/// as (its index, the earliest such key's index), by the first; n log n.
std::vector<std::pair<std::uint32_t, std::uint32_t>> FindRepeatedKeys(const std::vector<GroupedKey>& keys);

/// Reports a key that appears twice in the same mapping (KeyIdentity): YAML
/// forbids it and readers keep one of them, so a render could drop a value.
/// An alias of a scalar is that scalar's key. Collections as keys are not
/// compared.
Diagnostics CheckDuplicateKeys(std::string_view text, const Tokens& tokens, const std::string& file);

/// The keys of a stream read one at a time (detail::TokenizeAsRead, whose
/// path segments are reused), each kept as 8 bytes: a hash of its value and
/// of its mapping's path (the keys and indexes from the document's root),
/// which a mapping of the same document shares only with a repeat of a key
/// above it. A repeated hash may be a collision: CheckDuplicateKeys decides.
class KeyRepeats {
 public:
  /// False when `key` (a key scalar of `tokens`) may repeat an earlier key
  /// of its mapping; always for a plain key that resolves to a value (`1`,
  /// `true`), which other texts name too (CheckDuplicateKeys decides).
  bool New(const Tokens& tokens, const Scalar& key);

 private:
  void Grow();

  std::uint32_t document_ = 0;
  std::vector<std::uint64_t> slots_ = std::vector<std::uint64_t>(16);  // open addressing; 0: empty
  std::size_t used_ = 0;
};

}  // namespace safesubst
