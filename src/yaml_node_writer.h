// SPDX-License-Identifier: Apache-2.0
// The one writer of YAML trees (yaml_tree.h): a node written back as YAML
// text with yaml_encoding's plain-scalar rules and quoting. Aliases are
// written out in full within an ExpansionBudget; two equal keys in a mapping
// are refused. Two uses:
//  * a `type: yaml` value replacing a placeholder (EncodeYamlNode): block
//    style where it may stand, scalars plain only where every reader takes
//    them for the same string (or they were plain);
//  * a node of a manifest or values file kept as YAML text (a `type: yaml`
//    default or value, a `set` step's value): a document of its own that
//    keeps what the source wrote, flow collections flow and quoted scalars
//    quoted, so that a quoted `"31"` stays a string.
// Internal to the library.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "yaml_encoding.h"
#include "yaml_tree.h"

namespace safesubst::detail {

/// EncodeYamlNode's writing: node `index` of `stream` for the place of a
/// placeholder after `key: ` or `- ` (see EncodeYamlNode for `parent_indent`
/// and `block_allowed`), appended to `out`. Returns false and sets `error`
/// (its message starting "the value ...") when a bound of `budget` is passed,
/// a mapping has a key twice, or the text would grow past `max_written`.
bool WriteValueNode(const YamlStream& stream, std::uint32_t index, std::uint32_t parent_indent, bool block_allowed,
                    ExpansionBudget* budget, std::size_t max_written, std::string* out, YamlValueError* error);

/// Writes `node` as a YAML document of its own, as the source wrote it (see
/// above), without a final line break. Returns false and sets `*problem`
/// ("contains a recursive alias", "has the key 'a' twice", ...) when a bound
/// of `budget` is passed or a mapping has a key twice.
bool NodeAsYaml(const YamlRef& node, ExpansionBudget* budget, std::string* yaml, std::string* problem);

/// An explicit tag as it is written before a node: `!!str` for
/// `tag:yaml.org,2002:str`, a local tag (`!local`) as it is, any other as
/// `!<tag>`; empty for the non-specific tags `?` and `!` and for none.
std::string TagText(const std::string& tag);

}  // namespace safesubst::detail
