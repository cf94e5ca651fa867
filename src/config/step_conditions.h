// SPDX-License-Identifier: Apache-2.0
// The `when` conditions of steps (SPEC Rule 4), read through the value
// lookup of a StepContext, and that lookup made from a manifest and values;
// a step's `match` and the syntax of its path. The step engine (steps.cc)
// sees only the lookup, not the manifest.
#pragma once

#include "safesubst/steps.h"

namespace safesubst {

struct Manifest;
class ValueSet;

/// Evaluates one condition. An unset variable is not in any list and equals
/// nothing. `in`/`not_in` split the list variable's value with SplitList.
bool EvaluateCondition(const Condition& condition, const ValueLookup& value_of);

/// True when every condition of `step.when` holds (and when there are none).
bool ConditionsHold(const Step& step, const ValueLookup& value_of);

/// A StepContext whose lookups read `manifest` and `values` (both must
/// outlive it): a condition tests a variable's value, else its manifest
/// default; a `set` value may name no declared deploy-time variable.
StepContext StepContextFor(const Manifest& manifest, const ValueSet& values);

/// True when the YAML document `document` (one document's text) is selected
/// by `match`: its `kind`, `metadata.name` and every `metadata.labels` pair
/// equal the match's. An empty match selects every document. A document
/// whose fields cannot be read (yaml-cpp, needed for flow or aliased
/// metadata, cannot read it) is not selected here; ApplySteps reports it.
bool DocumentMatches(const DocumentMatch& match, std::string_view document);

/// Checks the path syntax of every step (`.a.b`, `[N]`, `[*]`, `[key=value]`,
/// quoted keys `."a.b"`), without any document. For manifest loading: the
/// errors are located at the steps and give the column in the path.
Diagnostics CheckStepPaths(const std::vector<Step>& steps);

}  // namespace safesubst
