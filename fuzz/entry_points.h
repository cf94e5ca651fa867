// SPDX-License-Identifier: Apache-2.0
// The entry points of the fuzz targets: each takes the raw input and drives one
// stage of the library with it, checking the properties its header promises
// that are cheap to check (spans inside the input, results consistent with
// their diagnostics, secrets absent from messages).
//
// Header-only on purpose: the libFuzzer targets (fuzz/*_fuzz.cc) and the
// regression test (tests/integration/fuzz_regression_test.cc, which replays
// tests/regression/<target>/*) run exactly the same code.
#pragma once

#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_support.h"
#include "input_limits.h"
#include "safesubst/diagnostic.h"
#include "safesubst/lint.h"
#include "safesubst/manifest.h"
#include "safesubst/render.h"
#include "shell.h"
#include "safesubst/steps.h"
#include "step_conditions.h"
#include "tokenizer.h"
#include "validate.h"
#include "safesubst/values.h"
#include "render_detail.h"
#include "yaml_span_tree.h"
#include "yaml_spans.h"
#include "yaml_load.h"
#include "yaml_nesting.h"
#include "yaml_tree.h"
#include "yaml_witness.h"
#include "yaml_edit.h"
#include "yaml_layout.h"
#include "yaml_path.h"

namespace safesubst::fuzz {

namespace detail {

inline bool ResultMatchesDiagnostics(bool has_value, const Diagnostics& diagnostics) {
  // `value` is set only when there are no errors (manifest, values, lint).
  return !has_value || !HasErrors(diagnostics);
}

inline void CheckLocations(const Diagnostics& diagnostics, std::size_t text_size) {
  for (const Diagnostic& diagnostic : diagnostics) {
    SAFESUBST_FUZZ_CHECK(diagnostic.location.offset <= text_size);
  }
}

inline Manifest ParseFixedManifest(std::string_view text) {
  Result<Manifest> parsed = ParseManifest(text, "fuzz/manifest.yaml");
  if (!parsed.ok()) {
    for (const Diagnostic& diagnostic : parsed.diagnostics) {
      std::fprintf(stderr, "%s", FormatDiagnostic(diagnostic, text, false).c_str());
    }
  }
  SAFESUBST_FUZZ_CHECK(parsed.ok());
  return parsed.value ? std::move(*parsed.value) : Manifest{};
}

}  // namespace detail

/// Tokenize, then DecodeScalar on every scalar and PathString on every path.
inline void FuzzTokenizer(std::string_view text) {
  Tokens tokens = Tokenize(text, TokenizerOptions{"fuzz.yaml"});
  detail::CheckLocations(tokens.diagnostics, text.size());
  for (const Scalar& scalar : tokens.scalars) {
    SAFESUBST_FUZZ_CHECK(scalar.offset <= text.size() && scalar.length <= text.size() - scalar.offset);
    SAFESUBST_FUZZ_CHECK(scalar.path == PathSegment::kRoot || scalar.path < tokens.paths.size());
    std::vector<std::size_t> source_offsets;
    std::string decoded = DecodeScalar(text, scalar, &source_offsets);
    SAFESUBST_FUZZ_CHECK(source_offsets.size() == decoded.size());
    for (std::size_t i = 0; i < source_offsets.size(); ++i) {
      // Render maps positions back with lower_bound: they must not go backwards.
      SAFESUBST_FUZZ_CHECK(source_offsets[i] <= text.size());
      SAFESUBST_FUZZ_CHECK(i == 0 || source_offsets[i - 1] <= source_offsets[i]);
    }
    (void)tokens.PathString(scalar.path);
  }
  for (const Reference& reference : tokens.references) {
    SAFESUBST_FUZZ_CHECK(reference.offset < text.size() && reference.length <= text.size() - reference.offset);
    SAFESUBST_FUZZ_CHECK(reference.scalar == Reference::kNoScalar || reference.scalar < tokens.scalars.size());
  }
  for (const Comment& comment : tokens.comments) {
    SAFESUBST_FUZZ_CHECK(comment.offset < text.size() && comment.length <= text.size() - comment.offset);
  }
  // Node spans (yaml_spans.h): recording them changes nothing else, and, even
  // for malformed input, they form a tree in document order within the text.
  NodeSpans spans;
  const Tokens with_spans = TokenizeWithSpans(text, &spans, TokenizerOptions{"fuzz.yaml"});
  SAFESUBST_FUZZ_CHECK(with_spans.scalars.size() == tokens.scalars.size());
  SAFESUBST_FUZZ_CHECK(with_spans.diagnostics.size() == tokens.diagnostics.size());
  for (std::uint32_t i = 0; i < spans.nodes.size(); ++i) {
    const NodeSpan& node = spans.nodes[i];
    SAFESUBST_FUZZ_CHECK(node.begin <= node.end && node.end <= text.size());
    SAFESUBST_FUZZ_CHECK((node.kind == NodeKind::kDocument) == (node.parent == NodeSpan::kNone));
    SAFESUBST_FUZZ_CHECK(node.parent == NodeSpan::kNone || node.parent < i);
    SAFESUBST_FUZZ_CHECK(node.key == NodeSpan::kNone || (node.key < i && spans.nodes[node.key].parent == node.parent));
    SAFESUBST_FUZZ_CHECK(node.kind != NodeKind::kScalar || node.scalar < with_spans.scalars.size());
  }
  // The input limits count the nesting as they read (yaml_nesting.h): what
  // the spans hold, also when the tokenizer keeps no scalar (kNodesOnly).
  for (SpanReading reading : {SpanReading::kAllTokens, SpanReading::kNodesOnly}) {
    NestingRecorder nesting;
    TokenizeWithSpans(text, &nesting, TokenizerOptions{"fuzz.yaml"}, reading);
    const Nesting counted = nesting.Finish(), expected = NestingOf(spans);
    SAFESUBST_FUZZ_CHECK(counted.deepest == expected.deepest && counted.deepest_offset == expected.deepest_offset &&
                         counted.aliases == expected.aliases);
  }
  // Read as it is read (TokenizeAsRead): the same scalars, each with its
  // path's segments there (finished ones are reused), the same paths unless
  // the sink was told (at some point) that a key came after its scalars.
  struct Handed final : safesubst::detail::ScalarSink {
    explicit Handed(const Tokens& tokenized) : whole(tokenized) {}
    void Take(Tokens* read) override {
      SAFESUBST_FUZZ_CHECK(read->scalars.size() == 1 && next < whole.scalars.size());
      const Scalar& scalar = read->scalars[0];
      const Scalar& expected = whole.scalars[next++];
      SAFESUBST_FUZZ_CHECK(scalar.offset == expected.offset && scalar.length == expected.length &&
                           scalar.is_key == expected.is_key);
      std::size_t steps = 0;
      for (std::uint32_t segment = scalar.path; segment != PathSegment::kRoot; segment = read->paths[segment].parent) {
        SAFESUBST_FUZZ_CHECK(segment < read->paths.size() && ++steps <= read->paths.size());
      }
      other_path = other_path || read->PathString(scalar.path) != whole.PathString(expected.path);
    }
    void PathsChanged() override { changed = true; }
    const Tokens& whole;
    std::size_t next = 0;
    bool other_path = false, changed = false;
  } handed(tokens);
  Tokens read;
  safesubst::detail::TokenizeAsRead(text, TokenizerOptions{"fuzz.yaml"}, &read, &handed);
  SAFESUBST_FUZZ_CHECK(handed.next == tokens.scalars.size() && read.diagnostics.size() == tokens.diagnostics.size());
  SAFESUBST_FUZZ_CHECK(!handed.other_path || handed.changed);
  // The input limits' cheap bound lets no text through that is deeper than the limit.
  if (const std::uint32_t depth = NestingDepth(text, nullptr); depth > 0) {
    Limits limits;
    limits.max_depth = depth - 1;
    limits.max_aliases = std::numeric_limits<std::uint32_t>::max();
    SAFESUBST_FUZZ_CHECK(!CheckInputLimits(text, limits, "fuzz.yaml").empty());
  }
}

/// The manifest loader and the values readers, fed the same text.
inline void FuzzManifest(std::string_view text) {
  // The reader from the tokenizer's spans builds yaml-cpp's tree exactly, with
  // the tokenizer's decoding of each scalar (yaml-cpp misreads some, as in
  // `- |+` before a blank line: TakeTokenizerDecoding), or declines.
  safesubst::detail::YamlStream spans, full;
  safesubst::detail::YamlParseError error;
  if (safesubst::detail::ReadYamlStreamFromSpans(text, &spans)) {
    SAFESUBST_FUZZ_CHECK(safesubst::detail::ParseYamlStreamWithYamlCpp(text, &full, &error) &&
                         !safesubst::detail::TakeTokenizerDecoding(text, &full).has_value() && spans == full);
  }
  Result<Manifest> manifest = ParseManifest(text, "fuzz/manifest.yaml");
  SAFESUBST_FUZZ_CHECK(detail::ResultMatchesDiagnostics(manifest.value.has_value(), manifest.diagnostics));
  (void)ManifestFromShellFormat(text);
  (void)DetectValuesFormat(text, "values");
  std::vector<std::string> sets;
  for (const char* file : {"fuzz/values.env", "fuzz/values.yaml"}) {
    Result<std::vector<std::pair<std::string, Value>>> values = ParseValuesText(text, file);
    SAFESUBST_FUZZ_CHECK(detail::ResultMatchesDiagnostics(values.value.has_value(), values.diagnostics));
    if (!values.value) continue;
    for (const auto& [name, value] : *values.value) sets.push_back(name + "=" + value.text);
  }
  if (!manifest.ok()) return;
  (void)CheckStepPaths(manifest.value->steps);
  // The values the same text holds, validated against the manifest it holds.
  Result<ValueSet> collected = CollectValues(*manifest.value, ValueInputs{{}, {}, sets});
  if (collected.value) (void)RedactSensitive(text, *manifest.value, *collected.value);
}

/// A manifest with a variable of every type, a sensitive one and a raw shell one.
inline constexpr std::string_view kRenderManifest = R"(variables:
  S: string
  I: int
  B: bool
  IP: ipv4
  NET: cidr
  HOST: hostname
  LABEL: dns-label
  LIST: list
  E: {type: enum, values: [red, green, blue]}
  Y: yaml
  P: {type: string, pattern: '[a-z0-9.-]{1,30}'}
  SECRET: {type: string, sensitive: true}
  RAW: {type: string, shell: raw}
  D: {type: string, default: "a default"}
runtime: [NODE_IP, HOME, OCT3]
scripts: [.data.run]
shell: [.data.script]
)";

/// The value of SECRET. It must never appear in a diagnostic or a report.
inline constexpr std::string_view kSecret = "Sx7-not-in-any-message-9qZ";

/// Appends the shape of node `index`: kinds, collection sizes and explicit
/// tags, not scalar text (values change it) nor plain/quoted (requoting does).
inline void AppendShape(const ::safesubst::detail::YamlStream& stream, std::uint32_t index, std::string* out) {
  using Kind = ::safesubst::detail::YamlNode::Kind;
  const ::safesubst::detail::YamlNode& node = stream.nodes[index];
  if (!node.tag.empty() && node.tag != "?" && node.tag != "!") *out += "<" + node.tag + ">";
  switch (node.kind) {
    case Kind::kNull: *out += 'N'; return;
    case Kind::kScalar: *out += 'S'; return;
    case Kind::kAlias: *out += 'A'; return;
    case Kind::kSequence: *out += '['; break;
    case Kind::kMapping: *out += '{'; break;
  }
  for (std::uint32_t child : node.children) AppendShape(stream, child, out);
  *out += node.kind == Kind::kSequence ? ']' : '}';
}

/// The shape of every document of `text` as yaml-cpp reads it; false when it does not parse.
inline bool YamlShape(std::string_view text, std::string* shape) {
  ::safesubst::detail::YamlStream stream;
  ::safesubst::detail::YamlParseError error;
  if (!::safesubst::detail::ParseYamlStream(text, &stream, &error)) return false;
  for (std::uint32_t root : stream.documents) {
    AppendShape(stream, root, shape);
    *shape += '|';
  }
  return true;
}

/// A value for every variable of kRenderManifest that lands as one plain
/// scalar anywhere: the reference render for the shape comparison.
inline const ValueSet& HarmlessValues() {
  static const ValueSet values = [] {
    ValueSet set;
    for (const auto& [name, text] : {std::pair<const char*, const char*>{"S", "x1"}, {"I", "1"}, {"B", "true"},
                                     {"IP", "10.0.0.1"}, {"NET", "10.0.0.0/8"}, {"HOST", "h.example"},
                                     {"LABEL", "l"}, {"LIST", "a"}, {"E", "red"}, {"Y", "y"}, {"P", "p"},
                                     {"SECRET", "s1"}, {"RAW", "r"}, {"D", "d"}}) {
      set.Set(name, Value{text, ValueSource::kCommandLine, Location{"--set"}});
    }
    return set;
  }();
  return values;
}

/// yaml-cpp does not read a lone CR as a line break (YAML does; libyaml and
/// the tokenizer agree): `a=$S"b \r\r #c` requoted reads as two documents for
/// yaml-cpp only. Not the renderer's doing, so such inputs are not compared.
inline bool HasLoneCarriageReturn(std::string_view text) {
  for (std::size_t at = text.find('\r'); at != std::string_view::npos; at = text.find('\r', at + 1)) {
    if (at + 1 == text.size() || text[at + 1] != '\n') return true;
  }
  return false;
}

/// True when the render substituted the `type: yaml` variable, which may change the shape.
inline bool SubstitutesYaml(const RenderResult& result) {
  for (const ReferenceReport& report : result.references) {
    if (report.name == "Y" && report.action == ReferenceReport::Action::kSubstitute) return true;
  }
  return false;
}

/// Values (dotenv or YAML, before the separator) and a template (after it; the
/// whole input when there is no separator), rendered as `render` and as
/// `explain` do.
// A streaming render (render_detail.h) writes and reports exactly what
// the whole-document render does (without reference reports, as the CLI's
// render asks, since those keep every reference).
inline void CheckStreamsAlike(std::string_view text, const Manifest& manifest, const ValueSet& values,
                              RenderOptions options) {
  options.report_references = false;
  namespace streaming_render = safesubst::detail;
  const RenderResult whole =
      streaming_render::RenderStreamingFrom(streaming_render::kNeverStreams, text, manifest, values, options);
  const RenderResult streaming = streaming_render::RenderStreamingFrom(0, text, manifest, values, options);
  SAFESUBST_FUZZ_CHECK(streaming.output == whole.output);
  SAFESUBST_FUZZ_CHECK(streaming.diagnostics.size() == whole.diagnostics.size());
  for (std::size_t i = 0; i < whole.diagnostics.size() && i < streaming.diagnostics.size(); ++i) {
    SAFESUBST_FUZZ_CHECK(FormatDiagnostic(streaming.diagnostics[i], text, false) ==
                         FormatDiagnostic(whole.diagnostics[i], text, false));
  }
}

inline void FuzzRender(std::string_view input) {
  static const Manifest manifest = detail::ParseFixedManifest(kRenderManifest);
  Parts parts = SplitParts(input);
  std::string_view template_text = parts.found ? parts.second : parts.first;
  ValueSet values;
  auto set = [&values](std::string name, std::string text) {
    values.Set(std::move(name), Value{std::move(text), ValueSource::kCommandLine, Location{"--set"}});
  };
  set("S", "hello: world # not a comment");
  set("I", "42");
  set("B", "true");
  set("IP", "10.0.39.229");
  set("NET", "10.0.0.0/16");
  set("HOST", "fs-1.efs.example.com");
  set("LABEL", "mo-back");
  set("LIST", "web-portal, mo-back");
  set("E", "green");
  set("Y", "{limits: {cpu: 500m}, list: [a, 'b: c']}");
  set("P", "abc.def");
  set("RAW", "$(date) \"x\" 'y'");
  if (parts.found) {
    Result<std::vector<std::pair<std::string, Value>>> parsed = ParseValuesText(parts.first, "fuzz/values");
    if (parsed.value) {
      for (auto& [name, value] : *parsed.value) {
        if (name != "SECRET") values.Set(name, std::move(value));
      }
    }
  }
  set("SECRET", std::string(kSecret));
  // A template that spells the secret out may be quoted back; anything else must not show it.
  bool secret_in_template = template_text.find(kSecret) != std::string_view::npos;
  auto check_no_secret = [&](const RenderResult& result) {
    if (secret_in_template) return;
    for (const Diagnostic& diagnostic : result.diagnostics) {
      SAFESUBST_FUZZ_CHECK(diagnostic.message.find(kSecret) == std::string::npos);
      SAFESUBST_FUZZ_CHECK(diagnostic.hint.find(kSecret) == std::string::npos);
    }
    for (const ReferenceReport& report : result.references) {
      SAFESUBST_FUZZ_CHECK(report.text.find(kSecret) == std::string::npos);
      SAFESUBST_FUZZ_CHECK(report.note.find(kSecret) == std::string::npos);
      SAFESUBST_FUZZ_CHECK(report.path.find(kSecret) == std::string::npos);
    }
  };

  RenderOptions options;
  options.file_name = "fuzz.yaml";
  options.limits.max_value_bytes = 4096;
  RenderResult rendered = Render(template_text, manifest, values, options);
  check_no_secret(rendered);
  // "On error, `output` is empty."
  SAFESUBST_FUZZ_CHECK(rendered.ok() || rendered.output.empty());
  CheckStreamsAlike(template_text, manifest, values, options);

  // The structure check (by default the token-level one, fast_invariant.h) is
  // checked against an independent reading: yaml-cpp's tree of the output
  // must have the shape of the tree of the same template rendered with
  // harmless values. A difference is a structure change that got through.
  if (rendered.ok() && !SubstitutesYaml(rendered) &&
      !HasLoneCarriageReturn(template_text)) {
    RenderResult reference = Render(template_text, manifest, HarmlessValues(), options);
    if (reference.ok() && !SubstitutesYaml(reference)) {
      std::string expected, actual;
      if (YamlShape(reference.output, &expected)) {
        bool parses = YamlShape(rendered.output, &actual);
        if (!parses || actual != expected) {
          std::fprintf(stderr, "expected shape %s\nactual shape   %s\noutput:\n%s\n", expected.c_str(),
                       actual.c_str(), rendered.output.c_str());
        }
        SAFESUBST_FUZZ_CHECK(parses);
        SAFESUBST_FUZZ_CHECK(actual == expected);
      }
    }
  }
  // The yaml-cpp comparison (--full-check) on the same render, for crashes and leaks.
  RenderOptions full = options;
  full.full_structure_check = true;
  check_no_secret(Render(template_text, manifest, values, full));

  RenderOptions explain = options;  // what `explain` and `vars` do
  explain.check_structure = false;
  explain.run_steps = false;
  explain.allow_undeclared = true;
  RenderResult explained = Render(template_text, manifest, values, explain);
  check_no_secret(explained);
  SAFESUBST_FUZZ_CHECK(explained.ok() || explained.output.empty());
}

inline constexpr std::string_view kStepsManifest = R"(variables:
  APP: {type: dns-label, default: mo-back}
  EXCLUDE: {type: list, default: web-portal}
  MODE: {type: string, default: full}
steps:
  - delete: .spec.template.spec.hostAliases
    optional: true
    when: {var: APP, not_in: EXCLUDE}
  - merge: common/wrapper.yaml
    into: .spec.template.spec.containers[0]
    optional: true
    when: [{var: APP, not_in: EXCLUDE}, {var: MODE, equals: full}]
  - merge: common/env.yaml
    into: .spec.template.spec.containers[*]
    append: true
    optional: true
  - merge: common/env.yaml
    into: .spec.template.spec.containers[name=app]
    optional: true
    match: {kind: Deployment}
  - set: .metadata.labels.app
    value: mo-back
    optional: true
  - set: .data
    value: "{run.sh: 'echo $NODE_IP', list: [a, b]}"
    optional: true
  - delete: .metadata.annotations
    optional: true
  - delete: '[0]'
    optional: true
  - merge: common/env.yaml
    into: .spec
    optional: true
    match: {kind: StatefulSet, labels: {tier: db}}
)";

inline constexpr std::string_view kWrapperFragment = R"(command: ["/bin/sh", "-c"]
args:
  - |
    OCT3=$(echo "$NODE_IP" | cut -d. -f3)
    echo "$EFS_IP efs" >> /etc/hosts
env:
  - name: NODE_IP
    valueFrom: {fieldRef: {fieldPath: status.hostIP}}
)";

inline constexpr std::string_view kEnvFragment = "env:\n  - name: ZONE\n    value: \"2a\"\nimage: app:1.2\n";

/// A `match:` reads a document's `kind` and `metadata.name` as yaml-cpp does:
/// steps.cc reads them from the tokenizer's layout, and asks yaml-cpp only
/// where the layout leaves a node to a full parse.
inline void CheckMatchReadsLikeYamlCpp(std::string_view document) {
  ::safesubst::detail::YamlStream stream;
  ::safesubst::detail::YamlParseError error;
  if (!::safesubst::detail::ParseYamlStreamWithYamlCpp(document, &stream, &error) || stream.documents.size() != 1) return;
  auto field = [](const ::safesubst::detail::YamlRef& map, std::string_view key) -> std::optional<::safesubst::detail::YamlRef> {
    for (const auto& [k, v] : map.Entries()) {
      if (k.IsScalar() && k.Scalar() == key) return v;
    }
    return std::nullopt;
  };
  const ::safesubst::detail::YamlRef root(stream, stream.documents[0]);
  if (!root.IsMap()) return;
  DocumentMatch match;
  if (auto kind = field(root, "kind"); kind && kind->IsScalar()) match.kind = kind->Scalar();
  if (auto metadata = field(root, "metadata"); metadata && metadata->IsMap()) {
    if (auto name = field(*metadata, "name"); name && name->IsScalar()) match.name = name->Scalar();
  }
  if (match.kind.empty() && match.name.empty()) return;
  SAFESUBST_FUZZ_CHECK(DocumentMatches(match, document));
  match.kind += "x";
  SAFESUBST_FUZZ_CHECK(!DocumentMatches(match, document));
}

/// The step engine's fast witness (yaml_witness.h) reads every input and
/// every edited output: libfyaml 0.7.12 has crashed and looped on texts the
/// witness now leaves to yaml-cpp. Its verdicts are not compared with
/// yaml-cpp's here: yaml-cpp misreads valid YAML (`--- |` with `*a` at
/// column 0 is "the referenced anchor is not defined"), so no agreement
/// holds that a fuzzer could assert; the yaml-test-suite conformance test
/// checks the verdicts instead.
inline void ReadWithTheWitness(std::string_view text) { (void)::safesubst::detail::ReadWithWitness(text); }

/// The layout a delete leaves (EditOutcome::layout, which the next step
/// plans on) is the one a new scan of the edited text gives.
inline void CheckLayoutLeftByDeletes(std::string_view stream) {
  for (const ::safesubst::detail::DocumentSpan& span : ::safesubst::detail::SplitDocuments(stream)) {
    const std::string document(stream.substr(span.begin, span.end - span.begin));
    for (const char* text : {".metadata.annotations", ".spec.template.spec.hostAliases", "[0]", ".spec", ".a"}) {
      ::safesubst::detail::YamlPath path;
      ::safesubst::detail::PathError unused;
      ::safesubst::detail::ParseYamlPath(text, &path, &unused);
      const ::safesubst::detail::EditOutcome outcome = ::safesubst::detail::DeletePath(document, path);
      if (!outcome.ok() || !outcome.layout) continue;
      outcome.layout->Rebind(outcome.text);
      ::safesubst::detail::Layout scanned;
      ::safesubst::detail::LayoutError error;
      SAFESUBST_FUZZ_CHECK(scanned.Scan(outcome.text, &error) && scanned.eol() == outcome.layout->eol() &&
                           scanned.size() == outcome.layout->size());
      for (std::uint32_t i = 0; i < scanned.size(); ++i) SAFESUBST_FUZZ_CHECK(scanned.node(i) == outcome.layout->node(i));
    }
  }
}

/// The steps of kStepsManifest on a fuzzed stream. Steps only ever see what
/// Render produced (a stream within the input limits that yaml-cpp parses, as
/// the structure check proved), so the input first goes through Render with no
/// variables, and the steps run on its output.
inline void FuzzSteps(std::string_view text) {
  static const Manifest manifest = detail::ParseFixedManifest(kStepsManifest);
  static const ValueSet values = [] {
    ValueSet set;
    set.Set("APP", Value{"mo-back", ValueSource::kCommandLine, {}});
    return set;
  }();
  static const Manifest no_variables;
  RenderOptions options;
  options.file_name = "fuzz.yaml";
  options.allow_undeclared = true;
  options.run_steps = false;
  ReadWithTheWitness(text);
  RenderResult rendered = Render(text, no_variables, ValueSet{}, options);
  if (!rendered.ok()) return;
  CheckMatchReadsLikeYamlCpp(rendered.output);
  CheckLayoutLeftByDeletes(rendered.output);
  StepContext context = StepContextFor(manifest, values);
  context.file_name = "fuzz.yaml";
  context.load_fragment = [](const Step& step) {
    Result<std::string> fragment;
    fragment.value = std::string(step.fragment_file == "common/wrapper.yaml" ? kWrapperFragment : kEnvFragment);
    return fragment;
  };
  if (Result<std::string> edited = ApplySteps(rendered.output, manifest.steps, context); edited.ok()) {
    ReadWithTheWitness(*edited.value);
  }
  // One step that must match: the error path, and its message about the document.
  Step required;
  required.action = Step::Action::kDelete;
  required.path = ".metadata.name";
  required.location = Location{"fuzz/manifest.yaml", 3, 5, 0};
  (void)ApplySteps(rendered.output, {required}, context);
}

/// A script (before the separator; the whole input when there is none) and a
/// value (after it): the context at every `$`, and the value plus a few fixed
/// hostile ones encoded there, in both shell modes.
inline void FuzzShell(std::string_view input) {
  Parts parts = SplitParts(input);
  std::string_view script = parts.first;
  (void)ShebangShell(script);
  std::vector<std::size_t> dollars;
  for (std::size_t at = script.find('$'); at != std::string_view::npos; at = script.find('$', at + 1)) {
    dollars.push_back(at);
  }
  Diagnostics problems;
  std::vector<ShellContext> contexts = ShellContextsAt(script, dollars, &problems);
  SAFESUBST_FUZZ_CHECK(contexts.size() == dollars.size());
  detail::CheckLocations(problems, script.size());
  std::vector<std::string_view> values = {"", "plain-1", "two words", "it's \"q\" $x `y` \\z", "line\nbreak",
                                          "#c", "=cmd", "if", "a=b", "EOF", "-12"};
  if (parts.found) values.insert(values.begin(), parts.second);
  for (const ShellContext& context : contexts) {
    (void)DescribeShellContext(context);
    for (std::string_view value : values) {
      for (ShellMode mode : {ShellMode::kSafe, ShellMode::kRaw}) {
        std::string out = "prefix";
        std::string error = AppendShellEncoded(context, value, mode, &out);
        // "then nothing is appended"
        SAFESUBST_FUZZ_CHECK(error.empty() || out == "prefix");
        // A NUL byte is always an error.
        SAFESUBST_FUZZ_CHECK(value.find('\0') == std::string_view::npos || !error.empty());
      }
    }
  }
}

/// Lint with default options and with every assumption on, and the formatters.
inline void FuzzLint(std::string_view text) {
  for (bool assume : {false, true}) {
    LintOptions options;
    options.file_name = "fuzz.yaml";
    options.assume_istio_namespace = assume;
    options.assume_hold_application = assume;
    if (assume) options.disabled.insert("fsgroup-recursive-chown");
    Result<std::vector<Finding>> linted = Lint(text, options);
    SAFESUBST_FUZZ_CHECK(detail::ResultMatchesDiagnostics(linted.value.has_value(), linted.diagnostics));
    if (!linted.value) continue;
    for (const Finding& finding : *linted.value) {
      SAFESUBST_FUZZ_CHECK(finding.location.offset <= text.size());
      SAFESUBST_FUZZ_CHECK(FindLintRule(finding.rule_id) != nullptr);
      (void)FormatFinding(finding, text, false, true);
    }
    (void)FindingsToJson(*linted.value);
  }
}

/// The targets by name, as fuzz/CMakeLists.txt, fuzz/run.sh and tests/regression/ name them.
struct Target {
  const char* name;
  void (*run)(std::string_view input);
};

inline constexpr Target kTargets[] = {
    {"tokenizer", &FuzzTokenizer}, {"manifest", &FuzzManifest}, {"render", &FuzzRender},
    {"steps", &FuzzSteps},         {"shell", &FuzzShell},       {"lint", &FuzzLint},
};

}  // namespace safesubst::fuzz
