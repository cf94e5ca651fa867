// SPDX-License-Identifier: Apache-2.0
#include "classify.h"

#include <algorithm>
#include <string>
#include <utility>

#include "object_paths.h"
#include "shell_script_scalars.h"

namespace safesubst {

namespace {

// Marks `scalar` when it is a value at one of the manifest's `scripts:` and `shell:` paths.
void MarkIfListed(const ListedPaths& listed, const Tokens& tokens, Scalar* scalar) {
  if (scalar->is_key) return;
  if (listed.Script(tokens, scalar->path)) scalar->context = ContextClass::kScript;
  if (listed.Shell(tokens, scalar->path)) {
    scalar->context = ContextClass::kScript;
    scalar->is_shell = true;
  }
}

void ReadPaths(const std::vector<std::string>& texts, std::vector<std::vector<detail::PathSelector>>* paths) {
  for (const std::string& text : texts) {
    detail::YamlPath path;
    detail::PathError error;
    const bool dotted = text.starts_with('.') || text.starts_with('[');
    if (detail::ParseYamlPath(dotted ? text : "." + text, &path, &error)) paths->push_back(std::move(path.selectors));
  }
}

}  // namespace

ListedPaths::ListedPaths(const Manifest& manifest) {
  ReadPaths(manifest.script_paths, &scripts_);
  ReadPaths(manifest.shell_paths, &shell_);
}

bool ListedPaths::AnyMatches(const Paths& paths, const Tokens& tokens, std::uint32_t path) {
  return std::any_of(paths.begin(), paths.end(),
                     [&](const std::vector<detail::PathSelector>& selectors) { return PathMatches(tokens, path, selectors); });
}

void Classify(std::string_view text, const Manifest& manifest, Tokens* tokens) {
  const ListedPaths listed(manifest);
  if (!listed.empty()) {
    for (Scalar& scalar : tokens->scalars) MarkIfListed(listed, *tokens, &scalar);
  }
  MarkShellScripts(text, tokens);
  // References carry their scalar's context; the classification may have changed it.
  for (Reference& reference : tokens->references) {
    if (reference.scalar != Reference::kNoScalar) reference.context = tokens->scalars[reference.scalar].context;
  }
}

bool ClassifyAsRead(std::string_view text, const ListedPaths& listed, Tokens* tokens, ShellScriptsAsRead* scripts) {
  Scalar& scalar = tokens->scalars[0];
  if (!listed.empty()) MarkIfListed(listed, *tokens, &scalar);
  return scripts->Mark(text, *tokens, &scalar);
}

}  // namespace safesubst
