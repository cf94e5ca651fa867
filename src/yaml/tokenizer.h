// SPDX-License-Identifier: Apache-2.0
// The tokenizer: one forward pass over a YAML template that records, for every
// scalar, comment and `$` reference, where it is and in which YAML context.
//
// It is not a full YAML parser: it builds no tree and never copies scalar text.
// Spans are offsets into the caller's buffer, which must outlive the Tokens.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "references.h"
#include "safesubst/diagnostic.h"
#include "source_runs.h"
#include "yaml_spans.h"

namespace safesubst {

enum class ScalarStyle : std::uint8_t { kPlain, kSingleQuoted, kDoubleQuoted, kLiteral, kFolded };
enum class Chomping : std::uint8_t { kClip, kStrip, kKeep };

/// One segment of a node path. Paths are stored as a tree of segments so that
/// a scalar costs one index, not one string. A template may hold millions:
/// the two 4-byte fields stand together, so that a segment takes 24 bytes.
struct PathSegment {
  std::uint32_t parent = kRoot;  ///< index of the parent segment, or kRoot
  std::int32_t index = -1;       ///< sequence index, or -1 for a mapping key
  /// Mapping key, or empty: a scalar key's value, which is its source text
  /// with the quotes stripped, or, for a key whose text is not its value (an
  /// escape such as `"comm\x61nd"`, a `''`, a line break, a block scalar),
  /// the decoded value (in Tokens::decoded_keys). A collection or an alias
  /// as a key: the start of its text.
  std::string_view key;

  static constexpr std::uint32_t kRoot = 0xffffffffu;
};

/// A scalar node (key or value) of the template. An empty node (`key:` with
/// nothing after it, an empty `- ` item, a `---` document without content) is
/// a kPlain scalar of length 0 placed just after its indicator.
struct Scalar {
  ScalarStyle style = ScalarStyle::kPlain;
  Chomping chomping = Chomping::kClip;  ///< block scalars only
  ContextClass context = ContextClass::kData;
  bool is_key = false;
  bool in_flow = false;  ///< inside a flow collection ([...] or {...})
  /// Set by ClassifyShell (classify.h): the scalar is a shell script (SPEC Rule 3).
  bool is_shell = false;
  /// With is_shell: bash runs the script (its `#!` or command line names bash,
  /// zsh or ksh), not whatever /bin/sh is (ScriptShells in shell.h).
  bool bash_script = false;
  /// Set by MarkShellScripts: an item of a command line run without a shell
  /// that runs an interpreter (`[python3, -c, ...]`), or a program file whose
  /// `#!` line names one (`#!/usr/bin/env python3`), whose values the render
  /// checks as program text (exec_program_contexts.h). Never with is_shell.
  bool exec_program = false;
  /// Set by MarkStartupVariables: the value of a container `env` item (or a
  /// ConfigMap or Secret entry) named like a variable that a shell reads as
  /// code at start-up (`BASH_ENV`, `PS4`): a StartupReading, 0 for none.
  std::uint8_t startup_variable = 0;
  std::uint8_t indent_indicator = 0;  ///< explicit indentation indicator of `|2-`, else 0
  /// Block scalars: indentation (in spaces) of the content lines.
  /// Flow scalars: indentation of the line the scalar starts on.
  std::uint32_t indent = 0;
  /// Raw span: from the opening quote or block indicator (or the first character
  /// of a plain scalar) to the end of the last content character (closing quote
  /// included; for block scalars the end of the last non-empty content line).
  std::size_t offset = 0;
  std::size_t length = 0;
  std::uint32_t line = 0;
  std::uint32_t column = 0;
  std::uint32_t document = 0;  ///< 0-based index of the document in the stream
  std::uint32_t path = PathSegment::kRoot;  ///< index into Tokens::paths
};

struct Comment {
  std::size_t offset = 0;  ///< of the `#`
  std::size_t length = 0;  ///< up to, not including, the line break
  std::uint32_t line = 0;
  std::uint32_t column = 0;
};

struct Marker {
  enum class Kind : std::uint8_t { kDirective, kDocumentStart, kDocumentEnd };
  Kind kind = Kind::kDocumentStart;
  std::size_t offset = 0;
  std::size_t length = 0;
  std::uint32_t line = 0;
  std::uint32_t column = 0;
};

/// An alias node (`*name`): the node it stands for is written at its anchor.
struct Alias {
  std::size_t offset = 0;  ///< of the `*`
  std::size_t length = 0;  ///< of `*name`
  std::uint32_t document = 0;  ///< 0-based index of the document in the stream
  /// Where the alias stands: the path of the entry or item it is (for an
  /// alias used as a key, the path of its mapping).
  std::uint32_t path = PathSegment::kRoot;
  std::string_view name;  ///< without the `*`
};

/// An anchor (`&name`). For one known to be on a mapping, what a `<<: *name`
/// merge brings is the keys whose parent is `path`. An anchor plainly belongs
/// to a mapping on the line above it or right before its `{`; one on the line
/// of the mapping's first key belongs to that key in YAML. Every other
/// anchor is kept too, unknown, so that an alias never finds an earlier
/// anchor of the same name in its place.
struct Anchor {
  std::size_t offset = 0;  ///< of the `&`
  std::size_t length = 0;  ///< of `&name`
  std::uint32_t document = 0;
  std::string_view name;  ///< without the `&`
  bool on_mapping = false;  ///< known to be the anchor of the mapping at `path`
  std::uint32_t path = PathSegment::kRoot;
};

/// Everything the tokenizer found, in source order within each vector.
struct Tokens {
  std::vector<Scalar> scalars;
  /// The aliases that can stand for part of a container's command line: a
  /// `command` or `args` value or item, a `<<` merge (or an item of one), or
  /// a mapping key (which may stand for `command`). Only these are kept; a
  /// stream may hold millions of other aliases.
  std::vector<Alias> command_line_aliases;
  /// Every anchor (see Anchor), in source order.
  std::vector<Anchor> anchors;
  std::vector<Reference> references;
  std::vector<Comment> comments;
  std::vector<Marker> markers;
  std::vector<PathSegment> paths;
  /// Offsets (in source order) of valid YAML that yaml-cpp 0.7 reads
  /// differently: a line of an anchored or tagged scalar that is not indented
  /// past its anchor or tag (`- &a |-` with the text under the `-`), where
  /// yaml-cpp ends the node. The tokenizer follows the YAML test suite; a
  /// check that would rely on yaml-cpp's reading of the stream must not.
  std::vector<std::size_t> yaml_cpp_misreads;
  /// The decoded keys PathSegment::key points into: shared, so that a copy
  /// of the tokens keeps its keys alive; a deque, so that they never move.
  std::shared_ptr<std::deque<std::string>> decoded_keys;
  /// Located errors (unterminated `${`, unterminated quotes, ...). Tokenizing
  /// continues after an error so that all of them are reported at once.
  Diagnostics diagnostics;

  /// The dotted path of a scalar, e.g. `spec.template.spec.containers[0].args[0]`.
  /// A key scalar has the path of the entry it names.
  std::string PathString(std::uint32_t path) const;
};

struct TokenizerOptions {
  /// File name used in diagnostics.
  std::string file_name = "<stdin>";
  /// Most errors, and most warnings, kept (Limits::max_errors); the rest are
  /// counted in one note. 0 keeps them all.
  std::size_t max_errors = kDefaultMaxErrors;
};

/// Tokenizes `text` (UTF-8, optional BOM, LF or CRLF line ends).
/// Line breaks are LF, CRLF or a lone CR, as in YAML. A BOM at the start is
/// skipped: offsets count its three bytes, columns on the first line do not.
/// Scalars, references, comments and markers are each in source order.
Tokens Tokenize(std::string_view text, const TokenizerOptions& options = {});

/// Decodes a scalar's value as a YAML parser would: escapes, line folding,
/// block indentation and chomping. Used by tests and by re-encoding; allocates.
/// With `source_offsets`, also records for every decoded byte the offset in
/// `text` it came from (an escape's bytes all map to its backslash), so that a
/// position in the value (say, a `$` the shell lexer looks at) maps back to
/// the template.
std::string DecodeScalar(std::string_view text, const Scalar& scalar,
                         std::vector<std::size_t>* source_offsets = nullptr);

/// DecodeScalar, recording where the bytes came from as runs.
std::string DecodeScalar(std::string_view text, const Scalar& scalar, SourceRuns* sources);

/// What TokenizeWithSpans records besides the spans.
enum class SpanReading : std::uint8_t {
  kAllTokens,     ///< everything Tokenize records
  kNoReferences,  ///< no `$` references (a placeholder-dense template has millions; limits need none)
  kNodesOnly,     ///< nor the scalars and path segments: the recorder has what is wanted
};

/// Tokenizes `text` like Tokenize and also records its node spans in `spans`
/// (cleared first). For malformed YAML (tokens.diagnostics holds an error)
/// the spans are whatever could be read: their structure is not meaningful.
Tokens TokenizeWithSpans(std::string_view text, NodeSpans* spans, const TokenizerOptions& options = {},
                         SpanReading reading = SpanReading::kAllTokens);
/// TokenizeWithSpans, telling `recorder` of the nodes as they are read
/// (a NodeSpans recorder, or one that keeps less: yaml_nesting.h).
Tokens TokenizeWithSpans(std::string_view text, NodeRecorder* recorder, const TokenizerOptions& options = {},
                         SpanReading reading = SpanReading::kAllTokens);

/// The length of the double-quoted escape sequence whose backslash is at
/// `text[at]`: 2 for one-character escapes (`\n`, `\"`, ...), 4, 6 or 10 for
/// `\x`, `\u` and `\U` with their hexadecimal digits; 0 when it is not a
/// complete, valid YAML escape.
std::size_t EscapeLength(std::string_view text, std::size_t at);

/// Returns the human name of a context class: "comment", "script" or "data".
std::string_view ContextName(ContextClass context);
std::string_view StyleName(ScalarStyle style);

}  // namespace safesubst

// The references of a template found scalar by scalar, when they are needed,
// instead of kept for the whole template (Tokens::references): a
// placeholder-dense template holds millions, and a render that streams
// (render.cc) keeps none of them longer than the scalar it is writing.
namespace safesubst::detail {

/// Tokenize, with Tokens::references left empty. The references are still
/// scanned, so that the diagnostics are Tokenize's (an unterminated `${`).
Tokens TokenizeWithoutReferences(std::string_view text, const TokenizerOptions& options);

/// Takes the scalars of TokenizeAsRead one at a time, as they are read.
class ScalarSink {
 public:
  virtual ~ScalarSink() = default;
  /// `tokens->scalars` holds the scalar just read, alone; `tokens->paths`
  /// its path and its ancestors' (the segments of finished entries are
  /// reused). Both change at the next call.
  virtual void Take(Tokens* tokens) = 0;
  /// Some scalar of this read is handed over before its path is whole (a
  /// collection or an explicit `? ` entry as a mapping key gets its key
  /// after its own scalars): the paths seen are not to be relied on.
  virtual void PathsChanged() = 0;
  /// False once the sink wants no more scalars: the tokenizer stops at the
  /// next document (a stream of thousands need not be read to its end).
  virtual bool WantsMore() const { return true; }
};

/// TokenizeWithoutReferences into `tokens`, handing each scalar to `sink`
/// as it is read instead of keeping it, so that a placeholder-dense template
/// costs no record per scalar (render.cc streams it as it is read). The rest
/// of Tokens is kept as Tokenize keeps it.
void TokenizeAsRead(std::string_view text, const TokenizerOptions& options, Tokens* tokens, ScalarSink* sink);

/// Where a reference stands, for ForEachReferenceOf.
enum class ReferencePlace : std::uint8_t {
  kLocated,    ///< line and column, as Tokenize finds them
  kOffsetOnly, ///< line and column left 0: a render that reports nothing per reference skips counting lines
};

/// Calls `each` with every reference of scalar `index` of `tokens`, in source
/// order, exactly as Tokenize records it in Tokens::references (line, column,
/// context and scalar filled in; the context is the scalar's, so after
/// Classify the classified one). `tokens` are `text`'s.
void ForEachReferenceOf(std::string_view text, const Tokens& tokens, std::uint32_t index,
                        const std::function<void(const Reference&)>& each,
                        ReferencePlace place = ReferencePlace::kLocated);

}  // namespace safesubst::detail
