// SPDX-License-Identifier: Apache-2.0
#include "yaml_span_tree.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "text_checks.h"
#include "tokenizer.h"
#include "utf8.h"
#include "yaml_encoding.h"
#include "yaml_spans.h"

namespace safesubst::detail {

namespace {

// Deeper trees are left to yaml-cpp, which has its own bound on nesting.
constexpr std::size_t kMaxDepth = 100;

// Text yaml-cpp may read otherwise than the tokenizer: a control character
// other than the line feed (CR: yaml-cpp counts a lone CR as no line break;
// tab: it places nulls after tabs differently; the rest are not YAML text,
// which the tokenizer refuses and yaml-cpp may take: `-\x04`, found by the
// manifest fuzzer), DEL, C1 controls (NEL), LS, PS and a BOM (breaks or
// stripped for YAML 1.1 readers), and invalid UTF-8 (also found by the fuzzer).
bool MayReadOtherwise(std::string_view text) {
  for (std::size_t at = 0; at < text.size();) {
    const auto byte = static_cast<unsigned char>(text[at]);
    if (byte < 0x80) {
      if ((byte < 0x20 && byte != '\n') || byte == 0x7F) return true;
      ++at;
      continue;
    }
    char32_t code = 0;
    const std::size_t length = detail::DecodeUtf8(text, at, &code);
    if (length == 0 || code <= 0x9F || code == 0x2028 || code == 0x2029 || code == 0xFEFF) return true;
    at += length;
  }
  return false;
}

// A document after a `...` line without its own `---` (`...\na\/b`, found by
// the manifest fuzzer): yaml-cpp reads what follows a `...` otherwise.
bool ContentAfterDocumentEnd(std::string_view text) {
  for (std::size_t end = text.find("..."); end != std::string_view::npos; end = text.find("...", end + 3)) {
    if (end != 0 && text[end - 1] != '\n') continue;
    const std::size_t next = text.find_first_not_of(" \n", end + 3);
    if (next != std::string_view::npos && text.compare(next, 3, "---") != 0 && text[next] != '#') return true;
  }
  return false;
}

// A `...` line before any document (`...\n---\na: b`, found by the manifest
// fuzzer): yaml-cpp reads a null document there, where YAML has none.
bool EndMarkerBeforeAnyDocument(std::string_view text) {
  for (std::size_t line = 0; line < text.size();) {
    const std::size_t first = text.find_first_not_of(' ', line);
    if (first == std::string_view::npos) return false;
    if (text[first] != '\n' && text[first] != '#') return first == line && text[line] == '.' && IsDocumentMarkerLine(text, line);
    const std::size_t end = text.find('\n', first);
    if (end == std::string_view::npos) return false;
    line = end + 1;
  }
  return false;
}

// Input yaml-cpp reads as the tokenizer does: no byte order mark or UTF-16/32
// (yaml-cpp converts those first), none of the bytes above, no line starting
// with `%` (a directive, or after `...` content yaml-cpp misreads).
bool ReadsLikeYamlCpp(std::string_view text) {
  if (text.empty() || text[0] == '%' || text.find("\n%") != std::string_view::npos) return false;
  if (ContentAfterDocumentEnd(text) || EndMarkerBeforeAnyDocument(text)) return false;
  const auto first = static_cast<unsigned char>(text[0]);
  if (first == 0xFE || first == 0xFF) return false;
  return !MayReadOtherwise(text);
}

// Builds the arena node by node: the spans are in event order, so every
// node's parent is already in the arena when the node comes.
class SpanTreeReader {
 public:
  SpanTreeReader(std::string_view text, const Tokens& tokens, const NodeSpans& spans, YamlStream* stream)
      : text_(text), tokens_(tokens), spans_(spans.nodes), stream_(stream) {}

  bool Read() {
    FindLineStarts();
    arena_index_.assign(spans_.size(), NodeSpan::kNone);
    depth_.assign(spans_.size(), 0);
    stream_->nodes.reserve(spans_.size());  // one node per span at most
    for (std::uint32_t i = 0; i < spans_.size(); ++i) {
      if (!Add(i)) return false;
    }
    return !stream_->documents.empty() && stream_->documents.size() == documents_;
  }

 private:
  void FindLineStarts() {
    line_starts_.push_back(0);
    for (const char* at = text_.data(), *end = at + text_.size();
         (at = static_cast<const char*>(std::memchr(at, '\n', static_cast<std::size_t>(end - at)))) != nullptr;) {
      line_starts_.push_back(static_cast<std::size_t>(++at - text_.data()));
    }
  }

  bool Add(std::uint32_t i) {
    const NodeSpan& span = spans_[i];
    // yaml-cpp's tag resolution is not repeated here. Nor are anchors and
    // aliases: yaml-cpp places, ends and resolves them otherwise in ways the
    // manifest fuzzer kept finding one at a time (`&a a\nc`, `&a [*a]`,
    // `&c[1]`, anchors in flow collections, two anchors on one node); the
    // manifests and values files that use them are few, and yaml-cpp reads them.
    if (span.tag.present() || span.anchor.present() || span.kind == NodeKind::kAlias) return false;
    if (span.kind == NodeKind::kDocument) {
      ++documents_;
      return true;
    }
    depth_[i] = depth_[span.parent] + 1;
    if (depth_[i] > kMaxDepth || !FlowEntryOnOneLine(span) || ExplicitKey(span)) return false;
    YamlNode node;
    std::size_t mark = span.begin;
    switch (span.kind) {
      case NodeKind::kScalar:
        if (!ReadScalar(span, &node, &mark)) return false;
        break;
      case NodeKind::kMapping:
      case NodeKind::kSequence:
        // A `? key` entry, or a `[k: v]` pair, is marked differently by yaml-cpp.
        if (text_[span.begin] == '?' || (span.flow && text_[span.begin] != '[' && text_[span.begin] != '{')) {
          return false;
        }
        node.kind = span.kind == NodeKind::kMapping ? YamlNode::Kind::kMapping : YamlNode::Kind::kSequence;
        node.tag = "?";
        node.flow = span.flow;
        break;
      default:
        return false;
    }
    Place(mark, &node);
    Attach(i, span, std::move(node));
    return true;
  }

  bool ReadScalar(const NodeSpan& span, YamlNode* node, std::size_t* mark) {
    const Scalar& scalar = tokens_.scalars[span.scalar];
    if (!YamlCppReadsScalar(span, scalar)) return false;
    if (span.begin == span.end && scalar.style == ScalarStyle::kPlain) {
      node->kind = YamlNode::Kind::kNull;
      return MarkEmptyValue(span, mark);
    }
    std::string value = DecodeScalar(text_, scalar);
    // yaml-cpp reads a plain `~`, `null`, `Null` or `NULL` as a null, as the core schema does.
    if (scalar.style == ScalarStyle::kPlain && ResolvePlain(value) == PlainKind::kNull) {
      node->kind = YamlNode::Kind::kNull;
      return true;
    }
    node->kind = YamlNode::Kind::kScalar;
    node->tag = scalar.style == ScalarStyle::kPlain ? "?" : "!";
    node->text = std::move(value);
    return true;
  }

  // yaml-cpp refuses a `?` in a flow plain scalar (and, below, a flow key
  // whose `:` is on a later line) and reads block scalars on a `---` line
  // otherwise. Where it only decodes a scalar otherwise (blank lines of
  // quoted and kept block scalars, escapes), the tree takes the tokenizer's
  // decoding anyway (TakeTokenizerDecoding, yaml_load.h).
  bool YamlCppReadsScalar(const NodeSpan& span, const Scalar& scalar) const {
    if (scalar.style == ScalarStyle::kLiteral || scalar.style == ScalarStyle::kFolded) {
      return spans_[span.parent].kind != NodeKind::kDocument;
    }
    return scalar.style != ScalarStyle::kPlain || !scalar.in_flow ||
           text_.substr(span.begin, span.end - span.begin).find('?') == std::string_view::npos;
  }

  // An explicit `? key`: yaml-cpp marks the nulls around it elsewhere.
  bool ExplicitKey(const NodeSpan& span) const {
    if (!span.is_key) return false;
    const std::size_t before = span.begin == 0 ? std::string_view::npos : text_.find_last_not_of(' ', span.begin - 1);
    return before != std::string_view::npos && text_[before] == '?';
  }

  // A flow key on one line, its `:` on the same line and a space after it.
  bool FlowEntryOnOneLine(const NodeSpan& span) const {
    const NodeSpan& parent = spans_[span.parent];
    if (!parent.flow || parent.kind != NodeKind::kMapping) return true;
    if (span.is_key) return text_.substr(span.begin, span.end - span.begin).find('\n') == std::string_view::npos;
    const NodeSpan& key = spans_[span.key];
    const std::string_view gap = text_.substr(key.end, span.begin - key.end);
    return gap.find('\n') == std::string_view::npos && !gap.empty() && gap.back() == ' ';
  }

  // yaml-cpp marks a missing value of a block mapping where the next token
  // starts: the next content after blanks and comments, or the end of the
  // text (after a last line break; without one its column varies). Other
  // empty nodes are left to yaml-cpp.
  bool MarkEmptyValue(const NodeSpan& span, std::size_t* mark) const {
    const NodeSpan& parent = spans_[span.parent];
    if (span.is_key || parent.kind != NodeKind::kMapping || parent.flow) return false;
    // After an explicit `? key` with no `:`, yaml-cpp marks the null elsewhere.
    const std::size_t colon = text_.find_first_not_of(' ', spans_[span.key].end);
    if (colon == std::string_view::npos || text_[colon] != ':') return false;
    std::size_t at = span.begin;
    while (at < text_.size()) {
      if (text_[at] == '#') {
        const std::size_t line_end = text_.find('\n', at);
        at = line_end == std::string_view::npos ? text_.size() : line_end;
      } else if (text_[at] == ' ' || text_[at] == '\n') {
        ++at;
      } else {
        break;
      }
    }
    *mark = at;
    return at < text_.size() || text_.back() == '\n';
  }

  void Place(std::size_t offset, YamlNode* node) const {
    const auto line = std::upper_bound(line_starts_.begin(), line_starts_.end(), offset) - line_starts_.begin() - 1;
    node->line = static_cast<std::uint32_t>(line);
    node->column = static_cast<std::uint32_t>(offset - line_starts_[static_cast<std::size_t>(line)]);
    node->offset = offset;
  }

  void Attach(std::uint32_t i, const NodeSpan& span, YamlNode node) {
    const auto index = static_cast<std::uint32_t>(stream_->nodes.size());
    arena_index_[i] = index;
    stream_->nodes.push_back(std::move(node));
    if (spans_[span.parent].kind == NodeKind::kDocument) {
      stream_->documents.push_back(index);
    } else {
      stream_->nodes[arena_index_[span.parent]].children.push_back(index);
    }
  }

  std::string_view text_;
  const Tokens& tokens_;
  const std::vector<NodeSpan>& spans_;
  YamlStream* stream_;
  std::vector<std::size_t> line_starts_;
  std::vector<std::uint32_t> arena_index_;  // for each span, its node in the arena
  std::vector<std::size_t> depth_;
  std::size_t documents_ = 0;
};

bool HasDirective(const Tokens& tokens) {
  return std::any_of(tokens.markers.begin(), tokens.markers.end(),
                     [](const Marker& marker) { return marker.kind == Marker::Kind::kDirective; });
}

}  // namespace

bool ReadYamlStreamFromSpans(std::string_view text, YamlStream* stream) {
  *stream = YamlStream{};
  if (!ReadsLikeYamlCpp(text)) return false;
  NodeSpans spans;
  const Tokens tokens = TokenizeWithSpans(text, &spans, {}, SpanReading::kNoReferences);
  if (HasErrors(tokens.diagnostics) || HasDirective(tokens) ||
      !SpanTreeReader(text, tokens, spans, stream).Read()) {
    *stream = YamlStream{};
    return false;
  }
  return true;
}

}  // namespace safesubst::detail
