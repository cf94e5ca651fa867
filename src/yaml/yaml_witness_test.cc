// SPDX-License-Identifier: Apache-2.0
#include "yaml_witness.h"

#include <doctest/doctest.h>

#include <string>

#include "yaml_load.h"

namespace safesubst::detail {
namespace {

bool WitnessAcceptsYaml(const std::string& text) { return ReadWithWitness(text) == WitnessVerdict::kAccepts; }
bool WitnessRefuses(const std::string& text) { return ReadWithWitness(text) == WitnessVerdict::kRefuses; }

bool YamlCppAccepts(const std::string& text) {
  try {
    CheckAllDocumentsParse(text);
    return true;
  } catch (const YAML::Exception&) {
    return false;
  }
}

}  // namespace

TEST_CASE("yaml_witness: Kubernetes documents, streams and the empty text are accepted") {
  for (const char* text : {"", "\n", "# only a comment\n", "a: 1\n", "---\na: 1\n---\n- x\n- {b: [1, 2]}\n...\n",
                           "spec:\n  containers:\n    - name: app\n      args: [\"--x\", '$(Y)']\n      command: |\n"
                           "        echo hi\n",
                           "---\na: !!str 1\n", "a: &x 1\nb: *x\n", "a: &x [*x]\n"}) {
    CAPTURE(text);
    CHECK(WitnessAcceptsYaml(text));
    CHECK(YamlCppAccepts(text));
  }
}

TEST_CASE("yaml_witness: an alias whose anchor is gone, later or in another document is refused") {
  for (const std::string text : {"b: *nowhere\n", "b: *x\na: &x 1\n", "a: &x 1\n---\nb: *x\n", "a: &xy 1\nb: *x\n"}) {
    CAPTURE(text);
    CHECK(WitnessRefuses(text));
    CHECK_FALSE(YamlCppAccepts(text));
  }
  // The anchor a later node defines again counts from there on.
  CHECK(WitnessAcceptsYaml("a: &x 1\nb: &x 2\nc: *x\n"));
}

TEST_CASE("yaml_witness: syntax errors are refused, quietly") {
  for (const std::string text : {"a: [1\n", "- a\nb: 1\n", "a: 1\n b: 2\n", ",\n", "a: 1\n---\n,\n",
                                 "key: \"\\q\"\n", "a:\n\t- x\n"}) {
    CAPTURE(text);
    CHECK(WitnessRefuses(text));
    CHECK_FALSE(YamlCppAccepts(text));
  }
  // Invalid YAML yaml-cpp accepts: refused, so the steps ask yaml-cpp, as before.
  CHECK(WitnessRefuses("a: 'open\n"));
  CHECK(YamlCppAccepts("a: 'open\n"));
}

TEST_CASE("yaml_witness: tags and directives libfyaml reads as YAML 1.1 did are left to yaml-cpp") {
  // Invalid, and libfyaml itself would take them (found by fuzzing).
  for (const std::string text : {"x: !! 3\n", "!! x\n", "%TAG !e! tag:e,2000:\n---\nx: !e! 3\n", "- !!!nt 42\n",
                                 "a: !]!str x\n", "- !!m,2000:app/\n", "a: !!st[r x\n", "%YAML\n"}) {
    CAPTURE(text);
    CHECK(ReadWithWitness(text) == WitnessVerdict::kLeavesToYamlCpp);
    CHECK_FALSE(YamlCppAccepts(text));
  }
  // Valid, and left to yaml-cpp all the same: a verbatim tag, a directive.
  for (const std::string text : {"x: !<tag:x> 3\n", "%YAML 1.2\n---\na: 1\n"}) {
    CAPTURE(text);
    CHECK(ReadWithWitness(text) == WitnessVerdict::kLeavesToYamlCpp);
    CHECK(YamlCppAccepts(text));
  }
  for (const std::string text : {"x: ! 3\n", "x: !!str 3\n", "x: !local 3\n", "x: !!binary aGk=\n"}) {
    CAPTURE(text);
    CHECK(WitnessAcceptsYaml(text));
    CHECK(YamlCppAccepts(text));
  }
}

TEST_CASE("yaml_witness: a property or `?` glued where the spec wants a separator is left to yaml-cpp") {
  // The attacker's F1 and F2: libfyaml takes them, yaml-cpp and the spec do not.
  for (const std::string text : {"k: &a{b}\n", "k: &a[b]\n", "- [&a{b}]\n", "{k: &a[b]}\n",
                                 "k: [?]\n", "k: {?}\n", "k: [?, a]\n", "k: {a: 1, ?}\n"}) {
    CAPTURE(text);
    CHECK(ReadWithWitness(text) == WitnessVerdict::kLeavesToYamlCpp);
    CHECK_FALSE(YamlCppAccepts(text));
  }
  // With the separator, or ending an empty node: accepted.
  for (const std::string text : {"k: &a {b: 1}\n", "k: !t [b]\n", "k: [&a, b]\n", "k: {a: &x}\n", "k: &a\n",
                                 "k: [? a]\n", "k: {? a : b}\n", "url: http://x/?a=b\n"}) {
    CAPTURE(text);
    CHECK(WitnessAcceptsYaml(text));
  }
}

TEST_CASE("yaml_witness: an empty key after properties and a two-line key in a flow sequence are left to yaml-cpp") {
  // libfyaml 0.7.12 takes both; the spec, yaml-cpp and the tokenizer do not.
  for (const std::string text : {"a: &x : b\n", "a: !t : b\n", "- a: &x : b\n", "[a\n b: c]\n", "- [a\n   b: c]\n",
                                 "k: [x, \"a\n b\": c]\n"}) {
    CAPTURE(text);
    CHECK(ReadWithWitness(text) == WitnessVerdict::kLeavesToYamlCpp);
    CHECK_FALSE(YamlCppAccepts(text));
  }
  // Their valid neighbours: the tokenizer reads them too, and they are accepted.
  for (const std::string text : {"a: &x\nb: c\n", ": b\n", "? : b\n", "\"\": b\n", "[a: b]\n", "[a\n , b: c]\n",
                                 "[{a\n b: c}]\n", "{a\n b: c}\n", "- [{a: 1}, b: 2]\n", "- &x : b\n"}) {
    CAPTURE(text);
    CHECK(ReadWithWitness(text) == WitnessVerdict::kAccepts);
  }
}

TEST_CASE("yaml_witness: a tab after `:`, `?` or `-` is left to yaml-cpp (libfyaml 0.7.12 crashes on some)") {
  // The attacker's F3: each of these made libfyaml crash in fy_parser_destroy.
  for (const std::string text : {"? a:\t-\n", "? a: \t-\n", "? \"a\":\t-\n", "? [a]:\t-\n", "? - a:\t-\n",
                                 "k:\n  ? a:\t-\n", "? a:\t?\n", "? a:\t:\n", "? a:\t- b\n"}) {
    CAPTURE(text);
    CHECK(ReadWithWitness(text) == WitnessVerdict::kLeavesToYamlCpp);
  }
  CHECK(ReadWithWitness("a:\tb\n") == WitnessVerdict::kLeavesToYamlCpp);
  // A tab elsewhere: read.
  CHECK(WitnessAcceptsYaml("run: |\n  echo\ta\n"));
  CHECK(WitnessAcceptsYaml("a: \"x\\ty\"\nb: c\td\n"));
}

TEST_CASE("yaml_witness: beyond its depth the witness leaves the text to yaml-cpp") {
  const auto nested = [](int depth) { return std::string(depth, '[') + std::string(depth, ']') + "\n"; };
  CHECK(WitnessAcceptsYaml(nested(250)));
  CHECK(ReadWithWitness(nested(251)) == WitnessVerdict::kLeavesToYamlCpp);
  CHECK(YamlCppAccepts(nested(251)));
  CHECK(ReadWithWitness(nested(600)) == WitnessVerdict::kLeavesToYamlCpp);
  CHECK_FALSE(YamlCppAccepts(nested(600)));
}

TEST_CASE("yaml_witness: text that is not plain UTF-8 is left to yaml-cpp") {
  // libfyaml would stop reading at the NUL.
  const std::string cut_short("a: 1\0\nb: [\n", 11);
  CHECK(ReadWithWitness(cut_short) == WitnessVerdict::kLeavesToYamlCpp);
  CHECK_FALSE(YamlCppAccepts(cut_short));
  // libfyaml 0.7.12 would never return from this directive (fuzzing found it).
  CHECK(ReadWithWitness("%\xff\xff\xffYAML 1.3\n---\n\"foo\"\n") == WitnessVerdict::kLeavesToYamlCpp);
  CHECK(ReadWithWitness("a: \xff\n") == WitnessVerdict::kLeavesToYamlCpp);
  CHECK(YamlCppAccepts("a: \xff\n"));
  CHECK(WitnessAcceptsYaml("a: caf\xc3\xa9 \xe2\x82\xac\n"));
}

}  // namespace safesubst::detail
