// SPDX-License-Identifier: Apache-2.0
#include "object_paths.h"

#include <algorithm>
#include <initializer_list>

namespace safesubst {

namespace {

// The mapping a node's entries end up in: a mapping written under a `<<`
// merge key (`<<: {command: [sh, -c]}`, or an item of `<<: [...]`) merges
// into the mapping that holds the `<<`.
std::uint32_t MergeTarget(const Tokens& tokens, std::uint32_t mapping) {
  while (mapping != PathSegment::kRoot) {
    const PathSegment& segment = tokens.paths[mapping];
    std::uint32_t merge = mapping;
    if (segment.index >= 0 && segment.parent != PathSegment::kRoot) merge = segment.parent;  // an item of `<<: [...]`
    const PathSegment& entry = tokens.paths[merge];
    if (entry.index >= 0 || entry.key != "<<") return mapping;
    mapping = entry.parent;
  }
  return mapping;
}

}  // namespace

bool IsCommandLineItem(const Tokens& tokens, const Scalar& scalar) {
  if (scalar.path == PathSegment::kRoot) return false;
  const PathSegment& item = tokens.paths[scalar.path];
  if (item.index < 0 || item.parent == PathSegment::kRoot) return false;
  const std::string_view sequence = tokens.paths[item.parent].key;
  return sequence == "command" || sequence == "args";
}

bool IsListItem(const Tokens& tokens, std::uint32_t path) {
  if (path == PathSegment::kRoot) return false;
  const PathSegment& item = tokens.paths[path];
  if (item.index < 0 || item.parent == PathSegment::kRoot) return false;
  const PathSegment& items = tokens.paths[item.parent];
  return items.index < 0 && items.key == "items" && items.parent == PathSegment::kRoot;
}

bool IsDataEntry(const Tokens& tokens, std::uint32_t path) {
  if (path == PathSegment::kRoot) return false;
  const PathSegment& entry = tokens.paths[path];
  if (entry.index >= 0 || entry.parent == PathSegment::kRoot) return false;
  const PathSegment& map = tokens.paths[entry.parent];
  return map.index < 0 && (map.key == "data" || map.key == "stringData") &&
         (map.parent == PathSegment::kRoot || IsListItem(tokens, map.parent));
}

std::uint32_t EnvItemOf(const Tokens& tokens, const Scalar& scalar, std::string_view* key) {
  if (scalar.is_key || scalar.path == PathSegment::kRoot) return PathSegment::kRoot;
  const PathSegment& entry = tokens.paths[scalar.path];
  if (entry.index >= 0 || (entry.key != "name" && entry.key != "value") || entry.parent == PathSegment::kRoot) {
    return PathSegment::kRoot;
  }
  const PathSegment& item = tokens.paths[entry.parent];
  if (item.index < 0 || item.parent == PathSegment::kRoot || tokens.paths[item.parent].key != "env") {
    return PathSegment::kRoot;
  }
  *key = entry.key;
  return entry.parent;
}

namespace {

// The env item under `scalar` whose path, from the scalar up, is `keys`
// (each a mapping key; "" for either of `either`), or kRoot.
std::uint32_t EnvItemBelow(const Tokens& tokens, const Scalar& scalar, std::initializer_list<std::string_view> keys,
                           std::initializer_list<std::string_view> either) {
  if (scalar.is_key || scalar.path == PathSegment::kRoot) return PathSegment::kRoot;
  std::uint32_t at = scalar.path;
  for (std::string_view key : keys) {
    const PathSegment& segment = tokens.paths[at];
    const bool named = key.empty() ? std::find(either.begin(), either.end(), segment.key) != either.end()
                                   : segment.key == key;
    if (segment.index >= 0 || segment.parent == PathSegment::kRoot || !named) return PathSegment::kRoot;
    at = segment.parent;
  }
  const PathSegment& item = tokens.paths[at];
  if (item.index < 0 || item.parent == PathSegment::kRoot || tokens.paths[item.parent].key != "env") {
    return PathSegment::kRoot;
  }
  return at;
}

}  // namespace

std::uint32_t EnvItemOfKeyRef(const Tokens& tokens, const Scalar& scalar) {
  return EnvItemBelow(tokens, scalar, {"key", "", "valueFrom"}, {"configMapKeyRef", "secretKeyRef"});
}

std::uint32_t EnvItemOfFieldRef(const Tokens& tokens, const Scalar& scalar) {
  return EnvItemBelow(tokens, scalar, {"fieldPath", "fieldRef", "valueFrom"}, {});
}

std::string AnnotationOfFieldPath(std::string_view field_path) {
  constexpr std::string_view kStart = "metadata.annotations[";
  if (!field_path.starts_with(kStart) || field_path.size() < kStart.size() + 3 || !field_path.ends_with("]")) return {};
  const std::string_view quoted = field_path.substr(kStart.size(), field_path.size() - kStart.size() - 1);
  const char quote = quoted.front();
  if ((quote != '\'' && quote != '"') || quoted.back() != quote) return {};
  return std::string(quoted.substr(1, quoted.size() - 2));
}

bool IsAnnotationEntry(const Tokens& tokens, const Scalar& scalar) {
  if (scalar.is_key || scalar.path == PathSegment::kRoot) return false;
  const PathSegment& entry = tokens.paths[scalar.path];
  return entry.index < 0 && entry.parent != PathSegment::kRoot && tokens.paths[entry.parent].key == "annotations" &&
         tokens.paths[entry.parent].index < 0;
}

ObjectKinds::ObjectKinds(std::string_view text, const Tokens& tokens) {
  for (std::size_t i = 0; i + 1 < tokens.scalars.size(); ++i) {
    const Scalar& key = tokens.scalars[i];
    const Scalar& value = tokens.scalars[i + 1];
    if (!key.is_key || value.is_key || key.path != value.path || !IsObjectKind(tokens, key)) continue;
    const std::uint32_t object = tokens.paths[key.path].parent;
    if (object == PathSegment::kRoot) {
      if (roots_.size() <= key.document) roots_.resize(key.document + 1);
      roots_[key.document] = DecodeScalar(text, value);
    } else {
      items_[object] = DecodeScalar(text, value);
    }
  }
}

std::string_view ObjectKinds::Of(std::uint32_t object, std::uint32_t document) const {
  if (object == PathSegment::kRoot) return document < roots_.size() ? roots_[document] : std::string_view();
  auto found = items_.find(object);
  return found == items_.end() ? std::string_view() : found->second;
}

bool IsBase64DataEntry(const Tokens& tokens, const ObjectKinds& kinds, const Scalar& scalar) {
  if (scalar.is_key || !IsDataEntry(tokens, scalar.path)) return false;
  const PathSegment& map = tokens.paths[tokens.paths[scalar.path].parent];
  return map.key == "data" && kinds.Of(map.parent, scalar.document) != "ConfigMap";
}

bool IsObjectKind(const Tokens& tokens, const Scalar& scalar) {
  if (scalar.path == PathSegment::kRoot) return false;
  const PathSegment& entry = tokens.paths[scalar.path];
  return entry.index < 0 && entry.key == "kind" &&
         (entry.parent == PathSegment::kRoot || IsListItem(tokens, entry.parent));
}

// Groups the non-key scalars that are items of `command`/`args` sequences by
// the mapping that holds those sequences (the container).
CommandLines CollectCommandLines(const Tokens& tokens) {
  struct Entry { std::uint32_t container; bool is_args; std::int32_t index; std::uint32_t scalar; };
  std::vector<Entry> entries;
  for (std::uint32_t i = 0; i < tokens.scalars.size(); ++i) {
    const Scalar& scalar = tokens.scalars[i];
    if (scalar.is_key || !IsCommandLineItem(tokens, scalar)) continue;
    const PathSegment& item = tokens.paths[scalar.path];
    const PathSegment& sequence = tokens.paths[item.parent];
    entries.push_back({MergeTarget(tokens, sequence.parent), sequence.key == "args", item.index, i});
  }
  // Ties (items merged from `<<`) keep their source order: the scalar index
  // breaks them, as a stable sort would, without its buffer.
  std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
    if (a.container != b.container) return a.container < b.container;
    if (a.is_args != b.is_args) return !a.is_args;
    if (a.index != b.index) return a.index < b.index;
    return a.scalar < b.scalar;
  });
  CommandLines out;
  out.items.reserve(entries.size());
  std::vector<std::size_t> starts;  // of each line in out.items, then the end
  for (std::size_t i = 0; i < entries.size(); ++i) {
    if (i == 0 || entries[i].container != entries[i - 1].container) starts.push_back(i);
    out.items.push_back(entries[i].scalar);
  }
  starts.push_back(entries.size());
  out.lines.reserve(starts.size() - 1);
  for (std::size_t k = 0; k + 1 < starts.size(); ++k) {
    out.lines.push_back({std::span(out.items).subspan(starts[k], starts[k + 1] - starts[k])});
  }
  return out;
}

namespace {

using SelectorsUp = std::vector<detail::PathSelector>::const_reverse_iterator;

// A key holding dots (`entry.tpl`) also answers to the run of `.key`
// selectors that spells it without quotes (`.data.entry.tpl`): people write
// ConfigMap file names that way, 24863fb's text form matched them, and a
// listed script path that silently stopped matching would let a value land
// unencoded (marking is the safe direction). Moves `selector` to the last
// selector of the run.
bool SpellsDottedKey(std::string_view key, SelectorsUp* selector, SelectorsUp end) {
  SelectorsUp at = *selector;
  std::size_t part_end = key.size();
  while (true) {
    std::size_t dot = key.rfind('.', part_end - 1);
    std::size_t part_begin = dot == std::string_view::npos ? 0 : dot + 1;
    if (at == end || at->kind != detail::PathSelector::Kind::kKey ||
        at->key != key.substr(part_begin, part_end - part_begin)) {
      return false;
    }
    if (dot == std::string_view::npos) break;
    part_end = dot;
    if (part_end == 0) return false;
    ++at;
  }
  *selector = at;
  return true;
}

}  // namespace

bool PathMatches(const Tokens& tokens, std::uint32_t path, const std::vector<detail::PathSelector>& selectors) {
  auto selector = selectors.rbegin();  // from the node up to the root
  for (; path != PathSegment::kRoot; path = tokens.paths[path].parent, ++selector) {
    if (selector == selectors.rend()) return false;
    const PathSegment& segment = tokens.paths[path];
    switch (selector->kind) {
      case detail::PathSelector::Kind::kKey:
        if (segment.index >= 0) return false;
        if (segment.key != selector->key && !SpellsDottedKey(segment.key, &selector, selectors.rend())) return false;
        break;
      case detail::PathSelector::Kind::kIndex:
        if (segment.index < 0 || segment.index != selector->index) return false;
        break;
      case detail::PathSelector::Kind::kAll: break;
      case detail::PathSelector::Kind::kMatch: return false;
    }
  }
  return selector == selectors.rend();
}

}  // namespace safesubst
