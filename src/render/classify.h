// SPDX-License-Identifier: Apache-2.0
// Classification after tokenizing: which scalars are scripts the manifest
// marks, and which scripts are known to be shell (SPEC Rule 3).
#pragma once

#include <string_view>

#include "safesubst/manifest.h"
#include "shell_script_scalars.h"
#include "tokenizer.h"

namespace safesubst {

/// Marks the scalars (and their references) at the manifest's `scripts:`
/// paths as script context, then sets `Scalar::is_shell` on every script that
/// is known to be shell: a path the manifest lists under `shell:`, and every
/// scalar the one rule of shell_script_scalars.h makes a shell script (which
/// lint follows too). A shell script is a script context (SPEC Rule 2).
void Classify(std::string_view text, const Manifest& manifest, Tokens* tokens);

/// Classify for the one scalar of `tokens` (tokens->scalars[0]) that a
/// tokenizer hands over as it reads (detail::TokenizeAsRead), before the
/// scalars after it: false, with the scalar's class unknown, when those may
/// decide it (ShellScriptsAsRead::Mark, which keeps what it needs of the
/// scalars before).
bool ClassifyAsRead(std::string_view text, const Manifest& manifest, Tokens* tokens, ShellScriptsAsRead* scripts);

}  // namespace safesubst
