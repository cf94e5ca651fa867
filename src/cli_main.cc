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
  add.Choice("--color", inputs->color, "Color diagnostics: auto, always, never", {"auto", "always", "never"});
  add.Option("templates", inputs->templates, "Template files (standard input when none)");
  add.Option("--env-prefix", inputs->env_prefix,
             "Take values only from environment variables named PREFIX<NAME> (Argo CD: ARGOCD_ENV_)");
  Limits& limits = inputs->limits;
  add.Limit("--max-input-size", limits.max_input_bytes, "Largest template in bytes");
  add.Limit("--max-depth", limits.max_depth, "Deepest collection nesting");
  add.Limit("--max-aliases", limits.max_aliases, "Most alias nodes in a template");
  add.Limit("--max-value-size", limits.max_value_bytes, "Largest substituted value in bytes");
  add.Limit("--max-documents", limits.max_documents, "Most documents in one stream");
  add.Limit("--max-manifest-size", limits.max_manifest_bytes, "Largest manifest or values file in bytes");
  add.Limit("--max-output-size", limits.max_output_bytes, "Largest output of one template in bytes");
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
  InputOptions krm_inputs;
};

void AddRender(CLI::App& app, Commands& c, const NamedOptions& named) {
  OptionAdder add(app.add_subcommand("render", "Render templates (the main command)"), named);
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
  CLI::App* lint = app.add_subcommand("lint", "Check rendered manifests for the Kubernetes traps behind envsubst");
  OptionAdder add(lint, named);
  add.Option("files", lint_command.files, "Manifests (standard input when none)");
  add.Repeatable("--disable", lint_command.options.disabled, "A rule id not to run; repeatable");
  add.Choice("--format", lint_command.format, "text or json", {"text", "json"});
  add.Flag("--istio-namespace", lint_command.options.assume_istio_namespace,
           "Assume every pod's namespace has Istio sidecar injection enabled");
  add.Flag("--hold-application", lint_command.options.assume_hold_application,
           "Assume the mesh config sets holdApplicationUntilProxyStarts: true");
  add.Flag("--fail-on-warning", lint_command.fail_on_warning, "Exit 1 on warnings too");
  add.Flag("--verbose", lint_command.verbose, "Explain each finding");
  add.Choice("--color", lint_command.color, "Color: auto, always, never", {"auto", "always", "never"});
  lint->footer(LintRulesHelp());
}

void AddExplain(CLI::App& app, Commands& c, const NamedOptions& named) {
  OptionAdder add(app.add_subcommand("explain", "Show every $ with its location, context, path and action"), named);
  AddInputOptions(add, &c.explain_inputs);
}

void AddVars(CLI::App& app, Commands& c, const NamedOptions& named) {
  OptionAdder add(app.add_subcommand("vars", "List the references and what rendering would do with each"), named);
  AddInputOptions(add, &c.vars_inputs);
  add.Choice("--format", c.vars_format, "text or json", {"text", "json"});
}

void AddInit(CLI::App& app, Commands& c, const NamedOptions& named) {
  OptionAdder add(app.add_subcommand("init", "Survey templates and write a starter manifest"), named);
  add.Option("templates", c.init.templates, "Template files")->required();
  add.Option("-o,--output", c.init.output, "Write the manifest here (default: stdout)");
  add.Flag("--force", c.init.force, "Replace an existing output file");
  add.Repeatable("--values", c.init.values_files,
                 "Values file (dotenv or YAML): its names are deploy-time, typed by their values; repeatable");
  add.Repeatable("--set", c.init.sets, "NAME=VALUE: NAME is deploy-time, typed by VALUE; repeatable");
}

void AddAudit(CLI::App& app, Commands& c, const NamedOptions& named) {
  OptionAdder add(app.add_subcommand("audit", "Show what plain envsubst would destroy in templates"), named);
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
  if (Parsed(app, "explain")) return RunExplain(c.explain_inputs, /*json=*/false, /*only_variables=*/false);
  if (Parsed(app, "vars")) return RunExplain(c.vars_inputs, c.vars_format == "json", /*only_variables=*/true);
  if (Parsed(app, "lint")) {
    c.lint.json = c.lint.format == "json";
    return RunLint(c.lint);
  }
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
  app.add_flag("--strict", commands.dropin.strict,
               "With SHELL-FORMAT: a reference kept in a data context is an error, not a warning");
  std::vector<std::string> arguments = NormalizeArguments(argc, argv);
  AddCommands(app, commands, arguments);

  std::reverse(arguments.begin(), arguments.end());  // CLI11 takes them last-first
  try {
    app.parse(arguments);
  } catch (const CLI::ParseError& error) {
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
