// SPDX-License-Identifier: Apache-2.0
// Tests of the token-level structure check: what it accepts, what it reports,
// when it hands over to CompareStructure, and a sweep showing that every
// structure change the yaml-cpp comparison finds in raw (unencoded) splices
// is also found by the token check.
#include "fast_invariant.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "invariant.h"
#include "safesubst/render.h"
#include "yaml_encoding.h"
#include "test_support.h"

namespace safesubst {
namespace {

// A template rendered by splicing `values[k]` for the k-th braced reference
// as is, without any encoding: the output an encoder bug would produce.
struct RawRender {
  std::string text;
  Tokens tokens;
  std::string output;
  std::vector<TemplateEdit> edits;
  std::vector<RewrittenScalar> rewritten;
  std::vector<std::string> values;  // storage for the ReferenceValue views
  std::vector<ReferenceValue> reference_values;  // storage for the RewrittenScalar views
};

// The references spliced: every `${NAME}`, and `$X` where braces would open a flow mapping.
bool IsPlaceholder(const Reference& reference) {
  return (reference.kind == RefKind::kBraced || (reference.kind == RefKind::kBare && reference.name == "X")) &&
         reference.scalar != Reference::kNoScalar;
}

std::size_t CountPlaceholders(const Tokens& tokens) {
  return static_cast<std::size_t>(std::count_if(tokens.references.begin(), tokens.references.end(), IsPlaceholder));
}

void Splice(RawRender* render, const std::vector<std::string>& values) {
  render->tokens = Tokenize(render->text);
  REQUIRE(render->tokens.diagnostics.empty());
  render->values = values;
  std::size_t cursor = 0, next = 0;
  std::vector<std::size_t> starts;  // of each rewritten scalar's values in reference_values
  for (const Reference& reference : render->tokens.references) {
    if (!IsPlaceholder(reference)) continue;
    REQUIRE(next < render->values.size());
    const std::string& value = render->values[next++];
    render->output.append(render->text, cursor, reference.offset - cursor);
    render->output += value;
    cursor = reference.offset + reference.length;
    render->edits.push_back({reference.offset, reference.length, value.size()});
    if (render->rewritten.empty() || render->rewritten.back().scalar != reference.scalar) {
      render->rewritten.push_back({reference.scalar, render->tokens.scalars[reference.scalar].style, {}});
      starts.push_back(render->reference_values.size());
    }
    render->reference_values.push_back({&reference, value});
  }
  starts.push_back(render->reference_values.size());
  for (std::size_t i = 0; i < render->rewritten.size(); ++i) {
    render->rewritten[i].values =
        std::span(render->reference_values).subspan(starts[i], starts[i + 1] - starts[i]);
  }
  render->output.append(render->text, cursor);
}

Result<std::vector<StructureDifference>> Check(const RawRender& render) {
  return CompareStructureByTokens(render.text, render.tokens, render.output, render.edits, render.rewritten,
                                  "t.yaml");
}

// True when the token check accepts the raw splice of `values` into `text`.
bool Accepts(std::string text, const std::vector<std::string>& values) {
  RawRender render;
  render.text = std::move(text);
  Splice(&render, values);
  Result<std::vector<StructureDifference>> result = Check(render);
  REQUIRE_MESSAGE((result.value || !result.diagnostics.empty()), ("the token check gave up: " + render.output));
  return result.value && result.value->empty();
}

// The one difference the token check reports for a raw splice.
StructureDifference Difference(std::string text, const std::vector<std::string>& values) {
  RawRender render;
  render.text = std::move(text);
  Splice(&render, values);
  Result<std::vector<StructureDifference>> result = Check(render);
  REQUIRE(result.value);
  REQUIRE(result.value->size() == 1);
  return result.value->front();
}

TEST_CASE("token invariant: values that keep the scalar are accepted") {
  CHECK(Accepts("a: ${X}\n", {"tenant-a"}));
  CHECK(Accepts("a: pre-${X}-post # comment\n", {"v1"}));
  CHECK(Accepts("a: \"${X}\"\n", {"with space and 'quote'"}));
  CHECK(Accepts("a: '${X}'\n", {"text \"double\""}));
  CHECK(Accepts("- [\"${X}\", b]\n- {k: '${Y}'}\n", {"one", "two"}));
  CHECK(Accepts("s: |\n  echo ${X}\n  done\n", {"hello world"}));
  CHECK(Accepts("---\na: ${X}\n---\nb: ${Y}\n...\n", {"1", "2"}));
  CHECK_FALSE(Accepts("a: ${X}\n", {""}));  // became null
}

TEST_CASE("token invariant: encoded values are compared by their decoded text") {
  RawRender render;
  render.text = "a: \"x${X}\"\n";
  render.tokens = Tokenize(render.text);
  const Reference& reference = render.tokens.references.at(0);
  render.output = "a: \"xq\\\"\\n\"\n";  // the encoder wrote q"<newline> as q\"\n
  render.edits = {{reference.offset, reference.length, 5}};
  std::vector<ReferenceValue> values = {{&reference, "q\"\n"}};
  render.rewritten = {{1, ScalarStyle::kDoubleQuoted, values}};
  Result<std::vector<StructureDifference>> result = Check(render);
  REQUIRE(result.value);
  CHECK(result.value->empty());

  values[0].value = "q\"";  // a different value than the output holds
  result = Check(render);
  REQUIRE(result.value);
  REQUIRE(result.value->size() == 1);
  CHECK(result.value->front().message.find("different value") != std::string::npos);
}

TEST_CASE("token invariant: requoted scalars and escapes") {
  RawRender render;
  render.text = "a: ${X}\nb: $${Y}\n";
  render.tokens = Tokenize(render.text);
  const Reference& x = render.tokens.references.at(0);
  const Reference& escape = render.tokens.references.at(1);
  REQUIRE(escape.kind == RefKind::kEscape);
  render.output = "a: \"1.10\"\nb: ${Y}\n";
  render.edits = {{render.tokens.scalars[1].offset, render.tokens.scalars[1].length, 6}, {escape.offset, 1, 0}};
  const std::vector<ReferenceValue> x_values = {{&x, "1.10"}}, escape_values = {{&escape, "${Y}"}};
  render.rewritten = {{1, ScalarStyle::kDoubleQuoted, x_values}, {3, ScalarStyle::kPlain, escape_values}};
  Result<std::vector<StructureDifference>> result = Check(render);
  REQUIRE(result.value);
  CHECK(result.value->empty());

  render.rewritten[0].style = ScalarStyle::kPlain;  // the render said it kept the style
  result = Check(render);
  REQUIRE(result.value);
  REQUIRE(result.value->size() == 1);
  CHECK(result.value->front().message == "was plain, became double-quoted");
}

TEST_CASE("token invariant: structure changes are reported at the template node") {
  StructureDifference comment = Difference("a: ${X}\nb: 1\n", {"x #y"});
  CHECK(comment.path == "a");
  CHECK(comment.template_line == 1);
  CHECK(comment.message.find("no longer reads as one scalar") != std::string::npos);

  StructureDifference flow = Difference("a: ${X}\nb: 1\n", {"[1, 2]"});
  CHECK(flow.path == "a");

  StructureDifference key = Difference("${X}: 1\n", {"k"});
  CHECK(key.message == "key changed: '${X}' became 'k'");

  StructureDifference null = Difference("a: ${X}\n", {"~"});
  CHECK(null.message.find("became null") != std::string::npos);

  StructureDifference block = Difference("s: |\n  echo ${X}\n  done\nt: 1\n", {"a\nb: 2"});
  CHECK(block.path == "s");
}

TEST_CASE("token invariant: output that does not tokenize is an error in the rendered output") {
  RawRender render;
  render.text = "a: \"${X}\"\n";
  Splice(&render, {"\""});
  Result<std::vector<StructureDifference>> result = Check(render);
  CHECK_FALSE(result.value);
  REQUIRE_FALSE(result.diagnostics.empty());
  CHECK(result.diagnostics[0].message.rfind("rendered output is not valid YAML", 0) == 0);
  CHECK(result.diagnostics[0].location.file == "t.yaml (rendered output)");
}

TEST_CASE("token invariant: edits it cannot place hand over to the tree comparison") {
  RawRender render;
  render.text = "a: 1 # ${X}\n";
  render.tokens = Tokenize(render.text);
  render.output = "a: 1 # y\n";
  render.edits = {{7, 4, 1}};  // inside the comment, which holds no scalar
  Result<std::vector<StructureDifference>> result = Check(render);
  CHECK_FALSE(result.value);
  CHECK(result.diagnostics.empty());
}

// The shortcut: true when the raw splice of `values` is proved harmless without tokenizing the output.
bool Proved(std::string text, const std::vector<std::string>& values) {
  RawRender render;
  render.text = std::move(text);
  Splice(&render, values);
  return EditsProvablyKeepStructure(render.text, render.tokens, render.output, render.edits, render.rewritten);
}

TEST_CASE("structure proof: the usual deploy values need no second tokenizer pass") {
  const std::string text =
      "metadata:\n  name: ${X}-app\n  labels: {tenant: \"${X}\", zone: '${X}'}\n"
      "spec:\n  image: registry.example.com/app:${X}\n  args:\n    - |\n      EFS=\"${X}\"  # ip\n"
      "      echo \"$NODE_IP ${X}\" >> /etc/hosts\n";
  for (const char* value : {"tenant-a", "10.0.1.5", "v1.2.3", "efs.example.com", "app_1", "repo/app:1.2", "8080"}) {
    CAPTURE(value);
    CHECK(Proved(text, std::vector<std::string>(6, value)));
  }
}

TEST_CASE("structure proof: refuses every value that could end, open or retype a scalar") {
  struct Case {
    const char* text;
    const char* value;
  };
  for (const Case& c : std::vector<Case>{
           {"a: ${X}\n", "b: c"},        {"a: ${X}\n", "x #c"},       {"a: ${X}\n", ""},
           {"a: ${X}\n", "-x"},          {"a: ${X}\n", "*x"},         {"a: ${X}\n", "null"},
           {"a: ${X}\n", "b:"},          {"a: [$X]\n", "b:c"},        {"a: [$X]\n", "b,c"},
           {"a: ${X}\n", "a b"},         {"a: ${X}\n", "caf\xc3\xa9"}, {"a: \"${X}\"\n", "x\"y"},
           {"a: \"${X}\"\n", "x\\n"}, {"a: '${X}'\n", "it's"},       {"a: \"${X}\"\n", "a\tb"},
           {"a: |\n  ${X}\n", "x"},     {"a: |\n  t ${X}\n", "x\ny"}, {"${X}: v\n", "k"},
           {"-${X}\n", "-- x"},          {"a: b${X}\n", ": c"},       {"a: \"x\n  ${X}\"\n", "y"},
       }) {
    const std::string text = c.text, value = c.value;
    CAPTURE(text);
    CAPTURE(value);
    RawRender render;
    render.text = c.text;
    render.tokens = Tokenize(render.text);
    const std::size_t placeholders = CountPlaceholders(render.tokens);
    CHECK_FALSE(Proved(c.text, std::vector<std::string>(placeholders, c.value)));
  }
}

TEST_CASE("structure proof: a value inside a complex key changes the key, so it is not proved") {
  for (const std::string text : {"? - ${X}\n: v\n", "[$X]: v\n", "{a: $X}: v\n", "k:\n  ? [a, $X]\n  : v\n"}) {
    CAPTURE(text);
    CHECK_FALSE(Proved(text, {"v"}));
  }
  CHECK(Proved("k: [$X]\n", {"v"}));  // a flow sequence as a value is no key
}

// The renderer's fallback for a value that cannot stay in a plain or
// single-quoted scalar: the whole scalar written double-quoted. `body`
// replaces the encoded text between the quotes when given (a broken encoder).
RawRender RequoteAll(const std::string& text, const std::string& value, const std::string* body = nullptr) {
  RawRender render;
  render.text = text;
  Splice(&render, std::vector<std::string>(CountPlaceholders(Tokenize(text)), value));
  render.output.clear();
  render.edits.clear();
  std::size_t cursor = 0;
  for (RewrittenScalar& rewrite : render.rewritten) {
    const Scalar& scalar = render.tokens.scalars[rewrite.scalar];
    std::string expected;
    REQUIRE(ExpectedScalarValue(text, scalar, rewrite.values, &expected));
    const std::string quoted = body ? "\"" + *body + "\"" : DoubleQuoted(expected);
    render.output += text.substr(cursor, scalar.offset - cursor) + quoted;
    cursor = scalar.offset + scalar.length;
    render.edits.push_back({scalar.offset, scalar.length, quoted.size()});
    rewrite.style = ScalarStyle::kDoubleQuoted;
  }
  render.output += text.substr(cursor);
  return render;
}

bool Proved(const RawRender& render) {
  return EditsProvablyKeepStructure(render.text, render.tokens, render.output, render.edits, render.rewritten);
}

TEST_CASE("structure proof: a scalar rewritten double-quoted is proved by reading its new text") {
  const std::vector<std::string> templates = {"a: ${X}\n",         "a: x ${X} y # c\nb: 1\n", "- '${X}'\n- 'it''s ${X}'\n",
                                              "k: [$X, b]\n",      "m: {a: $X}\n",            "a: x\n  ${X}\n  y\nb: 2\n",
                                              "---\n${X}\n---\n"};
  const std::vector<std::string> values = {"1.10", "a: b", "x\"y", "t\tb", "two\nlines", "caf\xc3\xa9", "\xe2\x80\xa8",
                                           "#c",   "-",    "",      "\\",   "null",       "[1]",          "' '"};
  for (const std::string& text : templates) {
    for (const std::string& value : values) {
      CAPTURE(text);
      CAPTURE(value);
      const RawRender render = RequoteAll(text, value);
      CAPTURE(render.output);
      REQUIRE(Proved(render));
      // What the proof stands for: yaml-cpp sees the same tree, and the
      // tokenizer reads each rewritten scalar back as the expected value.
      Result<std::vector<StructureDifference>> tree = CompareStructure(text, render.output, {}, "t.yaml");
      CHECK((tree.value && tree.value->empty()));
      const Tokens after = Tokenize(render.output);
      REQUIRE(after.diagnostics.empty());
      REQUIRE(after.scalars.size() == render.tokens.scalars.size());
      for (const RewrittenScalar& rewrite : render.rewritten) {
        std::string expected;
        REQUIRE(ExpectedScalarValue(text, render.tokens.scalars[rewrite.scalar], rewrite.values, &expected));
        CHECK(DecodeScalar(render.output, after.scalars[rewrite.scalar]) == expected);
      }
    }
  }
}

TEST_CASE("structure proof: a double-quoted rewrite that reads differently is not proved") {
  for (const std::string body : {"v\"x", "v\nw", "\\q", "\\x4", "\\u00e", "w", "v\\", "v\x7f"}) {
    CAPTURE(body);
    CHECK_FALSE(Proved(RequoteAll("a: ${X}\nb: 1\n", "v", &body)));
  }
  CHECK(Proved(RequoteAll("a: ${X}\nb: 1\n", "v")));
}

TEST_CASE("structure proof: any byte changed outside the rewritten scalars is noticed") {
  const std::string text = "a: \"${X}\"  # c\nb: x${X}\n";
  RawRender render;
  render.text = text;
  Splice(&render, {"v", "v"});
  REQUIRE(EditsProvablyKeepStructure(render.text, render.tokens, render.output, render.edits, render.rewritten));
  const std::string spliced = render.output;
  for (std::size_t i = 0; i < spliced.size(); ++i) {
    CAPTURE(i);
    render.output = spliced;
    render.output[i] = render.output[i] == 'q' ? 'r' : 'q';
    CHECK_FALSE(EditsProvablyKeepStructure(render.text, render.tokens, render.output, render.edits, render.rewritten));
  }
}

// An independent oracle for the shortcut: whenever it says the structure is
// kept, yaml-cpp sees the same tree and the tokenizer the same scalars, with
// the same styles, over every short value of an alphabet rich in indicators.
TEST_CASE("structure proof: never vouches for a splice yaml-cpp or the tokenizer sees differently") {
  const std::vector<std::string> templates = {
      "a: ${X}\nb: [\"${X}\", c]\nd: {e: '${X}'}\n",
      "- name: ${X}\n  value: \"${X}\"\n- '${X}'\n",
      "k: pre ${X} post\nm: ${X}:x\nn: x${X}\n",
      "s: |\n  echo ${X}\n  done\nf: >-\n  folded ${X}\n  text\nt: end\n",
      "---\nx: ${X}\n---\n- ${X}\n",
      "${X}\n",
      "-${X}\n",
      "p: [a$X, {q: $X}]\n",
  };
  const std::string alphabet = "a1_.-:/ #\"'\\,[]{}*&!|>?%@=$~\t\n";
  std::vector<std::string> values = {"", "null", "~", "--", "..", "- x", "a: b", "1:2", "x:", "http://h/p"};
  for (char c : alphabet) {
    values.emplace_back(1, c);
    for (char d : alphabet) values.push_back(std::string{c, d});
  }
  int proved = 0;
  for (const std::string& text : templates) {
    for (const std::string& value : values) {
      RawRender render;
      render.text = text;
      render.tokens = Tokenize(text);
      const std::size_t placeholders = CountPlaceholders(render.tokens);
      Splice(&render, std::vector<std::string>(placeholders, value));
      if (!EditsProvablyKeepStructure(render.text, render.tokens, render.output, render.edits, render.rewritten)) {
        continue;
      }
      ++proved;
      CAPTURE(render.output);
      Result<std::vector<StructureDifference>> tree = CompareStructure(text, render.output, {}, "t.yaml");
      CHECK((tree.value && tree.value->empty()));
      const Tokens after = Tokenize(render.output);
      REQUIRE(after.scalars.size() == render.tokens.scalars.size());
      for (std::size_t i = 0; i < after.scalars.size(); ++i) {
        CHECK(after.scalars[i].style == render.tokens.scalars[i].style);
        CHECK(after.scalars[i].is_key == render.tokens.scalars[i].is_key);
      }
    }
  }
  MESSAGE(proved << " of " << templates.size() * values.size() << " raw splices proved without a second pass");
  CHECK(proved > 500);
}

// Every value below, spliced raw into every placeholder of every template,
// gives an output; wherever yaml-cpp sees a different structure (or no YAML),
// the token check must not accept it.
TEST_CASE("token invariant: finds every structure change the yaml-cpp comparison finds (raw splices)") {
  const std::vector<std::string> templates = {
      "a: ${X}\nb: [\"${X}\", c]\nd: {e: '${X}'}\n",
      "- name: ${X}\n  value: \"${X}\"\n- '${X}'\n",
      "k-${X}: v\nm:\n  n: pre ${X} post\n",
      "s: |\n  echo ${X}\n  done\nf: >-\n  folded ${X}\n  text\nt: end\n",
      "---\nx: ${X}\n---\n- ${X}\n",
      "args:\n  - |\n    A=\"${X}\"\n    B=$NODE_IP\n  - plain ${X}\n",
      "q: \"multi ${X}\n  line\"\nr: plain\n  ${X} continued\n",
  };
  const std::vector<std::string> values = {
      "",        "plain",   "~",       "null",   "a: b",    "a:b",     "x #c",    "#c",    "[1, 2]", "{k: v}",
      "1, 2",    "]",       "}",       "*alias", "&anchor", "!tag x",  "- item",  "- ",    "? k",    "|",
      ">",       "\"",      "'",       "''",     "\\",      "\\\"",    "\n",      "a\nb",  "a\n b",  "a\nb: c",
      "\n---\n", "\n...\n", "x\n  - y", "%YAML", "@x",      "`x`",     " lead",   "trail ", "\t",    "a\tb",
      "a\n\nb",  "a\n#c",   "1.10",    "on",     "0x1F",    "${Y}",    "$X",      ",",     "a, b",   "a]b"};
  int yaml_found = 0, both_found = 0, only_tokens = 0, cases = 0;
  for (const std::string& text : templates) {
    for (const std::string& value : values) {
      RawRender render;
      render.text = text;
      render.tokens = Tokenize(text);
      const std::size_t placeholders = CountPlaceholders(render.tokens);
      Splice(&render, std::vector<std::string>(placeholders, value));
      Result<std::vector<StructureDifference>> tree = CompareStructure(text, render.output, {}, "t.yaml");
      Result<std::vector<StructureDifference>> tokens = Check(render);
      REQUIRE_MESSAGE((tokens.value || !tokens.diagnostics.empty()), render.output);
      const bool tree_found = !tree.value || !tree.value->empty();
      const bool tokens_found = !tokens.value || !tokens.value->empty();
      ++cases;
      yaml_found += tree_found;
      both_found += tree_found && tokens_found;
      only_tokens += !tree_found && tokens_found;
      CHECK_MESSAGE((tokens_found || !tree_found), ("missed by the token check:\n" + render.output));
    }
  }
  MESSAGE(cases << " raw splices; yaml-cpp finds " << yaml_found << ", the token check " << both_found
                << " of those and " << only_tokens << " more (style, value, or output yaml-cpp accepts)");
  CHECK(yaml_found > 100);
}

// Real renders: the token check and the yaml-cpp comparison agree on every
// template of the repository's Kubernetes examples.
TEST_CASE("token invariant: agrees with the full check on rendered Kubernetes examples") {
  Manifest manifest;
  manifest.mode = DeclarationMode::kEnvironment;
  ValueSet values;
  for (const char* name : {"TENANT_ID", "APP", "IMAGE_TAG", "EFS_IP_2A", "EFS_IP_2C", "EFS_HOSTNAME", "NAMESPACE"}) {
    values.Set(name, Value{"v\"al: #x", ValueSource::kCommandLine, {}});
  }
  int rendered = 0;
  for (const auto& entry : std::filesystem::directory_iterator(SAFESUBST_SOURCE_DIR "/tests/data/k8s")) {
    const std::string text = testing::ReadFile(entry.path());
    RenderOptions fast, full;
    fast.full_structure_check = false;
    full.full_structure_check = true;
    fast.file_name = full.file_name = entry.path().filename().string();
    RenderResult a = Render(text, manifest, values, fast);
    RenderResult b = Render(text, manifest, values, full);
    CHECK_MESSAGE(a.ok() == b.ok(), entry.path().string());
    CHECK(a.output == b.output);
    rendered += a.ok();
  }
  CHECK(rendered > 0);
}

}  // namespace
}  // namespace safesubst
