// SPDX-License-Identifier: Apache-2.0
#include "duplicate_keys.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <functional>
#include <tuple>
#include <utility>
#include <vector>

namespace safesubst {

namespace {

// A mapping key as CheckDuplicateKeys compares it: by its source text
// within its parent node. Its text is found from its scalar, so that a key
// costs 8 bytes: a document of key lines holds millions.
struct Key {
  std::uint32_t parent;
  std::uint32_t scalar;  // into Tokens::scalars
};

// The source text of keys.
class KeyTexts {
 public:
  KeyTexts(std::string_view text, const Tokens& tokens) : text_(text), scalars_(tokens.scalars) {}
  std::string_view operator()(const Key& key) const {
    const Scalar& scalar = scalars_[key.scalar];
    return text_.substr(scalar.offset, scalar.length);
  }
  bool Same(const Key& a, const Key& b) const { return a.parent == b.parent && (*this)(a) == (*this)(b); }

 private:
  std::string_view text_;
  const std::vector<Scalar>& scalars_;
};

using Duplicates = std::vector<std::pair<std::uint32_t, std::uint32_t>>;  // scalars: (repeated key, first one)

// The keys of one document, by parent and text: an open-addressing table of
// indices into the document's keys, reused from document to document. A
// document has a few dozen keys; finding a repeat takes one probe where
// sorting them took twice the time of the whole check.
class KeyTable {
 public:
  explicit KeyTable(const KeyTexts& texts) : texts_(texts) {}

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
      if (first != kEmpty) duplicates->emplace_back(keys[i].scalar, keys[first].scalar);
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
    std::size_t slot = Hash(key.parent, texts_(key)) & mask;
    for (std::size_t probe = 0; probe < kMaxProbes; ++probe, slot = (slot + 1) & mask) {
      const std::uint32_t earlier = slots_[slot];
      if (earlier == kEmpty) {
        slots_[slot] = index;
        return kEmpty;
      }
      if (texts_.Same(keys[earlier], key)) return earlier;
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

  const KeyTexts& texts_;
  std::vector<std::uint32_t> slots_;
};

// KeyTable's fallback, in O(n log n) whatever the keys: sorted so that equal
// keys are adjacent, in source order.
void FindDuplicatesBySorting(std::vector<Key> keys, const KeyTexts& texts, Duplicates* duplicates) {
  std::sort(keys.begin(), keys.end(), [&](const Key& a, const Key& b) {
    return std::make_tuple(a.parent, texts(a), a.scalar) < std::make_tuple(b.parent, texts(b), b.scalar);
  });
  for (std::size_t i = 1, first = 0; i < keys.size(); ++i) {
    if (!texts.Same(keys[first], keys[i])) {
      first = i;
    } else {
      duplicates->emplace_back(keys[i].scalar, keys[first].scalar);
    }
  }
}

// Mixes `value` into `hash` (as boost::hash_combine: `a` under `a` and `b`
// under `b` must not cancel out; a collision only costs the full check).
std::uint64_t Mix(std::uint64_t hash, std::uint64_t value) {
  return hash ^ (value + 0x9E3779B97F4A7C15u + (hash << 12) + (hash >> 4));
}

}  // namespace

bool KeyRepeats::New(std::string_view text, const Tokens& tokens, const Scalar& key) {
  if (key.path == PathSegment::kRoot) return true;  // not compared (CheckDuplicateKeys)
  if (key.document != document_) {  // the keys of one document at a time
    document_ = key.document;
    slots_.assign(16, 0);
    used_ = 0;
  }
  const std::hash<std::string_view> hash_text;
  std::uint64_t hash = hash_text(text.substr(key.offset, key.length));
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
  // Keys are compared by their source text within the same parent node;
  // `a` and `"a"` are not told apart, which only costs a missed report. The
  // keys of one document at a time (the roots of all documents share the
  // parent kRoot) are views into `text` in one reused vector.
  std::vector<Key> keys;
  const KeyTexts texts(text, tokens);
  KeyTable table(texts);
  Duplicates duplicates;
  auto check_document = [&] {
    if (!table.FindDuplicates(keys, &duplicates)) FindDuplicatesBySorting(keys, texts, &duplicates);
    keys.clear();
  };
  std::uint32_t document = 0;
  for (std::uint32_t index = 0; index < tokens.scalars.size(); ++index) {
    const Scalar& scalar = tokens.scalars[index];
    if (!scalar.is_key || scalar.path == PathSegment::kRoot) continue;
    if (scalar.document != document) {
      check_document();
      document = scalar.document;
    }
    keys.push_back({tokens.paths[scalar.path].parent, index});
  }
  check_document();
  // In source order, as they were found.
  std::sort(duplicates.begin(), duplicates.end());
  for (const auto& [repeated, first_index] : duplicates) {
    const Scalar* scalar = &tokens.scalars[repeated];
    const Scalar* first = &tokens.scalars[first_index];
    out.push_back(MakeError(Location{file, scalar->line, scalar->column, scalar->offset},
                            "duplicate key '" + std::string(text.substr(scalar->offset, scalar->length)) + "'",
                            "first defined at line " + std::to_string(first->line) +
                                "; YAML parsers keep only one of them"));
  }
  return out;
}

}  // namespace safesubst
