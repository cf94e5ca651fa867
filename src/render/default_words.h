// SPDX-License-Identifier: Apache-2.0
// Default words of the Flux/clusterctl dialect (SPEC Rule 1): where the word
// of `${X:-word}`, `${X:=word}` (or `${X:+word}` for a set X) applies, it is
// template text, spliced as written in place of the form, and its own
// references are then substituted like any other of the template:
// `key: ${V:=""}` becomes `key: ""`, `${VNET:=${CLUSTER_NAME}-vnet}` becomes
// `${CLUSTER_NAME}-vnet` and then, encoded where it lands, CLUSTER_NAME's
// value followed by `-vnet`.
//
// The render splices the words first (this file), then renders the spliced
// text as the template, and maps what it reports back to the template.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "safesubst/diagnostic.h"
#include "safesubst/render.h"
#include "tokenizer.h"

namespace safesubst::detail {

/// The template with default words spliced in, and the way back.
class DefaultWordSplicer {
 public:
  /// Whether the word of a default form found inside another form's word
  /// applies (the render's decision for it, read where the outer form stands).
  using Applies = std::function<bool(const Reference& inner)>;

  /// `text` is the template; it must outlive the splicer. `flux`: the
  /// template is read as Flux reads it, where a word's `$` that starts no
  /// `${` is text, `$$` too, and elsewhere `$$` is a `$`: such a `$` is
  /// spliced as `$$`, which the render of the spliced text writes as `$`.
  DefaultWordSplicer(std::string_view text, Applies applies, bool flux = false);

  /// Replaces the form `reference` (a kBracedDefault of `text`, after any
  /// spliced before) by its word, with the default forms inside the word
  /// that apply replaced by theirs, recursively. Returns an empty string, or
  /// why the word cannot be spliced there (it would join a `$NAME` next to
  /// it into another name, or words nest too deep).
  std::string Splice(const Reference& reference);

  /// The template with every spliced form replaced. Call once, last.
  std::string Finish();

  /// The location in the template of `location` in the spliced text
  /// (located by line and column, or by offset when those are 0).
  Location MapBack(const Location& location) const;

 private:
  struct Edit {
    std::size_t original;      // offset of the form in the template
    std::size_t original_end;  // of the form's end
    std::size_t word;          // offset of its word in the template
    std::size_t spliced;       // offset of the replacement in the spliced text
    std::size_t spliced_end;
  };
  std::string Word(const Reference& reference, int depth, std::string* problem) const;
  void AppendWordText(std::string_view text, std::string* word) const;
  std::size_t OriginalOffset(std::size_t spliced) const;

  std::string_view text_;
  Applies applies_;
  bool flux_;
  std::string spliced_;
  std::size_t copied_ = 0;  // of text_, into spliced_
  std::vector<Edit> edits_;
  std::vector<std::size_t> spliced_line_starts_;  // built by Finish
};

}  // namespace safesubst::detail
