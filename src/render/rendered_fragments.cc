// SPDX-License-Identifier: Apache-2.0
#include "rendered_fragments.h"

#include <algorithm>
#include <utility>

namespace safesubst::detail {
namespace {

struct RememberedFragments {
  bool remembering = false;
  std::vector<std::pair<std::string, RenderedFragment>> by_key;  // a few: one per fragment and values
};
thread_local RememberedFragments remembered;

// Overwrites `text` before it is freed (volatile, so that the stores are not
// dropped as dead).
void Overwrite(std::string& text) {
  volatile char* byte = text.data();
  for (std::size_t i = 0; i < text.size(); ++i) byte[i] = '\0';
}

void AppendField(std::string* key, std::string_view field) {
  *key += std::to_string(field.size());
  *key += ':';
  *key += field;
}

}  // namespace

std::string FragmentRenderKey(std::string_view file, std::string_view text, std::string_view path,
                              const ValueSet& values) {
  std::string key;
  AppendField(&key, file);
  AppendField(&key, text);
  AppendField(&key, path);
  for (const auto& [name, value] : values.all()) {
    if (text.find(name) == std::string_view::npos) continue;
    AppendField(&key, name);
    AppendField(&key, value.text);
    AppendField(&key, std::to_string(static_cast<int>(value.source)));
    AppendField(&key, value.origin.file);
    AppendField(&key, std::to_string(value.origin.line) + ":" + std::to_string(value.origin.column));
  }
  return key;
}

RememberRenderedFragments::RememberRenderedFragments() : outermost_(!remembered.remembering) {
  remembered.remembering = true;
}

RememberRenderedFragments::~RememberRenderedFragments() {
  if (!outermost_) return;
  for (auto& [key, fragment] : remembered.by_key) {
    Overwrite(key);
    Overwrite(fragment.output);
    for (EncodedScalar& scalar : fragment.encoded) Overwrite(scalar.value);
  }
  remembered = RememberedFragments{};
}

const RenderedFragment* FindRenderedFragment(const std::string& key) {
  if (!remembered.remembering) return nullptr;
  auto it = std::find_if(remembered.by_key.begin(), remembered.by_key.end(),
                         [&](const auto& entry) { return entry.first == key; });
  return it == remembered.by_key.end() ? nullptr : &it->second;
}

void RememberRenderedFragment(std::string key, RenderedFragment rendered) {
  if (remembered.remembering && FindRenderedFragment(key) == nullptr) {
    remembered.by_key.emplace_back(std::move(key), std::move(rendered));
  }
}

}  // namespace safesubst::detail
