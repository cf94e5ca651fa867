// SPDX-License-Identifier: Apache-2.0
// Command-line parsing: which command runs with which options.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "cli.h"
#include "validate.h"

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

// Which options to build. CLI11 spends more on building an option than a
// render of a small template costs (each new option is compared with all
// the others), and the drop-in use starts a process per template: an option
// is built only when an argument could name it. Help builds every option, so
// that it lists them all; an unknown option is reported as before.
class NamedOptions {
 public:
  explicit NamedOptions(const std::vector<std::string>& arguments) {
    for (const std::string& argument : arguments) {
      if (argument == "-h" || argument == "--help" || argument == "--help-all") wants_help_ = true;
      if (argument.starts_with("--")) {
        long_names_.push_back(std::string_view(argument).substr(0, argument.find('=')));
      } else if (argument.starts_with('-')) {
        short_names_ += argument.substr(1);  // a cluster such as -ij4: a value's letters too, harmlessly
      }
    }
    if (short_names_.find('h') != std::string::npos) wants_help_ = true;  // -h in a cluster: -ih
  }
  bool wants_help() const { return wants_help_; }
  // `names` as CLI11 takes them, such as "-o,--output"; a positional name is always built.
  bool operator()(std::string_view names) const {
    if (wants_help_ || !names.starts_with('-')) return true;
    for (std::size_t start = 0; start < names.size();) {
      const std::size_t comma = std::min(names.find(',', start), names.size());
      const std::string_view name = names.substr(start, comma - start);
      if (name.starts_with("--") ? std::find(long_names_.begin(), long_names_.end(), name) != long_names_.end()
                                 : short_names_.find(name.back()) != std::string::npos) {
        return true;
      }
      start = comma + 1;
    }
    return false;
  }

 private:
  bool wants_help_ = false;
  std::vector<std::string_view> long_names_;  // --name, without =value
  std::string short_names_;                   // the letters after a single -
};

// An unsigned option would read -1 as its largest value, that is as "no limit".
CLI::Validator NotNegative() {
  return CLI::Validator([](const std::string& value) { return value.starts_with('-') ? "must not be negative" : ""; },
                        "");
}

// Adds the options of one command that the command line names (NamedOptions);
// each returns the new option, or null when it was not built.
class OptionAdder {
 public:
  OptionAdder(CLI::App* command, const NamedOptions& named) : command_(command), named_(named) {}

  template <typename T>
  CLI::Option* Option(const std::string& names, T& value, const std::string& description) {
    return named_(names) ? command_->add_option(names, value, description) : nullptr;
  }
  CLI::Option* Flag(const std::string& names, bool& value, const std::string& description) {
    return named_(names) ? command_->add_flag(names, value, description) : nullptr;
  }
  template <typename T>
  void Limit(const std::string& names, T& value, const std::string& description) {
    if (CLI::Option* option = Option(names, value, description)) {
      option->check(NotNegative())->capture_default_str()->group("Limits");
    }
  }
  // A repeatable option that takes one argument per occurrence, so that
  // `--values F T.yaml` leaves T.yaml a template.
  template <typename Container>
  CLI::Option* Repeatable(const std::string& names, Container& values, const std::string& description) {
    CLI::Option* option = Option(names, values, description);
    if (option != nullptr) option->allow_extra_args(false);
    return option;
  }
  void Choice(const std::string& names, std::string& value, const std::string& description,
              std::vector<std::string> choices) {
    if (CLI::Option* option = Option(names, value, description)) option->check(CLI::IsMember(std::move(choices)));
  }

 private:
  CLI::App* command_;
  const NamedOptions& named_;
};

void AddInputOptions(OptionAdder& add, InputOptions* inputs) {
  if (CLI::Option* manifest = add.Option("-m,--manifest", inputs->manifest,
                                         "Variable manifest (default: $SAFESUBST_MANIFEST)")) {
    // `-m "$UNSET"` must not fall back to treating every environment variable as declared.
    manifest->check([](const std::string& path) { return path.empty() ? std::string("the path is empty") : ""; });
  }
  // An unreadable values file is an input error (exit 1) that CollectValues reports.
  add.Repeatable("--values", inputs->values_files, "Values file (dotenv or YAML); repeatable, later wins");
  add.Repeatable("--set", inputs->sets, "NAME=VALUE, highest precedence; repeatable");
  add.Flag("--strict", inputs->strict, "A kept undeclared reference in a data context is an error");
  add.Flag("--allow-undeclared", inputs->allow_undeclared,
           "Keep an undeclared ${NAME} in a data context with a warning instead of failing");
  add.Flag("--allow-outside", inputs->allow_outside, "Allow merge fragments outside the manifest's directory tree");
  add.Flag("-q,--quiet", inputs->quiet, "Without a manifest: do not list the environment names taken as declared");
  add.Choice("--color", inputs->color, "Color diagnostics: auto, always, never", {"auto", "always", "never"});
  add.Option("templates", inputs->templates, "Template files (standard input when none)");
  add.Option("--env-prefix", inputs->env_prefix,
             "Take values only from environment variables named PREFIX<NAME> (Argo CD: ARGOCD_ENV_)");
  add.Choice("--flavor", inputs->flavor,
             "How ${...} is read: safesubst, or flux (as Flux's postBuild substitution; values from --values, "
             "--set and, with --env-prefix, the environment)",
             {"safesubst", "flux"});
  Limits& limits = inputs->limits;
  add.Limit("--max-input-size", limits.max_input_bytes, "Largest template in bytes");
  add.Limit("--max-depth", limits.max_depth, "Deepest collection nesting");
  add.Limit("--max-aliases", limits.max_aliases, "Most alias nodes in a template");
  add.Limit("--max-value-size", limits.max_value_bytes, "Largest substituted value in bytes");
  add.Limit("--max-documents", limits.max_documents, "Most documents in one stream");
  add.Limit("--max-manifest-size", limits.max_manifest_bytes, "Largest manifest or values file in bytes");
  add.Limit("--max-output-size", limits.max_output_bytes, "Largest output of one template in bytes");
  add.Limit("--max-errors", limits.max_errors,
            "Most errors, and most warnings, shown of one template; a note counts the rest (0: all)");
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
  bool explain_annotate = false;
  std::string explain_format = "text";
  InputOptions vars_inputs;
  std::string vars_format = "text";
  InitOptions init;
  InputOptions audit_inputs;
  InputOptions krm_inputs;
};

// Each command's --help ends with its examples and exit statuses. "safesubst"
// in them is replaced by the name the program was run as (kubectl safesubst).
constexpr const char* kRenderHelp = R"(
Examples:
  safesubst render -m vars.yaml --values dev.env -o app.out.yaml app.yaml
  safesubst render -m vars.yaml --set APP=web -i app.yaml       # rewrite the template in place
  safesubst render -m manifest.yaml --values dev.env --set-from-filename APP --out-dir out/ apps/*.yaml
  kubectl kustomize base | safesubst render -m vars.yaml        # a stream on stdin, stdout

Exit status: 0 rendered and written; 1 a template, manifest or values error (nothing is
written; with --out-dir every good template still is); 2 usage error.)";

constexpr const char* kLintHelp = R"(
Examples:
  safesubst lint rendered/*.yaml
  safesubst render -m vars.yaml app.yaml | safesubst lint --verbose
  safesubst lint --format sarif out/*.yaml > safesubst.sarif   # GitHub code scanning
  safesubst lint --format github out/*.yaml                    # pull-request annotations

Exit status: 0 no error (and no warning with --fail-on-warning); 1 a finding that fails, or
a file that cannot be read or parsed; 2 usage error (such as an unknown rule).
)";

constexpr const char* kExplainHelp = R"(
Examples:
  safesubst explain -m vars.yaml --values dev.env app.yaml
  safesubst explain --annotate -m vars.yaml --values dev.env app.yaml | less -R
  safesubst explain --format html -m vars.yaml --values dev.env app.yaml > explain.html
  safesubst explain -m vars.yaml app.yaml   # without values: a required one shows as error

Exit status: 0 explained; 1 a template, the manifest or a values file cannot be read or a
value is invalid; 2 usage error.)";

constexpr const char* kVarsHelp = R"(
Examples:
  safesubst vars -m vars.yaml --values dev.env apps/*.yaml
  safesubst vars --format json -m vars.yaml --values dev.env app.yaml   # with each reason

Exit status: 0 every reference would render; 1 one would make the render fail (a missing or
invalid value, an undeclared ${NAME} in data), or an input cannot be read; 2 usage error.)";

constexpr const char* kInitHelp = R"(
Examples:
  safesubst init -o vars.yaml templates/*.yaml     # with the deploy environment loaded

Exit status: 0 manifest written; 1 a template cannot be read or the output exists (--force
replaces it); 2 usage error.)";

constexpr const char* kAuditHelp = R"(
Examples:
  safesubst audit templates/*.yaml
  safesubst audit -m vars.yaml templates/*.yaml

Exit status: 0 audited; 1 a template or the manifest cannot be read; 2 usage error.)";

// `text` with each "safesubst " at the start of an example spoken as `program`.
std::string ForProgram(std::string text, const std::string& program) {
  if (program == "safesubst") return text;
  for (const std::string before : {"  ", "| "}) {  // an example's first word, or a command after a pipe
    const std::string word = before + "safesubst ";
    for (std::size_t at = text.find(word); at != std::string::npos; at = text.find(word, at + word.size())) {
      text.replace(at + before.size(), std::string_view("safesubst").size(), program);
    }
  }
  return text;
}

// A command with its one-line description and the footer of its --help.
CLI::App* AddCommand(CLI::App& app, const char* name, const char* description, const std::string& footer) {
  CLI::App* command = app.add_subcommand(name, description);
  command->footer(ForProgram(footer, app.get_name()));
  return command;
}

void AddRender(CLI::App& app, Commands& c, const NamedOptions& named) {
  OptionAdder add(AddCommand(app, "render", "Render templates (the main command)", kRenderHelp), named);
  AddInputOptions(add, &c.render_inputs);
  OutputOptions& outputs = c.outputs;
  CLI::Option* output = add.Option("-o,--output", outputs.output, "Write the result here (atomically)");
  CLI::Option* in_place = add.Flag("-i,--in-place", outputs.in_place, "Rewrite each template file in place");
  CLI::Option* out_dir = add.Option("--out-dir", outputs.out_dir,
                                    "Write each template's result to DIR/<name>; a failing template "
                                    "does not stop the others");
  if (out_dir != nullptr) out_dir->check(CLI::ExistingDirectory);
  // Each is built only when named; two exclude each other when both are.
  auto exclude = [](CLI::Option* one, CLI::Option* other) {
    if (one != nullptr && other != nullptr) one->excludes(other);
  };
  exclude(output, in_place);
  exclude(output, out_dir);
  exclude(in_place, out_dir);
  add.Flag("--explain", outputs.explain, "Also print how every reference was understood (stderr)");
  if (CLI::Option* jobs =
          add.Option("-j,--jobs", outputs.jobs, "Templates rendered in parallel (default: one per core)")) {
    jobs->check(NotNegative());
  }
  add.Flag("--full-check", outputs.full_check,
           "Check the structure with yaml-cpp (independent, slower) instead of the tokenizer");
  add.Flag("-v,--verbose", outputs.verbose, "Also print notes on how each render was checked (stderr)");
  add.Option("--set-from-filename", c.render_inputs.set_from_filename,
             "NAME: each template also gets --set NAME=<its file name without directory and extension>");
  add.Flag("--lint", outputs.lint, "Lint each result (safesubst lint); a lint error fails the render");
  add.Repeatable("--lint-disable", outputs.lint_options.disabled, "With --lint: a rule id not to run; repeatable");
  CLI::Option* check = add.Flag("--check,--dry-run", outputs.check,
                                "Render and write nothing (stdout neither); exit 1 when a template fails");
  CLI::Option* diff = add.Flag("--diff", outputs.diff,
                               "Print a unified diff of what -o, --in-place or --out-dir would change and write "
                               "nothing; exit 1 when a file would change");
  exclude(check, diff);
}

void AddLint(CLI::App& app, Commands& c, const NamedOptions& named) {
  LintCommand& lint_command = c.lint;
  CLI::App* lint = AddCommand(app, "lint", "Check rendered manifests for the Kubernetes traps behind envsubst",
                              kLintHelp + LintRulesHelp());
  OptionAdder add(lint, named);
  add.Option("files", lint_command.files, "Manifests (standard input when none)");
  add.Repeatable("--disable", lint_command.options.disabled, "A rule id not to run; repeatable");
  add.Choice("--format", lint_command.format,
             "text (stderr), json, sarif (SARIF 2.1.0 for code scanning) or github (workflow commands)",
             {"text", "json", "sarif", "github"});
  add.Flag("--istio-namespace", lint_command.options.assume_istio_namespace,
           "Assume every pod's namespace has Istio sidecar injection enabled");
  add.Flag("--hold-application", lint_command.options.assume_hold_application,
           "Assume the mesh config sets holdApplicationUntilProxyStarts: true");
  add.Flag("--fail-on-warning", lint_command.fail_on_warning, "Exit 1 on warnings too");
  add.Flag("--verbose", lint_command.verbose, "Explain each finding");
  add.Choice("--color", lint_command.color, "Color: auto, always, never", {"auto", "always", "never"});
}

void AddExplain(CLI::App& app, Commands& c, const NamedOptions& named) {
  OptionAdder add(AddCommand(app, "explain", "Show every $ with its location, context, path and action", kExplainHelp),
                  named);
  AddInputOptions(add, &c.explain_inputs);
  add.Flag("--annotate", c.explain_annotate,
           "Print the template itself, each $ marked by its fate (colour in a terminal; NO_COLOR, --color)");
  add.Choice("--format", c.explain_format, "text (a table), json, or html (the annotated template as a page)",
             {"text", "json", "html"});
}

void AddVars(CLI::App& app, Commands& c, const NamedOptions& named) {
  OptionAdder add(AddCommand(app, "vars", "List the references and what rendering would do with each", kVarsHelp),
                  named);
  AddInputOptions(add, &c.vars_inputs);
  add.Choice("--format", c.vars_format, "text or json", {"text", "json"});
}

void AddInit(CLI::App& app, Commands& c, const NamedOptions& named) {
  OptionAdder add(AddCommand(app, "init", "Survey templates and write a starter manifest", kInitHelp), named);
  add.Option("templates", c.init.templates, "Template files")->required();
  add.Option("-o,--output", c.init.output, "Write the manifest here (default: stdout)");
  add.Flag("--force", c.init.force, "Replace an existing output file");
  add.Repeatable("--values", c.init.values_files,
                 "Values file (dotenv or YAML): its names are deploy-time, typed by their values; repeatable");
  add.Repeatable("--set", c.init.sets, "NAME=VALUE: NAME is deploy-time, typed by VALUE; repeatable");
}

void AddAudit(CLI::App& app, Commands& c, const NamedOptions& named) {
  OptionAdder add(AddCommand(app, "audit", "Show what plain envsubst would destroy in templates", kAuditHelp), named);
  AddInputOptions(add, &c.audit_inputs);
}

void AddKrm(CLI::App& app, Commands& c, const NamedOptions& named) {
  OptionAdder add(app.add_subcommand("krm", "Run as a KRM function (kustomize, kpt): render the items of a "
                                            "ResourceList from stdin with functionConfig.data as values"),
                  named);
  AddInputOptions(add, &c.krm_inputs);
}

struct CommandBuilder {
  const char* name;
  void (*add)(CLI::App&, Commands&, const NamedOptions&);
};
constexpr CommandBuilder kCommands[] = {{"render", AddRender}, {"lint", AddLint},  {"explain", AddExplain},
                                        {"vars", AddVars},     {"init", AddInit},  {"audit", AddAudit},
                                        {"krm", AddKrm}};

// For the reason NamedOptions gives, only the command named first is built,
// and none for the envsubst forms (no argument, an option such as --version,
// or a SHELL-FORMAT). Help, or a first word that names no command, builds
// them all so that `--help` lists them and a misspelt command is still
// reported.
void AddCommands(CLI::App& app, Commands& c, const std::vector<std::string>& arguments) {
  const NamedOptions named(arguments);
  if (!named.wants_help()) {
    if (arguments.empty() || arguments.front().starts_with('-') ||
        arguments.front().find('$') != std::string::npos) {
      return;
    }
    for (const CommandBuilder& command : kCommands) {
      if (arguments.front() == command.name) return command.add(app, c, named);
    }
  }
  for (const CommandBuilder& command : kCommands) command.add(app, c, named);
}

bool Parsed(const CLI::App& app, const char* name) {
  for (const CLI::App* command : app.get_subcommands()) {
    if (command->get_name() == name) return true;
  }
  return false;
}

int Run(const CLI::App& app, Commands& c) {
  if (Parsed(app, "render")) {
    if (!CheckOutputTargets(c.render_inputs, c.outputs)) return kExitUsage;
    if (!c.outputs.lint && !c.outputs.lint_options.disabled.empty()) {
      std::fprintf(stderr, "safesubst: error: --lint-disable needs --lint\n");
      return kExitUsage;
    }
    if (c.outputs.lint && !CheckLintOptions(c.outputs.lint_options)) return kExitUsage;
    return RunRender(c.render_inputs, c.outputs);
  }
  if (Parsed(app, "explain")) {
    if (c.explain_annotate && c.explain_format != "text") {
      std::fprintf(stderr, "safesubst: error: --annotate and --format %s: choose one\n", c.explain_format.c_str());
      return kExitUsage;
    }
    const ExplainFormat format = c.explain_annotate              ? ExplainFormat::kAnnotate
                                 : c.explain_format == "html"    ? ExplainFormat::kHtml
                                 : c.explain_format == "json"    ? ExplainFormat::kJson
                                                                 : ExplainFormat::kTable;
    return RunExplain(c.explain_inputs, format, /*only_variables=*/false);
  }
  if (Parsed(app, "vars")) {
    const ExplainFormat format = c.vars_format == "json" ? ExplainFormat::kJson : ExplainFormat::kTable;
    return RunExplain(c.vars_inputs, format, /*only_variables=*/true);
  }
  if (Parsed(app, "lint")) return RunLint(c.lint);
  if (Parsed(app, "init")) return RunInit(c.init);
  if (Parsed(app, "audit")) return RunAudit(c.audit_inputs);
  if (Parsed(app, "krm")) return RunKrm(c.krm_inputs);
  if (c.list_variables) {
    if (c.dropin.shell_format.empty()) {
      std::fprintf(stderr, "safesubst: error: --variables needs a SHELL-FORMAT argument\n");
      return kExitUsage;
    }
    return PrintVariables(c.dropin.shell_format);
  }
  return RunRender(c.dropin, OutputOptions{});
}

// The name the program was run as, for usage and examples: kubectl runs its
// plugin `kubectl safesubst ARGS` as `kubectl-safesubst ARGS`.
std::string ProgramName(const char* argv0) {
  const std::string_view path = argv0 != nullptr ? argv0 : "";
  return path.substr(path.rfind('/') + 1) == "kubectl-safesubst" ? "kubectl safesubst" : "safesubst";
}

// Every command with every option, for suggestions and completion (the
// parser of a run builds only what its arguments name: NamedOptions).
struct FullCommandLine {
  Commands values;
  CLI::App app;
  explicit FullCommandLine(const std::string& program) : app("", program) {
    AddCommands(app, values, {"--help"});
    app.add_flag("-v,--variables");
    app.add_flag("-q,--quiet");
    app.set_version_flag("-V,--version", "");
  }
  // The command `name`, or the program's own options when it names none.
  CLI::App* Command(const std::string& name) {
    for (CLI::App* command : app.get_subcommands({})) {
      if (command->get_name() == name) return command;
    }
    return &app;
  }
};

std::vector<std::string_view> CommandNames() {
  std::vector<std::string_view> names;
  for (const CommandBuilder& command : kCommands) names.push_back(command.name);
  return names;
}

// `safesubst rendr -m vars.yaml t.yaml`: a first word that is no command and
// no SHELL-FORMAT (it has no `$`) is reported with the closest command when
// it is a likely typo, or when more arguments follow (envsubst takes one).
bool ReportUnknownCommand(const std::vector<std::string>& arguments, const std::string& program) {
  if (arguments.empty() || arguments.front().starts_with('-') || arguments.front().find('$') != std::string::npos) {
    return false;
  }
  const std::vector<std::string_view> names = CommandNames();
  const std::string& word = arguments.front();
  if (std::find(names.begin(), names.end(), word) != names.end()) return false;
  const std::string_view close = detail::ClosestMatch(word, names);
  if (close.empty() && arguments.size() == 1) return false;  // a SHELL-FORMAT that names nothing, as envsubst takes it
  std::fprintf(stderr, "%s: error: unknown command '%s'", program.c_str(), word.c_str());
  if (!close.empty()) std::fprintf(stderr, "; did you mean '%s'?", std::string(close).c_str());
  std::string commands;
  for (std::string_view name : names) commands += (commands.empty() ? "" : ", ") + std::string(name);
  std::fprintf(stderr, "\nCommands: %s; see %s --help\n", commands.c_str(), program.c_str());
  return true;
}

// Options the command does not know, each with the closest one it does
// (`--valuse`: did you mean '--values'?). False when every option is known,
// and CLI11's own message is the better one.
bool ReportUnknownOptions(const std::vector<std::string>& arguments, const std::string& program) {
  FullCommandLine full(program);
  CLI::App* command = full.Command(arguments.empty() ? "" : arguments.front());
  std::vector<std::string> known;
  for (const CLI::Option* option : command->get_options()) {
    for (const std::string& name : option->get_lnames()) known.push_back("--" + name);
    for (const std::string& name : option->get_snames()) known.push_back("-" + name);
  }
  const std::vector<std::string_view> candidates(known.begin(), known.end());
  const std::string where = command == &full.app ? program : program + " " + command->get_name();
  bool reported = false;
  for (const std::string& argument : arguments) {
    if (argument == "--") break;
    if (!argument.starts_with('-') || argument == "-") continue;
    const std::string name = argument.starts_with("--") ? argument.substr(0, argument.find('=')) : argument;
    if (!name.starts_with("--") && name.size() > 2) continue;  // a cluster such as -ij4
    if (std::find(known.begin(), known.end(), name) != known.end()) continue;
    const std::string_view close = detail::ClosestMatch(name, candidates);
    std::fprintf(stderr, "%s: error: unknown option '%s'", where.c_str(), name.c_str());
    if (!close.empty()) std::fprintf(stderr, "; did you mean '%s'?", std::string(close).c_str());
    std::fprintf(stderr, "\n");
    reported = true;
  }
  if (reported) std::fprintf(stderr, "See %s --help\n", where.c_str());
  return reported;
}

// kubectl (1.26+) completes `kubectl safesubst WORDS PARTIAL` by running
// `kubectl_complete-safesubst WORDS PARTIAL` (a link to this program) and
// reading candidates, one a line, then `:DIRECTIVE` as cobra writes it:
// 0 lets the shell complete file names, 4 does not, 16 completes directories.
int CompleteForKubectl(const std::vector<std::string>& words) {
  constexpr int kFiles = 0, kNoFiles = 4, kDirectories = 16;
  const std::string partial = words.empty() ? "" : words.back();
  const std::vector<std::string> before(words.begin(), words.empty() ? words.end() : words.end() - 1);
  FullCommandLine full("kubectl safesubst");
  auto print_matching = [&](const std::vector<std::string>& candidates) {
    for (const std::string& candidate : candidates) {
      if (candidate.starts_with(partial)) std::printf("%s\n", candidate.c_str());
    }
  };
  CLI::App* command = full.Command(before.empty() ? "" : before.front());
  // The option the word before the partial one names, when it takes a value.
  if (!before.empty() && before.back().starts_with('-')) {
    for (CLI::Option* option : command->get_options()) {
      if (!option->check_name(before.back()) || option->get_type_size_min() == 0) continue;
      if (option->check_name("--out-dir")) return std::printf(":%d\n", kDirectories) > 0 ? kExitOk : kExitInputError;
      std::vector<std::string> choices;
      if (option->check_name("--color") || option->check_name("--format")) {
        // IsMember describes itself as {a,b,c}.
        std::string set = option->get_validator()->get_description();
        for (std::size_t start = set.find('{') + 1, end; start != 0 && start < set.size(); start = end + 1) {
          end = std::min(set.find_first_of(",}", start), set.size());
          choices.push_back(set.substr(start, end - start));
        }
      }
      print_matching(choices);
      std::printf(":%d\n", choices.empty() ? kFiles : kNoFiles);
      return kExitOk;
    }
  }
  if (partial.starts_with('-')) {
    std::vector<std::string> names;
    for (const CLI::Option* option : command->get_options()) {
      for (const std::string& name : option->get_lnames()) names.push_back("--" + name);
    }
    print_matching(names);
    std::printf(":%d\n", kNoFiles);
    return kExitOk;
  }
  if (command == &full.app) {
    const std::vector<std::string_view> names = CommandNames();
    print_matching(std::vector<std::string>(names.begin(), names.end()));
    std::printf(":%d\n", kNoFiles);
    return kExitOk;
  }
  std::printf(":%d\n", kFiles);  // templates, manifests: file names
  return kExitOk;
}

}  // namespace

int Main(int argc, char** argv) {
  std::vector<std::string> arguments = NormalizeArguments(argc, argv);
  const std::string_view invoked = argc > 0 ? std::string_view(argv[0]) : std::string_view();
  if (invoked.substr(invoked.rfind('/') + 1) == "kubectl_complete-safesubst") return CompleteForKubectl(arguments);
  const std::string program = ProgramName(argc > 0 ? argv[0] : nullptr);
  if (ReportUnknownCommand(arguments, program)) return kExitUsage;

  CLI::App app{kDescription, program};
  app.set_version_flag("-V,--version", "safesubst " SAFESUBST_VERSION);
  app.footer(ForProgram(kExamples, program));
  app.require_subcommand(0, 1);

  Commands commands;
  app.add_flag("-v,--variables", commands.list_variables,
               "Print the variables named in SHELL-FORMAT (as envsubst -v)");
  OptionAdder(&app, NamedOptions(arguments))
      .Flag("-q,--quiet", commands.dropin.quiet, "Without a manifest: do not list the environment names taken as declared");
  app.add_option("shell-format", commands.dropin.shell_format,
                 "envsubst SHELL-FORMAT: substitute exactly these names, stdin to stdout");
  app.add_flag("--strict", commands.dropin.strict,
               "With SHELL-FORMAT: a reference kept in a data context is an error, not a warning");
  AddCommands(app, commands, arguments);

  std::vector<std::string> reversed(arguments.rbegin(), arguments.rend());  // CLI11 takes them last-first
  try {
    app.parse(reversed);
  } catch (const CLI::ParseError& error) {
    if (dynamic_cast<const CLI::ExtrasError*>(&error) != nullptr && ReportUnknownOptions(arguments, program)) {
      return kExitUsage;
    }
    int code = app.exit(error);
    return code == 0 ? kExitOk : kExitUsage;
  }
  // Exits instead of returning: destroying the parser (CLI11 frees hundreds
  // of objects whose code is cold by now) adds about 0.05 ms to a process
  // that renders one small template, a deploy script's drop-in use, measured
  // with bench/safesubst_bench_time. std::exit still flushes stdio.
  const int code = Run(app, commands);
  // explain, vars, audit, lint and init print through stdio: a write that
  // failed (a full disk, a closed descriptor) is only seen here.
  if (std::fflush(stdout) != 0 || std::ferror(stdout)) {
    std::fprintf(stderr, "safesubst: error: cannot write standard output: %s\n", std::strerror(errno));
    std::exit(code == kExitOk ? kExitInputError : code);
  }
  std::exit(code);
}

}  // namespace safesubst::cli
