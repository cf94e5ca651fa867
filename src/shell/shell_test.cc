// SPDX-License-Identifier: Apache-2.0
// Tests of the `#!` check, and of the seed scenario's wrapper script
// (SPEC "The seed scenario"): ordinary values must come out exactly as plain
// substitution would write them, hostile ones must not.
#include "shell.h"

#include <doctest/doctest.h>

#include <map>
#include <string>
#include <vector>

#include "safesubst/manifest.h"
#include "safesubst/render.h"
#include "safesubst/values.h"
#include "test_support.h"

namespace safesubst {
namespace {

TEST_CASE("ShebangShell: a `#!` line naming a shell") {
  for (std::string_view script :
       {"#!/bin/sh\necho", "#!/bin/sh -e\n", "#! /bin/bash\n", "#!/usr/bin/env bash\n",
        "#!/usr/bin/env -S bash -eu\n", "#!/usr/bin/env LC_ALL=C sh\n", "#!/bin/dash", "#!/sbin/ash\n",
        "#!/usr/local/bin/zsh -f\n", "#!/bin/busybox sh\n", "#!/bin/sh\r\necho\r\n", "#!/bin/ksh\n",
        "#!/bin/mksh\n", "#!/usr/bin/env yash\n", "#!/bin/bash5\n", "#!/usr/bin/mksh-static\n"}) {
    CAPTURE(script);
    CHECK_FALSE(ShebangShell(script).empty());
  }
  for (std::string_view script :
       {"", "#", "#!", "#!\n", "echo\n#!/bin/sh\n", " #!/bin/sh\n", "#!/usr/bin/python3\n",
        "#!/usr/bin/env python3\n", "#!/usr/bin/env\n", "#!/bin/shell\n", "# !/bin/sh\n",
        "#!/usr/bin/env -S\n", "#!/bin/busybox awk\n"}) {
    CAPTURE(script);
    CHECK(ShebangShell(script).empty());
  }
}

TEST_CASE("ShellStateName names every state") {
  for (ShellState state : {ShellState::kUnquoted, ShellState::kSingleQuoted, ShellState::kDoubleQuoted,
                           ShellState::kComment, ShellState::kHeredocLiteral, ShellState::kHeredocExpanding,
                           ShellState::kArithmetic, ShellState::kDollarSingleQuoted}) {
    CHECK(!ShellStateName(state).empty());
    CHECK(ShellStateName(state) != "unknown");
  }
}

// Substitutes `values` at every `${NAME}` of `script` whose NAME has a value,
// through the shell encoder. Returns the script, or the first error.
struct Substituted {
  std::string script;
  std::map<std::string, std::string> states;  // NAME -> described context of its first placeholder
  std::string error;
};

Substituted Substitute(std::string_view script, const std::map<std::string, std::string>& values) {
  struct Placeholder {
    std::size_t offset, length;
    std::string name;
  };
  std::vector<Placeholder> placeholders;
  for (std::size_t at = script.find("${"); at != std::string_view::npos; at = script.find("${", at + 1)) {
    std::size_t close = script.find('}', at);
    if (close == std::string_view::npos) break;
    std::string name(script.substr(at + 2, close - at - 2));
    if (values.count(name) != 0) placeholders.push_back({at, close + 1 - at, name});
  }
  std::vector<std::size_t> offsets;
  for (const Placeholder& p : placeholders) offsets.push_back(p.offset);
  std::vector<ShellContext> contexts = ShellContextsAt(script, offsets);
  Substituted result;
  std::size_t start = 0;
  for (std::size_t i = 0; i < placeholders.size(); ++i) {
    result.script.append(script.substr(start, placeholders[i].offset - start));
    result.states.emplace(placeholders[i].name, DescribeShellContext(contexts[i]));
    std::string error =
        AppendShellEncoded(contexts[i], values.at(placeholders[i].name), ShellMode::kSafe, &result.script);
    if (!error.empty() && result.error.empty()) result.error = placeholders[i].name + ": " + error;
    start = placeholders[i].offset + placeholders[i].length;
  }
  result.script.append(script.substr(start));
  return result;
}

// What envsubst (or sed on __X__ sentinels) would produce.
std::string PlainSubstitution(std::string_view script, const std::map<std::string, std::string>& values) {
  std::string out(script);
  for (const auto& [name, value] : values) {
    std::string placeholder = "${" + name + "}";
    for (std::size_t at = out.find(placeholder); at != std::string::npos;
         at = out.find(placeholder, at + value.size())) {
      out.replace(at, placeholder.size(), value);
    }
  }
  return out;
}

const std::map<std::string, std::string> kProfileValues = {
    {"EFS_HOSTNAME", "fs-0123456789abcdef0.efs.ap-northeast-2.amazonaws.com"},
    {"EFS_IP_2A", "10.0.1.10"},
    {"EFS_IP_2C", "10.0.2.10"},
    {"ZONE_BOUNDARY", "31"},
};

std::string SeedWrapper() {
  std::string text = testing::ReadFile(testing::SourceDir() / "tests/data/shell/efs-zone-wrapper.sh");
  REQUIRE(!text.empty());
  return text;
}

TEST_CASE("seed wrapper: ordinary values come out byte-identical to plain substitution") {
  std::string wrapper = SeedWrapper();
  Substituted result = Substitute(wrapper, kProfileValues);
  CHECK(result.error == "");
  CHECK(result.script == PlainSubstitution(wrapper, kProfileValues));
  CHECK(result.script.find("EFS_2A=\"10.0.1.10\"") != std::string::npos);
  CHECK(result.script.find("-le 31 ]") != std::string::npos);
  // The states the lexer saw.
  CHECK(result.states["EFS_HOSTNAME"] == "double-quoted");
  CHECK(result.states["EFS_IP_2A"] == "double-quoted");
  CHECK(result.states["ZONE_BOUNDARY"] == "unquoted");
  // The runtime variables are not placeholders and are untouched.
  CHECK(result.script.find("echo \"$NODE_IP\" | cut -d. -f3") != std::string::npos);
  CHECK(result.script.find("('$NODE_IP')") != std::string::npos);
}

TEST_CASE("seed wrapper: the example's own copy encodes the same way") {
  // examples/efs-zone/common/efs-zone-command.yaml holds the wrapper as the
  // `args` block scalar; take its lines back out of the YAML indentation.
  std::string yaml = testing::ReadFile(testing::SourceDir() / "examples/efs-zone/common/efs-zone-command.yaml");
  REQUIRE_MESSAGE(!yaml.empty(), "examples/efs-zone/common/efs-zone-command.yaml is missing");
  std::size_t block = yaml.find("- |\n");
  REQUIRE(block != std::string::npos);
  std::string script;
  for (std::size_t line = block + 4; line < yaml.size();) {
    std::size_t end = yaml.find('\n', line);
    if (end == std::string::npos) end = yaml.size();
    std::string_view text = std::string_view(yaml).substr(line, end - line);
    if (!text.empty() && text.rfind("    ", 0) != 0) break;
    script.append(text.substr(std::min<std::size_t>(4, text.size()))).append("\n");
    line = end + 1;
  }
  REQUIRE(script.find("${ZONE_BOUNDARY}") != std::string::npos);
  Substituted result = Substitute(script, kProfileValues);
  CHECK(result.error == "");
  CHECK(result.script == PlainSubstitution(script, kProfileValues));
}

TEST_CASE("seed wrapper: hostile values are quoted or refused") {
  std::string wrapper = SeedWrapper();
  std::map<std::string, std::string> values = kProfileValues;

  values["EFS_HOSTNAME"] = "x\"; touch /tmp/canary; echo \"$(id)`id`\\";
  Substituted quoted = Substitute(wrapper, values);
  CHECK(quoted.error == "");
  CHECK(quoted.script.find("EFS_HOST=\"x\\\"; touch /tmp/canary; echo \\\"\\$(id)\\`id\\`\\\\\"\n") !=
        std::string::npos);

  values = kProfileValues;
  values["ZONE_BOUNDARY"] = "31 ]; touch /tmp/canary; [ 1";
  CHECK(Substitute(wrapper, values).error.find("ZONE_BOUNDARY: in an unquoted shell word") == 0);

  // The seed's own failure mode, an empty value, is refused where it would
  // remove a word from the test command.
  values["ZONE_BOUNDARY"] = "";
  CHECK(Substitute(wrapper, values).error.find("empty value") != std::string::npos);
  values = kProfileValues;
  values["EFS_IP_2A"] = "";
  CHECK(Substitute(wrapper, values).error == "");  // "" inside quotes is a fine empty string
}

TEST_CASE("seed wrapper: the rendered script runs under /bin/sh and picks the zone") {
  if (!testing::HaveProgram("/bin/sh")) {
    FAIL("/bin/sh missing");
  }
  std::string rendered = Substitute(SeedWrapper(), kProfileValues).script;
  // Point the wrapper at a scratch hosts file and a harmless final command.
  testing::TempDir dir;
  std::string hosts = (dir / "hosts").string();
  for (std::size_t at = rendered.find("/etc/hosts"); at != std::string::npos;
       at = rendered.find("/etc/hosts", at)) {
    rendered.replace(at, 10, hosts);
  }
  rendered.replace(rendered.find("cd /home/app"), 12, "cd " + testing::ShellQuote(dir.path().string()));
  rendered.replace(rendered.find("exec sh start.sh"), 16, "exit 0");
  testing::WriteFile(dir / "hosts", "127.0.0.1 localhost\n");
  testing::WriteFile(dir / "wrapper.sh", rendered);
  for (auto [node_ip, efs_ip] : std::vector<std::pair<std::string, std::string>>{
           {"10.0.39.229", "10.0.2.10"}, {"10.0.17.5", "10.0.1.10"}, {"", "10.0.1.10"}}) {
    testing::WriteFile(dir / "hosts", "127.0.0.1 localhost\n");
    testing::CommandResult result =
        testing::RunShell("NODE_IP=" + testing::ShellQuote(node_ip) + " /bin/sh " + (dir / "wrapper.sh").string());
    CAPTURE(node_ip);
    CHECK(result.code == 0);
    CHECK(testing::ReadFile(dir / "hosts") ==
          "127.0.0.1 localhost\n" + efs_ip + " fs-0123456789abcdef0.efs.ap-northeast-2.amazonaws.com\n");
  }
}

// ---- dialects: the shells that may run a script -------------------------

// Renders `script` (a block scalar's lines) as the script of `where`, with V set to `value`.
RenderResult RenderScript(std::string_view where, std::string_view script, std::string_view value) {
  std::string text;
  std::string indented;
  for (std::size_t start = 0; start < script.size();) {
    std::size_t end = std::min(script.find('\n', start), script.size());
    indented += "      " + std::string(script.substr(start, end - start)) + "\n";
    start = end + 1;
  }
  if (where == "configmap") {
    text = "apiVersion: v1\nkind: ConfigMap\ndata:\n  run.sh: |\n" + indented;
  } else {  // a program name: the container's `command: [PROGRAM, -c]`
    text = "apiVersion: v1\nkind: Pod\nspec:\n  containers:\n  - name: a\n    command: [" + std::string(where) +
           ", -c]\n    args:\n    - |\n" + indented;
  }
  Result<Manifest> manifest = ParseManifest("variables:\n  V: string\n", "m.yaml");
  REQUIRE(manifest.ok());
  ValueSet values;
  values.Set("V", Value{std::string(value), ValueSource::kCommandLine, Location{"--set"}});
  RenderOptions options;
  options.file_name = "t.yaml";
  return Render(text, *manifest.value, values, options);
}

std::string FirstError(const RenderResult& result) {
  for (const Diagnostic& diagnostic : result.diagnostics) {
    if (diagnostic.severity == Severity::kError) return diagnostic.message;
  }
  return {};
}

TEST_CASE("dialects: a script for /bin/sh is read as dash, busybox ash and bash") {
  // dash reads $'it\'s' as `$`, 'it\' and an open quote: '${V}' is unquoted code there.
  const std::string_view exploit = "printf '%s' $'it\\'s' '${V}' # '";
  const std::string_view hostile = "; touch canary; #";
  for (std::string_view where : {"sh", "/bin/sh", "dash", "ash", "configmap"}) {
    CAPTURE(where);
    RenderResult refused = RenderScript(where, exploit, hostile);
    std::string error = FirstError(refused);
    CHECK(error.find("dash") != std::string::npos);
    CHECK(error.find("bash") != std::string::npos);
    CHECK(error.find("canary") == std::string::npos);  // never the value
    REQUIRE_FALSE(refused.diagnostics.empty());
    CHECK(refused.diagnostics[0].location.line == (where == "configmap" ? 5u : 9u));
    CHECK(refused.output.empty());
    // A value that every reading takes literally is written.
    RenderResult inert = RenderScript(where, exploit, "web-portal");
    CHECK_MESSAGE(inert.ok(), FirstError(inert));
  }
  // bash alone runs these: its reading is the only one.
  for (std::string_view where : {"bash", "/usr/bin/bash"}) {
    RenderResult bash = RenderScript(where, exploit, hostile);
    CHECK_MESSAGE(bash.ok(), FirstError(bash));
    CHECK(bash.output.find("'; touch canary; #'") != std::string::npos);
  }
  RenderResult shebang = RenderScript("configmap", "#!/bin/bash\n" + std::string(exploit), hostile);
  CHECK_MESSAGE(shebang.ok(), FirstError(shebang));
  // `((...))` is arithmetic in bash, two subshells in dash and busybox ash.
  CHECK(RenderScript("sh", "(( n = ${V} ))", "3").ok());
  CHECK_FALSE(RenderScript("sh", "(( n = ${V} ))", "n").ok());
  // `$[...]`: arithmetic in bash, a `$` and a word for dash and busybox ash.
  CHECK(RenderScript("sh", "x=$[${V}]", "7").ok());
  CHECK_FALSE(RenderScript("sh", "x=$[${V}]", "n").ok());
  // Where every shell reads the place alike, nothing changes.
  RenderResult quoted = RenderScript("sh", "printf '%s' $'a' \"${V}\"", "it's \"$x\"");
  CHECK_MESSAGE(quoted.ok(), FirstError(quoted));
  CHECK(quoted.output.find("\"it's \\\"\\$x\\\"\"") != std::string::npos);
}

TEST_CASE("type: yaml in a shell script's place needs shell: raw") {
  const std::string pod =
      "apiVersion: v1\nkind: Pod\nspec:\n  containers:\n  - name: a\n    command: [sh, -c]\n    args:\n"
      "    - ${CODE}\n";
  ValueSet values;
  values.Set("CODE", Value{"echo hi; touch canary", ValueSource::kCommandLine, Location{"--set"}});
  RenderOptions options;
  options.file_name = "t.yaml";
  Result<Manifest> safe = ParseManifest("variables:\n  CODE: yaml\n", "m.yaml");
  REQUIRE(safe.ok());
  RenderResult refused = Render(pod, *safe.value, values, options);
  CHECK(FirstError(refused).find("shell script") != std::string::npos);
  CHECK(refused.output.empty());
  REQUIRE_FALSE(refused.diagnostics.empty());
  CHECK(refused.diagnostics[0].location.line == 8u);
  Result<Manifest> raw = ParseManifest("variables:\n  CODE:\n    type: yaml\n    shell: raw\n", "m.yaml");
  REQUIRE_MESSAGE(raw.ok(), (raw.diagnostics.empty() ? "" : raw.diagnostics[0].message));
  RenderResult written = Render(pod, *raw.value, values, options);
  CHECK_MESSAGE(written.ok(), FirstError(written));
  CHECK(written.output.find("echo hi; touch canary") != std::string::npos);
  // Elsewhere a yaml value needs nothing more.
  RenderResult data = Render("apiVersion: v1\nkind: ConfigMap\ndata:\n  x: ${CODE}\n", *safe.value, values, options);
  CHECK_MESSAGE(data.ok(), FirstError(data));
}

TEST_CASE("ShellsRunning and ShebangShell") {
  for (std::string_view bash : {"bash", "/bin/bash", "zsh", "/usr/bin/ksh", "mksh"}) {
    CHECK(ShellsRunning(bash) == ScriptShells::kBash);
  }
  for (std::string_view sh : {"sh", "/bin/sh", "dash", "ash", "busybox", "posh", "yash", ""}) {
    CHECK(ShellsRunning(sh) == ScriptShells::kSh);
  }
  CHECK(ShebangShell("#!/usr/bin/env -S bash -e\n") == "bash");
  CHECK(ShebangShell("#!/bin/sh\n") == "/bin/sh");
  CHECK(ShebangShell("#!/usr/bin/python3\n").empty());
}

TEST_CASE("ShebangProgram: the program a `#!` line runs, after env's or busybox's options") {
  CHECK(ShebangProgram("#!/usr/bin/python3 -u\nprint(1)\n") == "/usr/bin/python3");
  CHECK(ShebangProgram("#! /usr/bin/perl -w\r\n") == "/usr/bin/perl");
  CHECK(ShebangProgram("#!/usr/bin/env -S A=1 node --no-warnings\n") == "node");
  CHECK(ShebangProgram("#!/bin/busybox awk -f\n") == "awk");
  CHECK(ShebangProgram("#!/usr/bin/env\n").empty());
  CHECK(ShebangProgram("# !/usr/bin/python3\n").empty());
  CHECK(ShebangProgram("print(1)\n#!/usr/bin/python3\n").empty());
}

}  // namespace
}  // namespace safesubst
