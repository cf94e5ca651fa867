// SPDX-License-Identifier: Apache-2.0
// The token-level structure check: the template's scalars and the output's,
// walked in step. See fast_invariant.h for why this proves the structure kept.
#include "fast_invariant.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <type_traits>

namespace safesubst {

namespace {

constexpr std::uint32_t kUnmatched = 0xfffffffeu;

// yaml-cpp reads these plain scalars as null (and CompareStructure compares
// kinds): a placeholder that became one of them changed the node's kind.
bool IsNullPlain(std::string_view text) {
  return text.empty() || text == "~" || text == "null" || text == "Null" || text == "NULL";
}

// For the common single-line scalars the decoded value is the text between
// the quotes (or the whole text when plain), with nothing to unescape: the
// value can be compared in place, without allocating.
bool IsVerbatim(std::string_view raw, ScalarStyle style) {
  if (raw.find('\n') != std::string_view::npos || raw.find('\r') != std::string_view::npos) return false;
  switch (style) {
    case ScalarStyle::kPlain: return true;
    case ScalarStyle::kDoubleQuoted: return raw.find('\\') == std::string_view::npos;
    case ScalarStyle::kSingleQuoted: return raw.size() < 2 || raw.substr(1, raw.size() - 2).find('\'') == std::string_view::npos;
    case ScalarStyle::kLiteral:
    case ScalarStyle::kFolded: return false;
  }
  return false;
}

// The bytes of quote at each end of a scalar of `style`.
std::size_t QuoteWidth(ScalarStyle style) {
  return style == ScalarStyle::kSingleQuoted || style == ScalarStyle::kDoubleQuoted ? 1 : 0;
}

// True when the line holding offset `at` of `text` has something other than
// blanks before it: a value there cannot change the line's indentation.
bool AfterTextOnItsLine(std::string_view text, std::size_t at) {
  while (at > 0) {
    const char c = text[--at];
    if (c == '\n' || c == '\r') return false;
    if (c != ' ' && c != '\t') return true;
  }
  return false;
}

// Printable ASCII and tabs: nothing a block scalar reads as a line break.
bool IsOneLineText(std::string_view value) {
  for (char c : value) {
    if (!((c >= 0x20 && c < 0x7f) || c == '\t')) return false;
  }
  return true;
}

// Calls `each` with every value, in order, until it returns false; false then.
template <typename Each>
bool EachValue(std::span<const ReferenceValue> values, Each&& each) {
  for (const ReferenceValue& value : values) {
    if (!each(value)) return false;
  }
  return true;
}
template <typename Each>
bool EachValue(const ValueWalk& values, Each&& each) {
  return values(each);
}

// Template bytes [begin, end) with each reference replaced by its value, compared with `out`.
template <typename Values>
bool SameSplice(std::string_view text, std::size_t begin, std::size_t end, std::string_view out,
                const Values& values) {
  std::size_t cursor = begin, at = 0;
  auto take = [&](std::string_view piece) {
    if (out.substr(at, piece.size()) != piece) return false;
    at += piece.size();
    return true;
  };
  const bool each_in_place = EachValue(values, [&](const ReferenceValue& value) {
    const Reference& reference = *value.reference;
    if (reference.offset < cursor || reference.offset + reference.length > end) return false;
    if (!take(text.substr(cursor, reference.offset - cursor)) || !take(value.value)) return false;
    cursor = reference.offset + reference.length;
    return true;
  });
  return each_in_place && take(text.substr(cursor, end - cursor)) && at == out.size();
}

// True when `o` holds exactly `t`'s text with each value in place of its
// reference and that text decodes like the template's: a single-line plain
// or quoted scalar without escapes, or a block scalar with the same header
// whose values are one line of plain text, each after other text on its line
// (so that indentation, folding and chomping stay as they were).
template <typename Values>
bool SplicedInPlace(std::string_view text, const Scalar& t, std::string_view output, const Scalar& o,
                    const Values& values) {
  const std::string_view t_raw = text.substr(t.offset, t.length);
  const std::string_view o_raw = output.substr(o.offset, o.length);
  const bool block = t.style == ScalarStyle::kLiteral || t.style == ScalarStyle::kFolded;
  if (block) {
    if (o.indent != t.indent || o.chomping != t.chomping || o.indent_indicator != t.indent_indicator) return false;
    const bool one_line_each = EachValue(values, [&](const ReferenceValue& value) {
      return AfterTextOnItsLine(text, value.reference->offset) && IsOneLineText(value.value);
    });
    if (!one_line_each) return false;
  } else if (!IsVerbatim(t_raw, t.style) || !IsVerbatim(o_raw, o.style)) {
    return false;
  }
  const std::size_t quotes = QuoteWidth(t.style);
  return SameSplice(text, t.offset + quotes, t.offset + t.length - quotes,
                    o_raw.substr(quotes, o_raw.size() - 2 * quotes), values);
}

constexpr bool IsAsciiAlnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

// Bytes a value may bring into a single-line plain scalar, after its first
// byte, without YAML reading any of them as an indicator: they cannot end
// the scalar, start a comment, a key, a collection, an alias, an anchor or a
// tag, and they are neither blanks nor line breaks.
// A table: this test runs once per byte of every value.
constexpr std::array<bool, 256> kInertInPlain = [] {
  std::array<bool, 256> inert{};
  for (int c = 0; c < 128; ++c) inert[c] = IsAsciiAlnum(static_cast<char>(c));
  for (unsigned char c : std::string_view("_./-+=$@%")) inert[c] = true;
  return inert;
}();
bool IsInertInPlain(char c) { return kInertInPlain[static_cast<unsigned char>(c)]; }

// True when `value`, spliced into the single-line plain scalar `t`, cannot
// change how it reads. A colon is allowed outside flow collections when an
// inert byte follows it (it is a key indicator only before a blank or at the
// end). An empty value is not: the bytes around it would meet.
bool InertInPlain(std::string_view text, const Scalar& t, const ReferenceValue& value) {
  const std::string_view v = value.value;
  if (v.empty()) return false;
  const bool at_start = value.reference->offset == t.offset;
  if (at_start && !IsAsciiAlnum(v[0]) && v[0] != '_' && v[0] != '/' && v[0] != '$') return false;
  const std::size_t after = value.reference->offset + value.reference->length;
  for (std::size_t k = 0; k < v.size(); ++k) {
    if (IsInertInPlain(v[k])) continue;
    if (v[k] != ':' || t.in_flow) return false;
    const char next = k + 1 < v.size() ? v[k + 1] : (after < t.offset + t.length ? text[after] : ' ');
    if (!IsInertInPlain(next)) return false;
  }
  return true;
}

// Printable ASCII without the closing quote (nor, in double quotes, the escape character).
bool InertInQuoted(std::string_view value, char quote) {
  for (char c : value) {
    if (c < 0x20 || c >= 0x7f || c == quote || (quote == '"' && c == '\\')) return false;
  }
  return true;
}

template <typename Values>
bool ValuesAreInert(std::string_view text, const Scalar& t, const Values& values) {
  return EachValue(values, [&](const ReferenceValue& value) {
    switch (t.style) {
      case ScalarStyle::kPlain:
        return InertInPlain(text, t, value);
      case ScalarStyle::kSingleQuoted:
        return InertInQuoted(value.value, '\'');
      case ScalarStyle::kDoubleQuoted:
        return InertInQuoted(value.value, '"');
      case ScalarStyle::kLiteral:
      case ScalarStyle::kFolded:
        // SplicedInPlace allows one line of text after other text on its line;
        // at indentation 0 such a line could still begin a document marker.
        return t.indent != 0;
    }
    return true;
  });
}


class TokenComparer {
 public:
  TokenComparer(std::string_view template_text, const Tokens& before, std::string_view output, const Tokens& after,
                const std::vector<TemplateEdit>& edits, const std::vector<RewrittenScalar>& rewritten)
      : text_(template_text),
        t_(before),
        output_(output),
        o_(after),
        edits_(edits),
        rewritten_(rewritten),
        o_to_t_(after.paths.size(), kUnmatched),
        t_to_o_(before.paths.size(), kUnmatched) {}

  // False when an edit does not lie inside the scalar it belongs to.
  bool Run() {
    std::size_t edit = 0, next_rewritten = 0;
    std::ptrdiff_t delta = 0;
    const std::size_t common = std::min(t_.scalars.size(), o_.scalars.size());
    for (std::uint32_t i = 0; i < t_.scalars.size(); ++i) {
      const Scalar& t = t_.scalars[i];
      const RewrittenScalar* rewrite = nullptr;
      if (next_rewritten < rewritten_.size() && rewritten_[next_rewritten].scalar == i) {
        rewrite = &rewritten_[next_rewritten++];
      }
      const std::ptrdiff_t start_delta = delta;
      if (edit < edits_.size() && edits_[edit].offset < t.offset) return false;  // between scalars
      while (edit < edits_.size() && edits_[edit].offset < t.offset + t.length) {
        const TemplateEdit& e = edits_[edit++];
        if (rewrite == nullptr || e.offset + e.length > t.offset + t.length) return false;
        delta += static_cast<std::ptrdiff_t>(e.replacement_length) - static_cast<std::ptrdiff_t>(e.length);
      }
      if (i >= common || !differences_.empty()) continue;  // keep checking the edits' placement
      CompareScalar(i, rewrite, start_delta, delta - start_delta);
    }
    if (edit != edits_.size() || next_rewritten != rewritten_.size()) return false;
    if (differences_.empty()) CompareCounts();
    return true;
  }

  std::vector<StructureDifference> TakeDifferences() { return std::move(differences_); }
  bool unknown_expectation() const { return unknown_expectation_; }

 private:
  void Report(const Scalar* t, const Scalar* o, std::string message) {
    StructureDifference difference;
    if (t != nullptr) {
      difference.path = t_.PathString(t->path);
      difference.document = t->document;
      difference.template_line = t->line;
      difference.template_column = t->column;
    } else if (o != nullptr) {
      difference.path = o_.PathString(o->path);
      difference.document = o->document;
    }
    if (o != nullptr) {
      difference.output_line = o->line;
      difference.output_column = o->column;
    }
    difference.message = std::move(message);
    differences_.push_back(std::move(difference));
  }

  // True when template path `t` and output path `o` name the same node: same
  // keys (as written) and indexes up to the root, and each template segment
  // matches one output segment only.
  bool SamePath(std::uint32_t t, std::uint32_t o) {
    while (true) {
      if (t == PathSegment::kRoot || o == PathSegment::kRoot) return t == o;
      if (o_to_t_[o] == t && t_to_o_[t] == o) return true;
      if (o_to_t_[o] != kUnmatched || t_to_o_[t] != kUnmatched) return false;
      const PathSegment& ts = t_.paths[t];
      const PathSegment& os = o_.paths[o];
      if (ts.index != os.index || ts.key != os.key) return false;
      o_to_t_[o] = t;
      t_to_o_[t] = o;
      t = ts.parent;
      o = os.parent;
    }
  }

  std::string PathMismatch(const Scalar& t, const Scalar& o) const {
    if (t.is_key && t.path != PathSegment::kRoot && o.path != PathSegment::kRoot) {
      const PathSegment& ts = t_.paths[t.path];
      const PathSegment& os = o_.paths[o.path];
      if (ts.key != os.key) {
        return "key changed: '" + std::string(ts.key) + "' became '" + std::string(os.key) + "'";
      }
    }
    std::string now = o_.PathString(o.path);
    return "the node now reads as '" + (now.empty() ? std::string("(document root)") : now) + "'";
  }

  void CompareScalar(std::uint32_t index, const RewrittenScalar* rewrite, std::ptrdiff_t delta,
                     std::ptrdiff_t growth) {
    const Scalar& t = t_.scalars[index];
    const Scalar& o = o_.scalars[index];
    if (t.document != o.document) {
      return Report(&t, &o, "the node moved to document " + std::to_string(o.document + 1) + " of the output");
    }
    if (t.is_key != o.is_key) {
      return Report(&t, &o, t.is_key ? "was a mapping key, became a value" : "was a value, became a mapping key");
    }
    if (!SamePath(t.path, o.path)) return Report(&t, &o, PathMismatch(t, o));
    const ScalarStyle style = rewrite ? rewrite->style : t.style;
    const std::size_t offset = static_cast<std::size_t>(static_cast<std::ptrdiff_t>(t.offset) + delta);
    const std::size_t length = static_cast<std::size_t>(static_cast<std::ptrdiff_t>(t.length) + growth);
    if (o.offset != offset || o.length != length) {
      return Report(&t, &o,
                    rewrite ? "the rewritten scalar no longer reads as one scalar covering its new text"
                            : "an unchanged scalar reads differently in the output");
    }
    if (o.style != style) {
      return Report(&t, &o, "was " + std::string(StyleName(style)) + ", became " + std::string(StyleName(o.style)));
    }
    if (rewrite != nullptr) CompareValue(t, o, *rewrite);
  }

  void CompareValue(const Scalar& t, const Scalar& o, const RewrittenScalar& rewrite) {
    const std::string_view o_raw = output_.substr(o.offset, o.length);
    // The common cases first: when the output's bytes are the template's with
    // the values in place of the references, and the values cannot change how
    // the scalar's lines read, the decoded values are equal too.
    if (t.style == o.style && SplicedInPlace(text_, t, output_, o, rewrite.values)) {
      if (o.style == ScalarStyle::kPlain && IsNullPlain(o_raw)) {
        Report(&t, &o, "was a scalar, became null (an empty value written unquoted)");
      }
      return;
    }
    std::string expected;
    if (!ExpectedScalarValue(text_, t, rewrite.values, &expected)) {
      unknown_expectation_ = true;
      return;
    }
    const std::string decoded = DecodeScalar(output_, o);
    if (o.style == ScalarStyle::kPlain && IsNullPlain(decoded)) {
      return Report(&t, &o, "was a scalar, became null (an empty value written unquoted)");
    }
    if (decoded != expected) Report(&t, &o, "the rewritten scalar reads back as a different value");
  }

  void CompareCounts() {
    if (t_.scalars.size() != o_.scalars.size()) {
      const bool more = o_.scalars.size() > t_.scalars.size();
      const std::size_t at = std::min(t_.scalars.size(), o_.scalars.size());
      const std::size_t count = more ? o_.scalars.size() - at : t_.scalars.size() - at;
      const std::string what = std::to_string(count) + (count == 1 ? " node" : " nodes");
      if (more) {
        Report(nullptr, &o_.scalars[at], "the output has " + what + " more than the template");
      } else {
        Report(&t_.scalars[at], nullptr, "the output has " + what + " fewer than the template");
      }
      return;
    }
    if (t_.comments.size() != o_.comments.size()) {
      Report(nullptr, nullptr, "the template has " + std::to_string(t_.comments.size()) + " comments, the output " +
                                   std::to_string(o_.comments.size()));
    } else if (t_.markers.size() != o_.markers.size()) {
      Report(nullptr, nullptr, "the template has " + std::to_string(t_.markers.size()) +
                                   " document markers and directives, the output " +
                                   std::to_string(o_.markers.size()));
    }
  }

  std::string_view text_;
  const Tokens& t_;
  std::string_view output_;
  const Tokens& o_;
  const std::vector<TemplateEdit>& edits_;
  const std::vector<RewrittenScalar>& rewritten_;
  std::vector<std::uint32_t> o_to_t_, t_to_o_;
  std::vector<StructureDifference> differences_;
  bool unknown_expectation_ = false;
};

// True when `body` (between double quotes) is one line that a YAML reader
// can only read one way: no unescaped quote, no raw line break, control or
// Unicode line separator, no byte order mark, and only complete escapes.
bool IsOneLineDoubleQuotedBody(std::string_view body) {
  for (std::size_t i = 0; i < body.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(body[i]);
    if (c < 0x20 || c == 0x7f || c == '"') return false;
    if (c >= 0x80) {
      const std::string_view rest = body.substr(i, 3);
      if (rest.starts_with("\xc2\x85") || rest == "\xe2\x80\xa8" || rest == "\xe2\x80\xa9" || rest == "\xef\xbb\xbf") {
        return false;
      }
      continue;
    }
    if (c != '\\') continue;
    // `\` + tab is a valid escape, but a raw control byte is refused here everywhere.
    const std::size_t length = EscapeLength(body, i);
    if (length == 0 || body[i + 1] == '\t') return false;
    i += length - 1;
  }
  return true;
}

// A plain or single-quoted scalar the renderer rewrote double-quoted (the
// value could not stay in the old style): proved when the new text is one
// line of double-quoted YAML, which ends where it starts to read, and reads
// as the template's value with the values in place.
bool RequotedInPlace(std::string_view text, const Scalar& t, std::string_view output, const Scalar& o,
                     std::span<const ReferenceValue> values) {
  if (t.style != ScalarStyle::kPlain && t.style != ScalarStyle::kSingleQuoted) return false;
  const std::string_view o_raw = output.substr(o.offset, o.length);
  if (o_raw.size() < 2 || o_raw.front() != '"' || o_raw.back() != '"') return false;
  if (!IsOneLineDoubleQuotedBody(o_raw.substr(1, o_raw.size() - 2))) return false;
  std::string expected;
  if (!ExpectedScalarValue(text, t, values, &expected)) return false;
  Scalar requoted = o;
  requoted.style = ScalarStyle::kDoubleQuoted;
  return DecodeScalar(output, requoted) == expected;
}

// True when the scalar lies inside a complex key (`[a, b]: v`, `? - a`): its
// path runs through a segment whose key is the raw text around it, and a
// value there changes that key.
bool InsideComplexKey(const Tokens& tokens, const Scalar& scalar, std::string_view text) {
  // Addresses, since a key may also be text decoded elsewhere.
  const auto at = reinterpret_cast<std::uintptr_t>(text.data() + scalar.offset);
  for (std::uint32_t segment = scalar.path; segment != PathSegment::kRoot;) {
    const PathSegment& s = tokens.paths[segment];
    const auto key = reinterpret_cast<std::uintptr_t>(s.key.data());
    if (at >= key && at < key + s.key.size()) return true;
    segment = s.parent;
  }
  return false;
}

}  // namespace

bool InPlaceProof::UnchangedUpTo(std::string_view output, std::size_t end) {
  const std::size_t out_begin = static_cast<std::size_t>(static_cast<std::ptrdiff_t>(unchanged_from_) + delta_);
  const std::size_t length = end - unchanged_from_;
  if (out_begin + length > output.size() ||
      text_.substr(unchanged_from_, length) != output.substr(out_begin, length)) {
    return false;
  }
  unchanged_from_ = end;
  return true;
}

template <typename Values>
bool InPlaceProof::Proves(std::uint32_t scalar, ScalarStyle style, std::ptrdiff_t growth, std::string_view output,
                          const Values& values) {
  const Scalar& t = tokens_.scalars[scalar];
  const bool requoted = style != t.style;
  if (requoted && style != ScalarStyle::kDoubleQuoted) return false;
  if (t.is_key || InsideComplexKey(tokens_, t, text_)) return false;
  if (t.offset < unchanged_from_ || !UnchangedUpTo(output, t.offset)) return false;
  Scalar o = t;  // where the rewritten scalar must be in the output, and what it must hold
  o.offset = static_cast<std::size_t>(static_cast<std::ptrdiff_t>(t.offset) + delta_);
  o.length = static_cast<std::size_t>(static_cast<std::ptrdiff_t>(t.length) + growth);
  delta_ += growth;
  if (o.offset + o.length > output.size()) return false;
  if (requoted) {
    if constexpr (!std::is_same_v<Values, ValueWalk>) {
      if (!RequotedInPlace(text_, t, output, o, values)) return false;
      unchanged_from_ = t.offset + t.length;
      return true;
    }
    return false;  // a streaming render requotes nothing
  }
  // SplicedInPlace compares the scalar's text between its quotes; the quotes go with the unchanged bytes.
  const std::size_t quotes = QuoteWidth(t.style);
  if (o.length < 2 * quotes || output.substr(o.offset, quotes) != text_.substr(t.offset, quotes)) return false;
  if (!SplicedInPlace(text_, t, output, o, values)) return false;
  if (!ValuesAreInert(text_, t, values)) return false;
  const std::string_view o_raw = output.substr(o.offset, o.length);
  if (t.style == ScalarStyle::kPlain && IsNullPlain(o_raw)) return false;
  // A scalar that now begins like a document marker could be one, if only
  // a byte order mark or nothing stands before it on its line.
  if (o_raw.substr(0, 3) == "---" || o_raw.substr(0, 3) == "...") return false;
  unchanged_from_ = t.offset + t.length - quotes;
  return true;
}

bool InPlaceProof::Next(std::uint32_t scalar, ScalarStyle style, std::ptrdiff_t growth, std::string_view output,
                        std::span<const ReferenceValue> values) {
  return Proves(scalar, style, growth, output, values);
}

bool InPlaceProof::Next(std::uint32_t scalar, ScalarStyle style, std::ptrdiff_t growth, std::string_view output,
                        const ValueWalk& values) {
  return Proves(scalar, style, growth, output, values);
}

bool InPlaceProof::Finish(std::string_view output) {
  return UnchangedUpTo(output, text_.size()) &&
         output.size() == static_cast<std::size_t>(static_cast<std::ptrdiff_t>(text_.size()) + delta_);
}

bool EditsProvablyKeepStructure(std::string_view template_text, const Tokens& tokens, std::string_view output,
                                const std::vector<TemplateEdit>& edits,
                                const std::vector<RewrittenScalar>& rewritten) {
  InPlaceProof proof(template_text, tokens);
  std::size_t edit = 0;
  for (const RewrittenScalar& rewrite : rewritten) {
    const Scalar& t = tokens.scalars[rewrite.scalar];
    if (edit < edits.size() && edits[edit].offset < t.offset) return false;  // an edit between scalars
    std::ptrdiff_t growth = 0;
    while (edit < edits.size() && edits[edit].offset < t.offset + t.length) {
      const TemplateEdit& e = edits[edit++];
      if (e.offset + e.length > t.offset + t.length) return false;
      growth += static_cast<std::ptrdiff_t>(e.replacement_length) - static_cast<std::ptrdiff_t>(e.length);
    }
    if (!proof.Next(rewrite.scalar, rewrite.style, growth, output, rewrite.values)) return false;
  }
  return edit == edits.size() && proof.Finish(output);
}


bool ExpectedScalarValue(std::string_view template_text, const Scalar& scalar,
                         std::span<const ReferenceValue> values, std::string* expected) {
  std::vector<std::size_t> source_offsets;
  const std::string decoded = DecodeScalar(template_text, scalar, &source_offsets);
  expected->clear();
  std::size_t cursor = 0;
  for (const ReferenceValue& value : values) {
    const Reference& reference = *value.reference;
    auto first = std::lower_bound(source_offsets.begin(), source_offsets.end(), reference.offset);
    const std::size_t begin = static_cast<std::size_t>(first - source_offsets.begin());
    std::size_t end = begin;
    while (end < source_offsets.size() && source_offsets[end] < reference.offset + reference.length) ++end;
    // Each byte of the form must decode to itself, in one run.
    if (begin < cursor || end - begin != reference.length ||
        (begin < source_offsets.size() && source_offsets[begin] != reference.offset)) {
      return false;
    }
    expected->append(decoded, cursor, begin - cursor);
    expected->append(value.value);
    cursor = end;
  }
  expected->append(decoded, cursor, std::string::npos);
  return true;
}

Result<std::vector<StructureDifference>> CompareStructureByTokens(std::string_view template_text,
                                                                  const Tokens& tokens, std::string_view output,
                                                                  const std::vector<TemplateEdit>& edits,
                                                                  const std::vector<RewrittenScalar>& rewritten,
                                                                  const std::string& file) {
  Result<std::vector<StructureDifference>> result;
  if (EditsProvablyKeepStructure(template_text, tokens, output, edits, rewritten)) {
    result.value.emplace();  // no differences, without tokenizing the output
    return result;
  }
  const std::string output_name = file + " (rendered output)";
  const Tokens after = Tokenize(output, TokenizerOptions{output_name});
  for (const Diagnostic& diagnostic : after.diagnostics) {
    if (diagnostic.severity != Severity::kError) continue;
    result.diagnostics.push_back(
        MakeError(diagnostic.location, "rendered output is not valid YAML: " + diagnostic.message,
                  "a substituted value broke the document; quote the reference in the template, or "
                  "declare the variable `type: yaml` if it is meant to be YAML"));
    return result;
  }
  TokenComparer comparer(template_text, tokens, output, after, edits, rewritten);
  if (!comparer.Run() || comparer.unknown_expectation()) return result;  // no value, no diagnostics
  result.value = comparer.TakeDifferences();
  return result;
}

}  // namespace safesubst
