// SPDX-License-Identifier: Apache-2.0
// The library's version, for tools that link it.
#pragma once

#include "safesubst/export.h"

namespace safesubst {

/// The version of the library, e.g. "0.2.0".
SAFESUBST_API const char* Version();

}  // namespace safesubst
