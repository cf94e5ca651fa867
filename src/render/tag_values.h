// SPDX-License-Identifier: Apache-2.0
// A tag is not a place for a value (issue 25 item 8): the tokenizer finds
// references only in scalars and comments, so a declared `${V}` written in
// a verbatim tag `!<...>` or a `%TAG` directive would be neither substituted
// nor reported, and the document would silently keep it.
#pragma once

#include <string>
#include <string_view>

#include "safesubst/diagnostic.h"
#include "safesubst/manifest.h"
#include "tokenizer.h"

namespace safesubst {

/// Reports each reference (`$V`, `${V}`, `${V:-x}`) to a variable `manifest`
/// declares that stands in a verbatim tag `!<...>` outside scalars and
/// comments, or in a `%TAG` directive, at its location.
Diagnostics CheckNoValuesInTags(std::string_view text, const Tokens& tokens, const Manifest& manifest,
                                const std::string& file);

}  // namespace safesubst
