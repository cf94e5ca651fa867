// SPDX-License-Identifier: Apache-2.0
#include "tokenizer.h"

#include <doctest/doctest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "test_support.h"

namespace safesubst {
namespace {

bool Same(const Reference& a, const Reference& b) {
  return a.kind == b.kind && a.context == b.context && a.line == b.line && a.column == b.column &&
         a.scalar == b.scalar && a.offset == b.offset && a.length == b.length && a.name == b.name && a.op == b.op &&
         a.operand == b.operand;
}

// The references of `text` found scalar by scalar must be Tokenize's scalar
// references, field for field, and the tokens otherwise the same.
void CheckFoundAgain(const std::string& text) {
  const Tokens whole = Tokenize(text);
  const Tokens tokens = detail::TokenizeWithoutReferences(text, TokenizerOptions{});
  CHECK(tokens.references.empty());
  CHECK(tokens.scalars.size() == whole.scalars.size());
  CHECK(tokens.diagnostics.size() == whole.diagnostics.size());
  std::vector<Reference> expected, found;
  for (const Reference& reference : whole.references) {
    if (reference.scalar != Reference::kNoScalar) expected.push_back(reference);
  }
  for (std::uint32_t i = 0; i < tokens.scalars.size(); ++i) {
    detail::ForEachReferenceOf(text, tokens, i, [&](const Reference& reference) { found.push_back(reference); });
  }
  std::vector<Reference> unlocated;  // the same but for line and column
  for (std::uint32_t i = 0; i < tokens.scalars.size(); ++i) {
    detail::ForEachReferenceOf(
        text, tokens, i, [&](const Reference& reference) { unlocated.push_back(reference); },
        detail::ReferencePlace::kOffsetOnly);
  }
  REQUIRE(found.size() == expected.size());
  REQUIRE(unlocated.size() == expected.size());
  for (std::size_t i = 0; i < found.size(); ++i) {
    INFO("reference " << i << ": " << text.substr(expected[i].offset, expected[i].length));
    CHECK(Same(found[i], expected[i]));
    unlocated[i].line = expected[i].line;
    unlocated[i].column = expected[i].column;
    CHECK(Same(unlocated[i], expected[i]));
  }
}

TEST_CASE("scalar references: found again scalar by scalar, as Tokenize records them") {
  CheckFoundAgain("a: ${A}\nb: \"x ${B:-d} $C\"\nc: |\n  one ${D}\r\n  two $E\n  ${F%.*}\n# ${G}\n");
  CheckFoundAgain("k: [${A}, '${B}', {x: $C}]\nm: >-\n  fold ${D}\n\n  more ${E}\n---\n\xef\xbb\xbfz: ${Z}\n");
  CheckFoundAgain("a: ${A\nb: ok ${B}\r\rc: $C\n");  // an unterminated form, lone CRs
  CheckFoundAgain("plain ${A}\n  over\n  lines $B\n");
}

TEST_CASE("scalar references: the same as Tokenize's on every template of the repository") {
  std::size_t templates = 0;
  for (const std::filesystem::path& file : testing::RepositoryYamlFiles()) {
    INFO(file.string());
    CheckFoundAgain(testing::ReadFile(file));
    ++templates;
  }
  CHECK(templates > 100);
}

}  // namespace
}  // namespace safesubst
