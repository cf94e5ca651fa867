// SPDX-License-Identifier: Apache-2.0
// The YamlStream tree (yaml_tree.h) read from the tokenizer's node spans.
//
// yaml-cpp costs about 2,000 instructions per byte and half a million to
// start: for a 300-byte manifest, more than rendering the 5 KB template it
// declares variables for. The tokenizer already reads YAML; its node spans
// (yaml_spans.h) give the tree, and this file turns them into the tree
// yaml-cpp would build, marks included. Where yaml-cpp could build something
// else (tags, directives, empty nodes it places differently, input encodings,
// anything malformed) it declines: the caller then asks yaml-cpp, which also
// words every error. Internal to the library.
#pragma once

#include <string_view>

#include "yaml_tree.h"

namespace safesubst::detail {

/// Reads `text` into the tree yaml-cpp would build, marks included, with the
/// tokenizer's decoding of each scalar (TakeTokenizerDecoding). False
/// when it cannot be sure of that (`*stream` is then cleared): never an error
/// of its own, only "ask yaml-cpp".
bool ReadYamlStreamFromSpans(std::string_view text, YamlStream* stream);

}  // namespace safesubst::detail
