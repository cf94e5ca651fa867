// `safesubst init` and `safesubst audit`: moving envsubst templates over.
#include <cstdio>
#include <cstdlib>
#include <sys/stat.h>

#include "cli.h"
#include "safesubst/survey.h"

namespace safesubst::cli {

namespace {

std::optional<std::string> FromEnvironment(std::string_view name) {
  const char* value = std::getenv(std::string(name).c_str());
  if (value == nullptr) return std::nullopt;
  return std::string(value);
}

// Reads every template; false when one could not be read (diagnostics printed).
bool ReadTemplates(const std::vector<std::string>& paths, Sources& sources, bool color,
                   std::vector<TemplateSource>* templates) {
  for (const std::string& path : paths) {
    TemplateSource source{path == "-" ? "<stdin>" : path, {}};
    Diagnostics errors;
    if (!sources.Read(path, &source.text, &errors)) {
      PrintDiagnostics(errors, sources, color);
      return false;
    }
    templates->push_back(std::move(source));
  }
  return true;
}

}  // namespace

int RunInit(const InitOptions& options) {
  bool color = UseColor(options.color);
  Sources sources;
  std::vector<TemplateSource> templates;
  if (!ReadTemplates(options.templates, sources, color, &templates)) return kExitInputError;
  Result<std::vector<SurveyedName>> survey = SurveyTemplates(templates, FromEnvironment);
  PrintDiagnostics(survey.diagnostics, sources, color);
  if (!survey.ok()) return kExitInputError;
  std::string manifest = StarterManifest(*survey.value);
  std::string error;
  if (options.output.empty()) {
    if (!WriteStdout(manifest, &error)) {
      std::fprintf(stderr, "<stdout>: error: cannot write: %s\n", error.c_str());
      return kExitInputError;
    }
    return kExitOk;
  }
  struct stat info;
  if (!options.force && ::stat(options.output.c_str(), &info) == 0) {
    std::fprintf(stderr, "%s: error: already exists; use --force to replace it\n", options.output.c_str());
    return kExitInputError;
  }
  if (!WriteFileAtomically(options.output, manifest, &error)) {
    std::fprintf(stderr, "%s: error: cannot write: %s\n", options.output.c_str(), error.c_str());
    return kExitInputError;
  }
  std::fprintf(stderr, "safesubst: wrote %s: %zu names from %zu templates\n", options.output.c_str(),
               survey.value->size(), templates.size());
  return kExitOk;
}

int RunAudit(const InputOptions& inputs) {
  bool color = UseColor(inputs.color);
  Sources sources;
  Diagnostics diagnostics;
  Manifest manifest;
  ValueSet values;
  // Auditing needs no values, but a problem with them is still reported.
  const Loaded loaded = LoadInputs(inputs, &manifest, &values, &diagnostics, &sources, /*report_missing=*/false);
  PrintDiagnostics(diagnostics, sources, color);
  if (loaded == Loaded::kNothing) return kExitInputError;
  std::vector<TemplateSource> templates;
  if (!ReadTemplates(inputs.templates.empty() ? std::vector<std::string>{"-"} : inputs.templates, sources, color,
                     &templates)) {
    return kExitInputError;
  }
  std::size_t total = 0;
  for (const TemplateSource& source : templates) {
    Result<std::vector<AuditChange>> audit = AuditEnvsubst(source, manifest, FromEnvironment);
    PrintDiagnostics(audit.diagnostics, sources, color);
    if (!audit.ok()) return kExitInputError;
    std::string text = FormatAudit(source.file, *audit.value);
    std::fwrite(text.data(), 1, text.size(), stdout);
    total += audit.value->size();
  }
  std::fprintf(stderr, "safesubst audit: plain envsubst would damage %zu line(s) in %zu template(s)\n", total,
               templates.size());
  return loaded == Loaded::kAll ? kExitOk : kExitInputError;
}

}  // namespace safesubst::cli
