// SPDX-License-Identifier: Apache-2.0
// Dollars that belong to another language written inside a template: Go and
// Helm templates (`{{ $labels.job }}`), nginx variables (`$request_uri`),
// PowerShell (`$null`, `$env:PATH`), JSON Schema keys in CRDs (`$ref`,
// `$schema`), strategic-merge directives (`$patch`) and any `$name` that is a
// whole mapping key. None is a deploy-time variable: `safesubst init` never
// declares one, nor lists it as a runtime name (issue 26: a CRD made `init`
// declare `ref` and `schema`, a PowerShell script made it write `- null`).
#pragma once

#include <string_view>

#include "tokenizer.h"

namespace safesubst {

/// True when `reference` (a bare `$name` of `tokens`, tokenized from `text`)
/// is one of the dollars described above. Braced forms (`${NAME}`) are never
/// foreign: Flux and clusterctl substitute them even inside `{{ }}`.
bool IsForeignDollar(std::string_view text, const Tokens& tokens, const Reference& reference);

/// The names a bare `$name` never means a variable by: nginx's, PowerShell's
/// automatic ones (any case), JSON Schema's and strategic merge's keywords.
bool IsForeignDollarName(std::string_view name);

}  // namespace safesubst
