// SPDX-License-Identifier: Apache-2.0
// Migration help: survey existing envsubst templates (`safesubst init`) and
// show what plain envsubst destroys in them (`safesubst audit`). This answers
// the objection that a whitelist needs a hand survey of every template.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "safesubst/diagnostic.h"
#include "safesubst/export.h"
#include "safesubst/manifest.h"

namespace safesubst {

/// A template to survey: its name (for locations) and text.
struct TemplateSource {
  std::string file;
  std::string text;
};

/// Looks up a deploy-time environment variable; nullopt when unset.
using EnvironmentLookup = std::function<std::optional<std::string>(std::string_view name)>;

/// Every name referenced by the templates, with where and how it is used.
/// Dollars of other languages (Helm's `{{ $x }}`, nginx's `$host`,
/// PowerShell's `$null`, `$ref` in a CRD, a `$name` key) are not names.
struct SurveyedName {
  std::string name;
  std::vector<Location> data_uses;    ///< references in data contexts
  std::vector<Location> script_uses;  ///< references in script contexts
  /// From evidence only: the key a reference is the whole value of
  /// (`runAsUser`, `replicas`, `*Seconds`, `enabled`...), a default word
  /// (`${PUID:=1000}`), a given or current value; else string.
  VarType type = VarType::kString;
  std::string type_reason;            ///< why that type, e.g. "its use as `replicas`"
  bool set_in_environment = false;    ///< set while surveying (never a reason to declare it)
  bool given_value = false;           ///< given with --values/--set: deploy-time by the user's word
  bool well_known = false;            ///< set by the shell, a CI runner or Kubernetes (HOME, PATH, HOSTNAME...)
};

/// Surveys the templates. A template that cannot be read (binary, not
/// UTF-8, a tokenizer error) is reported in the diagnostics and skipped; the
/// others are surveyed, so the value is always there. `given` looks up the
/// values of --values/--set (none when empty).
SAFESUBST_API Result<std::vector<SurveyedName>> SurveyTemplates(const std::vector<TemplateSource>& templates,
                                                                const EnvironmentLookup& environment,
                                                                const EnvironmentLookup& given = {});

/// Writes a starter manifest: names used in data contexts or given a value
/// declared (typed from evidence), names used only in scripts listed under
/// `runtime:` (whatever the environment holds now), names the shell, a CI
/// runner or Kubernetes sets (HOME, PATH...) listed under `runtime:` unless
/// given a value, names used both ways declared with a comment that flags
/// them. `unsurveyed` files are named in a comment at the top.
SAFESUBST_API std::string StarterManifest(const std::vector<SurveyedName>& names, const std::vector<std::string>& unsurveyed = {});

/// One line that plain `envsubst` (no SHELL-FORMAT) would change although
/// safesubst keeps it: a runtime reference blanked, a comment rewritten.
struct AuditChange {
  Location location;          ///< of the first changed reference on the line
  std::string context;        ///< "comment", "script" or "data", and the node path
  std::string before;         ///< the template line
  std::string after;          ///< the same line after envsubst
  std::vector<std::string> blanked;  ///< names envsubst replaced by an empty string
  std::vector<std::string> notes;    ///< why, where a blanked name does not say it (Flux)
};

/// Simulates GNU envsubst on `text` with `environment` and reports every line
/// where it destroys something safesubst keeps.
SAFESUBST_API Result<std::vector<AuditChange>> AuditEnvsubst(const TemplateSource& source, const Manifest& manifest,
                                                             const EnvironmentLookup& environment);

/// Simulates Flux's postBuild substitution (kustomize-controller) on `text`,
/// `given` looking up the values of postBuild.substitute, and reports every
/// line where it destroys something of a script (a runtime `${NAME}` blanked,
/// a shell default applied at deploy time, `$$` written as `$`), writes
/// `$$(` as `$(`, or holds a form Flux's engine fails on. A bare `$name`
/// (nginx's `$remote_addr`, a script's `$NODE_IP`) is safe: Flux never
/// substitutes it. Objects annotated or labelled
/// `kustomize.toolkit.fluxcd.io/substitute: disabled` are skipped.
SAFESUBST_API Result<std::vector<AuditChange>> AuditFlux(const TemplateSource& source, const EnvironmentLookup& given);

/// Formats audit changes as a unified-diff-like text for one file; `engine`
/// names what wrote the `+++` side.
SAFESUBST_API std::string FormatAudit(const std::string& file, const std::vector<AuditChange>& changes,
                                      std::string_view engine = "plain envsubst");

}  // namespace safesubst
