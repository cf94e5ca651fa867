// SPDX-License-Identifier: Apache-2.0
// Differential check of the tokenizer against yaml-cpp (issue 2, item 5): an
// independent YAML parser must read the same scalars, with the same values, at
// the same places. A test oracle: built into the tests only, never the library.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace safesubst {

/// Compares the tokenizer's scalars (keys and values, in document order) with
/// the scalars yaml-cpp reads from the same text: the decoded values must be
/// equal, and so must the start line and column of every non-empty scalar. An
/// empty tokenizer scalar must be a null for yaml-cpp (as must a plain `~` or
/// `null`); aliases are skipped. Returns one message per mismatch, naming the
/// line and column; a text yaml-cpp rejects, or a different number of scalars,
/// is reported too. An empty result means the two agree.
std::vector<std::string> CrossCheckScalars(std::string_view text);

}  // namespace safesubst
