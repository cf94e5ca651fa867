// SPDX-License-Identifier: Apache-2.0
#include "yaml_load.h"

#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/eventhandler.h>

#include <algorithm>
#include <sstream>
#include <string>

#include "safesubst/tokenizer.h"
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
  std::size_t markers = 0;
  for (std::size_t line = 0; line < text.size();) {
    if (IsDocumentMarkerLine(text, line)) ++markers;
    std::size_t end = text.find_first_of("\r\n", line);
    if (end == std::string_view::npos) break;
    line = end + 1;
  }
  return markers + 1;
}

namespace {

// The texts CheckAllDocumentsParse accepted last on this thread, while a
// RememberAcceptedText lives on it (yaml_load.h).
struct AcceptedText {
  bool remembering = false;
  bool held = false;
  std::string text;  // capacity kRememberedTextBytes: assigning never moves it
  std::size_t longest = 0;  // of the texts it held: what to overwrite
};
constexpr std::size_t kRememberedTextBytes = std::size_t{64} << 10;
thread_local AcceptedText accepted;

}  // namespace

RememberAcceptedText::RememberAcceptedText() : outermost_(!accepted.remembering) {
  if (!outermost_) return;
  accepted.text.reserve(kRememberedTextBytes);
  accepted.remembering = true;
}

RememberAcceptedText::~RememberAcceptedText() {
  if (!outermost_) return;
  // It may hold secret values: overwritten (volatile, so that the stores are
  // not dropped as dead before the memory is freed), then given back.
  accepted.text.resize(accepted.longest);
  volatile char* byte = accepted.text.data();
  for (std::size_t i = 0; i < accepted.longest; ++i) byte[i] = '\0';
  accepted = AcceptedText{};
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

void CheckAllDocumentsParse(std::string_view text) {
  if (accepted.held && accepted.text == text) return;
  // A pass with a handler that keeps nothing, counting the documents.
  const std::size_t bound = MaxDocumentCount(text);
  try {
    std::istringstream input{std::string(text)};
    YAML::Parser parser(input);
    DocumentStartRecorder recorder;
    for (std::size_t documents = 0; parser.HandleNextDocument(recorder);) {
      if (++documents > bound) throw YAML::ParserException(recorder.last_start, std::string(kRunawayDocumentMessage));
    }
  } catch (const YAML::DeepRecursion& error) {
    throw YAML::ParserException(error.mark, DescribeParseError(error));
  } catch (const YAML::ParserException& error) {
    ThrowMisread(text, error);
  }
  if (accepted.remembering && text.size() <= kRememberedTextBytes) {
    accepted.text.assign(text);
    accepted.held = true;
    accepted.longest = std::max(accepted.longest, text.size());
  }
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

}  // namespace safesubst::detail
