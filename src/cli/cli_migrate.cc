// SPDX-License-Identifier: Apache-2.0
// `safesubst init` and `safesubst audit`: moving envsubst templates over.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <sys/stat.h>

#include "cli.h"
#include "safesubst/survey.h"
#include "safesubst/values.h"

namespace safesubst::cli {

namespace {

std::optional<std::string> FromEnvironment(std::string_view name) {
  const char* value = std::getenv(std::string(name).c_str());
  if (value == nullptr) return std::nullopt;
  return std::string(value);
}

// The paths with each directory replaced by the .yaml and .yml files under
// it, sorted (a repository such as a Flux one is named by its directory).
std::vector<std::string> WithDirectoriesListed(const std::vector<std::string>& paths) {
  std::vector<std::string> files;
  for (const std::string& path : paths) {
    std::error_code error;
    if (path == "-" || !std::filesystem::is_directory(path, error)) {
      files.push_back(path);
      continue;
    }
    std::vector<std::string> found;
    for (auto it = std::filesystem::recursive_directory_iterator(path, error);
         !error && it != std::filesystem::recursive_directory_iterator(); it.increment(error)) {
      const std::filesystem::path& file = it->path();
      if (it->is_directory(error) && file.filename().string().starts_with(".")) {
        it.disable_recursion_pending();  // .git and the like
        continue;
      }
      if (it->is_regular_file(error) && (file.extension() == ".yaml" || file.extension() == ".yml")) {
        found.push_back(file.string());
      }
    }
    std::sort(found.begin(), found.end());
    files.insert(files.end(), found.begin(), found.end());
  }
  return files;
}

// Reads every template it can; the diagnostics of those it cannot are printed
// and their names added to `unread`.
void ReadTemplates(const std::vector<std::string>& named, Sources& sources, bool color,
                   std::vector<TemplateSource>* templates, std::vector<std::string>* unread) {
  for (const std::string& path : WithDirectoriesListed(named)) {
    TemplateSource source{path == "-" ? "<stdin>" : path, {}};
    Diagnostics errors;
    if (!sources.Read(path, Limits{}.max_input_bytes, &source.text, &errors)) {
      PrintDiagnostics(errors, sources, color);
      unread->push_back(source.file);
      continue;
    }
    templates->push_back(std::move(source));
  }
}

// The files named by the errors among `diagnostics`, each once, in order.
void AddFilesWithErrors(const Diagnostics& diagnostics, std::vector<std::string>* files) {
  for (const Diagnostic& diagnostic : diagnostics) {
    if (diagnostic.severity != Severity::kError) continue;
    if (std::find(files->begin(), files->end(), diagnostic.location.file) == files->end()) {
      files->push_back(diagnostic.location.file);
    }
  }
}

// The values of --values and --set, as evidence for `init` (every name given
// is taken, as the environment mode of a render takes them).
bool CollectGivenValues(const InitOptions& options, Sources& sources, bool color, ValueSet* given) {
  if (options.values_files.empty() && options.sets.empty()) return true;
  Manifest anything;
  anything.mode = DeclarationMode::kEnvironment;
  ValueInputs inputs;
  inputs.values_files = options.values_files;
  inputs.sets = options.sets;
  Result<ValueSet> values = CollectValues(anything, inputs);
  PrintDiagnostics(values.diagnostics, sources, color);
  if (!values.ok()) return false;
  *given = std::move(*values.value);
  return true;
}

int WriteManifest(const InitOptions& options, const std::string& manifest) {
  std::string error;
  if (options.output.empty()) {
    if (WriteStdout(manifest, &error)) return kExitOk;
    std::fprintf(stderr, "<stdout>: error: cannot write: %s\n", error.c_str());
    return kExitInputError;
  }
  struct stat info;
  if (!options.force && ::stat(options.output.c_str(), &info) == 0) {
    std::fprintf(stderr, "%s: error: already exists; use --force to replace it\n", options.output.c_str());
    return kExitInputError;
  }
  if (WriteFileAtomically(options.output, manifest, &error)) return kExitOk;
  std::fprintf(stderr, "%s: error: cannot write: %s\n", options.output.c_str(), error.c_str());
  return kExitInputError;
}

}  // namespace

// One unreadable template does not stop the survey: the manifest of the
// others is written, the file is named in it, and the exit status is 1.
int RunInit(const InitOptions& options) {
  bool color = UseColor(options.color);
  Sources sources;
  ValueSet given;
  if (!CollectGivenValues(options, sources, color, &given)) return kExitInputError;
  std::vector<TemplateSource> templates;
  std::vector<std::string> unread;
  ReadTemplates(options.templates, sources, color, &templates, &unread);
  auto given_value = [&given](std::string_view name) -> std::optional<std::string> {
    const Value* value = given.Find(name);
    return value == nullptr ? std::nullopt : std::optional<std::string>(value->text);
  };
  Result<std::vector<SurveyedName>> survey = SurveyTemplates(templates, FromEnvironment, given_value);
  PrintDiagnostics(survey.diagnostics, sources, color);
  const std::size_t read = unread.size();
  AddFilesWithErrors(survey.diagnostics, &unread);
  const std::size_t surveyed = templates.size() - (unread.size() - read);
  const int written = WriteManifest(options, StarterManifest(*survey.value, unread));
  if (written != kExitOk) return written;
  if (!options.output.empty()) {
    std::fprintf(stderr, "safesubst: wrote %s: %zu names from %zu templates\n", options.output.c_str(),
                 survey.value->size(), surveyed);
  }
  if (!unread.empty()) {
    std::fprintf(stderr, "safesubst init: %zu template(s) could not be surveyed (see above)\n", unread.size());
    return kExitInputError;
  }
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
  std::vector<std::string> unread;
  ReadTemplates(inputs.templates.empty() ? std::vector<std::string>{"-"} : inputs.templates, sources, color,
                &templates, &unread);
  // Flux's variables are those given (postBuild.substitute); envsubst's the environment.
  const bool flux = manifest.mode == DeclarationMode::kFlux;
  auto given = [&values](std::string_view name) -> std::optional<std::string> {
    const Value* value = values.Find(name);
    return value == nullptr ? std::nullopt : std::optional<std::string>(value->text);
  };
  const char* engine = flux ? "Flux's postBuild substitution" : "plain envsubst";
  std::size_t total = 0;
  for (const TemplateSource& source : templates) {
    Result<std::vector<AuditChange>> audit =
        flux ? AuditFlux(source, given) : AuditEnvsubst(source, manifest, FromEnvironment);
    PrintDiagnostics(audit.diagnostics, sources, color);
    if (!audit.ok()) {  // reported; the other templates are still audited
      unread.push_back(source.file);
      continue;
    }
    std::string text = FormatAudit(source.file, *audit.value, engine);
    std::fwrite(text.data(), 1, text.size(), stdout);
    total += audit.value->size();
  }
  std::fprintf(stderr, "safesubst audit: %s would damage %zu line(s) in %zu template(s)\n", engine, total,
               templates.size());
  if (!unread.empty()) {
    std::fprintf(stderr, "safesubst audit: %zu template(s) could not be audited (see above)\n", unread.size());
  }
  return loaded == Loaded::kAll && unread.empty() ? kExitOk : kExitInputError;
}

}  // namespace safesubst::cli
