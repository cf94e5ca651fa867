// SPDX-License-Identifier: Apache-2.0
// `render --diff` without the sensitive values: the render says where it
// wrote them (RenderResult::sensitive_spans), as they were written: quoted,
// escaped for a shell, `$$(` for kubelet, re-indented over several lines.
// Searching the diff for the value as given finds none of those forms, so
// the lines of the new text are masked by those spans, not by a search.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "redaction.h"

namespace safesubst {

/// The unified diff (text_diff.h) from `before` to `after` in which nothing
/// sensitive shows. A line of `after` (added or kept) is masked where
/// `after_secrets` (sorted, disjoint ranges of `after`) cover it, and where
/// `redactor` masks it. A removed line of `before` (the file as it is now,
/// perhaps written by an earlier render with the same or another secret) is
/// masked where `redactor` masks it or shows a text that `after_secrets`
/// cover; and, unless `before_is_template` (--in-place: the file is the
/// template, which holds no value), when it is replaced by a line holding a
/// secret, from the first byte it differs from that line (or its first
/// secret) to the last.
std::string RedactedDiff(std::string_view before, std::string_view after, std::string_view before_name,
                         std::string_view after_name, const std::vector<TextRange>& after_secrets,
                         const Redactor& redactor, bool before_is_template = false);

}  // namespace safesubst
