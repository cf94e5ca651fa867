// SPDX-License-Identifier: Apache-2.0
// Env values that kubelet writes into a command line through `$(NAME)`
// (carried_env_values.h): refused where they would not read as themselves,
// and, run as kubelet runs the script (its expansion, then dash and bash),
// the values taken print as themselves and run nothing.
#include "carried_env_values.h"

#include <doctest/doctest.h>

#include <string>
#include <string_view>
#include <vector>

#include "base64.h"
#include "kubelet_oracle.h"
#include "render_support.h"
#include "test_support.h"
#include "yaml_load.h"
#include "yaml_tree.h"

namespace safesubst {
namespace {

constexpr std::string_view kManifest = "variables:\n  V: string\n";

std::string Pod(std::string_view command, std::string_view env) {
  return "kind: Pod\nspec:\n  containers:\n  - name: a\n    " + std::string(command) + "\n    env:\n" +
         std::string(env);
}

const std::string kMsg = "    - {name: MSG, value: \"${V}\"}\n";

// The script item (the last of the command line, args after command) and the env item MSG of a
// rendered Pod, as kubelet hands the script to the shell. MSG is the `value` of the env item, or the entry `msg` of a Secret or
// ConfigMap of the stream (its `valueFrom`), which kubelet hands over as it is.
std::string ScriptAsRun(const std::string& rendered) {
  detail::YamlStream stream;
  detail::YamlParseError error;
  REQUIRE(detail::ParseYamlStream(rendered, &stream, &error));
  std::string script, msg;
  for (const detail::YamlNode& node : stream.nodes) {
    if (node.kind != detail::YamlNode::Kind::kMapping) continue;
    for (std::size_t k = 0; k + 1 < node.children.size(); k += 2) {
      const std::string& key = stream.nodes[node.children[k]].text;
      const detail::YamlNode& value = stream.nodes[node.children[k + 1]];
      if ((key == "command" || key == "args") && !value.children.empty()) script = stream.nodes[value.children.back()].text;
      if (key == "value") msg = testing::kubelet::Expand(value.text, {});
      if (key == "msg") msg = value.text;
    }
  }
  return testing::kubelet::Expand(script, {{"MSG", msg}});
}

}  // namespace

TEST_CASE("carried env values: a value kubelet writes into a script reads as itself there or is refused") {
  struct Case {
    std::string_view command;
    std::vector<std::string_view> taken, refused;
  };
  const Case cases[] = {
      {R"y(command: [sh, -c, "echo $(MSG)"])y", {"hello", "v1.2.3", "10.0.0.1"},
       {";touch canary", "$(touch canary)", "a b", "https://x.example/a?b=1&c=2"}},
      {R"y(command: [sh, -c, "echo \"$(MSG)\""])y", {"hello world", "https://x.example/a?b=1&c=2", "O'Brien"},
       {"$(touch canary)", "`touch canary`", "a\"b"}},
      {R"y(command: [bash, -c, "echo '$(MSG)'"])y", {"hello world", "a\"b $x"}, {"';touch canary;'"}},
  };
  std::vector<std::string> scripts, values;
  for (const Case& c : cases) {
    CAPTURE(c.command);
    for (std::string_view value : c.refused) {
      CAPTURE(value);
      const RenderResult result = testing::RenderWithValues(Pod(c.command, kMsg), kManifest, {{"V", value}});
      REQUIRE_FALSE(result.ok());
      CHECK(result.diagnostics.front().location.line == 7);
      CHECK(result.diagnostics.front().message.find(value) == std::string::npos);
    }
    for (std::string_view value : c.taken) {
      CAPTURE(value);
      const RenderResult result = testing::RenderWithValues(Pod(c.command, kMsg), kManifest, {{"V", value}});
      REQUIRE(result.ok());
      scripts.push_back(ScriptAsRun(result.output));
      values.push_back(std::string(value));
    }
  }
  testing::TempDir work;
  for (std::string_view shell : {"dash", "bash"}) {
    CHECK_MESSAGE(testing::HaveProgram(std::string(shell)), shell << " is not installed");
    for (std::size_t i = 0; i < scripts.size(); ++i) {
      CAPTURE(scripts[i]);
      const testing::CommandResult run = testing::RunShell(
          "cd " + testing::ShellQuote(work.path().string()) + " && " + std::string(shell) + " -c " + testing::ShellQuote(scripts[i]));
      CHECK(run.out == values[i] + "\n");
      CHECK_FALSE(std::filesystem::exists(work.path() / "canary"));
    }
  }
}

TEST_CASE("carried env values: through args, probes, interpreters and other env items, not into hooks") {
  const std::string_view hostile = "'); import os; os.system('touch canary'); ('";
  auto renders = [&](std::string_view command, std::string_view env, std::string_view value) {
    return testing::RenderWithValues(Pod(command, env), kManifest, {{"V", value}}).ok();
  };
  CHECK_FALSE(renders("command: [sh, -c]\n    args: [\"echo $(MSG)\"]", kMsg, ";touch canary"));
  CHECK_FALSE(renders("livenessProbe: {exec: {command: [sh, -c, \"echo $(MSG)\"]}}", kMsg, ";touch canary"));
  CHECK_FALSE(renders(R"y(command: [python3, -c, "print('$(MSG)')"])y", kMsg, hostile));
  CHECK(renders(R"y(command: [python3, -c, "print('$(MSG)')"])y", kMsg, "1.2.3"));
  // MSG's own value names an earlier item: kubelet expands it first.
  const std::string chained = "    - {name: A, value: \"${V}\"}\n    - {name: MSG, value: \"x-$(A)\"}\n";
  CHECK_FALSE(renders(R"y(command: [sh, -c, "echo $(MSG)"])y", chained, ";touch canary"));
  CHECK(renders(R"y(command: [sh, -c, "echo $(MSG)"])y", chained, "v1"));
  // (attacker s30 A8) envFrom makes a ConfigMap's or Secret's keys variables, after its prefix.
  for (std::string_view from : {"    envFrom:\n    - configMapRef: {name: cm}\n",
                                "    envFrom:\n    - {prefix: M, secretRef: {name: cm}}\n"}) {
    const std::string stream = "kind: ConfigMap\nmetadata: {name: cm}\ndata:\n  " +
                               std::string(from.find("prefix") == std::string_view::npos ? "MSG" : "SG") +
                               ": \"${V}\"\n---\nkind: Pod\nspec:\n  containers:\n  - name: a\n"
                               "    command: [sh, -c, \"echo $(MSG)\"]\n" + std::string(from);
    CAPTURE(stream);
    CHECK_FALSE(testing::RenderWithValues(stream, kManifest, {{"V", ";touch canary"}}).ok());
    CHECK(testing::RenderWithValues(stream, kManifest, {{"V", "hello"}}).ok());
  }
  // kubelet runs a hook's command as written, and a name no item has stays `$(NAME)`.
  CHECK(renders("lifecycle: {postStart: {exec: {command: [sh, -c, \"echo $(MSG)\"]}}}", kMsg, ";touch canary"));
  CHECK(renders(R"y(command: [sh, -c, "echo $(OTHER)"])y", kMsg, ";touch canary"));
  // `shell: raw` writes it as code, as in the script itself.
  CHECK(testing::RenderWithValues(Pod(R"y(command: [sh, -c, "echo $(MSG)"])y", kMsg),
                                  "variables:\n  V: {type: string, shell: raw}\n", {{"V", ";touch canary"}})
            .ok());
}

// Attacker A15 (s30): `valueFrom` gives MSG a Secret's or ConfigMap's entry, anywhere in the stream.
TEST_CASE("carried env values: a Secret's or ConfigMap's entry that valueFrom takes") {
  const std::string secret = "kind: Secret\nmetadata: {name: s}\nstringData:\n  msg: \"${V}\"\n";
  const std::string config_map = "kind: ConfigMap\nmetadata: {name: c}\ndata: {msg: \"${V}\"}\n";
  const std::string from_secret = "    - name: MSG\n      valueFrom:\n        secretKeyRef: {name: s, key: msg}\n";
  const std::string from_map = "    - valueFrom: {configMapKeyRef: {key: msg, name: c}}\n      name: MSG\n";
  const std::string script = R"y(command: [sh, -c, "echo $(MSG)"])y";
  const std::string deployment = "kind: Deployment\nspec:\n  template:\n    spec:\n      initContainers:\n"
                                 "      - name: a\n        " + script + "\n        env:\n        - name: MSG\n"
                                 "          valueFrom: {secretKeyRef: {name: s, key: msg}}\n";
  const std::string list = "kind: List\nitems:\n- kind: Secret\n  stringData: {msg: \"${V}\"}\n"
                           "- kind: CronJob\n  spec:\n    jobTemplate:\n      spec:\n        template:\n"
                           "          spec:\n            ephemeralContainers:\n            - " + script +
                           "\n              env: [{name: MSG, valueFrom: {secretKeyRef: {name: s, key: msg}}}]\n";
  const std::string streams[] = {
      secret + "---\n" + Pod(script, from_secret),
      Pod(script, from_map) + "---\n" + config_map,
      // MSG names an earlier item that valueFrom fills.
      secret + "---\n" + Pod(script, "    - {name: A, valueFrom: {secretKeyRef: {name: s, key: msg}}}\n"
                                       "    - {name: MSG, value: \"$(A)\"}\n"),
      Pod(R"y(command: [sh, -c]
    args: ["echo $(MSG)"])y", from_secret) + "---\n" + secret,
      deployment + "---\n" + secret,
      list,
  };
  std::vector<std::string> scripts;
  for (const std::string& stream : streams) {
    CAPTURE(stream);
    for (std::string_view value : {";touch canary", "$(touch canary)", "`touch canary`", "a b"}) {
      CAPTURE(value);
      const RenderResult result = testing::RenderWithValues(stream, kManifest, {{"V", value}});
      REQUIRE_FALSE(result.ok());
      CHECK(result.diagnostics.front().message.find("kubelet writes this env value") != std::string::npos);
      CHECK(result.diagnostics.front().message.find(value) == std::string::npos);
    }
    const RenderResult result = testing::RenderWithValues(stream, kManifest, {{"V", "v1.2.3"}});
    REQUIRE(result.ok());
    if (stream != streams[2]) scripts.push_back(ScriptAsRun(result.output));
  }
  // A Secret's `data` is base64, which kubelet decodes: no base64, refused (B8 checks the decoded text).
  CHECK_FALSE(testing::RenderWithValues("kind: Secret\ndata:\n  msg: \"${V}\"\n---\n" + Pod(script, from_secret),
                                        kManifest, {{"V", ";touch canary"}})
                  .ok());
  // A key no item takes, and a hook kubelet does not expand, are left alone.
  CHECK(testing::RenderWithValues(secret + "---\n" + Pod(script, "    - {name: MSG, valueFrom: {secretKeyRef: "
                                                                  "{name: s, key: other}}}\n"),
                                  kManifest, {{"V", ";touch canary"}})
            .ok());
  testing::TempDir work;
  for (std::string_view shell : {"dash", "bash"}) {
    CHECK_MESSAGE(testing::HaveProgram(std::string(shell)), shell << " is not installed");
    for (const std::string& run : scripts) {
      CAPTURE(run);
      const testing::CommandResult ran = testing::RunShell(
          "cd " + testing::ShellQuote(work.path().string()) + " && " + std::string(shell) + " -c " + testing::ShellQuote(run));
      CHECK(ran.out == "v1.2.3\n");
    }
  }
}

TEST_CASE("carried env values: the text that may name an item taking other objects' entries") {
  for (std::string_view text : {"envFrom: []", "valueFrom: {secretKeyRef: {}}", "{configMapKeyRef: x}",
                                R"y("envFr\x6fm": [])y", R"y("env\u0046rom": [])y", "? \"envFr\\\n  om\"\n: []\n"}) {
    CAPTURE(text);
    CHECK(MayTakeOtherObjectsEntries(text));
  }
  for (std::string_view text : {"env: [{name: A, value: b}]", "args: [\"a \\\n b\"]", "url: https://x/?a=1",
                                "data: {k: \"a\\tb\"}"}) {
    CAPTURE(text);
    CHECK_FALSE(MayTakeOtherObjectsEntries(text));
  }
}

// Attacker s31 B8 (a): a Secret's `data` entry is base64; kubelet decodes it before `$(MSG)` takes it.
TEST_CASE("carried env values: a Secret's base64 data entry is checked decoded") {
  const std::string script = R"y(command: [sh, -c, "echo $(MSG)"])y";
  const std::string secret = "kind: Secret\nmetadata: {name: s}\ndata:\n  msg: ${V}\n  MSG: ${V}\n---\n";
  const std::string streams[] = {
      secret + Pod(script, "    - {name: MSG, valueFrom: {secretKeyRef: {name: s, key: msg}}}\n"),
      secret + "kind: Pod\nspec:\n  containers:\n  - name: a\n    " + script + "\n    envFrom: [{secretRef: {name: s}}]\n",
  };
  for (const std::string& stream : streams) {
    CAPTURE(stream);
    // `$(touch canary)`, `;touch canary`, and text that is no base64.
    for (std::string_view value : {"JCh0b3VjaCBjYW5hcnkp", "O3RvdWNoIGNhbmFyeQ==", "v1.2.3"}) {
      CAPTURE(value);
      const RenderResult result = testing::RenderWithValues(stream, kManifest, {{"V", value}});
      REQUIRE_FALSE(result.ok());
      CHECK(result.diagnostics.front().location.line == (&stream == &streams[0] ? 4 : 5));  // msg, MSG
      CHECK(result.diagnostics.front().message.find(value) == std::string::npos);
    }
    CHECK(testing::RenderWithValues(stream, kManifest, {{"V", "djEuMi4z"}}).ok());  // v1.2.3
  }
  // A ConfigMap's `data` is text: as written.
  CHECK(testing::RenderWithValues("kind: ConfigMap\ndata: {msg: \"${V}\"}\n---\n" +
                                      Pod(script, "    - {name: MSG, valueFrom: {configMapKeyRef: {key: msg}}}\n"),
                                  kManifest, {{"V", "v1.2.3"}})
            .ok());
  // As kubelet runs it: the rendered entry, decoded, written at `$(MSG)`, prints itself under dash.
  const RenderResult taken = testing::RenderWithValues(streams[0], kManifest, {{"V", "djEuMi4z"}});
  REQUIRE(taken.ok());
  const std::size_t entry = taken.output.find("msg: ") + 5;
  std::string msg;
  REQUIRE(DecodeBase64(taken.output.substr(entry, taken.output.find('\n', entry) - entry), &msg));
  CHECK_MESSAGE(testing::HaveProgram("dash"), "dash is not installed");
  const testing::CommandResult ran =
      testing::RunShell("dash -c " + testing::ShellQuote(testing::kubelet::Expand("echo $(MSG)", {{"MSG", msg}})));
  CHECK(ran.out == "v1.2.3\n");
}

// Attacker s31 B8 (b): the Downward API hands the pod's annotation to MSG; the API server takes any text there.
TEST_CASE("carried env values: an annotation that a fieldRef takes") {
  const std::string deployment =
      "kind: Deployment\nspec:\n  template:\n    metadata:\n      annotations: {note: \"${V}\"}\n    spec:\n"
      "      containers:\n      - name: a\n        command: [sh, -c, \"echo $(MSG)\"]\n        env:\n"
      "        - name: MSG\n          valueFrom: {fieldRef: {fieldPath: \"metadata.annotations['note']\"}}\n";
  for (std::string_view value : {";touch canary", "$(touch canary)"}) {
    CAPTURE(value);
    const RenderResult result = testing::RenderWithValues(deployment, kManifest, {{"V", value}});
    REQUIRE_FALSE(result.ok());
    CHECK(result.diagnostics.front().location.line == 5);
  }
  CHECK(testing::RenderWithValues(deployment, kManifest, {{"V", "v1.2.3"}}).ok());
  // Another annotation, a label, or the pod's name: as written.
  for (std::string_view path : {"metadata.annotations['other']", "metadata.labels['note']", "metadata.name"}) {
    std::string other = deployment;
    other.replace(other.find("metadata.annotations['note']"), 28, path);
    CAPTURE(other);
    CHECK(testing::RenderWithValues(other, kManifest, {{"V", ";touch canary"}}).ok());
  }
}

// Each `$(BIG)` carries BIG and every item it names: 1,500 of them make 2.25 million checks, over the limit.
TEST_CASE("carried env values: past a million carried values the render refuses, at the reference") {
  auto pod = [](int references, int items) {
    std::string script, big, env;
    for (int i = 0; i < references; ++i) script += "echo $(BIG); ";
    for (int i = 0; i < items; ++i) {
      env += "    - {name: E" + std::to_string(i) + ", value: \"${V}\"}\n";
      big += "$(E" + std::to_string(i) + ")";
    }
    return Pod("command: [sh, -c, \"" + script + "\"]", env + "    - {name: BIG, value: \"" + big + "\"}\n");
  };
  const RenderResult many = testing::RenderWithValues(pod(1500, 1500), kManifest, {{"V", "abc"}});
  REQUIRE_FALSE(many.ok());
  CHECK(many.diagnostics.front().message.find("more than 1000000 times") != std::string::npos);
  CHECK(many.diagnostics.front().location.line == 5);
  CHECK(testing::RenderWithValues(pod(100, 100), kManifest, {{"V", "abc"}}).ok());
}

// Attacker A14 (s30): each item names the one before it twice, so following
// every name would visit E0 2^60 times; each item is followed once.
TEST_CASE("carried env values: a chain of items each naming the one before twice is read in linear time") {
  std::string env = "    - {name: E0, value: \"${V}\"}\n";
  for (int i = 1; i <= 60; ++i) {
    const std::string before = "$(E" + std::to_string(i - 1) + ")";
    env += "    - {name: E" + std::to_string(i) + ", value: \"" + before + before + "\"}\n";
  }
  const std::string pod = Pod("command: [sh, -c, \"echo $(E60)\"]", env);
  const RenderResult plain = testing::RenderWithValues(pod, kManifest, {{"V", "abc"}});
  CHECK(plain.ok());
  const RenderResult hostile = testing::RenderWithValues(pod, kManifest, {{"V", ";touch canary"}});
  CHECK_FALSE(hostile.ok());
}

}  // namespace safesubst
