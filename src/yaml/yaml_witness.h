// SPDX-License-Identifier: Apache-2.0
// The fast witness of step edits: libfyaml, a YAML parser independent of the
// tokenizer (which plans the edits) and of yaml-cpp, reads the edited text.
//
// The step engine asks it first and asks yaml-cpp (CheckAllDocumentsParse,
// yaml_load.h) only where it does not accept, so every error and its message
// stay yaml-cpp's. libfyaml reads a Kubernetes document for about a seventh of
// yaml-cpp's instructions (150 a byte against 1,000), passes every valid case
// of the yaml-test-suite and refuses every invalid one; yaml-cpp refuses 15 of
// the valid ones and accepts 34 of the invalid ones. Internal to the library.
#pragma once

#include <string_view>

namespace safesubst::detail {

/// What the witness says of a text.
enum class WitnessVerdict : unsigned char {
  kAccepts,         ///< libfyaml reads every document, and every alias names an anchor before it in its document
  kRefuses,         ///< libfyaml refuses it, or an alias names no anchor (what the witness of an edit is for)
  kLeavesToYamlCpp  ///< the witness does not vouch either way (below); yaml-cpp decides, as before
};

/// Reads `text` with libfyaml. It leaves to yaml-cpp text nested deeper than
/// the witness goes (yaml-cpp's depth guard), text that is not plain UTF-8
/// (CheckTextEncoding: libfyaml stops at a NUL byte and loops on some invalid
/// UTF-8), a directive, a tag other than `!`, `!local` or `!!type` (libfyaml
/// reads tags as YAML 1.1 did), and what libfyaml takes glued that the spec
/// does not: an anchor or tag before `{` or `[`, a `?` before `,`, `]` or `}`;
/// and a tab in the blanks after `:`, `?` or `-`, where libfyaml 0.7.12 can
/// crash. Where libfyaml may take one of two forms the spec refuses (an empty
/// mapping key after properties, `a: &x : b`; an implicit key over two lines
/// in a flow sequence), the tokenizer reads the text too, and any error of
/// its leaves the text to yaml-cpp. Never throws, prints nothing.
WitnessVerdict ReadWithWitness(std::string_view text);

}  // namespace safesubst::detail
