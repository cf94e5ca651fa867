// SPDX-License-Identifier: Apache-2.0
#include "substitution.h"

#include "references.h"
#include "string_operations.h"

namespace safesubst {

namespace {

bool IsDeclared(const Reference& reference, const Manifest& manifest, const ValueSet& values) {
  if (manifest.mode != DeclarationMode::kEnvironment) return manifest.Find(reference.name) != nullptr;
  const RefKindTraits& form = TraitsOf(reference.kind);
  // Without declarations, a default form in data declares its name, as in
  // Flux (`replicas: ${N:=2}`); in a script it may be the script's own.
  if (form.use == RefUse::kDefault && reference.context == ContextClass::kData) return true;
  // Set environment variables are declared implicitly, but in scripts only
  // the braced form: a bare `$HOME` there is the script's.
  if (values.Find(reference.name) == nullptr) return false;
  return reference.context != ContextClass::kScript || !form.bare;
}

Resolution Substitute(const Variable* variable, std::string value) {
  Resolution resolution;
  resolution.outcome = Resolution::Outcome::kSubstitute;
  resolution.variable = variable;
  resolution.value = std::move(value);
  return resolution;
}

Resolution Fail(std::string message, std::string hint) {
  Resolution resolution;
  resolution.outcome = Resolution::Outcome::kFail;
  resolution.message = std::move(message);
  resolution.hint = std::move(hint);
  return resolution;
}

// envsubst would blank it; SPEC Rule 1 never does.
Resolution Unset(std::string_view variable) {
  const std::string name(variable);
  return Fail("variable '" + name + "' is declared but has no value",
              "set it with --set " + name + "=..., a values file or the environment, or give it a "
              "`default:` in the manifest");
}

Resolution DefaultWord(const Variable* variable) {
  Resolution resolution;
  resolution.outcome = Resolution::Outcome::kDefaultWord;
  resolution.variable = variable;
  return resolution;
}

// The shell's default forms. `op` starting with ':' also treats an empty value as unset.
Resolution ApplyDefaultForm(const Reference& reference, const Variable* variable, const Value* value) {
  std::string_view op = reference.op;
  bool colon = !op.empty() && op.front() == ':';
  char form = op.empty() ? '\0' : op.back();
  bool unset = value == nullptr || (colon && value->text.empty());
  std::string name(reference.name);
  switch (form) {
    case '-':
    case '=':
      return unset ? DefaultWord(variable) : Substitute(variable, value->text);
    case '+':
      return unset ? Substitute(variable, std::string()) : DefaultWord(variable);
    case '?':
      if (!unset) return Substitute(variable, value->text);
      return Fail(name + (reference.operand.empty() ? std::string(": parameter null or not set")
                                                    : ": " + std::string(reference.operand)),
                  "set " + name + " with --set, a values file or the environment");
    default:
      break;
  }
  return Fail("unknown default form '" + std::string(op) + "' in reference to '" + name + "'", {});
}

// The string operation as written, for messages: `${X%.*}`, `${#X}` (whose
// operator stands before the name).
std::string OperationText(const Reference& reference) {
  const std::string name(reference.name);
  if (reference.op.data() < reference.name.data()) return "${#" + name + "}";
  return "${" + name + std::string(reference.op) + std::string(reference.operand) + "}";
}

// A string operation of the Flux/clusterctl dialect on a declared variable:
// its result is the value (from outside, so encoded where it lands).
Resolution ApplyOperation(const Reference& reference, const Variable* variable, const Value* value) {
  const std::string form = OperationText(reference);
  StringOperation operation;
  std::string problem = ParseStringOperation(reference, &operation);
  std::string result;
  if (problem.empty() && value != nullptr) problem = ApplyStringOperation(operation, value->text, &result);
  if (!problem.empty()) {
    return Fail("the string operation " + form + " " + problem,
                "compute the value before rendering and pass it in a variable of its own");
  }
  if (value == nullptr) return Unset(reference.name);
  return Substitute(variable, std::move(result));
}

// ${x[0]}, ${!x}: shell syntax, kept as written. With x a declared
// deploy-time variable it would be left in the output unreplaced (and x is
// not set when the script runs), so that is an error.
Resolution ResolveShellForm(const Reference& reference, const Manifest& manifest) {
  if (reference.name.empty() || manifest.Find(reference.name) == nullptr) {
    return Resolution{};
  }
  const std::string name(reference.name);
  return Fail("a shell expansion of the declared variable '" + name + "', which is never substituted",
              "substitute ${" + name + "} whole, or set a script variable from it (v=\"${" + name +
                  "}\") and expand that");
}

// A failure for a kept form that names the declared variable `name`, turned
// into a warning where the shell does not expand the text: it is right as it
// stands, and wrong only if the text is run again later. `kept` is what the
// form is when it is not a failure.
Resolution KeptLiterally(Resolution failure, ShellReading reading, std::string_view name, Resolution kept = {}) {
  if (reading != ShellReading::kLiteral || failure.outcome != Resolution::Outcome::kFail) return failure;
  const std::string quoted(name);
  kept.warning = "the declared variable '" + quoted + "' is named in quoted text the shell does not expand here; "
                 "if that text is run later (eval, trap, sh -c '...'), " + quoted + " is not set there";
  kept.hint = "substitute ${" + quoted + "} whole where the text runs, or set a script variable from it first";
  return kept;
}

// Flux's postBuild substitution (DeclarationMode::kFlux), as its engine
// (github.com/fluxcd/pkg/envsubst) was measured to behave: every braced form
// names a variable, in scripts too; a bare `$NAME` is never one; `$$` is an
// escaped `$`. Each `:` form (`:-`, `:=`, and also `:?` and `:+`) writes its
// word when the name is unset or empty; the forms without `:` are a parse
// error there. An unset name without a word is kUndeclared: the renderer
// blanks it, or refuses it in strict mode, as Flux does.
Resolution ResolveFlux(const Reference& reference, const ValueSet& values) {
  Resolution resolution;
  const RefKindTraits& form = TraitsOf(reference.kind);
  switch (form.flux) {
    case RefFlux::kEscape:  // `$$`: the renderer warns where it matters (flux.h)
      resolution.outcome = Resolution::Outcome::kEscape;
      return resolution;
    case RefFlux::kVariable:
      break;
    case RefFlux::kLeaves:  // a bare name, `$(NAME)`, shell syntax
      return resolution;
  }
  const Value* value = values.Find(reference.name);
  if (form.use == RefUse::kDefault) {
    // `${X=d}` as `${X:=d}`; `-`, `?`, `+` without ':' fail: refused before (flux.h FluxCannotRead).
    if (value == nullptr || value->text.empty()) return DefaultWord(nullptr);
    return Substitute(nullptr, value->text);
  }
  if (value == nullptr) {
    resolution.outcome = Resolution::Outcome::kUndeclared;
    return resolution;
  }
  if (form.use == RefUse::kOperation) return ApplyOperation(reference, nullptr, value);
  return Substitute(nullptr, value->text);
}

// What becomes of the form itself, before looking inside its operand.
Resolution ResolveForm(const Reference& reference, const Manifest& manifest, const ValueSet& values,
                       ShellReading reading) {
  Resolution resolution;
  if (reference.context == ContextClass::kComment) return resolution;
  if (manifest.mode == DeclarationMode::kFlux) return ResolveFlux(reference, values);
  const RefUse use = TraitsOf(reference.kind).use;
  switch (use) {
    case RefUse::kNone:
      return resolution;
    case RefUse::kShell:
      return KeptLiterally(ResolveShellForm(reference, manifest), reading, reference.name);
    case RefUse::kEscape:
      // `$${...}`: its writer meant a literal `${...}`, whatever it names (the
      // Flux and clusterctl convention; a shell would read `$$` as its PID).
      resolution.outcome = Resolution::Outcome::kEscape;
      return resolution;
    case RefUse::kValue:
    case RefUse::kDefault:
    case RefUse::kOperation:
      break;
  }
  if (manifest.IsRuntime(reference.name)) {
    resolution.outcome = Resolution::Outcome::kRuntime;
    return resolution;
  }
  if (!IsDeclared(reference, manifest, values)) {
    resolution.outcome = Resolution::Outcome::kUndeclared;
    return resolution;
  }
  const Variable* variable = manifest.Find(reference.name);
  const Value* value = values.Find(reference.name);
  if (use == RefUse::kDefault) return ApplyDefaultForm(reference, variable, value);
  if (use == RefUse::kOperation) return ApplyOperation(reference, variable, value);
  if (value != nullptr) return Substitute(variable, value->text);
  return Unset(reference.name);
}

}  // namespace

// One flat pass over every `$` finds the names at any depth of nested forms
// without recursing.
std::string_view DeclaredNameIn(std::string_view text, const Manifest& manifest) {
  for (std::size_t at = text.find('$'); at != std::string_view::npos; at = text.find('$', at + 1)) {
    std::size_t name_at = at + 1;
    if (name_at < text.size() && text[name_at] == '$') {  // `$$`: the shell's pid, or `$${V}` kept as is
      at = name_at;
      continue;
    }
    if (name_at < text.size() && text[name_at] == '{') {
      ++name_at;
      if (name_at < text.size() && (text[name_at] == '#' || text[name_at] == '!')) ++name_at;
    }
    std::size_t end = name_at;
    if (end < text.size() && IsNameStart(text[end])) {
      while (end < text.size() && IsNameChar(text[end])) ++end;
    }
    const std::string_view name = text.substr(name_at, end - name_at);
    if (!name.empty() && manifest.Find(name) != nullptr && !manifest.IsRuntime(name)) return name;
  }
  return {};
}

Resolution ResolveReference(const Reference& reference, const Manifest& manifest, const ValueSet& values,
                            ShellReading reading) {
  Resolution resolution = ResolveForm(reference, manifest, values, reading);
  const bool kept = resolution.outcome == Resolution::Outcome::kRuntime ||
                    resolution.outcome == Resolution::Outcome::kUndeclared ||
                    (resolution.outcome == Resolution::Outcome::kIgnore && TraitsOf(reference.kind).use == RefUse::kShell);
  if (!kept || reference.operand.empty() || manifest.variables.empty()) return resolution;
  const std::string_view inner = DeclaredNameIn(reference.operand, manifest);
  if (inner.empty()) return resolution;
  const std::string name(inner);
  Resolution failure = Fail("the declared variable '" + name +
                                "' inside a shell expansion that is kept as written would not be substituted",
                            "set a script variable from it first (v=\"${" + name + "}\") and expand $v there instead");
  return KeptLiterally(std::move(failure), reading, inner, std::move(resolution));
}

}  // namespace safesubst
