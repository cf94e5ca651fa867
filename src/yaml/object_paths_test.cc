// SPDX-License-Identifier: Apache-2.0
#include "object_paths.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

namespace safesubst {
namespace {

TEST_CASE("object paths: a pattern matches a whole path, `[*]` any index, a leading `.` optional") {
  CHECK(PathMatches("spec.containers[0].args[1]", "spec.containers[*].args[*]"));
  CHECK(PathMatches("spec.containers[0].args[1]", ".spec.containers[0].args[1]"));
  CHECK_FALSE(PathMatches("spec.containers[0].args[1]", "spec.containers[*].args"));
  CHECK_FALSE(PathMatches("spec.containers[0].args", "spec.containers[1].args"));
  CHECK_FALSE(PathMatches("spec.containers", "spec.containers[*]"));
  // On a mapping `[*]` stands for one key, dots in it included.
  CHECK(PathMatches("data.run", ".data[*]"));
  CHECK(PathMatches("data.entry.sh.tpl", ".data[*]"));
  CHECK(PathMatches("spec.c.x[2]", "spec[*][*][2]"));
  CHECK_FALSE(PathMatches("data", ".data[*]"));
  CHECK_FALSE(PathMatches("data.a.b", ".data[*].c"));
  CHECK(MatchesAnyPath("data.run", {"metadata.name", "data.run"}));
  CHECK_FALSE(MatchesAnyPath("data.run", {}));
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

}  // namespace
}  // namespace safesubst
