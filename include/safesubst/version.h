// SPDX-License-Identifier: Apache-2.0
// The library's version, for tools that link it.
#pragma once

namespace safesubst {

/// The version of the library, e.g. "0.1.0".
const char* Version();

}  // namespace safesubst
