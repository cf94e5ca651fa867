// SPDX-License-Identifier: Apache-2.0
// Base64 as Kubernetes reads a Secret's `data` (Go's standard encoding:
// `A-Z a-z 0-9 + /`, `=` padding to a multiple of four): kubelet decodes
// such an entry before it hands it to a container, so the render checks the
// decoded text where it lands (carried_env_values.h, startup_variables.h).
#pragma once

#include <string>
#include <string_view>

namespace safesubst {

/// Decodes `text` into `out`; false (with `out` unspecified) when it is not
/// standard, padded base64. Line breaks are skipped, as Go's decoder does.
bool DecodeBase64(std::string_view text, std::string* out);

}  // namespace safesubst
