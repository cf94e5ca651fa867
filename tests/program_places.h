// SPDX-License-Identifier: Apache-2.0
// Where a placeholder `${V}` of a one-line script lands in another
// interpreter's program (interpreter_programs.h, sql_programs.h), for the
// tests of those readings. Compiled into the test program only.
#pragma once

#include <doctest/doctest.h>

#include <string>
#include <string_view>
#include <vector>

#include "shell.h"

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

}  // namespace safesubst::testing
