// SPDX-License-Identifier: Apache-2.0
// Rule etc-hosts-write: a container's script writes /etc/hosts.
//
// kubelet writes the pod's hosts file anew whenever it starts one of the
// pod's containers (pkg/kubelet: ensureHostsFile, called for every container
// start), so an appended line lives until the next start. How soon that comes
// decides the severity.
#include "lint_internal.h"

namespace safesubst::lint {

namespace {

constexpr std::string_view kHosts = "/etc/hosts";

struct HostsWrite {
  std::size_t offset = 0;  // in the script
  std::string how;         // "`>> /etc/hosts`", "`tee -a /etc/hosts`"
};

bool NamesHosts(const ShWord& word) { return word.text == kHosts; }

bool IsInPlaceOption(std::string_view arg) {
  if (arg.substr(0, 10) == "--in-place") return true;
  return arg.size() > 1 && arg[0] == '-' && arg[1] != '-' && arg.find('i') != std::string_view::npos;
}

std::vector<HostsWrite> FindHostsWrites(const ShScript& shell, std::string_view text) {
  std::vector<HostsWrite> writes;
  for (const ShCommand& command : shell.commands) {
    for (const ShRedirect& redirect : command.redirects) {
      bool writes_file = redirect.op == ">" || redirect.op == ">>" || redirect.op == ">|" || redirect.op == "&>" ||
                         redirect.op == "&>>" || redirect.op == "<>";
      if (writes_file && NamesHosts(redirect.target)) {
        writes.push_back(HostsWrite{redirect.begin, "`" + redirect.op + " /etc/hosts`"});
      }
    }
    int name_index = CommandNameIndex(command, text);
    if (name_index < 0) continue;
    const ShWord& name_word = command.words[static_cast<std::size_t>(name_index)];
    std::string_view name = ProgramBaseName(name_word.text);
    std::vector<const ShWord*> args;
    for (std::size_t i = static_cast<std::size_t>(name_index) + 1; i < command.words.size(); ++i) {
      args.push_back(&command.words[i]);
    }
    auto any_arg_is_hosts = [&] {
      for (const ShWord* arg : args) {
        if (NamesHosts(*arg)) return true;
      }
      return false;
    };
    if (name == "tee" && any_arg_is_hosts()) {
      writes.push_back(HostsWrite{name_word.begin, "`tee /etc/hosts`"});
    } else if (name == "sed" || name == "perl") {
      bool in_place = false;
      for (const ShWord* arg : args) in_place = in_place || IsInPlaceOption(arg->text);
      if (in_place && any_arg_is_hosts()) {
        writes.push_back(HostsWrite{name_word.begin, "`" + std::string(name) + " -i ... /etc/hosts`"});
      }
    } else if ((name == "cp" || name == "mv" || name == "install" || name == "ln" || name == "rsync") &&
               !args.empty() && NamesHosts(*args.back())) {
      writes.push_back(HostsWrite{name_word.begin, "`" + std::string(name) + " ... /etc/hosts`"});
    } else if (name == "dd") {
      for (const ShWord* arg : args) {
        if (arg->text == "of=/etc/hosts") writes.push_back(HostsWrite{name_word.begin, "`dd of=/etc/hosts`"});
      }
    }
  }
  return writes;
}

std::string Quoted(const std::string& name) { return "\"" + name + "\""; }

// Why the write is an error, or "" when only a later restart can undo it.
std::string RaceReason(const Pod& pod, const Container& writer) {
  if (writer.init && !writer.native_sidecar) {
    return "it runs in an init container, and kubelet rewrites /etc/hosts when it starts the pod's next "
           "container, so the line is always lost";
  }
  for (const Container& other : pod.containers) {
    if (&other == &writer || other.init || other.is_istio_proxy) continue;
    return "the pod also runs container " + Quoted(other.name) +
           "; kubelet rewrites /etc/hosts when it starts it, so the line can vanish";
  }
  if (pod.sidecar && !pod.hold_application) {
    return "the pod gets an Istio sidecar (" + pod.sidecar_reason +
           ") and proxy.istio.io/config does not set holdApplicationUntilProxyStarts: true, so istio-proxy "
           "starts alongside and kubelet's rewrite can erase the line";
  }
  return {};
}

}  // namespace

void CheckEtcHostsWrite(const Pod& pod, Emitter& emit) {
  for (const Container& container : pod.containers) {
    if (container.is_istio_proxy) continue;
    for (const Script& script : container.scripts) {
      for (const HostsWrite& write : FindHostsWrites(script.shell, script.view.text)) {
        std::string reason = RaceReason(pod, container);
        std::string message = "container " + Quoted(container.name) + " writes /etc/hosts (" + write.how + ")";
        Severity severity = Severity::kError;
        if (reason.empty()) {
          severity = Severity::kWarning;
          message += ": kubelet rewrites the file whenever a container of the pod (re)starts, which drops the "
                     "line; use hostAliases";
        } else {
          message += ": " + reason;
        }
        emit.Add("etc-hosts-write", severity, script.Offset(write.offset), pod.object, container.name,
                 std::move(message));
      }
    }
  }
}

}  // namespace safesubst::lint
