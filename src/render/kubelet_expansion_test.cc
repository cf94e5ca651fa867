// SPDX-License-Identifier: Apache-2.0
// Values that Kubernetes would expand (SPEC Rule 3, issue 24 item 6). kubelet
// expands `$(NAME)` in env values, command and args (and subPathExpr); the test writes its rule
// out as an oracle (Expand) and checks, for hostile values in every place
// kubelet expands, that kubelet's reading of the rendered scalar is the
// template's own reading with the value in it, as it is. Where the scalar is
// also a `sh -c` script, the expanded script is RUN under the real shells and
// must print the value back byte-exact, with no canary.
#include "kubelet_expansion.h"

#include <doctest/doctest.h>

#include <cstddef>
#include <filesystem>
#include <map>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "kubelet_oracle.h"
#include "real_shells.h"
#include "safesubst/manifest.h"
#include "safesubst/render.h"
#include "safesubst/values.h"
#include "test_support.h"
#include "yaml_load.h"
#include "yaml_tree.h"

namespace safesubst {
namespace {

using testing::kubelet::Environment;
using testing::kubelet::Expand;

const Environment& ContainerEnvironment() {
  static const Environment environment = {{"POD_IP", "10.1.2.3"}, {"X", "expanded-X"}, {"V", "expanded-V"}};
  return environment;
}

TEST_CASE("kubelet expansion: the oracle reads as Kubernetes' own expansion tests say") {
  const Environment environment = {{"VAR_A", "A"}, {"VAR_B", "B"}, {"VAR_EMPTY", ""}};
  const std::vector<std::pair<std::string_view, std::string_view>> cases = {
      {"$(VAR_A)", "A"},
      {"___$(VAR_B)___", "___B___"},
      {"$(VAR_A)-$(VAR_A)", "A-A"},
      {"f000-$$VAR_A", "f000-$VAR_A"},
      {"$$(VAR_A)", "$(VAR_A)"},
      {"$$$(VAR_A)", "$A"},
      {"$$$$$$(BIG_MONEY)", "$$$(BIG_MONEY)"},
      {"$(VAR_EMPTY)", ""},
      {"$(VAR_DNE)", "$(VAR_DNE)"},
      {"$(VAR_A", "$(VAR_A"},
      {"$(VAR_A$(VAR_B)", "$(VAR_A$(VAR_B)"},
      {"$()", "$()"},
      {"$", "$"},
      {"$$", "$"},
      {"foo$", "foo$"},
      {"$VAR_A", "$VAR_A"},
      {"$((1+1))", "$((1+1))"},
      {"$(($(VAR_A)", "$(($(VAR_A)"},
  };
  for (const auto& [input, expected] : cases) {
    CAPTURE(input);
    CHECK(Expand(input, environment) == expected);
  }
}

// Values kubelet reads specially, alone and next to any text, and values a
// shell would run.
const std::vector<std::string>& HostileValues() {
  static const std::vector<std::string> values = {
      "plain-1.2", "$(", "$$(", "$", "$$", "$$$", "a$", "a$$", "$a", "$(X)", "$$(X)", "$$$(X)", "$(X)$", "$(X",
      "$((1+1))", "$(POD_IP)", "$(V)", "${X}", "$X", "$)", ")(", ")", "(", "$ ( X )", "'$(X)'", "\"$(X)\"",
      "\\$(X)", "\\", "x$(X)y$$(X)z$", "line1\nline2 $(X)", "$(X)\n", "$(touch canary)", "`touch canary`",
      "; touch canary", "a b", "100% #1: x",
  };
  return values;
}

RenderResult RenderWith(const std::string& yaml, const std::string& value, bool full_structure_check) {
  static const Manifest manifest = *ParseManifest("variables:\n  V: string\n", "m.yaml").value;
  ValueSet values;
  values.Set("V", Value{value, ValueSource::kCommandLine, Location{"--set"}});
  RenderOptions options;
  options.file_name = "t.yaml";
  options.full_structure_check = full_structure_check;
  return Render(yaml, manifest, values, options);
}

// The decoded scalar at `path` (mapping keys and sequence indexes) of the
// only document of `yaml`, or "<not found>".
std::string ScalarAt(const std::string& yaml, const std::vector<std::string>& path) {
  detail::YamlStream stream;
  detail::YamlParseError error;
  if (!detail::ParseYamlStream(yaml, &stream, &error) || stream.documents.size() != 1) return "<not parsed>";
  std::uint32_t node = stream.documents[0];
  for (const std::string& step : path) {
    const detail::YamlNode& at = stream.nodes[node];
    bool found = false;
    if (at.kind == detail::YamlNode::Kind::kSequence) {
      std::size_t index = std::stoul(step);
      found = index < at.children.size();
      if (found) node = at.children[index];
    } else if (at.kind == detail::YamlNode::Kind::kMapping) {
      for (std::size_t k = 0; k + 1 < at.children.size() && !found; k += 2) {
        found = stream.nodes[at.children[k]].text == step;
        if (found) node = at.children[k + 1];
      }
    }
    if (!found) return "<not found>";
  }
  return stream.nodes[node].kind == detail::YamlNode::Kind::kScalar ? stream.nodes[node].text : "<not a scalar>";
}

// Renders `yaml` with V = `value` under both structure checks (the token
// proof and the yaml-cpp tree comparison read each value back): same output.
RenderResult RenderBothWays(const std::string& yaml, const std::string& value) {
  RenderResult by_tokens = RenderWith(yaml, value, false);
  RenderResult by_trees = RenderWith(yaml, value, true);
  CHECK(by_tokens.ok() == by_trees.ok());
  CHECK(by_tokens.output == by_trees.output);
  return by_tokens;
}

std::string FirstMessage(const RenderResult& result) {
  return result.diagnostics.empty() ? "" : result.diagnostics[0].message;
}

// ---- data: env values, command and args items -------------------------------

// A place kubelet expands: `@` is where the scalar is written, `path` finds it.
struct Placement {
  std::string_view id;
  std::string_view yaml;
  std::vector<std::string> path;
  char style;  // how the scalar is written: 'p'lain, 's'ingle-, 'd'ouble-quoted, 'l'iteral block
};

const std::vector<Placement>& DataPlacements() {
  static const std::vector<Placement> placements = {
      {"env value, plain", "spec:\n  containers:\n    - name: a\n      env:\n        - name: OUT\n          value: @\n",
       {"spec", "containers", "0", "env", "0", "value"}, 'p'},
      {"env value, single-quoted",
       "spec:\n  containers:\n    - name: a\n      env:\n        - {name: A, value: x}\n        - name: OUT\n"
       "          value: @\n",
       {"spec", "containers", "0", "env", "1", "value"}, 's'},
      {"env value, double-quoted, init container",
       "spec:\n  initContainers:\n    - env: [{name: OUT, value: @}]\n",
       {"spec", "initContainers", "0", "env", "0", "value"}, 'd'},
      {"env value, literal block, ephemeral container",
       "spec:\n  ephemeralContainers:\n    - env:\n        - name: OUT\n          value: |\n            @\n",
       {"spec", "ephemeralContainers", "0", "env", "0", "value"}, 'l'},
      {"command item, flow double-quoted",
       "spec:\n  template:\n    spec:\n      containers:\n        - command: [\"/app\", @]\n",
       {"spec", "template", "spec", "containers", "0", "command", "1"}, 'd'},
      {"volume mount subPathExpr, plain",
       "spec:\n  containers:\n    - volumeMounts:\n        - name: data\n          subPathExpr: @\n",
       {"spec", "containers", "0", "volumeMounts", "0", "subPathExpr"}, 'p'},
      {"args item, block sequence, CronJob",
       "kind: CronJob\nspec:\n  jobTemplate:\n    spec:\n      template:\n        spec:\n          containers:\n"
       "            - args:\n                - --flag\n                - @\n",
       {"spec", "jobTemplate", "spec", "template", "spec", "containers", "0", "args", "1"}, 'p'},
  };
  return placements;
}

// Template text around the placeholder: the kubelet references of the
// template, and text that a value's last `$` would join.
const std::vector<std::pair<std::string, std::string>>& Frames() {
  static const std::vector<std::pair<std::string, std::string>> frames = {
      {"", ""}, {"$(POD_IP)/", "/$(POD_IP)"}, {"$$", "(x)"}, {"a(", "$$(X)"}, {"", "$(X)"}, {"$(X)", "$"},
  };
  return frames;
}

std::string WriteScalar(const std::string& content, char style) {
  switch (style) {
    case 's':
      return "'" + content + "'";
    case 'd':
      return "\"" + content + "\"";
    case 'l':
      return content;  // the placement holds the `|` and the indentation
    default:
      return content;
  }
}

std::string Placed(std::string_view yaml, const std::string& scalar) {
  std::string out(yaml);
  out.replace(out.find('@'), 1, scalar);
  return out;
}

// A value ending in a line break, last in a literal block, is refused by the
// structure check whatever its bytes (not a kubelet matter: the block's
// chomping would drop the break). Left out there, and counted.
bool EndsBlock(const Placement& placement, const std::string& after, const std::string& value) {
  return placement.style == 'l' && after.empty() && !value.empty() && value.back() == '\n';
}

TEST_CASE("kubelet expansion: a value in env values, command and args reaches the container as it is") {
  std::size_t checked = 0, left_out = 0;
  for (const Placement& placement : DataPlacements()) {
    for (const auto& [before, after] : Frames()) {
      const std::string yaml = Placed(placement.yaml, WriteScalar(before + "${V}" + after, placement.style));
      for (const std::string& value : HostileValues()) {
        if (EndsBlock(placement, after, value)) {
          ++left_out;
          continue;
        }
        CAPTURE(placement.id);
        CAPTURE(yaml);
        CAPTURE(value);
        RenderResult result = RenderBothWays(yaml, value);
        REQUIRE_MESSAGE(result.ok(), FirstMessage(result));
        const std::string scalar = ScalarAt(result.output, placement.path);
        const std::string intended = Expand(before, ContainerEnvironment()) + value +
                                     Expand(after, ContainerEnvironment()) + (placement.style == 'l' ? "\n" : "");
        CHECK(Expand(scalar, ContainerEnvironment()) == intended);
        ++checked;
      }
    }
  }
  MESSAGE("kubelet expansion, data: " << HostileValues().size() << " values x " << DataPlacements().size()
                                      << " placements x " << Frames().size() << " frames: " << checked
                                      << " renders, each read back by the oracle; " << left_out
                                      << " left out (a line break ending a literal block)");
}

// ---- shell scripts: the `-c` operand of `sh` ---------------------------------

// Where the script is written: `@` stands for it, in the style given.
struct ScriptPlacement {
  std::string_view id;
  std::string_view yaml;
  std::vector<std::string> path;
  char style;
};

const std::vector<ScriptPlacement>& ScriptPlacements() {
  static const std::vector<ScriptPlacement> placements = {
      {"args item, literal block", "spec:\n  containers:\n    - command: [sh, -c]\n      args:\n        - |\n          @\n",
       {"spec", "containers", "0", "args", "0"}, 'l'},
      {"command item, double-quoted", "spec:\n  containers:\n    - command: [\"/bin/sh\", \"-ec\", @]\n",
       {"spec", "containers", "0", "command", "2"}, 'd'},
  };
  return placements;
}

// The quoting state at the placeholder: code that prints the value with
// `before` and `after` around it, then `|`.
struct ScriptState {
  std::string_view id;
  std::string_view code;
  std::string_view before, after;
  bool refuses_close_paren = false;  // the placeholder is inside a `$(...)`, which kubelet reads too
  bool shell_may_refuse = false;     // the shell encoding refuses some values here
};

const std::vector<ScriptState>& ScriptStates() {
  static const std::vector<ScriptState> states = {
      {"unquoted", "printf '%s|' ${V}", "", "", false, true},
      {"double-quoted", "printf '%s|' \"${V}\"", "", ""},
      {"single-quoted", "printf '%s|' '${V}'", "", ""},
      {"double-quoted, a reference after", "printf '%s|' \"${V}$(POD_IP)\"", "", "10.1.2.3"},
      {"single-quoted, text around", "printf '%s|' '<${V}$'\"(\"", "<", "$("},
      {"command substitution", "r=\"$(printf '%s' \"${V}\"; echo x)\"; printf '%s|' \"${r%x}\"", "", "", true},
      {"backquotes", "r=`printf '%s' \"${V}\"; echo x`; printf '%s|' \"${r%x}\"", "", ""},
      {"here-document", "cat <<EOF\n${V}\nEOF\nprintf '|'", "", "\n"},
      {"quoted here-document", "cat <<'EOF'\n${V}\nEOF\nprintf '|'", "", "\n"},
      {"eval, double-quoted (second order)", "eval \"printf '%s|' \\\"${V}\\\"\"", "", "", false, true},
  };
  return states;
}

// The script: prints the template's kubelet reference and a `$$(` of the
// template (kubelet: `$(`), each followed by `|`, then the state's output.
std::string Script(const ScriptState& state) {
  return "printf '%s|' \"$(POD_IP)\" '$$('\n" + std::string(state.code);
}

// `script` as the scalar of a placement: a double-quoted scalar, or the
// lines of a literal block indented as the placement's first line.
std::string ScriptScalar(const std::string& script, char style) {
  std::string out = style == 'd' ? "\"" : "";
  for (char c : script) {
    if (style == 'd' && (c == '"' || c == '\\')) out += '\\';
    out += style == 'd' && c == '\n' ? std::string("\\n") : std::string(1, c);
    if (style != 'd' && c == '\n') out += "          ";
  }
  return out + (style == 'd' ? "\"" : "");
}

TEST_CASE("kubelet expansion: in a `sh -c` script, the value prints back byte-exact under real shells") {
  std::vector<testing::RealShell> shells = testing::InstalledShells();
  std::vector<std::string> scripts, expected, shown;
  std::size_t refused_by_shell = 0, refused_by_kubelet = 0;
  for (const ScriptPlacement& placement : ScriptPlacements()) {
    for (const ScriptState& state : ScriptStates()) {
      const std::string yaml = Placed(placement.yaml, ScriptScalar(Script(state), placement.style));
      for (const std::string& value : HostileValues()) {
        CAPTURE(placement.id);
        CAPTURE(state.id);
        CAPTURE(value);
        RenderResult result = RenderBothWays(yaml, value);
        if (!result.ok()) {
          const std::string message = FirstMessage(result);
          CHECK(message.find("cannot be written here") != std::string::npos);
          const bool by_kubelet = message.find("Kubernetes") != std::string::npos;
          // kubelet refuses only a `)` that would end the `$(...)` the value stands in.
          CHECK(by_kubelet == (state.refuses_close_paren && value.find(')') != std::string::npos));
          CHECK((by_kubelet || state.shell_may_refuse));
          (by_kubelet ? refused_by_kubelet : refused_by_shell) += 1;
          continue;
        }
        std::string rendered = ScalarAt(result.output, placement.path);
        scripts.push_back(Expand(rendered, ContainerEnvironment()) + "\n");
        expected.push_back("10.1.2.3|$(|" + std::string(state.before) + value + std::string(state.after) + "|");
        shown.push_back(rendered);
      }
    }
  }
  // Plain values are written everywhere.
  REQUIRE(scripts.size() > 100);

  testing::TempDir work;
  std::vector<std::filesystem::path> dirs = testing::RunEachScriptUnderShells(work.path(), shells, scripts);
  std::ostringstream counts;
  for (std::size_t s = 0; s < shells.size(); ++s) {
    CAPTURE(shells[s].name);
    std::string canaries = testing::ReadFile(dirs[s] / "canaries");
    CHECK_MESSAGE(canaries.empty(), "canaries in cases " << canaries);
    std::size_t exact = 0;
    for (std::size_t i = 0; i < scripts.size(); ++i) {
      std::string out = testing::ReadFile(dirs[s] / ("out" + std::to_string(i)));
      if (out == expected[i]) {
        ++exact;
        continue;
      }
      CAPTURE(shown[i]);
      CAPTURE(scripts[i]);
      CAPTURE(testing::ReadFile(dirs[s] / ("err" + std::to_string(i))));
      CHECK(out == expected[i]);
    }
    counts << " [" << shells[s].name << ": " << exact << "/" << scripts.size() << " exact]";
  }
  MESSAGE("kubelet expansion, sh -c: " << HostileValues().size() << " values x " << ScriptPlacements().size()
                                       << " placements x " << ScriptStates().size() << " shell states: "
                                       << scripts.size() << " run, " << refused_by_shell << " refused by the shell "
                                       << "encoding, " << refused_by_kubelet << " by the kubelet escaping;"
                                       << counts.str());
}

// ---- the edges ---------------------------------------------------------------

TEST_CASE("kubelet expansion: a value in the template's `$(...)` is part of the name") {
  const std::string yaml = "spec:\n  containers:\n    - env:\n        - name: OUT\n          value: \"$(${V}_HOST)\"\n";
  const std::vector<std::string> path = {"spec", "containers", "0", "env", "0", "value"};
  RenderResult named = RenderBothWays(yaml, "DB");
  REQUIRE(named.ok());
  CHECK(Expand(ScalarAt(named.output, path), {{"DB_HOST", "10.0.0.9"}}) == "10.0.0.9");
  // A `$` or `(` is a byte of the name there: written as is.
  CHECK(ScalarAt(RenderBothWays(yaml, "A$(B").output, path) == "$(A$(B_HOST)");
  // A `)` would end the name and make the rest of the value text kubelet reads.
  RenderResult closing = RenderBothWays(yaml, "SECRET)$(X");
  REQUIRE_FALSE(closing.ok());
  CHECK(FirstMessage(closing) ==
        "value of 'V' cannot be written here: its `)` would end early the `$(...)` that Kubernetes reads as a "
        "variable reference");
  CHECK(closing.diagnostics[0].location.line == 5);
  CHECK(closing.diagnostics[0].location.column == 21);
  CHECK(closing.diagnostics[0].hint.find("env") != std::string::npos);
  CHECK(closing.diagnostics[0].message.find("SECRET") == std::string::npos);
  // explain and vars show it as the error it is.
  REQUIRE(closing.references.size() == 2);  // `$(` and `${V}`
  CHECK(closing.references[1].text == "${V}");
  CHECK(closing.references[1].action == ReferenceReport::Action::kError);
  CHECK(closing.references[1].note == FirstMessage(closing));
  // An unterminated `$(` of the template is text: reading goes on in the value.
  RenderResult open = RenderBothWays("spec:\n  containers:\n    - args: [\"$(${V}\"]\n", "$(X");
  REQUIRE(open.ok());
  CHECK(Expand(ScalarAt(open.output, {"spec", "containers", "0", "args", "0"}), ContainerEnvironment()) == "$($(X");
}

TEST_CASE("kubelet expansion: a `$` the template writes as an escape right before a value") {
  const std::string yaml = "spec:\n  containers:\n    - env: [{name: OUT, value: \"\\x24${V}\"}]\n";
  const std::vector<std::string> path = {"spec", "containers", "0", "env", "0", "value"};
  RenderResult text = RenderBothWays(yaml, "x)");
  REQUIRE(text.ok());
  CHECK(Expand(ScalarAt(text.output, path), ContainerEnvironment()) == "$x)");
  for (const char* joining : {"(X)", "$(X)"}) {
    CAPTURE(joining);
    RenderResult refused = RenderBothWays(yaml, joining);
    REQUIRE_FALSE(refused.ok());
    CHECK(FirstMessage(refused).find("the `$` of the template right before it") != std::string::npos);
  }
}

TEST_CASE("kubelet expansion: only where kubelet expands, and for every value") {
  // Elsewhere a `$(` of a value is data for whoever reads it: written as is.
  // kubelet runs a lifecycle hook's command as written.
  const std::string elsewhere =
      "kind: ConfigMap\nmetadata:\n  annotations: {a: \"${V}\"}\ndata:\n  command: ${V}\n  env: \"${V}\"\n"
      "---\nspec:\n  containers:\n    - env: [{name: \"${V}\", valueFrom: {fieldRef: {fieldPath: \"${V}\"}}}]\n"
      "      workingDir: ${V}\n      lifecycle: {preStop: {exec: {command: [/bin/notify, \"${V}\"]}}}\n";
  RenderResult kept = RenderWith(elsewhere, "$(X)", false);
  REQUIRE(kept.ok());
  CHECK(kept.output.find("$$") == std::string::npos);
  // A `shell: raw` value is code for the shell, not for kubelet: escaped too.
  Manifest manifest = *ParseManifest("variables:\n  V: {type: string, shell: raw}\n", "m.yaml").value;
  ValueSet values;
  values.Set("V", Value{"echo $(X)", ValueSource::kCommandLine, Location{"--set"}});
  RenderResult raw = Render("spec:\n  containers:\n    - command: [sh, -c, \"${V}\"]\n", manifest, values, {});
  REQUIRE(raw.ok());
  CHECK(Expand(ScalarAt(raw.output, {"spec", "containers", "0", "command", "2"}), ContainerEnvironment()) ==
        "echo $(X)");
}

TEST_CASE("kubelet expansion: a merge fragment that is a bare env list, env item or args list") {
  testing::TempDir dir;
  testing::WriteFile(dir / "env.yaml", "- name: OUT\n  value: ${V}\n");
  testing::WriteFile(dir / "item.yaml", "value: \"<${V}>\"\n");
  testing::WriteFile(dir / "args.yaml", "- --name=${V}\n");
  testing::WriteFile(dir / "m.yaml",
                     "variables:\n  V: string\nsteps:\n"
                     "  - merge: env.yaml\n    into: .spec.containers[0].env\n    append: true\n"
                     "  - merge: item.yaml\n    into: .spec.containers[0].env[name=A]\n"
                     "  - merge: args.yaml\n    into: .spec.containers[0].args\n");
  Result<Manifest> manifest = LoadManifestFile((dir / "m.yaml").string());
  REQUIRE(manifest.ok());
  ValueSet values;
  values.Set("V", Value{"$(X)", ValueSource::kCommandLine, Location{"--set"}});
  RenderResult result = Render("spec:\n  containers:\n    - args: [x]\n      env:\n        - {name: A, value: a}\n",
                               *manifest.value, values, {});
  REQUIRE_MESSAGE(result.ok(), FirstMessage(result));
  auto at = [&](std::vector<std::string> path) { return Expand(ScalarAt(result.output, path), ContainerEnvironment()); };
  CHECK(at({"spec", "containers", "0", "env", "0", "value"}) == "<$(X)>");
  CHECK(at({"spec", "containers", "0", "env", "1", "value"}) == "$(X)");
  CHECK(at({"spec", "containers", "0", "args", "0"}) == "--name=$(X)");
}

TEST_CASE("kubelet expansion: the shape of the places kubelet expands") {
  const std::string yaml =
      "spec:\n  containers:\n    - command: [a]\n      args: [b]\n      env:\n        - name: c\n          value: d\n"
      "      workingDir: e\n      livenessProbe: {exec: {command: [h]}}\n"
      "      lifecycle: {preStop: {exec: {command: [i]}}, postStart: {exec: {command: [j]}}}\n"
      "      volumeMounts: [{name: k, mountPath: l, subPath: m, subPathExpr: n}]\n"
      "  value: f\n  env: {value: g}\n";
  Tokens tokens = Tokenize(yaml);
  std::string expands;
  for (const Scalar& scalar : tokens.scalars) {
    if (KubeletExpands(tokens, scalar)) expands += DecodeScalar(yaml, scalar);
  }
  CHECK(expands == "abdhn");
  // A fragment's root, by the path it is merged into.
  const std::string list = "- a\n- name: b\n  value: c\n";
  Tokens fragment = Tokenize(list);
  for (const auto& [into, expected] : std::vector<std::pair<std::string_view, std::string_view>>{
           {"", ""}, {".spec.containers[0].args", "a"}, {".spec.containers[*].env", "c"},
           {".spec.containers[0].env[0]", ""}, {".x.command", "a"},
           {".spec.containers[0].lifecycle.postStart.exec.command", ""},
           {".spec.containers[0].startupProbe.exec.command", "a"}}) {
    CAPTURE(into);
    std::string found;
    for (const Scalar& scalar : fragment.scalars) {
      if (KubeletExpands(fragment, scalar, into)) found += DecodeScalar(list, scalar);
    }
    CHECK(found == expected);
  }
  Tokens item = Tokenize("name: b\nvalue: c\n");
  CHECK(KubeletExpands(item, item.scalars[3], ".spec.containers[0].env[name=b]"));
  CHECK_FALSE(KubeletExpands(item, item.scalars[3], ".spec.containers[0]"));
  CHECK_FALSE(MayNeedKubeletEscape("10.0.0.1 web-portal:8080/x?y=z&w={1}"));
  for (std::string_view value : {"$", "(", ")"}) CHECK(MayNeedKubeletEscape(value));
}

}  // namespace
}  // namespace safesubst
