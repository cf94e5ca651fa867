// SPDX-License-Identifier: Apache-2.0
// Rendering a template with a manifest and values given as text, for the
// tests that check what the render writes or refuses.
#pragma once

#include <doctest/doctest.h>

#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>

#include "safesubst/manifest.h"
#include "safesubst/render.h"
#include "safesubst/values.h"

namespace safesubst::testing {

/// Renders `text` (as the file `t.yaml`) with the manifest `manifest` and
/// each of `values` set as `--set NAME=VALUE` sets it.
inline RenderResult RenderWithValues(std::string_view text, std::string_view manifest,
                                     std::initializer_list<std::pair<std::string_view, std::string_view>> values) {
  Result<Manifest> parsed = ParseManifest(manifest, "m.yaml");
  REQUIRE(parsed.ok());
  ValueSet set;
  for (const auto& [name, value] : values) {
    set.Set(std::string(name), Value{std::string(value), ValueSource::kCommandLine, Location{"--set"}});
  }
  RenderOptions options;
  options.file_name = "t.yaml";
  return Render(text, *parsed.value, set, options);
}

}  // namespace safesubst::testing
