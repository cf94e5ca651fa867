// SPDX-License-Identifier: Apache-2.0
#include "classify.h"

#include <string>

#include "object_paths.h"
#include "shell_script_scalars.h"

namespace safesubst {

namespace {

bool ListsPaths(const Manifest& manifest) { return !manifest.script_paths.empty() || !manifest.shell_paths.empty(); }

// Marks `scalar` when it is a value at one of the manifest's `scripts:` and `shell:` paths.
void MarkIfListed(const Manifest& manifest, const Tokens& tokens, Scalar* scalar) {
  if (scalar->is_key) return;
  const std::string path = tokens.PathString(scalar->path);
  if (MatchesAnyPath(path, manifest.script_paths)) scalar->context = ContextClass::kScript;
  if (MatchesAnyPath(path, manifest.shell_paths)) {
    scalar->context = ContextClass::kScript;
    scalar->is_shell = true;
  }
}

}  // namespace

void Classify(std::string_view text, const Manifest& manifest, Tokens* tokens) {
  if (ListsPaths(manifest)) {
    for (Scalar& scalar : tokens->scalars) MarkIfListed(manifest, *tokens, &scalar);
  }
  MarkShellScripts(text, tokens);
  // References carry their scalar's context; the classification may have changed it.
  for (Reference& reference : tokens->references) {
    if (reference.scalar != Reference::kNoScalar) reference.context = tokens->scalars[reference.scalar].context;
  }
}

bool ClassifyAsRead(std::string_view text, const Manifest& manifest, Tokens* tokens, ShellScriptsAsRead* scripts) {
  Scalar& scalar = tokens->scalars[0];
  if (ListsPaths(manifest)) MarkIfListed(manifest, *tokens, &scalar);
  return scripts->Mark(text, *tokens, &scalar);
}

}  // namespace safesubst
