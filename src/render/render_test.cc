// SPDX-License-Identifier: Apache-2.0
// Library-level tests of Render for the cases fuzzing found; the everyday
// behaviour is covered end to end by the golden CLI cases (tests/golden).
#include "safesubst/render.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "safesubst/manifest.h"
#include "safesubst/values.h"
#include "alias_bomb.h"
#include "test_support.h"
#include "tokenizer.h"
#include "yaml_load.h"
#include "yaml_tree.h"

namespace safesubst {
namespace {

Manifest MustParse(std::string_view text) {
  Result<Manifest> parsed = ParseManifest(text, "m.yaml");
  REQUIRE_MESSAGE(parsed.ok(), (parsed.diagnostics.empty() ? "" : parsed.diagnostics[0].message));
  return *parsed.value;
}

ValueSet ValuesOf(std::initializer_list<std::pair<const char*, const char*>> pairs) {
  ValueSet values;
  for (const auto& [name, text] : pairs) values.Set(name, Value{text, ValueSource::kCommandLine, Location{"--set"}});
  return values;
}

RenderResult RenderText(std::string_view text, const Manifest& manifest, const ValueSet& values) {
  RenderOptions options;
  options.file_name = "t.yaml";
  return Render(text, manifest, values, options);
}

// The single scalar of a one-document stream, as yaml-cpp reads the output.
bool ReadsAsOneScalar(const std::string& output, std::string* text) {
  detail::YamlStream stream;
  detail::YamlParseError error;
  if (!detail::ParseYamlStream(output, &stream, &error) || stream.documents.size() != 1) return false;
  const detail::YamlNode& root = stream.nodes[stream.documents[0]];
  *text = root.text;
  return root.kind == detail::YamlNode::Kind::kScalar;
}

}  // namespace

TEST_CASE("render: a value in a block scalar whose content is at column 0 is written double-quoted") {
  Manifest manifest = MustParse("variables:\n  S: string\n");
  for (const char* header : {"--- >\n", "--- |\n"}) {
    CAPTURE(header);
    RenderResult result = RenderText(std::string(header) + "foo ${S}\n", manifest, ValuesOf({{"S", "a: b"}}));
    REQUIRE(result.ok());
    std::string text;
    CHECK_MESSAGE(ReadsAsOneScalar(result.output, &text), result.output);
    CHECK(text == "foo a: b\n");
  }
  // Indented content keeps its block style.
  RenderResult indented = RenderText("key: |\n  foo ${S}\n", manifest, ValuesOf({{"S", "a: b"}}));
  REQUIRE(indented.ok());
  CHECK(indented.output == "key: |\n  foo a: b\n");
}

TEST_CASE("render: an empty value alone on a block scalar's line leaves no line of spaces, in both checks") {
  // Attacker A19: `--set EXTRA=` on the only line of a `|-` block was refused by the default check
  // and written as a line of spaces with --full-check. Each template with the value it must read as.
  const Manifest manifest = MustParse("variables:\n  V: string\n");
  const std::pair<const char*, const char*> cases[] = {
      {"z: |\n  ${V}\n  b\n", R"({"z": "\nb\n"})"},  // the line is left empty
      {"z: |\n  a\n  ${V}\n  ${V}\n  b\n", R"({"z": "a\n\n\nb\n"})"},
      // A last line is requoted: its line break is the value's, and libfyaml reads an empty block
      // followed by a line at its parent's indentation as that line.
      {"z: |-\n  ${V}\ny: 1\n", R"({"y": 1, "z": ""})"},
      {"a:\n  z: >-\n    ${V}\n  b: 1\n", R"({"a": {"b": 1, "z": ""}})"},
      {"z: |-\n  a\n  ${V}\n", R"({"z": "a\n"})"},
      {"z: |\n  ${V}\n", R"({"z": "\n"})"},
      {"z: |+\n  ${V}\ny: 1\n", R"({"y": 1, "z": "\n"})"},
      {"z: >\n  a\n  ${V}\n  b\n", R"({"z": "a  b\n"})"},  // folded joins the lines around it
  };
  for (const auto& [text, expected] : cases) {
    for (const bool full : {false, true}) {
      CAPTURE(text);
      CAPTURE(full);
      RenderOptions options;
      options.full_structure_check = full;
      const RenderResult result = Render(text, manifest, ValuesOf({{"V", ""}}), options);
      REQUIRE_MESSAGE(result.ok(), (result.diagnostics.empty() ? "" : result.diagnostics[0].message));
      CHECK(result.output.find(" \n") == std::string::npos);
      const testing::CommandResult py = testing::ReadWithPyYaml(result.output);
      REQUIRE(py.code == 0);
      const testing::CommandResult fy = testing::RunShell(
          "fy-tool --mode json - | python3 -c 'import json, sys; print(json.dumps(json.load(sys.stdin), sort_keys=True))'",
          result.output);
      REQUIRE(fy.code == 0);
      CHECK(py.out == std::string(expected) + "\n");
      CHECK(fy.out == py.out);
    }
  }
}

TEST_CASE("render: a value must not lengthen the name of a $NAME kept right before it") {
  Manifest manifest = MustParse("variables:\n  V: string\nruntime: [PREFIX]\n");
  const std::string script =
      "command: [sh, -c]\nargs:\n  - |\n    echo \"[$PREFIX${V}]\"\n";
  RenderResult joined = RenderText(script, manifest, ValuesOf({{"V", "data"}}));
  CHECK_FALSE(joined.ok());
  REQUIRE(joined.diagnostics.size() == 1);
  CHECK(joined.diagnostics[0].message ==
        "the value of 'V' starts with 'd', which would join the variable $PREFIX kept right before it");
  CHECK(joined.diagnostics[0].hint == "write ${PREFIX} in the template");
  CHECK(joined.diagnostics[0].location.column == 19);
  // Of a sensitive value, not even its first byte is shown.
  RenderResult secret = RenderText(script, MustParse("variables:\n  V: {sensitive: true}\nruntime: [PREFIX]\n"),
                                   ValuesOf({{"V", "s3cret"}}));
  REQUIRE(secret.diagnostics.size() == 1);
  CHECK(secret.diagnostics[0].message ==
        "the value of 'V' starts with a letter, digit or underscore, which would join the variable $PREFIX kept right "
        "before it");
  // A value that cannot continue a name, a braced runtime name, or a gap is fine.
  CHECK(RenderText(script, manifest, ValuesOf({{"V", "-data"}})).output.find("[$PREFIX-data]") != std::string::npos);
  CHECK(RenderText("args: |\n  echo ${PREFIX}${V} $PREFIX/${V}\n", manifest, ValuesOf({{"V", "x"}})).ok());
  // In data too: an undeclared $HOME is kept with a warning, and would have become $HOMEx.
  RenderResult data = RenderText("a: $HOME${V}\n", manifest, ValuesOf({{"V", "x"}}));
  CHECK_FALSE(data.ok());
  CHECK(data.output.empty());
}

// SPEC Rule 1, the Flux/clusterctl dialect: the word is template text,
// spliced as written once its own references are substituted.
TEST_CASE("render: a default word that applies is template text, written as it is") {
  Manifest manifest = MustParse("variables:\n  E: {type: string, default: \"\"}\n  U: string\n  W: string\n"
                                "  N: int\n  CLUSTER_NAME: string\n  VNET: string\n");
  const ValueSet values = ValuesOf({{"W", "www"}, {"CLUSTER_NAME", "prod: eu"}});
  auto render = [&](std::string_view text) { return RenderText(text, manifest, values).output; };
  CHECK(render("p: ${E:-plain word}\nq: \"${E:-x y}\"\n") == "p: plain word\nq: \"x y\"\n");
  CHECK(render("key: ${U:=\"\"}\n") == "key: \"\"\n");
  CHECK(render("key: ${U:=\"a,b\"}\n") == "key: \"a,b\"\n");
  CHECK(render("replicas: ${N:=2}\n") == "replicas: 2\n");
  CHECK(render("l: '${E:-it''s}'\nj: \"${E:-a\\\"b}\"\n") == "l: 'it''s'\nj: \"a\\\"b\"\n");
  // Its references are values from outside, encoded where they land.
  CHECK(render("vnet: ${VNET:=${CLUSTER_NAME}-vnet}\n") == "vnet: \"prod: eu-vnet\"\n");
  CHECK(render("g: \"${E:-${W}}\"\n") == "g: \"www\"\n");
  CHECK(render("n: ${U:-${E:-${W}.x}}\n") == "n: www.x\n");
  // In a shell script the shell would have read the word itself.
  CHECK(render("args: [sh, -c, \"echo ${E:-$HOME} ${U:-'a b'}\"]\n") ==
        "args: [sh, -c, \"echo $HOME 'a b'\"]\n");
  // A set variable is its value, encoded; `+` takes the word when set.
  CHECK(render("w: ${W:-x} ${W:+[set]} ${U:+[unset]}.\n") == "w: www [set] .\n");
}

TEST_CASE("render: a default word is located in the template when what it brings is refused") {
  Manifest manifest = MustParse("variables:\n  U: string\n  X: string\n");
  RenderResult result = RenderText("a: 1\nb: x ${U:-${X}} y\n", manifest, ValuesOf({}));
  REQUIRE(result.diagnostics.size() == 1);
  CHECK(result.diagnostics[0].message == "variable 'X' is declared but has no value");
  CHECK(result.diagnostics[0].location.line == 2);
  CHECK(result.diagnostics[0].location.column == 11);
  // Words must not join a `$NAME` next to them into another name.
  RenderResult joined = RenderText("s: |\n  echo $HOME${U:-x}\n", manifest, ValuesOf({}));
  REQUIRE(joined.diagnostics.size() == 1);
  CHECK(joined.diagnostics[0].message.find("would join the variable written right before it") != std::string::npos);
  CHECK(joined.diagnostics[0].location.column == 13);
  // Deeply nested words are refused, not recursed into without bound.
  std::string nested;
  for (int depth = 0; depth < 1000; ++depth) nested += "${U:-";
  nested += "x" + std::string(1000, '}');
  RenderResult deep = RenderText("d: " + nested + "\n", manifest, ValuesOf({}));
  REQUIRE_FALSE(deep.ok());
  CHECK(deep.diagnostics[0].message == "default words are nested more than 32 deep");
}

TEST_CASE("render: without a manifest a default form in data declares its name, in a script it stays the script's") {
  Manifest environment;
  environment.mode = DeclarationMode::kEnvironment;
  const std::string text = "replicas: ${WORKER_MACHINE_COUNT:=2}\nargs: [sh, -c, \"echo ${WORKER_MACHINE_COUNT:-1}\"]\n";
  RenderResult unset = RenderText(text, environment, ValuesOf({}));
  CHECK(unset.diagnostics.empty());
  CHECK(unset.output == "replicas: 2\nargs: [sh, -c, \"echo ${WORKER_MACHINE_COUNT:-1}\"]\n");
  CHECK(RenderText(text, environment, ValuesOf({{"WORKER_MACHINE_COUNT", "3"}})).output ==
        "replicas: 3\nargs: [sh, -c, \"echo 3\"]\n");
}

TEST_CASE("render: $${NAME} writes ${NAME} for any name, in every mode") {
  Manifest manifest = MustParse("variables:\n  V: string\nruntime: [R]\n");
  Manifest environment;
  environment.mode = DeclarationMode::kEnvironment;
  Manifest shell_format = ManifestFromShellFormat("${V}");
  const std::string text = "a: $${V} $${UNDECLARED} $${R} $${X:-y} $${#X}\ns: |\n  echo \"$${HOSTNAME}\" $$ $${1}\n# $${C}\n";
  const std::string expected = "a: ${V} ${UNDECLARED} ${R} ${X:-y} ${#X}\ns: |\n  echo \"${HOSTNAME}\" $$ ${1}\n# $${C}\n";
  for (const Manifest* mode : {&manifest, &environment, &shell_format}) {
    RenderResult result = RenderText(text, *mode, ValuesOf({{"V", "v"}}));
    CHECK(result.diagnostics.empty());
    CHECK(result.output == expected);
  }
}

TEST_CASE("render: a string operation on a declared variable is computed and encoded where it lands") {
  Manifest manifest = MustParse("variables:\n  V: string\n  N: int\nruntime: [R]\n");
  const ValueSet values = ValuesOf({{"V", "v1.2: x"}, {"N", "1234"}});
  // The result is a value from outside: requoted in data, shell-quoted in scripts.
  CHECK(RenderText("m: ${V%.*}\n", manifest, values).output == "m: v1\n");
  CHECK(RenderText("m: ${V#v}\n", manifest, values).output == "m: \"1.2: x\"\n");
  CHECK(RenderText("m: ${V%%.*}\n", manifest, values).output == "m: v1\n");
  CHECK(RenderText("m: ${V:0:2}-${V/./-}\n", manifest, values).output == "m: \"v1-v1-2: x\"\n");
  CHECK(RenderText("m: ${#V}\n", manifest, values).output == "m: \"7\"\n");
  CHECK(RenderText("args: [sh, -c, \"echo ${V#v} ${N:1}\"]\n", manifest, ValuesOf({{"V", "v1.2"}, {"N", "1234"}}))
            .output == "args: [sh, -c, \"echo 1.2 234\"]\n");
  CHECK(RenderText("args: [sh, -c, \"echo '${V^^}'\"]\n", manifest, values).output ==
        "args: [sh, -c, \"echo 'V1.2: X'\"]\n");
  // A name used plainly and with an operation in the same scalar (found on real templates).
  CHECK(RenderText("image: r/${V%%.*}:${V}\n", manifest, ValuesOf({{"V", "v1.2"}})).output == "image: r/v1:v1.2\n");
  // Shell syntax that is no operation of the dialect still names V: an error.
  RenderResult indirect = RenderText("args: [sh, -c, \"echo ${!V}\"]\n", manifest, values);
  REQUIRE(indirect.diagnostics.size() == 1);
  CHECK(indirect.diagnostics[0].message ==
        "a shell expansion of the declared variable 'V', which is never substituted");
  // Undeclared and runtime names are shell syntax in scripts.
  const std::string kept = "args: [sh, -c, \"echo ${R:0:2} ${HOME##*/} ${#R} ${!R} ${#}\"]\n";
  CHECK(RenderText(kept, manifest, values).output == kept);
}

TEST_CASE("render: a string operation on an undeclared name in data is an error, in a script kept") {
  Manifest manifest = MustParse("variables:\n  V: string\n");
  for (const char* text : {"m: ${HOME%.*}\n", "m: ${#HOME}\n", "m: ${HOME/a/b}\n"}) {
    const std::string shown = text;
    CAPTURE(shown);
    RenderResult result = RenderText(text, manifest, ValuesOf({{"V", "v"}}));
    REQUIRE(result.diagnostics.size() == 1);
    CHECK(result.diagnostics[0].severity == Severity::kError);
    CHECK(result.diagnostics[0].message == "undeclared variable 'HOME' in a data context");
  }
  CHECK(RenderText("s: |\n  echo ${HOME%.*}\n", manifest, ValuesOf({})).ok());
}

TEST_CASE("render: a string operation Flux, clusterctl and bash read differently is refused where it stands") {
  Manifest manifest = MustParse("variables:\n  V: string\n");
  RenderResult result = RenderText("a: 1\nm: x${V/*/z}\n", manifest, ValuesOf({{"V", "value"}}));
  REQUIRE(result.diagnostics.size() == 1);
  CHECK(result.diagnostics[0].message.rfind("the string operation ${V/*/z} has `*`, `?` or `[` in its pattern", 0) ==
        0);
  CHECK(result.diagnostics[0].location.line == 2);
  CHECK(result.diagnostics[0].location.column == 5);
  // An operation on a declared variable without a value fails as ${V} would.
  RenderResult unset = RenderText("m: ${V%.*}\n", manifest, ValuesOf({}));
  REQUIRE(unset.diagnostics.size() == 1);
  CHECK(unset.diagnostics[0].message == "variable 'V' is declared but has no value");
}

// The shell would expand V at run time, when it is not set: never silently kept.
TEST_CASE("render: a declared variable inside a kept expansion is an error, a runtime one is kept") {
  Manifest manifest = MustParse("variables:\n  V: string\nruntime: [R]\n");
  const ValueSet values = ValuesOf({{"V", "value"}});
  for (const char* text : {"args: [sh, -c, \"echo ${HOME:+${V}}\"]\n", "script: |\n  echo ${R:-$V}\n",
                           "args: [sh, -c, \"echo ${HOME/a/${R:-${V}}}\"]\n",
                           "args: [sh, -c, \"echo ${HOME:-${#V}}\"]\n"}) {
    const std::string shown = text;
    CAPTURE(shown);
    RenderResult result = RenderText(text, manifest, values);
    CHECK_FALSE(result.ok());
    REQUIRE(result.diagnostics.size() == 1);
    CHECK(result.diagnostics[0].message ==
          "the declared variable 'V' inside a shell expansion that is kept as written would not be substituted");
  }
  const std::string kept = "args: [sh, -c, \"echo ${HOME:+${R}} ${HOME:-$PATH} ${HOME:-$${V}} ${X:-$(V)}\"]\n";
  CHECK(RenderText(kept, manifest, values).output == kept);
}

// Inside single quotes or a quoted here-document the shell reads nothing: a
// shell form there is literal text, whatever it names.
TEST_CASE("render: a kept expansion the shell never expands may name a declared variable, with a warning") {
  Manifest manifest = MustParse("variables:\n  V: string\n");
  const ValueSet values = ValuesOf({{"V", "value"}});
  for (const char* text : {"args: [sh, -c, \"echo '${HOME:-$V}'\"]\n",
                           "args: [sh, -c, \"echo $'${HOME:+${V}}'\"]\n",
                           "args:\n  - sh\n  - -c\n  - |\n    cat <<'EOF'\n    ${HOME:-$V} ${V[0]}\n    EOF\n"}) {
    const std::string shown = text;
    CAPTURE(shown);
    RenderResult result = RenderText(text, manifest, values);
    CHECK(result.output == text);
    // Kept, but the text may run later (eval, trap): a warning says so (found by review).
    REQUIRE_FALSE(result.diagnostics.empty());
    for (const Diagnostic& diagnostic : result.diagnostics) {
      CHECK(diagnostic.severity == Severity::kWarning);
      CHECK(diagnostic.message.starts_with("the declared variable 'V' is named in quoted text the shell does not "
                                           "expand here; if that text is run later (eval, trap, sh -c '...'), V is "
                                           "not set there"));
    }
  }
  // Where the shell expands them, they still fail.
  for (const char* text : {"args: [sh, -c, \"echo \\\"${HOME:-$V}\\\"\"]\n", "args: [sh, -c, \"echo ${V[0]}\"]\n",
                           "args:\n  - sh\n  - -c\n  - |\n    cat <<EOF\n    ${HOME:-$V}\n    EOF\n"}) {
    const std::string shown = text;
    CAPTURE(shown);
    CHECK_FALSE(RenderText(text, manifest, values).ok());
  }
}

TEST_CASE("render: a declared variable deep inside nested kept expansions is found without recursing") {
  Manifest manifest = MustParse("variables:\n  V: string\n");
  std::string nested;
  for (int depth = 0; depth < 100000; ++depth) nested += "${H:-";
  nested += "${V}" + std::string(100000, '}');
  RenderResult result = RenderText("script: |\n  echo " + nested + "\n", manifest, ValuesOf({{"V", "v"}}));
  REQUIRE(result.diagnostics.size() == 1);
  CHECK(result.diagnostics[0].message.find("the declared variable 'V' inside") == 0);
}

// Issue 26 item 6: one `<<: *prepare` made every value of the document need
// to read alike in a shell script and in data.
TEST_CASE("render: a merge into one container's command line does not constrain unrelated values") {
  Manifest manifest = MustParse("variables:\n  V: string\n");
  const std::string text =
      "prepare: &prepare {command: [sh, -c]}\n"
      "spec:\n  containers:\n    - <<: *prepare\n      args: [run]\n"
      "  env:\n    - {name: A, value: \"${V}\"}\n";
  RenderResult result = RenderText(text, manifest, ValuesOf({{"V", "a;b | c"}}));
  CHECK(result.diagnostics.empty());
  CHECK(result.output.find("value: \"a;b | c\"") != std::string::npos);
  // In the hidden command line itself the value is still refused.
  RenderResult hidden = RenderText(
      "prepare: &prepare {command: [sh, -c]}\nc:\n  <<: *prepare\n  args: [\"echo ${V}\"]\n", manifest,
      ValuesOf({{"V", "a;b"}}));
  REQUIRE_FALSE(hidden.ok());
  CHECK(hidden.diagnostics[0].message.find("this document takes a command line from the alias *prepare") !=
        std::string::npos);
}

TEST_CASE("render: a multi-line value in a CRLF file gets CRLF line ends") {
  Manifest manifest = MustParse("variables:\n  X: string\n");
  const std::string text = "a: |\r\n  first\r\n  ${X}\r\n  last\r\nb: \"${X}\"\r\n";
  RenderResult result = RenderText(text, manifest, ValuesOf({{"X", "l1\nl2\n  l3"}}));
  REQUIRE(result.ok());
  CHECK(result.output == "a: |\r\n  first\r\n  l1\r\n  l2\r\n    l3\r\n  last\r\nb: \"l1\\nl2\\n  l3\"\r\n");
  // An LF file stays LF.
  RenderResult lf = RenderText("a: |\n  ${X}\n", manifest, ValuesOf({{"X", "l1\nl2"}}));
  CHECK(lf.output == "a: |\n  l1\n  l2\n");
}

TEST_CASE("render: a value in a key is refused where it stands, without showing a sensitive value") {
  Manifest manifest = MustParse("variables:\n  PW: {type: string, sensitive: true}\n");
  const std::string secret = "hunter2-is-the-password";
  RenderResult result = RenderText("${PW}: 1\nother: 2\n", manifest, ValuesOf({{"PW", secret.c_str()}}));
  REQUIRE_FALSE(result.ok());
  bool reported = false;
  for (const Diagnostic& diagnostic : result.diagnostics) {
    CHECK(diagnostic.message.find(secret) == std::string::npos);
    CHECK(diagnostic.hint.find(secret) == std::string::npos);
    reported = reported || diagnostic.message == "'PW' is in a mapping key and sensitive, and keys are the "
                                                 "document's structure, which rendering keeps";
  }
  CHECK(reported);
  CHECK(result.diagnostics.size() == 1);  // not also a structure difference after the fact
}

TEST_CASE("render: steps on a stream yaml-cpp cannot get past fail instead of hanging") {
  // `|` then an unindented `,`: a block scalar for YAML 1.2, an endless loop
  // for yaml-cpp 0.7's LoadAll, which the steps' layout scan used.
  Manifest manifest = MustParse("steps:\n  - delete: .metadata.name\n");
  RenderResult result = RenderText("|\n,r\n", manifest, ValueSet{});
  CHECK_FALSE(result.ok());
  CHECK(result.output.empty());
}

// A default-constructed view has a null data(): the library must not hand it
// to memchr or memcmp (UBSan, found by the render and steps fuzzers).
TEST_CASE("render: an empty template given as a null view renders to nothing") {
  for (const char* manifest_text : {"variables: {X: {type: string}}\n", "steps:\n  - delete: .metadata.name\n"}) {
    CAPTURE(manifest_text);
    RenderResult result = RenderText(std::string_view(), MustParse(manifest_text), ValuesOf({{"X", "x"}}));
    CHECK(result.ok());
    CHECK(result.output.empty());
  }
}

// One unset variable in a stream of thousands of documents must not bury the
// output in thousands of identical errors.
TEST_CASE("render: a problem is reported once, at its first use, with the number of later uses") {
  const Manifest manifest = MustParse("variables: {A: {type: string}, B: {type: string}}\n");
  const std::string text = "a: ${A}\nb: ${B}\n---\na: x${A}\n---\na: ${A}\nc: ${C}\nd: ${C}\ne: $D\n";
  const RenderResult result = RenderText(text, manifest, ValuesOf({{"B", "b"}}));
  CHECK_FALSE(result.ok());
  CHECK(result.output.empty());
  REQUIRE(result.diagnostics.size() == 3);
  CHECK(result.diagnostics[0].message == "variable 'A' is declared but has no value (and at 2 later uses)");
  CHECK(result.diagnostics[0].location.line == 1);
  CHECK(result.diagnostics[0].location.column == 4);
  CHECK(result.diagnostics[1].message == "undeclared variable 'C' in a data context (and at 1 later use)");
  CHECK(result.diagnostics[1].location.line == 7);
  CHECK(result.diagnostics[2].severity == Severity::kWarning);
  CHECK(result.diagnostics[2].message == "undeclared variable 'D' kept as written");
}

TEST_CASE("render: each use's own report still says what happened to it") {
  const Manifest manifest = MustParse("variables: {A: {type: string}}\n");
  RenderOptions options;
  options.report_references = true;
  const RenderResult result = Render("a: ${A}\nb: ${A}\n", manifest, ValueSet{}, options);
  REQUIRE(result.references.size() == 2);
  CHECK(result.diagnostics.size() == 1);
  for (const ReferenceReport& report : result.references) {
    CHECK(report.action == ReferenceReport::Action::kError);
    CHECK(report.note == "variable 'A' is declared but has no value");
  }
}
// A value's own checks (UTF-8, size) are made once per name; every use still
// fails, and the error is reported at the first one.
TEST_CASE("render: a value that is not UTF-8 fails each use, reported once at the first") {
  const Manifest manifest = MustParse("variables: {A: {type: string}}\n");
  RenderOptions options;
  options.report_references = true;
  const RenderResult result = Render("a: ok\nb: ${A}\nc: x${A}\n", manifest, ValuesOf({{"A", "x\xff"}}), options);
  CHECK(result.output.empty());
  REQUIRE(result.diagnostics.size() == 1);
  CHECK(result.diagnostics[0].message == "value of 'A' is not valid UTF-8 (and at 1 later use)");
  CHECK(result.diagnostics[0].location.line == 2);
  REQUIRE(result.references.size() == 2);
  for (const ReferenceReport& report : result.references) CHECK(report.action == ReferenceReport::Action::kError);
}


// Values on one line of a plain scalar share one check of that line; a value
// that does not fit on a later line still makes the whole scalar quoted.
TEST_CASE("render: a plain scalar with many values is checked line by line") {
  const Manifest manifest = MustParse("variables: {A: {type: string}, B: {type: string}}\n");
  std::string text = "k: ${A}";
  for (int i = 0; i < 2000; ++i) text += " ${A}";
  text += "\n  ${A} ${B} end\n";
  const RenderResult fits = RenderText(text, manifest, ValuesOf({{"A", "x"}, {"B", "y z"}}));
  REQUIRE(fits.ok());
  CHECK(fits.output.starts_with("k: x x x"));
  CHECK(fits.output.ends_with("\n  x y z end\n"));
  const RenderResult quoted = RenderText(text, manifest, ValuesOf({{"A", "x"}, {"B", "y: z"}}));
  REQUIRE(quoted.ok());
  CHECK(quoted.output.starts_with("k: \"x x x"));
  CHECK(quoted.output.ends_with(" x y: z end\"\n"));
}

// The error says what is wrong with a `type: yaml` value, and the hint names
// the option only when the size limit is what it passed.
TEST_CASE("render: a type yaml value that cannot be written says why") {
  const Manifest manifest = MustParse("variables: {Y: {type: yaml}}\n");
  RenderOptions options;
  options.limits.max_value_bytes = 4096;
  auto error_for = [&](const std::string& value) {
    const RenderResult result = Render("k: ${Y}\n", manifest, ValuesOf({{"Y", value.c_str()}}), options);
    REQUIRE(result.diagnostics.size() == 1);
    CHECK(result.output.empty());
    return result.diagnostics[0];
  };
  const Diagnostic duplicate = error_for("{a: 1, a: 2}");
  CHECK(duplicate.message == "value of 'Y' is not valid YAML: the value has the key 'a' twice");
  CHECK(duplicate.hint.empty());
  CHECK(error_for("[unclosed").message.starts_with("value of 'Y' is not valid YAML: "));
  std::string amplified = "[&s " + std::string(1000, 'A') + ", [*s, *s, *s, *s, *s]]";
  const Diagnostic too_large = error_for(amplified);
  CHECK(too_large.message ==
        "value of 'Y' cannot be written: the value expands to more than 4096 bytes through aliases");
  CHECK(too_large.hint == "raise it with --max-value-size");
  options.limits.max_value_bytes = std::size_t{256} << 20;  // the node bound comes first
  const Diagnostic bomb = error_for(testing::AliasBomb(9));
  CAPTURE(bomb.message);
  CHECK(bomb.message.starts_with("value of 'Y' cannot be written: the value expands to more than"));
  CHECK(bomb.hint.empty());
}

// Issue 26: valid YAML that yaml-cpp 0.7 misreads (an anchored block scalar
// in a sequence, common in Talos configs) was refused in every mode, even
// with nothing to substitute. The tokenizer follows the YAML test suite and
// the structure is proved at token level.
TEST_CASE("render: valid YAML that yaml-cpp misreads is rendered, its structure proved by tokens") {
  const std::string talos =
      "machine:\n  files:\n    - &mounts |-\n      [plugins]\n        ports = ${PORT}\n    - *mounts\n";
  const Manifest manifest = MustParse("variables:\n  PORT: {type: int}\n  Y: {type: yaml}\n");
  const RenderResult unchanged = RenderText("a:\n  - &m |-\n    text\n  - *m\n", manifest, ValuesOf({}));
  REQUIRE(unchanged.ok());
  CHECK(unchanged.output == "a:\n  - &m |-\n    text\n  - *m\n");
  const RenderResult rendered = RenderText(talos, manifest, ValuesOf({{"PORT", "8080"}}));
  REQUIRE(rendered.ok());
  CHECK(rendered.diagnostics.empty());
  CHECK(rendered.output.find("ports = 8080\n    - *mounts") != std::string::npos);
  // --full-check asks for the yaml-cpp comparison: the token proof decides, with a warning that it did.
  RenderOptions options;
  options.file_name = "t.yaml";
  options.full_structure_check = true;
  const RenderResult full = Render(talos, manifest, ValuesOf({{"PORT", "8080"}}), options);
  REQUIRE(full.ok());
  REQUIRE(full.diagnostics.size() == 1);
  CHECK(full.diagnostics[0].severity == Severity::kWarning);
  CHECK(full.diagnostics[0].location.line == 4);
  CHECK(full.output == rendered.output);
  // A `type: yaml` value needs the yaml-cpp comparison: refused with the reason and a way out.
  const RenderResult injected = RenderText(talos + "k: ${Y}\n", manifest, ValuesOf({{"PORT", "1"}, {"Y", "{a: 1}"}}));
  REQUIRE_FALSE(injected.ok());
  CHECK(injected.diagnostics[0].message.find("misreads this valid YAML") != std::string::npos);
  CHECK(injected.diagnostics[0].location.line == 4);
}

// Issue 28 item 4: yaml-cpp is the independent witness, not the gatekeeper.
// Every case of the YAML test suite that the tokenizer reads and yaml-cpp
// cannot (flow mappings with empty or adjacent keys, `:` after a quoted flow
// key, a document starting with `,`...) renders, as it is and with a
// document that substitutes after it, also with --full-check, which falls
// back to the token-level proof and says so. Only a `type: yaml` value,
// which needs the yaml-cpp comparison, is refused, saying yaml-cpp cannot read it.
TEST_CASE("render: valid YAML that yaml-cpp cannot read is rendered, its structure proved by tokens") {
  namespace fs = std::filesystem;
  const fs::path suite = testing::YamlTestSuiteOrSkip();
  std::vector<fs::path> cases;
  for (const auto& entry : fs::recursive_directory_iterator(suite)) {
    if (entry.path().filename() != "in.yaml" || fs::exists(entry.path().parent_path() / "error")) continue;
    cases.push_back(entry.path());
  }
  std::sort(cases.begin(), cases.end());
  const Manifest manifest = MustParse("variables:\n  X: {type: string}\n  Y: {type: yaml}\n");
  std::size_t unreadable = 0;
  for (const fs::path& path : cases) {
    std::string text = testing::ReadFile(path);
    if (HasErrors(Tokenize(text).diagnostics)) continue;
    detail::YamlStream stream;
    detail::YamlParseError error;
    if (detail::ParseYamlStreamWithYamlCpp(text, &stream, &error)) continue;
    ++unreadable;
    CAPTURE(path.parent_path().string());
    if (!text.empty() && text.back() != '\n') text += '\n';
    const std::string substituted = text + "---\nk: ${X}\n";
    for (bool full : {false, true}) {
      CAPTURE(full);
      RenderOptions options;
      options.file_name = "t.yaml";
      options.full_structure_check = full;
      const RenderResult as_is = Render(text, manifest, ValuesOf({}), options);
      CHECK(as_is.ok());
      CHECK(as_is.output == text);
      const RenderResult rendered = Render(substituted, manifest, ValuesOf({{"X", "a: b"}}), options);
      REQUIRE(rendered.ok());
      CHECK(rendered.output == text + "---\nk: \"a: b\"\n");
      if (full) {
        REQUIRE_FALSE(rendered.diagnostics.empty());
        CHECK(rendered.diagnostics[0].severity == Severity::kWarning);
        CHECK(rendered.diagnostics[0].message.find("yaml-cpp cannot read this valid YAML (yaml-cpp: template is not "
                                                   "valid YAML: ") == 0);
        CHECK(rendered.diagnostics[0].message.find("checked at token level") != std::string::npos);
      }
    }
    const RenderResult injected = RenderText(text + "---\nk: ${Y}\n", manifest, ValuesOf({{"Y", "{a: 1}"}}));
    REQUIRE_FALSE(injected.ok());
    CHECK(injected.diagnostics[0].message.find("the structure of this render cannot be checked: yaml-cpp, the "
                                               "parser the check needs for a `type: yaml` value, cannot read this "
                                               "valid YAML") == 0);
  }
  MESSAGE(unreadable << " of " << cases.size() << " valid test suite cases are read by the tokenizer, not by yaml-cpp");
  CHECK(unreadable >= 10);
}

TEST_CASE("render: a $${NAME} escape in a scalar that is rewritten double-quoted is written once, inside the quotes") {
  // The escape's own splice used to overlap the requoted scalar: the output
  // did not parse and the render was refused.
  Manifest manifest = MustParse("variables:\n  V: string\n");
  RenderResult result = RenderText("a: $${X} ${V} $${Y}\n", manifest, ValuesOf({{"V", "x: y"}}));
  REQUIRE(result.ok());
  CHECK(result.output == "a: \"${X} x: y ${Y}\"\n");
}

TEST_CASE("render: a variable in a mapping key is written as a key that reads back as its value") {
  // Flux and clusterctl templates name keys with variables (`${APP}: {}`,
  // `kubernetes.io/cluster/${CLUSTER_NAME}: owned`); they used to be refused.
  Manifest manifest = MustParse("variables:\n  APP: string\n  N: string\n");
  const std::string text = "data:\n  ${APP}: {}\n  ${APP}-config: v ${APP}\n  'x/${APP}': 1\n  f: {\"${N}\": 2}\n";
  for (bool full : {false, true}) {
    CAPTURE(full);
    RenderOptions options;
    options.full_structure_check = full;
    RenderResult web = Render(text, manifest, ValuesOf({{"APP", "web"}, {"N", "n"}}), options);
    REQUIRE(web.ok());
    CHECK(web.output == "data:\n  web: {}\n  web-config: v web\n  'x/web': 1\n  f: {\"n\": 2}\n");
  }
  // A value that would not read back as the same string key is double-quoted:
  // a number, a bool, null, a merge key, an indicator.
  RenderResult typed = RenderText("${APP}: 1\n${N}: 2\n", manifest, ValuesOf({{"APP", "true"}, {"N", "<<"}}));
  REQUIRE(typed.ok());
  CHECK(typed.output == "\"true\": 1\n\"<<\": 2\n");
  RenderResult colon = RenderText("${APP}-x: 1\n", manifest, ValuesOf({{"APP", "a: b"}}));
  REQUIRE(colon.ok());
  CHECK(colon.output == "\"a: b-x\": 1\n");
  RenderResult broken = RenderText("${APP}: 1\n", manifest, ValuesOf({{"APP", "line\nbreak"}}));
  REQUIRE(broken.ok());
  CHECK(broken.output == "\"line\\nbreak\": 1\n");
  // Two keys that become one are a duplicate, located at the second.
  RenderResult twice = RenderText("m:\n  ${APP}: 1\n  ${N}: 2\n", manifest, ValuesOf({{"APP", "a"}, {"N", "a"}}));
  REQUIRE_FALSE(twice.ok());
  CHECK(twice.diagnostics[0].message == "duplicate key 'a'");
  CHECK(twice.diagnostics[0].location.line == 3);
  CHECK(twice.diagnostics[0].location.column == 3);
  // A block key cannot take a value.
  RenderResult block = RenderText("? |\n  ${APP}\n: 1\n", manifest, ValuesOf({{"APP", "a"}}));
  CHECK_FALSE(block.ok());
}

TEST_CASE("render: a value with a `$` in a mapping key is refused, never read as a template") {
  // The keys' values are spliced in and the result rendered again: a value
  // naming itself recursed until the stack overflowed, and `${B}` in a value
  // was substituted as if it were template text.
  Manifest manifest = MustParse("variables:\n  A: string\n  B: string\n");
  const std::vector<std::pair<const char*, const char*>> cases = {{"${A}", "b"}, {"$A", "b"}, {"${B}", "${A}"},
                                                                   {"${B}", "b"}, {"x$", "b"}};
  for (const auto& [a, b] : cases) {
    CAPTURE(a);
    RenderResult result = RenderText("${A}: v\n", manifest, ValuesOf({{"A", a}, {"B", b}}));
    REQUIRE_FALSE(result.ok());
    REQUIRE(result.diagnostics.size() == 1);
    CHECK(result.diagnostics[0].message ==
          "'A' is in a mapping key and its value holds a `$`, which the key would read as a placeholder");
    CHECK(result.diagnostics[0].location.line == 1);
  }
}

}  // namespace safesubst

namespace safesubst {

// Attacker, session 28: a `shell:`/`scripts:` path that loads must mark its
// node; one that can never match must be refused at load. fa304bd let
// `.data."my key"` load (it was refused before) while the path matcher never
// matched it, so a value landed raw in the script. The other forms were
// accepted and ignored before that commit too.
TEST_CASE("render: a shell path that the manifest accepts marks its node as shell (attacker regression)") {
  struct Case {
    const char* path;
    const char* tmpl;
  };
  const Case cases[] = {
      {".data.\"my key\"", "kind: ConfigMap\ndata:\n  my key: |\n    echo ${V}\n"},
      {".data.\"entry.sh.tpl\"", "kind: ConfigMap\ndata:\n  entry.sh.tpl: |\n    echo ${V}\n"},
      {".data.'entry.sh.tpl'", "kind: ConfigMap\ndata:\n  entry.sh.tpl: |\n    echo ${V}\n"},
      {".spec.containers[name=c].args[0]",
       "kind: Pod\nspec:\n  containers:\n  - name: c\n    command: [/entry]\n    args:\n    - echo ${V}\n"},
      {".data[*]", "kind: ConfigMap\ndata:\n  plain: |\n    echo ${V}\n"},
      {".data.*", "kind: ConfigMap\ndata:\n  plain: |\n    echo ${V}\n"},
      {".\"data\".plain", "kind: ConfigMap\ndata:\n  plain: |\n    echo ${V}\n"},
  };
  // Only `shell:` is observable this way: a `scripts:` path marks a script of
  // unknown language, where a value lands as text by design.
  for (const Case& c : cases) {
    for (const char* list : {"shell"}) {
      const std::string path = c.path, which = list;
      CAPTURE(path);
      CAPTURE(which);
      const std::string manifest_text =
          std::string("variables:\n  V: {type: string}\n") + list + ": ['" + c.path + "']\n";
      Result<Manifest> parsed = ParseManifest(manifest_text, "m.yaml");
      if (!parsed.ok()) continue;  // refused at load: fine
      // In a script an unquoted `$(...)` is refused; as data it is written raw.
      RenderResult result = RenderText(c.tmpl, *parsed.value, ValuesOf({{"V", "$(touch /tmp/PWNED)"}}));
      CHECK_MESSAGE(!result.ok(), result.output);
    }
  }
}

}  // namespace safesubst

namespace safesubst {

// Attacker, session 29: `.data.entry.tpl` is how a manifest names the
// ConfigMap key `entry.tpl` (773501a marked it: the text form matched). A
// parsed reading (data -> entry -> tpl) must not silently drop that mark:
// a missed mark writes the value raw into the script, a wrong one only
// costs an encoding or a refusal.
TEST_CASE("render: an unquoted dotted shell path still marks the dotted key (attacker regression)") {
  Result<Manifest> parsed =
      ParseManifest("variables:\n  V: {type: string}\nshell: ['.data.entry.tpl']\n", "m.yaml");
  REQUIRE(parsed.ok());
  RenderResult result = RenderText("kind: ConfigMap\ndata:\n  entry.tpl: |\n    echo ${V}\n", *parsed.value,
                                   ValuesOf({{"V", "$(touch /tmp/PWNED)"}}));
  CHECK_MESSAGE(!result.ok(), result.output);
}

}  // namespace safesubst
