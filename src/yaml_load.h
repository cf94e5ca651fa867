// SPDX-License-Identifier: Apache-2.0
// Loading YAML with yaml-cpp without its endless loop.
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
#include <string>
#include <string_view>
#include <vector>

namespace safesubst::detail {

/// What the error says about a runaway document (after "invalid YAML: ").
inline constexpr std::string_view kRunawayDocumentMessage =
    "a document here starts with a token that cannot start a node (such as ',' outside [] or {})";

/// The error's message where yaml-cpp fails on valid YAML it misreads
/// (Tokens::yaml_cpp_misreads), instead of its own, which calls it invalid.
inline constexpr std::string_view kMisreadMessage =
    "yaml-cpp, the parser this needs, misreads this valid YAML (a line not indented past its anchor or tag); "
    "indent the scalar's lines past its anchor or tag";

/// yaml-cpp's message for `error`, except where it misleads: its depth
/// guard says "bad file".
std::string DescribeParseError(const YAML::Exception& error);

/// The most documents `text` can hold: lines starting with `---` or `...`, plus one.
std::size_t MaxDocumentCount(std::string_view text);

/// yaml-cpp's LoadAll, guarded: throws YAML::ParserException (mark at the
/// runaway document, message kRunawayDocumentMessage) instead of looping,
/// with kMisreadMessage where it fails on valid YAML it misreads, and like
/// LoadAll for every ordinary syntax error.
std::vector<YAML::Node> LoadAllDocuments(std::string_view text);

/// Throws as LoadAllDocuments does, without building the documents: for a
/// caller that only asks whether `text` parses (an unknown alias included),
/// at half the cost (LoadAllDocuments parses twice: once guarded, once to
/// build).
void CheckAllDocumentsParse(std::string_view text);

/// While one lives on a thread, CheckAllDocumentsParse there remembers the
/// last text of up to 64 KiB it accepted, and accepts the same bytes again
/// without a yaml-cpp pass: the step engine checks each document it edits,
/// then lays the same text out for the next step (an eighth of a render with
/// two steps). The check depends on the bytes alone. The outermost one
/// overwrites and forgets the text when it ends: it may hold secret values.
class RememberAcceptedText {
 public:
  RememberAcceptedText();
  ~RememberAcceptedText();
  RememberAcceptedText(const RememberAcceptedText&) = delete;
  RememberAcceptedText& operator=(const RememberAcceptedText&) = delete;

 private:
  bool outermost_;
};

}  // namespace safesubst::detail
