// SPDX-License-Identifier: Apache-2.0
// Conformance of the tokenizer against the YAML test suite
// (https://github.com/yaml/yaml-test-suite, data branch).
//
// For every valid case (a directory with in.yaml and test.event and no `error`
// file), the event stream written from the tokenizer's node spans
// (yaml_spans.h) must be the suite's test.event, line for line: documents with
// their explicit markers, mappings and sequences with their flow style,
// scalars with their style and decoded value, aliases, anchors and resolved
// tags. Every invalid case (an `error` file) must get an error diagnostic.
// The step engine's fast witness (yaml_witness.h, libfyaml) must refuse no
// valid case and accept no invalid one (it may leave a case to yaml-cpp).
// Known differences are listed in kKnownDifferences with the reason; the test
// fails on a difference that is not listed, and on a listed case that passes.
//
// Usage: yaml_conformance [CASE-ID...]   (with ids: print the comparison of those cases)
// The suite is read from $YAML_TEST_SUITE_DIR, default ../shared/yaml-test-suite.
// Exit codes: 0 pass, 1 an unlisted difference or a listed case that passes, 77 suite missing.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "tokenizer.h"
#include "yaml_spans.h"
#include "yaml_witness.h"

namespace fs = std::filesystem;

namespace {

// Cases where the tokenizer and the suite differ, with the reason. (Where
// yaml-cpp and the suite disagree, the tokenizer follows the suite: L24T/01
// and JEF9/02, a last line of spaces without a line break.)
const std::map<std::string, std::string> kKnownDifferences = {
};

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty()) lines.push_back(line);
  }
  return lines;
}

char StyleChar(safesubst::ScalarStyle style) {
  switch (style) {
    case safesubst::ScalarStyle::kPlain: return ':';
    case safesubst::ScalarStyle::kSingleQuoted: return '\'';
    case safesubst::ScalarStyle::kDoubleQuoted: return '"';
    case safesubst::ScalarStyle::kLiteral: return '|';
    case safesubst::ScalarStyle::kFolded: return '>';
  }
  return '?';
}

// A value as test.event writes it.
std::string Escape(const std::string& value) {
  std::string out;
  for (char c : value) {
    switch (c) {
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\\': out += "\\\\"; break;
      case '\r': out += "\\r"; break;
      case '\b': out += "\\b"; break;
      case '\0': out += "\\0"; break;
      default: out += c; break;
    }
  }
  return out;
}

// %-escapes of a tag decoded (`%21` is `!`).
std::string PercentDecoded(std::string_view text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '%' && i + 2 < text.size() + 0 && std::isxdigit(static_cast<unsigned char>(text[i + 1])) &&
        std::isxdigit(static_cast<unsigned char>(text[i + 2]))) {
      out += static_cast<char>(std::stoi(std::string(text.substr(i + 1, 2)), nullptr, 16));
      i += 2;
    } else {
      out += text[i];
    }
  }
  return out;
}

// The tag handles of a document: `!` and `!!` by default, changed or added by
// `%TAG handle prefix` directives.
using TagHandles = std::map<std::string, std::string, std::less<>>;

TagHandles HandlesOf(std::string_view yaml, const safesubst::Tokens& tokens, std::size_t from, std::size_t to) {
  TagHandles handles = {{"!", "!"}, {"!!", "tag:yaml.org,2002:"}};
  for (const safesubst::Marker& marker : tokens.markers) {
    if (marker.kind != safesubst::Marker::Kind::kDirective || marker.offset < from || marker.offset >= to) continue;
    std::istringstream words(std::string(yaml.substr(marker.offset, marker.length)));
    std::string name, handle, prefix;
    words >> name >> handle >> prefix;
    if (name == "%TAG") handles[handle] = prefix;
  }
  return handles;
}

// `!!str` as `<tag:yaml.org,2002:str>`, `!local` as `<!local>`, `!<uri>` as `<uri>`.
std::string ResolveTag(std::string_view tag, const TagHandles& handles) {
  if (tag.substr(0, 2) == "!<") return "<" + std::string(tag.substr(2, tag.size() - 3)) + ">";
  if (tag == "!") return "<!>";
  std::size_t handle_end = tag.find('!', 1);
  handle_end = handle_end == std::string_view::npos ? 1 : handle_end + 1;
  const std::string_view handle = tag.substr(0, handle_end);
  const auto found = handles.find(handle);
  const std::string prefix = found != handles.end() ? found->second : std::string(handle);
  return "<" + prefix + PercentDecoded(tag.substr(handle_end)) + ">";
}

// The event stream of the spans, in the suite's vocabulary.
std::vector<std::string> Events(std::string_view yaml, const safesubst::Tokens& tokens,
                                const safesubst::NodeSpans& spans) {
  using safesubst::NodeKind;
  using safesubst::NodeSpan;
  std::vector<std::string> events = {"+STR"};
  std::vector<std::uint32_t> open;
  TagHandles handles;
  std::size_t previous_document_end = 0;
  auto close = [&](std::uint32_t index) {
    const NodeSpan& node = spans.nodes[index];
    switch (node.kind) {
      case NodeKind::kDocument:
        events.push_back(node.explicit_end ? "-DOC ..." : "-DOC");
        previous_document_end = node.end;
        break;
      case NodeKind::kMapping: events.push_back("-MAP"); break;
      case NodeKind::kSequence: events.push_back("-SEQ"); break;
      default: break;
    }
  };
  for (std::uint32_t i = 0; i < spans.nodes.size(); ++i) {
    const NodeSpan& node = spans.nodes[i];
    while (!open.empty() && open.back() != node.parent) {
      close(open.back());
      open.pop_back();
    }
    std::string properties;
    if (node.anchor.present()) properties += " " + std::string(node.anchor.in(yaml));
    if (node.tag.present()) properties += " " + ResolveTag(node.tag.in(yaml), handles);
    switch (node.kind) {
      case NodeKind::kDocument:
        handles = HandlesOf(yaml, tokens, previous_document_end, node.begin);
        events.push_back(node.explicit_start ? "+DOC ---" : "+DOC");
        break;
      case NodeKind::kMapping:
        events.push_back(std::string("+MAP") + (node.flow ? " {}" : "") + properties);
        break;
      case NodeKind::kSequence:
        events.push_back(std::string("+SEQ") + (node.flow ? " []" : "") + properties);
        break;
      case NodeKind::kScalar: {
        const safesubst::Scalar& scalar = tokens.scalars[node.scalar];
        events.push_back("=VAL" + properties + " " + StyleChar(scalar.style) +
                         Escape(safesubst::DecodeScalar(yaml, scalar)));
        break;
      }
      case NodeKind::kAlias:
        events.push_back("=ALI " + std::string(yaml.substr(node.begin, node.end - node.begin)));
        break;
    }
    if (node.kind == NodeKind::kDocument || node.kind == NodeKind::kMapping || node.kind == NodeKind::kSequence) {
      open.push_back(i);
    }
  }
  while (!open.empty()) {
    close(open.back());
    open.pop_back();
  }
  events.push_back("-STR");
  return events;
}

struct Case {
  std::string id;
  fs::path dir;
  bool valid = true;
};

// Cases are `<ID>/` or, for cases with variants, `<ID>/<NN>/`.
std::vector<Case> FindCases(const fs::path& root) {
  std::vector<Case> cases;
  for (const auto& entry : fs::directory_iterator(root)) {
    if (!entry.is_directory()) continue;
    const std::string id = entry.path().filename().string();
    if (fs::exists(entry.path() / "in.yaml")) {
      cases.push_back({id, entry.path(), !fs::exists(entry.path() / "error")});
      continue;
    }
    for (const auto& sub : fs::directory_iterator(entry.path())) {
      if (sub.is_directory() && fs::exists(sub.path() / "in.yaml")) {
        cases.push_back({id + "/" + sub.path().filename().string(), sub.path(), !fs::exists(sub.path() / "error")});
      }
    }
  }
  std::sort(cases.begin(), cases.end(), [](const Case& a, const Case& b) { return a.id < b.id; });
  return cases;
}

// Checks one case; returns an empty string when it passes, else why not.
std::string Check(const Case& test_case, bool verbose) {
  const std::string yaml = ReadFile(test_case.dir / "in.yaml");
  safesubst::NodeSpans spans;
  const safesubst::Tokens tokens = safesubst::TokenizeWithSpans(yaml, &spans);
  if (verbose) {
    for (const auto& diagnostic : tokens.diagnostics) {
      std::printf("  diagnostic %u:%u %s\n", diagnostic.location.line, diagnostic.location.column,
                  diagnostic.message.c_str());
    }
  }
  const safesubst::detail::WitnessVerdict witness = safesubst::detail::ReadWithWitness(yaml);
  if (witness == (test_case.valid ? safesubst::detail::WitnessVerdict::kRefuses : safesubst::detail::WitnessVerdict::kAccepts)) {
    return test_case.valid ? "the witness of step edits refuses it" : "the witness of step edits accepts it";
  }
  if (!test_case.valid) {
    return safesubst::HasErrors(tokens.diagnostics) ? "" : "invalid YAML accepted without an error";
  }
  const std::vector<std::string> expected = Lines(ReadFile(test_case.dir / "test.event"));
  const std::vector<std::string> got = Events(yaml, tokens, spans);
  std::string problem;
  for (std::size_t i = 0; i < std::max(expected.size(), got.size()); ++i) {
    const std::string want = i < expected.size() ? expected[i] : "(none)";
    const std::string have = i < got.size() ? got[i] : "(none)";
    if (verbose) std::printf("  %s %-40s | %s\n", want == have ? "  " : "!!", want.c_str(), have.c_str());
    if (want != have && problem.empty()) problem = "event " + std::to_string(i + 1) + ": want " + want + ", got " + have;
  }
  if (problem.empty() && safesubst::HasErrors(tokens.diagnostics)) {
    problem = "unexpected diagnostic: " + tokens.diagnostics.front().message + " at line " +
              std::to_string(tokens.diagnostics.front().location.line);
  }
  return problem;
}

}  // namespace

int main(int argc, char** argv) {
  const char* env = std::getenv("YAML_TEST_SUITE_DIR");
  const fs::path root = env != nullptr && *env != '\0' ? fs::path(env) : fs::path("../shared/yaml-test-suite");
  std::error_code error;
  if (!fs::is_directory(root, error)) {
    std::fprintf(stderr,
                 "SKIPPED: yaml-test-suite not found at %s; set YAML_TEST_SUITE_DIR "
                 "(a checkout of the suite's data branch)\n",
                 root.string().c_str());
    return 77;
  }
  const std::vector<Case> cases = FindCases(root);
  if (argc > 1) {  // debugging: show the named cases in detail
    for (int a = 1; a < argc; ++a) {
      for (const Case& test_case : cases) {
        if (test_case.id != argv[a] && test_case.id.rfind(std::string(argv[a]) + "/", 0) != 0) continue;
        std::printf("%s%s\n", test_case.id.c_str(), test_case.valid ? "" : " (invalid YAML)");
        std::string problem = Check(test_case, true);
        std::printf("  => %s\n", problem.empty() ? "pass" : problem.c_str());
      }
    }
    return 0;
  }
  int passed = 0, failed = 0, valid_failed = 0, invalid_failed = 0;
  std::vector<std::string> unexpected, now_passing;
  for (const Case& test_case : cases) {
    const std::string problem = Check(test_case, false);
    const bool known = kKnownDifferences.count(test_case.id) > 0;
    if (problem.empty()) {
      ++passed;
      if (known) now_passing.push_back(test_case.id);
      continue;
    }
    ++failed;
    ++(test_case.valid ? valid_failed : invalid_failed);
    std::printf("FAIL %s%s: %s\n", test_case.id.c_str(), known ? " (known)" : "", problem.c_str());
    if (known) std::printf("     reason: %s\n", kKnownDifferences.at(test_case.id).c_str());
    if (!known) unexpected.push_back(test_case.id);
  }
  for (const std::string& id : now_passing) {
    std::fprintf(stderr, "known difference %s passes now: remove it from kKnownDifferences\n", id.c_str());
  }
  std::printf("yaml-test-suite conformance (full event streams; invalid cases rejected): %d passed, %d failed "
              "(%d valid and %d invalid cases failed; %zu listed)\n",
              passed, failed, valid_failed, invalid_failed, kKnownDifferences.size());
  // One line for scripts and the lead to grep.
  std::printf("SAFESUBST_YAML_CONFORMANCE passed=%d failed=%d cases=%zu percent=%.1f\n", passed, failed,
              cases.size(), cases.empty() ? 0.0 : 100.0 * passed / static_cast<double>(cases.size()));
  std::fflush(stdout);
  if (!unexpected.empty()) {
    std::fprintf(stderr, "%zu failing case(s) not listed in kKnownDifferences\n", unexpected.size());
    return 1;
  }
  return now_passing.empty() ? 0 : 1;
}
