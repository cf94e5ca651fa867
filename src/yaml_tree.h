// A small, flat YAML node tree built from yaml-cpp's parser events.
//
// yaml-cpp's YAML::Node expands aliases into shared nodes and hides whether a
// scalar was plain or quoted. The structure invariant and the `type: yaml`
// encoder need both: aliases kept as references (so that a "billion laughs"
// stream costs its size, not its expansion) and the plain/quoted distinction
// (so that a re-emitted scalar keeps its type). Internal to the library.
#pragma once

#include <cstddef>
#include <cstdint>
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
};

/// All nodes of a stream in one arena; `documents` holds each document's root.
struct YamlStream {
  std::vector<YamlNode> nodes;
  std::vector<std::uint32_t> documents;
  bool has_aliases = false;  ///< some node is an alias (the tree is then a graph)
};

struct YamlParseError {
  std::string message;
  std::uint32_t line = 0, column = 0;  ///< 0-based, as yaml-cpp reports them
  std::size_t offset = 0;
};

/// Parses `text` (every document of the stream). Returns false and fills
/// `error` when yaml-cpp rejects it. Never throws.
bool ParseYamlStream(std::string_view text, YamlStream* stream, YamlParseError* error);

/// The most nodes a structured value may expand to once its aliases are
/// followed: generous for configuration, small enough that an alias bomb
/// ("billion laughs") stops in milliseconds.
inline constexpr std::size_t kMaxExpandedNodes = 100000;

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
      : stream_(&stream), index_(ResolveAlias(stream, index)) {}

  const YamlNode& node() const { return stream_->nodes[index_]; }
  std::uint32_t index() const { return index_; }
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
  Location At(const std::string& file) const;

 private:
  const YamlStream* stream_;
  std::uint32_t index_;
};

}  // namespace safesubst::detail
