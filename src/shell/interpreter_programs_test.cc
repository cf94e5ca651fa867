// SPDX-License-Identifier: Apache-2.0
// Values in the program text of other interpreters (interpreter_programs.h):
// where each placeholder lands, and, run under dash with the real
// GNU sed, busybox sed and awk, mawk, perl, python3, node and jq, that every
// value written lands as data (the program prints exactly the value) and no
// hostile value runs.
#include "interpreter_programs.h"

#include <doctest/doctest.h>

#include <ctime>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "program_places.h"
#include "real_shells.h"
#include "shell.h"
#include "shell_commands.h"
#include "test_support.h"

namespace safesubst {
namespace {

using testing::CheckMarks;
using testing::kPlaceholder;
using testing::Mark;
using testing::PlaceOf;

TEST_CASE("interpreter programs: the field of each placeholder, through each way of naming the program") {
  using O = ShellOperand;
  const std::vector<Mark> marks = {
      // sed: -e, --expression=, a bundle, -i with and without a suffix, the first operand, quoting switches.
      {"sed -i \"s/hello/${V}/\" f.txt", O::kProgramEscaped, "`sed` (the replacement of an s command)", "/\\\n&"},
      {"sed -e 's/a/b/' -e \"s|x|${V}|g\" f", O::kProgramEscaped, "`sed` (the replacement of an s command)", "|\\\n&"},
      {"sed --expression=\"s/${V}/x/\" f", O::kProgramText, "`sed` (the pattern of an s command)", "/\\\n["},
      {"sed -ne \"/${V}/p\" f", O::kProgramText, "`sed` (a regular expression)", "/\\\n["},
      {"sed -i.bak \"\\,${V},d\" f", O::kProgramText, "`sed` (a regular expression)", ",\\\n["},
      {"sed 's|a|'\"${V}\"'|' f.txt", O::kProgramEscaped, "`sed` (the replacement of an s command)", "|\\\n&"},
      {"sed 's/[/]/${V}/' f", O::kProgramEscaped, "`sed` (the replacement of an s command)", "/\\\n&"},
      {"sed \"1a ${V}\" f", O::kProgramText, "`sed` (the text of an a, i or c command)", "\\\n"},
      {"sed \"y/abc/${V}/\" f", O::kProgramText, "`sed` (a y command)", "/\\\n"},
      {"sed -n \"w ${V}\" f", O::kProgramText, "`sed` (a file name)", "\n"},
      {"sed -n \"${V}p\" f", O::kProgramCode, "`sed`", ""},
      {"sed \"s/a/b/;${V}\" f", O::kProgramCode, "`sed`", ""},
      {"sed \"s/a/${V}/e\" f", O::kProgramCode, "`sed` (an s command with the e flag)", ""},
      {"sed \"s/a/\\\\\\\\${V}/\" f", O::kProgramEscaped, "`sed` (the replacement of an s command)", "/\\\n&"},
      {"sed 's/a/\\'\"${V}/\" f", O::kProgramCode, "`sed`", ""},
      {"busybox sed \"s/a/${V}/\" f", O::kProgramEscaped, "`sed` (the replacement of an s command)", "/\\\n&"},
      {"env LC_ALL=C sed -i \"s/a/${V}/\" f", O::kProgramEscaped, "`sed` (the replacement of an s command)", "/\\\n&"},
      {"find . -name '*.conf' -exec sed -i \"s/a/${V}/\" {} +", O::kProgramEscaped,
       "`sed` (the replacement of an s command)", "/\\\n&"},
      {"xargs -n1 python3 -c \"print('${V}')\"", O::kProgramText, "`python3` (a string literal)", "'\\\n"},
      {"sh -c 'sed \"s/a/${V}/\" f'", O::kProgramEscaped, "`sed` (the replacement of an s command)", "/\\\n&"},
      // awk: the first operand, after -F, -v; strings, regular expressions, code.
      {"awk -F: -v n=1 \"{ print \\\"${V}\\\" }\" f", O::kProgramText, "`awk` (a string literal)", "\"\\\n"},
      {"awk \"/${V}/ { print }\" f", O::kProgramText, "`awk` (a regular expression literal)", "/\\\n["},
      {"awk \"{ print \\$${V} }\" f", O::kProgramCode, "`awk`", ""},
      {"awk \"{ x = 4 / 2; print \\\"${V}\\\" }\"", O::kProgramText, "`awk` (a string literal)", "\"\\\n"},
      {"awk \"{ x = 4 / 2 \\\"'\\\" / 1; print \\\"${V}\\\" }\"", O::kProgramCode, "`awk`", ""},
      // perl, python, node, jq.
      {"perl -pi -e \"s/a/${V}/g\" f", O::kProgramText, "`perl` (the replacement of a perl quote-like operator)",
       "/\\$@"},
      {"perl -lne \"print '${V}'\"", O::kProgramText, "`perl` (a single-quoted string)", "'\\"},
      {"perl -E \"say \\\"${V}\\\"\"", O::kProgramText, "`perl` (a double-quoted string)", "\"\\$@"},
      // q, qq, qw with a bracket pair (nesting) or any punctuation; qx and a blank before the delimiter: not followed.
      {"perl -e \"print qq{${V}\\n}\"", O::kProgramText, "`perl` (a qq string)", "}\\$@{"},
      {"perl -e \"print qq{a {b} ${V}}\"", O::kProgramText, "`perl` (a qq string)", "}\\$@{"},
      {"perl -e \"print q(${V})\"", O::kProgramText, "`perl` (a q or qw string)", ")\\("},
      {"perl -e \"print qq!${V}!\"", O::kProgramText, "`perl` (a qq string)", "!\\$@"},
      {"perl -e \"print join ',', qw[a ${V}]\"", O::kProgramText, "`perl` (a q or qw string)", "]\\["},
      {"perl -e \"print q(a), '${V}'\"", O::kProgramText, "`perl` (a single-quoted string)", "'\\"},
      {"perl -e \"print qx{echo ${V}}\"", O::kProgramCode, "`perl`", ""},
      {"perl -e \"print q {${V}}\"", O::kProgramCode, "`perl`", ""},
      // perl's interpolation evaluates `@{[ ]}`, `${ }` and a variable's subscripts: code.
      {"perl -e \"print \\\"@{[ ${V} ]}\\\"\"", O::kProgramCode, "`perl`", ""},
      {"perl -e \"my @a; print \\\"\\$a[${V}]\\\"\"", O::kProgramCode, "`perl`", ""},
      {"perl -e \"print qq{\\$h{${V}}}\"", O::kProgramCode, "`perl`", ""},
      {"perl -e \"print \\\"\\$r->[0] ${V}\\\"\"", O::kProgramCode, "`perl`", ""},
      {"perl -e \"print \\\"\\${name} \\$x @y ${V}\\\"\"", O::kProgramText, "`perl` (a double-quoted string)",
       "\"\\$@"},
      {"perl -pe \"s/\\$x[0]/${V}/\"", O::kProgramCode, "`perl`", ""},
      // Modules that run strings; where one is not installed here, read only (said in the line).
      {"python3 -c \"import pdb; pdb.run('print(${V})')\"", O::kProgramCode,
       "`python3` (a string literal, in a program that runs strings as code (eval))", ""},
      {"python3 -c \"import os, code as c; print('${V}')\"", O::kProgramCode,
       "`python3` (a string literal, in a program that runs strings as code (eval))", ""},
      {"python3 -c \"code = 1; print('${V}')\"", O::kProgramText, "`python3` (a string literal)", "'\\\n"},
      {"python3 -c \"import subprocess; subprocess.run(['echo', '${V}'])\"", O::kProgramShellText,
       "`python3` (a string literal, in a program that starts commands (system, exec, backticks, a pipe))", "'\\\n"},
      {"perl -MIPC::Run=run -e \"run ['echo', '${V}']\"  # IPC::Run: not installed, reading only", O::kProgramShellText,
       "`perl` (a single-quoted string, in a program that starts commands (system, exec, backticks, a pipe))", "'\\"},
      {"perl -e \"use IPC::System::Simple qw(run); run('echo ${V}')\"  # not installed, reading only",
       O::kProgramShellText,
       "`perl` (a single-quoted string, in a program that starts commands (system, exec, backticks, a pipe))", "'\\"},
      {"node -e \"require('execa').execaSync('echo', ['${V}'])\"  # execa: not installed, reading only",
       O::kProgramShellText,
       "`node` (a string literal, in a program that starts commands (system, exec, backticks, a pipe))", "'\\\n"},
      {"node -e \"require('shelljs').echo('${V}')\"  # shelljs: not installed, reading only", O::kProgramShellText,
       "`node` (a string literal, in a program that starts commands (system, exec, backticks, a pipe))", "'\\\n"},
      {"node -r child_process -e \"console.log('${V}')\"", O::kProgramShellText,
       "`node` (a string literal, in a program that starts commands (system, exec, backticks, a pipe))", "'\\\n"},
      {"exec node -e \"console.log('${V}')\"", O::kProgramText, "`node` (a string literal)", "'\\\n"},
      // A long option's name is no module (`--eval` is not eval); what follows its `=` may be one.
      {"node --eval \"console.log('${V}')\"", O::kProgramText, "`node` (a string literal)", "'\\\n"},
      {"node --require=child_process -e \"console.log('${V}')\"", O::kProgramShellText,
       "`node` (a string literal, in a program that starts commands (system, exec, backticks, a pipe))", "'\\\n"},
      {"node --require child_process --eval \"console.log('${V}')\"", O::kProgramShellText,
       "`node` (a string literal, in a program that starts commands (system, exec, backticks, a pipe))", "'\\\n"},
      {"perl -pe \"s/a/${V}/e\"", O::kProgramCode, "`perl` (an s operator with the e flag)", ""},
      {"python3 -c \"print('${V}')\"", O::kProgramText, "`python3` (a string literal)", "'\\\n"},
      {"python3 -Ic \"print(f'${V}')\"", O::kProgramText, "`python3` (a string literal)", "'\\\n{}"},
      // An f-string's or a template literal's expression is code; the string goes on after it.
      {"python3 -c \"print(f'{x} ${V}')\"", O::kProgramText, "`python3` (a string literal)", "'\\\n{}"},
      {"python3 -c \"print(f'{x:>{w}} {d[0]!r} {{ ${V}')\"", O::kProgramText, "`python3` (a string literal)",
       "'\\\n{}"},
      {"python3 -c \"print(f'{d[\\\"k\\\"]} ${V}')\"", O::kProgramText, "`python3` (a string literal)", "'\\\n{}"},
      {"python3 -c \"print(f'{${V}}')\"", O::kProgramCode, "`python3`", ""},
      {"python3 -c \"print(f'{x!r}' '${V}')\"", O::kProgramText, "`python3` (a string literal)", "'\\\n"},
      {"python3 -c \"print(f'{x + \\\"}\\\"}' + '${V}')\"", O::kProgramText, "`python3` (a string literal)",
       "'\\\n"},
      {"node -e \"console.log(\\`\\${a} ${V}\\`)\"", O::kProgramText, "`node` (a template literal)", "`\\$"},
      {"node -e \"console.log(\\`\\${${V}}\\`)\"", O::kProgramCode, "`node`", ""},
      {"/usr/bin/python3.11 -c \"print('''${V}''')\"", O::kProgramText, "`python3.11` (a string literal)", "'\\"},
      {"python3 -c \"import sys; sys.exit(${V})\"", O::kProgramCode, "`python3`", ""},
      {"node -e \"console.log('${V}')\"", O::kProgramText, "`node` (a string literal)", "'\\\n"},
      {"node --eval=\"console.log(\\`${V}\\`)\"", O::kProgramText, "`node` (a template literal)", "`\\$"},
      {"jq -r --arg a b \".x = \\\"${V}\\\"\" f.json", O::kProgramText, "`jq` (a string literal)", "\"\\"},
      // A program that starts commands: shell-inert values only.
      {"perl -e \"system(\\\"echo ${V}\\\")\"", O::kProgramShellText,
       "`perl` (a double-quoted string, in a program that starts commands (system, exec, backticks, a pipe))",
       "\"\\$@"},
      {"python3 -c \"import os; os.execvp('sh', ['sh', '-c', '${V}'])\"", O::kProgramShellText,
       "`python3` (a string literal, in a program that starts commands (system, exec, backticks, a pipe))",
       "'\\\n"},
      // Strings the program runs as its own code: only a decimal integer.
      {"perl -e \"eval '${V}'\"", O::kProgramCode, "`perl` (a single-quoted string, in a program that runs strings as code (eval))", ""},
      {"python3 -c \"exec('print(${V})')\"", O::kProgramCode, "`python3` (a string literal, in a program that runs strings as code (eval))", ""},
      {"node -e \"eval('${V}')\"", O::kProgramCode, "`node` (a string literal, in a program that runs strings as code (eval))", ""},
      {"python3 -c \"import timeit; timeit.timeit(\\\"print('${V}')\\\", number=1)\"", O::kProgramCode,
       "`python3` (a string literal, in a program that runs strings as code (eval))", ""},
      {"python3 -c \"import asyncio; asyncio.create_subprocess_shell('echo ${V}')\"", O::kProgramShellText,
       "`python3` (a string literal, in a program that starts commands (system, exec, backticks, a pipe))",
       "'\\\n"},
      // Not commands: perl's eval block, awk's `||`, a comment.
      {"perl -e \"eval { print '${V}' }\"", O::kProgramText, "`perl` (a single-quoted string)", "'\\"},
      {"awk \"{ if (a || b) print \\\"${V}\\\" }\"", O::kProgramText, "`awk` (a string literal)", "\"\\\n"},
      {"python3 -c \"import os; os.system('ls') # ${V}\"", O::kProgramText, "`python3` (a comment)", "\n"},
      // A here-string an interpreter reads as its program; sed -f - and awk -f /dev/stdin read here-documents.
      {"python3 <<< \"print('${V}')\"", O::kProgramText, "`python3` (a string literal)", "'\\\n"},
      {"sed -f - f <<EOF\ns/a/${V}/\nEOF", O::kProgramEscaped, "`sed` (the replacement of an s command)", "/\\\n&"},
      {"awk -f /dev/stdin <<'EOF'\nBEGIN { x = ${V} }\nEOF", O::kProgramCode, "`awk`", ""},
      // perl -n, -p and <> open their operands with the two-argument open.
      {"perl -ne 'print' \"${V}\"", O::kProgramText,
       "`perl` (a file name its -n, -p or <> loop opens with the two-argument open)", "|<>"},
      {"perl -e 'while (<>) { print }' a \"${V}\"", O::kProgramText,
       "`perl` (a file name its -n, -p or <> loop opens with the two-argument open)", "|<>"},
      {"perl -e 'while (<<>>) { print }' \"${V}\"", O::kNone, "", ""},
      // A here-document an interpreter reads as its program; a command substitution there is not followed.
      {"cat <<EOF\n${V}\nEOF\npython3 - <<EOF\nprint('${V}')\nEOF", O::kNone, "", ""},
      {"python3 - <<EOF\nimport sys\nprint('${V}')\nEOF", O::kProgramText, "`python3` (a string literal)", "'\\\n"},
      {"perl <<'EOF'\nprint \"${V}\";\nEOF", O::kProgramText, "`perl` (a double-quoted string)", "\"\\$@"},
      {"python3 - <<EOF\nx = '$(date)'\nprint('${V}')\nEOF", O::kProgramCode, "`python3`", ""},
      {"python3 app.py <<EOF\nprint('${V}')\nEOF", O::kNone, "", ""},
      {"python3 -m json.tool <<EOF\n{\"a\": \"${V}\"}\nEOF", O::kNone, "", ""},
  };
  CheckMarks(marks);
}

TEST_CASE("interpreter programs: options name the program as each interpreter reads them") {
  using O = ShellOperand;
  // GNU long options as getopt_long reads them (any unambiguous prefix), bundles, options taking a word;
  // languages without a scanner: anywhere in the program, code.
  const std::vector<std::pair<std::string_view, O>> places = {
      {"sed --expr=\"s/a/${V}/\" f", O::kProgramEscaped},
      {"sed --e=\"s/a/${V}/\" f", O::kProgramEscaped},
      {"sed -n --expression \"s/a/${V}/p\" f", O::kProgramEscaped},
      {"sed --quiet --expr \"${V}p\" f", O::kProgramCode},
      {"gawk --so \"BEGIN { x = ${V} }\"", O::kProgramCode},
      {"gawk --sourc=\"BEGIN { print \\\"${V}\\\" }\"", O::kProgramText},
      {"perl -Mstrict -we \"print '${V}'\"", O::kProgramText},
      {"perl -lne \"print ${V}\"", O::kProgramCode},
      {"perl -0777 -pe \"s/a/${V}/\" f", O::kProgramText},
      {"python3 -Sc \"print(${V})\"", O::kProgramCode},
      {"python3 -I -c \"print('${V}')\"", O::kProgramText},
      {"python3 --check-hash-based-pycs always -c \"print(${V})\"", O::kProgramCode},
      {"node -pe \"${V}\"", O::kProgramCode},
      {"node --input-type module -e \"console.log(${V})\"", O::kProgramCode},
      {"node --trace-warnings --eval=\"console.log(${V})\"", O::kProgramCode},
      {"pypy3 -c \"print(${V})\"", O::kProgramCode},
      {"python2 -c \"print '${V}'\"", O::kProgramText},
      {"ruby -e \"puts '${V}'\"", O::kProgramCode},
      {"php -r \"echo '${V}';\"", O::kProgramCode},
      {"lua5.4 -e \"print('${V}')\"", O::kProgramCode},
      {"Rscript -e \"cat('${V}')\"", O::kProgramCode},
      {"ruby <<EOF\nputs '${V}'\nEOF", O::kProgramCode},
  };
  for (auto [script, operand] : places) {
    CAPTURE(script);
    CHECK(PlaceOf(script).operand == operand);
  }
}

TEST_CASE("interpreter programs: data given beside a program is not program text") {
  for (std::string_view script :
       {"sed 's/a/b/' \"${V}\"", "sed -f prog.sed \"${V}\"", "awk -v x=\"${V}\" '{ print x }'", "awk -F\"${V}\" 1 f",
        "awk -f prog.awk \"${V}\"", "perl script.pl -e \"${V}\"", "python3 app.py -c \"${V}\"",
        "node app.js -e \"${V}\"", "ruby app.rb -e \"${V}\"", "php app.php -r \"${V}\"",
        "jq --arg v \"${V}\" '.x = $v' f", "echo \"${V}\" | sed 's/a/b/'", "grep -e \"${V}\" f", "ls sed \"${V}\""}) {
    CAPTURE(script);
    CHECK(PlaceOf(script).operand == ShellOperand::kNone);
  }
  CHECK_FALSE(MayRunPrograms("echo used based awkward perlish nodes"));
  CHECK(MayRunPrograms("x=1\n/usr/bin/python3 -c 'print(1)'"));
  CHECK(MayRunPrograms("gawk 1"));
}

// Each line prints the value through one interpreter; f.txt holds `hello`.
constexpr std::string_view kLines[] = {
    "sed \"s/hello/${V}/\" f.txt",
    "sed -e \"s|hello|${V}|g\" f.txt",
    "sed 's|hello|'\"${V}\"'|' f.txt",
    "sed --expression=\"s#hello#${V}#\" f.txt",
    "sed -i \"s/hello/${V}/\" f.txt && cat f.txt",
    "sed \"/hello/c ${V}\" f.txt",
    "sed --expr=\"s/hello/${V}/\" f.txt",
    "sed -n --e \"s/hello/${V}/p\" f.txt",
    "busybox sed \"s/hello/${V}/\" f.txt",
    "echo __API_URL__ > g.txt && sed -i \"s|__API_URL__|${V}|g\" g.txt && cat g.txt",
    "echo __API_URL__ > g.txt && busybox sed -i \"s|__API_URL__|${V}|g\" g.txt && cat g.txt",
    "busybox sed 's,hello,'\"${V}\"',' f.txt",
    "sh -c 'sed \"s/hello/${V}/\" f.txt'",
    "awk \"BEGIN { print \\\"${V}\\\" }\"",
    "awk 'BEGIN { print \"'\"${V}\"'\" }'",
    "busybox awk \"BEGIN { print \\\"${V}\\\" }\"",
    "perl -le \"print '${V}'\"",
    "perl -le \"print \\\"${V}\\\"\"",
    "perl -pe \"s/hello/${V}/\" f.txt",
    "perl -Mstrict -le \"print '${V}'\"",
    "perl -le \"print qq{${V}}\"",
    "perl -le \"print q(${V})\"",
    "perl -le \"print qq!${V}!\"",
    "python3 -c \"print('${V}')\"",
    "python3 -Sc \"print('${V}')\"",
    "python3 -c \"print(\\\"${V}\\\")\"",
    "python3 -c \"print(f'${V}')\"",
    "python3 -c \"print('''${V}''')\"",
    "python3 -c \"import asyncio; asyncio.run(asyncio.sleep(0)); print('${V}')\"",
    "python3 -c \"import codecs; print('${V}')\"",
    "node -e \"console.log('${V}')\"",
    "node -p \"\\`${V}\\`\"",
    "node -pe \"'${V}'\"",
    "node --input-type commonjs -e \"console.log('${V}')\"",
    "jq -rn \"\\\"${V}\\\"\"",
    "python3 - <<EOF\nprint('${V}')\nEOF",
    "python3 <<'EOF'\nprint(\"${V}\")\nEOF",
    "perl <<EOF\nprint \"${V}\\n\";\nEOF",
    "node - <<EOF\nconsole.log('${V}')\nEOF",
    "awk -f /dev/stdin <<EOF\nBEGIN { print \"${V}\" }\nEOF",
};

// The attacker's values (requests-s28.md 08:16 c) and their kin: each ends a
// field of one of the lines and runs `touch canary`.
constexpr std::string_view kHostile[] = {
    "x/;e touch canary #",
    "x|;e touch canary #",
    "x#;e touch canary #",
    "x\ne touch canary",
    "\"; system(\"touch canary\"); \"",
    "'; system('touch canary'); '",
    "@{[system('touch canary')]}",
    "$(touch canary)",
    "'); import os; os.system('touch canary'); ('",
    "\"); import os; os.system('touch canary'); (\"",
    "{__import__('os').system('touch canary')}",
    "'); require('child_process').execSync('touch canary'); ('",
    "${require('child_process').execSync('touch canary')}",
    "a\\'; system('touch canary'); #",
    "1p;e touch canary",
};

// Taken in every line; then values some lines refuse (a delimiter, perl's `@`).
constexpr std::string_view kBenign[] = {"v1.2.3", "my-app", "10.0.0.1", "hello world", "Hello_World-42"};
constexpr std::string_view kOrdinary[] = {"https://x.example/a?b=1", "a:b@c%d+e,f=g", "O'Brien", "50%",
                                          "https://x/y?a=1&b=2", "C:\\dir\\x", "two\nlines", "a|b#c,d&e\\1"};

std::string Expand(std::string_view line, std::string_view encoded) {
  const std::size_t at = line.find(kPlaceholder);
  return std::string(line.substr(0, at)) + std::string(encoded) + std::string(line.substr(at + kPlaceholder.size()));
}

// Values for a set of lines: every benign one is written in every line; the
// others may be refused (the refusal never shows the value).
struct Values {
  std::span<const std::string_view> benign, ordinary, hostile;
};

// Runs each line with each value written into it under dash: each value
// written prints exactly itself, and no hostile one runs (no canary).
void ProveUnderDash(std::span<const std::string_view> lines, const Values& values) {
  for (const char* tool : {"sed", "busybox", "awk", "perl", "python3", "node", "jq"}) {
    CHECK_MESSAGE(testing::HaveProgram(tool), tool << " is not installed (packaging/debian-test-deps.txt)");
  }
  // The interpreters are the point here: the shells' quoting is proved by shell_encoding_test.cc.
  const std::vector<testing::RealShell> shells = {testing::RealShells().front()};  // dash
  REQUIRE(testing::HaveProgram("dash"));
  std::vector<std::string> scripts, written;
  std::size_t refused = 0;
  for (std::string_view line : lines) {
    const ShellContext context = ShellContextsAt(line, {line.find(kPlaceholder)}).front();
    auto add = [&](std::string_view value) {
      std::string encoded;
      const std::string error = AppendShellEncoded(context, value, ShellMode::kSafe, &encoded);
      if (!error.empty()) {
        CHECK(error.find(value) == std::string::npos);
        ++refused;
        return false;
      }
      scripts.push_back("echo hello > f.txt\n" + Expand(line, encoded) + "\n");
      written.push_back(std::string(value));
      return true;
    };
    CAPTURE(line);
    for (std::string_view value : values.benign) {
      CAPTURE(value);
      CHECK(add(value));
    }
    for (std::string_view value : values.ordinary) add(value);
    for (std::string_view value : values.hostile) add(value);
  }
  MESSAGE(lines.size() << " lines: " << scripts.size() << " scripts run, " << refused << " values refused");
  testing::CheckScriptsPrintTheirValues(shells, scripts, written);
}

TEST_CASE("interpreter programs: under the real interpreters, a value written lands as data and none runs") {
  ProveUnderDash(kLines, {kBenign, kOrdinary, kHostile});
}

// sed's replacement with a punctuation delimiter, in GNU and busybox sed, in
// every quoting: any value is escaped (`\&`, `\|`, `\\`, backslash-newline).
constexpr std::string_view kSedReplacementLines[] = {
    "sed \"s/hello/${V}/\" f.txt",
    "sed -e \"s|hello|${V}|g\" f.txt",
    "sed 's#hello#'\"${V}\"'#' f.txt",
    "sed -i \"s@hello@${V}@\" f.txt && cat f.txt",
    "sed -f - f.txt <<EOF\ns/hello/${V}/\nEOF",
    "sed -f /dev/stdin f.txt <<'EOF'\ns%hello%${V}%\nEOF",
    "busybox sed \"s,hello,${V},\" f.txt",
    "busybox sed 's:hello:'\"${V}\"':' f.txt",
    "busybox sed -e \"s!hello!${V}!\" f.txt",
};

constexpr std::string_view kSedSpecial[] = {"\\", "a\\", "&", "\\1", "\\n", "x&y&&", "/|#,:@%!", "\n", "a\\\nb"};

TEST_CASE("interpreter programs: sed's replacement takes any value, escaped, byte-exact in GNU and busybox sed") {
  ProveUnderDash(kSedReplacementLines, {kBenign, {}, {}});
  ProveUnderDash(kSedReplacementLines, {kOrdinary, {}, {}});
  ProveUnderDash(kSedReplacementLines, {kSedSpecial, {}, {}});
  ProveUnderDash(kSedReplacementLines, {kHostile, {}, {}});
  // A letter or digit delimiter is not escaped (busybox reads `\n`, `\1` as escapes there): refused.
  std::string encoded;
  CHECK_FALSE(AppendShellEncoded(PlaceOf("sed \"sxhelloxa${V}x\" f"), "&", ShellMode::kSafe, &encoded).empty());
}

// Each line hands the value to a shell (dash: /bin/sh here), which prints it.
constexpr std::string_view kShellBoundLines[] = {
    "perl -e \"system(\\\"echo ${V}\\\")\"",
    "perl -e \"my \\$x = '${V}'; print \\`echo \\$x\\`\"",
    "perl -e \"open(my \\$f, 'echo ${V} |'); print <\\$f>\"",
    "perl -MIPC::Open2 -e \"my \\$p = open2(my \\$o, my \\$i, 'echo ${V}'); print <\\$o>\"",
    "perl -MIPC::Cmd=run -e \"my (\\$ok, \\$e, \\$out) = run(command => 'echo ${V}'); print @\\$out\"",
    "python3 -c \"import subprocess; subprocess.run(['echo', '${V}'])\"",
    "python3 -c \"import os; os.system('echo ${V}')\"",
    "python3 -c \"import subprocess; subprocess.run('echo ${V}', shell=True)\"",
    "python3 -c \"x = '${V}'; import os; print(os.popen('echo ' + x).read(), end='')\"",
    "node -e \"process.stdout.write(require('child_process').execSync('echo ${V}'))\"",
    "awk \"BEGIN { system(\\\"echo ${V}\\\") }\"",
    "awk \"BEGIN { print \\\"${V}\\\" | \\\"cat\\\" }\"",
    "awk \"BEGIN { \\\"echo ${V}\\\" | getline x; print x }\"",
    "sed \"s/hello/${V}/;s/^/echo /e\" f.txt",
    "sed \"s/hello/${V}/;s/^/echo /;e\" f.txt",
};

constexpr std::string_view kInert[] = {"v1.2.3", "my-app", "10.0.0.1", "Hello_World-42"};
// Inert too, but holding a stop of some of the literals (perl's `@`, sed's `/`); or not inert.
constexpr std::string_view kShellOrdinary[] = {"a:b@c%d+e,f", "/srv/x", "hello world", "https://x.example/a?b=1"};

// What a shell makes of a string: each runs `touch canary` if it reaches one unquoted.
constexpr std::string_view kShellHostile[] = {
    "x; touch canary", "$(touch canary)", "`touch canary`", "x|touch canary", "x && touch canary",
    "x\ntouch canary", "x'; touch canary; '", "x\"; touch canary; \"", "x%0a$(touch canary)", "x >canary",
};

TEST_CASE("interpreter programs: a string a program hands to a shell takes only shell-inert values") {
  ProveUnderDash(kShellBoundLines, {kInert, kShellOrdinary, kShellHostile});
  ProveUnderDash(kShellBoundLines, {{}, {}, kHostile});
}

TEST_CASE("interpreter programs: the plain substitution of the attacker's lines runs the value") {
  // Why the rule exists: without it, each of these creates the canary.
  const std::vector<testing::RealShell> shells = {testing::RealShells().front()};  // dash
  std::vector<std::string> scripts;
  for (auto [line, value] : std::vector<std::pair<std::string_view, std::string_view>>{
           {"sed \"s/hello/${V}/\" f.txt", "x/;e touch canary #"},
           {"awk \"BEGIN { print \\\"${V}\\\" }\"", "\"; system(\"touch canary\"); \""},
           {"perl -e \"print '${V}'\"", "'; system('touch canary'); '"},
           {"python3 -c \"print('${V}')\"", "'); import os; os.system('touch canary'); ('"},
           // Read before as the program `e` (node takes no attached code), the code word was plain data.
           {"node -pe \"'${V}'\"", "'+require('child_process').execSync('touch canary')+'"},
           // Strings handed to a shell: the old reading took any value without the literal's stops.
           {"perl -e \"system(\\\"echo ${V}\\\")\"", "x; touch canary"},
           {"python3 -c \"import os; os.system('echo ${V}')\"", "$(touch canary)"},
           {"sed \"s/hello/${V}/;s/^/echo /e\" f.txt", "x; touch canary"},
           // perl -n opened its operand with the two-argument open.
           {"perl -ne 'print' \"${V}\"", "touch canary|"},
           // python's profilers and the code module run a string as python (attacker s30 A10 c, s31 17:32).
           {"python3 -c \"import cProfile; cProfile.run('print(\\\"${V}\\\")')\"",
            "\"+__import__(\"os\").system(\"touch canary\")+\""},
           {"python3 -c \"import profile; profile.run('print(\\\"${V}\\\")')\"",
            "\"+__import__(\"os\").system(\"touch canary\")+\""},
           {"python3 -c \"import code; code.InteractiveInterpreter().runsource('print(\\\"${V}\\\")')\"",
            "\"+__import__(\"os\").system(\"touch canary\")+\""},
           {"python3 -c \"from code import InteractiveConsole as C; C().push('print(\\\"${V}\\\")')\"",
            "\"+__import__(\"os\").system(\"touch canary\")+\""},
           // IPC::Cmd's run hands its command to a shell.
           {"perl -MIPC::Cmd=run -e \"run(command => 'echo ${V}')\"", "x; touch canary"},
           // perl's "..." evaluated its `@{[ ... ]}` (read as string text before).
           {"perl -e \"print \\\"@{[ ${V} ]}\\\"\"", "system q(touch canary)"}}) {
    // Written for the shell only, as 773501a wrote it.
    scripts.push_back("echo hello > f.txt\n" + Expand(line, testing::ShellOnlyEncoding(line, value)) + "\n");
  }
  testing::TempDir work;
  const std::filesystem::path directory = testing::RunEachScriptUnderShells(work.path(), shells, scripts).front();
  CHECK(testing::ReadFile(directory / "canaries") == "0\n1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\n14\n");
}

template <typename Work>
double CpuSeconds(const Work& work) {
  const std::clock_t start = std::clock();
  work();
  return static_cast<double>(std::clock() - start) / CLOCKS_PER_SEC;
}

// Each placeholder used to rescan its program from the start (n × L): one
// sed program with 4,000 placeholders took 3.1 s, a python here-document of
// 8,000 lines 10.8 s; at the sizes below the old reading takes minutes. One
// scan per program now serves all of them, so the bound is generous.
TEST_CASE("interpreter programs: where an interpreter takes its program from, for the sink reader") {
  auto source = [](std::string_view script) {
    std::vector<ShWord> words;
    for (std::size_t at = 0; at < script.size();) {
      const std::size_t end = std::min(script.find(' ', at), script.size());
      ShWord& word = words.emplace_back();
      word.text = script.substr(at, end - at);
      at = end + 1;
    }
    return ProgramSourceOf(words);
  };
  CHECK(source("python3").from_stdin);
  CHECK(source("perl -").from_stdin);
  CHECK(source("sed -f - f").from_stdin);
  CHECK(source("gawk --file=/dev/stdin").from_stdin);
  CHECK(source("env node").name == "`node`");
  CHECK(source("sed -f").from_file);
  CHECK(source("python3 -u").from_stdin);
  CHECK_FALSE(source("python3 -c x").from_stdin);
  CHECK_FALSE(source("sed s/a/b/").from_stdin);
  CHECK_FALSE(source("sed s/a/b/").from_file);
  CHECK(source("cat").name.empty());
  // perl -n's operands: a file name, not a command.
  const ShellContext operand = PlaceOf("perl -ne 'print' \"${V}\"");
  std::string encoded;
  CHECK(AppendShellEncoded(operand, "/var/log/app-1.log", ShellMode::kSafe, &encoded).empty());
  CHECK_FALSE(AppendShellEncoded(operand, "touch canary|", ShellMode::kSafe, &encoded).empty());
  CHECK_FALSE(AppendShellEncoded(operand, ">/etc/passwd", ShellMode::kSafe, &encoded).empty());
}

TEST_CASE("interpreter programs: a program with many placeholders is read once") {
  struct Case {
    std::string_view head, line, tail;
  };
  for (const Case& shape : {Case{"sed -e \"", "s/a/${V}/;", "\" f\n"},
                            Case{"python3 - <<EOF\n", "print('${V}')\n", "EOF\n"},
                            Case{"perl -e \"", "print '${V}';", "\"\n"}}) {
    std::string script(shape.head);
    std::vector<std::size_t> offsets;
    for (int i = 0; i < 40000; ++i) {
      offsets.push_back(script.size() + shape.line.find(kPlaceholder));
      script += shape.line;
    }
    script += shape.tail;
    CAPTURE(shape.line);
    std::vector<ShellContext> contexts;
    const double cpu = CpuSeconds([&] { contexts = ShellContextsAt(script, offsets); });
    MESSAGE("40,000 placeholders in one program read in " << cpu << " s of CPU");
    CHECK(cpu < 10);
    REQUIRE(contexts.size() == offsets.size());
    CHECK(contexts.front().operand != ShellOperand::kNone);
    CHECK(contexts.back().operand != ShellOperand::kNone);
  }
}

TEST_CASE("interpreter programs: an exec-form argv (no shell) is read as the interpreter gets it") {
  using O = ShellOperand;
  struct ArgvMark {
    std::vector<std::string> argv;
    O operand;
    std::string_view by;
  };
  const std::vector<ArgvMark> marks = {
      {{"python3", "-c", "print('${V}')"}, O::kProgramText, "`python3` (a string literal)"},
      {{"/usr/bin/env", "python3", "-c", "import sys; sys.exit(${V})"}, O::kProgramCode, "`python3`"},
      {{"tini", "--", "sed", "-i", "s/a/${V}/", "f"}, O::kProgramEscaped, "`sed` (the replacement of an s command)"},
      // No shell: `$(...)`-free quotes are the program's own, a `"` is not removed.
      {{"perl", "-e", "print \"${V}\""}, O::kProgramText, "`perl` (a double-quoted string)"},
      {{"/docker-entrypoint.sh", "perl", "-e", "print '${V}'"}, O::kProgramText, "`perl` (a single-quoted string)"},
      {{"python3", "app.py", "${V}"}, O::kNone, ""},
      {{"echo", "${V}"}, O::kNone, ""},
  };
  for (const ArgvMark& mark : marks) {
    CAPTURE(mark.argv.back());
    const std::size_t item = mark.argv.size() - (mark.argv.back() == "f" ? 2 : 1);
    std::vector<ShellContext> contexts(1);
    AddArgvProgramReadings(mark.argv, {ArgvPlace{item, mark.argv[item].find(kPlaceholder)}}, &contexts);
    CHECK(contexts[0].operand == mark.operand);
    CHECK(contexts[0].evaluated_by == mark.by);
  }
  // Several places in one program, each with its own field.
  std::vector<ShellContext> contexts(3);
  const std::vector<std::string> argv = {"python3", "-c", "x = '${V}'; sys.exit(${V}) # ${V}"};
  AddArgvProgramReadings(argv, {{2, 5}, {2, 21}, {2, 29}}, &contexts);
  CHECK(contexts[0].operand == O::kProgramText);
  CHECK(contexts[1].operand == O::kProgramCode);
  CHECK(contexts[2].evaluated_by == "`python3` (a comment)");
}

TEST_CASE("interpreter programs: a text whose #! line names an interpreter is its program file") {
  using O = ShellOperand;
  struct FileMark {
    std::string program;
    O operand;
    std::string_view by;
  };
  const FileMark marks[] = {
      {"#!/usr/bin/env python3\nprint('${V}')\n", O::kProgramText, "`python3` (a string literal)"},
      {"#!/usr/bin/env python3\nimport os\nos.system('echo ${V}')\n", O::kProgramShellText,
       "`python3` (a string literal, in a program that starts commands (system, exec, backticks, a pipe))"},
      {"#!/usr/bin/env python3\nx = ${V}\n", O::kProgramCode, "`python3`"},
      {"#!/usr/bin/perl -w\nprint \"${V}\\n\";\n", O::kProgramText, "`perl` (a double-quoted string)"},
      {"#!/usr/bin/node\n// ${V}\n", O::kProgramText, "`node` (a comment)"},
      {"#!/usr/bin/awk -f\nBEGIN { print \"${V}\" }\n", O::kProgramText, "`awk` (a string literal)"},
      {"#!/bin/sed -f\ns/x/${V}/\n", O::kProgramEscaped, "`sed` (the replacement of an s command)"},
      {"#!/usr/bin/jq -f\n.a + \"${V}\"\n", O::kProgramText, "`jq` (a string literal)"},
      {"#!/usr/bin/env ruby\nputs '${V}'\n", O::kProgramCode, "`ruby`"},
      // The `#!` line itself is a comment to the language (its argument is the render's #!-line rule).
      {"#!/usr/bin/python3 ${V}\n", O::kProgramText, "`python3` (a comment)"},
      {"#!/bin/sh\necho '${V}'\n", O::kNone, ""},
      {"#!/app/run\nprint('${V}')\n", O::kNone, ""},
      {"print('${V}')\n", O::kNone, ""},
  };
  for (const FileMark& mark : marks) {
    CAPTURE(mark.program);
    std::vector<ShellContext> contexts(1);
    AddProgramFileReadings(mark.program, "", {mark.program.find(kPlaceholder)}, &contexts);
    CHECK(contexts[0].operand == mark.operand);
    CHECK(contexts[0].evaluated_by == mark.by);
  }
  // Without a `#!` line naming an interpreter, the file's name may say its language.
  const std::pair<std::string_view, std::string_view> names[] = {
      {"migrate.py", "`python3` (a string literal)"}, {"check.pl", "`perl` (a single-quoted string)"},
      {"Lib.pm", "`perl` (a single-quoted string)"},  {"app.js", "`node` (a string literal)"},
      {"app.mjs", "`node` (a string literal)"},       {"app.cjs", "`node` (a string literal)"},
      {"config.php", ""},                              {"app.rb", ""},
      {"settings.py.bak", ""},                         {"py", ""},
  };
  for (auto [name, by] : names) {
    CAPTURE(name);
    const std::string program = "x = '${V}'\n";
    std::vector<ShellContext> contexts(1);
    AddProgramFileReadings(program, name, {program.find(kPlaceholder)}, &contexts);
    CHECK(contexts[0].evaluated_by == by);
    std::vector<ShellContext> run_by_shebang(1);
    AddProgramFileReadings("#!/usr/bin/env node\n" + program, name, {20 + program.find(kPlaceholder)}, &run_by_shebang);
    CHECK(run_by_shebang[0].evaluated_by == "`node` (a string literal)");
  }
  CHECK(InterpreterOfFileName("f.awk") == "awk");
  CHECK(InterpreterOfFileName("f.sed") == "sed");
  CHECK(InterpreterOfFileName("f.jq") == "jq");
}

}  // namespace
}  // namespace safesubst
