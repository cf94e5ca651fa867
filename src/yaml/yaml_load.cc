// SPDX-License-Identifier: Apache-2.0
#include "yaml_load.h"

#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/eventhandler.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <string>

#include "tokenizer.h"
#include "text_checks.h"
#include "utf8.h"
#include "yaml_encoding.h"
#include "yaml_span_tree.h"
#include "yaml_spans.h"

namespace safesubst::detail {
namespace {

// Ignores every event but remembers where the last document started.
class DocumentStartRecorder : public YAML::EventHandler {
 public:
  void OnDocumentStart(const YAML::Mark& mark) override { last_start = mark; }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t, const std::string&) override {}
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
  void OnMapEnd() override {}

  YAML::Mark last_start = YAML::Mark::null_mark();
};

}  // namespace

std::string DescribeParseError(const YAML::Exception& error) {
  if (const auto* deep = dynamic_cast<const YAML::DeepRecursion*>(&error)) {
    return "collections nest too deeply here (yaml-cpp stops at " + std::to_string(deep->depth()) + " levels)";
  }
  return error.msg;
}

std::size_t MaxDocumentCount(std::string_view text) {
  // It runs before every check of an edit: where no line ends with a lone CR
  // (no CR at all), memchr finds the line starts.
  const char line_break = text.find('\r') == std::string_view::npos ? '\n' : '\r';
  std::size_t markers = IsDocumentMarkerLine(text, 0) ? 1 : 0;
  for (std::size_t i = text.find(line_break); i != std::string_view::npos; i = text.find(line_break, i + 1)) {
    if (IsDocumentMarkerLine(text, i + 1)) ++markers;
  }
  if (line_break == '\r') {
    for (std::size_t i = text.find('\n'); i != std::string_view::npos; i = text.find('\n', i + 1)) {
      if (IsDocumentMarkerLine(text, i + 1)) ++markers;
    }
  }
  return markers + 1;
}

namespace {

// yaml-cpp writes the escapes `\N` (U+0085) and `\_` (U+00A0) of a
// double-quoted scalar as the single bytes 0x85 and 0xA0, not as UTF-8 (its
// exp.cpp), so a value holding one was written out as invalid UTF-8, which
// YAML readers refuse. The rest of what it reads is the UTF-8 it was given:
// a 0x85 or 0xA0 that starts no UTF-8 sequence is one of those escapes.
std::string RepairLatin1Escapes(const std::string& value) {
  if (std::all_of(value.begin(), value.end(), [](char c) { return static_cast<unsigned char>(c) < 0x80; })) {
    return value;
  }
  std::string repaired;
  repaired.reserve(value.size() + 2);
  for (std::size_t i = 0; i < value.size();) {
    char32_t code_point = 0;
    const std::size_t length = DecodeUtf8(value, i, &code_point);
    const auto byte = static_cast<unsigned char>(value[i]);
    if (length == 0 && (byte == 0x85 || byte == 0xA0)) {
      repaired += '\xC2';
      repaired += value[i++];
    } else {
      const std::size_t taken = length == 0 ? 1 : length;
      repaired.append(value, i, taken);
      i += taken;
    }
  }
  return repaired;
}

// Builds the YamlStream arena from parser events. Collections are closed by
// the matching End event, so a stack of open collections says where the next
// node goes.
class TreeBuilder : public YAML::EventHandler {
 public:
  explicit TreeBuilder(YamlStream* stream) : stream_(stream) {}

  void OnDocumentStart(const YAML::Mark& mark) override {
    anchors_.clear();
    open_.clear();
    last_start = mark;
  }
  void OnDocumentEnd() override {}

  void OnNull(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    Add(YamlNode::Kind::kNull, mark, anchor, {});
  }
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    std::uint32_t index = Add(YamlNode::Kind::kAlias, mark, YAML::NullAnchor, {});
    stream_->has_aliases = true;
    auto found = anchors_.find(anchor);
    // yaml-cpp rejects unknown anchors itself; point at the alias node (a
    // harmless self reference that ResolveAlias stops at) just in case.
    stream_->nodes[index].target = found == anchors_.end() ? index : found->second;
  }
  void OnScalar(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                const std::string& value) override {
    std::uint32_t index = Add(YamlNode::Kind::kScalar, mark, anchor, tag);
    stream_->nodes[index].text = RepairLatin1Escapes(value);
  }
  void OnSequenceStart(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                       YAML::EmitterStyle::value style) override {
    open_.push_back(Add(YamlNode::Kind::kSequence, mark, anchor, tag));
    stream_->nodes[open_.back()].flow = style == YAML::EmitterStyle::Flow;
  }
  void OnSequenceEnd() override { open_.pop_back(); }
  void OnMapStart(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                  YAML::EmitterStyle::value style) override {
    open_.push_back(Add(YamlNode::Kind::kMapping, mark, anchor, tag));
    stream_->nodes[open_.back()].flow = style == YAML::EmitterStyle::Flow;
  }
  void OnMapEnd() override { open_.pop_back(); }

  YAML::Mark last_start = YAML::Mark::null_mark();

 private:
  std::uint32_t Add(YamlNode::Kind kind, const YAML::Mark& mark, YAML::anchor_t anchor,
                    const std::string& tag) {
    auto index = static_cast<std::uint32_t>(stream_->nodes.size());
    YamlNode node;
    node.kind = kind;
    node.tag = tag;
    if (!mark.is_null()) {
      node.line = static_cast<std::uint32_t>(mark.line);
      node.column = static_cast<std::uint32_t>(mark.column);
      node.offset = static_cast<std::size_t>(mark.pos);
    }
    stream_->nodes.push_back(std::move(node));
    if (open_.empty()) {
      stream_->documents.push_back(index);
    } else {
      stream_->nodes[open_.back()].children.push_back(index);
    }
    if (anchor != YAML::NullAnchor) anchors_[anchor] = index;
    return index;
  }

  YamlStream* stream_;
  std::vector<std::uint32_t> open_;
  std::map<YAML::anchor_t, std::uint32_t> anchors_;
};

// The texts LoadYamlStream loaded last on this thread, with their trees,
// while a RememberLoadedText lives on it (yaml_load.h).
struct LoadedText {
  std::string text;  // capacity kRememberedTextBytes: assigning never moves it
  std::shared_ptr<const YamlStream> stream;
  std::uint64_t last_use = 0;
};
struct LoadedTexts {
  bool remembering = false;
  std::vector<LoadedText> entries;  // at most kRememberedTexts
  std::uint64_t clock = 0;
  std::size_t longest = 0;  // of the texts held: what to overwrite
};
constexpr std::size_t kRememberedTextBytes = std::size_t{64} << 10;
constexpr std::size_t kRememberedTexts = 4;  // a step's document, its fragment, and room to spare
thread_local LoadedTexts loaded;

const std::shared_ptr<const YamlStream>* FindLoaded(std::string_view text) {
  if (!loaded.remembering) return nullptr;
  for (LoadedText& entry : loaded.entries) {
    if (entry.text == text) {
      entry.last_use = ++loaded.clock;
      return &entry.stream;
    }
  }
  return nullptr;
}

void RememberLoaded(std::string_view text, const std::shared_ptr<const YamlStream>& stream) {
  if (!loaded.remembering || text.size() > kRememberedTextBytes) return;
  LoadedText* slot = nullptr;
  if (loaded.entries.size() < kRememberedTexts) {
    slot = &loaded.entries.emplace_back();
    slot->text.reserve(kRememberedTextBytes);
  } else {
    slot = &*std::min_element(loaded.entries.begin(), loaded.entries.end(),
                              [](const LoadedText& a, const LoadedText& b) { return a.last_use < b.last_use; });
  }
  slot->text.assign(text);
  slot->stream = stream;
  slot->last_use = ++loaded.clock;
  loaded.longest = std::max(loaded.longest, text.size());
}

}  // namespace

RememberLoadedText::RememberLoadedText() : outermost_(!loaded.remembering) {
  if (!outermost_) return;
  loaded.entries.reserve(kRememberedTexts);
  loaded.remembering = true;
}

RememberLoadedText::~RememberLoadedText() {
  if (!outermost_) return;
  // They may hold secret values: overwritten (volatile, so that the stores
  // are not dropped as dead before the memory is freed), then given back.
  for (LoadedText& entry : loaded.entries) {
    entry.text.resize(loaded.longest);
    volatile char* byte = entry.text.data();
    for (std::size_t i = 0; i < loaded.longest; ++i) byte[i] = '\0';
  }
  loaded = LoadedTexts{};
}

namespace {

// Where the node the tokenizer read as `span` starts: at its first property,
// or at its own text. yaml-cpp marks it there.
std::size_t FirstByte(const NodeSpan& span) { return std::min({span.begin, span.anchor.begin, span.tag.begin}); }

// What yaml-cpp's offsets leave out: a byte order mark at the start.
std::size_t UncountedPrefix(std::string_view text) { return text.starts_with("\xEF\xBB\xBF") ? 3 : 0; }

// Whether yaml-cpp's `node` is the node the tokenizer read as `span`: the
// same kind, a null only for an empty or null-looking plain scalar, and a
// scalar with text where yaml-cpp marks it (empty scalars and collections
// are not compared by place: yaml-cpp marks them elsewhere).
bool SameNode(std::string_view text, const YamlNode& node, const NodeSpan& span, const Tokens& tokens) {
  switch (node.kind) {
    case YamlNode::Kind::kNull:
      return span.kind == NodeKind::kScalar &&
             (span.begin == span.end || span.tag.present() ||
              (tokens.scalars[span.scalar].style == ScalarStyle::kPlain &&
               ResolvePlain(text.substr(span.begin, span.end - span.begin)) == PlainKind::kNull));
    case YamlNode::Kind::kScalar:
      return span.kind == NodeKind::kScalar &&
             (span.begin == span.end || node.offset + UncountedPrefix(text) == FirstByte(span));
    case YamlNode::Kind::kAlias:
      return span.kind == NodeKind::kAlias;
    case YamlNode::Kind::kMapping:
      return span.kind == NodeKind::kMapping;
    case YamlNode::Kind::kSequence:
      return span.kind == NodeKind::kSequence;
  }
  return false;
}

// The arena index of each node's parent (kNoParent for a document's root).
constexpr std::uint32_t kNoParent = 0xffffffffu;
std::vector<std::uint32_t> ParentsOf(const YamlStream& stream) {
  std::vector<std::uint32_t> parents(stream.nodes.size(), kNoParent);
  for (std::uint32_t i = 0; i < stream.nodes.size(); ++i) {
    for (std::uint32_t child : stream.nodes[i].children) parents[child] = i;
  }
  return parents;
}

}  // namespace

std::optional<std::size_t> TakeTokenizerDecoding(std::string_view text, YamlStream* stream) {
  NodeSpans spans;
  const Tokens tokens = TokenizeWithSpans(text, &spans, {}, SpanReading::kNoReferences);
  if (HasErrors(tokens.diagnostics)) return std::nullopt;
  const std::vector<std::uint32_t> parents = ParentsOf(*stream);
  std::vector<std::uint32_t> node_of_span(spans.nodes.size(), kNoParent);
  std::uint32_t next = 0;  // both are in event order: the next arena node pairs with the next span
  for (std::uint32_t i = 0; i < spans.nodes.size(); ++i) {
    const NodeSpan& span = spans.nodes[i];
    if (span.kind == NodeKind::kDocument) continue;
    const std::size_t place = FirstByte(span);
    if (next == stream->nodes.size()) return place;
    YamlNode& node = stream->nodes[next];
    const bool root = spans.nodes[span.parent].kind == NodeKind::kDocument;
    if (!SameNode(text, node, span, tokens) || parents[next] != (root ? kNoParent : node_of_span[span.parent])) {
      return place;
    }
    node_of_span[i] = next++;
    if (node.kind == YamlNode::Kind::kScalar) node.text = DecodeScalar(text, tokens.scalars[span.scalar]);
  }
  if (next != stream->nodes.size()) return stream->nodes[next].offset + UncountedPrefix(text);
  return std::nullopt;
}

namespace {

// yaml-cpp's mark (0-based) for `offset` in `text`.
YAML::Mark MarkAt(std::string_view text, std::size_t offset) {
  YAML::Mark mark;
  mark.pos = static_cast<int>(offset);
  const Location at = LocateOffset(text, offset);
  mark.line = static_cast<int>(at.line) - 1;
  mark.column = static_cast<int>(at.column) - 1;
  return mark;
}

// The valid YAML yaml-cpp misreads (Tokens::yaml_cpp_misreads): its error
// there would call the text invalid, which it is not.
[[noreturn]] void ThrowMisread(std::string_view text, const YAML::ParserException& error) {
  const Tokens tokens = Tokenize(text);
  if (tokens.yaml_cpp_misreads.empty() || HasErrors(tokens.diagnostics)) throw error;
  throw YAML::ParserException(MarkAt(text, tokens.yaml_cpp_misreads.front()), std::string(kMisreadMessage));
}

}  // namespace

namespace {

// Runs `handler` over every document of `text`, guarded against the runaway
// document, with the errors LoadYamlStream documents (yaml-cpp's own where
// it fails on valid YAML it misreads, unless `explain_misreads`).
template <typename Handler>
void ParseGuarded(std::string_view text, Handler& handler, bool explain_misreads = true) {
  const std::size_t bound = MaxDocumentCount(text);
  try {
    std::istringstream input{std::string(text)};
    YAML::Parser parser(input);
    for (std::size_t documents = 0; parser.HandleNextDocument(handler);) {
      if (++documents > bound) throw YAML::ParserException(handler.last_start, std::string(kRunawayDocumentMessage));
    }
  } catch (const YAML::DeepRecursion& error) {
    throw YAML::ParserException(error.mark, DescribeParseError(error));
  } catch (const YAML::ParserException& error) {
    if (!explain_misreads) throw;
    ThrowMisread(text, error);
  }
}

}  // namespace

void CheckAllDocumentsParse(std::string_view text) {
  if (FindLoaded(text) != nullptr) return;
  DocumentStartRecorder recorder;  // a pass with a handler that keeps nothing
  ParseGuarded(text, recorder);
}

std::shared_ptr<const YamlStream> LoadYamlStream(std::string_view text) {
  if (const std::shared_ptr<const YamlStream>* stream = FindLoaded(text)) return *stream;
  auto stream = std::make_shared<YamlStream>();
  TreeBuilder builder(stream.get());
  ParseGuarded(text, builder);
  if (const std::optional<std::size_t> place = TakeTokenizerDecoding(text, stream.get())) {
    throw YAML::ParserException(MarkAt(text, *place), std::string(kOtherNodesMessage));
  }
  RememberLoaded(text, stream);
  return stream;
}

bool ParseYamlStream(std::string_view text, YamlStream* stream, YamlParseError* error) {
  if (ReadYamlStreamFromSpans(text, stream)) return true;
  if (!ParseYamlStreamWithYamlCpp(text, stream, error)) return false;
  const std::optional<std::size_t> place = TakeTokenizerDecoding(text, stream);
  if (!place) return true;
  const YAML::Mark mark = MarkAt(text, *place);
  *error = YamlParseError{std::string(kOtherNodesMessage), static_cast<std::uint32_t>(mark.line),
                          static_cast<std::uint32_t>(mark.column), *place};
  *stream = YamlStream{};
  return false;
}

bool ParseYamlStreamWithYamlCpp(std::string_view text, YamlStream* stream, YamlParseError* error) {
  *stream = YamlStream{};
  stream->nodes.reserve(text.size() / 16);  // about one node per 16 bytes of Kubernetes YAML
  try {
    TreeBuilder builder(stream);
    ParseGuarded(text, builder, /*explain_misreads=*/false);
    return true;
  } catch (const YAML::Exception& e) {
    *error = YamlParseError{e.msg, 0, 0, 0};
    if (!e.mark.is_null()) {
      error->line = static_cast<std::uint32_t>(e.mark.line);
      error->column = static_cast<std::uint32_t>(e.mark.column);
      error->offset = static_cast<std::size_t>(e.mark.pos);
    }
  } catch (const std::exception& e) {
    *error = YamlParseError{e.what(), 0, 0, 0};
  }
  *stream = YamlStream{};
  return false;
}

}  // namespace safesubst::detail
