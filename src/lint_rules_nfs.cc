// Rule nfs-through-sidecar: NFS used from inside a pod whose Istio sidecar
// captures port 2049.
//
// Evidence that the pod itself speaks NFS: a mount command in a container
// script (`mount -t nfs4`, `mount.nfs4`, `mount.efs`), or an EFS hostname
// (`*.efs.<region>.amazonaws.com`) in a script, an env value or hostAliases.
// Volumes of type `nfs:` are deliberately not evidence: kubelet mounts them
// in the node's network namespace, where istio-init's redirect does not apply.
#include <re2/re2.h>

#include "lint_internal.h"

namespace safesubst::lint {

namespace {

struct Evidence {
  std::size_t offset = 0;  // in the file
  std::string container;
  std::string what;
};

const RE2& EfsHostname() {
  static const RE2 pattern(R"([A-Za-z0-9][A-Za-z0-9.-]*\.efs\.[a-z0-9-]+\.amazonaws\.com(\.cn)?)");
  return pattern;
}

// Each EFS hostname in `text`, as (offset, hostname).
std::vector<std::pair<std::size_t, std::string>> FindEfsHostnames(std::string_view text) {
  std::vector<std::pair<std::size_t, std::string>> found;
  re2::StringPiece input(text.data(), text.size());
  re2::StringPiece match;
  std::size_t start = 0;
  while (start < text.size() &&
         EfsHostname().Match(input, start, text.size(), RE2::UNANCHORED, &match, 1)) {
    std::size_t offset = static_cast<std::size_t>(match.data() - text.data());
    found.emplace_back(offset, std::string(match.data(), match.size()));
    start = offset + match.size();
  }
  return found;
}

bool InComment(const ShScript& shell, std::size_t offset) {
  for (const auto& [begin, end] : shell.comments) {
    if (offset >= begin && offset < end) return true;
  }
  return false;
}

bool IsNfsType(std::string_view type) {
  return type.find("nfs") != std::string_view::npos || type.find("efs") != std::string_view::npos;
}

// The filesystem type given to mount: `-t nfs4`, `-tnfs`, `--types nfs`, `--types=nfs`.
std::string MountType(const ShCommand& command, std::size_t first_arg) {
  for (std::size_t i = first_arg; i < command.words.size(); ++i) {
    const std::string& arg = command.words[i].text;
    if ((arg == "-t" || arg == "--types") && i + 1 < command.words.size()) return command.words[i + 1].text;
    if (arg.size() > 2 && arg.substr(0, 2) == "-t") return arg.substr(2);
    if (arg.substr(0, 8) == "--types=") return arg.substr(8);
  }
  return {};
}

void ScriptEvidence(const Script& script, const Container& container, std::vector<Evidence>* evidence) {
  const std::string& text = script.view.text;
  for (const ShCommand& command : script.shell.commands) {
    int name_index = CommandNameIndex(command, text);
    if (name_index < 0) continue;
    const ShWord& name_word = command.words[static_cast<std::size_t>(name_index)];
    std::string_view name = CommandBaseName(name_word.text);
    std::string what;
    if (name == "mount.nfs" || name == "mount.nfs4" || name == "mount.efs") {
      what = "`" + std::string(name) + "`";
    } else if (name == "mount") {
      std::string type = MountType(command, static_cast<std::size_t>(name_index) + 1);
      if (IsNfsType(type)) what = "`mount -t " + type + "`";
    }
    if (!what.empty()) evidence->push_back(Evidence{script.Offset(name_word.begin), container.name, what});
  }
  for (const auto& [offset, hostname] : FindEfsHostnames(text)) {
    if (InComment(script.shell, offset)) continue;
    evidence->push_back(Evidence{script.Offset(offset), container.name, "the EFS (NFS) server " + hostname});
  }
}

void ScalarEvidence(const Source& source, const YAML::Node& node, const std::string& container,
                    std::vector<Evidence>* evidence) {
  if (!node.IsScalar()) return;
  ScalarView view = ViewScalar(source, node);
  for (const auto& [offset, hostname] : FindEfsHostnames(view.text)) {
    evidence->push_back(Evidence{view.Offset(offset), container, "the EFS (NFS) server " + hostname});
  }
}

bool ExcludesNfsPort(const Pod& pod) {
  auto it = pod.annotations.find(kIstioExcludeOutboundPorts);
  if (it == pod.annotations.end()) return false;
  std::string_view ports = it->second;
  std::size_t pos = 0;
  while (pos <= ports.size()) {
    std::size_t comma = ports.find(',', pos);
    if (comma == std::string_view::npos) comma = ports.size();
    std::string_view port = ports.substr(pos, comma - pos);
    while (!port.empty() && port.front() == ' ') port.remove_prefix(1);
    while (!port.empty() && port.back() == ' ') port.remove_suffix(1);
    if (port == "2049") return true;
    pos = comma + 1;
  }
  return false;
}

}  // namespace

void CheckNfsThroughSidecar(const Pod& pod, const Source& source, Emitter& emit) {
  if (!pod.sidecar || ExcludesNfsPort(pod)) return;
  std::vector<Evidence> evidence;
  for (const Container& container : pod.containers) {
    if (container.is_istio_proxy) continue;
    for (const Script& script : container.scripts) ScriptEvidence(script, container, &evidence);
    for (const YAML::Node& value : container.env_values) ScalarEvidence(source, value, container.name, &evidence);
  }
  YAML::Node host_aliases = Get(pod.spec, "hostAliases");
  if (host_aliases.IsSequence()) {
    for (const YAML::Node& alias : host_aliases) {
      YAML::Node hostnames = Get(alias, "hostnames");
      if (!hostnames.IsSequence()) continue;
      for (const YAML::Node& hostname : hostnames) ScalarEvidence(source, hostname, "", &evidence);
    }
  }
  if (evidence.empty()) return;
  // One finding per pod: the fix is one annotation. It points at the first evidence.
  const Evidence* first = &evidence.front();
  for (const Evidence& candidate : evidence) {
    if (candidate.offset < first->offset) first = &candidate;
  }
  std::string who = first->container.empty() ? "the pod" : "container \"" + first->container + "\"";
  emit.Add("nfs-through-sidecar", Severity::kError, first->offset, pod.object, first->container,
           who + " uses NFS (" + first->what + ") while " + pod.sidecar_reason +
               " and port 2049 is not in " + std::string(kIstioExcludeOutboundPorts) +
               ": istio-proxy carries the NFS traffic and can exit first at termination, leaving the "
               "pod stuck in Terminating");
}

}  // namespace safesubst::lint
