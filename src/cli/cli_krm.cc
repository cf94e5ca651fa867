// SPDX-License-Identifier: Apache-2.0
// `safesubst krm`: safesubst as a KRM function, the interface kustomize and
// kpt use for transformers (https://github.com/kubernetes-sigs/kustomize/blob/master/cmd/config/docs/api-conventions/functions-spec.md).
// It reads a ResourceList (config.kubernetes.io/v1) on standard input,
// renders every item with the values of `functionConfig.data` and the
// manifest's rules and steps, and writes the ResourceList back with the
// rendered items and a `results` entry for each diagnostic.
//
// The items arrive parsed and laid out again by the orchestrator, so each is
// written out in block style (multi-line strings as literal blocks, so that a
// script stays a script) and rendered as a template of its own; comments do
// not reach the function.
#include <cstdio>
#include <cstdlib>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cli.h"
#include "input_limits.h"
#include "yaml_load.h"
#include "yaml_node_writer.h"

namespace safesubst::cli {

namespace {

using detail::YamlNode;
using detail::YamlRef;
using detail::YamlStream;

constexpr const char* kResourceListVersion = "config.kubernetes.io/v1";

// The scalar at `keys` below `node` (each a mapping key), or "".
std::string ScalarAt(const YamlRef& node, std::initializer_list<std::string_view> keys) {
  std::optional<YamlRef> at = node;
  for (std::string_view key : keys) {
    if (at) at = at->Find(key);
  }
  return at && at->IsScalar() ? at->Scalar() : "";
}

// The item's source file as kustomize and kpt annotate it, or empty.
std::string ItemPath(const YamlRef& item) {
  const std::string path = ScalarAt(item, {"metadata", "annotations", "internal.config.kubernetes.io/path"});
  return path.empty() ? ScalarAt(item, {"metadata", "annotations", "config.kubernetes.io/path"}) : path;
}

// The ResourceList written back: its stream, to which the results and the
// rendered items are added as nodes.
class ListWriter {
 public:
  explicit ListWriter(YamlStream stream) : stream_(std::move(stream)) {}

  YamlRef Root() const { return YamlRef(stream_, stream_.documents[0]); }
  YamlRef At(std::uint32_t index) const { return YamlRef(stream_, index); }

  // A string written as a string: `!` is the tag of a quoted scalar.
  std::uint32_t Text(std::string text) { return Scalar("!", std::move(text)); }
  std::uint32_t Collection(YamlNode::Kind kind) {
    YamlNode node;
    node.kind = kind;
    return Add(std::move(node));
  }

  // Sets `key` of mapping `map` to node `value`: the value of the first equal
  // key is replaced, else the pair is added at the end.
  void Set(std::uint32_t map, std::string_view key, std::uint32_t value) {
    std::vector<std::uint32_t>& children = stream_.nodes[map].children;
    for (std::size_t i = 0; i + 1 < children.size(); i += 2) {
      const YamlRef entry_key = At(children[i]);
      if (entry_key.IsScalar() && entry_key.Scalar() == key) {
        children[i + 1] = value;
        return;
      }
    }
    const std::uint32_t key_node = Scalar("?", std::string(key));  // plain: the keys are the spec's names
    stream_.nodes[map].children.insert(stream_.nodes[map].children.end(), {key_node, value});
  }
  void Append(std::uint32_t sequence, std::uint32_t item) { stream_.nodes[sequence].children.push_back(item); }
  void Replace(std::uint32_t sequence, std::size_t position, std::uint32_t item) {
    stream_.nodes[sequence].children[position] = item;
  }

  // Copies the first document of `other` in; returns its root.
  std::uint32_t Graft(const YamlStream& other) {
    const auto base = static_cast<std::uint32_t>(stream_.nodes.size());
    for (YamlNode node : other.nodes) {
      for (std::uint32_t& child : node.children) child += base;
      node.target += base;
      stream_.nodes.push_back(std::move(node));
    }
    stream_.has_aliases = stream_.has_aliases || other.has_aliases;
    return base + other.documents[0];
  }

 private:
  std::uint32_t Scalar(std::string tag, std::string text) {
    YamlNode node;
    node.kind = YamlNode::Kind::kScalar;
    node.tag = std::move(tag);
    node.text = std::move(text);
    return Add(std::move(node));
  }
  std::uint32_t Add(YamlNode node) {
    stream_.nodes.push_back(std::move(node));
    return static_cast<std::uint32_t>(stream_.nodes.size() - 1);
  }

  YamlStream stream_;
};

// One `results` entry, as the function specification writes them.
std::uint32_t Result(ListWriter& list, const Diagnostic& diagnostic, const std::optional<YamlRef>& item,
                     const std::string& path) {
  const std::uint32_t result = list.Collection(YamlNode::Kind::kMapping);
  list.Set(result, "message",
           list.Text(diagnostic.hint.empty() ? diagnostic.message : diagnostic.message + " (" + diagnostic.hint + ")"));
  list.Set(result, "severity", list.Text(diagnostic.severity == Severity::kError     ? "error"
                                         : diagnostic.severity == Severity::kWarning ? "warning"
                                                                                     : "info"));
  if (item && item->IsMap()) {
    const std::uint32_t reference = list.Collection(YamlNode::Kind::kMapping);
    for (const char* field : {"apiVersion", "kind"}) {
      if (const std::string value = ScalarAt(*item, {field}); !value.empty()) list.Set(reference, field, list.Text(value));
    }
    for (const char* field : {"name", "namespace"}) {
      if (const std::string value = ScalarAt(*item, {"metadata", field}); !value.empty()) {
        list.Set(reference, field, list.Text(value));
      }
    }
    if (!list.At(reference).node().children.empty()) list.Set(result, "resourceRef", reference);
  }
  if (!path.empty()) {
    const std::uint32_t file = list.Collection(YamlNode::Kind::kMapping);
    list.Set(file, "path", list.Text(path));
    list.Set(result, "file", file);
  }
  return result;
}

// Reads the ResourceList; false (with a message on stderr) when it is none.
// yaml-cpp's parser is recursive: the nesting and alias limits are checked first.
bool ReadResourceList(const Limits& limits, YamlStream* list) {
  std::string text;
  Diagnostics problems;
  if (ReadInput("-", limits.max_input_bytes, &text, &problems)) problems = CheckInputLimits(text, limits, "<stdin>");
  if (HasErrors(problems)) {
    Sources sources;
    sources.Remember("<stdin>", text);
    PrintDiagnostics(problems, sources, false);
    return false;
  }
  detail::YamlParseError error;
  if (!detail::ParseYamlStream(text, list, &error)) {
    std::fprintf(stderr, "<stdin>:%u:%u: error: the ResourceList is not YAML: %s\n", error.line + 1, error.column + 1,
                 error.message.c_str());
    return false;
  }
  const std::optional<YamlRef> root =
      list->documents.empty() ? std::nullopt : std::optional<YamlRef>(YamlRef(*list, list->documents[0]));
  if (!root || !root->IsMap() || ScalarAt(*root, {"kind"}) != "ResourceList" ||
      ScalarAt(*root, {"apiVersion"}) != kResourceListVersion) {
    std::fprintf(stderr, "<stdin>: error: expected a ResourceList of apiVersion %s on standard input\n",
                 kResourceListVersion);
    return false;
  }
  if (const std::optional<YamlRef> items = root->Find("items"); items && !items->IsSequence() && !items->IsNull()) {
    std::fprintf(stderr, "<stdin>: error: the ResourceList's items are not a sequence\n");
    return false;
  }
  return true;
}

// The values of `functionConfig.data` (a ConfigMap) as NAME=VALUE; false when
// the functionConfig holds something else.
bool FunctionConfigValues(const std::optional<YamlRef>& config, std::vector<std::string>* sets) {
  if (!config || config->IsNull()) return true;
  const std::optional<YamlRef> data = config->Find("data");
  if (!data || (!data->IsMap() && !data->IsNull())) {
    std::fprintf(stderr, "functionConfig: error: safesubst krm takes its values from `data:` (a ConfigMap)\n");
    return false;
  }
  for (const auto& [key, value] : data->Entries()) {
    if (!value.IsScalar() && !value.IsNull()) {
      std::fprintf(stderr, "functionConfig: error: data.%s is not a string\n", ScalarAt(key, {}).c_str());
      return false;
    }
    sets->push_back(ScalarAt(key, {}) + "=" + ScalarAt(value, {}));
  }
  return true;
}

// Without a manifest, the functionConfig's names are the declared ones, as a
// SHELL-FORMAT argument declares its names.
std::string ShellFormatOf(const std::vector<std::string>& sets) {
  std::string shell_format;
  for (const std::string& set : sets) shell_format += "${" + set.substr(0, set.find('=')) + "} ";
  return shell_format;
}

// Renders item `index` (node `item` of `list`); its diagnostics become
// results. Returns the node the rendered item is, or none.
std::optional<std::uint32_t> RenderItem(ListWriter& list, std::uint32_t item, std::size_t index,
                                        const Manifest& manifest, const ValueSet& values, const InputOptions& inputs,
                                        Sources& sources, std::uint32_t results) {
  const std::string path = ItemPath(list.At(item));
  RenderOptions options =
      RenderOptionsFor(inputs, "items[" + std::to_string(index) + "]" + (path.empty() ? "" : " (" + path + ")"));
  options.report_references = false;
  std::string text;
  try {
    text = detail::EmitSlotText(list.At(item), detail::EmitTarget{detail::SlotKind::kRoot, 0, {}}) + "\n";
  } catch (const detail::NodeNotEmittable& error) {
    const Diagnostic diagnostic = MakeError(Location{options.file_name}, std::string("cannot be written as YAML: ") + error.what());
    list.Append(results, Result(list, diagnostic, list.At(item), path));
    PrintDiagnostics({diagnostic}, sources, false);
    return std::nullopt;
  }
  RenderResult rendered = Render(text, manifest, values, options);
  sources.Remember(options.file_name, text);
  PrintDiagnostics(rendered.diagnostics, sources, UseColor(inputs.color));
  for (const Diagnostic& diagnostic : rendered.diagnostics) {
    list.Append(results, Result(list, diagnostic, list.At(item), path));
  }
  YamlStream output;
  detail::YamlParseError error;
  // The render proved the output's structure; read with the tokenizer's decoding (yaml_load.h).
  if (!rendered.ok() || !detail::ParseYamlStream(rendered.output, &output, &error) ||
      output.documents.empty()) {
    return std::nullopt;
  }
  return list.Graft(output);
}

}  // namespace

int RunKrm(const InputOptions& given) {
  if (!given.templates.empty()) {
    std::fprintf(stderr, "safesubst: error: krm reads a ResourceList on standard input; it takes no files\n");
    return kExitUsage;
  }
  YamlStream stream;
  if (!ReadResourceList(given.limits, &stream)) return kExitInputError;
  ListWriter list(std::move(stream));
  InputOptions inputs = given;
  std::vector<std::string> config_values;
  if (!FunctionConfigValues(list.Root().Find("functionConfig"), &config_values)) return kExitInputError;
  if (inputs.manifest.empty() && std::getenv("SAFESUBST_MANIFEST") == nullptr && !config_values.empty()) {
    inputs.shell_format = ShellFormatOf(config_values);
  }
  // --set on the command line beats the functionConfig, as it beats a values file.
  inputs.sets.insert(inputs.sets.begin(), config_values.begin(), config_values.end());

  Sources sources;
  Diagnostics diagnostics;
  Manifest manifest;
  ValueSet values;
  const Loaded loaded = LoadInputs(inputs, &manifest, &values, &diagnostics, &sources);
  PrintDiagnostics(diagnostics, sources, UseColor(inputs.color));
  const std::uint32_t results = list.Collection(YamlNode::Kind::kSequence);
  for (const Diagnostic& diagnostic : diagnostics) {
    list.Append(results, Result(list, diagnostic, std::nullopt, diagnostic.location.file));
  }
  bool ok = loaded == Loaded::kAll;
  if (const std::optional<YamlRef> items = list.Root().Find("items"); ok && items) {
    const std::uint32_t sequence = items->index();
    std::vector<std::uint32_t> rendered_items;
    for (std::size_t i = 0; i < list.At(sequence).node().children.size(); ++i) {
      const std::uint32_t item = list.At(sequence).node().children[i];
      const std::optional<std::uint32_t> rendered = RenderItem(list, item, i, manifest, values, inputs, sources, results);
      if (rendered) rendered_items.push_back(*rendered);
      ok = ok && rendered;
    }
    // As render writes nothing when a template fails, the items go back as
    // they came when one fails: none is written half rendered, with values
    // (perhaps sensitive) in some items and not in the others.
    for (std::size_t i = 0; ok && i < rendered_items.size(); ++i) list.Replace(sequence, i, rendered_items[i]);
  }
  if (!list.At(results).node().children.empty()) list.Set(list.Root().index(), "results", results);
  std::string written, error;
  try {
    written = detail::EmitSlotText(list.Root(), detail::EmitTarget{detail::SlotKind::kRoot, 0, {}}) + "\n";
  } catch (const detail::NodeNotEmittable& failure) {  // such as an alias to itself in the functionConfig
    std::fprintf(stderr, "<stdin>: error: the ResourceList cannot be written back: %s\n", failure.what());
    return kExitInputError;
  }
  if (!WriteStdout(written, &error)) {
    std::fprintf(stderr, "<stdout>: error: cannot write: %s\n", error.c_str());
    return kExitInputError;
  }
  return ok ? kExitOk : kExitInputError;
}

}  // namespace safesubst::cli
