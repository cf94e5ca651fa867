// SPDX-License-Identifier: Apache-2.0
// Classification after tokenizing: which scalars are scripts the manifest
// marks, and which scripts are known to be shell (SPEC Rule 3).
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "safesubst/manifest.h"
#include "shell_script_scalars.h"
#include "tokenizer.h"
#include "yaml_path.h"

namespace safesubst {

/// Marks the scalars (and their references) at the manifest's `scripts:`
/// paths as script context, then sets `Scalar::is_shell` on every script that
/// is known to be shell: a path the manifest lists under `shell:`, and every
/// scalar the one rule of shell_script_scalars.h makes a shell script (which
/// lint follows too). A shell script is a script context (SPEC Rule 2).
void Classify(std::string_view text, const Manifest& manifest, Tokens* tokens);

/// The manifest's `scripts:` and `shell:` paths (Manifest::script_paths),
/// read once as step paths (yaml_path.h; the leading `.` may be left out),
/// matched against the tokenizer's path segments: a key holding `.` or `[`
/// is one key. A path that does not read names no node (the manifest's
/// loader refuses those).
class ListedPaths {
 public:
  explicit ListedPaths(const Manifest& manifest);

  bool empty() const { return scripts_.empty() && shell_.empty(); }
  /// Whether the node at `path` is listed under `scripts:`, `shell:`.
  bool Script(const Tokens& tokens, std::uint32_t path) const { return AnyMatches(scripts_, tokens, path); }
  bool Shell(const Tokens& tokens, std::uint32_t path) const { return AnyMatches(shell_, tokens, path); }

 private:
  using Paths = std::vector<std::vector<detail::PathSelector>>;
  static bool AnyMatches(const Paths& paths, const Tokens& tokens, std::uint32_t path);

  Paths scripts_;
  Paths shell_;
};

/// Classify for the one scalar of `tokens` (tokens->scalars[0]) that a
/// tokenizer hands over as it reads (detail::TokenizeAsRead), before the
/// scalars after it: false, with the scalar's class unknown, when those may
/// decide it (ShellScriptsAsRead::Mark, which keeps what it needs of the
/// scalars before).
bool ClassifyAsRead(std::string_view text, const ListedPaths& listed, Tokens* tokens, ShellScriptsAsRead* scripts);

}  // namespace safesubst
