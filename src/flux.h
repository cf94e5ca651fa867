// SPDX-License-Identifier: Apache-2.0
// Flux's postBuild substitution (kustomize-controller, `flux envsubst`), as
// its engine github.com/fluxcd/pkg/envsubst was measured to behave
// (shared/DIALECTS.md): what `--flavor flux` renders and `audit --flavor flux`
// reports. The forms themselves are resolved in substitution.cc
// (DeclarationMode::kFlux).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "safesubst/tokenizer.h"

namespace safesubst {

/// The documents of `tokens` that kustomize-controller does not substitute:
/// those whose metadata.labels or metadata.annotations hold
/// `kustomize.toolkit.fluxcd.io/substitute: disabled`. Sorted.
std::vector<std::uint32_t> FluxDisabledDocuments(std::string_view text, const Tokens& tokens);

/// True when `document` is in `disabled` (FluxDisabledDocuments).
bool IsFluxDisabled(const std::vector<std::uint32_t>& disabled, std::uint32_t document);

/// Why Flux's engine fails on the form `reference` (of `text`), which makes
/// kustomize-controller apply nothing of the Kustomization, or empty when it
/// reads it: a braced shell form (`${arr[0]}`, `${!x}`, `${x.y}`; `${1}`
/// and `${2:-d}`, names no value can set, it writes as their word or an
/// empty string) or a default form `-`, `?` or `+` without `:` (`${X-d}`;
/// `${X=d}` is `${X:=d}` there), or an escape holding other `$` forms
/// (`$${A:=$${B}}`: Flux reads on inside it; refused rather than written differently).
std::string FluxCannotRead(std::string_view text, const Reference& reference);

/// What Flux's `$$` to `$` changes at the kDollarDollar `reference`, or
/// empty: a script's process id (`echo $$`) becomes a lone `$`, and in data
/// Kubernetes' escape `$$(NAME)` becomes `$(NAME)`, which Kubernetes expands.
/// `$$name` in a script is Flux's way to write `$name`: nothing to say.
std::string FluxDollarDollarNote(std::string_view text, const Reference& reference);

}  // namespace safesubst
