// SPDX-License-Identifier: Apache-2.0
// Redaction: the one place that decides what of a message may be shown.
//
// SPEC, Failure behaviour: sensitive values never appear in any message,
// nor any piece of one. Messages are written all over the library, and a
// value reaches them in pieces (a duplicate key of a `type: yaml` value, a
// source line holding one line of a multi-line default, a placeholder
// inside a password that lint finds in the rendered text). Rather than
// every message taking care, a Redactor knows every sensitive value and
// its pieces, and every diagnostic is shown through it (FormatDiagnostic
// below; the CLI prints nothing else about its inputs).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "safesubst/diagnostic.h"
#include "safesubst/manifest.h"
#include "safesubst/values.h"

namespace safesubst {

/// What stands for a masked secret.
inline constexpr std::string_view kMasked = "***";

/// Bytes [first, second) of a text.
using TextRange = std::pair<std::size_t, std::size_t>;

/// `ranges` sorted, overlapping and touching ones joined: each becomes one mask.
std::vector<TextRange> MergedRanges(std::vector<TextRange> ranges);
/// `text` with `ranges` (sorted, disjoint, within it) each replaced by kMasked.
std::string MaskRanges(std::string_view text, const std::vector<TextRange>& ranges);

class Redactor {
 public:
  /// A sensitive value: masks its text and the pieces a message may quote
  /// on their own, its lines and, when it reads as YAML, its keys and
  /// scalars (and their lines). Plain booleans, nulls and numbers shorter
  /// than kMinSubstring are not pieces: they tell next to nothing and are
  /// words of many messages.
  void AddSecret(std::string_view value);
  /// The keys and scalars of the YAML `text` under the top-level keys that
  /// name sensitive variables of `manifest` (a YAML values file: its
  /// entries are masked even when the file or a value is refused).
  void AddValuesFile(std::string_view text, const Manifest& manifest);
  /// The defaults of the variables a manifest `text` marks sensitive, also
  /// when the manifest has errors (their diagnostics quote its lines): the
  /// defaults' pieces, and their source bytes, which may spell a value
  /// escaped. A manifest that does not even parse as YAML but mentions
  /// `sensitive` is hidden whole (HideFile).
  void AddManifest(std::string_view text, const std::string& file);
  /// Every sensitive variable's value in `values` and default in `manifest`.
  void AddValues(const Manifest& manifest, const ValueSet& values);
  /// No line of `file` is shown (a values file whose unparsed lines may be secrets).
  void HideFile(const std::string& file);

  /// True when there is nothing to mask.
  bool empty() const { return pieces_.empty() && spans_.empty() && hidden_.empty(); }
  /// `text` with every secret and piece replaced by kMasked. A piece
  /// shorter than kMinSubstring is masked only as a whole word.
  std::string Mask(std::string_view text) const;
  /// Where Mask masks `text`: its ranges that show a secret or a piece, sorted and merged.
  std::vector<TextRange> Ranges(std::string_view text) const { return Matches(text); }
  /// Also masks every word of `text` (blank-separated, without surrounding
  /// quotes, parentheses and trailing punctuation) of 3 bytes or more that
  /// is part of a secret or piece: for text quoted from a
  /// rendered document, where a message may show any fragment of a value.
  std::string MaskFragments(std::string_view text) const;
  /// The message and the hint masked.
  Diagnostic Mask(Diagnostic diagnostic) const;

  /// A source line as it may be shown, and the 1-based column of the caret in it.
  struct ShownLine {
    std::string text;
    std::uint32_t column = 0;
  };
  /// Line `line` of `source` (the text of `file`) masked, with `column`
  /// moved to where its byte now is; empty for a hidden file.
  ShownLine Line(const std::string& file, const SourceText& source, std::uint32_t line,
                 std::uint32_t column) const;

  /// Pieces shorter than this are masked only where no letter, digit or
  /// `_` touches them: `a` must not turn every "a" of a message into `***`.
  static constexpr std::size_t kMinSubstring = 4;

 private:
  using Range = TextRange;
  void AddPiece(std::string_view piece);
  void AddTextAndLines(std::string_view text);
  /// The ranges of `text` that show a piece, sorted and merged.
  std::vector<Range> Matches(std::string_view text) const;

  std::set<std::string> pieces_;
  std::map<std::string, std::vector<Range>> spans_;  // source bytes spelling secrets, by file
  std::set<std::string> hidden_;
};

/// FormatDiagnostic (diagnostic.h) with nothing `redactor` masks shown: the
/// message, the hint and the source line are masked, the caret moved with them.
std::string FormatDiagnostic(const Diagnostic& diagnostic, const SourceText& source, bool color,
                             const Redactor& redactor);

}  // namespace safesubst
