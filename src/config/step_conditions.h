// SPDX-License-Identifier: Apache-2.0
// The `when` conditions of steps (SPEC Rule 4), read through the value
// lookup of a StepContext, and that lookup made from a manifest and values.
// The step engine (steps.cc) sees only the lookup, not the manifest.
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

}  // namespace safesubst
