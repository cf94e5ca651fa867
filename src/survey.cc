#include "safesubst/survey.h"

#include <algorithm>
#include <map>

#include "safesubst/tokenizer.h"
#include "safesubst/values.h"
#include "substitution.h"
#include "text_checks.h"

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

// A type guess only where the value leaves no doubt; everything else is a string.
void GuessType(SurveyedName* name, const std::optional<std::string>& value, std::string_view key) {
  if (value) {
    std::size_t slash = value->find('/');
    if (IsDottedQuad(*value)) {
      name->type = VarType::kIpv4;
    } else if (slash != std::string::npos && IsDottedQuad(std::string_view(*value).substr(0, slash)) &&
               AllDigits(std::string_view(*value).substr(slash + 1))) {
      name->type = VarType::kCidr;
    } else if (AllDigits(*value)) {
      name->type = VarType::kInt;
    } else if (*value == "true" || *value == "false") {
      name->type = VarType::kBool;
    }
    if (name->type != VarType::kString) name->type_reason = "current value " + *value;
    return;
  }
  if (key == "replicas" || key == "containerPort" || key == "port" || key == "targetPort") {
    name->type = VarType::kInt;
    name->type_reason = "used as `" + std::string(key) + "`";
  }
}

bool IsVariableForm(RefKind kind) {
  return kind == RefKind::kBare || kind == RefKind::kBraced || kind == RefKind::kBracedDefault;
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

// What GNU envsubst without arguments writes for `$NAME` / `${NAME}`.
bool EnvsubstTouches(RefKind kind) {
  return kind == RefKind::kBare || kind == RefKind::kBraced || kind == RefKind::kEscape;
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
                                                  const EnvironmentLookup& environment) {
  Result<std::vector<SurveyedName>> result;
  std::map<std::string, SurveyedName> names;
  for (const TemplateSource& source : templates) {
    Tokens tokens = ReadTemplate(source, &result.diagnostics);
    for (const Reference& reference : tokens.references) {
      if (reference.context == ContextClass::kComment || !IsVariableForm(reference.kind)) continue;
      SurveyedName& entry = names[std::string(reference.name)];
      if (entry.name.empty()) {
        entry.name = std::string(reference.name);
        std::string_view key;
        if (reference.scalar != Reference::kNoScalar && tokens.scalars[reference.scalar].path != PathSegment::kRoot) {
          key = tokens.paths[tokens.scalars[reference.scalar].path].key;
        }
        std::optional<std::string> value = environment(reference.name);
        entry.set_in_environment = value.has_value();
        GuessType(&entry, value, key);
      }
      Location at{source.file, reference.line, reference.column, reference.offset};
      (reference.context == ContextClass::kScript ? entry.script_uses : entry.data_uses).push_back(at);
    }
  }
  if (HasErrors(result.diagnostics)) return result;
  result.value.emplace();
  for (auto& [name, entry] : names) result.value->push_back(std::move(entry));
  return result;
}

std::string StarterManifest(const std::vector<SurveyedName>& names) {
  std::string variables, runtime;
  for (const SurveyedName& name : names) {
    if (name.data_uses.empty() && !name.set_in_environment) {
      runtime += "  - " + name.name + "   # only in scripts: " + Places(name.script_uses) + "\n";
      continue;
    }
    if (name.data_uses.empty()) {
      variables += "  # " + name.name + " is only used inside scripts, but it is set in the environment now,\n"
                   "  # so it looks like a deploy-time value. Move it to runtime: if the script sets it itself.\n";
      variables += "  " + name.name + ": {type: " + std::string(VarTypeName(name.type)) + "}   # " +
                   Places(name.script_uses) + "\n";
      continue;
    }
    if (!name.script_uses.empty()) {
      variables += "  # AMBIGUOUS: " + name.name + " is also used inside scripts (" + Places(name.script_uses) +
                   "),\n  # where it is now substituted too. If the script means its own runtime variable,\n"
                   "  # remove this entry, list the name under runtime: and write $${" + name.name +
                   "} in data.\n";
    }
    variables += "  " + name.name + ": {type: " + std::string(VarTypeName(name.type)) + "}   # " +
                 Places(name.data_uses) + (name.type_reason.empty() ? "" : "; typed by " + name.type_reason) + "\n";
  }
  std::string manifest =
      "# Starter manifest written by `safesubst init`. Review it: every name below was\n"
      "# found in the templates; types were guessed from the current environment.\n";
  manifest += variables.empty() ? "variables: {}\n" : "variables:\n" + variables;
  manifest += runtime.empty() ? "runtime: []\n" : "runtime:\n" + runtime;
  return manifest;
}

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
  result.value.emplace();
  std::string_view text = source.text;
  for (std::size_t i = 0; i < tokens.references.size();) {
    std::size_t line_start;
    std::string_view line = LineAt(text, tokens.references[i].offset, &line_start);
    AuditChange change;
    bool destroyed = false;
    std::size_t end = i;
    while (end < tokens.references.size() && tokens.references[end].offset < line_start + line.size()) ++end;
    // The line as envsubst writes it, built in one forward pass: replacing
    // in place would move the rest of a long line once per reference.
    std::size_t copied = line_start;
    for (std::size_t j = i; j < end; ++j) {
      const Reference& reference = tokens.references[j];
      if (!EnvsubstTouches(reference.kind)) continue;
      std::optional<std::string> value = environment(reference.name);
      // A sensitive value is never shown, not even as what envsubst would write.
      const Variable* variable = manifest.Find(reference.name);
      if (value && variable != nullptr) value = DisplayValue(*variable, *value);
      // `$${X}`: envsubst keeps the first `$` and replaces `${X}`.
      const std::size_t skip = reference.kind == RefKind::kEscape ? 1 : 0;
      change.after.append(text, copied, reference.offset + skip - copied);
      change.after += value.value_or("");
      copied = reference.offset + reference.length;
      if (ResolveReference(reference, manifest, values).outcome == Resolution::Outcome::kSubstitute) continue;
      if (!value) change.blanked.push_back(std::string(reference.name));
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
      result.value->push_back(std::move(change));
    }
    i = end;
  }
  return result;
}

std::string FormatAudit(const std::string& file, const std::vector<AuditChange>& changes) {
  if (changes.empty()) return "";
  std::string out = "--- " + file + " (template)\n+++ " + file + " (after plain envsubst)\n";
  for (const AuditChange& change : changes) {
    out += "@@ line " + std::to_string(change.location.line) + ", " + change.context + " @@\n";
    out += "-" + change.before + "\n+" + change.after + "\n";
    if (!change.blanked.empty()) {
      std::string names;
      for (const std::string& name : change.blanked) names += (names.empty() ? "" : ", ") + name;
      out += "# blanked (unset at deploy time): " + names + "\n";
    }
  }
  return out;
}

}  // namespace safesubst
