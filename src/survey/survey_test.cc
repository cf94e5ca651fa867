// SPDX-License-Identifier: Apache-2.0
#include "safesubst/survey.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "safesubst/render.h"
#include "test_support.h"

using namespace safesubst;

namespace {

std::optional<std::string> NoEnvironment(std::string_view) { return std::nullopt; }

// A value of the declared type, for rendering with a starter manifest.
std::string SampleValue(VarType type) {
  switch (type) {
    case VarType::kInt: return "3";
    case VarType::kBool: return "true";
    case VarType::kIpv4: return "10.0.0.1";
    case VarType::kCidr: return "10.0.0.0/16";
    default: return "sample";
  }
}

// Every template of the examples and the tests that renders: the examples'
// YAML files but manifests and values, the test templates, and the golden
// cases' templates whose expected render succeeds.
std::vector<std::filesystem::path> SurveyedTemplates() {
  namespace fs = std::filesystem;
  std::vector<fs::path> files;
  auto is_template = [](const fs::path& path) {
    const std::string name = path.filename().string();
    return path.extension() == ".yaml" && name != "manifest.yaml" && name != "values.yaml" &&
           path.parent_path().filename() != "values";
  };
  for (const char* dir : {"examples", "tests/data/k8s", "tests/data/envsubst", "tests/data/realworld"}) {
    for (const auto& entry : fs::recursive_directory_iterator(testing::SourceDir() / dir)) {
      if (entry.is_regular_file() && is_template(entry.path())) files.push_back(entry.path());
    }
  }
  for (const auto& golden : fs::directory_iterator(testing::SourceDir() / "tests/golden")) {
    const std::string command = testing::ReadFile(golden.path() / "cmd");
    if (testing::ReadFile(golden.path() / "expected.code") != "0\n" || !command.starts_with("render")) continue;
    for (const auto& entry : fs::directory_iterator(golden.path())) {
      if (is_template(entry.path()) && command.find(entry.path().filename().string()) != std::string::npos) {
        files.push_back(entry.path());
      }
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace

TEST_CASE("init: data names declared, script-only names runtime, both-way names flagged") {
  std::vector<TemplateSource> templates = {
      {"a.yaml", "name: ${APP}\nreplicas: ${N}\ncommand: [sh, -c]\nargs:\n  - |\n    echo $NODE_IP ${APP}\n"}};
  Result<std::vector<SurveyedName>> survey = SurveyTemplates(templates, NoEnvironment);
  REQUIRE(survey.ok());
  std::string manifest = StarterManifest(*survey.value);
  CHECK(manifest.find("  # AMBIGUOUS: APP is also used inside scripts (a.yaml:6:19)") != std::string::npos);
  CHECK(manifest.find("  \"N\": {type: int}") != std::string::npos);  // typed by its key `replicas`; `N` quoted (a YAML 1.1 boolean)
  CHECK(manifest.find("  - NODE_IP") != std::string::npos);
  Result<Manifest> parsed = ParseManifest(manifest, "starter.yaml");
  CHECK(parsed.ok());
}

// Issue 26, measured on clusterctl templates: the names of manifests embedded
// in block scalars (a ClusterResourceSet's ConfigMap, a kubeadm file) were
// listed as runtime, and the render kept their `${NAME}` with exit 0.
TEST_CASE("init: a braced name in a script context that is no shell script is deploy-time") {
  const std::vector<TemplateSource> templates = {
      {"t.yaml", "kind: ConfigMap\ndata:\n  ccm.yaml: |\n    image: ccm:${CCM_TAG}\n    region: $REGION\n"
                 "  run.sh: |\n    echo ${RUNTIME_ONLY} ${SHARED}\n---\n"
                 "spec:\n  containers:\n    - command: [/app]\n      args: [\"--name=${APP}\"]\n"
                 "  files:\n    - content: |\n        #!/bin/bash\n        echo ${SHARED:-x} ${TAG#v}\n"}};
  Result<std::vector<SurveyedName>> survey = SurveyTemplates(templates, NoEnvironment);
  REQUIRE(survey.ok());
  std::map<std::string, std::pair<std::size_t, std::size_t>> uses;  // data, script
  for (const SurveyedName& name : *survey.value) uses[name.name] = {name.data_uses.size(), name.script_uses.size()};
  CHECK(uses["CCM_TAG"] == std::pair<std::size_t, std::size_t>{1, 0});  // embedded YAML: deploy-time
  CHECK(uses["APP"] == std::pair<std::size_t, std::size_t>{1, 0});      // a program's argument, not a shell's
  CHECK(uses["REGION"] == std::pair<std::size_t, std::size_t>{0, 1});   // bare: cannot be told
  CHECK(uses["RUNTIME_ONLY"] == std::pair<std::size_t, std::size_t>{0, 1});  // a shell script (.sh)
  CHECK(uses["SHARED"] == std::pair<std::size_t, std::size_t>{0, 2});   // .sh and #!/bin/bash
  CHECK(uses["TAG"] == std::pair<std::size_t, std::size_t>{0, 1});
}

// The string operations of the Flux/clusterctl dialect name their variable.
TEST_CASE("init: a name used only in a string operation is declared") {
  Result<std::vector<SurveyedName>> survey =
      SurveyTemplates({{"a.yaml", "image: r/app:${TAG%%-*}\nshort: ${#NAME}\n"}}, NoEnvironment);
  REQUIRE(survey.ok());
  std::vector<std::string> names;
  for (const SurveyedName& name : *survey.value) names.push_back(name.name);
  CHECK(names == std::vector<std::string>{"NAME", "TAG"});
}

// Issue 26: `init` declared `ref` and `schema` for a CRD and wrote PowerShell's
// `$null` as `- null`, which the render then refused.
TEST_CASE("init: dollars of other languages are neither declared nor listed as runtime") {
  const std::vector<TemplateSource> templates = {
      {"crd.yaml", "schema:\n  $schema: http://json-schema.org/draft-07/schema#\n  $ref: '#/$defs/x'\n  $id: x\n"},
      {"rule.yaml", "annotations:\n  summary: '{{ $labels.job }} is {{ $value }}'\n  desc: \"{{ range $i, $e := .x }}\"\n"},
      {"patch.yaml", "spec:\n  containers:\n    - name: a\n      $patch: delete\n  \"$retain\": x\n"},
      {"nginx.yaml", "data:\n  nginx.conf: |\n    return 301 https://$host$request_uri;\n    log $http_x_real_ip;\n"
                     "  annotation: $remote_addr\n"},
      {"ps.yaml", "args:\n  - |\n    if ($x -eq $null) { $ok = $TRUE; $p = $env:PATH; $False }\n"}};
  Result<std::vector<SurveyedName>> survey = SurveyTemplates(templates, NoEnvironment);
  REQUIRE(survey.ok());
  std::vector<std::string> names;
  for (const SurveyedName& name : *survey.value) names.push_back(name.name);
  // Only the PowerShell script's own variables remain (runtime), and the
  // braced form is never foreign.
  CHECK(names == std::vector<std::string>{"ok", "p", "x"});
  CHECK(SurveyTemplates({{"f.yaml", "a: '{{ ${X} }}'\n"}}, NoEnvironment).value->size() == 1);
}

// Issue 26: `init` declared HOME and PATH because they were set, and the
// render wrote the CI runner's PATH into containers.
TEST_CASE("init: a name is never declared because the environment has it") {
  auto environment = [](std::string_view name) -> std::optional<std::string> {
    if (name == "HOME" || name == "PATH" || name == "STAGE") return std::string("/x");
    return std::nullopt;
  };
  const std::vector<TemplateSource> templates = {
      {"t.yaml", "env:\n  - name: P\n    value: ${PATH}:/opt\nargs:\n  - |\n    cd $HOME; echo $STAGE\n"}};
  Result<std::vector<SurveyedName>> survey = SurveyTemplates(templates, environment);
  REQUIRE(survey.ok());
  const std::string manifest = StarterManifest(*survey.value);
  CHECK(manifest.find("variables: {}") != std::string::npos);
  CHECK(manifest.find("  - HOME   # set by the shell, the CI runner or Kubernetes") != std::string::npos);
  CHECK(manifest.find("  - PATH   # set by the shell, the CI runner or Kubernetes: t.yaml:3:12") != std::string::npos);
  CHECK(manifest.find("  - STAGE   # only in scripts: t.yaml:6:20; set in the environment now") != std::string::npos);
}

TEST_CASE("init: types come from the key, the default word or the value, where the reference is the whole value") {
  auto environment = [](std::string_view name) -> std::optional<std::string> {
    if (name == "TAG" || name == "COUNT") return std::string("123");
    if (name == "IP") return std::string("10.0.0.9");
    return std::nullopt;
  };
  const std::vector<TemplateSource> templates = {
      {"t.yaml", "spec:\n  securityContext:\n    runAsUser: ${PUID:=1000}\n    fsGroup: ${FSG}\n"
                 "  progressDeadlineSeconds: ${DEADLINE}\n  enabled: ${ON_OFF}\n  size: ${SIZE:=20}\n"
                 "  debug: ${DEBUG:-false}\n  image: app:${TAG}\n  count: ${COUNT}\n  quoted: \"${Q:=3}\"\n"
                 "  host: ${IP}\n  name: ${NAME:=web}\n  memoryMiB: ${MEM}\n  customSizeInGB: ${DISK}\n"
                 "  memory: ${MEMORY}\n"}};
  Result<std::vector<SurveyedName>> survey = SurveyTemplates(templates, environment);
  REQUIRE(survey.ok());
  std::map<std::string, std::pair<VarType, std::string>> types;
  for (const SurveyedName& name : *survey.value) types[name.name] = {name.type, name.type_reason};
  CHECK(types["PUID"] == std::pair{VarType::kInt, std::string("its use as `runAsUser`")});
  CHECK(types["FSG"].first == VarType::kInt);
  CHECK(types["DEADLINE"].first == VarType::kInt);
  CHECK(types["ON_OFF"] == std::pair{VarType::kBool, std::string("its use as `enabled`")});
  CHECK(types["SIZE"] == std::pair{VarType::kInt, std::string("the default 20")});
  CHECK(types["DEBUG"] == std::pair{VarType::kBool, std::string("the default false")});
  CHECK(types["TAG"].first == VarType::kString);  // 123 inside `app:${TAG}` says nothing
  CHECK(types["COUNT"] == std::pair{VarType::kInt, std::string("the current value 123")});
  CHECK(types["Q"].first == VarType::kString);  // quoted: a string whatever the default
  CHECK(types["IP"].first == VarType::kIpv4);
  CHECK(types["NAME"].first == VarType::kString);
  CHECK(types["MEM"].first == VarType::kInt);
  CHECK(types["DISK"].first == VarType::kInt);
  CHECK(types["MEMORY"].first == VarType::kString);  // `4Gi`, a quantity
}

TEST_CASE("init: an unreadable template is reported and the others are surveyed") {
  const std::vector<TemplateSource> templates = {{"a.yaml", "a: ${A}\n"},
                                                 {"bin.yaml", std::string("b: ${B}\0\n", 9)},
                                                 {"talos.yaml", "files:\n  - &m |-\n    ${C}\n  - *m\n"}};
  Result<std::vector<SurveyedName>> survey = SurveyTemplates(templates, NoEnvironment);
  CHECK(HasErrors(survey.diagnostics));
  REQUIRE(survey.value.has_value());
  REQUIRE(survey.value->size() == 2);  // C: valid YAML that yaml-cpp misreads is surveyed
  CHECK((*survey.value)[0].name == "A");
  CHECK((*survey.value)[1].name == "C");
  CHECK(StarterManifest(*survey.value, {"bin.yaml"}).find("# NOT SURVEYED (could not be read): bin.yaml\n") !=
        std::string::npos);
}

// Issue 26: `init` must write a manifest that works.
TEST_CASE("init: the starter manifest of every example and test template renders once values are given") {
  std::vector<std::filesystem::path> files = SurveyedTemplates();
  REQUIRE(files.size() >= 40);
  for (const auto& path : files) {
    CAPTURE(path.string());
    std::string text = testing::ReadFile(path);
    Result<std::vector<SurveyedName>> survey = SurveyTemplates({{path.string(), text}}, NoEnvironment);
    REQUIRE(survey.ok());
    Result<Manifest> manifest = ParseManifest(StarterManifest(*survey.value), "starter.yaml");
    REQUIRE(manifest.ok());
    ValueInputs inputs;
    for (const Variable& variable : manifest.value->variables) {
      inputs.sets.push_back(variable.name + "=" + SampleValue(variable.type));
    }
    Result<ValueSet> values = CollectValues(*manifest.value, inputs);
    REQUIRE(values.ok());
    RenderOptions options;
    options.file_name = path.string();
    RenderResult result = Render(text, *manifest.value, *values.value, options);
    for (const Diagnostic& diagnostic : result.diagnostics) CAPTURE(diagnostic.message);
    CHECK(result.ok());
  }
}

TEST_CASE("init and audit report a binary or non-UTF-8 template, as a render does") {
  const TemplateSource binary{"bin.yaml", std::string("a: $X\0\xff\n", 8)};
  Result<std::vector<SurveyedName>> survey = SurveyTemplates({binary}, NoEnvironment);
  CHECK_FALSE(survey.ok());
  REQUIRE_FALSE(survey.diagnostics.empty());
  CHECK(survey.diagnostics[0].message == "NUL byte in the template");
  CHECK(survey.diagnostics[0].location.column == 6);
  Result<std::vector<AuditChange>> audit = AuditEnvsubst(binary, Manifest{}, NoEnvironment);
  CHECK_FALSE(audit.ok());
  CHECK(audit.diagnostics.size() == survey.diagnostics.size());
}

TEST_CASE("audit: envsubst blanks the runtime variables and rewrites comments, declared ones are not listed") {
  Manifest manifest;
  Variable app;
  app.name = "APP";
  manifest.variables.push_back(app);
  auto environment = [](std::string_view name) -> std::optional<std::string> {
    if (name == "APP") return std::string("web");
    return std::nullopt;
  };
  TemplateSource source{"t.yaml", "name: ${APP}\nargs:\n  - |\n    echo \"$NODE_IP\" # ${APP}\n"};
  Result<std::vector<AuditChange>> audit = AuditEnvsubst(source, manifest, environment);
  REQUIRE(audit.ok());
  REQUIRE(audit.value->size() == 1);
  const AuditChange& change = (*audit.value)[0];
  CHECK(change.location.line == 4);
  CHECK(change.before == "    echo \"$NODE_IP\" # ${APP}");
  CHECK(change.after == "    echo \"\" # web");
  CHECK(change.blanked == std::vector<std::string>{"NODE_IP"});
  CHECK(FormatAudit("t.yaml", *audit.value).find("+    echo \"\" # web") != std::string::npos);
}
