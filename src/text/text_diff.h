// SPDX-License-Identifier: Apache-2.0
// Line diffs in the unified format of `diff -u`, for `render --diff`.
#ifndef SAFESUBST_TEXT_DIFF_H_
#define SAFESUBST_TEXT_DIFF_H_

#include <functional>
#include <string>
#include <string_view>

namespace safesubst {

/// One line of a diff: `kind` ' ' kept, '-' removed, '+' added. `text` (with
/// its newline, if it has one) views the `after` text, but for a removed
/// line, which views `before`; `pair` is, for the k-th removed line of a
/// change, the k-th added line of that change, if there is one.
struct DiffLine {
  char kind = ' ';
  std::string_view text;
  std::string_view pair;
};

/// How a diff line's text is shown (without the kind and the newline that
/// follows it): `render --diff` masks sensitive values with it.
using ShowDiffLine = std::function<std::string(const DiffLine&)>;

/// The unified diff (`diff -u`) that turns `before` into `after`, line by
/// line, with `context` unchanged lines around each change and the file
/// headers `--- before_name` and `+++ after_name`; empty when the texts are
/// equal. A last line without a newline is marked `\ No newline at end of
/// file`, as diff and patch do. The edit script is a shortest one (Myers'
/// O(ND) algorithm in linear space), so its hunks are the ones GNU diff
/// prints in most cases; when several shortest scripts exist, the two may
/// choose different ones. With `show`, each line's text is what it returns.
std::string UnifiedDiff(std::string_view before, std::string_view after, std::string_view before_name,
                        std::string_view after_name, int context = 3, const ShowDiffLine& show = nullptr);

}  // namespace safesubst

#endif  // SAFESUBST_TEXT_DIFF_H_
