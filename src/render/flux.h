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

#include "tokenizer.h"

namespace safesubst {

/// The documents of `tokens` that kustomize-controller does not substitute:
/// those whose metadata.labels or metadata.annotations hold
/// `kustomize.toolkit.fluxcd.io/substitute: disabled`. Sorted.
std::vector<std::uint32_t> FluxDisabledDocuments(std::string_view text, const Tokens& tokens);

/// True when `document` is in `disabled` (FluxDisabledDocuments).
bool IsFluxDisabled(const std::vector<std::uint32_t>& disabled, std::uint32_t document);

/// Flux has no escape, only `$$` for a `$`, after which its engine reads on:
/// `$${A:=$${B}}` is `${A:=${B}}` there, and in `$${A:=${B}}` it substitutes
/// B. Each escape of `references` (from Tokenize, of `text`) that holds
/// another `$` becomes what Flux reads there: its `$$` (a kDollarDollar) and
/// the forms after it up to the escape's end, located in the escape's scalar.
/// An escape holding a `${` without its `}` is left as it is (FluxCannotRead).
void ReadEscapesAsFlux(std::string_view text, std::vector<Reference>* references);

/// `script` (a decoded scalar, `source_offsets` its bytes' offsets in the
/// template, DecodeScalar) as the shell receives it from Flux: each `$$`
/// written as `$`. The `$` that stays keeps the offset of the first.
void WriteDollarDollarsAsFlux(std::string* script, std::vector<std::size_t>* source_offsets);

/// Why Flux's engine fails on the form `reference` (of `text`), which makes
/// kustomize-controller apply nothing of the Kustomization, or why Flux
/// writes it otherwise than safesubst would, or empty when the two agree: a
/// braced shell form (`${arr[0]}`, `${!x}`, `${x.y}`; `${1}` and `${2:-d}`,
/// names no value can set, it writes as their word or an empty string), a
/// default form `-`, `?` or `+` without `:` (`${X-d}`; `${X=d}` is `${X:=d}`
/// there), a form whose word holds a `{}` pair (Flux ends the form at the
/// first `}`), a string operation with a `$` in its argument, or an escape
/// ReadEscapesAsFlux could not read.
struct FluxRefusal {
  std::string message;  ///< empty when Flux reads the form as safesubst does
  std::string hint;     ///< what to write instead
};
FluxRefusal FluxCannotRead(std::string_view text, const Reference& reference);

/// Why the value of the substituted `reference` (of `text`) cannot be written
/// after the `$$` that ends at `start` (the reference's offset, or an earlier
/// one when the references between write nothing), or empty: Flux writes that
/// `$$` as one `$`, which the value would continue into an expansion (`$(`,
/// `${`, `$NAME`, `$'`, zsh's `$=`) in a shell script (`shell`), or into
/// Kubernetes' `$(NAME)` anywhere. `value` is never quoted in the answer (it
/// may be sensitive).
std::string FluxLoneDollarJoins(std::string_view text, std::size_t start, const Reference& reference,
                                std::string_view value, bool shell);

/// What Flux's `$$` to `$` changes at the kDollarDollar `reference`, or
/// empty: a script's process id (`echo $$`) becomes a lone `$`, and in data
/// Kubernetes' escape `$$(NAME)` becomes `$(NAME)`, which Kubernetes expands.
/// `$$name` in a script is Flux's way to write `$name`, and `$$$$` to write
/// `$$`: nothing to say.
std::string FluxDollarDollarNote(std::string_view text, const Reference& reference);

}  // namespace safesubst
