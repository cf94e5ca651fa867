// SPDX-License-Identifier: Apache-2.0
#include "yaml_tree.h"

#include <string>
#include <vector>

#include "duplicate_keys.h"

namespace safesubst::detail {

std::uint32_t ResolveAlias(const YamlStream& stream, std::uint32_t index) {
  // An alias always names a non-alias node; the bound only guards against a
  // malformed arena.
  for (int hops = 0; hops < 8 && stream.nodes[index].kind == YamlNode::Kind::kAlias; ++hops) {
    std::uint32_t next = stream.nodes[index].target;
    if (next == index) break;
    index = next;
  }
  return index;
}

Location ParseErrorLocation(const YamlParseError& error, std::string file) {
  return Location{std::move(file), error.line + 1, error.column + 1, error.offset};
}

std::vector<YamlRef> YamlRef::Items() const {
  std::vector<YamlRef> items;
  if (!IsSequence()) return items;
  items.reserve(node().children.size());
  for (std::uint32_t child : node().children) items.emplace_back(*stream_, child);
  return items;
}

std::vector<std::pair<YamlRef, YamlRef>> YamlRef::Entries() const {
  std::vector<std::pair<YamlRef, YamlRef>> entries;
  if (!IsMap()) return entries;
  const std::vector<std::uint32_t>& children = node().children;
  entries.reserve(children.size() / 2);
  for (std::size_t i = 0; i + 1 < children.size(); i += 2) {
    entries.emplace_back(YamlRef(*stream_, children[i]), YamlRef(*stream_, children[i + 1]));
  }
  return entries;
}

std::optional<YamlRef> YamlRef::Find(std::string_view key) const {
  if (!IsMap()) return std::nullopt;
  const std::vector<std::uint32_t>& children = node().children;
  for (std::size_t i = 0; i + 1 < children.size(); i += 2) {
    const YamlRef entry_key(*stream_, children[i]);
    if (entry_key.IsScalar() && entry_key.Scalar() == key) return YamlRef(*stream_, children[i + 1]);
  }
  return std::nullopt;
}

Location YamlRef::At(const std::string& file) const {
  return Location{file, node().line + 1, node().column + 1, node().offset};
}

namespace {

// A scalar or null key (duplicate_keys.h): plain, or tagged with a core
// type other than str, is resolved.
KeyIdentity IdentifyNodeKey(const YamlNode& key) {
  constexpr std::string_view kCore = "tag:yaml.org,2002:";
  if (key.kind == YamlNode::Kind::kNull) return IdentifyKey("null", true);
  const bool resolved = key.tag == "?" || (key.tag.starts_with(kCore) && key.tag != std::string(kCore) + "str");
  return IdentifyKey(key.text, resolved);
}

}  // namespace

bool CheckUniqueKeys(const YamlRef& node, std::string* problem) {
  std::vector<GroupedKey> keys;
  for (const auto& [key, value] : node.Entries()) {
    if (key.IsScalar() || key.IsNull()) keys.push_back({0, IdentifyNodeKey(key.node())});
  }
  const auto repeated = FindRepeatedKeys(keys);
  if (repeated.empty()) return true;
  *problem = "has the key '" + std::string(keys[repeated.front().first].key.text) + "' twice";
  return false;
}

bool ExpansionBudget::Count(const YamlRef& node, std::string* problem) {
  for (const OpenCollection& open : open_) {
    if (open.index == node.index()) {
      *problem = "contains a recursive alias";
      passed_ = Bound::kRecursion;
      return false;
    }
  }
  if (!Expanded(node)) return true;
  if (++value_nodes_ > kMaxExpandedNodes) {
    *problem = "expands to more than " + std::to_string(kMaxExpandedNodes) + " nodes through aliases";
    passed_ = Bound::kNodes;
    return false;
  }
  expanded_bytes_ += 1 + node.Scalar().size();
  if (expanded_bytes_ > max_bytes_) {
    *problem = "expands to more than " + std::to_string(max_bytes_) + " bytes through aliases";
    passed_ = Bound::kBytes;
    return false;
  }
  return true;
}

bool ExpansionBudget::Open(const YamlRef& node, std::string* problem) {
  if (open_.size() >= kMaxWriteDepth) {
    *problem = "nests more than " + std::to_string(kMaxWriteDepth) + " levels deep";
    passed_ = Bound::kDepth;
    return false;
  }
  open_.push_back(OpenCollection{node.index(), Expanded(node)});
  return true;
}

}  // namespace safesubst::detail
