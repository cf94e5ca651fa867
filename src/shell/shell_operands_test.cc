// SPDX-License-Identifier: Apache-2.0
// Words a command evaluates (shell_operands.h): a value there runs code
// through a subscript (`a[$(cmd)]`) even in double quotes, under bash, mksh,
// zsh or posh. Such a value is refused, a number or a name is written, and
// every written script is RUN under the real shells: no canary.
#include "shell_operands.h"

#include <doctest/doctest.h>

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "real_shells.h"
#include "shell.h"
#include "test_support.h"

namespace safesubst {
namespace {

constexpr std::string_view kPlaceholder = "${V}";

ShellContext ContextOf(std::string_view script) {
  const std::size_t at = script.find(kPlaceholder);
  REQUIRE(at != std::string_view::npos);
  return ShellContextsAt(script, {at}, nullptr, ScriptShells::kSh).front();
}

struct Line {
  std::string_view script;
  ShellOperand operand;
  std::string_view by;
};

// The attacker's lines (requests.md, session 28), one a place.
const std::vector<Line>& Lines() {
  static const std::vector<Line> lines = {
      {"if [ \"${V}\" -gt 3 ]; then echo big; fi", ShellOperand::kArithmetic, "`[ -gt`"},
      {"[[ \"${V}\" -eq 1 ]] && echo one", ShellOperand::kArithmetic, "`[[ -eq`"},
      {"test 1 -le \"${V}\"", ShellOperand::kArithmetic, "`test -le`"},
      {"let \"n = ${V}\"", ShellOperand::kArithmetic, "`let`"},
      // Directly inside arithmetic, quoted or not, the lexer's state is kArithmetic (no operand needed).
      {"(( n = \"${V}\" ))", ShellOperand::kNone, ""},
      {"echo $(( \"${V}\" + 1 ))", ShellOperand::kNone, ""},
      {"echo $(( ${x:-${V}} + 1 ))", ShellOperand::kArithmetic, "an arithmetic expression"},
      {"typeset -i m; m=\"${V}\"", ShellOperand::kArithmetic, "`m`, an integer variable"},
      {"declare -i k=\"${V}\"", ShellOperand::kArithmetic, "`k`, an integer variable"},
      {"v=\"${V}\"; echo $((v+0))", ShellOperand::kArithmetic, "`v`, which the script uses in arithmetic"},
      {"v=\"${V}\"; echo $(($v+0))", ShellOperand::kArithmetic, "`v`, which the script uses in arithmetic"},
      {"set -- a b; shift \"${V}\"", ShellOperand::kArithmetic, "`shift`"},
      {"unset \"${V}\"", ShellOperand::kName, "`unset`"},
      {"declare -a \"arr=(${V})\"", ShellOperand::kName, "`declare` (a compound assignment, which it reads as code)"},
      {"printf -v \"${V}\" %s 1", ShellOperand::kName, "`printf -v`"},
      {"read \"${V}\" < f.txt", ShellOperand::kName, "`read`"},
      {"test -v \"${V}\"", ShellOperand::kName, "`test -v`"},
      {"declare \"${V}=1\"", ShellOperand::kName, "`declare`"},
      {"export \"${V}=1\"", ShellOperand::kName, "`export`"},
      {"f() { local \"${V}\"; }; f", ShellOperand::kName, "`local`"},
      {"getopts ab \"${V}\"", ShellOperand::kName, "`getopts`"},
      {"sh -c 'let n=${V}'", ShellOperand::kArithmetic, "`let`"},
      // Session 29: prefix words, every comparison of a test, references, limits, integer specials.
      {"command [ \"${V}\" -gt 3 ]", ShellOperand::kArithmetic, "`[ -gt`"},
      {"command -p test 3 -lt \"${V}\"", ShellOperand::kArithmetic, "`test -lt`"},
      {"builtin test \"${V}\" -gt 3", ShellOperand::kArithmetic, "`test -gt`"},
      {"\\[ \"${V}\" -gt 3 ]", ShellOperand::kArithmetic, "`[ -gt`"},
      {"! [ \"${V}\" -gt 3 ]", ShellOperand::kArithmetic, "`[ -gt`"},
      {"builtin let \"n = ${V}\"", ShellOperand::kArithmetic, "`let`"},
      {"command unset \"${V}\"", ShellOperand::kName, "`unset`"},
      {"[ 1 -eq 1 -a \"${V}\" -gt 3 ]", ShellOperand::kArithmetic, "`[ -gt`"},
      {"[ 1 -eq 2 -o 3 -lt \"${V}\" ]", ShellOperand::kArithmetic, "`[ -lt`"},
      {"[[ 1 -eq 1 && \"${V}\" -gt 2 ]] && echo two", ShellOperand::kArithmetic, "`[[ -gt`"},
      {"[[ 1 -eq 2 || 2 -lt \"${V}\" ]]", ShellOperand::kArithmetic, "`[[ -lt`"},
      {"[[ 1 -eq 1 && 2 -eq 2 && \"${V}\" -ne 0 ]]", ShellOperand::kArithmetic, "`[[ -ne`"},
      {"declare -n r=\"${V}\"; echo \"$r\"", ShellOperand::kName,
       "`declare` (a reference, whose value names a variable)"},
      {"f() { local -n r=\"${V}\"; echo \"$r\"; }; f", ShellOperand::kName,
       "`local` (a reference, whose value names a variable)"},
      {"typeset -n r=\"${V}\"; echo \"$r\"", ShellOperand::kName,
       "`typeset` (a reference, whose value names a variable)"},
      {"nameref r=\"${V}\"; echo \"$r\"", ShellOperand::kName,
       "`nameref` (a reference, whose value names a variable)"},
      {"declare -n r; r=\"${V}\"; echo \"$r\"", ShellOperand::kName,
       "`r`, a reference without a target, whose value names one"},
      {"time -p let \"x=${V}\"", ShellOperand::kArithmetic, "`let`"},
      {"a=(1 2); a[\"${V}\"]=3", ShellOperand::kArithmetic, "`a[...]`, an array subscript"},
      // Names spelled with quotes, env's options and operands (attacker, session 29, 11:30-12:08).
      {"l''et \"n = ${V}\"", ShellOperand::kArithmetic, "`let`"},
      {"\\t\\est \"${V}\" -gt 1", ShellOperand::kArithmetic, "`test -gt`"},
      {"env -u X BASH_ENV=\"${V}\" bash -c true", ShellOperand::kExpanded, "`BASH_ENV`"},
      {"env -C / BA''SH_ENV=\"${V}\" bash -c true", ShellOperand::kExpanded, "`BASH_ENV`"},
      {"find / -maxdepth 0 -exec env BASH_ENV=\"${V}\" bash -c true \\;", ShellOperand::kExpanded, "`BASH_ENV`"},
      {"env \"${V}\" bash -c true", ShellOperand::kEnvOperand, "`env`"},
      {"nice env -i echo${V} touch canary", ShellOperand::kEnvOperand, "`env`"},
      {"a=(1 2); a[${V}]+=3", ShellOperand::kArithmetic, "`a[...]`, an array subscript"},
      {"ulimit -n \"${V}\"", ShellOperand::kLimit, "`ulimit`"},
      {"ulimit -S -t \"${V}\"", ShellOperand::kLimit, "`ulimit`"},
      {"read -t \"${V}\" x < f.txt", ShellOperand::kArithmetic, "`read -t`"},
      {"read -n \"${V}\" x < f.txt", ShellOperand::kArithmetic, "`read -n`"},
      {"read -u \"${V}\" x 3< f.txt", ShellOperand::kArithmetic, "`read -u`"},
      {"RANDOM=\"${V}\"", ShellOperand::kArithmetic, "`RANDOM`, an integer variable"},
      {"OPTIND=\"${V}\"", ShellOperand::kArithmetic, "`OPTIND`, an integer variable"},
      {"export COLUMNS=\"${V}\"", ShellOperand::kArithmetic, "`COLUMNS`, an integer variable"},
      {"alias \"${V}=ls\"", ShellOperand::kName, "`alias`"},
      // The prompts and start-up files a shell expands again.
      {"PS4=\"${V}\"; set -x; true", ShellOperand::kExpanded, "`PS4`"},
      {"PS4=\"+ ${V} \" sh -xc true", ShellOperand::kExpanded, "`PS4`"},
      {"export BASH_ENV=\"${V}\"; bash -c true", ShellOperand::kExpanded, "`BASH_ENV`"},
      {"ENV=\"${V}\" sh -i -c true", ShellOperand::kExpanded, "`ENV`"},
      {"readonly PS1=\"${V}\"", ShellOperand::kExpanded, "`PS1`"},
      {"declare -x PS2=\"${V}\"", ShellOperand::kExpanded, "`PS2`"},
      {"PROMPT=\"${V}\"", ShellOperand::kExpanded, "`PROMPT`"},
      {"env PS4=\"${V}\" sh -xc true", ShellOperand::kExpanded, "`PS4`"},
      {"printf -v PS4 '+ %s ' \"${V}\"; set -x; true", ShellOperand::kExpanded, "`printf -v PS4`"},
      {"printf -v PROMPT_COMMAND 'echo %s' \"${V}\"", ShellOperand::kName, "`printf -v PROMPT_COMMAND`"},
      // Integer arrays, and aliases of the evaluating commands (session 30).
      {"typeset -ia n=(\"${V}\")", ShellOperand::kArithmetic, "`n`, an integer array"},
      {"declare -ia n; n=(1 \"${V}\")", ShellOperand::kArithmetic, "`n`, an integer array"},
      {"declare -ai n; n+=(\"${V}\")", ShellOperand::kArithmetic, "`n`, an integer array"},
      {"f() { local -ia n=(\"${V}\"); }; f", ShellOperand::kArithmetic, "`n`, an integer array"},
      {"alias l=let\nl \"n = ${V}\"", ShellOperand::kArithmetic, "`let`"},
      {"alias t=test\nt \"${V}\" -gt 1", ShellOperand::kArithmetic, "`test -gt`"},
      {"alias b='['\nb \"${V}\" -gt 1 ]", ShellOperand::kArithmetic, "`[ -gt`"},
  };
  return lines;
}

TEST_CASE("shell operands: each word a command evaluates is marked, with the command") {
  for (const Line& line : Lines()) {
    CAPTURE(line.script);
    const ShellContext context = ContextOf(line.script);
    const ShellContext& place = context.reread.empty() ? context : context.reread.front();
    CHECK(place.operand == line.operand);
    CHECK(place.evaluated_by == line.by);
    if (line.by.empty()) CHECK(place.state == ShellState::kArithmetic);
  }
}

TEST_CASE("shell operands: values, names and strings elsewhere are not operands") {
  for (std::string_view script :
       {"echo \"${V}\"", "export X=\"${V}\"", "local x=\"${V}\"", "[ \"${V}\" = yes ]", "test -n \"${V}\"",
        "read -r line; echo \"${V}\"", "printf '%s' \"${V}\"", "x=\"${V}\"; echo \"$x\"", "grep -v \"${V}\" f",
        "echo $(( 1 + 2 )) \"${V}\"", "declare -r R=\"${V}\"", "export -n X=\"${V}\"", "read -p \"${V}\" x",
        "command echo \"${V}\" -gt 1", "nice -n 5 echo \"${V}\"", "[[ 1 -eq 1 ]] && echo \"${V}\" -gt 1",
        "[[ 1 -eq 1 && \"${V}\" = x ]]", "alias ll=\"ls ${V}\"", "PS4X=\"${V}\"", "echo PS4=\"${V}\"",
        "declare -A m; m[\"${V}\"]=1", "typeset -A m; m[${V}]=1", "a[1]=\"${V}\"", "declare -a n=(\"${V}\")",
        "env -i kubectl label node n \"${V}\"", "#!/usr/bin/env bash\necho \"${V}\""}) {
    CAPTURE(script);
    CHECK(ContextOf(script).operand == ShellOperand::kNone);
  }
  CHECK_FALSE(MayEvaluateOperands("echo ${A} ${A}\nletter=1 readme shifted"));
  CHECK(MayEvaluateOperands("x=1; let x++"));
}

TEST_CASE("shell operands: a subscript is refused, a number or name is written, and nothing runs under real shells") {
  const std::vector<testing::RealShell> shells = testing::InstalledShells();
  std::vector<std::string> scripts;
  for (const Line& line : Lines()) {
    const ShellContext context = ContextOf(line.script);
    const std::size_t at = std::string_view(line.script).find(kPlaceholder);
    for (std::string_view value : {"a[$(touch canary)]", "x[`touch canary`]", "b[$(touch canary)]=1", "42", "abc"}) {
      CAPTURE(line.script);
      CAPTURE(value);
      std::string encoded;
      const std::string error = AppendShellEncoded(context, value, ShellMode::kSafe, &encoded);
      const bool number = value == "42", name = value == "abc";
      if (error.empty()) {
        const bool takes_name = line.operand == ShellOperand::kName || line.operand == ShellOperand::kExpanded;
        const bool env = line.operand == ShellOperand::kEnvOperand;  // anything but `=`
        CHECK((number || (name && takes_name) || (env && value.find('=') == std::string_view::npos)));
        scripts.push_back("echo hello > f.txt\n" + std::string(line.script.substr(0, at)) + encoded +
                          std::string(line.script.substr(at + kPlaceholder.size())) + "\n");
      } else {
        CHECK_FALSE(number);
        CHECK(error.find(value) == std::string::npos);
      }
    }
  }
  REQUIRE(scripts.size() > Lines().size());
  testing::TempDir work;
  const std::vector<std::filesystem::path> directories = testing::RunEachScriptUnderShells(work.path(), shells, scripts);
  for (std::size_t s = 0; s < shells.size(); ++s) {
    CAPTURE(shells[s].name);
    CHECK_MESSAGE(testing::ReadFile(directories[s] / "canaries").empty(), "canaries after scripts");
  }
}

}  // namespace
}  // namespace safesubst
