// SPDX-License-Identifier: Apache-2.0
// Reading YAML with yaml-cpp, into its nodes or a YamlStream (yaml_tree.h),
// without its endless loop.
//
// yaml-cpp 0.7 never gets past a document that starts with a token no node
// can start with (a `,` outside [] or {}, found by fuzzing): LoadAll appends
// empty documents until memory runs out, and an event-driven parse reports
// the same empty document forever. Every document after the first begins at
// a `---`/`...` marker line, so a stream holds at most markers + 1 documents;
// one more means the parser stopped making progress. Every caller that lets
// yaml-cpp read a whole stream goes through here. Internal to the library.
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "yaml_tree.h"

namespace safesubst::detail {

/// What the error says about a runaway document (after "invalid YAML: ").
inline constexpr std::string_view kRunawayDocumentMessage =
    "a document here starts with a token that cannot start a node (such as ',' outside [] or {})";

/// The error's message where yaml-cpp fails on valid YAML it misreads
/// (Tokens::yaml_cpp_misreads), instead of its own, which calls it invalid.
inline constexpr std::string_view kMisreadMessage =
    "yaml-cpp, the parser this needs, misreads this valid YAML (a line not indented past its anchor or tag); "
    "indent the scalar's lines past its anchor or tag";

/// The error's message where yaml-cpp and the tokenizer read a valid text
/// into different nodes (TakeTokenizerDecoding).
inline constexpr std::string_view kOtherNodesMessage =
    "yaml-cpp, the parser this needs, reads the nodes here otherwise than YAML does; "
    "write this part in another style (block or flow, other quoting)";

/// yaml-cpp's message for `error`, except where it misleads: its depth
/// guard says "bad file".
std::string DescribeParseError(const YAML::Exception& error);

/// The most documents `text` can hold: lines starting with `---` or `...`, plus one.
std::size_t MaxDocumentCount(std::string_view text);

/// yaml-cpp's reading of every document of `text` as a YamlStream (the tree
/// of ParseYamlStreamWithYamlCpp, marks included) with the tokenizer's
/// decoding (TakeTokenizerDecoding), guarded: throws YAML::ParserException
/// (mark at the runaway document, message kRunawayDocumentMessage) instead of
/// looping, with kMisreadMessage where it fails on valid YAML it misreads,
/// kOtherNodesMessage where it reads other nodes than the tokenizer, and like
/// LoadAll for every ordinary syntax error.
std::shared_ptr<const YamlStream> LoadYamlStream(std::string_view text);

/// yaml-cpp 0.7 decodes some scalars otherwise than YAML and every other
/// reader (PyYAML, libfyaml): a kept folded block followed by blank lines
/// loses them (`k: >+\n  x\n\nl: 1` is "x\n", not "x\n\n"), a quoted
/// scalar of blank lines reads as "" (yaml-test-suite NAT4). A tree that is
/// written out again (a `type: yaml` value, a fragment, a `set` value) must
/// say what readers read: this gives each scalar of `stream`, yaml-cpp's
/// reading of `text`, the tokenizer's decoding of the same node (the
/// tokenizer passes the suite). Returns where the two read different nodes
/// (kind, place or parent), or nothing; where the tokenizer refuses the
/// text, which yaml-cpp took, the tree is left as yaml-cpp read it.
std::optional<std::size_t> TakeTokenizerDecoding(std::string_view text, YamlStream* stream);

/// Parses `text` (every document of the stream), with the tokenizer's
/// decoding. Returns false and fills `error` when yaml-cpp rejects it or
/// reads other nodes. Never throws.
bool ParseYamlStream(std::string_view text, YamlStream* stream, YamlParseError* error);

/// yaml-cpp's own reading, for where it is the independent witness (the
/// structure invariant): no tokenizer decoding. ParseYamlStream first tries
/// the faster ReadYamlStreamFromSpans (yaml_span_tree.h), which builds the
/// same tree or declines.
bool ParseYamlStreamWithYamlCpp(std::string_view text, YamlStream* stream, YamlParseError* error);

/// Throws as LoadYamlStream does, without building the documents: for a
/// caller that only asks whether `text` parses (an unknown alias included).
void CheckAllDocumentsParse(std::string_view text);

/// While one lives on a thread, LoadYamlStream there remembers the
/// last few texts of up to 64 KiB it loaded, with their trees, and
/// answers the same bytes again without a yaml-cpp pass (so does
/// CheckAllDocumentsParse): the step engine plans its edits without yaml-cpp,
/// but where a plan needs yaml-cpp's tree (a flow collection to re-emit, a
/// multi-line scalar to compare), it is the same merge fragment for every
/// document and app of a batch. The answer depends on the bytes alone. The
/// outermost one overwrites and forgets the texts when it ends: they may hold
/// secret values.
class RememberLoadedText {
 public:
  RememberLoadedText();
  ~RememberLoadedText();
  RememberLoadedText(const RememberLoadedText&) = delete;
  RememberLoadedText& operator=(const RememberLoadedText&) = delete;

 private:
  bool outermost_;
};

}  // namespace safesubst::detail
