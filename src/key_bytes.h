// Keys for the tables that remember answers during a render (ScriptContexts,
// Renderer's resolutions and shell encodings): the bytes of what the answer
// depends on, appended to one reused string.
#pragma once

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

}  // namespace safesubst
