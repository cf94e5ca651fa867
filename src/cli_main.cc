// Command-line parsing: which command runs with which options.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "cli.h"

namespace safesubst::cli {

namespace {

constexpr const char* kDescription =
    "safesubst renders Kubernetes YAML templates like envsubst, but substitutes only declared\n"
    "variables, knows the YAML context of every $, encodes each value for where it lands and\n"
    "checks that the document kept its structure.";

constexpr const char* kExamples = R"(
Examples:
  safesubst render -m vars.yaml --values dev.env -o app.out.yaml app.yaml
  SAFESUBST_MANIFEST=vars.yaml safesubst < app.yaml > app.yaml.tmp   # drop-in for envsubst
  safesubst '${TENANT_ID} ${APP}' < app.yaml                         # envsubst SHELL-FORMAT
  safesubst explain -m vars.yaml app.yaml       # how every $ was understood
  safesubst vars --format json -m vars.yaml app.yaml
  safesubst init -o vars.yaml templates/*.yaml  # starter manifest from existing templates
  safesubst audit templates/*.yaml              # what plain envsubst destroys in them

Exit status: 0 rendered, 1 template/values/manifest error (nothing written), 2 usage error.
Colors follow NO_COLOR and --color. Docs: man safesubst.)";

void AddInputOptions(CLI::App* command, InputOptions* inputs) {
  command->add_option("-m,--manifest", inputs->manifest,
                      "Variable manifest (default: $SAFESUBST_MANIFEST)");
  // One argument per occurrence, so that `--values F T.yaml` leaves T.yaml a template.
  command->add_option("--values", inputs->values_files, "Values file (dotenv or YAML); repeatable, later wins")
      ->check(CLI::ExistingFile)
      ->allow_extra_args(false);
  command->add_option("--set", inputs->sets, "NAME=VALUE, highest precedence; repeatable")->allow_extra_args(false);
  command->add_flag("--strict", inputs->strict, "A kept undeclared reference in a data context is an error");
  command->add_flag("--allow-undeclared", inputs->allow_undeclared,
                    "Keep an undeclared ${NAME} in a data context with a warning instead of failing");
  command->add_flag("--allow-outside", inputs->allow_outside,
                    "Allow merge fragments outside the manifest's directory tree");
  command->add_option("--color", inputs->color, "Color diagnostics: auto, always, never")
      ->check(CLI::IsMember({"auto", "always", "never"}));
  command->add_option("templates", inputs->templates, "Template files (standard input when none)");
  Limits& limits = inputs->limits;
  command->add_option("--max-input-size", limits.max_input_bytes, "Largest template in bytes")
      ->capture_default_str()->group("Limits");
  command->add_option("--max-depth", limits.max_depth, "Deepest collection nesting")
      ->capture_default_str()->group("Limits");
  command->add_option("--max-aliases", limits.max_aliases, "Most alias nodes in a template")
      ->capture_default_str()->group("Limits");
  command->add_option("--max-value-size", limits.max_value_bytes, "Largest substituted value in bytes")
      ->capture_default_str()->group("Limits");
  command->add_option("--max-documents", limits.max_documents, "Most documents in one stream")
      ->capture_default_str()->group("Limits");
}

// `safesubst --explain FILE` is accepted as a spelling of `safesubst explain FILE`.
std::vector<std::string> NormalizeArguments(int argc, char** argv) {
  std::vector<std::string> arguments(argv + 1, argv + argc);
  if (!arguments.empty() && arguments.front() == "--explain") arguments.front() = "explain";
  return arguments;
}

// Prints the names a SHELL-FORMAT mentions, one per line, like `envsubst -v`.
int PrintVariables(const std::string& shell_format) {
  for (const Variable& variable : ManifestFromShellFormat(shell_format).variables) {
    std::printf("%s\n", variable.name.c_str());
  }
  return kExitOk;
}

// The rules, for `safesubst lint --help`.
std::string LintRulesHelp() {
  std::string help = "\nRules (disable with --disable ID or the annotation safesubst.io/lint-disable):\n";
  for (const LintRule& rule : LintRules()) {
    help += "  " + std::string(rule.id) + std::string(rule.id.size() < 26 ? 26 - rule.id.size() : 1, ' ') +
            std::string(rule.summary) + "\n";
  }
  return help;
}

}  // namespace

int Main(int argc, char** argv) {
  CLI::App app{kDescription, "safesubst"};
  app.set_version_flag("-V,--version", "safesubst " SAFESUBST_VERSION);
  app.footer(kExamples);
  app.require_subcommand(0, 1);

  InputOptions dropin;
  bool list_variables = false;
  app.add_flag("-v,--variables", list_variables, "Print the variables named in SHELL-FORMAT (as envsubst -v)");
  app.add_option("shell-format", dropin.shell_format,
                 "envsubst SHELL-FORMAT: substitute exactly these names, stdin to stdout");

  InputOptions render_inputs;
  OutputOptions outputs;
  CLI::App* render = app.add_subcommand("render", "Render templates (the main command)");
  AddInputOptions(render, &render_inputs);
  auto* output = render->add_option("-o,--output", outputs.output, "Write the result here (atomically)");
  auto* in_place = render->add_flag("-i,--in-place", outputs.in_place, "Rewrite each template file in place");
  auto* out_dir = render->add_option("--out-dir", outputs.out_dir,
                                     "Write each template's result to DIR/<name>; a failing template "
                                     "does not stop the others")
                      ->check(CLI::ExistingDirectory);
  output->excludes(in_place)->excludes(out_dir);
  in_place->excludes(out_dir);
  render->add_flag("--explain", outputs.explain, "Also print how every reference was understood (stderr)");
  render->add_option("-j,--jobs", outputs.jobs, "Templates rendered in parallel (default: one per core)");
  render->add_flag("--full-check", outputs.full_check,
                   "Check the structure with yaml-cpp (independent, slower) instead of the tokenizer");
  render->add_flag("--lint", outputs.lint, "Lint each result (safesubst lint); a lint error fails the render");
  render->add_option("--lint-disable", outputs.lint_options.disabled, "With --lint: a rule id not to run; repeatable")
      ->allow_extra_args(false);

  LintCommand lint_command;
  CLI::App* lint = app.add_subcommand("lint", "Check rendered manifests for the Kubernetes traps behind envsubst");
  lint->add_option("files", lint_command.files, "Manifests (standard input when none)");
  lint->add_option("--disable", lint_command.options.disabled, "A rule id not to run; repeatable")
      ->allow_extra_args(false);
  lint->add_option("--format", lint_command.format, "text or json")->check(CLI::IsMember({"text", "json"}));
  lint->add_flag("--istio-namespace", lint_command.options.assume_istio_namespace,
                 "Assume every pod's namespace has Istio sidecar injection enabled");
  lint->add_flag("--hold-application", lint_command.options.assume_hold_application,
                 "Assume the mesh config sets holdApplicationUntilProxyStarts: true");
  lint->add_flag("--fail-on-warning", lint_command.fail_on_warning, "Exit 1 on warnings too");
  lint->add_flag("--verbose", lint_command.verbose, "Explain each finding");
  lint->add_option("--color", lint_command.color, "Color: auto, always, never")
      ->check(CLI::IsMember({"auto", "always", "never"}));
  lint->footer(LintRulesHelp());

  InputOptions explain_inputs;
  CLI::App* explain = app.add_subcommand("explain", "Show every $ with its location, context, path and action");
  AddInputOptions(explain, &explain_inputs);

  InputOptions vars_inputs;
  std::string vars_format = "text";
  CLI::App* vars = app.add_subcommand("vars", "List the references and what rendering would do with each");
  AddInputOptions(vars, &vars_inputs);
  vars->add_option("--format", vars_format, "text or json")->check(CLI::IsMember({"text", "json"}));

  InitOptions init_options;
  CLI::App* init = app.add_subcommand("init", "Survey templates and write a starter manifest");
  init->add_option("templates", init_options.templates, "Template files")->required();
  init->add_option("-o,--output", init_options.output, "Write the manifest here (default: stdout)");
  init->add_flag("--force", init_options.force, "Replace an existing output file");

  InputOptions audit_inputs;
  CLI::App* audit = app.add_subcommand("audit", "Show what plain envsubst would destroy in templates");
  AddInputOptions(audit, &audit_inputs);

  std::vector<std::string> arguments = NormalizeArguments(argc, argv);
  std::reverse(arguments.begin(), arguments.end());  // CLI11 takes them last-first
  try {
    app.parse(arguments);
  } catch (const CLI::ParseError& error) {
    int code = app.exit(error);
    return code == 0 ? kExitOk : kExitUsage;
  }

  if (render->parsed()) {
    if (outputs.in_place && render_inputs.templates.empty()) {
      std::fprintf(stderr, "safesubst: error: --in-place needs template files, not standard input\n");
      return kExitUsage;
    }
    if (outputs.lint && !CheckLintOptions(outputs.lint_options)) return kExitUsage;
    return RunRender(render_inputs, outputs);
  }
  if (explain->parsed()) return RunExplain(explain_inputs, /*json=*/false, /*only_variables=*/false);
  if (vars->parsed()) return RunExplain(vars_inputs, vars_format == "json", /*only_variables=*/true);
  if (lint->parsed()) {
    lint_command.json = lint_command.format == "json";
    return RunLint(lint_command);
  }
  if (init->parsed()) return RunInit(init_options);
  if (audit->parsed()) return RunAudit(audit_inputs);
  if (list_variables) {
    if (dropin.shell_format.empty()) {
      std::fprintf(stderr, "safesubst: error: --variables needs a SHELL-FORMAT argument\n");
      return kExitUsage;
    }
    return PrintVariables(dropin.shell_format);
  }
  return RunRender(dropin, OutputOptions{});
}

}  // namespace safesubst::cli
