#include "safesubst/survey.h"

#include <doctest/doctest.h>

#include <filesystem>
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

std::vector<std::filesystem::path> SurveyedTemplates() {
  std::vector<std::filesystem::path> files;
  for (const char* dir : {"examples/efs-zone/apps", "examples/inline-wrapper", "tests/data/k8s", "tests/data/envsubst"}) {
    for (const auto& entry : std::filesystem::directory_iterator(testing::SourceDir() / dir)) {
      std::string name = entry.path().filename().string();
      if (entry.path().extension() == ".yaml" && name != "manifest.yaml") files.push_back(entry.path());
    }
  }
  return files;
}

}  // namespace

TEST_CASE("init: data names declared, script-only names runtime, both-way names flagged") {
  std::vector<TemplateSource> templates = {
      {"a.yaml", "name: ${APP}\nreplicas: ${N}\nargs:\n  - |\n    echo $NODE_IP ${APP}\n"}};
  Result<std::vector<SurveyedName>> survey = SurveyTemplates(templates, NoEnvironment);
  REQUIRE(survey.ok());
  std::string manifest = StarterManifest(*survey.value);
  CHECK(manifest.find("  # AMBIGUOUS: APP is also used inside scripts (a.yaml:5:19)") != std::string::npos);
  CHECK(manifest.find("  N: {type: int}") != std::string::npos);  // typed by its key `replicas`
  CHECK(manifest.find("  - NODE_IP") != std::string::npos);
  Result<Manifest> parsed = ParseManifest(manifest, "starter.yaml");
  CHECK(parsed.ok());
}

TEST_CASE("init: the starter manifest of every example renders with --strict once values are given") {
  std::vector<std::filesystem::path> files = SurveyedTemplates();
  REQUIRE(files.size() >= 10);
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
    options.strict = true;
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
