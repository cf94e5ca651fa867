// SPDX-License-Identifier: Apache-2.0
// `safesubst lint` and `render --lint`: the Kubernetes traps behind the seeds.
#include <cstdio>

#include "cli.h"

namespace safesubst::cli {

namespace {

void PrintFindings(const std::vector<Finding>& findings, std::string_view text, bool color, bool verbose) {
  if (findings.empty()) return;
  const SourceText source{std::string(text)};  // a stream can have thousands of findings
  for (const Finding& finding : findings) {
    std::string formatted = FormatFinding(finding, source, color, verbose);
    std::fwrite(formatted.data(), 1, formatted.size(), stderr);
  }
}

// With a machine-readable --format, a file that could not be read or parsed
// is a finding of the rule "input", so that the report alone never passes it.
void AddInputErrors(const Diagnostics& diagnostics, std::vector<Finding>* findings) {
  for (const Diagnostic& diagnostic : diagnostics) {
    if (diagnostic.severity != Severity::kError) continue;
    Finding finding;
    finding.rule_id = "input";
    finding.severity = Severity::kError;
    finding.location = diagnostic.location;
    finding.message = diagnostic.message;
    finding.fix = diagnostic.hint;
    findings->push_back(std::move(finding));
  }
}

}  // namespace

bool CheckLintOptions(const LintOptions& options) {
  for (const std::string& id : options.disabled) {
    if (FindLintRule(id) == nullptr) {
      std::fprintf(stderr, "safesubst: error: --disable %s: no such rule (see safesubst lint --help)\n", id.c_str());
      return false;
    }
  }
  return true;
}

bool LintRendered(std::string_view text, LintOptions options, const std::string& file, Sources& sources,
                  bool color, bool has_secrets) {
  options.file_name = file;
  Result<std::vector<Finding>> linted = Lint(text, options);
  PrintDiagnostics(linted.diagnostics, sources, color);
  if (!linted.value) return false;
  if (has_secrets) {
    // The message quotes the rendered text, where a value can be any
    // fragment of a secret (a `${X}` inside a password).
    for (Finding& finding : *linted.value) {
      finding.message = sources.redactor().MaskFragments(finding.message);
      finding.fix = sources.redactor().MaskFragments(finding.fix);
    }
  }
  PrintFindings(*linted.value, has_secrets ? std::string_view{} : text, color, /*verbose=*/false);
  return CountFindings(*linted.value, Severity::kError) == 0 && !HasErrors(linted.diagnostics);
}

namespace {

// The findings of every file in a machine-readable form: json, sarif or github.
std::string FormatReport(const std::vector<Finding>& findings, const std::string& format) {
  if (format == "sarif") return FindingsToSarif(findings);
  if (format == "github") return FindingsToGithubCommands(findings);
  return FindingsToJson(findings);
}

}  // namespace

int RunLint(const LintCommand& command) {
  if (!CheckLintOptions(command.options)) return kExitUsage;
  const bool report = command.format != "text";  // findings are collected for one report on stdout
  bool color = UseColor(command.color);
  Sources sources;
  std::vector<std::string> files = command.files.empty() ? std::vector<std::string>{"-"} : command.files;
  std::vector<Finding> all;
  bool failed = false;
  for (const std::string& path : files) {
    std::string text;
    Diagnostics errors;
    if (!sources.Read(path, Limits{}.max_input_bytes, &text, &errors)) {
      PrintDiagnostics(errors, sources, color);
      if (report) AddInputErrors(errors, &all);
      failed = true;
      continue;
    }
    LintOptions options = command.options;
    options.file_name = path == "-" ? "<stdin>" : path;
    Result<std::vector<Finding>> linted = Lint(text, options);
    PrintDiagnostics(linted.diagnostics, sources, color);
    if (report) AddInputErrors(linted.diagnostics, &all);
    if (!linted.value) {
      failed = true;
      continue;
    }
    if (report) {
      all.insert(all.end(), linted.value->begin(), linted.value->end());
    } else {
      PrintFindings(*linted.value, text, color, command.verbose);
    }
    if (CountFindings(*linted.value, Severity::kError) > 0) failed = true;
    if (command.fail_on_warning && CountFindings(*linted.value, Severity::kWarning) > 0) failed = true;
  }
  if (report) {
    const std::string text = FormatReport(all, command.format);
    std::fwrite(text.data(), 1, text.size(), stdout);
  }
  return failed ? kExitInputError : kExitOk;
}

}  // namespace safesubst::cli
