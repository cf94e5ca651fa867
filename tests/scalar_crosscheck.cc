// SPDX-License-Identifier: Apache-2.0
#include "scalar_crosscheck.h"

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

#include <sstream>

#include "tokenizer.h"

namespace safesubst {

namespace {

// One scalar as yaml-cpp reports it.
struct YamlCppScalar {
  bool null = false;
  std::string value;
  int line = 0;  // 0-based, as yaml-cpp's Mark
  int column = 0;
};

// Collects scalar events in document order; collections and aliases are not scalars.
class ScalarCollector : public YAML::EventHandler {
 public:
  std::vector<YamlCppScalar> scalars;

  void OnDocumentStart(const YAML::Mark&) override {}
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& mark, YAML::anchor_t) override {
    scalars.push_back({true, {}, mark.line, mark.column});
  }
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
  void OnScalar(const YAML::Mark& mark, const std::string&, YAML::anchor_t, const std::string& value) override {
    scalars.push_back({false, value, mark.line, mark.column});
  }
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
  void OnMapEnd() override {}
};

// The plain scalars yaml-cpp reports as null rather than as a string.
bool IsNullWord(std::string_view value) {
  return value.empty() || value == "~" || value == "null" || value == "Null" || value == "NULL";
}

std::string Printable(std::string_view value) {
  std::string out = "\"";
  for (char c : value) {
    if (c == '\n') out += "\\n";
    else if (c == '\t') out += "\\t";
    else if (c == '\r') out += "\\r";
    else if (c == '"' || c == '\\') out += std::string("\\") + c;
    else out += c;
  }
  return out + "\"";
}

// yaml-cpp places a scalar with an anchor or a tag at its first property.
bool AtItsProperties(std::string_view text, const Scalar& ours, const YamlCppScalar& theirs) {
  if (static_cast<int>(ours.line) != theirs.line + 1 || theirs.column + 1 >= static_cast<int>(ours.column)) {
    return false;
  }
  const std::size_t line_start = ours.offset - (ours.column - 1);
  const char first = text[line_start + static_cast<std::size_t>(theirs.column)];
  return first == '&' || first == '!';
}

std::string At(const Scalar& scalar) {
  return std::to_string(scalar.line) + ":" + std::to_string(scalar.column) + ": ";
}

}  // namespace

std::vector<std::string> CrossCheckScalars(std::string_view text) {
  std::vector<std::string> mismatches;
  ScalarCollector collector;
  try {
    std::istringstream input{std::string(text)};
    YAML::Parser parser(input);
    while (parser.HandleNextDocument(collector)) {
    }
  } catch (const YAML::Exception& error) {
    mismatches.push_back(std::string("yaml-cpp cannot parse the text: ") + error.what());
    return mismatches;
  }
  const Tokens tokens = Tokenize(text);
  for (const Diagnostic& diagnostic : tokens.diagnostics) {
    if (diagnostic.severity == Severity::kError) {
      mismatches.push_back("tokenizer error at " + std::to_string(diagnostic.location.line) + ":" +
                           std::to_string(diagnostic.location.column) + ": " + diagnostic.message);
    }
  }
  const std::size_t count = std::min(tokens.scalars.size(), collector.scalars.size());
  for (std::size_t i = 0; i < count; ++i) {
    const Scalar& ours = tokens.scalars[i];
    const YamlCppScalar& theirs = collector.scalars[i];
    const std::string value = DecodeScalar(text, ours);
    if (theirs.null) {
      if (ours.style != ScalarStyle::kPlain || !IsNullWord(value)) {
        mismatches.push_back(At(ours) + "scalar " + std::to_string(i) + ": tokenizer " + Printable(value) +
                             ", yaml-cpp null");
      }
      continue;
    }
    if (value != theirs.value) {
      mismatches.push_back(At(ours) + "scalar " + std::to_string(i) + ": tokenizer " + Printable(value) +
                           ", yaml-cpp " + Printable(theirs.value));
      continue;
    }
    // yaml-cpp's marks are 0-based and, like ours, count bytes on the line.
    if (ours.length > 0 && (static_cast<int>(ours.line) != theirs.line + 1 ||
                            static_cast<int>(ours.column) != theirs.column + 1) &&
        !AtItsProperties(text, ours, theirs)) {
      mismatches.push_back(At(ours) + "scalar " + std::to_string(i) + " " + Printable(value) +
                           ": yaml-cpp places it at " + std::to_string(theirs.line + 1) + ":" +
                           std::to_string(theirs.column + 1));
    }
  }
  if (tokens.scalars.size() != collector.scalars.size()) {
    mismatches.push_back("the tokenizer reads " + std::to_string(tokens.scalars.size()) + " scalars, yaml-cpp " +
                         std::to_string(collector.scalars.size()));
  }
  return mismatches;
}

}  // namespace safesubst
