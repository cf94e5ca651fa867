// SPDX-License-Identifier: Apache-2.0
// The structure invariant at token level: a check of a render that costs at
// most one tokenizer pass over the output instead of two yaml-cpp parses, and
// none when the values are provably inert (EditsProvablyKeepStructure below).
//
// Why it is enough: a render rewrites only the bytes of the scalars it
// substituted into (and drops one `$` of each `$${NAME}` escape); every other
// byte of the output is the template's. So the output keeps the template's
// structure if the project's tokenizer reads it as the same sequence of
// scalars (same document, path and key/value role; sequence indexes and keys
// are part of the path), the unchanged ones at their shifted offsets with
// their length and style, and each rewritten one as exactly one scalar that
// covers exactly the rewritten bytes, of the expected style, whose decoded
// value is the template's decoded value with each reference replaced by its
// value. A value that ends a scalar early, opens a collection, starts a
// comment, becomes an alias or a document marker, or changes a key, moves or
// adds tokens and is caught. The yaml-cpp CompareStructure (invariant.h)
// stays available as the independent, slower check.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "safesubst/diagnostic.h"
#include "invariant.h"
#include "tokenizer.h"

namespace safesubst {

/// One splice of a render: template bytes [offset, offset + length) were
/// replaced by `replacement_length` bytes.
struct TemplateEdit {
  std::size_t offset = 0;
  std::size_t length = 0;
  std::size_t replacement_length = 0;
};

/// What a reference was replaced by, for the expected value of its scalar.
struct ReferenceValue {
  const Reference* reference = nullptr;  ///< into the template's Tokens
  std::string_view value;  ///< the decoded text it stands for in the output
};

/// A template scalar the render rewrote, and what the output must hold there.
struct RewrittenScalar {
  std::uint32_t scalar = 0;  ///< index into the template's Tokens::scalars
  ScalarStyle style = ScalarStyle::kPlain;  ///< style in the output (kDoubleQuoted when requoted)
  /// The references of the scalar that were replaced, in source order: a
  /// view of storage the caller keeps (one flat vector for all scalars, so
  /// that a render of thousands of scalars allocates once, not per scalar).
  std::span<const ReferenceValue> values;
};

/// Checks `output` against `template_text` as described at the top of this
/// file. `tokens` are the template's (as tokenized for the render); `edits`
/// are the render's splices in offset order, each inside one scalar of
/// `rewritten` (ordered by scalar index). Returns the differences (empty when
/// the structure is kept); no value and an error diagnostic when the output
/// does not tokenize cleanly ("rendered output is not valid YAML", located in
/// `file` + " (rendered output)"); no value and no diagnostic when the edits
/// cannot be checked this way (an edit outside the scalars said to hold it, a
/// reference whose expected value is unknown): run CompareStructure then.
Result<std::vector<StructureDifference>> CompareStructureByTokens(std::string_view template_text,
                                                                  const Tokens& tokens, std::string_view output,
                                                                  const std::vector<TemplateEdit>& edits,
                                                                  const std::vector<RewrittenScalar>& rewritten,
                                                                  const std::string& file);

/// The shortcut CompareStructureByTokens takes first: true when the edits
/// provably keep the structure without tokenizing the output, because each
/// rewritten scalar is a single-line plain or quoted scalar, or a block
/// scalar, that is not a key, keeps its style, and holds the template's bytes
/// with values in place of its references, each value made only of bytes
/// that cannot end or restructure a scalar of that style (plain: letters,
/// digits and `_./-+=$@%`, a colon only before one of those; quoted:
/// printable ASCII but the quote and, in double quotes, the backslash; block:
/// one line of printable ASCII after other text on its line). Every other
/// byte of the output is the template's, so the tokenizer would read the
/// same scalars there. False says nothing: the full comparison decides.
bool EditsProvablyKeepStructure(std::string_view template_text, const Tokens& tokens, std::string_view output,
                                const std::vector<TemplateEdit>& edits,
                                const std::vector<RewrittenScalar>& rewritten);

/// The values of one rewritten scalar, walked in source order instead of
/// kept (a streaming render finds them again at each walk): calls `each`
/// with each value until it returns false, and returns whether every value
/// was walked.
using ValueWalk = std::function<bool(const std::function<bool(const ReferenceValue&)>& each)>;

/// EditsProvablyKeepStructure one rewritten scalar at a time, so that a
/// render that writes its output as it goes proves each scalar as it is
/// written, keeping nothing per value (EditsProvablyKeepStructure walks the
/// whole render through it: one proof).
class InPlaceProof {
 public:
  InPlaceProof(std::string_view template_text, const Tokens& tokens) : text_(template_text), tokens_(tokens) {}

  /// The next rewritten scalar, in source order: template scalar `scalar`,
  /// written in `style`, its edits (inside it) adding `growth` bytes, with
  /// `values` in place of its references. `output` is the output written so
  /// far, up to the end of this scalar at least. False says nothing: the
  /// full comparison decides.
  bool Next(std::uint32_t scalar, ScalarStyle style, std::ptrdiff_t growth, std::string_view output,
            std::span<const ReferenceValue> values);
  bool Next(std::uint32_t scalar, ScalarStyle style, std::ptrdiff_t growth, std::string_view output,
            const ValueWalk& values);
  /// After the last scalar: the rest of `output`, the whole output, is the template's.
  bool Finish(std::string_view output);

 private:
  template <typename Values>
  bool Proves(std::uint32_t scalar, ScalarStyle style, std::ptrdiff_t growth, std::string_view output,
              const Values& values);
  bool UnchangedUpTo(std::string_view output, std::size_t end);

  std::string_view text_;
  const Tokens& tokens_;
  std::ptrdiff_t delta_ = 0;  // bytes the edits so far added
  std::size_t unchanged_from_ = 0;  // template bytes from here on are not checked yet
};

/// The value a rewritten scalar must decode to: the template scalar's decoded
/// value with each reference's text replaced by its value. False when a
/// reference does not map onto contiguous decoded text (a form split by a
/// line fold or an escape), so that the expected value is unknown.
bool ExpectedScalarValue(std::string_view template_text, const Scalar& scalar,
                         std::span<const ReferenceValue> values, std::string* expected);

}  // namespace safesubst
