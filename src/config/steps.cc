// SPDX-License-Identifier: Apache-2.0
#include "safesubst/steps.h"

#include <algorithm>
#include <memory>
#include <optional>
#include <utility>

#include <yaml-cpp/yaml.h>

#include "step_conditions.h"
#include "text_checks.h"
#include "yaml_edit.h"
#include "yaml_layout.h"
#include "yaml_load.h"
#include "yaml_path.h"
#include "yaml_tree.h"
#include "yaml_witness.h"

namespace safesubst {
namespace {

using detail::EditOutcome;
using detail::YamlPath;

bool HasMatch(const DocumentMatch& match) {
  return !match.kind.empty() || !match.name.empty() || !match.labels.empty();
}

std::string ActionWord(Step::Action action) {
  switch (action) {
    case Step::Action::kMerge: return "merge";
    case Step::Action::kDelete: return "delete";
    case Step::Action::kSet: return "set";
  }
  return "step";
}

// "merge `common/x.yaml` into `.spec...`", "delete `.a`", "set `.a`".
std::string StepTitle(const Step& step) {
  if (step.action == Step::Action::kMerge) {
    return "merge `" + step.fragment_file + "` into `" + step.path + "`";
  }
  return ActionWord(step.action) + " `" + step.path + "`";
}

std::string MatchText(const DocumentMatch& match) {
  std::string out;
  auto add = [&](const std::string& part) { out += (out.empty() ? "" : ", ") + part; };
  if (!match.kind.empty()) add("kind: " + match.kind);
  if (!match.name.empty()) add("name: " + match.name);
  for (const auto& [key, value] : match.labels) add("label " + key + ": " + value);
  return out;
}

// The fields of a document that a `match:` and the messages read: `kind`,
// `metadata.name` and `metadata.labels`, as scalars. The tokenizer's layout
// reads them (one reader for matches and edits); a node it leaves to a full
// parse (a flow or aliased mapping, a tagged or multi-line value) is read by
// yaml-cpp (Layout::Yaml), which throws LayoutUnreadable where it cannot read
// the document. A document the layout cannot lay out at all (a construct the
// edits do not handle, such as an explicit `?` key) is read by yaml-cpp whole.
class DocumentFields {
 public:
  // False, with why, when neither reading can read the document. `laid_out`:
  // its layout (Layout::Scan), when the caller has it.
  bool Read(std::string_view document, std::string* why, const detail::Layout* laid_out = nullptr) {
    detail::LayoutError error;
    laid_out_ = laid_out != nullptr || own_layout_.Scan(document, &error);
    layout_ = laid_out != nullptr ? laid_out : &own_layout_;
    if (laid_out_) return true;
    detail::YamlParseError unused;
    if (detail::ParseYamlStreamWithYamlCpp(document, &whole_, &unused)) return true;
    *why = error.message;
    return false;
  }

  std::optional<std::string> Kind() const { return Scalar(Root(), "kind"); }
  std::optional<std::string> Name() const { return Scalar(Metadata(), "name"); }
  std::optional<std::string> Label(std::string_view key) const { return Scalar(Child(Metadata(), "labels"), key); }

 private:
  // A mapping of the document: a block mapping of the layout, or a mapping
  // yaml-cpp read; neither when absent.
  struct Map {
    std::uint32_t block = detail::kNoNode;
    std::optional<detail::YamlRef> yaml;
  };

  static Map OfYaml(const std::optional<detail::YamlRef>& node) {
    return node && node->IsMap() ? Map{detail::kNoNode, node} : Map{};
  }

  Map Root() const {
    if (!laid_out_) {
      return whole_.documents.empty() ? Map{} : OfYaml(detail::YamlRef(whole_, whole_.documents[0]));
    }
    return layout_->empty() ? Map{} : Of(0);
  }
  Map Metadata() const { return Child(Root(), "metadata"); }

  // Node `index` of the layout as a mapping.
  Map Of(std::uint32_t index) const {
    const detail::LayoutNode& node = layout_->node(index);
    if (node.kind == detail::LayoutKind::kBlockMap) return Map{index, std::nullopt};
    if (!layout_->IsMapping(index) && node.kind != detail::LayoutKind::kAlias) return Map{};
    return OfYaml(layout_->Yaml(index));
  }

  Map Child(const Map& map, std::string_view key) const {
    if (map.block != detail::kNoNode) {
      const std::uint32_t child = layout_->FindKey(map.block, key);
      return child == detail::kNoNode ? Map{} : Of(child);
    }
    return map.yaml ? OfYaml(map.yaml->Find(key)) : Map{};
  }

  std::optional<std::string> Scalar(const Map& map, std::string_view key) const {
    if (map.block != detail::kNoNode) return layout_->ScalarField(map.block, key);
    if (!map.yaml) return std::nullopt;
    const std::optional<detail::YamlRef> value = map.yaml->Find(key);
    if (!value || !value->IsScalar()) return std::nullopt;
    return value->Scalar();
  }

  detail::Layout own_layout_;
  const detail::Layout* layout_ = &own_layout_;
  bool laid_out_ = false;
  detail::YamlStream whole_;  // yaml-cpp's reading, where the layout has none
};

enum class MatchAnswer : std::uint8_t { kMatches, kDoesNotMatch, kCannotTell };

bool Matches(const DocumentMatch& match, const DocumentFields& fields) {
  if (!match.kind.empty() && fields.Kind() != match.kind) return false;
  if (!match.name.empty() && fields.Name() != match.name) return false;
  return std::all_of(match.labels.begin(), match.labels.end(),
                     [&](const auto& label) { return fields.Label(label.first) == label.second; });
}

// Whether `document` is one `match` selects; kCannotTell, with why, when no
// reading can read the fields it names.
MatchAnswer MatchDocument(const DocumentMatch& match, std::string_view document, std::string* why,
                          const detail::Layout* laid_out = nullptr) {
  if (!HasMatch(match)) return MatchAnswer::kMatches;
  DocumentFields fields;
  if (!fields.Read(document, why, laid_out)) return MatchAnswer::kCannotTell;
  try {
    return Matches(match, fields) ? MatchAnswer::kMatches : MatchAnswer::kDoesNotMatch;
  } catch (const detail::LayoutUnreadable& unreadable) {
    *why = unreadable.error.message;
    return MatchAnswer::kCannotTell;
  }
}

// "Deployment web", or as much of it as the document says.
std::string KindAndName(std::string_view document) {
  DocumentFields fields;
  std::string unused;
  if (!fields.Read(document, &unused)) return {};
  std::optional<std::string> kind, name;
  try {
    kind = fields.Kind();
    name = fields.Name();
  } catch (const detail::LayoutUnreadable&) {
    // say what was read
  }
  std::string out = kind.value_or("");
  if (name && !name->empty()) out += (out.empty() ? "" : " ") + *name;
  return out;
}

// Which witness reads an edited document (see ApplySteps).
enum class Witness : std::uint8_t {
  kAfterEachEdit,  ///< yaml-cpp after every edit, so that a failure names the step that broke the document
  kAfterAllSteps,  ///< once per edited document, when the steps are done: libfyaml first, then yaml-cpp
};

// The independent witness of edits reads `text` (unknown aliases included).
// After all steps, libfyaml, the fast one (yaml_witness.h), and where it does
// not accept, yaml-cpp, so that a refusal and its message are yaml-cpp's. The
// replay after a failure (kAfterEachEdit) asks yaml-cpp alone, as before
// libfyaml: a failed run reports what it did. Returns yaml-cpp's message, or
// nothing when the text parses.
std::optional<std::string> WitnessRefusal(std::string_view text, Witness witness) {
  if (witness == Witness::kAfterAllSteps && detail::ReadWithWitness(text) == detail::WitnessVerdict::kAccepts) {
    return std::nullopt;
  }
  try {
    detail::CheckAllDocumentsParse(text);
    return std::nullopt;
  } catch (const YAML::Exception& e) {
    return e.msg;
  }
}

// yaml-cpp reads a fragment or a set value: once per text while a
// RememberLoadedText lives (ApplySteps and a batch keep one), so the merge
// fragment of a tenant's apps is parsed once.
bool InputParses(std::string_view text) {
  try {
    detail::LoadYamlStream(text);
    return true;
  } catch (const YAML::Exception&) {
    return false;
  }
}

// One document of the stream being edited.
struct Document {
  std::string text;
  bool has_content = false;
  bool edited = false;           ///< a step changed it (kAfterAllSteps: not yet witnessed)
  std::uint32_t first_line = 0;  ///< 1-based line where the piece starts in the input
  std::uint32_t line = 0;        ///< 1-based line of its first content in the input
  int number = 0;                ///< 1-based position among the documents with content
  /// The layout of `text` (Layout::Scan), kept from the step that left it (a
  /// delete) or from a scan until a step changes the text, so that matching
  /// and editing lay the text out once; null when not known.
  std::shared_ptr<detail::Layout> layout;
};

class StepRunner {
 public:
  StepRunner(std::string_view rendered, const StepContext& context, Witness witness)
      : rendered_(rendered), context_(context), witness_(witness) {
    int number = 0;
    // Lines are counted as the pieces go by: counting from the start for
    // each of thousands of documents was quadratic.
    std::uint32_t line = 1;
    std::size_t counted = 0;
    for (const detail::DocumentSpan& span : detail::SplitDocuments(rendered)) {
      line += static_cast<std::uint32_t>(CountByte(rendered.substr(counted, span.begin - counted), '\n'));
      counted = span.begin;
      Document document;
      document.text = std::string(rendered.substr(span.begin, span.end - span.begin));
      document.has_content = span.has_content;
      document.first_line = line;
      document.line = FirstContentLine(span, line);
      if (span.has_content) document.number = ++number;
      documents_.push_back(std::move(document));
    }
    content_documents_ = number;
  }

  void Run(const std::vector<Step>& steps, const std::vector<YamlPath>& paths) {
    for (std::size_t i = 0; i < steps.size(); ++i) RunStep(steps[i], paths[i]);
  }

  // kAfterAllSteps: yaml-cpp read every fragment and value the steps
  // brought in, and the witness reads each edited document once.
  bool EditedDocumentsParse() const {
    return !inputs_unread_ && std::all_of(documents_.begin(), documents_.end(), [](const Document& document) {
      return !document.edited || !WitnessRefusal(document.text, Witness::kAfterAllSteps);
    });
  }

  std::string Output() const {
    std::string out;
    for (const Document& document : documents_) out += document.text;
    return out;
  }

  Diagnostics& diagnostics() { return diagnostics_; }

 private:
  // The layout of the document's text, scanned where no step left one; null
  // where the tokenizer's reading cannot lay it out (each reader then decides
  // as it always did).
  static const detail::Layout* LayoutOf(Document& document) {
    if (!document.layout) {
      auto layout = std::make_shared<detail::Layout>();
      detail::LayoutError unused;
      if (!layout->Scan(document.text, &unused)) return nullptr;
      document.layout = std::move(layout);
    }
    return document.layout.get();
  }

  // `line` is the line of span.begin.
  std::uint32_t FirstContentLine(const detail::DocumentSpan& span, std::uint32_t line) const {
    std::size_t p = span.begin;
    // Skip blank lines, comments, directives and the `---` line itself.
    while (p < span.end) {
      std::size_t end = rendered_.find('\n', p);
      if (end == std::string_view::npos || end > span.end) end = span.end;
      std::string_view text = rendered_.substr(p, end - p);
      std::size_t first = text.find_first_not_of(" \t\r");
      bool skip = first == std::string_view::npos || text[first] == '#' || text[first] == '%' ||
                  (text.substr(0, 3) == "---" && text.find_first_not_of(" \t\r", 3) == std::string_view::npos);
      if (!skip) break;
      ++line;
      p = end + 1;
    }
    return line;
  }

  std::string Describe(const Document& document) const {
    const std::string what = KindAndName(document.text);
    std::string out = content_documents_ > 1 ? "document " + std::to_string(document.number) : "the document";
    out += " (";
    if (!what.empty()) out += what + ", ";
    out += context_.file_name + ":" + std::to_string(document.line) + ")";
    return out;
  }

  void Error(Location location, std::string message, std::string hint = {}) {
    diagnostics_.push_back(MakeError(std::move(location), std::move(message), std::move(hint)));
  }

  // Loads the fragment of a merge step once; nullopt after reporting why not.
  std::optional<std::string> LoadFragment(const Step& step) {
    if (!context_.load_fragment) {
      Error(step.location, StepTitle(step) + ": no way to read fragments was given");
      return std::nullopt;
    }
    Result<std::string> loaded = context_.load_fragment(step);
    diagnostics_.insert(diagnostics_.end(), loaded.diagnostics.begin(), loaded.diagnostics.end());
    if (!loaded.ok()) {
      if (!HasErrors(loaded.diagnostics)) Error(step.location, StepTitle(step) + ": the fragment could not be read");
      return std::nullopt;
    }
    return std::move(*loaded.value);
  }

  // A `set` value is YAML written as is, not a template: a declared variable
  // in it would reach the output unsubstituted (and the shell would read it
  // at run time, when it is not set).
  bool SetsDeclaredName(const Step& step) {
    if (!context_.declared_name_in) return false;
    const std::string_view name = context_.declared_name_in(step.value);
    if (name.empty()) return false;
    Error(step.location, StepTitle(step) + ": the value names the declared variable '" + std::string(name) +
                             "', which a `set` value does not substitute",
          "merge a fragment that holds the value instead (fragments are rendered), or write the value out");
    return true;
  }

  void RunStep(const Step& step, const YamlPath& path) {
    if (!step.when.empty()) {
      if (!context_.value_of) {
        Error(step.location, StepTitle(step) + ": the step has conditions but no values were given");
        return;
      }
      if (!ConditionsHold(step, context_.value_of)) return;
    }
    if (step.action == Step::Action::kSet && SetsDeclaredName(step)) return;
    std::optional<std::string> fragment;
    std::optional<detail::Layout> source_layout;  // of the fragment or value, for every document
    bool source_scanned = false;
    std::size_t selected = 0, matched = 0;
    std::vector<std::pair<const Document*, std::string>> misses;
    for (Document& document : documents_) {
      if (!document.has_content) continue;
      std::string why;
      const MatchAnswer answer = MatchDocument(step.match, document.text, &why, LayoutOf(document));
      if (answer == MatchAnswer::kCannotTell) {
        Error(step.location,
              StepTitle(step) + ": cannot tell whether " + Describe(document) + " matches {" +
                  MatchText(step.match) + "}: " + why,
              "write its kind and metadata in block style with plain or quoted scalars, which the tokenizer reads");
        continue;
      }
      if (answer == MatchAnswer::kDoesNotMatch) continue;
      ++selected;
      if (step.action == Step::Action::kMerge && !fragment) {
        fragment = LoadFragment(step);
        if (!fragment) return;
        if (witness_ == Witness::kAfterAllSteps && !InputParses(*fragment)) inputs_unread_ = true;
      }
      if (step.action == Step::Action::kSet && witness_ == Witness::kAfterAllSteps && !InputParses(step.value)) {
        inputs_unread_ = true;
      }
      const std::string_view source = step.action == Step::Action::kMerge ? std::string_view(*fragment) : step.value;
      if (step.action != Step::Action::kDelete && !std::exchange(source_scanned, true)) {
        detail::LayoutError unused;
        if (!source_layout.emplace().Scan(source, &unused)) source_layout.reset();
      }
      EditOutcome outcome = Edit(step, path, document.text, fragment, detail::EditReading::kTokenizer,
                                 {LayoutOf(document), source_layout ? &*source_layout : nullptr});
      switch (outcome.status) {
        case EditOutcome::Status::kOk:
          if (witness_ == Witness::kAfterEachEdit && !Parses(step, path, document, fragment, outcome.text)) break;
          document.text = std::move(outcome.text);
          document.layout = std::move(outcome.layout);
          if (document.layout) document.layout->Rebind(document.text);
          document.edited = true;
          matched += outcome.matched;
          break;
        case EditOutcome::Status::kNoMatch:
          misses.emplace_back(&document, std::move(outcome.message));
          break;
        case EditOutcome::Status::kError:
          ReportEditError(step, document, outcome, fragment ? *fragment : std::string());
          break;
      }
    }
    if (step.optional) return;
    const std::string hint = "add `optional: true` to the step if the path may be absent";
    if (HasMatch(step.match)) {
      if (selected == 0) {
        Error(step.location,
              StepTitle(step) + ": no document matches {" + MatchText(step.match) + "} (the stream has " +
                  std::to_string(content_documents_) + (content_documents_ == 1 ? " document)" : " documents)"),
              "check kind and metadata.name, or add `optional: true` to the step");
      }
      for (const auto& [document, why] : misses) {
        Error(step.location, StepTitle(step) + ": the path matches nothing in " + Describe(*document) + ": " + why,
              hint);
      }
    } else if (matched == 0 && !misses.empty()) {
      std::string message = StepTitle(step) + ": the path matches nothing in ";
      if (misses.size() == 1) {
        message += Describe(*misses[0].first) + ": " + misses[0].second;
      } else {
        message += "any of the " + std::to_string(misses.size()) + " documents; in " + Describe(*misses[0].first) +
                   ": " + misses[0].second;
      }
      Error(step.location, std::move(message), hint + ", or `match:` to pick the documents");
    }
  }

  static EditOutcome Edit(const Step& step, const YamlPath& path, const std::string& document,
                          const std::optional<std::string>& fragment, detail::EditReading reading,
                          const detail::EditLayouts& layouts = {}) {
    switch (step.action) {
      case Step::Action::kDelete: return detail::DeletePath(document, path, reading, layouts);
      case Step::Action::kSet: return detail::SetPath(document, path, step.value, reading, layouts);
      case Step::Action::kMerge: return detail::MergeAtPath(document, path, *fragment, step.append, reading, layouts);
    }
    return {};
  }

  // yaml-cpp reads every edit: an edited document that does not parse
  // means the step broke a reference (an alias to a deleted anchor) or hit a
  // bug; either way the step fails here, naming it. The layout planned the
  // edit alone, so where yaml-cpp refuses the input itself (the document, the
  // fragment or the value), the edit planned cross-checked says so.
  bool Parses(const Step& step, const YamlPath& path, const Document& document,
              const std::optional<std::string>& fragment, const std::string& edited) {
    const std::optional<std::string> refusal = WitnessRefusal(edited, Witness::kAfterEachEdit);
    if (!refusal) return true;
    EditOutcome checked = Edit(step, path, document.text, fragment, detail::EditReading::kCrossChecked);
    if (checked.status == EditOutcome::Status::kError) {
      ReportEditError(step, document, checked, fragment ? *fragment : std::string());
      return false;
    }
    Error(step.location,
          StepTitle(step) + " in " + Describe(document) + ": the edited document does not parse (" + *refusal + ")",
          "a deleted or replaced node may hold an anchor (&name) that an alias (*name) still uses");
    return false;
  }

  void ReportEditError(const Step& step, const Document& document, const EditOutcome& outcome,
                       const std::string& fragment) {
    std::string message = StepTitle(step) + " in " + Describe(document) + ": " + outcome.message;
    switch (outcome.source) {
      case EditOutcome::Source::kDocument:
        if (outcome.has_offset) {
          // Documents start at a line start: locate within the document only.
          Location at = LocateOffset(document.text, outcome.offset, context_.file_name);
          at.line += document.first_line - 1;
          message += " (at " + context_.file_name + ":" + std::to_string(at.line) + ":" + std::to_string(at.column) + ")";
        }
        break;
      case EditOutcome::Source::kFragment:
        if (outcome.has_offset) {
          Location at = LocateOffset(fragment, outcome.offset, step.fragment_file);
          message = StepTitle(step) + ": in the fragment " + step.fragment_file + ":" + std::to_string(at.line) + ":" +
                    std::to_string(at.column) + ": " + outcome.message;
        }
        break;
      case EditOutcome::Source::kValue:
        message = StepTitle(step) + ": the value is not usable: " + outcome.message;
        break;
    }
    Error(step.location, std::move(message));
  }

  std::string_view rendered_;
  const StepContext& context_;
  const Witness witness_;
  // kAfterAllSteps: a fragment or value yaml-cpp cannot read was brought in.
  // The tokenizer, which plans the edits, accepts a few invalid forms (an
  // empty anchor `&`, a `!!` tag without suffix) that a later step could
  // delete unseen: then every edit is witnessed again, as before.
  bool inputs_unread_ = false;
  std::vector<Document> documents_;
  int content_documents_ = 0;
  Diagnostics diagnostics_;
};

}  // namespace

bool DocumentMatches(const DocumentMatch& match, std::string_view document) {
  std::string unused;
  return MatchDocument(match, document, &unused) == MatchAnswer::kMatches;
}

Diagnostics CheckStepPaths(const std::vector<Step>& steps) {
  Diagnostics diagnostics;
  for (const Step& step : steps) {
    YamlPath path;
    detail::PathError error;
    if (detail::ParseYamlPath(step.path, &path, &error)) continue;
    diagnostics.push_back(MakeError(step.location,
                                    "invalid path `" + step.path + "` (column " + std::to_string(error.column) +
                                        "): " + error.message,
                                    "paths look like .spec.template.spec.containers[0], [*], [name=app] or "
                                    ".metadata.labels.\"app.kubernetes.io/name\""));
  }
  return diagnostics;
}

Result<std::string> ApplySteps(std::string_view rendered, const std::vector<Step>& steps,
                               const StepContext& context) {
  Result<std::string> result;
  result.diagnostics = CheckStepPaths(steps);
  if (HasErrors(result.diagnostics)) return result;
  std::vector<YamlPath> paths(steps.size());
  for (std::size_t i = 0; i < steps.size(); ++i) {
    detail::PathError unused;
    detail::ParseYamlPath(steps[i].path, &paths[i], &unused);
  }
  detail::RememberLoadedText remember;  // a fragment yaml-cpp must read is read once
  StepRunner runner(rendered, context, Witness::kAfterAllSteps);
  runner.Run(steps, paths);
  if (!HasErrors(runner.diagnostics()) && runner.EditedDocumentsParse()) {
    result.diagnostics = std::move(runner.diagnostics());
    result.value = runner.Output();
    return result;
  }
  // Something failed: the steps run again with the witness after every edit,
  // so that the errors are the ones that name the step that broke a document.
  StepRunner replay(rendered, context, Witness::kAfterEachEdit);
  replay.Run(steps, paths);
  result.diagnostics = std::move(replay.diagnostics());
  if (!HasErrors(result.diagnostics)) result.value = replay.Output();
  return result;
}

}  // namespace safesubst
