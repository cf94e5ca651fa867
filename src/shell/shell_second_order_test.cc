// SPDX-License-Identifier: Apache-2.0
// Second-order code (SPEC Rule 3, issue 24 item 1): a placeholder inside a
// string that the script hands to a shell again. Every sink x the quoting
// state it holds the string in x the quoting state of the placeholder inside
// the string x nesting depth 1-3, with hostile values, is encoded (or
// refused) and every encoded script is RUN under the real shells: no canary,
// and the value prints back byte-exact.
#include <doctest/doctest.h>

#include <ctime>
#include <filesystem>
#include <map>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "shell.h"
#include "real_shells.h"
#include "shell_sinks.h"
#include "test_support.h"

namespace safesubst {
namespace {

using testing::TempDir;

constexpr std::string_view kPlaceholder = "${V}";

// How a string is written in the outer script.
enum class Quoting { kSingle, kDouble };

// Writes `inner` (a script holding placeholders) as one shell word for the
// outer script. The placeholder stays a placeholder: the render, not this
// quoting, is what must make its value safe.
std::string QuoteWord(const std::string& inner, Quoting quoting) {
  std::string out = quoting == Quoting::kSingle ? "'" : "\"";
  for (std::size_t i = 0; i < inner.size(); ++i) {
    char c = inner[i];
    if (quoting == Quoting::kSingle) {
      out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    } else if (c == '$' && inner.compare(i, kPlaceholder.size(), kPlaceholder) == 0) {
      out += c;
    } else {
      if (c == '\\' || c == '"' || c == '$' || c == '`') out += '\\';
      out += c;
    }
  }
  return out + (quoting == Quoting::kSingle ? "'" : "\"");
}

// A sink: `pattern` with `@` where the quoted string goes, or a here-document
// read by a shell (`pattern` is then the command before `<<`).
struct Sink {
  std::string name;     // as the refusal message names it
  std::string pattern;
  bool heredoc = false;
  bool quoted_delimiter = true;
  bool refused = false;  // no value can be encoded there
};

const std::vector<Sink>& Sinks() {
  static const std::vector<Sink> sinks = {
      {"`sh -c`", "sh -c @"},
      {"`bash -c`", "bash -c @"},
      {"`dash -c`", "dash -ec @"},
      {"`sh -c`", "sh -xc @ 2>/dev/null"},
      {"`sh -c`", "env A=1 sh -c @"},
      {"`sh -c`", "nohup sh -c @ 2>/dev/null"},
      {"`sh -c`", "timeout 20 sh -c @"},
      {"`sh -c`", "nice -n 1 sh -c @"},
      {"`sh -c`", "exec sh -c @"},  // each case is a script of its own: exec and trap end it
      {"`sh -c`", "command sh -c @"},
      {"`sh -c`", "setsid -w sh -c @"},
      {"`sh -c`", "busybox sh -c @"},
      {"`sh -c`", ": | xargs sh -c @"},
      {"`sh -c`", "find . -maxdepth 0 -exec sh -c @ \\;"},
      {"`$SH -c`", "SH=sh; \"$SH\" -c @"},  // a program named by an expansion may be a shell
      {"`${SHELL_X:-sh} -c`", "\"${SHELL_X:-sh}\" -ec @"},
      {"`eval`", "eval @"},
      {"`trap`", "trap @ EXIT"},
      {"the here-document that `sh` runs as code", "sh", true, true},
      {"the here-document that `sh` runs as code", "sh", true, false},
      {"the here-document that `.` runs as code", ". /dev/stdin", true, true},
      // A compound command holding a shell that reads its standard input (session 28).
      {"the here-document that `sh` runs as code", "{ sh; }", true, true},
      {"the here-document that `sh` runs as code", "( sh )", true, false},
      {"the here-document that `sh` runs as code", "if true; then sh; fi", true, true},
      {"the here-document that `sh` runs as code", "for i in 1; do sh; done", true, false},
      {"the here-document that `sh` runs as code", "while true; do sh; break; done", true, true},
      {"the here-document that `sh` runs as code", "case x in x) sh;; esac", true, false},
      {"the here-document that `sh` runs as code", "{ { sh; }; }", true, true},
      {"the here-document that `sh` runs as code", "sh -s", true, false},
      {"the here-document that `sh` runs as code", "exec sh", true, true},
      {"piped into `sh`", "printf '%s\\n' @ | sh", false, true, true},
      {"`ssh`", "ssh -p 22 host @", false, true, true},
  };
  return sinks;
}

// One reading: a sink and how it holds its string.
struct Layer {
  const Sink* sink;
  Quoting quoting;
};

std::string Wrap(const std::string& inner, const Layer& layer, int depth) {
  const Sink& sink = *layer.sink;
  if (sink.heredoc) {
    std::string delimiter = "EOF" + std::to_string(depth);
    return sink.pattern + " <<" + (sink.quoted_delimiter ? "'" + delimiter + "'" : delimiter) + "\n" + inner + "\n" +
           delimiter;
  }
  std::string out = sink.pattern;
  out.replace(out.find('@'), 1, QuoteWord(inner, layer.quoting));
  return out;
}

// The innermost script: prints the value with a `|` after it, the
// placeholder unquoted, double- or single-quoted there.
const std::vector<std::string>& InnerStates() {
  static const std::vector<std::string> states = {"${V}", "\"${V}\"", "'${V}'"};
  return states;
}

std::vector<std::string> Values() {
  return {"plain-1.2", "x; touch canary", "$(touch canary)`touch canary`", "'\"; touch canary; \"'",
          "a\\b \\\\ \\' \\\" \\$ %s *\nEOF1\ntouch canary"};
}

struct Template {
  std::string text;
  std::vector<Layer> layers;  // outermost first
  bool refused_sink = false;
};

// Every chain of depth 1 over all sinks and quotings; depth 2 and 3 over the
// core sinks (a spread of each kind), all orders.
std::vector<Template> Templates() {
  std::vector<Layer> all, core;
  for (const Sink& sink : Sinks()) {
    for (Quoting quoting : {Quoting::kSingle, Quoting::kDouble}) {
      if (sink.heredoc && quoting == Quoting::kDouble) continue;
      all.push_back(Layer{&sink, quoting});
      // (Not trap: an EXIT trap set in a subshell does not run in busybox and posh.)
      bool is_core = (sink.pattern == "sh -c @") || (sink.pattern == "eval @" && quoting == Quoting::kDouble) ||
                     (sink.heredoc && sink.quoted_delimiter && sink.pattern == "sh");
      if (is_core) core.push_back(Layer{&sink, quoting});
    }
  }
  std::vector<std::vector<Layer>> chains;
  for (const Layer& a : all) chains.push_back({a});
  for (const Layer& a : core) {
    for (const Layer& b : core) chains.push_back({a, b});
  }
  // Depth 3: every core layer at every level, the others spread over it.
  for (std::size_t i = 0; i < core.size(); ++i) {
    for (std::size_t j = 0; j < 2; ++j) {
      chains.push_back({core[i], core[(i + j + 1) % core.size()], core[(i + 2 * j + 2) % core.size()]});
    }
  }
  std::vector<Template> templates;
  for (const std::vector<Layer>& chain : chains) {
    for (const std::string& state : InnerStates()) {
      Template t;
      t.layers = chain;
      t.text = "printf '%s|' " + state;
      for (std::size_t level = chain.size(); level-- > 0;) {
        t.text = Wrap(t.text, chain[level], static_cast<int>(level + 1));
        t.refused_sink = t.refused_sink || chain[level].sink->refused;
      }
      templates.push_back(std::move(t));
    }
  }
  return templates;
}

struct Rendered {
  std::string script, error;
};

Rendered Render(const std::string& text, const std::string& value) {
  std::vector<std::size_t> offsets;
  for (std::size_t at = text.find(kPlaceholder); at != std::string::npos; at = text.find(kPlaceholder, at + 1)) {
    offsets.push_back(at);
  }
  REQUIRE(offsets.size() == 1);
  ShellContext context = ShellContextsAt(text, offsets).front();
  Rendered out;
  std::string encoded;
  out.error = AppendShellEncoded(context, value, ShellMode::kSafe, &encoded);
  out.script = text.substr(0, offsets[0]) + encoded + text.substr(offsets[0] + kPlaceholder.size());
  return out;
}

TEST_CASE("second-order sinks: every sink, quoting and depth under real shells: no canary, values byte-exact") {
  std::vector<testing::RealShell> shells = testing::InstalledShells();
  std::vector<Template> templates = Templates();
  std::vector<std::string> values = Values();
  TempDir work;
  std::map<int, std::size_t> encoded_at_depth, refused_at_depth;
  std::vector<std::string> expected;  // per encoded case
  std::vector<std::string> scripts;
  for (const Template& t : templates) {
    int depth = static_cast<int>(t.layers.size());
    for (const std::string& value : values) {
      Rendered rendered = Render(t.text, value);
      CAPTURE(t.text);
      CAPTURE(value);
      if (!rendered.error.empty()) {
        ++refused_at_depth[depth];
        // A refusal names the sink the value would be run by.
        bool named = false;
        for (const Layer& layer : t.layers) {
          named = named || rendered.error.find(layer.sink->name) != std::string::npos;
        }
        CHECK_MESSAGE(named, rendered.error);
        CHECK(rendered.error.find(value) == std::string::npos);
        continue;
      }
      CHECK_FALSE(t.refused_sink);  // text piped into a shell, a command for ssh: never encoded
      ++encoded_at_depth[depth];
      expected.push_back(value + "|");
      scripts.push_back(rendered.script + "\n");
    }
  }
  // A value that is plain text is encoded at every sink that takes values.
  CHECK(encoded_at_depth[1] > 0);
  CHECK(encoded_at_depth[2] > 0);
  CHECK(encoded_at_depth[3] > 0);

  std::vector<std::filesystem::path> dirs = testing::RunEachScriptUnderShells(work.path(), shells, scripts);

  std::ostringstream counts;
  for (std::size_t s = 0; s < shells.size(); ++s) {
    CAPTURE(shells[s].name);
    const std::filesystem::path& dir = dirs[s];
    std::string canaries = testing::ReadFile(dir / "canaries");
    CHECK_MESSAGE(canaries.empty(), "canaries in cases " << canaries);
    std::size_t exact = 0;
    for (std::size_t i = 0; i < scripts.size(); ++i) {
      std::string out = testing::ReadFile(dir / ("out" + std::to_string(i)));
      if (out == expected[i]) {
        ++exact;
        continue;
      }
      CAPTURE(scripts[i]);
      CAPTURE(testing::ReadFile(dir / ("err" + std::to_string(i))));
      CHECK(out == expected[i]);
    }
    counts << " [" << shells[s].name << ": " << exact << "/" << scripts.size() << " exact]";
  }
  MESSAGE("second-order corpus: " << templates.size() << " templates x " << values.size() << " values; encoded "
                                  << encoded_at_depth[1] << "/" << encoded_at_depth[2] << "/" << encoded_at_depth[3]
                                  << ", refused " << refused_at_depth[1] << "/" << refused_at_depth[2] << "/"
                                  << refused_at_depth[3] << " at depth 1/2/3;" << counts.str());
}

// Sinks that cannot be run here (they need root, a terminal, a cluster or a
// remote host) are still found: the value gets the inner reading or is refused.
TEST_CASE("second-order sinks: every sink kind is found") {
  struct Expect {
    std::string script, sink;
    bool reread;  // encoded for the inner reading (else refused)
  };
  const std::vector<Expect> cases = {
      {"su -c 'echo ${V}' app", "`su -c`", true},
      {"runuser -u app -- sh -c 'echo ${V}'", "`sh -c`", true},
      {"runuser -l app -c \"echo ${V}\"", "`runuser -c`", true},
      {"sudo -u app sh -c 'echo ${V}'", "`sh -c`", true},
      {"chroot /srv sh -c 'echo ${V}'", "`sh -c`", true},
      {"watch -n 5 'echo ${V}'", "`watch`", true},
      {"kubectl exec pod -c app -- sh -c 'echo ${V}'", "`sh -c`", true},
      {"bash <<< 'echo ${V}'", "the here-string that `bash` runs as code", true},
      {"then sh -c 'echo ${V}'", "`sh -c`", true},
      {"cat <<'EOF' | sh\necho ${V}\nEOF\n", "a here-document piped into a shell", false},
      {"echo 'echo ${V}' | bash -s", "a pipe into a shell", false},
      {"ssh host 'echo ${V}'", "`ssh`", false},
      {"sh -c \"$PRE echo ${V}\"", "`sh -c`", false},  // the outer shell's $PRE decides the reading
      {"\"$SH\" -c 'echo ${V}'", "`$SH -c`", true},    // the attacker's 08:29 shapes: may be a shell
      {"${SH} -xc 'echo ${V}'", "`${SH} -c`", true},
      {"exec \"${SHELL_X:-sh}\" -c \"echo ${V}\"", "`${SHELL_X:-sh} -c`", true},
      {"alias p='echo ${V}'", "`alias`", true},  // session 29: stored strings, prefix words
      {"alias -g \"p=echo '${V}'\"", "`alias`", true},
      {"builtin eval \"echo ${V}\"", "`eval`", true},
      {"time -p sh -c 'echo ${V}'", "`sh -c`", true},
      {"time -p eval \"echo ${V}\"", "`eval`", true},
      {"command trap 'echo ${V}' EXIT", "`trap`", true},
      {"declare -x PROMPT_COMMAND='echo ${V}'", "`PROMPT_COMMAND`", true},
      {"PROMPT_COMMAND+=\"; echo ${V}\"", "`PROMPT_COMMAND`", true},
      {"env -i PROMPT_COMMAND='echo ${V}' bash -i", "`PROMPT_COMMAND`", true},
      {"env -u X PROMPT_COMMAND='echo ${V}' bash -i", "`PROMPT_COMMAND`", true},
      {"ev''al \"echo ${V}\"", "`eval`", true},  // names spelled with quotes (attacker, session 29, 11:30)
      {"e\\val \"echo ${V}\"", "`eval`", true},
      {"s''h -c 'echo ${V}'", "`sh -c`", true},
      {"s\\\nh -c 'echo ${V}'", "`sh -c`", true},
      {"tr''ap 'echo ${V}' EXIT", "`trap`", true},
      {"al''ias p='echo ${V}'", "`alias`", true},
      // A compound command holding a shell that reads its standard input (session 28).
      {"while read -r l; do sh; done <<EOF\ntrue\necho ${V}\nEOF\n", "the here-document that `sh` runs as code",
       true},
      {"f() {\n  if true; then\n    cat | sh\n  fi\n} <<'EOF'\necho ${V}\nEOF\n",
       "the here-document that `sh` runs as code", true},
      {"{ cat; } <<EOF | sh\necho ${V}\nEOF\n", "a here-document piped into a shell", false},
      // Runners and -c string runners (session 30).
      {"watch -n 1 -t -g 'echo ${V}'", "`watch`", true},
      {"parallel 'echo ${V} {}' ::: a b", "`parallel`", true},
      {"parallel -j2 sh -c 'echo ${V}' ::: a", "`parallel`", true},  // joined: sh -c echo ...
      {"su -lc 'echo ${V}' app", "`su -c`", true},
      {"su app -c'echo ${V}'", "`su -c`", true},
      {"runuser --command='echo ${V}' app", "`runuser -c`", true},
      {"nohup su -c 'echo ${V}' app", "`su -c`", true},
      {"su --comm 'echo ${V}' app", "`su -c`", true},  // getopt_long prefixes (A5, 15:00)
      {"su --session-command='echo ${V}' app", "`su -c`", true},
      {"runuser --co='echo ${V}' app", "`runuser -c`", true},
      {"script -qc'echo ${V}' /dev/null", "`script -c`", true},
      // After a program no table lists, as in the exec form (attacker B1, session 31).
      {"valgrind -q sh -c 'echo ${V}'", "`sh -c`", true},
      {"/docker-entrypoint.sh sh -c \"echo ${V}\"", "`sh -c`", true},
      {"wait-for-it.sh db:5432 -- sh -c 'echo ${V}'", "`sh -c`", true},
      {"aws-vault exec prof -- bash -c 'echo ${V}'", "`bash -c`", true},
      {"dockerize -wait tcp://db:5432 sh -c 'echo ${V}'", "`sh -c`", true},
      {"strace -f su app -c 'echo ${V}'", "`su -c`", true},
      {"fakeroot sh <<EOF\necho ${V}\nEOF\n", "the here-document that `sh` runs as code", true},
      {"bash5 -c 'echo ${V}'", "`bash5 -c`", true},
      {"/usr/local/bin/zsh-5.9 -c 'echo ${V}'", "`zsh-5.9 -c`", true},
      {"ssh host sh -c 'echo ${V}'", "`ssh`", false},  // the login shell reads the joined command first
  };
  for (const Expect& c : cases) {
    CAPTURE(c.script);
    std::size_t at = c.script.find(kPlaceholder);
    ShellContext context = ShellContextsAt(c.script, {at}).front();
    CHECK(context.sink == c.sink);
    CHECK(context.reread.empty() != c.reread);
    CHECK(context.unsupported.empty() == c.reread);
  }
  // Not sinks: the value is an argument, not code.
  const std::vector<std::string_view> arguments = {
      "sh -c 'echo \"$1\"' _ \"${V}\"", "echo 'sh -c ${V}'", "sh ./run.sh ${V}", "trap - ${V}", "evaluate '${V}'",
      "\"$DIR/tool\" -f '${V}'", "\"$SH\" -c 'echo $1' _ ${V}", "echo alias p='${V}'", "alias ${V}",
      "PROMPT_COMMAND_X='${V}'", "command echo eval '${V}'", "parallel echo ::: '${V}'", "su app -s /bin/sh '${V}'",
      "flock ./lock echo '${V}'",
      // Programs that read a shell's name as data (B1's over-refusal guard).
      "echo sh -c \"${V}\"", "grep -c sh \"${V}\"", "apt-get install -y bash \"${V}\"",
      "useradd -m -s /bin/bash -c \"${V}\" app", "which bash \"${V}\"", "printf '%s' sh -c \"${V}\"",
      "echo \"${V}\" | grep -q bash", "ln -sf /bin/bash /bin/sh; echo \"${V}\"",
      // A pipe, then a shell reading its own input later (session 28: refused as piped into it).
      "sh <(echo hi)\necho \"${V}\"", "echo \"${V}\" | (cat)\nsh -s <<'EOF'\ntrue\nEOF\n",
      "echo \"${V}\"\nfor i in 1; do echo; done | cat\nsh -s <<'EOF'\ntrue\nEOF\n",
      "echo \"${V}\" | if true; then cat; fi\nbash -s <<'EOF'\ntrue\nEOF\n",
      "for i in 1; do echo \"${V}\"; done | cat; sh -c 'true'", "{ cat; } <<EOF\n${V}\nEOF\nsh -s <<'X'\ntrue\nX\n"};
  for (std::string_view script : arguments) {
    CAPTURE(script);
    std::size_t at = script.find(kPlaceholder);
    ShellContext context = ShellContextsAt(script, {at}).front();
    CHECK(context.sink.empty());
    CHECK(context.reread.empty());
  }
}

// Text piped into a shell through a compound command, a loop's output, xargs
// or a process substitution (attacker, session 28): each shape runs a value
// substituted as plain text under the real shells, and the render refuses it.
TEST_CASE("second-order sinks: a pipe into a compound command, a loop, xargs or <(...) feeds the shell: refused") {
  const std::vector<std::string> shapes = {
      "printf '%s\\n' \"echo ${V}\" | (sh)",
      "printf '%s\\n' \"echo ${V}\" | if true; then sh; fi",
      "printf '%s\\n' \"echo ${V}\" | case x in *) sh;; esac",
      "printf '%s\\n' \"echo ${V}\" | while read -r l; do echo \"$l\" | sh; done",
      "for i in 1; do printf '%s\\n' \"echo ${V}\"; done | sh",
      "echo \"echo ${V}\" | xargs -0 sh -c",
  };
  std::vector<std::string> plain;
  for (const std::string& shape : shapes) {
    CAPTURE(shape);
    const std::size_t at = shape.find(kPlaceholder);
    const ShellContext context = ShellContextsAt(shape, {at}, nullptr, ScriptShells::kSh).front();
    std::string encoded;
    const std::string error = AppendShellEncoded(context, "x; touch canary", ShellMode::kSafe, &encoded);
    CHECK(error.find("piped into `sh`, which runs it as code") != std::string::npos);
    plain.push_back(shape.substr(0, at) + "x; touch canary" + shape.substr(at + kPlaceholder.size()) + "\n");
  }
  // `sh <(...)` (bash, zsh): found though the lexer reads `<` and a subshell.
  const std::string substitution = "sh <(echo \"echo ${V}\")";
  CHECK(ShellContextsAt(substitution, {substitution.find(kPlaceholder)}).front().unsupported.find("piped into `sh`") !=
        std::string::npos);
  // Every shape is a real sink: written as plain text, the value runs (bash at least).
  std::vector<testing::RealShell> shells = testing::InstalledShells();
  TempDir work;
  const std::vector<std::filesystem::path> dirs = testing::RunEachScriptUnderShells(work.path(), shells, plain);
  bool ran_bash = false;
  for (std::size_t s = 0; s < shells.size(); ++s) {
    if (shells[s].name != "bash") continue;
    ran_bash = true;
    std::string all;
    for (std::size_t i = 0; i < plain.size(); ++i) all += std::to_string(i) + "\n";
    CHECK(testing::ReadFile(dirs[s] / "canaries") == all);
  }
  CHECK(ran_bash);
}

// Text an interpreter reads as its program from its standard input or a
// `<(...)` (attacker A17, session 30): `echo "print('${V}')" | python3` ran
// the value. Each shape, with a value of its language written where the
// placeholder is and quoted for the outer shell only, runs it under dash,
// bash and busybox sh; rendered, no value runs (each is refused or written
// where it stays data) and a refusal never shows the value.
struct FedProgram {
  std::string script;
  std::string_view hostile;  // ends the field it lands in and runs `touch canary`
  bool bash_only = false;    // `<(...)`
};

constexpr std::string_view kPythonHostile = "'+__import__('os').system('touch canary')+'";
constexpr std::string_view kPerlHostile = "';system('touch canary');'";
constexpr std::string_view kSedHostile = "x/;w canary\n#";
constexpr std::string_view kNodeHostile = "'+require('child_process').execSync('touch canary')+'";
constexpr std::string_view kAwkHostile = "\"; system(\"touch canary\"); \"";
constexpr std::string_view kShellHostile = "x; touch canary";

const std::vector<FedProgram>& FedPrograms() {
  static const std::vector<FedProgram> shapes = {
      {"echo \"print('${V}')\" | python3", kPythonHostile},
      {"echo \"print('${V}')\" | python3 -", kPythonHostile},
      {"echo \"print('${V}')\" | env python3 /dev/stdin", kPythonHostile},
      {"echo \"print '${V}';\" | perl", kPerlHostile},
      {"echo \"s/X/${V}/\" | sed -f - /dev/null", kSedHostile},
      {"echo \"s/X/${V}/\" | busybox sed -f - /dev/null", kSedHostile},
      {"echo \"console.log('${V}')\" | node", kNodeHostile},
      {"echo \"BEGIN { print \\\"${V}\\\" }\" | mawk -f /dev/stdin", kAwkHostile},
      {"echo \"BEGIN { print \\\"${V}\\\" }\" | busybox awk -f -", kAwkHostile},
      {"printf '%s\\n' \"print('${V}')\" | python3", kPythonHostile},
      {"cat <<EOF | python3\nprint('${V}')\nEOF", kPythonHostile},
      {"echo \"print('${V}')\" | tee /dev/null | python3", kPythonHostile},
      {"echo \"print('${V}')\" | { python3; }", kPythonHostile},
      {"echo \"print('${V}')\" | while true; do python3; break; done", kPythonHostile},
      {"f() { python3; }\necho \"print('${V}')\" | f", kPythonHostile},
      {"f() { perl; }\nf <<EOF\nprint '${V}';\nEOF", kPerlHostile},
      {"{ python3; } <<EOF\nprint('${V}')\nEOF", kPythonHostile},
      {"sh -c python3 <<EOF\nprint('${V}')\nEOF", kPythonHostile},
      {"exec <<EOF\nprint('${V}')\nEOF\npython3", kPythonHostile},
      {"env -S 'python3 -u' <<EOF\nprint('${V}')\nEOF", kPythonHostile},
      {"echo \"print('${V}')\" | sh -c 'python3'", kPythonHostile},
      {"sh -c \"echo \\\"print('${V}')\\\" | python3\"", kPythonHostile},
      {"python3 <(echo \"print('${V}')\")", kPythonHostile, true},
      {"python3 < <(echo \"print('${V}')\")", kPythonHostile, true},
      {"sed -f <(echo \"s/X/${V}/\") /dev/null", kSedHostile, true},
      {"mawk -f <(echo \"BEGIN { print \\\"${V}\\\" }\")", kAwkHostile, true},
      // Programs that read commands from their input, no shell or interpreter named (attacker B6).
      {"echo \"print('${V}')\" | su -c python3", kPythonHostile},
      {"echo \"echo ${V}\" | su -c sh", kShellHostile},
      {"echo \"echo ${V}\" | su", kShellHostile},
      {"touch f\nprintf '%s\\n' 1i \"${V}\" . w q | ed -s f", "x\n.\n!touch canary"},
      {"echo \":!echo ${V}\" | vim -es -u NONE", kShellHostile},
      {"echo \"echo ${V}\" | gdb -q", "x\nshell touch canary"},
      {"echo \"puts {${V}}\" | tclsh", "x}; exec touch canary; puts {"},
      {"coproc python3\necho \"print('${V}')\" >&${COPROC[1]}\nexec {COPROC[1]}>&-\nwait", kPythonHostile, true},
  };
  return shapes;
}

// The context of the shape's placeholder with only the outer shell's reading (as envsubst-era renders wrote it).
std::string WrittenForTheShellOnly(const std::string& script, std::string_view value) {
  const std::size_t at = script.find(kPlaceholder);
  ShellContext context = ShellContextsAt(script, {at}).front();
  context.unsupported.clear();
  context.sink.clear();
  context.reread.clear();
  context.operand = ShellOperand::kNone;
  std::string encoded;
  REQUIRE(AppendShellEncoded(context, value, ShellMode::kSafe, &encoded).empty());
  return script.substr(0, at) + encoded + script.substr(at + kPlaceholder.size()) + "\n";
}

// dash, bash and busybox sh (the /bin/sh of Debian, RHEL and Alpine).
std::vector<testing::RealShell> PipeShells(bool bash_only) {
  std::vector<testing::RealShell> shells;
  for (const testing::RealShell& shell : testing::InstalledShells()) {
    if (shell.name == "bash" || (!bash_only && (shell.name == "dash" || shell.name == "busybox sh"))) {
      shells.push_back(shell);
    }
  }
  REQUIRE(shells.size() == (bash_only ? 1 : 3));
  return shells;
}

// Runs `scripts` under `shells`: the list of scripts after which the canary was there, per shell.
std::vector<std::string> Canaries(const std::vector<testing::RealShell>& shells, const std::vector<std::string>& scripts) {
  TempDir work;
  std::vector<std::string> canaries;
  for (const std::filesystem::path& dir : testing::RunEachScriptUnderShells(work.path(), shells, scripts)) {
    canaries.push_back(testing::ReadFile(dir / "canaries"));
  }
  return canaries;
}

TEST_CASE("second-order sinks: text an interpreter reads as its program, under dash, bash and busybox sh") {
  for (const char* tool : {"python3", "perl", "node", "sed", "mawk", "busybox", "su", "chroot", "ed", "vim", "gdb",
                           "tclsh"}) {
    CHECK_MESSAGE(testing::HaveProgram(tool), tool << " is not installed (packaging/debian-test-deps.txt)");
  }
  for (bool bash_only : {false, true}) {
    std::vector<std::string> plain, rendered;
    std::string all;
    for (const FedProgram& shape : FedPrograms()) {
      if (shape.bash_only != bash_only) continue;
      CAPTURE(shape.script);
      all += std::to_string(plain.size()) + "\n";
      plain.push_back(WrittenForTheShellOnly(shape.script, shape.hostile));
      const Rendered out = Render(shape.script, std::string(shape.hostile));
      if (out.error.empty()) {
        rendered.push_back(out.script + "\n");
      } else {
        CHECK(out.error.find(shape.hostile) == std::string::npos);
      }
    }
    const std::vector<testing::RealShell> shells = PipeShells(bash_only);
    // Every shape is a real sink: written for the shell only, the value runs, under each shell.
    for (const std::string& canaries : Canaries(shells, plain)) CHECK(canaries == all);
    for (const std::string& canaries : Canaries(shells, rendered)) CHECK(canaries.empty());
  }
}

// Strings a script stores for later runs (session 29): an alias body, read
// as code wherever the alias is used, and bash's PROMPT_COMMAND, run before
// each prompt of an interactive bash; also `eval` behind a prefix word. Each
// is rendered with every quoting and hostile value and RUN: no canary, and
// the value prints back byte-exact (posh has no `alias`: there it only must
// not run the value).
TEST_CASE("second-order sinks: alias bodies, PROMPT_COMMAND and `command eval` under real shells") {
  const std::string aliases = "{ shopt -s expand_aliases; } 2>/dev/null\n";  // bash reads aliases only so
  const std::string interactive = " HISTFILE=/dev/null bash --norc -i </dev/null 2>/dev/null";
  const std::vector<Sink> sinks = {
      {"`alias`", aliases + "alias p=@\np"},
      {"`alias`", aliases + "command alias -- p=@ q='echo q'\np"},
      {"`PROMPT_COMMAND`", "PROMPT_COMMAND=@" + interactive},
      {"`PROMPT_COMMAND`", "export PROMPT_COMMAND=@;" + interactive},
      {"`eval`", "command eval @"},
  };
  std::vector<std::string> scripts, expected;
  std::vector<bool> alias;
  for (const Sink& sink : sinks) {
    for (Quoting quoting : {Quoting::kSingle, Quoting::kDouble}) {
      for (const std::string& state : InnerStates()) {
        const std::string text = Wrap("printf '%s|' " + state, Layer{&sink, quoting}, 1);
        for (const std::string& value : Values()) {
          CAPTURE(text);
          CAPTURE(value);
          const Rendered rendered = Render(text, value);
          if (!rendered.error.empty()) {
            CHECK(rendered.error.find("inside the string that " + sink.name + " runs as code") == 0);
            CHECK(rendered.error.find(value) == std::string::npos);
            continue;
          }
          scripts.push_back(rendered.script + "\n");
          expected.push_back(value + "|");
          alias.push_back(sink.name == "`alias`");
        }
      }
    }
  }
  REQUIRE(scripts.size() > sinks.size() * 6);  // plain values are encoded everywhere
  const std::vector<testing::RealShell> shells = testing::InstalledShells();
  TempDir work;
  const std::vector<std::filesystem::path> dirs = testing::RunEachScriptUnderShells(work.path(), shells, scripts);
  std::ostringstream counts;
  for (std::size_t s = 0; s < shells.size(); ++s) {
    CAPTURE(shells[s].name);
    CHECK_MESSAGE(testing::ReadFile(dirs[s] / "canaries").empty(), "canaries after scripts");
    std::size_t exact = 0;
    for (std::size_t i = 0; i < scripts.size(); ++i) {
      if (alias[i] && shells[s].name == "posh") continue;
      CAPTURE(scripts[i]);
      const std::string out = testing::ReadFile(dirs[s] / ("out" + std::to_string(i)));
      CHECK(out == expected[i]);
      exact += out == expected[i] ? 1 : 0;
    }
    counts << " [" << shells[s].name << ": " << exact << " exact]";
  }
  MESSAGE("stored strings: " << scripts.size() << " scripts encoded;" << counts.str());
}

// Here-strings and process substitutions that a shell reads, directly or
// through a compound command (attacker, session 28: `{ sh; } <<< ...` and
// `. <(printf ...)` ran the value). A here-string is encoded for both
// readings and run under the shells that have here-strings; the text a
// process substitution writes is refused (written plainly, it runs the value).
TEST_CASE("second-order sinks: a here-string or <(...) that a shell runs, also through a compound command") {
  const std::vector<std::string> here_strings = {"{ sh; } <<< @", "( bash ) <<< @", "if true; then sh; fi <<< @",
                                                 "bash <<< @"};
  std::vector<std::string> scripts, expected;
  for (const std::string& shape : here_strings) {
    for (const std::string& state : InnerStates()) {
      for (Quoting quoting : {Quoting::kSingle, Quoting::kDouble}) {
        std::string text = shape;
        text.replace(text.find('@'), 1, QuoteWord("printf '%s|' " + state, quoting));
        for (const std::string& value : Values()) {
          CAPTURE(text);
          CAPTURE(value);
          const Rendered rendered = Render(text, value);
          if (!rendered.error.empty()) {
            CHECK(rendered.error.find("the here-string that `") != std::string::npos);
            continue;
          }
          scripts.push_back(rendered.script + "\n");
          expected.push_back(value + "|");
        }
      }
    }
  }
  CHECK(scripts.size() >= here_strings.size() * Values().size());  // plain values at least
  std::vector<testing::RealShell> shells;
  for (const testing::RealShell& shell : testing::InstalledShells()) {
    if (shell.name != "dash" && shell.name != "busybox sh" && shell.name != "posh") shells.push_back(shell);
  }
  CHECK(shells.size() == 5);
  TempDir work;
  std::vector<std::filesystem::path> dirs = testing::RunEachScriptUnderShells(work.path(), shells, scripts);
  for (std::size_t s = 0; s < shells.size(); ++s) {
    CAPTURE(shells[s].name);
    CHECK(testing::ReadFile(dirs[s] / "canaries").empty());
    for (std::size_t i = 0; i < scripts.size(); ++i) {
      CAPTURE(scripts[i]);
      CHECK(testing::ReadFile(dirs[s] / ("out" + std::to_string(i))) == expected[i]);
    }
  }

  const std::vector<std::pair<std::string, std::string>> substitutions = {
      {". <(printf '%s\\n' \"echo ${V}\")", "`.`"},
      {"source <(printf '%s\\n' \"echo ${V}\")", "`source`"},
      {"sh < <(printf '%s\\n' \"echo ${V}\")", "`sh`"},
      {"{ bash; } < <(printf '%s\\n' \"echo ${V}\")", "`bash`"},
  };
  std::vector<std::string> plain;
  for (const auto& [shape, shell] : substitutions) {
    CAPTURE(shape);
    const std::size_t at = shape.find(kPlaceholder);
    const ShellContext context = ShellContextsAt(shape, {at}).front();
    CHECK(context.unsupported == "inside text piped into " + shell + ", which runs it as code");
    plain.push_back(shape.substr(0, at) + "x; touch canary" + shape.substr(at + kPlaceholder.size()) + "\n");
  }
  std::vector<testing::RealShell> bash;
  for (const testing::RealShell& shell : shells) {
    if (shell.name == "bash") bash.push_back(shell);
  }
  REQUIRE(bash.size() == 1);
  TempDir plain_work;
  const std::filesystem::path bash_dir = testing::RunEachScriptUnderShells(plain_work.path(), bash, plain).front();
  CHECK(testing::ReadFile(bash_dir / "canaries") == "0\n1\n2\n3\n");
}

// A sink shape for EncodeShapes: `script` with `{Q}` where the string that
// prints the value goes, quoted single or double, or `{B}` where it goes as
// it is (a here-document body); `sink` is what a refusal must name.
struct Shape {
  std::string script, sink;
};
constexpr std::string_view kQuoted = "{Q}", kBare = "{B}";

// Encoded scripts, each with what it must print.
struct EncodedShapes {
  std::vector<std::string> scripts, expected;
  std::size_t refused = 0;
};

// Renders every shape x quoting x inner state x hostile value. A refusal must
// name the shape's sink and never print the value.
EncodedShapes EncodeShapes(const std::vector<Shape>& shapes) {
  EncodedShapes encoded;
  for (const Shape& shape : shapes) {
    const bool bare = shape.script.find(kBare) != std::string::npos;
    for (Quoting quoting : {Quoting::kSingle, Quoting::kDouble}) {
      if (bare && quoting == Quoting::kDouble) continue;
      for (const std::string& state : InnerStates()) {
        const std::string inner = "printf '%s|' " + state;
        std::string text = shape.script;
        text.replace(text.find(bare ? kBare : kQuoted), kBare.size(), bare ? inner : QuoteWord(inner, quoting));
        for (const std::string& value : Values()) {
          CAPTURE(text);
          CAPTURE(value);
          const Rendered rendered = Render(text, value);
          if (!rendered.error.empty()) {
            ++encoded.refused;
            CHECK(rendered.error.find(shape.sink) != std::string::npos);
            CHECK(rendered.error.find(value) == std::string::npos);
            continue;
          }
          encoded.scripts.push_back(rendered.script + "\n");
          encoded.expected.push_back(value + "|");
        }
      }
    }
  }
  return encoded;
}

// Runs the encoded scripts under `shells`: no canary, and each prints its
// value back byte-exact. Returns the counts, for the test's message.
std::string RunEncoded(const EncodedShapes& encoded, const std::vector<testing::RealShell>& shells) {
  TempDir work;
  const std::vector<std::filesystem::path> dirs = testing::RunEachScriptUnderShells(work.path(), shells, encoded.scripts);
  std::ostringstream counts;
  for (std::size_t s = 0; s < shells.size(); ++s) {
    CAPTURE(shells[s].name);
    CHECK_MESSAGE(testing::ReadFile(dirs[s] / "canaries").empty(), "canaries after scripts");
    std::size_t exact = 0;
    for (std::size_t i = 0; i < encoded.scripts.size(); ++i) {
      CAPTURE(encoded.scripts[i]);
      const std::string out = testing::ReadFile(dirs[s] / ("out" + std::to_string(i)));
      CHECK(out == encoded.expected[i]);
      exact += out == encoded.expected[i] ? 1 : 0;
    }
    counts << " [" << shells[s].name << ": " << exact << "/" << encoded.scripts.size() << " exact]";
  }
  return counts.str();
}

// The shapes with a hostile value written plainly where the placeholder is
// (what envsubst would do): each shape must touch the canary under bash, so
// that the test is known to exercise a real sink.
void CheckPlainlyWrittenRunsTheValue(const std::vector<Shape>& shapes) {
  std::vector<std::string> plain;
  std::string all;
  for (const Shape& shape : shapes) {
    std::string text = shape.script;
    const bool bare = text.find(kBare) != std::string::npos;
    text.replace(text.find(bare ? kBare : kQuoted), kBare.size(),
                 bare ? "echo $(touch canary)" : "'echo $(touch canary)'");
    all += std::to_string(plain.size()) + "\n";
    plain.push_back(text + "\n");
  }
  std::vector<testing::RealShell> bash;
  for (const testing::RealShell& shell : testing::InstalledShells()) {
    if (shell.name == "bash") bash.push_back(shell);
  }
  REQUIRE(bash.size() == 1);
  TempDir work;
  CHECK(testing::ReadFile(testing::RunEachScriptUnderShells(work.path(), bash, plain).front() / "canaries") == all);
}

// Wrappers that run their operands as a command or hand a `-c` string to a
// shell (the attacker, session 29: chrt, taskset, script -qc, sg -c, flock
// -c and watch -g ran the value). Each is RUN under the real shells.
TEST_CASE("second-order sinks: every runner and -c string runner under real shells: no canary, values byte-exact") {
  const std::vector<Shape> shapes = {
      {"chrt -o 0 sh -c {Q}", "`sh -c`"},
      {"chrt --other 0 sh -c {Q}", "`sh -c`"},
      {"taskset -c 0 sh -c {Q}", "`sh -c`"},
      {"taskset 0x1 sh -c {Q}", "`sh -c`"},
      {"ionice -c3 -n7 sh -c {Q}", "`sh -c`"},
      {"stdbuf -oL sh -c {Q}", "`sh -c`"},
      {"timeout -s KILL 20 sh -c {Q}", "`sh -c`"},
      {"SHELL=/bin/sh script -qc {Q} /dev/null </dev/null | tr -d '\\r'", "`script -c`"},
      {"SHELL=/bin/sh script --command {Q} -q /dev/null </dev/null | tr -d '\\r'", "`script -c`"},
      {"sg \"$(id -gn)\" -c {Q}", "`sg -c`"},
      {"SHELL=/bin/sh flock ./lock -c {Q}", "`flock -c`"},
      {"SHELL=/bin/sh flock -x ./lock --command {Q}", "`flock -c`"},
      {"nohup flock ./lock sh -c {Q} 2>/dev/null", "`sh -c`"},
  };
  CheckPlainlyWrittenRunsTheValue(shapes);
  const EncodedShapes encoded = EncodeShapes(shapes);
  CHECK(encoded.scripts.size() >= shapes.size() * 6);  // plain values in every quoting, at least
  const std::string counts = RunEncoded(encoded, testing::InstalledShells());
  MESSAGE("runners: " << shapes.size() << " shapes, " << encoded.scripts.size() << " scripts encoded, "
                      << encoded.refused << " refused;" << counts);
}

// A shell after a program no table lists (attacker B1, session 31: strace,
// fakeroot, prlimit and entrypoint scripts ran the value in scripts while the
// exec form refused it), and shells under restricted, static or versioned
// names. Each is RUN under the real shells: the programs must be installed
// (a missing one prints nothing, and the case fails).
TEST_CASE("second-order sinks: a shell after any program, and shells by other names, under real shells") {
  const std::vector<Shape> shapes = {
      {"strace -f -o /dev/null sh -c {Q}", "`sh -c`"},
      {"fakeroot -- sh -c {Q}", "`sh -c`"},
      {"fakeroot sh -c {Q}", "`sh -c`"},
      {"prlimit --nofile=100 sh -c {Q}", "`sh -c`"},
      {"strace -o /dev/null -f sh <<'EOF'\n{B}\nEOF", "the here-document that `sh` runs as code"},
      {"rksh -c {Q}", "`rksh -c`"},
      {"mksh-static -c {Q}", "`mksh-static -c`"},
      {"rbash -c {Q}", "`rbash -c`"},
  };
  CheckPlainlyWrittenRunsTheValue(shapes);
  const EncodedShapes encoded = EncodeShapes(shapes);
  CHECK(encoded.scripts.size() >= shapes.size() * 6);
  const std::string counts = RunEncoded(encoded, testing::InstalledShells());
  MESSAGE("after any program: " << shapes.size() << " shapes, " << encoded.scripts.size() << " scripts encoded, "
                                << encoded.refused << " refused;" << counts);
}

// Shells named indirectly, input that reaches a shell, aliases of the sinks
// (the attacker, session 29): each shape ran a hostile value written
// plainly; rendered, the value is encoded for the shell that reads it, or
// refused, under every real shell that knows the shape.
TEST_CASE("second-order sinks: shells named by an expansion, functions, exec, aliases: no canary, values byte-exact") {
  const std::string aliases = "{ shopt -s expand_aliases; } 2>/dev/null\n";  // bash reads aliases only so
  const std::vector<Shape> posix = {
      {"cmd='sh -c'; $cmd {Q}", "`$cmd`"},  // a program the script assigns is that program, unless it runs code
      {"set -- sh -c; \"$@\" {Q}", "`$@`"},
      {"x=eval; $x {Q}", "`$x`"},
      {"SH=sh; \"$SH\" <<'EOF'\n{B}\nEOF", "`$SH`"},
      {"cmd=echo; read -r cmd <<'X'\neval\nX\n$cmd {Q}", "`$cmd`"},  // one it also reads is unknown
      {"`echo sh` -c {Q}", "-c`"},
      {"$(command -v sh) -c {Q}", "`sh -c`"},
      {"`which sh` -c {Q}", "`sh -c`"},
      {"printf '%s\\n' {Q} | \"$(command -v sh)\"", "piped into `sh`"},
      {"env -S 'sh -c' {Q}", "`sh -c`"},
      {"env --split-string='sh -c' {Q}", "`sh -c`"},
      {"f() { sh; }\nf <<'EOF'\n{B}\nEOF", "`f`"},
      {"exec <<'EOF'\n{B}\nEOF\nsh", "`exec`"},
      {"exec 3<<'EOF'\n{B}\nEOF\nsh <&3", "`exec`"},
      {"sh -c 'sh' <<'EOF'\n{B}\nEOF", "`sh -c`"},
      {"sh -c 'cat | sh' <<'EOF'\n{B}\nEOF", "`sh -c`"},
      {"eval 'sh' <<'EOF'\n{B}\nEOF", "`eval`"},
      // The attacker's bypasses of these rules (A6, 15:10).
      {"/bin/[s]h -c {Q}", "-c`"},
      {"/usr/bin/das* -c {Q}", "-c`"},
      {"printf '%s\\n' {Q} | sh /dev/fd/0", "piped into `sh`"},
      {"printf '%s\\n' {Q} | xargs -I{} sh -c {}", "piped into `sh`"},
  };
  const std::vector<Shape> with_aliases = {
      {aliases + "alias e=eval\ne {Q}", "`eval`"},
      {aliases + "alias c='sh -c'\nc {Q}", "`sh -c`"},
      {aliases + "alias a=b\nalias b=eval\na {Q}", "`eval`"},
      {aliases + "alias n='nice '\nalias s='sh'\nn s -c {Q}", "`sh -c`"},
      {aliases + "alias e='true; eval'\ne {Q}", "`eval`"},
      {aliases + "eval \"alias e=eval\"\ne {Q}", "`eval`"},
  };
  std::vector<Shape> all = posix;
  all.insert(all.end(), with_aliases.begin(), with_aliases.end());
  CheckPlainlyWrittenRunsTheValue(all);
  std::vector<testing::RealShell> alias_shells;  // posh has no alias
  for (const testing::RealShell& shell : testing::InstalledShells()) {
    if (shell.name != "posh") alias_shells.push_back(shell);
  }
  const EncodedShapes encoded = EncodeShapes(posix);
  const EncodedShapes encoded_aliases = EncodeShapes(with_aliases);
  CHECK(encoded.scripts.size() >= 6 * (posix.size() - 1));  // plain values everywhere but the pipe
  const std::string counts = RunEncoded(encoded, testing::InstalledShells());
  const std::string alias_counts = RunEncoded(encoded_aliases, alias_shells);
  MESSAGE("named indirectly: " << all.size() << " shapes, " << encoded.scripts.size() + encoded_aliases.scripts.size()
                               << " scripts encoded, " << encoded.refused + encoded_aliases.refused << " refused;"
                               << counts << "; aliases:" << alias_counts);
}

// bash's own shapes: `function NAME`, process substitutions written to,
// `exec < <(...)`, here-strings, `e$'v'al`. Written plainly each runs the
// value under bash; rendered, the value is refused or encoded for the shell.
TEST_CASE("second-order sinks: bash's function, >(...), exec < <(...) and $'...' shapes") {
  const std::string kAwaitCanary = "; for i in 1 2 3 4 5 6 7 8 9 10; do [ -e canary ] && break; sleep 0.3; done";
  const std::vector<Shape> shapes = {
      {"function f { bash; }; f <<< {Q}", "`f`"},
      // (The subshell of `>(...)` is waited for by no one: the script waits for a canary a while.)
      {"printf '%s\\n' {Q} > >(sh)" + kAwaitCanary, "process substitution"},
      {"printf '%s\\n' {Q} | tee >(sh) >/dev/null" + kAwaitCanary, "process substitution"},
      {"exec < <(printf '%s\\n' {Q})\nsh", "`exec`"},
      {"bash -c 'bash -s' <<< {Q}", "`bash -c`"},
      {"SH=bash; $SH <<< {Q}", "`$SH`"},
      {"a=(sh -c); \"${a[@]}\" {Q}", "`${a[@]}`"},
      {"{sh,-c,{Q}}", "brace expansion"},
      {"sh {-c,{Q}}", "brace expansion"},
      {"exec 3>&1; coproc sh -c {Q} >&3; wait", "`sh -c`"},
      {"e$'v'al {Q}", "`eval`"},
      {"e\"v\"al {Q}", "`eval`"},
  };
  CheckPlainlyWrittenRunsTheValue(shapes);
  const EncodedShapes encoded = EncodeShapes(shapes);
  std::vector<testing::RealShell> bash;
  for (const testing::RealShell& shell : testing::InstalledShells()) {
    if (shell.name == "bash") bash.push_back(shell);
  }
  REQUIRE(bash.size() == 1);
  MESSAGE("bash shapes: " << encoded.scripts.size() << " scripts encoded, " << encoded.refused << " refused;"
                          << RunEncoded(encoded, bash));
}

// A program named by an expansion may be no shell at all (`$CURL`, `"$@"`
// forwarding): there a value that reads alike as data and as code is
// written as it is, byte for byte; one that would be code is refused.
TEST_CASE("second-order sinks: after a program named by an expansion, plain values are written as they are") {
  // A program the script assigns is that program (attacker, A7): any value the
  // quoting takes is written, a URL with `&` and text with a blank too.
  const std::string curl = "CURL=\"curl -fsS --retry 3\"\n$CURL \"${V}\" -o /tmp/items.json";
  for (const std::string value : {"https://api.example.com/v1/items?a=1&b=2", "Hello, world"}) {
    CHECK(Render(curl, value).script == "CURL=\"curl -fsS --retry 3\"\n$CURL \"" + value + "\" -o /tmp/items.json");
  }
  const std::vector<std::string> scripts = {"$CURL -fsS \"https://${V}/health\"", "\"$@\" --image=${V}",
                                            "exec \"$@\" \"${V}\"", "${KUBECTL:-kubectl} -n ${V} get pods",
                                            "$cmd 'echo ${V}'"};
  for (const std::string& script : scripts) {
    CAPTURE(script);
    for (const std::string value : {"db-0.svc.cluster.local", "1.2.3", "/var/lib/app", "ns_1:2@x"}) {
      const Rendered rendered = Render(script, value);
      CHECK(rendered.error.empty());
      CHECK(rendered.script == script.substr(0, script.find(kPlaceholder)) + value +
                                   script.substr(script.find(kPlaceholder) + kPlaceholder.size()));
    }
    for (const std::string value : {"x; touch canary", "$(touch canary)", "a'b"}) {
      const Rendered rendered = Render(script, value);
      CHECK(rendered.error.find("named by an expansion") != std::string::npos);
      CHECK(rendered.error.find(value) == std::string::npos);
    }
  }
  // In double quotes of the inner reading, a `$` is escaped for the shell,
  // which the other reading would keep: refused, named. In single quotes it
  // needs no escape there, and both readings take it.
  CHECK(Render("$cmd \"echo '${V}'\"", "a$b").error.empty());
  const Rendered dollar = Render("$cmd \"echo \\\"${V}\\\"\"", "a$b");
  CHECK(dollar.error.find("as code if that program is a shell, as data if not") != std::string::npos);
  // `"$@"` forwarding with no placeholder near it is no business of the render.
  CHECK(Render("echo \"${V}\"\nexec \"$@\"", "x; y").error.empty());
}

TEST_CASE("second-order sinks: scripts without a sink word are not read a second time") {
  CHECK_FALSE(MayRunCodeAgain("#!/bin/sh\nOCT3=$(echo \"$NODE_IP\" | cut -d. -f3)\nexec java -jar /app/app.jar\n"));
  CHECK_FALSE(MayRunCodeAgain("git push origin; hash -r; refresh\n"));
  for (std::string_view script : {"sh -c x", "/bin/bash\t-c x", "x | sh", "busybox sh<<E", "eval x", "trap x EXIT",
                                  "su -c x", "watch x", ". /dev/stdin", "\"$SH\" -c x", "${X:-sh} -ec x",
                                  "alias p=x", "PROMPT_COMMAND=x", "ev''al x", "s\\\nh -c x", "\"s\"h -c x"}) {
    CAPTURE(script);
    CHECK(MayRunCodeAgain(script));
  }
}

// The attacker's DoS (session 28): every sink looked at every placeholder, so
// 70,000 lines of `sh -c 'echo "${V}"'` took more than 14 minutes. Each sink
// now visits only the placeholders inside it: well under a second here, so
// the bound is generous (the old reading took minutes at this size).
TEST_CASE("second-order sinks: many sinks and placeholders are read in linear time") {
  const std::vector<std::string> lines = {"sh -c 'echo \"@\"'\n", "eval \"echo '@'\"\n",
                                          "sh <<'EOF'\necho '@'\nEOF\n"};
  std::string script;
  std::vector<std::size_t> offsets;
  for (std::size_t i = 0; i < 70000; ++i) {
    const std::string& line = lines[i % lines.size()];
    offsets.push_back(script.size() + line.find('@'));
    script += line.substr(0, line.find('@')) + std::string(kPlaceholder) + line.substr(line.find('@') + 1);
  }
  const std::clock_t start = std::clock();
  const std::vector<ShellContext> contexts = ShellContextsAt(script, offsets);
  const double seconds = static_cast<double>(std::clock() - start) / CLOCKS_PER_SEC;
  MESSAGE("70,000 sinks and placeholders read in " << seconds << " s of CPU");
  CHECK(seconds < 30);
  // `eval eval ... sh <<EOF`: whether a string runs a shell that reads the
  // input is looked for three strings deep, not once per word (quadratic).
  std::string evals;
  for (int i = 0; i < 40000; ++i) evals += "eval ";
  evals += "sh <<'EOF'\necho ${V}\nEOF\n";
  const std::clock_t evals_start = std::clock();
  ShellContextsAt(evals, {evals.find(kPlaceholder)});
  const double evals_seconds = static_cast<double>(std::clock() - evals_start) / CLOCKS_PER_SEC;
  MESSAGE("40,000 nested evals read in " << evals_seconds << " s of CPU");
  CHECK(evals_seconds < 10);
  REQUIRE(contexts.size() == offsets.size());
  for (std::size_t i : {std::size_t{0}, std::size_t{1}, std::size_t{2}, offsets.size() - 1}) {
    CAPTURE(i);
    CHECK(contexts[i].reread.size() == 1);
    std::string encoded;
    CHECK(AppendShellEncoded(contexts[i], "x'; touch canary", ShellMode::kSafe, &encoded).empty());
    CHECK(encoded.find("touch canary") != std::string::npos);
  }
}

// The attacker's A18 (session 30): each command of a pipeline looked at
// every later one (whether it reads code) and every shell refused every
// earlier command again: 10,000 members took 7 to 30 s. 20,000 members, with
// a shell first, last or everywhere, now take well under a second of CPU;
// quadratic, they would take more than 20 s, so the bound is generous.
TEST_CASE("second-order sinks: a long pipeline is read in linear time") {
  std::string echoes = "echo \"${V}\"";
  for (int i = 1; i < 20000; ++i) echoes += " | echo \"${V}\"";
  const std::vector<std::pair<std::string, bool>> pipelines = {  // and whether a shell or python3 reads the echoes
      {"sh -c 'echo' | " + echoes, false},
      {echoes + " | sh", true},
      {echoes + " | cat | python3", true},
      {echoes + " | sh | " + echoes + " | sh", true},
  };
  for (const auto& [script, refused] : pipelines) {
    std::vector<std::size_t> offsets;
    for (std::size_t at = script.find(kPlaceholder); at != std::string::npos; at = script.find(kPlaceholder, at + 1)) {
      offsets.push_back(at);
    }
    const std::clock_t start = std::clock();
    const std::vector<ShellContext> contexts = ShellContextsAt(script, offsets);
    const double seconds = static_cast<double>(std::clock() - start) / CLOCKS_PER_SEC;
    MESSAGE(offsets.size() << " placeholders in a pipeline of " << script.size() << " bytes read in " << seconds
                           << " s of CPU");
    CHECK(seconds < 5);
    for (const ShellContext& context : {contexts.front(), contexts[contexts.size() / 2], contexts.back()}) {
      CHECK(context.unsupported.empty() != refused);
    }
  }
}

TEST_CASE("second-order sinks: the refusal names the sink, shell: raw is written as is") {
  std::string script = "sh -c 'echo hello ${V}'";
  ShellContext context = ShellContextsAt(script, {script.find(kPlaceholder)}).front();
  std::string encoded;
  std::string error = AppendShellEncoded(context, "x; touch canary", ShellMode::kSafe, &encoded);
  CHECK(error.find("inside the string that `sh -c` runs as code") == 0);
  CHECK(encoded.empty());
  CHECK(AppendShellEncoded(context, "x; touch canary", ShellMode::kRaw, &encoded).empty());
  CHECK(encoded == "x; touch canary");
  // A fourth string run as code is one too many.
  std::string fourth = "sh -c 'sh -c \"sh -c \\\"sh -c ${V}\\\"\"'";
  ShellContext deep = ShellContextsAt(fourth, {fourth.find(kPlaceholder)}).front();
  CHECK(AppendShellEncoded(deep, "plain", ShellMode::kSafe, &encoded).find("more than three strings") !=
        std::string::npos);
  CHECK(DescribeShellContext(context).find("inside the string that `sh -c` runs as code: unquoted") !=
        std::string::npos);
}

}  // namespace
}  // namespace safesubst
