// SPDX-License-Identifier: Apache-2.0
// libFuzzer target "manifest": see FuzzManifest in entry_points.h.
#include <cstddef>
#include <cstdint>

#include "entry_points.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  safesubst::fuzz::FuzzManifest(safesubst::fuzz::AsText(data, size));
  return 0;
}
