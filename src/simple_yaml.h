// SPDX-License-Identifier: Apache-2.0
// A fast reader for the plain YAML that manifests are usually written in.
//
// yaml-cpp costs about 2,000 instructions per byte and half a million to
// start: for a 300-byte manifest, more than rendering the 5 KB template it
// declares variables for. Most manifests are block mappings of plain words,
// `{type: int}` flow mappings and `[A, B]` lists. This reader builds the same
// YamlStream as yaml-cpp for that subset, and declines everything else
// (anchors, tags, block scalars, escapes, several documents, anything
// malformed): the caller then asks yaml-cpp, which also words every error.
// Internal to the library.
#pragma once

#include <string_view>

#include "yaml_tree.h"

namespace safesubst::detail {

/// Parses `text` when it is within the subset, into the tree yaml-cpp would
/// build, marks included. False when it is not (`*stream` is then cleared):
/// never an error of its own, only "ask yaml-cpp".
///
/// The subset: one document whose root is a block mapping; keys are plain
/// words (letters, digits, `_./`, then also `-+` and single spaces, and `[]`
/// outside flow collections); values are such words, quoted text without
/// escapes, flow mappings and sequences of those on one line, nested block
/// mappings, and block sequences of scalars, flow collections or mappings
/// (`- key: value`); comments and blank lines anywhere. Only printable ASCII
/// outside comments.
bool ParseSimpleYaml(std::string_view text, YamlStream* stream);

}  // namespace safesubst::detail
