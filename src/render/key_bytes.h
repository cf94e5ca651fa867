// SPDX-License-Identifier: Apache-2.0
// Keys for the tables that remember answers during a render (ScriptContexts,
// Renderer's resolutions and shell encodings): the bytes of what the answer
// depends on, appended to one reused string; and the hash of such keys.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <type_traits>

namespace safesubst {

/// Appends the object representation of `value` (a number, an enum, a pointer).
template <typename T>
void AppendKeyBytes(T value, std::string* key) {
  static_assert(std::is_trivially_copyable_v<T> && !std::is_class_v<T>, "a scalar value");
  char bytes[sizeof(T)];
  std::memcpy(bytes, &value, sizeof(T));
  key->append(bytes, sizeof(T));
}

/// Appends `text` after its length, so that consecutive texts cannot run
/// together ("ab" + "c" and "a" + "bc" give different keys).
inline void AppendKeyText(std::string_view text, std::string* key) {
  AppendKeyBytes(text.size(), key);
  key->append(text);
}

/// The hash of the render's tables: their keys are names and short keys,
/// which this reads eight bytes at a time, inline (std::hash is a call into
/// libstdc++ and a loop of its own: 0.6 % of a render's instructions). Every
/// byte is mixed in; like std::hash, it has no secret seed.
struct TextHash {
  std::size_t operator()(std::string_view text) const noexcept {
    std::uint64_t hash = text.size() * 0x9E3779B97F4A7C15u;
    std::size_t i = 0;
    for (; i + 8 <= text.size(); i += 8) hash = Mix(hash ^ Word(text.data() + i));
    if (i == text.size()) return static_cast<std::size_t>(hash);
    if (text.size() >= 8) return static_cast<std::size_t>(Mix(hash ^ Word(text.data() + text.size() - 8)));
    std::uint64_t tail = 0;  // fewer than eight bytes in all
    for (; i < text.size(); ++i) tail = tail << 8 | static_cast<unsigned char>(text[i]);
    return static_cast<std::size_t>(Mix(hash ^ tail));
  }

 private:
  static std::uint64_t Word(const char* bytes) {
    std::uint64_t word;
    std::memcpy(&word, bytes, sizeof word);
    return word;
  }
  static std::uint64_t Mix(std::uint64_t x) {
    x *= 0xBF58476D1CE4E5B9u;
    return x ^ (x >> 31);
  }
};

}  // namespace safesubst
