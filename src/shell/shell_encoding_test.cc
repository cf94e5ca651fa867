// SPDX-License-Identifier: Apache-2.0
// Unit tests of AppendShellEncoded: the exact bytes written in each state,
// and the values refused there. The end-to-end proof (running the encoded
// scripts under real shells) is in tests/integration/shell_hostile_test.cc.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "shell.h"

namespace safesubst {
namespace {

struct Encoded {
  std::string text;
  std::string error;
};

Encoded Encode(const ShellContext& context, std::string_view value, ShellMode mode = ShellMode::kSafe) {
  Encoded result;
  result.text = "<";  // something already in the buffer, to see that it is appended to
  result.error = AppendShellEncoded(context, value, mode, &result.text);
  if (result.error.empty()) {
    result.text.erase(0, 1);
  } else {
    CHECK(result.text == "<");  // nothing appended on error
    result.text.clear();
  }
  return result;
}

ShellContext InState(ShellState state) {
  ShellContext context;
  context.state = state;
  return context;
}

// The context at the `${P}` of `script`.
ShellContext ContextIn(std::string_view script) {
  std::size_t at = script.find("${P}");
  REQUIRE(at != std::string_view::npos);
  return ShellContextsAt(script, {at}).front();
}

TEST_CASE("shell encoding: double quotes escape \\ \" $ and backquote only") {
  ShellContext context = InState(ShellState::kDoubleQuoted);
  CHECK(Encode(context, "a\"b$c\\d`e").text == "a\\\"b\\$c\\\\d\\`e");
  CHECK(Encode(context, "it's 50% {a,b} * ~ ! # ; \n\t").text == "it's 50% {a,b} * ~ ! # ; \n\t");
  CHECK(Encode(context, "").text.empty());
  CHECK(Encode(context, "trailing\\").text == "trailing\\\\");
}

TEST_CASE("shell encoding: single quotes") {
  ShellContext context = InState(ShellState::kSingleQuoted);
  CHECK(Encode(context, "it's").text == "it'\\''s");
  CHECK(Encode(context, "'\\''").text == "'\\''\\'\\'''\\''");
  CHECK(Encode(context, "$(x) `y` \\ \" \n").text == "$(x) `y` \\ \" \n");
}

TEST_CASE("shell encoding: ordinary values pass in an unquoted word") {
  // (A string comparison: `-le` would evaluate its operand, shell_operands.h.)
  ShellContext context = ContextIn("[ \"$OCT3\" = ${P} ]");
  REQUIRE(context.state == ShellState::kUnquoted);
  for (std::string_view value : {"31", "10.0.1.10", "a=b", "50%", "fs-0123.efs.ap-northeast-2.amazonaws.com", "-n",
                                 "--help", "a#b", "user@host:/path", "x+y,z^w", "\xE2\x80\x9Cq\xE2\x80\x9D",
                                 "a\xC2\xA0" "b" /* U+00A0 is no blank to any shell */}) {
    CAPTURE(value);
    Encoded encoded = Encode(context, value);
    CHECK(encoded.error.empty());
    CHECK(encoded.text == value);
  }
}

TEST_CASE("shell encoding: values that would split, glob, redirect or run are refused unquoted") {
  ShellContext context = ContextIn("echo ${P}");
  struct Case {
    std::string_view value;
    std::string_view reason;
  };
  for (const Case& c : std::vector<Case>{
           {"a b", "whitespace"},    {"a\tb", "whitespace"},  {"a\nb", "whitespace"}, {"a;b", "semicolon"},
           {"a&&b", "ampersand"},    {"a|b", "vertical bar"}, {"a>b", "redirection"}, {"(a)", "parenthesis"},
           {"$HOME", "dollar sign"}, {"`id`", "backquote"},   {"a\\b", "backslash"},  {"a\"b", "quote"},
           {"it's", "quote"},        {"*.yaml", "glob"},      {"a?", "glob"},         {"[ab]", "glob"},
           {"{a,b}", "brace"},       {"!x", "exclamation"},   {"~root", "tilde"},     {"#x", "comment"},
           {"=ls", "zsh"},           {"a\rb", "control"},     {"a\x7f", "control"},
           // yash splits at these in a UTF-8 locale (attacker B4)
           {"x\xE3\x80\x80-delete", "Unicode space"}, {"a\xE1\x9A\x80" "b", "Unicode space"},
           {"a\xE2\x80\x8A" "b", "Unicode space"}, {"a\xE2\x81\x9F" "b", "Unicode space"}}) {
    CAPTURE(c.value);
    Encoded encoded = Encode(context, c.value);
    CHECK(encoded.error.find(c.reason) != std::string::npos);
    CHECK(encoded.error.find("unquoted") != std::string::npos);
    CHECK(encoded.error.find(c.value) == std::string::npos);
  }
  // An empty value removes a whole word, but not part of one.
  CHECK(!Encode(context, "").error.empty());
  CHECK(Encode(ContextIn("echo x${P}"), "").error.empty());
  // `#` and `=` only matter at a word start.
  CHECK(Encode(ContextIn("echo x${P}"), "#x").error.empty());
  CHECK(Encode(ContextIn("echo x${P}"), "=x").error.empty());
}

TEST_CASE("shell encoding: command names and case patterns") {
  ShellContext command = ContextIn("${P} --version");
  REQUIRE(command.command_word);
  CHECK(Encode(command, "kubectl").error.empty());
  CHECK(!Encode(command, "if").error.empty());
  CHECK(!Encode(command, "done").error.empty());
  CHECK(!Encode(command, "PATH=/tmp").error.empty());
  CHECK(Encode(command, "/usr/bin/env").error.empty());
  CHECK(Encode(ContextIn("echo ${P}"), "done").error.empty());  // just an argument
  // The value completes a word into an assignment: a name before it, or `=` after it.
  CHECK(!Encode(ContextIn("pre${P} echo hi"), "1=x").error.empty());
  CHECK(Encode(ContextIn("pre${P} echo hi"), "fix").error.empty());
  CHECK(!Encode(ContextIn("${P}=x echo hi"), "a").error.empty());
  CHECK(!Encode(ContextIn("${P}_X+=x echo hi"), "a").error.empty());
  CHECK(!Encode(ContextIn("${P}=x echo hi"), "1").error.empty());  // zsh: `1=x` sets $1
  CHECK(!Encode(command, "10=x").error.empty());
  CHECK(Encode(ContextIn("${P}=x echo hi"), "1a").error.empty());
  CHECK(Encode(ContextIn("./bin/${P} run"), "a=b").error.empty());  // a path, never an assignment
  CHECK(Encode(ContextIn("echo pre${P}"), "1=x").error.empty());     // an argument
  CHECK(!ContextIn("\"pre\"${P} x").name_before);                     // quotes: never a name

  ShellContext pattern = ContextIn("case $x in ${P}) ;; esac");
  REQUIRE(pattern.in_case_pattern);
  CHECK(!Encode(pattern, "esac").error.empty());
  CHECK(!Encode(pattern, "a|b").error.empty());
  CHECK(!Encode(pattern, "a)").error.empty());
  CHECK(!Encode(pattern, "*").error.empty());
  CHECK(Encode(pattern, "web-portal").error.empty());
  CHECK(Encode(pattern, "esac").error.find("unquoted case pattern") != std::string::npos);
}

TEST_CASE("shell encoding: ${...} words") {
  ShellContext quoted_value = ContextIn("echo \"${x:-${P}}\"");
  REQUIRE(quoted_value.parameter_word == ParameterWord::kValue);
  CHECK(Encode(quoted_value, "a}b\"c$d").text == "a\\}b\\\"c\\$d");
  CHECK(!Encode(quoted_value, "it's").error.empty());  // dash and bash disagree there
  ShellContext unquoted_value = ContextIn("echo ${x:-${P}}");
  CHECK(Encode(unquoted_value, "plain").text == "plain");
  CHECK(!Encode(unquoted_value, "a}b").error.empty());
  ShellContext pattern = ContextIn("echo \"${x#${P}}\"");
  CHECK(Encode(pattern, "prefix-").text == "prefix-");
  CHECK(!Encode(pattern, "*").error.empty());
  CHECK(Encode(pattern, "*").error.find("pattern") != std::string::npos);
}

TEST_CASE("shell encoding: places where dash, bash and zsh read quotes differently") {
  // bash alone brace-expands inside "${x-"..."}".
  ShellContext nested = ContextIn("echo \"${x-\"${P}\"}\"");
  REQUIRE(nested.bash_brace_expansion);
  CHECK(Encode(nested, "a b* $c").text == "a b* \\$c");
  CHECK(!Encode(nested, "{a,b}").error.empty());
  CHECK(!Encode(nested, "a,b").error.empty());
  CHECK(!Encode(nested, "1..3").error.empty());
  CHECK_FALSE(ContextIn("echo \"${P}\"").bash_brace_expansion);
  CHECK_FALSE(ContextIn("echo ${x-\"${P}\"}").bash_brace_expansion);
  // After a literal ' in "${x-...}" bash and dash disagree on where it ends.
  CHECK(!ContextIn("echo \"${x-'${P}'}\"").unsupported.empty());
  CHECK(ContextIn("echo \"${x-${P}'}\"").unsupported.empty());
  // ${x-...} in a here-document: zsh does not take \" as an escaped quote.
  ShellContext heredoc_parameter = ContextIn("cat <<E\n${x-${P}}\nE\n");
  REQUIRE(heredoc_parameter.parameter_word == ParameterWord::kValue);
  REQUIRE(heredoc_parameter.inside_heredoc);
  CHECK(Encode(heredoc_parameter, "a}b$c").text == "a\\}b\\$c");
  CHECK(!Encode(heredoc_parameter, "a\"b").error.empty());
  CHECK(!Encode(heredoc_parameter, "it's").error.empty());
}

TEST_CASE("shell encoding: a leading tilde in a ${...} word stays literal") {
  // mksh, posh and yash expand it in a here-document, yash in "..." too.
  CHECK(Encode(ContextIn("cat <<E\n${x-${P}}\nE\n"), "~root").text == "\"\"~root");
  CHECK(Encode(ContextIn("echo \"${x:+${P}}\""), "~/a~").text == "\"\"~/a~");
  CHECK(Encode(ContextIn("echo \"${x:+a${P}}\""), "b~").text == "b~");
  CHECK(Encode(ContextIn("echo \"${P}\""), "~").text == "~");
}

TEST_CASE("shell encoding: places inside $(...) that posh scans as unquoted text") {
  // posh looks for the `)` of a $(...) knowing neither comments, here-documents
  // nor a "..." within a "...": a parenthesis or quote there ends it early.
  ShellContext comment = ContextIn("r=\"$(\n# ${P}\necho after)\"");
  REQUIRE(comment.posh_scans_unquoted);
  CHECK(!Encode(comment, ")\"; touch canary;\"").error.empty());
  CHECK(!Encode(comment, "trailing\\").error.empty());
  CHECK(Encode(comment, "a; b | c").text == "a; b | c");
  ShellContext nested = ContextIn("r=$(echo \"$(echo \"${P}\")\")");
  REQUIRE(nested.posh_scans_unquoted);
  CHECK(!Encode(nested, "a)b").error.empty());
  CHECK(!Encode(nested, "it's").error.empty());
  CHECK(Encode(nested, "a\"b").text == "a\\\"b");
  CHECK(ContextIn("r=$(echo `echo \"${P}\"`)").posh_scans_unquoted == false);
  CHECK(ContextIn("r=$(echo \"`echo \"${P}\"`\")").posh_scans_unquoted);
  CHECK(ContextIn("r=$(cat <<E\n${P}\nE\n)").posh_scans_unquoted);
  CHECK_FALSE(ContextIn("r=\"$(echo \"${P}\")\"").posh_scans_unquoted);
  CHECK_FALSE(ContextIn("# ${P}\n").posh_scans_unquoted);
  CHECK_FALSE(ContextIn("echo \"${x-\"${P}\"}\"").posh_scans_unquoted);
}

TEST_CASE("shell encoding: a script for /bin/sh is written for every reading of it") {
  auto at = [](std::string_view script, ScriptShells shells) {
    return ShellContextsAt(script, {script.find("${P}")}, nullptr, shells)[0];
  };
  // dash reads `$'a\'b'` as `$`, 'a\' and an open quote.
  const std::string_view script = "printf '%s' $'a\\'b' '${P}' # '\n";
  ShellContext bash_only = at(script, ScriptShells::kBash);
  CHECK(bash_only.other_readings.empty());
  CHECK(Encode(bash_only, "; touch canary; #").text == "; touch canary; #");
  ShellContext sh = at(script, ScriptShells::kSh);
  REQUIRE(sh.other_readings.size() == 1);
  CHECK(sh.other_readings[0].shells == "dash");  // busybox ash reads $'...' as bash does
  CHECK(sh.state == ShellState::kSingleQuoted);
  CHECK(sh.other_readings[0].context.state == ShellState::kUnquoted);
  std::string error = Encode(sh, "; touch canary; #").error;
  CHECK(error.find("dash: unquoted") != std::string::npos);
  CHECK(error.find("bash: single-quoted") != std::string::npos);
  CHECK(Encode(sh, "web-portal").text == "web-portal");  // read literally either way
  // ((...)): arithmetic in bash, subshells for dash and busybox ash.
  ShellContext arithmetic = at("(( n = ${P} ))\n", ScriptShells::kSh);
  REQUIRE(arithmetic.other_readings.size() == 1);
  CHECK(arithmetic.other_readings[0].shells == "dash and busybox sh");
  CHECK(Encode(arithmetic, "31").text == "31");
  CHECK(!Encode(arithmetic, "n").error.empty());
  CHECK(!Encode(at("x=$[${P}]\n", ScriptShells::kSh), "n").error.empty());
  // Constructs that dash, busybox ash and bash run differently but quote
  // alike (checked by hand against the three): one reading.
  for (std::string_view alike :
       {"[[ a < b ]] && echo '${P}'\n", "echo {a,b} '${P}'\n", "cat <(echo x) '${P}'\n",
        "function f { echo '${P}'; }\n", "echo \"${x//a/b}\" '${P}'\n", "cat <<< x '${P}'\n",
        "f() { local x='${P}'; }\n", "echo $\"x\" '${P}'\n", "echo 'a\\nb' '${P}'\n"}) {
    CAPTURE(alike);
    CHECK(at(alike, ScriptShells::kSh).other_readings.empty());
  }
  // Nothing that the shells read alike is read three times.
  CHECK(at("printf '%s' \"${P}\" $'x'\n", ScriptShells::kSh).other_readings.empty());
  CHECK(Encode(at("echo $'\\'' \"${P}\"\n", ScriptShells::kSh), "it's").error.empty() == false);
}

TEST_CASE("shell encoding: comments") {
  ShellContext context = InState(ShellState::kComment);
  CHECK(Encode(context, "anything ; $(x) ' \" `").text == "anything ; $(x) ' \" `");
  CHECK(Encode(context, "a\rb").error.empty());
  CHECK(Encode(context, "a\ntouch canary").error.find("line break") != std::string::npos);
}

TEST_CASE("shell encoding: here-document bodies") {
  ShellContext expanding = ContextIn("cat <<EOF\n${P}\nEOF\n");
  REQUIRE(expanding.state == ShellState::kHeredocExpanding);
  CHECK(Encode(expanding, "a\"b'c $d `e` \\f").text == "a\"b'c \\$d \\`e\\` \\\\f");
  CHECK(Encode(expanding, "line1\nline2\n").text == "line1\nline2\n");
  CHECK(Encode(expanding, "EOFX\nXEOF\n EOF").error.empty());
  for (std::string_view value : {"EOF", "x\nEOF", "x\nEOF\ntouch canary", "EOF\n"}) {
    CAPTURE(value);
    CHECK(Encode(expanding, value).error.find("delimiter") != std::string::npos);
  }

  ShellContext literal = ContextIn("cat <<'EOF'\n${P}\nEOF\n");
  REQUIRE(literal.state == ShellState::kHeredocLiteral);
  CHECK(Encode(literal, "$x `y` \\z").text == "$x `y` \\z");
  CHECK(!Encode(literal, "a\nEOF\nb").error.empty());

  // The template's text around the placeholder counts.
  ShellContext prefixed = ContextIn("cat <<EOF\nE${P}\nEOF\n");
  CHECK(!Encode(prefixed, "OF").error.empty());
  CHECK(Encode(prefixed, "EOF").error.empty());
  ShellContext suffixed = ContextIn("cat <<EOF\n${P}F\nEOF\n");
  CHECK(!Encode(suffixed, "EO").error.empty());
  CHECK(!Encode(suffixed, "x\nEO").error.empty());
  CHECK(Encode(suffixed, "EO\nx").error.empty());
  // Another placeholder on the same line could supply the rest.
  ShellContext shared = ContextIn("cat <<EOF\n${A}${P}\nEOF\n");
  CHECK(!Encode(shared, "F").error.empty());
  CHECK(Encode(shared, "X").error.empty());

  // <<- strips leading tabs: from the delimiter line and from the value's lines.
  ShellContext tabs = ContextIn("cat <<-EOF\n\t${P}\n\tEOF\n");
  REQUIRE(tabs.heredoc_strip_tabs);
  CHECK(!Encode(tabs, "a\n\t\tEOF").error.empty());
  CHECK(Encode(tabs, "a\n\tb").error.find("tab") != std::string::npos);
  CHECK(Encode(tabs, "a\tb").error.empty());

  // Nested in $(...) inside a body: only single-line values.
  ShellContext nested = ContextIn("cat <<EOF\n$(echo \"${P}\")\nEOF\n");
  REQUIRE(nested.state == ShellState::kDoubleQuoted);
  REQUIRE(nested.inside_heredoc);
  CHECK(Encode(nested, "a \"b\"").text == "a \\\"b\\\"");
  CHECK(!Encode(nested, "a\nb").error.empty());
}

TEST_CASE("shell encoding: backtick layers") {
  ShellContext plain = ContextIn("x=`printf '%s' \"${P}\"`");
  // Inner text a\"b\$c\\d\`e, then every \ ` $ escaped once more (not " outside double quotes).
  CHECK(Encode(plain, "a\"b$c\\d`e").text == "a\\\\\"b\\\\\\$c\\\\\\\\d\\\\\\`e");
  ShellContext quoted = ContextIn("x=\"`printf '%s' \\\"${P}\\\"`\"");
  REQUIRE(quoted.backtick_layers == std::vector<bool>{true});
  CHECK(Encode(quoted, "a\"b").text == "a\\\\\\\"b");
  ShellContext single = ContextIn("x=\"`printf '%s' '${P}'`\"");
  CHECK(Encode(single, "it's").text == "it'\\\\''s");
  CHECK(Encode(single, "a\"b").text == "a\\\"b");
  ShellContext twice = ContextIn("x=`echo \\`echo '${P}'\\``");
  CHECK(Encode(twice, "$").text == "\\\\\\$");
}

TEST_CASE("shell encoding: arithmetic takes decimal integers only") {
  ShellContext context = InState(ShellState::kArithmetic);
  for (std::string_view value : {"0", "31", "-5", "123456789012345678"}) {
    CAPTURE(value);
    CHECK(Encode(context, value).text == value);
  }
  for (std::string_view value :
       {"", "-", "-0", "007", "0x1F", "1+1", "a[$(id)]", "x", "1234567890123456789", " 1"}) {
    CAPTURE(value);
    CHECK(Encode(context, value).error.find("decimal integer") != std::string::npos);
  }
}

TEST_CASE("shell encoding: $'...'") {
  ShellContext context = InState(ShellState::kDollarSingleQuoted);
  CHECK(Encode(context, "plain text \"ok\" $x").text == "plain text \"ok\" $x");
  CHECK(!Encode(context, "a\\nb").error.empty());
  CHECK(!Encode(context, "it's").error.empty());
}

TEST_CASE("shell encoding: NUL, raw mode and unsupported places") {
  for (ShellState state : {ShellState::kUnquoted, ShellState::kDoubleQuoted, ShellState::kSingleQuoted,
                           ShellState::kComment, ShellState::kHeredocLiteral}) {
    CHECK(Encode(InState(state), std::string_view("a\0b", 3)).error.find("NUL") != std::string::npos);
    CHECK(Encode(InState(state), std::string_view("a\0b", 3), ShellMode::kRaw).error.find("NUL") !=
          std::string::npos);
  }
  CHECK(Encode(ContextIn("echo ${P}"), "--opt1 --opt2 $HOME", ShellMode::kRaw).text == "--opt1 --opt2 $HOME");
  CHECK(Encode(InState(ShellState::kDoubleQuoted), "$HOME", ShellMode::kRaw).text == "$HOME");
  ShellContext after_backslash = ContextIn("echo \"\\${P}\"");
  CHECK(Encode(after_backslash, "x").error.find("backslash") != std::string::npos);
}

TEST_CASE("shell encoding: names and descriptions") {
  CHECK(ShellStateName(ShellState::kDoubleQuoted) == "double-quoted");
  CHECK(ShellStateName(ShellState::kHeredocLiteral) == "here-document (quoted delimiter)");
  CHECK(DescribeShellContext(ContextIn("x=\"$(echo ${P})\"")) == "unquoted, inside $(...)");
  CHECK(DescribeShellContext(ContextIn("case a in ${P}) ;; esac")) == "unquoted, in a case pattern");
  CHECK(DescribeShellContext(ContextIn("x=`echo \"${x:-${P}}\"`")) ==
        "double-quoted, in the word of ${...}, inside backticks");
  CHECK(DescribeShellContext(ContextIn("${P} arg")) == "unquoted, command name");
}

}  // namespace
}  // namespace safesubst

namespace safesubst {
namespace {

struct Random {
  std::uint64_t state;
  std::size_t Below(std::size_t n) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<std::size_t>((state >> 33) % n);
  }
};

// The lexer checks the encoder: once a value is written at a placeholder, the
// script right after the value must be in the state the template was in right
// after the placeholder, and everything later must read the same. (The
// hostile-values test proves the same with real shells, for fewer values.)
TEST_CASE("shell encoding: random values never change the state after them") {
  const std::string script =
      "echo ${P} \"${P}\" '${P}' x${P}y \"$(echo \"${P}\" '${P}' ${P})\" `echo \"${P}\" '${P}'` "
      "\"`echo \\\"${P}\\\" '${P}'`\" ${x:-${P}} \"${x:-${P}}\" \"${x-\"${P}\"}\" $(( ${P} )) $'${P}'\n"
      "case \"$v\" in ${P}) echo ${P} ;; \"${P}\") ;; esac # ${P}\n"
      "cat <<EOF; cat <<'EOF'; cat <<-EOF\n${P} \"${P}\" `echo \"${P}\"` $(echo '${P}') ${x-${P}}\nEOF\n"
      "a ${P} b\nEOF\n\t${P}\n\tEOF\necho done\n";
  std::vector<std::size_t> placeholders;
  for (std::size_t at = script.find("${P}"); at != std::string::npos; at = script.find("${P}", at + 1)) {
    placeholders.push_back(at);
  }
  std::vector<ShellContext> contexts = ShellContextsAt(script, placeholders);
  std::vector<std::size_t> after;
  for (std::size_t at : placeholders) after.push_back(at + 4);
  after.push_back(script.size() - 1);
  std::vector<ShellContext> expected = ShellContextsAt(script, after);

  const std::vector<std::string_view> alphabet = {
      "a", " ", "\t", "\n", "\"", "'", "`", "\\", "$", "$(", "${", "}",  "{",   ")",  "(", "#", ";",           "|",
      "&", "<", ">",  "*",  "?",  "[", "]", "~",  "!", "=",  ",",  "..", "EOF", "\r", "-", "1", "\xE2\x80\x9D"};
  Random random{987654321};
  std::size_t encoded_count = 0, refused_count = 0;
  for (int round = 0; round < 4000; ++round) {
    std::string value;
    std::size_t length = random.Below(12);
    for (std::size_t i = 0; i < length; ++i) value += alphabet[random.Below(alphabet.size())];
    std::string rendered;
    std::vector<std::size_t> rendered_after;
    std::size_t start = 0;
    for (std::size_t i = 0; i < placeholders.size(); ++i) {
      rendered.append(script, start, placeholders[i] - start);
      std::string error = AppendShellEncoded(contexts[i], value, ShellMode::kSafe, &rendered);
      if (!error.empty()) {
        ++refused_count;
        rendered += contexts[i].state == ShellState::kArithmetic ? "1" : "z";  // a stand-in every state accepts
      } else {
        ++encoded_count;
      }
      rendered_after.push_back(rendered.size());
      start = placeholders[i] + 4;
    }
    rendered.append(script, start);
    rendered_after.push_back(rendered.size() - 1);
    std::vector<ShellContext> actual = ShellContextsAt(rendered, rendered_after);
    for (std::size_t i = 0; i < actual.size(); ++i) {
      CAPTURE(value);
      CAPTURE(i);
      REQUIRE(ShellStateName(actual[i].state) == ShellStateName(expected[i].state));
      REQUIRE(actual[i].substitution_depth == expected[i].substitution_depth);
      REQUIRE(actual[i].backtick_layers == expected[i].backtick_layers);
      REQUIRE(actual[i].parameter_word == expected[i].parameter_word);
      REQUIRE(actual[i].in_case_pattern == expected[i].in_case_pattern);
      REQUIRE(actual[i].heredoc_delimiter == expected[i].heredoc_delimiter);
    }
  }
  CHECK(encoded_count > 10000);
  CHECK(refused_count > 10000);
}

// A value whose scalar stops or starts being a shell script after the render
// (render.cc checks this) is only harmless when it is written unchanged in
// every quoting state: IsShellInert promises exactly that.
TEST_CASE("shell encoding: an inert value is written unchanged wherever it is accepted") {
  const std::vector<std::string_view> inert = {"31", "10.0.1.10", "fs-1.efs.amazonaws.com", "user@host:/p",
                                               "50%", "a+b,c", "-n", "_x", "if"};
  const std::vector<std::string_view> not_inert = {"", "a b", "a=b", "#x", "~x", "a;b", "$x", "a'b", "a\"b",
                                                   "a*", "{a,b}", "x\n", "\xC3\xA9", "a^b"};
  const std::vector<std::string_view> scripts = {
      "echo ${P}", "echo \"${P}\"", "echo '${P}'", "${P} -x", "echo `echo ${P}`", "echo \"$(echo ${P})\"",
      "case $x in ${P}) ;; esac", "cat <<EOF\n${P}\nEOF\n", "cat <<'EOF'\n${P}\nEOF\n", "echo ${x:-${P}}",
      "echo $'${P}'", "echo ${P} # c"};
  for (std::string_view value : inert) {
    CAPTURE(value);
    CHECK(IsShellInert(value));
    for (std::string_view script : scripts) {
      CAPTURE(script);
      Encoded encoded = Encode(ContextIn(script), value);
      if (encoded.error.empty()) CHECK(encoded.text == value);
    }
  }
  for (std::string_view value : not_inert) {
    CAPTURE(value);
    CHECK_FALSE(IsShellInert(value));
  }
}

}  // namespace
}  // namespace safesubst
