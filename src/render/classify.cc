// SPDX-License-Identifier: Apache-2.0
#include "classify.h"

#include <string>

#include "object_paths.h"
#include "shell_script_scalars.h"

namespace safesubst {

namespace {

// Marks the value scalars at the manifest's `scripts:` and `shell:` paths.
void MarkListedScalars(const Manifest& manifest, Tokens* tokens) {
  if (manifest.script_paths.empty() && manifest.shell_paths.empty()) return;
  for (Scalar& scalar : tokens->scalars) {
    if (scalar.is_key) continue;
    const std::string path = tokens->PathString(scalar.path);
    if (MatchesAnyPath(path, manifest.script_paths)) scalar.context = ContextClass::kScript;
    if (MatchesAnyPath(path, manifest.shell_paths)) {
      scalar.context = ContextClass::kScript;
      scalar.is_shell = true;
    }
  }
}

}  // namespace

void Classify(std::string_view text, const Manifest& manifest, Tokens* tokens) {
  MarkListedScalars(manifest, tokens);
  MarkShellScripts(text, tokens);
  // References carry their scalar's context; the classification may have changed it.
  for (Reference& reference : tokens->references) {
    if (reference.scalar != Reference::kNoScalar) reference.context = tokens->scalars[reference.scalar].context;
  }
}

}  // namespace safesubst
