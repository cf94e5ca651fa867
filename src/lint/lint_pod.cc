// SPDX-License-Identifier: Apache-2.0
// The pod model of `safesubst lint`: where a workload keeps its pod spec,
// which containers it runs, which of their scalars are shell scripts (as the
// render reads them), and whether Istio injects a sidecar into it.
#include <algorithm>
#include <array>

#include "lint_internal.h"
#include "shell_script_scalars.h"
#include "yaml_load.h"

namespace safesubst::lint {

namespace {

// The pod template of each workload kind, as a path from the document root.
Node PodTemplate(const Node& document, std::string_view kind) {
  static constexpr std::array<std::string_view, 7> kTemplateKinds = {
      "Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "ReplicationController", "Job", "Rollout"};
  if (std::find(kTemplateKinds.begin(), kTemplateKinds.end(), kind) != kTemplateKinds.end()) {
    return Path(document, {"spec", "template"});
  }
  if (kind == "CronJob") return Path(document, {"spec", "jobTemplate", "spec", "template"});
  if (kind == "PodTemplate") return Get(document, "template");
  return Node();
}

std::map<std::string, std::string, std::less<>> StringMap(const Node& map) {
  std::map<std::string, std::string, std::less<>> result;
  for (const auto& [key, value] : map.Entries()) {
    if (key.IsScalar()) result[key.Scalar()] = ScalarText(value);
  }
  return result;
}

std::string Lookup(const std::map<std::string, std::string, std::less<>>& map, std::string_view key) {
  auto it = map.find(key);
  return it == map.end() ? std::string() : it->second;
}

Container ReadContainer(const Node& node, bool init, const Context& context) {
  Container container;
  container.node = node;
  container.init = init;
  container.name = ScalarText(Get(node, "name"));
  container.is_istio_proxy = container.name == "istio-proxy";
  container.native_sidecar = init && ScalarText(Get(node, "restartPolicy")) == "Always";
  for (const Node& variable : Get(node, "env").Items()) {
    std::string name = ScalarText(Get(variable, "name"));
    if (!name.empty()) container.env_names.insert(name);
    Node value = Get(variable, "value");
    if (value.IsScalar()) container.env_values.push_back(value);
  }
  container.has_env_from = !Get(node, "envFrom").Items().empty();
  for (const Node& mount : Get(node, "volumeMounts").Items()) {
    container.mounted_volumes.insert(ScalarText(Get(mount, "name")));
  }
  // Its command line, lifecycle hooks, exec probes, a `#!` env value...
  container.scripts = ScriptsUnder(node, context);
  return container;
}

bool ProxyConfigHolds(const std::string& config) {
  detail::YamlStream stream;
  detail::YamlParseError error;
  // Not YAML: Istio would reject it too, so nothing is held.
  if (config.empty() || !detail::ParseYamlStream(config, &stream, &error) || stream.documents.empty()) return false;
  std::string hold = ScalarText(Get(detail::YamlRef(stream, stream.documents.front()), "holdApplicationUntilProxyStarts"));
  return hold == "true" || hold == "True" || hold == "TRUE";
}

// Decides whether Istio injects a sidecar, and says why (for messages).
void DetectSidecar(const Node& document, const Context& context, Pod* pod) {
  std::string annotation = Lookup(pod->annotations, kIstioInjectAnnotation);
  std::string label = Lookup(pod->labels, kIstioInjectAnnotation);
  const std::string& inject = !label.empty() ? label : annotation;
  std::string_view inject_source = !label.empty() ? "label" : "annotation";
  for (const Container& container : pod->containers) {
    if (container.is_istio_proxy) {
      pod->sidecar = true;
      pod->sidecar_reason = "it has an istio-proxy container";
      return;
    }
  }
  if (inject == "false") return;  // an explicit opt-out beats the namespace
  std::string namespace_name = ScalarText(Path(document, {"metadata", "namespace"}));
  // The injection webhooks skip a namespace labelled `istio-injection: disabled`,
  // whatever the pod asks for.
  if (!namespace_name.empty() && context.istio_disabled_namespaces.count(namespace_name) != 0) return;
  if (inject == "true") {
    pod->sidecar = true;
    pod->sidecar_reason = "the pod template has the " + std::string(inject_source) + " " +
                          std::string(kIstioInjectAnnotation) + ": \"true\"";
    return;
  }
  if (pod->labels.count("istio.io/rev") != 0) {
    pod->sidecar = true;
    pod->sidecar_reason = "the pod template has the label istio.io/rev";
    return;
  }
  if (!namespace_name.empty() && context.istio_namespaces.count(namespace_name) != 0) {
    pod->sidecar = true;
    pod->sidecar_reason = "its namespace " + namespace_name + " is labelled for Istio injection";
    return;
  }
  if (context.options.assume_istio_namespace) {
    pod->sidecar = true;
    pod->sidecar_reason = "its namespace is assumed to have Istio injection (--assume-istio-namespace)";
  }
}

}  // namespace

std::string ObjectName(const Node& document) {
  std::string kind = ScalarText(Get(document, "kind"));
  if (kind.empty()) return {};
  std::string name = ScalarText(Path(document, {"metadata", "name"}));
  if (name.empty()) name = ScalarText(Path(document, {"metadata", "generateName"}));
  return name.empty() ? kind : kind + "/" + name;
}

bool ExtractPod(const Node& document, const Context& context, Pod* pod) {
  if (!document.IsMap()) return false;
  pod->kind = ScalarText(Get(document, "kind"));
  pod->object = ObjectName(document);
  if (pod->kind == "Pod") {
    pod->spec = Get(document, "spec");
    pod->metadata = Get(document, "metadata");
  } else {
    Node pod_template = PodTemplate(document, pod->kind);
    pod->spec = Get(pod_template, "spec");
    pod->metadata = Get(pod_template, "metadata");
  }
  if (!pod->spec.IsMap()) return false;
  pod->annotations = StringMap(Get(pod->metadata, "annotations"));
  pod->labels = StringMap(Get(pod->metadata, "labels"));
  if (pod->kind == "StatefulSet") pod->volume_claim_templates = Path(document, {"spec", "volumeClaimTemplates"});
  // A container listed again through an alias is read once: its findings
  // would only repeat, and each reading costs its whole env list.
  VisitedCollections read;
  for (std::string_view key : {"initContainers", "containers", "ephemeralContainers"}) {
    for (const Node& node : Get(pod->spec, key).Items()) {
      if (node.IsMap() && read.FirstVisit(node)) {
        pod->containers.push_back(ReadContainer(node, key == "initContainers", context));
      }
    }
  }
  DetectSidecar(document, context, pod);
  pod->hold_application = context.options.assume_hold_application ||
                          ProxyConfigHolds(Lookup(pod->annotations, kIstioProxyConfigAnnotation));
  return true;
}

namespace {

// Adds the scripts under `node` that `scripts` does not hold yet (a scalar
// reached again through an alias is the same script).
void AddScriptsUnder(const Node& node, const Context& context, VisitedCollections* visited,
                     std::vector<Script>* scripts) {
  if (!visited->FirstVisit(node)) return;
  if (node.IsMap()) {
    for (const auto& [key, value] : node.Entries()) AddScriptsUnder(value, context, visited, scripts);
  } else if (node.IsSequence()) {
    for (const Node& item : node.Items()) AddScriptsUnder(item, context, visited, scripts);
  } else if (std::optional<ScriptShells> shells = context.source.ScriptShellsOf(node)) {
    const bool known = std::any_of(scripts->begin(), scripts->end(),
                                   [&](const Script& script) { return script.node.Is(node); });
    if (!known) scripts->push_back(MakeScript(context.source, node, *shells));
  }
}

}  // namespace

std::vector<Script> ScriptsUnder(const Node& node, const Context& context) {
  std::vector<Script> scripts;
  VisitedCollections visited;
  AddScriptsUnder(node, context, &visited, &scripts);
  return scripts;
}

std::vector<Script> ScriptsOutsidePod(const Node& document, const Pod& pod, const Context& context) {
  std::vector<Script> scripts;
  VisitedCollections visited;
  for (const Container& container : pod.containers) visited.FirstVisit(container.node);  // walked: theirs
  AddScriptsUnder(document, context, &visited, &scripts);
  return scripts;
}

}  // namespace safesubst::lint
