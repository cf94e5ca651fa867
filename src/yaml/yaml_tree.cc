// SPDX-License-Identifier: Apache-2.0
#include "yaml_tree.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>

#include "yaml_encoding.h"

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

// A scalar key as a YAML reader compares it: its resolved tag and value, so
// that `a` and "a" are equal and `1` and "1" are not. Integers are compared
// by value (`1`, `0x1`, `+1`), booleans without case, other values by their text.
std::pair<std::string, std::string> KeyIdentity(const YamlNode& key) {
  constexpr std::string_view kCore = "tag:yaml.org,2002:";
  if (key.kind == YamlNode::Kind::kNull) return {"null", ""};
  std::string tag = key.tag;
  if (tag == "!") tag = "str";
  if (tag.rfind(kCore, 0) == 0) tag.erase(0, kCore.size());
  if (tag == "?") {
    static constexpr std::array<const char*, 7> kKinds = {"str", "null", "bool", "int", "float", "timestamp", "merge"};
    tag = kKinds[static_cast<std::size_t>(ResolvePlain(key.text))];
  }
  if (tag == "null") return {tag, ""};
  if (tag == "bool") {  // `True` and `true` are one key; `yes` and `on` are left apart
    std::string lower = key.text;
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return {tag, lower};
  }
  if (tag == "int") {
    std::string_view text = key.text;
    if (!text.empty() && text[0] == '+') text.remove_prefix(1);
    int base = 10;
    if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'o')) {
      base = text[1] == 'x' ? 16 : 8;
      text.remove_prefix(2);
    }
    long long value = 0;
    auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value, base);
    if (error == std::errc() && end == text.data() + text.size()) return {tag, std::to_string(value)};
  }
  return {tag, key.text};
}

}  // namespace

bool CheckUniqueKeys(const YamlRef& node, std::string* problem) {
  std::vector<std::pair<std::pair<std::string, std::string>, std::string_view>> keys;  // identity, as shown
  for (const auto& [key, value] : node.Entries()) {
    if (key.IsScalar()) keys.emplace_back(KeyIdentity(key.node()), key.Scalar());
    if (key.IsNull()) keys.emplace_back(KeyIdentity(key.node()), "null");
  }
  std::sort(keys.begin(), keys.end());
  const auto repeated = std::adjacent_find(keys.begin(), keys.end(),
                                           [](const auto& a, const auto& b) { return a.first == b.first; });
  if (repeated == keys.end()) return true;
  *problem = "has the key '" + std::string(repeated->second) + "' twice";
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
