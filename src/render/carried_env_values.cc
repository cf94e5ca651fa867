// SPDX-License-Identifier: Apache-2.0
#include "carried_env_values.h"

#include <algorithm>
#include <set>
#include <utility>

#include "object_paths.h"

namespace safesubst {

namespace {

// The item of an `envFrom` list that `scalar` stands in (at any depth), or kRoot.
std::uint32_t EnvFromItemOf(const Tokens& tokens, const Scalar& scalar) {
  for (std::uint32_t at = scalar.path; at != PathSegment::kRoot; at = tokens.paths[at].parent) {
    const PathSegment& segment = tokens.paths[at];
    if (segment.index >= 0 && segment.parent != PathSegment::kRoot && tokens.paths[segment.parent].key == "envFrom") {
      return at;
    }
  }
  return PathSegment::kRoot;
}

}  // namespace

bool MayTakeOtherObjectsEntries(std::string_view text) {
  auto has = [&](std::string_view what) { return text.find(what) != std::string_view::npos; };
  if (has("envFrom") || has("KeyRef") || has("\\x") || has("\\u") || has("\\U")) return true;
  // `? "envFr\<line break>om"`: an explicit key may span lines, an escaped break joins them.
  const bool explicit_key = has("? ") || has("?\t") || has("?\n") || has("?\r");
  return explicit_key && (has("\\\n") || has("\\\r"));
}

bool MayCarryEnvValues(std::string_view text, const Tokens& tokens) {
  std::set<std::string, std::less<>> names;
  bool env_from = false;  // then any name may be a ConfigMap's or Secret's key
  for (const Scalar& scalar : tokens.scalars) {
    std::string_view key;
    if (EnvItemOf(tokens, scalar, &key) != PathSegment::kRoot && key == "name") names.insert(DecodeScalar(text, scalar));
    env_from = env_from || EnvFromItemOf(tokens, scalar) != PathSegment::kRoot;
  }
  if (names.empty() && !env_from) return false;
  for (const Scalar& scalar : tokens.scalars) {
    if (!scalar.is_shell && !scalar.exec_program) continue;
    const std::string_view raw = text.substr(scalar.offset, scalar.length);
    for (std::size_t at = raw.find("$("); at != std::string_view::npos; at = raw.find("$(", at + 2)) {
      const std::size_t close = raw.find(')', at + 2);
      if (close != std::string_view::npos && (env_from || names.count(raw.substr(at + 2, close - at - 2)))) return true;
    }
  }
  return false;
}

CarriedEnvValues::CarriedEnvValues(std::string_view text, const Tokens& tokens) : tokens_(tokens) {
  struct Found {
    std::uint32_t document = 0;
    std::string name;
    Item item;
  };
  std::map<std::pair<std::uint32_t, std::uint32_t>, Found> by_path;  // by document and item path
  for (std::uint32_t index = 0; index < tokens.scalars.size(); ++index) {
    const Scalar& scalar = tokens.scalars[index];
    std::string_view key;
    std::uint32_t item = EnvItemOf(tokens, scalar, &key);
    const std::uint32_t key_ref = item == PathSegment::kRoot ? EnvItemOfKeyRef(tokens, scalar) : PathSegment::kRoot;
    const std::uint32_t field_ref = item == PathSegment::kRoot ? EnvItemOfFieldRef(tokens, scalar) : PathSegment::kRoot;
    if (item == PathSegment::kRoot) item = key_ref != PathSegment::kRoot ? key_ref : field_ref;
    if (item == PathSegment::kRoot) continue;
    Found& found = by_path[{scalar.document, item}];
    found.document = scalar.document;
    found.item.list = tokens.paths[item].parent;
    found.item.index = tokens.paths[item].index;
    if (key == "name") found.name = DecodeScalar(text, scalar);
    if (key == "value") found.item.values.push_back(index);
    if (key_ref != PathSegment::kRoot) found.item.data_keys.push_back(DecodeScalar(text, scalar));
    std::string annotation = field_ref != PathSegment::kRoot ? AnnotationOfFieldPath(DecodeScalar(text, scalar)) : "";
    if (!annotation.empty()) found.item.annotations.push_back(std::move(annotation));
  }
  for (auto& [path, found] : by_path) {
    const std::uint32_t owner = tokens.paths[found.item.list].parent;
    items_.emplace(std::make_tuple(found.document, owner, std::move(found.name)), std::move(found.item));
  }
  const ObjectKinds kinds(text, tokens);
  for (std::uint32_t index = 0; index < tokens.scalars.size(); ++index) {
    const Scalar& scalar = tokens.scalars[index];
    if (!scalar.is_key && IsDataEntry(tokens, scalar.path)) {
      data_by_key_[std::string(tokens.paths[scalar.path].key)].push_back(index);
      if (IsBase64DataEntry(tokens, kinds, scalar)) base64_entries_.insert(index);
    }
    if (IsAnnotationEntry(tokens, scalar)) {
      annotations_[{scalar.document, std::string(tokens.paths[scalar.path].key)}].push_back(index);
    }
    const std::uint32_t item = EnvFromItemOf(tokens, scalar);
    if (item == PathSegment::kRoot) continue;
    std::vector<std::string>& prefixes = env_from_[{scalar.document, tokens.paths[tokens.paths[item].parent].parent}];
    const bool is_prefix = tokens.paths[scalar.path].key == "prefix" && tokens.paths[scalar.path].parent == item;
    if (is_prefix) prefixes.push_back(DecodeScalar(text, scalar));
    if (!is_prefix && std::find(prefixes.begin(), prefixes.end(), "") == prefixes.end()) prefixes.push_back("");
  }
  for (const Reference& reference : tokens.references) {
    if (reference.kind != RefKind::kKubernetes || reference.scalar == Reference::kNoScalar) continue;
    std::string_view key;
    if (EnvItemOf(tokens, tokens.scalars[reference.scalar], &key) != PathSegment::kRoot && key == "value") {
      named_by_value_[reference.scalar].push_back(reference.name);
    }
  }
}

const CarriedEnvValues::Item* CarriedEnvValues::Find(std::uint32_t document, std::uint32_t owner,
                                                     std::string_view name) const {
  auto found = items_.find(std::make_tuple(document, owner, std::string(name)));
  return found == items_.end() ? nullptr : &found->second;
}

void CarriedEnvValues::AddCarried(std::uint32_t document, std::uint32_t owner, const Item& item,
                                  std::set<const Item*>* visited, std::vector<std::uint32_t>* out) const {
  if (!visited->insert(&item).second) return;
  for (const std::string& key : item.data_keys) AddDataEntries(key, out);
  for (const std::string& key : item.annotations) {
    auto entries = annotations_.find({document, key});
    if (entries != annotations_.end()) out->insert(out->end(), entries->second.begin(), entries->second.end());
  }
  for (std::uint32_t value : item.values) {
    out->push_back(value);
    auto names = named_by_value_.find(value);
    if (names == named_by_value_.end()) continue;
    for (std::string_view name : names->second) {
      const Item* earlier = Find(document, owner, name);
      // Only the items before it are in scope: the index falls at each step, so this ends.
      if (earlier != nullptr && earlier->list == item.list && earlier->index < item.index) {
        AddCarried(document, owner, *earlier, visited, out);
      }
    }
  }
}

void CarriedEnvValues::AddDataEntries(std::string_view key, std::vector<std::uint32_t>* out) const {
  auto entries = data_by_key_.find(key);
  if (entries != data_by_key_.end()) out->insert(out->end(), entries->second.begin(), entries->second.end());
}

std::vector<std::uint32_t> CarriedEnvValues::Of(const Reference& reference) const {
  std::vector<std::uint32_t> carried;
  std::set<const Item*> visited;
  if (reference.scalar == Reference::kNoScalar) return carried;
  const Scalar& scalar = tokens_.scalars[reference.scalar];
  for (std::uint32_t owner = scalar.path; owner != PathSegment::kRoot; owner = tokens_.paths[owner].parent) {
    if (const Item* item = Find(scalar.document, owner, reference.name)) {
      AddCarried(scalar.document, owner, *item, &visited, &carried);
    }
    auto env_from = env_from_.find({scalar.document, owner});
    if (env_from == env_from_.end()) continue;
    for (const std::string& prefix : env_from->second) {
      if (!reference.name.starts_with(prefix)) continue;
      AddDataEntries(reference.name.substr(prefix.size()), &carried);
    }
  }
  return carried;
}

}  // namespace safesubst
