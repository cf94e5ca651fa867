// SPDX-License-Identifier: Apache-2.0
// A small program that uses the installed safesubst library the way a deploy
// tool would: a manifest and a template held in memory, values given as
// NAME=VALUE arguments (like `safesubst render --set`), the rendered YAML on
// stdout and the diagnostics on stderr.
//
//   consumer APP=web VERSION=1.10       prints the rendered Deployment, exits 0
//   consumer APP=Not_A_Label            prints why not, exits 1
#include <safesubst/safesubst.h>

#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

namespace {

constexpr std::string_view kManifest = R"(variables:
  APP:      {type: dns-label, required: true}
  REPLICAS: {type: int, default: "2"}
  VERSION:  {type: string, default: "latest"}
runtime: [HOME]
)";

// `${VERSION}` lands in a plain scalar: a value such as 1.10 must stay a
// string. `$HOME` in the script is a runtime variable and must survive.
constexpr std::string_view kTemplate = R"(apiVersion: apps/v1
kind: Deployment
metadata:
  name: ${APP}
spec:
  replicas: ${REPLICAS}
  template:
    metadata:
      labels:
        version: ${VERSION}
    spec:
      containers:
        - name: ${APP}
          command: ["/bin/sh", "-c"]
          args:
            - |
              echo "starting ${APP} in $HOME"
)";

void PrintDiagnostics(const safesubst::Diagnostics& diagnostics, std::string_view source) {
  for (const safesubst::Diagnostic& diagnostic : diagnostics) {
    std::string text = safesubst::FormatDiagnostic(diagnostic, source, /*color=*/false);
    std::fputs(text.c_str(), stderr);
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::fprintf(stderr, "consumer: linked against safesubst %s\n", safesubst::Version());

  safesubst::Result<safesubst::Manifest> manifest = safesubst::ParseManifest(kManifest, "manifest.yaml");
  PrintDiagnostics(manifest.diagnostics, kManifest);
  if (!manifest.ok()) return 1;

  safesubst::ValueInputs inputs;
  inputs.sets.assign(argv + 1, argv + argc);  // NAME=VALUE, as `--set` takes them
  safesubst::Result<safesubst::ValueSet> values = safesubst::CollectValues(*manifest.value, inputs);
  PrintDiagnostics(values.diagnostics, {});
  if (!values.ok()) return 1;

  safesubst::RenderOptions options;
  options.file_name = "deployment.yaml";
  safesubst::RenderResult result = safesubst::Render(kTemplate, *manifest.value, *values.value, options);
  PrintDiagnostics(result.diagnostics, kTemplate);
  if (!result.ok()) return 1;
  std::fputs(result.output.c_str(), stdout);
  return 0;
}
