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

// Every command's option values, filled by CLI11.
struct Commands {
  InputOptions dropin;
  bool list_variables = false;
  InputOptions render_inputs;
  OutputOptions outputs;
  LintCommand lint;
  InputOptions explain_inputs;
  InputOptions vars_inputs;
  std::string vars_format = "text";
  InitOptions init;
  InputOptions audit_inputs;
};

void AddRender(CLI::App& app, Commands& c) {
  CLI::App* render = app.add_subcommand("render", "Render templates (the main command)");
  AddInputOptions(render, &c.render_inputs);
  OutputOptions& outputs = c.outputs;
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
}

void AddLint(CLI::App& app, Commands& c) {
  LintCommand& lint_command = c.lint;
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
}

void AddExplain(CLI::App& app, Commands& c) {
  AddInputOptions(app.add_subcommand("explain", "Show every $ with its location, context, path and action"),
                  &c.explain_inputs);
}

void AddVars(CLI::App& app, Commands& c) {
  CLI::App* vars = app.add_subcommand("vars", "List the references and what rendering would do with each");
  AddInputOptions(vars, &c.vars_inputs);
  vars->add_option("--format", c.vars_format, "text or json")->check(CLI::IsMember({"text", "json"}));
}

void AddInit(CLI::App& app, Commands& c) {
  CLI::App* init = app.add_subcommand("init", "Survey templates and write a starter manifest");
  init->add_option("templates", c.init.templates, "Template files")->required();
  init->add_option("-o,--output", c.init.output, "Write the manifest here (default: stdout)");
  init->add_flag("--force", c.init.force, "Replace an existing output file");
}

void AddAudit(CLI::App& app, Commands& c) {
  AddInputOptions(app.add_subcommand("audit", "Show what plain envsubst would destroy in templates"),
                  &c.audit_inputs);
}

struct CommandBuilder {
  const char* name;
  void (*add)(CLI::App&, Commands&);
};
constexpr CommandBuilder kCommands[] = {{"render", AddRender}, {"lint", AddLint},  {"explain", AddExplain},
                                        {"vars", AddVars},     {"init", AddInit},  {"audit", AddAudit}};

// Building a command's options costs CLI11 more than rendering a small
// template does (each new option is checked against the others), and the
// drop-in envsubst use starts a process per file: only the command named
// first is built, and none for the envsubst forms (no argument, an option
// such as --version, or a SHELL-FORMAT). Help, or a first word that names no
// command, builds them all so that `--help` lists them and a misspelt
// command is still reported.
void AddCommands(CLI::App& app, Commands& c, const std::vector<std::string>& arguments) {
  const bool wants_help = std::any_of(arguments.begin(), arguments.end(), [](const std::string& argument) {
    return argument == "-h" || argument == "--help" || argument == "--help-all";
  });
  if (!wants_help) {
    if (arguments.empty() || arguments.front().starts_with('-') ||
        arguments.front().find('$') != std::string::npos) {
      return;
    }
    for (const CommandBuilder& command : kCommands) {
      if (arguments.front() == command.name) return command.add(app, c);
    }
  }
  for (const CommandBuilder& command : kCommands) command.add(app, c);
}

bool Parsed(const CLI::App& app, const char* name) {
  for (const CLI::App* command : app.get_subcommands()) {
    if (command->get_name() == name) return true;
  }
  return false;
}

int Run(const CLI::App& app, Commands& c) {
  if (Parsed(app, "render")) {
    if (c.outputs.in_place && c.render_inputs.templates.empty()) {
      std::fprintf(stderr, "safesubst: error: --in-place needs template files, not standard input\n");
      return kExitUsage;
    }
    if (c.outputs.lint && !CheckLintOptions(c.outputs.lint_options)) return kExitUsage;
    return RunRender(c.render_inputs, c.outputs);
  }
  if (Parsed(app, "explain")) return RunExplain(c.explain_inputs, /*json=*/false, /*only_variables=*/false);
  if (Parsed(app, "vars")) return RunExplain(c.vars_inputs, c.vars_format == "json", /*only_variables=*/true);
  if (Parsed(app, "lint")) {
    c.lint.json = c.lint.format == "json";
    return RunLint(c.lint);
  }
  if (Parsed(app, "init")) return RunInit(c.init);
  if (Parsed(app, "audit")) return RunAudit(c.audit_inputs);
  if (c.list_variables) {
    if (c.dropin.shell_format.empty()) {
      std::fprintf(stderr, "safesubst: error: --variables needs a SHELL-FORMAT argument\n");
      return kExitUsage;
    }
    return PrintVariables(c.dropin.shell_format);
  }
  return RunRender(c.dropin, OutputOptions{});
}

}  // namespace

int Main(int argc, char** argv) {
  CLI::App app{kDescription, "safesubst"};
  app.set_version_flag("-V,--version", "safesubst " SAFESUBST_VERSION);
  app.footer(kExamples);
  app.require_subcommand(0, 1);

  Commands commands;
  app.add_flag("-v,--variables", commands.list_variables,
               "Print the variables named in SHELL-FORMAT (as envsubst -v)");
  app.add_option("shell-format", commands.dropin.shell_format,
                 "envsubst SHELL-FORMAT: substitute exactly these names, stdin to stdout");
  std::vector<std::string> arguments = NormalizeArguments(argc, argv);
  AddCommands(app, commands, arguments);

  std::reverse(arguments.begin(), arguments.end());  // CLI11 takes them last-first
  try {
    app.parse(arguments);
  } catch (const CLI::ParseError& error) {
    int code = app.exit(error);
    return code == 0 ? kExitOk : kExitUsage;
  }
  return Run(app, commands);
}

}  // namespace safesubst::cli
