// SPDX-License-Identifier: Apache-2.0
// Rule blank-runtime-var: a container script reads a variable that nothing
// can set.
//
// A variable can be set by the script (any assignment form, read, for,
// ${X:=...}), by the container's env, by the shell or Kubernetes itself
// (HOME, HOSTNAME, service links), or by something invisible here: envFrom,
// a sourced file, eval, or the image's own ENV. The first three are checked;
// envFrom, source and eval make the rule skip the script; the image's ENV is
// why the rule is a warning.
#include <algorithm>
#include <array>
#include <set>

#include "lint_internal.h"

namespace safesubst::lint {

namespace {

// A word that is exactly one reference: `"$X"`, `$X`, `"${X}"`.
std::string SoleReference(const ShWord& word) {
  std::string_view text = word.text;
  if (text.size() > 3 && text.substr(0, 2) == "${" && text.back() == '}') text = text.substr(2, text.size() - 3);
  else if (text.size() > 1 && text[0] == '$') text = text.substr(1);
  else return {};
  bool name = !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
  });
  return name ? std::string(text) : std::string();
}

// Names whose emptiness the script tests itself: `[ -z "$X" ]`, `[ -n "$X" ]`,
// `[ "$X" ]`, `[ "$X" = "" ]`. Such a variable is optional by design.
std::set<std::string, std::less<>> TestedForEmptiness(const ShScript& shell, std::string_view text) {
  std::set<std::string, std::less<>> names;
  for (const ShCommand& command : shell.commands) {
    int name_index = CommandNameIndex(command, text);
    if (name_index < 0) continue;
    std::string_view name = command.words[static_cast<std::size_t>(name_index)].text;
    if (name != "[" && name != "[[" && name != "test") continue;
    std::vector<const ShWord*> args;
    for (std::size_t i = static_cast<std::size_t>(name_index) + 1; i < command.words.size(); ++i) {
      args.push_back(&command.words[i]);
    }
    if (!args.empty() && (args.back()->text == "]" || args.back()->text == "]]")) args.pop_back();
    if (args.size() == 1) {
      std::string tested = SoleReference(*args[0]);
      if (!tested.empty()) names.insert(tested);
    }
    for (std::size_t i = 0; i < args.size(); ++i) {
      const std::string& op = args[i]->text;
      if ((op == "-z" || op == "-n") && i + 1 < args.size()) {
        std::string tested = SoleReference(*args[i + 1]);
        if (!tested.empty()) names.insert(tested);
      }
      if ((op == "=" || op == "==" || op == "!=") && i > 0 && i + 1 < args.size()) {
        if (args[i + 1]->blank_quoted) names.insert(SoleReference(*args[i - 1]));
        if (args[i - 1]->blank_quoted) names.insert(SoleReference(*args[i + 1]));
      }
    }
  }
  return names;
}

// Downward API sources for the runtime variables pod wrappers usually need.
std::string_view DownwardFieldPath(std::string_view name) {
  static constexpr std::array<std::pair<std::string_view, std::string_view>, 9> kFields = {{
      {"NODE_IP", "status.hostIP"},
      {"HOST_IP", "status.hostIP"},
      {"POD_IP", "status.podIP"},
      {"POD_NAME", "metadata.name"},
      {"POD_NAMESPACE", "metadata.namespace"},
      {"NAMESPACE", "metadata.namespace"},
      {"NODE_NAME", "spec.nodeName"},
      {"POD_SERVICE_ACCOUNT", "spec.serviceAccountName"},
      {"POD_UID", "metadata.uid"},
  }};
  for (const auto& [variable, path] : kFields) {
    if (variable == name) return path;
  }
  return {};
}

bool ReadsValue(const ShRef& ref) {
  if (ref.guarded) return false;
  switch (ref.op) {
    case RefOp::kPlain:
    case RefOp::kOther:
    case RefOp::kLength:
    case RefOp::kArithmetic:
      return true;
    default:
      return false;  // ${X:-d}, ${X:=d}, ${X:?m}, ${X:+a} handle an unset X; ${!X} is indirect
  }
}

void CheckScript(const Pod& pod, const Container& container, const Script& script, Emitter& emit) {
  const ShScript& shell = script.shell;
  if (shell.dynamic) return;
  std::set<std::string, std::less<>> set_somewhere;
  for (const ShAssignment& assignment : shell.assignments) set_somewhere.insert(assignment.name);
  std::set<std::string, std::less<>> optional = TestedForEmptiness(shell, script.view.text);
  std::set<std::string, std::less<>> reported;
  for (const ShRef& ref : shell.refs) {
    const std::string& name = ref.name;
    if (!ReadsValue(ref) || set_somewhere.count(name) != 0 || container.env_names.count(name) != 0 ||
        IsWellKnownVariable(name) || optional.count(name) != 0 || reported.count(name) != 0) {
      continue;
    }
    reported.insert(name);
    Finding& finding = emit.Add(
        "blank-runtime-var", Severity::kWarning, script.Offset(ref.begin), pod.object, container.name,
        "$" + name + " is used but never set: not assigned in the script and not in the env of container \"" +
            container.name + "\", so it expands to an empty string at runtime");
    std::string_view field = DownwardFieldPath(name);
    if (!field.empty()) {
      finding.fix = "Add it to the container's env from the Downward API: `- name: " + name +
                    "` with `valueFrom: {fieldRef: {fieldPath: " + std::string(field) + "}}`; or write ${" +
                    name + ":?" + name + " is not set} so that the script stops instead of running without it.";
    }
  }
}

}  // namespace

void CheckBlankRuntimeVariables(const Pod& pod, Emitter& emit) {
  for (const Container& container : pod.containers) {
    if (container.is_istio_proxy || container.has_env_from) continue;
    for (const Script& script : container.scripts) CheckScript(pod, container, script, emit);
  }
}

}  // namespace safesubst::lint
