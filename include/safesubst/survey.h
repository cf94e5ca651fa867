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
struct SurveyedName {
  std::string name;
  std::vector<Location> data_uses;    ///< references in data contexts
  std::vector<Location> script_uses;  ///< references in script contexts
  VarType type = VarType::kString;    ///< guessed from the current value or the key
  std::string type_reason;            ///< why that type, e.g. "value 10.0.1.10"
  bool set_in_environment = false;    ///< set while surveying: likely deploy-time
};

/// Surveys the templates. Tokenizer errors are returned as diagnostics.
Result<std::vector<SurveyedName>> SurveyTemplates(const std::vector<TemplateSource>& templates,
                                                  const EnvironmentLookup& environment);

/// Writes a starter manifest: names used in data contexts declared (typed
/// where the value makes it obvious), names used only in scripts listed under
/// `runtime:` unless they are set in the environment while surveying (a deploy
/// script's variable), names used both ways declared with a comment that flags them.
std::string StarterManifest(const std::vector<SurveyedName>& names);

/// One line that plain `envsubst` (no SHELL-FORMAT) would change although
/// safesubst keeps it: a runtime reference blanked, a comment rewritten.
struct AuditChange {
  Location location;          ///< of the first changed reference on the line
  std::string context;        ///< "comment", "script" or "data", and the node path
  std::string before;         ///< the template line
  std::string after;          ///< the same line after envsubst
  std::vector<std::string> blanked;  ///< names envsubst replaced by an empty string
};

/// Simulates GNU envsubst on `text` with `environment` and reports every line
/// where it destroys something safesubst keeps.
Result<std::vector<AuditChange>> AuditEnvsubst(const TemplateSource& source, const Manifest& manifest,
                                               const EnvironmentLookup& environment);

/// Formats audit changes as a unified-diff-like text for one file.
std::string FormatAudit(const std::string& file, const std::vector<AuditChange>& changes);

}  // namespace safesubst
