// SPDX-License-Identifier: Apache-2.0
// The command-line interface. Everything here only wires library calls to
// files, streams and exit codes; the rules live in the library.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "safesubst/diagnostic.h"
#include "safesubst/lint.h"
#include "safesubst/manifest.h"
#include "render_detail.h"  // RenderWithCopy, CopyText
#include "redaction.h"
#include "safesubst/render.h"
#include "safesubst/values.h"

namespace safesubst::cli {

/// Exit codes, as SPEC's Failure behaviour says.
enum ExitCode : int { kExitOk = 0, kExitInputError = 1, kExitUsage = 2 };

/// The safesubst command. Returns the exit code when nothing ran (a usage
/// error, --help, --version); once a command has run, it ends the process
/// with std::exit (see cli_main.cc).
int Main(int argc, char** argv);

/// Options shared by every command that renders or inspects templates.
struct InputOptions {
  std::string manifest;  ///< -m; SAFESUBST_MANIFEST when empty
  std::string shell_format;  ///< envsubst SHELL-FORMAT, declares exactly its names
  std::vector<std::string> values_files;
  std::vector<std::string> sets;
  std::vector<std::string> templates;  ///< empty: standard input
  bool strict = false;
  bool allow_undeclared = false;
  bool allow_outside = false;  ///< merge fragments outside the manifest's directory
  /// --set-from-filename NAME: each template also gets NAME=<its file name
  /// without directory and extension> (render's batch of a tenant's apps).
  std::string set_from_filename;
  bool quiet = false;  ///< -q: no note about the environment names a render without a manifest declared
  std::string color = "auto";
  /// Take values only from the environment variables named with this prefix,
  /// without it (Argo CD passes a plugin's variables as ARGOCD_ENV_NAME).
  std::string env_prefix;
  /// How `${...}` is read: "safesubst" (SPEC's rules) or "flux" (Flux's
  /// postBuild substitution, DeclarationMode::kFlux).
  std::string flavor = "safesubst";
  Limits limits;
};

/// Texts read so far, by the name diagnostics use, for the caret snippets.
class Sources {
 public:
  /// Reads `path` ("-" is standard input), at most `limit` bytes. Returns
  /// false with an error diagnostic added to `out`.
  bool Read(const std::string& path, std::size_t limit, std::string* text, Diagnostics* out);
  void Remember(const std::string& name, std::string text);
  /// The text of `name`, read lazily from disk when it was not seen yet.
  const SourceText& Get(const std::string& name);
  /// What every diagnostic, snippet and finding is shown through from now on.
  Redactor& redactor() { return redactor_; }

 private:
  std::map<std::string, SourceText> texts_;
  Redactor redactor_;
};

/// Reads `path` ("-" is standard input) with read(2) into one buffer sized
/// from fstat, without remembering it (Sources::Remember it when its
/// diagnostics need snippets). False with an error diagnostic added to `out`,
/// also when it is over `limit` bytes: a stream is read no further than that.
bool ReadInput(const std::string& path, std::size_t limit, std::string* text, Diagnostics* out);

/// A template's bytes: a large regular file is mapped (no copy up front),
/// and kept open for Copy, anything else is read into memory. A file
/// truncated by another process while mapped would end the process
/// (SIGBUS); `render -i` replaces files by rename, which does not.
class InputText {
 public:
  InputText() = default;
  InputText(InputText&& other) noexcept { *this = std::move(other); }
  InputText& operator=(InputText&& other) noexcept;
  InputText(const InputText&) = delete;
  InputText& operator=(const InputText&) = delete;
  ~InputText() { Unmap(); }

  /// Like ReadInput.
  bool Read(const std::string& path, std::size_t limit, Diagnostics* out);
  std::string_view view() const { return mapped_ != nullptr ? std::string_view(mapped_, mapped_size_) : owned_; }
  /// For detail::RenderWithCopy: pread(2) on a mapped file, so that
  /// the threads rendering its pieces copy them into buffers they reuse
  /// instead of touching each page of the mapping; empty when the text is
  /// in memory, or when kMaxOpenMappedFiles are already kept open (a batch
  /// of many large templates must not run out of file descriptors).
  detail::CopyText Copy() const;

 private:
  void Unmap();

  std::string owned_;
  const char* mapped_ = nullptr;
  std::size_t mapped_size_ = 0;
  int descriptor_ = -1;  // of the mapped file, or -1
};

/// Prints diagnostics to stderr, GCC style, with snippets from `sources`.
/// A render keeps at most Limits::max_errors of each template (--max-errors);
/// a note says how many more there were.
void PrintDiagnostics(const Diagnostics& diagnostics, Sources& sources, bool color);

/// Whether to color `descriptor` (stderr by default): `mode` is
/// auto|always|never; auto honours NO_COLOR, TERM=dumb and isatty.
bool UseColor(std::string_view mode, int descriptor = 2);

/// Writes `data` to `path` through a temporary file in the same directory and a rename,
/// so that readers see the old file or the whole new one, never a part. A
/// symlink is followed (its target is replaced, not the link); a path that is
/// not a regular file (a FIFO, /dev/null) is written to directly.
bool WriteFileAtomically(const std::string& path, std::string_view data, std::string* error);

/// Writes all of `data` to stdout; false (with `error`) on a write error such as EPIPE or ENOSPC.
bool WriteStdout(std::string_view data, std::string* error);

/// What LoadInputs could load: everything, the manifest but not every value
/// (a values file, a --set or a value failing its check), or not even the manifest.
enum class Loaded { kAll, kManifestOnly, kNothing };

/// What the input options ask of every render (`render`, `explain`, `vars`,
/// the KRM function): --strict, --allow-undeclared, --allow-outside and the
/// --max-* limits, so that they explain what render would do.
RenderOptions RenderOptionsFor(const InputOptions& inputs, std::string file_name);

/// Loads the manifest the options name (or builds the SHELL-FORMAT or environment one)
/// and collects the values; each problem is added to `diagnostics`, a
/// required variable without a value only when `report_missing`.
/// Also sets `sources` to mask the sensitive values in every snippet it shows.
Loaded LoadInputs(const InputOptions& options, Manifest* manifest, ValueSet* values, Diagnostics* diagnostics,
                  Sources* sources, bool report_missing = true);

/// The ways `render` writes its results.
struct OutputOptions {
  std::string output;   ///< -o FILE
  bool in_place = false;
  std::string out_dir;  ///< --out-dir DIR
  bool explain = false;
  int jobs = 0;  ///< templates rendered at once (0: one per core); a single large template uses them for its pieces
  bool full_check = false;  ///< --full-check: the yaml-cpp structure comparison (RenderOptions::full_structure_check)
  bool verbose = false;  ///< -v: notes on how each render was checked (RenderOptions::verbose)
  bool lint = false;  ///< lint each rendered result; lint errors fail the render
  LintOptions lint_options;
  bool check = false;  ///< --check, --dry-run: render, write nothing
  bool diff = false;   ///< --diff: print what -o, --in-place or --out-dir would change, write nothing
};

/// A file `render` would write, the text it would get, and where that
/// text holds sensitive values (RenderResult::sensitive_spans).
struct RenderTarget {
  std::string path;
  std::string text;
  std::vector<TextRange> sensitive_spans;
  bool is_template = false;  ///< --in-place: the file is the template (redacted_diff.h)
};

/// `render --diff`: prints to stdout a unified diff from each target's
/// current text (none when it does not exist) to the one it would get, with
/// its sensitive spans and what `redactor` masks masked (redacted_diff.h).
/// Returns kExitOk when no target would change, kExitInputError when one
/// would or a target cannot be read.
int PrintTargetDiffs(const std::vector<RenderTarget>& targets, const Redactor& redactor);

/// `safesubst lint`.
struct LintCommand {
  std::vector<std::string> files;  ///< empty: standard input
  LintOptions options;
  std::string format = "text";  ///< text (stderr), or json, sarif, github (stdout)
  bool verbose = false;
  bool fail_on_warning = false;
  std::string color = "auto";
};

int RunLint(const LintCommand& command);

/// False (with a message) when an option names a rule that does not exist.
bool CheckLintOptions(const LintOptions& options);

/// Lints one rendered text and prints the findings; false when one is an error.
/// With `has_secrets`, findings are printed without the rendered line: a
/// sensitive value there may be encoded (escaped, shell-quoted) past masking.
bool LintRendered(std::string_view text, LintOptions options, const std::string& file, Sources& sources,
                  bool color, bool has_secrets);

/// `safesubst init`: survey templates, write a starter manifest.
struct InitOptions {
  std::vector<std::string> templates;
  std::vector<std::string> values_files;  ///< --values: names given a value are deploy-time
  std::vector<std::string> sets;          ///< --set NAME=VALUE, likewise
  std::string output;  ///< -o FILE; stdout when empty
  bool force = false;
  std::string color = "auto";
};

/// Usage errors of where render would write (reported on stderr): --in-place
/// or --out-dir with standard input, two templates written to one file, an
/// output that is the manifest, a values file or (but with --in-place) a template.
bool CheckOutputTargets(const InputOptions& inputs, const OutputOptions& outputs);

int RunRender(const InputOptions& inputs, const OutputOptions& outputs);
int RunInit(const InitOptions& options);
int RunAudit(const InputOptions& inputs);
/// How `explain` and `vars` show the references.
enum class ExplainFormat {
  kTable,     ///< one line per reference (the default)
  kJson,      ///< a JSON array of references, each with its reason
  kAnnotate,  ///< the template, each reference marked by its fate (--annotate)
  kHtml,      ///< the same as a self-contained HTML page (--format html)
};

/// Explains the references of the templates (`vars`: `only_variables`, the
/// ignored ones left out, and exit 1 when one would fail the render).
int RunExplain(const InputOptions& inputs, ExplainFormat format, bool only_variables);

/// A template with the references a render reported in it, for annotating.
struct AnnotatedTemplate {
  std::string file;
  std::string text;
  std::vector<ReferenceReport> references;
};

/// The template with each reference followed by its fate in brackets (its
/// value, `***` for a sensitive one), coloured by fate when `color`.
std::string AnnotateForTerminal(const AnnotatedTemplate& annotated, const Manifest& manifest, const ValueSet& values,
                                bool color);

/// The templates as one self-contained HTML page (no external resources),
/// each reference a <mark> coloured by its fate, with a legend.
std::string AnnotateAsHtml(const std::vector<AnnotatedTemplate>& templates, const Manifest& manifest,
                           const ValueSet& values);
/// `safesubst krm`: a KRM function; a ResourceList on stdin, rendered, on stdout (cli_krm.cc).
int RunKrm(const InputOptions& inputs);

}  // namespace safesubst::cli
