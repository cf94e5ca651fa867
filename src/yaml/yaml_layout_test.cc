// SPDX-License-Identifier: Apache-2.0
#include "yaml_layout.h"

#include <doctest/doctest.h>

#include "test_support.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace safesubst::detail {
namespace {

Layout MustScan(std::string_view text) {
  Layout layout;
  LayoutError error;
  bool ok = layout.Scan(text, &error);
  INFO("error at ", error.offset, ": ", error.message);
  REQUIRE(ok);
  return layout;
}

std::string_view Span(const Layout& layout, std::uint32_t index) {
  const LayoutNode& n = layout.node(index);
  return layout.text().substr(n.begin, n.end - n.begin);
}

std::string_view Lines(const Layout& layout, std::size_t begin, std::size_t end) {
  return layout.text().substr(begin, end - begin);
}

constexpr std::string_view kDeployment =
    "apiVersion: apps/v1\n"
    "kind: Deployment\n"
    "metadata:\n"
    "  name: web # the app\n"
    "spec:\n"
    "  template:\n"
    "    spec:\n"
    "      # pin the EFS mount target\n"
    "      hostAliases:\n"
    "        - ip: \"10.0.1.10\"\n"
    "          hostnames: [fs-1.efs.example.com]\n"
    "        # more later\n"
    "      containers:\n"
    "      - name: app\n"
    "        args:\n"
    "          - |\n"
    "            echo \"$NODE_IP\"\n"
    "\n"
    "            # still the script\n"
    "        env: []\n";

TEST_CASE("yaml layout: block structure of a Deployment") {
  Layout layout = MustScan(kDeployment);
  const LayoutNode& root = layout.root();
  REQUIRE(root.kind == LayoutKind::kBlockMap);
  REQUIRE(root.children.size() == 4);
  CHECK(layout.node(root.children[1]).key == "kind");
  CHECK(Span(layout, root.children[1]) == "Deployment");

  std::uint32_t metadata = layout.FindKey(0, "metadata");
  std::uint32_t name = layout.FindKey(metadata, "name");
  CHECK(Span(layout, name) == "web");
  CHECK(layout.node(metadata).column == 2);
  CHECK(Lines(layout, layout.node(name).slot, layout.LastLineEnd(name)) == " web # the app");

  std::uint32_t pod = layout.FindKey(layout.FindKey(layout.FindKey(0, "spec"), "template"), "spec");
  REQUIRE(pod != kNoNode);
  std::uint32_t aliases = layout.FindKey(pod, "hostAliases");
  REQUIRE(aliases != kNoNode);
  CHECK(layout.node(aliases).kind == LayoutKind::kBlockSeq);
  CHECK(layout.node(aliases).column == 8);
  // The comment above the key and the deeper comment after the value belong to the entry.
  CHECK(Lines(layout, layout.ExtentStart(aliases), layout.ExtentEnd(aliases)) ==
        "      # pin the EFS mount target\n"
        "      hostAliases:\n"
        "        - ip: \"10.0.1.10\"\n"
        "          hostnames: [fs-1.efs.example.com]\n"
        "        # more later");

  std::uint32_t containers = layout.FindKey(pod, "containers");
  REQUIRE(layout.node(containers).kind == LayoutKind::kBlockSeq);
  CHECK(layout.node(containers).column == 6);  // compact: dashes at the key's column
  std::uint32_t app = layout.node(containers).children[0];
  CHECK(layout.node(app).kind == LayoutKind::kBlockMap);
  CHECK(layout.node(app).column == 8);
  CHECK(layout.ExtentStart(app) == layout.LineStart(layout.node(app).entry));
  std::uint32_t args = layout.FindKey(app, "args");
  std::uint32_t script = layout.node(args).children[0];
  CHECK(layout.node(script).kind == LayoutKind::kBlockScalar);
  CHECK(Span(layout, script) == "|\n            echo \"$NODE_IP\"\n\n            # still the script");
  CHECK(layout.Yaml(script).Scalar() == "echo \"$NODE_IP\"\n\n# still the script\n");
  std::uint32_t env = layout.FindKey(app, "env");
  CHECK(layout.node(env).kind == LayoutKind::kFlowSeq);
  CHECK(layout.IsEmptyFlow(env));
}

TEST_CASE("yaml layout: scalars, empty values, properties") {
  Layout layout = MustScan(
      "a:\n"
      "b: ~\n"
      "c: 'it''s'  # note\n"
      "d: \"x\\ty\"\n"
      "e: plain text\n"
      "  continued here\n"
      "f: &anchor !!str tagged\n"
      "g: *anchor\n"
      "\"h.i\": {x: [1, '2]'], y: \"}\"}\n"
      "j: >-\n"
      "  folded\n"
      "  text\n");
  const LayoutNode& root = layout.root();
  REQUIRE(root.children.size() == 9);
  std::uint32_t a = root.children[0];
  CHECK(layout.node(a).kind == LayoutKind::kEmpty);
  CHECK(layout.IsNull(a));
  CHECK(layout.IsNull(root.children[1]));
  CHECK(Span(layout, root.children[2]) == "'it''s'");
  CHECK(layout.Yaml(root.children[2]).Scalar() == "it's");
  CHECK(Span(layout, root.children[3]) == "\"x\\ty\"");
  CHECK(Span(layout, root.children[4]) == "plain text\n  continued here");
  CHECK(layout.Yaml(root.children[4]).Scalar() == "plain text continued here");
  const LayoutNode& f = layout.node(root.children[5]);
  CHECK(Span(layout, root.children[5]) == "&anchor !!str tagged");
  CHECK(layout.text().substr(f.content, f.end - f.content) == "tagged");
  CHECK(layout.node(root.children[6]).kind == LayoutKind::kAlias);
  CHECK(layout.node(root.children[7]).key == "h.i");
  CHECK(layout.node(root.children[7]).kind == LayoutKind::kFlowMap);
  CHECK(Span(layout, root.children[7]) == "{x: [1, '2]'], y: \"}\"}");
  CHECK(layout.node(root.children[8]).kind == LayoutKind::kBlockScalar);
  CHECK(layout.Yaml(root.children[8]).Scalar() == "folded text");
}

TEST_CASE("yaml layout: nested sequences and maps in sequence items") {
  Layout layout = MustScan(
      "- - a\n"
      "  - b\n"
      "- name: x\n"
      "  items:\n"
      "  - 1\n"
      "  - 2\n"
      "  other: y\n"
      "-\n"
      "  k: v\n"
      "-\n");
  const LayoutNode& root = layout.root();
  REQUIRE(root.kind == LayoutKind::kBlockSeq);
  REQUIRE(root.children.size() == 4);
  CHECK(layout.node(root.children[0]).kind == LayoutKind::kBlockSeq);
  CHECK(layout.node(root.children[0]).children.size() == 2);
  std::uint32_t second = root.children[1];
  CHECK(layout.node(second).kind == LayoutKind::kBlockMap);
  CHECK(layout.node(second).children.size() == 3);
  CHECK(layout.node(layout.FindKey(second, "items")).children.size() == 2);
  CHECK(layout.node(root.children[2]).kind == LayoutKind::kBlockMap);
  CHECK(layout.node(root.children[3]).kind == LayoutKind::kEmpty);
}

TEST_CASE("yaml layout: CRLF line breaks") {
  Layout layout = MustScan("a: 1\r\nb:\r\n  - x\r\n  - y\r\n");
  CHECK(layout.eol() == "\r\n");
  std::uint32_t b = layout.FindKey(0, "b");
  CHECK(layout.node(b).children.size() == 2);
  CHECK(Span(layout, layout.node(b).children[1]) == "y");
  CHECK(layout.LineEnd(0) == 4);
}

TEST_CASE("yaml layout: quoted keys are decoded as the tokenizer decodes scalars") {
  Layout layout = MustScan("\"a\\x41\\u00e9\\t\\\"\": 1\n'it''s': 2\nplain key: 3\n\"\": 4\n");
  REQUIRE(layout.root().children.size() == 4);
  CHECK(layout.node(layout.root().children[0]).key == "aA\u00e9\t\"");
  CHECK(layout.node(layout.root().children[1]).key == "it's");
  CHECK(layout.node(layout.root().children[2]).key == "plain key");
  CHECK(layout.node(layout.root().children[3]).key.empty());
  std::string key;
  CHECK_FALSE(DecodeKeyText("\"unterminated", &key));
  CHECK_FALSE(DecodeKeyText("'", &key));
}

TEST_CASE("yaml layout: document markers and comments around the root") {
  Layout layout = MustScan("# header\n--- # first\na: 1\n...\n# trailer\n");
  CHECK(layout.root().kind == LayoutKind::kBlockMap);
  CHECK(layout.root().children.size() == 1);
  Layout empty = MustScan("# only a comment\n");
  CHECK(empty.empty());
}

TEST_CASE("yaml layout: unsupported and invalid input is an error, not a guess") {
  Layout layout;
  LayoutError error;
  CHECK_FALSE(layout.Scan("? complex\n: key\n", &error));
  CHECK(error.message.find("explicit") != std::string::npos);
  CHECK_FALSE(layout.Scan("a: b: c\n", &error));
  CHECK(error.message.find("not valid YAML") != std::string::npos);
  CHECK_FALSE(layout.Scan("a: 1\n---\nb: 2\n", &error));
  CHECK(error.message.find("one YAML document") != std::string::npos);
  CHECK_FALSE(layout.Scan("[a, b]: c\n", &error));
}

// Scan plans from the tokenizer's reading alone: what only yaml-cpp refuses
// (here valid YAML it misreads: a block scalar's lines not indented past its
// anchor) is laid out, and yaml-cpp's verdict comes when something asks for
// its tree; ScanChecked parses up front, as every scan did before. An alias
// to no anchor, which the tokenizer does not check, goes to ScanChecked.
TEST_CASE("yaml layout: Scan reads without yaml-cpp, ScanChecked and Yaml() bring its verdict") {
  constexpr std::string_view misread = "a:\n- &x |-\n  text\nb: [1, 2]\n";
  Layout layout;
  LayoutError error;
  REQUIRE(layout.Scan(misread, &error));
  CHECK(layout.FindKey(0, "b") != kNoNode);
  CHECK_THROWS_AS((void)layout.Yaml(layout.FindKey(0, "b")), LayoutUnreadable);
  CHECK_FALSE(layout.ScanChecked(misread, &error));
  CHECK(error.message.find("not valid YAML") != std::string::npos);
  CHECK_FALSE(layout.Scan("a: *nowhere\nb: 1\n", &error));
  CHECK(error.message == "not valid YAML: the referenced anchor is not defined");
  CHECK(layout.Scan("a: &here 1\nb: *here\n", &error));

  // The flow sequence's items are yaml-cpp's reading, parsed on first use.
  REQUIRE(layout.Scan("a: x\nb: [1, 2]\n", &error));
  CHECK(layout.ItemCount(layout.FindKey(0, "b")) == 2);
}

// A plain null key is no string key for yaml-cpp: such a document goes to the
// cross-checked scan, whose verdict (an error) stays the one it was.
TEST_CASE("yaml layout: null keys are left to the cross-checked scan") {
  for (std::string_view text : {"~: a\nb: 1\n", "null: a\n", ": a\nb: 1\n"}) {
    INFO(text);
    Layout own, checked;
    LayoutError own_error, checked_error;
    CHECK(own.Scan(text, &own_error) == checked.ScanChecked(text, &checked_error));
    CHECK(own_error.message == checked_error.message);
    CHECK(own.size() == checked.size());
  }
  Layout layout;
  LayoutError error;
  CHECK_FALSE(layout.Scan("~: a\nb: 1\n", &error));
  CHECK(error.message == "only scalar mapping keys are supported");
}

// The tokenizer skips a BOM (the layout scanner before it read one as part of
// the first key, and the cross-check refused the document).
TEST_CASE("yaml layout: a document saved with a BOM is laid out") {
  Layout layout = MustScan("\xEF\xBB\xBF# saved on Windows\r\napiVersion: v1\r\nkind: Secret\r\n");
  REQUIRE(layout.root().children.size() == 2);
  CHECK(layout.node(layout.root().children[0]).key == "apiVersion");
  CHECK(layout.eol() == "\r\n");
  LayoutError error;
  CHECK(layout.ScanChecked("\xEF\xBB\xBF# saved on Windows\r\napiVersion: v1\r\nkind: Secret\r\n", &error));
}

TEST_CASE("yaml layout: splitting a stream into documents") {
  constexpr std::string_view stream =
      "# leading comment\n"
      "---\n"
      "kind: A\n"
      "---\n"
      "kind: B\n"
      "...\n"
      "kind: C\n"
      "---\n";
  std::vector<DocumentSpan> docs = SplitDocuments(stream);
  REQUIRE(docs.size() == 4);
  CHECK(stream.substr(docs[0].begin, docs[0].end - docs[0].begin) == "# leading comment\n---\nkind: A\n");
  CHECK(stream.substr(docs[1].begin, docs[1].end - docs[1].begin) == "---\nkind: B\n...\n");
  CHECK(stream.substr(docs[2].begin, docs[2].end - docs[2].begin) == "kind: C\n");
  CHECK(stream.substr(docs[3].begin, docs[3].end - docs[3].begin) == "---\n");
  CHECK(docs[0].has_content);
  CHECK_FALSE(docs[3].has_content);
  std::size_t covered = 0;
  for (const DocumentSpan& d : docs) {
    CHECK(d.begin == covered);
    covered = d.end;
  }
  CHECK(covered == stream.size());
  CHECK(SplitDocuments("").size() == 1);
  CHECK(SplitDocuments("a: 1").size() == 1);
}

// What the layout answers from its own reading (Scan plans edits with no
// yaml-cpp tree) must be what yaml-cpp's tree of the same node says.
void CheckOwnReadingAgrees(const Layout& checked, const std::string& name) {
  Layout own;
  LayoutError error;
  REQUIRE(own.Scan(checked.text(), &error));
  REQUIRE(own.size() == checked.size());
  for (std::uint32_t i = 0; i < own.size(); ++i) {
    INFO(name, ": node ", i, " `", Span(own, i), "`");
    const YamlRef yaml = checked.Yaml(i);
    const std::size_t size = yaml.Items().size() + yaml.Entries().size();
    CHECK(own.IsNull(i) == (own.node(i).kind == LayoutKind::kEmpty || (own.node(i).kind == LayoutKind::kScalar && yaml.IsNull())));
    if (own.IsMapping(i) || own.IsSequence(i)) {
      CHECK(own.IsEmptyFlow(i) == (own.node(i).kind != LayoutKind::kBlockMap && own.node(i).kind != LayoutKind::kBlockSeq &&
                                   size == 0));
      CHECK(own.ItemCount(i) == size);
    }
    if (own.node(i).kind != LayoutKind::kBlockMap || !yaml.IsMap()) continue;
    for (std::uint32_t child : own.node(i).children) {
      const std::optional<YamlRef> field = yaml.Find(own.node(child).key);
      const std::string value = field && field->IsScalar() ? field->Scalar() : "(not a scalar)";
      CHECK(own.HasScalarField(i, own.node(child).key, value) == (field && field->IsScalar()));
      CHECK_FALSE(own.HasScalarField(i, own.node(child).key, value + "~"));
    }
  }
}

// The scanner over every valid case of the YAML test suite: each document is
// either laid out in agreement with yaml-cpp, or refused as unsupported; a
// disagreement would be reported by ScanChecked as "disagree"/"different kind".
// Where it is laid out, the scanner's own answers agree with yaml-cpp's tree.
TEST_CASE("yaml layout: yaml-test-suite sweep") {
  const std::filesystem::path suite = safesubst::testing::YamlTestSuiteOrSkip();
  int laid_out = 0, refused = 0, invalid_for_yamlcpp = 0, disagreements = 0;
  std::vector<std::string> disagreeing;
  for (const auto& entry : std::filesystem::directory_iterator(suite)) {
    if (!entry.is_directory() || std::filesystem::exists(entry.path() / "error")) continue;
    std::ifstream in(entry.path() / "in.yaml", std::ios::binary);
    if (!in) continue;
    std::stringstream buffer;
    buffer << in.rdbuf();
    const std::string stream = buffer.str();
    for (const DocumentSpan& doc : SplitDocuments(stream)) {
      std::string_view text = std::string_view(stream).substr(doc.begin, doc.end - doc.begin);
      Layout layout;
      LayoutError error;
      if (layout.ScanChecked(text, &error)) {
        ++laid_out;
        CheckOwnReadingAgrees(layout, entry.path().filename().string());
      } else if (error.message.find("not valid YAML") != std::string::npos ||
                 error.message.find("one YAML document") != std::string::npos) {
        ++invalid_for_yamlcpp;
      } else if (Layout own; own.Scan(text, &error)) {
        FAIL(entry.path().filename().string(), ": Scan alone accepts what the cross-check refuses");
      } else if (error.message.find("disagree") != std::string::npos ||
                 error.message.find("different kind") != std::string::npos ||
                 error.message.find("the scanner read key") != std::string::npos) {
        ++disagreements;
        disagreeing.push_back(entry.path().filename().string() + ": " + error.message);
      } else {
        ++refused;
        if (getenv("SWEEP_VERBOSE")) MESSAGE(entry.path().filename().string(), ": ", error.message);
      }
    }
  }
  MESSAGE("yaml-test-suite documents: laid out ", laid_out, ", refused as unsupported ", refused,
          ", rejected by yaml-cpp ", invalid_for_yamlcpp, ", disagreements ", disagreements);
  for (const std::string& d : disagreeing) MESSAGE(d);
  CHECK(laid_out > 150);
}

}  // namespace
}  // namespace safesubst::detail
