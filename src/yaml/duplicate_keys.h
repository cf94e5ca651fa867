// SPDX-License-Identifier: Apache-2.0
// Duplicate mapping keys, found in the tokenizer's keys: YAML forbids them,
// and yaml-cpp silently keeps one, so a render could drop a value.
#pragma once

#include <string>
#include <string_view>

#include "safesubst/diagnostic.h"
#include "tokenizer.h"

namespace safesubst {

/// Reports a key that appears twice in the same mapping: YAML forbids it and
/// yaml-cpp silently keeps one of them, so a render could drop a value.
Diagnostics CheckDuplicateKeys(std::string_view text, const Tokens& tokens, const std::string& file);

}  // namespace safesubst
