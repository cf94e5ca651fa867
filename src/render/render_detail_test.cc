// SPDX-License-Identifier: Apache-2.0
// A streaming render (render_detail.h) must write and report exactly what
// the whole-document render does: every template of the repository, and
// templates made to reach each place where streaming gives way, are rendered
// both ways and compared byte for byte, diagnostics included.
#include "render_detail.h"

#include <doctest/doctest.h>

#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "safesubst/manifest.h"
#include "safesubst/values.h"
#include "test_support.h"
#include "tokenizer.h"

namespace safesubst {
namespace {

std::string Diagnosed(const RenderResult& result, std::string_view text) {
  std::string all;
  for (const Diagnostic& diagnostic : result.diagnostics) all += FormatDiagnostic(diagnostic, text, false) + "\n";
  return all;
}

// What the CLI's render asks for: no report per reference (which `explain` asks for).
RenderOptions Rendering() {
  RenderOptions options;
  options.report_references = false;
  return options;
}

// Renders `text` both ways; true when it streamed.
bool RenderedAlike(std::string_view text, const Manifest& manifest, const ValueSet& values,
                   const RenderOptions& options = Rendering()) {
  bool streamed = false;
  const RenderResult whole = detail::RenderStreamingFrom(detail::kNeverStreams, text, manifest, values, options);
  const RenderResult streaming = detail::RenderStreamingFrom(0, text, manifest, values, options, &streamed);
  CHECK(streaming.output == whole.output);
  CHECK(Diagnosed(streaming, text) == Diagnosed(whole, text));
  return streamed;
}

Result<Manifest> TryDeclaring(const std::set<std::string>& names, std::string_view type = "string") {
  std::string text = "variables:\n";
  for (const std::string& name : names) text += "  " + name + ": {type: " + std::string(type) + "}\n";
  return ParseManifest(text, "m.yaml");
}

Manifest Declaring(const std::set<std::string>& names, std::string_view type = "string") {
  Result<Manifest> manifest = TryDeclaring(names, type);
  REQUIRE(manifest.value);
  return *manifest.value;
}

ValueSet Setting(const std::set<std::string>& names, std::string_view value) {
  ValueSet values;
  for (const std::string& name : names) values.Set(name, Value{std::string(value), ValueSource::kCommandLine, Location{"--set"}});
  return values;
}

// The names `text` refers to as ${NAME} or $NAME.
std::set<std::string> NamesIn(std::string_view text) {
  std::set<std::string> names;
  for (const Reference& reference : Tokenize(text).references) {
    if ((reference.kind == RefKind::kBraced || reference.kind == RefKind::kBare) && !reference.name.empty()) {
      names.insert(std::string(reference.name));
    }
  }
  return names;
}

// Values for every place a value can land: inert ones, which stream, and ones
// that need quoting, escaping, another type or the whole template.
const std::vector<std::string> kValues = {
    "web-1",  "a b", "x: y", "#c", "- item", "", "true", "42", "null", "line\nbreak", "it's", "say \"hi\"",
    "$(POD)", "${X}", "---", "caf\xc3\xa9", "back\\slash", "tab\there", " lead", "[a, b]", "*alias", "a:b"};

TEST_CASE("streaming render: every repository template renders as the whole-document render does") {
  std::size_t templates = 0, streamed = 0;
  for (const std::filesystem::path& file : testing::RepositoryYamlFiles()) {
    const std::string text = testing::ReadFile(file);
    const std::set<std::string> names = NamesIn(text);
    if (names.empty()) continue;
    const Result<Manifest> declared = TryDeclaring(names);
    if (!declared.value) continue;  // a name a manifest cannot declare
    for (const std::string& value : kValues) {
      INFO(file.string() << " with the value '" << value << "'");
      streamed += RenderedAlike(text, *declared.value, Setting(names, value));
    }
    ++templates;
  }
  CHECK(templates > 50);
  CHECK(streamed > 100);  // the comparison is not between two whole-document renders
}

TEST_CASE("streaming render: each place where it gives way to the whole-document render") {
  const std::set<std::string> ab = {"A", "B"};
  struct Case {
    const char* text;
    bool streams;
  };
  const Case cases[] = {
      {"a: ${A}\nb: \"${B} x\"\nc: '${A}'\nd: |\n  one ${A}\n  two\ne: x${A}y${B}z\n", true},
      {"a: $A and ${B:-d}\nb: $(KEEP) $$ ${A}\n", true},  // kept shell forms and default words
      {"a: ${A}\nb: ${UNDECLARED}\n", false},             // a warning
      {"a: $${A}\nb: ${A}\n", false},                      // an escape
      {"${A}: v\n", false},                                // a key
      {"command: [sh, -c, 'echo ${A}']\n", true},          // a shell script: encoded for its context
      {"command: [sh, -c]\nargs:\n  - |\n    echo \"${A}\" '${B}' # ${A}\n    cat <<EOF\n    x ${B}\n    EOF\n", true},
      {"command: [sh, -c]\nargs:\n  - |\n    echo ${A} $HOME \"$1\" ${HOME}\n", true},  // names kept for the shell
      {"command: [sh, -c]\nargs:\n  - |\n    echo $HOME${A}\n", false},  // a value that would join one: an error
      {"command: [sh, -c]\nargs:\n  - |\n    echo $HOME${A:-x}\n", false},
      {"d: |\n  x\n  ${A}\n", false},  // a value first on a block line: the proof cannot place it
      {"a: ${A}\n# x\nb: ['${A}', \"${B}\"]\n", true},  // comments, flow
      {"a: ${A}\n# ${B}\n", false},  // a `$` in a comment: the whole render checks it
      {"b: [${A}]\n", false},  // a tokenizer error: `{` in a flow plain scalar
      {"a: ${A\nb: ${B}\n", false},                        // a tokenizer error
      {"a: &x ${A}\nb: *x\n", true},
      {"k: ${A}\r\nl: |\r\n  x ${B}\r\n", true},
      // An error about a comment's reference (a declared variable inside a kept
      // expansion): the whole render reports it, so a streaming render must too.
      {"a: ${A}\n# ${X${A}}\n", false},
  };
  for (const Case& c : cases) {
    INFO(std::string(c.text));
    CHECK(RenderedAlike(c.text, Declaring(ab), Setting(ab, "v")) == c.streams);
  }
  // A scalar with more references than a batch has them found again at each walk.
  std::string many;
  for (int i = 0; i < 5000; ++i) many += i % 2 ? "${A} " : "x${B}";
  const std::string wide[] = {"p: " + many + "\n", "q: \"" + many + "\"\n", "s: '" + many + "'\n",
                              "b: |\n  " + many + "\n  " + many + "\n",
                              "command: [sh, -c]\nargs:\n  - |\n    echo " + many + "\n    echo \"" + many + "\"\n"};
  for (const std::string& text : wide) {
    INFO(text.substr(0, 40));
    CHECK(RenderedAlike(text, Declaring(ab), Setting(ab, "v")));
    for (const char* value : {"v w", "it's", "a\nb"}) RenderedAlike(text, Declaring(ab), Setting(ab, value));
  }
  // A value that must be requoted, or that the proof cannot place, gives way.
  for (const std::string& value : kValues) {
    INFO(value);
    RenderedAlike("a: ${A}\nb: pre ${B} post\nc: \"${A}\"\n", Declaring(ab), Setting(ab, value));
  }
  // Other types, the output limit, and no structure check.
  RenderedAlike("n: ${A}\n", Declaring({"A"}, "int"), Setting({"A"}, "42"));
  RenderedAlike("y: ${A}\n", Declaring({"A"}, "yaml"), Setting({"A"}, "{a: 1}"));
  RenderOptions small = Rendering();
  small.limits.max_output_bytes = 20;
  CHECK(!RenderedAlike("a: ${A}\nb: ${A}\n", Declaring({"A"}), Setting({"A"}, "0123456789"), small));
  RenderOptions unchecked = Rendering();
  unchecked.check_structure = false;
  CHECK(RenderedAlike("a: ${A}\n", Declaring({"A"}), Setting({"A"}, "v"), unchecked));
}

// The shapes of the memory test (tests/memory/peak_memory_test.sh, bench/generate.cc), small.
// A `shell:` path names its node only: a key holding `.` or `[` is one key,
// quoted in the path; `.data.a.b` names both the keys a -> b and the key
// a.b (unquoted ConfigMap file names must keep marking). Both ways alike:
// the streaming render classifies as it reads.
TEST_CASE("streaming render: a shell path names its one node, a key holding a dot or a bracket included") {
  const std::string text =
      "kind: ConfigMap\ndata:\n  a.b: |\n    echo \"${V}\"\n  a:\n    b: |\n      echo \"${V}\"\n"
      "  x[0]: |\n    echo \"${V}\"\n  x:\n  - |\n    echo \"${V}\"\n";
  const ValueSet values = Setting({"V"}, "a\"b");  // escaped in a shell script's double quotes, not in data
  const std::vector<std::pair<std::string, std::vector<std::size_t>>> listed = {
      {".data.\"a.b\"", {4}}, {".data.a.b", {4, 7}}, {".data.'x[0]'", {9}}, {".data.x[0]", {12}}, {".data[*]", {4, 9}}};
  for (const auto& [path, lines] : listed) {
    CAPTURE(path);
    Result<Manifest> manifest = ParseManifest("variables:\n  V: {type: string}\nshell:\n  - " + path + "\n", "m.yaml");
    REQUIRE(manifest.ok());
    CHECK(RenderedAlike(text, *manifest.value, values));
    const RenderResult result = detail::RenderStreamingFrom(0, text, *manifest.value, values, Rendering());
    std::vector<std::size_t> escaped;
    std::size_t at = 0;
    for (std::size_t n = 1, begin = 0; begin < result.output.size(); ++n, begin = at + 1) {
      at = result.output.find('\n', begin);
      if (result.output.substr(begin, at - begin).find("\\\"") != std::string::npos) escaped.push_back(n);
    }
    CHECK(escaped == lines);
  }
}

TEST_CASE("streaming render: the placeholder-dense shapes stream") {
  const std::string head = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: dense\ndata:\n";
  std::string lines = head, script = head + "  run.sh: |\n    #!/bin/sh\n", plain = head + "  k: ",
              flow = head + "  k: [", keys = head;
  for (int i = 0; i < 300; ++i) {
    lines += i % 100 == 0 ? "  k" + std::to_string(i) + ": ${A}" : i % 100 == 99 ? "${A}\n" : "${A}";
    script += i % 4 == 0 ? "    echo ${A} ${A} ${A} ${A}\n" : "";
    plain += "${A}";
    flow += i == 0 ? "\"${A}\"" : ", \"${A}\"";
    keys += "  k" + std::to_string(i) + ": ${A}\n";
  }
  plain += "\n";
  flow += "]\n";
  for (const std::string& text : {lines, script, plain, flow, keys}) {
    INFO(text.substr(head.size(), 60));
    CHECK(RenderedAlike(text, Declaring({"A"}), Setting({"A"}, "x")));
  }
}

}  // namespace
}  // namespace safesubst
