// SPDX-License-Identifier: Apache-2.0
// `safesubst lint`: checks rendered (or hand-written) Kubernetes manifests for
// defaults and leftovers that fail silently at runtime.
//
// The rules come from the two source write-ups (SPEC.md, seeds/): a script that
// appends to /etc/hosts in a pod whose other containers make kubelet rewrite it,
// an fsGroup that makes kubelet chgrp a whole PersistentVolume on every start,
// NFS traffic captured by the Istio sidecar, and the fingerprints a template
// renderer leaves behind (unreplaced placeholders, blanked shell variables).
//
// The library never prints and never throws: Lint returns findings as values,
// and the CLI decides how to show them (FormatFinding, FindingsToJson,
// FindingsToSarif, FindingsToGithubCommands).
#pragma once

#include <functional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "safesubst/diagnostic.h"
#include "safesubst/export.h"

namespace safesubst {

/// The annotation that disables rules for one object: a comma-separated list of
/// rule ids, or `all`. Read from the object's `metadata.annotations` and from
/// its pod template's `metadata.annotations`.
inline constexpr std::string_view kLintDisableAnnotation = "safesubst.io/lint-disable";

/// A lint rule, as listed by `safesubst lint --help` and docs/lint-rules.md.
struct LintRule {
  std::string_view id;           ///< e.g. "etc-hosts-write"
  Severity severity;             ///< the most serious severity the rule reports
  std::string_view summary;      ///< one line: what the rule finds
  std::string_view explanation;  ///< why it fails, and why silently
  std::string_view fix;          ///< what to change
};

/// Every rule, in the order of docs/lint-rules.md.
SAFESUBST_API const std::vector<LintRule>& LintRules();

/// The rule with this id, or nullptr (the CLI uses this to reject `--disable typo`).
SAFESUBST_API const LintRule* FindLintRule(std::string_view id);

/// One problem found in one input.
struct Finding {
  std::string rule_id;
  Severity severity = Severity::kWarning;
  Location location;        ///< file, 1-based line/column of the offending text, byte offset
  std::string object;       ///< "Deployment/mo-back" (kind/name); empty outside a Kubernetes object
  std::string container;    ///< container name when the finding is about one; else empty
  std::string message;      ///< one line, specific to this occurrence
  std::string explanation;  ///< why it is a problem (the rule's text, sometimes specialised)
  std::string fix;          ///< what to do about it
};

struct LintOptions {
  /// Used in every Location; "<stdin>" when reading standard input.
  std::string file_name = "<stdin>";
  /// Rule ids that are not run (`--disable ID`). An unknown id produces a
  /// warning diagnostic; the CLI should check FindLintRule first and treat it
  /// as a usage error.
  std::set<std::string, std::less<>> disabled;
  /// Treat every pod as running in a namespace with Istio sidecar injection
  /// (`istio-injection=enabled` or `istio.io/rev`), as if the Namespace object
  /// were in the input. A pod that opts out with `sidecar.istio.io/inject: "false"`
  /// still has no sidecar.
  bool assume_istio_namespace = false;
  /// The mesh config already sets `holdApplicationUntilProxyStarts: true`
  /// (meshConfig.defaultConfig), so pods need not set it in `proxy.istio.io/config`.
  bool assume_hold_application = false;
};

/// Lints every document of a YAML stream. Findings are sorted by position.
/// A stream that does not parse gives an error diagnostic and no value;
/// non-fatal problems (an unknown rule id in a disable annotation) are
/// warning diagnostics next to the value.
SAFESUBST_API Result<std::vector<Finding>> Lint(std::string_view text, const LintOptions& options);

/// The finding as a Diagnostic, for FormatDiagnostic: message
/// "<message> [<rule-id>]", hint = fix.
SAFESUBST_API Diagnostic FindingToDiagnostic(const Finding& finding);

/// Formats one finding like a compiler diagnostic (file:line:col, the source
/// line with a caret, the fix); with `verbose`, also the explanation.
SAFESUBST_API std::string FormatFinding(const Finding& finding, std::string_view source, bool color, bool verbose);
/// The same, for many findings about one text.
SAFESUBST_API std::string FormatFinding(const Finding& finding, const SourceText& source, bool color, bool verbose);

/// The findings as one JSON object:
///   {"findings":[{"rule":..,"severity":"error"|"warning"|"note","file":..,"line":N,
///                 "column":N,"object":..,"container":..,"message":..,"explanation":..,
///                 "fix":..}, ...],
///    "errors":N,"warnings":N}
/// Strings are UTF-8 with JSON escapes (invalid UTF-8, such as a Latin-1 file
/// name, becomes U+FFFD); the output ends with a newline.
SAFESUBST_API std::string FindingsToJson(const std::vector<Finding>& findings);

/// The findings as a SARIF 2.1.0 log, as GitHub code scanning reads it: one
/// run whose tool.driver.rules describe every rule (and "input", for a file
/// that could not be read or parsed), one result per finding with ruleId,
/// level (error, warning, note) and a physicalLocation (the file as a
/// relative URI, the region's startLine and startColumn). Columns count
/// bytes, which are code points in ASCII lines. Ends with a newline.
SAFESUBST_API std::string FindingsToSarif(const std::vector<Finding>& findings);

/// The findings as GitHub Actions workflow commands, one line each, which
/// annotate the pull request: `::error file=F,line=L,col=C,title=RULE::MESSAGE`
/// (warning, notice for the other severities), escaped as the runner unescapes.
SAFESUBST_API std::string FindingsToGithubCommands(const std::vector<Finding>& findings);

/// Number of findings with this severity (for the exit status: errors fail).
SAFESUBST_API std::size_t CountFindings(const std::vector<Finding>& findings, Severity severity);

}  // namespace safesubst
