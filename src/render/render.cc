// SPDX-License-Identifier: Apache-2.0
// Rendering, in the order of the pipeline: tokenize, classify, decide what
// each reference becomes, encode the values for where they land, splice them
// into the template's bytes, verify the structure, run the steps.
#include "safesubst/render.h"

#include <algorithm>
#include <deque>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <set>
#include <span>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "base64.h"
#include "bounded_read.h"
#include "carried_env_values.h"
#include "classify.h"
#include "default_words.h"
#include "exec_program_contexts.h"
#include "diagnostic_cap.h"
#include "fast_invariant.h"
#include "flux.h"
#include "input_limits.h"
#include "key_bytes.h"
#include "kubelet_expansion.h"
#include "object_paths.h"
#include "parallel_render.h"
#include "render_detail.h"
#include "rendered_fragments.h"
#include "script_contexts.h"
#include "script_kinds.h"
#include "invariant.h"
#include "references.h"
#include "program_encoding.h"
#include "redaction.h"
#include "shell.h"
#include "startup_variables.h"
#include "safesubst/steps.h"
#include "step_conditions.h"
#include "yaml_encoding.h"
#include "yaml_node_writer.h"
#include "substitution.h"
#include "tag_values.h"
#include "duplicate_keys.h"
#include "text_checks.h"
#include "tokenizer.h"
#include "validate.h"

namespace safesubst {

namespace {

// The end of the line holding `from` (its CR of a CRLF, or the end of the
// text). The template has no lone CR: CheckTextEncoding refuses it.
std::size_t LineEnd(std::string_view text, std::size_t from) {
  const std::size_t feed = text.find('\n', from);
  if (feed == std::string_view::npos) return text.size();
  return feed > from && text[feed - 1] == '\r' ? feed - 1 : feed;
}

bool IsBlankText(std::string_view text) { return text.find_first_not_of(" \t") == std::string_view::npos; }

// Whether an empty value alone on line [line_start, line_end) of block
// `scalar` can be written by emptying the line (attacker A19: a line of
// spaces is left otherwise, and where it is the block's last line the
// scalar ends before it, so the value's line break is lost or the render
// refused). Only inside a literal block: a last line's break is kept, or
// dropped, by chomping, a folded block joins the lines around an empty one,
// and libfyaml reads an empty block with a line after it at its parent's
// indentation as that line (PyYAML as ""); there the scalar is requoted.
bool EmptyValueEmptiesLine(std::string_view text, const Scalar& scalar, std::size_t line_end) {
  const std::size_t scalar_end = scalar.offset + scalar.length;
  const bool last = line_end >= scalar_end ||
                    text.substr(line_end, scalar_end - line_end).find_first_not_of(" \t\r\n") == std::string_view::npos;
  return !last && scalar.style == ScalarStyle::kLiteral;
}

// Turns every LF of `text` from `from` on into CRLF (it holds no CR there:
// FitsBlock refuses one).
void UseCrlf(std::string* text, std::size_t from) {
  if (text->find('\n', from) == std::string::npos) return;
  std::string crlf;
  crlf.reserve(text->size() - from + (text->size() - from) / 8);
  for (char c : std::string_view(*text).substr(from)) {
    if (c == '\n') crlf += '\r';
    crlf += c;
  }
  text->replace(from, std::string::npos, crlf);
}

// Adds `name` to a list such as "A, B" unless it is in it already.
void AddName(std::string_view name, std::string* names) {
  if ((", " + *names + ", ").find(", " + std::string(name) + ", ") != std::string::npos) return;
  *names += (names->empty() ? "" : ", ") + std::string(name);
}

// The bytes of a scalar's decoded text that `reference` decoded to
// (`source_offsets` from DecodeScalar): [*begin, *end). False when the form
// does not decode to itself in one run (split by a line fold or an escape).
bool DecodedSpan(const std::vector<std::size_t>& source_offsets, const Reference& reference, std::size_t* begin,
                 std::size_t* end) {
  auto first = std::lower_bound(source_offsets.begin(), source_offsets.end(), reference.offset);
  *begin = static_cast<std::size_t>(first - source_offsets.begin());
  *end = *begin;
  while (*end < source_offsets.size() && source_offsets[*end] < reference.offset + reference.length) ++*end;
  return *end - *begin == reference.length;
}

// How many scalars `values` (in source order) fall in.
std::size_t ScalarsOf(std::span<const ReferenceValue> values) {
  std::size_t scalars = 0;
  for (std::size_t i = 0; i < values.size(); ++i) {
    scalars += i == 0 || values[i].reference->scalar != values[i - 1].reference->scalar;
  }
  return scalars;
}

// A form written as its text without the first `$`: `$${NAME}`, and in the
// Flux flavor `$$`.
bool IsEscape(RefKind kind) { return TraitsOf(kind).flux == RefFlux::kEscape; }

// The declared references of one scalar with their values, in source order,
// as encoding sees them: views of the render's (Renderer::substitutions_).
// A value is a remembered Resolution's, then its remembered shell encoding
// (Renderer::resolutions_, shell_encodings_): both live as long as the
// render, so a value used thousands of times is not copied each time.
// The encoders walk a scalar's values with ForEach, so that a streaming
// render (Renderer::RefoundSubstitutions) can hand them over without keeping them.
struct ScalarSubstitutions {
  std::span<ReferenceValue> values;
  std::span<const Variable* const> variables;  // each value's; nullptr in environment mode

  /// Calls `each` with every value, in order, until it returns false; false then.
  template <typename Each>
  bool ForEach(Each&& each) const {
    for (const ReferenceValue& value : values) {
      if (!each(value)) return false;
    }
    return true;
  }
  std::size_t size() const { return values.size(); }
  std::string_view first_value() const { return values[0].value; }
  const Variable* first_variable() const { return variables[0]; }
};

// What a streaming render carries from one scalar to the next (Renderer::WriteStreamed).
struct StreamedWriting {
  StreamedWriting(std::string_view text, const Tokens& tokens) : places(text, tokens), proof(text, tokens) {}
  ShellDecidingPlaces places;
  InPlaceProof proof;
  std::string output;
  std::size_t copied = 0;      // template bytes written up to here
  std::size_t scalar_end = 0;  // of the scalar before
};

class Renderer {
 public:
  /// `round`: how many times default words were spliced to make `text`.
  /// `streaming_from`: how many `$` make it stream (render_detail.h).
  Renderer(std::string_view text, const Manifest& manifest, const ValueSet& values, const RenderOptions& options,
           int round = 0, std::size_t streaming_from = detail::kStreamingDollars)
      : text_(text),
        manifest_(manifest),
        values_(values),
        options_(options),
        round_(round),
        streaming_from_(streaming_from) {}

  RenderResult Run();

  /// The scalars this render substituted into, as written (script_kinds.h).
  /// Call after Run(), while the template text is alive.
  std::vector<EncodedScalar> EncodedScalars();

  /// Whether Run() streamed to the end (render_detail.h).
  bool Streamed() const { return streamed_; }

  /// For a merge fragment: the path its root is merged into (KubeletExpands).
  /// Call before Run(); `path` must outlive this.
  void MergedInto(std::string_view path) { merged_into_ = path; }

 private:
  Location At(const Reference& reference) const {
    return Location{options_.file_name, reference.line, reference.column, reference.offset};
  }
  Location At(const Scalar& scalar) const {
    return Location{options_.file_name, scalar.line, scalar.column, scalar.offset};
  }
  void Error(Location at, std::string message, std::string hint = {}) {
    result_.diagnostics.push_back(MakeError(std::move(at), std::move(message), std::move(hint)));
  }
  void Append(Diagnostics diagnostics) {
    for (Diagnostic& diagnostic : diagnostics) result_.diagnostics.push_back(std::move(diagnostic));
  }
  void ReportAtFirstUse(Severity severity, const Reference& reference, std::string message, std::string hint);
  void CountRepeatedUses();

  void CheckDocumentCount();
  bool Streams() const;
  bool StreamAsRead();
  class AsReadSink;
  bool TakeAsRead(StreamedWriting* writing, KeyRepeats* keys, const ListedPaths& listed, ShellScriptsAsRead* scripts);
  RenderResult RenderStreamedOrWhole();
  void WriteScalars(std::string* output);
  bool WriteStreamed(std::uint32_t index, StreamedWriting* writing);
  bool FinishStreamed(StreamedWriting* writing);
  class RefoundSubstitutions;
  bool StreamScalar(std::uint32_t index, ShellDecidingPlaces* places, std::size_t* substituted);
  bool StreamsDecided(ShellDecidingPlaces* places, std::size_t diagnostics, std::size_t* substituted);
  template <typename Each>
  bool ForEachBatch(std::uint32_t index, Each&& each);
  void LexStreamedScript(std::uint32_t index);
  void Requote(const Scalar&, const RefoundSubstitutions&) { streaming_refused_ = true; }
  // What yaml-cpp does with the template when it misreads it (Tokens::yaml_cpp_misreads).
  static constexpr const char* kMisreads = "misreads this valid YAML (a line not indented past its anchor or tag)";
  void NoteYamlCppCannotRead(Location at, const std::string& why);
  void RefuseYamlCppComparison(Location at, const std::string& why);
  RenderResult RenderSplicedDefaults();
  void LexShellScripts();
  void DecideAll();
  const Resolution& Resolve(const Reference& reference);
  const std::string& FormKey(const Reference& reference);
  Resolution ResolveChecked(const Reference& reference) const;
  ShellReading ShellReadingAt(const Reference& reference) const;
  ReferenceReport::Action Decide(const Reference& reference);
  ReferenceReport::Action DecideOne(const Reference& reference);
  bool JoinsKeptName(const Reference& reference, const Resolution& resolution);
  bool JoinsFluxLoneDollar(const Reference& reference, std::string_view value);
  bool InKey(const Reference& reference) const;
  ReferenceReport::Action SubstituteInKey(const Reference& reference, const Resolution& resolution);
  RenderResult RenderSplicedKeys();
  RenderResult RenderSpliced(const std::function<void(Location*)>& map_back,
                             const std::vector<const Reference*>& written, const char* note);
  bool SpliceKey(std::uint32_t scalar_index, std::span<const ReferenceValue> values, std::string* key,
                 std::string* decoded);
  bool KeysKeptStructure(std::string_view spliced, const std::vector<std::pair<std::uint32_t, std::string>>& keys);
  ReferenceReport::Action FluxUnset(const Reference& reference);
  bool InFluxDisabledDocument(const Reference& reference) const;
  bool FluxCannotRead(const Reference& reference);
  bool RefusesUndeclaredInData(const Reference& reference) const;
  std::string UndeclaredHint(const Reference& reference);
  void EncodeScalar(std::uint32_t scalar_index, ScalarSubstitutions substitutions);
  bool ShellEncode(ScalarSubstitutions substitutions);
  bool ProgramEncode(ScalarSubstitutions substitutions);
  void CheckCarriedEnvValues();
  bool CarriedValueReads(const Reference& at, const ReferenceValue& value, const Variable* variable, bool base64);
  bool CheckStartupVariable(std::uint32_t scalar_index, ScalarSubstitutions substitutions);
  bool HandedOver(const ReferenceValue& value, bool base64, std::string* text) const;
  bool CheckShebangLine(const Scalar& scalar, ScalarSubstitutions substitutions);
  bool ReportEncodingProblem(const Reference& reference, const std::string& problem);
  bool KubeletEscape(const Scalar& scalar, ScalarSubstitutions substitutions);
  void ReportSplitReference(const Reference& reference);
  struct ShellEncoding {
    std::string encoded;
    std::string problem;  // empty when encoded
  };
  const ShellEncoding& EncodeForShell(const ShellContext& context, std::string_view value, ShellMode mode);
  template <typename Values>
  void EncodeInPlace(const Scalar& scalar, const Values& values);
  template <typename Values>
  void EncodePlain(const Scalar& scalar, const Values& values);
  template <typename Values>
  void EncodeQuoted(const Scalar& scalar, const Values& values);
  template <typename Values>
  void EncodeBlock(const Scalar& scalar, const Values& values);
  void Requote(const Scalar& scalar, const ScalarSubstitutions& substitutions) { Requote(scalar, substitutions.values); }
  void Requote(const Scalar& scalar, std::span<const ReferenceValue> values);
  std::vector<ReferenceValue> WithEscapes(std::span<const ReferenceValue> values) const;
  template <typename Values>
  bool PlainChangesType(std::string_view rendered, const Values& values) const;
  bool EncodeYamlVariable(std::uint32_t scalar_index, const ReferenceValue& substitution, const Variable& variable);
  void AddSplice(std::size_t offset, std::size_t length, std::string_view text);
  void EndSplice(std::size_t offset, std::size_t length, std::size_t text_begin);
  bool WritesSecret(const ReferenceValue& value) const;
  void NoteSecret(const ReferenceValue& value, std::size_t written);
  void AddSecretsFound(std::string_view output, const std::vector<std::string>& written,
                       std::vector<TextRange>* spans) const;
  // Where the splices stood: a scalar that is requoted takes back those of its values.
  struct SpliceMark {
    std::size_t splices, text;
  };
  SpliceMark MarkSplices() const { return {splices_.size(), splice_text_.size()}; }
  void DropSplicesSince(SpliceMark mark);
  std::uint32_t ParentColumn(std::uint32_t scalar_index) const;
  std::size_t LeastOutputSize() const;
  bool OutputWithinLimit(std::size_t size, const char* would_be);
  std::ptrdiff_t WriteSplices(std::string* output, std::size_t* copied, std::size_t first);
  void CheckStructure(const std::string& output);
  std::vector<ExpectedValue> ExpectedValues();
  bool CheckStructureByTokens(const std::string& output);
  void Rewrote(std::uint32_t index, std::span<const ReferenceValue> values);
  bool DescribeWritten(const RewrittenScalar& scalar, EncodedScalar* written) const;
  void CheckShellScriptsKept(const std::string& output);
  bool ReadsAlikeAsShell(const ReferenceValue& value, const Variable* variable) const;
  void CheckAliasedCommandLines();
  void ReportHiddenCommandLine(const Reference& reference, const Alias& alias);
  std::string RedactSubstituted(std::string text) const;
  void ReportStructureDifferences(const std::vector<StructureDifference>& differences);
  ReferenceReport* ReportOf(const Reference& reference) {
    if (!options_.report_references) return nullptr;
    return &result_.references[static_cast<std::size_t>(&reference - tokens_.references.data())];
  }
  void RunSteps(std::string* output);
  Result<std::string> RenderFragment(const Step& step);

  std::string_view text_;
  const Manifest& manifest_;
  const ValueSet& values_;
  const RenderOptions& options_;
  const int round_;
  const std::size_t streaming_from_;
  // Set when a streaming render meets what needs the whole template (WriteScalars).
  bool streaming_ = false;
  bool streaming_refused_ = false;
  bool streamed_ = false;
  detail::NameSuggester suggester_{manifest_.variables};  // for UndeclaredHint
  Tokens tokens_;
  // The default forms whose word applies, and the render of the template
  // with those words spliced in (RenderSplicedDefaults), which outlives it.
  std::vector<const Reference*> default_words_;
  std::string spliced_text_;
  std::unique_ptr<Renderer> spliced_;
  RenderResult result_;
  // The values of references in mapping keys, in source order: written into
  // the template before anything else (RenderSplicedKeys).
  std::vector<ReferenceValue> key_substitutions_;
  // The pieces of the output that differ from the template, in source order
  // once sorted (Assemble): each replaces its template bytes by the next
  // replacement_length bytes of splice_text_. One flat text, not a string
  // per splice: a placeholder-dense template makes millions of them.
  std::vector<TemplateEdit> splices_;
  std::string splice_text_;
  // With options_.report_sensitive_spans: the ranges of splice_text_ that
  // hold a sensitive value as written (NoteSecret), in order; WriteSplices
  // moves them into result_.sensitive_spans.
  std::vector<TextRange> secret_text_;
  // The sensitive values as written in the merge fragments (RenderFragment),
  // found again after the steps (RunSteps).
  std::vector<std::string> fragment_secrets_;
  // Whether the next splice joins the last one (EndSplice): true after a
  // splice of the scalar being encoded, unless it holds an escape, whose own
  // splice must stay apart. A placeholder-dense scalar then makes one edit,
  // not one per value; the bytes between its values, copied into
  // splice_text_, are part of the output anyway.
  bool joins_last_splice_ = false;
  bool scalar_joins_splices_ = false;
  // The declared references with their values, in reference (= source)
  // order, and each one's variable: grouped by scalar (the reference's) for
  // encoding, which writes the values as written (after shell encoding), and
  // viewed by the structure check as they are (Rewritten).
  std::vector<ReferenceValue> substitutions_;
  std::vector<const Variable*> substituted_variables_;
  std::vector<std::string> yaml_paths_;  // exempt from the structure check
  // For the token-level structure check: the `$${NAME}` escapes written, and
  // the scalars rewritten double-quoted.
  std::vector<const Reference*> escapes_;
  std::span<const Reference* const> scalar_escapes_;  // those in the scalar being encoded (WriteScalars)
  std::vector<std::uint32_t> requoted_;
  // Reused by EncodePlain for every plain scalar.
  std::string plain_text_;
  // The shell quoting state at each reference of a shell script, by reference
  // index (null elsewhere; empty when no script holds a reference); the
  // contexts live in script_contexts_. A streaming render's are those of the
  // scalar it is at (LexStreamedScript), whose references tokens_.references
  // holds from the `batch_start_`th on.
  ReferenceContexts shell_contexts_;
  std::size_t batch_start_ = 0;
  const ShellContext* ShellContextOf(std::size_t index) const {
    return shell_contexts_.empty() ? nullptr : shell_contexts_[batch_start_ + index];
  }
  ScriptContexts script_contexts_{manifest_.mode == DeclarationMode::kFlux};
  // Where each reference of an exec-form interpreter's command line lands in its program.
  ExecProgramContexts exec_programs_;
  std::optional<bool> may_carry_env_values_;  // MayCarryEnvValues, asked once by a streaming render
  std::optional<ObjectKinds> object_kinds_;   // read once, for a start-up variable in a `data` entry
  // The first value of the scalar a streaming render is at, as written.
  std::string_view streamed_first_value_;
  const Variable* streamed_first_variable_ = nullptr;
  struct LastEncoding {
    const ShellContext* context = nullptr;
    std::string_view value;
    ShellMode mode = ShellMode::kSafe;
    const ShellEncoding* encoding = nullptr;
  } last_encoding_;  // EncodeForShell's last answer
  // EncodeForShell's answers by context address, mode and value.
  std::unordered_map<std::string, ShellEncoding, TextHash> shell_encodings_;
  std::string shell_key_;
  // The values KubeletEscape changed, as written; a deque: substitutions view them.
  std::deque<std::string> kubelet_escaped_;
  std::deque<std::string> program_encoded_;  // values the program layer changed (ProgramEncode)
  std::string_view merged_into_;  // MergedInto
  // Resolve's answers by name, [1] for bare references in scripts, and for
  // the other forms by FormKey (built in form_key_). Never erased: the
  // substitutions view their values.
  std::unordered_map<std::string_view, Resolution, TextHash> resolutions_[2];
  std::unordered_map<std::string, Resolution, TextHash> resolutions_by_form_;
  std::string form_key_;
  // The previous reference, when kept as a bare $NAME: where it ends and its
  // name (a streaming render reuses its references' storage).
  std::size_t kept_bare_end_ = std::string_view::npos;
  std::string_view kept_bare_name_;
  // Flux flavor: the documents annotated or labelled
  // `kustomize.toolkit.fluxcd.io/substitute: disabled`, sorted.
  std::vector<std::uint32_t> flux_disabled_documents_;
  // ReportAtFirstUse's reports by message: the diagnostic's index and how
  // many later uses had the same problem.
  struct FirstUse {
    std::size_t diagnostic;
    std::size_t later_uses;
  };
  std::unordered_map<std::string, FirstUse> first_uses_;
  // The references whose value the shell layer changed (quoted or escaped), in order.
  std::vector<const Reference*> shell_quoted_;
  // The whole-document render's rewritten scalars with their values, in
  // source order (Rewrote), for the checks once the output is whole.
  std::vector<RewrittenScalar> rewritten_;
  std::vector<ReferenceValue> rewritten_values_;  // a scalar's values and escapes merged, when it has escapes
  // Whether a value landed where it can make some scalar a shell script or
  // stop it being one (script_kinds.h); rare, so the check costs nothing else.
  bool values_decide_scripts_ = false;
  // ReportHiddenCommandLine's line of each alias.
  std::unordered_map<const Alias*, std::uint32_t> alias_lines_;
  // The merge fragments' substituted scalars, checked once the steps have run.
  std::vector<EncodedScalar> fragment_scalars_;
};

RenderResult Renderer::Run() {
  result_.diagnostics = CheckInputLimits(text_, options_.limits, options_.file_name);
  if (HasErrors(result_.diagnostics)) return std::move(result_);
  result_.diagnostics = CheckTextEncoding(text_, options_.file_name);
  if (HasErrors(result_.diagnostics)) return std::move(result_);
  const bool streams = Streams();
  if (streams) {  // first as the tokenizer reads (StreamAsRead), in a render of its own to drop if it cannot
    Renderer as_read(text_, manifest_, values_, options_, round_, streaming_from_);
    as_read.MergedInto(merged_into_);
    if (as_read.StreamAsRead()) {
      streamed_ = true;
      return std::move(as_read.result_);
    }
  }
  const TokenizerOptions tokenizing{options_.file_name, options_.limits.max_errors};
  tokens_ = streams ? detail::TokenizeWithoutReferences(text_, tokenizing) : Tokenize(text_, tokenizing);
  if (manifest_.mode == DeclarationMode::kFlux) ReadEscapesAsFlux(text_, &tokens_.references);
  result_.diagnostics = tokens_.diagnostics;
  Append(CheckDuplicateKeys(text_, tokens_, options_.file_name));
  Append(CheckNoValuesInTags(text_, tokens_, manifest_, options_.file_name));
  CheckDocumentCount();
  if (HasErrors(result_.diagnostics)) return std::move(result_);
  Classify(text_, manifest_, &tokens_);
  if (streams) return RenderStreamedOrWhole();
  LexShellScripts();
  if (manifest_.mode == DeclarationMode::kFlux) flux_disabled_documents_ = FluxDisabledDocuments(text_, tokens_);
  DecideAll();
  exec_programs_.Read(text_, tokens_, substitutions_);
  CheckCarriedEnvValues();
  if (!default_words_.empty()) return RenderSplicedDefaults();
  if (!key_substitutions_.empty()) return RenderSplicedKeys();
  const std::size_t least_output_size = LeastOutputSize();
  if (!OutputWithinLimit(least_output_size, "would be at least")) return std::move(result_);
  // Each scalar makes at most one splice (EndSplice), but for its escapes.
  // Sized once: a flow sequence may rewrite millions of scalars.
  splices_.reserve(escapes_.size() + ScalarsOf(substitutions_));
  rewritten_.reserve(ScalarsOf(substitutions_) + escapes_.size());
  if (!escapes_.empty()) rewritten_values_.reserve(substitutions_.size() + escapes_.size());  // spans view it
  std::string output;
  output.reserve(least_output_size);
  WriteScalars(&output);
  CheckAliasedCommandLines();
  CountRepeatedUses();  // after the last ReportAtFirstUse
  if (HasErrors(result_.diagnostics) || !OutputWithinLimit(output.size(), "would be")) return std::move(result_);
  if (options_.check_structure) CheckStructure(output);
  if (!HasErrors(result_.diagnostics) && values_decide_scripts_) CheckShellScriptsKept(output);
  if (options_.run_steps && !manifest_.steps.empty() && !HasErrors(result_.diagnostics)) {
    RunSteps(&output);
    OutputWithinLimit(output.size(), "is");  // merged fragments add to it
  }
  if (!HasErrors(result_.diagnostics)) result_.output = std::move(output);
  return std::move(result_);
}

void Renderer::CheckDocumentCount() {
  if (tokens_.scalars.empty() || tokens_.scalars.back().document < options_.limits.max_documents) return;
  const Scalar& last = tokens_.scalars.back();
  Error(At(last), "more than " + std::to_string(options_.limits.max_documents) + " documents in one stream",
        "raise the limit with --max-documents, or split the stream");
}

// Whether this render streams (render_detail.h): many references, and no
// consumer that needs them all at once. The rest is found after tokenizing.
bool Renderer::Streams() const {
  return streaming_from_ != detail::kNeverStreams && !options_.report_references &&
         !options_.report_sensitive_spans &&
         !options_.full_structure_check && manifest_.mode != DeclarationMode::kFlux &&
         (!options_.run_steps || manifest_.steps.empty()) &&
         // Each `$` is a form of two bytes at least: most templates are not counted.
         text_.size() / 2 >= streaming_from_ && CountRareByte(text_, '$', streaming_from_) >= streaming_from_;
}

// A streaming render makes no diagnostic (it gives way to the whole-document
// render first), so its references need no line and column.
constexpr detail::ReferencePlace kStreamedPlace = detail::ReferencePlace::kOffsetOnly;

// A streaming render's substituted values of a scalar with more references
// than a batch (kBatch), as the encoders walk them (several times): its
// references found, decided and shell-encoded again at each walk, a batch at
// a time (ForEachBatch), so that nothing is kept per reference.
class Renderer::RefoundSubstitutions {
 public:
  static constexpr std::size_t kBatch = 4096;

  RefoundSubstitutions(Renderer& renderer, std::uint32_t scalar, std::size_t size)
      : renderer_(renderer), scalar_(scalar), size_(size) {}

  template <typename Each>
  bool ForEach(Each&& each) const {
    return renderer_.ForEachBatch(scalar_, [&] {
      for (const ReferenceValue& value : renderer_.substitutions_) {
        if (!each(value)) return false;
      }
      return true;
    });
  }
  std::size_t size() const { return size_; }
  // Asked for only when the scalar has one value: a batch's (StreamsDecided).
  std::string_view first_value() const { return renderer_.streamed_first_value_; }
  const Variable* first_variable() const { return renderer_.streamed_first_variable_; }

 private:
  Renderer& renderer_;
  const std::uint32_t scalar_;
  const std::size_t size_;
};

// Hands each scalar the tokenizer reads to the streaming render (TakeAsRead).
class Renderer::AsReadSink final : public detail::ScalarSink {
 public:
  AsReadSink(Renderer& renderer, StreamedWriting* writing)
      : renderer_(renderer), writing_(writing), listed_(renderer.manifest_) {}
  void Take(Tokens*) override { going_ = going_ && renderer_.TakeAsRead(writing_, &keys_, listed_, &scripts_); }
  void PathsChanged() override { going_ = false; }
  bool WantsMore() const override { return going_; }
  bool going() const { return going_; }

 private:
  Renderer& renderer_;
  StreamedWriting* writing_;
  KeyRepeats keys_;
  const ListedPaths listed_;
  ShellScriptsAsRead scripts_;
  bool going_ = true;
};

// The streaming render, as the tokenizer reads (detail::TokenizeAsRead):
// each scalar checked, classified, written and proved before the next is
// read, so that no record is kept per scalar either (a flow sequence or key
// lines have one or two a placeholder). False when it meets what needs
// scalars it has not read or no longer has (a diagnostic, a command line's
// words, a key that may repeat one: Tokenize's diagnostics, Classify,
// CheckDuplicateKeys) or what WriteStreamed refuses: then the render
// tokenizes the whole template first (RenderStreamedOrWhole).
bool Renderer::StreamAsRead() {
  streaming_ = true;
  StreamedWriting writing(text_, tokens_);
  AsReadSink sink(*this, &writing);
  detail::TokenizeAsRead(text_, {options_.file_name, options_.limits.max_errors}, &tokens_, &sink);
  if (!sink.going() || !tokens_.diagnostics.empty() || !tokens_.command_line_aliases.empty() ||
      !tokens_.yaml_cpp_misreads.empty() || !FinishStreamed(&writing)) {
    return false;
  }
  result_.output = std::move(writing.output);
  return true;
}

// The scalar the tokenizer has just read (tokens_.scalars[0]): what Run
// checks over the whole template before streaming (Tokenize's diagnostics,
// the document count, CheckDuplicateKeys, Classify; CheckNoValuesInTags
// finds a `$` outside scalars, which WriteStreamed refuses), then written.
bool Renderer::TakeAsRead(StreamedWriting* writing, KeyRepeats* keys, const ListedPaths& listed,
                          ShellScriptsAsRead* scripts) {
  Scalar& scalar = tokens_.scalars[0];
  return tokens_.diagnostics.empty() && tokens_.command_line_aliases.empty() && tokens_.yaml_cpp_misreads.empty() &&
         scalar.document < options_.limits.max_documents && (!scalar.is_key || keys->New(tokens_, scalar)) &&
         ClassifyAsRead(text_, listed, &tokens_, scripts) && WriteStreamed(0, writing);
}

// A streaming render of the whole template's tokens, or, when it meets what
// needs them all at once, the whole-document render from the start. An
// alias standing for a command line, and yaml-cpp's misreadings, are
// checked over the whole template.
RenderResult Renderer::RenderStreamedOrWhole() {
  streaming_ = true;
  if (tokens_.command_line_aliases.empty() && tokens_.yaml_cpp_misreads.empty()) {
    StreamedWriting writing(text_, tokens_);
    std::uint32_t index = 0;
    while (index < tokens_.scalars.size() && WriteStreamed(index, &writing)) ++index;
    if (index == tokens_.scalars.size() && FinishStreamed(&writing)) {
      streamed_ = true;
      result_.output = std::move(writing.output);
      return std::move(result_);
    }
  }
  tokens_ = Tokens();
  Renderer whole(text_, manifest_, values_, options_, round_, detail::kNeverStreams);
  whole.MergedInto(merged_into_);
  return whole.Run();
}

// Encodes and writes the output scalar by scalar, the scalars that a value
// or an escape is in (DecideAll has decided every reference); the structure
// is checked once the output is whole (CheckStructure).
void Renderer::WriteScalars(std::string* output) {
  ShellDecidingPlaces places(text_, tokens_);
  std::size_t copied = 0, next_value = 0, next_escape = 0;
  while (true) {  // on to the next scalar a value or an escape is in (both in source order)
    std::uint32_t index = Reference::kNoScalar;
    if (next_value < substitutions_.size()) index = substitutions_[next_value].reference->scalar;
    if (next_escape < escapes_.size()) index = std::min(index, escapes_[next_escape]->scalar);
    if (index == Reference::kNoScalar) break;
    const Scalar& scalar = tokens_.scalars[index];
    const std::size_t first_splice = splices_.size();
    const std::size_t first_escape = next_escape;
    for (; next_escape < escapes_.size() && escapes_[next_escape]->scalar == index; ++next_escape) {
      splices_.push_back({escapes_[next_escape]->offset, 1, 0});  // drop one `$` of `$${NAME}`
    }
    scalar_escapes_ = std::span(escapes_).subspan(first_escape, next_escape - first_escape);
    std::size_t substituted = 0;
    while (next_value + substituted < substitutions_.size() &&
           substitutions_[next_value + substituted].reference->scalar == index) {
      ++substituted;
    }
    const std::span<ReferenceValue> values = std::span(substitutions_).subspan(next_value, substituted);
    if (substituted > 0) {
      EncodeScalar(index, ScalarSubstitutions{values, std::span(substituted_variables_).subspan(next_value, substituted)});
    }
    for (std::size_t i = next_value; i < next_value + substituted && !values_decide_scripts_; ++i) {
      const Variable* variable = substituted_variables_[i];  // a `type: yaml` value may bring a command line
      values_decide_scripts_ = (variable != nullptr && variable->type == VarType::kYaml) ||
                               places.Contains(*substitutions_[i].reference, substitutions_[i].value);
    }
    next_value += substituted;
    Rewrote(index, values);
    // An escape has no text: sorted among its scalar's values, the texts stay in splice_text_'s order.
    auto before = [](const TemplateEdit& a, const TemplateEdit& b) { return a.offset < b.offset; };
    if (!std::is_sorted(splices_.begin() + first_splice, splices_.end(), before)) {
      std::stable_sort(splices_.begin() + first_splice, splices_.end(), before);
    }
    if (splices_.size() == first_splice) continue;
    WriteSplices(output, &copied, first_splice);
    splice_text_.clear();
    secret_text_.clear();
    output->append(text_.substr(copied, scalar.offset + scalar.length - copied));
    copied = scalar.offset + scalar.length;
  }
  output->append(text_.substr(copied));
}

// Streams scalar `index`: decides it (StreamScalar), as the whole-document
// render would have decided every reference before (DecideAll), writes it
// and proves it once written, as that render's default check would
// (InPlaceProof). False when it meets what that render would do more with:
// a diagnostic, a requote, a value the proof cannot place, an output over
// the limit (it words it).
bool Renderer::WriteStreamed(std::uint32_t index, StreamedWriting* writing) {
  const Scalar& scalar = tokens_.scalars[index];
  // A `$` between scalars (in a comment: `# ${X${A}}` is an error there)
  // is checked by the whole render, which sees every reference.
  if (text_.substr(writing->scalar_end, scalar.offset - writing->scalar_end).find('$') != std::string_view::npos) {
    return false;
  }
  writing->scalar_end = scalar.offset + scalar.length;
  const std::size_t diagnostics = result_.diagnostics.size();
  std::size_t substituted = 0;
  if (!StreamScalar(index, &writing->places, &substituted) || result_.diagnostics.size() != diagnostics) return false;
  if (splices_.empty()) return true;
  std::string& output = writing->output;
  const std::ptrdiff_t growth = WriteSplices(&output, &writing->copied, 0);
  splice_text_.clear();
  splices_.clear();
  output.append(text_.substr(writing->copied, scalar.offset + scalar.length - writing->copied));
  writing->copied = scalar.offset + scalar.length;
  if (output.size() > options_.limits.max_output_bytes) return false;
  if (!options_.check_structure) return true;
  return batch_start_ > 0  // a scalar with more references than a batch keeps none
             ? writing->proof.Next(index, scalar.style, growth, output, [&](const auto& each) {
                 return RefoundSubstitutions(*this, index, substituted).ForEach(each);
               })
             : writing->proof.Next(index, scalar.style, growth, output, std::span(substitutions_));
}

// After the last scalar: the rest of the template, with no `$` in it.
bool Renderer::FinishStreamed(StreamedWriting* writing) {
  writing->output.append(text_.substr(writing->copied));
  return text_.substr(writing->scalar_end).find('$') == std::string_view::npos &&
         writing->output.size() <= options_.limits.max_output_bytes &&
         (!options_.check_structure || writing->proof.Finish(writing->output));
}

// The whole render's steps for scalar `index` alone (LexShellScripts,
// DecideAll, EncodeScalar's ShellEncode and EncodeInPlace), its references
// in tokens_.references a batch at a time (ForEachBatch), `substituted` of
// them substituted. False at a step of the whole render that needs the
// whole template (StreamsDecided, a requote).
bool Renderer::StreamScalar(std::uint32_t index, ShellDecidingPlaces* places, std::size_t* substituted) {
  const std::size_t diagnostics = result_.diagnostics.size();
  LexStreamedScript(index);
  if (!ForEachBatch(index, [&] { return StreamsDecided(places, diagnostics, substituted); })) return false;
  if (*substituted == 0) return true;
  // An interpreter's program, a shell's start-up variable, a `#!` line, or (perhaps) an env value kubelet
  // writes into a script: checked by the whole render (EncodeScalar, CheckCarriedEnvValues).
  const Scalar& scalar = tokens_.scalars[index];
  if (scalar.exec_program || scalar.startup_variable) return false;
  if (!scalar.is_shell && OnShebangLine(text_, scalar, scalar.offset)) return false;  // it starts with `#!`
  if (!may_carry_env_values_) may_carry_env_values_ = MayCarryEnvValues(text_, tokens_);
  if (*may_carry_env_values_) return false;
  joins_last_splice_ = false;
  scalar_joins_splices_ = true;  // a streaming render writes no escape
  if (batch_start_ == 0) {  // one batch: its values are at hand
    EncodeInPlace(tokens_.scalars[index], ScalarSubstitutions{substitutions_, substituted_variables_});
  } else {
    EncodeInPlace(tokens_.scalars[index], RefoundSubstitutions(*this, index, *substituted));
  }
  return !streaming_refused_ && requoted_.empty();
}

// Calls `each` with each batch of scalar `index`'s references (at most
// kBatch, from the `batch_start_`th on) in tokens_.references, decided
// (DecideAll) and, in a script, shell-encoded (ShellEncode) into
// substitutions_, until it returns false; false then.
template <typename Each>
bool Renderer::ForEachBatch(std::uint32_t index, Each&& each) {
  tokens_.references.clear();
  batch_start_ = 0;
  bool going = true;
  auto decide = [&] {
    substitutions_.clear();
    substituted_variables_.clear();
    shell_quoted_.clear();
    DecideAll();
    if (tokens_.scalars[index].is_shell) ShellEncode(ScalarSubstitutions{substitutions_, substituted_variables_});
    going = each();
  };
  detail::ForEachReferenceOf(text_, tokens_, index, [&](const Reference& found) {
    if (going && tokens_.references.size() == RefoundSubstitutions::kBatch) {
      decide();
      tokens_.references.clear();
      batch_start_ += RefoundSubstitutions::kBatch;
    }
    if (!going) return;
    Reference& reference = tokens_.references.emplace_back(found);
    const ShellContext* context = ShellContextOf(tokens_.references.size() - 1);
    if (context != nullptr && context->state == ShellState::kComment) reference.context = ContextClass::kComment;
  }, kStreamedPlace);
  if (going) decide();
  return going;
}

// After a batch is decided and shell-encoded (ForEachBatch), adding to
// `substituted` how many it substituted: false when the whole render would
// do more than substitute, keep or ignore them silently (a diagnostic since
// `diagnostics`, an escape, a default word, a key), or when a value needs
// what EncodeScalar does besides (a `type: yaml` value, kubelet escaping) or
// may decide which scalars are shell scripts (values_decide_scripts_).
bool Renderer::StreamsDecided(ShellDecidingPlaces* places, std::size_t diagnostics, std::size_t* substituted) {
  if (result_.diagnostics.size() != diagnostics || !escapes_.empty() || !default_words_.empty() ||
      !key_substitutions_.empty()) {
    return false;
  }
  for (std::size_t i = 0; i < substitutions_.size(); ++i) {
    const Variable* variable = substituted_variables_[i];
    const ReferenceValue& value = substitutions_[i];
    if ((variable != nullptr && variable->type == VarType::kYaml) || MayNeedKubeletEscape(value.value) ||
        places->Contains(*value.reference, value.value)) {
      return false;
    }
    if (*substituted == 0) {
      streamed_first_value_ = value.value;
      streamed_first_variable_ = variable;
    }
    ++*substituted;
  }
  return true;
}

// LexShellScripts for the scalar a streaming render is at: the shell
// context at each of its references, in shell_contexts_ (empty when it is
// no script).
void Renderer::LexStreamedScript(std::uint32_t index) {
  shell_contexts_.clear();
  const Scalar& scalar = tokens_.scalars[index];
  if (!scalar.is_shell) return;
  const ScriptContexts::OffsetWalk offsets = [&](const std::function<void(std::size_t)>& each) {
    detail::ForEachReferenceOf(
        text_, tokens_, index, [&](const Reference& reference) { each(reference.offset); }, kStreamedPlace);
  };
  std::size_t count = 0;
  offsets([&](std::size_t) { ++count; });
  if (count == 0) return;
  shell_contexts_.Assign(count);
  script_contexts_.At(text_, scalar, offsets, count, &shell_contexts_);
}

// SPEC Rule 1: a default word that applies is template text. The words are
// spliced into the template (default_words.h), the result is rendered as the
// template, and what that render reports is located back in the template.
// A word may bring another default form only by joining text around it, so
// a few rounds are enough for any template written by hand.
RenderResult Renderer::RenderSplicedDefaults() {
  constexpr int kMaxRounds = 4;
  detail::DefaultWordSplicer splicer(text_, [this](const Reference& inner) {
    return ResolveReference(inner, manifest_, values_).outcome == Resolution::Outcome::kDefaultWord;
  }, manifest_.mode == DeclarationMode::kFlux);
  Diagnostics problems;
  for (const Reference* reference : default_words_) {
    std::string problem = splicer.Splice(*reference);
    if (problem.empty() && round_ == kMaxRounds) problem = "default words keep forming new default forms";
    if (!problem.empty()) {
      problems.push_back(MakeError(At(*reference), std::move(problem), "give the variable a value, or write the "
                                                                       "default in the manifest's `default:`"));
    }
  }
  if (!problems.empty()) {
    result_.diagnostics = std::move(problems);
    return std::move(result_);
  }
  spliced_text_ = splicer.Finish();
  return RenderSpliced([&](Location* at) { *at = splicer.MapBack(*at); }, default_words_,
                       "its default word is written as it is");
}

// Renders spliced_text_, the template with text written in, as the
// template; moves what that render reports back to the template's places
// (`map_back`), and adds this round's reports of the references `written`,
// with `note`.
RenderResult Renderer::RenderSpliced(const std::function<void(Location*)>& map_back,
                                     const std::vector<const Reference*>& written, const char* note) {
  spliced_ = std::make_unique<Renderer>(spliced_text_, manifest_, values_, options_, round_ + 1, streaming_from_);
  spliced_->MergedInto(merged_into_);
  RenderResult rendered = spliced_->Run();
  for (Diagnostic& diagnostic : rendered.diagnostics) {
    if (diagnostic.location.file == options_.file_name) map_back(&diagnostic.location);
  }
  for (ReferenceReport& report : rendered.references) {
    Location at{{}, report.line, report.column, 0};
    map_back(&at);
    report.line = at.line;
    report.column = at.column;
  }
  for (const Reference* reference : written) {
    if (ReferenceReport* report = ReportOf(*reference)) {
      report->note = note;
      rendered.references.push_back(std::move(*report));
    }
  }
  std::stable_sort(rendered.references.begin(), rendered.references.end(), [](const auto& a, const auto& b) {
    return a.line != b.line ? a.line < b.line : a.column < b.column;
  });
  return rendered;
}

// Lexes every shell script once and records the quoting state at each of its
// references. A reference in a shell comment becomes a comment reference:
// like a YAML comment, it is never substituted.
void Renderer::LexShellScripts() {
  std::vector<Reference>& references = tokens_.references;
  for (std::size_t first = 0; first < references.size();) {
    std::size_t last = first;
    std::uint32_t scalar_index = references[first].scalar;
    while (last < references.size() && references[last].scalar == scalar_index) ++last;
    if (scalar_index != Reference::kNoScalar && tokens_.scalars[scalar_index].is_shell) {
      if (shell_contexts_.empty()) shell_contexts_.Assign(references.size());
      script_contexts_.At(text_, tokens_.scalars[scalar_index], &references[first], last - first, &shell_contexts_,
                          first);
      for (std::size_t i = first; i < last; ++i) {
        if (shell_contexts_[i]->state == ShellState::kComment) references[i].context = ContextClass::kComment;
      }
    }
    first = last;
  }
}

void Renderer::DecideAll() {
  substitutions_.reserve(tokens_.references.size());
  substituted_variables_.reserve(tokens_.references.size());
  if (!options_.report_references) {
    for (const Reference& reference : tokens_.references) Decide(reference);
    return;
  }
  result_.references.reserve(tokens_.references.size());
  for (const Reference& reference : tokens_.references) {
    ReferenceReport report;
    report.text = std::string(text_.substr(reference.offset, reference.length));
    report.name = std::string(reference.name);
    report.line = reference.line;
    report.column = reference.column;
    report.context = static_cast<ReferenceReport::Context>(reference.context);
    if (reference.scalar != Reference::kNoScalar) {
      report.path = tokens_.PathString(tokens_.scalars[reference.scalar].path);
    }
    const ShellContext* shell = ShellContextOf(result_.references.size());
    if (shell) report.shell_state = DescribeShellContext(*shell);
    result_.references.push_back(std::move(report));
    result_.references.back().action = Decide(reference);
  }
}

// A stream names a variable thousands of times, and one unset variable would
// otherwise bury the output in identical errors (GCC reports an undeclared
// identifier once per function for the same reason). A problem is reported at
// its first use; CountRepeatedUses tells how many more uses share it.
void Renderer::ReportAtFirstUse(Severity severity, const Reference& reference, std::string message,
                                std::string hint) {
  // Every use's report says why (explain, vars --format json), not only the first's.
  ReferenceReport* report = ReportOf(reference);
  if (report != nullptr && report->note.empty()) report->note = message;
  auto [first, inserted] = first_uses_.try_emplace(message, FirstUse{result_.diagnostics.size(), 0});
  if (!inserted) {
    ++first->second.later_uses;
    return;
  }
  result_.diagnostics.push_back(Diagnostic{severity, At(reference), std::move(message), std::move(hint)});
}

void Renderer::CountRepeatedUses() {
  for (const auto& [message, first] : first_uses_) {
    if (first.later_uses == 0) continue;
    std::string& reported = result_.diagnostics[first.diagnostic].message;
    reported += " (and at " + std::to_string(first.later_uses) + (first.later_uses == 1 ? " later use)" : " later uses)");
  }
}

// What to do about an undeclared name depends on how names are declared.
// `$${NAME}` writes a literal `${NAME}` in every mode; a bare `$NAME` is
// already kept as written, and has no escape of its own.
std::string Renderer::UndeclaredHint(const Reference& reference) {
  const std::string name(reference.name);
  const bool bare = TraitsOf(reference.kind).bare;
  const std::string literal = bare ? "" : ", or write $${" + name + "} for a literal ${" + name + "}";
  switch (manifest_.mode) {
    case DeclarationMode::kEnvironment:
      return "set " + name + " in the environment" + literal;
    case DeclarationMode::kShellFormat:
      return "add ${" + name + "} to the SHELL-FORMAT argument" + literal;
    case DeclarationMode::kFlux:
      return "set " + name + " in the Kustomization's postBuild.substitute (here: --set or --values), give it a "
             "default ${" + name + ":=...}, or write $${" + name + "} for a literal ${" + name + "}";
    case DeclarationMode::kManifest:
      break;
  }
  // A name one or two letters away from a declared one is most likely its typo.
  const std::string_view close = suggester_.Suggest(name);
  const std::string typo = close.empty() ? "" : "did you mean '" + std::string(close) + "'? or ";
  return typo + "declare " + name + " under `variables:` in the manifest" + (bare ? " or" : ",") +
         " list it under `runtime:`" + literal;
}

// ResolveReference, remembered: a stream names a few variables thousands of
// times, and Substitution keeps views of the values. `${NAME}` and `$NAME`
// resolve alike by name, except that environment mode leaves a bare name in a
// script to the script; any other form by all that ResolveReference reads.
const Resolution& Renderer::Resolve(const Reference& reference) {
  const RefKindTraits& form = TraitsOf(reference.kind);
  const bool by_name = form.use == RefUse::kValue && reference.context != ContextClass::kComment;
  if (!by_name) {
    auto [known, inserted] = resolutions_by_form_.try_emplace(FormKey(reference));
    if (inserted) known->second = ResolveChecked(reference);
    return known->second;
  }
  // A bare name in a script, and in Flux everywhere, is not what its braced form is.
  const bool bare_in_script = form.bare && (reference.context == ContextClass::kScript ||
                                            manifest_.mode == DeclarationMode::kFlux);
  auto [known, inserted] = resolutions_[bare_in_script].try_emplace(reference.name);
  if (inserted) known->second = ResolveChecked(reference);
  return known->second;
}

// What ResolveReference reads of a reference (substitution.cc), as one key:
// its kind, context and shell reading, and its name, operator and operand.
const std::string& Renderer::FormKey(const Reference& reference) {
  form_key_.clear();
  form_key_.push_back(static_cast<char>(reference.kind));
  form_key_.push_back(static_cast<char>(reference.context));
  form_key_.push_back(static_cast<char>(ShellReadingAt(reference)));
  for (std::string_view part : {reference.name, reference.op, reference.operand}) AppendKeyText(part, &form_key_);
  return form_key_;
}

// Whether the shell expands the text at `reference` (LexShellScripts).
ShellReading Renderer::ShellReadingAt(const Reference& reference) const {
  const ShellContext* shell = ShellContextOf(static_cast<std::size_t>(&reference - tokens_.references.data()));
  if (!shell) return ShellReading::kExpanded;
  switch (shell->state) {
    case ShellState::kSingleQuoted:
    case ShellState::kDollarSingleQuoted:
    case ShellState::kHeredocLiteral:
      return ShellReading::kLiteral;
    default:
      return ShellReading::kExpanded;
  }
}

// ResolveReference, with a value that cannot be written anywhere turned into
// a failure: checked once per name, not at each of its thousands of uses.
Resolution Renderer::ResolveChecked(const Reference& reference) const {
  Resolution resolution = ResolveReference(reference, manifest_, values_, ShellReadingAt(reference));
  if (resolution.outcome != Resolution::Outcome::kSubstitute) return resolution;
  const std::string name(reference.name);
  if (!IsValidUtf8(resolution.value)) {
    resolution.outcome = Resolution::Outcome::kFail;
    resolution.message = "value of '" + name + "' is not valid UTF-8";
    resolution.hint = "values are text; convert it, or base64-encode binary data";
  } else if (resolution.value.size() > options_.limits.max_value_bytes) {
    resolution.outcome = Resolution::Outcome::kFail;
    resolution.message = "value of '" + name + "' is " + std::to_string(resolution.value.size()) +
                         " bytes, over the limit of " + std::to_string(options_.limits.max_value_bytes);
    resolution.hint = "raise it with --max-value-size";
  }
  return resolution;
}

// Decides in text order, remembering the last `$NAME` kept as written: a
// value substituted right after it must not lengthen its name.
ReferenceReport::Action Renderer::Decide(const Reference& reference) {
  using Action = ReferenceReport::Action;
  const Action action = DecideOne(reference);
  const bool kept = action == Action::kKeepRuntime || action == Action::kKeepUndeclared;
  const bool kept_bare = kept && TraitsOf(reference.kind).bare;
  kept_bare_end_ = kept_bare ? reference.offset + reference.length : std::string_view::npos;
  kept_bare_name_ = kept_bare ? reference.name : std::string_view();
  return action;
}

// `$PREFIX${V}` with PREFIX kept and V = "data" would read `$PREFIXdata`,
// another (usually unset) variable, at run time; GNU envsubst has the same
// trap. Reported with the fix instead of written.
bool Renderer::JoinsKeptName(const Reference& reference, const Resolution& resolution) {
  if (kept_bare_end_ != reference.offset) return false;
  const std::string_view value = resolution.value;
  if (value.empty() || !IsNameChar(value.front())) return false;
  const std::string kept(kept_bare_name_);
  // Not even one byte of a sensitive value is shown.
  const bool sensitive = resolution.variable != nullptr && resolution.variable->sensitive;
  const std::string first = sensitive ? "a letter, digit or underscore" : "'" + std::string(1, value.front()) + "'";
  ReportAtFirstUse(Severity::kError, reference,
                   "the value of '" + std::string(reference.name) + "' starts with " + first +
                       ", which would join the variable $" + kept + " kept right before it",
                   "write ${" + kept + "} in the template");
  return true;
}

bool Renderer::JoinsFluxLoneDollar(const Reference& reference, std::string_view value) {
  if (manifest_.mode != DeclarationMode::kFlux) return false;
  const bool shell = reference.scalar != Reference::kNoScalar && tokens_.scalars[reference.scalar].is_shell;
  // What Flux writes right before the value: the text before the references
  // right before this one that write nothing (`$$${UNSET}${B}` is `$` and B).
  std::size_t start = reference.offset;
  for (auto before = substitutions_.rbegin(); before != substitutions_.rend(); ++before) {
    if (before->value.empty() && before->reference->offset + before->reference->length == start) {
      start = before->reference->offset;
    } else if (before->reference->offset + before->reference->length <= start) {
      break;
    }
  }
  std::string problem = FluxLoneDollarJoins(text_, start, reference, value, shell);
  if (problem.empty()) return false;
  ReportAtFirstUse(Severity::kError, reference, std::move(problem),
                   "keep the `$` apart from the placeholder, or write it in the value");
  return true;
}

bool Renderer::InKey(const Reference& reference) const {
  return reference.scalar != Reference::kNoScalar && tokens_.scalars[reference.scalar].is_key;
}

// A key named by a variable (`${APP}: {}`, `${NAME}-config: v`, common in
// Flux and clusterctl templates) takes a string value, written as a plain or
// double-quoted key on its line (RenderSplicedKeys). A block or multi-line
// key, a `type: yaml` value (structure) and a sensitive one (a key is shown
// in every message about its entry) are refused where they stand.
ReferenceReport::Action Renderer::SubstituteInKey(const Reference& reference, const Resolution& resolution) {
  const Scalar& key = tokens_.scalars[reference.scalar];
  const Variable* variable = resolution.variable;
  const bool one_line = text_.substr(key.offset, key.length).find_first_of("\r\n") == std::string_view::npos;
  const bool block = key.style == ScalarStyle::kLiteral || key.style == ScalarStyle::kFolded;
  std::string why;
  if (block || !one_line) {
    why = "a multi-line mapping key";
  } else if (variable != nullptr && variable->sensitive) {
    why = "a mapping key and sensitive";
  } else if (variable != nullptr && variable->type == VarType::kYaml) {
    why = "a mapping key and of type yaml";
  }
  if (!why.empty()) {
    ReportAtFirstUse(Severity::kError, reference,
                     "'" + std::string(reference.name) + "' is in " + why +
                         ", and keys are the document's structure, which rendering keeps",
                     "write the key out, or make the whole mapping the value of one `type: yaml` variable");
    return ReferenceReport::Action::kError;
  }
  // The spliced keys are rendered again as template text (RenderSplicedKeys):
  // a `$` in the value would be read as a placeholder there (`A='${A}'`
  // recursed without end). A value is never a template, so it is refused.
  if (resolution.value.find('$') != std::string::npos) {
    ReportAtFirstUse(Severity::kError, reference,
                     "'" + std::string(reference.name) +
                         "' is in a mapping key and its value holds a `$`, which the key would read as a placeholder",
                     "keep `$` out of values written into keys, or write the key out");
    return ReferenceReport::Action::kError;
  }
  key_substitutions_.push_back({&reference, resolution.value});
  return ReferenceReport::Action::kSubstitute;
}

// Writes the keys' values into the template, each key as a plain scalar when
// it reads back as the same string there, else double-quoted (one line, so
// still an implicit key), checks that only those keys changed, and renders
// the result as the template: its duplicate keys, values and scripts are
// then checked as any template's. Lines stay where they were.
RenderResult Renderer::RenderSplicedKeys() {
  std::string spliced;
  std::vector<std::pair<std::uint32_t, std::string>> keys;  // scalar, the value it must decode to
  struct Shift {
    std::uint32_t line, column;  // of the key, in the spliced text
    std::ptrdiff_t added;        // bytes the key's line gained after that column
  };
  std::vector<Shift> shifts;
  std::size_t copied = 0;
  for (std::size_t begin = 0; begin < key_substitutions_.size();) {
    const std::uint32_t scalar_index = key_substitutions_[begin].reference->scalar;
    std::size_t end = begin;
    while (end < key_substitutions_.size() && key_substitutions_[end].reference->scalar == scalar_index) ++end;
    std::string key, value;
    if (!SpliceKey(scalar_index, std::span(key_substitutions_).subspan(begin, end - begin), &key, &value)) {
      return std::move(result_);
    }
    const Scalar& scalar = tokens_.scalars[scalar_index];
    spliced.append(text_.substr(copied, scalar.offset - copied));
    spliced += key;
    copied = scalar.offset + scalar.length;
    std::ptrdiff_t before = 0;  // what earlier keys of the line (a flow mapping) added
    for (const Shift& shift : shifts) before += shift.line == scalar.line ? shift.added : 0;
    shifts.push_back({scalar.line, static_cast<std::uint32_t>(scalar.column + before),
                      static_cast<std::ptrdiff_t>(key.size()) - static_cast<std::ptrdiff_t>(scalar.length)});
    keys.emplace_back(scalar_index, std::move(value));
    begin = end;
  }
  spliced.append(text_.substr(copied));
  if (!KeysKeptStructure(spliced, keys)) return std::move(result_);
  spliced_text_ = std::move(spliced);
  std::vector<const Reference*> written;
  for (const ReferenceValue& substitution : key_substitutions_) written.push_back(substitution.reference);
  // Back to the template's columns: a key before the column on its line moved it.
  return RenderSpliced([&](Location* at) {
    std::ptrdiff_t moved = 0;
    for (const Shift& shift : shifts) moved += shift.line == at->line && at->column > shift.column ? shift.added : 0;
    if (moved < static_cast<std::ptrdiff_t>(at->column)) at->column = static_cast<std::uint32_t>(at->column - moved);
  }, written, "written into a mapping key");
}

// The key `scalar_index` with `values` in place, as it is written (`key`)
// and as it reads (`decoded`): plain when that reads back as the same string
// (not a number, bool or null, not a merge key `<<`), single-quoted if it was
// and can be, else double-quoted. False (reported) when it cannot be a key.
bool Renderer::SpliceKey(std::uint32_t scalar_index, std::span<const ReferenceValue> values, std::string* key,
                         std::string* decoded) {
  const Scalar& scalar = tokens_.scalars[scalar_index];
  std::string& value = *decoded;
  if (!ExpectedScalarValue(text_, scalar, values, &value)) {
    ReportSplitReference(*values[0].reference);
    return false;
  }
  if (scalar.style == ScalarStyle::kPlain && FitsPlain(value, scalar.in_flow) &&
      ResolvePlain(value) == PlainKind::kString && value != "<<") {
    *key = value;
  } else if (scalar.style == ScalarStyle::kSingleQuoted && FitsSingleQuoted(value)) {
    *key = "'";
    AppendSingleQuotedBody(value, key);
    *key += "'";
  } else {
    *key = DoubleQuoted(value);
  }
  // YAML limits an implicit key to one line of 1024 characters.
  if (key->size() > 1024 || key->find_first_of("\r\n") != std::string::npos) {
    Error(At(*values[0].reference), "the mapping key '" + std::string(values[0].reference->name) +
                                        "' names would be longer than the 1024 characters YAML allows a key",
          "write the key out, or make the whole mapping the value of one `type: yaml` variable");
    return false;
  }
  return true;
}

// After the keys are written: the same scalars, keys and values in the
// same documents on the same lines, and each rewritten key (`keys`: its
// scalar and the value it must decode to) with its value.
bool Renderer::KeysKeptStructure(std::string_view spliced,
                                 const std::vector<std::pair<std::uint32_t, std::string>>& keys) {
  const Tokens after = Tokenize(spliced, TokenizerOptions{options_.file_name});
  bool same = !HasErrors(after.diagnostics) && after.scalars.size() == tokens_.scalars.size();
  std::size_t next_key = 0;
  for (std::size_t i = 0; same && i < after.scalars.size(); ++i) {
    const Scalar& t = tokens_.scalars[i];
    const Scalar& o = after.scalars[i];
    same = t.is_key == o.is_key && t.document == o.document && t.line == o.line;
    if (!same) break;
    if (next_key < keys.size() && keys[next_key].first == i) {
      same = DecodeScalar(spliced, o) == keys[next_key].second;
      ++next_key;
    }
  }
  if (same) return true;
  Error(At(*key_substitutions_[0].reference), "writing the values of the mapping keys would change the document's "
        "structure", "write the key out, or make the whole mapping the value of one `type: yaml` variable");
  return false;
}

ReferenceReport::Action Renderer::DecideOne(const Reference& reference) {
  using Action = ReferenceReport::Action;
  if (manifest_.mode == DeclarationMode::kFlux) {
    if (InFluxDisabledDocument(reference)) return Action::kIgnored;
    if (FluxCannotRead(reference)) return Action::kError;
    if (std::string note = FluxDollarDollarNote(text_, reference); !note.empty()) {
      ReportAtFirstUse(Severity::kWarning, reference, std::move(note), "write $$$$ where the text means $$");
    }
  }
  const Resolution& resolution = Resolve(reference);
  if (!resolution.warning.empty()) ReportAtFirstUse(Severity::kWarning, reference, resolution.warning, resolution.hint);
  switch (resolution.outcome) {
    case Resolution::Outcome::kIgnore:
      return Action::kIgnored;
    case Resolution::Outcome::kEscape:
      escapes_.push_back(&reference);  // WriteScalars drops its first `$`
      return Action::kEscape;
    case Resolution::Outcome::kRuntime:
      return Action::kKeepRuntime;
    case Resolution::Outcome::kDefaultWord:
      default_words_.push_back(&reference);
      return Action::kSubstitute;
    case Resolution::Outcome::kSubstitute:
      if (InKey(reference)) return SubstituteInKey(reference, resolution);
      if (JoinsKeptName(reference, resolution)) return Action::kError;
      if (JoinsFluxLoneDollar(reference, resolution.value)) return Action::kError;
      substitutions_.push_back({&reference, resolution.value});
      substituted_variables_.push_back(resolution.variable);
      return Action::kSubstitute;
    case Resolution::Outcome::kFail:
      ReportAtFirstUse(Severity::kError, reference, resolution.message, resolution.hint);
      return Action::kError;
    case Resolution::Outcome::kUndeclared:
      if (manifest_.mode == DeclarationMode::kFlux) return FluxUnset(reference);
      break;
  }
  // An undeclared name: SPEC Rule 2 decides by context.
  if (reference.context == ContextClass::kScript) return Action::kKeepRuntime;
  std::string name(reference.name);
  std::string hint = UndeclaredHint(reference);
  if (RefusesUndeclaredInData(reference)) {
    ReportAtFirstUse(Severity::kError, reference, "undeclared variable '" + name + "' in a data context", hint);
    return Action::kError;
  }
  ReportAtFirstUse(Severity::kWarning, reference, "undeclared variable '" + name + "' kept as written", hint);
  return Action::kKeepUndeclared;
}

// SPEC Rule 2: an undeclared reference in data is an error where the
// declarations claim to be complete (a manifest), a warning where they only
// say what to substitute (a SHELL-FORMAT argument keeps every other form as
// envsubst does; the environment, all but a string operation, which would
// reach the cluster as shell syntax).
bool Renderer::RefusesUndeclaredInData(const Reference& reference) const {
  if (options_.strict) return true;
  if (options_.allow_undeclared) return false;
  switch (manifest_.mode) {
    case DeclarationMode::kManifest:
      return !TraitsOf(reference.kind).bare;
    case DeclarationMode::kShellFormat:
      return false;
    case DeclarationMode::kEnvironment:
      return TraitsOf(reference.kind).use == RefUse::kOperation;
    case DeclarationMode::kFlux:
      return false;  // FluxUnset
  }
  return true;
}

// Flux's engine (measured): without a value and a default word, a name is an
// empty string, or in strict mode (kustomize-controller's
// StrictPostBuildSubstitutions, `flux envsubst --strict`) an error.
ReferenceReport::Action Renderer::FluxUnset(const Reference& reference) {
  const std::string name(reference.name);
  const std::string hint = UndeclaredHint(reference);
  if (options_.strict) {
    ReportAtFirstUse(Severity::kError, reference, "variable not set (strict mode): \"" + name + "\"", hint);
    return ReferenceReport::Action::kError;
  }
  ReportAtFirstUse(Severity::kWarning, reference,
                   "'" + name + "' is not set: Flux writes an empty string here" +
                       (reference.context == ContextClass::kScript ? ", also for the script's own variable" : ""),
                   hint);
  if (InKey(reference)) return SubstituteInKey(reference, Resolution{});  // an empty key, quoted
  substitutions_.push_back({&reference, std::string_view()});
  substituted_variables_.push_back(nullptr);
  return ReferenceReport::Action::kSubstitute;
}

bool Renderer::InFluxDisabledDocument(const Reference& reference) const {
  return reference.scalar != Reference::kNoScalar &&
         IsFluxDisabled(flux_disabled_documents_, tokens_.scalars[reference.scalar].document);
}

// A form Flux's engine fails on, or reads otherwise: refused.
bool Renderer::FluxCannotRead(const Reference& reference) {
  FluxRefusal refusal = safesubst::FluxCannotRead(text_, reference);
  if (refusal.message.empty()) return false;
  ReportAtFirstUse(Severity::kError, reference, std::move(refusal.message), std::move(refusal.hint));
  return true;
}

void Renderer::EncodeScalar(std::uint32_t scalar_index, ScalarSubstitutions substitutions) {
  const Scalar& scalar = tokens_.scalars[scalar_index];
  joins_last_splice_ = false;
  scalar_joins_splices_ = scalar_escapes_.empty();
  for (const Variable* variable : substitutions.variables) {
    if (variable && variable->type == VarType::kYaml) {
      if (substitutions.values.size() != 1 || !EncodeYamlVariable(scalar_index, substitutions.values[0], *variable)) {
        return;
      }
      yaml_paths_.push_back(tokens_.PathString(scalar.path));
      return;
    }
  }
  if (scalar.is_shell && !ShellEncode(substitutions)) return;
  if (scalar.exec_program && !ProgramEncode(substitutions)) return;
  if (scalar.startup_variable && !CheckStartupVariable(scalar_index, substitutions)) return;
  if (!scalar.is_shell && !CheckShebangLine(scalar, substitutions)) return;
  if (!KubeletEscape(scalar, substitutions)) return;
  EncodeInPlace(scalar, substitutions);
}

// Shell layer first (SPEC Rule 3): each value is encoded for the quoting state
// at its `$` (computed by LexShellScripts), before the YAML layer.
bool Renderer::ShellEncode(ScalarSubstitutions substitutions) {
  bool ok = true;
  for (std::size_t i = 0; i < substitutions.values.size(); ++i) {
    ReferenceValue& substitution = substitutions.values[i];
    std::size_t index = static_cast<std::size_t>(substitution.reference - tokens_.references.data());
    const ShellContext& context = *ShellContextOf(index);
    const Variable* variable = substitutions.variables[i];
    ShellMode mode = variable ? variable->shell : ShellMode::kSafe;
    ReferenceReport* report = ReportOf(*substitution.reference);
    if (report != nullptr && mode == ShellMode::kRaw) report->note = "shell: raw, written as is";
    const ShellEncoding& encoding = EncodeForShell(context, substitution.value, mode);
    if (!ReportEncodingProblem(*substitution.reference, encoding.problem)) {
      ok = false;
      continue;
    }
    if (encoding.encoded != substitution.value) shell_quoted_.push_back(substitution.reference);
    substitution.value = encoding.encoded;
  }
  return ok;
}

// True when `problem` is empty; else reports it at `reference` (the
// encoder's message already says how to quote or declare it).
bool Renderer::ReportEncodingProblem(const Reference& reference, const std::string& problem) {
  if (problem.empty()) return true;
  std::string message = "value of '" + std::string(reference.name) + "' cannot be written here: " + problem;
  if (ReferenceReport* report = ReportOf(reference)) {
    report->action = ReferenceReport::Action::kError;
    report->note = message;
  }
  Error(At(reference), std::move(message));
  return false;
}

// Program layer of an exec-form command line (exec_program_contexts.h): no
// shell reads the item, so each value is written for the interpreter's
// program alone, then for kubelet and YAML.
bool Renderer::ProgramEncode(ScalarSubstitutions substitutions) {
  bool ok = true;
  for (std::size_t i = 0; i < substitutions.values.size(); ++i) {
    ReferenceValue& substitution = substitutions.values[i];
    const ShellMode mode = substitutions.variables[i] ? substitutions.variables[i]->shell : ShellMode::kSafe;
    // The template's reading first: it decides how the value is written; the readings that values elsewhere
    // on the line make only check it.
    std::optional<std::string> written;
    for (const ShellContext* context :
         exec_programs_.At(static_cast<std::size_t>(substitution.reference - tokens_.references.data()))) {
      std::string encoded;
      const std::string problem = AppendProgramEncoded(*context, substitution.value, mode, &encoded);
      if (!ReportEncodingProblem(*substitution.reference, problem)) {
        written.reset();
        ok = false;
        break;
      }
      if (!written) written = std::move(encoded);
    }
    if (written && *written != substitution.value) {
      substitution.value = program_encoded_.emplace_back(std::move(*written));
    }
  }
  return ok;
}

// An env value that kubelet writes into a shell script or an interpreter's
// program through `$(NAME)` (carried_env_values.h) is checked where it lands.
void Renderer::CheckCarriedEnvValues() {
  auto in_code = [&](const Scalar& scalar) { return scalar.is_shell || scalar.exec_program; };
  std::vector<std::size_t> carriers;  // the `$(NAME)` references of scripts and programs kubelet expands
  for (std::size_t i = 0; i < tokens_.references.size(); ++i) {
    const Reference& reference = tokens_.references[i];
    if (reference.kind != RefKind::kKubernetes || reference.scalar == Reference::kNoScalar) continue;
    const Scalar& scalar = tokens_.scalars[reference.scalar];
    if (in_code(scalar) && KubeletExpands(tokens_, scalar, merged_into_)) carriers.push_back(i);
  }
  if (carriers.empty() || substitutions_.empty()) return;
  const CarriedEnvValues carried(text_, tokens_);
  std::size_t looked_at = 0;
  for (std::size_t carrier : carriers) {
    const std::vector<std::uint32_t> carried_values = carried.Of(tokens_.references[carrier]);
    looked_at += carried_values.size();
    if (looked_at > kMaxCarriedEnvValues) {
      Error(At(tokens_.references[carrier]),
            "kubelet writes env values into this template's command lines through `$(NAME)` more than " +
                std::to_string(kMaxCarriedEnvValues) +
                " times (each `$(NAME)` with every env item its value names): too many to check each where it lands",
            "name fewer env items through `$(NAME)` in command lines, or split the template");
      return;
    }
    for (std::uint32_t scalar : carried_values) {
      auto first = std::lower_bound(substitutions_.begin(), substitutions_.end(), scalar,
                                    [](const ReferenceValue& value, std::uint32_t s) { return value.reference->scalar < s; });
      for (auto value = first; value != substitutions_.end() && value->reference->scalar == scalar; ++value) {
        CarriedValueReads(tokens_.references[carrier], *value,
                          substituted_variables_[static_cast<std::size_t>(value - substitutions_.begin())],
                          carried.IsBase64Entry(scalar));
      }
    }
  }
}

// The text kubelet hands a container for `value`: the value itself or, in
// a base64 `data` entry (a Secret's) that is the value alone, its decoding.
// False when that cannot be told: the value is part of such an entry, or is
// no base64 (attacker s31 B8: `data: {msg: ${V}}` with V the base64 of
// `$(touch PWN)` ran it in `$(MSG)`).
bool Renderer::HandedOver(const ReferenceValue& value, bool base64, std::string* text) const {
  if (!base64) {
    *text = value.value;
    return true;
  }
  const Scalar& scalar = tokens_.scalars[value.reference->scalar];
  const bool quoted = scalar.style == ScalarStyle::kSingleQuoted || scalar.style == ScalarStyle::kDoubleQuoted;
  const std::size_t quotes = quoted ? 2 : 0;
  const bool alone = value.reference->offset == scalar.offset + quotes / 2 &&
                     value.reference->length + quotes == scalar.length;
  return alone && DecodeBase64(value.value, text);
}

constexpr std::string_view kNotDecodable =
    "the value is base64 in a Secret's `data` entry (or one of an object of unknown kind), which kubelet decodes "
    "before the container reads it: it is checked decoded, so it must be the entry's whole text and standard, padded "
    "base64; or write the value in `stringData`";

// Whether `value`, written as it is at `at` (a `$(NAME)`), reads as itself
// there, in the script's or the program's reading; reported where it is not.
// `base64`: its scalar is a base64 `data` entry, whose decoding lands there.
bool Renderer::CarriedValueReads(const Reference& at, const ReferenceValue& value, const Variable* variable,
                                 bool base64) {
  const ShellMode mode = variable ? variable->shell : ShellMode::kSafe;
  if (mode == ShellMode::kRaw) return true;
  const std::size_t index = static_cast<std::size_t>(&at - tokens_.references.data());
  std::string problem;
  std::string landing;
  if (!HandedOver(value, base64, &landing)) problem = kNotDecodable;
  auto check = [&](const std::string& error, const std::string& encoded) {
    if (problem.empty() && !error.empty()) problem = error;
    if (problem.empty() && encoded != landing) problem = "it would need quoting there, which an env value cannot have";
  };
  if (const ShellContext* context = problem.empty() ? ShellContextOf(index) : nullptr) {
    const ShellEncoding& encoding = EncodeForShell(*context, landing, mode);
    check(encoding.problem, encoding.encoded);
  }
  for (const ShellContext* context : exec_programs_.At(index)) {
    if (!problem.empty()) break;
    std::string encoded;
    const std::string error = AppendProgramEncoded(*context, landing, mode, &encoded);
    check(error, encoded);
  }
  if (problem.empty()) return true;
  return ReportEncodingProblem(*value.reference, "kubelet writes this env value into the command line at line " +
                                                     std::to_string(at.line) + ", column " + std::to_string(at.column) +
                                                     " (`" + std::string(text_.substr(at.offset, at.length)) +
                                                     "`), as it is: " + problem +
                                                     "; write the placeholder in the command line itself");
}

// The template's text, as written, of the word `reference` lands in, before
// it: from the scalar's start (after its quote) or its last blank before.
std::string_view WordBefore(std::string_view text, const Scalar& scalar, const Reference& reference) {
  std::string_view before = text.substr(scalar.offset, reference.offset - scalar.offset);
  if (scalar.style == ScalarStyle::kSingleQuoted || scalar.style == ScalarStyle::kDoubleQuoted) before.remove_prefix(1);
  const std::size_t blank = before.find_last_of(" \t\r\n");
  return blank == std::string_view::npos ? before : before.substr(blank + 1);
}

// A value on the `#!` line of a scalar that is no shell script (a shell's
// reads that line as a comment): the interpreter takes it as its argument,
// `env -S` as a command line (shell_script_scalars.h, OnShebangLine).
bool Renderer::CheckShebangLine(const Scalar& scalar, ScalarSubstitutions substitutions) {
  bool ok = true;
  for (std::size_t i = 0; i < substitutions.values.size(); ++i) {
    const ReferenceValue& value = substitutions.values[i];
    const Variable* variable = substitutions.variables[i];
    bool in_path = false;
    if ((variable != nullptr && variable->shell == ShellMode::kRaw) || IsShellInteger(value.value) ||
        !OnShebangLine(text_, scalar, value.reference->offset, &in_path)) {
      continue;
    }
    // In the interpreter's path, a path: whether it names a shell is the script kinds' check.
    if (in_path && IsShellInert(value.value) && value.value.front() != '-') continue;
    ok = ReportEncodingProblem(*value.reference,
                               "the value lands on the `#!` line, whose interpreter takes it as its own argument "
                               "(`#!/usr/bin/python3 -c...` runs it; `env -S` splits it into a command line): only "
                               "a decimal integer is accepted there (in the interpreter's path, a path of letters, "
                               "digits and `_./:@%+,-`); declare the variable `shell: raw` if the value is meant to "
                               "be code") &&
         ok;
  }
  return ok;
}

// A value that a shell reads as code when the container starts
// (startup_variables.h): checked for the variable's reading; in the `name`
// of an env item, it may not make the name one of those variables.
bool Renderer::CheckStartupVariable(std::uint32_t scalar_index, ScalarSubstitutions substitutions) {
  const Scalar& scalar = tokens_.scalars[scalar_index];
  auto raw = [&](std::size_t i) {
    return substitutions.variables[i] != nullptr && substitutions.variables[i]->shell == ShellMode::kRaw;
  };
  if (scalar.startup_variable == kStartupNameMark) {
    std::string name;
    const bool known = ExpectedScalarValue(text_, scalar, substitutions.values, &name);
    if (known && StartupReadingOf(name) == StartupReading::kNone) return true;
    for (std::size_t i = 0; i < substitutions.values.size(); ++i) {
      if (raw(i)) return true;
    }
    // The name is not shown: a piece of it is the value.
    return ReportEncodingProblem(*substitutions.values.front().reference,
                                 "the env item's name becomes, with the value, a variable that a shell or another "
                                 "program reads as code or options when it starts (BASH_ENV, ENV, PS0 to PS4, "
                                 "PROMPT_COMMAND, SHELLOPTS, BASH_FUNC_name%%, NODE_OPTIONS, PERL5OPT, "
                                 "JAVA_TOOL_OPTIONS, GIT_SSH_COMMAND, PAGER, ...), or cannot be told; write that name "
                                 "literally");
  }
  const auto reading = static_cast<StartupReading>(scalar.startup_variable);
  const std::string name = StartupVariableName(text_, tokens_, scalar_index);
  if (!object_kinds_) object_kinds_.emplace(text_, tokens_);
  const bool base64 = IsBase64DataEntry(tokens_, *object_kinds_, scalar);
  bool ok = true;
  for (std::size_t i = 0; i < substitutions.values.size(); ++i) {
    if (raw(i)) continue;
    const ReferenceValue& value = substitutions.values[i];
    std::string landing;
    const std::string problem =
        HandedOver(value, base64, &landing)
            ? StartupValueProblem(reading, name, landing, WordBefore(text_, scalar, *value.reference))
            : std::string(kNotDecodable);
    ok = ReportEncodingProblem(*value.reference, problem) && ok;
  }
  return ok;
}

// Kubernetes layer, after the shell's (SPEC Rule 3): kubelet expands
// `$(NAME)` in the decoded scalar before a shell reads it, so a value there
// is escaped for kubelet over its shell encoding (kubelet_expansion.h).
bool Renderer::KubeletEscape(const Scalar& scalar, ScalarSubstitutions substitutions) {
  std::span<ReferenceValue> values = substitutions.values;
  auto may_need = [](const ReferenceValue& value) { return MayNeedKubeletEscape(value.value); };
  if (std::none_of(values.begin(), values.end(), may_need) || !KubeletExpands(tokens_, scalar, merged_into_)) {
    return true;
  }
  std::vector<std::size_t> source_offsets;
  const std::string decoded = DecodeScalar(text_, scalar, &source_offsets);
  const std::string_view text = decoded;
  std::vector<KubeletPiece> pieces;
  std::size_t cursor = 0;
  for (const ReferenceValue& value : values) {
    std::size_t begin = 0, end = 0;
    if (!DecodedSpan(source_offsets, *value.reference, &begin, &end) || begin < cursor) {
      ReportSplitReference(*value.reference);
      return false;
    }
    pieces.push_back({text.substr(cursor, begin - cursor)});
    pieces.push_back({value.value, true});
    cursor = end;
  }
  pieces.push_back({text.substr(cursor)});
  KubeletEscaping escaping = EscapeForKubelet(pieces);
  if (!escaping.problem.empty()) {
    const Reference& reference = *values[escaping.refused].reference;
    std::string message = "value of '" + std::string(reference.name) + "' cannot be written here: " + escaping.problem;
    if (ReferenceReport* report = ReportOf(reference)) {
      report->action = ReferenceReport::Action::kError;
      report->note = message;
    }
    Error(At(reference), std::move(message), std::move(escaping.hint));
    return false;
  }
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (escaping.values[i] == values[i].value) continue;
    values[i].value = kubelet_escaped_.emplace_back(std::move(escaping.values[i]));
    ReferenceReport* report = ReportOf(*values[i].reference);
    if (report != nullptr) {
      report->note += std::string(report->note.empty() ? "" : "; ") +
                      "`$` doubled where Kubernetes would expand it (`$$` reads as `$`)";
    }
  }
  return true;
}

void Renderer::ReportSplitReference(const Reference& reference) {
  Error(At(reference), "reference '" + std::string(reference.name) + "' is split across lines",
        "write the reference on one line");
}

// AppendShellEncoded, remembered: a repeated script shares its contexts
// (ScriptContexts), so the same value at the same place is encoded once.
const Renderer::ShellEncoding& Renderer::EncodeForShell(const ShellContext& context, std::string_view value,
                                                        ShellMode mode) {
  // Mostly the same value in the same context comes again (a streaming
  // render encodes a large script's values at each walk): the last answer
  // saves building the key. A value views storage the render never moves.
  LastEncoding& last = last_encoding_;
  if (&context == last.context && value.data() == last.value.data() && value.size() == last.value.size() &&
      mode == last.mode) {
    return *last.encoding;
  }
  shell_key_.clear();
  AppendKeyBytes(&context, &shell_key_);  // contexts live as long as the render (ScriptContexts)
  shell_key_.push_back(static_cast<char>(mode));
  shell_key_.append(value);
  auto [found, inserted] = shell_encodings_.try_emplace(shell_key_);
  if (inserted) found->second.problem = AppendShellEncoded(context, value, mode, &found->second.encoded);
  last = {&context, value, mode, &found->second};
  return found->second;
}

// The value written where the reference stands, encoded for the scalar's style;
// where the style cannot hold the value, the whole scalar is requoted.
template <typename Values>
void Renderer::EncodeInPlace(const Scalar& scalar, const Values& values) {
  switch (scalar.style) {
    case ScalarStyle::kPlain:
      return EncodePlain(scalar, values);
    case ScalarStyle::kSingleQuoted:
    case ScalarStyle::kDoubleQuoted:
      return EncodeQuoted(scalar, values);
    case ScalarStyle::kLiteral:
    case ScalarStyle::kFolded:
      return EncodeBlock(scalar, values);
  }
}

// Plain: spliced when every value, next to the already substituted text around
// it, keeps the scalar one plain scalar of the intended type.
template <typename Values>
void Renderer::EncodePlain(const Scalar& scalar, const Values& values) {
  // The scalar as rendered, built in one pass: a generated line can hold
  // thousands of references, and replacing them one by one was quadratic.
  std::string& rendered = plain_text_;
  rendered.clear();
  std::size_t copied = scalar.offset;
  values.ForEach([&](const ReferenceValue& substitution) {
    const Reference& reference = *substitution.reference;
    rendered.append(text_.substr(copied, reference.offset - copied));
    rendered += substitution.value;
    copied = reference.offset + reference.length;
    return true;
  });
  rendered.append(text_.substr(copied, scalar.offset + scalar.length - copied));
  // A value is checked with the whole line it lands on, so values on one line
  // share one check; a value with a line break fails it anyway. Where each
  // value stands in `rendered` is counted again rather than kept: a scalar
  // may hold millions.
  const std::string_view view = rendered;
  std::size_t checked_line_end = 0, next = 0;
  copied = scalar.offset;
  const bool safe = values.ForEach([&](const ReferenceValue& substitution) {
    const std::size_t at = next + (substitution.reference->offset - copied), size = substitution.value.size();
    next = at + size;
    copied = substitution.reference->offset + substitution.reference->length;
    if (at < checked_line_end) return true;
    if (!SplicedPlainIsSafe(view.substr(0, at), view.substr(at, size), view.substr(at + size), scalar.in_flow)) {
      return false;
    }
    checked_line_end = std::min(view.find_first_of("\r\n", at + size), view.size());
    return true;
  });
  if (!safe || PlainChangesType(rendered, values)) return Requote(scalar, values);
  values.ForEach([&](const ReferenceValue& substitution) {
    AddSplice(substitution.reference->offset, substitution.reference->length, substitution.value);
    NoteSecret(substitution, substitution.value.size());
    return true;
  });
}

template <typename Values>
void Renderer::EncodeQuoted(const Scalar& scalar, const Values& values) {
  bool single = scalar.style == ScalarStyle::kSingleQuoted;
  const SpliceMark mark = MarkSplices();
  const bool fits = values.ForEach([&](const ReferenceValue& substitution) {
    // Single quotes cannot escape anything: a line break or control character needs double quotes.
    if (single && !FitsSingleQuoted(substitution.value)) return false;
    const std::size_t text_begin = splice_text_.size();
    if (single) {
      AppendSingleQuotedBody(substitution.value, &splice_text_);
    } else {
      AppendDoubleQuotedBody(substitution.value, &splice_text_);
    }
    const std::size_t written = splice_text_.size() - text_begin;
    EndSplice(substitution.reference->offset, substitution.reference->length, text_begin);
    NoteSecret(substitution, written);
    return true;
  });
  if (fits) return;
  DropSplicesSince(mark);
  Requote(scalar, values);
}

// Block scalars: multi-line values are re-indented to the block's indentation.
template <typename Values>
void Renderer::EncodeBlock(const Scalar& scalar, const Values& values) {
  // Content at column 0 (`--- |` then an unindented line) is a block scalar
  // for YAML 1.2 and this tokenizer, but not for yaml-cpp or libyaml, so
  // readers would disagree on what a value there does (found by fuzzing).
  // Written double-quoted, it reads the same everywhere.
  if (scalar.indent == 0) return Requote(scalar, values);
  bool folded = scalar.style == ScalarStyle::kFolded;
  const SpliceMark mark = MarkSplices();
  // The line of the previous reference: a line may hold thousands of them,
  // and finding its ends again for each would be quadratic.
  std::size_t line_start = 0, line_end = 0;
  const bool fits = values.ForEach([&](const ReferenceValue& substitution) {
    const Reference& reference = *substitution.reference;
    const std::string_view value = substitution.value;
    if (reference.offset >= line_end) {  // a new line (the first one too: line_end is 0)
      line_start = text_.rfind('\n', reference.offset);
      line_start = line_start == std::string_view::npos ? 0 : line_start + 1;
      line_end = LineEnd(text_, reference.offset + reference.length);
    }
    std::size_t content_start = std::min(line_start + scalar.indent, reference.offset);
    std::string_view before = text_.substr(content_start, reference.offset - content_start);
    std::string_view after = text_.substr(reference.offset + reference.length,
                                          line_end - reference.offset - reference.length);
    // The caller's duties of AppendBlockBody: a value it cannot write exactly here is requoted.
    bool leading_blank = !value.empty() && (value.front() == ' ' || value.front() == '\t');
    bool edge_break = !value.empty() && (value.front() == '\n' || value.back() == '\n');
    if (!FitsBlock(value) || (before.empty() && leading_blank && (folded || scalar.indent_indicator == 0)) ||
        (folded && edge_break)) {
      return false;
    }
    if (value.empty() && before.empty() && IsBlankText(after)) {
      if (!EmptyValueEmptiesLine(text_, scalar, line_end)) return false;  // requoted
      EndSplice(line_start, reference.offset + reference.length - line_start, splice_text_.size());
      return true;
    }
    const std::size_t text_begin = splice_text_.size();
    AppendBlockBody(value, scalar.indent, folded, &splice_text_, before, after);
    // A value's line breaks follow the file's: CRLF where the line ends in CRLF.
    if (line_end < text_.size() && text_[line_end] == '\r') UseCrlf(&splice_text_, text_begin);
    const std::size_t written = splice_text_.size() - text_begin;
    EndSplice(reference.offset, reference.length, text_begin);
    NoteSecret(substitution, written);
    return true;
  });
  if (fits) return;
  DropSplicesSince(mark);
  Requote(scalar, values);
}

template <typename Values>
bool Renderer::PlainChangesType(std::string_view rendered, const Values& values) const {
  PlainKind kind = ResolvePlain(rendered);
  if (kind == PlainKind::kString) return false;
  if (values.size() != 1 || rendered != values.first_value()) return true;
  // Without a manifest nothing declares a value text: like envsubst, a lone
  // decimal integer or true/false lands as a number or a bool, so that
  // `replicas: ${REPLICAS}` stays a number. `1.10`, `on`, `017`, `null` are
  // still quoted: YAML readers disagree on them, or they rarely mean that.
  if (manifest_.mode != DeclarationMode::kManifest) return !IsDecimalIntOrBool(rendered);
  // A lone int or bool variable is meant to land as a number or a bool.
  if (const Variable* variable = values.first_variable()) {
    VarType type = variable->type;
    if (type == VarType::kInt && kind == PlainKind::kInt) return false;
    if (type == VarType::kBool && kind == PlainKind::kBool) return false;
  }
  return true;
}

// Rewrites the whole scalar double-quoted: its decoded value with the
// references replaced by the values.
void Renderer::Requote(const Scalar& scalar, std::span<const ReferenceValue> given) {
  const std::vector<ReferenceValue> values = WithEscapes(given);
  // The escapes' own splices, inside the scalar, would overlap the requote's.
  if (!scalar_escapes_.empty()) {
    std::erase_if(splices_, [&](const TemplateEdit& splice) {
      return splice.length == 1 && splice.replacement_length == 0 && splice.offset >= scalar.offset &&
             splice.offset < scalar.offset + scalar.length;
    });
  }
  std::string value;
  if (!ExpectedScalarValue(text_, scalar, values, &value)) return ReportSplitReference(*values[0].reference);
  const std::string quoted = DoubleQuoted(value);
  AddSplice(scalar.offset, scalar.length, quoted);
  // The values are not apart in the quoted text: all of it but the quotes is masked.
  if (std::any_of(given.begin(), given.end(), [&](const ReferenceValue& one) { return WritesSecret(one); })) {
    secret_text_.emplace_back(splice_text_.size() - quoted.size() + 1, splice_text_.size() - 1);
  }
  requoted_.push_back(static_cast<std::uint32_t>(&scalar - tokens_.scalars.data()));
}

// `values` and the escapes of the scalar being written (`$${NAME}` as
// `${NAME}`), in source order.
std::vector<ReferenceValue> Renderer::WithEscapes(std::span<const ReferenceValue> values) const {
  std::vector<ReferenceValue> all(values.begin(), values.end());
  if (scalar_escapes_.empty()) return all;
  for (const Reference* escape : scalar_escapes_) {
    all.push_back({escape, text_.substr(escape->offset + 1, escape->length - 1)});
  }
  std::sort(all.begin(), all.end(), [](const ReferenceValue& a, const ReferenceValue& b) {
    return a.reference->offset < b.reference->offset;
  });
  return all;
}

// The 0-based column of what owns a value node: its key, or its `-`.
std::uint32_t Renderer::ParentColumn(std::uint32_t scalar_index) const {
  const Scalar& scalar = tokens_.scalars[scalar_index];
  if (scalar_index > 0) {
    const Scalar& key = tokens_.scalars[scalar_index - 1];
    if (key.is_key && key.line == scalar.line && key.path == scalar.path) return key.column - 1;
  }
  std::size_t at = scalar.offset;
  while (at > 0 && text_[at - 1] == ' ') --at;
  if (at > 0 && text_[at - 1] == '-') {
    std::size_t line_start = text_.rfind('\n', at - 1);
    line_start = line_start == std::string_view::npos ? 0 : line_start + 1;
    return static_cast<std::uint32_t>(at - 1 - line_start);
  }
  return scalar.indent;
}

bool Renderer::EncodeYamlVariable(std::uint32_t scalar_index, const ReferenceValue& substitution,
                                  const Variable& variable) {
  const Scalar& scalar = tokens_.scalars[scalar_index];
  const Reference& reference = *substitution.reference;
  std::string name(reference.name);
  bool whole_scalar = scalar.style == ScalarStyle::kPlain && reference.offset == scalar.offset &&
                      reference.length == scalar.length && !scalar.is_key;
  if (!whole_scalar) {
    Error(At(reference), "'" + name + "' has type yaml and must be the whole value of a node",
          "write it alone as a plain value, e.g. `resources: ${" + name + "}`");
    return false;
  }
  // A `type: yaml` value is structure, not code: as a shell script it needs
  // `shell: raw`, as a string value does (SPEC Rule 3).
  if (scalar.is_shell && variable.shell != ShellMode::kRaw) {
    Error(At(reference), "'" + name + "' has type yaml and stands where the text is a shell script, so its value "
                         "would run as code",
          "declare the variable `shell: raw` if the value is meant to be shell code");
    return false;
  }
  const std::size_t after = scalar.offset + scalar.length;
  std::string_view rest = text_.substr(after, LineEnd(text_, after) - after);
  bool block_allowed = !scalar.in_flow && rest.find_first_not_of(" \t") == std::string_view::npos;
  std::string encoded;
  YamlValueError error;
  if (!EncodeYamlNode(substitution.value, ParentColumn(scalar_index), block_allowed, options_.limits.max_value_bytes,
                      &encoded, &error)) {
    // Alias bounds and the size limit are checked while writing: the value
    // may be valid YAML and still too large once its aliases are expanded.
    const bool invalid = error.kind == YamlValueError::Kind::kInvalid;
    Error(At(reference),
          "value of '" + name + "' " + (invalid ? "is not valid YAML: " : "cannot be written: ") + error.message,
          error.kind == YamlValueError::Kind::kTooLarge ? "raise it with --max-value-size" : "");
    return false;
  }
  // A block node starts on the next line: drop the blanks after the `:` or `-`
  // so that no line of the output ends in white space.
  std::size_t start = scalar.offset;
  if (!encoded.empty() && encoded.front() == '\n') {
    while (start > 0 && text_[start - 1] == ' ') --start;
  }
  AddSplice(start, scalar.offset + scalar.length - start, encoded);
  NoteSecret(substitution, encoded.size());
  return true;
}

void Renderer::AddSplice(std::size_t offset, std::size_t length, std::string_view text) {
  const std::size_t text_begin = splice_text_.size();
  splice_text_.append(text);
  EndSplice(offset, length, text_begin);
}

// Records the splice whose text was appended to splice_text_ from `text_begin`
// on; after another splice of the same scalar, as part of that one, with the
// template bytes between the two put before the text (joins_last_splice_).
void Renderer::EndSplice(std::size_t offset, std::size_t length, std::size_t text_begin) {
  const std::size_t replacement_length = splice_text_.size() - text_begin;
  if (joins_last_splice_) {
    TemplateEdit& last = splices_.back();
    const std::size_t gap = offset - (last.offset + last.length);
    if (gap > 0) splice_text_.insert(text_begin, text_.substr(last.offset + last.length, gap));
    last.length = offset + length - last.offset;
    last.replacement_length += gap + replacement_length;
    return;
  }
  splices_.push_back({offset, length, replacement_length});
  joins_last_splice_ = scalar_joins_splices_;
}

// Whether `value` is a sensitive variable's and its place is to be reported
// (RenderOptions::report_sensitive_spans).
bool Renderer::WritesSecret(const ReferenceValue& value) const {
  if (!options_.report_sensitive_spans || IsEscape(value.reference->kind)) return false;
  const Variable* variable = manifest_.Find(value.reference->name);
  return variable != nullptr && variable->sensitive;
}

// After the splice of `value`, whose text is the last `written` bytes of
// splice_text_ (EndSplice may have put template bytes before it).
void Renderer::NoteSecret(const ReferenceValue& value, std::size_t written) {
  if (written == 0 || !WritesSecret(value)) return;
  secret_text_.emplace_back(splice_text_.size() - written, splice_text_.size());
}

// Adds to `spans` where `output` shows one of the `written` texts (or its
// lines), or a sensitive value as given: for values the steps moved after
// they were written. (A sensitive value in a key is refused.)
void Renderer::AddSecretsFound(std::string_view output, const std::vector<std::string>& written,
                               std::vector<TextRange>* spans) const {
  Redactor secrets;
  secrets.AddValues(manifest_, values_);
  for (const std::string& text : written) secrets.AddSecret(text);
  const std::vector<TextRange> found = secrets.Ranges(output);
  spans->insert(spans->end(), found.begin(), found.end());
  *spans = MergedRanges(std::move(*spans));
}

void Renderer::DropSplicesSince(SpliceMark mark) {
  splices_.resize(mark.splices);
  splice_text_.resize(mark.text);
  std::erase_if(secret_text_, [&](const TextRange& range) { return range.second > mark.text; });
  joins_last_splice_ = false;
}

// The output's size if every value were written as it is, and each
// `$${NAME}` escape lost its `$`: encoding only adds quotes, escapes and
// indentation. Counted before encoding, it refuses 3,000 uses of a 1 MiB
// value before 3 GB of encoded copies are made.
std::size_t Renderer::LeastOutputSize() const {
  std::size_t size = text_.size() - escapes_.size();
  for (const ReferenceValue& substitution : substitutions_) {
    size += substitution.value.size() - substitution.reference->length;  // modulo 2^64: the total is right
  }
  return size;
}

// False, with the error, when an output of `size` bytes is over the limit.
bool Renderer::OutputWithinLimit(std::size_t size, const char* would_be) {
  if (size <= options_.limits.max_output_bytes) return true;
  Error(Location{options_.file_name},
        std::string("the output ") + would_be + " " + detail::OverLimit(size, options_.limits.max_output_bytes),
        "raise it with --max-output-size");
  return false;
}

// Appends the template from `*copied` to the end of the last splice, with
// the splices from the `first`th on (in offset order, from `*copied` on,
// their texts in splice_text_) in place; returns how many bytes they added.
std::ptrdiff_t Renderer::WriteSplices(std::string* output, std::size_t* copied, std::size_t first) {
  std::ptrdiff_t growth = 0;
  std::string_view texts = splice_text_;
  auto secret = secret_text_.begin();
  for (const TemplateEdit& splice : std::span(splices_).subspan(first)) {
    output->append(text_.substr(*copied, splice.offset - *copied));
    // The sensitive values in this splice's text, moved to where it lands (a range never spans two texts).
    const std::size_t text_at = static_cast<std::size_t>(texts.data() - splice_text_.data());
    for (; secret != secret_text_.end() && secret->first < text_at + splice.replacement_length; ++secret) {
      result_.sensitive_spans.emplace_back(output->size() + secret->first - text_at,
                                           output->size() + secret->second - text_at);
    }
    output->append(texts.substr(0, splice.replacement_length));
    texts.remove_prefix(splice.replacement_length);
    *copied = splice.offset + splice.length;
    growth += static_cast<std::ptrdiff_t>(splice.replacement_length) - static_cast<std::ptrdiff_t>(splice.length);
  }
  return growth;
}

void Renderer::CheckStructure(const std::string& output) {
  // yaml-cpp misreads some valid YAML (Tokens::yaml_cpp_misreads): there the
  // tree comparison would refuse or mislead, and the token proof decides.
  const bool yaml_cpp_misreads = !tokens_.yaml_cpp_misreads.empty();
  const bool tokens_tried = !options_.full_structure_check || yaml_cpp_misreads;
  // A `type: yaml` value changes the shape on purpose: only the tree
  // comparison knows how to exempt its subtree.
  if (tokens_tried && yaml_paths_.empty() && CheckStructureByTokens(output)) {
    if (yaml_cpp_misreads && (options_.verbose || options_.full_structure_check)) {
      NoteYamlCppCannotRead(LocateOffset(text_, tokens_.yaml_cpp_misreads.front(), options_.file_name), kMisreads);
    }
    return;
  }
  if (yaml_cpp_misreads) {
    return RefuseYamlCppComparison(LocateOffset(text_, tokens_.yaml_cpp_misreads.front(), options_.file_name),
                                   kMisreads);
  }
  Result<std::vector<StructureDifference>> compared =
      CompareStructure(text_, output, yaml_paths_, options_.file_name, ExpectedValues());
  // yaml-cpp cannot read the template, which the tokenizer (conformance-tested
  // on the YAML test suite) read: valid YAML is never refused for that.
  if (!compared.value && !compared.diagnostics.empty() && compared.diagnostics[0].location.file == options_.file_name) {
    const Diagnostic& failure = compared.diagnostics[0];
    const std::string why = "cannot read this valid YAML (yaml-cpp: " + failure.message + ")";
    if (!tokens_tried && yaml_paths_.empty() && CheckStructureByTokens(output)) {
      return NoteYamlCppCannotRead(failure.location, why);
    }
    return RefuseYamlCppComparison(failure.location, why);
  }
  Append(std::move(compared.diagnostics));
  if (compared.value) ReportStructureDifferences(*compared.value);
}

// Where yaml-cpp cannot read the template as YAML does, the structure was
// proved by tokens alone: a note with -v, a warning when --full-check asked
// for the yaml-cpp comparison.
void Renderer::NoteYamlCppCannotRead(Location at, const std::string& why) {
  if (!options_.verbose && !options_.full_structure_check) return;
  result_.diagnostics.push_back(Diagnostic{
      options_.full_structure_check ? Severity::kWarning : Severity::kNote, std::move(at),
      "yaml-cpp " + why + ": the structure was checked at token level, not with the yaml-cpp comparison", {}});
}

// A `type: yaml` value needs the tree comparison, which cannot read this
// template as YAML does; the token proof could not decide either.
void Renderer::RefuseYamlCppComparison(Location at, const std::string& why) {
  Error(std::move(at),
        "the structure of this render cannot be checked: yaml-cpp, the parser the check needs " +
            std::string(yaml_paths_.empty() ? "for these values" : "for a `type: yaml` value") + ", " + why,
        why == kMisreads
            ? "indent the scalar's lines past its anchor or tag, or put the anchor on its own line above the scalar"
            : "write this part of the template in a form yaml-cpp reads too, or render without `type: yaml` values");
}

// What each rewritten value scalar must read back as, so that the tree
// comparison checks the values as the token-level one does.
std::vector<ExpectedValue> Renderer::ExpectedValues() {
  std::vector<ExpectedValue> expected;
  for (const RewrittenScalar& scalar : rewritten_) {
    const Scalar& source = tokens_.scalars[scalar.scalar];
    ExpectedValue value{source.offset, {}};
    if (!source.is_key && ExpectedScalarValue(text_, source, scalar.values, &value.value)) {
      expected.push_back(std::move(value));
    }
  }
  return expected;
}

// The token-level check (fast_invariant.h). False when it cannot decide, so
// that the tree comparison runs instead.
bool Renderer::CheckStructureByTokens(const std::string& output) {
  Result<std::vector<StructureDifference>> compared =
      CompareStructureByTokens(text_, tokens_, output, splices_, rewritten_, options_.file_name);
  if (!compared.value && compared.diagnostics.empty()) return false;
  Append(std::move(compared.diagnostics));
  if (compared.value) ReportStructureDifferences(*compared.value);
  return true;
}

// Records scalar `index` as rewritten (after encoding it: its values are
// final), with its `values` and escapes, for the token-level structure check
// and the shell-kind checks.
void Renderer::Rewrote(std::uint32_t index, std::span<const ReferenceValue> values) {
  const bool requoted = !requoted_.empty() && requoted_.back() == index;
  rewritten_.push_back({index, requoted ? ScalarStyle::kDoubleQuoted : tokens_.scalars[index].style, values});
  if (scalar_escapes_.empty()) return;
  const std::vector<ReferenceValue> all = WithEscapes(values);
  rewritten_values_.insert(rewritten_values_.end(), all.begin(), all.end());  // reserved: views stay valid
  rewritten_.back().values = std::span(rewritten_values_).last(all.size());
}

// What one rewritten scalar received (EncodedScalars adds its value). False
// when it received no substituted value, or a `type: yaml` one, which is
// structure, not text.
bool Renderer::DescribeWritten(const RewrittenScalar& scalar, EncodedScalar* written) const {
  written->is_shell = tokens_.scalars[scalar.scalar].is_shell;
  written->shell_inert = true;
  bool substituted = false;
  for (const ReferenceValue& value : scalar.values) {
    if (IsEscape(value.reference->kind)) continue;
    const Variable* variable = manifest_.Find(value.reference->name);
    if (variable != nullptr && variable->type == VarType::kYaml) return false;
    written->shell_inert = written->shell_inert && ReadsAlikeAsShell(value, variable);
    if (!substituted) written->at = At(*value.reference);
    AddName(value.reference->name, &written->names);
    substituted = true;
  }
  return substituted;
}

std::vector<EncodedScalar> Renderer::EncodedScalars() {
  if (spliced_) return spliced_->EncodedScalars();
  std::vector<EncodedScalar> encoded;
  for (const RewrittenScalar& scalar : rewritten_) {
    EncodedScalar written;
    if (!DescribeWritten(scalar, &written)) continue;
    // ExpectedScalarValue fails only for a form split by a line fold or an
    // escape, which the tokenizer never reports as a reference.
    if (!ExpectedScalarValue(text_, tokens_.scalars[scalar.scalar], scalar.values, &written.value)) continue;
    encoded.push_back(std::move(written));
  }
  return encoded;
}

// After a render whose values stand where they can decide which scalars are
// shell scripts: the output is classified and compared with the template
// scalar by scalar, which the structure check proved correspond. With a
// `type: yaml` value, or without that check, by value (script_kinds.h).
void Renderer::CheckShellScriptsKept(const std::string& output) {
  const std::string name = options_.file_name + " (rendered output)";
  constexpr std::string_view kAfter = "once the values are in";
  Tokens rendered;
  if (yaml_paths_.empty() && options_.check_structure) rendered = Tokenize(output, TokenizerOptions{name});
  if (rendered.scalars.size() != tokens_.scalars.size() || HasErrors(rendered.diagnostics)) {
    return Append(CheckScriptKindsKept(output, manifest_, EncodedScalars(), name, kAfter, /*every_scalar_present=*/true));
  }
  Classify(output, manifest_, &rendered);
  for (const RewrittenScalar& scalar : rewritten_) {
    const Scalar& now = rendered.scalars[scalar.scalar];
    EncodedScalar written;
    if (now.is_shell == tokens_.scalars[scalar.scalar].is_shell || !DescribeWritten(scalar, &written)) continue;
    if (std::optional<Diagnostic> problem =
            KindChangeProblem(written, now, DecodeScalar(output, now), rendered.PathString(now.path), kAfter)) {
      result_.diagnostics.push_back(std::move(*problem));
    }
  }
}

// Whether a value reads the same in a shell script and in data, so that its
// scalar may become or stop being a script (script_kinds.h).
bool Renderer::ReadsAlikeAsShell(const ReferenceValue& value, const Variable* variable) const {
  // A `shell: raw` value is written as is in scripts and in data alike.
  if (variable != nullptr && variable->shell == ShellMode::kRaw) return true;
  if (tokens_.scalars[value.reference->scalar].is_shell) {
    return !std::binary_search(shell_quoted_.begin(), shell_quoted_.end(), value.reference);
  }
  return IsShellInert(value.value);
}

// A command line taken from an alias hides which scalars are shell scripts
// (script_kinds.h): there, only values that read the same either way are
// written, unless the manifest says what the scalar is.
void Renderer::CheckAliasedCommandLines() {
  if (tokens_.command_line_aliases.empty()) return;
  const HiddenCommandLines hidden(tokens_);
  if (hidden.empty()) return;
  const ListedPaths listed(manifest_);  // a scalar listed under `shell:` is a shell script whatever its command line
  for (const RewrittenScalar& scalar : rewritten_) {
    const Scalar& target = tokens_.scalars[scalar.scalar];
    const Alias* alias = hidden.Hiding(target);
    if (alias == nullptr || listed.Shell(tokens_, target.path)) continue;
    // In a script with a here-document or arithmetic even an inert word counts.
    const bool inert_is_enough = !HasHeredocOrArithmetic(text_.substr(target.offset, target.length));
    for (const ReferenceValue& value : scalar.values) {
      if (IsEscape(value.reference->kind)) continue;
      const Variable* variable = manifest_.Find(value.reference->name);
      if (variable != nullptr && variable->type == VarType::kYaml) continue;
      if (inert_is_enough && ReadsAlikeAsShell(value, variable)) continue;
      ReportHiddenCommandLine(*value.reference, *alias);
    }
  }
}

void Renderer::ReportHiddenCommandLine(const Reference& reference, const Alias& alias) {
  // Located once per alias: a template may refuse thousands of values.
  auto [known, inserted] = alias_lines_.try_emplace(&alias, 0);
  if (inserted) known->second = LocateOffset(text_, alias.offset).line;
  ReportAtFirstUse(Severity::kError, reference,
                   "the value of '" + std::string(reference.name) +
                       "' would read differently in a shell script, and whether it lands in one cannot be "
                       "told: this document takes a command line from the alias " +
                       std::string(text_.substr(alias.offset, alias.length)) + " at line " +
                       std::to_string(known->second),
                   "write that command line out where it is used, or, if this scalar is a shell script, list "
                   "its path under `shell:` in the manifest");
}

void Renderer::ReportStructureDifferences(const std::vector<StructureDifference>& differences) {
  for (const StructureDifference& difference : differences) {
    // Name the variables substituted at or under the changed node.
    std::set<std::string> names;
    for (const ReferenceValue& substitution : substitutions_) {
      std::string path = tokens_.PathString(tokens_.scalars[substitution.reference->scalar].path);
      if (path.rfind(difference.path, 0) == 0) names.insert(std::string(substitution.reference->name));
    }
    std::string culprits;
    for (const std::string& name : names) culprits += (culprits.empty() ? "" : ", ") + name;
    Error(Location{options_.file_name, difference.template_line, difference.template_column, 0},
          RedactSubstituted("rendering changed the document's structure at '" + difference.path +
                            "': " + difference.message) +
              (culprits.empty() ? "" : " (substituted here: " + culprits + ")"),
          "declare the variable `type: yaml` if it is meant to inject structure");
  }
}

// The structure check quotes output text (a key that changed, the path the
// node now has), which holds a sensitive value when one was substituted
// there: mask the value as given and as written (encoded for its scalar).
std::string Renderer::RedactSubstituted(std::string text) const {
  text = RedactSensitive(text, manifest_, values_);
  for (std::size_t i = 0; i < substitutions_.size(); ++i) {
    const std::string_view written = substitutions_[i].value;
    const Variable* variable = substituted_variables_[i];
    if (variable == nullptr || !variable->sensitive || written.empty()) continue;
    for (std::size_t at = text.find(written); at != std::string::npos; at = text.find(written, at + 3)) {
      text.replace(at, written.size(), "***");
    }
  }
  return text;
}

// SPEC Rule 4: the manifest's steps run on the substituted document.
void Renderer::RunSteps(std::string* output) {
  StepContext context = StepContextFor(manifest_, values_);
  context.file_name = options_.file_name;
  context.load_fragment = [this](const Step& step) { return RenderFragment(step); };
  std::vector<EncodedScalar> encoded = EncodedScalars();
  Result<std::string> stepped = ApplySteps(*output, manifest_.steps, context);
  Append(std::move(stepped.diagnostics));
  if (!stepped.value || HasErrors(result_.diagnostics)) return;
  if (options_.report_sensitive_spans) {  // the steps moved the text: the written values are found again
    std::vector<std::string> written = std::move(fragment_secrets_);
    for (const auto& [begin, end] : result_.sensitive_spans) written.emplace_back(output->substr(begin, end - begin));
    result_.sensitive_spans.clear();
    AddSecretsFound(*stepped.value, written, &result_.sensitive_spans);
  }
  encoded.insert(encoded.end(), std::make_move_iterator(fragment_scalars_.begin()),
                 std::make_move_iterator(fragment_scalars_.end()));
  Append(CheckScriptKindsKept(*stepped.value, manifest_, encoded, options_.file_name + " (after the steps)",
                              "after the manifest's steps", /*every_scalar_present=*/false));
  *output = std::move(*stepped.value);
}

// A fragment is rendered by the same rules and values as the template, so its
// deploy-time placeholders are filled and its runtime variables survive.
Result<std::string> Renderer::RenderFragment(const Step& step) {
  namespace fs = std::filesystem;
  Result<std::string> result;
  std::error_code error;
  fs::path fragment = fs::weakly_canonical(step.fragment_file, error);
  fs::path base = fs::weakly_canonical(manifest_.directory.empty() ? "." : manifest_.directory, error);
  auto [base_end, fragment_at] = std::mismatch(base.begin(), base.end(), fragment.begin(), fragment.end());
  if (!options_.allow_outside && base_end != base.end()) {
    result.diagnostics.push_back(MakeError(step.location, "fragment '" + step.fragment_file +
                                                              "' is outside the manifest's directory",
                                           "move it under the manifest's directory, or pass --allow-outside"));
    return result;
  }
  std::ifstream in(step.fragment_file, std::ios::binary);
  if (!in) {
    result.diagnostics.push_back(MakeError(step.location, "cannot read fragment '" + step.fragment_file + "'"));
    return result;
  }
  std::ostringstream read;
  read << in.rdbuf();
  const std::string text = read.str();
  // The same fragment with the same values, rendered before in this batch (rendered_fragments.h).
  const std::string key = detail::FragmentRenderKey(step.fragment_file, text, step.path, values_);
  if (const detail::RenderedFragment* known = detail::FindRenderedFragment(key)) {
    result.value = known->output;
    result.diagnostics = known->diagnostics;
    fragment_secrets_.insert(fragment_secrets_.end(), known->secrets.begin(), known->secrets.end());
    fragment_scalars_.insert(fragment_scalars_.end(), known->encoded.begin(), known->encoded.end());
    return result;
  }
  RenderOptions fragment_options = options_;
  fragment_options.file_name = step.fragment_file;
  fragment_options.run_steps = false;
  // Not streamed: the steps look at its substitutions afterwards (EncodedScalars).
  Renderer renderer(text, manifest_, values_, fragment_options, 0, detail::kNeverStreams);
  renderer.MergedInto(step.path);
  RenderResult rendered = renderer.Run();
  result.diagnostics = std::move(rendered.diagnostics);
  if (HasErrors(result.diagnostics)) return result;
  result.value = std::move(rendered.output);
  std::vector<std::string> secrets;
  for (const auto& [begin, end] : rendered.sensitive_spans) {
    secrets.emplace_back(result.value->substr(begin, end - begin));
  }
  fragment_secrets_.insert(fragment_secrets_.end(), secrets.begin(), secrets.end());
  // Its scripts were classified on their own: the check after the steps
  // looks at them again where they landed.
  std::vector<EncodedScalar> encoded = renderer.EncodedScalars();
  detail::RememberRenderedFragment(key, {*result.value, result.diagnostics, encoded, std::move(secrets)});
  fragment_scalars_.insert(fragment_scalars_.end(), std::make_move_iterator(encoded.begin()),
                           std::make_move_iterator(encoded.end()));
  return result;
}

}  // namespace

RenderResult Render(std::string_view template_text, const Manifest& manifest, const ValueSet& values,
                    const RenderOptions& options) {
  return detail::RenderWithCopy(template_text, manifest, values, options, nullptr);
}

RenderResult detail::RenderWithCopy(std::string_view template_text, const Manifest& manifest, const ValueSet& values,
                                    const RenderOptions& options, const CopyText* copy) {
  auto render_whole = [&](std::string_view text) {
    RenderResult result = Renderer(text, manifest, values, options).Run();
    detail::CapDiagnostics(&result.diagnostics, options.limits.max_errors, options.file_name);
    return result;
  };
  // A large stream is rendered in document-aligned pieces, in parallel (parallel_render.h).
  if (!detail::RendersInPieces(template_text, manifest, options)) return render_whole(template_text);
  RenderResult result = detail::RenderPieces(template_text, detail::kChunkTarget, options.threads, options.limits,
                                             render_whole, copy);
  detail::CapDiagnostics(&result.diagnostics, options.limits.max_errors, options.file_name);
  return result;
}

namespace detail {

RenderResult RenderStreamingFrom(std::size_t dollars, std::string_view template_text, const Manifest& manifest,
                                 const ValueSet& values, const RenderOptions& options, bool* streamed) {
  Renderer renderer(template_text, manifest, values, options, 0, dollars);
  RenderResult result = renderer.Run();
  if (streamed != nullptr) *streamed = renderer.Streamed();
  CapDiagnostics(&result.diagnostics, options.limits.max_errors, options.file_name);
  return result;
}

}  // namespace detail

std::string_view ActionName(ReferenceReport::Action action) {
  switch (action) {
    case ReferenceReport::Action::kSubstitute: return "substitute";
    case ReferenceReport::Action::kKeepRuntime: return "keep (runtime)";
    case ReferenceReport::Action::kKeepUndeclared: return "keep (undeclared)";
    case ReferenceReport::Action::kEscape: return "escape";
    case ReferenceReport::Action::kError: return "error";
    case ReferenceReport::Action::kIgnored: return "ignore";
  }
  return "ignore";
}

// The report's context is the tokenizer's ContextClass under its public name.
static_assert(static_cast<int>(ReferenceReport::Context::kComment) == static_cast<int>(ContextClass::kComment) &&
              static_cast<int>(ReferenceReport::Context::kScript) == static_cast<int>(ContextClass::kScript) &&
              static_cast<int>(ReferenceReport::Context::kData) == static_cast<int>(ContextClass::kData));

std::string_view ContextName(ReferenceReport::Context context) {
  return ContextName(static_cast<ContextClass>(context));
}

}  // namespace safesubst
