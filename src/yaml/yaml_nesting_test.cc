// SPDX-License-Identifier: Apache-2.0
#include "yaml_nesting.h"

#include <doctest/doctest.h>

#include <filesystem>
#include <string>
#include <string_view>

#include "test_support.h"
#include "tokenizer.h"

namespace safesubst {
namespace {

Nesting Counted(std::string_view text) {
  NestingRecorder recorder;
  TokenizeWithSpans(text, &recorder);
  return recorder.Finish();
}

Nesting FromSpans(std::string_view text) {
  NodeSpans spans;
  TokenizeWithSpans(text, &spans);
  return NestingOf(spans);
}

// The recorder finds what the spans hold: the depth, the first node at that
// depth, and the aliases.
void CheckAlike(std::string_view text) {
  INFO(text);
  const Nesting counted = Counted(text), expected = FromSpans(text);
  CHECK(counted.deepest == expected.deepest);
  CHECK(counted.deepest_offset == expected.deepest_offset);
  CHECK(counted.aliases == expected.aliases);
}

TEST_CASE("nesting: the depth and the first node at that depth") {
  const Nesting flow = Counted("a: [b, {c: [d]}, [e]]\n");
  CHECK(flow.deepest == 4);
  CHECK(flow.deepest_offset == std::string_view("a: [b, {c: ").size());
  CHECK(Counted("a: b\n").deepest == 1);
  CHECK(Counted("- - - x\n").deepest == 3);
  CHECK(Counted("x\n").deepest == 0);
  CHECK(Counted("").deepest == 0);
  CHECK(Counted("a: &x b\nc: *x\nd: [*x, *x]\n").aliases == 3);
}

TEST_CASE("nesting: a collection read before it is known to be a mapping's first key moves one level down") {
  // The tokenizer inserts the mapping above the key it has already read (NodeRecorder::InsertParent).
  CHECK(Counted("[a, [b]]: c\n").deepest == 3);
  CHECK(Counted("[[a, [b]]: c]\n").deepest == 4);
  CHECK(Counted("x:\n  {a: [b]}: c\n").deepest == 4);
  for (std::string_view text :
       {"[a, [b]]: c\n", "[[a, [b]]: c]\n", "x:\n  {a: [b]}: c\n", "- [[a]]: b\n  [c]: d\n", "&m\n&k [a]: b\n",
        "!t\n!!map {a: [b]}: c\n", "[{a: b}: [c, [d]]]\n", "? [a, [b]]\n: [c]\n", "[[a]: [b], [c]: [[d]]]\n",
        "a:\n  - [x]: y\n    [[z]]: w\n"}) {
    CheckAlike(text);
  }
}

TEST_CASE("nesting: malformed YAML counts the nodes read, as the spans do") {
  for (std::string_view text : {"a: [b, {c: [d\n", "- [a\n- ]]]\n", "[a]: b: c\n", "{[x]: y\n", "a: *\n*x: [*y\n",
                                "---\n[[a]]: b\n...\n--- [c, [d]]\n", "? - [a]\n  - b\n: c\n", "\"a\": [b]: c\n"}) {
    CheckAlike(text);
  }
}

TEST_CASE("nesting: every repository YAML file counts as its spans do") {
  std::size_t files = 0;
  for (const std::filesystem::path& file : testing::RepositoryYamlFiles()) {
    INFO(file.string());
    CheckAlike(testing::ReadFile(file));
    ++files;
  }
  CHECK(files > 100);
}

}  // namespace
}  // namespace safesubst
