// SPDX-License-Identifier: Apache-2.0
// The render and lint read the same scalars as shell scripts, run by the same
// shells: every scalar of every YAML file of the repository and of the YAML
// test suite is compared.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "classify.h"
#include "kubelet_oracle.h"
#include "lint_internal.h"
#include "real_shells.h"
#include "safesubst/render.h"
#include "safesubst/values.h"
#include "shell_script_scalars.h"
#include "test_support.h"
#include "text_checks.h"
#include "yaml_load.h"

namespace safesubst {
namespace {

namespace fs = std::filesystem;

// Each scalar of `text` that the render reads as a shell script, as its
// decoded value's first line and the shells: "sh" or "bash".
std::map<std::string, std::string> ShellScripts(const std::string& text) {
  Tokens tokens = Tokenize(text);
  REQUIRE(tokens.diagnostics.empty());
  Classify(text, Manifest{}, &tokens);
  std::map<std::string, std::string> scripts;
  for (const Scalar& scalar : tokens.scalars) {
    if (!scalar.is_shell) continue;
    CHECK(scalar.context == ContextClass::kScript);
    const std::string value = DecodeScalar(text, scalar);
    scripts[value.substr(0, value.find('\n'))] = scalar.bash_script ? "bash" : "sh";
  }
  return scripts;
}

TEST_CASE("shell script scalars: script file names") {
  for (const char* name : {"run.sh", "RUN.SH", "start.bash", "init.Bash", "a.ksh", "b.ZSH", ".sh"}) {
    CHECK_MESSAGE(IsShellScriptFileName(name), name);
  }
  for (const char* name : {"run", "run.shx", "run.sh.txt", "sh", "bash", "run.csh", "run.fish", "run_sh"}) {
    CHECK_MESSAGE(!IsShellScriptFileName(name), name);
  }
}

TEST_CASE("shell script scalars: every place of tests/data/k8s/shell-script-places.yaml") {
  const std::map<std::string, std::string> expected = {
      {"echo \"sh, no #!: dash, busybox ash and bash\"", "sh"},
      {"#!/bin/bash", "bash"},
      {"echo upper-case suffix", "sh"},
      {"echo zsh", "sh"},  // no #!: whatever runs it may be /bin/sh
      {"#!/bin/sh", "sh"},  // in a double-quoted scalar
      {"echo \"a Secret's stringData key\"", "sh"},
      {"export A=1", "sh"},
      {"echo init", "sh"},  // busybox sh
      {"echo job", "bash"},  // env bash -euo pipefail -c
      {"#!/usr/bin/env sh echo a folded single-quoted #! line", "sh"},
      {"echo pre-stop", "sh"},
      {"test -f /tmp/alive", "sh"},  // dash
      {"echo started", "bash"},      // zsh reads quotes as bash does
      {"echo debugging", "sh"},      // an ephemeral container
  };
  CHECK(ShellScripts(testing::ReadFile(testing::SourceDir() / "tests/data/k8s/shell-script-places.yaml")) == expected);
}

TEST_CASE("shell script scalars: a script file only in a ConfigMap's data or a Secret's stringData") {
  CHECK(ShellScripts("kind: Secret\ndata:\n  run.sh: ZWNobwo=\n").empty());  // base64
  CHECK(ShellScripts("kind: Deployment\ndata:\n  run.sh: echo\n").empty());
  CHECK(ShellScripts("kind: ConfigMap\nspec:\n  data:\n    run.sh: echo\n").empty());
  CHECK(ShellScripts("kind: ConfigMap\nstringData:\n  run.sh: echo\n").empty());
  CHECK(ShellScripts("kind: ConfigMap\ndata:\n  run.sh: echo\n") ==
        std::map<std::string, std::string>{{"echo", "sh"}});
  // The objects of a List are objects too.
  CHECK(ShellScripts("kind: List\nitems:\n  - kind: Secret\n    stringData:\n      run.sh: echo\n") ==
        std::map<std::string, std::string>{{"echo", "sh"}});
}

TEST_CASE("shell script scalars: a #! line naming a shell, in any style, decides") {
  using Scripts = std::map<std::string, std::string>;
  CHECK(ShellScripts("a: \"#!/bin/sh\\necho\"\n") == Scripts{{"#!/bin/sh", "sh"}});
  CHECK(ShellScripts("a: \"\\x23!/bin/bash\\necho\"\n") == Scripts{{"#!/bin/bash", "bash"}});  // an escape
  CHECK(ShellScripts("a: \"\\\n  #!/bin/sh\\necho\"\n") == Scripts{{"#!/bin/sh", "sh"}});  // an escaped break
  CHECK(ShellScripts("a: '#!/usr/bin/env bash'\n") == Scripts{{"#!/usr/bin/env bash", "bash"}});
  CHECK(ShellScripts("a: >\n  #!/bin/busybox sh\n\n  echo\n") == Scripts{{"#!/bin/busybox sh", "sh"}});
  CHECK(ShellScripts("a: \"#!/usr/bin/python3\\nprint()\"\n").empty());
  CHECK(ShellScripts("a: \" #!/bin/sh\"\n").empty());  // not the first character
  CHECK(ShellScripts("a: |\n  echo\n  #!/bin/sh\n").empty());
  CHECK(ShellScripts("\"#!/bin/sh\": x\n").empty());  // a key is never a script
  // The command line that runs a script names its shells before its #! does.
  CHECK(ShellScripts("command: [bash, -c, \"#!/bin/sh\\necho\"]\n") == Scripts{{"#!/bin/sh", "bash"}});
}

// The first line of each scalar of `text` marked as an interpreter's program (Scalar::exec_program).
std::vector<std::string> ProgramScalars(const std::string& text) {
  Tokens tokens = Tokenize(text);
  REQUIRE(tokens.diagnostics.empty());
  Classify(text, Manifest{}, &tokens);
  std::vector<std::string> programs;
  for (const Scalar& scalar : tokens.scalars) {
    if (!scalar.exec_program) continue;
    CHECK_FALSE(scalar.is_shell);
    const std::string value = DecodeScalar(text, scalar);
    programs.push_back(value.substr(0, value.find('\n')));
  }
  return programs;
}

TEST_CASE("shell script scalars: a #! line naming another interpreter makes a program file") {
  using Programs = std::vector<std::string>;
  CHECK(ProgramScalars("a: |\n  #!/usr/bin/env python3\n  print()\n") == Programs{"#!/usr/bin/env python3"});
  CHECK(ProgramScalars("a: \"#!/usr/bin/perl -w\\nprint 1\"\n") == Programs{"#!/usr/bin/perl -w"});
  // A value may name one, or make the `#!` line.
  CHECK(ProgramScalars("a: \"#!/usr/bin/env ${PY}\\nprint()\"\n") == Programs{"#!/usr/bin/env ${PY}"});
  CHECK(ProgramScalars("a: |\n  ${SHEBANG}\n  print()\n") == Programs{"${SHEBANG}"});
  CHECK(ProgramScalars("a: |\n  ${X}\n").empty());  // the value is the whole text
  CHECK(ProgramScalars("a: \"${X}\"\n").empty());
  CHECK(ProgramScalars("a: |\n  #!/app/run\n  x\n").empty());
  CHECK(ProgramScalars("a: |\n  #!/bin/sh\n  x\n").empty());
  // A shell script file stays one; so does a shell's script operand.
  CHECK(ProgramScalars("kind: ConfigMap\ndata:\n  x.sh: |\n    #!/usr/bin/python3\n    x\n").empty());
  CHECK(ProgramScalars("command: [sh, -c, \"#!/usr/bin/python3\\nprint()\"]\n").empty());
  // A ConfigMap's or Secret's file named for its language, with no `#!` line; not a Secret's base64 `data`.
  CHECK(ProgramScalars("kind: ConfigMap\ndata:\n  migrate.py: |\n    import os\n") == Programs{"import os"});
  CHECK(ProgramScalars("kind: Secret\nstringData:\n  app.js: \"x()\"\n") == Programs{"x()"});
  CHECK(ProgramScalars("kind: Secret\ndata:\n  app.js: eCgp\n").empty());
  CHECK(ProgramScalars("kind: Deployment\ndata:\n  app.js: x\n").empty());
  CHECK(ProgramScalars("kind: ConfigMap\ndata:\n  wp-config.php: x\n  app.py.tmpl: x\n").empty());
  CHECK(ProgramScalars("kind: ConfigMap\ndata:\n  run.py: |\n    #!/bin/sh\n    echo\n").empty());  // a shell script
}

// A hostile value in the places the rule newly covers is quoted for the
// shell or refused, never written raw: each rendered script is run under the
// shells that may run it, and must print the value back and touch nothing.
struct HostilePlace {
  std::string name;
  std::string text;  // ${V} stands in the one scalar holding `printf`
  bool kubelet_expands = false;  // a command, args or env item: kubelet reads it first
};

// The rendered script (the scalar holding `printf`), decoded.
std::string RenderedScript(const std::string& output) {
  const Tokens tokens = Tokenize(output);
  for (const Scalar& scalar : tokens.scalars) {
    const std::string value = DecodeScalar(output, scalar);
    if (value.find("printf") != std::string::npos) return value;
  }
  FAIL("no script in: " << output);
  return {};
}

TEST_CASE("shell script scalars: a hostile value in a newly covered place is quoted or refused, run by real shells") {
  const std::vector<HostilePlace> places = {
      {"Secret stringData run.BASH",
       "kind: Secret\nstringData:\n  run.BASH: |\n    printf '%s\\n' \"${V}\" '${V}'\n"},
      {"ConfigMap data start.Ksh, a flow scalar",
       "kind: ConfigMap\ndata:\n  start.Ksh: printf '%s\\n' \"${V}\" '${V}'\n"},
      {"an exec probe's sh -c",
       "kind: Pod\nspec:\n  containers:\n    - name: app\n      livenessProbe:\n        exec:\n"
       "          command: [sh, -c, \"printf '%s\\\\n' \\\"${V}\\\" '${V}'\"]\n",
       true},
      {"a #!/bin/sh line in a double-quoted scalar",
       "kind: ConfigMap\ndata:\n  hook: \"#!/bin/sh\\nprintf '%s\\\\n' \\\"${V}\\\" '${V}'\\n\"\n"},
      {"a #!/bin/sh line in an env value",
       "kind: Pod\nspec:\n  containers:\n    - name: app\n      env:\n        - name: HOOK\n"
       "          value: \"#!/bin/sh\\nprintf '%s\\\\n' \\\"${V}\\\" '${V}'\\n\"\n",
       true},
  };
  const std::vector<std::string> values = {"x; touch canary", "$(touch canary)", "`touch canary`",
                                           "'; touch canary; '", "\"; touch canary; \"", "a\nb\\ $HOME %s"};
  Result<Manifest> manifest = ParseManifest("variables:\n  V: string\n", "m.yaml");
  REQUIRE(manifest.ok());
  std::vector<std::string> scripts, expected;
  for (const HostilePlace& place : places) {
    CAPTURE(place.name);
    std::size_t encoded = 0;
    for (const std::string& value : values) {
      CAPTURE(value);
      ValueSet set;
      set.Set("V", Value{value, ValueSource::kCommandLine, Location{"--set"}});
      RenderOptions options;
      options.file_name = "t.yaml";
      const RenderResult result = Render(place.text, *manifest.value, set, options);
      if (!result.ok()) {  // refused: said where, nothing written
        REQUIRE_FALSE(result.diagnostics.empty());
        CHECK(result.diagnostics[0].location.line > 0);
        CHECK(result.output.empty());
        continue;
      }
      ++encoded;
      const std::string rendered = RenderedScript(result.output);
      scripts.push_back(place.kubelet_expands ? testing::kubelet::Expand(rendered, {}) : rendered);
      expected.push_back(value + "\n" + value + "\n");
    }
    CHECK(encoded >= 3);  // the double- and single-quoted places take any value
  }
  const std::vector<testing::RealShell> shells = testing::InstalledShells();
  testing::TempDir work;
  const std::vector<fs::path> directories = testing::RunEachScriptUnderShells(work.path(), shells, scripts);
  for (std::size_t s = 0; s < shells.size(); ++s) {
    CAPTURE(shells[s].name);
    const std::string canaries = testing::ReadFile(directories[s] / "canaries");
    CHECK_MESSAGE(canaries.empty(), "canaries after scripts " << canaries);
    for (std::size_t i = 0; i < scripts.size(); ++i) {
      CAPTURE(scripts[i]);
      CHECK(testing::ReadFile(directories[s] / ("out" + std::to_string(i))) == expected[i]);
    }
  }
  MESSAGE(scripts.size() << " scripts encoded, each run under " << shells.size() << " shells");
}

// What a reader makes of the scalars it reads as shell scripts, by the offset
// where the scalar starts (after its tag and anchor): "sh" (dash, busybox ash
// and bash) or "bash".
using ScriptReadings = std::map<std::size_t, std::string>;

ScriptReadings RenderReadings(const std::string& text) {
  Tokens tokens = Tokenize(text);
  Classify(text, Manifest{}, &tokens);
  ScriptReadings readings;
  for (const Scalar& scalar : tokens.scalars) {
    if (scalar.is_shell) readings[scalar.offset] = scalar.bash_script ? "bash" : "sh";
  }
  return readings;
}

// The scripts LintObject (lint.cc) checks: its pod's containers', then the rest.
void AddLintReadings(const lint::Node& document, const lint::Context& context, lint::VisitedCollections* visited,
                     ScriptReadings* readings) {
  if (!document.IsDefined() || document.IsNull() || !visited->FirstVisit(document)) return;
  if (document.IsMap() && lint::ScalarText(lint::Get(document, "kind")) == "List") {
    for (const lint::Node& item : lint::Get(document, "items").Items()) {
      AddLintReadings(item, context, visited, readings);
    }
    return;
  }
  auto add = [&](const lint::Script& script) {
    (*readings)[context.source.ScalarOffset(script.node)] = script.shells == ScriptShells::kBash ? "bash" : "sh";
  };
  lint::Pod pod;
  if (lint::ExtractPod(document, context, &pod)) {
    for (const lint::Container& container : pod.containers) {
      for (const lint::Script& script : container.scripts) add(script);
    }
  }
  for (const lint::Script& script : lint::ScriptsOutsidePod(document, pod, context)) add(script);
}

// Lint's readings, or false when lint does not read the text (not YAML for
// its readers, or YAML that yaml-cpp misreads: lint says so and checks nothing).
bool LintReadings(const std::string& text, ScriptReadings* readings) {
  if (HasErrors(CheckTextEncoding(text, "t.yaml"))) return false;
  lint::Source source(text, "t.yaml");
  if (!source.tokens().yaml_cpp_misreads.empty()) return false;
  detail::YamlStream stream;
  try {
    stream = lint::ReadDocuments(text);
  } catch (const std::exception&) {
    return false;
  }
  LintOptions options;
  lint::Context context{source, options, {}, {}};
  lint::VisitedCollections visited;
  for (std::uint32_t root : stream.documents) {
    AddLintReadings(detail::YamlRef(stream, root), context, &visited, readings);
  }
  return true;
}

std::string Describe(const std::string& text, const ScriptReadings& readings) {
  std::string out;
  for (const auto& [offset, shells] : readings) {
    const std::size_t line = static_cast<std::size_t>(std::count(text.begin(), text.begin() + offset, '\n')) + 1;
    out += "  line " + std::to_string(line) + " (offset " + std::to_string(offset) + "): " + shells + "\n";
  }
  return out.empty() ? "  none\n" : out;
}

struct Sweep {
  std::size_t files = 0, unread = 0, scalars = 0, scripts = 0;

  void Compare(const fs::path& path) {
    const std::string text = testing::ReadFile(path);
    ScriptReadings lint;
    if (!LintReadings(text, &lint)) {
      ++unread;
      return;
    }
    const ScriptReadings render = RenderReadings(text);
    ++files;
    scalars += Tokenize(text).scalars.size();
    scripts += render.size();
    CHECK_MESSAGE(render == lint, path.string() << "\nrender reads as shell scripts:\n"
                                                << Describe(text, render) << "lint reads as shell scripts:\n"
                                                << Describe(text, lint));
  }
};

bool IsYaml(const fs::path& path) { return path.extension() == ".yaml" || path.extension() == ".yml"; }

TEST_CASE("shell script scalars: render and lint agree on every scalar of examples/ and tests/data/") {
  Sweep sweep;
  for (const char* directory : {"examples", "tests/data"}) {
    std::vector<fs::path> files;
    for (const auto& entry : fs::recursive_directory_iterator(testing::SourceDir() / directory)) {
      if (entry.is_regular_file() && IsYaml(entry.path())) files.push_back(entry.path());
    }
    std::sort(files.begin(), files.end());
    for (const fs::path& path : files) sweep.Compare(path);
  }
  MESSAGE("compared " << sweep.scalars << " scalars (" << sweep.scripts << " shell scripts) of " << sweep.files
                      << " files; " << sweep.unread << " files are not YAML lint reads");
  CHECK(sweep.files > 80);
  CHECK(sweep.scripts > 70);
}

TEST_CASE("shell script scalars: render and lint agree on every scalar of the YAML test suite") {
  const fs::path suite = testing::YamlTestSuiteOrSkip();
  Sweep sweep;
  std::vector<fs::path> files;
  for (const auto& entry : fs::recursive_directory_iterator(suite)) {
    if (entry.is_regular_file() && entry.path().filename() == "in.yaml") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  for (const fs::path& path : files) sweep.Compare(path);
  MESSAGE("compared " << sweep.scalars << " scalars (" << sweep.scripts << " shell scripts) of " << sweep.files
                      << " test suite cases; " << sweep.unread << " are not YAML lint reads");
  CHECK(sweep.files > 250);
}

}  // namespace
}  // namespace safesubst
