// SPDX-License-Identifier: Apache-2.0
// Tests of the structure invariant: what counts as a change of shape, where it
// is reported, exemptions, aliases and multi-document streams.
#include "invariant.h"

#include <doctest/doctest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "safesubst/render.h"
#include "yaml_encoding.h"
#include "alias_bomb.h"
#include "test_support.h"

namespace safesubst {
namespace {

std::string Describe(const std::vector<StructureDifference>& differences) {
  std::string out;
  for (const StructureDifference& d : differences) {
    out += "[" + std::to_string(d.document) + "] '" + d.path + "': " + d.message + " (template " +
           std::to_string(d.template_line) + ":" + std::to_string(d.template_column) + ", output " +
           std::to_string(d.output_line) + ":" + std::to_string(d.output_column) + ")\n";
  }
  return out;
}

// The differences between two streams that both parse.
std::vector<StructureDifference> Diff(std::string_view before, std::string_view after,
                                      const std::vector<std::string>& exempt = {}) {
  Result<std::vector<StructureDifference>> result = CompareStructure(before, after, exempt, "t.yaml");
  REQUIRE_MESSAGE(result.ok(), (result.diagnostics.empty() ? "" : result.diagnostics[0].message));
  CHECK(result.diagnostics.empty());
  return *result.value;
}

// Exactly one difference, at `path`, whose message contains `words`.
StructureDifference One(std::string_view before, std::string_view after, std::string_view path,
                        std::string_view words) {
  std::vector<StructureDifference> differences = Diff(before, after);
  REQUIRE_MESSAGE(differences.size() == 1, Describe(differences));
  CHECK(differences[0].path == path);
  CHECK_MESSAGE(differences[0].message.find(words) != std::string::npos, differences[0].message);
  return differences[0];
}

constexpr std::string_view kDeployment =
    "apiVersion: apps/v1\n"
    "kind: Deployment\n"
    "metadata:\n"
    "  name: ${APP}\n"
    "spec:\n"
    "  replicas: ${REPLICAS}\n"
    "  template:\n"
    "    spec:\n"
    "      containers:\n"
    "        - name: app\n"
    "          image: repo/app:${TAG}\n"
    "          args: [\"--port\", \"${PORT}\"]\n"
    "          resources: ${RESOURCES}\n";

TEST_CASE("identical streams have the same structure") {
  CHECK(Diff(kDeployment, kDeployment).empty());
  CHECK(Diff("", "").empty());
  CHECK(Diff("# only a comment\n", "").empty());
  CHECK(Diff("a: 1\n---\nb: [x]\n", "a: 1\n---\nb: [x]\n").empty());
}

TEST_CASE("changed scalar values and quoting styles are not structure") {
  std::string rendered(kDeployment);
  for (auto [from, to] : {std::pair<std::string, std::string>{"${APP}", "web"}, {"${REPLICAS}", "3"},
                          {"app:${TAG}", "app:\"1.10\""}, {"${PORT}", "8080"}, {"${RESOURCES}", "'a: b'"}}) {
    rendered.replace(rendered.find(from), from.size(), to);
  }
  CHECK(Diff(kDeployment, rendered).empty());
  CHECK(Diff("a: ${X}\n", "a: |\n  multi\n  line\n").empty());
  CHECK(Diff("a: ${X}\n", "a: \"#x\"\n").empty());
}

TEST_CASE("a scalar that became a mapping is reported with both positions") {
  StructureDifference d = One("a: 1\nb: ${X}\n", "a: 1\nb:\n  c: 1\n", "b", "was a scalar, became a mapping");
  CHECK(d.document == 0);
  CHECK(d.template_line == 2);
  CHECK(d.template_column == 4);
  CHECK(d.output_line == 3);
  CHECK(d.output_column == 3);
  One("a: ${X}\n", "a: [1]\n", "a", "was a scalar, became a sequence");
  One("a: [1]\n", "a: x\n", "a", "was a sequence, became a scalar");
}

TEST_CASE("the path is written as the tokenizer writes it") {
  std::string rendered(kDeployment);
  std::string from = "\"${PORT}\"";
  rendered.replace(rendered.find(from), from.size(), "{evil: 1}");
  One(kDeployment, rendered, "spec.template.spec.containers[0].args[1]", "became a mapping");
  One("- a\n- [b, c]\n", "- a\n- [b, {c: 1}]\n", "[1][1]", "became a mapping");
}

TEST_CASE("keys: added, removed, changed, reordered") {
  StructureDifference added = One("a: 1\nb: 2\n", "a: 1\nc: 3\nb: 2\n", "c", "key 'c' was added");
  CHECK(added.output_line == 2);
  CHECK(added.output_column == 1);
  StructureDifference removed = One("a: 1\nb: 2\n", "a: 1\n", "b", "key 'b' was removed");
  CHECK(removed.template_line == 2);
  StructureDifference changed = One("x:\n  name-${S}: 1\n", "x:\n  name-a: 1\n", "x.name-${S}", "key changed");
  CHECK(changed.message.find("'name-a'") != std::string::npos);
  CHECK(changed.template_line == 2);
  CHECK(changed.template_column == 3);
  std::vector<StructureDifference> reordered = Diff("a: 1\nb: 2\n", "b: 2\na: 1\n");
  CHECK_MESSAGE(reordered.size() == 2, Describe(reordered));
  // A substitution that injected a key into a flow mapping.
  One("m: {a: ${X}}\n", "m: {a: 1, b: 2}\n", "m.b", "was added");
}

TEST_CASE("references in flow collections: the template is read as it is meant") {
  CHECK(Diff("args: [${A}, ${B}]\nm: {k: ${C:-x,y}}\n", "args: [a, b]\nm: {k: c}\n").empty());
  One("args: [${A}, ${B}]\n", "args: [a, b, c]\n", "args", "sequence had 2 items, has 3");
  One("m: {${K}: 1}\n", "m: {k: 1}\n", "m.${K}", "key changed: '${K}' became 'k'");
  // Unterminated forms are left as they are (and here make the template invalid).
  Result<std::vector<StructureDifference>> result = CompareStructure("a: [${A]\n", "a: [x]\n", {}, "t.yaml");
  CHECK(!result.ok());
}

TEST_CASE("sequence length changes") {
  StructureDifference d = One("l: [a, b, c]\n", "l: [a, b]\n", "l", "sequence had 3 items, has 2");
  CHECK(d.template_line == 1);
  CHECK(d.template_column == 4);
  One("l:\n  - a\n", "l:\n  - a\n  - b\n", "l", "sequence had 1 item, has 2");
  // A value with `- ` spliced raw into a block sequence item.
  One("args:\n  - ${A}\n", "args:\n  - x\n  - y\n", "args", "had 1 item, has 2");
}

TEST_CASE("null and scalar are different kinds") {
  One("a:\n", "a: x\n", "a", "was null, became a scalar");
  One("a: ${X}\n", "a:\n", "a", "was a scalar, became null");
}

TEST_CASE("explicit tags count when either side has one") {
  One("a: ${X}\n", "a: !!binary aGVsbG8=\n", "a", "tag changed from none to !!binary");
  CHECK(Diff("a: !!str ${X}\n", "a: !!str \"5\"\n").empty());
}

TEST_CASE("document counts") {
  std::vector<StructureDifference> extra = Diff("a: 1\n", "a: 1\n---\nb: 2\n");
  REQUIRE_MESSAGE(extra.size() == 1, Describe(extra));
  CHECK(extra[0].document == 1);
  CHECK(extra[0].path.empty());
  CHECK(extra[0].message.find("the template has 1 document, the output has 2") != std::string::npos);
  CHECK(extra[0].output_line == 3);
  CHECK(extra[0].template_line == 0);
  std::vector<StructureDifference> fewer = Diff("a: 1\n---\nb: 2\n", "a: 1\n");
  REQUIRE(fewer.size() == 1);
  CHECK(fewer[0].template_line == 3);
}

TEST_CASE("multi-document streams: differences carry the document index") {
  std::vector<StructureDifference> differences =
      Diff("kind: A\nx: 1\n---\nkind: B\ny: ${Y}\n", "kind: A\nx: 1\n---\nkind: B\ny: [1, 2]\n");
  REQUIRE_MESSAGE(differences.size() == 1, Describe(differences));
  CHECK(differences[0].document == 1);
  CHECK(differences[0].path == "y");
  CHECK(differences[0].template_line == 5);
}

TEST_CASE("exempt paths") {
  std::string rendered(kDeployment);
  std::string from = "${RESOURCES}";
  rendered.replace(rendered.find(from), from.size(), "\n            limits: {cpu: 1}");
  CHECK(Diff(kDeployment, rendered).size() == 1);
  CHECK(Diff(kDeployment, rendered, {"spec.template.spec.containers[0].resources"}).empty());
  CHECK(Diff(kDeployment, rendered, {".spec.template.spec.containers[0].resources"}).empty());
  CHECK(Diff(kDeployment, rendered, {"spec.template"}).empty());
  // A prefix of a key name is not a parent path.
  CHECK(Diff(kDeployment, rendered, {"spec.template.spec.containers[0].res"}).size() == 1);
  CHECK(Diff(kDeployment, rendered, {"spec.template.spec.containers[1]"}).size() == 1);
  // An exemption does not hide a change elsewhere.
  std::string both = rendered;
  both.replace(both.find("${REPLICAS}"), 11, "[3]");
  std::vector<StructureDifference> rest = Diff(kDeployment, both, {"spec.template.spec.containers[0].resources"});
  REQUIRE_MESSAGE(rest.size() == 1, Describe(rest));
  CHECK(rest[0].path == "spec.replicas");
}

TEST_CASE("an exempt path holds in every document, with or without its leading dot") {
  std::string before = "a: ${X}\n---\na: ${X}\n";
  std::string after = "a: {b: 1}\n---\na: {b: 1}\n";
  auto run = [&](const std::vector<std::string>& exempt) {
    Result<std::vector<StructureDifference>> result = CompareStructure(before, after, exempt, "t.yaml");
    REQUIRE(result.ok());
    return *result.value;
  };
  CHECK(run({}).size() == 2);
  CHECK(run({"a"}).empty());
  CHECK(run({".a"}).empty());
  CHECK(run({"b"}).size() == 2);
}

TEST_CASE("a rendered stream that does not parse is an error located in the output") {
  Result<std::vector<StructureDifference>> result =
      CompareStructure("a: 1\nb: ${X}\n", "a: 1\nb: [unclosed\nc: 2\n", {}, "app.yaml");
  CHECK(!result.ok());
  CHECK(!result.value.has_value());
  REQUIRE(result.diagnostics.size() == 1);
  const Diagnostic& d = result.diagnostics[0];
  CHECK(d.severity == Severity::kError);
  CHECK(d.message.find("rendered output is not valid YAML") == 0);
  CHECK(d.location.file == "app.yaml (rendered output)");
  CHECK(d.location.line >= 2);
  CHECK(d.location.column >= 1);
  CHECK(!d.hint.empty());
}

TEST_CASE("a template that does not parse is an error located in the template") {
  Result<std::vector<StructureDifference>> result = CompareStructure("a: 1\n b: 2\n", "a: 1\n", {}, "app.yaml");
  CHECK(!result.ok());
  REQUIRE(result.diagnostics.size() == 1);
  CHECK(result.diagnostics[0].message.find("template is not valid YAML") == 0);
  CHECK(result.diagnostics[0].location.file == "app.yaml");
  CHECK(result.diagnostics[0].location.line == 2);
}

TEST_CASE("aliases are compared through their anchors") {
  std::string_view anchored = "base: &b {x: 1, y: [1, 2]}\nuse: *b\nmerged:\n  <<: *b\n  z: 3\n";
  CHECK(Diff(anchored, anchored).empty());
  // The anchored node changes shape: reported where it is written, once.
  std::vector<StructureDifference> differences =
      Diff(anchored, "base: &b {x: 1, y: [1]}\nuse: *b\nmerged:\n  <<: *b\n  z: 3\n");
  REQUIRE_MESSAGE(differences.size() == 1, Describe(differences));
  CHECK(differences[0].path == "base.y");
  // An alias where the template had a node (or the reverse) is a change.
  One("a: &x 1\nb: ${X}\n", "a: &x 1\nb: *x\n", "b", "was a scalar, became an alias");
  One("a: &x 1\nb: *x\n", "a: &x 1\nb: 1\n", "b", "was an alias, became a scalar");
  // A self-referencing alias does not loop.
  CHECK(Diff("a: &x [*x]\n", "a: &x [*x]\n").empty());
}

TEST_CASE("billion laughs: the comparison costs the text, not the expansion") {
  const std::string bomb = testing::AliasBomb(12);
  auto start = std::chrono::steady_clock::now();
  CHECK(Diff(bomb, bomb).empty());
  std::string changed = bomb;
  changed.replace(changed.find("[x, x,"), 6, "[{y: 1}, x,");
  std::vector<StructureDifference> differences = Diff(bomb, changed);
  CHECK_MESSAGE(differences.size() == 1, Describe(differences));
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  CHECK(seconds < 2.0);
}

// The encoder and the invariant agree: a value written by the encoding rules
// (plain when it fits and reads as a string, else double-quoted; or into a
// block scalar) never changes the shape, in block and in flow context.
TEST_CASE("values encoded by the rules keep the structure") {
  const std::string tricky = "-?:,[]{}#&*!|>'\" \\.~x\t\n";
  std::vector<std::string> values = {"", "1.10", "on", "null", "~", "- x", "a: b", "x #y", "*a", "&a b", "!!int 1",
                                     "[a]", "{a: b}", "---", "...", "line\nbreak", "\xC2\x85", "%x", "@x"};
  for (char a : tricky) {
    for (char b : tricky) values.push_back(std::string{a, b});
  }
  const std::vector<std::pair<std::string, bool>> templates = {
      {"key: ${X}\nnext: [a, b]\n", false}, {"list:\n  - ${X}\n  - b\n", false},
      {"flow: [${X}, b]\n", true},         {"map: {k: ${X}, n: 1}\n", true}};
  int checked = 0;
  for (const std::string& value : values) {
    auto encode = [&](bool in_flow) {
      bool plain = FitsPlain(value, in_flow) && ResolvePlain(value) == PlainKind::kString;
      return plain ? value : DoubleQuoted(value);
    };
    for (const auto& [text, in_flow] : templates) {
      std::string rendered = text;
      rendered.replace(rendered.find("${X}"), 4, encode(in_flow));
      Result<std::vector<StructureDifference>> result = CompareStructure(text, rendered, {}, "t.yaml");
      CHECK_MESSAGE(result.ok(), rendered);
      if (result.value) CHECK_MESSAGE(result.value->empty(), rendered << "\n" << Describe(*result.value));
      ++checked;
    }
    if (FitsBlock(value)) {
      std::string body;
      AppendBlockBody(value, 4, false, &body);
      std::string text = "a:\n  s: |\n    ${X}\n  t: 1\n";
      std::string rendered = text;
      rendered.replace(rendered.find("${X}"), 4, body);
      Result<std::vector<StructureDifference>> result = CompareStructure(text, rendered, {}, "t.yaml");
      CHECK_MESSAGE(result.ok(), rendered);
      if (result.value) CHECK_MESSAGE(result.value->empty(), rendered << "\n" << Describe(*result.value));
      ++checked;
    }
  }
  CHECK(checked > 2000);
}

// Every valid case of the YAML test suite compared with itself: no difference,
// no crash, whatever the aliases, tags and complex keys. Invalid cases must not
// crash either. (Cases yaml-cpp itself rejects are counted, not hidden.)
TEST_CASE("yaml-test-suite: every case compares with itself") {
  namespace fs = std::filesystem;
  fs::path suite = safesubst::testing::YamlTestSuiteOrSkip();
  int valid = 0, rejected_by_yaml_cpp = 0, invalid = 0;
  std::vector<fs::path> cases;
  for (const fs::directory_entry& entry : fs::recursive_directory_iterator(suite)) {
    if (entry.is_regular_file() && entry.path().filename() == "in.yaml") cases.push_back(entry.path());
  }
  for (const fs::path& path : cases) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream buffer;
    buffer << in.rdbuf();
    std::string text = buffer.str();
    bool is_error_case = fs::exists(path.parent_path() / "error");
    Result<std::vector<StructureDifference>> result = CompareStructure(text, text, {}, path.string());
    if (is_error_case) {
      ++invalid;
      continue;
    }
    if (!result.ok()) {
      ++rejected_by_yaml_cpp;
      continue;
    }
    ++valid;
    CHECK_MESSAGE(result.value->empty(), path.string() << "\n" << Describe(*result.value));
  }
  MESSAGE("yaml-test-suite: " << valid << " valid cases compared with themselves, " << rejected_by_yaml_cpp
                              << " valid cases yaml-cpp rejects, " << invalid << " error cases run");
  CHECK(valid > 250);
}

TEST_CASE("the number of differences is bounded") {
  std::string before, after;
  for (int i = 0; i < 500; ++i) {
    before += "k" + std::to_string(i) + ": x\n";
    after += "k" + std::to_string(i) + ": [x]\n";
  }
  CHECK(Diff(before, after).size() == 100);
}

// --full-check (the yaml-cpp comparison) must be at least as strict as the
// default token-level check (issue 25 item 6): both verify that every
// substituted value reads back exactly. These are the renders the default
// check refused and the full one accepted.
RenderResult RenderWithM(const std::string& text, const std::string& value, bool full_check) {
  Result<Manifest> manifest = ParseManifest("variables:\n  M: string\n", "m.yaml");
  REQUIRE(manifest.ok());
  ValueSet values;
  values.Set("M", Value{value, ValueSource::kCommandLine, Location{"--set M"}});
  RenderOptions options;
  options.file_name = "t.yaml";
  options.full_structure_check = full_check;
  return Render(text, *manifest.value, values, options);
}

TEST_CASE("full structure check: refuses what the default check refuses, a value that reads back altered") {
  struct Case {
    const char* name;
    std::string text;
    std::string value;
  };
  for (const Case& each : {Case{"empty value in a multi-line double-quoted scalar", "a: \"first\n  ${M}\n  last\"\n", ""},
                           Case{"multi-line value in a folded block", "a: >\n  x\n  ${M}\n  y\n", "one\n two"},
                           Case{"newlines at the end of a literal block", "a: |\n  x${M}\n", "\n\n"}}) {
    CAPTURE(each.name);
    for (bool full_check : {false, true}) {
      CAPTURE(full_check);
      RenderResult result = RenderWithM(each.text, each.value, full_check);
      CHECK_FALSE(result.ok());
      CHECK(result.output.empty());
    }
  }
}

TEST_CASE("full structure check: a differential test against the default check over scalar styles and values") {
  const std::vector<std::string> templates = {
      "a: ${M}\n",          "a: x ${M} y\n",         "a: \"${M}\"\n",           "a: 'x ${M}'\n",
      "a: \"f\n  ${M}\n  l\"\n", "a: |\n  x${M}\n",        "a: |-\n  ${M}\n  y\n",   "a: >\n  x\n  ${M}\n  y\n",
      "a: >\n  x ${M} y\n",   "a: [${M}, z]\n",        "- ${M}\n- \"${M}\"\n",     "a:\n  b: ${M} # c\n"};
  const std::vector<std::string> values = {"",      "v",       "one\ntwo", "one\n two", "\n\n",   " x ", "a: b",
                                           "#c",    "\"q\"",   "'s'",      "x\\y",     "- z",    "t\tx", "x\n",
                                           "\nx",   "x  \n y", "[1]",      "{k: v}",    "*alias", "&a x", "---"};
  int refused_by_default = 0;
  for (const std::string& text : templates) {
    for (const std::string& value : values) {
      CAPTURE(text);
      CAPTURE(value);
      RenderResult by_default = RenderWithM(text, value, false);
      RenderResult full = RenderWithM(text, value, true);
      if (!by_default.ok()) {
        ++refused_by_default;
        CHECK_FALSE(full.ok());
      } else if (full.ok()) {
        CHECK(full.output == by_default.output);
      }
    }
  }
  CHECK(refused_by_default > 0);  // the sweep does reach the refusals
}

}  // namespace
}  // namespace safesubst
