// SPDX-License-Identifier: Apache-2.0
// Where a scalar stands in a Kubernetes object, read from the tokenizer's
// paths: a word of a container's command line, an item of a `kind: List`,
// an object's `kind`, a path the manifest names (`.spec.containers[*].args`).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "tokenizer.h"
#include "yaml_path.h"

namespace safesubst {

/// The scalars of one container command line: its `command` items, then its
/// `args` items, each in order.
struct CommandLine {
  std::span<const std::uint32_t> items;  ///< indexes into Tokens::scalars
};

/// Every command line of a template. The lines view one flat list of
/// indexes, so that thousands of lines cost two allocations, not one each:
/// moved, never copied (a copy's lines would view the original's list).
struct CommandLines {
  CommandLines() = default;
  CommandLines(CommandLines&&) = default;
  CommandLines& operator=(CommandLines&&) = default;
  CommandLines(const CommandLines&) = delete;
  CommandLines& operator=(const CommandLines&) = delete;

  std::vector<std::uint32_t> items;  ///< every line's items, line after line
  std::vector<CommandLine> lines;    ///< views into `items`
};

/// True when `scalar` is an item of a `command` or `args` sequence: a word
/// of a container's command line.
bool IsCommandLineItem(const Tokens& tokens, const Scalar& scalar);

/// True when the segment at `path` is an item of a top-level `items`
/// sequence: an object of a `kind: List`.
bool IsListItem(const Tokens& tokens, std::uint32_t path);

/// True when `path` is an entry of the `data` or `stringData` of an object (a
/// document's root or an item of a top-level `items`), whatever its kind.
bool IsDataEntry(const Tokens& tokens, std::uint32_t path);

/// The item of an `env` list that `scalar` is the `name` or a `value` of
/// (the item's path), with `key` set to which; PathSegment::kRoot elsewhere.
std::uint32_t EnvItemOf(const Tokens& tokens, const Scalar& scalar, std::string_view* key);

/// The item of an `env` list whose `valueFrom` takes a ConfigMap's or
/// Secret's entry (`configMapKeyRef` or `secretKeyRef`) that `scalar` is the
/// `key` of (the item's path); PathSegment::kRoot elsewhere.
std::uint32_t EnvItemOfKeyRef(const Tokens& tokens, const Scalar& scalar);

/// The item of an `env` list whose `valueFrom.fieldRef` (the Downward API)
/// `scalar` is the `fieldPath` of; PathSegment::kRoot elsewhere.
std::uint32_t EnvItemOfFieldRef(const Tokens& tokens, const Scalar& scalar);

/// The annotation a Downward API `fieldPath` names
/// (`metadata.annotations['note']`: `note`), or empty. Labels, names and
/// namespaces are left out: the API server takes no shell syntax in them.
std::string AnnotationOfFieldPath(std::string_view field_path);

/// True when `scalar` is the value of an entry of an `annotations` mapping.
bool IsAnnotationEntry(const Tokens& tokens, const Scalar& scalar);

/// The objects whose `kind` says what their `data` holds: each document's
/// root (by document index) and the items of a `kind: List` (by the path of
/// the item), with the decoded value of their `kind`.
class ObjectKinds {
 public:
  ObjectKinds(std::string_view text, const Tokens& tokens);

  /// The kind of `object` (a List item's path, or kRoot for the root of `document`).
  std::string_view Of(std::uint32_t object, std::uint32_t document) const;

 private:
  std::vector<std::string> roots_;
  std::unordered_map<std::uint32_t, std::string> items_;
};

/// True when `scalar` is an entry of the `data` of an object that is no
/// ConfigMap (a Secret's, or of an unknown kind): base64, which kubelet
/// decodes before a container reads it.
bool IsBase64DataEntry(const Tokens& tokens, const ObjectKinds& kinds, const Scalar& scalar);

/// True when `scalar` is the key or value of the `kind` of an object: its
/// document's top-level `kind`, or that of an item of a top-level `items`.
bool IsObjectKind(const Tokens& tokens, const Scalar& scalar);

/// Every command line of `tokens`, by container.
CommandLines CollectCommandLines(const Tokens& tokens);

/// True when the node at `path` (a segment of `tokens`) is the one
/// `selectors` name from its document's root: for each `.key` a key of that
/// value, for each `[N]` item N, for each `[*]` any one item or key
/// (`[key=value]` names no segment). A key holding dots is also named by the
/// unquoted keys that spell it (`.data.entry.tpl` names the key `entry.tpl`).
bool PathMatches(const Tokens& tokens, std::uint32_t path, const std::vector<detail::PathSelector>& selectors);

}  // namespace safesubst
