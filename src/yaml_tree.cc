// SPDX-License-Identifier: Apache-2.0
#include "yaml_tree.h"

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/exceptions.h>
#include <yaml-cpp/mark.h>
#include <yaml-cpp/parser.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <exception>
#include <map>
#include <sstream>

#include "yaml_encoding.h"
#include "yaml_load.h"
#include "yaml_span_tree.h"

namespace safesubst::detail {

namespace {

// Builds the arena from parser events. Collections are closed by the matching
// End event, so a stack of open collections says where the next node goes.
class TreeBuilder : public YAML::EventHandler {
 public:
  explicit TreeBuilder(YamlStream* stream) : stream_(stream) {}

  void OnDocumentStart(const YAML::Mark& mark) override {
    anchors_.clear();
    open_.clear();
    document_start_ = mark;
  }
  void OnDocumentEnd() override {}
  const YAML::Mark& document_start() const { return document_start_; }

  void OnNull(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    Add(YamlNode::Kind::kNull, mark, anchor, {});
  }
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    std::uint32_t index = Add(YamlNode::Kind::kAlias, mark, YAML::NullAnchor, {});
    stream_->has_aliases = true;
    auto found = anchors_.find(anchor);
    // yaml-cpp rejects unknown anchors itself; point at the alias node (a
    // harmless self reference that ResolveAlias stops at) just in case.
    stream_->nodes[index].target = found == anchors_.end() ? index : found->second;
  }
  void OnScalar(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                const std::string& value) override {
    std::uint32_t index = Add(YamlNode::Kind::kScalar, mark, anchor, tag);
    stream_->nodes[index].text = value;
  }
  void OnSequenceStart(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                       YAML::EmitterStyle::value style) override {
    open_.push_back(Add(YamlNode::Kind::kSequence, mark, anchor, tag));
    stream_->nodes[open_.back()].flow = style == YAML::EmitterStyle::Flow;
  }
  void OnSequenceEnd() override { open_.pop_back(); }
  void OnMapStart(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                  YAML::EmitterStyle::value style) override {
    open_.push_back(Add(YamlNode::Kind::kMapping, mark, anchor, tag));
    stream_->nodes[open_.back()].flow = style == YAML::EmitterStyle::Flow;
  }
  void OnMapEnd() override { open_.pop_back(); }

 private:
  std::uint32_t Add(YamlNode::Kind kind, const YAML::Mark& mark, YAML::anchor_t anchor,
                    const std::string& tag) {
    auto index = static_cast<std::uint32_t>(stream_->nodes.size());
    YamlNode node;
    node.kind = kind;
    node.tag = tag;
    if (!mark.is_null()) {
      node.line = static_cast<std::uint32_t>(mark.line);
      node.column = static_cast<std::uint32_t>(mark.column);
      node.offset = static_cast<std::size_t>(mark.pos);
    }
    stream_->nodes.push_back(std::move(node));
    if (open_.empty()) {
      stream_->documents.push_back(index);
    } else {
      stream_->nodes[open_.back()].children.push_back(index);
    }
    if (anchor != YAML::NullAnchor) anchors_[anchor] = index;
    return index;
  }

  YamlStream* stream_;
  std::vector<std::uint32_t> open_;
  YAML::Mark document_start_ = YAML::Mark::null_mark();
  std::map<YAML::anchor_t, std::uint32_t> anchors_;
};

}  // namespace

bool ParseYamlStream(std::string_view text, YamlStream* stream, YamlParseError* error) {
  return ReadYamlStreamFromSpans(text, stream) || ParseYamlStreamWithYamlCpp(text, stream, error);
}

bool ParseYamlStreamWithYamlCpp(std::string_view text, YamlStream* stream, YamlParseError* error) {
  *stream = YamlStream{};
  stream->nodes.reserve(text.size() / 16);  // about one node per 16 bytes of Kubernetes YAML
  std::istringstream input{std::string(text)};
  try {
    YAML::Parser parser(input);
    TreeBuilder builder(stream);
    // yaml-cpp 0.7 never gets past a document that starts with a token no
    // node can start with (a `,` outside [] or {}, found by fuzzing): it
    // reports an empty document there again and again. Every document after
    // the first starts at a marker or follows a `...`, so a stream has at most
    // markers + 1 documents.
    const std::size_t bound = MaxDocumentCount(text);
    std::size_t documents = 0;
    while (parser.HandleNextDocument(builder)) {
      if (++documents <= bound) continue;
      const YAML::Mark& at = builder.document_start();
      *error = YamlParseError{std::string(kRunawayDocumentMessage), 0, 0, 0};
      if (!at.is_null()) {
        error->line = static_cast<std::uint32_t>(at.line);
        error->column = static_cast<std::uint32_t>(at.column);
        error->offset = static_cast<std::size_t>(at.pos);
      }
      *stream = YamlStream{};
      return false;
    }
    return true;
  } catch (const YAML::Exception& e) {
    *error = YamlParseError{DescribeParseError(e), 0, 0, 0};
    if (!e.mark.is_null()) {
      error->line = static_cast<std::uint32_t>(e.mark.line);
      error->column = static_cast<std::uint32_t>(e.mark.column);
      error->offset = static_cast<std::size_t>(e.mark.pos);
    }
  } catch (const std::exception& e) {
    *error = YamlParseError{e.what(), 0, 0, 0};
  }
  *stream = YamlStream{};
  return false;
}

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
