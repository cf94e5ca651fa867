// SPDX-License-Identifier: Apache-2.0
// The tokenizer is a recursive-descent reader of YAML 1.2 block and flow
// structure that records spans instead of building a tree.
//
// Shape of the pass: a block node is read by looking at its first token. A
// flow node in block context (scalar, alias, flow collection) is scanned first
// and only then classified: when a `:` follows on the same line it was the
// implicit key of a new block mapping, otherwise it is a value. Implicit keys
// are single-line, so this needs no lookahead beyond the current line; the
// only backtracking is to the end of a plain scalar's line. Flow collections
// are read recursively with their own (simpler) rules.
//
// Conventions:
//  - A line break is LF, CRLF, or a lone CR (as in YAML). Columns count bytes
//    from the line start; on the first line, a UTF-8 BOM is not counted.
//  - An empty node (`key:` with nothing) is recorded as a plain scalar of
//    length 0 placed just after its indicator (or its properties).
//  - Indentation is counted in spaces; a tab after the indentation is
//    separation, as YAML allows.
#include "tokenizer.h"

#include <algorithm>
#include <numeric>
#include <array>
#include <bit>
#include <cctype>
#include <cstring>
#include <functional>
#include <optional>
#include <unordered_set>
#include <utility>

#include "diagnostic_cap.h"
#include "references.h"
#include "source_runs.h"
#include "text_checks.h"
#include "yaml_spans.h"

namespace safesubst {

namespace {

// The hexadecimal digits that follow the escape `\x`, `\u` or `\U`; 0 for others.
int HexDigitsOfEscape(char e) { return e == 'x' ? 2 : e == 'u' ? 4 : e == 'U' ? 8 : 0; }

// Character classes for the hot loops: one table lookup per byte.
constexpr std::uint8_t kBlankClass = 1;  // space, tab
constexpr std::uint8_t kBreakClass = 2;  // LF, CR
constexpr std::uint8_t kFlowClass = 4;   // , [ ] { }
constexpr std::uint8_t kColonClass = 8;
constexpr std::uint8_t kHashClass = 16;

constexpr std::array<std::uint8_t, 256> MakeClasses() {
  std::array<std::uint8_t, 256> classes{};
  classes[' '] = classes['\t'] = kBlankClass;
  classes['\n'] = classes['\r'] = kBreakClass;
  classes[','] = classes['['] = classes[']'] = classes['{'] = classes['}'] = kFlowClass;
  classes[':'] = kColonClass;
  classes['#'] = kHashClass;
  return classes;
}
constexpr std::array<std::uint8_t, 256> kClasses = MakeClasses();

std::uint8_t ClassOf(char c) { return kClasses[static_cast<unsigned char>(c)]; }
bool IsBlank(char c) { return c == ' ' || c == '\t'; }
bool IsBreak(char c) { return c == '\n' || c == '\r'; }
bool IsFlowIndicator(char c) { return (ClassOf(c) & kFlowClass) != 0; }

// Offset just after the line break that starts at `at`.
std::size_t SkipBreak(std::string_view text, std::size_t at) {
  if (text[at] == '\r' && at + 1 < text.size() && text[at + 1] == '\n') return at + 2;
  return at + 1;
}

// No anchor among a node's properties.
constexpr std::size_t kNoAnchor = static_cast<std::size_t>(-1);

// The offsets of the anchor and the tag read so far for one node (kNoAnchor: none).
struct Properties {
  std::size_t anchor = kNoAnchor;
  std::size_t tag = kNoAnchor;

  // The first of `more`'s properties of a kind these have too, or kNoAnchor.
  std::size_t Repeated(const Properties& more) const {
    const std::size_t anchor_again = anchor != kNoAnchor ? more.anchor : kNoAnchor;
    const std::size_t tag_again = tag != kNoAnchor ? more.tag : kNoAnchor;
    return std::min(anchor_again, tag_again);
  }
  void Add(const Properties& more) {
    if (more.anchor != kNoAnchor) anchor = more.anchor;
    if (more.tag != kNoAnchor) tag = more.tag;
  }
};

// Word-at-a-time scanning (SWAR): eight bytes per step over the runs that
// dominate Kubernetes YAML (indentation, text up to a line end).
constexpr std::uint64_t kOnes = 0x0101010101010101ull;
constexpr std::uint64_t kLows = 0x7f7f7f7f7f7f7f7full;
constexpr std::uint64_t kHighs = 0x8080808080808080ull;
std::uint64_t Load8(const char* p) {
  std::uint64_t word;
  std::memcpy(&word, p, sizeof word);
  return word;
}
// The high bit of every byte of `word` that equals `byte`, and no other bit
// (no carries cross bytes, so any flagged byte is a real match).
std::uint64_t BytesEqual(std::uint64_t word, char byte) {
  const std::uint64_t x = word ^ (kOnes * static_cast<unsigned char>(byte));
  return ~(((x & kLows) + kLows) | x) & kHighs;
}
// Index in memory order of the first byte with a nonzero bit in `mask`.
std::size_t FirstFlaggedByte(std::uint64_t mask) {
  if constexpr (std::endian::native == std::endian::little) {
    return static_cast<std::size_t>(std::countr_zero(mask) / 8);
  } else {
    return static_cast<std::size_t>(std::countl_zero(mask) / 8);
  }
}

// The first offset at or after `i` that is not a space.
std::size_t SkipSpaces(std::string_view text, std::size_t i) {
  while (i + 8 <= text.size()) {
    const std::uint64_t differ = Load8(text.data() + i) ^ (kOnes * ' ');
    if (differ != 0) return i + FirstFlaggedByte(differ);
    i += 8;
  }
  while (i < text.size() && text[i] == ' ') ++i;
  return i;
}

// A mask whose first flagged byte (in memory order) is the first byte of
// `word` below 0x0E, the range holding LF and CR: one test instead of two
// BytesEqual. Bytes after the first may be flagged wrongly (a borrow runs
// upward), so only the first is meant; on big-endian machines that is the
// wrong end, and both bytes are compared exactly.
std::uint64_t FirstMaybeBreak(std::uint64_t word) {
  if constexpr (std::endian::native == std::endian::little) {
    return (word - kOnes * 0x0E) & ~word & kHighs;
  } else {
    return BytesEqual(word, '\n') | BytesEqual(word, '\r');
  }
}

// The first line break in `text[i, end)`, or `end`.
std::size_t FindBreak(std::string_view text, std::size_t i, std::size_t end) {
  while (i + 8 <= end) {
    const std::uint64_t found = FirstMaybeBreak(Load8(text.data() + i));
    if (found == 0) {
      i += 8;
      continue;
    }
    i += FirstFlaggedByte(found);
    if (IsBreak(text[i])) return i;
    ++i;  // a tab or another control character: look on from the next byte
  }
  while (i < end && !IsBreak(text[i])) ++i;
  return i;
}
std::size_t FindBreak(std::string_view text, std::size_t i) { return FindBreak(text, i, text.size()); }

// Nesting beyond this is refused instead of risking the stack: no real
// template comes anywhere near it.
constexpr int kMaxDepth = 1000;

// Everything needed to come back to a position.
struct Cursor {
  std::size_t pos = 0;
  std::uint32_t line = 1;
  std::size_t line_start = 0;
};

// Where a block node stands; decides what may start on the indicator's line.
enum class Where : std::uint8_t {
  kBareDocument,   // document content without `---`: starts on its own line
  kDocumentStart,  // after `---`
  kSequenceItem,   // after `- `
  kMappingValue,   // after the `:` of an implicit key
  kExplicitKey,    // after `? `
  kExplicitValue,  // after the `:` of an explicit entry
};

// A node as read, before the caller decides whether it is a key or a value.
// Kept small: it is created for every token. A scalar's details live in
// Parser::scanned_ until it is recorded.
struct Node {
  enum class Kind : std::uint8_t { kEmpty, kScalar, kCollection, kAlias };
  Kind kind = Kind::kEmpty;
  bool has_properties = false;
  ScalarStyle style = ScalarStyle::kPlain;  // kScalar
  std::size_t begin = 0, end = 0;           // raw span of the content, properties excluded
  Cursor empty_at;                          // kEmpty: where an empty scalar would stand
};

// [[gnu::always_inline]] marks the helpers that run for about every token
// and that GCC kept out of line: each was measured with callgrind on the
// bench stream (bench/, 3,000 Deployments) to cost fewer instructions
// inlined. Others tried (RecordScalar, ExpectLineEnd, IndentAllows,
// FindBreak) cost more inlined and are left to the compiler.
class Parser {
 public:
  Parser(std::string_view text, const TokenizerOptions& options, Tokens* out, NodeRecorder* spans)
      : text_(text), size_(text.size()), options_(options), out_(*out), spans_(spans) {
    emit_reference_ = [this](const Reference& found) { RecordReference(found); };
    on_unterminated_ = [this](std::size_t offset) { ReportUnterminated(offset); };
  }

  void Run();
  void SkipReferences() { references_wanted_ = false; }
  /// References are still scanned (an unterminated `${` is an error) but not
  /// kept: a streaming render finds them again scalar by scalar
  /// (ForEachReferenceOf, tokenizer.h).
  void KeepNoReferences() {
    emit_reference_ = [](const Reference&) {};
  }
  /// Hands each scalar to `sink` instead of keeping it (TokenizeAsRead).
  void HandScalarsTo(detail::ScalarSink* sink) { sink_ = sink; }

 private:
  // ---- cursor ----
  char At(std::size_t i) const { return i < size_ ? text_[i] : '\0'; }
  char Cur() const { return At(pos_); }
  bool AtEnd() const { return pos_ >= size_; }
  int Column() const { return static_cast<int>(pos_ - line_start_); }  // 0-based
  Cursor Save() const { return Cursor{pos_, line_, line_start_}; }
  void Restore(const Cursor& cursor) {
    pos_ = cursor.pos;
    line_ = cursor.line;
    line_start_ = cursor.line_start;
  }
  bool BlankOrEndAt(std::size_t i) const { return i >= size_ || (ClassOf(text_[i]) & (kBlankClass | kBreakClass)); }
  bool BlankOrFlowEndAt(std::size_t i) const { return BlankOrEndAt(i) || IsFlowIndicator(text_[i]); }
  bool AtIndicator(char indicator) const { return Cur() == indicator && BlankOrEndAt(pos_ + 1); }
  void ConsumeBreak() {
    pos_ = SkipBreak(text_, pos_);
    ++line_;
    line_start_ = pos_;
  }
  void SkipBlanks() {
    if (pos_ < size_ && IsBlank(text_[pos_])) SkipBlanksSlow();  // usually at a token already
  }
  void SkipBlanksSlow() {
    pos_ = SkipSpaces(text_, pos_);
    while (pos_ < size_ && text_[pos_] == '\t') pos_ = SkipSpaces(text_, pos_ + 1);
  }
  void SkipToLineEnd() { pos_ = FindBreak(text_, pos_); }
  // Inline: asked at almost every token, which is almost never at a line start.
  [[gnu::always_inline]] bool AtDocumentMarker() const {
    return pos_ == line_start_ && MarkerAtLineStart();
  }
  bool MarkerAtLineStart() const {
    if (pos_ + 3 > size_) return false;
    const char c = text_[pos_];
    if (c != '-' && c != '.') return false;
    return text_[pos_ + 1] == c && text_[pos_ + 2] == c && BlankOrEndAt(pos_ + 3);
  }
  bool AtBoundary() const { return AtEnd() || AtDocumentMarker(); }
  // Skips blanks, comments and line breaks; stops at a document marker.
  // Returns true when at least one line break was crossed.
  bool SkipToNextToken() {
    if (pos_ < size_ && pos_ != line_start_ && !(ClassOf(text_[pos_]) & (kBlankClass | kBreakClass | kHashClass))) {
      return false;  // already at a token: the common case, kept inline
    }
    return SkipToNextTokenSlow();
  }
  bool SkipToNextTokenSlow();
  std::uint32_t LineIndent();

  // ---- diagnostics ----
  Location LocationOf(std::size_t offset) const;
  Location LocationOf(const Cursor& cursor) const;
  // Errors are rare: keeping them out of line (and cold) keeps the hot
  // functions small enough for the compiler to inline the cursor helpers.
  [[gnu::cold]] [[gnu::noinline]] void Error(Location at, std::string_view message, std::string_view hint = {}) {
    diagnostics_.Add(MakeError(std::move(at), std::string(message), std::string(hint)));
  }
  [[gnu::cold]] [[gnu::noinline]] void ErrorHere(std::string_view message, std::string_view hint = {}) {
    Error(LocationOf(Save()), message, hint);
  }
  [[gnu::cold]] [[gnu::noinline]] void UnexpectedHere(std::string_view before, std::string_view after,
                                                      std::string_view hint) {
    ErrorHere(std::string(before) + Cur() + std::string(after), hint);
  }
  void TooDeep();
  [[gnu::cold]] [[gnu::noinline]] void TwoProperties(std::size_t second);
  [[gnu::cold]] [[gnu::noinline]] void AliasWithProperties(std::size_t alias);
  [[gnu::always_inline]] void CheckNoTabIndent(std::size_t collection, int n);
  void CheckNoTabBefore(std::size_t collection, int n);
  bool TabIndentsLine(int n);
  [[gnu::cold]] [[gnu::noinline]] void CheckTabIndentedLine(int n);
  [[gnu::always_inline]] bool SkipToNextFlowToken(int n);
  [[gnu::cold]] [[gnu::noinline]] void ReportShallowFlowLine();

  // ---- recording ----
  [[gnu::always_inline]] void StartScalar(ScalarStyle style);
  void RecordScalar(const Scalar& scalar, std::uint32_t path, bool is_key, ContextClass context);
  void RecordEmpty(const Cursor& at, std::uint32_t path, bool is_key, ContextClass context);
  [[gnu::always_inline]] void RecordKey(const Node& key, std::uint32_t segment);
  [[gnu::noinline]] void ScanScalarReferences(std::size_t begin, std::size_t end);
  void CheckKeyTag(const Scalar& key);
  [[gnu::always_inline]] void RecordValue(const Node& value, std::uint32_t path, ContextClass context);
  void RecordComment();
  void RecordMarker(Marker::Kind kind, std::size_t length);
  void RecordReference(const Reference& found);
  [[gnu::always_inline]] bool HasDollar(std::size_t begin, std::size_t end);
  void ReportUnterminated(std::size_t offset);
  void AdvanceCursor(Cursor* cursor, std::size_t to) const;
  bool InCommandLine(std::uint32_t path) const;
  void RecordAlias(const Node& alias, std::uint32_t path);
  [[gnu::always_inline]] void RecordAliasKey(const Node& key, std::uint32_t segment);
  void RecordMappingAnchor(std::size_t anchor, std::uint32_t path);
  void ForgetMappingAnchor(std::size_t anchor);
  Anchor* AnchorAt(std::size_t offset);
  void HandScalar();
  [[gnu::always_inline]] std::uint32_t NewKeySegment(std::uint32_t parent, std::string_view key);
  std::uint32_t NewIndexSegment(std::uint32_t parent, std::int32_t index);
  void ForgetFinishedSegments(std::uint32_t parent);
  void Reparent(std::size_t first_segment, std::uint32_t from, std::uint32_t to);
  [[gnu::always_inline]] std::string_view KeyText(const Node& key);
  std::string_view DecodedKey(const Node& key);
  bool IsScriptSequence(std::uint32_t path) const;

  // ---- node spans (only with spans_; see yaml_spans.h) ----
  void NoteProperty(std::size_t begin, std::size_t end);
  NodeSpan SpanHere(NodeKind kind, std::size_t begin);
  void OpenSpan(NodeKind kind, bool flow, std::size_t begin);
  void LiftProperties();
  void LowerProperties();
  void LowerPropertiesOnto(const Node& node, std::uint32_t mark);
  void OpenMappingAbove(const Node& first_key, std::uint32_t key_mark);
  void RecordAliasSpan(const Node& alias);
  void RecordScalarSpan(const Scalar& scalar);

  // ---- documents ----
  void ParseDirective();
  void CheckDirective(std::size_t begin, std::size_t end);
  void SkipTrailingContent();
  void ExpectLineEnd();

  // ---- block structure ----
  // Inline: only the depth check around ParseBlockNodeContent, run for every node.
  [[gnu::always_inline]] Node ParseBlockNode(int n, std::uint32_t path, Where where, bool script_item,
                                             bool as_key);
  Node ParseBlockNodeContent(int n, std::uint32_t path, Where where, bool script_item, bool as_key);
  bool IndentAllows(int n, Where where) const;
  void ParseBlockSequence(int m, std::uint32_t path);
  void ParseBlockMapping(int m, std::uint32_t path, Node* first_key, std::size_t first_mark);
  void ParseExplicitEntry(int m, std::uint32_t path);
  [[gnu::always_inline]] void ParseImplicitEntry(int m, std::uint32_t path);
  [[gnu::always_inline]] void ParseEntryValue(int m, std::uint32_t path, const Node& key, std::size_t segment_mark);
  [[gnu::always_inline]] bool SkipToSiblingLine(int m, bool sequence);
  [[gnu::always_inline]] void CheckSingleLineKey(const Node& key);
  void CheckLinesPastProperties(const Scalar& scalar, int props_column);

  // ---- flow structure and scalars ----
  [[gnu::always_inline]] Node ScanFlowContent(int n, std::uint32_t path, bool flow);
  [[gnu::always_inline]] Node ParseFlowNode(int n, std::uint32_t path);
  void ParseFlowCollection(int n, std::uint32_t path);
  [[gnu::always_inline]] void ParseFlowEntry(int n, std::uint32_t path, bool is_sequence, std::int32_t index, bool script);
  [[gnu::always_inline]] void ParseFlowPairValue(int n, std::uint32_t segment, bool pair, const Cursor& after_key);
  void SkipPropertyToken();
  std::size_t SkipNodeProperty(Properties* node);
  void CheckTagCharacters(std::size_t begin, std::size_t end);
  [[gnu::always_inline]] bool PlainFirstAt(std::size_t i, bool flow) const;
  [[gnu::always_inline]] std::size_t ScanPlainLine(bool flow);
  [[gnu::always_inline]] bool ContinuePlain(int n, bool flow);
  [[gnu::always_inline]] void ExtendPlain(Scalar* scalar, int n, bool flow);
  void ScanQuoted(int n, bool flow);
  void ScanEscape();
  bool ContinuationTooShallow(int n) const;
  void ScanBlockScalar(int n);
  int DetectBlockIndent(int n);

  std::string_view text_;
  std::size_t size_;
  const TokenizerOptions& options_;
  Tokens& out_;
  NodeRecorder* spans_;  // null unless node spans were asked for
  detail::ScalarSink* sink_ = nullptr;  // HandScalarsTo
  bool references_wanted_ = true;
  // With spans_: the properties read for the node about to be recorded.
  SourceRange pending_anchor_;
  SourceRange pending_tag_;
  // With spans_: properties of a block node followed by a line break (LiftProperties).
  SourceRange outer_anchor_;
  SourceRange outer_tag_;
  detail::DiagnosticCap diagnostics_{&out_.diagnostics, options_.max_errors};  // into out_.diagnostics

  std::size_t pos_ = 0;
  std::uint32_t line_ = 1;
  std::size_t line_start_ = 0;
  std::uint32_t document_ = 0;
  int flow_depth_ = 0;
  int depth_ = 0;
  std::size_t content_end_ = 0;  // end of the last scalar, alias or flow collection
  // The scalar scanned last: a Node of kind kScalar refers to it until it is
  // recorded, which always happens before the next scalar is scanned.
  Scalar scanned_;
  std::size_t indent_line_start_ = static_cast<std::size_t>(-1);  // LineIndent cache
  std::uint32_t indent_ = 0;
  // The first `$` at or after dollar_from_ (size_ when none): spans are checked
  // mostly in increasing order, so `$`-free text is searched about once.
  std::size_t dollar_from_ = static_cast<std::size_t>(-1);
  std::size_t next_dollar_ = 0;
  // The directives of the document being read: its %TAG handles, and whether
  // it had a %YAML directive.
  std::vector<std::string_view> tag_handles_;
  bool yaml_directive_seen_ = false;
  // The names of the document's anchors so far: an alias must name one.
  std::unordered_set<std::string_view> anchor_names_;
  // A line of a flow collection not indented past the block around it
  // (SkipToNextFlowToken), or kNoAnchor; and that block's indentation.
  std::size_t shallow_flow_line_ = kNoAnchor;
  int shallow_flow_indent_ = 0;

  // State of the reference scan in progress (ScanReferences calls back).
  std::uint32_t ref_scalar_ = Reference::kNoScalar;
  ContextClass ref_context_ = ContextClass::kData;
  Cursor ref_cursor_;
  std::function<void(const Reference&)> emit_reference_;
  std::function<void(std::size_t)> on_unterminated_;
};

// ---------------------------------------------------------------------------
// Cursor helpers

bool Parser::SkipToNextTokenSlow() {
  bool crossed = false;
  while (pos_ < size_) {
    if (pos_ == line_start_) {  // measure the indentation once, for LineIndent()
      pos_ = SkipSpaces(text_, pos_);
      indent_line_start_ = line_start_;
      indent_ = static_cast<std::uint32_t>(pos_ - line_start_);
    }
    SkipBlanks();
    if (Cur() == '#') {
      if (pos_ > line_start_ && !IsBlank(text_[pos_ - 1])) {
        ErrorHere("a comment must be separated from the text before it by a space",
                  "put a space before '#', or quote the text if '#' belongs to it");
      }
      RecordComment();
    }
    if (pos_ >= size_ || !IsBreak(text_[pos_])) break;
    ConsumeBreak();
    crossed = true;
    if (AtDocumentMarker()) break;
  }
  return crossed;
}

std::uint32_t Parser::LineIndent() {
  if (indent_line_start_ != line_start_) {
    indent_ = static_cast<std::uint32_t>(SkipSpaces(text_, line_start_) - line_start_);
    indent_line_start_ = line_start_;
  }
  return indent_;
}

// Moves `cursor` forward to `to`, counting line breaks.
void Parser::AdvanceCursor(Cursor* cursor, std::size_t to) const {
  for (std::size_t i = FindBreak(text_, cursor->pos, to); i < to; i = FindBreak(text_, i + 1, to)) {
    if (text_[i] == '\n' || At(i + 1) != '\n') {  // CRLF counts once, at its LF
      ++cursor->line;
      cursor->line_start = i + 1;
    }
  }
  cursor->pos = to;
}

// ---------------------------------------------------------------------------
// Diagnostics

Location Parser::LocationOf(const Cursor& cursor) const {
  return Location{options_.file_name, cursor.line, static_cast<std::uint32_t>(cursor.pos - cursor.line_start + 1),
                  cursor.pos};
}

// The location of any offset, found from the current position. Only used for
// diagnostics, which are rare.
Location Parser::LocationOf(std::size_t offset) const {
  if (offset >= line_start_) {
    Cursor cursor = Save();
    cursor.pos = line_start_;
    AdvanceCursor(&cursor, offset);
    return LocationOf(cursor);
  }
  std::uint32_t line = line_;
  for (std::size_t i = line_start_; i > offset;) {
    --i;
    if (text_[i] == '\n') {
      --line;
      if (i > offset && text_[i - 1] == '\r') --i;
    } else if (text_[i] == '\r') {
      --line;
    }
  }
  std::size_t start = offset;
  while (start > 0 && !IsBreak(text_[start - 1])) --start;
  if (line == 1 && text_.substr(0, 3) == "\xEF\xBB\xBF") start = std::max<std::size_t>(start, 3);
  return LocationOf(Cursor{offset, line, start});
}

// `second` is the second anchor or tag of one node.
void Parser::TwoProperties(std::size_t second) {
  if (text_[second] == '&') {
    Error(LocationOf(second), "a node cannot have two anchors",
          "remove one; an anchor on the line above a mapping's first key belongs to the mapping");
  } else {
    Error(LocationOf(second), "a node cannot have two tags",
          "remove one; a tag on the line above a mapping's first key belongs to the mapping");
  }
}

void Parser::AliasWithProperties(std::size_t alias) {
  Error(LocationOf(alias), "an alias cannot have an anchor or a tag",
        "the alias stands for the anchored node, properties included; remove them");
}

// YAML indents block collections with spaces only: a tab before one that
// starts on its line (`-\t- a`, or a key after a tab) is an error.
inline void Parser::CheckNoTabIndent(std::size_t collection, int n) {
  // Usually the collection is first on its line, after spaces only.
  if (collection < line_start_ || collection - line_start_ != LineIndent()) CheckNoTabBefore(collection, n);
}

void Parser::CheckNoTabBefore(std::size_t collection, int n) {
  if (TabIndentsLine(n)) return;  // reported with the line (CheckTabIndentedLine)
  for (std::size_t i = collection; i > 0 && IsBlank(text_[i - 1]); --i) {
    if (text_[i - 1] == '\t') {
      Error(LocationOf(i - 1), "a tab cannot indent a block collection", "indent with spaces");
      return;
    }
  }
}

// The current line starts a block node whose parent is indented `n`, and a tab
// stands where its indentation (more than `n` spaces) should be. After enough
// spaces a tab is separation (`foo:\n \tbar`), and at the top level any.
bool Parser::TabIndentsLine(int n) {
  const std::uint32_t spaces = LineIndent();
  return static_cast<int>(spaces) <= n && line_start_ + spaces < size_ && text_[line_start_ + spaces] == '\t';
}

void Parser::CheckTabIndentedLine(int n) {
  if (TabIndentsLine(n)) {
    Error(LocationOf(line_start_ + LineIndent()), "tab used as indentation",
          "YAML indents with spaces only; replace the tab");
  }
}

// Inside a flow collection in block context, every line must be indented
// (with spaces) more than the block node around it (`n`). The first line
// that is not is reported when its collection closes: in an unterminated
// collection (the usual cause) the missing bracket is the error to report.
// A line that starts with the closing bracket is let pass, as libyaml and
// go-yaml do: `args: [\n  "x",\n]` is common in templates.
inline bool Parser::SkipToNextFlowToken(int n) {
  const bool crossed = SkipToNextToken();
  if (crossed && n >= 0 && shallow_flow_line_ == kNoAnchor && !AtBoundary() && Cur() != ']' && Cur() != '}' &&
      static_cast<int>(LineIndent()) <= n) {
    shallow_flow_line_ = pos_;
    shallow_flow_indent_ = n;
  }
  return crossed;
}

void Parser::ReportShallowFlowLine() {
  Error(LocationOf(shallow_flow_line_), "a line of a flow collection must be indented more than the block around it",
        "indent this line with spaces past column " + std::to_string(shallow_flow_indent_ + 1));
  shallow_flow_line_ = kNoAnchor;
}

void Parser::TooDeep() {
  ErrorHere("nesting deeper than " + std::to_string(kMaxDepth) + " levels",
            "flatten the document; safesubst stops reading here");
  pos_ = size_;
}

// ---------------------------------------------------------------------------
// Recording

inline void Parser::StartScalar(ScalarStyle style) {
  // Every field is set (no `= Scalar{}`): this runs for every scalar.
  Scalar& scalar = scanned_;
  scalar.style = style;
  scalar.chomping = Chomping::kClip;
  scalar.context = ContextClass::kData;
  scalar.is_key = false;
  scalar.in_flow = flow_depth_ > 0;
  scalar.is_shell = false;
  scalar.bash_script = false;
  scalar.exec_program = false;
  scalar.startup_variable = 0;
  scalar.indent_indicator = 0;
  scalar.indent = LineIndent();
  scalar.offset = pos_;
  scalar.length = 0;
  scalar.line = line_;
  scalar.column = static_cast<std::uint32_t>(Column() + 1);
  scalar.document = document_;
  scalar.path = PathSegment::kRoot;
}

void Parser::RecordScalar(const Scalar& scanned, std::uint32_t path, bool is_key, ContextClass context) {
  out_.scalars.push_back(scanned);
  Scalar& scalar = out_.scalars.back();
  scalar.path = path;
  scalar.is_key = is_key;
  scalar.context = context;
  if (spans_) RecordScalarSpan(scalar);
  // A key first on its line has no properties before it: nothing to check.
  if (is_key && scalar.column - 1 != scalar.indent) CheckKeyTag(scalar);
  std::size_t begin = scalar.offset;
  const std::size_t end = scalar.offset + scalar.length;
  content_end_ = std::max(content_end_, end);
  if (scalar.style == ScalarStyle::kLiteral || scalar.style == ScalarStyle::kFolded) {
    // The header line (indicators, comment) is not content.
    while (begin < end && !IsBreak(text_[begin])) ++begin;
  }
  if (begin < end && HasDollar(begin, end) && references_wanted_) ScanScalarReferences(begin, end);
  if (sink_) HandScalar();
}

// The references of the scalar just recorded, in text_[begin, end). Kept out
// of RecordScalar: most scalars hold no `$`, and RecordScalar stays lean.
void Parser::ScanScalarReferences(std::size_t begin, std::size_t end) {
  const Scalar& scalar = out_.scalars.back();
  ref_scalar_ = static_cast<std::uint32_t>(out_.scalars.size() - 1);
  ref_context_ = scalar.context;
  ref_cursor_ = Cursor{scalar.offset, scalar.line, scalar.offset - (scalar.column - 1)};
  ScanReferences(text_, begin, end, emit_reference_, on_unterminated_);
}

void Parser::RecordEmpty(const Cursor& at, std::uint32_t path, bool is_key, ContextClass context) {
  Scalar scalar;
  scalar.offset = at.pos;
  scalar.line = at.line;
  scalar.column = static_cast<std::uint32_t>(at.pos - at.line_start + 1);
  scalar.document = document_;
  scalar.in_flow = flow_depth_ > 0;
  scalar.indent = static_cast<std::uint32_t>(SkipSpaces(text_, at.line_start) - at.line_start);
  scalar.path = path;
  scalar.is_key = is_key;
  scalar.context = context;
  out_.scalars.push_back(scalar);
  if (spans_) RecordScalarSpan(scalar);
  if (sink_) HandScalar();
}

void Parser::HandScalar() {
  sink_->Take(&out_);
  out_.scalars.clear();
}

// A tag on a key decides its value where this tokenizer keeps the text: to
// go-yaml, `!!binary Y29tbWFuZA==` is the key `command`. Only `!!str`, which
// changes nothing, is accepted. The key's properties are the tokens before
// it on its line.
void Parser::CheckKeyTag(const Scalar& key) {
  if (key.column - 1 == key.indent) return;  // first on its line: nothing before it
  std::size_t end = key.offset;
  while (true) {
    while (end > 0 && IsBlank(text_[end - 1])) --end;
    std::size_t begin = end;
    if (begin > 0 && text_[begin - 1] == '>') {  // a verbatim tag `!<...>` may hold flow indicators
      const std::size_t open = text_.rfind("!<", begin - 1);
      if (open != std::string_view::npos && text_.find('\n', open) >= end) begin = open;
    }
    while (begin > 0 && !(ClassOf(text_[begin - 1]) & (kBlankClass | kBreakClass | kFlowClass))) --begin;
    const std::string_view token = text_.substr(begin, end - begin);
    if (token.starts_with("&")) {
      end = begin;
      continue;
    }
    if (token.starts_with("!") && token != "!!str" && token != "!<tag:yaml.org,2002:str>") {
      Error(LocationOf(begin), "a mapping key has the tag '" + std::string(token) + "', which decides the key's value",
            "write the key as the text it stands for, without a tag");
    }
    return;
  }
}

inline void Parser::RecordKey(const Node& key, std::uint32_t segment) {
  if (key.kind == Node::Kind::kScalar) {
    const bool block = key.style == ScalarStyle::kLiteral || key.style == ScalarStyle::kFolded;
    RecordScalar(scanned_, segment, true, block ? ContextClass::kScript : ContextClass::kData);
  } else if (key.kind == Node::Kind::kEmpty) {
    RecordEmpty(key.empty_at, segment, true, ContextClass::kData);
  }
}

inline void Parser::RecordValue(const Node& value, std::uint32_t path, ContextClass context) {
  if (value.kind == Node::Kind::kScalar) {
    RecordScalar(scanned_, path, false, context);
  } else if (value.kind == Node::Kind::kEmpty && value.has_properties) {
    RecordEmpty(value.empty_at, path, false, context);
  } else if (value.kind == Node::Kind::kAlias && spans_) {
    RecordAliasSpan(value);
  }
}

void Parser::RecordComment() {
  const Cursor start = Save();
  const std::size_t rest = size_ - pos_;
  const void* newline = std::memchr(text_.data() + pos_, '\n', rest);
  std::size_t end = newline ? static_cast<std::size_t>(static_cast<const char*>(newline) - text_.data()) : size_;
  const void* cr = std::memchr(text_.data() + pos_, '\r', end - pos_);
  if (cr != nullptr) end = static_cast<std::size_t>(static_cast<const char*>(cr) - text_.data());
  pos_ = end;
  out_.comments.push_back(Comment{start.pos, end - start.pos, start.line, static_cast<std::uint32_t>(start.pos - start.line_start + 1)});
  if (!HasDollar(start.pos, end) || !references_wanted_) return;
  ref_scalar_ = Reference::kNoScalar;
  ref_context_ = ContextClass::kComment;
  ref_cursor_ = start;
  ScanReferences(text_, start.pos, end, emit_reference_, on_unterminated_);
}

void Parser::RecordMarker(Marker::Kind kind, std::size_t length) {
  out_.markers.push_back(Marker{kind, pos_, length, line_, static_cast<std::uint32_t>(Column() + 1)});
}

inline bool Parser::HasDollar(std::size_t begin, std::size_t end) {
  if (begin < dollar_from_ || next_dollar_ < begin) {
    const void* found = std::memchr(text_.data() + begin, '$', size_ - begin);
    next_dollar_ = found ? static_cast<std::size_t>(static_cast<const char*>(found) - text_.data()) : size_;
    dollar_from_ = begin;
  }
  return next_dollar_ < end;
}

void Parser::RecordReference(const Reference& found) {
  AdvanceCursor(&ref_cursor_, found.offset);
  Reference& reference = out_.references.emplace_back(found);  // completed in place: no second copy
  reference.line = ref_cursor_.line;
  reference.column = static_cast<std::uint32_t>(reference.offset - ref_cursor_.line_start + 1);
  reference.context = ref_context_;
  reference.scalar = ref_scalar_;
}

void Parser::ReportUnterminated(std::size_t offset) {
  AdvanceCursor(&ref_cursor_, offset);
  Cursor at = ref_cursor_;
  at.pos = offset;
  if (ref_scalar_ == Reference::kNoScalar) {
    // Comments are never substituted (SPEC Rule 2): worth a note, not a failure.
    diagnostics_.Add(MakeWarning(LocationOf(at), "unterminated '${' in a comment: expected '}'",
                                 "comments are never substituted; close the brace to silence this"));
    return;
  }
  Error(LocationOf(at), "unterminated '${': expected '}'",
        "close the reference with '}' within the same scalar (`$${` is the start of an escape, not a literal `${`)");
}

// Tokens::command_line_aliases: a path that is, or is an item of, a
// `command`/`args` entry or a `<<` merge entry (`<<: [*a, *b]`).
bool Parser::InCommandLine(std::uint32_t path) const {
  if (path == PathSegment::kRoot) return false;
  const PathSegment& segment = out_.paths[path];
  auto hides = [](std::string_view key) { return key == "command" || key == "args" || key == "<<"; };
  if (segment.index < 0) return hides(segment.key);
  return segment.parent != PathSegment::kRoot && hides(out_.paths[segment.parent].key);
}

void Parser::RecordAlias(const Node& alias, std::uint32_t path) {
  const std::size_t length = alias.end - alias.begin;
  out_.command_line_aliases.push_back(
      Alias{alias.begin, length, document_, path, text_.substr(alias.begin + 1, length - 1)});
}

// An alias used as a mapping key may stand for `command` or `args`
// (`*c : [sh, -c]` with `&c command` elsewhere).
inline void Parser::RecordAliasKey(const Node& key, std::uint32_t segment) {
  if (key.kind == Node::Kind::kAlias) RecordAlias(key, segment);
}

// The anchor recorded at `offset` by SkipPropertyToken, or nullptr: one of
// the last few, since only the node's own properties came after it.
Anchor* Parser::AnchorAt(std::size_t offset) {
  if (offset == kNoAnchor) return nullptr;
  auto& anchors = out_.anchors;
  auto it = std::find_if(anchors.rbegin(), anchors.rend(), [&](const Anchor& a) { return a.offset == offset; });
  return it == anchors.rend() ? nullptr : &*it;
}

void Parser::ForgetMappingAnchor(std::size_t anchor) {
  if (Anchor* found = AnchorAt(anchor)) found->on_mapping = false;
}

// `anchor` is the offset of the `&` (kNoAnchor: none) of the mapping at `path`.
void Parser::RecordMappingAnchor(std::size_t anchor, std::uint32_t path) {
  if (Anchor* found = AnchorAt(anchor)) {
    found->on_mapping = true;
    found->path = path;
  }
}

inline std::uint32_t Parser::NewKeySegment(std::uint32_t parent, std::string_view key) {
  if (sink_) ForgetFinishedSegments(parent);
  out_.paths.push_back(PathSegment{parent, -1, key});
  return static_cast<std::uint32_t>(out_.paths.size() - 1);
}

std::uint32_t Parser::NewIndexSegment(std::uint32_t parent, std::int32_t index) {
  if (sink_) ForgetFinishedSegments(parent);
  out_.paths.push_back(PathSegment{parent, index, {}});
  return static_cast<std::uint32_t>(out_.paths.size() - 1);
}

// With a sink, before a new child of `parent`: the segments after it are
// those of its earlier children, finished, whose scalars the sink has had.
// (An open segment is always created before its children, so the open ones
// are `parent` and the segments before it.)
void Parser::ForgetFinishedSegments(std::uint32_t parent) {
  const std::size_t kept = parent == PathSegment::kRoot ? 0 : std::size_t{parent} + 1;
  if (out_.paths.size() > kept) out_.paths.resize(kept);
}

// A flow collection read before it was known to be a key hangs its entries
// under the mapping; once it is known to be a key, they move under the entry.
void Parser::Reparent(std::size_t first_segment, std::uint32_t from, std::uint32_t to) {
  if (sink_) sink_->PathsChanged();  // its scalars were handed over under the mapping
  for (std::size_t i = first_segment; i < out_.paths.size(); ++i) {
    if (i != to && out_.paths[i].parent == from) out_.paths[i].parent = to;
  }
}

// A key whose text is not its value, decoded: classification must see
// `"comm\x61nd"` as the `command` every YAML parser reads.
std::string_view Parser::DecodedKey(const Node& key) {
  Scalar scalar;
  scalar.offset = key.begin;
  scalar.length = key.end - key.begin;
  scalar.style = key.style;
  // A block scalar needs its indentation and chomping: the key was the last
  // scalar scanned.
  const bool block = key.style == ScalarStyle::kLiteral || key.style == ScalarStyle::kFolded;
  if (block && scanned_.offset == key.begin) scalar = scanned_;
  if (!out_.decoded_keys) out_.decoded_keys = std::make_shared<std::deque<std::string>>();
  return out_.decoded_keys->emplace_back(DecodeScalar(text_, scalar));
}

inline std::string_view Parser::KeyText(const Node& key) {
  switch (key.kind) {
    case Node::Kind::kEmpty:
      return {};
    case Node::Kind::kScalar: {
      std::string_view raw = text_.substr(key.begin, key.end - key.begin);
      // A block scalar key (after `? `) is never its text.
      if (key.style == ScalarStyle::kLiteral || key.style == ScalarStyle::kFolded) return DecodedKey(key);
      // A plain key is its text, unless it folds over lines (after `? ` or
      // in a flow mapping): keys are compared by value (duplicate_keys.h).
      if (key.style != ScalarStyle::kSingleQuoted && key.style != ScalarStyle::kDoubleQuoted) {
        const bool folds = key.begin < line_start_ && raw.find_first_of("\r\n") != std::string_view::npos;
        return folds ? DecodedKey(key) : raw;
      }
      raw.remove_prefix(1);
      if (!raw.empty() && raw.back() == text_[key.begin]) raw.remove_suffix(1);
      // The bytes that make a quoted key's text differ from its value.
      const char escape = key.style == ScalarStyle::kDoubleQuoted ? '\\' : '\'';
      for (char c : raw) {
        if (c == escape || c == '\n' || c == '\r') return DecodedKey(key);
      }
      return raw;
    }
    case Node::Kind::kCollection:
    case Node::Kind::kAlias: {
      // A collection as a key (rare outside tests): the start of its text, up
      // to the first line break and at most kMaxCollectionKey bytes, names
      // the entry (a path must stay short even when the key is huge).
      constexpr std::size_t kMaxCollectionKey = 64;
      const std::size_t limit = std::min(std::max(key.begin, key.end), key.begin + kMaxCollectionKey);
      const std::size_t end = FindBreak(text_, key.begin, std::min(limit, size_));
      std::string_view raw = text_.substr(key.begin, end - key.begin);
      while (!raw.empty() && IsBlank(raw.back())) raw.remove_suffix(1);
      return raw;
    }
  }
  return {};
}

bool Parser::IsScriptSequence(std::uint32_t path) const {
  if (path == PathSegment::kRoot) return false;
  const PathSegment& segment = out_.paths[path];
  return segment.index < 0 && (segment.key == "command" || segment.key == "args");
}

// ---------------------------------------------------------------------------
// Node spans: recorded only when asked for (spans_), so that the render's
// pass pays one untaken branch per node and nothing more.

void Parser::NoteProperty(std::size_t begin, std::size_t end) {
  (text_[begin] == '&' ? pending_anchor_ : pending_tag_) = SourceRange{begin, end};
}

// A span of `kind` starting at `begin`, with the properties read for it.
NodeSpan Parser::SpanHere(NodeKind kind, std::size_t begin) {
  NodeSpan node;
  node.kind = kind;
  node.begin = node.end = begin;
  std::size_t line = std::min(begin, line_start_);  // the start of begin's line
  if (begin < line_start_) {
    while (line > 0 && !IsBreak(text_[line - 1])) --line;
  }
  node.column = static_cast<std::uint32_t>(begin - line);
  node.indent = static_cast<std::uint32_t>(std::min(SkipSpaces(text_, line), begin) - line);
  node.anchor = pending_anchor_;
  node.tag = pending_tag_;
  pending_anchor_ = pending_tag_ = SourceRange{};
  return node;
}

void Parser::OpenSpan(NodeKind kind, bool flow, std::size_t begin) {
  NodeSpan node = SpanHere(kind, begin);
  node.flow = flow;
  spans_->Open(node);
}

// Properties followed by a line break may be those of a block mapping whose
// first key comes next (`&m` above `&k key: v`): they wait apart from the
// properties of the key's line until the node is known.
void Parser::LiftProperties() {
  if (pending_anchor_.present()) outer_anchor_ = std::exchange(pending_anchor_, SourceRange{});
  if (pending_tag_.present()) outer_tag_ = std::exchange(pending_tag_, SourceRange{});
}

// The node was not a mapping: the properties above it are its own.
void Parser::LowerProperties() {
  if (!pending_anchor_.present()) pending_anchor_ = outer_anchor_;
  if (!pending_tag_.present()) pending_tag_ = outer_tag_;
  outer_anchor_ = outer_tag_ = SourceRange{};
}

// A flow node in block context that was not a key: a collection was recorded
// (at `mark`) before that was known.
void Parser::LowerPropertiesOnto(const Node& node, std::uint32_t mark) {
  if (node.kind != Node::Kind::kCollection) return LowerProperties();
  NodeSpan& collection = spans_->At(mark);
  if (!collection.anchor.present()) collection.anchor = outer_anchor_;
  if (!collection.tag.present()) collection.tag = outer_tag_;
  outer_anchor_ = outer_tag_ = SourceRange{};
}

// `first_key` (its span, if it is a collection, recorded at `key_mark`) turned
// out to be the first key of a mapping: opens the mapping above it, with the
// properties above the key's line.
void Parser::OpenMappingAbove(const Node& first_key, std::uint32_t key_mark) {
  const bool flow = flow_depth_ > 0;
  const SourceRange key_anchor = first_key.kind == Node::Kind::kCollection ? SourceRange{} : pending_anchor_;
  const SourceRange key_tag = first_key.kind == Node::Kind::kCollection ? SourceRange{} : pending_tag_;
  pending_anchor_ = std::exchange(outer_anchor_, SourceRange{});
  pending_tag_ = std::exchange(outer_tag_, SourceRange{});
  // The mapping starts at its first key's properties, if any.
  std::size_t begin = std::min({first_key.begin, key_anchor.begin, key_tag.begin});
  if (first_key.kind == Node::Kind::kCollection) {
    const NodeSpan& key = spans_->At(key_mark);
    begin = std::min({first_key.begin, key.anchor.begin, key.tag.begin});
  }
  NodeSpan mapping = SpanHere(NodeKind::kMapping, begin);
  mapping.flow = flow;
  if (first_key.kind == Node::Kind::kCollection) {
    spans_->InsertParent(key_mark, mapping);
    return;
  }
  spans_->Open(mapping);
  pending_anchor_ = key_anchor;
  pending_tag_ = key_tag;
}

void Parser::RecordAliasSpan(const Node& alias) {
  NodeSpan node = SpanHere(NodeKind::kAlias, alias.begin);
  node.end = alias.end;
  spans_->Leaf(node);
}

void Parser::RecordScalarSpan(const Scalar& scalar) {
  NodeSpan node = SpanHere(NodeKind::kScalar, scalar.offset);
  node.end = scalar.offset + scalar.length;
  node.column = scalar.column - 1;
  node.indent = scalar.indent;
  node.scalar = static_cast<std::uint32_t>(out_.scalars.size() - 1);
  spans_->Leaf(node);
}

// ---------------------------------------------------------------------------
// Documents

void Parser::Run() {
  if (text_.substr(0, 3) == "\xEF\xBB\xBF") pos_ = line_start_ = 3;
  bool directives_allowed = true;  // at the start, or after `...`
  bool any_document = false;
  Cursor pending_directive;  // a directive not yet followed by `---`
  bool directive_pending = false;
  auto report_lone_directive = [&] {
    if (!directive_pending) return;
    Error(LocationOf(pending_directive), "a directive must be followed by a document starting with '---'",
          "add '---' after the directives, or remove them");
    directive_pending = false;
  };
  auto end_document = [&](bool explicit_end) {
    if (spans_ == nullptr || !spans_->Open()) return;
    if (explicit_end) spans_->EndExplicitly();
    spans_->Close(explicit_end ? pos_ + 3 : content_end_);
  };
  auto begin_document = [&](bool explicit_start) {
    if (!directive_pending) tag_handles_.clear();  // directives apply to the next document only
    anchor_names_.clear();
    if (any_document) ++document_;
    any_document = true;
    directives_allowed = false;
    if (spans_ == nullptr) return;
    end_document(false);
    NodeSpan document;
    document.kind = NodeKind::kDocument;
    document.explicit_start = explicit_start;
    document.begin = document.end = pos_;
    spans_->Open(document);
  };
  while (true) {
    SkipToNextToken();
    if (AtEnd() || (sink_ && !sink_->WantsMore())) break;
    if (Column() == 0 && Cur() == '%' && directives_allowed) {
      if (!directive_pending) {
        pending_directive = Save();
        tag_handles_.clear();
        yaml_directive_seen_ = false;
      }
      directive_pending = true;
      ParseDirective();
      continue;
    }
    if (AtDocumentMarker()) {
      const bool start = Cur() == '-';
      RecordMarker(start ? Marker::Kind::kDocumentStart : Marker::Kind::kDocumentEnd, 3);
      if (start) begin_document(true);
      else end_document(true);
      pos_ += 3;
      if (!start) {
        report_lone_directive();
        directives_allowed = true;
        ExpectLineEnd();
        continue;
      }
      directive_pending = false;
      ParseBlockNode(-1, PathSegment::kRoot, Where::kDocumentStart, false, false);
    } else {
      report_lone_directive();
      begin_document(false);
      ParseBlockNode(-1, PathSegment::kRoot, Where::kBareDocument, false, false);
    }
    SkipTrailingContent();
  }
  end_document(false);
  report_lone_directive();
  // Comment references can be found while a flow key is still pending.
  auto by_offset = [](const Reference& a, const Reference& b) { return a.offset < b.offset; };
  if (!std::is_sorted(out_.references.begin(), out_.references.end(), by_offset)) {
    std::stable_sort(out_.references.begin(), out_.references.end(), by_offset);
  }
}

void Parser::ParseDirective() {
  const std::size_t start = pos_;
  std::size_t end = pos_;
  while (pos_ < size_ && !IsBreak(text_[pos_])) {
    if (text_[pos_] == '#' && IsBlank(text_[pos_ - 1])) break;
    ++pos_;
    if (!IsBlank(text_[pos_ - 1])) end = pos_;
  }
  pos_ = start;
  RecordMarker(Marker::Kind::kDirective, end - start);
  CheckDirective(start, end);
  pos_ = end;
  ExpectLineEnd();
}

// A %YAML directive names one version, once per document; a %TAG directive
// declares the handle its document's tags may use.
void Parser::CheckDirective(std::size_t begin, std::size_t end) {
  std::vector<std::string_view> words;
  for (std::size_t i = begin; i < end;) {
    const std::size_t word = i;
    while (i < end && !IsBlank(text_[i])) ++i;
    words.push_back(text_.substr(word, i - word));
    while (i < end && IsBlank(text_[i])) ++i;
  }
  if (words[0] == "%TAG" && words.size() > 1) tag_handles_.push_back(words[1]);
  if (words[0] != "%YAML") return;
  if (yaml_directive_seen_) {
    Error(LocationOf(begin), "a second %YAML directive for the same document", "remove one of them");
  }
  yaml_directive_seen_ = true;
  const std::string_view version = words.size() > 1 ? words[1] : std::string_view();
  const std::size_t dot = version.find('.');
  auto digits = [](std::string_view part) {
    return !part.empty() && std::all_of(part.begin(), part.end(), [](char c) { return c >= '0' && c <= '9'; });
  };
  if (words.size() != 2 || dot == std::string_view::npos || !digits(version.substr(0, dot)) ||
      !digits(version.substr(dot + 1))) {
    Error(LocationOf(begin), "a %YAML directive takes one version number, such as '%YAML 1.2'",
          "a comment after it needs a space before its '#'");
  }
}

// After a document's root node only comments, markers and the end may follow.
void Parser::SkipTrailingContent() {
  bool reported = false;
  while (true) {
    SkipToNextToken();
    if (AtBoundary()) return;
    if (!reported) {
      if (Column() == 0 && Cur() == '%') {
        ErrorHere("a directive must follow a '...' document end marker",
                  "end the previous document with '...' before the directive");
      } else {
        ErrorHere("unexpected content after the document's root node",
                  "check the indentation of this line against the lines above it");
      }
      reported = true;
    }
    SkipToLineEnd();
  }
}

// After a complete node only a comment may follow on its line.
void Parser::ExpectLineEnd() {
  SkipBlanks();
  if (AtEnd() || IsBreak(Cur()) || Cur() == '#') return;
  if (Cur() == ':') {
    ErrorHere("mapping values are not allowed here",
              "a value on the line of its key cannot itself be `key: value`, and a plain scalar continued on "
              "the next line cannot contain ': '; indent the nested mapping on its own line, or quote the value");
  } else {
    UnexpectedHere("unexpected '", "' after the end of a node", "quote the whole value if this text belongs to it");
  }
  SkipToLineEnd();
}

// ---------------------------------------------------------------------------
// Block structure

inline Node Parser::ParseBlockNode(int n, std::uint32_t path, Where where, bool script_item, bool as_key) {
  if (++depth_ > kMaxDepth) {
    --depth_;
    TooDeep();
    return Node{};
  }
  Node node = ParseBlockNodeContent(n, path, where, script_item, as_key);
  --depth_;
  return node;
}

// True when the token at the cursor, on a line after its parent's indicator,
// still belongs to the parent: more indented than `n`, or a `- ` at the same
// indentation as the key of a mapping (YAML's compact "block-out" sequence).
bool Parser::IndentAllows(int n, Where where) const {
  const int column = Column();
  if (column > n) return true;
  const bool block_out = where == Where::kMappingValue || where == Where::kExplicitKey ||
                         where == Where::kExplicitValue;
  return block_out && column == n && AtIndicator('-');
}

Node Parser::ParseBlockNodeContent(int n, std::uint32_t path, Where where, bool script_item, bool as_key) {
  const ContextClass flow_context = script_item ? ContextClass::kScript : ContextClass::kData;
  Node empty;
  empty.empty_at = Save();
  bool crossed;
  if (Cur() == ' ' && !(ClassOf(At(pos_ + 1)) & (kBlankClass | kBreakClass | kHashClass)) && pos_ + 1 < size_) {
    ++pos_;  // the usual single space after `:` or `-`
    crossed = where == Where::kBareDocument;
  } else {
    crossed = SkipToNextToken() || where == Where::kBareDocument;
  }
  int props_column = -1;  // column of the first property on the content's line
  // The properties on lines above the content are the node's. Those on the
  // content's line are the first key's when the node is a block mapping, and
  // the node's otherwise: then one of a kind on each is one too many.
  Properties above, on_line;
  while (true) {
    if (AtBoundary() || (crossed && !IndentAllows(n, where))) {
      if (above.Repeated(on_line) != kNoAnchor) TwoProperties(above.Repeated(on_line));
      if (spans_) LowerProperties();
      RecordEmpty(empty.empty_at, path, as_key, as_key ? ContextClass::kData : flow_context);
      return empty;
    }
    if (Cur() != '&' && Cur() != '!') break;
    if (props_column < 0) props_column = Column();
    const std::size_t at = pos_;
    if (SkipNodeProperty(&on_line) != kNoAnchor) TwoProperties(at);
    empty.has_properties = true;
    empty.empty_at = Save();
    if (SkipToNextToken()) {
      crossed = true;
      props_column = -1;
      if (above.Repeated(on_line) != kNoAnchor) TwoProperties(above.Repeated(on_line));
      above.Add(std::exchange(on_line, Properties{}));
      if (spans_) LiftProperties();
    }
  }
  const std::size_t second_property = above.Repeated(on_line);
  const int content_column = Column();
  // Something besides spaces before the node on its own line: a tab, or properties.
  if (crossed && content_column != static_cast<int>(LineIndent())) CheckTabIndentedLine(n);
  const int entry_column = props_column >= 0 ? props_column : content_column;
  // Properties on the line of `key: ` or `--- ` are harmless; anywhere else
  // yaml-cpp takes their column for the node's indentation.
  const bool properties_indent = props_column >= 0 && (crossed || (where != Where::kMappingValue &&
                                                                    where != Where::kDocumentStart));
  // A block collection may start on the indicator's line only after `- `, `? `
  // and an explicit `: ` (YAML's compact forms).
  const bool collection_allowed = crossed || where == Where::kSequenceItem || where == Where::kExplicitKey ||
                                  where == Where::kExplicitValue;
  Node node;
  node.begin = pos_;
  node.has_properties = empty.has_properties;
  const char c = Cur();
  // An anchor on the line of a block mapping's first key is that key's.
  const std::size_t mapping_anchor = c == '{' && on_line.anchor != kNoAnchor ? on_line.anchor : above.anchor;
  if (AtIndicator('-') || AtIndicator('?')) {
    if (second_property != kNoAnchor) TwoProperties(second_property);
    CheckNoTabIndent(pos_, n);
    if (props_column >= 0) {
      ErrorHere("a block collection cannot start on the line of its anchor or tag",
                "move the anchor or tag to the line of the key above, or start the collection on the next line");
    } else if (!collection_allowed) {
      ErrorHere(c == '-' ? "a block sequence cannot start on the same line as its key"
                         : "a complex key '? ' cannot start on the same line as its key",
                "start it on the next line, indented");
    }
    if (spans_) {
      LowerProperties();
      OpenSpan(c == '-' ? NodeKind::kSequence : NodeKind::kMapping, false, pos_);
    }
    if (c == '-') {
      ParseBlockSequence(content_column, path);
    } else {
      RecordMappingAnchor(mapping_anchor, path);
      ParseBlockMapping(content_column, path, nullptr, 0);
    }
    if (spans_) spans_->Close(content_end_);
    node.kind = Node::Kind::kCollection;
    node.end = content_end_;
    return node;
  }
  if (c == '|' || c == '>') {
    if (second_property != kNoAnchor) TwoProperties(second_property);
    if (spans_) LowerProperties();
    ScanBlockScalar(n);
    if (properties_indent) CheckLinesPastProperties(scanned_, props_column);
    node.kind = Node::Kind::kScalar;
    node.style = scanned_.style;
    node.end = scanned_.offset + scanned_.length;
    RecordScalar(scanned_, path, as_key, ContextClass::kScript);
    return node;
  }
  const std::size_t segment_mark = out_.paths.size();
  const std::uint32_t span_mark = spans_ ? spans_->Mark() : 0;
  if (AtIndicator(':')) {
    node.kind = Node::Kind::kEmpty;  // an entry with an empty key: `: value`
    node.empty_at = Save();
  } else {
    if (c == '{') RecordMappingAnchor(mapping_anchor, path);
    node = ScanFlowContent(n, path, /*flow=*/false);
    if (node.kind == Node::Kind::kAlias && props_column >= 0) AliasWithProperties(node.begin);
    if (node.kind == Node::Kind::kEmpty) {
      UnexpectedHere("unexpected '", "': no YAML node starts with it", "quote the value if this character is part of it");
      SkipToLineEnd();
      if (spans_) LowerProperties();
      RecordEmpty(empty.empty_at, path, as_key, as_key ? ContextClass::kData : flow_context);
      return empty;
    }
  }
  const Cursor after = Save();
  SkipBlanks();
  if (AtIndicator(':')) {  // it was the first key of a block mapping
    CheckSingleLineKey(node);
    if (!collection_allowed) {
      ErrorHere("mapping values are not allowed here",
                where == Where::kDocumentStart
                    ? "a mapping cannot start on the '---' line; put it on the next line"
                    : "a value on the line of its key cannot itself be `key: value`; put the nested mapping on "
                      "its own line, indented, or quote the value");
      SkipToLineEnd();
      return node;
    }
    if (c == '{') ForgetMappingAnchor(mapping_anchor);  // the `{...}` is a key, not the anchored node
    RecordMappingAnchor(above.anchor, path);
    CheckNoTabIndent(line_start_ + static_cast<std::size_t>(entry_column), n);
    if (spans_) OpenMappingAbove(node, span_mark);
    ParseBlockMapping(entry_column, path, &node, segment_mark);
    if (spans_) spans_->Close(content_end_);
    Node mapping;
    mapping.kind = Node::Kind::kCollection;
    mapping.begin = node.begin;
    mapping.end = content_end_;
    return mapping;
  }
  Restore(after);
  if (second_property != kNoAnchor) TwoProperties(second_property);
  if (spans_) LowerPropertiesOnto(node, span_mark);
  if (node.kind == Node::Kind::kScalar) {
    if (node.style == ScalarStyle::kPlain) {
      ExtendPlain(&scanned_, n, /*flow=*/false);
      if (properties_indent) CheckLinesPastProperties(scanned_, props_column);
    }
    node.end = scanned_.offset + scanned_.length;
    RecordScalar(scanned_, path, as_key, as_key ? ContextClass::kData : flow_context);
  } else if (node.kind == Node::Kind::kAlias && spans_) {
    RecordAliasSpan(node);
  }
  ExpectLineEnd();
  return node;
}

// yaml-cpp ends a block or plain scalar whose anchor or tag starts its node
// (after `- `, `? `, or first on a line) at the first line that is not
// indented past that property, where YAML reads on (`- &mounts |-` with its
// text under the `-`: valid, and common in Talos configs). YAML decides: the
// place is only recorded, so that nothing relies on yaml-cpp's reading of
// this document (Tokens::yaml_cpp_misreads).
void Parser::CheckLinesPastProperties(const Scalar& scalar, int props_column) {
  const std::size_t end = scalar.offset + scalar.length;
  for (std::size_t line = text_.find('\n', scalar.offset); line < end; line = text_.find('\n', line)) {
    std::size_t first = ++line;
    while (first < end && text_[first] == ' ') ++first;
    if (first >= end || text_[first] == '\n' || text_[first] == '\r') continue;
    if (static_cast<int>(first - line) > props_column) continue;
    out_.yaml_cpp_misreads.push_back(first);
    return;
  }
}

// An implicit key (one without `? `) must end on the line where it starts;
// the cursor is at its `:`.
inline void Parser::CheckSingleLineKey(const Node& key) {
  if (key.kind == Node::Kind::kEmpty || key.begin >= line_start_) return;
  Error(LocationOf(key.begin), "an implicit mapping key must be on a single line",
        "put the whole key on one line, or write it as a complex key with '? '");
}

// Moves to the next line that continues a collection whose entries stand at
// column `m`. Returns false when the collection has ended.
inline bool Parser::SkipToSiblingLine(int m, bool sequence) {
  bool reported = false;
  while (true) {
    SkipToNextToken();
    if (AtBoundary()) return false;
    const int column = Column();
    if (column < m) return false;
    if (column == m) {
      if (!sequence || AtIndicator('-')) return true;
      return false;  // e.g. the next key of the mapping holding a compact sequence
    }
    if (!reported) {
      if (TabIndentsLine(m)) {
        CheckTabIndentedLine(m);
      } else {
        ErrorHere(sequence ? "unexpected indentation: expected a '- ' entry at column " + std::to_string(m + 1)
                           : "unexpected indentation: expected a mapping key at column " + std::to_string(m + 1),
                  "align this line with the entries above it, or quote a value that continues here");
      }
      reported = true;
    }
    SkipToLineEnd();
  }
}

void Parser::ParseBlockSequence(int m, std::uint32_t path) {
  const bool script = IsScriptSequence(path);
  std::int32_t index = 0;
  do {
    const std::uint32_t item = NewIndexSegment(path, index++);
    ++pos_;  // the `-`
    ParseBlockNode(m, item, Where::kSequenceItem, script, false);
  } while (SkipToSiblingLine(m, /*sequence=*/true));
}

// Reads the entries of a block mapping at column `m`. When `first_key` is
// given, the first key has been scanned and the cursor is at its `:`.
void Parser::ParseBlockMapping(int m, std::uint32_t path, Node* first_key, std::size_t first_mark) {
  if (first_key != nullptr) ParseEntryValue(m, path, *first_key, first_mark);
  else if (AtIndicator('?')) ParseExplicitEntry(m, path);
  else ParseImplicitEntry(m, path);
  while (SkipToSiblingLine(m, /*sequence=*/false)) {
    if (AtIndicator('-')) {
      ErrorHere("a sequence entry cannot follow mapping entries at the same indentation",
                "indent the sequence under a key");
      SkipToLineEnd();
    } else if (AtIndicator('?')) {
      ParseExplicitEntry(m, path);
    } else {
      ParseImplicitEntry(m, path);
    }
  }
}

void Parser::ParseExplicitEntry(int m, std::uint32_t path) {
  ++pos_;  // the `?`
  const std::uint32_t segment = NewKeySegment(path, {});
  const Node key = ParseBlockNode(m, segment, Where::kExplicitKey, false, true);
  out_.paths[segment].key = KeyText(key);
  if (sink_) sink_->PathsChanged();  // the key's own scalars were handed over before it had its text
  RecordAliasKey(key, segment);
  const Cursor after_key = Save();
  SkipToNextToken();
  if (!AtBoundary() && Column() == m && AtIndicator(':')) {
    ++pos_;
    ParseBlockNode(m, segment, Where::kExplicitValue, false, false);
  } else {
    RecordEmpty(after_key, segment, false, ContextClass::kData);
  }
}

inline void Parser::ParseImplicitEntry(int m, std::uint32_t path) {
  const bool has_properties = Cur() == '&' || Cur() == '!';
  Properties properties;
  while (Cur() == '&' || Cur() == '!') {
    const std::size_t at = pos_;
    if (SkipNodeProperty(&properties) != kNoAnchor) TwoProperties(at);
    SkipBlanks();
  }
  const std::size_t segment_mark = out_.paths.size();
  Node key;
  if (AtIndicator(':')) {
    key.empty_at = Save();
  } else {
    const Cursor start = Save();
    key = ScanFlowContent(m, path, /*flow=*/false);
    if (key.kind == Node::Kind::kAlias && has_properties) AliasWithProperties(key.begin);
    if (key.kind == Node::Kind::kEmpty) {
      if (Column() == 0 && Cur() == '%') {
        ErrorHere("a directive must follow a '...' document end marker",
                  "end the previous document with '...' before the directive");
      } else {
        if (AtEnd() || IsBreak(Cur())) {
          ErrorHere("expected a mapping key after its properties");
        } else {
          UnexpectedHere("unexpected '", "': expected a mapping key", "quote the key if this character is part of it");
        }
      }
      SkipToLineEnd();
      return;
    }
    SkipBlanks();
    if (AtIndicator(':')) CheckSingleLineKey(key);
    if (!AtIndicator(':')) {
      Error(LocationOf(start), "could not find the ':' of this mapping entry",
            "every line of a mapping must be `key: value`; check this line's indentation, or quote a value "
            "that continues from the line above");
      SkipToLineEnd();
      return;
    }
  }
  ParseEntryValue(m, path, key, segment_mark);
}

// The cursor is at the `:` after `key`.
inline void Parser::ParseEntryValue(int m, std::uint32_t path, const Node& key, std::size_t segment_mark) {
  const std::uint32_t segment = NewKeySegment(path, KeyText(key));
  if (key.kind == Node::Kind::kCollection) Reparent(segment_mark, path, segment);
  RecordKey(key, segment);
  RecordAliasKey(key, segment);
  if (key.kind == Node::Kind::kAlias && spans_) RecordAliasSpan(key);
  ++pos_;  // the `:`
  ParseBlockNode(m, segment, Where::kMappingValue, false, false);
}

// ---------------------------------------------------------------------------
// Flow structure

// Scans the flow node at the cursor (properties already consumed): a flow
// collection (recorded), an alias, or a scalar (scanned, not recorded). In
// block context (`flow` false) a plain scalar is scanned to the end of its
// first line only, so that the caller can check for a `:`.
inline Node Parser::ScanFlowContent(int n, std::uint32_t path, bool flow) {
  Node node;
  node.begin = pos_;
  node.empty_at = Save();
  const char c = Cur();
  if (c == '[' || c == '{') {
    ParseFlowCollection(n, path);
    node.kind = Node::Kind::kCollection;
    node.end = content_end_;
  } else if (c == '"' || c == '\'') {
    ScanQuoted(n, flow);
    node.kind = Node::Kind::kScalar;
  } else if (c == '*') {
    SkipPropertyToken();
    node.kind = Node::Kind::kAlias;
    node.end = content_end_ = pos_;
    if (InCommandLine(path)) RecordAlias(node, path);
  } else if (PlainFirstAt(pos_, flow)) {
    StartScalar(ScalarStyle::kPlain);
    scanned_.length = ScanPlainLine(flow) - scanned_.offset;
    if (flow) ExtendPlain(&scanned_, n, flow);
    node.kind = Node::Kind::kScalar;
  }
  if (node.kind == Node::Kind::kScalar) {
    node.style = scanned_.style;
    node.end = scanned_.offset + scanned_.length;
  }
  return node;
}

// A flow node with its properties. An empty result (kEmpty) leaves the cursor
// at whatever follows.
inline Node Parser::ParseFlowNode(int n, std::uint32_t path) {
  bool has_properties = false;
  Cursor empty_at = Save();
  Properties properties;
  while (Cur() == '&' || Cur() == '!') {
    has_properties = true;
    const std::size_t at = pos_;
    if (SkipNodeProperty(&properties) != kNoAnchor) TwoProperties(at);
    empty_at = Save();
    SkipToNextFlowToken(n);
  }
  if (Cur() == '{') RecordMappingAnchor(properties.anchor, path);
  Node node;
  if (!AtBoundary()) node = ScanFlowContent(n, path, /*flow=*/true);
  if (node.kind == Node::Kind::kAlias && has_properties) AliasWithProperties(node.begin);
  if (node.kind == Node::Kind::kEmpty) node.empty_at = empty_at;
  node.has_properties = has_properties;
  return node;
}

void Parser::ParseFlowCollection(int n, std::uint32_t path) {
  if (++depth_ > kMaxDepth) {
    --depth_;
    TooDeep();
    return;
  }
  const bool is_sequence = Cur() == '[';
  const char close = is_sequence ? ']' : '}';
  const Cursor open = Save();
  if (spans_) OpenSpan(is_sequence ? NodeKind::kSequence : NodeKind::kMapping, true, pos_);
  ++pos_;
  ++flow_depth_;
  const bool script = is_sequence && IsScriptSequence(path);
  std::int32_t index = 0;
  while (true) {
    SkipToNextFlowToken(n);
    if (AtBoundary()) {
      Error(LocationOf(open),
            std::string("unterminated flow ") + (is_sequence ? "sequence: expected ']'" : "mapping: expected '}'"),
            std::string("close it with '") + close + "'");
      break;
    }
    const char c = Cur();
    if (c == close) {
      ++pos_;
      if (shallow_flow_line_ != kNoAnchor) ReportShallowFlowLine();
      break;
    }
    if (c == ']' || c == '}') {
      ErrorHere(std::string("expected '") + close + "' to close the flow collection, found '" + c + "'");
      ++pos_;
      break;
    }
    if (c == ',') {
      ErrorHere("empty entry in a flow collection", "remove the extra ','");
      ++pos_;
      continue;
    }
    const std::size_t entry_start = pos_;
    ParseFlowEntry(n, path, is_sequence, index, script);
    if (is_sequence) ++index;
    SkipToNextFlowToken(n);
    if (AtBoundary()) continue;  // reported at the top of the loop
    if (Cur() == ',') {
      ++pos_;
    } else if (Cur() != close && Cur() != ']' && Cur() != '}') {
      ErrorHere(std::string("expected ',' or '") + close + "' in a flow collection",
                "separate the entries with ','; quote a value that contains flow indicators");
      if (pos_ == entry_start) ++pos_;
    }
  }
  --flow_depth_;
  --depth_;
  if (flow_depth_ == 0) shallow_flow_line_ = kNoAnchor;  // not closed: the missing bracket was reported
  content_end_ = std::max(content_end_, pos_);
  if (spans_) spans_->Close(pos_);
}

inline void Parser::ParseFlowEntry(int n, std::uint32_t path, bool is_sequence, std::int32_t index, bool script) {
  const std::uint32_t item = is_sequence ? NewIndexSegment(path, index) : path;
  // `?` starts an explicit key only before a blank (YAML 1.2 [142]): `[?]` is neither that nor a scalar.
  const bool explicit_key = Cur() == '?' && BlankOrEndAt(pos_ + 1);
  if (explicit_key) {
    ++pos_;
    SkipToNextFlowToken(n);
  }
  const std::size_t segment_mark = out_.paths.size();
  const std::uint32_t span_mark = spans_ ? spans_->Mark() : 0;
  const Node key = ParseFlowNode(n, item);
  auto at_entry_end = [&] { return AtBoundary() || Cur() == ',' || Cur() == ']' || Cur() == '}'; };
  if (key.kind == Node::Kind::kEmpty && !key.has_properties && !at_entry_end() && Cur() != ':') {
    UnexpectedHere("unexpected '", "' in a flow collection", "quote the value if this character is part of it");
    ++pos_;
    return;
  }
  const bool json_like = key.kind == Node::Kind::kCollection ||
                         (key.kind == Node::Kind::kScalar && (key.style == ScalarStyle::kDoubleQuoted ||
                                                              key.style == ScalarStyle::kSingleQuoted));
  const Cursor after_key = Save();
  SkipToNextFlowToken(n);
  const bool pair = !AtBoundary() && Cur() == ':' && (json_like || BlankOrFlowEndAt(pos_ + 1));
  if (pair && is_sequence && !explicit_key && key.kind != Node::Kind::kEmpty && key.begin < line_start_) {
    // In a flow sequence, `key: value` is a single-pair mapping whose key
    // must be on one line (a flow mapping allows more).
    Error(LocationOf(key.begin), "an implicit key in a flow sequence must be on a single line, with its ':'",
          "use a flow mapping '{...}' or write the pair on one line");
  }
  if (!pair && !explicit_key && is_sequence) {
    RecordValue(key, item, script ? ContextClass::kScript : ContextClass::kData);
    return;
  }
  // A mapping entry: of the flow mapping, or a single-pair mapping in a sequence.
  const std::uint32_t segment = NewKeySegment(item, KeyText(key));
  if (key.kind == Node::Kind::kCollection) Reparent(segment_mark, item, segment);
  // In a sequence, the entry is a single-pair mapping; its key has every property.
  const bool single_pair_span = is_sequence && spans_;
  if (single_pair_span) OpenMappingAbove(key, span_mark);
  RecordKey(key, segment);
  RecordAliasKey(key, segment);
  if (key.kind == Node::Kind::kAlias && spans_) RecordAliasSpan(key);
  ParseFlowPairValue(n, segment, pair, after_key);
  if (single_pair_span) spans_->Close(content_end_);
}

inline void Parser::ParseFlowPairValue(int n, std::uint32_t segment, bool pair, const Cursor& after_key) {
  auto at_entry_end = [&] { return AtBoundary() || Cur() == ',' || Cur() == ']' || Cur() == '}'; };
  if (!pair) {
    RecordEmpty(after_key, segment, false, ContextClass::kData);
    return;
  }
  ++pos_;  // the `:`
  const Cursor after_colon = Save();
  SkipToNextFlowToken(n);
  if (at_entry_end()) {
    RecordEmpty(after_colon, segment, false, ContextClass::kData);
    return;
  }
  const Node value = ParseFlowNode(n, segment);
  if (value.kind == Node::Kind::kEmpty && !value.has_properties) {
    if (!at_entry_end()) {
      UnexpectedHere("unexpected '", "' in a flow collection", "quote the value if this character is part of it");
      ++pos_;
    }
    RecordEmpty(after_colon, segment, false, ContextClass::kData);
    return;
  }
  RecordValue(value, segment, ContextClass::kData);
}

// Skips the anchor or tag at the cursor, noting it in `node`. Returns the
// offset of the one of its kind the node had already, or kNoAnchor.
std::size_t Parser::SkipNodeProperty(Properties* node) {
  const std::size_t start = pos_;
  const std::size_t previous = std::exchange(Cur() == '&' ? node->anchor : node->tag, pos_);
  SkipPropertyToken();
  // A flow indicator ends a property, but content needs a blank before it.
  if (Cur() == '[' || Cur() == '{') {
    const bool anchor = text_[start] == '&';
    ErrorHere(std::string("a space must separate ") + (anchor ? "an anchor" : "a tag") + " from the '" + Cur() +
                  "' of its node",
              std::string("write '") + std::string(text_.substr(start, pos_ - start)) + " " + Cur() + "'");
  }
  return previous;
}

// Skips an anchor `&a`, a tag `!t` / `!<verbatim>`, or an alias `*a`.
void Parser::SkipPropertyToken() {
  const std::size_t start = pos_;
  if (Cur() == '!' && At(pos_ + 1) == '<') {
    while (pos_ < size_ && text_[pos_] != '>' && !IsBreak(text_[pos_])) ++pos_;
    if (Cur() == '>') {
      ++pos_;
    } else {
      Error(LocationOf(start), "the verbatim tag is not closed with '>'", "end it with '>' on the same line");
    }
    if (spans_) NoteProperty(start, pos_);
    return;
  }
  ++pos_;
  while (pos_ < size_ && !(ClassOf(text_[pos_]) & (kBlankClass | kBreakClass | kFlowClass))) ++pos_;
  if (spans_ && text_[start] != '*') NoteProperty(start, pos_);
  if (text_[start] == '!') {
    CheckTagCharacters(start + 1, pos_);
  } else if (pos_ == start + 1) {
    const bool anchor = text_[start] == '&';
    Error(LocationOf(start), anchor ? "an anchor needs a name after '&'" : "an alias needs a name after '*'",
          anchor ? "write the name right after '&' (e.g. &base), or quote the value if '&' is part of it"
                 : "write the anchor's name right after '*' (e.g. *base), or quote the value if '*' is part of it");
  }
  if (text_[start] == '&') {
    out_.anchors.push_back(Anchor{start, pos_ - start, document_, text_.substr(start + 1, pos_ - start - 1)});
    anchor_names_.insert(out_.anchors.back().name);
  } else if (text_[start] == '*' && pos_ > start + 1 && anchor_names_.count(text_.substr(start + 1, pos_ - start - 1)) == 0) {
    const std::string alias(text_.substr(start, pos_ - start));
    Error(LocationOf(start), "the alias '" + alias + "' names no anchor defined before it in this document",
          "define the anchor (&" + alias.substr(1) + ") on a node earlier in the same document, or quote the value if '*' is part of it");
  }
}

// yaml-cpp ends a tag at the first character outside the URI set and reads
// the rest as the node's text, where YAML requires a blank: a template with
// such a tag would read differently here and there, so it is refused.
void Parser::CheckTagCharacters(std::size_t begin, std::size_t end) {
  auto is_hex = [&](std::size_t i) { return i < end && std::isxdigit(static_cast<unsigned char>(text_[i])); };
  auto is_word = [&](std::size_t i) { return std::isalnum(static_cast<unsigned char>(text_[i])) || text_[i] == '-'; };
  // The handle: `!` (begin is past it), `!!`, or `!word!`. A `!` in the
  // suffix would start a second tag for yaml-cpp.
  std::size_t handle_end = begin;
  while (handle_end < end && is_word(handle_end)) ++handle_end;
  if (handle_end < end && text_[handle_end] == '!') {
    const std::string_view handle = text_.substr(begin - 1, handle_end - begin + 2);
    if (handle_end + 1 == end) {
      Error(LocationOf(begin - 1), "the tag handle '" + std::string(handle) + "' needs a suffix",
            "write the type right after it (e.g. !!str), or remove the tag");
    } else if (handle != "!!" && std::find(tag_handles_.begin(), tag_handles_.end(), handle) == tag_handles_.end()) {
      Error(LocationOf(begin - 1), "the tag handle '" + std::string(handle) + "' is not declared for this document",
            "declare it with a %TAG directive before the document's '---' (each document needs its own)");
    }
    begin = handle_end + 1;
  }
  for (std::size_t i = begin; i < end; ++i) {
    const char c = text_[i];
    if (std::isalnum(static_cast<unsigned char>(c)) || (c != '\0' && std::strchr("-#;/?:@&=+$_.~*'()", c))) continue;
    if (c == '%' && is_hex(i + 1) && is_hex(i + 2)) {
      i += 2;
      continue;
    }
    const bool ascii = static_cast<unsigned char>(c) < 0x80;
    Error(LocationOf(i), ascii ? std::string("character '") + c + "' is not allowed in a tag"
                               : std::string("a non-ASCII character is not allowed in a tag"),
          "write it %-escaped as UTF-8 bytes (e.g. %C3%A9), or put a space between the tag and the value");
    return;
  }
}

// ---------------------------------------------------------------------------
// Plain scalars

inline bool Parser::PlainFirstAt(std::size_t i, bool flow) const {
  if (BlankOrEndAt(i)) return false;
  switch (text_[i]) {
    case '-':
    case '?':
    case ':':
      return !BlankOrEndAt(i + 1) && !(flow && IsFlowIndicator(text_[i + 1]));
    case ',': case '[': case ']': case '{': case '}': case '#': case '&': case '*': case '!':
    case '|': case '>': case '\'': case '"': case '%': case '@': case '`':
      return false;
    default:
      return true;
  }
}

// Scans the rest of a plain scalar's line. Returns the end of its content
// (trailing blanks excluded) and leaves the cursor there.
inline std::size_t Parser::ScanPlainLine(bool flow) {
  std::size_t p = pos_;
  std::size_t end = p;
  while (p < size_) {
    std::uint8_t cls = ClassOf(text_[p]);
    if (cls == 0) {  // the common case: a run of ordinary characters
      do {
        ++p;
      } while (p < size_ && (cls = ClassOf(text_[p])) == 0);
      end = p;
      if (p >= size_) break;
    }
    if (cls & kBlankClass) {
      ++p;
      continue;
    }
    if (cls & kBreakClass) break;
    if (cls & kColonClass) {
      if (BlankOrEndAt(p + 1) || (flow && IsFlowIndicator(text_[p + 1]))) break;
    } else if (cls & kHashClass) {
      if (IsBlank(text_[p - 1])) break;  // a comment; p > pos_ since `#` cannot start a plain scalar
    } else if (flow) {
      break;  // a flow indicator
    }
    end = ++p;
  }
  pos_ = end;
  return end;
}

// At the end of a plain scalar's line: moves to the first character of its
// next continuation line and returns true, or leaves the cursor unchanged.
inline bool Parser::ContinuePlain(int n, bool flow) {
  if (!flow) {
    // Fast rejection of the common case without moving: the next line is
    // non-empty and not indented more than the parent.
    std::size_t i = pos_;
    while (i < size_ && IsBlank(text_[i])) ++i;
    if (i >= size_ || !IsBreak(text_[i])) return false;
    const std::size_t next = SkipBreak(text_, i);
    const std::size_t first = SkipSpaces(text_, next);
    if (first < size_ && !(ClassOf(text_[first]) & (kBlankClass | kBreakClass)) &&
        static_cast<int>(first - next) <= n) {
      return false;
    }
  }
  const Cursor save = Save();
  SkipBlanks();
  while (pos_ < size_ && IsBreak(text_[pos_])) {
    ConsumeBreak();
    if (AtDocumentMarker()) break;
    const std::size_t line_begin = pos_;
    pos_ = SkipSpaces(text_, pos_);
    const int spaces = static_cast<int>(pos_ - line_begin);
    SkipBlanks();
    if (AtEnd()) break;
    const char c = text_[pos_];
    if (IsBreak(c)) continue;  // an empty line: folded into a line feed
    if (!flow && spaces <= n) break;
    if (c == '#') break;
    if (c == ':' && (BlankOrEndAt(pos_ + 1) || (flow && IsFlowIndicator(At(pos_ + 1))))) break;
    if (flow && IsFlowIndicator(c)) break;
    return true;
  }
  Restore(save);
  return false;
}

inline void Parser::ExtendPlain(Scalar* scalar, int n, bool flow) {
  while (ContinuePlain(n, flow)) scalar->length = ScanPlainLine(flow) - scalar->offset;
}

// ---------------------------------------------------------------------------
// Quoted scalars

// At the start of a line inside a quoted scalar of block context: true when
// the line has content but is not indented more than the parent (`n`), which
// means the quote was never closed.
bool Parser::ContinuationTooShallow(int n) const {
  const std::size_t i = SkipSpaces(text_, pos_);
  if (i >= size_ || IsBreak(text_[i])) return false;
  return static_cast<int>(i - pos_) <= n;
}

void Parser::ScanEscape() {
  if (const std::size_t length = EscapeLength(text_, pos_); length > 0) {
    pos_ += length;
    return;
  }
  const Cursor at = Save();
  const char e = At(pos_ + 1);
  if (const int digits = HexDigitsOfEscape(e); digits > 0) {
    pos_ += 2;
    for (int found = 0; found < digits && std::isxdigit(static_cast<unsigned char>(Cur())); ++found) ++pos_;
    Error(LocationOf(at), std::string("invalid escape sequence: '\\") + e + "' needs " + std::to_string(digits) +
                              " hexadecimal digits");
    return;
  }
  Error(LocationOf(at), e == '\0' ? std::string("a '\\' at the end of the input")
                                  : std::string("invalid escape sequence '\\") + e + "' in a double-quoted scalar",
        "write '\\\\' for a backslash");
  pos_ += e == '\0' ? 1 : 2;
}

void Parser::ScanQuoted(int n, bool flow) {
  const char quote = Cur();
  StartScalar(quote == '"' ? ScalarStyle::kDoubleQuoted : ScalarStyle::kSingleQuoted);
  const Cursor open = Save();
  ++pos_;
  Cursor first_line_end;
  bool multi_line = false;
  bool closed = false;
  while (pos_ < size_) {
    // Ordinary bytes, eight at a time (a backslash only matters in "...").
    while (pos_ + 8 <= size_) {
      const std::uint64_t word = Load8(text_.data() + pos_);
      const std::uint64_t stop = BytesEqual(word, quote) | BytesEqual(word, '\\') | BytesEqual(word, '\n') |
                                 BytesEqual(word, '\r');
      if (stop != 0) {
        pos_ += FirstFlaggedByte(stop);
        break;
      }
      pos_ += 8;
    }
    if (pos_ >= size_) break;
    const char c = text_[pos_];
    if (c == quote) {
      if (quote == '\'' && At(pos_ + 1) == '\'') {
        pos_ += 2;
        continue;
      }
      ++pos_;
      closed = true;
      break;
    }
    if (c == '\\' && quote == '"') {
      if (IsBreak(At(pos_ + 1))) {
        ++pos_;  // an escaped line break; the break itself is handled below
      } else {
        ScanEscape();
      }
      continue;
    }
    if (IsBreak(c)) {
      if (!multi_line) first_line_end = Save();
      multi_line = true;
      ConsumeBreak();
      if (AtDocumentMarker()) break;
      if (!flow && n >= 0 && ContinuationTooShallow(n)) break;
      continue;
    }
    ++pos_;
  }
  if (!closed) {
    Error(LocationOf(open),
          std::string("unterminated ") + (quote == '"' ? "double" : "single") + "-quoted scalar: expected a closing " +
              quote,
          multi_line ? "close the quote; the lines of a quoted scalar must be indented more than its key"
                     : "close the quote");
    if (multi_line) Restore(first_line_end);  // resume after the first line
  }
  scanned_.length = pos_ - scanned_.offset;
}

// ---------------------------------------------------------------------------
// Block scalars

// The indentation of a block scalar's content, from its first non-empty line
// (the cursor is at the start of the line after the header). Returns -1 when
// the scalar has no content lines.
int Parser::DetectBlockIndent(int n) {
  std::size_t p = pos_;
  int max_empty = 0;
  std::size_t widest_empty = 0;
  while (p < size_) {
    const std::size_t line_begin = p;
    while (p < size_ && text_[p] == ' ') ++p;
    const int spaces = static_cast<int>(p - line_begin);
    if (p >= size_) return -1;
    if (IsBreak(text_[p])) {
      if (spaces > max_empty) {
        max_empty = spaces;
        widest_empty = line_begin;
      }
      p = SkipBreak(text_, p);
      continue;
    }
    if (spaces <= n) {
      if (text_[p] == '\t') {
        Error(LocationOf(p), "a tab cannot indent the content of a block scalar", "indent with spaces");
      }
      return -1;
    }
    if (spaces == 0 && p + 3 <= size_ && (text_.substr(p, 3) == "---" || text_.substr(p, 3) == "...") &&
        BlankOrEndAt(p + 3)) {
      return -1;
    }
    if (max_empty > spaces) {
      Error(LocationOf(widest_empty), "a leading empty line of this block scalar has more spaces than its first "
                                      "content line",
            "remove the trailing spaces, or give the indentation explicitly (e.g. '|2')");
    }
    return spaces;
  }
  return -1;
}

void Parser::ScanBlockScalar(int n) {
  StartScalar(Cur() == '|' ? ScalarStyle::kLiteral : ScalarStyle::kFolded);
  Scalar& scalar = scanned_;
  ++pos_;
  bool chomping_seen = false;
  for (int i = 0; i < 2; ++i) {
    const char c = Cur();
    if (c >= '1' && c <= '9' && scalar.indent_indicator == 0) {
      scalar.indent_indicator = static_cast<std::uint8_t>(c - '0');
    } else if ((c == '+' || c == '-') && !chomping_seen) {
      scalar.chomping = c == '+' ? Chomping::kKeep : Chomping::kStrip;
      chomping_seen = true;
    } else if (c == '0') {
      ErrorHere("the indentation indicator of a block scalar must be 1 to 9");
    } else {
      break;
    }
    ++pos_;
  }
  const std::size_t header_end = pos_;
  SkipBlanks();
  if (Cur() == '#') {
    if (pos_ == header_end) {
      ErrorHere("a comment must be separated from the text before it by a space", "put a space before '#'");
    }
    RecordComment();
  }
  if (!AtEnd() && !IsBreak(Cur())) {
    ErrorHere("unexpected text after a block scalar indicator",
              "the content of '|' or '>' starts on the next line");
    SkipToLineEnd();
  }
  std::size_t content_end = header_end;
  int indent = -1;
  if (!AtEnd()) {
    ConsumeBreak();
    indent = scalar.indent_indicator > 0 ? std::max(n, 0) + scalar.indent_indicator : DetectBlockIndent(n);
  }
  scalar.indent = static_cast<std::uint32_t>(indent >= 0 ? indent : std::max(n + 1, 0));
  while (pos_ < size_) {
    const Cursor line_begin = Save();
    if (AtDocumentMarker()) break;
    pos_ = SkipSpaces(text_, pos_);
    const int spaces = Column();
    if (AtEnd()) {  // a last line of spaces without a line break
      if (indent >= 0 && spaces > indent) content_end = pos_;
      break;
    }
    if (IsBreak(text_[pos_])) {  // empty, or content made of spaces only
      if (indent >= 0 && spaces > indent) content_end = pos_;
      ConsumeBreak();
      continue;
    }
    if (indent < 0 || spaces < indent) {  // the first line after the scalar
      Restore(line_begin);
      break;
    }
    SkipToLineEnd();
    content_end = pos_;
    if (AtEnd()) break;
    ConsumeBreak();
  }
  scalar.length = content_end - scalar.offset;
}

// ---------------------------------------------------------------------------
// Decoding (DecodeScalar)

// Appends decoded bytes and, optionally, the source offset of each.
class Decoded {
 public:
  explicit Decoded(std::vector<std::size_t>* offsets, SourceRuns* runs = nullptr) : offsets_(offsets), runs_(runs) {
    if (offsets_ != nullptr) offsets_->clear();
    if (runs_ != nullptr) runs_->Clear();
  }
  void Put(char c, std::size_t from) {
    value_.push_back(c);
    if (offsets_ != nullptr) offsets_->push_back(from);
    if (runs_ != nullptr) runs_->Add(from);
  }
  void Put(std::string_view bytes, std::size_t from) {
    for (char c : bytes) Put(c, from);
  }
  void PutRange(std::string_view text, std::size_t begin, std::size_t end) {
    value_.append(text.substr(begin, end - begin));
    if (offsets_ != nullptr) {
      const std::size_t old_size = offsets_->size();
      offsets_->resize(old_size + (end - begin));
      std::iota(offsets_->begin() + static_cast<std::ptrdiff_t>(old_size), offsets_->end(), begin);
    }
    if (runs_ != nullptr) runs_->AddRange(begin, end);
  }
  void Truncate(std::size_t size) {
    value_.resize(size);
    if (offsets_ != nullptr) offsets_->resize(size);
    if (runs_ != nullptr) runs_->Truncate(size);
  }
  std::size_t size() const { return value_.size(); }
  std::string Take() { return std::move(value_); }

 private:
  std::string value_;
  std::vector<std::size_t>* offsets_;
  SourceRuns* runs_;
};

void AppendUtf8(std::uint32_t code_point, std::size_t from, Decoded* out) {
  char bytes[4];
  int length;
  if (code_point < 0x80) {
    bytes[0] = static_cast<char>(code_point);
    length = 1;
  } else if (code_point < 0x800) {
    bytes[0] = static_cast<char>(0xC0 | (code_point >> 6));
    bytes[1] = static_cast<char>(0x80 | (code_point & 0x3F));
    length = 2;
  } else if (code_point < 0x10000) {
    bytes[0] = static_cast<char>(0xE0 | (code_point >> 12));
    bytes[1] = static_cast<char>(0x80 | ((code_point >> 6) & 0x3F));
    bytes[2] = static_cast<char>(0x80 | (code_point & 0x3F));
    length = 3;
  } else {
    bytes[0] = static_cast<char>(0xF0 | ((code_point >> 18) & 0x07));
    bytes[1] = static_cast<char>(0x80 | ((code_point >> 12) & 0x3F));
    bytes[2] = static_cast<char>(0x80 | ((code_point >> 6) & 0x3F));
    bytes[3] = static_cast<char>(0x80 | (code_point & 0x3F));
    length = 4;
  }
  out->Put(std::string_view(bytes, static_cast<std::size_t>(length)), from);
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Decodes the escape whose backslash is at `at`; returns the offset after it.
std::size_t DecodeEscape(std::string_view text, std::size_t at, std::size_t end, Decoded* out) {
  const char e = text[at + 1];
  switch (e) {
    case '0': out->Put('\0', at); return at + 2;
    case 'a': out->Put('\a', at); return at + 2;
    case 'b': out->Put('\b', at); return at + 2;
    case 't': case '\t': out->Put('\t', at); return at + 2;
    case 'n': out->Put('\n', at); return at + 2;
    case 'v': out->Put('\v', at); return at + 2;
    case 'f': out->Put('\f', at); return at + 2;
    case 'r': out->Put('\r', at); return at + 2;
    case 'e': out->Put('\x1b', at); return at + 2;
    case ' ': case '"': case '/': case '\\': out->Put(e, at); return at + 2;
    case 'N': AppendUtf8(0x85, at, out); return at + 2;
    case '_': AppendUtf8(0xA0, at, out); return at + 2;
    case 'L': AppendUtf8(0x2028, at, out); return at + 2;
    case 'P': AppendUtf8(0x2029, at, out); return at + 2;
    default: break;
  }
  const int digits = e == 'x' ? 2 : e == 'u' ? 4 : e == 'U' ? 8 : 0;
  std::uint32_t code_point = 0;
  bool valid = digits > 0 && at + 2 + static_cast<std::size_t>(digits) <= end;
  for (int i = 0; valid && i < digits; ++i) {
    const int value = HexValue(text[at + 2 + static_cast<std::size_t>(i)]);
    valid = value >= 0;
    code_point = code_point * 16 + static_cast<std::uint32_t>(std::max(value, 0));
  }
  if (!valid || code_point > 0x10FFFF) {  // invalid (reported by the tokenizer): kept as written
    out->Put('\\', at);
    out->Put(e, at + 1);
    return at + 2;
  }
  AppendUtf8(code_point, at, out);
  return at + 2 + static_cast<std::size_t>(digits);
}

// Skips the blank and empty lines after a line break at `at` (already
// consumed up to `i`); returns how many empty lines there were and leaves `*i`
// at the first character of the next content.
int SkipEmptyLines(std::string_view text, std::size_t* i, std::size_t end) {
  int empty = 0;
  while (true) {
    std::size_t j = *i;
    while (j < end && IsBlank(text[j])) ++j;
    if (j < end && IsBreak(text[j])) {
      ++empty;
      *i = SkipBreak(text, j);
      continue;
    }
    *i = j;
    return empty;
  }
}

// Plain and quoted scalars: line folding, plus `''` or escapes.
void DecodeFlowScalar(std::string_view text, std::size_t begin, std::size_t end, ScalarStyle style, Decoded* out) {
  constexpr std::size_t kNone = static_cast<std::size_t>(-1);
  std::size_t blanks_from = kNone;  // where the trailing run of literal blanks in `out` starts
  std::size_t i = begin;
  while (i < end) {
    const char c = text[i];
    if (IsBreak(c)) {
      if (blanks_from != kNone) out->Truncate(blanks_from);
      blanks_from = kNone;
      const std::size_t break_at = i;
      i = SkipBreak(text, i);
      const int empty = SkipEmptyLines(text, &i, end);
      if (empty == 0) out->Put(' ', break_at);
      for (int k = 0; k < empty; ++k) out->Put('\n', break_at);
      continue;
    }
    if (IsBlank(c)) {
      if (blanks_from == kNone) blanks_from = out->size();
      out->Put(c, i++);
      continue;
    }
    blanks_from = kNone;
    if (style == ScalarStyle::kSingleQuoted && c == '\'' && i + 1 < end && text[i + 1] == '\'') {
      out->Put('\'', i);
      i += 2;
    } else if (style == ScalarStyle::kDoubleQuoted && c == '\\' && i + 1 < end) {
      if (IsBreak(text[i + 1])) {  // an escaped line break joins the lines without a space
        i = SkipBreak(text, i + 1);
        const int empty = SkipEmptyLines(text, &i, end);
        for (int k = 0; k < empty; ++k) out->Put('\n', i);
      } else {
        i = DecodeEscape(text, i, end, out);
      }
    } else {
      out->Put(c, i++);
    }
  }
}

void DecodeBlockScalar(std::string_view text, const Scalar& scalar, Decoded* out) {
  const std::size_t size = text.size();
  const std::size_t content_end = std::min(scalar.offset + scalar.length, size);
  std::size_t i = scalar.offset;
  while (i < size && !IsBreak(text[i])) ++i;  // the header line
  if (i >= size) return;
  i = SkipBreak(text, i);
  const std::size_t indent = scalar.indent;
  const bool literal = scalar.style == ScalarStyle::kLiteral;
  bool have_content = false;
  bool previous_spaced = false;
  int pending_empty = 0;
  std::size_t last_break = 0;  // the line break after the last content line
  bool ends_in_spaces = false;
  while (i < content_end) {
    const std::size_t line_begin = i;
    std::size_t j = i;
    while (j < size && text[j] == ' ' && j - line_begin < indent) ++j;
    const std::size_t line_end = FindBreak(text, j);
    i = line_end < size ? SkipBreak(text, line_end) : line_end;
    if (j == line_end) {  // an empty line
      ++pending_empty;
      continue;
    }
    const bool spaced = IsBlank(text[j]);
    if (!have_content) {
      for (int k = 0; k < pending_empty; ++k) out->Put('\n', line_begin);
    } else if (!literal && !previous_spaced && !spaced && pending_empty == 0) {
      out->Put(' ', last_break);  // folding: a single line break becomes a space
    } else {
      // Literal, a folded break before/after a more-indented line, or a
      // folded break followed by empty lines (the first break is dropped).
      if (literal || previous_spaced || spaced) out->Put('\n', last_break);
      for (int k = 0; k < pending_empty; ++k) out->Put('\n', last_break);
    }
    out->PutRange(text, j, line_end);
    have_content = true;
    previous_spaced = spaced;
    pending_empty = 0;
    last_break = line_end;
    ends_in_spaces = line_end == size && text.find_first_not_of(' ', line_begin) == std::string_view::npos;
  }
  // A last line of spaces at the end of the input counts as ending in a line
  // break, as in the YAML test suite (cases L24T/01, JEF9/02).
  const bool final_break = have_content && (last_break < size || ends_in_spaces);
  if (scalar.chomping == Chomping::kStrip) return;
  if (final_break) out->Put('\n', std::min(last_break, size - 1));
  if (scalar.chomping != Chomping::kKeep) return;
  // Kept trailing empty lines: lines of spaces only, up to the next content.
  while (i < size) {
    std::size_t j = i;
    while (j < size && text[j] == ' ') ++j;
    if (j >= size) {  // spaces up to the end of the input: see final_break
      out->Put('\n', size - 1);
      break;
    }
    if (!IsBreak(text[j])) break;
    out->Put('\n', j);
    i = SkipBreak(text, j);
  }
}

}  // namespace

std::string Tokens::PathString(std::uint32_t path) const {
  std::vector<std::uint32_t> chain;
  while (path != PathSegment::kRoot && path < paths.size()) {
    chain.push_back(path);
    path = paths[path].parent;
  }
  std::string out;
  for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
    const PathSegment& segment = paths[*it];
    if (segment.index >= 0) {
      out += '[';
      out += std::to_string(segment.index);
      out += ']';
    } else {
      if (it != chain.rbegin()) out += '.';
      out += segment.key;
    }
  }
  return out;
}

Tokens Tokenize(std::string_view text, const TokenizerOptions& options) {
  Tokens tokens;
  // Reserving avoids regrowing (and re-touching) vectors that together are
  // several times larger than the input; pages reserved but never written
  // cost nothing. Kubernetes YAML has about one scalar per 15-25 bytes.
  tokens.scalars.reserve(text.size() / 10 + 8);
  tokens.paths.reserve(text.size() / 10 + 8);
  tokens.references.reserve(CountRareByte(text, '$'));
  Parser parser(text, options, &tokens, nullptr);
  parser.Run();
  detail::CapDiagnostics(&tokens.diagnostics, options.max_errors, options.file_name);  // words the count
  return tokens;
}

namespace detail {

Tokens TokenizeWithoutReferences(std::string_view text, const TokenizerOptions& options) {
  Tokens tokens;
  // As Tokenize, for the placeholder-dense templates a render streams: up to
  // a scalar and a path segment per 8 bytes (`k1: ${A}` lines, a flow
  // sequence of "${A}"). Grown past the reserve, a vector is copied while
  // the old one is still there: 2 x 321 MB for 66 MB of key lines.
  tokens.scalars.reserve(text.size() / 6 + 8);
  tokens.paths.reserve(text.size() / 6 + 8);
  Parser parser(text, options, &tokens, nullptr);
  parser.KeepNoReferences();
  parser.Run();
  detail::CapDiagnostics(&tokens.diagnostics, options.max_errors, options.file_name);
  return tokens;
}

void TokenizeAsRead(std::string_view text, const TokenizerOptions& options, Tokens* tokens, ScalarSink* sink) {
  *tokens = Tokens();
  Parser parser(text, options, tokens, nullptr);
  parser.KeepNoReferences();
  parser.HandScalarsTo(sink);
  parser.Run();
  detail::CapDiagnostics(&tokens->diagnostics, options.max_errors, options.file_name);
}

// As Parser::RecordScalar, ScanScalarReferences and RecordReference do.
void ForEachReferenceOf(std::string_view text, const Tokens& tokens, std::uint32_t index,
                        const std::function<void(const Reference&)>& each, ReferencePlace place) {
  const Scalar& scalar = tokens.scalars[index];
  std::size_t begin = scalar.offset;
  const std::size_t end = scalar.offset + scalar.length;
  if (scalar.style == ScalarStyle::kLiteral || scalar.style == ScalarStyle::kFolded) {
    while (begin < end && !IsBreak(text[begin])) ++begin;  // the header line is not content
  }
  if (begin >= end || std::memchr(text.data() + begin, '$', end - begin) == nullptr) return;
  std::size_t at = scalar.offset, line = scalar.line, line_start = scalar.offset - (scalar.column - 1);
  auto record = [&](const Reference& found) {
    if (place == ReferencePlace::kOffsetOnly) {
      Reference reference = found;
      reference.context = scalar.context;
      reference.scalar = index;
      return each(reference);
    }
    // Parser::AdvanceCursor: a CRLF counts once, at its LF.
    for (std::size_t i = FindBreak(text, at, found.offset); i < found.offset; i = FindBreak(text, i + 1, found.offset)) {
      if (text[i] == '\n' || i + 1 >= text.size() || text[i + 1] != '\n') {
        ++line;
        line_start = i + 1;
      }
    }
    at = found.offset;
    Reference reference = found;
    reference.line = static_cast<std::uint32_t>(line);
    reference.column = static_cast<std::uint32_t>(reference.offset - line_start + 1);
    reference.context = scalar.context;
    reference.scalar = index;
    each(reference);
  };
  ScanReferences(text, begin, end, record, [](std::size_t) {});  // the tokenizer reported those
}

}  // namespace detail

Tokens TokenizeWithSpans(std::string_view text, NodeSpans* spans, const TokenizerOptions& options,
                         SpanReading reading) {
  SpanRecorder recorder(spans);
  return TokenizeWithSpans(text, &recorder, options, reading);
}

Tokens TokenizeWithSpans(std::string_view text, NodeRecorder* recorder, const TokenizerOptions& options,
                         SpanReading reading) {
  // kNodesOnly: each scalar handed to a sink that drops it.
  struct : detail::ScalarSink {
    void Take(Tokens*) override {}
    void PathsChanged() override {}
  } dropped;
  Tokens tokens;
  Parser parser(text, options, &tokens, recorder);
  if (reading != SpanReading::kAllTokens) parser.SkipReferences();
  if (reading == SpanReading::kNodesOnly) parser.HandScalarsTo(&dropped);
  parser.Run();
  detail::CapDiagnostics(&tokens.diagnostics, options.max_errors, options.file_name);  // words the count
  return tokens;
}

std::size_t EscapeLength(std::string_view text, std::size_t at) {
  const char e = at + 1 < text.size() ? text[at + 1] : '\0';
  if (const int digits = HexDigitsOfEscape(e); digits > 0) {
    if (at + 2 + static_cast<std::size_t>(digits) > text.size()) return 0;
    for (std::size_t k = at + 2; k < at + 2 + static_cast<std::size_t>(digits); ++k) {
      if (!std::isxdigit(static_cast<unsigned char>(text[k]))) return 0;
    }
    return 2 + static_cast<std::size_t>(digits);
  }
  return e != '\0' && std::strchr("0abt\tnvfre \"/\\N_LP", e) != nullptr ? 2 : 0;
}

namespace {

// The body of a one-line flow scalar without escapes (a plain scalar, or a
// quoted one without its escape character), which decodes to itself; empty
// otherwise. Most scalars that are decoded (`kind`, command words) are such.
std::optional<std::string_view> VerbatimBody(std::string_view text, const Scalar& scalar) {
  const std::size_t begin = std::min(scalar.offset, text.size());
  const std::size_t end = std::min(scalar.offset + scalar.length, text.size());
  std::string_view body = text.substr(begin, end - begin);
  char escape = '\n';  // a plain scalar has none: a line break stands in
  if (scalar.style == ScalarStyle::kSingleQuoted || scalar.style == ScalarStyle::kDoubleQuoted) {
    const char quote = scalar.style == ScalarStyle::kDoubleQuoted ? '"' : '\'';
    if (body.size() < 2 || body.back() != quote) return std::nullopt;  // unterminated
    body = body.substr(1, body.size() - 2);
    escape = quote == '"' ? '\\' : '\'';
  } else if (scalar.style != ScalarStyle::kPlain) {
    return std::nullopt;
  }
  for (char c : body) {  // short texts: a loop costs less than a search per byte
    if (c == '\n' || c == '\r' || c == escape) return std::nullopt;
  }
  return body;
}

std::string DecodeInto(std::string_view text, const Scalar& scalar, Decoded* decoded) {
  Decoded& out = *decoded;
  const std::size_t begin = std::min(scalar.offset, text.size());
  const std::size_t end = std::min(scalar.offset + scalar.length, text.size());
  switch (scalar.style) {
    case ScalarStyle::kPlain:
      DecodeFlowScalar(text, begin, end, scalar.style, &out);
      break;
    case ScalarStyle::kSingleQuoted:
    case ScalarStyle::kDoubleQuoted: {
      const char quote = scalar.style == ScalarStyle::kDoubleQuoted ? '"' : '\'';
      std::size_t body_end = end;
      // A closing quote (absent when the scalar is unterminated).
      if (end >= begin + 2 && text[end - 1] == quote) --body_end;
      DecodeFlowScalar(text, std::min(begin + 1, end), body_end, scalar.style, &out);
      break;
    }
    case ScalarStyle::kLiteral:
    case ScalarStyle::kFolded:
      DecodeBlockScalar(text, scalar, &out);
      break;
  }
  return out.Take();
}

}  // namespace

std::string DecodeScalar(std::string_view text, const Scalar& scalar, std::vector<std::size_t>* source_offsets) {
  if (source_offsets == nullptr) {
    if (const std::optional<std::string_view> body = VerbatimBody(text, scalar)) return std::string(*body);
  }
  Decoded out(source_offsets);
  return DecodeInto(text, scalar, &out);
}

std::string DecodeScalar(std::string_view text, const Scalar& scalar, SourceRuns* sources) {
  Decoded out(nullptr, sources);
  return DecodeInto(text, scalar, &out);
}

std::string_view ContextName(ContextClass context) {
  switch (context) {
    case ContextClass::kComment: return "comment";
    case ContextClass::kScript: return "script";
    case ContextClass::kData: return "data";
  }
  return "data";
}

std::string_view StyleName(ScalarStyle style) {
  switch (style) {
    case ScalarStyle::kPlain: return "plain";
    case ScalarStyle::kSingleQuoted: return "single-quoted";
    case ScalarStyle::kDoubleQuoted: return "double-quoted";
    case ScalarStyle::kLiteral: return "literal";
    case ScalarStyle::kFolded: return "folded";
  }
  return "plain";
}

}  // namespace safesubst
