// SPDX-License-Identifier: Apache-2.0
// Env values that kubelet writes into a command line (SPEC Rule 3: a value
// never runs as code, at any depth).
//
//     command: [sh, -c, "echo $(MSG)"]
//     env: [{name: MSG, value: "${V}"}]
//
// kubelet expands `$(MSG)` in the container's `command` and `args` (and an
// exec probe's) with the value of the env item MSG before the shell reads
// the script, so V=`;touch F` ran although the env value itself is data.
// The render checks such a value where it lands: read at the `$(MSG)` of
// the script (its shell context) or of an interpreter's program
// (exec_program_contexts.h), it must read as itself, written as it is, since
// nothing can quote it there. kubelet expands an env value with the items
// before it, so `$(MSG)` also carries the items MSG's own value names; and
// `envFrom` makes each key of a ConfigMap or Secret (after its prefix) a
// variable too, so `$(MSG)` carries every `data`/`stringData` entry of the
// stream that such an item of the container could name MSG; and an item
// whose `valueFrom` takes a ConfigMap's or Secret's key (`configMapKeyRef`,
// `secretKeyRef`) carries every entry of the stream with that key. Which
// ConfigMap or Secret is named is not followed (stricter, never looser);
// one outside the stream is out of reach. An item whose `valueFrom.fieldRef`
// names an annotation (`metadata.annotations['note']`) carries every
// annotation `note` of its document (the pod template's, and any other).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "tokenizer.h"

namespace safesubst {

/// True when a shell script or an interpreter's program item of `tokens`
/// (no references needed) holds `$(NAME)` naming one of its env items (or
/// any `$(...)` where an `envFrom` may bring any name): a
/// render streaming scalar by scalar gives way to the whole render there.
bool MayCarryEnvValues(std::string_view text, const Tokens& tokens);

/// True when `text` may hold an `envFrom` item or a `configMapKeyRef` or
/// `secretKeyRef` key, written plainly or spelled with a double-quoted
/// escape (`\x`, `\u`, `\U`, or an escaped line break in an explicit `?`
/// key). The values such an item takes are checked with every document of
/// the stream, so a stream holding one is not rendered in pieces
/// (parallel_render.h): a Secret in one piece and its Pod in another would
/// each be checked alone.
bool MayTakeOtherObjectsEntries(std::string_view text);

/// How many env values a template's `$(NAME)` references may carry in all
/// (each counted once per reference): each value is checked at each
/// `$(NAME)` it reaches, so 2,000 references each carrying 2,000 items
/// took 2.9 s, and a 1 MiB template could take minutes. Real templates carry
/// a few hundred; beyond this the render refuses, at the reference.
inline constexpr std::size_t kMaxCarriedEnvValues = 1'000'000;

/// The env items whose values each `$(NAME)` of a template stands for.
class CarriedEnvValues {
 public:
  /// `tokens` (with its references) must outlive this.
  CarriedEnvValues(std::string_view text, const Tokens& tokens);

  /// The `value` scalars that kubelet writes at `reference`, a `$(NAME)` in
  /// `scalar`: those of the env item NAME of the container (or other object)
  /// holding `scalar`, and, transitively, of the earlier items its value names.
  std::vector<std::uint32_t> Of(const Reference& reference) const;

  /// True when `scalar`, which Of gave, is a base64 `data` entry (a
  /// Secret's): kubelet writes its decoding.
  bool IsBase64Entry(std::uint32_t scalar) const { return base64_entries_.count(scalar) > 0; }

 private:
  struct Item {
    std::uint32_t list = 0;  // the `env` sequence
    std::int32_t index = -1;
    std::vector<std::uint32_t> values;
    // The keys its `valueFrom` takes from a ConfigMap or Secret (`secretKeyRef: {name: s, key: msg}`).
    std::vector<std::string> data_keys;
    // The annotations its `valueFrom.fieldRef` takes (the Downward API: `metadata.annotations['note']`).
    std::vector<std::string> annotations;
  };
  const Item* Find(std::uint32_t document, std::uint32_t owner, std::string_view name) const;
  // Adds the values of `item` and of the earlier items they name, each item
  // once (`visited`): `E2: $(E1)$(E1)`, `E3: $(E2)$(E2)`... would otherwise
  // be followed 2^n times.
  void AddCarried(std::uint32_t document, std::uint32_t owner, const Item& item, std::set<const Item*>* visited,
                  std::vector<std::uint32_t>* out) const;

  // Adds the `data`/`stringData` entries of the stream whose key is `key`.
  void AddDataEntries(std::string_view key, std::vector<std::uint32_t>* out) const;

  const Tokens& tokens_;
  // By document, owner of the `env` list (a container's mapping), and name.
  std::map<std::tuple<std::uint32_t, std::uint32_t, std::string>, Item, std::less<>> items_;
  // The names of the `$(NAME)` references of each env value scalar.
  std::map<std::uint32_t, std::vector<std::string_view>> named_by_value_;
  // `envFrom`: the prefixes of each owner's items (by document and owner),
  // and the `data`/`stringData` entries of the stream by key, any object's:
  // which ConfigMap or Secret an item names is not followed.
  std::map<std::pair<std::uint32_t, std::uint32_t>, std::vector<std::string>> env_from_;
  std::map<std::string, std::vector<std::uint32_t>, std::less<>> data_by_key_;
  std::set<std::uint32_t> base64_entries_;  // among those
  // The entries of the `annotations` mappings of each document, by key: any
  // object's of the document (which the Downward API reads is not followed).
  std::map<std::pair<std::uint32_t, std::string>, std::vector<std::uint32_t>> annotations_;
};

}  // namespace safesubst
