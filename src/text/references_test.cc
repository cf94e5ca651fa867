// SPDX-License-Identifier: Apache-2.0
#include "references.h"

#include <doctest/doctest.h>

#include <string>
#include <string_view>
#include <vector>

namespace safesubst {
namespace {

struct Scan {
  std::vector<Reference> references;
  std::vector<std::size_t> unterminated;
};

Scan ScanAll(std::string_view text) {
  Scan scan;
  ScanReferences(
      text, 0, text.size(), [&](const Reference& reference) { scan.references.push_back(reference); },
      [&](std::size_t offset) { scan.unterminated.push_back(offset); });
  return scan;
}

// The text a reference covers.
std::string_view Covered(std::string_view text, const Reference& reference) {
  return text.substr(reference.offset, reference.length);
}

// Scans a text holding exactly one form and returns it.
Reference Only(std::string_view text) {
  Scan scan = ScanAll(text);
  REQUIRE(scan.unterminated.empty());
  REQUIRE(scan.references.size() == 1);
  return scan.references.front();
}

TEST_CASE("references: bare $NAME") {
  std::string_view text = "x $HOME_DIR1/y";
  Reference reference = Only(text);
  CHECK(reference.kind == RefKind::kBare);
  CHECK(reference.name == "HOME_DIR1");
  CHECK(reference.offset == 2);
  CHECK(reference.length == 10);
  CHECK(Covered(text, reference) == "$HOME_DIR1");
  CHECK(reference.op.empty());
  CHECK(reference.operand.empty());
}

TEST_CASE("references: names start with a letter or underscore and go on with digits and underscores") {
  CHECK(Only("$_x9").name == "_x9");
  CHECK(Only("$a_B_2c-rest").name == "a_B_2c");
  CHECK(Only("${_1}").name == "_1");
  CHECK(Only("${EFS_IP_2A}").name == "EFS_IP_2A");
}

TEST_CASE("references: braced ${NAME}") {
  std::string_view text = "a${NAME}b";
  Reference reference = Only(text);
  CHECK(reference.kind == RefKind::kBraced);
  CHECK(reference.name == "NAME");
  CHECK(reference.offset == 1);
  CHECK(reference.length == 7);
  CHECK(Covered(text, reference) == "${NAME}");
}

TEST_CASE("references: every default operator") {
  struct Case {
    std::string_view text, op, operand;
  };
  const Case cases[] = {
      {"${N:-word}", ":-", "word"}, {"${N-word}", "-", "word"}, {"${N:=word}", ":=", "word"},
      {"${N=word}", "=", "word"},   {"${N:?msg}", ":?", "msg"}, {"${N?msg}", "?", "msg"},
      {"${N:+alt}", ":+", "alt"},   {"${N+alt}", "+", "alt"},   {"${N:-}", ":-", ""},
  };
  for (const Case& c : cases) {
    CAPTURE(c.text);
    Reference reference = Only(c.text);
    CHECK(reference.kind == RefKind::kBracedDefault);
    CHECK(reference.name == "N");
    CHECK(reference.op == c.op);
    CHECK(reference.operand == c.operand);
    CHECK(reference.length == c.text.size());
  }
}

TEST_CASE("references: a default operand may hold spaces and nested braces") {
  std::string_view text = "${A:-${B:-x} and {y}} tail";
  Reference reference = Only(text);
  CHECK(reference.kind == RefKind::kBracedDefault);
  CHECK(reference.name == "A");
  CHECK(reference.op == ":-");
  CHECK(reference.operand == "${B:-x} and {y}");
  CHECK(Covered(text, reference) == "${A:-${B:-x} and {y}}");
}

TEST_CASE("references: $${NAME} is the escape for a literal ${NAME}") {
  std::string_view text = "keep $${NAME} here";
  Reference reference = Only(text);
  CHECK(reference.kind == RefKind::kEscape);
  CHECK(reference.name == "NAME");
  CHECK(Covered(text, reference) == "$${NAME}");

  Reference with_default = Only("$${A:-b}");
  CHECK(with_default.kind == RefKind::kEscape);
  CHECK(with_default.name == "A");
  CHECK(with_default.length == 8);
}

TEST_CASE("references: $$ not followed by { is Kubernetes' escaped dollar") {
  std::string_view text = "a $$ b $$NAME";
  Scan scan = ScanAll(text);
  REQUIRE(scan.references.size() == 2);
  CHECK(scan.references[0].kind == RefKind::kDollarDollar);
  CHECK(scan.references[0].length == 2);
  CHECK(scan.references[0].name.empty());
  // `$$NAME`: the `$$` pair first; the NAME after it is plain text.
  CHECK(scan.references[1].kind == RefKind::kDollarDollar);
  CHECK(scan.references[1].offset == 7);
}

TEST_CASE("references: Kubernetes $(NAME)") {
  std::string_view text = "--id=$(POD_NAME)";
  Reference reference = Only(text);
  CHECK(reference.kind == RefKind::kKubernetes);
  CHECK(reference.name == "POD_NAME");
  CHECK(Covered(text, reference) == "$(POD_NAME)");
}

TEST_CASE("references: command substitution is shell syntax and the references inside it are found") {
  std::string_view text = "OCT3=$(echo \"$NODE_IP\" | cut -d. -f3)";
  Scan scan = ScanAll(text);
  REQUIRE(scan.references.size() == 2);
  CHECK(scan.references[0].kind == RefKind::kShell);
  CHECK(Covered(text, scan.references[0]) == "$(");
  CHECK(scan.references[1].kind == RefKind::kBare);
  CHECK(scan.references[1].name == "NODE_IP");
  CHECK(scan.references[1].offset == text.find("$NODE_IP"));

  // `$(NAME arg)` and `$( NAME)` are commands, not Kubernetes references.
  CHECK(Only("$(date +%s)").kind == RefKind::kShell);
  CHECK(Only("$( HOME)").kind == RefKind::kShell);
  CHECK(Only("$(HOME").kind == RefKind::kShell);
}

TEST_CASE("references: arithmetic expansion") {
  std::string_view text = "$(( $A + 1 ))";
  Scan scan = ScanAll(text);
  REQUIRE(scan.references.size() == 2);
  CHECK(scan.references[0].kind == RefKind::kShell);
  CHECK(Covered(text, scan.references[0]) == "$((");
  CHECK(scan.references[1].name == "A");
}

TEST_CASE("references: positional and special parameters are shell syntax") {
  for (std::string_view text : {"$1", "$0", "$@", "$*", "$#", "$?", "$!", "$-"}) {
    CAPTURE(text);
    Reference reference = Only(text);
    CHECK(reference.kind == RefKind::kShell);
    CHECK(reference.length == 2);
    CHECK(reference.name.empty());
  }
  // `$10` is `$1` followed by `0`.
  CHECK(Only("$10").length == 2);
}

TEST_CASE("references: the string operations of the Flux/clusterctl dialect") {
  struct Case {
    std::string_view text, name, op, operand;
  };
  const Case cases[] = {
      {"${x%.*}", "x", "%", ".*"},     {"${x%%.*}", "x", "%%", ".*"},     {"${x#v}", "x", "#", "v"},
      {"${x##*/}", "x", "##", "*/"},   {"${x/a/b}", "x", "/", "a/b"},     {"${x//a/b}", "x", "//", "a/b"},
      {"${x/#a/b}", "x", "/#", "a/b"}, {"${x/%a/b}", "x", "/%", "a/b"},   {"${x,,}", "x", ",,", ""},
      {"${x^^}", "x", "^^", ""},       {"${x,}", "x", ",", ""},           {"${x^}", "x", "^", ""},
      {"${x:1}", "x", ":", "1"},       {"${x:0:3}", "x", ":", "0:3"},     {"${x: -1}", "x", ":", " -1"},
      {"${#x}", "x", "#", ""},         {"${x,,[A-Z]}", "x", ",,", "[A-Z]"}, {"${x/a/${y}}", "x", "/", "a/${y}"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.text);
    Reference reference = Only(c.text);
    CHECK(reference.kind == RefKind::kOperation);
    CHECK(reference.length == c.text.size());
    CHECK(reference.name == c.name);
    CHECK(reference.op == c.op);
    CHECK(reference.operand == c.operand);
  }
  // `:` followed by a default operator is a default form, not a substring.
  CHECK(Only("${x:-1}").kind == RefKind::kBracedDefault);
  // The length operator is `#` before the name: it points into the text there.
  std::string_view length = "${#NAME}";
  CHECK(Only(length).op.data() == length.data() + 2);
}

TEST_CASE("references: parameter expansions that are not substitutions are shell syntax") {
  for (std::string_view text : {"${x[0]}", "${!x}", "${x@Q}", "${x*}", "${1}", "${@}", "${}", "${ x}", "${#}", "${!}",
                                "${#1}", "${#x[@]}"}) {
    CAPTURE(text);
    Reference reference = Only(text);
    CHECK(reference.kind == RefKind::kShell);
    CHECK(reference.length == text.size());
    // The operator, length and indirect forms name their variable, so that a
    // declared one is noticed; the operator forms also keep what follows it.
    const bool named = text.find('x') != std::string_view::npos && text[2] != ' ';
    CHECK(reference.name == (named ? "x" : ""));
    const bool has_operand = text.size() > 4 && text[2] == 'x';
    CHECK(reference.operand == (has_operand ? text.substr(3, text.size() - 4) : ""));
  }
}

TEST_CASE("references: a lone $ is not a reference") {
  CHECK(ScanAll("costs 5$ or $ 4").references.empty());
  CHECK(ScanAll("$'\\n' $\"x\" $. $/").references.empty());
  CHECK(ScanAll("end$").references.empty());
  CHECK(ScanAll("$").references.empty());
  CHECK(ScanAll("").references.empty());
}

TEST_CASE("references: unterminated ${ is reported and scanning goes on") {
  std::string_view text = "a ${NAME and $OTHER";
  Scan scan = ScanAll(text);
  REQUIRE(scan.unterminated.size() == 1);
  CHECK(scan.unterminated[0] == 2);
  REQUIRE(scan.references.size() == 1);
  CHECK(scan.references[0].name == "OTHER");

  Scan nested = ScanAll("${A:-${B}");  // the inner brace closes, the outer does not
  REQUIRE(nested.unterminated.size() == 1);
  CHECK(nested.unterminated[0] == 0);
  REQUIRE(nested.references.size() == 1);
  CHECK(nested.references[0].name == "B");

  Scan at_end = ScanAll("x ${");
  CHECK(at_end.unterminated == std::vector<std::size_t>{2});

  Scan escaped = ScanAll("$${A");
  CHECK(escaped.unterminated == std::vector<std::size_t>{1});
  CHECK(escaped.references.empty());
}

TEST_CASE("references: many unclosed ${ cost linear time, and a later closed one is still found") {
  std::string text;
  for (int i = 0; i < 50000; ++i) text += "${x ";
  text += "${A} $B";
  Scan scan = ScanAll(text);
  CHECK(scan.unterminated.size() == 50000);
  REQUIRE(scan.references.size() == 2);
  CHECK(scan.references[0].kind == RefKind::kBraced);
  CHECK(scan.references[0].name == "A");
  CHECK(scan.references[1].name == "B");
}

// Whether the `{` at `open` has a balancing `}` before `end`, counted the slow way.
bool ClosesNaively(std::string_view text, std::size_t open) {
  int depth = 0;
  for (std::size_t i = open; i < text.size(); ++i) {
    if (text[i] == '{') ++depth;
    if (text[i] == '}' && --depth == 0) return true;
  }
  return false;
}

TEST_CASE("references: unterminated ${ agrees with plain brace counting on random text") {
  const char alphabet[] = "${}ab:-";
  unsigned state = 12345;
  for (int round = 0; round < 2000; ++round) {
    std::string text;
    for (int i = 0; i < 40; ++i) {
      state = state * 1103515245u + 12345u;
      text += alphabet[(state >> 16) % (sizeof(alphabet) - 1)];
    }
    CAPTURE(text);
    Scan scan = ScanAll(text);
    for (std::size_t offset : scan.unterminated) {
      REQUIRE(text.compare(offset, 2, "${") == 0);
      CHECK_FALSE(ClosesNaively(text, offset + 1));
    }
    for (const Reference& reference : scan.references) {
      if (reference.kind == RefKind::kBraced || reference.kind == RefKind::kBracedDefault) {
        CHECK(text[reference.offset + reference.length - 1] == '}');
        CHECK(ClosesNaively(text, reference.offset + 1));
      }
    }
  }
}

TEST_CASE("references: the scan stays between begin and end") {
  std::string_view text = "$A ${B} ${C}";
  Scan scan;
  ScanReferences(
      text, 3, 7, [&](const Reference& reference) { scan.references.push_back(reference); },
      [&](std::size_t offset) { scan.unterminated.push_back(offset); });
  REQUIRE(scan.references.size() == 1);
  CHECK(scan.references[0].name == "B");
  CHECK(scan.references[0].offset == 3);

  // A closing brace beyond `end` does not count.
  Scan cut;
  ScanReferences(
      text, 3, 6, [&](const Reference& reference) { cut.references.push_back(reference); },
      [&](std::size_t offset) { cut.unterminated.push_back(offset); });
  CHECK(cut.references.empty());
  CHECK(cut.unterminated == std::vector<std::size_t>{3});
}

TEST_CASE("references: several forms in order, without overlap") {
  std::string_view text = "$A${B}$(C)$$${D}$1${E:-f}$";
  Scan scan = ScanAll(text);
  REQUIRE(scan.references.size() == 7);
  const RefKind kinds[] = {RefKind::kBare,   RefKind::kBraced, RefKind::kKubernetes,   RefKind::kDollarDollar,
                           RefKind::kBraced, RefKind::kShell,  RefKind::kBracedDefault};
  std::size_t end = 0;
  for (std::size_t i = 0; i < scan.references.size(); ++i) {
    CAPTURE(i);
    CHECK(scan.references[i].kind == kinds[i]);
    CHECK(scan.references[i].offset >= end);
    end = scan.references[i].offset + scan.references[i].length;
  }
  CHECK(scan.references[4].name == "D");  // `$$` then `${D}`: `$$$` is not `$` + `$${`
}

TEST_CASE("references: name character classes") {
  CHECK(IsNameStart('a'));
  CHECK(IsNameStart('Z'));
  CHECK(IsNameStart('_'));
  CHECK_FALSE(IsNameStart('1'));
  CHECK_FALSE(IsNameStart('-'));
  CHECK(IsNameChar('7'));
  CHECK_FALSE(IsNameChar('.'));
}

// The head of `${...}` as text after the `${`: prefix, name, subscript, operator, operand.
std::string Head(std::string_view inside) {
  const std::string text = "${" + std::string(inside);
  const ParameterHead head = ReadParameterHead(text, 2, text.size());
  std::string out;
  if (head.prefix != '\0') out += std::string(1, head.prefix) + " ";
  out += "[" + std::string(head.name) + "]";
  if (head.subscript != std::string_view::npos) {
    out += " sub " + text.substr(head.subscript, head.subscript_close - head.subscript);
  }
  static constexpr const char* kKinds[] = {"", " default ", " string ", " bash "};
  out += kKinds[static_cast<int>(head.op_kind)] + std::string(head.op);
  return out + " | " + text.substr(head.operand);
}

TEST_CASE("references: the head of ${...} that the scanner and the shell lexer both read") {
  CHECK(Head("NAME}") == "[NAME] | }");
  CHECK(Head("#NAME}") == "# [NAME] | }");
  CHECK(Head("!ref}") == "! [ref] | }");
  CHECK(Head("#}") == "[#] | }");  // $#, not a length
  CHECK(Head("!}") == "[!] | }");
  CHECK(Head("##}") == "# [#] | }");  // the length of $#
  CHECK(Head("10:-x}") == "[10] default :- | x}");
  CHECK(Head("$}") == "[$] | }");
  CHECK(Head("@:1}") == "[@] string : | 1}");
  CHECK(Head("a[i+1]:-d}") == "[a] sub [i+1 default :- | d}");
  CHECK(Head("a[open") == "[a] sub [open | ");
  CHECK(Head("X=v}") == "[X] default = | v}");
  CHECK(Head("X:?m}") == "[X] default :? | m}");
  CHECK(Head("X%%.*}") == "[X] string %% | .*}");
  CHECK(Head("X//a/b}") == "[X] string // | a/b}");
  CHECK(Head("X/#a/b}") == "[X] string /# | a/b}");
  CHECK(Head("X,,}") == "[X] string ,, | }");
  CHECK(Head("X^}") == "[X] string ^ | }");
  CHECK(Head("X:0:3}") == "[X] string : | 0:3}");
  CHECK(Head("X@Q}") == "[X] bash @ | Q}");
  CHECK(Head("X*}") == "[X] | *}");  // no operator: the operand starts at once
  CHECK(Head("}") == "[] | }");
  CHECK(Head("") == "[] | ");
}

// The table every module reads (RefKindTraits): a row for each kind, in the
// order of RefKind, and each row's example read as that kind, so that a new
// row comes with its recogniser.
TEST_CASE("references: every kind has its row, and the row's example scans as that kind") {
  for (int k = 0; k <= static_cast<int>(RefKind::kShell); ++k) {
    const RefKind kind = static_cast<RefKind>(k);
    const RefKindTraits& row = TraitsOf(kind);
    CAPTURE(row.example);
    CHECK(row.kind == kind);
    const Reference reference = Only(row.example);
    CHECK(reference.kind == kind);
    CHECK(Covered(row.example, reference) == row.example);
  }
}

}  // namespace
}  // namespace safesubst
