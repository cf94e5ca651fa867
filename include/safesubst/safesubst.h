// SPDX-License-Identifier: Apache-2.0
// The safesubst library: everything a tool needs to render templates the way
// the `safesubst` command does. These are the public headers, and the only
// ones installed; the library's other headers are internal.
//
//   diagnostic.h  located messages, and Result: every call returns its
//                 diagnostics next to its value
//   manifest.h    which names are deploy-time variables, their types and steps
//   values.h      collect and validate the values (--set, files, environment)
//   render.h      substitute, encode each value for where it lands, prove the
//                 structure kept, run the steps: one template
//   steps.h       the post-substitution steps (merge, delete, set) on their own
//   lint.h        check rendered manifests for silent runtime failures
//   survey.h      migration help: survey envsubst templates, audit envsubst
//   version.h     the library's version
//
// The common case, in one call:
//
//   safesubst::RenderResult result = safesubst::RenderString(template_text, {{"APP", "web"}});
//   if (result.ok()) use(result.output);
//   for (const auto& d : result.diagnostics) std::cerr << safesubst::FormatDiagnostic(d, template_text, false);
//
// With a manifest and values from files, as the command does:
//
//   safesubst::Result<safesubst::Manifest> manifest = safesubst::LoadManifestFile("vars.yaml");
//   if (!manifest.ok()) { /* show manifest.diagnostics */ }
//   safesubst::ValueInputs inputs;
//   inputs.sets = {"TENANT_ID=tenant-a"};
//   safesubst::Result<safesubst::ValueSet> values = safesubst::CollectValues(*manifest.value, inputs);
//   if (!values.ok()) { /* show values.diagnostics */ }
//   safesubst::RenderResult result =
//       safesubst::Render(template_text, *manifest.value, *values.value, safesubst::RenderOptions{});
//
// The library never prints, never exits, keeps no global state and throws no
// exceptions across this API: every failure is a Diagnostic in a result.
#pragma once

#include "safesubst/diagnostic.h"
#include "safesubst/lint.h"
#include "safesubst/manifest.h"
#include "safesubst/render.h"
#include "safesubst/steps.h"
#include "safesubst/survey.h"
#include "safesubst/values.h"
#include "safesubst/version.h"
