// SPDX-License-Identifier: Apache-2.0
// The safesubst library: everything a tool needs to render templates the way
// the `safesubst` command does.
//
// The pipeline, in the order a newcomer should read the headers:
//   tokenizer.h      find every scalar, comment and `$` with its YAML context
//   manifest.h       which names are deploy-time variables, their types and steps
//   values.h         collect and validate the values (--set, files, environment)
//   yaml_encoding.h  write a value so it keeps its meaning where it lands
//   shell.h          the same for shell scripts
//   invariant.h      prove the rendered document kept the template's structure
//   steps.h          merge fragments, delete and set paths after substitution
//   render.h         all of the above for one template
//
// A minimal use:
//
//   safesubst::Result<safesubst::Manifest> manifest = safesubst::LoadManifestFile("vars.yaml");
//   if (!manifest.ok()) { /* show manifest.diagnostics */ }
//   safesubst::ValueInputs inputs;
//   inputs.sets = {"TENANT_ID=tenant-a"};
//   safesubst::Result<safesubst::ValueSet> values = safesubst::CollectValues(*manifest.value, inputs);
//   if (!values.ok()) { /* show values.diagnostics */ }
//   safesubst::RenderResult result =
//       safesubst::Render(template_text, *manifest.value, *values.value, safesubst::RenderOptions{});
//   if (result.ok()) use(result.output);
//   for (const auto& d : result.diagnostics) std::cerr << safesubst::FormatDiagnostic(d, template_text, false);
//
// The library never prints, never exits, keeps no global state and throws no
// exceptions across this API: every failure is a Diagnostic in a result.
#pragma once

#include "safesubst/diagnostic.h"
#include "safesubst/invariant.h"
#include "safesubst/manifest.h"
#include "safesubst/references.h"
#include "safesubst/render.h"
#include "safesubst/shell.h"
#include "safesubst/steps.h"
#include "safesubst/survey.h"
#include "safesubst/tokenizer.h"
#include "safesubst/values.h"
#include "safesubst/version.h"
#include "safesubst/yaml_encoding.h"
