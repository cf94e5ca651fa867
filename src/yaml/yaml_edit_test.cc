// SPDX-License-Identifier: Apache-2.0
#include "yaml_edit.h"

#include <doctest/doctest.h>

#include "test_support.h"

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "tree_oracle.h"
#include "yaml_node_writer.h"
#include "yaml_layout.h"

namespace safesubst::detail {
namespace {

Step MakeStep(Step::Action action, std::string path) {
  Step step;
  step.action = action;
  step.path = std::move(path);
  step.location = Location{"vars.yaml", 3, 3, 0};
  return step;
}

std::string StepWord(const Step& step) {
  switch (step.action) {
    case Step::Action::kDelete: return "delete";
    case Step::Action::kSet: return "set";
    case Step::Action::kMerge: return step.append ? "append" : "merge";
  }
  return "?";
}

// Runs one step through ApplySteps and the tree oracle; both must succeed and agree.
std::string Apply(std::string_view input, const Step& step, const std::string& fragment = {}) {
  StepContext context;
  context.file_name = "t.yaml";
  context.load_fragment = [&](const Step&) {
    Result<std::string> result;
    result.value = fragment;
    return result;
  };
  testing::OracleCheck check = testing::CheckAgainstTrees(input, {step}, context);
  INFO("oracle: ", check.report);
  CHECK(check.agree);
  std::string errors;
  for (const Diagnostic& d : check.engine.diagnostics) errors += d.message + "\n";
  INFO("diagnostics: ", errors);
  REQUIRE(check.engine.ok());
  return *check.engine.value;
}

std::string Delete(std::string_view input, std::string path) {
  return Apply(input, MakeStep(Step::Action::kDelete, std::move(path)));
}

std::string Set(std::string_view input, std::string path, std::string value) {
  Step step = MakeStep(Step::Action::kSet, std::move(path));
  step.value = std::move(value);
  return Apply(input, step);
}

std::string Merge(std::string_view input, std::string path, const std::string& fragment, bool append = false) {
  Step step = MakeStep(Step::Action::kMerge, std::move(path));
  step.fragment_file = "f.yaml";
  step.append = append;
  return Apply(input, step, fragment);
}

TEST_CASE("yaml edit: a deleted entry takes its comments and value lines, nothing else") {
  constexpr std::string_view input =
      "a: 1\n"
      "\n"
      "# about b, first line\n"
      "# about b, second line\n"
      "b:\n"
      "  - x   # inline\n"
      "  # trailing, deeper: still b's\n"
      "# about c\n"
      "c: 3\n";
  CHECK(Delete(input, ".b") == "a: 1\n\n# about c\nc: 3\n");
  // A comment separated by a blank line is not "directly above".
  CHECK(Delete("# header\n\nk: v\nz: 1\n", ".k") == "# header\n\nz: 1\n");
  // The last entry of a file without a final line break.
  CHECK(Delete("a: 1\nb: 2", ".b") == "a: 1\n");
  CHECK(Delete("a: 1\r\nb: 2\r\nc: 3\r\n", ".b") == "a: 1\r\nc: 3\r\n");
}

TEST_CASE("yaml edit: deleting inline first entries and nested sequence items") {
  CHECK(Delete("- - a\n  - b\n- c\n", "[0][0]") == "- - b\n- c\n");
  CHECK(Delete("- - a\n  - b\n- c\n", "[0][1]") == "- - a\n- c\n");
  CHECK(Delete("items:\n  - name: a   # first\n    value: 1\n", ".items[0].name") == "items:\n  - value: 1\n");
}

TEST_CASE("yaml edit: deleting runs of entries and whole collections") {
  CHECK(Delete("l:\n- 1\n- 2\n- 3\n- 4\n", ".l[*]") == "l: []\n");
  CHECK(Delete("m:\n  k: [1, 2]\nn: 1\n", ".m.k") == "m: {}\nn: 1\n");
  CHECK(Delete("root:\n  - a: 1\n    b: 2\n", ".root[0].a") == "root:\n  - b: 2\n");
  CHECK(Delete("root:\n  - a: 1\n", ".root[0].a") == "root:\n  - {}\n");
}

TEST_CASE("yaml edit: a kept comment never lands inside a new block scalar") {
  // The old value's trailing comment may not follow a literal block's last line.
  CHECK(Set("script: old   # note\nnext: 1\n", ".script", "|\n  echo a\n  echo b\n") ==
        "script: |\n  echo a\n  echo b\nnext: 1\n");
  // With a block on the following lines, the key line keeps its comment.
  CHECK(Set("script:   # note\n  old\nnext: 1\n", ".script", "a: 1\nb: |\n  x\n") ==
        "script:   # note\n  a: 1\n  b: |\n    x\nnext: 1\n");
  CHECK(Set("k: v  # old comment\n", ".k", "w  # new comment") == "k: w  # new comment\n");
  CHECK(Set("k: v  # old comment\n", ".k", "w") == "k: w  # old comment\n");
}

TEST_CASE("yaml edit: values of every shape replace values of every shape") {
  constexpr std::string_view input =
      "s: plain\n"
      "q: \"quoted\"\n"
      "b: |\n"
      "  block\n"
      "m:\n"
      "  x: 1\n"
      "l:\n"
      "- 1\n"
      "f: {a: [1, 2]}\n"
      "e:\n";
  const std::vector<std::string> values = {"new", "'single'", "|\n  line1\n  line2\n", ">-\n  folded\n  text\n",
                                           "k: v\nk2:\n  - deep\n", "- a\n- b: c\n", "[1, {two: 2}]", "", "~",
                                           "\"multi\n  line quoted\""};
  for (const std::string path : {".s", ".q", ".b", ".m", ".l", ".f", ".e", ".m.x", ".l[0]"}) {
    for (const std::string& value : values) {
      INFO("path ", path, " value ", value);
      std::string output = Set(input, path, value);
      // Other entries keep their bytes.
      if (path != ".s") CHECK(output.find("s: plain\n") != std::string::npos);
      if (path != ".q") CHECK(output.find("q: \"quoted\"\n") != std::string::npos);
    }
  }
}

TEST_CASE("yaml edit: merge follows the target's indentation, fragment styles kept") {
  // A four-space document and a two-space fragment.
  std::string output = Merge(
      "spec:\n"
      "    containers:\n"
      "        -   name: app\n"
      "            image: x\n",
      ".spec.containers[0]",
      "args:\n"
      "  - '--flag'\n"
      "  - |\n"
      "    multi\n"
      "    line\n"
      "env: {A: \"1\"}\n");
  CHECK(output ==
        "spec:\n"
        "    containers:\n"
        "        -   name: app\n"
        "            image: x\n"
        "            args:\n"
        "              - '--flag'\n"
        "              - |\n"
        "                multi\n"
        "                line\n"
        "            env: {A: \"1\"}\n");
}

TEST_CASE("yaml edit: a fragment in flow style merged into a block mapping") {
  CHECK(Merge("resources:\n  limits:\n    cpu: 1\n", ".", "resources: {limits: {memory: 1Gi}, requests: {cpu: 1}}\n") ==
        "resources:\n  limits:\n    cpu: 1\n    memory: 1Gi\n  requests:\n    cpu: 1\n");
}

TEST_CASE("yaml edit: append items in the target's sequence style") {
  CHECK(Merge("l:\n- a\n", ".l", "- b   # new\n- c\n", true) == "l:\n- a\n- b   # new\n- c\n");
  CHECK(Merge("l:\n    -   a\n", ".", "l:\n  - b\n", true) == "l:\n    -   a\n    - b\n");
  CHECK(Merge("l: [a]\n", ".", "l: [b]\n", true) == "l:\n  - a\n  - b\n");
}

TEST_CASE("yaml edit: the blank lines a |+ block keeps stay with it") {
  constexpr std::string_view input = "keep: |+\n  text\n\n\nclip: |\n  text\n\n";
  CHECK(Set(input, ".added", "1") == "keep: |+\n  text\n\n\nclip: |\n  text\nadded: 1\n\n");
  CHECK(Set("a:\n  keep: |+\n    text\n\nb: 1\n", ".a.added", "1") == "a:\n  keep: |+\n    text\n\n  added: 1\nb: 1\n");
  CHECK(Delete("keep: |+\n  text\n\nnext: 1\n", ".keep") == "next: 1\n");
  // A |+ value written just before blank lines would take them in: it is
  // written double-quoted instead.
  CHECK(Set("- a\n- b\n\n# c\n", "[1]", "|+\n  keep\n\n") == "- a\n- \"keep\\n\\n\"\n\n# c\n");
  CHECK(Set("- a\n- b\n# c\n", "[1]", "|+\n  keep\n\n") == "- a\n- |+\n  keep\n\n# c\n");
}

TEST_CASE("yaml edit: anchors, tags and multi-line scalars around an edit stay as they are") {
  constexpr std::string_view input =
      "base: &base\n"
      "  image: x\n"
      "tagged: !!str 123\n"
      "long: this is a long\n"
      "  plain scalar\n"
      "quoted: \"over\n"
      "  two lines\"\n"
      "target:\n"
      "  a: 1\n"
      "use: *base\n";
  std::string output = Set(input, ".target.b", "2");
  CHECK(output ==
        "base: &base\n"
        "  image: x\n"
        "tagged: !!str 123\n"
        "long: this is a long\n"
        "  plain scalar\n"
        "quoted: \"over\n"
        "  two lines\"\n"
        "target:\n"
        "  a: 1\n"
        "  b: 2\n"
        "use: *base\n");
}

TEST_CASE("yaml edit: keys that need quoting are quoted") {
  CHECK(Set("a: 1\n", ".\"app.kubernetes.io/name\"", "web") == "a: 1\napp.kubernetes.io/name: web\n");
  CHECK(Set("a: 1\n", ".\"true\"", "x") == "a: 1\n\"true\": x\n");
  CHECK(Set("a: 1\n", ".\"has: colon\"", "x") == "a: 1\n\"has: colon\": x\n");
  CHECK(Set("a: 1\n", ".\"8080\"", "x") == "a: 1\n\"8080\": x\n");
}

// kTokenizer plans from the tokenizer's reading alone and leaves the witness to the caller
// (the step engine parses every edited text); kCrossChecked refuses what
// yaml-cpp refuses, and any outcome but success is decided that way.
TEST_CASE("yaml edit: the tokenizer's reading plans alone, anything but success is decided cross-checked") {
  YamlPath b, missing;
  PathError error;
  REQUIRE(ParseYamlPath(".b", &b, &error));
  REQUIRE(ParseYamlPath(".c.d", &missing, &error));
  // Valid YAML that yaml-cpp misreads (a block scalar not indented past its anchor).
  constexpr std::string_view misread = "a:\n- &x |-\n  text\nb: 1\n";
  EditOutcome outcome = DeletePath(misread, b);
  CHECK(outcome.status == EditOutcome::Status::kOk);
  CHECK(outcome.text == "a:\n- &x |-\n  text\n");
  outcome = DeletePath(misread, b, EditReading::kCrossChecked);
  CHECK(outcome.status == EditOutcome::Status::kError);
  CHECK(outcome.message.find("not valid YAML") != std::string::npos);
  // A miss is not trusted to that reading alone: yaml-cpp's refusal comes first.
  outcome = DeletePath(misread, missing);
  CHECK(outcome.status == EditOutcome::Status::kError);
  CHECK(outcome.message.find("not valid YAML") != std::string::npos);
}

TEST_CASE("yaml edit: the API reports no match and errors without touching the text") {
  YamlPath path;
  PathError error;
  REQUIRE(ParseYamlPath(".a.b", &path, &error));
  EditOutcome outcome = DeletePath("a: 1\n", path);
  CHECK(outcome.status == EditOutcome::Status::kNoMatch);
  CHECK(outcome.message == "`.a` is a scalar, not a mapping");
  CHECK(outcome.text.empty());

  outcome = SetPath("a: [1\n", path, "x");
  CHECK(outcome.status == EditOutcome::Status::kError);
  CHECK(outcome.source == EditOutcome::Source::kDocument);
  CHECK(outcome.message.find("not valid YAML") != std::string::npos);

  outcome = SetPath("a: {}\n", path, "[unclosed");
  CHECK(outcome.status == EditOutcome::Status::kError);
  CHECK(outcome.source == EditOutcome::Source::kValue);

  outcome = MergeAtPath("? complex\n: key\n", path, "x: 1\n", false);
  CHECK(outcome.status == EditOutcome::Status::kError);
  CHECK(outcome.message.find("not supported") != std::string::npos);
}

// ---------------------------------------------------------------------------
// Property sweep: over every document of the YAML test suite that the layout
// scanner handles, delete every node, set every scalar, merge into every block
// mapping, append to every block sequence; each result is compared with the
// tree oracle.

std::string PathTo(const Layout& layout, std::uint32_t index) {
  std::vector<PathSelector> selectors;
  while (index != 0) {
    const LayoutNode& n = layout.node(index);
    PathSelector selector;
    if (n.slot_kind == SlotKind::kMapValue) {
      selector.kind = PathSelector::Kind::kKey;
      selector.key = n.key;
    } else {
      const auto& siblings = layout.node(n.parent).children;
      selector.kind = PathSelector::Kind::kIndex;
      selector.index = std::find(siblings.begin(), siblings.end(), index) - siblings.begin();
    }
    selectors.insert(selectors.begin(), selector);
    index = n.parent;
  }
  return FormatYamlPath(selectors, selectors.size());
}

// Documents whose paths are not unique or whose edits interact with aliases
// are left out: the oracle would rightly disagree for reasons outside the editor.
bool Sweepable(const Layout& layout) {
  if (layout.empty()) return false;
  if (!layout.IsMapping(0) && !layout.IsSequence(0)) return false;
  for (std::uint32_t i = 0; i < layout.size(); ++i) {
    const LayoutNode& n = layout.node(i);
    if (n.kind == LayoutKind::kAlias) return false;  // deleting its anchor would break it
    if (n.kind == LayoutKind::kBlockMap) {
      std::set<std::string> keys;
      for (std::uint32_t child : n.children) {
        if (!keys.insert(layout.node(child).key).second) return false;
      }
    }
  }
  return true;
}

// Counts and findings of a property sweep.
// Where two layouts differ, or empty: every node field and the line breaks.
std::string LayoutDifference(const Layout& a, const Layout& b) {
  if (a.text() != b.text()) return "texts differ";
  if (a.size() != b.size()) return std::to_string(a.size()) + " nodes, not " + std::to_string(b.size());
  if (a.eol() != b.eol()) return "line breaks differ";
  for (std::uint32_t i = 0; i < a.size(); ++i) {
    if (!(a.node(i) == b.node(i))) return "node " + std::to_string(i) + " differs";
  }
  return {};
}

struct Sweep {
  int documents = 0, checks = 0, refused = 0;
  int layouts_left = 0;  ///< deletes that left the layout of their result (EditOutcome::layout)
  std::vector<std::string> disagreements;
  std::uint32_t max_nodes = 150;  ///< per document: bounds the time spent on large files
  StepContext context;

  Sweep() {
    context.file_name = "sweep.yaml";
    context.load_fragment = [](const Step& step) {
      Result<std::string> result;
      result.value = step.value;  // the sweep passes the fragment text in `value`
      return result;
    };
  }

  // The layout a delete leaves is the one a new scan of its result gives.
  void CheckLayoutLeft(const std::string& where, const std::string& text, const Step& step) {
    YamlPath path;
    PathError unused;
    if (!ParseYamlPath(step.path, &path, &unused)) return;
    const EditOutcome outcome = DeletePath(text, path);
    if (!outcome.ok() || !outcome.layout) return;
    ++layouts_left;
    outcome.layout->Rebind(outcome.text);
    Layout scanned;
    LayoutError error;
    const std::string difference =
        scanned.Scan(outcome.text, &error) ? LayoutDifference(*outcome.layout, scanned) : "the result does not scan";
    if (!difference.empty() && disagreements.size() < 25) {
      disagreements.push_back(where + ": delete " + step.path + ": the layout left: " + difference);
    }
  }

  void Check(const std::string& where, std::string_view text, const Step& step) {
    ++checks;
    testing::OracleCheck result = testing::CheckAgainstTrees(text, {step}, context);
    if (result.agree && result.engine.ok()) return;
    // The engine may refuse what it cannot do without guessing; it may not
    // produce a different tree.
    if (!result.engine.ok() && !result.engine.diagnostics.empty() &&
        result.engine.diagnostics[0].message.find("not supported") != std::string::npos) {
      ++refused;
      return;
    }
    if (disagreements.size() < 25) {
      std::string why = result.report;
      if (!result.engine.diagnostics.empty()) why += " | " + result.engine.diagnostics[0].message;
      disagreements.push_back(where + ": " + StepWord(step) + " " + step.path + ": " + why);
    }
  }

  // Every node: delete it, set it (to one of several shapes), merge into it
  // (a new key, and a key that collides), append to it; plus a new root key.
  void Document(const std::string& where, const std::string& text) {
    Layout layout;
    LayoutError error;
    if (!layout.ScanChecked(text, &error) || !Sweepable(layout)) return;  // what yaml-cpp reads alike
    ++documents;
    static const std::vector<std::string> kValues = {
        "replaced", "k: |\n  two\n  lines\n", "- a\n- b: c\n", "{x: [1, 2]}", "\"quoted\"   # why",
        "|+\n  keep\n\n", "", ">-\n  folded\n", "# just a comment\nk: v\n"};
    for (std::uint32_t i = 1; i < layout.size() && i < max_nodes; ++i) {
      const LayoutNode& n = layout.node(i);
      const std::string path = PathTo(layout, i);
      Check(where, text, MakeStep(Step::Action::kDelete, path));
      CheckLayoutLeft(where, text, MakeStep(Step::Action::kDelete, path));
      Step set = MakeStep(Step::Action::kSet, path);
      set.value = kValues[(i + static_cast<std::uint32_t>(documents)) % kValues.size()];
      Check(where, text, set);
      if (n.kind == LayoutKind::kBlockMap) {
        Step merge = MakeStep(Step::Action::kMerge, path);
        merge.value = "added: 1\n# about nested\nnested:\n  deeper: |\n    text\n";
        Check(where, text, merge);
        merge.value = EmitKey(layout.node(n.children[0]).key) + ":\n  merged: |\n    text\n";
        Check(where, text, merge);
      }
      if (n.kind == LayoutKind::kBlockSeq) {
        Step append = MakeStep(Step::Action::kMerge, path);
        append.value = "- appended\n- k: v\n";
        append.append = true;
        Check(where, text, append);
      }
    }
    if (layout.IsMapping(0)) {
      Step add = MakeStep(Step::Action::kSet, ".sweep_added_key");
      add.value = "- x\n";
      Check(where, text, add);
    }
  }

  void Stream(const std::string& where, const std::string& stream) {
    for (const DocumentSpan& span : SplitDocuments(stream)) Document(where, stream.substr(span.begin, span.end - span.begin));
  }

  void Report(const std::string& name) {
    MESSAGE(name, ": ", documents, " documents, ", checks, " engine-versus-oracle checks, ", refused,
            " refused as unsupported, ", layouts_left, " layouts left by deletes, ", disagreements.size(),
            " disagreements");
    for (const std::string& d : disagreements) MESSAGE(d);
  }
};

std::string ReadFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

TEST_CASE("yaml edit: yaml-test-suite property sweep against the tree oracle") {
  const std::filesystem::path suite = safesubst::testing::YamlTestSuiteOrSkip();
  Sweep sweep;
  for (const auto& entry : std::filesystem::directory_iterator(suite)) {
    if (!entry.is_directory() || std::filesystem::exists(entry.path() / "error")) continue;
    sweep.Stream(entry.path().filename().string(), ReadFile(entry.path() / "in.yaml"));
  }
  sweep.Report("yaml-test-suite sweep");
  CHECK(sweep.documents > 120);
  CHECK(sweep.refused < 10);
  CHECK(sweep.disagreements.empty());
}

// The same over the Kubernetes YAML of this repository: examples and every
// test's data (templates with placeholders parse as YAML too).
TEST_CASE("yaml edit: repository YAML property sweep against the tree oracle") {
  const std::filesystem::path root(SAFESUBST_SOURCE_DIR);
  Sweep sweep;
  sweep.max_nodes = 40;
  for (const char* dir : {"examples", "tests"}) {
    if (!std::filesystem::exists(root / dir)) continue;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(root / dir)) {
      const std::string extension = entry.path().extension().string();
      if (!entry.is_regular_file() || (extension != ".yaml" && extension != ".yml")) continue;
      sweep.Stream(std::filesystem::relative(entry.path(), root).string(), ReadFile(entry.path()));
    }
  }
  sweep.Report("repository sweep");
  MESSAGE("engine-versus-oracle comparisons in this process so far: ", testing::OracleCheckCount());
  CHECK(sweep.documents >= 10);  // at least the seed and multi-document data of the steps tests
  CHECK(sweep.layouts_left > 1000);
  CHECK(sweep.disagreements.empty());
}

}  // namespace
}  // namespace safesubst::detail
