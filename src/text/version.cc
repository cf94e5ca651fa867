// SPDX-License-Identifier: Apache-2.0
#include "safesubst/version.h"

namespace safesubst {

const char* Version() { return SAFESUBST_VERSION; }

}  // namespace safesubst
