// SPDX-License-Identifier: Apache-2.0
#include "step_conditions.h"

#include <algorithm>
#include <optional>

#include "safesubst/manifest.h"
#include "safesubst/values.h"
#include "substitution.h"
#include "validate.h"

namespace safesubst {

namespace {

bool InList(const std::optional<std::string>& value, std::string_view list_name, const ValueLookup& value_of) {
  if (!value) return false;
  std::optional<std::string> list = value_of(list_name);
  if (!list) return false;
  std::vector<std::string> items = SplitList(*list);
  return std::find(items.begin(), items.end(), *value) != items.end();
}

}  // namespace

bool EvaluateCondition(const Condition& condition, const ValueLookup& value_of) {
  std::optional<std::string> value = value_of(condition.var);
  switch (condition.op) {
    case Condition::Op::kIn: return InList(value, condition.operand, value_of);
    case Condition::Op::kNotIn: return !InList(value, condition.operand, value_of);
    case Condition::Op::kEquals: return value && *value == condition.operand;
    case Condition::Op::kNotEquals: return !value || *value != condition.operand;
    case Condition::Op::kIsSet: return value.has_value();
    case Condition::Op::kIsUnset: return !value.has_value();
  }
  return false;
}

bool ConditionsHold(const Step& step, const ValueLookup& value_of) {
  return std::all_of(step.when.begin(), step.when.end(),
                     [&](const Condition& condition) { return EvaluateCondition(condition, value_of); });
}

StepContext StepContextFor(const Manifest& manifest, const ValueSet& values) {
  StepContext context;
  context.value_of = [&manifest, &values](std::string_view name) -> std::optional<std::string> {
    if (const Value* value = values.Find(name)) return value->text;
    if (const Variable* variable = manifest.Find(name); variable != nullptr && variable->default_value) {
      return variable->default_value;
    }
    return std::nullopt;
  };
  context.declared_name_in = [&manifest](std::string_view text) { return DeclaredNameIn(text, manifest); };
  return context;
}

}  // namespace safesubst
