// SPDX-License-Identifier: Apache-2.0
#include "safesubst/steps.h"

#include <doctest/doctest.h>

#include <fstream>
#include <map>
#include <sstream>

#include <yaml-cpp/yaml.h>

#include "safesubst/manifest.h"
#include "safesubst/values.h"
#include "step_conditions.h"
#include "test_support.h"
#include "tree_oracle.h"

namespace safesubst {
namespace {

std::string ReadData(const std::string& relative) {
  std::ifstream in(std::string(SAFESUBST_SOURCE_DIR) + "/tests/data/steps/" + relative, std::ios::binary);
  REQUIRE_MESSAGE(in.good(), "missing test data ", relative);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

Step Delete(std::string path, bool optional = false) {
  Step step;
  step.action = Step::Action::kDelete;
  step.path = std::move(path);
  step.optional = optional;
  step.location = Location{"vars.yaml", 10, 5, 0};
  return step;
}

Step Merge(std::string fragment, std::string path, bool append = false) {
  Step step;
  step.action = Step::Action::kMerge;
  step.fragment_file = std::move(fragment);
  step.path = std::move(path);
  step.append = append;
  step.location = Location{"vars.yaml", 12, 5, 0};
  return step;
}

Step Set(std::string path, std::string value) {
  Step step;
  step.action = Step::Action::kSet;
  step.path = std::move(path);
  step.value = std::move(value);
  step.location = Location{"vars.yaml", 14, 5, 0};
  return step;
}

// A manifest, values and fragments for the steps under test.
struct Scenario {
  Manifest manifest;
  ValueSet values;
  std::map<std::string, std::string> fragments;
  int fragment_loads = 0;

  Scenario() {
    Variable app;
    app.name = "APP";
    app.type = VarType::kDnsLabel;
    Variable exclude;
    exclude.name = "EFS_ZONE_EXCLUDE_APPS";
    exclude.type = VarType::kList;
    exclude.default_value = "";
    Variable zone;
    zone.name = "ZONE_BOUNDARY";
    zone.type = VarType::kInt;
    zone.default_value = "31";
    manifest.variables = {app, exclude, zone};
  }

  void SetValue(const std::string& name, const std::string& text) { values.Set(name, Value{text, ValueSource::kCommandLine, {}}); }

  StepContext Context() {
    StepContext context = StepContextFor(manifest, values);
    context.file_name = "app.yaml";
    context.load_fragment = [this](const Step& step) {
      ++fragment_loads;
      Result<std::string> result;
      auto it = fragments.find(step.fragment_file);
      if (it == fragments.end()) {
        result.diagnostics.push_back(MakeError(step.location, "cannot read " + step.fragment_file));
      } else {
        result.value = it->second;
      }
      return result;
    };
    return context;
  }

  // Runs the steps through the engine and the tree oracle; they must agree and succeed.
  std::string Apply(std::string_view input, const std::vector<Step>& steps) {
    testing::OracleCheck check = testing::CheckAgainstTrees(input, steps, Context());
    INFO("oracle: ", check.report);
    CHECK(check.agree);
    std::string errors;
    for (const Diagnostic& d : check.engine.diagnostics) errors += d.message + "\n";
    INFO("diagnostics: ", errors);
    REQUIRE(check.engine.ok());
    return *check.engine.value;
  }

  // Runs the steps; the engine and the oracle must both fail. Returns the diagnostics.
  Diagnostics Fail(std::string_view input, const std::vector<Step>& steps) {
    testing::OracleCheck check = testing::CheckAgainstTrees(input, steps, Context());
    INFO("oracle: ", check.report);
    CHECK(check.agree);
    REQUIRE_FALSE(check.engine.ok());
    CHECK_FALSE(check.engine.value.has_value());
    return check.engine.diagnostics;
  }
};

bool Contains(std::string_view text, std::string_view part) { return text.find(part) != std::string_view::npos; }

// ---------------------------------------------------------------------------
// The seed scenario

TEST_CASE("steps: seed scenario, delete hostAliases and merge the EFS wrapper (golden)") {
  Scenario scenario;
  scenario.fragments["common/efs-zone-command.yaml"] = ReadData("seed/efs-zone-command.yaml");
  const std::string input = ReadData("seed/app.rendered.yaml");
  std::string output = scenario.Apply(input, {Delete(".spec.template.spec.hostAliases"),
                                              Merge("common/efs-zone-command.yaml", ".spec.template.spec.containers[0]")});
  CHECK(output == ReadData("seed/expected.yaml"));

  // The same facts, spelled out.
  CHECK_FALSE(Contains(output, "hostAliases"));
  CHECK_FALSE(Contains(output, "pinned per app group"));  // its comment went with it
  CHECK(Contains(output, "      serviceAccountName: mo-back   # IRSA role for S3\n"));
  CHECK(Contains(output, "            # the node's IP: the wrapper derives the zone from its third octet\n"));
  CHECK(Contains(output, "              readOnly: true\n          command: [\"/bin/sh\", \"-c\"]\n"));
  CHECK(Contains(output, "          args:\n            - |\n              EFS_HOST="));
  CHECK_FALSE(Contains(output, "merged into the app container"));  // the fragment's file header stays out

  // The script reads back byte for byte as the fragment's, runtime variables intact.
  YAML::Node rendered = YAML::Load(output);
  YAML::Node fragment = YAML::Load(ReadData("seed/efs-zone-command.yaml"));
  const YAML::Node container = rendered["spec"]["template"]["spec"]["containers"][0];
  CHECK(container["args"][0].Scalar() == fragment["args"][0].Scalar());
  CHECK(Contains(container["args"][0].Scalar(), "OCT3=$(echo \"$NODE_IP\" | cut -d. -f3)\n"));
  CHECK(container["command"][1].Scalar() == "-c");
  CHECK(container["name"].Scalar() == "mo-back");
  CHECK(scenario.fragment_loads == 2);  // once by the engine, once by the oracle
}

TEST_CASE("steps: seed scenario with the exclude-list condition") {
  Scenario scenario;
  scenario.fragments["common/efs-zone-command.yaml"] = ReadData("seed/efs-zone-command.yaml");
  const std::string input = ReadData("seed/app.rendered.yaml");
  Condition not_excluded;
  not_excluded.op = Condition::Op::kNotIn;
  not_excluded.var = "APP";
  not_excluded.operand = "EFS_ZONE_EXCLUDE_APPS";
  std::vector<Step> steps = {Delete(".spec.template.spec.hostAliases"),
                             Merge("common/efs-zone-command.yaml", ".spec.template.spec.containers[0]")};
  for (Step& step : steps) step.when = {not_excluded};
  scenario.SetValue("EFS_ZONE_EXCLUDE_APPS", "web-portal, admin-console");

  SUBCASE("an excluded app is left exactly as it was") {
    scenario.SetValue("APP", "web-portal");
    CHECK(scenario.Apply(input, steps) == input);
    CHECK(scenario.fragment_loads == 0);  // a skipped merge does not even read its fragment
  }
  SUBCASE("any other app gets the wrapper") {
    scenario.SetValue("APP", "mo-back");
    CHECK(scenario.Apply(input, steps) == ReadData("seed/expected.yaml"));
  }
  SUBCASE("an empty exclude list (the default) excludes nothing") {
    scenario.values = ValueSet();
    scenario.SetValue("APP", "web-portal");
    CHECK(scenario.Apply(input, steps) == ReadData("seed/expected.yaml"));
  }
}

TEST_CASE("steps: CRLF input keeps CRLF, inserted lines included") {
  Scenario scenario;
  scenario.fragments["common/efs-zone-command.yaml"] = ReadData("seed/efs-zone-command.yaml");  // LF
  auto crlf = [](std::string text) {
    std::string out;
    for (char c : text) {
      if (c == '\n') out += '\r';
      out += c;
    }
    return out;
  };
  const std::string input = crlf(ReadData("seed/app.rendered.yaml"));
  std::string output = scenario.Apply(input, {Delete(".spec.template.spec.hostAliases"),
                                              Merge("common/efs-zone-command.yaml", ".spec.template.spec.containers[0]")});
  CHECK(output == crlf(ReadData("seed/expected.yaml")));
  // No bare LF anywhere.
  for (std::size_t i = 0; i < output.size(); ++i) {
    if (output[i] == '\n') REQUIRE(i > 0);
    if (output[i] == '\n') CHECK(output[i - 1] == '\r');
  }
}

// ---------------------------------------------------------------------------
// Merge

constexpr std::string_view kPod =
    "spec:\n"
    "  containers:\n"
    "    - name: istio-proxy\n"
    "      image: istio/proxyv2:1.20.3\n"
    "    - name: app   # the application\n"
    "      image: registry.example.com/app:1.0\n"
    "      env:\n"
    "        - name: A\n"
    "          value: \"1\"\n"
    "      resources:\n"
    "        limits:\n"
    "          cpu: 500m\n"
    "          memory: 256Mi\n"
    "  volumes: []\n";

TEST_CASE("steps: merge into [name=app] picks the item by its name") {
  Scenario scenario;
  scenario.fragments["f.yaml"] = "imagePullPolicy: Always\n";
  std::string output = scenario.Apply(kPod, {Merge("f.yaml", ".spec.containers[name=app]")});
  CHECK(output ==
        "spec:\n"
        "  containers:\n"
        "    - name: istio-proxy\n"
        "      image: istio/proxyv2:1.20.3\n"
        "    - name: app   # the application\n"
        "      image: registry.example.com/app:1.0\n"
        "      env:\n"
        "        - name: A\n"
        "          value: \"1\"\n"
        "      resources:\n"
        "        limits:\n"
        "          cpu: 500m\n"
        "          memory: 256Mi\n"
        "      imagePullPolicy: Always\n"
        "  volumes: []\n");
}

TEST_CASE("steps: merge into [*] changes every item") {
  Scenario scenario;
  scenario.fragments["f.yaml"] = "securityContext:\n  readOnlyRootFilesystem: true\n";
  std::string output = scenario.Apply(kPod, {Merge("f.yaml", ".spec.containers[*]")});
  CHECK(output ==
        "spec:\n"
        "  containers:\n"
        "    - name: istio-proxy\n"
        "      image: istio/proxyv2:1.20.3\n"
        "      securityContext:\n"
        "        readOnlyRootFilesystem: true\n"
        "    - name: app   # the application\n"
        "      image: registry.example.com/app:1.0\n"
        "      env:\n"
        "        - name: A\n"
        "          value: \"1\"\n"
        "      resources:\n"
        "        limits:\n"
        "          cpu: 500m\n"
        "          memory: 256Mi\n"
        "      securityContext:\n"
        "        readOnlyRootFilesystem: true\n"
        "  volumes: []\n");
}

TEST_CASE("steps: sequences are replaced, or appended to with append") {
  Scenario scenario;
  scenario.fragments["env.yaml"] =
      "env:\n"
      "  # where the wrapper mounts EFS\n"
      "  - name: EFS_MOUNT\n"
      "    value: /mnt/efs\n";
  SUBCASE("replace") {
    std::string output = scenario.Apply(kPod, {Merge("env.yaml", ".spec.containers[1]")});
    CHECK(Contains(output,
                   "      env:\n"
                   "        # where the wrapper mounts EFS\n"
                   "        - name: EFS_MOUNT\n"
                   "          value: /mnt/efs\n"
                   "      resources:\n"));
    CHECK_FALSE(Contains(output, "name: A\n"));
  }
  SUBCASE("append") {
    std::string output = scenario.Apply(kPod, {Merge("env.yaml", ".spec.containers[1]", /*append=*/true)});
    CHECK(Contains(output,
                   "      env:\n"
                   "        - name: A\n"
                   "          value: \"1\"\n"
                   "        # where the wrapper mounts EFS\n"
                   "        - name: EFS_MOUNT\n"
                   "          value: /mnt/efs\n"
                   "      resources:\n"));
  }
  SUBCASE("append to an empty flow sequence") {
    scenario.fragments["vol.yaml"] = "volumes:\n  - name: efs\n    emptyDir: {}\n";
    std::string output = scenario.Apply(kPod, {Merge("vol.yaml", ".spec", true)});
    CHECK(Contains(output, "  volumes:\n    - name: efs\n      emptyDir: {}\n"));
  }
}

TEST_CASE("steps: mappings merge deeply and the fragment wins on scalars") {
  Scenario scenario;
  scenario.fragments["res.yaml"] =
      "resources:\n"
      "  limits:\n"
      "    cpu: \"1\"     # was 500m\n"
      "  requests:\n"
      "    cpu: 250m\n";
  std::string output = scenario.Apply(kPod, {Merge("res.yaml", ".spec.containers[name=app]")});
  CHECK(Contains(output,
                 "      resources:\n"
                 "        limits:\n"
                 "          cpu: \"1\"     # was 500m\n"
                 "          memory: 256Mi\n"
                 "        requests:\n"
                 "          cpu: 250m\n"
                 "  volumes: []\n"));
  YAML::Node cpu = YAML::Load(output)["spec"]["containers"][1]["resources"]["limits"]["cpu"];
  CHECK(cpu.Tag() == "!");  // still a quoted string, not the number 1
}

TEST_CASE("steps: a fragment key that adds to a nested mapping at the end of the target") {
  Scenario scenario;
  scenario.fragments["f.yaml"] = "resources:\n  limits:\n    ephemeral-storage: 1Gi\n  requests:\n    cpu: 100m\nports:\n- containerPort: 8080\n";
  std::string output = scenario.Apply(kPod, {Merge("f.yaml", ".spec.containers[1]")});
  // Inner additions come before outer ones even though they land on the same line.
  CHECK(Contains(output,
                 "          memory: 256Mi\n"
                 "          ephemeral-storage: 1Gi\n"
                 "        requests:\n"
                 "          cpu: 100m\n"
                 "      ports:\n"
                 "      - containerPort: 8080\n"
                 "  volumes: []\n"));
}

TEST_CASE("steps: merging at the document root, into null and into an empty mapping") {
  Scenario scenario;
  scenario.fragments["meta.yaml"] = "metadata:\n  annotations:\n    team: platform\n";
  std::string output = scenario.Apply("kind: ConfigMap\nmetadata:\n  name: x\n  annotations:\ndata: {}\n",
                                      {Merge("meta.yaml", ".")});
  CHECK(output == "kind: ConfigMap\nmetadata:\n  name: x\n  annotations:\n    team: platform\ndata: {}\n");

  scenario.fragments["data.yaml"] = "LOG_LEVEL: debug\n";
  output = scenario.Apply("kind: ConfigMap\ndata: {}   # filled per tenant\n", {Merge("data.yaml", ".data")});
  CHECK(output == "kind: ConfigMap\ndata:   # filled per tenant\n  LOG_LEVEL: debug\n");
}

TEST_CASE("steps: a multi-line string from the fragment stays a literal block") {
  Scenario scenario;
  scenario.fragments["cm.yaml"] =
      "data:\n"
      "  start.sh: |\n"
      "    #!/bin/sh\n"
      "    exec java -jar /app.jar \"$@\"\n";
  std::string output = scenario.Apply("kind: ConfigMap\ndata:\n  start.sh: echo old\n", {Merge("cm.yaml", ".")});
  CHECK(output ==
        "kind: ConfigMap\n"
        "data:\n"
        "  start.sh: |\n"
        "    #!/bin/sh\n"
        "    exec java -jar /app.jar \"$@\"\n");
}

TEST_CASE("steps: a flow-style target is re-emitted in block style, only that node") {
  Scenario scenario;
  scenario.fragments["res.yaml"] = "resources:\n  requests:\n    memory: 128Mi\n";
  std::string output = scenario.Apply(
      "containers:\n"
      "  - name: app   # keep me\n"
      "    resources: {limits: {cpu: 500m, memory: \"256Mi\"}}   # flow\n"
      "    image: app:1\n",
      {Merge("res.yaml", ".containers[0]")});
  CHECK(output ==
        "containers:\n"
        "  - name: app   # keep me\n"
        "    resources:   # flow\n"
        "      limits:\n"
        "        cpu: 500m\n"
        "        memory: \"256Mi\"\n"
        "      requests:\n"
        "        memory: 128Mi\n"
        "    image: app:1\n");

  // A path that goes through a flow collection converts it too.
  output = scenario.Apply("spec: {template: {spec: {containers: [{name: app, image: \"x:1\"}]}}}\n",
                          {Set(".spec.template.spec.containers[0].image", "\"x:2\"")});
  CHECK(output ==
        "spec:\n"
        "  template:\n"
        "    spec:\n"
        "      containers:\n"
        "        - name: app\n"
        "          image: \"x:2\"\n");
}

// ---------------------------------------------------------------------------
// Delete and set

TEST_CASE("steps: delete a sequence item, with its comment") {
  Scenario scenario;
  std::string output = scenario.Apply(
      "env:\n"
      "  - name: A\n"
      "    value: \"1\"\n"
      "  # B is only for debugging\n"
      "  - name: B\n"
      "    value: \"2\"\n"
      "  - name: C\n"
      "    value: \"3\"\n",
      {Delete(".env[name=B]")});
  CHECK(output == "env:\n  - name: A\n    value: \"1\"\n  - name: C\n    value: \"3\"\n");

  output = scenario.Apply("args: [\"--a\", \"--b\"]\nitems:\n- x\n- y\n- z\n", {Delete(".items[-1]"), Delete(".items[0]")});
  CHECK(output == "args: [\"--a\", \"--b\"]\nitems:\n- y\n");
}

// The document as PyYAML reads it (testing::ReadWithPyYaml).
std::string ReadWithPyYaml(const std::string& yaml) {
  testing::CommandResult read = testing::ReadWithPyYaml(yaml);
  INFO("python3: ", read.err);
  REQUIRE_MESSAGE(read.code == 0, "python3 could not read the output (is python3-yaml installed?)");
  return read.out;
}

TEST_CASE("steps: a re-emitted key holding a YAML 1.1 line break stays one key for PyYAML") {
  Scenario scenario;
  // NEL, LS, PS and BOM are line breaks or not text to YAML 1.1 readers:
  // written plain, the key would split. yaml-cpp reads either form the same.
  const std::string output = scenario.Apply(
      "m: {\"k\\u2028x\": 1, \"l\\u0085y\": 2, \"p\\u2029z\": 3, \"b\\ufeffw\": 4, c: 5}\n", {Delete(".m.c")});
  CHECK(ReadWithPyYaml(output) ==
        "{\"m\": {\"b\\ufeffw\": 4, \"k\\u2028x\": 1, \"l\\u0085y\": 2, \"p\\u2029z\": 3}}\n");
}

TEST_CASE("steps: deleting the last key leaves an empty mapping, the last item an empty sequence") {
  Scenario scenario;
  std::string output = scenario.Apply(
      "metadata:\n"
      "  name: web\n"
      "  annotations:   # set by CI\n"
      "    ci/build: \"1234\"\n"
      "spec:\n"
      "  hostAliases:\n"
      "  - ip: 10.0.1.10\n",
      {Delete(".metadata.annotations.\"ci/build\""), Delete(".spec.hostAliases[*]")});
  CHECK(output ==
        "metadata:\n"
        "  name: web\n"
        "  annotations: {}   # set by CI\n"
        "spec:\n"
        "  hostAliases: []\n");

  output = scenario.Apply("only: 1\n", {Delete(".only")});
  CHECK(output == "{}\n");
}

TEST_CASE("steps: delete the first key of a mapping inside a sequence item") {
  Scenario scenario;
  std::string output = scenario.Apply("- name: a\n  image: b\n  # pull policy\n  pull: Always\n- name: c\n",
                                      {Delete("[0].name"), Delete("[1].name")});
  CHECK(output == "- image: b\n  # pull policy\n  pull: Always\n- {}\n");
}

TEST_CASE("steps: set a scalar, a mapping and a new key") {
  Scenario scenario;
  const std::string input = ReadData("seed/app.rendered.yaml");
  std::string output = scenario.Apply(
      input, {Set(".spec.replicas", "3"), Set(".metadata.labels.tenant", "\"tenant-b\""),
              Set(".spec.template.spec.securityContext",
                  "fsGroup: 1\n"
                  "fsGroupChangePolicy: OnRootMismatch   # skip the recursive chown\n"),
              Set(".spec.template.spec.serviceAccountName", "mo-back-v2")});
  CHECK(Contains(output, "spec:\n  replicas: 3\n  selector:\n"));
  CHECK(Contains(output, "    tenant: \"tenant-b\"\nspec:\n"));
  CHECK(Contains(output, "      serviceAccountName: mo-back-v2   # IRSA role for S3\n"));
  CHECK(Contains(output,
                 "            name: tenant-a-mo-back-config\n"
                 "      securityContext:\n"
                 "        fsGroup: 1\n"
                 "        fsGroupChangePolicy: OnRootMismatch   # skip the recursive chown\n"));
  // Everything else is the input's bytes.
  CHECK(output.size() > input.size());
  CHECK(Contains(output, "          holdApplicationUntilProxyStarts: true   # istio-proxy first, then the app\n"));
}

// A set value is written as is: a declared name in it would never be substituted.
TEST_CASE("steps: a set value that names a declared variable is an error at the step") {
  Scenario scenario;
  scenario.manifest.runtime = {"NODE_IP"};
  const std::string input = "spec:\n  replicas: 1\n  name: a\n";
  for (const char* value : {"\"${APP}-x\"", "[\"echo $ZONE_BOUNDARY\"]", "\"${HOME:-${APP}}\""}) {
    CAPTURE(value);
    Result<std::string> result = ApplySteps(input, {Set(".spec.name", value)}, scenario.Context());
    REQUIRE_FALSE(result.ok());
    REQUIRE(result.diagnostics.size() == 1);
    CHECK(Contains(result.diagnostics[0].message, "which a `set` value does not substitute"));
  }
  // Runtime and undeclared names, `$$` and Kubernetes' $(NAME) are the value's own text.
  const std::string kept = "\"${NODE_IP} ${HOME} $$APP $(APP)\"";
  CHECK(Contains(scenario.Apply(input, {Set(".spec.name", kept)}), "name: " + kept));
}

TEST_CASE("steps: set replaces block values and writes block text below the key") {
  Scenario scenario;
  std::string output = scenario.Apply(
      "data:\n"
      "  config.json: '{}'   # placeholder\n"
      "  script: |\n"
      "    echo old\n"
      "  list:\n"
      "    - a\n"
      "    - b\n",
      {Set(".data.\"config.json\"", "|\n  {\"zone\": \"2a\"}\n"), Set(".data.script", "echo new"),
       Set(".data.list", "- c\n- d   # why\n")});
  CHECK(output ==
        "data:\n"
        "  config.json: |\n"
        "    {\"zone\": \"2a\"}\n"
        "  script: echo new\n"
        "  list:\n"
        "    - c\n"
        "    - d   # why\n");
}

TEST_CASE("steps: set into a null parent or a sequence item") {
  Scenario scenario;
  std::string output = scenario.Apply("metadata:\n  annotations:\nitems:\n  - a\n  - b\n",
                                      {Set(".metadata.annotations.owner", "platform"), Set(".items[1]", "{x: 1}")});
  CHECK(output == "metadata:\n  annotations:\n    owner: platform\nitems:\n  - a\n  - {x: 1}\n");
}

// ---------------------------------------------------------------------------
// Paths that match nothing, and other errors

TEST_CASE("steps: an optional path that matches nothing changes nothing") {
  Scenario scenario;
  const std::string input = ReadData("seed/app.rendered.yaml");
  CHECK(scenario.Apply(input, {Delete(".spec.template.spec.initContainers", /*optional=*/true)}) == input);
  Step set = Set(".spec.nothing.here", "1");
  set.optional = true;
  CHECK(scenario.Apply(input, {set}) == input);
}

TEST_CASE("steps: a path that matches nothing is an error at the step, naming path and document") {
  Scenario scenario;
  Diagnostics diagnostics = scenario.Fail(ReadData("seed/app.rendered.yaml"), {Delete(".spec.template.spec.initContainers")});
  REQUIRE(diagnostics.size() == 1);
  const Diagnostic& d = diagnostics[0];
  CHECK(d.severity == Severity::kError);
  CHECK(d.location.file == "vars.yaml");
  CHECK(d.location.line == 10);
  CHECK(Contains(d.message, "delete `.spec.template.spec.initContainers`"));
  CHECK(Contains(d.message, "the document (Deployment tenant-a-mo-back, app.yaml:2)"));
  CHECK(Contains(d.message, "`.spec.template.spec` has no key `initContainers`"));
  CHECK(Contains(d.hint, "optional: true"));

  diagnostics = scenario.Fail("items: [a]\nmap: {k: v}\n", {Set(".items[3]", "x")});
  REQUIRE(diagnostics.size() == 1);
  CHECK(Contains(diagnostics[0].message, "`.items` has 1 item; index 3 is out of range"));

  diagnostics = scenario.Fail("spec:\n  containers:\n  - name: web\n", {Delete(".spec.containers[name=app]")});
  CHECK(Contains(diagnostics[0].message, "no item of `.spec.containers` has `name: app`"));

  diagnostics = scenario.Fail("spec:\n  containers: 3\n", {Delete(".spec.containers[0]")});
  CHECK(Contains(diagnostics[0].message, "`.spec.containers` is a scalar, not a sequence"));
}

TEST_CASE("steps: a bad path is reported with its column, before anything runs") {
  Scenario scenario;
  Diagnostics diagnostics = scenario.Fail("a: 1\n", {Delete(".spec.containers[0"), Set(".a", "2"), Delete("spec")});
  REQUIRE(diagnostics.size() == 2);
  CHECK(Contains(diagnostics[0].message, "invalid path `.spec.containers[0` (column 19)"));
  CHECK(Contains(diagnostics[0].message, "expected `]`"));
  CHECK(diagnostics[0].location.line == 10);
  CHECK(Contains(diagnostics[1].message, "invalid path `spec` (column 1)"));
  CHECK(CheckStepPaths({Delete(".ok[0]"), Delete(".a.\"b.c\"[name=x]")}).empty());
}

TEST_CASE("steps: a step that breaks an alias is an error at that step") {
  // The tree oracle cannot see this: yaml-cpp resolves the alias, so on trees
  // the delete is fine. The one place where the two are expected to differ.
  Scenario scenario;
  testing::OracleCheck check = testing::CheckAgainstTrees(
      "defaults: &defaults\n  cpu: 1\napp:\n  resources: *defaults\n", {Delete(".defaults")}, scenario.Context());
  CHECK_FALSE(check.agree);
  CHECK(Contains(check.report, "the tree oracle succeeded but the engine failed"));
  const Diagnostics& diagnostics = check.engine.diagnostics;
  REQUIRE(diagnostics.size() == 1);
  CHECK(Contains(diagnostics[0].message, "delete `.defaults` in the document"));
  CHECK(Contains(diagnostics[0].message, "does not parse"));
  CHECK(Contains(diagnostics[0].hint, "anchor"));
}

// yaml-cpp witnesses each edited document once, after the last step; when
// one does not parse, the steps run again witnessed after every edit. So a
// step that breaks an alias still fails, and names itself, even where a
// later step removes the alias and the final document would parse; the
// later step runs on the document as it was before the failed edit.
TEST_CASE("steps: a broken alias fails its step even where a later step removes the alias") {
  Scenario scenario;
  const std::string input = "defaults: &defaults\n  cpu: 1\napp:\n  resources: *defaults\n  name: x\n";
  testing::OracleCheck check =
      testing::CheckAgainstTrees(input, {Delete(".defaults"), Delete(".app.resources")}, scenario.Context());
  CHECK_FALSE(check.agree);
  const Diagnostics& diagnostics = check.engine.diagnostics;
  REQUIRE(diagnostics.size() == 1);
  CHECK(Contains(diagnostics[0].message, "delete `.defaults` in the document"));
  CHECK(Contains(diagnostics[0].message, "does not parse"));
  CHECK_FALSE(check.engine.value.has_value());

  // The same two steps in the other order are fine: the alias goes first.
  CHECK(scenario.Apply(input, {Delete(".app.resources"), Delete(".defaults")}) == "app:\n  name: x\n");
}

// Attacker A1: the tokenizer accepts an empty anchor `&`, which yaml-cpp and
// the spec refuse; a fragment holding one, whose bad part a later step
// deletes, must still fail at the merge, as when every edit was witnessed.
TEST_CASE("steps: a fragment yaml-cpp cannot read fails its merge even where a later step deletes the bad part") {
  Scenario scenario;
  for (const std::string fragment : {"x: &\ny: 1\n", "x: !! 3\ny: 1\n"}) {
    CAPTURE(fragment);
    scenario.fragments["frag.yaml"] = fragment;
    StepContext context = scenario.Context();
    Result<std::string> result = ApplySteps("a: 1\nc: {}\n", {Merge("frag.yaml", ".c"), Delete(".c.x")}, context);
    REQUIRE_FALSE(result.ok());
    REQUIRE_FALSE(result.diagnostics.empty());
    CHECK(Contains(result.diagnostics[0].message, "merge `frag.yaml` into `.c`: in the fragment frag.yaml:1:"));
    CHECK(Contains(result.diagnostics[0].message, "not valid YAML"));
  }
  StepContext context = scenario.Context();
  Result<std::string> result = ApplySteps("a: 1\nc: 2\n", {Set(".c", "&"), Set(".c", "3")}, context);
  REQUIRE_FALSE(result.ok());
  CHECK(Contains(result.diagnostics[0].message, "set `.c`: the value is not usable"));
}

// Attacker F1 and F2 (660b3bc): invalid YAML that libfyaml, the fast witness,
// takes (an anchor glued to a flow collection, `?` glued to a flow end) must
// fail as it did when yaml-cpp witnessed every edit: in a fragment, and in
// the document a step edits.
TEST_CASE("steps: invalid YAML only libfyaml would take fails as before, in a fragment and in the edited document") {
  Scenario scenario;
  for (const std::string fragment : {"k: &a{b}\n", "k: [?]\n", "k: {?}\n", "k: [?, a]\n", "k: {a: 1, ?}\n"}) {
    CAPTURE(fragment);
    scenario.fragments["frag.yaml"] = fragment;
    StepContext context = scenario.Context();
    Result<std::string> result = ApplySteps("a: 1\nx:\n  y: 0\n", {Merge("frag.yaml", ".x")}, context);
    REQUIRE_FALSE(result.ok());
    REQUIRE_FALSE(result.diagnostics.empty());
    CHECK(Contains(result.diagnostics[0].message, "merge `frag.yaml` into `.x`: in the fragment frag.yaml:1:"));
    CHECK(Contains(result.diagnostics[0].message, "not valid YAML"));
  }
  StepContext context = scenario.Context();
  Result<std::string> result = ApplySteps("x: 1\nk: &a[b]\n", {Set(".x", "2")}, context);
  REQUIRE_FALSE(result.ok());
  CHECK(Contains(result.diagnostics[0].message, "illegal character found while scanning anchor"));
}

// The tokenizer's reading plans each edit alone and yaml-cpp witnesses the result; where
// the input itself is what yaml-cpp refuses, the step fails as it did when
// every edit was cross-checked: naming the input ("not valid YAML"), not the
// edit. (Where the edit removes a refused part other than an alias to no
// anchor, the witness accepts the result: yaml-cpp witnesses edits, it no
// longer gatekeeps their input.)
TEST_CASE("steps: input yaml-cpp refuses is reported as such, not as a broken edit") {
  Scenario scenario;
  scenario.fragments["x.yaml"] = "a: *nowhere\nb: 1\n";
  Diagnostics diagnostics = scenario.Fail("a: *nowhere\nb: 1\n", {Delete(".b")});
  REQUIRE(diagnostics.size() == 1);
  CHECK(Contains(diagnostics[0].message, "delete `.b` in the document"));
  CHECK(Contains(diagnostics[0].message, "not valid YAML"));
  CHECK_FALSE(Contains(diagnostics[0].message, "does not parse"));

  // An alias to no anchor is refused even where the edit deletes it: the
  // tokenizer does not check aliases, so the layout leaves that to yaml-cpp.
  diagnostics = scenario.Fail("a: *nowhere\nb: 1\n", {Delete(".a")});
  REQUIRE(diagnostics.size() == 1);
  CHECK(Contains(diagnostics[0].message, "delete `.a` in the document"));
  CHECK(Contains(diagnostics[0].message, "not valid YAML: the referenced anchor is not defined"));

  diagnostics = scenario.Fail("spec: {}\n", {Merge("x.yaml", ".spec")});
  REQUIRE(diagnostics.size() == 1);
  CHECK(Contains(diagnostics[0].message, "in the fragment x.yaml:1:"));
  CHECK(Contains(diagnostics[0].message, "not valid YAML"));
}

TEST_CASE("steps: merge errors") {
  Scenario scenario;
  scenario.fragments["map.yaml"] = "a: 1\n";
  scenario.fragments["empty.yaml"] = "# nothing yet\n";
  scenario.fragments["broken.yaml"] = "a: 1\nb: [unclosed\n";
  const std::string input = "spec:\n  containers:\n  - name: app\n";

  Diagnostics diagnostics = scenario.Fail(input, {Merge("map.yaml", ".spec.containers")});
  CHECK(Contains(diagnostics[0].message, "cannot merge a mapping fragment into `.spec.containers`, which is a sequence"));

  diagnostics = scenario.Fail(input, {Merge("empty.yaml", ".spec")});
  CHECK(Contains(diagnostics[0].message, "the fragment is empty"));

  diagnostics = scenario.Fail(input, {Merge("broken.yaml", ".spec")});
  CHECK(Contains(diagnostics[0].message, "in the fragment broken.yaml:"));

  diagnostics = scenario.Fail(input, {Merge("missing.yaml", ".spec")});
  CHECK(Contains(diagnostics[0].message, "cannot read missing.yaml"));

  diagnostics = scenario.Fail(input, {Delete(".")});
  CHECK(Contains(diagnostics[0].message, "cannot delete the document root"));
}

// ---------------------------------------------------------------------------
// Multi-document streams

TEST_CASE("steps: multi-document stream, match by kind, name and labels") {
  Scenario scenario;
  const std::string input = ReadData("multi/stream.yaml");
  scenario.fragments["pull.yaml"] = "imagePullPolicy: IfNotPresent\n";

  Step by_kind = Merge("pull.yaml", ".spec.template.spec.containers[name=app]");
  by_kind.match.kind = "Deployment";
  std::string output = scenario.Apply(input, {by_kind});
  CHECK(Contains(output,
                 "        - name: app\n"
                 "          image: registry.example.com/web:2.3.1\n"
                 "          imagePullPolicy: IfNotPresent\n"
                 "        - name: istio-proxy"));
  CHECK(Contains(output,
                 "      - name: app\n"
                 "        image: registry.example.com/worker:2.3.1\n"
                 "        imagePullPolicy: IfNotPresent\n"
                 "---\n"));

  Step by_name = Set(".spec.ports[0].targetPort", "http");
  by_name.match.kind = "Service";
  by_name.match.name = "web";
  output = scenario.Apply(input, {by_name});
  CHECK(Contains(output, "    - port: 80\n      targetPort: http\n---\n"));

  Step by_label = Set(".spec.replicas", "4");
  by_label.match.labels = {{"tier", "backend"}};
  output = scenario.Apply(input, {by_label});
  CHECK(Contains(output, "    tier: backend\nspec:\n  template:\n"));
  CHECK(Contains(output, "      - name: app\n        image: registry.example.com/worker:2.3.1\n  replicas: 4\n---\n"));
  CHECK(output.find("replicas") == output.rfind("replicas"));  // only the worker

  Step flow_labels = Delete(".metadata.labels.tier");
  flow_labels.match.labels = {{"app", "web"}};
  output = scenario.Apply(input, {flow_labels});
  CHECK(Contains(output, "  name: web\n  labels:\n    app: web\nspec:\n"));

  // Everything outside the touched document is the input's bytes.
  CHECK(output.substr(output.find("kind: Service")) == input.substr(input.find("kind: Service")));
}

// A document the tokenizer's layout shows not to match is skipped without a
// yaml-cpp parse; where it cannot tell (flow or aliased metadata, a quoted or
// tagged value), yaml-cpp reads the document as before. Either way the
// matches are yaml-cpp's.
TEST_CASE("steps: match reads kind, name and labels as yaml-cpp does, in every style") {
  Scenario scenario;
  const std::string input =
      "kind: Service\nmetadata: {name: web, labels: {tier: front}}\nspec: {a: 1}\n"
      "---\n"
      "kind: \"Deployment\"\nmetadata:\n  name: !!str web\n  labels:\n    tier: front\nspec:\n  a: 1\n"
      "---\n"
      "kind: Deployment\ncommon: &l\n  tier: front\nmetadata:\n  name: api\n  labels: *l\nspec:\n  a: 1\n"
      "---\n"
      "kind: ConfigMap\nmetadata:\n  name: web\ndata:\n  a: 1\n";
  Step by_name = Set(".spec.b", "2");
  by_name.match.kind = "Service";
  by_name.match.name = "web";
  CHECK(Contains(scenario.Apply(input, {by_name}), "spec:\n  a: 1\n  b: 2\n---\nkind: \"Deployment\""));

  Step tagged = Set(".spec.b", "2");
  tagged.match.kind = "Deployment";
  tagged.match.name = "web";
  std::string output = scenario.Apply(input, {tagged});
  CHECK(Contains(output, "    tier: front\nspec:\n  a: 1\n  b: 2\n---\n"));
  CHECK(output.find("b: 2") == output.rfind("b: 2"));  // not api, not the ConfigMap

  Step by_label = Set(".spec.b", "2");
  by_label.match.labels = {{"tier", "front"}};
  output = scenario.Apply(input, {by_label});
  CHECK(Contains(output, "spec:\n  a: 1\n  b: 2\n---\nkind: ConfigMap"));  // the aliased labels of api
  CHECK(output.find("b: 2") != output.rfind("b: 2"));
  CHECK(output.find("data:\n  a: 1\n") != std::string::npos);  // the ConfigMap has no labels
}

// The fields a match reads come from the tokenizer's layout, not from a
// yaml-cpp parse of each document: valid YAML that yaml-cpp misreads (a block
// scalar not indented past its anchor) used to read as no kind at all, so a
// `match:` step skipped the document without a word. Now it is selected, and
// its edit stands: the witness, libfyaml, reads the edited document as the
// spec does (yaml-cpp, the witness before it, failed the edit).
TEST_CASE("steps: a match selects a document yaml-cpp cannot read, by the tokenizer's reading") {
  Scenario scenario;
  const std::string misread = "kind: ConfigMap\nmetadata:\n  name: b\nitems:\n- &x |-\n  text\ndata:\n  x: \"1\"\n";
  const std::string input = "kind: ConfigMap\nmetadata:\n  name: a\ndata:\n  x: \"1\"\n---\n" + misread;
  DocumentMatch config_map;
  config_map.kind = "ConfigMap";
  CHECK(DocumentMatches(config_map, misread));
  config_map.name = "b";
  CHECK(DocumentMatches(config_map, misread));

  Step set = Set(".data.y", "\"2\"");
  set.match.kind = "ConfigMap";
  StepContext context = scenario.Context();
  Result<std::string> result = ApplySteps(input, {set}, context);
  REQUIRE(result.ok());
  CHECK(*result.value == "kind: ConfigMap\nmetadata:\n  name: a\ndata:\n  x: \"1\"\n  \"y\": \"2\"\n---\n" + misread +
                             "  \"y\": \"2\"\n");

  // Where the layout leaves the fields to yaml-cpp (flow metadata) and
  // yaml-cpp cannot read the document, the step says it cannot tell.
  const std::string flow = "kind: ConfigMap\nmetadata: {name: c}\nitems:\n- &x |-\n  text\n";
  set.match.name = "c";
  result = ApplySteps(input + "---\n" + flow, {set}, context);
  REQUIRE_FALSE(result.ok());
  REQUIRE(result.diagnostics.size() == 2);
  CHECK(Contains(result.diagnostics[0].message,
                 "set `.data.y`: cannot tell whether document 3 (ConfigMap, app.yaml:16) matches "
                 "{kind: ConfigMap, name: c}: "));
  CHECK(Contains(result.diagnostics[1].message, "no document matches {kind: ConfigMap, name: c}"));
  config_map.name = "c";
  CHECK_FALSE(DocumentMatches(config_map, flow));
}

TEST_CASE("steps: without a match a path must match in some document, with one, in every matched document") {
  Scenario scenario;
  const std::string input = ReadData("multi/stream.yaml");
  // Only the Deployments have containers: fine without a match.
  std::string output = scenario.Apply(input, {Delete(".spec.template.spec.containers[name=istio-proxy]")});
  CHECK_FALSE(Contains(output, "istio-proxy"));

  Diagnostics diagnostics = scenario.Fail(input, {Delete(".spec.template.spec.hostAliases")});
  REQUIRE(diagnostics.size() == 1);
  CHECK(Contains(diagnostics[0].message, "matches nothing in any of the 4 documents; in document 1 (Deployment web, app.yaml:3)"));

  Step worker_only = Delete(".spec.template.spec.containers[name=istio-proxy]");
  worker_only.match.name = "worker";
  diagnostics = scenario.Fail(input, {worker_only});
  REQUIRE(diagnostics.size() == 1);
  CHECK(Contains(diagnostics[0].message, "document 3 (Deployment worker, app.yaml:28)"));

  Step nobody = Delete(".spec");
  nobody.match.kind = "StatefulSet";
  diagnostics = scenario.Fail(input, {nobody});
  CHECK(Contains(diagnostics[0].message, "no document matches {kind: StatefulSet}"));
  nobody.optional = true;
  CHECK(scenario.Apply(input, {nobody}) == input);
}

TEST_CASE("steps: empty documents are skipped") {
  Scenario scenario;
  const std::string input = "---\n# nothing here\n---\nkind: A\nx: 1\n---\n";
  CHECK(scenario.Apply(input, {Set(".x", "2")}) == "---\n# nothing here\n---\nkind: A\nx: 2\n---\n");
}

// ---------------------------------------------------------------------------
// Conditions and matches

TEST_CASE("steps: conditions") {
  Scenario scenario;
  scenario.SetValue("APP", "mo-back");
  scenario.SetValue("EFS_ZONE_EXCLUDE_APPS", "web-portal admin,mo-back");
  auto check = [&](Condition::Op op, std::string var, std::string operand) {
    Condition condition;
    condition.op = op;
    condition.var = std::move(var);
    condition.operand = std::move(operand);
    return EvaluateCondition(condition, scenario.Context().value_of);
  };
  CHECK(check(Condition::Op::kIn, "APP", "EFS_ZONE_EXCLUDE_APPS"));
  CHECK_FALSE(check(Condition::Op::kNotIn, "APP", "EFS_ZONE_EXCLUDE_APPS"));
  scenario.SetValue("APP", "mo");  // a prefix of a list item is not in the list
  CHECK_FALSE(check(Condition::Op::kIn, "APP", "EFS_ZONE_EXCLUDE_APPS"));
  CHECK(check(Condition::Op::kNotIn, "APP", "EFS_ZONE_EXCLUDE_APPS"));

  CHECK(check(Condition::Op::kEquals, "APP", "mo"));
  CHECK_FALSE(check(Condition::Op::kEquals, "APP", "mo-back"));
  CHECK(check(Condition::Op::kNotEquals, "APP", "mo-back"));
  CHECK(check(Condition::Op::kIsSet, "APP", ""));
  CHECK_FALSE(check(Condition::Op::kIsUnset, "APP", ""));

  // ZONE_BOUNDARY has no value but a default; UNKNOWN has neither.
  CHECK(check(Condition::Op::kEquals, "ZONE_BOUNDARY", "31"));
  CHECK(check(Condition::Op::kIsSet, "ZONE_BOUNDARY", ""));
  CHECK(check(Condition::Op::kIsUnset, "UNKNOWN", ""));
  CHECK_FALSE(check(Condition::Op::kEquals, "UNKNOWN", ""));
  CHECK(check(Condition::Op::kNotEquals, "UNKNOWN", ""));
  CHECK_FALSE(check(Condition::Op::kIn, "UNKNOWN", "EFS_ZONE_EXCLUDE_APPS"));
  CHECK(check(Condition::Op::kNotIn, "UNKNOWN", "EFS_ZONE_EXCLUDE_APPS"));

  // All conditions of a step must hold.
  Step step = Set(".x", "1");
  Condition a, b;
  a.op = Condition::Op::kIsSet;
  a.var = "APP";
  b.op = Condition::Op::kEquals;
  b.var = "APP";
  b.operand = "other";
  step.when = {a};
  CHECK(ConditionsHold(step, scenario.Context().value_of));
  step.when = {a, b};
  CHECK_FALSE(ConditionsHold(step, scenario.Context().value_of));
  CHECK(scenario.Apply("x: 0\n", {step}) == "x: 0\n");
  step.when = {a};
  CHECK(scenario.Apply("x: 0\n", {step}) == "x: 1\n");
}

TEST_CASE("steps: document matches") {
  const std::string deployment = "kind: Deployment\nmetadata:\n  name: web\n  labels: {app: web, tier: \"frontend\"}\n";
  DocumentMatch match;
  CHECK(DocumentMatches(match, deployment));
  match.kind = "Deployment";
  CHECK(DocumentMatches(match, deployment));
  match.name = "web";
  match.labels = {{"tier", "frontend"}};
  CHECK(DocumentMatches(match, deployment));
  match.labels.emplace_back("app", "api");
  CHECK_FALSE(DocumentMatches(match, deployment));
  match.labels.clear();
  match.name = "api";
  CHECK_FALSE(DocumentMatches(match, deployment));
  match.name.clear();
  match.kind = "Service";
  CHECK_FALSE(DocumentMatches(match, deployment));
  CHECK_FALSE(DocumentMatches(match, "- not a mapping\n"));
}

// Last in this file: how many engine-versus-oracle comparisons ran above.
TEST_CASE("steps: oracle comparisons") {
  MESSAGE("engine-versus-oracle comparisons so far: ", testing::OracleCheckCount());
}

// Lines are counted document by document; the places in an error must still
// be lines of the whole stream.
TEST_CASE("steps: an edit error in a later document names its lines in the stream") {
  Scenario scenario;
  const std::string stream = "a: 1\n---\n# c\n\nkind: X\nspec:\n  ? q\n  : v\n";
  StepContext context = scenario.Context();
  Result<std::string> result = ApplySteps(stream, {Set(".spec.replicas", "3")}, context);
  REQUIRE_FALSE(result.ok());
  std::string messages;
  for (const Diagnostic& d : result.diagnostics) messages += d.message + "\n";
  CAPTURE(messages);
  CHECK(Contains(messages, "in document 2 (X, app.yaml:5)"));
  CHECK(Contains(messages, "(at app.yaml:7:3)"));
}

}  // namespace
}  // namespace safesubst
