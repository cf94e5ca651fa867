// SPDX-License-Identifier: Apache-2.0
// The run map answers as the byte-by-byte map does, for scalars of every style.
#include "source_runs.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "tokenizer.h"

namespace safesubst {
namespace {

// Every scalar of `text` decodes alike both ways, and for every template
// offset the first decoded byte from it or after it is the same.
void CheckAgreesWithOffsets(const std::string& text) {
  const Tokens tokens = Tokenize(text);
  REQUIRE(tokens.diagnostics.empty());
  REQUIRE(!tokens.scalars.empty());
  SourceRuns runs;
  for (const Scalar& scalar : tokens.scalars) {
    std::vector<std::size_t> offsets;
    const std::string by_bytes = DecodeScalar(text, scalar, &offsets);
    INFO("scalar at line ", scalar.line, ": ", text.substr(scalar.offset, scalar.length));
    CHECK(DecodeScalar(text, scalar, &runs) == by_bytes);
    CHECK(runs.size() == offsets.size());
    for (std::size_t source = scalar.offset; source <= scalar.offset + scalar.length + 1; ++source) {
      const auto expected = static_cast<std::size_t>(std::lower_bound(offsets.begin(), offsets.end(), source) -
                                                     offsets.begin());
      INFO("template offset ", source);
      CHECK(runs.FirstFrom(source) == expected);
    }
    // Resolved in place, the offsets of the `$` bytes (which decode as themselves) get the same answers.
    std::vector<std::size_t> dollars, resolved;
    for (std::size_t at = text.find('$', scalar.offset); at < scalar.offset + scalar.length; at = text.find('$', at + 1)) {
      dollars.push_back(at);
    }
    resolved = dollars;
    SourceRuns resolving;
    resolving.ResolveInPlace(&resolved);
    CHECK(DecodeScalar(text, scalar, &resolving) == by_bytes);
    resolving.FinishResolving();
    for (std::size_t i = 0; i < dollars.size(); ++i) CHECK(resolved[i] == runs.FirstFrom(dollars[i]));
  }
}

TEST_CASE("source runs: plain and quoted scalars, escapes and folded lines") {
  CheckAgreesWithOffsets("a: one ${A} two\n"
                         "b: 'it''s ${B}'\n"
                         "c: \"tab\\there \\u00e9\\U0001F600 \\x41 ${C}\"\n"
                         "d: first\n  second ${D}\n\n  third\n"
                         "e: \"line \\\n  joined ${E}\"\n"
                         "f: \"  lead\n\n  trail  \"\n");
}

TEST_CASE("source runs: block scalars, each chomping, folding and CRLF") {
  CheckAgreesWithOffsets("a: |\n  echo ${A}\n    indented\n\n  last\n\n"
                         "b: |-\n  echo ${B} ${B}\n"
                         "c: |+\n  kept\n\n\n"
                         "d: >\n  folded ${D}\n  line\n\n  more\n    kept\n  end\n"
                         "e: |2\n   two ${E}\n");
  CheckAgreesWithOffsets("a: |\r\n  echo ${A}\r\n  next\r\n"
                         "b: >-\r\n  one\r\n  two ${B}\r\n");
}

TEST_CASE("source runs: a truncated decode drops whole and partial runs") {
  SourceRuns runs;
  runs.AddRange(10, 15);
  runs.Add(20);
  runs.Add(20);  // two bytes of one escape
  runs.AddRange(30, 33);
  REQUIRE(runs.size() == 10);
  CHECK(runs.FirstFrom(12) == 2);
  CHECK(runs.FirstFrom(16) == 5);
  CHECK(runs.FirstFrom(21) == 7);
  runs.Truncate(6);
  CHECK(runs.size() == 6);
  CHECK(runs.FirstFrom(20) == 5);
  CHECK(runs.FirstFrom(21) == 6);
  runs.Add(21);  // continues the run of the escape's first byte
  CHECK(runs.FirstFrom(21) == 6);
  CHECK(runs.FirstFrom(22) == 7);
}

}  // namespace
}  // namespace safesubst
