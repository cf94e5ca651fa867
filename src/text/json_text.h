// SPDX-License-Identifier: Apache-2.0
// JSON output, written with nlohmann/json (Debian nlohmann-json3-dev) rather
// than by hand: `lint --format json|sarif`, `vars --format json`.
//
// JSON text is UTF-8, but a file name is bytes: a name (or any other string)
// that is not valid UTF-8 is written with U+FFFD REPLACEMENT CHARACTER for
// each invalid sequence, so that the document always parses. The name shown
// is then not the name on disk; the diagnostics on stderr keep the bytes.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

namespace safesubst {

/// A JSON value whose objects keep their keys in the order they were added,
/// so that the output reads in a fixed, documented order.
using Json = nlohmann::ordered_json;

/// `json` as text: compact when `indent` is negative, else pretty-printed
/// with that many spaces. Invalid UTF-8 becomes U+FFFD; never throws for it.
std::string JsonText(const Json& json, int indent = -1);

/// An array with one compact element per line, as `vars --format json`
/// writes its references: short enough to read, one line per item to grep
/// and diff. Ends without a newline, like JsonText.
std::string JsonLinesText(const Json& array);

}  // namespace safesubst
