// SPDX-License-Identifier: Apache-2.0
// `safesubst render`, the envsubst drop-in, and `explain`/`vars`.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>
#include <utility>
#include <vector>

#include "cli.h"
#include "json_text.h"
#include "output_files.h"
#include "rendered_fragments.h"
#include "yaml_load.h"

extern char** environ;

namespace safesubst::cli {

namespace {

// The environment as NAME=VALUE entries; with a prefix, only the variables
// whose name starts with it, without it.
std::vector<std::string> Environment(std::string_view prefix) {
  std::vector<std::string> entries;
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    const std::string_view text(*entry);
    if (text.starts_with(prefix) && text.find('=') > prefix.size()) entries.emplace_back(text.substr(prefix.size()));
  }
  return entries;
}

// The manifest file the options name: -m, else $SAFESUBST_MANIFEST unless a
// SHELL-FORMAT names the variables; null when there is none.
const char* ManifestPath(const InputOptions& options) {
  if (!options.manifest.empty()) return options.manifest.c_str();
  if (options.flavor == "flux") return nullptr;  // Flux has no manifest
  return options.shell_format.empty() ? std::getenv("SAFESUBST_MANIFEST") : nullptr;
}

Manifest ChooseManifest(const InputOptions& options, Diagnostics* diagnostics) {
  if (options.flavor == "flux") {
    // Flux has no manifest: every ${NAME} is a variable, set or blanked.
    if (!options.manifest.empty() || !options.shell_format.empty()) {
      diagnostics->push_back(MakeError(Location{"--flavor"}, "flux reads every ${NAME} as Flux does; it takes no "
                                        "manifest and no SHELL-FORMAT", "give the values with --values or --set"));
    }
    Manifest flux;
    flux.mode = DeclarationMode::kFlux;
    return flux;
  }
  const char* named = ManifestPath(options);
  if (named != nullptr && *named == '\0') {
    // Most likely SAFESUBST_MANIFEST="$UNSET" (-m '' is a usage error):
    // falling back to the environment would silently declare every variable.
    diagnostics->push_back(MakeError(Location{"SAFESUBST_MANIFEST"}, "is set but empty",
                                     "name the manifest, or unset SAFESUBST_MANIFEST to declare the environment"));
    return Manifest{};
  }
  const std::string path = named != nullptr ? named : "";
  if (!path.empty()) {
    Result<Manifest> loaded = LoadManifestFile(path, options.limits.max_manifest_bytes);
    diagnostics->insert(diagnostics->end(), loaded.diagnostics.begin(), loaded.diagnostics.end());
    return loaded.value ? std::move(*loaded.value) : Manifest{};
  }
  if (!options.shell_format.empty()) return ManifestFromShellFormat(options.shell_format);
  Manifest implicit;
  implicit.mode = DeclarationMode::kEnvironment;
  return implicit;
}

// The file a template's output goes to with --in-place or --out-dir.
std::string OutputPathFor(const std::string& template_path, const OutputOptions& outputs) {
  if (outputs.in_place) return template_path;
  std::size_t slash = template_path.rfind('/');
  return outputs.out_dir + "/" + (slash == std::string::npos ? template_path : template_path.substr(slash + 1));
}

// What names one existing file through links and spellings: its device and
// inode, or nothing when the path names no file. Each path is looked up once:
// comparing pairs with a stat each made a tenant's batch of 19 templates
// 1,100 stat calls.
using FileIdentity = std::optional<std::pair<dev_t, ino_t>>;

FileIdentity IdentityOf(const std::string& path) {
  struct stat info{};
  if (::stat(path.c_str(), &info) != 0) return std::nullopt;
  return std::make_pair(info.st_dev, info.st_ino);
}

// True when both name one existing file.
bool SameFile(const FileIdentity& a, const FileIdentity& b) { return a && b && *a == *b; }

// The files a render reads, by role, that no output may replace.
std::vector<std::pair<std::string, std::string>> ProtectedInputs(const InputOptions& inputs,
                                                                 const std::vector<std::string>& templates,
                                                                 bool in_place) {
  std::vector<std::pair<std::string, std::string>> files;
  if (const char* manifest = ManifestPath(inputs); manifest != nullptr && *manifest != '\0') {
    files.emplace_back("manifest", manifest);
  }
  for (const std::string& values : inputs.values_files) files.emplace_back("values file", values);
  if (!in_place) {
    for (const std::string& path : templates) files.emplace_back("template", path);
  }
  return files;
}

}  // namespace

bool CheckOutputTargets(const InputOptions& inputs, const OutputOptions& outputs) {
  if (outputs.diff && outputs.output.empty() && !outputs.in_place && outputs.out_dir.empty()) {
    std::fprintf(stderr, "safesubst: error: --diff compares the files -o, --in-place or --out-dir would write; "
                         "name one of them\n");
    return false;
  }
  const std::vector<std::string>& templates = inputs.templates;
  const bool reads_stdin = templates.empty() || std::count(templates.begin(), templates.end(), "-") > 0;
  if ((outputs.in_place || !outputs.out_dir.empty() || !inputs.set_from_filename.empty()) && reads_stdin) {
    std::fprintf(stderr, "safesubst: error: %s needs template files, not standard input\n",
                 outputs.in_place ? "--in-place" : !outputs.out_dir.empty() ? "--out-dir" : "--set-from-filename");
    return false;
  }
  // Each output with the template it comes from (-o: all of them).
  std::vector<std::pair<std::string, std::string>> targets;
  if (!outputs.output.empty()) targets.emplace_back(outputs.output, "");
  if (outputs.in_place || !outputs.out_dir.empty()) {
    for (const std::string& path : templates) targets.emplace_back(OutputPathFor(path, outputs), path);
  }
  const std::vector<std::pair<std::string, std::string>> inputs_read =
      ProtectedInputs(inputs, templates, outputs.in_place);
  std::vector<FileIdentity> target_ids, source_ids, input_ids;
  for (const auto& [target, source] : targets) {
    target_ids.push_back(IdentityOf(target));
    source_ids.push_back(IdentityOf(source));
  }
  for (const auto& input : inputs_read) input_ids.push_back(IdentityOf(input.second));
  for (std::size_t i = 0; i < targets.size(); ++i) {
    for (std::size_t j = 0; j < i; ++j) {
      const bool same = targets[i].first == targets[j].first || SameFile(target_ids[i], target_ids[j]);
      if (same && !SameFile(source_ids[i], source_ids[j])) {
        std::fprintf(stderr, "%s: error: both '%s' and '%s' would be written here\n", targets[i].first.c_str(),
                     targets[j].second.c_str(), targets[i].second.c_str());
        return false;
      }
    }
    for (std::size_t k = 0; k < inputs_read.size(); ++k) {
      const auto& [role, input] = inputs_read[k];
      if (SameFile(target_ids[i], input_ids[k])) {
        std::fprintf(stderr, "%s: error: this output would replace the %s '%s'%s\n", targets[i].first.c_str(),
                     role.c_str(), input.c_str(), role == "template" ? " (--in-place rewrites templates)" : "");
        return false;
      }
    }
  }
  return true;
}

namespace {

// One line per reference: where, in which context, what happens, what, at which path.
void PrintExplanation(const std::string& file, const std::vector<ReferenceReport>& references, FILE* to) {
  for (const ReferenceReport& reference : references) {
    std::string context(ContextName(reference.context));
    // A shell comment is a comment; say which kind instead of repeating the word.
    if (reference.context == ReferenceReport::Context::kComment && !reference.shell_state.empty()) {
      context += "/shell";
    } else if (!reference.shell_state.empty()) {
      context += "/" + reference.shell_state;
    }
    std::string location = file + ":" + std::to_string(reference.line) + ":" + std::to_string(reference.column) + ":";
    std::fprintf(to, "%-24s %-36s %-18s %-24s %s%s%s\n", location.c_str(), context.c_str(),
                 std::string(ActionName(reference.action)).c_str(), reference.text.c_str(),
                 reference.path.empty() ? "-" : reference.path.c_str(), reference.note.empty() ? "" : "  # ",
                 reference.note.c_str());
  }
}

// Why a reference gets its action: the renderer's note (the error or warning
// it reported there, or how a raw shell value is written), else the rule.
std::string Reason(const ReferenceReport& reference) {
  if (!reference.note.empty()) return reference.note;
  switch (reference.action) {
    case ReferenceReport::Action::kSubstitute: return "declared: substituted, encoded for its context";
    case ReferenceReport::Action::kKeepRuntime: return "in a shell script and not declared: kept for the shell";
    case ReferenceReport::Action::kKeepUndeclared: return "not declared: kept as written";
    case ReferenceReport::Action::kEscape: return "$${NAME} is written as a literal ${NAME}";
    case ReferenceReport::Action::kError: return "makes the render fail";
    case ReferenceReport::Action::kIgnored: return "not a reference here (a comment, $(NAME), $$ or shell syntax)";
  }
  return "";
}

// `vars --format json`: one object per reference, in the order of the templates.
void AppendJson(const std::string& file, const std::vector<ReferenceReport>& references, Json* all) {
  for (const ReferenceReport& reference : references) {
    all->push_back({{"file", file},
                    {"line", reference.line},
                    {"column", reference.column},
                    {"text", reference.text},
                    {"name", reference.name},
                    {"context", ContextName(reference.context)},
                    {"path", reference.path},
                    {"action", ActionName(reference.action)},
                    {"shell_state", reference.shell_state},
                    {"reason", Reason(reference)},
                    {"fails_render", reference.action == ReferenceReport::Action::kError}});
  }
}

// Renders every template; outputs are kept in memory until all succeeded, so
// that nothing is written when anything failed.
struct Rendered {
  std::string file;
  std::string output;
  bool ok = false;
  std::vector<TextRange> sensitive_spans;  // with --diff
};

// One template of a render: its text, and what rendering it gave.
struct Job {
  std::string path;
  std::string file;  // the name diagnostics use
  InputText text;
  Diagnostics problems;  // reading it failed, or it is empty
  std::optional<ValueSet> values;  // its own, with --set-from-filename; else the run's
  std::optional<RenderResult> result;
};

std::vector<Job> ReadTemplates(const std::vector<std::string>& paths, std::size_t limit) {
  std::vector<Job> jobs;
  for (const std::string& path : paths) {
    Job job;
    job.path = path;
    job.file = path == "-" ? "<stdin>" : path;
    if (job.text.Read(path, limit, &job.problems) && job.text.view().empty()) {
      // A deploy step handed an empty template almost always lost a file upstream.
      job.problems.push_back(MakeError(Location{job.file}, "the template is empty (0 bytes); nothing to render",
                                       "check the step that produced it"));
    }
    jobs.push_back(std::move(job));
  }
  return jobs;
}

// Renders every readable template, `jobs` at a time (0: one per core). Each
// result lands in its own Job, so the order of completion does not matter.
// One template gets all the threads for its own pieces (parallel_render.h);
// several get one thread each. `rendered` is called with each job's index
// once it has its result, on the thread that rendered it.
void RenderAll(std::vector<Job>& jobs, const Manifest& manifest, const ValueSet& values,
               const RenderOptions& base, int parallel, const std::function<void(std::size_t)>& rendered) {
  const unsigned requested = parallel > 0 ? static_cast<unsigned>(parallel) : 0;  // 0: one per core
  std::atomic<std::size_t> next{0};
  auto work = [&](unsigned threads_per_render) {
    // For the whole batch: the steps of every app lay out the same merge fragment.
    detail::RememberLoadedText remember;
    detail::RememberRenderedFragments fragments;  // rendered once, where their values are the same
    for (std::size_t i = next++; i < jobs.size(); i = next++) {
      Job& job = jobs[i];
      if (HasErrors(job.problems)) continue;
      RenderOptions options = base;
      options.file_name = job.file;
      options.threads = threads_per_render;
      const detail::CopyText copy = job.text.Copy();
      job.result = detail::RenderWithCopy(job.text.view(), manifest, job.values ? *job.values : values, options,
                                          copy ? &copy : nullptr);
      rendered(i);
    }
  };
  // One template: Render uses the threads only if it cuts a large stream
  // into pieces, and only then asks how many cores there are.
  if (jobs.size() == 1) return work(requested);
  const unsigned threads = requested > 0 ? requested : std::max(1u, std::thread::hardware_concurrency());
  if (threads == 1) return work(1);
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < std::min<std::size_t>(threads, jobs.size()); ++t) pool.emplace_back(work, 1u);
  work(1);
  for (std::thread& thread : pool) thread.join();
}

// --out-dir: each good output to its file as soon as it is ready, on
// writer threads, reporting the failures in the templates' order. Each file
// is fsync'ed before it replaces the old one, and one after the other those
// fsyncs were most of a tenant's batch (19 files, a journal commit each):
// written from several threads at once, the file system commits them
// together; and written while the other templates still render, the waits
// for the disk overlap the rendering.
class OutputWriters {
 public:
  explicit OutputWriters(std::size_t outputs) : paths_(outputs), errors_(outputs), failed_(outputs, 0) {
    constexpr std::size_t kWriters = 8;  // they wait for the disk, not for a core
    for (std::size_t t = 0; t < std::min(kWriters, outputs); ++t) writers_.emplace_back([this] { Work(); });
  }
  OutputWriters(const OutputWriters&) = delete;
  OutputWriters& operator=(const OutputWriters&) = delete;
  ~OutputWriters() { Wait(); }

  /// Writes output `index`, `data` (which must outlive Finish), to `path`.
  void Write(std::size_t index, std::string path, std::string_view data) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      paths_[index] = std::move(path);
      queue_.push_back({index, data});
    }
    ready_.notify_one();
  }

  /// Waits for every write.
  void Wait() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      done_ = true;
    }
    ready_.notify_all();
    for (std::thread& writer : writers_) writer.join();
    writers_.clear();
  }

  /// Waits for every write, then reports each that failed; false when one did.
  bool Finish() {
    Wait();
    bool all_written = true;
    for (std::size_t i = 0; i < failed_.size(); ++i) {
      if (!failed_[i]) continue;
      std::fprintf(stderr, "%s: error: cannot write: %s\n", paths_[i].c_str(), errors_[i].c_str());
      all_written = false;
    }
    return all_written;
  }

 private:
  struct Output {
    std::size_t index;
    std::string_view data;
  };

  void Work() {
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
      ready_.wait(lock, [this] { return !queue_.empty() || done_; });
      if (queue_.empty()) return;
      const Output output = queue_.front();
      queue_.pop_front();
      const std::string& path = paths_[output.index];
      lock.unlock();
      failed_[output.index] = !WriteFileAtomically(path, output.data, &errors_[output.index]);
      lock.lock();
    }
  }

  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<Output> queue_;
  bool done_ = false;
  std::vector<std::string> paths_;
  std::vector<std::string> errors_;
  std::vector<char> failed_;
  std::vector<std::thread> writers_;
};

// Several templates rendered to one stream become one multi-document stream;
// `spans`, when given, gets their sensitive spans, moved to where they are in it.
std::string Concatenate(const std::vector<Rendered>& rendered, std::vector<TextRange>* spans = nullptr) {
  std::string stream;
  for (const Rendered& one : rendered) {
    if (!stream.empty() && stream.back() != '\n') stream += '\n';
    if (!stream.empty() && one.output.rfind("---", 0) != 0) stream += "---\n";
    for (const auto& [begin, end] : one.sensitive_spans) {
      if (spans != nullptr) spans->emplace_back(stream.size() + begin, stream.size() + end);
    }
    stream += one.output;
  }
  return stream;
}

// What `render --diff` compares: the file each rendered template would be
// written to, or the one stream -o would get.
std::vector<RenderTarget> DiffTargets(std::vector<Rendered> rendered, const OutputOptions& outputs) {
  if (!outputs.output.empty()) {
    RenderTarget stream{outputs.output, {}, {}, false};
    stream.text = Concatenate(rendered, &stream.sensitive_spans);
    return {std::move(stream)};
  }
  std::vector<RenderTarget> targets;
  for (Rendered& one : rendered) {
    if (one.ok) {
      targets.push_back({OutputPathFor(one.file, outputs), std::move(one.output), std::move(one.sensitive_spans),
                         outputs.in_place});
    }
  }
  return targets;
}

// `apps/mo-back.yaml` -> "mo-back": the name without directory and extension.
std::string FileStem(const std::string& path) {
  std::string name = path.substr(path.rfind('/') + 1);  // npos + 1 == 0
  const std::size_t dot = name.rfind('.');
  return dot == std::string::npos || dot == 0 ? name : name.substr(0, dot);
}

// The --set that --set-from-filename adds for one template; last, so it wins.
InputOptions WithNameFrom(const InputOptions& inputs, const std::string& path) {
  InputOptions named = inputs;
  named.sets.push_back(inputs.set_from_filename + "=" + FileStem(path));
  return named;
}

// --set-from-filename: each template gets its own values, collected (and
// validated: a file name may not fit the variable's type or pattern) as if
// its name had been given with --set. A template whose values fail is
// reported and not rendered; the others are. An error every template has
// (another required variable without a value) is reported for the first.
void CollectValuesPerTemplate(const InputOptions& inputs, const Manifest& manifest, std::vector<Job>& jobs) {
  std::set<std::string> reported;
  for (Job& job : jobs) {
    if (HasErrors(job.problems)) continue;
    const InputOptions named = WithNameFrom(inputs, job.path);
    Result<ValueSet> collected =
        CollectValues(manifest, ValueInputs{Environment(inputs.env_prefix), named.values_files, named.sets});
    bool reported_before = false;
    for (Diagnostic& diagnostic : collected.diagnostics) {
      if (diagnostic.severity != Severity::kError) continue;  // warnings: reported when the values were loaded
      const Location& at = diagnostic.location;
      const std::string key = at.file + ":" + std::to_string(at.offset) + ":" + diagnostic.message;
      if (reported.insert(key).second) {
        job.problems.push_back(std::move(diagnostic));
      } else {
        reported_before = true;
      }
    }
    if (reported_before && !HasErrors(job.problems)) {
      job.problems.push_back(MakeError(Location{job.file}, "not rendered: its values fail as reported above"));
    }
    if (collected.value) job.values = std::move(*collected.value);
  }
}

// The variable --set-from-filename names must be one the manifest declares:
// otherwise every template's name would be ignored with a warning each.
bool CheckNameFromFilename(const std::string& name, const Manifest& manifest) {
  if (manifest.mode != DeclarationMode::kManifest || manifest.Find(name) != nullptr) return true;
  std::fprintf(stderr, "safesubst: error: --set-from-filename %s: not declared in the manifest\n", name.c_str());
  return false;
}

// After a failure to load the manifest or the values: a template that cannot
// be read either is reported too, so that one run shows every problem.
void ReportMissingTemplates(const std::vector<std::string>& templates, std::size_t limit, Sources& sources,
                            bool color) {
  for (const std::string& path : templates) {
    if (path == "-") continue;  // standard input is not consumed for nothing
    InputText text;
    Diagnostics problems;
    if (!text.Read(path, limit, &problems)) PrintDiagnostics(problems, sources, color);
  }
}

void AddSubstitutedNames(const std::vector<ReferenceReport>& references, std::set<std::string>* names) {
  for (const ReferenceReport& reference : references) {
    if (reference.action == ReferenceReport::Action::kSubstitute) names->insert(reference.name);
  }
}

// Once per run, so that a render without a manifest is never silent about
// what it took from the environment (the names only, never the values).
void PrintEnvironmentNote(const std::set<std::string>& names) {
  std::string list;
  for (const std::string& name : names) list += (list.empty() ? "" : ", ") + name;
  if (list.empty()) list = "none of the names the templates use";
  std::fprintf(stderr, "safesubst: note: no manifest (-m or SAFESUBST_MANIFEST): took from the environment as "
               "declared: %s (-q hides this note)\n", list.c_str());
}

// Whether some sensitive variable has a value that a rendered text may hold.
bool HasSensitiveValues(const Manifest& manifest, const ValueSet& values) {
  return std::any_of(manifest.variables.begin(), manifest.variables.end(), [&](const Variable& variable) {
    const Value* value = values.Find(variable.name);
    return variable.sensitive && value != nullptr && !value->text.empty();
  });
}

// --in-place changes every template or none: each output is written to a
// temporary file first, and only when all of them are written are they
// renamed over the templates.
bool ReplaceTemplates(const std::vector<Rendered>& rendered) {
  detail::OutputBatch batch;
  std::string error;
  for (const Rendered& one : rendered) {
    if (!batch.Stage(one.file, one.output, &error)) {
      std::fprintf(stderr, "%s: error: cannot write: %s\n", one.file.c_str(), error.c_str());
      std::fprintf(stderr, "safesubst: note: --in-place changed no template; the temporary files written so far "
                           "were removed\n");
      return false;
    }
  }
  if (!batch.Commit(&error)) {
    std::fprintf(stderr, "safesubst: error: %s\n", error.c_str());
    return false;
  }
  return true;
}

}  // namespace

RenderOptions RenderOptionsFor(const InputOptions& inputs, std::string file_name) {
  RenderOptions options;
  options.file_name = std::move(file_name);
  options.strict = inputs.strict;
  options.allow_undeclared = inputs.allow_undeclared;
  options.limits = inputs.limits;
  options.allow_outside = inputs.allow_outside;
  return options;
}

Loaded LoadInputs(const InputOptions& options, Manifest* manifest, ValueSet* values, Diagnostics* diagnostics,
                  Sources* sources, bool report_missing) {
  *manifest = ChooseManifest(options, diagnostics);
  // The manifest's sensitive defaults are masked even when it did not load:
  // its errors quote its lines.
  Redactor& redactor = sources->redactor();
  if (const char* path = ManifestPath(options); path != nullptr && *path != '\0') {
    redactor.AddManifest(sources->Get(path).text(), path);
  }
  if (HasErrors(*diagnostics)) return Loaded::kNothing;
  // kustomize-controller reads no environment: in the Flux flavor only a
  // prefix asked for says which variables stand for postBuild.substitute.
  const bool environment = options.flavor != "flux" || !options.env_prefix.empty();
  ValueInputs value_inputs{environment ? Environment(options.env_prefix) : std::vector<std::string>{},
                           options.values_files, options.sets, report_missing};
  value_inputs.max_file_bytes = options.limits.max_manifest_bytes;
  Result<ValueSet> collected = CollectValues(*manifest, value_inputs);
  diagnostics->insert(diagnostics->end(), collected.diagnostics.begin(), collected.diagnostics.end());
  if (collected.value) *values = std::move(*collected.value);
  // The values are known even when some failed validation: mask them all. A
  // values file line that did not even parse cannot be masked, so with any
  // sensitive variable declared, values files are never quoted in messages.
  redactor.AddValues(*manifest, *values);
  if (std::any_of(manifest->variables.begin(), manifest->variables.end(),
                  [](const Variable& variable) { return variable.sensitive; })) {
    for (const std::string& path : options.values_files) {
      redactor.HideFile(path);
      redactor.AddValuesFile(sources->Get(path).text(), *manifest);  // empty unless a regular file
    }
  }
  return HasErrors(*diagnostics) ? Loaded::kManifestOnly : Loaded::kAll;
}

int RunRender(const InputOptions& inputs, const OutputOptions& outputs) {
  bool color = UseColor(inputs.color);
  Sources sources;
  Diagnostics diagnostics;
  Manifest manifest;
  ValueSet values;
  std::vector<std::string> templates = inputs.templates.empty() ? std::vector<std::string>{"-"} : inputs.templates;
  // With --set-from-filename each template gets its values later
  // (CollectValuesPerTemplate); here only what is wrong with the values
  // files or the other --set, once.
  const bool report_missing = inputs.set_from_filename.empty();
  if (LoadInputs(inputs, &manifest, &values, &diagnostics, &sources, report_missing) != Loaded::kAll) {
    PrintDiagnostics(diagnostics, sources, color);
    ReportMissingTemplates(templates, inputs.limits.max_input_bytes, sources, color);
    return kExitInputError;
  }
  PrintDiagnostics(diagnostics, sources, color);  // warnings
  // Without a manifest every environment variable is declared: say which the templates used.
  const bool list_environment = manifest.mode == DeclarationMode::kEnvironment && !inputs.quiet;
  RenderOptions options = RenderOptionsFor(inputs, {});  // each job's file name is its own
  options.full_structure_check = outputs.full_check;
  options.verbose = outputs.verbose;
  options.report_references = outputs.explain || list_environment;
  options.report_sensitive_spans = outputs.diff && HasSensitiveValues(manifest, values);
  std::vector<Job> jobs = ReadTemplates(templates, inputs.limits.max_input_bytes);
  if (!inputs.set_from_filename.empty()) {
    if (!CheckNameFromFilename(inputs.set_from_filename, manifest)) return kExitUsage;
    CollectValuesPerTemplate(inputs, manifest, jobs);
  }
  // --out-dir writes each good output as soon as it is rendered, unless
  // --lint must pass first (--check and --diff write none).
  std::optional<OutputWriters> writers;
  if (!outputs.out_dir.empty() && !outputs.lint && !outputs.check && !outputs.diff && !outputs.in_place) {
    writers.emplace(jobs.size());
  }
  RenderAll(jobs, manifest, values, options, outputs.jobs, [&](std::size_t i) {
    const Job& job = jobs[i];
    if (writers && job.result->ok()) writers->Write(i, OutputPathFor(job.file, outputs), job.result->output);
  });
  if (writers) writers->Wait();  // before the outputs move (a short string's bytes move with it)
  // Reported in template order, whatever order the renders finished in.
  std::vector<Rendered> rendered;
  std::set<std::string> environment_names;
  bool all_ok = true;
  for (Job& job : jobs) {
    Rendered one{job.file, {}, false, {}};
    PrintDiagnostics(job.problems, sources, color);
    if (job.result) {
      if (!job.result->diagnostics.empty() || outputs.lint) sources.Remember(job.file, std::string(job.text.view()));
      PrintDiagnostics(job.result->diagnostics, sources, color);
      if (outputs.explain) PrintExplanation(one.file, job.result->references, stderr);
      if (list_environment) AddSubstitutedNames(job.result->references, &environment_names);
      one.ok = job.result->ok();
      if (one.ok && outputs.lint) {
        one.ok = LintRendered(job.result->output, outputs.lint_options, one.file, sources, color,
                              HasSensitiveValues(manifest, values));
      }
      one.output = std::move(job.result->output);
      one.sensitive_spans = std::move(job.result->sensitive_spans);
    }
    job = Job{};  // the template's text is no longer needed
    all_ok = all_ok && one.ok;
    rendered.push_back(std::move(one));
  }
  if (list_environment) PrintEnvironmentNote(environment_names);
  // With --out-dir every good template is written even when another failed;
  // otherwise one failure means nothing is written at all.
  if (outputs.check) return all_ok ? kExitOk : kExitInputError;
  bool per_file = !outputs.out_dir.empty();
  if (!all_ok && !per_file) return kExitInputError;
  if (outputs.diff) {
    const int status = PrintTargetDiffs(DiffTargets(std::move(rendered), outputs), sources.redactor());
    return all_ok ? status : kExitInputError;
  }
  if (outputs.in_place) return ReplaceTemplates(rendered) ? kExitOk : kExitInputError;
  std::string error;
  if (per_file) {
    if (!writers) {
      writers.emplace(rendered.size());
      for (std::size_t i = 0; i < rendered.size(); ++i) {
        if (rendered[i].ok) writers->Write(i, OutputPathFor(rendered[i].file, outputs), rendered[i].output);
      }
    }
    all_ok = writers->Finish() && all_ok;
  } else {
    // One template (the common case) is written as it is, without a copy.
    std::string stream = rendered.size() == 1 ? std::move(rendered[0].output) : Concatenate(rendered);
    bool ok = outputs.output.empty() ? WriteStdout(stream, &error)
                                     : WriteFileAtomically(outputs.output, stream, &error);
    if (!ok) {
      std::fprintf(stderr, "%s: error: cannot write: %s\n",
                   outputs.output.empty() ? "<stdout>" : outputs.output.c_str(), error.c_str());
      return kExitInputError;
    }
  }
  return all_ok ? kExitOk : kExitInputError;
}

int RunExplain(const InputOptions& inputs, ExplainFormat format, bool only_variables) {
  bool color = UseColor(inputs.color);
  Sources sources;
  Diagnostics diagnostics;
  Manifest manifest;
  ValueSet values;
  // Explaining needs no values: a missing one shows as an error action, an
  // invalid one is reported here (its action says what a valid value would
  // get). A manifest that could not be read leaves nothing to explain.
  const Loaded loaded = LoadInputs(inputs, &manifest, &values, &diagnostics, &sources, /*report_missing=*/false);
  PrintDiagnostics(diagnostics, sources, color);
  if (loaded == Loaded::kNothing) return kExitInputError;
  std::vector<std::string> templates = inputs.templates.empty() ? std::vector<std::string>{"-"} : inputs.templates;
  int status = loaded == Loaded::kAll ? kExitOk : kExitInputError;
  Json all = Json::array();
  std::vector<AnnotatedTemplate> pages;  // --format html: one page for every template
  for (const std::string& path : templates) {
    std::string text;
    Diagnostics read_errors;
    if (!sources.Read(path, inputs.limits.max_input_bytes, &text, &read_errors)) {
      PrintDiagnostics(read_errors, sources, color);
      status = kExitInputError;
      continue;
    }
    // As render would, but for what explains no reference: the structure check and the steps.
    RenderOptions options = RenderOptionsFor(inputs, path == "-" ? "<stdin>" : path);
    options.check_structure = false;
    options.run_steps = false;
    options.report_references = true;
    RenderResult result = Render(text, manifest, values, options);
    // Errors without references: the template itself could not be read
    // (syntax, encoding, limits), so there is nothing to explain but why.
    if (result.references.empty() && HasErrors(result.diagnostics)) {
      PrintDiagnostics(result.diagnostics, sources, color);
      status = kExitInputError;
      continue;
    }
    std::vector<ReferenceReport> shown;
    for (ReferenceReport& reference : result.references) {
      if (!only_variables || reference.action != ReferenceReport::Action::kIgnored) shown.push_back(std::move(reference));
    }
    // `vars` is a gate for CI: a reference the render would refuse fails it.
    const bool fails = std::any_of(shown.begin(), shown.end(), [](const ReferenceReport& reference) {
      return reference.action == ReferenceReport::Action::kError;
    });
    if (only_variables && fails) status = kExitInputError;
    switch (format) {
      case ExplainFormat::kTable: PrintExplanation(options.file_name, shown, stdout); break;
      case ExplainFormat::kJson: AppendJson(options.file_name, shown, &all); break;
      case ExplainFormat::kAnnotate: {
        const std::string annotated = AnnotateForTerminal({options.file_name, std::move(text), std::move(shown)},
                                                          manifest, values, UseColor(inputs.color, STDOUT_FILENO));
        std::fwrite(annotated.data(), 1, annotated.size(), stdout);
        break;
      }
      case ExplainFormat::kHtml: pages.push_back({options.file_name, std::move(text), std::move(shown)}); break;
    }
  }
  std::string report;
  if (format == ExplainFormat::kJson) report = JsonLinesText(all) + "\n";
  if (format == ExplainFormat::kHtml) report = AnnotateAsHtml(pages, manifest, values);
  std::fwrite(report.data(), 1, report.size(), stdout);
  return status;
}

}  // namespace safesubst::cli
