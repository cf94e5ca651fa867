// SPDX-License-Identifier: Apache-2.0
// Rule nfs-through-sidecar: NFS used from inside a pod whose Istio sidecar
// captures port 2049.
//
// Evidence that the pod itself speaks NFS: a mount command in a container
// script (`mount -t nfs4`, `mount.nfs4`, `mount.efs`), or an EFS hostname
// (`*.efs.<region>.amazonaws.com`) in a script, an env value or hostAliases.
// Volumes of type `nfs:` are deliberately not evidence: kubelet mounts them
// in the node's network namespace, where istio-init's redirect does not apply.
// The pod is fine when port 2049 is excluded from capture, or when every
// known NFS server address is outside the captured IP ranges.
#include <re2/re2.h>

#include <algorithm>
#include <cstdint>
#include <map>

#include "lint_internal.h"

namespace safesubst::lint {

namespace {

struct Evidence {
  std::size_t offset = 0;  // in the file
  std::string container;
  std::string what;
  std::string server;  // the NFS server's IPv4 address or hostname, when known
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

// The server of the first `server:/path` operand of a mount command, or "".
std::string MountServer(const ShCommand& command, std::size_t first_arg) {
  for (std::size_t i = first_arg; i < command.words.size(); ++i) {
    const std::string& arg = command.words[i].text;
    std::size_t colon = arg.find(":/");
    if (!arg.empty() && arg[0] != '-' && colon != std::string::npos && colon > 0) return arg.substr(0, colon);
  }
  return {};
}

void ScriptEvidence(const Script& script, const Container& container, std::vector<Evidence>* evidence) {
  const std::string& text = script.view.text;
  for (const ShCommand& command : script.shell.commands) {
    int name_index = CommandNameIndex(command, text);
    if (name_index < 0) continue;
    const ShWord& name_word = command.words[static_cast<std::size_t>(name_index)];
    std::string_view name = ProgramBaseName(name_word.text);
    std::size_t first_arg = static_cast<std::size_t>(name_index) + 1;
    std::string what;
    if (name == "mount.nfs" || name == "mount.nfs4" || name == "mount.efs") {
      what = "`" + std::string(name) + "`";
    } else if (name == "mount") {
      std::string type = MountType(command, first_arg);
      if (IsNfsType(type)) what = "`mount -t " + type + "`";
    }
    if (!what.empty()) {
      evidence->push_back(
          Evidence{script.Offset(name_word.begin), container.name, what, MountServer(command, first_arg)});
    }
  }
  for (const auto& [offset, hostname] : FindEfsHostnames(text)) {
    if (InComment(script.shell, offset)) continue;
    evidence->push_back(
        Evidence{script.Offset(offset), container.name, "EFS server " + hostname, hostname});
  }
}

void ScalarEvidence(const Source& source, const Node& node, const std::string& container,
                    std::vector<Evidence>* evidence) {
  if (!node.IsScalar()) return;
  ScalarView view = ViewScalar(source, node);
  for (const auto& [offset, hostname] : FindEfsHostnames(view.text)) {
    evidence->push_back(Evidence{view.Offset(offset), container, "EFS server " + hostname, hostname});
  }
}

// "10.0.1.10" -> 0x0a00010a; false when `text` is not a dotted IPv4 address.
bool ParseIpv4(std::string_view text, std::uint32_t* address) {
  std::uint32_t value = 0;
  int parts = 0;
  std::size_t pos = 0;
  while (parts < 4) {
    std::size_t begin = pos;
    std::uint32_t part = 0;
    while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9' && pos - begin < 3) {
      part = part * 10 + static_cast<std::uint32_t>(text[pos] - '0');
      ++pos;
    }
    if (pos == begin || part > 255) return false;
    value = (value << 8) | part;
    ++parts;
    if (parts < 4) {
      if (pos >= text.size() || text[pos] != '.') return false;
      ++pos;
    }
  }
  *address = value;
  return pos == text.size();
}

// True when `address` is inside one of the comma-separated CIDR ranges.
bool InRanges(std::uint32_t address, std::string_view ranges) {
  for (std::string_view range : CommaList(ranges)) {
    if (range == "*") return true;
    std::size_t slash = range.find('/');
    std::uint32_t base = 0;
    if (!ParseIpv4(range.substr(0, slash), &base)) continue;
    int bits = 32;
    if (slash != std::string_view::npos) {
      std::string_view length = range.substr(slash + 1);
      if (length.empty() || length.size() > 2 || length.find_first_not_of("0123456789") != std::string_view::npos) {
        continue;
      }
      bits = std::stoi(std::string(length));
      if (bits > 32) continue;
    }
    std::uint32_t mask = bits == 0 ? 0 : ~std::uint32_t{0} << (32 - bits);
    if ((address & mask) == (base & mask)) return true;
  }
  return false;
}

// True when istio-init's IP rules keep traffic to every server in `evidence`
// away from the proxy: excluded by excludeOutboundIPRanges, or outside an
// explicit includeOutboundIPRanges. A server whose address is not known (a
// hostname without a hostAliases entry) cannot be shown to bypass it.
bool ServersBypassProxy(const Pod& pod, const std::vector<Evidence>& evidence) {
  auto exclude = pod.annotations.find(kIstioExcludeOutboundIpRanges);
  auto include = pod.annotations.find(kIstioIncludeOutboundIpRanges);
  bool has_exclude = exclude != pod.annotations.end();
  bool has_include = include != pod.annotations.end() && Trim(include->second) != "*";
  if (!has_exclude && !has_include) return false;
  // An empty include list turns outbound capture off altogether.
  if (has_include && Trim(include->second).empty()) return true;
  std::map<std::string, std::string, std::less<>> aliases;  // hostname -> ip
  for (const Node& alias : Get(pod.spec, "hostAliases").Items()) {
    std::string ip = ScalarText(Get(alias, "ip"));
    for (const Node& hostname : Get(alias, "hostnames").Items()) aliases.emplace(ScalarText(hostname), ip);
  }
  for (const Evidence& item : evidence) {
    std::string server = item.server;
    auto alias = aliases.find(server);
    if (alias != aliases.end()) server = alias->second;
    std::uint32_t address = 0;
    if (!ParseIpv4(server, &address)) return false;
    bool excluded = has_exclude && InRanges(address, exclude->second);
    bool not_included = has_include && !InRanges(address, include->second);
    if (!excluded && !not_included) return false;
  }
  return true;
}

bool ExcludesNfsPort(const Pod& pod) {
  auto it = pod.annotations.find(kIstioExcludeOutboundPorts);
  if (it == pod.annotations.end()) return false;
  const std::vector<std::string_view> ports = CommaList(it->second);
  return std::find(ports.begin(), ports.end(), "2049") != ports.end();
}

}  // namespace

void CheckNfsThroughSidecar(const Pod& pod, const Source& source, Emitter& emit) {
  if (!pod.sidecar || ExcludesNfsPort(pod)) return;
  std::vector<Evidence> evidence;
  for (const Container& container : pod.containers) {
    if (container.is_istio_proxy) continue;
    for (const Script& script : container.scripts) ScriptEvidence(script, container, &evidence);
    for (const Node& value : container.env_values) ScalarEvidence(source, value, container.name, &evidence);
  }
  for (const Node& alias : Get(pod.spec, "hostAliases").Items()) {
    std::size_t before = evidence.size();
    for (const Node& hostname : Get(alias, "hostnames").Items()) ScalarEvidence(source, hostname, "", &evidence);
    for (std::size_t i = before; i < evidence.size(); ++i) evidence[i].server = ScalarText(Get(alias, "ip"));
  }
  if (evidence.empty() || ServersBypassProxy(pod, evidence)) return;
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
