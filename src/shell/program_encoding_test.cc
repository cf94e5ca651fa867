// SPDX-License-Identifier: Apache-2.0
// The interpreter's layer of a value in program text, alone (as an exec-form
// argv takes it) and under the shell's quoting (AppendShellEncoded).
#include "program_encoding.h"

#include <doctest/doctest.h>

#include <string>

#include "shell.h"

namespace safesubst {
namespace {

ShellContext ProgramPlace(ShellOperand operand, std::string stops) {
  ShellContext context;
  context.operand = operand;
  context.evaluated_by = "`sed` (the replacement of an s command)";
  context.program_stops = std::move(stops);
  return context;
}

TEST_CASE("program encoding: a field refuses its stops, code takes a decimal integer, raw takes anything") {
  const ShellContext field = ProgramPlace(ShellOperand::kProgramText, "/\\\n");
  std::string out;
  CHECK(AppendProgramEncoded(field, "v1.2.3", ShellMode::kSafe, &out).empty());
  const std::string error = AppendProgramEncoded(field, "x/;e secret #", ShellMode::kSafe, &out);
  CHECK(error.find("`/`, `\\` or a newline would end that part") != std::string::npos);
  CHECK(error.find("secret") == std::string::npos);
  CHECK(out == "v1.2.3");
  const ShellContext code = ProgramPlace(ShellOperand::kProgramCode, "");
  CHECK(AppendProgramEncoded(code, "-42", ShellMode::kSafe, &out).empty());
  CHECK_FALSE(AppendProgramEncoded(code, "p", ShellMode::kSafe, &out).empty());
  CHECK(AppendProgramEncoded(code, "e reboot", ShellMode::kRaw, &out).empty());
  CHECK(AppendProgramEncoded(ProgramPlace(ShellOperand::kNone, ""), "a;b", ShellMode::kSafe, &out).empty());
  CHECK(out == "v1.2.3-42e reboota;b");
}

TEST_CASE("program encoding: inside a script, the program's layer comes before the shell's") {
  ShellContext context = ProgramPlace(ShellOperand::kProgramText, "/\\\n");
  context.state = ShellState::kDoubleQuoted;
  std::string out;
  CHECK(AppendShellEncoded(context, "a\"b$c", ShellMode::kSafe, &out).empty());
  CHECK(out == "a\\\"b\\$c");
  CHECK(AppendShellEncoded(context, "a/b", ShellMode::kSafe, &out).find("program text") != std::string::npos);
}

}  // namespace
}  // namespace safesubst
