// SPDX-License-Identifier: Apache-2.0
// A small, flat YAML node tree, read with yaml-cpp (ParseYamlStreamWithYamlCpp,
// yaml_load.h) or from the tokenizer's spans (yaml_span_tree.h).
//
// yaml-cpp's YAML::Node expands aliases into shared nodes and hides whether a
// scalar was plain or quoted. The structure invariant and the `type: yaml`
// encoder need both: aliases kept as references (so that a "billion laughs"
// stream costs its size, not its expansion) and the plain/quoted distinction
// (so that a re-emitted scalar keeps its type). Internal to the library.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "safesubst/diagnostic.h"

namespace safesubst::detail {

struct YamlNode {
  enum class Kind : std::uint8_t { kNull, kScalar, kSequence, kMapping, kAlias };
  Kind kind = Kind::kNull;
  /// As yaml-cpp reports it: `?` for a plain scalar or an untagged collection,
  /// `!` for a quoted or block scalar, otherwise the resolved explicit tag
  /// (`tag:yaml.org,2002:str`, `!local`). Empty for null and alias nodes.
  std::string tag;
  std::string text;  ///< kScalar: the decoded value
  /// kSequence: the items; kMapping: key, value, key, value, ...
  std::vector<std::uint32_t> children;
  std::uint32_t target = 0;  ///< kAlias: index of the anchored node
  bool flow = false;         ///< kSequence/kMapping: written `[...]` / `{...}`
  /// Position of the node's first character (yaml-cpp marks, 0-based).
  std::uint32_t line = 0, column = 0;
  std::size_t offset = 0;

  bool operator==(const YamlNode&) const = default;
};

/// All nodes of a stream in one arena; `documents` holds each document's root.
struct YamlStream {
  std::vector<YamlNode> nodes;
  std::vector<std::uint32_t> documents;
  bool has_aliases = false;  ///< some node is an alias (the tree is then a graph)

  bool operator==(const YamlStream&) const = default;
};

struct YamlParseError {
  std::string message;
  std::uint32_t line = 0, column = 0;  ///< 0-based, as yaml-cpp reports them
  std::size_t offset = 0;
};

/// What writing nodes out with their aliases expanded may add, on top of
/// the nodes written as they stand in the source: generous for
/// configuration, small enough that an alias bomb ("billion laughs") stops in
/// milliseconds. A few KB of aliases can stand for gigabytes.
inline constexpr std::size_t kMaxExpandedNodes = 100000;
inline constexpr std::size_t kMaxExpandedBytes = std::size_t{16} << 20;
/// Nesting a writer follows: a chain of aliases nests without the bound the
/// parser puts on written nesting, and each level is a stack frame.
inline constexpr std::size_t kMaxWriteDepth = 1000;

/// Follows `index` through alias nodes to the node they stand for.
std::uint32_t ResolveAlias(const YamlStream& stream, std::uint32_t index);

/// Where `error` is, for a diagnostic about `file`.
Location ParseErrorLocation(const YamlParseError& error, std::string file);

/// A node of a stream as a reader of a configuration file wants it: aliases
/// followed, children by position, a location for messages. Cheap to copy;
/// the stream must outlive it.
class YamlRef {
 public:
  YamlRef(const YamlStream& stream, std::uint32_t index)
      : stream_(&stream),
        index_(ResolveAlias(stream, index)),
        via_alias_(stream.nodes[index].kind == YamlNode::Kind::kAlias) {}

  const YamlNode& node() const { return stream_->nodes[index_]; }
  const YamlStream& stream() const { return *stream_; }
  std::uint32_t index() const { return index_; }
  /// Reached through an alias (`*a`) rather than written out in place.
  bool via_alias() const { return via_alias_; }
  bool IsNull() const { return node().kind == YamlNode::Kind::kNull; }
  bool IsScalar() const { return node().kind == YamlNode::Kind::kScalar; }
  bool IsSequence() const { return node().kind == YamlNode::Kind::kSequence; }
  bool IsMap() const { return node().kind == YamlNode::Kind::kMapping; }
  /// The decoded text of a scalar; empty for other kinds.
  const std::string& Scalar() const { return node().text; }
  /// The items of a sequence (empty for other kinds).
  std::vector<YamlRef> Items() const;
  /// The key/value pairs of a mapping, in source order (empty for other kinds).
  std::vector<std::pair<YamlRef, YamlRef>> Entries() const;
  /// The value of the first scalar key `key` of a mapping, as yaml-cpp's
  /// `node[key]` finds it; none for other kinds.
  std::optional<YamlRef> Find(std::string_view key) const;
  Location At(const std::string& file) const;

 private:
  const YamlStream* stream_;
  std::uint32_t index_;
  bool via_alias_;
};

/// False, with `*problem` set ("has the key 'a' twice"), when mapping `node`
/// has two scalar keys that are one key for some reader (KeyIdentity,
/// duplicate_keys.h: `a` and "a", `1` and `0x1`, `True` and `true`). YAML
/// forbids it and yaml-cpp reads it; written out, readers keep one of them.
bool CheckUniqueKeys(const YamlRef& node, std::string* problem);

/// Bounds writing nodes out with their aliases expanded: the nodes written
/// because of an alias count against kMaxExpandedNodes for each value, and
/// against `max_bytes` (a byte each, plus the scalar's text) for every value
/// the budget serves, so that one file's many values cannot add up; nesting
/// stops at kMaxWriteDepth, and a node inside itself is refused. Each
/// problem reads after a subject: "(the value) contains a recursive alias".
class ExpansionBudget {
 public:
  explicit ExpansionBudget(std::size_t max_bytes = kMaxExpandedBytes) : max_bytes_(max_bytes) {}
  /// Starts the next value: its own node count, the same byte budget.
  void StartValue() { value_nodes_ = 0; }
  /// Counts `node`, about to be written as a child of the open collections;
  /// false with `*problem` set when a bound is passed.
  bool Count(const YamlRef& node, std::string* problem);
  /// Opens collection `node` (already counted) for its children; false with
  /// `*problem` set when that nests too deep. Close() after the children.
  bool Open(const YamlRef& node, std::string* problem);
  void Close() { open_.pop_back(); }
  /// What the last false from Count or Open was about.
  enum class Bound : std::uint8_t { kRecursion, kNodes, kBytes, kDepth };
  Bound passed() const { return passed_; }

 private:
  struct OpenCollection {
    std::uint32_t index;
    bool expanded;  ///< written because of an alias, here or above
  };
  bool Expanded(const YamlRef& node) const { return node.via_alias() || (!open_.empty() && open_.back().expanded); }

  std::vector<OpenCollection> open_;
  std::size_t max_bytes_;
  std::size_t value_nodes_ = 0;
  std::size_t expanded_bytes_ = 0;
  Bound passed_ = Bound::kRecursion;
};

}  // namespace safesubst::detail
