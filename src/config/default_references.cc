// SPDX-License-Identifier: Apache-2.0
#include "default_references.h"

#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

#include "references.h"

namespace safesubst::detail {

namespace {

std::string Quoted(std::string_view name) { return "'" + std::string(name) + "'"; }

struct Scanned {
  std::vector<Reference> references;
  bool unterminated = false;
};

Scanned ScanDefault(std::string_view text) {
  Scanned scanned;
  ScanReferences(
      text, 0, text.size(), [&](const Reference& reference) { scanned.references.push_back(reference); },
      [&](std::size_t) { scanned.unterminated = true; });
  return scanned;
}

// `${NAME}` and its like (RefKindTraits::BracedValue), which a default expands.
bool IsExpanded(const Reference& reference) { return TraitsOf(reference.kind).BracedValue(); }

bool IsEscape(const Reference& reference) { return TraitsOf(reference.kind).use == RefUse::kEscape; }

// A braced form other than `${NAME}` and `$${...}`: not expanded in a default.
bool IsOtherBracedForm(std::string_view text, const Reference& reference) {
  if (IsExpanded(reference) || IsEscape(reference)) return false;
  return reference.offset + 1 < text.size() && text[reference.offset + 1] == '{';
}

class ReferenceChecker {
 public:
  ReferenceChecker(const Manifest& manifest, Diagnostics* diagnostics)
      : manifest_(manifest), diagnostics_(diagnostics) {}

  void CheckEach() {
    for (const Variable& variable : manifest_.variables) {
      if (DefaultHasReferences(variable)) CheckNames(variable);
    }
  }

  // Depth-first over the defaults' references; a name met again while its
  // own default is being walked closes a cycle.
  void CheckCycles() {
    for (const Variable& variable : manifest_.variables) Walk(variable);
  }

 private:
  enum class State { kUnseen, kWalking, kDone };

  void Error(const Variable& variable, std::string message, std::string hint = {}) {
    diagnostics_->push_back(MakeError(variable.default_location, std::move(message), std::move(hint)));
  }

  void CheckNames(const Variable& variable) {
    const std::string& text = *variable.default_value;
    const std::string name = Quoted(variable.name);
    if (variable.type == VarType::kYaml) {
      return Error(variable, "the default of " + name + " names another variable, which a `type: yaml` default "
                             "cannot", "write the whole node in the default");
    }
    Scanned scanned = ScanDefault(text);
    if (scanned.unterminated) return Error(variable, "the default of " + name + " has a `${` without its `}`");
    for (const Reference& reference : scanned.references) {
      if (IsOtherBracedForm(text, reference)) {
        Error(variable, "the default of " + name + " has " + text.substr(reference.offset, reference.length) +
                            "; a default expands only ${NAME}",
              "write $${ for a literal ${");
        continue;
      }
      if (!IsExpanded(reference)) continue;
      const Variable* named = manifest_.Find(reference.name);
      if (named == nullptr || manifest_.IsRuntime(reference.name)) {
        Error(variable, "the default of " + name + " names " + Quoted(reference.name) + ", which is not declared",
              "declare it under `variables:`, or write $${ for a literal ${");
      } else if (named->sensitive && !variable.sensitive) {
        Error(variable, "the default of " + name + " names the sensitive variable " + Quoted(reference.name) + ", but " +
                            name + " is not sensitive",
              "declare " + variable.name + " with `sensitive: true`");
      }
    }
  }

  void Walk(const Variable& variable) {
    State& state = states_[variable.name];
    if (state != State::kUnseen) return;
    state = State::kWalking;
    if (DefaultHasReferences(variable)) {
      for (const Reference& reference : ScanDefault(*variable.default_value).references) {
        const Variable* named = IsExpanded(reference) ? manifest_.Find(reference.name) : nullptr;
        if (named == nullptr) continue;
        if (states_[named->name] == State::kWalking) {
          Error(variable, "the default of " + Quoted(variable.name) + " names " + Quoted(named->name) +
                              ", whose default leads back to it",
                "break the cycle: give one of them a default that names no other variable");
          continue;
        }
        Walk(*named);
      }
    }
    states_[variable.name] = State::kDone;
  }

  const Manifest& manifest_;
  Diagnostics* diagnostics_;
  std::unordered_map<std::string, State> states_;
};

}  // namespace

bool DefaultHasReferences(const Variable& variable) {
  return variable.default_value && variable.default_value->find("${") != std::string::npos;
}

Diagnostics CheckDefaultReferences(const Manifest& manifest) {
  Diagnostics diagnostics;
  ReferenceChecker checker(manifest, &diagnostics);
  checker.CheckEach();
  if (diagnostics.empty()) checker.CheckCycles();
  return diagnostics;
}

Diagnostics ExpandDefaultReferences(const Manifest& manifest, ValueSet* values, bool report_missing) {
  Diagnostics diagnostics;
  std::unordered_map<std::string, bool> expanding;  // name -> finished
  // Expands the default of `variable` when it is still its value; false when
  // it cannot be (a named variable without a value).
  std::function<bool(const Variable&)> expand = [&](const Variable& variable) -> bool {
    const Value* value = values->Find(variable.name);
    if (value == nullptr) return false;
    if (value->source != ValueSource::kDefault || !DefaultHasReferences(variable)) return true;
    auto [state, first] = expanding.try_emplace(variable.name, false);
    if (!first) return state->second;  // done, or a cycle CheckDefaultReferences reports
    const std::string& text = *variable.default_value;
    std::string expanded;
    std::size_t copied = 0;
    for (const Reference& reference : ScanDefault(text).references) {
      const bool escape = IsEscape(reference);
      if (!escape && !IsExpanded(reference)) continue;
      expanded.append(text, copied, reference.offset - copied);
      copied = reference.offset + reference.length;
      if (escape) {
        expanded.append(text, reference.offset + 1, reference.length - 1);
        continue;
      }
      const Variable* named = manifest.Find(reference.name);
      if (named == nullptr || !expand(*named)) {
        if (report_missing) {
          diagnostics.push_back(MakeError(variable.default_location,
                                          "the default of " + Quoted(variable.name) + " names " +
                                              Quoted(reference.name) + ", which has no value",
                                          "set " + std::string(reference.name) + ", or give it a default"));
        }
        values->Erase(variable.name);
        return false;
      }
      expanded += values->Find(reference.name)->text;
    }
    expanded.append(text, copied);
    values->Set(variable.name, Value{std::move(expanded), ValueSource::kDefault, variable.default_location});
    expanding[variable.name] = true;
    return true;
  };
  for (const Variable& variable : manifest.variables) expand(variable);
  return diagnostics;
}

}  // namespace safesubst::detail
