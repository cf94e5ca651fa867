// SPDX-License-Identifier: Apache-2.0
#include "object_paths.h"

#include <doctest/doctest.h>

#include <string>
#include <string_view>
#include <vector>

#include "yaml_path.h"

namespace safesubst {
namespace {

// Whether step path `path` names the node of the first scalar whose text is `scalar`.
bool Names(const std::string& path, std::string_view text, std::string_view scalar) {
  detail::YamlPath parsed;
  detail::PathError error;
  REQUIRE_MESSAGE(detail::ParseYamlPath(path, &parsed, &error), error.message);
  const Tokens tokens = Tokenize(text);
  REQUIRE(tokens.diagnostics.empty());
  for (const Scalar& s : tokens.scalars) {
    if (!s.is_key && text.substr(s.offset, s.length) == scalar) return PathMatches(tokens, s.path, parsed.selectors);
  }
  FAIL("no scalar ", scalar);
  return false;
}

TEST_CASE("object paths: a path names one node by its keys and indexes, `[*]` any one item or key") {
  const std::string pod = "spec:\n  containers:\n  - args: [x, y]\n  - args: [z]\n";
  CHECK(Names(".spec.containers[*].args[*]", pod, "y"));
  CHECK(Names(".spec.containers[0].args[1]", pod, "y"));
  CHECK(Names(".spec.containers[1].args[0]", pod, "z"));
  CHECK_FALSE(Names(".spec.containers[0].args[1]", pod, "z"));
  CHECK_FALSE(Names(".spec.containers[*].args", pod, "y"));
  CHECK_FALSE(Names(".spec.containers[*].args[*][*]", pod, "y"));
  CHECK_FALSE(Names(".spec.containers[name=c].args[0]", pod, "z"));
  // On a mapping `[*]` stands for one key.
  const std::string data = "data:\n  run: r\n  entry.sh.tpl: e\nspec: {c: {x: [0, 1, two]}}\n";
  CHECK(Names(".data[*]", data, "r"));
  CHECK(Names(".data[*]", data, "e"));
  CHECK(Names(".spec[*][*][2]", data, "two"));
  CHECK_FALSE(Names(".data", data, "r"));
  CHECK_FALSE(Names(".data[*].c", data, "e"));
  // A key holding `.` or `[` is one key, quoted in the path. A key holding
  // dots also answers to the unquoted keys that spell it, as people write
  // ConfigMap file names (`.data.entry.tpl`): a listed script path must not
  // silently stop marking it (attacker s29 12:04).
  const std::string dotted = "data:\n  a.b: one\n  a: {b: two}\n  x[0]: three\n  x: [four]\n";
  CHECK(Names(".data.\"a.b\"", dotted, "one"));
  CHECK(Names(".data.a.b", dotted, "one"));
  CHECK(Names(".data.a.b", dotted, "two"));
  CHECK(Names(".data.entry.sh.tpl", "data:\n  entry.sh.tpl: v\n", "v"));
  CHECK(Names(".data[*]", "data:\n  entry.sh.tpl: v\n", "v"));
  CHECK_FALSE(Names(".data.sh.tpl", "data:\n  entry.sh.tpl: v\n", "v"));
  CHECK_FALSE(Names(".entry.sh.tpl", "data:\n  entry.sh.tpl: v\n", "v"));
  CHECK_FALSE(Names(".data.entry.sh", "data:\n  entry.sh.tpl: v\n", "v"));
  CHECK_FALSE(Names(".data.\"a.b\"", dotted, "two"));
  CHECK(Names(".data.'x[0]'", dotted, "three"));
  CHECK_FALSE(Names(".data.x[0]", dotted, "three"));
  CHECK(Names(".data.x[0]", dotted, "four"));
  // Keys are compared by value, however the template writes them.
  CHECK(Names(".data.\"my key\"", "\"data\":\n  'my key': v\n", "v"));
}

TEST_CASE("object paths: command lines are grouped by container, command items before args, merges included") {
  const std::string text =
      "kind: Pod\n"
      "spec:\n"
      "  containers:\n"
      "    - args: [A1, A2]\n"
      "      command: [C1]\n"
      "    - <<: {command: [M1]}\n"
      "      args: [B1]\n";
  const Tokens tokens = Tokenize(text);
  REQUIRE(tokens.diagnostics.empty());
  const CommandLines lines = CollectCommandLines(tokens);
  std::vector<std::vector<std::string>> words;
  for (const CommandLine& line : lines.lines) {
    words.emplace_back();
    for (std::uint32_t item : line.items) words.back().push_back(DecodeScalar(text, tokens.scalars[item]));
  }
  CHECK(words == std::vector<std::vector<std::string>>{{"C1", "A1", "A2"}, {"M1", "B1"}});
  for (const Scalar& scalar : tokens.scalars) {
    const std::string value = DecodeScalar(text, scalar);
    if (value == "Pod") CHECK(IsObjectKind(tokens, scalar));
    if (value == "A1") CHECK(IsCommandLineItem(tokens, scalar));
    if (value == "containers") CHECK_FALSE(IsCommandLineItem(tokens, scalar));
  }
}

TEST_CASE("object paths: the items of a top-level `items` are objects of a List") {
  const std::string text = "kind: List\nitems:\n  - kind: Service\n    metadata: {name: a}\n";
  const Tokens tokens = Tokenize(text);
  REQUIRE(tokens.diagnostics.empty());
  for (const Scalar& scalar : tokens.scalars) {
    const std::string value = DecodeScalar(text, scalar);
    if (value == "Service") CHECK(IsObjectKind(tokens, scalar));
    if (value == "a") CHECK_FALSE(IsObjectKind(tokens, scalar));
  }
}

TEST_CASE("object paths: the `key` a `valueFrom` of an env item takes from a ConfigMap or Secret") {
  const std::string text =
      "spec:\n  containers:\n  - env:\n    - name: A\n      valueFrom: {secretKeyRef: {name: s, key: k1}}\n"
      "    - {name: B, valueFrom: {configMapKeyRef: {key: k2, name: c}}}\n"
      "    - {name: C, valueFrom: {fieldRef: {key: k3}}}\n  key: k4\n  secretKeyRef: {key: k5}\n";
  const Tokens tokens = Tokenize(text);
  REQUIRE(tokens.diagnostics.empty());
  std::vector<std::string> taken;
  for (const Scalar& scalar : tokens.scalars) {
    const std::uint32_t item = EnvItemOfKeyRef(tokens, scalar);
    if (item == PathSegment::kRoot) continue;
    taken.push_back(DecodeScalar(text, scalar));
    CHECK(tokens.paths[tokens.paths[item].parent].key == "env");
  }
  CHECK(taken == std::vector<std::string>{"k1", "k2"});
}

TEST_CASE("object paths: the annotation a Downward API fieldPath names") {
  CHECK(AnnotationOfFieldPath("metadata.annotations['note']") == "note");
  CHECK(AnnotationOfFieldPath("metadata.annotations[\"a.b/c\"]") == "a.b/c");
  for (std::string_view other : {"metadata.labels['note']", "metadata.name", "metadata.annotations", "metadata.annotations['x\"]",
                                 "metadata.annotations[]"}) {
    CAPTURE(other);
    CHECK(AnnotationOfFieldPath(other).empty());
  }
  const std::string text = "spec:\n  containers:\n  - env:\n    - {name: A, valueFrom: {fieldRef: {fieldPath: x}}}\n"
                           "metadata:\n  annotations: {note: y}\n  labels: {note: z}\n";
  const Tokens tokens = Tokenize(text);
  REQUIRE(tokens.diagnostics.empty());
  for (const Scalar& scalar : tokens.scalars) {
    const std::string value = DecodeScalar(text, scalar);
    CHECK((EnvItemOfFieldRef(tokens, scalar) != PathSegment::kRoot) == (value == "x"));
    CHECK(IsAnnotationEntry(tokens, scalar) == (value == "y"));
  }
}

}  // namespace
}  // namespace safesubst
