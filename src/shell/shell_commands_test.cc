// SPDX-License-Identifier: Apache-2.0
#include "shell_commands.h"

#include <doctest/doctest.h>

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "command_line.h"
#include "shell_command_support.h"

namespace safesubst {
namespace {

using testing::NonEmptyCommands;

// The text of each word of each command.
std::vector<std::vector<std::string>> WordTexts(const std::vector<ShCommand>& commands) {
  std::vector<std::vector<std::string>> words;
  for (const ShCommand& command : commands) {
    words.emplace_back();
    for (const ShWord& word : command.words) words.back().push_back(word.text);
  }
  return words;
}

TEST_CASE("shell commands: a word's text, piece by piece, with where each piece came from") {
  const std::string_view script = "A=1 echo x\"b $V\"$'\\n' 2>err | sh\n";
  const std::vector<ShCommand> commands = NonEmptyCommands(script);
  REQUIRE(commands.size() == 2);
  const ShCommand& echo = commands[0];
  CHECK(echo.piped);
  REQUIRE(echo.words.size() == 3);
  CHECK(echo.words[0].role == ShellWordRole::kAssignment);
  CHECK(echo.words[1].role == ShellWordRole::kCommandName);
  const ShWord& word = echo.words[2];
  CHECK(word.text == "xb $V\\n");
  CHECK(word.quoted);
  CHECK(word.has_expansion);
  // `x`, the empty text that opens "...", `b `, `$V`, then the inside of $'...'.
  REQUIRE(word.pieces.size() == 5);
  CHECK(word.pieces[0].kind == ShPiece::kText);
  CHECK(word.pieces[1].length == 0);
  CHECK(word.pieces[3].kind == ShPiece::kExpansion);
  CHECK(word.pieces[3].offset == script.find("$V"));
  CHECK(word.text.substr(word.pieces[3].text_begin, word.pieces[3].length) == "$V");
  CHECK(word.pieces[4].kind == ShPiece::kUndecoded);
  // The `2` of `2>err` is no word; `err` is the redirection's target.
  REQUIRE(echo.redirects.size() == 1);
  CHECK(echo.redirects[0].op == ">");
  CHECK(echo.redirects[0].target.text == "err");
  CHECK_FALSE(commands[1].piped);
}

TEST_CASE("shell commands: reserved words in front and case patterns are no words") {
  const std::vector<ShCommand> commands =
      NonEmptyCommands("if true; then X=\"\"; fi\ncase \"\" in a|b) ls;; esac\ntime -p pwd -L\n");
  const std::vector<std::vector<std::string>> words = WordTexts(commands);
  CHECK(words == std::vector<std::vector<std::string>>{{"true"}, {"X="}, {"case", "", "in"}, {"ls"}, {"pwd", "-L"}});
  CHECK(commands[1].words[0].blank_quoted == false);  // `X=""` has unquoted text
  CHECK(commands[2].words[1].blank_quoted);
}

TEST_CASE("shell commands: the value of an assignment word keeps where its pieces came from") {
  const std::string_view script = "alias p=\"echo $X\" q='a=b' r\n";
  const std::vector<ShCommand> commands = NonEmptyCommands(script);
  REQUIRE(commands.size() == 1);
  const std::vector<ShWord>& words = commands[0].words;
  REQUIRE(words.size() == 4);
  const std::optional<ShWord> body = AssignedValue(words[1]);
  REQUIRE(body.has_value());
  CHECK(body->text == "echo $X");
  CHECK(body->begin == script.find('"'));
  const ShPiece& expansion = body->pieces.back();
  CHECK(expansion.kind == ShPiece::kExpansion);
  CHECK(expansion.offset == script.find("$X"));
  CHECK(body->text.substr(expansion.text_begin, expansion.length) == "$X");
  CHECK(AssignedValue(words[2])->text == "a=b");  // the first `=` splits
  CHECK_FALSE(AssignedValue(words[3]).has_value());
  CHECK(AssignedName(words[1], false) == "p");
  CHECK(AssignedName(words[3], true) == "r");
  CHECK(AssignedName(words[3], false).empty());
}

TEST_CASE("shell commands: the command behind prefix words and runners") {
  for (const auto& [script, name] : std::vector<std::pair<std::string_view, std::string_view>>{
           {"command [ 1 -gt 2 ]", "["},
           {"builtin eval x", "eval"},
           {"command -p test 1", "test"},
           {"env -i A=1 nice -n 5 let x=1", "let"},
           {"timeout 5s command read x", "read"},
           {"echo command", "echo"}}) {
    CAPTURE(script);
    const std::vector<ShCommand> commands = NonEmptyCommands(script);
    REQUIRE(commands.size() == 1);
    const std::size_t at = CommandAfterRunners(commands[0].words, 0);
    REQUIRE(at < commands[0].words.size());
    CHECK(commands[0].words[at].text == name);
  }
  CHECK(CommandAfterRunners(NonEmptyCommands("command -v")[0].words, 0) == 2);
}

TEST_CASE("shell commands: the shell a command runs, after runners and after any program") {
  constexpr std::size_t kNone = std::string_view::npos;
  for (const auto& [script, shell] : std::vector<std::pair<std::string_view, std::size_t>>{
           {"sh -c x", 0},
           {"nice -n 5 bash -c x", 3},
           {"strace -f -o /dev/null sh -c x", 4},  // B1: any program, as command_line.h reads the exec form
           {"fakeroot -- sh", 2},
           {"/docker-entrypoint.sh mksh-static -c x", 1},
           {"$(command -v sh) -c x", 0},
           {"echo sh -c x", kNone},  // programs that read a shell's name as data
           {"grep -c sh file", kNone},
           {"apt-get install -y bash", kNone},
           {"useradd -s /bin/bash -c comment app", kNone},
           {"env echo sh -c x", kNone},
           {"ssh host sh -c x", kNone},  // joined into one string: `ssh`'s own sink
           {"watch sh -c x", kNone},
           {"\"$X\" sh -c x", kNone},  // a program named by an expansion: read as possibly a shell elsewhere
           {"cp a b", kNone}}) {
    CAPTURE(script);
    CHECK(ShellOfCommand(NonEmptyCommands(script).back().words) == shell);
  }
  CHECK(ShellOfCommand({}) == kNone);
}

TEST_CASE("shell commands: the last word that may be a program a command runs") {
  const std::vector<ShWord> strace = NonEmptyCommands("strace -f su app -c x").back().words;
  CHECK(LastPossibleProgram(strace, CommandAfterRunners(strace, 0)) == 5);
  const std::vector<ShWord> echo = NonEmptyCommands("nice echo su -c x").back().words;
  CHECK(LastPossibleProgram(echo, CommandAfterRunners(echo, 0)) == 1);
  CHECK(ReadsWordsAsData("/usr/bin/grep"));
  CHECK_FALSE(ReadsWordsAsData("strace"));
}

}  // namespace
}  // namespace safesubst

namespace safesubst {
namespace {

// The words of the last command to end (a substitution's commands end first).
std::vector<ShWord> WordsOf(std::string_view script) { return NonEmptyCommands(script).back().words; }

TEST_CASE("shell commands: the program a command word runs, as far as the script says") {
  const std::vector<std::pair<std::string_view, std::string_view>> cases = {
      {"sh -c x", "sh"},
      {"$(command -v bash) -c x", "bash"},
      {"\"$(which sh)\" -c x", "sh"},
      {"`which dash` -c x", "dash"},
      {"\"$DIR/run.sh\" x", "run.sh"},
      {"$cmd x", ""},
      {"\"$@\" x", ""},
      {"${SH:-sh} -c x", ""},
      {"`pick` x", ""},
      {"$(command -v \"$X\") x", ""},
      {"${PREFIX}sh -c x", ""},
  };
  for (const auto& [script, program] : cases) {
    CAPTURE(script);
    CHECK(ProgramOf(WordsOf(script).front()) == program);
  }
}

TEST_CASE("shell commands: the string a -c option hands to a shell, and a word's tail") {
  const std::string_view script = "su -lc 'echo $X' app -c\"y\" --command=z --command w";
  const std::vector<ShWord> words = WordsOf(script);
  REQUIRE(words.size() == 8);
  CHECK(ShellStringOption(words, 1)->text == "echo $X");
  CHECK(ShellStringOption(words, 1)->pieces.front().offset == script.find("echo"));
  CHECK_FALSE(ShellStringOption(words, 3).has_value());  // `app`
  CHECK(ShellStringOption(words, 4)->text == "y");
  CHECK(ShellStringOption(words, 4)->begin == script.find('"'));
  CHECK(ShellStringOption(words, 5)->text == "z");
  CHECK(ShellStringOption(words, 6)->text == "w");
  CHECK(TakesCommandOption("/usr/bin/sg"));
  CHECK(RunsOperandsAsString("watch"));
  CHECK(IsRunner("chrt"));
  CHECK_FALSE(IsRunner("su"));
  const std::vector<ShWord> plain = WordsOfPlainText("sh  -c 'a b'");
  REQUIRE(plain.size() == 4);
  CHECK(plain[1].text == "-c");
  CHECK(plain[3].text == "b");
}

TEST_CASE("shell commands: `function NAME` ends before its body, a process substitution holds commands") {
  const std::vector<ShCommand> commands = NonEmptyCommands("function f { bash; }\necho x > >(sh) | tee <(cat)\n");
  const std::vector<std::vector<std::string>> words = WordTexts(commands);
  CHECK(words == std::vector<std::vector<std::string>>{{"function", "f"}, {"bash"}, {"echo", "x"}, {"sh"}, {"tee"},
                                                      {"cat"}});
  CHECK(commands[3].words[0].role == ShellWordRole::kCommandName);  // not the target of `>`
}

TEST_CASE("shell commands: a command named by an alias is read with the alias's words") {
  const std::vector<ShCommand> commands =
      NonEmptyCommands("alias e=eval c='sh -c'\ne \"$X\"\nA=1 c 'echo'\n\"e\" x\nalias e=echo; e y\n");
  const std::vector<std::vector<std::string>> words = WordTexts(commands);
  CHECK(words == std::vector<std::vector<std::string>>{{"alias", "e=eval", "c=sh -c"},
                                                      {"eval", "$X"},
                                                      {"A=1", "sh", "-c", "echo"},
                                                      {"e", "x"},  // a quoted name is no alias
                                                      {"alias", "e=echo"},
                                                      {"echo", "y"}});
  CHECK(commands[1].words[0].role == ShellWordRole::kCommandName);
  // Chains, a blank at the end of a body, a list in a body, and aliases an eval string defines.
  CHECK(WordTexts(NonEmptyCommands("alias a=b b=eval\na x\n")).back() == std::vector<std::string>{"eval", "x"});
  CHECK(WordTexts(NonEmptyCommands("alias n='nice ' s=sh\nn s -c x\n")).back() ==
        std::vector<std::string>{"nice", "sh", "-c", "x"});
  CHECK(WordTexts(NonEmptyCommands("alias e='true; eval'\ne x\n")).back() == std::vector<std::string>{"eval", "x"});
  CHECK(WordTexts(NonEmptyCommands("eval \"alias e=eval\"\ne x\n")).back() == std::vector<std::string>{"eval", "x"});
  CHECK(WordTexts(NonEmptyCommands("alias a=a\na x\n")).back() == std::vector<std::string>{"a", "x"});
}

TEST_CASE("shell commands: a glob or brace expansion may make a word other words") {
  CHECK(MayExpandToOtherWords(WordsOf("/bin/[s]h -c x").front()));
  CHECK(MayExpandToOtherWords(WordsOf("/usr/bin/das* -c x").front()));
  CHECK(HasBraceExpansion(WordsOf("{sh,-c,\"x\"}").front()));
  CHECK(ProgramOf(WordsOf("{sh,-c,x}").front()).empty());
  CHECK_FALSE(MayExpandToOtherWords(WordsOf("[ -n x ]").front()));
  CHECK_FALSE(MayExpandToOtherWords(WordsOf("\"/bin/[s]h\" x").front()));
  CHECK_FALSE(HasBraceExpansion(WordsOf("echo '{a,b}'").back()));
  // getopt_long's prefixes of --command, and su's --session-command.
  const std::vector<ShWord> words = WordsOf("su --comm a --co=b --session-command c --s d --shell e");
  CHECK(ShellStringOption(words, 1)->text == "a");
  CHECK(ShellStringOption(words, 3)->text == "b");
  CHECK(ShellStringOption(words, 4)->text == "c");
  CHECK_FALSE(ShellStringOption(words, 6).has_value());
  CHECK_FALSE(ShellStringOption(words, 8).has_value());
}

}  // namespace
}  // namespace safesubst
