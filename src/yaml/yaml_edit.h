// SPDX-License-Identifier: Apache-2.0
// Byte-preserving edits of one YAML document: delete a path, set a path to a
// value, merge a fragment into a path (SPEC Rule 4).
//
// Every edit is planned on a Layout (yaml_layout.h) of the document and
// applied as byte-range replacements, so everything outside the changed nodes
// keeps its bytes: comments, key order, indentation, quoting, line breaks.
//  - A deleted entry or item takes its lines with it: the full-line comments
//    directly above it at its own indentation, its value lines, and the deeper
//    comment lines right after it. Deleting the last entry of a mapping leaves
//    `{}` (a sequence: `[]`).
//  - New entries are the fragment's own bytes (its comments and scalar styles,
//    literal blocks included), re-indented to the target mapping's column and
//    appended after its last entry. A replaced value is the fragment's value
//    bytes, re-indented likewise.
//  - Merging: mappings merge deeply; on anything else the fragment wins;
//    sequences are replaced, or appended to with `append`.
//  - A flow collection that an edit must reach into (`{a: 1}` receiving a key)
//    is first re-emitted in block style (EmitSlotText); only that node changes.
//  - Set values are YAML text: one line goes after `key: `; a block value is
//    indented one step below its key, in the document's own indentation step.
// Line breaks of inserted text follow the document (CRLF stays CRLF).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "yaml_path.h"

namespace safesubst::detail {

class Layout;

/// How an edit ended.
struct EditOutcome {
  enum class Status : std::uint8_t {
    kOk,       ///< `text` holds the edited document
    kNoMatch,  ///< the path selects nothing; `message` says where it stops matching
    kError,    ///< the edit cannot be done; `message` says why
  };
  /// Which input an error points into.
  enum class Source : std::uint8_t { kDocument, kFragment, kValue };

  Status status = Status::kOk;
  std::string text;          ///< kOk: the whole edited document
  std::size_t matched = 0;   ///< kOk: nodes edited (for set: also keys created)
  std::string message;       ///< kNoMatch, kError
  Source source = Source::kDocument;
  std::size_t offset = 0;    ///< kError: where in `source`'s text, when it points at one
  bool has_offset = false;
  /// kOk: the layout of `text` (Layout::Scan) where the edit knows it without
  /// a new scan (a delete that removes whole lines), else null. It views the
  /// bytes of `text` where the edit wrote them: Rebind it to the string that
  /// holds them before use.
  std::shared_ptr<Layout> layout;

  bool ok() const { return status == Status::kOk; }
};

/// How an edit reads the documents it edits (yaml_layout.h).
enum class EditReading : std::uint8_t {
  /// The tokenizer's reading (Layout::Scan) plans alone; an edit that does
  /// not succeed so is planned again kCrossChecked, so that its refusal is
  /// the one yaml-cpp's reading gives. The caller parses the edited text
  /// (the witness).
  kTokenizer,
  /// yaml-cpp parses every text too, and its tree must agree with the
  /// layout (Layout::ScanChecked).
  kCrossChecked,
};

/// The layouts (Layout::Scan) a caller already has of an edit's texts: the
/// kTokenizer reading plans on them instead of scanning the texts again.
struct EditLayouts {
  const Layout* document = nullptr;  ///< of the document (or EditOutcome::layout of the edit that wrote it)
  const Layout* source = nullptr;    ///< of the fragment or the value
};

/// Deletes every node `path` selects from `document` (one YAML document).
EditOutcome DeletePath(std::string_view document, const YamlPath& path,
                       EditReading reading = EditReading::kTokenizer, const EditLayouts& layouts = {});

/// Sets every node `path` selects to `value_yaml` (YAML text, one node). When
/// the last selector is `.key` and the mapping has no such key, the key is
/// appended to it (a null or `{}` parent becomes a mapping).
EditOutcome SetPath(std::string_view document, const YamlPath& path, std::string_view value_yaml,
                    EditReading reading = EditReading::kTokenizer, const EditLayouts& layouts = {});

/// Merges `fragment` (YAML text, one document) into every node `path` selects.
EditOutcome MergeAtPath(std::string_view document, const YamlPath& path, std::string_view fragment, bool append,
                        EditReading reading = EditReading::kTokenizer, const EditLayouts& layouts = {});

}  // namespace safesubst::detail
