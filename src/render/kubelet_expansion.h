// SPDX-License-Identifier: Apache-2.0
// Values that Kubernetes would expand (SPEC Rule 3). kubelet expands
// `$(NAME)` in a container's `env[].value`, `command` and `args` items (and
// an exec probe's command, a volume mount's `subPathExpr`), and reads `$$`
// as `$`: a value landing there that holds `$(NAME)` would reach
// the container as NAME's value. Such a value is escaped, so that after
// kubelet's expansion the container receives the value itself.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "tokenizer.h"

namespace safesubst {

/// True when kubelet expands `scalar`: an item of a `command` or `args`
/// sequence (not of a lifecycle hook's `exec`, which kubelet runs as
/// written; an exec probe's it expands), the `value` of an item of an `env`
/// sequence, or the `subPathExpr` of an item of `volumeMounts`. Matched by the
/// shape around the scalar, not by the path from the document's root, so
/// that a container anywhere (pod templates, job templates, custom
/// resources that embed containers, merge fragments) is covered. For a
/// merge fragment, `root_path` is where its root lands (the step's `into`,
/// e.g. `.spec.template.spec.containers[0].env`): a fragment that is a bare
/// `env` list or `args` list is matched too.
bool KubeletExpands(const Tokens& tokens, const Scalar& scalar, std::string_view root_path = {});

/// True when `value` has a byte kubelet's expansion could read differently
/// next to some text (`$`, `(`, `)`): else it needs no escaping anywhere.
bool MayNeedKubeletEscape(std::string_view value);

/// A scalar's decoded text as kubelet will read it: template text and
/// values, in order.
struct KubeletPiece {
  std::string_view text;
  bool is_value = false;
};

/// The values of a scalar, escaped for kubelet, or the reason one cannot be.
struct KubeletEscaping {
  std::vector<std::string> values;  ///< one per value piece, in order
  std::size_t refused = 0;          ///< with `problem`: the index of the value refused
  std::string problem;              ///< empty when every value is escaped
  std::string hint;                 ///< what to do about `problem`
};

/// Escapes the values of `pieces` so that kubelet's expansion of the whole
/// text gives back each value as it is and leaves the template's own
/// `$(NAME)` and `$$` their meaning. Each `$` of a value that kubelet would
/// read together with the byte after it (a `$` or `(`, the byte after the
/// value included) is written `$$`. A value inside the template's
/// `$(...)` is part of the variable's name and is written as it is. A value
/// is refused when it would end the template's `$(...)` early with a `)`,
/// or starts with `$` or `(` right after a `$` of the template (which only
/// a double-quoted escape such as `\x24` can write there).
KubeletEscaping EscapeForKubelet(const std::vector<KubeletPiece>& pieces);

}  // namespace safesubst
