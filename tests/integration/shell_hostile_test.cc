// SPDX-License-Identifier: Apache-2.0
// End-to-end proof of the shell encoder: every value of the hostile corpus
// (tests/data/shell/hostile-values.txt) is encoded into every shell state of
// a test script, and the script is RUN under dash, bash, `bash --posix`,
// `busybox sh`, `zsh --emulate sh`, mksh, posh and yash (a missing one fails
// the test). Each slot must print exactly the value and the canary file must
// not appear, or the encoder must have refused the value with a message that
// does not contain it.
//
// Also: shellcheck finds nothing new in scripts rendered with ordinary values.
#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "real_shells.h"
#include "shell.h"
#include "test_support.h"

namespace safesubst {
namespace {

using testing::ReadFile;
using testing::ShellQuote;
using testing::TempDir;
using testing::WriteFile;

constexpr std::string_view kPlaceholder = "${V}";
constexpr std::string_view kBenign = "benign";

// One line (or a few) of the test script that puts the placeholder in one
// shell state and prints what the shell made of it.
struct Slot {
  std::string_view id;
  std::string_view code;               // with one or more ${V}
  std::string_view expected;           // the file's expected content, ${V} standing for the value
  std::vector<ShellState> states;      // what the lexer must report at each ${V}
  bool dollar_prefix_without_ansi = false;  // $'...': dash, posh and yash read `$` and '...'
};

using S = ShellState;

// The test template: every state the encoder handles. `$v` holds the value at
// run time for the slots that compare with it.
const std::vector<Slot>& Slots() {
  static const std::vector<Slot> slots = {
      {"dq", "printf '%s' \"${V}\"", "${V}", {S::kDoubleQuoted}},
      {"dq-mid", "printf '%s' \"pre ${V} post\"", "pre ${V} post", {S::kDoubleQuoted}},
      {"sq", "printf '%s' '${V}'", "${V}", {S::kSingleQuoted}},
      {"sq-mid", "printf '%s' 'a'\"b\"'${V}c'", "ab${V}c", {S::kSingleQuoted}},
      {"unquoted", "printf '%s' ${V}", "${V}", {S::kUnquoted}},
      {"unquoted-mid", "printf '%s' x${V}y", "x${V}y", {S::kUnquoted}},
      {"assign", "a=${V}; printf '%s' \"$a\"", "${V}", {S::kUnquoted}},
      {"for", "for w in ${V}; do printf '%s' \"$w\"; done", "${V}", {S::kUnquoted}},
      {"test", "if [ \"$v\" = ${V} ]; then printf ok; else printf no; fi", "ok", {S::kUnquoted}},
      {"cmdsub-dq", "r=\"$(printf '%s' \"${V}\"; echo x)\"; printf '%s' \"${r%x}\"", "${V}", {S::kDoubleQuoted}},
      {"cmdsub-sq", "r=\"$(printf '%s' '${V}'; echo x)\"; printf '%s' \"${r%x}\"", "${V}", {S::kSingleQuoted}},
      {"cmdsub-unquoted", "r=\"$(printf '%s' ${V}; echo x)\"; printf '%s' \"${r%x}\"", "${V}", {S::kUnquoted}},
      {"cmdsub-nested",
       "r=\"$(printf '%s' \"$(printf '%s' \"${V}\"; echo x)\")\"; printf '%s' \"${r%x}\"",
       "${V}",
       {S::kDoubleQuoted}},
      {"bt-dq-in-dq",
       "r=\"`printf '%s' \\\"${V}\\\"; echo x`\"; printf '%s' \"${r%x}\"",
       "${V}",
       {S::kDoubleQuoted}},
      {"bt-dq", "r=`printf '%s' \"${V}\"; echo x`; printf '%s' \"${r%x}\"", "${V}", {S::kDoubleQuoted}},
      {"bt-sq", "r=`printf '%s' '${V}'; echo x`; printf '%s' \"${r%x}\"", "${V}", {S::kSingleQuoted}},
      {"bt-sq-in-dq", "r=\"`printf '%s' '${V}'; echo x`\"; printf '%s' \"${r%x}\"", "${V}", {S::kSingleQuoted}},
      {"bt-nested",
       "r=`printf '%s' \"\\`printf '%s' \\\\\"${V}\\\\\"; echo x\\`\"`; printf '%s' \"${r%x}\"",
       "${V}",
       {S::kDoubleQuoted}},
      {"param-dq", "printf '%s' \"${unset_var-${V}}\"", "${V}", {S::kDoubleQuoted}},
      {"param-unquoted", "printf '%s' ${unset_var-${V}}", "${V}", {S::kUnquoted}},
      {"param-nested", "printf '%s' \"${unset_var-\"${V}\"}\"", "${V}", {S::kDoubleQuoted}},
      {"heredoc", "show <<EOF\n${V}\nEOF", "${V}\n", {S::kHeredocExpanding}},
      {"heredoc-mid", "show <<EOF\npre ${V} post\nEOF", "pre ${V} post\n", {S::kHeredocExpanding}},
      {"heredoc-quoted", "show <<'EOF'\n${V}\nEOF", "${V}\n", {S::kHeredocLiteral}},
      {"heredoc-backslash", "show <<\\END\nx${V}\nEND", "x${V}\n", {S::kHeredocLiteral}},
      {"heredoc-tabs", "show <<-EOF\n\t${V}\n\tEOF", "${V}\n", {S::kHeredocExpanding}},
      {"heredoc-tabs-quoted", "show <<-\"EOF\"\n\t\t${V}\n\tEOF", "${V}\n", {S::kHeredocLiteral}},
      {"heredoc-two",
       "{ show <<A; show <<'B'; }\n${V}\nA\n${V}\nB",
       "${V}\n${V}\n",
       {S::kHeredocExpanding, S::kHeredocLiteral}},
      {"heredoc-cmdsub", "show <<EOF\n$(printf '%s' \"${V}\")\nEOF", "${V}\n", {S::kDoubleQuoted}},
      {"heredoc-param", "show <<EOF\n${unset_var-${V}}\nEOF", "${V}\n", {S::kDoubleQuoted}},
      {"heredoc-bt", "show <<EOF\n`printf '%s' \"${V}\"`\nEOF", "${V}\n", {S::kDoubleQuoted}},
      {"comment", "# a comment ${V}\nprintf after", "after", {S::kComment}},
      {"comment-cmdsub", "r=\"$(\n# ${V}\nprintf after)\"; printf '%s' \"$r\"", "after", {S::kComment}},
      {"comment-bt", "r=`# ${V}\nprintf after`; printf '%s' \"$r\"", "after", {S::kComment}},
      {"case-pattern",
       "case \"$v\" in\n  ${V}) printf '%s' \"$v\" ;;\n  *) printf nomatch ;;\n"
       "esac",
       "${V}",
       {S::kUnquoted}},
      {"case-pattern-dq",
       "case \"$v\" in \"${V}\") printf '%s' \"$v\" ;; *) printf nomatch ;; esac",
       "${V}",
       {S::kDoubleQuoted}},
      {"case-cmdsub",
       "r=\"$(case \"$v\" in (${V}) printf '%s' \"$v\";; (*) printf nomatch;; esac; echo x)\"; printf '%s' "
       "\"${r%x}\"",
       "${V}",
       {S::kUnquoted}},
      {"case-word",
       "case ${V} in \"$v\") printf '%s' \"$v\" ;; *) printf nomatch ;; esac",
       "${V}",
       {S::kUnquoted}},
      {"arith", "printf '%s' \"$(( ${V} ))\"", "${V}", {S::kArithmetic}},
      {"ansi", "printf '%s' $'${V}'", "${V}", {S::kDollarSingleQuoted}, true},
  };
  return slots;
}

// The script runs one block per value, each in its own directory v<N> with
// its own canary. Every slot prints to stdout after a `\0<value>/<slot>\0`
// marker (values never hold NUL), because creating files is slow on some
// machines. `show` prints a here-document like cat, without forking, for
// short values; long ones use cat (a `read` loop reads byte by byte).
constexpr std::string_view kScriptHeader = "set -u\nroot=$PWD\n";

// The marker printed before slot `slot`'s output (`mark`: Prelude).
std::string Marker(std::size_t slot) { return "mark " + std::string(Slots()[slot].id) + "\n"; }

// ---- the corpus -----------------------------------------------------------

std::string Unescape(std::string_view text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '\\' || i + 1 == text.size()) {
      out += text[i];
      continue;
    }
    char c = text[++i];
    switch (c) {
      case 'n': out += '\n'; break;
      case 't': out += '\t'; break;
      case 'r': out += '\r'; break;
      case '0': out += '\0'; break;
      case '\\': out += '\\'; break;
      case 'x':
        REQUIRE(i + 2 < text.size());
        out += static_cast<char>(std::stoi(std::string(text.substr(i + 1, 2)), nullptr, 16));
        i += 2;
        break;
      default: FAIL("unknown escape in the corpus: \\" << c);
    }
  }
  return out;
}

std::vector<std::string> LoadCorpus() {
  // SAFESUBST_HOSTILE_VALUES names another corpus (to try a few values quickly).
  const char* other = std::getenv("SAFESUBST_HOSTILE_VALUES");
  std::filesystem::path path = other != nullptr ? std::filesystem::path(other)
                                                : testing::SourceDir() / "tests/data/shell/hostile-values.txt";
  std::string text = ReadFile(path, "\x01missing");
  REQUIRE(text != "\x01missing");
  std::vector<std::string> values;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    if (line.empty() || line == "#" || line.rfind("# ", 0) == 0) continue;
    if (line == "@empty") {
      values.emplace_back();
    } else if (line.rfind("@repeat ", 0) == 0) {
      std::size_t space = line.find(' ', 8);
      int count = std::stoi(line.substr(8, space - 8));
      std::string unit = Unescape(line.substr(space + 1));
      std::string value;
      for (int i = 0; i < count; ++i) value += unit;
      values.push_back(value);
    } else {
      values.push_back(Unescape(line));
    }
  }
  return values;
}

// A printable, short rendering of a value for failure messages.
std::string Show(std::string_view value) {
  std::string out;
  for (char c : value.substr(0, 60)) {
    auto byte = static_cast<unsigned char>(c);
    if (c == '\n') {
      out += "\\n";
    } else if (c == '\\') {
      out += "\\\\";
    } else if (byte < 0x20 || byte >= 0x7f) {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02x", byte);
      out += hex;
    } else {
      out += c;
    }
  }
  if (value.size() > 60) out += "... (" + std::to_string(value.size()) + " bytes)";
  return out;
}

std::string ReplaceAll(std::string_view text, std::string_view from, std::string_view to) {
  std::string out;
  std::size_t start = 0;
  for (std::size_t at = text.find(from); at != std::string_view::npos; at = text.find(from, start)) {
    out.append(text.substr(start, at - start)).append(to);
    start = at + from.size();
  }
  out.append(text.substr(start));
  return out;
}

// ---- rendering ----------------------------------------------------------

struct Template {
  std::string text;
  std::vector<std::size_t> offsets;  // of every ${V}
  std::vector<std::size_t> slot_of;  // the slot of each placeholder
};

Template BuildTemplate() {
  Template result;
  for (std::size_t s = 0; s < Slots().size(); ++s) {
    result.text += Marker(s);
    std::size_t base = result.text.size();
    std::string_view code = Slots()[s].code;
    for (std::size_t at = code.find(kPlaceholder); at != std::string_view::npos;
         at = code.find(kPlaceholder, at + 1)) {
      result.offsets.push_back(base + at);
      result.slot_of.push_back(s);
    }
    result.text.append(code).append("\n");
  }
  return result;
}

struct Rendering {
  std::string script;
  std::vector<bool> slot_refused;        // per slot
  std::vector<std::string> errors;       // per placeholder, empty when encoded
  std::vector<std::size_t> value_begin;  // per placeholder, offset in `script`
  std::vector<std::size_t> value_end;
};

// Encodes `value` at every placeholder; a slot with any refusal gets the
// benign value in all of its placeholders instead (so that the script stays runnable).
Rendering Render(const Template& tmpl, const std::vector<ShellContext>& contexts, std::string_view value) {
  Rendering rendering;
  rendering.slot_refused.assign(Slots().size(), false);
  std::vector<std::string> encoded(tmpl.offsets.size());
  rendering.errors.resize(tmpl.offsets.size());
  for (std::size_t i = 0; i < tmpl.offsets.size(); ++i) {
    rendering.errors[i] = AppendShellEncoded(contexts[i], value, ShellMode::kSafe, &encoded[i]);
    if (!rendering.errors[i].empty()) rendering.slot_refused[tmpl.slot_of[i]] = true;
  }
  std::size_t start = 0;
  for (std::size_t i = 0; i < tmpl.offsets.size(); ++i) {
    rendering.script.append(tmpl.text, start, tmpl.offsets[i] - start);
    rendering.value_begin.push_back(rendering.script.size());
    if (rendering.slot_refused[tmpl.slot_of[i]]) {
      std::string benign;
      std::string_view stand_in = contexts[i].state == ShellState::kArithmetic ? "1" : kBenign;
      REQUIRE(AppendShellEncoded(contexts[i], stand_in, ShellMode::kSafe, &benign).empty());
      rendering.script += benign;
    } else {
      rendering.script += encoded[i];
    }
    rendering.value_end.push_back(rendering.script.size());
    start = tmpl.offsets[i] + kPlaceholder.size();
  }
  rendering.script.append(tmpl.text, start);
  return rendering;
}

// The lexer's own check of an encoding: right after each substituted value
// the rendered script must be in the same state as the template right after
// the placeholder.
void CheckStatesKept(const Template& tmpl, const Rendering& rendering, std::string_view value) {
  std::vector<std::size_t> template_after, rendered_after;
  for (std::size_t i = 0; i < tmpl.offsets.size(); ++i) {
    template_after.push_back(tmpl.offsets[i] + kPlaceholder.size());
    rendered_after.push_back(rendering.value_end[i]);
  }
  std::vector<ShellContext> expected = ShellContextsAt(tmpl.text, template_after);
  std::vector<ShellContext> actual = ShellContextsAt(rendering.script, rendered_after);
  for (std::size_t i = 0; i < expected.size(); ++i) {
    CAPTURE(Show(value));
    CAPTURE(Slots()[tmpl.slot_of[i]].id);
    CHECK(ShellStateName(actual[i].state) == ShellStateName(expected[i].state));
    CHECK(actual[i].substitution_depth == expected[i].substitution_depth);
    CHECK(actual[i].backtick_layers == expected[i].backtick_layers);
    CHECK(actual[i].in_case_pattern == expected[i].in_case_pattern);
    CHECK(actual[i].inside_heredoc == expected[i].inside_heredoc);
    CHECK(actual[i].heredoc_delimiter == expected[i].heredoc_delimiter);
  }
}

// ---- shells ---------------------------------------------------------------

// `mark SLOT` prints the NUL-framed marker of a slot's output.
constexpr std::string_view kMarkWithPrintf = "mark() { printf '\\000%s/%s\\000' \"$block\" \"$1\"; }\n";

// mksh and posh have no printf builtin: each printf would exec
// /usr/bin/printf, some 10,000 processes per run (40 s on a slow machine). A
// function stands in for the forms the templates use (`%s`, `%s\n`, `[%s]`, a
// literal word), over each shell's own output builtin; any other format ends
// the block.
// mksh: `print -r` writes its operands as they are.
constexpr std::string_view kMkshPrelude = R"(printf() {
  case $1 in
  %s) shift; for _pf_a; do print -rn -- "$_pf_a"; done ;;
  '%s\n') shift; for _pf_a; do print -r -- "$_pf_a"; done ;;
  '[%s]') shift; for _pf_a; do print -rn -- "[$_pf_a]"; done ;;
  *[%\\]*) print -u2 "printf stand-in: unsupported format"; exit 99 ;;
  *) print -rn -- "$1" ;;
  esac
}
mark() { print -n '\0'; print -rn -- "$block/$1"; print -n '\0'; }
)";

// posh: `echo` is the only output builtin; it reads backslash escapes and
// takes a leading -n as an option. A value with a backslash goes to the
// printf program (doubling each backslash in posh takes minutes on the long
// values: it copies the rest of the value at each one); a leading `-` is
// written as its octal escape.
constexpr std::string_view kPoshPrelude = R"(_pf_put() {
  case $1 in
  *\\*) env printf '%s' "$1" ;;
  -*) echo -n '\0055'; _pf_put "${1#-}" ;;
  *) echo -n "$1" ;;
  esac
}
printf() {
  case $1 in
  %s) shift; for _pf_a; do _pf_put "$_pf_a"; done ;;
  '%s\n') shift; for _pf_a; do _pf_put "$_pf_a"; echo; done ;;
  '[%s]') shift; for _pf_a; do _pf_put "[$_pf_a]"; done ;;
  *[%\\]*) echo "printf stand-in: unsupported format" >&2; exit 99 ;;
  *) _pf_put "$1" ;;
  esac
}
mark() { echo -n '\0'; _pf_put "$block/$1"; echo -n '\0'; }
)";

using Shell = testing::RealShell;

// What a shell's script starts with: `mark`, and where the shell has no
// printf builtin, a printf for the formats the templates use.
std::string_view Prelude(const Shell& shell) {
  switch (shell.output) {
    case testing::OutputBuiltin::kPrintf:
      return kMarkWithPrintf;
    case testing::OutputBuiltin::kPrint:
      return kMkshPrelude;
    case testing::OutputBuiltin::kEcho:
      return kPoshPrelude;
  }
  return kMarkWithPrintf;
}

// One value of the corpus, rendered into every slot.
struct Case {
  std::size_t index = 0;
  std::string value;
  Rendering rendering;
  std::string block;  // its part of the script (Block)
};

bool IsValidUtf8(std::string_view text) {
  for (std::size_t i = 0; i < text.size();) {
    auto byte = static_cast<unsigned char>(text[i]);
    std::size_t length = byte < 0x80 ? 1 : (byte >> 5) == 0x6 ? 2 : (byte >> 4) == 0xe ? 3 : (byte >> 3) == 0x1e ? 4 : 0;
    if (length == 0 || i + length > text.size()) return false;
    for (std::size_t k = 1; k < length; ++k) {
      if ((static_cast<unsigned char>(text[i + k]) & 0xc0) != 0x80) return false;
    }
    i += length;
  }
  return true;
}

bool Runs(const Shell& shell, const Case& c) { return !shell.reads_only_utf8 || IsValidUtf8(c.value); }

// The script block of one value: into its own directory, with its own
// canary, `$v` holding the value (quoted by the test's own simple quoting,
// not by the encoder under test), then the rendered slots.
std::string Block(const Case& c) {
  std::string dir = "\"$root/v" + std::to_string(c.index) + "\"";
  std::string show = c.value.size() > 4096
                         ? "show() { cat; }\n"
                         : "show() { while IFS= read -r line; do printf '%s\\n' \"$line\"; done; }\n";
  // A subshell per block: a failing value ends its own block only, so that
  // every later value is still run and checked for its canary.
  return "block=" + std::to_string(c.index) + "\nmkdir " + dir + " && cd " + dir +
         " || exit 1\n(\nCANARY=$PWD/canary\nv=" + ShellQuote(c.value) + "\n" + show + c.rendering.script +
         ")\nrc=$?; mark status; printf '%s' \"$rc\"\ncd \"$root\"\n";
}

// Per shell: (value, slot) pairs encoded and run, refused by the encoder,
// not run (RealShell::reads_only_utf8); and among the encoded ones, those that
// printed something else than the value, and values that made a canary.
struct Counts {
  std::size_t encoded = 0, refused = 0, not_run = 0, mangled = 0, canaries = 0;
};

// Runs one script per shell (all shells at once), each in its own directory.
// Returns the directories.
std::vector<std::filesystem::path> RunScripts(const TempDir& work, const std::vector<Shell>& shells,
                                              const std::vector<Case>& cases) {
  return testing::RunScriptUnderShells(work.path(), shells, [&](const Shell& shell) {
    std::string script = std::string(kScriptHeader) + std::string(Prelude(shell));
    for (const Case& c : cases) {
      if (Runs(shell, c)) script += c.block;
    }
    return script;
  });
}

// Splits a script's stdout into the output of each `<value>/<slot>` marker.
std::map<std::string, std::string> SplitOutputs(const std::string& stdout_text) {
  std::map<std::string, std::string> outputs;
  std::size_t at = stdout_text.find('\0');
  while (at != std::string::npos) {
    std::size_t id_end = stdout_text.find('\0', at + 1);
    if (id_end == std::string::npos) break;
    std::size_t next = stdout_text.find('\0', id_end + 1);
    std::size_t content_end = next == std::string::npos ? stdout_text.size() : next;
    outputs[stdout_text.substr(at + 1, id_end - at - 1)] =
        stdout_text.substr(id_end + 1, content_end - id_end - 1);
    at = next;
  }
  return outputs;
}

// Checks the outputs of one value's block in one shell's run.
void CheckCase(const Shell& shell, const std::filesystem::path& dir,
               const std::map<std::string, std::string>& outputs, const Case& c, Counts* counts) {
  CAPTURE(shell.name);
  CAPTURE(Show(c.value));
  if (!Runs(shell, c)) {
    counts->not_run += Slots().size();
    return;
  }
  bool canary = std::filesystem::exists(dir / ("v" + std::to_string(c.index)) / "canary");
  CHECK_FALSE(canary);
  counts->canaries += canary ? 1 : 0;
  auto status = outputs.find(std::to_string(c.index) + "/status");
  CHECK((status == outputs.end() ? "<block did not finish>" : status->second) == "0");
  for (std::size_t s = 0; s < Slots().size(); ++s) {
    const Slot& slot = Slots()[s];
    if (c.rendering.slot_refused[s]) {
      ++counts->refused;
      continue;
    }
    ++counts->encoded;
    std::string expected = ReplaceAll(slot.expected, kPlaceholder, c.value);
    if (slot.dollar_prefix_without_ansi && !shell.reads_dollar_single) expected = "$" + expected;
    auto output = outputs.find(std::to_string(c.index) + "/" + std::string(slot.id));
    std::string actual = output == outputs.end() ? "<no output>" : output->second;
    CAPTURE(slot.id);
    CHECK_MESSAGE(actual == expected, "printed: " << Show(actual) << "  expected: " << Show(expected));
    counts->mangled += actual == expected ? 0 : 1;
  }
}

TEST_CASE("shell encoding: hostile values under real shells") {
  auto started = std::chrono::steady_clock::now();
  std::vector<std::string> corpus = LoadCorpus();
  REQUIRE(corpus.size() >= 40);
  std::vector<Shell> shells = testing::InstalledShells();
  REQUIRE(!shells.empty());

  Template tmpl = BuildTemplate();
  std::vector<ShellContext> contexts = ShellContextsAt(tmpl.text, tmpl.offsets);
  for (std::size_t i = 0, k = 0; i < tmpl.offsets.size(); ++i) {
    const Slot& slot = Slots()[tmpl.slot_of[i]];
    k = (i > 0 && tmpl.slot_of[i - 1] == tmpl.slot_of[i]) ? k + 1 : 0;
    CAPTURE(slot.id);
    CHECK(ShellStateName(contexts[i].state) == ShellStateName(slot.states.at(k)));
    CHECK(contexts[i].unsupported.empty());
  }

  // Encode every value everywhere; check the refusals and the lexer's view.
  std::size_t all_refused_values = 0;
  std::map<std::string, std::size_t> refusals_by_slot;
  std::vector<Case> cases;
  for (const std::string& value : corpus) {
    Case c{cases.size(), value, Render(tmpl, contexts, value), {}};
    for (std::size_t i = 0; i < tmpl.offsets.size(); ++i) {
      const std::string& error = c.rendering.errors[i];
      if (error.empty()) continue;
      CAPTURE(Show(value));
      CHECK(error.size() > 10);
      // A message names the problem, never the value (short values are
      // substrings of ordinary words and cannot be avoided).
      if (value.size() >= 3) CHECK_MESSAGE(error.find(value) == std::string::npos, error);
    }
    for (std::size_t s = 0; s < Slots().size(); ++s) {
      if (c.rendering.slot_refused[s]) ++refusals_by_slot[std::string(Slots()[s].id)];
    }
    CheckStatesKept(tmpl, c.rendering, value);
    bool all_refused = std::find(c.rendering.slot_refused.begin(), c.rendering.slot_refused.end(), false) ==
                       c.rendering.slot_refused.end();
    if (all_refused) {  // nothing to run (a NUL byte): every pair is a refusal
      ++all_refused_values;
      continue;
    }
    c.block = Block(c);
    cases.push_back(std::move(c));
  }

  // Run all values in one script per shell.
  auto run_started = std::chrono::steady_clock::now();
  TempDir work;
  std::vector<std::filesystem::path> dirs = RunScripts(work, shells, cases);
  double run_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - run_started).count();
  std::ostringstream per_shell;
  for (std::size_t i = 0; i < shells.size(); ++i) {
    CAPTURE(shells[i].name);
    std::string rc = ReadFile(dirs[i] / "rc", "<none>");
    std::string err = ReadFile(dirs[i] / "stderr", "<none>");
    CHECK(rc == "0\n");
    CHECK_MESSAGE(err.empty(), err.substr(0, 2000));
    CHECK_FALSE(std::filesystem::exists(dirs[i] / "canary"));
    std::map<std::string, std::string> outputs = SplitOutputs(ReadFile(dirs[i] / "stdout"));
    Counts counts;
    counts.refused = all_refused_values * Slots().size();
    for (const Case& c : cases) CheckCase(shells[i], dirs[i], outputs, c, &counts);
    per_shell << "\n  " << shells[i].name << ": " << counts.encoded << " encoded, run and printed back, "
              << counts.refused << " refused, " << counts.not_run << " not run (not UTF-8); " << counts.canaries
              << " canaries, " << counts.mangled << " mangled";
  }

  // Ordinary values are written everywhere but in arithmetic.
  for (std::string_view ordinary : {"10.0.1.10", "a=b", "50%", "fs-0123.efs.ap-northeast-2.amazonaws.com"}) {
    Rendering rendering = Render(tmpl, contexts, ordinary);
    for (std::size_t s = 0; s < Slots().size(); ++s) {
      CAPTURE(ordinary);
      CAPTURE(Slots()[s].id);
      CHECK(rendering.slot_refused[s] == (Slots()[s].id == "arith"));
    }
  }
  CHECK(Render(tmpl, contexts, "31").slot_refused == std::vector<bool>(Slots().size(), false));

  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  std::ostringstream by_slot;
  for (const auto& [slot, refused] : refusals_by_slot) by_slot << " " << slot << "=" << refused;
  MESSAGE("hostile corpus: " << corpus.size() << " values x " << Slots().size() << " shell states under "
                             << shells.size() << " shells, " << seconds << " s in all, " << run_seconds
                             << " s running shells. (value, state) pairs per shell:" << per_shell.str()
                             << "\nRefusals per state (of " << corpus.size() << " values):" << by_slot.str());
}

// ---- dialects ---------------------------------------------------------------
// A script for /bin/sh is read as dash, busybox ash and bash (ScriptShells::kSh).
// Each slot puts the placeholder after a construct that only some of them
// know; a value is written only where every reading takes it literally. What
// a shell prints for a value is what it printed for the slot's reference
// value (a block of its own), with the value in its place.

struct DialectSlot {
  std::string_view id;
  std::string_view code;       // with ${V}
  std::string_view reference;  // a value every reading takes literally
};

const std::vector<DialectSlot>& DialectSlots() {
  static const std::vector<DialectSlot> slots = {
      // dash: `$`, 'a\' and b, then '${V}' is unquoted and ' # ' a string.
      {"ansi-then-sq", "printf '[%s]' $'a\\'b' '${V}' # '", "benign"},
      // dash: the same opens a single quote that "${V}" ends up in.
      {"ansi-then-dq", "printf '[%s]' $'a\\'b' \"${V}\" # '", "benign"},
      {"ansi-alike", "printf '[%s]' $'a' '${V}' \"${V}\"", "benign"},
      // bash: arithmetic; dash, busybox ash: two subshells running `n`.
      {"arith-command", "(( n = ${V} )) 2>/dev/null || n='${V}'; printf '[%s]' \"$n\"", "7"},
      // bash: arithmetic; dash, busybox ash: a `$` and a word.
      {"dollar-bracket", "x=$[${V}]; printf '[%s]' \"$x\"", "7"},
  };
  return slots;
}

// The block of one value: every dialect slot, with the value where the
// encoder writes it and the slot's reference where it refuses it. Without a
// value: the block of the references.
Case DialectCase(std::size_t index, const std::string* value, std::vector<bool>* refused, Counts* counts) {
  Case c{index, value != nullptr ? *value : std::string(kBenign), {}, {}};
  std::string code;
  for (const DialectSlot& slot : DialectSlots()) {
    std::string_view written = value != nullptr ? std::string_view(*value) : slot.reference;
    std::vector<std::size_t> offsets;
    for (std::size_t at = slot.code.find(kPlaceholder); at != std::string_view::npos;
         at = slot.code.find(kPlaceholder, at + 1)) {
      offsets.push_back(at);
    }
    std::vector<ShellContext> contexts = ShellContextsAt(slot.code, offsets, nullptr, ScriptShells::kSh);
    std::vector<std::string> encoded(offsets.size());
    bool refuse = false;
    for (std::size_t i = 0; i < offsets.size(); ++i) {
      refuse = refuse || !AppendShellEncoded(contexts[i], written, ShellMode::kSafe, &encoded[i]).empty();
    }
    for (std::size_t i = 0; refuse && i < offsets.size(); ++i) {
      encoded[i].clear();
      REQUIRE(AppendShellEncoded(contexts[i], slot.reference, ShellMode::kSafe, &encoded[i]).empty());
    }
    refused->push_back(refuse);
    (refuse ? counts->refused : counts->encoded) += 1;
    std::string rendered;
    std::size_t start = 0;
    for (std::size_t i = 0; i < offsets.size(); ++i) {
      rendered.append(slot.code.substr(start, offsets[i] - start)).append(encoded[i]);
      start = offsets[i] + kPlaceholder.size();
    }
    rendered.append(slot.code.substr(start));
    code += "mark " + std::string(slot.id) + "\n" + rendered + "\n";
  }
  c.block = "block=" + std::to_string(index) + "\nmkdir \"$root/v" + std::to_string(index) + "\" && cd \"$root/v" +
            std::to_string(index) + "\" || exit 1\n(\nCANARY=$PWD/canary\n" + code +
            ")\nrc=$?; mark status; printf '%s' \"$rc\"\ncd \"$root\"\n";
  return c;
}

TEST_CASE("shell encoding: hostile values in a script for /bin/sh under real shells") {
  std::vector<std::string> corpus = LoadCorpus();
  std::vector<Shell> shells = testing::InstalledShells();
  REQUIRE(!shells.empty());
  // Block 0 holds the references, block k the corpus's value k - 1.
  std::vector<Case> cases;
  std::vector<std::vector<bool>> refused(corpus.size() + 1);
  Counts counts;
  Counts reference_counts;
  std::string references;
  cases.push_back(DialectCase(0, nullptr, &refused[0], &reference_counts));
  for (std::size_t i = 0; i < corpus.size(); ++i) {
    if (corpus[i].find('\0') != std::string::npos) continue;  // refused everywhere (the main test shows it)
    cases.push_back(DialectCase(i + 1, &corpus[i], &refused[i + 1], &counts));
  }
  CHECK(std::count(refused[0].begin(), refused[0].end(), true) == 0);
  // The canonical exploit is refused, an inert value written.
  const std::size_t kAnsiThenSq = 0;
  for (const Case& c : cases) {
    if (c.value == "; touch canary" || c.value == "; touch canary; #") CHECK(refused[c.index][kAnsiThenSq]);
    if (c.value == "web-portal") CHECK_FALSE(refused[c.index][kAnsiThenSq]);
  }
  TempDir work;
  std::vector<std::filesystem::path> dirs = RunScripts(work, shells, cases);
  std::ostringstream per_shell;
  for (std::size_t i = 0; i < shells.size(); ++i) {
    CAPTURE(shells[i].name);
    std::map<std::string, std::string> outputs = SplitOutputs(ReadFile(dirs[i] / "stdout"));
    std::size_t canaries = 0, mangled = 0, checked = 0;
    for (const Case& c : cases) {
      if (c.index == 0 || !Runs(shells[i], c)) continue;
      CAPTURE(Show(c.value));
      bool canary = std::filesystem::exists(dirs[i] / ("v" + std::to_string(c.index)) / "canary");
      CHECK_FALSE(canary);
      canaries += canary ? 1 : 0;
      for (std::size_t s = 0; s < DialectSlots().size(); ++s) {
        if (refused[c.index][s]) continue;
        const DialectSlot& slot = DialectSlots()[s];
        CAPTURE(slot.id);
        std::string reference = outputs["0/" + std::string(slot.id)];
        REQUIRE(reference.find(slot.reference) != std::string::npos);
        std::string expected = ReplaceAll(reference, slot.reference, c.value);
        std::string actual = outputs[std::to_string(c.index) + "/" + std::string(slot.id)];
        CHECK_MESSAGE(actual == expected, "printed: " << Show(actual) << "  expected: " << Show(expected));
        mangled += actual == expected ? 0 : 1;
        ++checked;
      }
    }
    CHECK_FALSE(std::filesystem::exists(dirs[i] / "canary"));
    per_shell << "\n  " << shells[i].name << ": " << checked << " run and printed back, " << canaries
              << " canaries, " << mangled << " mangled";
  }
  MESSAGE("dialect section: " << DialectSlots().size() << " slots x " << cases.size() - 1 << " values: "
                              << counts.encoded << " encoded, " << counts.refused
                              << " refused (the same for every shell: /bin/sh may be any of them)"
                              << per_shell.str());
}

// ---- shellcheck -------------------------------------------------------------

// shellcheck's findings as (line, code) pairs: values without line breaks
// keep line numbers, so the sets of two renderings compare directly.
std::multiset<std::pair<int, std::string>> ShellcheckFindings(const std::string& script, std::string* raw) {
  TempDir dir;
  WriteFile(dir / "script.sh", script);
  testing::CommandResult result =
      testing::RunShell("shellcheck -s sh -f gcc " + ShellQuote((dir / "script.sh").string()));
  *raw = result.out + result.err;
  std::multiset<std::pair<int, std::string>> findings;
  std::istringstream lines(result.out);
  for (std::string line; std::getline(lines, line);) {
    // script.sh:12:5: warning: ... [SC2086]
    std::size_t first = line.find(':');
    std::size_t second = line.find(':', first + 1);
    std::size_t code = line.rfind("[SC");
    if (first == std::string::npos || second == std::string::npos || code == std::string::npos) continue;
    findings.emplace(std::stoi(line.substr(first + 1, second - first - 1)), line.substr(code + 1, 6));
  }
  return findings;
}

TEST_CASE("shell encoding: shellcheck finds nothing new with ordinary values") {
  REQUIRE_MESSAGE(testing::HaveProgram("shellcheck"), "shellcheck is not installed (Debian package shellcheck)");
  Template tmpl = BuildTemplate();
  std::vector<ShellContext> contexts = ShellContextsAt(tmpl.text, tmpl.offsets);
  std::string raw;
  std::multiset<std::pair<int, std::string>> baseline =
      ShellcheckFindings(Render(tmpl, contexts, kBenign).script, &raw);
  REQUIRE_MESSAGE(raw.find("error") == std::string::npos, raw);
  std::size_t checked = 0;
  for (std::string_view value :
       {"31", "10.0.1.10", "a=b", "50%", "fs-0123.efs.ap-northeast-2.amazonaws.com", "web-portal"}) {
    Rendering rendering = Render(tmpl, contexts, value);
    std::multiset<std::pair<int, std::string>> findings = ShellcheckFindings(rendering.script, &raw);
    CAPTURE(value);
    CHECK_MESSAGE(findings == baseline, raw);
    ++checked;
  }
  MESSAGE("shellcheck: " << checked << " renderings compared with the benign baseline (" << baseline.size()
                         << " baseline findings, from the template's own constructs)");
}

// A command name the value would complete into an assignment (attacker,
// session 28 08:25): `pre${V} touch canary` with V=`1=x` reads `pre1=x` as
// an assignment and runs the next word. Substituted as plain text, each shape
// does that under every shell; rendered, no value makes a canary.
TEST_CASE("shell encoding: a value that would make a command name an assignment, under real shells") {
  const std::vector<std::string_view> lines = {"pre${V} touch canary", "${V}=x touch canary", "pre${V}=x touch canary",
                                               "pre_${V}_X=1 touch canary", "${A}${V} touch canary",
                                               "echo\\\n${V} touch canary", "env echo${V} touch canary"};
  std::vector<std::string> plain, rendered;
  std::size_t refused = 0;
  for (std::string_view line : lines) {
    const std::size_t at = line.find("${V}");
    const ShellContext context = ShellContextsAt(line, {at}).front();
    const auto with = [&](std::string_view value) {
      return "A=a\n" + std::string(line.substr(0, at)) + std::string(value) + std::string(line.substr(at + 4)) + "\n";
    };
    // Plain substitution; `${A}` stands for another placeholder, substituted too.
    std::string substituted = with(line.find('=') != std::string_view::npos ? "b" : "1=x");
    if (const std::size_t a = substituted.find("${A}"); a != std::string::npos) substituted.replace(a, 4, "a");
    plain.push_back(substituted);
    for (std::string_view value : {"1=x", "=x", "b", "b+", "fix", "1", "x[1]=", "-v"}) {
      std::string encoded;
      CAPTURE(line);
      CAPTURE(value);
      if (AppendShellEncoded(context, value, ShellMode::kSafe, &encoded).empty()) {
        rendered.push_back(with(encoded));
      } else {
        ++refused;
      }
    }
  }
  CHECK(refused >= lines.size() * 2);
  const std::vector<testing::RealShell> shells = testing::InstalledShells();
  TempDir work;
  const std::vector<std::filesystem::path> plain_dirs = testing::RunEachScriptUnderShells(work.path() / "plain", shells, plain);
  const std::vector<std::filesystem::path> dirs = testing::RunEachScriptUnderShells(work.path() / "rendered", shells, rendered);
  std::string all;
  for (std::size_t i = 0; i < plain.size(); ++i) all += std::to_string(i) + "\n";
  for (std::size_t s = 0; s < shells.size(); ++s) {
    CAPTURE(shells[s].name);
    CHECK(testing::ReadFile(plain_dirs[s] / "canaries") == all);  // the shapes are real
    CHECK_MESSAGE(testing::ReadFile(dirs[s] / "canaries").empty(), "canaries after scripts");
  }
  MESSAGE("assignment-making values: " << rendered.size() << " renderings run, " << refused << " refused");
}

}  // namespace
}  // namespace safesubst
