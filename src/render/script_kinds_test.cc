// SPDX-License-Identifier: Apache-2.0
// A substituted scalar must stay the kind of text it was encoded for: the
// check itself (CheckScriptKindsKept), and the render reaching it both ways,
// through a value and through the manifest's steps.
#include "script_kinds.h"

#include <doctest/doctest.h>

#include <string>

#include "classify.h"
#include "safesubst/render.h"
#include "test_support.h"

namespace safesubst {
namespace {

using testing::TempDir;
using testing::WriteFile;

// ShellDecidingPlaces for the reference `${V}` in `text`, classified first,
// replaced by `value`.
bool ValueThereCanDecide(const std::string& text, std::string_view value = "x") {
  Tokens tokens = Tokenize(text, TokenizerOptions{"t.yaml"});
  REQUIRE(tokens.diagnostics.empty());
  Classify(text, Manifest{}, &tokens);
  ShellDecidingPlaces places(text, tokens);
  for (const Reference& reference : tokens.references) {
    if (reference.name == "V") return places.Contains(reference, value);
  }
  FAIL("no ${V} in: " << text);
  return false;
}

TEST_CASE("script kinds: which values can decide that a scalar is a shell script") {
  CHECK(ValueThereCanDecide("command: [\"${V}\", -c, \"echo hi\"]\n"));
  CHECK(ValueThereCanDecide("command: [sh]\nargs: [\"${V}\", \"echo hi\"]\n"));
  CHECK(ValueThereCanDecide("command:\n  - |-\n    ${V}\n  - -c\n"));  // a block item is a word too
  CHECK(ValueThereCanDecide("command: [\"${V}\"]\nargs: [-c, x]\n"));   // the args come after the command
  CHECK(ValueThereCanDecide("command: [sh, -c]\nargs: [\"${V}\", \"echo hi\"]\n"));  // V = `--` moves the script
  CHECK(ValueThereCanDecide("kind: ${V}\ndata:\n  run.sh: echo hi\n"));
  CHECK(ValueThereCanDecide("script: |\n  #!${V}\n  echo hi\n"));
  CHECK(ValueThereCanDecide("script: |\n  #!/usr/bin/env ${V}\n  echo hi\n"));
  CHECK(ValueThereCanDecide("script: |\n  ${V}\n  echo hi\n"));  // V = `#!/bin/sh`
  CHECK(ValueThereCanDecide("script: |\n  #${V}/bin/sh\n  echo hi\n"));  // V = `!`
  // A `#!` line forms in a flow scalar of any style, and a ConfigMap key may come to end in `.sh`.
  CHECK(ValueThereCanDecide("script: \"#!${V}\\necho hi\"\n"));
  CHECK(ValueThereCanDecide("script: '#!/usr/bin/env\n  ${V}'\n"));  // folded onto the #! line
  CHECK(ValueThereCanDecide("script: \"${V}\\necho hi\"\n", "#!/bin/sh"));
  CHECK(ValueThereCanDecide("script: ${V}\n", "#!/bin/sh"));
  CHECK(ValueThereCanDecide("script: \"${V}${W}\"\n", ""));  // W may start it
  CHECK(ValueThereCanDecide("kind: ConfigMap\ndata:\n  run.${V}: echo hi\n"));
  CHECK(ValueThereCanDecide("kind: List\nitems:\n  - kind: ${V}\n    data:\n      run.sh: echo hi\n"));

  CHECK_FALSE(ValueThereCanDecide("command: [sh, -c, \"echo ${V}\"]\n"));  // the script, and the last item
  CHECK_FALSE(ValueThereCanDecide("command: [sh, -c]\nargs: [\"echo ${V}\"]\n"));
  CHECK_FALSE(ValueThereCanDecide("image: app:${V}\n"));
  CHECK_FALSE(ValueThereCanDecide("image: ${V}\n", "registry/app:1.0"));
  CHECK_FALSE(ValueThereCanDecide("script: \"${V}\\necho hi\"\n", "echo start"));
  CHECK_FALSE(ValueThereCanDecide("metadata:\n  labels:\n    ${V}: x\n"));
  CHECK_FALSE(ValueThereCanDecide("spec:\n  kind: ${V}\n"));  // only the document's own kind
  CHECK_FALSE(ValueThereCanDecide("script: |\n  echo ${V}\n  #!/bin/sh\n"));
  // The body of a script, below its #! line or in an `args` block: the usual case.
  CHECK_FALSE(ValueThereCanDecide("script: |\n  #!/bin/sh\n  echo ${V}\n"));
  CHECK_FALSE(ValueThereCanDecide("args:\n  - |\n    echo ${V}\n"));
}

EncodedScalar Written(std::string value, bool is_shell, bool inert = false) {
  EncodedScalar scalar;
  scalar.value = std::move(value);
  scalar.is_shell = is_shell;
  scalar.shell_inert = inert;
  scalar.names = "X";
  scalar.at = Location{"f.yaml", 3, 10, 0};
  return scalar;
}

Diagnostics Check(std::string_view rendered, const std::vector<EncodedScalar>& encoded, bool every = false) {
  return CheckScriptKindsKept(rendered, Manifest{}, encoded, "out.yaml", "after the steps", every);
}

constexpr std::string_view kShellContainer = "command: [/bin/sh, -c]\nargs:\n  - |\n    echo a;b\n";
constexpr std::string_view kPlainContainer = "command: [/app/run]\nargs:\n  - |\n    echo a;b\n";

TEST_CASE("script kinds: data that became a shell script is reported at the value's own place") {
  Diagnostics problems = Check(kShellContainer, {Written("echo a;b\n", false)});
  REQUIRE(problems.size() == 1);
  CHECK(problems[0].location.file == "f.yaml");
  CHECK(problems[0].location.line == 3);
  CHECK(problems[0].message ==
        "the value of X was written as data here, but after the steps, the text at 'args[0]' is a shell script, "
        "where a value could run as a command");
}

TEST_CASE("script kinds: a shell-quoted script that stopped being one is reported") {
  Diagnostics problems = Check(kPlainContainer, {Written("echo a;b\n", true)});
  REQUIRE(problems.size() == 1);
  CHECK(problems[0].message.find("is not a shell script: the shell quoting would become part of the value") !=
        std::string::npos);
}

TEST_CASE("script kinds: the same kind, an inert value or another text is no problem") {
  CHECK(Check(kShellContainer, {Written("echo a;b\n", true)}).empty());
  CHECK(Check(kPlainContainer, {Written("echo a;b\n", false)}).empty());
  CHECK(Check(kShellContainer, {Written("echo a;b\n", false, /*inert=*/true)}).empty());
  CHECK(Check(kShellContainer, {Written("echo c\n", false)}).empty());
  // One of two equal texts was encoded for a shell: that one fits.
  CHECK(Check(kShellContainer, {Written("echo a;b\n", false), Written("echo a;b\n", true)}).empty());
}

TEST_CASE("script kinds: a scalar written once is reported once, wherever its text appears") {
  const std::string twice = std::string(kShellContainer) + "  - |\n    echo a;b\n";
  CHECK(Check("command: [sh, -c, \"echo a;b\", \"echo a;b\"]\n", {Written("echo a;b", false)}).size() == 1);
  CHECK(Check(twice, {Written("echo a;b\n", false)}).size() == 1);
}

TEST_CASE("script kinds: an inert value does not pass into a script with a here-document or arithmetic") {
  const std::string heredoc = "command: [/bin/sh, -c]\nargs:\n  - |\n    cat <<EOF\n    EOF\n";
  CHECK(Check(heredoc, {Written("cat <<EOF\nEOF\n", false, /*inert=*/true)}).size() == 1);
  const std::string arithmetic = "command: [/bin/sh, -c]\nargs: [\"echo $((a))\"]\n";
  CHECK(Check(arithmetic, {Written("echo $((a))", false, /*inert=*/true)}).size() == 1);
}

TEST_CASE("script kinds: on the render's own output, a written scalar that is not found fails closed") {
  CHECK(Check(kShellContainer, {Written("echo elsewhere", false)}).empty());
  Diagnostics problems = Check(kShellContainer, {Written("echo elsewhere", false)}, /*every=*/true);
  REQUIRE(problems.size() == 1);
  CHECK(problems[0].message.find("is not found, so whether it is in a shell script cannot be checked") !=
        std::string::npos);
  CHECK(Check(kShellContainer, {Written("echo elsewhere", false, /*inert=*/true)}, true).empty());
}

TEST_CASE("script kinds: rendered text that does not tokenize is an error, not a pass") {
  Diagnostics problems = Check("a: \"unterminated\n", {Written("x;y", false)});
  REQUIRE(problems.size() == 1);
  CHECK(problems[0].message.find("cannot tell which scalars are shell scripts after the steps") == 0);
}

using NamedValues = std::vector<std::pair<std::string, std::string>>;

// Renders `text` with `manifest_text` (both written to a scratch directory,
// with `fragment` as frag.yaml), X = `x`, SHELL_BIN=/bin/sh, KIND=ConfigMap
// and `more`.
RenderResult RenderWith(const std::string& manifest_text, const std::string& text, const std::string& x,
                        const std::string& fragment = "", const NamedValues& more = {}) {
  TempDir dir;
  WriteFile(dir / "m.yaml", manifest_text);
  WriteFile(dir / "frag.yaml", fragment);
  Result<Manifest> manifest = LoadManifestFile((dir / "m.yaml").string());
  REQUIRE(manifest.ok());
  ValueSet values;
  NamedValues all = {{"X", x}, {"SHELL_BIN", "/bin/sh"}, {"KIND", "ConfigMap"}};
  all.insert(all.end(), more.begin(), more.end());
  for (const auto& [name, value] : all) values.Set(name, Value{value, ValueSource::kCommandLine, Location{"--set"}});
  RenderOptions options;
  options.file_name = "t.yaml";
  return Render(text, *manifest.value, values, options);
}

bool FailsWith(const RenderResult& result, std::string_view text) {
  for (const Diagnostic& diagnostic : result.diagnostics) {
    if (diagnostic.message.find(text) != std::string::npos) return result.output.empty();
  }
  return false;
}

constexpr const char* kVariables =
    "variables:\n  X: {}\n  SHELL_BIN: {}\n  KIND: {}\n  HEADER: {}\n  A: {}\n  CMD: {type: yaml}\n"
    "  NAME: {}\n  MODE: {}\n";
constexpr const char* kHostile = "a; touch /tmp/owned";

TEST_CASE("script kinds: a value that makes a command line a shell one cannot inject into its script") {
  const std::string text = "command: [\"${SHELL_BIN}\", -c]\nargs:\n  - |\n    echo ${X}\n";
  CHECK(FailsWith(RenderWith(kVariables, text, kHostile), "once the values are in, the text at 'args[0]' is a shell"));
  RenderResult inert = RenderWith(kVariables, text, "10.0.1.10");
  CHECK(inert.ok());
  CHECK(inert.output.find("echo 10.0.1.10") != std::string::npos);

  const std::string config_map = "kind: ${KIND}\ndata:\n  run.sh: |\n    echo ${X}\n";
  CHECK(FailsWith(RenderWith(kVariables, config_map, kHostile), "'data.run.sh' is a shell script"));
  const std::string shebang = "script: |\n  #!${SHELL_BIN}\n  echo ${X}\n";
  CHECK(FailsWith(RenderWith(kVariables, shebang, kHostile), "'script' is a shell script"));
}

// The places a review found the first version of this check missed.
TEST_CASE("script kinds: every way a value decides the shell is caught") {
  const std::string block_program = "containers:\n- command:\n  - |-\n    ${SHELL_BIN}\n  - -c\n  args:\n  - |\n"
                                    "    echo ${X}\n";
  CHECK(FailsWith(RenderWith(kVariables, block_program, kHostile), "is a shell script"));
  const std::string header = "kind: ConfigMap\ndata:\n  run: |\n    ${HEADER}\n    echo ${X}\n";
  CHECK(FailsWith(RenderWith(kVariables, header, kHostile, "", {{"HEADER", "#!/bin/sh"}}), "is a shell script"));
  const std::string moved = "containers:\n- command: [/bin/sh, -c]\n  args:\n  - ${A}\n  - |\n    echo ${X}\n";
  CHECK(FailsWith(RenderWith(kVariables, moved, kHostile, "", {{"A", "--"}}), "is a shell script"));
  const std::string yaml_command = "containers:\n- command: ${CMD}\n  args:\n  - |\n    echo ${X}\n";
  CHECK(FailsWith(RenderWith(kVariables, yaml_command, kHostile, "", {{"CMD", "[/bin/sh, -c]"}}),
                  "is a shell script"));
  // From a second review: an option after -c, an unlisted shell, a folded #! paragraph.
  const std::string option = "containers:\n- command: [/bin/sh, -c, \"${A}\"]\n  args: [\"echo ${X}\"]\n";
  CHECK(FailsWith(RenderWith(kVariables, option, kHostile, "", {{"A", "-e"}}), "is a shell script"));
  const std::string rbash = "containers:\n- command: [\"${SHELL_BIN}\", -c]\n  args: [\"echo ${X}\"]\n";
  CHECK(FailsWith(RenderWith(kVariables, rbash, kHostile, "", {{"SHELL_BIN", "/bin/rbash"}}), "is a shell script"));
  const std::string folded = "kind: ConfigMap\ndata:\n  run: >\n    #!\n    ${SHELL_BIN}\n\n    echo ${X}\n";
  CHECK(FailsWith(RenderWith(kVariables, folded, kHostile), "is a shell script"));
  // An inert value that would end a here-document early.
  const std::string heredoc = "containers:\n- command: [\"${SHELL_BIN}\", -c]\n  args:\n  - |\n"
                              "    cat <<EOF > /tmp/app.conf\n    ${NAME}\n    ${MODE}\n    EOF\n";
  CHECK(FailsWith(RenderWith(kVariables, heredoc, "x", "", {{"NAME", "EOF"}, {"MODE", "reboot"}}),
                  "is a shell script"));
}

TEST_CASE("script kinds: a fragment's script merged under a shell command line cannot inject") {
  const std::string merge = std::string(kVariables) + "steps:\n  - merge: frag.yaml\n    into: .containers[0]\n";
  const std::string shell_container = "containers:\n  - name: a\n    command: [/bin/sh, -c]\n";
  const std::string fragment = "args:\n  - |\n    echo ${X}\n";
  CHECK(FailsWith(RenderWith(merge, shell_container, kHostile, fragment),
                  "after the manifest's steps, the text at 'containers[0].args[0]' is a shell script"));
  CHECK(RenderWith(merge, shell_container, "fs-1.example.com", fragment).ok());

  // The fragment that names its shell is rendered as shell, and merges.
  const std::string own_command = "command: [/bin/sh, -c]\n" + fragment;
  RenderResult quoted = RenderWith(merge, "containers:\n  - name: a\n", "a b", "command: [/bin/sh, -c]\n" +
                                   std::string("args:\n  - |\n    echo \"${X}\"\n"));
  CHECK(quoted.ok());
  CHECK(FailsWith(RenderWith(merge, "containers:\n  - name: a\n", "a b", own_command), "whitespace"));
}

TEST_CASE("script kinds: a step that removes the shell from a shell-quoted script fails") {
  const std::string remove = std::string(kVariables) + "steps:\n  - delete: .containers[0].command\n";
  const std::string text = "containers:\n  - name: a\n    command: [/bin/sh, -c]\n    args:\n      - |\n"
                           "        echo \"${X}\"\n";
  CHECK(FailsWith(RenderWith(remove, text, "say \"hi\""), "is not a shell script"));
  // Written alike either way: nothing to report.
  CHECK(RenderWith(remove, text, "plain").ok());
}

TEST_CASE("script kinds: a command line hidden behind an alias or a merge into one") {
  auto hidden = [](const std::string& text) {
    Tokens tokens = Tokenize(text);
    REQUIRE(tokens.diagnostics.empty());
    const Alias* alias = HiddenCommandLines(tokens).Hiding(tokens.scalars.back());
    return alias == nullptr ? std::string() : std::string(text.substr(alias->offset, alias->length));
  };
  CHECK(hidden("a: &m {command: [sh, -c]}\nb:\n  <<: [*m]\n  args: [x]\n") == "*m");  // a merge list
  CHECK(hidden("k: [&c command]\nb:\n  *c : [sh, -c]\n  args: [x]\n") == "*c");    // an alias key
  CHECK(hidden("a: &s [sh, -c]\nb:\n  command: *s\n") == "*s");
  CHECK(hidden("a: &s x\nb:\n  args: [-c, *s]\n") == "*s");
  CHECK(hidden("a: &m {command: [sh, -c]}\nb:\n  <<: *m\n  args: [x]\n") == "*m");
  // Merged whole: command and args come from the anchor, classified there.
  CHECK(hidden("a: &m {command: [sh, -c], args: [x]}\nb:\n  <<: *m\n  name: b\n").empty());
  CHECK(hidden("a: &l {x: y}\nb:\n  labels: *l\n  command: [sh]\n").empty());
}

// Found on real templates: one `<<: *prepare` made every value of the
// document need to read alike in a shell script and in data.
TEST_CASE("script kinds: a merge into a command line hides that command line and the merged mapping only") {
  const std::string text =
      "prepare: &prepare {command: [sh, -c], env: [{name: A, value: a}]}\n"
      "spec:\n  containers:\n    - <<: *prepare\n      args: [run]\n    - name: other\n      args: [plain]\n"
      "data: {key: plain-data}\n";
  Tokens tokens = Tokenize(text);
  REQUIRE(tokens.diagnostics.empty());
  const HiddenCommandLines hidden(tokens);
  auto scalar = [&](std::string_view value) {
    for (const Scalar& candidate : tokens.scalars) {
      if (text.substr(candidate.offset, candidate.length) == value) return candidate;
    }
    FAIL("no scalar " << value);
    return Scalar{};
  };
  const Alias* run = hidden.Hiding(scalar("run"));
  REQUIRE(run != nullptr);
  CHECK(text.substr(run->offset, run->length) == "*prepare");
  CHECK(hidden.Hiding(scalar("sh")) != nullptr);  // under the merged mapping
  CHECK(hidden.Hiding(scalar("a")) != nullptr);
  CHECK(hidden.Hiding(scalar("plain")) == nullptr);  // another container
  CHECK(hidden.Hiding(scalar("plain-data")) == nullptr);
  // An alias as a command line item may stand for any node: the whole document.
  Tokens item = Tokenize("s: &s x\nb:\n  args: [-c, *s]\nd: value\n");
  CHECK(HiddenCommandLines(item).Hiding(item.scalars.back()) != nullptr);
}

// The common `<<: *defaults` of pull policy, resources or env brings no
// command line: the container's own command and args stay classified.
TEST_CASE("script kinds: a merge of a mapping known to have no command line hides nothing") {
  auto hidden = [](const std::string& text) {
    Tokens tokens = Tokenize(text);
    REQUIRE(tokens.diagnostics.empty());
    return !HiddenCommandLines(tokens).empty();
  };
  const std::string container = "b:\n  <<: *d\n  command: [sh, -c]\n  args: [x]\n";
  CHECK_FALSE(hidden("a: &d\n  imagePullPolicy: Always\n" + container));
  CHECK_FALSE(hidden("a: &d {imagePullPolicy: Always}\n" + container));
  CHECK_FALSE(hidden("a:\n  - &d\n    imagePullPolicy: Always\n" + container));
  CHECK_FALSE(hidden("a: &d {x: 1}\nc: &e {y: 2}\nb:\n  <<: [*d, *e]\n  command: [sh, -c]\n"));
  // Still hidden: the merged mapping has a command line, merges one in, or
  // has an alias key; or what the anchor holds is not known.
  CHECK(hidden("a: &d\n  command: [sh, -c]\n" + container));
  CHECK(hidden("a: &d\n  args: [y]\n" + container));
  CHECK(hidden("z: &z {command: [sh, -c]}\na: &d\n  <<: *z\n" + container));
  CHECK(hidden("k: [&c command]\na: &d\n  *c : [sh, -c]\n" + container));
  CHECK(hidden("a:\n  - &d name: x\n    command: [sh, -c]\n" + container));  // `&d` is the key's
  CHECK(hidden("a: &d [x]\n" + container));  // a sequence
  CHECK(hidden("a: &d {x: 1}\nc: &e {command: [sh]}\nb:\n  <<: [*d, *e]\n  args: [x]\n"));
  // The last anchor of the name before the merge counts, in its own document.
  CHECK(hidden("a: &d {x: 1}\na2: &d {command: [sh]}\n" + container));
  CHECK_FALSE(hidden("a: &d {command: [sh]}\na2: &d {x: 1}\n" + container));
  CHECK_FALSE(Tokenize("a: &d {x: 1}\n---\n" + container).diagnostics.empty());  // the alias names no anchor
  // An anchor of the name that is not known to be a mapping's hides the
  // earlier one (found by review: a key's anchor on the content line).
  CHECK(hidden("a: &d {x: 1}\nb2: &d\n  &c command: [sh, -c]\n" + container));
  CHECK(hidden("a: &d {x: 1}\nb2: &d !!map\n  &c command: [sh, -c]\n" + container));
  CHECK(hidden("a: &d {x: 1}\nb2:\n  - &d\n    &c command: [sh, -c]\n" + container));
}

TEST_CASE("script kinds: with a command line taken from an alias, only values that read alike are written") {
  const std::string text = "containers:\n  - name: a\n    command: &shell [/bin/sh, -c]\n    args: [\"true\"]\n"
                           "  - name: b\n    command: *shell\n    args:\n      - |\n        echo ${X}\n";
  CHECK(FailsWith(RenderWith(kVariables, text, kHostile), "this document takes a command line from the alias "
                                                          "*shell at line 6"));
  CHECK(RenderWith(kVariables, text, "fs-1.example.com").ok());
  // `scripts:` does not make a script shell: it gives no way out.
  const std::string scripts = std::string(kVariables) + "scripts: [\".containers[1].args[0]\"]\n";
  CHECK(FailsWith(RenderWith(scripts, text, kHostile), "takes a command line from the alias"));
  // Three uses, one error that counts the others.
  const std::string thrice = text + "        echo ${X}\n        echo ${X}\n";
  CHECK(FailsWith(RenderWith(kVariables, thrice, kHostile), "(and at 2 later uses)"));
  // The manifest says the script is shell: then it is encoded for that.
  const std::string declared = std::string(kVariables) + "shell: [\".containers[1].args[0]\"]\n";
  CHECK(FailsWith(RenderWith(declared, text, kHostile), "the value contains a semicolon"));
  CHECK(RenderWith(declared, "containers:\n  - command: &c [sh, -c]\n  - command: *c\n    args:\n"
                             "      - echo \"${X}\"\n", kHostile).ok());

  // A script anchored outside any command line and used in one.
  const std::string anchored = "x-script: &s \"echo ${X}\"\ncontainers:\n  - command: [sh, -c, *s]\n";
  CHECK(FailsWith(RenderWith(kVariables, anchored, kHostile), "the alias *s at line 3"));
  // A command and args merged from two anchors, each classified on its own.
  const std::string merged = "x-cmd: &cmd\n  command: [/bin/sh, -c]\nx-args: &args\n  args: [\"echo ${X}\"]\n"
                             "containers:\n- name: a\n  <<: [*cmd, *args]\n";
  CHECK(FailsWith(RenderWith(kVariables, merged, kHostile), "takes a command line from the alias *args"));
}

TEST_CASE("script kinds: a container that merges defaults keeps its script shell-quoted") {
  const std::string text = "x-defaults: &defaults\n  imagePullPolicy: Always\ncontainers:\n"
                           "  - <<: *defaults\n    command: [sh, -c]\n    args:\n      - echo \"${X}\" $HOME\n";
  RenderResult result = RenderWith(kVariables, text, "it's");
  REQUIRE(result.ok());
  CHECK(result.output.find("- echo \"it's\" $HOME\n") != std::string::npos);
  // Classified as a script: a quote in the value is escaped for the shell.
  RenderResult quote = RenderWith(kVariables, text, "a\"; touch /tmp/owned");
  REQUIRE(quote.ok());
  CHECK(quote.output.find("- echo \"a\\\"; touch /tmp/owned\" $HOME\n") != std::string::npos);
  // Defaults that bring the command: the script's kind cannot be told.
  const std::string with_command = "x-defaults: &defaults\n  command: [sh, -c]\ncontainers:\n"
                                   "  - <<: *defaults\n    args:\n      - echo ${X}\n";
  CHECK(RenderWith(kVariables, with_command, "fs-1.example.com").ok());
}

TEST_CASE("script kinds: a fragment merged into a container whose command is an alias cannot inject") {
  const std::string merge = std::string(kVariables) + "steps:\n  - merge: frag.yaml\n    into: .containers[1]\n";
  const std::string text = "containers:\n  - command: &sh [/bin/sh, -c]\n    args: [\"true\"]\n  - command: *sh\n";
  CHECK(FailsWith(RenderWith(merge, text, kHostile, "args:\n  - |\n    echo ${X}\n"),
                  "its document takes a command line from the alias *sh"));
}

}  // namespace
}  // namespace safesubst
