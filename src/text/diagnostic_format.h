// SPDX-License-Identifier: Apache-2.0
// FormatDiagnostic (diagnostic.h) given the line to show, for the redacted
// form (redaction.h). Defined in diagnostic.cc.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "safesubst/diagnostic.h"

namespace safesubst {

/// FormatDiagnostic given the text of the diagnostic's line (empty: no
/// snippet) and the 1-based column of the caret in it: a line with its
/// secrets masked keeps the location of the source but moves the caret.
std::string FormatDiagnosticAt(const Diagnostic& diagnostic, std::string_view line, std::uint32_t caret_column,
                               bool color);

}  // namespace safesubst
