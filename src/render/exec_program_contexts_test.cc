// SPDX-License-Identifier: Apache-2.0
// Values in the program text of an interpreter that a container's command
// line runs without a shell (exec_program_contexts.h). Each rendered
// command line is run as kubelet runs it: kubelet's `$(NAME)` expansion,
// then the items handed to the program as its arguments, each one exactly
// (the shell that starts it only passes single-quoted words on), under the
// real GNU sed, busybox, mawk, perl, python3, node and jq: a value written
// lands as data, and no hostile value runs.
#include "exec_program_contexts.h"

#include <doctest/doctest.h>

#include <filesystem>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "kubelet_oracle.h"
#include "render_support.h"
#include "test_support.h"
#include "yaml_load.h"
#include "yaml_tree.h"

namespace safesubst {
namespace {

constexpr std::string_view kManifest = "variables:\n  V: string\n  F: string\n";

RenderResult RenderWith(std::string_view text, std::string_view value, bool raw = false) {
  return testing::RenderWithValues(
      text, raw ? "variables:\n  V: {type: string, shell: raw}\n  F: {type: string, shell: raw}\n" : kManifest,
      {{"V", value}});
}

RenderResult RenderWithF(std::string_view text, std::string_view f, std::string_view v) {
  return testing::RenderWithValues(text, kManifest, {{"F", f}, {"V", v}});
}

std::string Pod(std::string_view container) {
  return "kind: Pod\nspec:\n  containers:\n  - name: a\n    " + std::string(container) + "\n";
}

// The command line of the one container, probe or hook in `yaml` (its
// `command` items, then its `args` items), as the program receives it:
// kubelet expands `$(NAME)` in a container's and a probe's, not a hook's.
std::vector<std::string> ArgvOf(const std::string& yaml) {
  detail::YamlStream stream;
  detail::YamlParseError error;
  REQUIRE(detail::ParseYamlStream(yaml, &stream, &error));
  std::vector<std::string> argv;
  std::function<void(std::uint32_t, bool)> walk = [&](std::uint32_t index, bool hook) {
    const detail::YamlNode& node = stream.nodes[index];
    if (node.kind == detail::YamlNode::Kind::kSequence) {
      for (std::uint32_t child : node.children) walk(child, hook);
      return;
    }
    if (node.kind != detail::YamlNode::Kind::kMapping) return;
    for (std::size_t k = 0; k + 1 < node.children.size(); k += 2) {
      const std::string& key = stream.nodes[node.children[k]].text;
      const detail::YamlNode& value = stream.nodes[node.children[k + 1]];
      if ((key == "command" || key == "args") && value.kind == detail::YamlNode::Kind::kSequence) {
        for (std::uint32_t item : value.children) {
          const std::string& text = stream.nodes[item].text;
          argv.push_back(hook ? text : testing::kubelet::Expand(text, {}));
        }
      } else {
        walk(node.children[k + 1], hook || key == "lifecycle");
      }
    }
  };
  walk(stream.documents.at(0), false);
  return argv;
}

// Command lines with a placeholder in the program; each prints the value
// (sed: `hello` replaced in f.txt, which holds `hello`).
constexpr std::string_view kLines[] = {
    R"y(command: [python3, -c, "print('${V}')"])y",
    R"y(command: [python3, -c, "print(f'${V}')"])y",
    R"y(command: [/usr/bin/env, python3, -c, "print(\"${V}\")"])y",
    R"y(command: [perl]
    args: [-le, "print '${V}'"])y",
    R"y(command: [perl, -le, "print \"${V}\""])y",
    R"y(command: [node, -e, "console.log('${V}')"])y",
    R"y(command: [node, -p, "`${V}`"])y",
    R"y(command: [sed, -e, "s/hello/${V}/", f.txt])y",
    R"y(command: [sed, "s|hello|${V}|", f.txt])y",
    R"y(command: [busybox, sed, "s/hello/${V}/", f.txt])y",
    R"y(command: [awk, "BEGIN { print \"${V}\" }"])y",
    R"y(command: [jq, -rn, "\"${V}\""])y",
    R"y(command: [./entrypoint.sh, python3, -c, "print('${V}')"])y",
    R"y(livenessProbe: {exec: {command: [python3, -c, "print('${V}')"]}})y",
    R"y(lifecycle: {postStart: {exec: {command: [perl, -le, "print '${V}'"]}}})y",
};

// Taken in every line; values some lines refuse; the attacker's kind.
constexpr std::string_view kBenign[] = {"v1.2.3", "my-app", "10.0.0.1", "hello world", "Hello_World-42"};
constexpr std::string_view kOrdinary[] = {"https://x.example/a?b=1&c=2", "a:b@c%d+e,f=g", "O'Brien", "50%",
                                          "$(HOME)"};
constexpr std::string_view kHostile[] = {
    "x/;e touch canary #",
    "x|;e touch canary #",
    "x\ne touch canary",
    "\"; system(\"touch canary\"); \"",
    "'; system('touch canary'); '",
    "@{[system('touch canary')]}",
    "'); import os; os.system('touch canary'); ('",
    "\"); import os; os.system('touch canary'); (\"",
    "{__import__('os').system('touch canary')}",
    "'); require('child_process').execSync('touch canary'); ('",
    "${require('child_process').execSync('touch canary')}",
    "`); require('child_process').execSync('touch canary'); (`",
    "a\\'; system('touch canary'); #",
    "}; system('touch canary'); q{",
};

struct Run {
  std::vector<std::string> argv;
  std::string value;
  std::string program_file;  // written as the executable `./prog` when not empty
};

// Runs each command line in a directory of its own; returns the directories.
std::vector<std::filesystem::path> RunAll(const std::filesystem::path& work, const std::vector<Run>& runs) {
  std::string script;
  std::vector<std::filesystem::path> directories;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const std::filesystem::path directory = work / ("run" + std::to_string(i));
    std::filesystem::create_directories(directory);
    testing::WriteFile(directory / "f.txt", "hello\n");
    testing::WriteFile(directory / "entrypoint.sh", "#!/bin/sh\nexec \"$@\"\n");  // as images' entrypoints do
    std::filesystem::permissions(directory / "entrypoint.sh", std::filesystem::perms::owner_all);
    if (!runs[i].program_file.empty()) {
      testing::WriteFile(directory / "prog", runs[i].program_file);
      std::filesystem::permissions(directory / "prog", std::filesystem::perms::owner_all);
    }
    std::string words;
    for (const std::string& word : runs[i].argv) words += " " + testing::ShellQuote(word);
    script += "(cd " + testing::ShellQuote(directory.string()) + " &&" + words + " >out 2>err </dev/null) &\n";
    directories.push_back(directory);
  }
  testing::WriteFile(work / "all.sh", script + "wait\n");
  testing::RunShell("sh " + testing::ShellQuote((work / "all.sh").string()));
  return directories;
}

// Runs each of `runs`: none touches the canary, each prints its value.
void CheckPrintedAsData(const std::vector<Run>& runs) {
  testing::TempDir work;
  const std::vector<std::filesystem::path> directories = RunAll(work.path(), runs);
  for (std::size_t i = 0; i < runs.size(); ++i) {
    CAPTURE(runs[i].argv);
    CAPTURE(runs[i].program_file);
    CHECK_FALSE(std::filesystem::exists(directories[i] / "canary"));
    CHECK(testing::ReadFile(directories[i] / "out") == runs[i].value + "\n");
  }
}

// The program file of `yaml`: the value of its `prog.py`, `script` or `source`.
std::string ProgramFileOf(const std::string& yaml) {
  detail::YamlStream stream;
  detail::YamlParseError error;
  REQUIRE(detail::ParseYamlStream(yaml, &stream, &error));
  for (const detail::YamlNode& node : stream.nodes) {
    if (node.kind != detail::YamlNode::Kind::kMapping) continue;
    for (std::size_t k = 0; k + 1 < node.children.size(); k += 2) {
      const std::string& key = stream.nodes[node.children[k]].text;
      const detail::YamlNode& value = stream.nodes[node.children[k + 1]];
      const bool named = key == "prog.py" || key == "script" || key == "source";
      if (named && value.kind == detail::YamlNode::Kind::kScalar) return value.text;
    }
  }
  FAIL("no program file in the output");
  return {};
}

// How the program file is run: by its `#!` line, else by the interpreter its name says.
std::vector<std::string> ProgramArgv(std::string_view program) {
  if (program.starts_with("#!")) return {"./prog", "f.txt"};
  return {"python3", "./prog", "f.txt"};
}

// Program files, each printing the value as its own line (sed: `hello` of f.txt replaced), in the
// objects that hold them: a ConfigMap's file, a Tekton step's script, an Argo template's source.
// A ConfigMap's file `prog.py` without a `#!` line is run as `python3 prog.py` (ProgramArgv).
constexpr std::string_view kProgramFiles[] = {
    "import sys\nsys.stdout.write('${V}' + chr(10))",
    "#!/usr/bin/env python3\nprint('${V}')",
    "#!/usr/bin/python3\nimport sys\nsys.stdout.write(\"%s\\n\" % \"${V}\")",
    "#!/usr/bin/perl -w\nprint \"${V}\\n\";",
    "#!/usr/bin/env -S perl -l\nprint '${V}';",
    "#!/usr/bin/env node\nconsole.log('${V}');",
    "#!/usr/bin/mawk -f\nBEGIN { print \"${V}\" }",
    "#!/bin/sed -f\ns/hello/${V}/",
};

std::string InObject(std::size_t shape, std::string_view program) {
  auto block = [&](std::string_view indent) {
    std::string text;
    for (std::size_t at = 0; at < program.size();) {
      const std::size_t end = std::min(program.find('\n', at), program.size());
      text += std::string(indent) + std::string(program.substr(at, end - at)) + "\n";
      at = end + 1;
    }
    return text;
  };
  switch (shape % 3) {
    case 0: return "kind: ConfigMap\ndata:\n  prog.py: |\n" + block("    ");  // a `#!` line wins over the name
    case 1: return "kind: Task\nspec:\n  steps:\n  - name: a\n    image: x\n    script: |\n" + block("      ");
    default: return "kind: WorkflowTemplate\nspec:\n  templates:\n  - name: a\n    script:\n      source: |\n" +
                    block("        ");
  }
}

}  // namespace

TEST_CASE("program files: a #! line naming an interpreter, or a ConfigMap file name, makes the scalar its program (attacker s30 A16)") {
  for (const char* tool : {"sed", "mawk", "perl", "python3", "node"}) {
    CHECK_MESSAGE(testing::HaveProgram(tool), tool << " is not installed (packaging/debian-test-deps.txt)");
  }
  std::vector<Run> runs;
  for (std::size_t i = 0; i < std::size(kProgramFiles); ++i) {
    const std::string text = InObject(i, kProgramFiles[i]);
    CAPTURE(text);
    using Values = std::span<const std::string_view>;
    for (Values values : {Values(kBenign), Values(kOrdinary), Values(kHostile)}) {
      for (std::string_view value : values) {
        CAPTURE(value);
        const RenderResult result = RenderWith(text, value);
        if (!result.ok()) {
          CHECK(values.data() != kBenign);
          CHECK(result.diagnostics.front().message.find(value) == std::string::npos);
          CHECK(result.diagnostics.front().location.line > 3);
          continue;
        }
        runs.push_back({ProgramArgv(kProgramFiles[i]), std::string(value), ProgramFileOf(result.output)});
        // A benign value is written as it is, but for sed's escapes (`\.` is `.` in a replacement).
        std::string expected = text;
        expected.replace(expected.find("${V}"), 4, value);
        if (values.data() == kBenign && text.find("sed") == std::string::npos) CHECK(result.output == expected);
      }
    }
  }
  CheckPrintedAsData(runs);
}

TEST_CASE("program files: written as is (shell: raw), the attacker's values run") {
  const std::pair<std::string_view, std::string_view> cases[] = {
      {"#!/usr/bin/env python3\nprint('migrating ${V}')", "'+__import__('os').system('touch canary')+'"},
      {"#!/usr/bin/perl\nprint \"checking ${V}\\n\";", "\";system(\"touch canary\");\""},
      {"#!/usr/bin/env node\nconsole.log('${V}');", "'); require('child_process').execSync('touch canary'); ('"},
      {"#!/usr/bin/mawk -f\nBEGIN { print \"${V}\" }", "\"; system(\"touch canary\"); \""},
      // (sed's plain replacement escapes any value; the e flag makes it code.)
      {"#!/bin/sed -f\ns/hello/${V}/e", "touch canary"},
  };
  std::vector<Run> runs;
  for (std::size_t i = 0; i < std::size(cases); ++i) {
    const std::string text = InObject(i, cases[i].first);
    CAPTURE(text);
    CHECK_FALSE(RenderWith(text, cases[i].second).ok());
    const RenderResult raw = RenderWith(text, cases[i].second, /*raw=*/true);
    REQUIRE(raw.ok());
    runs.push_back({{"./prog", "f.txt"}, std::string(cases[i].second), ProgramFileOf(raw.output)});
  }
  testing::TempDir work;
  for (const std::filesystem::path& directory : RunAll(work.path(), runs)) {
    CHECK(std::filesystem::exists(directory / "canary"));
  }
}

TEST_CASE("program files: which interpreter, and what is left alone") {
  // A value naming the interpreter: the program is read with it in.
  CHECK_FALSE(RenderWithF("kind: ConfigMap\ndata:\n  p: |\n    #!/usr/bin/${F}\n    print('${V}')\n", "python3",
                          "x'+__import__('os').system('touch canary')+'").ok());
  CHECK(RenderWithF("kind: ConfigMap\ndata:\n  p: |\n    #!/usr/bin/${F}\n    print('${V}')\n", "python3",
                    "Hello, world").ok());
  // A value that makes the `#!` line.
  const std::string_view formed = "kind: ConfigMap\ndata:\n  p: |\n    ${F}\n    print('${V}')\n";
  CHECK_FALSE(RenderWithF(formed, "#!/usr/bin/python3", "x'+__import__('os').system('touch canary')+'").ok());
  CHECK(RenderWithF(formed, "#!/usr/bin/python3", "Hello, world").ok());
  CHECK(RenderWithF(formed, "# a comment", "x'+__import__('os').system('touch canary')+'").ok());
  // Languages without a scanner (ruby): only a decimal integer.
  CHECK_FALSE(RenderWith("kind: ConfigMap\ndata:\n  p: |\n    #!/usr/bin/env ruby\n    puts '${V}'\n", "hello").ok());
  CHECK(RenderWith("kind: ConfigMap\ndata:\n  p: |\n    #!/usr/bin/env ruby\n    puts '${V}'\n", "42").ok());
  // No interpreter named, or not on the first line: opaque text, as before.
  for (std::string_view text : {"kind: ConfigMap\ndata:\n  p: |\n    #!/app/run\n    '${V}'\n",
                                "kind: ConfigMap\ndata:\n  p: |\n    # python3\n    #!/usr/bin/python3\n    '${V}'\n",
                                "kind: ConfigMap\ndata:\n  p: |\n    print('${V}')\n"}) {
    CAPTURE(text);
    CHECK(RenderWith(text, "x'+__import__('os').system('touch canary')+'").ok());
  }
  // A ConfigMap's file named for its language, without a `#!` line.
  const std::string_view migrate = "kind: ConfigMap\ndata:\n  migrate.py: |\n    print('migrating ${V}')\n";
  CHECK_FALSE(RenderWith(migrate, "'+__import__('os').system('touch canary')+'").ok());
  CHECK(RenderWith(migrate, "Hello, world").ok());
  CHECK(RenderWith("kind: ConfigMap\ndata:\n  wp-config.php: |\n    define('DB_HOST', '${V}');\n", "db:3306").ok());
  // A flow scalar is a program file too.
  CHECK_FALSE(RenderWith("kind: ConfigMap\ndata:\n  p: \"#!/usr/bin/python3\\nprint('${V}')\"\n", "x'y").ok());
}

TEST_CASE("exec-form programs: under the real interpreters, a value written lands as data and none runs") {
  for (const char* tool : {"sed", "busybox", "awk", "perl", "python3", "node", "jq"}) {
    CHECK_MESSAGE(testing::HaveProgram(tool), tool << " is not installed (packaging/debian-test-deps.txt)");
  }
  std::vector<Run> runs;
  for (std::string_view line : kLines) {
    CAPTURE(line);
    auto add = [&](std::string_view value) {
      const RenderResult result = RenderWith(Pod(line), value);
      if (!result.ok()) {
        CHECK(result.diagnostics.front().message.find(value) == std::string::npos);
        CHECK(result.diagnostics.front().location.line == (line.find('\n') == std::string_view::npos ? 5 : 6));
        return false;
      }
      runs.push_back({ArgvOf(result.output), std::string(value), {}});
      return true;
    };
    // Every benign value is written; the others may be refused.
    using Values = std::span<const std::string_view>;
    for (Values values : {Values(kBenign), Values(kOrdinary), Values(kHostile)}) {
      for (std::string_view value : values) {
        CAPTURE(value);
        const bool written = add(value);
        if (values.data() == kBenign) CHECK(written);
      }
    }
  }
  CheckPrintedAsData(runs);
}

TEST_CASE("exec-form programs: written as is (shell: raw), the attacker's values run") {
  // Why the rule exists: each of these ran the value on main before it.
  const std::pair<std::string_view, std::string_view> cases[] = {
      {R"y(command: [python3, -c, "print('${V}')"])y", "'); import os; os.system('touch canary'); ('"},
      // (sed's plain replacement now escapes any value: b477363; the e flag makes it code.)
      {R"y(command: [sed, -e, "s/hello/${V}/e", f.txt])y", "touch canary"},
      {R"y(command: [perl]
    args: [-e, "print '${V}'"])y", "'; system('touch canary'); '"},
      {R"y(command: [node, -e, "console.log('${V}')"])y", "'); require('child_process').execSync('touch canary'); ('"},
      {R"y(command: [awk, "BEGIN { print \"${V}\" }"])y", "\"; system(\"touch canary\"); \""},
  };
  std::vector<Run> runs;
  for (auto [line, value] : cases) {
    CAPTURE(line);
    CHECK_FALSE(RenderWith(Pod(line), value).ok());
    const RenderResult raw = RenderWith(Pod(line), value, /*raw=*/true);
    REQUIRE(raw.ok());
    runs.push_back({ArgvOf(raw.output), std::string(value), {}});
  }
  testing::TempDir work;
  for (const std::filesystem::path& directory : RunAll(work.path(), runs)) {
    CHECK(std::filesystem::exists(directory / "canary"));
  }
}

TEST_CASE("exec-form programs: ordinary command lines render byte for byte") {
  for (auto [line, value] : std::vector<std::pair<std::string_view, std::string_view>>{
           {R"y(command: [python3, -c, "print('hello')"])y", "1.2.3"},
           {R"y(command: [python3, -c, "print('${V}')"])y", "1.2.3"},
           {R"y(command: ["perl", "-e", "print qq{${V}\n}"])y", "Hello, world"},
           {R"y(command: ["perl", "-le", "print q{${V}}"])y", "https://x.example/a?b=1&c=2"},
           {R"y(command: [python3, /app/main.py, --url, "${V}"])y", "https://x.example/a?b=1&c=2"},
           {R"y(command: [python3, /app/main.py, "${V}"])y", "--verbose"},
           {R"y(command: [sed, -i, "s/VERSION/${V}/", /etc/app.conf])y", "v1.2.3"},
           {R"y(command: [node, server.js, --host, "${V}"])y", "db.example.com"},
           {R"y(command: [jq, -r, .version, "${V}"])y", "/data/app.json"},
           {R"y(command: [/app/server, --python, "${V}"])y", "x'y"},
       }) {
    CAPTURE(line);
    const RenderResult result = RenderWith(Pod(line), value);
    REQUIRE(result.ok());
    std::string expected = Pod(line);
    if (const std::size_t at = expected.find("${V}"); at != std::string::npos) expected.replace(at, 4, value);
    CHECK(result.output == expected);
  }
}

TEST_CASE("exec-form programs: the string env -S splits and runs takes only a decimal integer") {
  // (attacker s30 A1) env -S re-splits the item with its own quoting and runs the shell in it.
  for (std::string_view line : {R"y(command: [env, -S, "sh -c 'echo ${V}'"])y",
                                R"y(command: [/usr/bin/env, "--split-string=sh -c 'echo ${V}'"])y",
                                R"y(command: [tini, --, env, -vS, "echo ${V}"])y"}) {
    CAPTURE(line);
    CHECK_FALSE(RenderWith(Pod(line), "$(touch canary)").ok());
    CHECK_FALSE(RenderWith(Pod(line), "hello").ok());
    CHECK(RenderWith(Pod(line), "42").ok());
  }
  CHECK(RenderWith(Pod(R"y(command: [env, A=1, /app/run, "${V}"])y"), "hello world").ok());
}

TEST_CASE("exec-form programs: a value on the #! line of a scalar that is no shell script") {
  const std::string file = "kind: ConfigMap\ndata:\n  run: |\n    #!/usr/bin/env -S python3 -c print(\"${V}\")\n";
  CHECK_FALSE(RenderWith(file, "x\");__import__(\"os\").system(\"touch canary\");(\"").ok());
  CHECK_FALSE(RenderWith(file, "hello").ok());
  CHECK(RenderWith(file, "42").ok());
  CHECK(RenderWith("kind: ConfigMap\ndata:\n  run: |\n    #!${V}\n    print(1)\n", "/usr/bin/python3").ok());
  CHECK_FALSE(RenderWith("kind: ConfigMap\ndata:\n  run: |\n    #!${V}\n    print(1)\n", "/usr/bin/env -S x").ok());
  // Below the `#!` line, and in a shell script's `#!` line (a comment, never substituted), nothing changes.
  CHECK(RenderWith("kind: ConfigMap\ndata:\n  run: |\n    #!/usr/bin/python3\n    print('${V}')\n", "hello").ok());
  CHECK(RenderWith("kind: ConfigMap\ndata:\n  run: |\n    #!/usr/bin/env -S sh -c 'echo ${V}'\n", "$(x)").ok());
}

TEST_CASE("exec-form programs: a value that decides which item is the program is checked as code") {
  // F turns the next item, or its own, into program text.
  CHECK_FALSE(RenderWithF(Pod(R"y(command: [python3, "${F}", "print('${V}')"])y"), "-c", "x'); import os; ('").ok());
  CHECK_FALSE(RenderWithF(Pod(R"y(command: [sed, -e, "s/a/b/", "${F}"])y"), "--expression=1e touch canary", "x").ok());
  CHECK_FALSE(RenderWithF(Pod(R"y(command: [perl, "${F}"])y"), "-esystem('touch canary')", "x").ok());
  // The interpreter named by a value: its program is read with the value in.
  CHECK_FALSE(RenderWithF(Pod(R"y(command: ["${F}", -c, "print('${V}')"])y"), "python3",
                          "x'); import os; os.system('touch canary'); ('").ok());
  CHECK(RenderWithF(Pod(R"y(command: ["${F}", -c, "print('${V}')"])y"), "python3", "1.2.3").ok());
  CHECK(RenderWithF(Pod(R"y(command: ["${F}", /app/main.py, "${V}"])y"), "python3", "x'y").ok());
  // Operands of the program after it: no option any more.
  CHECK(RenderWithF(Pod(R"y(command: [python3, app.py, "${F}", "${V}"])y"), "-c", "x'y").ok());
  CHECK(RenderWithF(Pod(R"y(command: [python3, -c, "print(1)", "${F}"])y"), "--verbose", "x").ok());
}

}  // namespace safesubst
