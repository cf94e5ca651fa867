// SPDX-License-Identifier: Apache-2.0
// Variables a shell reads as code at start-up (startup_variables.h): which
// names, the rule for each, the marking of env items and data entries, the
// render, and, with the real shells, that each reading exists and that the
// values the rule accepts run nothing.
#include "startup_variables.h"

#include <doctest/doctest.h>

#include <chrono>
#include <string>
#include <string_view>
#include <vector>

#include "render_detail.h"
#include "render_support.h"
#include "test_support.h"
#include "tokenizer.h"

namespace safesubst {
namespace {

using R = StartupReading;

// The scalar whose raw text starts with `marker` in `text`.
const Scalar& ScalarAt(const Tokens& tokens, std::string_view text, std::string_view marker) {
  const std::size_t at = text.find(marker);
  REQUIRE(at != std::string_view::npos);
  for (const Scalar& scalar : tokens.scalars) {
    if (scalar.offset == at) return scalar;
  }
  FAIL("no scalar at " << marker);
  return tokens.scalars.front();
}

RenderResult RenderWith(std::string_view text, std::string_view value, bool raw = false) {
  return testing::RenderWithValues(text, raw ? "variables:\n  V: {type: string, shell: raw}\n" : "variables:\n  V: string\n",
                                   {{"V", value}});
}

std::string Pod(std::string_view name, std::string_view value) {
  return "kind: Pod\nspec:\n  containers:\n  - name: a\n    env:\n    - name: " + std::string(name) +
         "\n      value: \"" + std::string(value) + "\"\n";
}

}  // namespace

TEST_CASE("startup variables: the names a shell reads as code when it starts") {
  for (std::string_view name : {"BASH_ENV", "ENV", "PS0", "PS1", "PS2", "PS3", "PS4"}) CHECK(StartupReadingOf(name) == R::kExpanded);
  CHECK(StartupReadingOf("SHELLOPTS") == R::kOptions);
  CHECK(StartupReadingOf("BASHOPTS") == R::kOptions);
  for (std::string_view name : {"PROMPT_COMMAND", "BASH_FUNC_ls%%", "BASH_FUNC_ls()"}) CHECK(StartupReadingOf(name) == R::kCode);
  for (std::string_view name : {"NODE_OPTIONS", "PERL5OPT", "JAVA_TOOL_OPTIONS", "GIT_SSH_COMMAND", "PAGER", "LESSOPEN",
                                "TAR_OPTIONS", "RSYNC_RSH", "GIT_CONFIG_PARAMETERS", "SVN_SSH"}) {
    CHECK(StartupReadingOf(name) == R::kWords);
  }
  for (std::string_view name : {"PATH", "HOME", "ENVIRONMENT", "env", "PS5", "BASH_FUNC_ls", "IFS", "MY_ENV",
                                "JAVA_OPTS", "NODE_ENV", "PERL5LIB"}) {
    CHECK(StartupReadingOf(name) == R::kNone);
  }
}

TEST_CASE("startup variables: each reading takes ordinary values and refuses code, never naming the value") {
  struct Case {
    StartupReading reading;
    std::vector<std::string_view> taken, refused;
  };
  const Case cases[] = {
      {R::kExpanded,
       {"production", "/etc/app/env.sh", "my-app v1.2.3", "https://x.example/a?b=1&c=2", "a;touch canary", "> "},
       {"$(touch canary)", "`touch canary`", "${x[$(touch canary)]}", "a\\$b", "it's", "\"q\""}},
      {R::kOptions, {"xtrace", "errexit:nounset", "extglob"}, {"xtrace;touch canary", "$(touch canary)", "a b"}},
      {R::kCode, {"0", "42", "-1"}, {"ls", "() { touch canary; }", "1;touch canary", "007"}},
      {R::kWords,
       {"512m", "4096", "/etc/ssh/id_rsa", "Mstrict", "less", "com.example.Main", "a=b:c/d+e@f"},
       {"-Mstrict;system(q(x))", "Mstrict;system(q(x))", "--require=/tmp/x", "-XX:OnError=reboot",
        "512m -XX:OnError=reboot", "data:text/javascript,x", "vim;touch canary", "$(touch canary)", "-v", "%s"}},
  };
  for (const Case& c : cases) {
    for (std::string_view value : c.taken) {
      CAPTURE(value);
      CHECK(StartupValueProblem(c.reading, "X", value).empty());
    }
    for (std::string_view value : c.refused) {
      CAPTURE(value);
      const std::string problem = StartupValueProblem(c.reading, "X", value);
      CHECK(!problem.empty());
      CHECK(problem.find(value) == std::string::npos);
    }
  }
}

TEST_CASE("startup variables: a JVM system property's value takes a URL, other words of the variable do not") {
  const std::string_view url = "jdbc:mysql://db:3306/app?useSSL=true&serverTimezone=UTC";
  CHECK(StartupValueProblem(R::kWords, "JAVA_TOOL_OPTIONS", url, "-Dspring.datasource.url=").empty());
  CHECK(StartupValueProblem(R::kWords, "JDK_JAVA_OPTIONS", "Hello,world;(x)", "-Dgreeting=").empty());
  for (std::string_view value : {"a b", "a'b", "a\"b", "a\\b", "a\tb"}) {
    CAPTURE(value);
    CHECK(!StartupValueProblem(R::kWords, "JAVA_TOOL_OPTIONS", value, "-Dx=").empty());
  }
  // Not a property's value: the property's name, another option, another program.
  CHECK(!StartupValueProblem(R::kWords, "JAVA_TOOL_OPTIONS", url, "-D").empty());
  CHECK(!StartupValueProblem(R::kWords, "JAVA_TOOL_OPTIONS", "touch;x", "-XX:OnOutOfMemoryError=").empty());
  CHECK(!StartupValueProblem(R::kWords, "JAVA_TOOL_OPTIONS", url).empty());
  CHECK(!StartupValueProblem(R::kWords, "NODE_OPTIONS", url, "-Dx=").empty());
  // The render finds the word the value lands in.
  const std::string pod = "kind: Pod\nspec:\n  containers:\n  - name: a\n    env:\n    - name: JAVA_TOOL_OPTIONS\n"
                          "      value: \"-Xmx1g -Ddb.url=${V} -Duser.timezone=UTC\"\n";
  const RenderResult rendered = RenderWith(pod, url);
  REQUIRE(rendered.ok());
  CHECK(rendered.output.find(std::string("-Ddb.url=") + std::string(url) + " ") != std::string::npos);
  CHECK(!RenderWith(pod, "x -XX:OnOutOfMemoryError=reboot").ok());
  CHECK(!RenderWith("kind: Pod\nspec:\n  containers:\n  - name: a\n    env:\n    - name: JAVA_TOOL_OPTIONS\n"
                    "      value: \"-Xmx1g ${V}\"\n",
                    "-Ddb.url=x").ok());
}

TEST_CASE("startup variables: env items by their name, in either key order, and data entries by their key") {
  const std::string text =
      "kind: Pod\nspec:\n  containers:\n  - name: a\n    env:\n"
      "    - name: PS4\n      value: v1\n"
      "    - value: v2\n      name: BASH_ENV\n"
      "    - name: PATH\n      value: v3\n"
      "    - name: \"PROMPT_\\x43OMMAND\"\n      value: v4\n"
      "    - name: ${N}_X\n      value: v5\n"
      "    - name: ENV\n      valueFrom: {configMapKeyRef: {name: v6, key: ENV}}\n"
      "---\nkind: ConfigMap\ndata:\n  SHELLOPTS: v7\n  app.conf: v8\n";
  Tokens tokens = Tokenize(text, TokenizerOptions{"t.yaml"});
  MarkStartupVariables(text, &tokens);
  CHECK(ScalarAt(tokens, text, "v1").startup_variable == static_cast<std::uint8_t>(R::kExpanded));
  CHECK(ScalarAt(tokens, text, "v2").startup_variable == static_cast<std::uint8_t>(R::kExpanded));
  CHECK(ScalarAt(tokens, text, "v3").startup_variable == 0);
  CHECK(ScalarAt(tokens, text, "v4").startup_variable == static_cast<std::uint8_t>(R::kCode));
  CHECK(ScalarAt(tokens, text, "${N}_X").startup_variable == kStartupNameMark);
  CHECK(ScalarAt(tokens, text, "v5").startup_variable == 0);
  CHECK(ScalarAt(tokens, text, "v6").startup_variable == 0);
  CHECK(ScalarAt(tokens, text, "v7").startup_variable == static_cast<std::uint8_t>(R::kOptions));
  CHECK(ScalarAt(tokens, text, "v8").startup_variable == 0);
}

TEST_CASE("startup variables: the render refuses code in a start-up variable and keeps every other env value") {
  // Refused, located, without the value.
  for (auto [name, value] : std::vector<std::pair<std::string_view, std::string_view>>{
           {"PS4", "$(touch canary)"}, {"BASH_ENV", "`touch canary`"}, {"ENV", "$(touch canary)"},
           {"PROMPT_COMMAND", "touch canary"}, {"BASH_FUNC_ls%%", "() { touch canary; }"},
           {"SHELLOPTS", "xtrace;x"}, {"NODE_OPTIONS", "--require=/tmp/x"}, {"GIT_SSH_COMMAND", "ssh;touch canary"}}) {
    CAPTURE(name);
    const RenderResult result = RenderWith(Pod(name, "${V}"), value);
    REQUIRE(!result.ok());
    CHECK(result.diagnostics[0].location.line == 7);
    CHECK(result.diagnostics[0].message.find(value) == std::string::npos);
    CHECK(RenderWith(Pod(name, "${V}"), value, /*raw=*/true).ok());
  }
  // Ordinary values, and any value under another name, render as written.
  for (auto [name, value] : std::vector<std::pair<std::string_view, std::string_view>>{
           {"ENV", "production"}, {"PS1", "my-app v1.2.3 > "}, {"APP_URL", "https://x.example/a?b=1&c=2"},
           {"CMD", "$(touch canary)"}, {"SHELLOPTS", "errexit"}, {"JAVA_TOOL_OPTIONS", "512m"}}) {
    CAPTURE(name);
    const RenderResult result = RenderWith(Pod(name, "${V}"), value);
    REQUIRE(result.ok());
    std::string written(value);
    if (written.find("$(") != std::string::npos) written.replace(written.find("$("), 1, "$$");  // kubelet
    CHECK(result.output == Pod(name, written));
  }
  // A name a value completes: refused only where it becomes a start-up variable.
  const std::string named = "kind: Pod\nspec:\n  containers:\n  - name: a\n    env:\n    - name: ${V}\n      value: x\n";
  CHECK(RenderWith(named, "APP_HOST").ok());
  CHECK(!RenderWith(named, "BASH_ENV").ok());
  // A ConfigMap entry that `envFrom` makes the variable.
  CHECK(!RenderWith("kind: ConfigMap\ndata:\n  PS1: \"${V}\"\n", "$(touch canary)").ok());
}

TEST_CASE("startup variables: an env value that kubelet writes into one, or an envFrom prefix that names one") {
  // (attacker s30 A3) kubelet expands `$(X)` with the items before it: X's value becomes BASH_ENV's.
  const std::string carried = "kind: Pod\nspec:\n  containers:\n  - name: a\n    env:\n"
                              "    - {name: X, value: \"${V}\"}\n    - {name: Y, value: \"$(X)\"}\n"
                              "    - {name: BASH_ENV, value: \"/etc/$(Y)\"}\n";
  CHECK_FALSE(RenderWith(carried, "$(touch canary)").ok());
  CHECK(RenderWith(carried, "app.env").ok());
  // An item after it, or in another container, is not in scope.
  CHECK(RenderWith("kind: Pod\nspec:\n  containers:\n  - name: a\n    env:\n    - {name: BASH_ENV, value: \"$(X)\"}\n"
                   "    - {name: X, value: \"${V}\"}\n",
                   "$(touch canary)")
            .ok());
  // envFrom's prefix before a ConfigMap's or Secret's key makes the variable's name.
  const std::string prefixed = "kind: ConfigMap\nmetadata: {name: cm}\ndata:\n  ASH_ENV: \"${V}\"\n---\n"
                               "kind: Pod\nspec:\n  containers:\n  - name: a\n    envFrom:\n"
                               "    - {prefix: B, configMapRef: {name: cm}}\n";
  CHECK_FALSE(RenderWith(prefixed, "$(touch canary)").ok());
  CHECK(RenderWith(prefixed, "app.env").ok());
}

// Attacker A15 (s30): `valueFrom` makes a Secret's or ConfigMap's entry the variable, wherever it stands.
TEST_CASE("startup variables: an entry of a Secret or ConfigMap that an item's valueFrom takes") {
  const std::string secret = "kind: Secret\nmetadata: {name: s}\nstringData:\n  msg: \"${V}\"\n";
  const std::string pod = "kind: Pod\nspec:\n  containers:\n  - name: a\n    command: [bash, -c, \"echo hi\"]\n    env:\n";
  const std::string streams[] = {
      secret + "---\n" + pod + "    - name: BASH_ENV\n      valueFrom: {secretKeyRef: {name: s, key: msg}}\n",
      pod + "    - valueFrom: {configMapKeyRef: {name: c, key: msg}}\n      name: PS1\n---\n"
            "kind: ConfigMap\nmetadata: {name: c}\ndata:\n  msg: \"${V}\"\n",
      // kubelet expands `$(A)` with A's value, which valueFrom takes.
      secret + "---\n" + pod + "    - {name: A, valueFrom: {secretKeyRef: {name: s, key: msg}}}\n"
                                "    - {name: BASH_ENV, value: \"$(A)\"}\n",
      "kind: List\nitems:\n- kind: Secret\n  stringData: {msg: \"${V}\"}\n- " + pod.substr(0, pod.find("\n")) +
          "\n  spec:\n    initContainers:\n    - env: [{name: ENV, valueFrom: {secretKeyRef: {key: msg}}}]\n",
  };
  for (const std::string& stream : streams) {
    CAPTURE(stream);
    const RenderResult hostile = RenderWith(stream, "$(touch canary)");
    REQUIRE_FALSE(hostile.ok());
    CHECK(hostile.diagnostics.front().message.find("touch") == std::string::npos);
    CHECK(RenderWith(stream, "/etc/app.env").ok());
    CHECK(RenderWith(stream, "$(touch canary)", true).ok());
  }
  // (attacker s31 B8) A Secret's `data` is base64: checked as kubelet hands it over, decoded.
  const std::string encoded = "kind: Secret\ndata:\n  msg: ${V}\n---\n" + pod +
                              "    - {name: BASH_ENV, valueFrom: {secretKeyRef: {key: msg}}}\n";
  CHECK_FALSE(RenderWith(encoded, "JCh0b3VjaCBjYW5hcnkp").ok());  // $(touch canary)
  CHECK_FALSE(RenderWith(encoded, "/etc/app.env").ok());          // no base64
  CHECK(RenderWith(encoded, "L2V0Yy9hcHAuZW52").ok());            // /etc/app.env
  // (attacker s31 B8) The Downward API: an annotation that BASH_ENV's fieldRef names.
  const std::string annotated = "kind: Pod\nmetadata:\n  annotations:\n    note: \"${V}\"\nspec:\n  containers:\n"
                                "  - env: [{name: BASH_ENV, valueFrom: {fieldRef: "
                                "{fieldPath: \"metadata.annotations['note']\"}}}]\n";
  CHECK_FALSE(RenderWith(annotated, "$(touch canary)").ok());
  CHECK(RenderWith(annotated, "/etc/app.env").ok());
  // Another key, or an item that is no start-up variable, takes any value.
  CHECK(RenderWith(secret + "---\n" + pod + "    - {name: BASH_ENV, valueFrom: {secretKeyRef: {key: other}}}\n",
                   "$(touch canary)")
            .ok());
  CHECK(RenderWith(secret + "---\n" + pod + "    - {name: APP_ENV, valueFrom: {secretKeyRef: {key: msg}}}\n",
                   "$(touch canary)")
            .ok());
  // bash, started with the rendered entry as BASH_ENV, runs nothing of a value taken.
  CHECK_MESSAGE(testing::HaveProgram("bash"), "bash is not installed");
  testing::TempDir work;
  for (std::string_view taken : {"/etc/app.env", "a;touch canary", "a|touch canary"}) {
    const RenderResult result = RenderWith(streams[0], taken);
    REQUIRE(result.ok());
    CHECK(result.output.find("msg: \"" + std::string(taken) + "\"") != std::string::npos);
    testing::RunShell("cd " + testing::ShellQuote(work.path().string()) + " && env -i PATH=\"$PATH\" " +
                          testing::ShellQuote("BASH_ENV=" + std::string(taken)) + " bash -c 'echo hi' >/dev/null 2>&1",
                      "");
    CHECK_FALSE(std::filesystem::exists(work.path() / "canary"));
  }
}

// A chain E_i = $(E_{i-1}) ending in BASH_ENV: a fixpoint moving one link per
// round over every reference and item took 25 s for 3,000 links.
TEST_CASE("startup variables: a long chain of env items is read in linear time") {
  std::string pod = "kind: Pod\nspec:\n  containers:\n  - name: a\n    env:\n    - {name: E0, value: \"${V}\"}\n";
  constexpr int kLinks = 3000;
  for (int i = 1; i < kLinks; ++i) {
    pod += "    - {name: E" + std::to_string(i) + ", value: \"$(E" + std::to_string(i - 1) + ")\"}\n";
  }
  pod += "    - {name: BASH_ENV, value: \"$(E" + std::to_string(kLinks - 1) + ")\"}\n";
  const auto start = std::chrono::steady_clock::now();
  CHECK_FALSE(RenderWith(pod, "$(touch canary)").ok());
  CHECK(RenderWith(pod, "/etc/app.env").ok());
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(5));
  // Not the first item: its chain reaches no start-up variable.
  CHECK(RenderWith(pod.substr(0, pod.rfind("    - {name: BASH_ENV")), "$(touch canary)").ok());
}

TEST_CASE("startup variables: a streaming render gives way to the whole render, which checks them") {
  Result<Manifest> manifest = ParseManifest("variables:\n  V: string\n", "m.yaml");
  REQUIRE(manifest.ok());
  RenderOptions options;
  options.file_name = "t.yaml";
  options.report_references = false;  // a report needs every reference at once: the render would not stream
  const std::string before = "kind: Pod\nspec:\n  containers:\n  - name: a\n    env:\n    - name: A\n      value: ${V}\n";
  const std::string secret = "kind: Secret\nstringData:\n  msg: \"${V}\"\n---\n";
  for (const std::string& item : {std::string("    - name: PS4\n      value: \"${V}\"\n"),
                                   std::string("    - value: \"${V}\"\n      name: BASH_ENV\n"),
                                   std::string("    - {name: BASH_ENV, valueFrom: {secretKeyRef: {key: msg}}}\n"),
                                   "    - name: BASH_ENV\n      valueFrom: {secretKeyRef: {key: msg}}\n---\n" + secret}) {
    CAPTURE(item);
    for (std::string_view value : {"$(touch canary)", "ok"}) {
      ValueSet values;
      values.Set("V", Value{std::string(value), ValueSource::kCommandLine, Location{"--set"}});
      bool streamed = true;
      const std::string text = (item.find("valueFrom") != std::string::npos && !item.ends_with(secret) ? secret : "") +
                               before + item;
      const RenderResult result = detail::RenderStreamingFrom(1, text, *manifest.value, values, options, &streamed);
      CHECK_FALSE(streamed);
      CHECK(result.ok() == (value == "ok"));
    }
  }
}

// The readings the rule stands on, measured: each named shell runs the
// hostile value at start-up (as root, which the tests run as: bash then
// ignores PS4 from the environment, mksh PS1), and no shell runs a value the
// rule takes. An interactive shell reads its commands from standard input.
TEST_CASE("startup variables: under the real shells, each reading runs code and the values taken run none") {
  for (const char* shell : {"dash", "bash", "busybox"}) {
    CHECK_MESSAGE(testing::HaveProgram(shell), shell << " is not installed (packaging/debian-test-deps.txt)");
  }
  // The shell as it is started, and the variable with its hostile value.
  const std::pair<std::string_view, std::string_view> runs[] = {
      {"bash -c 'echo hi'", "BASH_ENV=$(touch canary)"},
      {"bash -c 'echo hi'", "BASH_FUNC_echo%%=() { touch canary; }"},
      {"bash --posix -c 'echo hi'", "BASH_FUNC_echo%%=() { touch canary; }"},
      {"dash -i", "ENV=$(touch canary)"},
      {"busybox sh -i", "ENV=$(touch canary)"},
      {"dash -i", "PS1=$(touch canary)"},
      {"busybox sh -i", "PS1=`touch canary`"},
      {"bash -i", "PS0=$(touch canary)"},
      {"bash -i", "PROMPT_COMMAND=touch canary"},
  };
  testing::TempDir work;
  auto canary_after = [&](std::string_view shell, std::string_view variable, std::string_view value) {
    std::filesystem::remove(work.path() / "canary");
    const std::string command = "cd " + testing::ShellQuote(work.path().string()) + " && env -i PATH=\"$PATH\" HOME=. " +
                                testing::ShellQuote(std::string(variable) + "=" + std::string(value)) + " " +
                                std::string(shell) + " >/dev/null 2>&1";
    testing::RunShell(command, "echo hi\n");
    return std::filesystem::exists(work.path() / "canary");
  };
  for (auto [shell, assignment] : runs) {
    const std::string_view variable = assignment.substr(0, assignment.find('='));
    const std::string_view hostile = assignment.substr(variable.size() + 1);
    CAPTURE(shell);
    CAPTURE(variable);
    CHECK(canary_after(shell, variable, hostile));
    CHECK(!StartupValueProblem(StartupReadingOf(variable), variable, hostile).empty());
    for (std::string_view taken : {"a;touch canary", "production", "0"}) {
      if (!StartupValueProblem(StartupReadingOf(variable), variable, taken).empty()) continue;
      CAPTURE(taken);
      CHECK(!canary_after(shell, variable, taken));
    }
  }
}

// The other programs' readings (perl, node, git: CI installs them), measured
// the same way: the hostile value runs code, a value the rule takes does
// not, whichever words of the variable the template wrote around it.
TEST_CASE("startup variables: perl, node, git and tar run code from their variables, and not the values taken") {
  for (const char* program : {"perl", "node", "git", "tar"}) {
    CHECK_MESSAGE(testing::HaveProgram(program), program << " is not installed (packaging/debian-test-deps.txt)");
  }
  struct Run {
    std::string_view command, variable, written, hostile;  // `written`: the template's text, `@` the value
  };
  const Run runs[] = {
      {"perl -e 1", "PERL5OPT", "@", "-Mstrict;system(q(touch).chr(32).q(canary))"},
      {"perl -e 1", "PERL5OPT", "-M@", "strict;system(q(touch).chr(32).q(canary))"},
      {"node -e 1", "NODE_OPTIONS", "@",
       "--import=data:text/javascript,import('child_process').then(c=>c.execFileSync('touch',['canary']))"},
      {"node -e 1", "NODE_OPTIONS", "--max-old-space-size=@",
       "64 --import=data:text/javascript,import('child_process').then(c=>c.execFileSync('touch',['canary']))"},
      {"git ls-remote ssh://example.invalid/x", "GIT_SSH_COMMAND", "ssh -i @", "k;touch canary;"},
      {"git ls-remote ssh://example.invalid/x", "GIT_SSH_COMMAND", "@ -i k", "touch canary;"},
      {"tar cf /dev/null .", "TAR_OPTIONS", "@", "--checkpoint=1 --checkpoint-action=exec=touch\\ canary"},
  };
  testing::TempDir work;
  auto canary_after = [&](const Run& run, std::string_view value) {
    std::filesystem::remove(work.path() / "canary");
    std::string assignment = std::string(run.variable) + "=" + std::string(run.written);
    assignment.replace(assignment.find('@'), 1, value);
    testing::RunShell("cd " + testing::ShellQuote(work.path().string()) + " && env -i PATH=\"$PATH\" HOME=. " +
                          testing::ShellQuote(assignment) + " timeout 20 " + std::string(run.command) +
                          " >/dev/null 2>&1 </dev/null",
                      "");
    return std::filesystem::exists(work.path() / "canary");
  };
  for (const Run& run : runs) {
    CAPTURE(run.variable);
    CAPTURE(run.written);
    CHECK(canary_after(run, run.hostile));
    CHECK(!StartupValueProblem(StartupReadingOf(run.variable), run.variable, run.hostile).empty());
    for (std::string_view taken : {"64", "strict", "canary", "touch", "x=touch:canary"}) {
      if (!StartupValueProblem(StartupReadingOf(run.variable), run.variable, taken).empty()) continue;
      CAPTURE(taken);
      CHECK(!canary_after(run, taken));
    }
  }
}

}  // namespace safesubst
