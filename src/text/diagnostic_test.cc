// SPDX-License-Identifier: Apache-2.0
#include "safesubst/diagnostic.h"

#include <doctest/doctest.h>

#include <string>

namespace safesubst {
namespace {

Diagnostic ErrorAt(std::uint32_t line, std::uint32_t column) {
  return MakeError(Location{"t.yaml", line, column, 0}, "bad", "fix it");
}

TEST_CASE("SourceText: lines by number, without their line breaks") {
  const SourceText source("a: 1\r\nb: 2\n\nlast");
  CHECK(source.Line(1) == "a: 1");
  CHECK(source.Line(2) == "b: 2");
  CHECK(source.Line(3).empty());
  CHECK(source.Line(4) == "last");
  CHECK(source.Line(5).empty());
  CHECK(source.Line(0).empty());
  CHECK(SourceText("x\n").Line(2).empty());
  CHECK(SourceText().Line(1).empty());
}

TEST_CASE("SourceText::Locate agrees with LocateOffset at every offset") {
  const std::string text = "a: 1\r\nb: 2\n\n  c: 3";
  const SourceText source(text);
  for (std::size_t offset = 0; offset <= text.size() + 2; ++offset) {
    CAPTURE(offset);
    const Location expected = LocateOffset(text, offset, "f");
    const Location located = source.Locate(offset, "f");
    CHECK(located.file == "f");
    CHECK(located.line == expected.line);
    CHECK(located.column == expected.column);
    CHECK(located.offset == expected.offset);
  }
}

TEST_CASE("FormatDiagnostic: a SourceText shows the same snippet as the text itself") {
  const std::string text = "first\n\tsecond: $X\r\n\nfourth";
  const SourceText source(text);
  for (std::uint32_t line = 0; line <= 6; ++line) {
    for (std::uint32_t column : {0u, 1u, 3u, 40u}) {
      const Diagnostic diagnostic = ErrorAt(line, column);
      CAPTURE(line);
      CAPTURE(column);
      CHECK(FormatDiagnostic(diagnostic, source, false) == FormatDiagnostic(diagnostic, text, false));
      CHECK(FormatDiagnostic(diagnostic, source, true) == FormatDiagnostic(diagnostic, text, true));
    }
  }
  CHECK(FormatDiagnostic(ErrorAt(2, 10), source, false) ==
        "t.yaml:2:10: error: bad\n"
        "  \tsecond: $X\n"
        "  \t        ^\n"
        "  hint: fix it\n");
}

TEST_CASE("FormatDiagnostic: a long line is shown as a window around the column, caret included") {
  std::string line;
  for (int i = 0; i < 1000; ++i) line += static_cast<char>('a' + i % 26);
  for (std::uint32_t column : {1u, 10u, 81u, 500u, 950u, 1000u}) {
    CAPTURE(column);
    const std::string text = FormatDiagnostic(ErrorAt(1, column), line, false);
    const std::size_t snippet_start = text.find('\n') + 1;
    const std::size_t snippet_end = text.find('\n', snippet_start);
    const std::string snippet = text.substr(snippet_start, snippet_end - snippet_start);
    const std::string caret_line = text.substr(snippet_end + 1, text.find('\n', snippet_end + 1) - snippet_end - 1);
    CHECK(snippet.size() <= 2 + 3 + 160 + 3);
    CHECK(snippet.starts_with(column > 81 ? "  ..." : "  ab"));
    CHECK(snippet.ends_with("...") == (column < 920));
    // The caret stands under the byte at the column.
    const std::size_t caret = caret_line.find('^');
    REQUIRE(caret < snippet.size());
    CHECK(snippet[caret] == line[column - 1]);
  }
}

}  // namespace
}  // namespace safesubst
