// SPDX-License-Identifier: Apache-2.0
// Tests of the manifest loader: variables, runtime names, steps and the
// located diagnostics for everything a user can get wrong.
#include "safesubst/manifest.h"

#include <doctest/doctest.h>

#include <filesystem>
#include <string>

#include "alias_bomb.h"
#include "test_support.h"

namespace safesubst {
namespace {

const std::string kDataDir = std::string(SAFESUBST_SOURCE_DIR) + "/tests/data/manifest";

Result<Manifest> Parse(std::string_view text) { return ParseManifest(text, "deploy/vars.yaml"); }

std::size_t CountErrors(const Diagnostics& diagnostics) {
  std::size_t count = 0;
  for (const Diagnostic& d : diagnostics) count += d.severity == Severity::kError ? 1 : 0;
  return count;
}

std::string Describe(const Diagnostics& diagnostics) {
  std::string out;
  for (const Diagnostic& d : diagnostics) out += FormatDiagnostic(d, "", false);
  return out;
}

// The one diagnostic whose message contains `needle`; fails the test otherwise.
const Diagnostic* Find(const Diagnostics& diagnostics, std::string_view needle) {
  const Diagnostic* found = nullptr;
  for (const Diagnostic& d : diagnostics) {
    if (d.message.find(needle) == std::string::npos) continue;
    CHECK_MESSAGE(found == nullptr, "more than one diagnostic mentions '" << needle << "':\n" << Describe(diagnostics));
    found = &d;
  }
  CHECK_MESSAGE(found != nullptr, "no diagnostic mentions '" << needle << "':\n" << Describe(diagnostics));
  return found;
}

// Checks that a diagnostic mentioning `needle` exists at line:column.
void ExpectAt(const Diagnostics& diagnostics, std::string_view needle, std::uint32_t line, std::uint32_t column) {
  const Diagnostic* d = Find(diagnostics, needle);
  if (d == nullptr) return;
  CHECK_MESSAGE(d->location.line == line, needle);
  CHECK_MESSAGE(d->location.column == column, needle);
  CHECK(d->location.file == "deploy/vars.yaml");
}

TEST_CASE("a step path is checked with the step engine's own grammar where the manifest writes it") {
  // A quoted key may hold a blank (the light check of old refused it) ...
  Result<Manifest> quoted = Parse("steps:\n  - delete: '.data.\"my key\"'\n");
  REQUIRE_MESSAGE(quoted.ok(), Describe(quoted.diagnostics));
  CHECK(quoted.value->steps[0].path == ".data.\"my key\"");
  // ... and a bracket the engine cannot read is refused here, not when the steps run.
  ExpectAt(Parse("steps:\n  - delete: .a[x]\n").diagnostics,
           "invalid path '.a[x]': expected `=` after the key in `[key=value]` (column 5)", 2, 13);
}

TEST_CASE("a scripts/shell path is kept as written, or refused when it selects no one node by its place") {
  Result<Manifest> quoted = Parse("shell: ['.data.\"entry.sh.tpl\"', '.\"data\".run', '.spec.c[*].args[0]']\n");
  REQUIRE_MESSAGE(quoted.ok(), Describe(quoted.diagnostics));
  CHECK(quoted.value->shell_paths ==
        std::vector<std::string>{".data.\"entry.sh.tpl\"", ".\"data\".run", ".spec.c[*].args[0]"});
  CHECK_FALSE(Parse("shell: ['.spec.containers[name=c].args[0]']\n").ok());
  CHECK_FALSE(Parse("scripts: ['.spec.containers[-1].args[0]']\n").ok());
  CHECK_FALSE(Parse("shell: ['.data.*']\n").ok());
  CHECK(Parse("shell: ['.data.\"*\"']\n").ok());
}

TEST_CASE("the SPEC example manifest loads") {
  Result<Manifest> result = LoadManifestFile(kDataDir + "/efs-zone.yaml");
  REQUIRE_MESSAGE(result.ok(), Describe(result.diagnostics));
  CHECK(result.diagnostics.empty());
  const Manifest& m = *result.value;
  CHECK(m.mode == DeclarationMode::kManifest);
  CHECK(m.file == kDataDir + "/efs-zone.yaml");
  CHECK(m.directory == kDataDir);
  REQUIRE(m.variables.size() == 9);
  CHECK(m.variables[0].name == "TENANT_ID");
  CHECK(m.variables.back().name == "APP");

  const Variable* tenant = m.Find("TENANT_ID");
  REQUIRE(tenant != nullptr);
  CHECK(tenant->type == VarType::kDnsLabel);
  CHECK(tenant->required);
  CHECK(tenant->description == "tenant slug");
  CHECK(tenant->location.line == 3);
  CHECK(tenant->location.column == 3);

  CHECK(m.Find("EFS_HOSTNAME")->type == VarType::kHostname);
  CHECK(m.Find("EFS_IP_2A")->type == VarType::kIpv4);
  CHECK(m.Find("ZONE_BOUNDARY")->type == VarType::kInt);
  CHECK(m.Find("ZONE_BOUNDARY")->default_value == "31");
  CHECK(m.Find("IMAGE_TAG")->pattern == "[A-Za-z0-9._-]{1,128}");
  CHECK(m.Find("DB_PASSWORD")->sensitive);
  CHECK_FALSE(m.Find("IMAGE_TAG")->sensitive);
  CHECK(m.Find("EFS_ZONE_EXCLUDE_APPS")->type == VarType::kList);
  CHECK(m.Find("EFS_ZONE_EXCLUDE_APPS")->default_value == "");
  CHECK_FALSE(m.Find("APP")->default_value.has_value());
  CHECK(m.Find("NODE_IP") == nullptr);

  CHECK(m.runtime == std::vector<std::string>{"NODE_IP", "OCT3", "EFS_IP", "HOME"});
  CHECK(m.IsRuntime("OCT3"));
  CHECK_FALSE(m.IsRuntime("APP"));

  REQUIRE(m.steps.size() == 2);
  const Step& del = m.steps[0];
  CHECK(del.action == Step::Action::kDelete);
  CHECK(del.path == ".spec.template.spec.hostAliases");
  CHECK(del.location.line == 14);
  CHECK(del.location.column == 5);
  REQUIRE(del.when.size() == 1);
  CHECK(del.when[0].op == Condition::Op::kNotIn);
  CHECK(del.when[0].var == "APP");
  CHECK(del.when[0].operand == "EFS_ZONE_EXCLUDE_APPS");
  CHECK(del.when[0].location.line == 15);
  CHECK(del.when[0].location.column == 11);

  const Step& merge = m.steps[1];
  CHECK(merge.action == Step::Action::kMerge);
  CHECK(merge.fragment_file == kDataDir + "/common/efs-zone-command.yaml");
  CHECK(merge.path == ".spec.template.spec.containers[0]");
  CHECK_FALSE(merge.append);
  CHECK_FALSE(merge.optional);
  REQUIRE(merge.when.size() == 1);
  CHECK(merge.when[0].op == Condition::Op::kNotIn);
}

TEST_CASE("a missing or unreadable manifest names its path") {
  Result<Manifest> result = LoadManifestFile(kDataDir + "/no-such-manifest.yaml");
  CHECK_FALSE(result.ok());
  CHECK_FALSE(result.value.has_value());
  REQUIRE(result.diagnostics.size() == 1);
  CHECK(result.diagnostics[0].message.find("no-such-manifest.yaml") != std::string::npos);
  CHECK(result.diagnostics[0].message.find("No such file") != std::string::npos);
  CHECK(result.diagnostics[0].location.file == kDataDir + "/no-such-manifest.yaml");

  Result<Manifest> directory = LoadManifestFile(kDataDir);
  CHECK_FALSE(directory.ok());
  REQUIRE(directory.diagnostics.size() == 1);
  CHECK(directory.diagnostics[0].message.find("is a directory") != std::string::npos);
}

TEST_CASE("a merge step whose fragment does not exist is an error at the step") {
  Result<Manifest> result = LoadManifestFile(kDataDir + "/missing-fragment.yaml");
  CHECK_FALSE(result.ok());
  const Diagnostic* d = Find(result.diagnostics, "does-not-exist.yaml");
  REQUIRE(d != nullptr);
  CHECK(d->location.line == 4);
  CHECK(d->location.column == 5);
}

TEST_CASE("a merge step whose fragment is a folder or a device says so") {
  safesubst::testing::TempDir dir;
  std::filesystem::create_directory(dir / "common");
  safesubst::testing::WriteFile(dir / "m.yaml", "steps:\n  - merge: common\n    into: .a\n  - merge: /dev/null\n"
                                                "    into: .a\n    optional: true\n");
  Result<Manifest> result = LoadManifestFile((dir / "m.yaml").string());
  REQUIRE(result.diagnostics.size() == 2);
  CHECK(result.diagnostics[0].message.ends_with("common' is a directory, not a YAML file"));
  CHECK(result.diagnostics[1].message == "fragment file '/dev/null' is not a regular file");
}

TEST_CASE("variable shorthand forms") {
  Result<Manifest> result = Parse(
      "variables:\n"
      "  APP: dns-label\n"
      "  PLAIN:\n"
      "  TILDE: ~\n"
      "  LIST: list\n");
  REQUIRE_MESSAGE(result.ok(), Describe(result.diagnostics));
  const Manifest& m = *result.value;
  REQUIRE(m.variables.size() == 4);
  CHECK(m.Find("APP")->type == VarType::kDnsLabel);
  CHECK(m.Find("PLAIN")->type == VarType::kString);
  CHECK(m.Find("PLAIN")->location.line == 3);
  CHECK(m.Find("TILDE")->type == VarType::kString);
  CHECK(m.Find("LIST")->type == VarType::kList);
  CHECK(m.directory == "deploy");
}

TEST_CASE("every variable setting is read") {
  Result<Manifest> result = Parse(
      "variables:\n"
      "  MODE:\n"
      "    type: enum\n"
      "    values: [dev, prod]\n"
      "    default: dev\n"
      "    description: which profile\n"
      "  ARGS: {type: string, shell: raw, required: true}\n"
      "  SAFE: {shell: safe, sensitive: false}\n"
      "  RES: {type: yaml, default: {cpu: \"1\", mem: 2Gi}}\n"
      "  APPS: {type: list, default: [a, b]}\n");
  REQUIRE_MESSAGE(result.ok(), Describe(result.diagnostics));
  const Manifest& m = *result.value;
  const Variable* mode = m.Find("MODE");
  CHECK(mode->type == VarType::kEnum);
  CHECK(mode->enum_values == std::vector<std::string>{"dev", "prod"});
  CHECK(mode->default_value == "dev");
  CHECK(mode->description == "which profile");
  CHECK(m.Find("ARGS")->shell == ShellMode::kRaw);
  CHECK(m.Find("ARGS")->required);
  CHECK(m.Find("SAFE")->shell == ShellMode::kSafe);
  // A structured default of a yaml variable is kept as YAML text, quotes included.
  CHECK(m.Find("RES")->default_value == "{cpu: \"1\", mem: 2Gi}");
  CHECK(m.Find("APPS")->default_value == "a,b");
}

TEST_CASE("unknown keys at each level are located, with the valid keys and a suggestion") {
  Result<Manifest> result = Parse(
      "varaibles: {}\n"                          // 1
      "variables:\n"                             // 2
      "  A: {type: int, defualt: \"1\"}\n"       // 3
      "steps:\n"                                 // 4
      "  - delete: .a\n"                         // 5
      "    wen: {var: A, equals: \"1\"}\n"       // 6
      "  - delete: .b\n"                         // 7
      "    when: {var: A, equal: \"1\"}\n"       // 8
      "  - delete: .c\n"                         // 9
      "    match: {kind: Pod, nmae: x}\n");      // 10
  CHECK_FALSE(result.ok());
  CHECK_FALSE(result.value.has_value());
  CHECK_MESSAGE(CountErrors(result.diagnostics) == 6, Describe(result.diagnostics));
  ExpectAt(result.diagnostics, "'varaibles' in the manifest", 1, 1);
  CHECK(Find(result.diagnostics, "'varaibles'")->hint ==
        "did you mean 'variables'? valid keys: variables, runtime, scripts, shell, steps");
  ExpectAt(result.diagnostics, "'defualt' in variable 'A'", 3, 18);
  CHECK(Find(result.diagnostics, "'defualt'")->hint.find("did you mean 'default'?") == 0);
  ExpectAt(result.diagnostics, "'wen' in a step", 6, 5);
  CHECK(Find(result.diagnostics, "'wen'")->hint.find("did you mean 'when'?") == 0);
  ExpectAt(result.diagnostics, "'equal' in a condition", 8, 20);
  ExpectAt(result.diagnostics, "'nmae' in 'match'", 10, 24);
  // The condition lost its test to the typo: that is reported too.
  ExpectAt(result.diagnostics, "a condition needs one test", 8, 11);
}

TEST_CASE("all errors are reported, in source order") {
  Result<Manifest> result = Parse(
      "variables:\n"
      "  A: {type: integer}\n"
      "  B: {type: int, default: abc}\n"
      "  C: {pattern: '([a-z'}\n"
      "  1BAD: string\n"
      "  E: {type: enum}\n"
      "  F: {values: [a]}\n");
  CHECK_MESSAGE(CountErrors(result.diagnostics) == 6, Describe(result.diagnostics));
  ExpectAt(result.diagnostics, "unknown type 'integer'", 2, 13);
  CHECK(Find(result.diagnostics, "unknown type")->hint.find("valid types: string, int, bool") != std::string::npos);
  ExpectAt(result.diagnostics, "invalid default: B: \"abc\" is not an integer", 3, 27);
  ExpectAt(result.diagnostics, "invalid pattern: missing ]", 4, 16);
  ExpectAt(result.diagnostics, "invalid variable name '1BAD'", 5, 3);
  ExpectAt(result.diagnostics, "enum variable 'E' has no 'values'", 6, 3);
  ExpectAt(result.diagnostics, "'values' is only valid with type: enum", 7, 7);
  for (std::size_t i = 1; i < result.diagnostics.size(); ++i) {
    CHECK(result.diagnostics[i - 1].location.line <= result.diagnostics[i].location.line);
  }
}

TEST_CASE("defaults are validated against type, pattern and enum at load time") {
  CHECK(Parse("variables: {P: {pattern: '[a-z]+', default: abc}}").ok());
  ExpectAt(Parse("variables: {P: {pattern: '[a-z]+', default: ABC}}").diagnostics,
           "invalid default: P: \"ABC\" does not match the pattern '[a-z]+'", 1, 45);
  ExpectAt(Parse("variables:\n  IP: {type: ipv4, default: 10.0.0.256}\n").diagnostics, "octet 4 is 256 > 255", 2, 29);
  ExpectAt(Parse("variables:\n  M: {type: enum, values: [a, b], default: c}\n").diagnostics,
           "is not one of the allowed values", 2, 44);
  ExpectAt(Parse("variables:\n  S: {type: string, default: ~}\n").diagnostics, "the default of 'S' is null", 2, 21);
  ExpectAt(Parse("variables:\n  S: {type: string, default: [a]}\n").diagnostics, "must be a single value", 2, 30);
  // A sensitive default is masked in the message.
  Result<Manifest> secret = Parse("variables:\n  K: {type: int, sensitive: true, default: hunter2}\n");
  REQUIRE(CountErrors(secret.diagnostics) == 1);
  CHECK(secret.diagnostics[0].message == "invalid default: K: *** is not an integer");
}

TEST_CASE("required with a default is a warning, not an error") {
  Result<Manifest> result = Parse("variables:\n  A: {required: true, default: x}\n");
  CHECK(result.ok());
  REQUIRE(result.diagnostics.size() == 1);
  CHECK(result.diagnostics[0].severity == Severity::kWarning);
  CHECK(result.diagnostics[0].location.line == 2);
}

TEST_CASE("bad setting values") {
  Result<Manifest> result = Parse(
      "variables:\n"
      "  A: {required: yes}\n"
      "  B: {sensitive: 1}\n"
      "  C: {shell: unsafe}\n"
      "  D: {type: [int]}\n"
      "  E: [int]\n"
      "  F: {pattern: ''}\n"
      "  G: {type: enum, values: []}\n"
      "  H: {type: enum, values: [a, a]}\n");
  CHECK_MESSAGE(CountErrors(result.diagnostics) == 8, Describe(result.diagnostics));
  ExpectAt(result.diagnostics, "'required' must be true or false", 2, 17);
  ExpectAt(result.diagnostics, "'sensitive' must be true or false", 3, 18);
  ExpectAt(result.diagnostics, "unknown shell mode 'unsafe'", 4, 14);
  ExpectAt(result.diagnostics, "'type' must be a single value", 5, 13);
  ExpectAt(result.diagnostics, "variable 'E' must be a mapping of settings or a type name", 6, 6);
  ExpectAt(result.diagnostics, "'pattern' must not be empty", 7, 16);
  ExpectAt(result.diagnostics, "'values' must be a non-empty list", 8, 27);
  ExpectAt(result.diagnostics, "value 'a' is listed twice", 9, 31);
}

TEST_CASE("duplicate names and keys") {
  Result<Manifest> result = Parse(
      "variables:\n"
      "  A: string\n"
      "  A: int\n"
      "  B: {type: int, type: string}\n"
      "runtime: [X, X]\n");
  CHECK_MESSAGE(CountErrors(result.diagnostics) == 2, Describe(result.diagnostics));
  ExpectAt(result.diagnostics, "variable 'A' is declared twice", 3, 3);
  CHECK(Find(result.diagnostics, "declared twice")->hint.find("line 2") != std::string::npos);
  ExpectAt(result.diagnostics, "'type' appears twice in variable 'B'", 4, 18);
  const Diagnostic* twice = Find(result.diagnostics, "'X' is listed twice");
  REQUIRE(twice != nullptr);
  CHECK(twice->severity == Severity::kWarning);
}

TEST_CASE("a declared name listed as runtime is an error at the runtime entry") {
  // runtime comes first in the file: the check must not depend on key order.
  Result<Manifest> result = Parse(
      "runtime:\n"
      "  - NODE_IP\n"
      "  - APP\n"
      "variables:\n"
      "  APP: dns-label\n");
  CHECK(CountErrors(result.diagnostics) == 1);
  ExpectAt(result.diagnostics, "'APP' is declared under 'variables' and also listed as runtime", 3, 5);
  ExpectAt(Parse("runtime: [GOOD, 9bad]").diagnostics, "invalid runtime name", 1, 17);
  ExpectAt(Parse("runtime: NODE_IP").diagnostics, "'runtime' must be a list of names", 1, 10);
}

TEST_CASE("scripts and shell paths") {
  Result<Manifest> result = Parse(
      "scripts: [.data.run]\n"
      "shell:\n"
      "  - .data.entrypoint\n"
      "  - '.spec.containers[0].args'\n");
  REQUIRE_MESSAGE(result.ok(), Describe(result.diagnostics));
  CHECK(result.value->script_paths == std::vector<std::string>{".data.run"});
  CHECK(result.value->shell_paths == std::vector<std::string>{".data.entrypoint", ".spec.containers[0].args"});
  ExpectAt(Parse("shell: .data.x").diagnostics, "'shell' must be a list of node paths", 1, 8);
  ExpectAt(Parse("scripts: [{a: b}]").diagnostics, "each entry of 'scripts' must be a node path", 1, 11);
  ExpectAt(Parse("scripts: [\".data[[\"]").diagnostics, "invalid path '.data[[' in 'scripts': expected `*`, an index or `key=value` inside `[...]`, found `[` (column 7)", 1, 11);
  ExpectAt(Parse("shell: [.data.x, data.y]").diagnostics, "invalid path 'data.y' in 'shell': expected `.key` or `[...]`, found `d` (column 1)", 1, 18);
}

TEST_CASE("steps: each action and its options") {
  Result<Manifest> result = Parse(
      "variables:\n"
      "  APP: dns-label\n"
      "  EXCLUDED: list\n"
      "  ZONE: {type: int, default: \"31\"}\n"
      "  FLAG: bool\n"
      "steps:\n"
      "  - merge: common/sidecar.yaml\n"
      "    into: '.spec.template.spec.containers[name=app]'\n"
      "    append: true\n"
      "    optional: true\n"
      "    match: {kind: Deployment, name: web, labels: {tier: front, app: web}}\n"
      "  - merge: /abs/frag.yaml\n"
      "    into: .spec\n"
      "  - set: .spec.replicas\n"
      "    value: 3\n"
      "  - set: .metadata.labels\n"
      "    value: {zone: \"31\", app: web}\n"
      "  - set: .data.version\n"
      "    value: \"1.10\"\n"
      "  - delete: '.spec.template.spec.containers[*].env'\n"
      "    when:\n"
      "      - {var: APP, in: EXCLUDED}\n"
      "      - {var: ZONE, equals: \"31\"}\n"
      "      - {var: ZONE, not_equals: \"\"}\n"
      "      - {var: FLAG, set: true}\n"
      "      - {var: APP, set: false}\n");
  REQUIRE_MESSAGE(result.ok(), Describe(result.diagnostics));
  const std::vector<Step>& steps = result.value->steps;
  REQUIRE(steps.size() == 6);

  CHECK(steps[0].action == Step::Action::kMerge);
  CHECK(steps[0].fragment_file == "deploy/common/sidecar.yaml");
  CHECK(steps[0].path == ".spec.template.spec.containers[name=app]");
  CHECK(steps[0].append);
  CHECK(steps[0].optional);
  CHECK(steps[0].match.kind == "Deployment");
  CHECK(steps[0].match.name == "web");
  CHECK(steps[0].match.labels ==
        std::vector<std::pair<std::string, std::string>>{{"tier", "front"}, {"app", "web"}});
  CHECK(steps[0].location.line == 7);

  CHECK(steps[1].fragment_file == "/abs/frag.yaml");
  CHECK(steps[1].match.kind.empty());

  CHECK(steps[2].action == Step::Action::kSet);
  CHECK(steps[2].path == ".spec.replicas");
  CHECK(steps[2].value == "3");
  CHECK(steps[3].value == "{zone: \"31\", app: web}");
  CHECK(steps[4].value == "\"1.10\"");  // quoted in the manifest, so it stays a string

  CHECK(steps[5].action == Step::Action::kDelete);
  CHECK(steps[5].path == ".spec.template.spec.containers[*].env");
  const std::vector<Condition>& when = steps[5].when;
  REQUIRE(when.size() == 5);
  CHECK(when[0].op == Condition::Op::kIn);
  CHECK(when[0].operand == "EXCLUDED");
  CHECK(when[0].location.line == 22);
  CHECK(when[1].op == Condition::Op::kEquals);
  CHECK(when[1].var == "ZONE");
  CHECK(when[1].operand == "31");
  CHECK(when[2].op == Condition::Op::kNotEquals);
  CHECK(when[2].operand == "");
  CHECK(when[3].op == Condition::Op::kIsSet);
  CHECK(when[3].var == "FLAG");
  CHECK(when[4].op == Condition::Op::kIsUnset);
}

TEST_CASE("set values keep multi-line and tagged scalars") {
  Result<Manifest> result = Parse(
      "steps:\n"
      "  - set: .data.script\n"
      "    value: |\n"
      "      echo \"$HOME\"\n"
      "      exit 0\n"
      "  - set: .data.empty\n"
      "    value: ~\n"
      "  - set: .data.str\n"
      "    value: !!str 42\n"
      "  - set: .data.list\n"
      "    value:\n"
      "      - a\n"
      "      - 'b c'\n");
  REQUIRE_MESSAGE(result.ok(), Describe(result.diagnostics));
  const std::vector<Step>& steps = result.value->steps;
  REQUIRE(steps.size() == 4);
  CHECK(steps[0].value == "\"echo \\\"$HOME\\\"\\nexit 0\\n\"");
  CHECK(steps[1].value == "~");
  CHECK(steps[2].value == "\"42\"");
  CHECK(steps[3].value == "- a\n- \"b c\"");
}

// The one writer (yaml_node_writer.h) keeps what the source wrote, with
// yaml_encoding's rules: yaml-cpp's emitter dropped a collection's tag and
// left a YAML 1.1 line break plain, where PyYAML reads "k x".
TEST_CASE("set values keep a collection's tag and quote YAML 1.1 line breaks") {
  Result<Manifest> result = Parse(
      "steps:\n"
      "  - set: .data.ref\n"
      "    value: !custom {a: 1}\n"
      "  - set: .data.text\n"
      "    value: k\u2028x\n");
  REQUIRE_MESSAGE(result.ok(), Describe(result.diagnostics));
  const std::vector<Step>& steps = result.value->steps;
  REQUIRE(steps.size() == 2);
  CHECK(steps[0].value == "!custom {a: 1}");
  CHECK(steps[1].value == "\"k\\Lx\"");
  testing::CommandResult read = testing::ReadWithPyYaml("text: " + steps[1].value + "\n");
  INFO("python3: ", read.err);
  REQUIRE_MESSAGE(read.code == 0, "python3 could not read the value (is python3-yaml installed?)");
  CHECK(read.out == "{\"text\": \"k\\u2028x\"}\n");
}

// yaml-typed defaults and set values are written back as YAML text, aliases
// expanded: bounded, and a node inside itself is an error, not a crash.
TEST_CASE("structured defaults and set values with alias bombs or recursive aliases are errors") {
  Result<Manifest> bomb = Parse("variables:\n  X:\n    type: yaml\n    default:\n" + testing::AliasBomb(8, "      "));
  CHECK_FALSE(bomb.ok());
  ExpectAt(bomb.diagnostics, "the default of 'X' expands to more than 100000 nodes through aliases", 5, 7);
  Result<Manifest> recursive = Parse("steps:\n  - set: .a\n    value: &v {k: *v}\n");
  CHECK_FALSE(recursive.ok());
  ExpectAt(recursive.diagnostics, "the value of the step contains a recursive alias", 3, 12);
  Result<Manifest> shared = Parse("steps:\n  - set: .a\n    value: {k: &v [1], l: *v}\n");
  REQUIRE_MESSAGE(shared.ok(), Describe(shared.diagnostics));
  CHECK(shared.value->steps[0].value == "{k: [1], l: [1]}");
  // A chain of aliases defined where nothing writes it nests one level per
  // link when the default is written: refused at a fixed depth, not by the
  // stack overflowing (about 40,000 links did that).
  Result<Manifest> chain =
      Parse("x-chain:\n" + testing::AliasChain(1500, "  ") + "variables:\n  X: {type: yaml, default: *a1500}\n");
  CHECK_FALSE(chain.ok());
  CHECK(Find(chain.diagnostics, "the default of 'X' nests more than 1000 levels deep") != nullptr);
}

TEST_CASE("step errors") {
  Result<Manifest> result = Parse(
      "variables:\n"                                        // 1
      "  APP: dns-label\n"                                  // 2
      "  NAME: string\n"                                    // 3
      "steps:\n"                                            // 4
      "  - merge: a.yaml\n"                                 // 5
      "    delete: .spec\n"                                 // 6
      "  - merge: b.yaml\n"                                 // 7
      "  - set: .x\n"                                       // 8
      "  - delete: .x\n"                                    // 9
      "    into: .y\n"                                      // 10
      "    append: true\n"                                  // 11
      "    value: 1\n"                                      // 12
      "  - optional: true\n"                                // 13
      "  - delete: spec.x\n"                                // 14
      "  - delete: .a..b\n"                                 // 15
      "  - delete: '.a[0'\n"                                // 16
      "  - just-a-string\n"                                 // 17
      "  - delete: .x\n"                                    // 18
      "    when: {var: NOPE, equals: a}\n"                  // 19
      "  - delete: .x\n"                                    // 20
      "    when: {var: APP, not_in: NAME}\n"                // 21
      "  - delete: .x\n"                                    // 22
      "    when: {var: APP, in: MISSING}\n"                 // 23
      "  - delete: .x\n"                                    // 24
      "    when: [{equals: a}, {var: APP}, {var: APP, equals: a, set: true}, x]\n"  // 25
      "  - delete: .x\n"                                    // 26
      "    when: {var: APP, equals: }\n"                    // 27
      "  - delete: .x\n"                                    // 28
      "    optional: maybe\n"                               // 29
      "    when: yes\n");                                   // 30
  CHECK_FALSE(result.ok());
  ExpectAt(result.diagnostics, "exactly one action; this one has both 'merge' and 'delete'", 6, 5);
  ExpectAt(result.diagnostics, "'merge' needs 'into: PATH'", 7, 5);
  ExpectAt(result.diagnostics, "'set' needs 'value:'", 8, 5);
  ExpectAt(result.diagnostics, "'into' only goes with 'merge'", 10, 5);
  ExpectAt(result.diagnostics, "'append' only goes with 'merge'", 11, 5);
  ExpectAt(result.diagnostics, "'value' only goes with 'set'", 12, 5);
  ExpectAt(result.diagnostics, "a step needs an action", 13, 5);
  ExpectAt(result.diagnostics, "invalid path 'spec.x'", 14, 13);
  ExpectAt(result.diagnostics, "invalid path '.a..b'", 15, 13);
  ExpectAt(result.diagnostics, "invalid path '.a[0'", 16, 13);
  ExpectAt(result.diagnostics, "a step must be a mapping", 17, 5);
  ExpectAt(result.diagnostics, "condition on undeclared variable 'NOPE'", 19, 17);
  ExpectAt(result.diagnostics, "'not_in' needs a list variable; 'NAME' is type string", 21, 30);
  ExpectAt(result.diagnostics, "'in' names 'MISSING', which is not a declared variable", 23, 26);
  ExpectAt(result.diagnostics, "a condition needs 'var: NAME'", 25, 12);
  ExpectAt(result.diagnostics, "a condition needs one test", 25, 25);
  ExpectAt(result.diagnostics, "this one has both 'equals' and 'set'", 25, 59);
  ExpectAt(result.diagnostics, "each condition must be a mapping", 25, 71);
  ExpectAt(result.diagnostics, "'equals' needs a value", 27, 22);
  ExpectAt(result.diagnostics, "'optional' must be true or false", 29, 15);
  ExpectAt(result.diagnostics, "'when' must be a condition or a list of conditions", 30, 11);
  CHECK_MESSAGE(CountErrors(result.diagnostics) == 21, Describe(result.diagnostics));
}

TEST_CASE("conditions on runtime names and near-miss names get specific hints") {
  Result<Manifest> result = Parse(
      "variables: {APP: dns-label}\n"
      "runtime: [NODE_IP]\n"
      "steps:\n"
      "  - delete: .x\n"
      "    when: {var: NODE_IP, set: true}\n"
      "  - delete: .y\n"
      "    when: {var: APPP, set: true}\n");
  ExpectAt(result.diagnostics, "condition on runtime name 'NODE_IP'", 5, 17);
  const Diagnostic* typo = Find(result.diagnostics, "undeclared variable 'APPP'");
  REQUIRE(typo != nullptr);
  CHECK(typo->hint.find("did you mean 'APP'?") == 0);
}

TEST_CASE("steps run against variables declared later in the file") {
  Result<Manifest> result = Parse(
      "steps:\n"
      "  - delete: .spec.template.spec.hostAliases\n"
      "    when: {var: APP, not_in: EFS_ZONE_EXCLUDE_APPS}\n"
      "variables:\n"
      "  APP: dns-label\n"
      "  EFS_ZONE_EXCLUDE_APPS: {type: list, default: \"\"}\n");
  REQUIRE_MESSAGE(result.ok(), Describe(result.diagnostics));
  CHECK(result.value->steps.at(0).when.at(0).var == "APP");
}

TEST_CASE("YAML syntax errors and odd documents are located diagnostics, never exceptions") {
  Result<Manifest> broken = Parse("variables:\n  A: {type: int\nruntime: [X]\n");
  CHECK_FALSE(broken.ok());
  REQUIRE(broken.diagnostics.size() == 1);
  CHECK(broken.diagnostics[0].message.find("invalid YAML: ") == 0);
  CHECK(broken.diagnostics[0].location.line >= 2);
  CHECK(broken.diagnostics[0].location.file == "deploy/vars.yaml");

  ExpectAt(Parse("- a\n- b\n").diagnostics, "the manifest must be a YAML mapping", 1, 1);
  ExpectAt(Parse("variables: {}\n---\nruntime: []\n").diagnostics, "a manifest is a single YAML document", 3, 1);
  ExpectAt(Parse("variables: [A, B]\n").diagnostics, "'variables' must be a mapping", 1, 12);
  ExpectAt(Parse("steps: {delete: .a}\n").diagnostics, "'steps' must be a list", 1, 8);
  ExpectAt(Parse("? [a]\n: b\n").diagnostics, "a key in the manifest must be a plain name", 1, 3);

  // Empty and comment-only manifests declare nothing.
  for (const char* empty : {"", "# nothing\n", "variables:\nruntime:\nsteps:\n"}) {
    Result<Manifest> result = Parse(empty);
    CHECK_MESSAGE(result.ok(), empty);
    CHECK(result.value->variables.empty());
  }
  // No file name: diagnostics still say where.
  Result<Manifest> unnamed = ParseManifest("bogus: 1\n", "");
  REQUIRE(unnamed.diagnostics.size() == 1);
  CHECK(unnamed.diagnostics[0].location.file == "<manifest>");
  CHECK(unnamed.diagnostics[0].location.line == 1);
}

TEST_CASE("diagnostics format with the manifest line and a caret") {
  const std::string text = "variables:\n  A: {type: ipv5}\n";
  Result<Manifest> result = Parse(text);
  REQUIRE(result.diagnostics.size() == 1);
  CHECK(FormatDiagnostic(result.diagnostics[0], text, false) ==
        "deploy/vars.yaml:2:13: error: unknown type 'ipv5'\n"
        "    A: {type: ipv5}\n"
        "              ^\n"
        "  hint: did you mean 'ipv4'? valid types: string, int, bool, ipv4, cidr, hostname, dns-label, list, "
        "enum, yaml\n");
}

TEST_CASE("ManifestFromShellFormat declares exactly the names mentioned") {
  Manifest m = ManifestFromShellFormat("${A} $B text $A ${C:-x} $$ $(K8S) $${ESC} $1");
  CHECK(m.mode == DeclarationMode::kShellFormat);
  std::vector<std::string> names;
  for (const Variable& variable : m.variables) {
    names.push_back(variable.name);
    CHECK(variable.type == VarType::kString);
  }
  CHECK(names == std::vector<std::string>{"A", "B", "C"});
  CHECK(ManifestFromShellFormat("no references").variables.empty());
  CHECK(ManifestFromShellFormat("").variables.empty());
}

}  // namespace
}  // namespace safesubst
