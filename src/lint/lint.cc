// SPDX-License-Identifier: Apache-2.0
// `safesubst lint`: the rule table, the driver that walks a YAML stream and
// hands each object to the rules, and per-object disabling. The rules
// themselves live in src/lint/lint_rules_*.cc, the output forms in src/lint/lint_report.cc.
#include "safesubst/lint.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>

#include "lint_internal.h"
#include "tokenizer.h"
#include "text_checks.h"
#include "yaml_load.h"

namespace safesubst {

namespace {

const std::vector<LintRule> kRules = {
    {"etc-hosts-write", Severity::kError,
     "A container script writes /etc/hosts, which kubelet rewrites whenever it starts a container of the pod.",
     "A pod's /etc/hosts belongs to kubelet: it writes the file anew every time it starts one of the pod's "
     "containers (restarts and the Istio sidecar included), from the pod's IP, hostname and spec.hostAliases. "
     "A line a script appended lives only until the next container start. When a sidecar starts in the same "
     "second the append loses the race at random: in the first write-up 5 of 8 pods lost their EFS line and "
     "ran without the mount. An init container's write is always lost. Error when another container or an "
     "Istio sidecar without holdApplicationUntilProxyStarts starts with the writer; otherwise a warning.",
     "Declare the entry in spec.hostAliases (kubelet includes those in every rewrite). If the address is only "
     "known at runtime, make the writer the last container to start: set holdApplicationUntilProxyStarts: true "
     "in the proxy.istio.io/config annotation, run no other container beside it and never write from an init "
     "container; a later restart of another container still drops the line."},
    {"fsgroup-recursive-chown", Severity::kWarning,
     "securityContext.fsGroup on a pod that mounts a PersistentVolumeClaim, without fsGroupChangePolicy: "
     "OnRootMismatch.",
     "With fsGroup set, kubelet makes every file and directory of each mounted volume group-owned by that GID "
     "every time it mounts the volume (fsGroupChangePolicy defaults to Always). The pod waits in Init or "
     "ContainerCreating for the whole recursive chgrp, which grows with the number of files: 30 minutes per "
     "restart in the second write-up, 30 seconds after the fix.",
     "Add fsGroupChangePolicy: OnRootMismatch next to fsGroup (Kubernetes 1.20+), so that kubelet changes "
     "ownership only when the volume's root does not already match. Only do this when nothing on the volume "
     "changes its group ownership behind kubelet's back."},
    {"nfs-through-sidecar", Severity::kError,
     "A container mounts NFS or EFS from inside a pod whose Istio sidecar captures port 2049.",
     "istio-init redirects the pod's outbound TCP, port 2049 included, to istio-proxy, so an NFS mount made "
     "from inside a container runs through the proxy. When the pod terminates the proxy can exit before the "
     "application has flushed and unmounted, and the NFS client waits forever: the pod hangs in Terminating. "
     "(Volumes of type nfs or CSI are mounted by kubelet in the node's network namespace and are not affected.)",
     "Add the pod template annotation traffic.sidecar.istio.io/excludeOutboundPorts: \"2049\" (append 2049 to "
     "an existing list), so that NFS traffic bypasses the proxy."},
    {"leftover-placeholder", Severity::kError,
     "Text a template step should have replaced: a __NAME__ sentinel, ${NAME} in a data field, or the shape a "
     "blanked variable leaves in a shell script.",
     "A __NAME__ sentinel or a ${NAME} in a data field means a substitution step did not run or did not know "
     "the name. Kubernetes does not expand ${NAME} (only $(NAME), in command, args and env), so the text "
     "reaches the cluster as it is. In scripts, an unrestricted envsubst replaces runtime variables with empty "
     "strings and leaves `echo \"\" | cut`, `case \"\" in`, `[ \"\" -le 31 ]`, `grep -q \"\"`, "
     "`echo \" \" >> /etc/hosts` or an `X=\"\"` that is never read: the script still runs and silently does "
     "the wrong thing.",
     "Render with safesubst, which substitutes only declared variables and keeps runtime ones; declare the "
     "missing variable, or run the missing sed step. For a value the container should expand, write $(NAME) "
     "in command, args or env."},
    {"blank-runtime-var", Severity::kWarning,
     "A shell script uses a variable that nothing sets: not assigned in the script, not in the container's env.",
     "The variable expands to an empty string when the script runs. This is what a wrapper looks like after "
     "the env entry it relies on was lost (a fragment merged into a container without NODE_IP) or after a "
     "render removed the line that assigned it; the script carries on with an empty value, like the zone "
     "wrapper of the first write-up falling back to one zone for every pod.",
     "Add the variable to the container's env (from the Downward API when it describes the pod or node), "
     "assign it in the script, or write ${NAME:?message} so that the script stops instead of running with an "
     "empty value. If the image sets it, disable the rule for this object."},
};

struct Disabled {
  bool all = false;
  std::set<std::string, std::less<>> ids;

  bool Covers(std::string_view id) const { return all || ids.count(id) != 0; }
};

// Reads the disable annotation of one metadata block into `disabled`.
void ReadDisableAnnotation(const lint::Node& metadata, const lint::Source& source, Disabled* disabled,
                           Diagnostics* diagnostics) {
  lint::Node value = lint::Get(lint::Get(metadata, "annotations"), kLintDisableAnnotation);
  if (!value.IsScalar()) return;
  for (std::string_view id : lint::CommaList(value.Scalar())) {
    if (id == "all") {
      disabled->all = true;
    } else if (FindLintRule(id) != nullptr) {
      disabled->ids.emplace(id);
    } else {
      std::string known;
      for (const LintRule& rule : kRules) known += std::string(rule.id) + ", ";
      diagnostics->push_back(MakeWarning(source.At(source.NodeOffset(value)),
                                         "unknown lint rule '" + std::string(id) + "' in " + std::string(kLintDisableAnnotation),
                                         "known rules: " + known + "or all"));
    }
  }
}

// Records Namespace objects whose labels switch Istio injection on or off.
void ReadIstioNamespace(const lint::Node& document, lint::Context* context) {
  if (!document.IsMap() || lint::ScalarText(lint::Get(document, "kind")) != "Namespace") return;
  std::string name = lint::ScalarText(lint::Path(document, {"metadata", "name"}));
  lint::Node labels = lint::Path(document, {"metadata", "labels"});
  std::string injection = lint::ScalarText(lint::Get(labels, "istio-injection"));
  if (injection == "disabled") {
    context->istio_disabled_namespaces.insert(name);
  } else if (injection == "enabled" || !lint::ScalarText(lint::Get(labels, "istio.io/rev")).empty()) {
    context->istio_namespaces.insert(name);
  }
}

// `visited`: a List that holds itself, or aliases of objects, lint each object once.
void LintObject(const lint::Node& document, const lint::Context& context, lint::VisitedCollections* visited,
                std::vector<Finding>* findings, Diagnostics* diagnostics) {
  if (!document.IsDefined() || document.IsNull() || !visited->FirstVisit(document)) return;
  if (document.IsMap() && lint::ScalarText(lint::Get(document, "kind")) == "List") {
    for (const lint::Node& item : lint::Get(document, "items").Items()) {
      LintObject(item, context, visited, findings, diagnostics);
    }
    return;
  }
  std::vector<Finding> found;
  lint::Emitter emit(context.source, &found);
  std::string object = lint::ObjectName(document);
  lint::CheckPlaceholders(document, context, object, emit);

  Disabled disabled;
  ReadDisableAnnotation(lint::Get(document, "metadata"), context.source, &disabled, diagnostics);
  lint::Pod pod;
  if (lint::ExtractPod(document, context, &pod)) {
    if (pod.metadata.IsDefined() && !pod.metadata.Is(lint::Get(document, "metadata"))) {
      ReadDisableAnnotation(pod.metadata, context.source, &disabled, diagnostics);
    }
    lint::CheckEtcHostsWrite(pod, emit);
    lint::CheckFsGroupRecursiveChown(pod, context.source, emit);
    lint::CheckNfsThroughSidecar(pod, context.source, emit);
    lint::CheckBlankRuntimeVariables(pod, emit);
    for (const lint::Container& container : pod.containers) {
      for (const lint::Script& script : container.scripts) {
        lint::CheckBlankedScript(script, pod.object, container.name, emit);
      }
    }
  }
  for (const lint::Script& script : lint::ScriptsOutsidePod(document, pod, context)) {
    lint::CheckBlankedScript(script, object, "", emit);
  }
  for (Finding& finding : found) {
    if (context.options.disabled.count(finding.rule_id) != 0 || disabled.Covers(finding.rule_id)) continue;
    findings->push_back(std::move(finding));
  }
}

}  // namespace

namespace lint {

std::string_view Trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  return text;
}

std::vector<std::string_view> CommaList(std::string_view list) {
  std::vector<std::string_view> items;
  for (std::size_t pos = 0; pos <= list.size();) {
    const std::size_t comma = std::min(list.find(',', pos), list.size());
    if (std::string_view item = Trim(list.substr(pos, comma - pos)); !item.empty()) items.push_back(item);
    pos = comma + 1;
  }
  return items;
}

Finding& Emitter::Add(std::string_view rule_id, Severity severity, std::size_t offset, std::string object,
                      std::string container, std::string message) {
  Finding finding;
  finding.rule_id = std::string(rule_id);
  finding.severity = severity;
  finding.location = source_.At(offset);
  finding.object = std::move(object);
  finding.container = std::move(container);
  finding.message = std::move(message);
  if (const LintRule* rule = FindLintRule(rule_id)) {
    finding.explanation = std::string(rule->explanation);
    finding.fix = std::string(rule->fix);
  }
  out_->push_back(std::move(finding));
  return out_->back();
}

}  // namespace lint

const std::vector<LintRule>& LintRules() { return kRules; }

const LintRule* FindLintRule(std::string_view id) {
  for (const LintRule& rule : kRules) {
    if (rule.id == id) return &rule;
  }
  return nullptr;
}

Result<std::vector<Finding>> Lint(std::string_view text, const LintOptions& options) {
  Result<std::vector<Finding>> result;
  for (const std::string& id : options.disabled) {
    if (FindLintRule(id) == nullptr) {
      result.diagnostics.push_back(MakeWarning(Location{options.file_name, 0, 0, 0},
                                               "unknown lint rule '" + id + "' in the disabled list"));
    }
  }
  // What a render refuses (control characters, invalid UTF-8) no YAML parser reads reliably.
  Diagnostics encoding = CheckTextEncoding(text, options.file_name);
  const bool readable = !HasErrors(encoding);
  result.diagnostics.insert(result.diagnostics.end(), encoding.begin(), encoding.end());
  if (!readable) return result;
  lint::Source source(text, options.file_name);
  // The rules read yaml-cpp's trees; where yaml-cpp misreads valid YAML
  // they would judge another document. Valid YAML is not refused: say so.
  if (const std::vector<std::size_t>& misreads = source.tokens().yaml_cpp_misreads; !misreads.empty()) {
    result.diagnostics.push_back(
        MakeWarning(source.At(misreads.front()),
                    "not linted: yaml-cpp, which the lint rules read through, misreads this valid YAML (a line "
                    "not indented past its anchor or tag)",
                    "indent the scalar's lines past its anchor or tag to have it linted"));
    result.value.emplace();
    return result;
  }
  detail::YamlStream stream;
  try {
    stream = lint::ReadDocuments(text);
  } catch (const YAML::Exception& error) {
    Location location = error.mark.is_null() ? Location{options.file_name, 0, 0, 0}
                                             : source.At(static_cast<std::size_t>(std::max(error.mark.pos, 0)));
    if (HasErrors(source.tokens().diagnostics)) {
      result.diagnostics.push_back(
          MakeError(std::move(location), "cannot lint: the input is not valid YAML: " + error.msg));
      return result;
    }
    // The tokenizer, which follows the YAML test suite, read it: valid YAML yaml-cpp cannot read.
    result.diagnostics.push_back(MakeWarning(
        std::move(location),
        "not linted: yaml-cpp, which the lint rules read through, cannot read this valid YAML (yaml-cpp: " +
            error.msg + ")",
        "write this part in a form yaml-cpp reads too to have it linted"));
    result.value.emplace();
    return result;
  } catch (const std::exception& error) {  // std::bad_alloc from a pathological input
    result.diagnostics.push_back(MakeError(Location{options.file_name, 0, 0, 0},
                                           std::string("cannot lint: the YAML parser failed: ") + error.what()));
    return result;
  }
  std::vector<lint::Node> documents;
  for (std::uint32_t root : stream.documents) documents.emplace_back(detail::YamlRef(stream, root));
  lint::Context context{source, options, {}, {}};
  for (const lint::Node& document : documents) ReadIstioNamespace(document, &context);
  std::vector<Finding> findings;
  lint::VisitedCollections visited;
  for (const lint::Node& document : documents) LintObject(document, context, &visited, &findings, &result.diagnostics);
  std::stable_sort(findings.begin(), findings.end(), [](const Finding& a, const Finding& b) {
    if (a.location.offset != b.location.offset) return a.location.offset < b.location.offset;
    return a.rule_id < b.rule_id;
  });
  result.value = std::move(findings);
  return result;
}

Diagnostic FindingToDiagnostic(const Finding& finding) {
  return Diagnostic{finding.severity, finding.location, finding.message + " [" + finding.rule_id + "]", finding.fix};
}

namespace {

// FormatFinding for a source given as text or as a SourceText.
template <typename Source>
std::string FormatFindingIn(const Finding& finding, const Source& source, bool color, bool verbose) {
  std::string out = FormatDiagnostic(FindingToDiagnostic(finding), source, color);
  if (verbose && !finding.explanation.empty()) out += "  why: " + finding.explanation + "\n";
  return out;
}

}  // namespace

std::string FormatFinding(const Finding& finding, std::string_view source, bool color, bool verbose) {
  return FormatFindingIn(finding, source, color, verbose);
}

std::string FormatFinding(const Finding& finding, const SourceText& source, bool color, bool verbose) {
  return FormatFindingIn(finding, source, color, verbose);
}

std::size_t CountFindings(const std::vector<Finding>& findings, Severity severity) {
  return static_cast<std::size_t>(std::count_if(findings.begin(), findings.end(),
                                                [severity](const Finding& f) { return f.severity == severity; }));
}

}  // namespace safesubst
