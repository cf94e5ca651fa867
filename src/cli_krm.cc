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
#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "cli.h"
#include "input_limits.h"
#include "yaml_emit.h"

namespace safesubst::cli {

namespace {

constexpr const char* kResourceListVersion = "config.kubernetes.io/v1";

std::string ScalarOr(const YAML::Node& node, const std::string& fallback = "") {
  return node && node.IsScalar() ? node.Scalar() : fallback;
}

// The item's source file as kustomize and kpt annotate it, or empty.
std::string ItemPath(const YAML::Node& item) {
  const YAML::Node annotations = item["metadata"]["annotations"];
  if (!annotations || !annotations.IsMap()) return "";
  std::string path = ScalarOr(annotations["internal.config.kubernetes.io/path"]);
  return path.empty() ? ScalarOr(annotations["config.kubernetes.io/path"]) : path;
}

// A string node written as a string: a node built in memory has no tag,
// which the emitter would write as `!<>`; `!` is the tag of a quoted scalar.
YAML::Node Text(const std::string& text) {
  YAML::Node node(text);
  node.SetTag("!");
  return node;
}

// One `results` entry, as the function specification writes them.
YAML::Node Result(const Diagnostic& diagnostic, const YAML::Node& item, const std::string& path) {
  YAML::Node result;
  result["message"] =
      Text(diagnostic.hint.empty() ? diagnostic.message : diagnostic.message + " (" + diagnostic.hint + ")");
  result["severity"] = Text(diagnostic.severity == Severity::kError     ? "error"
                            : diagnostic.severity == Severity::kWarning ? "warning"
                                                                        : "info");
  if (item && item.IsMap()) {
    YAML::Node reference;
    for (const char* field : {"apiVersion", "kind"}) {
      if (!ScalarOr(item[field]).empty()) reference[field] = Text(ScalarOr(item[field]));
    }
    for (const char* field : {"name", "namespace"}) {
      if (!ScalarOr(item["metadata"][field]).empty()) reference[field] = Text(ScalarOr(item["metadata"][field]));
    }
    if (reference.size() > 0) result["resourceRef"] = reference;
  }
  if (!path.empty()) result["file"]["path"] = Text(path);
  return result;
}

// Reads the ResourceList; false (with a message on stderr) when it is none.
// yaml-cpp's parser is recursive: the nesting and alias limits are checked first.
bool ReadResourceList(const Limits& limits, YAML::Node* list) {
  std::string text;
  Diagnostics problems;
  if (ReadInput("-", limits.max_input_bytes, &text, &problems)) problems = CheckInputLimits(text, limits, "<stdin>");
  if (HasErrors(problems)) {
    Sources sources;
    sources.Remember("<stdin>", text);
    PrintDiagnostics(problems, sources, false);
    return false;
  }
  try {
    *list = YAML::Load(text);
  } catch (const YAML::Exception& error) {
    std::fprintf(stderr, "<stdin>:%d:%d: error: the ResourceList is not YAML: %s\n", error.mark.line + 1,
                 error.mark.column + 1, error.msg.c_str());
    return false;
  }
  if (!list->IsMap() || ScalarOr((*list)["kind"]) != "ResourceList" ||
      ScalarOr((*list)["apiVersion"]) != kResourceListVersion) {
    std::fprintf(stderr, "<stdin>: error: expected a ResourceList of apiVersion %s on standard input\n",
                 kResourceListVersion);
    return false;
  }
  if ((*list)["items"] && !(*list)["items"].IsSequence() && !(*list)["items"].IsNull()) {
    std::fprintf(stderr, "<stdin>: error: the ResourceList's items are not a sequence\n");
    return false;
  }
  return true;
}

// The values of `functionConfig.data` (a ConfigMap) as NAME=VALUE; false when
// the functionConfig holds something else.
bool FunctionConfigValues(const YAML::Node& config, std::vector<std::string>* sets) {
  if (!config || config.IsNull()) return true;
  const YAML::Node data = config.IsMap() ? config["data"] : YAML::Node();
  if (!data || (!data.IsMap() && !data.IsNull())) {
    std::fprintf(stderr, "functionConfig: error: safesubst krm takes its values from `data:` (a ConfigMap)\n");
    return false;
  }
  for (const auto& entry : data) {
    if (!entry.second.IsScalar() && !entry.second.IsNull()) {
      std::fprintf(stderr, "functionConfig: error: data.%s is not a string\n", ScalarOr(entry.first).c_str());
      return false;
    }
    sets->push_back(ScalarOr(entry.first) + "=" + ScalarOr(entry.second));
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

// Renders one item in place; its diagnostics become results.
bool RenderItem(YAML::Node& item, std::size_t index, const Manifest& manifest, const ValueSet& values,
                const InputOptions& inputs, Sources& sources, YAML::Node& results) {
  const std::string path = ItemPath(item);
  RenderOptions options;
  options.file_name = "items[" + std::to_string(index) + "]" + (path.empty() ? "" : " (" + path + ")");
  options.strict = inputs.strict;
  options.allow_undeclared = inputs.allow_undeclared;
  options.allow_outside = inputs.allow_outside;
  options.limits = inputs.limits;
  options.report_references = false;
  std::string text;
  try {
    text = detail::EmitSlotText(item, detail::EmitTarget{detail::SlotKind::kRoot}) + "\n";
  } catch (const detail::NodeNotEmittable& error) {
    const Diagnostic diagnostic = MakeError(Location{options.file_name}, std::string("cannot be written as YAML: ") + error.what());
    results.push_back(Result(diagnostic, item, path));
    PrintDiagnostics({diagnostic}, sources, false);
    return false;
  }
  RenderResult rendered = Render(text, manifest, values, options);
  sources.Remember(options.file_name, text);
  PrintDiagnostics(rendered.diagnostics, sources, UseColor(inputs.color));
  for (const Diagnostic& diagnostic : rendered.diagnostics) results.push_back(Result(diagnostic, item, path));
  if (!rendered.ok()) return false;
  item = YAML::Load(rendered.output);
  return true;
}

}  // namespace

int RunKrm(const InputOptions& given) {
  if (!given.templates.empty()) {
    std::fprintf(stderr, "safesubst: error: krm reads a ResourceList on standard input; it takes no files\n");
    return kExitUsage;
  }
  YAML::Node list;
  if (!ReadResourceList(given.limits, &list)) return kExitInputError;
  InputOptions inputs = given;
  std::vector<std::string> config_values;
  if (!FunctionConfigValues(list["functionConfig"], &config_values)) return kExitInputError;
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
  YAML::Node results(YAML::NodeType::Sequence);
  for (const Diagnostic& diagnostic : diagnostics) results.push_back(Result(diagnostic, YAML::Node(), diagnostic.location.file));
  bool ok = loaded == Loaded::kAll;
  if (ok && list["items"]) {
    YAML::Node items = list["items"];
    for (std::size_t i = 0; i < items.size(); ++i) {
      YAML::Node item = items[i];
      ok = RenderItem(item, i, manifest, values, inputs, sources, results) && ok;
      items[i] = item;
    }
  }
  if (results.size() > 0) list["results"] = results;
  std::string written, error;
  try {
    written = detail::EmitSlotText(list, detail::EmitTarget{detail::SlotKind::kRoot}) + "\n";
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
