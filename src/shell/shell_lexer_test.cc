// SPDX-License-Identifier: Apache-2.0
// Unit tests of the shell lexer: the context ShellContextsAt reports at each
// `${P}` marker of small scripts, one construct at a time.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "shell.h"
#include "shell_lexer.h"

namespace safesubst {
namespace {

constexpr std::string_view kMarker = "${P}";

// The contexts at every `${P}` of `script`, in order.
std::vector<ShellContext> At(std::string_view script, Diagnostics* problems = nullptr) {
  std::vector<std::size_t> offsets;
  for (std::size_t at = script.find(kMarker); at != std::string_view::npos; at = script.find(kMarker, at + 1)) {
    offsets.push_back(at);
  }
  return ShellContextsAt(script, offsets, problems);
}

std::vector<ShellState> States(std::string_view script) {
  std::vector<ShellState> states;
  for (const ShellContext& context : At(script)) states.push_back(context.state);
  return states;
}

using S = ShellState;

TEST_CASE("shell lexer: the four basic states") {
  CHECK(States("echo ${P} \"${P}\" '${P}' # ${P}") ==
        std::vector<S>{S::kUnquoted, S::kDoubleQuoted, S::kSingleQuoted, S::kComment});
  // A quote inside the other kind of quotes is an ordinary character.
  CHECK(States("echo \"it's ${P}\" 'say \"${P}' ${P}") ==
        std::vector<S>{S::kDoubleQuoted, S::kSingleQuoted, S::kUnquoted});
  // Quotes end where they end, across lines.
  CHECK(States("x='a\n${P}\nb' ${P}\ny=\"\n${P}\" ${P}") ==
        std::vector<S>{S::kSingleQuoted, S::kUnquoted, S::kDoubleQuoted, S::kUnquoted});
}

TEST_CASE("shell lexer: comments start only at a word start") {
  CHECK(States("echo a#${P} x#y ${P}") == std::vector<S>{S::kUnquoted, S::kUnquoted});
  CHECK(States("echo a # ${P}\necho ${P}") == std::vector<S>{S::kComment, S::kUnquoted});
  CHECK(States("# ${P} \" ' $(\necho ${P}") == std::vector<S>{S::kComment, S::kUnquoted});
  CHECK(States("echo ${P}#${P}") == std::vector<S>{S::kUnquoted, S::kUnquoted});
  CHECK(States("echo \"#${P}\" ;#${P}") == std::vector<S>{S::kDoubleQuoted, S::kComment});
  CHECK(States("x=1 #${P}") == std::vector<S>{S::kComment});
  // `$#` is a parameter, not a comment.
  CHECK(States("echo $# ${P}") == std::vector<S>{S::kUnquoted});
}

TEST_CASE("shell lexer: escapes") {
  // A backslash-escaped quote does not open a string.
  CHECK(States("echo \\' ${P} \\\" ${P}") == std::vector<S>{S::kUnquoted, S::kUnquoted});
  CHECK(States("echo \"a \\\" ${P}\" ${P}") == std::vector<S>{S::kDoubleQuoted, S::kUnquoted});
  // In single quotes a backslash is literal: 'a\' ends the string.
  CHECK(States("echo 'a\\' ${P}") == std::vector<S>{S::kUnquoted});
  // An escaped backslash leaves the `$` active.
  std::vector<ShellContext> escaped_backslash = At("echo \\\\${P} \"\\\\${P}\"");
  CHECK(escaped_backslash[0].unsupported.empty());
  CHECK(escaped_backslash[1].unsupported.empty());
  // A placeholder right after an escaping backslash cannot take a value.
  for (std::string_view script : {"echo \\${P}", "echo \"\\${P}\"", "cat <<E\n\\${P}\nE\n", "echo ${x:-\\${P}}"}) {
    CAPTURE(script);
    std::vector<ShellContext> contexts = At(script);
    REQUIRE(contexts.size() == 1);
    CHECK(!contexts[0].unsupported.empty());
  }
  // ... but in single quotes and quoted here-documents a backslash is just a character.
  CHECK(At("echo '\\${P}'")[0].unsupported.empty());
  CHECK(At("cat <<'E'\n\\${P}\nE\n")[0].unsupported.empty());
  // Line continuation joins words.
  std::vector<ShellContext> continued = At("echo a\\\n${P}");
  CHECK(continued[0].state == S::kUnquoted);
  CHECK(!continued[0].word_start);
}

TEST_CASE("shell lexer: command substitution nests and starts quoting afresh") {
  std::vector<ShellContext> contexts =
      At("x=\"$(echo \"${P}\")\" y=\"$(echo ${P})\" z=\"$(echo '${P}')\" \"$(echo \"$(echo '${P}')\")\" ${P}");
  REQUIRE(contexts.size() == 5);
  CHECK(contexts[0].state == S::kDoubleQuoted);
  CHECK(contexts[0].substitution_depth == 1);
  CHECK(!contexts[0].in_backticks);
  CHECK(contexts[1].state == S::kUnquoted);
  CHECK(contexts[2].state == S::kSingleQuoted);
  CHECK(contexts[3].state == S::kSingleQuoted);
  CHECK(contexts[3].substitution_depth == 2);
  CHECK(contexts[4].state == S::kUnquoted);
  CHECK(contexts[4].substitution_depth == 0);
  // A `)` inside quotes or a comment does not close the substitution.
  CHECK(States("a=$(echo \")\" ')' \\)) ${P}") == std::vector<S>{S::kUnquoted});
  CHECK(States("a=$(echo x # ) ${P}\n) ${P}") == std::vector<S>{S::kComment, S::kUnquoted});
  CHECK(At("a=$(echo x # ) ${P}\n) ${P}")[1].substitution_depth == 0);
}

TEST_CASE("shell lexer: backticks are a layer of their own") {
  std::vector<ShellContext> plain = At("x=`echo ${P} \"${P}\"`");
  REQUIRE(plain.size() == 2);
  CHECK(plain[0].state == S::kUnquoted);
  CHECK(plain[0].in_backticks);
  CHECK(plain[0].backtick_layers == std::vector<bool>{false});
  CHECK(plain[1].state == S::kDoubleQuoted);

  std::vector<ShellContext> quoted = At("x=\"`echo \\\"${P}\\\"`\" ${P}");
  REQUIRE(quoted.size() == 2);
  CHECK(quoted[0].state == S::kDoubleQuoted);  // \" became " inside the backticks
  CHECK(quoted[0].backtick_layers == std::vector<bool>{true});
  CHECK(quoted[1].state == S::kUnquoted);
  CHECK(quoted[1].backtick_layers.empty());

  std::vector<ShellContext> nested = At("x=`echo \\`echo '${P}'\\``");
  REQUIRE(nested.size() == 1);
  CHECK(nested[0].state == S::kSingleQuoted);
  CHECK(nested[0].substitution_depth == 2);
  CHECK(nested[0].backtick_layers == std::vector<bool>{false, false});

  // $(...) inside backticks: the innermost substitution is not a backtick one.
  std::vector<ShellContext> mixed = At("x=`echo $(echo ${P})`");
  CHECK(mixed[0].substitution_depth == 2);
  CHECK(!mixed[0].in_backticks);
  CHECK(mixed[0].backtick_layers == std::vector<bool>{false});

  // A `\$` in backticks becomes `$` for the inner shell: the placeholder
  // follows an escaping backslash of the backtick layer.
  CHECK(!At("x=`echo \\${P}`")[0].unsupported.empty());
}

TEST_CASE("shell lexer: no value inside a double-quoted `...` with double quotes of its own") {
  // bash brace-expands `"`printf "%s" "{a,b}"`"` into two words (its outer
  // quote tracking stops at the inner quote); dash and the others do not.
  for (const char* script : {"rm \"`printf \"%s\" \"${P}\"`\"", "x=\"`echo \"a\" ${P}`\"",
                             "x=\"`echo \"a\" \\`echo ${P}\\``\""}) {
    CAPTURE(script);
    const std::vector<ShellContext> contexts = At(script);
    REQUIRE(contexts.size() == 1);
    CHECK(contexts[0].unsupported.find("write $(...) instead") != std::string::npos);
  }
  // Without inner quotes, or with them escaped (`\"`), or outside double quotes, all shells agree.
  for (const char* script : {"x=\"`echo ${P}`\"", "x=\"`echo \\\"${P}\\\"`\"", "x=`echo \"${P}\"`"}) {
    CAPTURE(script);
    const std::vector<ShellContext> contexts = At(script);
    REQUIRE(contexts.size() == 1);
    CHECK(contexts[0].unsupported.empty());
  }
}

TEST_CASE("shell lexer: ${...} words") {
  std::vector<ShellContext> contexts =
      At("a=\"${x:-${P}}\" b=${x:-${P}} c=\"${x:-\"${P}\"}\" d=\"${x#${P}}\" e=\"${x:-'${P}'}\" f=${x:-'${P}'} "
         "g=${x-\"a}b\"}${P} h=\"${x/${P}/${P}}\"");
  REQUIRE(contexts.size() == 9);
  CHECK(contexts[0].state == S::kDoubleQuoted);
  CHECK(contexts[0].parameter_word == ParameterWord::kValue);
  CHECK(contexts[1].state == S::kUnquoted);
  CHECK(contexts[1].parameter_word == ParameterWord::kValue);
  CHECK(contexts[2].state == S::kDoubleQuoted);  // "${x:-"y"}": the inner quotes start afresh
  CHECK(contexts[2].parameter_word == ParameterWord::kNone);
  CHECK(contexts[3].parameter_word == ParameterWord::kPattern);
  CHECK(contexts[4].state == S::kDoubleQuoted);  // single quotes are literal in "${x:-'y'}"
  CHECK(contexts[4].parameter_word == ParameterWord::kValue);
  CHECK(contexts[5].state == S::kSingleQuoted);  // ... but quote in ${x:-'y'}
  CHECK(contexts[6].state == S::kUnquoted);      // the } inside "a}b" did not end the expansion early
  CHECK(contexts[6].parameter_word == ParameterWord::kNone);
  CHECK(contexts[7].parameter_word == ParameterWord::kPattern);
  CHECK(contexts[8].parameter_word == ParameterWord::kValue);
  // ${#x}, ${x[1]}, $1, $@ do not confuse the reader.
  CHECK(States("echo ${#x} ${x[1]} $1 $@ ${@} ${P}") == std::vector<S>{S::kUnquoted});
}

TEST_CASE("shell lexer: here-documents") {
  std::string script =
      "cat <<EOF\n"
      "a ${P} b\n"
      "' \" $(\n"
      "EOF\n"
      "cat <<'EOF'\n"
      "${P}\n"
      "EOF\n"
      "cat <<\"EOF\"\n"
      "${P}\n"
      "EOF\n"
      "cat <<\\EOF\n"
      "${P}\n"
      "EOF\n"
      "cat <<-EOF\n"
      "\t${P}\n"
      "\tEOF\n"
      "cat << E\"N\"D >out; echo ${P}\n"
      "${P}\n"
      "END\n"
      "echo ${P}\n";
  std::vector<ShellContext> contexts = At(script);
  REQUIRE(contexts.size() == 8);
  CHECK(contexts[0].state == S::kHeredocExpanding);
  CHECK(contexts[0].heredoc_delimiter == "EOF");
  CHECK(contexts[0].line_before == "a ");
  CHECK(contexts[0].line_after == " b");
  CHECK(contexts[0].inside_heredoc);
  CHECK(contexts[1].state == S::kHeredocLiteral);
  CHECK(contexts[2].state == S::kHeredocLiteral);
  CHECK(contexts[3].state == S::kHeredocLiteral);
  CHECK(contexts[4].state == S::kHeredocExpanding);
  CHECK(contexts[4].heredoc_strip_tabs);
  CHECK(contexts[4].line_before == "\t");
  CHECK(contexts[5].state == S::kUnquoted);        // the rest of the operator's line is commands
  CHECK(contexts[6].state == S::kHeredocLiteral);  // partly quoted delimiter: literal body
  CHECK(contexts[6].heredoc_delimiter == "END");
  CHECK(contexts[7].state == S::kUnquoted);
  CHECK(!contexts[7].inside_heredoc);
}

TEST_CASE("shell lexer: two here-documents on one line, and inside $(...)") {
  std::vector<ShellContext> contexts =
      At("cat <<A; cat <<'B'\n${P}\nA\n${P}\nB\necho \"${P}\"\n"
         "x=$(cat <<EOF\n${P} $(echo ${P})\nEOF\n)\necho ${P}\n");
  REQUIRE(contexts.size() == 6);
  CHECK(contexts[0].state == S::kHeredocExpanding);
  CHECK(contexts[0].heredoc_delimiter == "A");
  CHECK(contexts[1].state == S::kHeredocLiteral);
  CHECK(contexts[1].heredoc_delimiter == "B");
  CHECK(contexts[2].state == S::kDoubleQuoted);
  CHECK(contexts[3].state == S::kHeredocExpanding);
  CHECK(contexts[3].substitution_depth == 1);
  CHECK(contexts[4].state == S::kUnquoted);  // $(...) inside a here-document body
  CHECK(contexts[4].inside_heredoc);
  CHECK(contexts[4].substitution_depth == 2);
  CHECK(contexts[5].state == S::kUnquoted);
  CHECK(contexts[5].substitution_depth == 0);
}

TEST_CASE("shell lexer: a here-document delimiter is no place for a value") {
  std::vector<ShellContext> contexts = At("cat <<${P}\nx\n${P}\n");
  REQUIRE(contexts.size() == 2);
  CHECK(!contexts[0].unsupported.empty());
}

TEST_CASE("shell lexer: case patterns") {
  std::string script =
      "case ${P} in\n"
      "  ${P}) echo ${P} ;;\n"
      "  a|${P}) echo \"${P}\";;\n"
      "  (${P}|\"${P}\") x ;;\n"
      "  *) case y in ${P}) ;; esac\n"
      "esac\n"
      "echo ${P} esac\n";
  std::vector<ShellContext> contexts = At(script);
  REQUIRE(contexts.size() == 9);
  CHECK(!contexts[0].in_case_pattern);  // the subject
  CHECK(contexts[1].in_case_pattern);
  CHECK(contexts[1].whole_word);
  CHECK(!contexts[2].in_case_pattern);
  CHECK(contexts[3].in_case_pattern);
  CHECK(!contexts[4].in_case_pattern);
  CHECK(contexts[4].state == S::kDoubleQuoted);
  CHECK(contexts[5].in_case_pattern);
  CHECK(contexts[6].in_case_pattern);
  CHECK(contexts[6].state == S::kDoubleQuoted);
  CHECK(contexts[7].in_case_pattern);  // nested case
  CHECK(!contexts[8].in_case_pattern);
  // A pattern's `)` inside $(...) does not close the substitution.
  std::vector<ShellContext> inside = At("r=$(case x in ${P}) echo ${P};; esac) ${P}");
  REQUIRE(inside.size() == 3);
  CHECK(inside[0].in_case_pattern);
  CHECK(inside[0].substitution_depth == 1);
  CHECK(!inside[1].in_case_pattern);
  CHECK(inside[1].substitution_depth == 1);
  CHECK(inside[2].substitution_depth == 0);
}

TEST_CASE("shell lexer: word position") {
  std::vector<ShellContext> contexts =
      At("${P} a; x=1 ${P}; echo ${P}x x${P} ${P}; if ${P}; then >f ${P}; fi\n[ \"$a\" -le ${P} ]");
  REQUIRE(contexts.size() == 8);
  CHECK(contexts[0].command_word);
  CHECK(contexts[0].whole_word);
  CHECK(contexts[1].command_word);  // after an assignment
  CHECK(!contexts[2].command_word);
  CHECK(contexts[2].word_start);
  CHECK(!contexts[2].whole_word);
  CHECK(!contexts[3].word_start);
  CHECK(contexts[4].whole_word);
  CHECK(contexts[5].command_word);  // after `if`
  CHECK(contexts[6].command_word);  // after a redirection
  CHECK(contexts[7].whole_word);
  CHECK(!contexts[7].command_word);
}

TEST_CASE("shell lexer: bash-isms and arithmetic") {
  CHECK(States("echo $'a ${P}' $\"${P}\" ${P}") ==
        std::vector<S>{S::kDollarSingleQuoted, S::kDoubleQuoted, S::kUnquoted});
  CHECK(States("echo $(( ${P} + 1 )) $[${P}] ${P}; (( x = ${P} ))") ==
        std::vector<S>{S::kArithmetic, S::kArithmetic, S::kUnquoted, S::kArithmetic});
  CHECK(States("echo $(( (1 + ${P}) * 2 )) ${P}") == std::vector<S>{S::kArithmetic, S::kUnquoted});
}

TEST_CASE("shell lexer: unicode quotes are ordinary characters") {
  std::vector<ShellContext> contexts = At("echo \xE2\x80\x9C${P}\xE2\x80\x9D \xE2\x80\x98${P}");
  REQUIRE(contexts.size() == 2);
  CHECK(contexts[0].state == S::kUnquoted);
  CHECK(!contexts[0].word_start);
  CHECK(contexts[1].state == S::kUnquoted);
}

TEST_CASE("shell lexer: malformed scripts are reported and still answered") {
  Diagnostics problems;
  std::vector<ShellContext> contexts = At("echo \"abc ${P}\necho ${P}", &problems);
  REQUIRE(contexts.size() == 2);
  CHECK(contexts[1].state == S::kDoubleQuoted);  // the string never ended
  REQUIRE(problems.size() == 1);
  CHECK(problems[0].severity == Severity::kWarning);
  CHECK(problems[0].location.line == 1);
  CHECK(problems[0].location.column == 6);
  CHECK(problems[0].message.find("unterminated double-quoted") != std::string::npos);

  Diagnostics more;
  At("cat <<EOF\nno end\n$(echo\n${x\n", &more);
  CHECK(more.size() >= 2);
}

TEST_CASE("shell lexer: deep nesting is refused, not a crash") {
  std::string script;
  for (int i = 0; i < 5000; ++i) script += "$(";
  script += "${P}";
  for (int i = 0; i < 5000; ++i) script += ")";
  script += " ${P}";
  Diagnostics problems;
  std::vector<ShellContext> contexts = At(script, &problems);
  REQUIRE(contexts.size() == 2);
  CHECK(!contexts[0].unsupported.empty());
  CHECK(!contexts[1].unsupported.empty());
  CHECK(!problems.empty());
  // The count goes on inside backticks (read by a child lexer).
  std::string backticks = "x=`";
  for (int i = 0; i < 300; ++i) backticks += "\"$(";
  backticks += "${P}";
  CHECK(!At(backticks)[0].unsupported.empty());
}

TEST_CASE("shell lexer: offsets in any order get their own answers") {
  std::string script = "echo '${P}' \"${P}\"";
  std::vector<ShellContext> contexts = ShellContextsAt(script, {script.find("\"${P}") + 1, script.find("${P}")});
  REQUIRE(contexts.size() == 2);
  CHECK(contexts[0].state == S::kDoubleQuoted);
  CHECK(contexts[1].state == S::kSingleQuoted);
}

}  // namespace
}  // namespace safesubst

namespace safesubst {
namespace {

// A small deterministic generator (the tests must not depend on the platform's
// std::uniform_int_distribution).
struct Random {
  std::uint64_t state;
  std::size_t Below(std::size_t n) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<std::size_t>((state >> 33) % n);
  }
};

// Fragments that open and close every construct the lexer knows.
const std::vector<std::string_view> kRandomPieces = {
    "echo ", "${P}",  "$x",   "\"",   "'",  "`",  "\\",      "$(",           ")",
    "(",     "${x:-", "}",    "{",    "#",  "\n", "<<EOF\n", "EOF\n",        "<<-'E'\n",
    "\tE\n", "case ", " in ", "esac", ";;", "|",  "$((",     "))",           "$'",
    "$\"",   ";",     "&&",   " ",    "\t", "=",  "a",       "\xE2\x80\x9C", "<<",
    ">",     "[",     "]",    "*",    "~",  "\r"};

TEST_CASE("shell lexer: random scripts are read without crashing, every offset answered") {
  Random random{12345};
  for (int round = 0; round < 3000; ++round) {
    std::string script;
    std::size_t length = 1 + random.Below(40);
    for (std::size_t i = 0; i < length; ++i) script += kRandomPieces[random.Below(kRandomPieces.size())];
    std::vector<std::size_t> offsets;
    for (std::size_t at = 0; at <= script.size(); at += 1 + random.Below(4)) offsets.push_back(at);
    Diagnostics problems;
    std::vector<ShellContext> contexts = ShellContextsAt(script, offsets, &problems);
    REQUIRE(contexts.size() == offsets.size());
    for (const Diagnostic& problem : problems) CHECK(problem.location.offset <= script.size());
  }
}

// Without `problems` the lexer stops once every offset is answered; the
// answers must be exactly those of a full read, whatever follows them.
TEST_CASE("shell lexer: stopping after the last answer changes no answer") {
  Random random{777};
  int compared = 0;
  for (int round = 0; round < 3000; ++round) {
    std::string script;
    std::size_t length = 1 + random.Below(40);
    for (std::size_t i = 0; i < length; ++i) script += kRandomPieces[random.Below(kRandomPieces.size())];
    std::vector<std::size_t> offsets;
    // Offsets in the first part only, so that there is something left to skip.
    for (std::size_t at = 0; at <= script.size() / 2; at += 1 + random.Below(6)) offsets.push_back(at);
    Diagnostics problems;
    const std::vector<ShellContext> full = ShellContextsAt(script, offsets, &problems);
    const std::vector<ShellContext> early = ShellContextsAt(script, offsets);
    REQUIRE(full.size() == early.size());
    for (std::size_t i = 0; i < full.size(); ++i) {
      CAPTURE(script);
      CAPTURE(offsets[i]);
      CHECK(SameReading(full[i], early[i]));
      ++compared;
    }
  }
  CHECK(compared > 10000);
}

// The lexer moves over runs of ordinary characters in one step, but never
// past an offset it was asked about. Asked about every offset, it steps one
// character at a time; asked about a few, it skips. Both must give the same
// answer at each offset, and the same problems.
TEST_CASE("shell lexer: skipping ordinary characters changes no answer") {
  Random random{4242};
  const std::vector<std::string_view> runs = {"abcdefgh", "some_long-word.txt", "x y z", "/usr/bin/env"};
  int compared = 0;
  for (int round = 0; round < 2000; ++round) {
    std::string script;
    std::size_t length = 1 + random.Below(40);
    for (std::size_t i = 0; i < length; ++i) {
      if (random.Below(3) == 0) {
        script += runs[random.Below(runs.size())];
      } else {
        script += kRandomPieces[random.Below(kRandomPieces.size())];
      }
    }
    std::vector<std::size_t> every;
    for (std::size_t at = 0; at <= script.size(); ++at) every.push_back(at);
    Diagnostics stepped_problems;
    const std::vector<ShellContext> stepped = ShellContextsAt(script, every, &stepped_problems);
    std::vector<std::size_t> some;
    for (std::size_t at = random.Below(8); at <= script.size(); at += 1 + random.Below(16)) some.push_back(at);
    for (bool with_problems : {true, false}) {
      Diagnostics skipped_problems;
      const std::vector<ShellContext> skipped =
          ShellContextsAt(script, some, with_problems ? &skipped_problems : nullptr);
      REQUIRE(skipped.size() == some.size());
      for (std::size_t i = 0; i < some.size(); ++i) {
        CAPTURE(script);
        CAPTURE(some[i]);
        CHECK(SameReading(stepped[some[i]], skipped[i]));
        ++compared;
      }
      if (!with_problems) continue;
      REQUIRE(skipped_problems.size() == stepped_problems.size());
      for (std::size_t i = 0; i < skipped_problems.size(); ++i) {
        CHECK(skipped_problems[i].message == stepped_problems[i].message);
        CHECK(skipped_problems[i].location.offset == stepped_problems[i].location.offset);
      }
    }
  }
  CHECK(compared > 10000);
}

// ---- the event interface (ReadShell) ---------------------------------------

// Writes the events of a read as one line of text: `[` `]` around a command
// list, `;` at a command end (`|` when piped), each word as its text after
// quote removal, `:` and its role, `$NAME` at a parameter.
class Trace : public ShellEvents {
 public:
  std::string out;

  void ListBegin() override {
    out += "[";
    words_.emplace_back();
  }
  void ListEnd() override {
    out += "]";
    words_.pop_back();
  }
  void CommandEnd(bool piped) override { out += piped ? "| " : "; "; }
  void WordBegin(std::size_t) override { words_.back().clear(); }
  void WordText(std::string_view text, std::size_t, ShellQuoting) override { words_.back() += text; }
  void WordExpansion(std::string_view raw, std::size_t, bool) override { words_.back() += raw; }
  void WordEnd(std::size_t, std::string_view, ShellWordRole role) override {
    static constexpr std::string_view kRoles[] = {"cmd", "asg", "arg", "rsv", "tgt", "io", "subj", "in", "pat"};
    out += "<" + words_.back() + ":" + std::string(kRoles[static_cast<int>(role)]) + "> ";
  }
  void Redirection(std::string_view op, std::size_t) override { out += std::string(op) + " "; }
  void ParameterBegin(std::size_t, std::size_t, std::string_view name, ParameterOp) override {
    out += "$" + std::string(name) + " ";
  }

 private:
  std::vector<std::string> words_;  // the word being read in each open list
};

std::string TraceOf(std::string_view script) {
  Trace trace;
  ReadShell(script, &trace);
  return trace.out;
}

TEST_CASE("shell lexer: events give words with their roles, commands and redirections") {
  CHECK(TraceOf("A=1 cmd \"a b\"'c' 2>/dev/null | x") ==
        "[<A=1:asg> <cmd:cmd> <a bc:arg> <2:io> > </dev/null:tgt> | <x:cmd> ; ]");
  CHECK(TraceOf("if true; then fi\n") == "[<if:rsv> <true:cmd> ; <then:rsv> <fi:rsv> ; ; ]");
  // A substitution is a command list of its own; the word keeps it as written.
  CHECK(TraceOf("x \"$(y $Z)\"") == "[<x:cmd> [<y:cmd> $Z <$Z:arg> ; ; ]<$(y $Z):arg> ; ]");
  CHECK(TraceOf("case $a in (x|y) z;; esac") ==
        "[<case:cmd> $a <$a:subj> <in:in> <x:pat> <y:pat> ; <z:cmd> ; <esac:rsv> ; ]");
  CHECK(TraceOf("cat <<'E' >f\n$NOT\nE\n") == "[<cat:cmd> << <E:tgt> > <f:tgt> ; ; ]");
  // Backticks are read after the shell's un-escaping: `\$A` inside them is $A.
  CHECK(TraceOf("echo `echo \\$A`") == "[<echo:cmd> [<echo:cmd> $A <$A:arg> ; ]<`echo \\$A`:arg> ; ]");
}

TEST_CASE("shell lexer: events carry offsets into the script, also inside backticks") {
  struct Offsets : ShellEvents {
    std::vector<std::size_t> dollars;
    void ParameterBegin(std::size_t dollar, std::size_t, std::string_view, ParameterOp) override {
      dollars.push_back(dollar);
    }
  } offsets;
  std::string_view script = "echo $A `echo \\`echo ${B:-x}\\``";
  ReadShell(script, &offsets);
  CHECK(offsets.dollars == std::vector<std::size_t>{script.find("$A"), script.find("${B")});
}

TEST_CASE("shell lexer: every character of a word reaches its text") {
  // Random words from quoting pieces: the text a reader builds is what the
  // pieces mean after quote removal.
  struct Piece {
    std::string_view written, text;
  };
  constexpr Piece kPieces[] = {{"a", "a"},     {"'b c'", "b c"}, {"\"d\\\"e\"", "d\"e"}, {"\\ ", " "},
                               {"''", ""},     {"\"\\x\"", "\\x"}, {"$'f'", "f"},     {"$\"g\"", "g"},
                               {"\"$\"", "$"}, {"\"\\$\"", "$"}};
  unsigned seed = 7;
  for (int round = 0; round < 200; ++round) {
    std::string written, text;
    for (int i = 0; i < 4; ++i) {
      seed = seed * 1103515245u + 12345u;
      const Piece& piece = kPieces[(seed >> 16) % std::size(kPieces)];
      written += piece.written;
      text += piece.text;
    }
    std::string trace = TraceOf("cmd " + written + "\n");
    CAPTURE(written);
    CHECK(trace == "[<cmd:cmd> <" + text + ":arg> ; ; ]");
  }
}

}  // namespace
}  // namespace safesubst
