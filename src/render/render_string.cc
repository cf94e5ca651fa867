// SPDX-License-Identifier: Apache-2.0
// RenderString: Render for the common case, a template and a few values,
// with the manifest and the value set built from them.
#include <utility>

#include "safesubst/render.h"
#include "validate.h"

namespace safesubst {

RenderResult RenderString(std::string_view template_text, const NamedValues& values, const RenderOptions& options) {
  RenderResult result;
  Manifest manifest;
  ValueInputs inputs;
  for (const auto& [name, value] : values) {
    if (!detail::IsIdentifier(name)) {
      result.diagnostics.push_back(MakeError(Location{options.file_name}, "'" + name + "' is not a variable name",
                                             "a name is a letter or '_', then letters, digits and '_'"));
      continue;
    }
    if (manifest.Find(name) == nullptr) {
      Variable variable;
      variable.name = name;
      manifest.variables.push_back(std::move(variable));
    }
    inputs.sets.push_back(name + "=" + value);
  }
  Result<ValueSet> collected = CollectValues(manifest, inputs);
  result.diagnostics.insert(result.diagnostics.end(), collected.diagnostics.begin(), collected.diagnostics.end());
  if (HasErrors(result.diagnostics) || !collected.value) return result;
  RenderResult rendered = Render(template_text, manifest, *collected.value, options);
  rendered.diagnostics.insert(rendered.diagnostics.begin(), result.diagnostics.begin(), result.diagnostics.end());
  return rendered;
}

}  // namespace safesubst
