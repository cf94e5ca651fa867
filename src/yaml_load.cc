// SPDX-License-Identifier: Apache-2.0
#include "yaml_load.h"

#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/eventhandler.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <sstream>
#include <string>

#include "tokenizer.h"
#include "text_checks.h"

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

// Builds the documents from the parser's events with yaml-cpp's public node
// API while it counts them, so that one pass both guards and builds (LoadAll
// has to be preceded by a guarded pass because its builder cannot be
// stopped). The public API has no way to give a node its mark.
class DocumentBuilder : public YAML::EventHandler {
 public:
  void OnDocumentStart(const YAML::Mark& mark) override {
    last_start = mark;
    anchors_.clear();  // anchors belong to their document
  }
  void OnDocumentEnd() override { documents.push_back(root_.value_or(YAML::Node())); root_.reset(); }
  void OnNull(const YAML::Mark&, YAML::anchor_t anchor) override { Add(YAML::Node(YAML::NodeType::Null), anchor); }
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    const auto found = anchors_.find(anchor);  // the parser reports an unknown alias before this
    if (found == anchors_.end()) throw YAML::ParserException(mark, "an alias to no anchor");
    Add(found->second, kNoAnchor);
  }
  void OnScalar(const YAML::Mark&, const std::string& tag, YAML::anchor_t anchor, const std::string& value) override {
    YAML::Node scalar(value);
    scalar.SetTag(tag);
    Add(scalar, anchor);
  }
  void OnSequenceStart(const YAML::Mark&, const std::string& tag, YAML::anchor_t anchor,
                       YAML::EmitterStyle::value style) override {
    Open(YAML::NodeType::Sequence, tag, anchor, style);
  }
  void OnSequenceEnd() override { Close(); }
  void OnMapStart(const YAML::Mark&, const std::string& tag, YAML::anchor_t anchor,
                  YAML::EmitterStyle::value style) override {
    Open(YAML::NodeType::Map, tag, anchor, style);
  }
  void OnMapEnd() override { Close(); }

  YAML::Mark last_start = YAML::Mark::null_mark();
  std::vector<YAML::Node> documents;

 private:
  static constexpr YAML::anchor_t kNoAnchor = 0;

  struct OpenCollection {
    YAML::Node node;
    std::optional<YAML::Node> key;  // a mapping's key waiting for its value
  };

  void Open(YAML::NodeType::value type, const std::string& tag, YAML::anchor_t anchor,
            YAML::EmitterStyle::value style) {
    YAML::Node collection(type);
    collection.SetTag(tag);
    collection.SetStyle(style);
    Remember(collection, anchor);  // before its children: they may not alias it, but yaml-cpp allows it
    open_.push_back({collection, std::nullopt});
  }

  void Close() {
    YAML::Node collection = open_.back().node;
    open_.pop_back();
    Attach(collection);
  }

  void Add(const YAML::Node& node, YAML::anchor_t anchor) {
    Remember(node, anchor);
    Attach(node);
  }

  void Remember(const YAML::Node& node, YAML::anchor_t anchor) {
    if (anchor != kNoAnchor) anchors_.insert_or_assign(anchor, node);
  }

  void Attach(const YAML::Node& node) {
    if (open_.empty()) {
      root_.emplace(node);
      return;
    }
    OpenCollection& parent = open_.back();
    if (parent.node.IsSequence()) {
      parent.node.push_back(node);
    } else if (!parent.key) {
      parent.key.emplace(node);
    } else {
      parent.node.force_insert(*parent.key, node);  // duplicate keys kept, as LoadAll keeps them
      parent.key.reset();
    }
  }

  std::vector<OpenCollection> open_;
  std::optional<YAML::Node> root_;
  std::map<YAML::anchor_t, YAML::Node> anchors_;
};

// The texts LoadAllDocumentsUnmarked loaded last on this thread, with their
// documents, while a RememberLoadedText lives on it (yaml_load.h).
struct LoadedText {
  std::string text;  // capacity kRememberedTextBytes: assigning never moves it
  std::vector<YAML::Node> documents;
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

const std::vector<YAML::Node>* FindLoaded(std::string_view text) {
  if (!loaded.remembering) return nullptr;
  for (LoadedText& entry : loaded.entries) {
    if (entry.text == text) {
      entry.last_use = ++loaded.clock;
      return &entry.documents;
    }
  }
  return nullptr;
}

void RememberLoaded(std::string_view text, const std::vector<YAML::Node>& documents) {
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
  slot->documents = documents;
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

// The valid YAML yaml-cpp misreads (Tokens::yaml_cpp_misreads): its error
// there would call the text invalid, which it is not.
[[noreturn]] void ThrowMisread(std::string_view text, const YAML::ParserException& error) {
  const Tokens tokens = Tokenize(text);
  if (tokens.yaml_cpp_misreads.empty() || HasErrors(tokens.diagnostics)) throw error;
  YAML::Mark mark;
  mark.pos = static_cast<int>(tokens.yaml_cpp_misreads.front());
  const Location at = LocateOffset(text, tokens.yaml_cpp_misreads.front());
  mark.line = static_cast<int>(at.line) - 1;
  mark.column = static_cast<int>(at.column) - 1;
  throw YAML::ParserException(mark, std::string(kMisreadMessage));
}

}  // namespace

namespace {

// Runs `handler` over every document of `text`, guarded against the runaway
// document, with the errors LoadAllDocuments documents.
template <typename Handler>
void ParseGuarded(std::string_view text, Handler& handler) {
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
    ThrowMisread(text, error);
  }
}

}  // namespace

void CheckAllDocumentsParse(std::string_view text) {
  if (FindLoaded(text) != nullptr) return;
  DocumentStartRecorder recorder;  // a pass with a handler that keeps nothing
  ParseGuarded(text, recorder);
}

std::vector<YAML::Node> LoadAllDocuments(std::string_view text) {
  // The guarded pass first: LoadAll itself cannot be stopped once it loops.
  CheckAllDocumentsParse(text);
  try {
    return YAML::LoadAll(std::string(text));
  } catch (const YAML::DeepRecursion& error) {
    throw YAML::ParserException(error.mark, DescribeParseError(error));
  }
}

std::vector<YAML::Node> LoadAllDocumentsUnmarked(std::string_view text) {
  if (const std::vector<YAML::Node>* documents = FindLoaded(text)) return *documents;
  DocumentBuilder builder;
  ParseGuarded(text, builder);
  RememberLoaded(text, builder.documents);
  return std::move(builder.documents);
}

}  // namespace safesubst::detail
