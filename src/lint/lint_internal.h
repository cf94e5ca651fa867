// SPDX-License-Identifier: Apache-2.0
// Internals of `safesubst lint` shared by src/lint*.cc: source positions,
// scalar views, the pod model the rules look at, and the rule entry points.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "command_line.h"
#include "lint_shell.h"
#include "safesubst/diagnostic.h"
#include "safesubst/lint.h"
#include "shell.h"
#include "tokenizer.h"
#include "yaml_tree.h"

namespace safesubst::lint {

/// A node of the document being linted, aliases followed, or none (what Get
/// returns for an absent key): every question about none answers no.
class Node {
 public:
  Node() = default;
  Node(const detail::YamlRef& ref) : ref_(ref) {}  // NOLINT(google-explicit-constructor)

  bool IsDefined() const { return ref_.has_value(); }
  bool IsNull() const { return ref_ && ref_->IsNull(); }
  bool IsScalar() const { return ref_ && ref_->IsScalar(); }
  bool IsSequence() const { return ref_ && ref_->IsSequence(); }
  bool IsMap() const { return ref_ && ref_->IsMap(); }
  /// The decoded text of a scalar; empty for other nodes.
  const std::string& Scalar() const;
  /// The items of a sequence, the key/value pairs of a mapping; empty for other nodes.
  std::vector<Node> Items() const;
  std::vector<std::pair<Node, Node>> Entries() const;
  /// The same node (an alias and its anchored node are one).
  bool Is(const Node& other) const { return ref_ && other.ref_ && ref_->index() == other.ref_->index(); }
  std::uint32_t index() const { return ref_ ? ref_->index() : 0; }
  /// Where the node's first character (its tag or anchor, if any) is, as yaml-cpp marks it.
  std::size_t mark() const { return ref_ ? ref_->node().offset : 0; }

 private:
  std::optional<detail::YamlRef> ref_;
};

/// The input text, with what it takes to turn node marks into Locations and
/// nodes into the tokenizer's scalars (marked as shell scripts or not).
class Source {
 public:
  Source(std::string_view text, std::string file);

  std::string_view text() const { return text_; }
  /// Byte offset of the node's first character (its tag or anchor, if any).
  std::size_t NodeOffset(const Node& node) const;
  /// Byte offset of a scalar node's own text, after its tag and anchor: its
  /// first character, opening quote or block indicator (Scalar::offset).
  std::size_t ScalarOffset(const Node& node) const;
  /// 1-based line and column of a byte offset.
  Location At(std::size_t offset) const;
  /// The tokens of the whole text.
  const Tokens& tokens() const { return tokens_; }
  /// The tokenizer's scalar whose text starts at `offset` (ScalarOffset), or null.
  const Scalar* ScalarAt(std::size_t offset) const;
  /// The shells that run the scalar `node`, or none when it is no shell
  /// script: the render's own rule (shell_script_scalars.h), so that lint
  /// checks exactly the scripts the render quotes values in.
  std::optional<ScriptShells> ScriptShellsOf(const Node& node) const;

 private:
  std::string_view text_;
  std::string file_;
  Tokens tokens_;
  std::size_t bom_ = 0;  // a mark does not count a UTF-8 byte order mark, as in yaml-cpp
  SourceText lines_;  // for At
};

/// A scalar's value with the source offset of every byte, so that a finding
/// inside a script can name its own line and column.
struct ScalarView {
  std::string text;  ///< the decoded value
  /// offsets[i] is where text[i] comes from. When the mapping could not be
  /// rebuilt exactly (an alias, an unusual style), every entry is the node's offset.
  std::vector<std::size_t> offsets;
  std::size_t node_offset = 0;
  bool block = false;  ///< a literal or folded block scalar
  bool exact = false;

  std::size_t Offset(std::size_t index) const;
};

/// Builds the view of a scalar node. Never fails: falls back to node offsets.
ScalarView ViewScalar(const Source& source, const Node& node);

/// The documents of `text` as Lint reads them: from the tokenizer's node
/// spans where those surely give yaml-cpp's tree, else with yaml-cpp
/// (detail::LoadYamlStream, whose errors it throws).
detail::YamlStream ReadDocuments(std::string_view text);

/// The value of the first scalar key `key` of a mapping, or none.
Node Get(const Node& map, std::string_view key);
/// Same, also giving the key node (for its position). False when absent.
bool GetWithKey(const Node& map, std::string_view key, Node* key_node, Node* value);
/// The scalar text of a node, or "" when it is not a scalar.
std::string ScalarText(const Node& node);
/// Follows a dotted path of mapping keys: Path(doc, {"spec", "template"}).
Node Path(const Node& node, std::initializer_list<std::string_view> keys);

/// Remembers the collections a walk has been through, so that it goes through
/// each once: aliases make the tree a graph, where one node can be reached
/// 10^9 times (a "billion laughs") or from inside itself (`&a [*a]`).
/// `context` tells apart visits whose findings differ (say, under `args:` or
/// under `data:`).
class VisitedCollections {
 public:
  /// True the first time `node` is met in `context`; always true for scalars and nulls.
  bool FirstVisit(const Node& node, int context = 0) {
    return (!node.IsMap() && !node.IsSequence()) || seen_.emplace(node.index(), context).second;
  }

 private:
  std::set<std::pair<std::uint32_t, int>> seen_;
};

/// A shell script found in a manifest (Source::ScriptShellsOf).
struct Script {
  Node node;
  ScalarView view;
  ShScript shell;
  ScriptShells shells = ScriptShells::kSh;  ///< which shells run it

  std::size_t Offset(std::size_t script_offset) const { return view.Offset(script_offset); }
};

/// Parses the node as a script run by `shells`.
Script MakeScript(const Source& source, const Node& node, ScriptShells shells);


struct Container {
  std::string name;
  bool init = false;
  bool native_sidecar = false;  ///< init container with restartPolicy: Always
  bool is_istio_proxy = false;  ///< an already-injected `istio-proxy`
  Node node;
  std::set<std::string, std::less<>> env_names;
  bool has_env_from = false;
  std::vector<Node> env_values;  ///< env[].value scalars
  std::set<std::string, std::less<>> mounted_volumes;
  std::vector<Script> scripts;
};

/// A pod spec with what the rules ask about it.
struct Pod {
  std::string kind;
  std::string object;  ///< "Deployment/mo-back"
  Node spec;
  Node metadata;  ///< the pod template's metadata (the Pod's own for kind Pod)
  std::map<std::string, std::string, std::less<>> annotations;  ///< pod template annotations
  std::map<std::string, std::string, std::less<>> labels;
  std::vector<Container> containers;  ///< initContainers, containers, then ephemeralContainers
  Node volume_claim_templates;  ///< StatefulSet only
  bool sidecar = false;
  std::string sidecar_reason;  ///< why the pod is taken to have an Istio sidecar
  bool hold_application = false;
};

/// What every rule may consult besides the document itself.
struct Context {
  const Source& source;
  const LintOptions& options;
  /// Namespaces labelled for injection by Namespace objects in the same input.
  std::set<std::string, std::less<>> istio_namespaces;
  /// Namespaces labelled `istio-injection: disabled`: the injector never sees their pods.
  std::set<std::string, std::less<>> istio_disabled_namespaces;
};

/// The pod spec of a Pod, Deployment, StatefulSet, DaemonSet, ReplicaSet,
/// ReplicationController, Job, CronJob, PodTemplate or Argo Rollout. False for other kinds.
bool ExtractPod(const Node& document, const Context& context, Pod* pod);

/// "Kind/name" of a document, or "" when it has no kind.
std::string ObjectName(const Node& document);

/// Collects findings for one document; fills explanation and fix from the rule table.
class Emitter {
 public:
  Emitter(const Source& source, std::vector<Finding>* out) : source_(source), out_(out) {}

  Finding& Add(std::string_view rule_id, Severity severity, std::size_t offset, std::string object,
               std::string container, std::string message);

 private:
  const Source& source_;
  std::vector<Finding>* out_;
};

// The rules. Each reads one document (or one pod) and adds findings.
void CheckEtcHostsWrite(const Pod& pod, Emitter& emit);
void CheckFsGroupRecursiveChown(const Pod& pod, const Source& source, Emitter& emit);
void CheckNfsThroughSidecar(const Pod& pod, const Source& source, Emitter& emit);
void CheckBlankRuntimeVariables(const Pod& pod, Emitter& emit);
/// leftover-placeholder, part 1: `__NAME__` anywhere, `${NAME}` in data contexts.
void CheckPlaceholders(const Node& document, const Context& context, const std::string& object, Emitter& emit);
/// leftover-placeholder, part 2: the shapes a blanked variable leaves in a shell script.
void CheckBlankedScript(const Script& script, const std::string& object, const std::string& container,
                        Emitter& emit);
/// Every shell script under `node` (Source::ScriptShellsOf), each once, in document order.
std::vector<Script> ScriptsUnder(const Node& node, const Context& context);
/// The shell scripts of a document outside the containers of its `pod`: a
/// ConfigMap's or Secret's script files, the command lines of objects lint
/// has no pod model of (a bare container fragment, a workflow's template).
std::vector<Script> ScriptsOutsidePod(const Node& document, const Pod& pod, const Context& context);

/// `text` without the spaces and tabs around it.
std::string_view Trim(std::string_view text);
/// The items of a comma-separated list ("a, b,c"), trimmed; empty ones dropped.
std::vector<std::string_view> CommaList(std::string_view list);

/// Text of an Istio pod annotation (or label) naming the sidecar, for messages.
inline constexpr std::string_view kIstioInjectAnnotation = "sidecar.istio.io/inject";
inline constexpr std::string_view kIstioProxyConfigAnnotation = "proxy.istio.io/config";
inline constexpr std::string_view kIstioExcludeOutboundPorts = "traffic.sidecar.istio.io/excludeOutboundPorts";
inline constexpr std::string_view kIstioExcludeOutboundIpRanges = "traffic.sidecar.istio.io/excludeOutboundIPRanges";
inline constexpr std::string_view kIstioIncludeOutboundIpRanges = "traffic.sidecar.istio.io/includeOutboundIPRanges";

}  // namespace safesubst::lint
