// SPDX-License-Identifier: Apache-2.0
#include "string_operations.h"

#include <doctest/doctest.h>

#include <string>
#include <string_view>
#include <vector>

#include "references.h"

namespace safesubst {
namespace {

// The one operation written in `text`, read and applied to `value`; the
// problem instead when there is one.
std::string Apply(std::string_view text, std::string_view value) {
  std::vector<Reference> references;
  ScanReferences(
      text, 0, text.size(), [&](const Reference& reference) { references.push_back(reference); },
      [](std::size_t) {});
  REQUIRE(references.size() == 1);
  REQUIRE(references[0].kind == RefKind::kOperation);
  StringOperation operation;
  std::string problem = ParseStringOperation(references[0], &operation);
  if (!problem.empty()) return "problem: " + problem;
  std::string result;
  problem = ApplyStringOperation(operation, value, &result);
  return problem.empty() ? result : "problem: " + problem;
}

bool Refused(std::string_view text, std::string_view value = "a/b.c") {
  return Apply(text, value).rfind("problem: ", 0) == 0;
}

struct Case {
  std::string_view text, value, expected;
};

// Expected values measured with drone/envsubst (clusterctl) and Flux's fork,
// and bash, which agree on every one of them.
TEST_CASE("string operations: the values Flux, clusterctl and bash compute") {
  const Case cases[] = {
      {"${X%.*}", "v1.2.3", "v1.2"},
      {"${X%%.*}", "v1.2.3", "v1"},
      {"${X#v}", "v1.2.3", "1.2.3"},
      {"${X#*.}", "v1.2.3", "2.3"},
      {"${X##*.}", "v1.2.3", "3"},
      {"${X##*/}", "registry.example.com/team/app:v1.2", "app:v1.2"},
      {"${X#*/}", "registry.example.com/team/app:v1.2", "team/app:v1.2"},
      {"${X%/*}", "registry.example.com/team/app:v1.2", "registry.example.com/team"},
      {"${X%%/*}", "registry.example.com/team/app:v1.2", "registry.example.com"},
      {"${X%%:*}", "registry.example.com/team/app:v1.2", "registry.example.com/team/app"},
      {"${X##*/}", "no-slash", "no-slash"},
      {"${X#?}", "v1.2.3", "1.2.3"},
      {"${X%?}", "v1.2.3", "v1.2."},
      {"${X%.*}", "", ""},
      {"${X/./-}", "v1.2.3", "v1-2.3"},
      {"${X//./-}", "v1.2.3", "v1-2-3"},
      {"${X//l/}", "Hello-World", "Heo-Word"},
      {"${X/e/}", "Hello-World", "Hllo-World"},
      {"${X/#v/V}", "v1.2.3", "V1.2.3"},
      {"${X/#x/V}", "v1.2.3", "v1.2.3"},
      {"${X/%2/9}", "app:v1.2", "app:v1.9"},
      {"${X/%1/9}", "app:v1.2", "app:v1.2"},
      {"${X//\\//-}", "a/b/c", "a-b-c"},
      {"${X//aa/b}", "aaaaa", "bba"},
      {"${X,,}", "Hello-World", "hello-world"},
      {"${X^^}", "Hello-World", "HELLO-WORLD"},
      {"${X,}", "Hello-World", "hello-World"},
      {"${X^}", "registry", "Registry"},
      {"${X^}", "", ""},
      {"${X:1}", "v1.2.3", "1.2.3"},
      {"${X:0:3}", "v1.2.3", "v1."},
      {"${X:2:100}", "v1.2.3", ".2.3"},
      {"${X:100}", "v1.2.3", ""},
      {"${X:0:0}", "v1.2.3", ""},
      {"${#X}", "registry.example.com/team/app:v1.2", "34"},
      {"${#X}", "", "0"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.text);
    CAPTURE(c.value);
    CHECK(Apply(c.text, c.value) == c.expected);
  }
}

// Each of these is read one way by Flux/clusterctl and another by bash
// (measured): the render refuses them instead of choosing.
TEST_CASE("string operations: forms Flux, clusterctl and bash read differently are refused") {
  for (std::string_view text : {
           "${X/*/z}",       // drone: literal `*`, bash: glob (z)
           "${X//?/z}",      // likewise
           "${X/a}",         // drone: error, bash: deletes
           "${X/#a/}",       // drone: unchanged, bash: deletes the prefix
           "${X/a/&&}",      // bash 5.2: `&` is the match
           "${X/a/~}",       // bash: tilde expansion
           "${X/a/$Y}",      // drone: literal `$Y`, bash: Y's value
           "${X/a/\\x}",     // drone keeps the backslash, bash drops it
           "${X%[a-z]}",     // drone reverses the pattern
           "${X#\\*}",       // likewise for a backslash
           "${X#*}",         // drone: one character, bash: nothing
           "${X%}",          // drone: error
           "${X#\"a\"}",     // bash removes the quotes
           "${X: -2}",       // drone: whole value, bash: last two
           "${X:1:-1}",      // drone: crash, bash: inner part
           "${X:010}",       // bash: octal
           "${X:1:}",        // drone: error
           "${X:N}",         // bash: arithmetic
           "${X,,[a-z]}",    // drone: error
       }) {
    CAPTURE(text);
    CHECK(Refused(text));
  }
}

TEST_CASE("string operations: counting characters of a value that is not ASCII is refused") {
  CHECK(Refused("${#X}", "caf\xc3\xa9"));
  CHECK(Refused("${X:1}", "caf\xc3\xa9"));
  CHECK(Refused("${X^^}", "caf\xc3\xa9"));
  CHECK(Refused("${X^}", "\xc3\xa9t\xc3\xa9"));
  CHECK(Refused("${X%?}", "caf\xc3\xa9"));
  // Literal and `*` patterns, replaces and a first character that is ASCII
  // do not count characters.
  CHECK(Apply("${X%\xc3\xa9}", "caf\xc3\xa9") == "caf");
  CHECK(Apply("${X%%.*}", "caf\xc3\xa9.txt") == "caf\xc3\xa9");
  CHECK(Apply("${X/\xc3\xa9/e}", "caf\xc3\xa9") == "cafe");
  CHECK(Apply("${X^}", "caf\xc3\xa9") == "Caf\xc3\xa9");
}

TEST_CASE("string operations: a long value with a star pattern takes linear time") {
  std::string value(1 << 20, 'a');
  value += ".tar.gz";
  CHECK(Apply("${X%%.*}", value) == std::string(1 << 20, 'a'));
  CHECK(Apply("${X%.*}", value) == std::string(1 << 20, 'a') + ".tar");
  CHECK(Apply("${X##*a}", value) == "r.gz");
}

}  // namespace
}  // namespace safesubst
