// SPDX-License-Identifier: Apache-2.0
#include "flux.h"

#include <algorithm>

#include "safesubst/references.h"

namespace safesubst {

namespace {

// The label or annotation that keeps Flux from substituting an object.
constexpr std::string_view kFluxSubstituteKey = "kustomize.toolkit.fluxcd.io/substitute";

}  // namespace

std::vector<std::uint32_t> FluxDisabledDocuments(std::string_view text, const Tokens& tokens) {
  auto key_of = [&tokens](std::uint32_t path) {
    return path == PathSegment::kRoot ? std::string_view() : tokens.paths[path].key;
  };
  auto parent_of = [&tokens](std::uint32_t path) { return tokens.paths[path].parent; };
  std::vector<std::uint32_t> disabled;
  for (const Scalar& scalar : tokens.scalars) {
    if (scalar.is_key || scalar.path == PathSegment::kRoot || key_of(scalar.path) != kFluxSubstituteKey) continue;
    const std::uint32_t group = parent_of(scalar.path);
    if (group == PathSegment::kRoot || (key_of(group) != "labels" && key_of(group) != "annotations")) continue;
    const std::uint32_t metadata = parent_of(group);
    if (metadata == PathSegment::kRoot || key_of(metadata) != "metadata" || parent_of(metadata) != PathSegment::kRoot) {
      continue;
    }
    if (DecodeScalar(text, scalar) == "disabled") disabled.push_back(scalar.document);
  }
  std::sort(disabled.begin(), disabled.end());
  return disabled;
}

bool IsFluxDisabled(const std::vector<std::uint32_t>& disabled, std::uint32_t document) {
  return std::binary_search(disabled.begin(), disabled.end(), document);
}

std::string FluxCannotRead(std::string_view text, const Reference& reference) {
  if (reference.context == ContextClass::kComment) return {};
  const std::string form(text.substr(reference.offset, reference.length));
  // `${X=d}` is `${X:=d}` there; `-`, `?` and `+` without ':' fail.
  if (reference.kind == RefKind::kBracedDefault && reference.op.front() != ':' && reference.op != "=") {
    return "Flux cannot read " + form + ": its engine fails with \"missing closing brace\" on this default form "
           "without ':', and a failure stops the whole Kustomization";
  }
  // Flux reads `$${` as `${` and goes on reading inside: `$${A:=$${B}}` is
  // `${A:=${B}}` there, where safesubst writes an escape whole.
  if (reference.kind == RefKind::kEscape &&
      text.substr(reference.offset + 2, reference.length - 2).find('$') != std::string_view::npos) {
    return "Flux reads the $ forms inside the escape " + form + " too, which safesubst does not reproduce";
  }
  if (reference.kind != RefKind::kShell || reference.offset + 1 >= text.size() || text[reference.offset + 1] != '{') {
    return {};
  }
  if (reference.offset + 2 < text.size() && text[reference.offset + 2] >= '0' && text[reference.offset + 2] <= '9') {
    return "Flux reads " + form + " as a variable named by a digit, which no value can set: it writes its default "
           "word or an empty string in place of the script's argument";
  }
  return "Flux cannot substitute " + form + ": its engine fails on this form, and a failure stops the whole "
         "Kustomization";
}

std::string FluxDollarDollarNote(std::string_view text, const Reference& reference) {
  if (reference.kind != RefKind::kDollarDollar || reference.context == ContextClass::kComment) return {};
  const std::size_t next = reference.offset + reference.length;
  const char after = next < text.size() ? text[next] : '\n';
  if (reference.context == ContextClass::kScript) {
    if (IsNameChar(after) || after == '{' || after == '(') return {};
    return "Flux writes $$ as $: the script no longer reads its process id here";
  }
  if (after != '(') return {};
  return "Flux writes $$( as $(, which Kubernetes then expands in env values, command and args";
}

}  // namespace safesubst
