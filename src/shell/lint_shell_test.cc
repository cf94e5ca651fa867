// SPDX-License-Identifier: Apache-2.0
#include "lint_shell.h"

#include <doctest/doctest.h>

#include <string>
#include <string_view>
#include <vector>

namespace safesubst::lint {
namespace {

std::vector<std::string> Names(const ShScript& script) {
  std::vector<std::string> names;
  for (const ShRef& ref : script.refs) names.push_back(ref.name);
  return names;
}

std::vector<std::string> Words(const ShCommand& command) {
  std::vector<std::string> words;
  for (const ShWord& word : command.words) words.push_back(word.text);
  return words;
}

const ShAssignment* FindAssignment(const ShScript& script, std::string_view name) {
  for (const ShAssignment& assignment : script.assignments) {
    if (assignment.name == name) return &assignment;
  }
  return nullptr;
}

TEST_CASE("lint shell: single quotes and comments hide references, double quotes do not") {
  std::string_view text = "echo '$A' \"$B\" ${C} $D # $E\n# $F\necho \"('$G')\" a#$H\n";
  ShScript script = ParseShell(text);
  CHECK(Names(script) == std::vector<std::string>{"B", "C", "D", "G", "H"});
  REQUIRE(script.comments.size() == 2);
  CHECK(text.substr(script.comments[0].first, 4) == "# $E");
  CHECK(script.refs[0].begin == text.find("$B"));
  CHECK(script.refs[4].begin == text.find("$H"));
}

TEST_CASE("lint shell: parameter expansion operators") {
  ShScript script = ParseShell("x=${A:-$B} ${C-d} ${D:=1} ${E?no} ${F:+y} ${#G} ${!H} ${I%.*} ${J:1:2} $1 $@ ${10}");
  REQUIRE(script.refs.size() == 10);
  CHECK(script.refs[0].name == "A");
  CHECK(script.refs[0].op == RefOp::kDefault);
  CHECK(script.refs[1].name == "B");
  CHECK(script.refs[1].guarded);
  CHECK(script.refs[2].op == RefOp::kDefault);
  CHECK(script.refs[3].op == RefOp::kAssign);
  CHECK(script.refs[4].op == RefOp::kError);
  CHECK(script.refs[5].op == RefOp::kAlternative);
  CHECK(script.refs[6].op == RefOp::kLength);
  CHECK(script.refs[7].op == RefOp::kIndirect);
  CHECK(script.refs[8].op == RefOp::kOther);
  CHECK(script.refs[9].op == RefOp::kOther);
  CHECK(FindAssignment(script, "D") != nullptr);
}

TEST_CASE("lint shell: commands, pipes, redirections and reserved words") {
  std::string_view text =
      "OCT3=$(echo \"$NODE_IP\" | cut -d. -f3)\n"
      "if [ \"$OCT3\" -le 31 ]; then EFS_IP=\"$A\"; else EFS_IP=\"\"; fi\n"
      "grep -q \"$H\" /etc/hosts || echo \"$EFS_IP $H\" 2>/dev/null >> /etc/hosts\n";
  ShScript script = ParseShell(text);
  REQUIRE(script.commands.size() == 8);
  // The substitution's commands end before the assignment that holds them.
  CHECK(Words(script.commands[0]) == std::vector<std::string>{"echo", "$NODE_IP"});
  CHECK(script.commands[0].piped);
  CHECK(Words(script.commands[1]) == std::vector<std::string>{"cut", "-d.", "-f3"});
  CHECK_FALSE(script.commands[1].piped);
  CHECK(Words(script.commands[2]) == std::vector<std::string>{"OCT3=$(echo \"$NODE_IP\" | cut -d. -f3)"});
  CHECK(Words(script.commands[3]) == std::vector<std::string>{"[", "$OCT3", "-le", "31", "]"});
  CHECK(Words(script.commands[4]) == std::vector<std::string>{"EFS_IP=$A"});
  CHECK(Words(script.commands[5]) == std::vector<std::string>{"EFS_IP="});
  CHECK(Words(script.commands[6]) == std::vector<std::string>{"grep", "-q", "$H", "/etc/hosts"});
  const ShCommand& echo = script.commands[7];
  CHECK(Words(echo) == std::vector<std::string>{"echo", "$EFS_IP $H"});
  REQUIRE(echo.redirects.size() == 2);
  CHECK(echo.redirects[0].op == ">");
  CHECK(echo.redirects[0].target.text == "/dev/null");
  CHECK(echo.redirects[1].op == ">>");
  CHECK(echo.redirects[1].target.text == "/etc/hosts");
  CHECK(echo.redirects[1].begin == text.find(">> /etc/hosts"));
}

TEST_CASE("lint shell: blank quoted words are what a blanked \"$A $B\" leaves") {
  ShScript script = ParseShell("echo \"\" ' ' \" \" \"$A\" \"a\" \\  x\"\"\n");
  REQUIRE(script.commands.size() == 1);
  const std::vector<ShWord>& words = script.commands[0].words;
  REQUIRE(words.size() == 8);
  CHECK(words[1].blank_quoted);
  CHECK(words[2].blank_quoted);
  CHECK(words[3].blank_quoted);
  CHECK_FALSE(words[4].blank_quoted);  // has an expansion
  CHECK_FALSE(words[5].blank_quoted);
  CHECK_FALSE(words[6].blank_quoted);  // an escaped blank is deliberate
  CHECK_FALSE(words[7].blank_quoted);  // unquoted text
  CHECK_FALSE(words[0].quoted);
}

TEST_CASE("lint shell: case patterns are not commands") {
  std::string_view text =
      "case \"$OCT3\" in\n"
      "  ''|*[!0-9]*)\n"
      "    # fallback\n"
      "    EFS_IP=\"$EFS_2A\" ;;\n"
      "  (x) y ;; *) if [ 1 ]; then z; fi ;;\n"
      "esac\n"
      "after\n";
  ShScript script = ParseShell(text);
  std::vector<std::vector<std::string>> commands;
  for (const ShCommand& command : script.commands) commands.push_back(Words(command));
  CHECK(commands == std::vector<std::vector<std::string>>{{"case", "$OCT3", "in"},
                                                          {"EFS_IP=$EFS_2A"},
                                                          {"y"},
                                                          {"[", "1", "]"},
                                                          {"z"},
                                                          {"after"}});
  CHECK(Names(script) == std::vector<std::string>{"OCT3", "EFS_2A"});
}

TEST_CASE("lint shell: here-documents") {
  std::string_view text =
      "cat <<EOF >> /etc/hosts\n"
      "$IP $HOST\n"
      "EOF\n"
      "cat <<-'END'\n"
      "\t$LITERAL\n"
      "\tEND\n"
      "echo $AFTER\n";
  ShScript script = ParseShell(text);
  CHECK(Names(script) == std::vector<std::string>{"IP", "HOST", "AFTER"});
  REQUIRE(script.commands.size() == 3);
  CHECK(script.commands[0].redirects.size() == 2);
  CHECK(script.commands[0].redirects[1].target.text == "/etc/hosts");
  CHECK(Words(script.commands[2]) == std::vector<std::string>{"echo", "$AFTER"});
}

TEST_CASE("lint shell: let assigns what the lexer reads as assigned in its arithmetic") {
  ShScript script = ParseShell("let A++ \"B = 2\" C+=1\nlet D==1 E\nlet --F 'G*=3' H=I\n");
  for (const char* name : {"A", "B", "C", "F", "G", "H"}) {
    const ShAssignment* assignment = FindAssignment(script, name);
    REQUIRE_MESSAGE(assignment != nullptr, name);
    CHECK(assignment->kind == AssignKind::kArithmetic);
  }
  for (const char* name : {"D", "E", "I"}) CHECK_MESSAGE(FindAssignment(script, name) == nullptr, name);
  CHECK(FindAssignment(script, "B")->begin == 8);  // at its word
}

TEST_CASE("lint shell: assignments of every kind") {
  ShScript script = ParseShell(
      "A=1\nB= cmd\nexport C=2 D\nlocal E\nread -r -p prompt F G\nfor H in 1 2; do :; done\n"
      "getopts ab: I\nmapfile J\nprintf -v K %s x\nlet L=1\n(( M++ ))\nN=$(( O = 2 ))\nP=\"\" Q=' '\n"
      "IFS= read -r R\n");
  auto kind = [&](std::string_view name) {
    const ShAssignment* assignment = FindAssignment(script, name);
    REQUIRE_MESSAGE(assignment != nullptr, name);
    return assignment->kind;
  };
  CHECK(kind("A") == AssignKind::kPlain);
  CHECK(kind("B") == AssignKind::kPrefix);
  CHECK(kind("C") == AssignKind::kExport);
  CHECK(kind("E") == AssignKind::kDeclare);
  CHECK(kind("F") == AssignKind::kRead);
  CHECK(kind("G") == AssignKind::kRead);
  CHECK(FindAssignment(script, "prompt") == nullptr);
  CHECK(kind("H") == AssignKind::kLoop);
  CHECK(kind("I") == AssignKind::kRead);
  CHECK(kind("J") == AssignKind::kRead);
  CHECK(kind("K") == AssignKind::kRead);
  CHECK(kind("L") == AssignKind::kArithmetic);
  CHECK(kind("M") == AssignKind::kArithmetic);
  CHECK(kind("O") == AssignKind::kArithmetic);
  CHECK(kind("R") == AssignKind::kRead);
  CHECK(script.exported == std::vector<std::string>{"D"});
  CHECK(FindAssignment(script, "P")->empty_value);
  CHECK(FindAssignment(script, "Q")->empty_value);
  CHECK_FALSE(FindAssignment(script, "A")->empty_value);
  CHECK(FindAssignment(script, "B")->empty_value);
  CHECK_FALSE(script.dynamic);
}

TEST_CASE("lint shell: eval, source and computed names make a script dynamic") {
  CHECK(ParseShell(". /etc/profile\necho $X").dynamic);
  CHECK(ParseShell("source env.sh").dynamic);
  CHECK(ParseShell("eval \"$(cat vars)\"").dynamic);
  CHECK(ParseShell("export \"$k=$v\"").dynamic);
  CHECK_FALSE(ParseShell("echo source").dynamic);
}

TEST_CASE("lint shell: unterminated input ends at the end of the text") {
  ShScript script = ParseShell("echo \"$A ${B");
  CHECK(Names(script) == std::vector<std::string>{"A", "B"});
  ShScript unclosed = ParseShell("x=$(echo $C");
  CHECK(Names(unclosed) == std::vector<std::string>{"C"});
  ShScript backtick = ParseShell("x=`echo $D`; echo $E");
  CHECK(Names(backtick) == std::vector<std::string>{"D", "E"});
}

TEST_CASE("lint shell: backticks are read as the shell reads them, after un-escaping") {
  // The shell turns `\$HOME` inside backticks into `$HOME` before running it:
  // a reference, as the render's lexer has always read it.
  ShScript script = ParseShell("x=`echo \\$HOME \\`echo $B\\``\necho '$C'");
  CHECK(Names(script) == std::vector<std::string>{"HOME", "B"});
  CHECK(script.refs[0].begin == 9);  // the `$` of `\$HOME`
  REQUIRE(script.commands.size() == 4);
  CHECK(Words(script.commands[0]) == std::vector<std::string>{"echo", "$B"});
  CHECK(Words(script.commands[1]) == std::vector<std::string>{"echo", "$HOME", "`echo $B`"});
}

TEST_CASE("lint shell: well-known variables") {
  CHECK(IsWellKnownVariable("HOME"));
  CHECK(IsWellKnownVariable("HOSTNAME"));
  CHECK(IsWellKnownVariable("LC_ALL"));
  CHECK(IsWellKnownVariable("BASH_SOURCE"));
  CHECK(IsWellKnownVariable("KUBERNETES_SERVICE_HOST"));
  CHECK(IsWellKnownVariable("REDIS_PORT_6379_TCP_ADDR"));
  CHECK_FALSE(IsWellKnownVariable("APP_PORT"));
  CHECK_FALSE(IsWellKnownVariable("NODE_IP"));
}

}  // namespace
}  // namespace safesubst::lint
