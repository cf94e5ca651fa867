// SPDX-License-Identifier: Apache-2.0
// A manifest `default:` may name other variables: `default: "${CLUSTER_NAME}-vnet"`.
//
// Only the braced `${NAME}` of a declared variable is expanded there, and
// `$${` writes a literal `${`; any other `$` is text. The expanded default
// is a value from outside like any other (encoded where it lands, validated
// against its declaration). A default that reaches itself, names what is not
// declared, or carries a sensitive value into a variable that is not
// sensitive is a manifest error, located at the default.
#pragma once

#include "safesubst/diagnostic.h"
#include "safesubst/manifest.h"
#include "safesubst/values.h"

namespace safesubst::detail {

/// True when the default names another variable (holds `${`).
bool DefaultHasReferences(const Variable& variable);

/// Checks the references of every default of `manifest` (ParseManifest).
Diagnostics CheckDefaultReferences(const Manifest& manifest);

/// Replaces each value of `values` that is a default with references by its
/// expansion, from the values the named variables ended up with
/// (CollectValues, after every source is in). A named variable without a
/// value is an error when `report_missing`; otherwise the default's value is
/// left out.
Diagnostics ExpandDefaultReferences(const Manifest& manifest, ValueSet* values, bool report_missing);

}  // namespace safesubst::detail
