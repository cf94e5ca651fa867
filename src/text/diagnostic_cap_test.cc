// SPDX-License-Identifier: Apache-2.0
#include "diagnostic_cap.h"

#include <doctest/doctest.h>

#include <string>

#include "tokenizer.h"

using namespace safesubst;

namespace {

Diagnostic At(Severity severity, int line) {
  return Diagnostic{severity, Location{"t.yaml", static_cast<std::uint32_t>(line), 1, 0}, "m", ""};
}

}  // namespace

TEST_CASE("diagnostic cap: errors and warnings are kept apart up to the limit, a note counts the rest") {
  Diagnostics diagnostics;
  detail::DiagnosticCap cap(&diagnostics, 2);
  // Warnings first: they must not crowd out the errors (HasErrors still tells).
  for (int i = 1; i <= 5; ++i) cap.Add(At(Severity::kWarning, i));
  for (int i = 6; i <= 9; ++i) cap.Add(At(Severity::kError, i));
  REQUIRE(diagnostics.size() == 5);
  CHECK(HasErrors(diagnostics));
  detail::CapDiagnostics(&diagnostics, 2, "t.yaml");
  REQUIRE(diagnostics.size() == 5);
  CHECK(diagnostics[0].location.line == 1);
  CHECK(diagnostics[1].location.line == 2);
  CHECK(diagnostics[2].location.line == 6);
  CHECK(diagnostics[3].location.line == 7);
  const Diagnostic& note = diagnostics.back();
  CHECK(note.severity == Severity::kNote);
  CHECK(note.location.file == "t.yaml");
  CHECK(note.omitted_errors == 2);
  CHECK(note.omitted_others == 3);
  CHECK(note.message == "2 more errors and 3 more warnings or notes not shown (at most 2 of each are kept)");
  CHECK(note.hint == "raise the limit with --max-errors (0 keeps them all)");
}

TEST_CASE("diagnostic cap: the notes of earlier caps add up in one, last") {
  Diagnostics first, second;
  detail::DiagnosticCap a(&first, 1), b(&second, 1);
  for (int i = 1; i <= 3; ++i) a.Add(At(Severity::kError, i));
  for (int i = 4; i <= 7; ++i) b.Add(At(Severity::kError, i));
  Diagnostics merged = first;
  merged.insert(merged.end(), second.begin(), second.end());
  merged.push_back(At(Severity::kWarning, 8));
  detail::CapDiagnostics(&merged, 1, "t.yaml");
  REQUIRE(merged.size() == 3);
  CHECK(merged[0].location.line == 1);
  CHECK(merged[1].location.line == 8);
  CHECK(merged.back().omitted_errors == 2 + 3 + 1);  // each cap's, and the second's kept error
  CHECK(merged.back().message.rfind("6 more errors and 0 more warnings or notes not shown", 0) == 0);
}

TEST_CASE("diagnostic cap: 0 keeps them all, and a list within the limit is left as it is") {
  Diagnostics diagnostics;
  for (int i = 1; i <= 100; ++i) diagnostics.push_back(At(Severity::kError, i));
  detail::CapDiagnostics(&diagnostics, 0, "t.yaml");
  CHECK(diagnostics.size() == 100);
  detail::CapDiagnostics(&diagnostics, 100, "t.yaml");
  CHECK(diagnostics.size() == 100);
  CHECK(diagnostics.back().omitted_errors == 0);
}

TEST_CASE("diagnostic cap: the tokenizer keeps max_errors of its errors and counts the rest") {
  std::string text = "a: \"";
  for (int i = 0; i < 100000; ++i) text += "${ ";
  text += "\"\n";
  Tokens tokens = Tokenize(text, TokenizerOptions{"t.yaml", 20});
  REQUIRE(tokens.diagnostics.size() == 21);
  CHECK(tokens.diagnostics[19].severity == Severity::kError);
  CHECK(tokens.diagnostics.back().omitted_errors == 100000 - 20);
  CHECK(Tokenize(text, TokenizerOptions{"t.yaml", 0}).diagnostics.size() == 100000);
}
