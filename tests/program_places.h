// SPDX-License-Identifier: Apache-2.0
// Where a placeholder `${V}` of a one-line script lands in another
// interpreter's program (interpreter_programs.h, sql_programs.h), for the
// tests of those readings. Compiled into the test program only.
#pragma once

#include <doctest/doctest.h>

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "real_shells.h"
#include "shell.h"
#include "test_support.h"

namespace safesubst::testing {

inline constexpr std::string_view kPlaceholder = "${V}";

/// The reading of the first `${V}` of `script` (inside a `sh -c` string: that string's).
inline ShellContext PlaceOf(std::string_view script) {
  const std::size_t at = script.find(kPlaceholder);
  REQUIRE(at != std::string_view::npos);
  const ShellContext context = ShellContextsAt(script, {at}, nullptr, ScriptShells::kSh).front();
  return context.reread.empty() ? context : context.reread.front();
}

/// A script and what its placeholder's reading must be.
struct Mark {
  std::string_view script;
  ShellOperand operand;
  std::string_view by;
  std::string_view stops;
};

inline void CheckMarks(const std::vector<Mark>& marks) {
  for (const Mark& mark : marks) {
    CAPTURE(mark.script);
    const ShellContext place = PlaceOf(mark.script);
    CHECK(place.operand == mark.operand);
    CHECK(place.evaluated_by == mark.by);
    CHECK(place.program_stops == mark.stops);
  }
}

/// `value` written at the first `${V}` of `line` for the shell alone, its
/// program's reading switched off: how the template was written before the
/// interpreter readings existed, for the proofs that such a value runs.
inline std::string ShellOnlyEncoding(std::string_view line, std::string_view value) {
  ShellContext context = ShellContextsAt(line, {line.find(kPlaceholder)}).front();
  REQUIRE(context.operand != ShellOperand::kNone);
  context.operand = ShellOperand::kNone;
  std::string encoded;
  REQUIRE(AppendShellEncoded(context, value, ShellMode::kSafe, &encoded).empty());
  return encoded;
}

/// Runs each of `scripts` under the first of `shells`: none may leave a
/// canary, and script i must print `written[i]` and a line break.
inline void CheckScriptsPrintTheirValues(const std::vector<RealShell>& shells, const std::vector<std::string>& scripts,
                                         const std::vector<std::string>& written) {
  TempDir work;
  const std::filesystem::path directory = RunEachScriptUnderShells(work.path(), shells, scripts).front();
  CHECK_MESSAGE(ReadFile(directory / "canaries").empty(), "canaries after scripts");
  for (std::size_t i = 0; i < scripts.size(); ++i) {
    CAPTURE(scripts[i]);
    CHECK(ReadFile(directory / ("out" + std::to_string(i))) == written[i] + "\n");
  }
}

}  // namespace safesubst::testing
