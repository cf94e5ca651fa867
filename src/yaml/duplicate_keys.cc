// SPDX-License-Identifier: Apache-2.0
#include "duplicate_keys.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cctype>
#include <cstdint>
#include <cstring>
#include <functional>
#include <iterator>
#include <numeric>
#include <tuple>
#include <utility>
#include <vector>

#include "yaml_encoding.h"

namespace safesubst {

namespace {

// The JSON name of the number `text` (`_` ignored): an integer as YAML 1.1
// writes it (`0x`, `0o`, `0b`, a leading `0` for octal), a float by its
// shortest form, or as an integer when integral (`1.0` is "1", as in Python
// and sigs.k8s.io/yaml); none where it does not parse (past 64 bits, a
// sexagesimal `1:30`).
std::optional<std::string> NumberName(std::string_view text, bool integer) {
  std::string digits;
  for (char c : text) {
    if (c != '_') digits += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  if (!integer && digits.ends_with(".nan")) return "NaN";
  if (!integer && digits.ends_with(".inf")) return digits.starts_with('-') ? "-Inf" : "+Inf";
  std::string_view rest = digits;
  const bool negative = rest.starts_with('-');
  if (negative || rest.starts_with('+')) rest.remove_prefix(1);
  int base = 10;
  if (integer && rest.size() > 1 && rest[0] == '0') {
    base = rest[1] == 'x' ? 16 : rest[1] == 'b' ? 2 : 8;
    rest.remove_prefix(std::string_view("xbo").find(rest[1]) == std::string_view::npos ? 1 : 2);
  }
  unsigned long long whole = 0;
  double value = 0;
  const auto [end, error] = integer ? std::from_chars(rest.data(), rest.data() + rest.size(), whole, base)
                                    : std::from_chars(rest.data(), rest.data() + rest.size(), value);
  if (error != std::errc() || end != rest.data() + rest.size()) return std::nullopt;
  if (!integer && value == std::trunc(value) && value < 1e15) whole = static_cast<unsigned long long>(value);
  if (integer || value == static_cast<double>(whole)) {
    return (negative && whole != 0 ? "-" : "") + std::to_string(whole);
  }
  char shortest[32];
  return (negative ? "-" : "") + std::string(shortest, std::to_chars(shortest, shortest + sizeof shortest, value).ptr);
}

// The string order of a key by its text, or by its name.
using KeyOrder = std::string_view (*)(const KeyIdentity&);
constexpr KeyOrder kByText = [](const KeyIdentity& key) { return key.text; };
constexpr KeyOrder kByName = [](const KeyIdentity& key) { return key.name(); };

}  // namespace

KeyIdentity IdentifyKey(std::string_view text, bool plain) {
  KeyIdentity identity{text, std::nullopt};
  if (!plain) return identity;
  const PlainKind kind = ResolvePlain(text);
  switch (kind) {
    case PlainKind::kNull:
      identity.resolved = "null";
      break;
    case PlainKind::kBool: {
      const char first = static_cast<char>(std::tolower(static_cast<unsigned char>(text[0])));
      // `t`rue, `y`es, `y`, `on`; `off` is false.
      identity.resolved = first == 't' || first == 'y' || (first == 'o' && text.size() == 2) ? "true" : "false";
      break;
    }
    case PlainKind::kInt:
    case PlainKind::kFloat:
      identity.resolved = NumberName(text, kind == PlainKind::kInt);
      break;
    default:
      break;
  }
  return identity;
}

std::vector<std::pair<std::uint32_t, std::uint32_t>> FindRepeatedKeys(const std::vector<GroupedKey>& keys) {
  constexpr std::uint32_t kNone = ~std::uint32_t{0};
  std::vector<std::uint32_t> first(keys.size(), kNone);  // of each key, the earliest one it is
  std::vector<std::uint32_t> order(keys.size());
  for (const KeyOrder by : {kByText, kByName}) {
    // Sorted so that the same keys are adjacent, in source order.
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
      return std::make_pair(keys[a].group, by(keys[a].key)) < std::make_pair(keys[b].group, by(keys[b].key));
    });
    for (std::size_t i = 1, run = 0; i < order.size(); ++i) {
      const GroupedKey &earliest = keys[order[run]], &key = keys[order[i]];
      if (earliest.group != key.group || by(earliest.key) != by(key.key)) {
        run = i;
      } else {
        first[order[i]] = std::min(first[order[i]], order[run]);
      }
    }
  }
  std::vector<std::pair<std::uint32_t, std::uint32_t>> repeated;
  for (std::uint32_t i = 0; i < keys.size(); ++i) {
    if (first[i] != kNone) repeated.emplace_back(i, first[i]);
  }
  return repeated;
}

namespace {

// A mapping key as CheckDuplicateKeys compares it: by its value within its
// parent node (KeyValues). Its value is found from its scalar, so that a
// key costs 8 bytes: a document of key lines holds millions.
struct Key {
  std::uint32_t parent;
  std::uint32_t scalar;  // into Tokens::scalars; past their end, an alias key (KeyValues::aliases)
};

// An alias used as a key (`*k : v`), with the value of the scalar its
// anchor is on: YAML readers take it for that key.
struct AliasKey {
  std::size_t offset;  // of the `*`
  std::size_t length;
  std::uint32_t document;
  std::uint32_t parent;
  std::string value;
  bool plain;
};

// Whether only blanks and a tag stand between an anchor (ending at `from`)
// and `to`: the anchor is on the node at `to`.
bool OnlyTagBetween(std::string_view text, std::size_t from, std::size_t to) {
  auto skip = [&](bool blank) {
    while (from < to && (text[from] == ' ' || text[from] == '\t') == blank) ++from;
  };
  skip(true);
  if (from < to && text[from] == '!') skip(false);
  skip(true);
  return from == to;
}

// The aliases used as keys whose anchor is on a scalar, in source order. An
// alias of a collection (a complex key, which PyYAML refuses as unhashable)
// is not compared, as no collection key is.
std::vector<AliasKey> AliasKeys(std::string_view text, const Tokens& tokens) {
  std::vector<AliasKey> keys;
  std::vector<std::uint32_t> anchors;  // by document, name and offset, once an alias key is met
  auto before = [&](std::uint32_t a, std::uint32_t b) {
    const Anchor &x = tokens.anchors[a], &y = tokens.anchors[b];
    return std::tie(x.document, x.name, x.offset) < std::tie(y.document, y.name, y.offset);
  };
  for (const Alias& alias : tokens.command_line_aliases) {
    // A key's segment names it by the start of its text: a value's or an item's does not.
    if (alias.path == PathSegment::kRoot || tokens.paths[alias.path].key.data() != text.data() + alias.offset) continue;
    if (anchors.empty()) {
      for (std::uint32_t i = 0; i < tokens.anchors.size(); ++i) anchors.push_back(i);
      std::sort(anchors.begin(), anchors.end(), before);
    }
    // The alias's anchor: the last of its name before it in its document.
    auto after = std::upper_bound(anchors.begin(), anchors.end(), alias, [&](const Alias& a, std::uint32_t b) {
      const Anchor& y = tokens.anchors[b];
      return std::tie(a.document, a.name, a.offset) < std::tie(y.document, y.name, y.offset);
    });
    if (after == anchors.begin()) continue;
    const Anchor& anchor = tokens.anchors[*(after - 1)];
    if (anchor.document != alias.document || anchor.name != alias.name) continue;
    const std::size_t end = anchor.offset + anchor.length;
    auto scalar = std::lower_bound(tokens.scalars.begin(), tokens.scalars.end(), end,
                                   [](const Scalar& s, std::size_t offset) { return s.offset < offset; });
    if (scalar == tokens.scalars.end() || !OnlyTagBetween(text, end, scalar->offset)) continue;
    keys.push_back({alias.offset, alias.length, alias.document, tokens.paths[alias.path].parent,
                    DecodeScalar(text, *scalar), scalar->style == ScalarStyle::kPlain});
  }
  return keys;
}

// The keys' values: PathSegment::key, the tokenizer's decoded key (`a`,
// "a", 'a' and "\x61" alike; no decoding for a plain key), or an alias
// key's anchored scalar.
class KeyValues {
 public:
  KeyValues(std::string_view text, const Tokens& tokens)
      : text_(text), tokens_(tokens), aliases_(AliasKeys(text, tokens)) {}

  const std::vector<AliasKey>& aliases() const { return aliases_; }
  std::string_view operator()(const Key& key) const {
    const AliasKey* alias = AliasOf(key);
    return alias ? alias->value : tokens_.paths[tokens_.scalars[key.scalar].path].key;
  }
  // The same text in the same mapping: the whole rule unless a key Resolves.
  bool Same(const Key& a, const Key& b) const { return a.parent == b.parent && (*this)(a) == (*this)(b); }
  // A plain key that other texts may name (`1` and `0x1`).
  bool Resolves(const Key& key) const {
    if (!Plain(key)) return false;
    const PlainKind kind = ResolvePlain((*this)(key));
    return kind == PlainKind::kNull || kind == PlainKind::kBool || kind == PlainKind::kInt || kind == PlainKind::kFloat;
  }
  KeyIdentity Identity(const Key& key) const { return IdentifyKey((*this)(key), Plain(key)); }
  // Where the key is written.
  std::size_t Offset(const Key& key) const {
    const AliasKey* alias = AliasOf(key);
    return alias ? alias->offset : tokens_.scalars[key.scalar].offset;
  }
  std::string_view Written(const Key& key) const {
    if (const AliasKey* alias = AliasOf(key)) return text_.substr(alias->offset, alias->length);
    const Scalar& scalar = tokens_.scalars[key.scalar];
    return text_.substr(scalar.offset, scalar.length);
  }
  Location Where(const Key& key, const std::string& file) const {
    if (AliasOf(key)) return LocateOffset(text_, Offset(key), file);
    const Scalar& scalar = tokens_.scalars[key.scalar];
    return Location{file, scalar.line, scalar.column, scalar.offset};
  }

 private:
  const AliasKey* AliasOf(const Key& key) const {
    return key.scalar < tokens_.scalars.size() ? nullptr : &aliases_[key.scalar - tokens_.scalars.size()];
  }
  bool Plain(const Key& key) const {
    const AliasKey* alias = AliasOf(key);
    return alias ? alias->plain : tokens_.scalars[key.scalar].style == ScalarStyle::kPlain;
  }

  std::string_view text_;
  const Tokens& tokens_;
  const std::vector<AliasKey> aliases_;
};

using Duplicates = std::vector<std::pair<Key, Key>>;  // (repeated key, first one)

// The keys of one document, by parent and value: an open-addressing table of
// indices into the document's keys, reused from document to document. A
// document has a few dozen keys; finding a repeat takes one probe where
// sorting them took twice the time of the whole check.
class KeyTable {
 public:
  explicit KeyTable(const KeyValues& values) : values_(values) {}

  // Appends the repeated keys of `keys` to `duplicates`; false, with
  // `duplicates` as it was, when keys crowd one run of slots (crafted ones
  // may share a hash), where the table would cost quadratic time.
  bool FindDuplicates(const std::vector<Key>& keys, Duplicates* duplicates) {
    std::size_t size = 16;
    while (size < 2 * keys.size()) size *= 2;
    slots_.assign(size, kEmpty);
    const std::size_t found_before = duplicates->size();
    for (std::uint32_t i = 0; i < keys.size(); ++i) {
      const std::uint32_t first = FindOrAdd(keys, i);
      if (first == kCrowded) {
        duplicates->resize(found_before);
        return false;
      }
      if (first != kEmpty) duplicates->emplace_back(keys[i], keys[first]);
    }
    return true;
  }

 private:
  static constexpr std::uint32_t kEmpty = ~std::uint32_t{0}, kCrowded = kEmpty - 1;
  static constexpr std::size_t kMaxProbes = 32;

  // The index of a key before keys[index] equal to it; kEmpty after
  // recording keys[index] as the first of its kind; kCrowded.
  std::uint32_t FindOrAdd(const std::vector<Key>& keys, std::uint32_t index) {
    const Key& key = keys[index];
    const std::size_t mask = slots_.size() - 1;
    std::size_t slot = Hash(key.parent, values_(key)) & mask;
    for (std::size_t probe = 0; probe < kMaxProbes; ++probe, slot = (slot + 1) & mask) {
      const std::uint32_t earlier = slots_[slot];
      if (earlier == kEmpty) {
        slots_[slot] = index;
        return kEmpty;
      }
      if (values_.Same(keys[earlier], key)) return earlier;
    }
    return kCrowded;
  }

  // From the key's first and last eight bytes (overlapping in a short key),
  // its length and its parent: no loop over long keys (equal hashes are
  // compared in full, and crowding falls back to sorting).
  static std::uint64_t Hash(std::uint32_t parent, std::string_view text) {
    const char* bytes = text.data();
    const std::size_t size = text.size();
    std::uint64_t head = 0, tail = 0;
    if (size >= 8) {
      std::memcpy(&head, bytes, 8);
      std::memcpy(&tail, bytes + size - 8, 8);
    } else {
      for (std::size_t i = 0; i < size; ++i) head = head << 8 | static_cast<unsigned char>(bytes[i]);
    }
    const std::uint64_t mixed = (head * 0x9E3779B97F4A7C15u) ^ (tail * 0xC2B2AE3D27D4EB4Fu) ^
                                (std::uint64_t{parent} << 32 | size);
    return (mixed * 0x165667B19E3779F9u) >> 32;
  }

  const KeyValues& values_;
  std::vector<std::uint32_t> slots_;
};

// The rule in full (FindRepeatedKeys), where a key resolves, and KeyTable's
// fallback: n log n whatever the keys.
void FindDuplicatesBySorting(const std::vector<Key>& keys, const KeyValues& values, Duplicates* duplicates) {
  std::vector<GroupedKey> grouped;
  grouped.reserve(keys.size());
  for (const Key& key : keys) grouped.push_back({key.parent, values.Identity(key)});
  for (const auto& [repeated, first] : FindRepeatedKeys(grouped)) duplicates->emplace_back(keys[repeated], keys[first]);
}

// Mixes `value` into `hash` (as boost::hash_combine: `a` under `a` and `b`
// under `b` must not cancel out; a collision only costs the full check).
std::uint64_t Mix(std::uint64_t hash, std::uint64_t value) {
  return hash ^ (value + 0x9E3779B97F4A7C15u + (hash << 12) + (hash >> 4));
}

}  // namespace

bool KeyRepeats::New(const Tokens& tokens, const Scalar& key) {
  if (key.path == PathSegment::kRoot) return true;  // not compared (CheckDuplicateKeys)
  if (key.style == ScalarStyle::kPlain && IdentifyKey(tokens.paths[key.path].key, true).resolved) return false;
  if (key.document != document_) {  // the keys of one document at a time
    document_ = key.document;
    slots_.assign(16, 0);
    used_ = 0;
  }
  // By value, as KeyValues compares keys.
  const std::hash<std::string_view> hash_text;
  std::uint64_t hash = hash_text(tokens.paths[key.path].key);
  for (std::uint32_t segment = tokens.paths[key.path].parent; segment != PathSegment::kRoot;) {
    const PathSegment& above = tokens.paths[segment];
    hash = Mix(Mix(hash, hash_text(above.key)), static_cast<std::uint64_t>(above.index));
    segment = above.parent;
  }
  hash |= 1;  // never 0, the empty slot
  if (2 * (used_ + 1) > slots_.size()) Grow();
  const std::size_t mask = slots_.size() - 1;
  for (std::size_t slot = hash & mask;; slot = (slot + 1) & mask) {
    if (slots_[slot] == hash) return false;
    if (slots_[slot] == 0) {
      slots_[slot] = hash;
      ++used_;
      return true;
    }
  }
}

void KeyRepeats::Grow() {
  std::vector<std::uint64_t> old(slots_.size() * 2);
  old.swap(slots_);
  const std::size_t mask = slots_.size() - 1;
  for (std::uint64_t hash : old) {
    if (hash == 0) continue;
    std::size_t slot = hash & mask;
    while (slots_[slot] != 0) slot = (slot + 1) & mask;
    slots_[slot] = hash;
  }
}

Diagnostics CheckDuplicateKeys(std::string_view text, const Tokens& tokens, const std::string& file) {
  Diagnostics out;
  // The keys of one document at a time (the roots of all documents share
  // the parent kRoot), in one reused vector: key scalars and, rarely, alias
  // keys, in source order.
  std::vector<Key> keys;
  const KeyValues values(text, tokens);
  KeyTable table(values);
  Duplicates duplicates;
  auto check_document = [&] {
    const bool resolving = std::any_of(keys.begin(), keys.end(), [&](const Key& key) { return values.Resolves(key); });
    if (resolving || !table.FindDuplicates(keys, &duplicates)) FindDuplicatesBySorting(keys, values, &duplicates);
    keys.clear();
  };
  std::uint32_t document = 0;
  auto add = [&](std::uint32_t key_document, Key key) {
    if (key_document != document) {
      check_document();
      document = key_document;
    }
    keys.push_back(key);
  };
  const auto scalars = static_cast<std::uint32_t>(tokens.scalars.size());
  const std::vector<AliasKey>& aliases = values.aliases();
  std::uint32_t alias = 0;
  auto add_aliases_before = [&](std::size_t offset) {
    for (; alias < aliases.size() && aliases[alias].offset < offset; ++alias) {
      add(aliases[alias].document, {aliases[alias].parent, scalars + alias});
    }
  };
  for (std::uint32_t index = 0; index < scalars; ++index) {
    const Scalar& scalar = tokens.scalars[index];
    if (!scalar.is_key || scalar.path == PathSegment::kRoot) continue;
    if (alias < aliases.size()) add_aliases_before(scalar.offset);
    add(scalar.document, {tokens.paths[scalar.path].parent, index});
  }
  add_aliases_before(std::string_view::npos);
  check_document();
  // In source order, as they were found.
  std::sort(duplicates.begin(), duplicates.end(),
            [&](const auto& a, const auto& b) { return values.Offset(a.first) < values.Offset(b.first); });
  for (const auto& [repeated, first] : duplicates) {
    out.push_back(MakeError(values.Where(repeated, file), "duplicate key '" + std::string(values.Written(repeated)) + "'",
                            "first defined at line " + std::to_string(values.Where(first, file).line) +
                                "; YAML parsers keep only one of them"));
  }
  return out;
}

}  // namespace safesubst
