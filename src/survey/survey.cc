// SPDX-License-Identifier: Apache-2.0
#include "safesubst/survey.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <map>

#include "classify.h"
#include "flux.h"
#include "foreign_dollars.h"
#include "lint_shell.h"
#include "tokenizer.h"
#include "safesubst/values.h"
#include "substitution.h"
#include "text_checks.h"
#include "validate.h"

namespace safesubst {

namespace {

bool AllDigits(std::string_view text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

bool IsDottedQuad(std::string_view text) {
  int parts = 0;
  for (std::size_t start = 0; start <= text.size(); ++parts) {
    std::size_t dot = text.find('.', start);
    std::string_view part = text.substr(start, dot == std::string_view::npos ? text.npos : dot - start);
    if (!AllDigits(part) || part.size() > 3 || std::stoi(std::string(part)) > 255) return false;
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  return parts == 3;
}

// Keys whose value the Kubernetes API reads as an integer or a boolean. A
// reference that is the whole value of one gets that type, so that
// `runAsUser: ${PUID}` stays a number.
bool IsIntegerKey(std::string_view key) {
  static constexpr std::array<std::string_view, 22> kKeys = {
      "replicas", "minReplicas", "maxReplicas", "runAsUser", "runAsGroup", "fsGroup", "port", "containerPort",
      "targetPort", "hostPort", "nodePort", "revisionHistoryLimit", "backoffLimit", "completions", "parallelism",
      "successfulJobsHistoryLimit", "failedJobsHistoryLimit", "weight", "priority", "averageUtilization",
      "number", "terminationGracePeriodSeconds"};
  // Counts, ports and sizes in whole units, in the core API and the
  // infrastructure providers' (`numCPUs`, `memoryMiB`, `diskGiB`,
  // `vcpusPerSocket`, `customSizeInGB`).
  static constexpr std::array<std::string_view, 11> kSuffixes = {
      "Seconds", "Replicas", "Count", "Port", "GiB", "MiB", "GB", "PerSocket", "Sockets", "CPUs", "Cpus"};
  const bool suffix = std::any_of(kSuffixes.begin(), kSuffixes.end(), [&](std::string_view end) {
    return key.size() > end.size() && key.substr(key.size() - end.size()) == end;
  });
  return suffix || key == "instances" || key == "vcpus" ||
         std::find(kKeys.begin(), kKeys.end(), key) != kKeys.end();
}

bool IsBooleanKey(std::string_view key) {
  static constexpr std::array<std::string_view, 16> kKeys = {
      "enabled", "readOnly", "readOnlyRootFilesystem", "runAsNonRoot", "privileged", "allowPrivilegeEscalation",
      "hostNetwork", "hostPID", "hostIPC", "automountServiceAccountToken", "suspend", "stdin", "tty", "optional",
      "paused", "insecureSkipTLSVerify"};
  const bool enabled = key.size() > 7 && key.substr(key.size() - 7) == "Enabled";
  return enabled || std::find(kKeys.begin(), kKeys.end(), key) != kKeys.end();
}

// The type a text leaves no doubt about (an address, a number, a boolean), or
// string. Numbers and booleans only count where the reference is the whole
// scalar: inside `image: app:${TAG}` a tag of digits says nothing.
VarType TypeOfText(std::string_view text, bool whole_scalar) {
  const std::size_t slash = text.find('/');
  if (IsDottedQuad(text)) return VarType::kIpv4;
  if (slash != std::string_view::npos && IsDottedQuad(text.substr(0, slash)) && AllDigits(text.substr(slash + 1))) {
    return VarType::kCidr;
  }
  if (!whole_scalar) return VarType::kString;
  if (AllDigits(text)) return VarType::kInt;
  if (text == "true" || text == "false") return VarType::kBool;
  return VarType::kString;
}

// What one use of a name says about its type, and why; kString when nothing.
// The evidence in order: the key the reference is the whole value of, the
// default word written in the template (`${PUID:=1000}`), the value given
// with --values/--set, the value in the environment now.
VarType TypeEvidence(const Tokens& tokens, const Reference& reference,
                     const std::optional<std::string>& value, std::string* reason) {
  bool whole_scalar = false;
  std::string_view key;
  if (reference.scalar != Reference::kNoScalar) {
    const Scalar& scalar = tokens.scalars[reference.scalar];
    whole_scalar = scalar.style == ScalarStyle::kPlain && !scalar.is_key && scalar.offset == reference.offset &&
                   scalar.length == reference.length;
    if (scalar.path != PathSegment::kRoot) key = tokens.paths[scalar.path].key;
  }
  if (whole_scalar && (IsIntegerKey(key) || IsBooleanKey(key))) {
    *reason = "its use as `" + std::string(key) + "`";
    return IsIntegerKey(key) ? VarType::kInt : VarType::kBool;
  }
  const bool defaults = TraitsOf(reference.kind).use == RefUse::kDefault &&
                        (reference.op == ":=" || reference.op == ":-" || reference.op == "=" || reference.op == "-");
  if (defaults) {
    if (VarType type = TypeOfText(reference.operand, whole_scalar); type != VarType::kString) {
      *reason = "the default " + std::string(reference.operand);
      return type;
    }
  }
  if (value) {
    if (VarType type = TypeOfText(*value, whole_scalar); type != VarType::kString) {
      *reason = "the current value " + *value;
      return type;
    }
  }
  return VarType::kString;
}

// A reference to a variable by name: `$X`, `${X}`, a default form, or (the
// Flux and clusterctl dialect) a string operation such as `${X%.*}`.
bool IsVariableForm(const Reference& reference) { return TraitsOf(reference.kind).NamesVariable(); }

// Whether a use says the name belongs to the script at runtime. Only a
// shell expands `${NAME}`: in other text of a script context (an embedded
// YAML, JSON or nginx file, an `args` item of a program that is no shell)
// the envsubst writer meant the deploy-time value, as clusterctl templates
// do in the manifests they embed. A bare `$name` there cannot be told apart
// from the format's own syntax, and stays runtime.
bool IsRuntimeUse(const Tokens& tokens, const Reference& reference) {
  if (reference.context != ContextClass::kScript) return false;
  if (TraitsOf(reference.kind).bare || reference.scalar == Reference::kNoScalar) return true;
  return tokens.scalars[reference.scalar].is_shell;
}

std::string FormatLocation(const Location& location) {
  return location.file + ":" + std::to_string(location.line) + ":" + std::to_string(location.column);
}

// A short list of places: the first one and how many more.
std::string Places(const std::vector<Location>& uses) {
  if (uses.empty()) return "";
  std::string text = FormatLocation(uses.front());
  if (uses.size() > 1) text += " (+" + std::to_string(uses.size() - 1) + " more)";
  return text;
}

// The line of `text` holding `offset`, without its line break.
std::string_view LineAt(std::string_view text, std::size_t offset, std::size_t* line_start) {
  std::size_t start = text.rfind('\n', offset == 0 ? 0 : offset - 1);
  start = (start == std::string_view::npos || offset == 0) ? 0 : start + 1;
  std::size_t end = text.find('\n', offset);
  if (end == std::string_view::npos) end = text.size();
  if (end > start && text[end - 1] == '\r') --end;
  *line_start = start;
  return text.substr(start, end - start);
}

// Tokenizes a template after the encoding checks a render makes: a binary or
// non-UTF-8 file is reported, not surveyed (its tokens are then empty).
Tokens ReadTemplate(const TemplateSource& source, Diagnostics* diagnostics) {
  Diagnostics encoding = CheckTextEncoding(source.text, source.file);
  const bool readable = !HasErrors(encoding);
  diagnostics->insert(diagnostics->end(), encoding.begin(), encoding.end());
  if (!readable) return Tokens{};
  Tokens tokens = Tokenize(source.text, TokenizerOptions{source.file});
  diagnostics->insert(diagnostics->end(), tokens.diagnostics.begin(), tokens.diagnostics.end());
  return tokens;
}

}  // namespace

Result<std::vector<SurveyedName>> SurveyTemplates(const std::vector<TemplateSource>& templates,
                                                  const EnvironmentLookup& environment,
                                                  const EnvironmentLookup& given) {
  Result<std::vector<SurveyedName>> result;
  std::map<std::string, SurveyedName> names;
  for (const TemplateSource& source : templates) {
    // A file that cannot be read is reported; the others are still surveyed.
    Diagnostics diagnostics;
    Tokens tokens = ReadTemplate(source, &diagnostics);
    const bool readable = !HasErrors(diagnostics);
    result.diagnostics.insert(result.diagnostics.end(), diagnostics.begin(), diagnostics.end());
    if (!readable) continue;
    Classify(source.text, Manifest{}, &tokens);
    for (const Reference& reference : tokens.references) {
      if (reference.context == ContextClass::kComment || !IsVariableForm(reference)) continue;
      if (IsForeignDollar(source.text, tokens, reference)) continue;
      SurveyedName& entry = names[std::string(reference.name)];
      if (entry.name.empty()) {
        entry.name = std::string(reference.name);
        entry.set_in_environment = environment(reference.name).has_value();
        entry.given_value = given && given(reference.name).has_value();
        entry.well_known = lint::IsWellKnownVariable(reference.name);
      }
      if (entry.type == VarType::kString) {
        std::optional<std::string> value = given ? given(reference.name) : std::nullopt;
        if (!value) value = environment(reference.name);
        entry.type = TypeEvidence(tokens, reference, value, &entry.type_reason);
      }
      Location at{source.file, reference.line, reference.column, reference.offset};
      (IsRuntimeUse(tokens, reference) ? entry.script_uses : entry.data_uses).push_back(at);
    }
  }
  result.value.emplace();
  for (auto& [name, entry] : names) result.value->push_back(std::move(entry));
  return result;
}

namespace {

// A name as a YAML key or item: quoted where YAML would read something else
// (`on`, `null`, `y`: YAML 1.1 booleans and nulls).
std::string YamlName(const std::string& name) {
  static constexpr std::array<std::string_view, 11> kWords = {"y",  "n",     "yes",  "no",   "on", "off",
                                                               "true", "false", "null", "nil", "~"};
  const bool special = std::any_of(kWords.begin(), kWords.end(), [&](std::string_view word) {
    return name.size() == word.size() && std::equal(name.begin(), name.end(), word.begin(), [](char a, char b) {
             return std::tolower(static_cast<unsigned char>(a)) == b;
           });
  });
  return special ? "\"" + name + "\"" : name;
}

std::string Declaration(const SurveyedName& name, const std::vector<Location>& uses) {
  return "  " + YamlName(name.name) + ": {type: " + std::string(VarTypeName(name.type)) + "}   # " + Places(uses) +
         (name.type_reason.empty() ? "" : "; typed by " + name.type_reason) + "\n";
}

}  // namespace

std::string StarterManifest(const std::vector<SurveyedName>& names, const std::vector<std::string>& unsurveyed) {
  std::string variables, runtime;
  for (const SurveyedName& name : names) {
    if (name.given_value) {  // the user's word: deploy-time
      variables += Declaration(name, name.data_uses.empty() ? name.script_uses : name.data_uses);
      continue;
    }
    if (name.well_known) {
      runtime += "  - " + YamlName(name.name) + "   # set by the shell, the CI runner or Kubernetes: " +
                 Places(name.data_uses.empty() ? name.script_uses : name.data_uses) + "\n";
      continue;
    }
    if (name.data_uses.empty()) {
      runtime += "  - " + YamlName(name.name) + "   # only in scripts: " + Places(name.script_uses) +
                 (name.set_in_environment ? "; set in the environment now: move it to variables: if the deploy "
                                            "substitutes it"
                                          : "") +
                 "\n";
      continue;
    }
    if (!name.script_uses.empty()) {
      variables += "  # AMBIGUOUS: " + name.name + " is also used inside scripts (" + Places(name.script_uses) +
                   "),\n  # where it is now substituted too. If the script means its own runtime variable,\n"
                   "  # remove this entry, list the name under runtime: and write $${" + name.name +
                   "} in data.\n";
    }
    variables += Declaration(name, name.data_uses);
  }
  std::string manifest =
      "# Starter manifest written by `safesubst init`. Review it: every name below was\n"
      "# found in the templates; types come from the keys, default words and values seen.\n";
  for (const std::string& file : unsurveyed) manifest += "# NOT SURVEYED (could not be read): " + file + "\n";
  manifest += variables.empty() ? "variables: {}\n" : "variables:\n" + variables;
  manifest += runtime.empty() ? "runtime: []\n" : "runtime:\n" + runtime;
  return manifest;
}

namespace {

// What an engine does to one `$` form, for an audit.
struct Effect {
  bool rewrites = false;   // the engine writes `written` in place of the form
  std::string written;
  bool destroys = false;   // ... and that destroys what safesubst keeps
  std::string blanked;     // the name written as an empty string, if any
  std::string note;        // why, when the name alone does not say it
};
using EffectOf = std::function<Effect(const Reference&)>;

// Every line of `tokens` on which `effect_of` destroys something, as the
// engine writes it. The line is built in one forward pass: replacing in
// place would move the rest of a long line once per reference.
std::vector<AuditChange> AuditLines(const TemplateSource& source, const Tokens& tokens, const EffectOf& effect_of) {
  std::vector<AuditChange> changes;
  std::string_view text = source.text;
  for (std::size_t i = 0; i < tokens.references.size();) {
    std::size_t line_start;
    std::string_view line = LineAt(text, tokens.references[i].offset, &line_start);
    AuditChange change;
    bool destroyed = false;
    std::size_t end = i;
    while (end < tokens.references.size() && tokens.references[end].offset < line_start + line.size()) ++end;
    std::size_t copied = line_start;
    for (std::size_t j = i; j < end; ++j) {
      const Reference& reference = tokens.references[j];
      Effect effect = effect_of(reference);
      if (!effect.rewrites) continue;
      change.after.append(text, copied, reference.offset - copied);
      change.after += effect.written;
      copied = reference.offset + reference.length;
      if (!effect.destroys) continue;
      if (!effect.blanked.empty()) change.blanked.push_back(std::move(effect.blanked));
      if (!effect.note.empty() && std::find(change.notes.begin(), change.notes.end(), effect.note) == change.notes.end()) {
        change.notes.push_back(std::move(effect.note));
      }
      if (destroyed) continue;
      destroyed = true;  // the first destroyed reference locates the change
      change.location = Location{source.file, reference.line, reference.column, reference.offset};
      change.context = std::string(ContextName(reference.context));
      if (reference.scalar != Reference::kNoScalar) {
        change.context += " " + tokens.PathString(tokens.scalars[reference.scalar].path);
      }
    }
    change.after.append(text, copied, line_start + line.size() - copied);
    if (destroyed) {
      change.before = std::string(line);
      changes.push_back(std::move(change));
    }
    i = end;
  }
  return changes;
}

// Flux's postBuild substitution (flux.h) of one form, with `given` the
// values of postBuild.substitute. A name in data is the deploy's by intent
// and is not reported; in a script, Flux takes the shell's own variables
// and default forms, and everywhere the forms its engine fails on.
Effect FluxEffect(std::string_view text, const Reference& reference, const EnvironmentLookup& given) {
  Effect effect;
  if (reference.context == ContextClass::kComment) return effect;
  const std::string form(text.substr(reference.offset, reference.length));
  const bool script = reference.context == ContextClass::kScript;
  if (FluxRefusal failure = FluxCannotRead(text, reference); !failure.message.empty()) {
    effect = Effect{true, form, true, {}, std::move(failure.message)};
    return effect;
  }
  const RefKindTraits& kind = TraitsOf(reference.kind);
  if (kind.flux == RefFlux::kLeaves) return effect;  // a bare name, `$(NAME)`, shell syntax
  if (kind.flux == RefFlux::kEscape) {  // `$${NAME}`, `$$`
    std::string note = FluxDollarDollarNote(text, reference);
    return Effect{true, form.substr(1), !note.empty(), {}, std::move(note)};
  }
  const std::string name(reference.name);
  const std::optional<std::string> value = given(name);
  if (kind.use == RefUse::kDefault) {
    if (value && !value->empty()) return Effect{true, *value, false, {}, {}};
    return Effect{true, std::string(reference.operand), script, {},
                  "Flux applies the default of " + form + " at deploy time, not the shell at run time; write $" +
                      form + " to keep it for the shell"};
  }
  if (value) return Effect{true, kind.use == RefUse::kValue ? *value : form, false, {}, {}};
  return Effect{true, "", script, name,
                "Flux writes an empty string for a name postBuild.substitute does not set (strict mode: the "
                "Kustomization fails); write $${" + name + "} to keep it as written"};
}

}  // namespace

Result<std::vector<AuditChange>> AuditEnvsubst(const TemplateSource& source, const Manifest& manifest,
                                               const EnvironmentLookup& environment) {
  Result<std::vector<AuditChange>> result;
  Tokens tokens = ReadTemplate(source, &result.diagnostics);
  if (HasErrors(result.diagnostics)) return result;
  ValueSet values;
  for (const Reference& reference : tokens.references) {
    std::optional<std::string> value = environment(reference.name);
    if (value) values.Set(std::string(reference.name), Value{*value, ValueSource::kEnvironment, {}});
  }
  result.value = AuditLines(source, tokens, [&](const Reference& reference) {
    Effect effect;
    if (!TraitsOf(reference.kind).envsubst) return effect;
    std::optional<std::string> value = environment(reference.name);
    // A sensitive value is never shown, not even as what envsubst would write.
    const Variable* variable = manifest.Find(reference.name);
    if (value && variable != nullptr) value = DisplayValue(*variable, *value);
    // `$${X}`: envsubst keeps the first `$` and replaces `${X}`.
    effect.rewrites = true;
    effect.written = (TraitsOf(reference.kind).use == RefUse::kEscape ? "$" : "") + value.value_or("");
    effect.destroys = ResolveReference(reference, manifest, values).outcome != Resolution::Outcome::kSubstitute;
    if (effect.destroys && !value) effect.blanked = std::string(reference.name);
    return effect;
  });
  return result;
}

Result<std::vector<AuditChange>> AuditFlux(const TemplateSource& source, const EnvironmentLookup& given) {
  Result<std::vector<AuditChange>> result;
  Tokens tokens = ReadTemplate(source, &result.diagnostics);
  if (HasErrors(result.diagnostics)) return result;
  ReadEscapesAsFlux(source.text, &tokens.references);
  const std::vector<std::uint32_t> disabled = FluxDisabledDocuments(source.text, tokens);
  result.value = AuditLines(source, tokens, [&](const Reference& reference) {
    if (reference.scalar != Reference::kNoScalar && IsFluxDisabled(disabled, tokens.scalars[reference.scalar].document)) {
      return Effect{};
    }
    return FluxEffect(source.text, reference, given);
  });
  return result;
}

std::string FormatAudit(const std::string& file, const std::vector<AuditChange>& changes, std::string_view engine) {
  if (changes.empty()) return "";
  std::string out = "--- " + file + " (template)\n+++ " + file + " (after " + std::string(engine) + ")\n";
  for (const AuditChange& change : changes) {
    out += "@@ line " + std::to_string(change.location.line) + ", " + change.context + " @@\n";
    out += "-" + change.before + "\n+" + change.after + "\n";
    if (!change.blanked.empty()) {
      std::string names;
      for (const std::string& name : change.blanked) names += (names.empty() ? "" : ", ") + name;
      out += "# blanked (unset at deploy time): " + names + "\n";
    }
    for (const std::string& note : change.notes) out += "# " + note + "\n";
  }
  return out;
}

}  // namespace safesubst
