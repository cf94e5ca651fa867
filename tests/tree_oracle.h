// SPDX-License-Identifier: Apache-2.0
// Test helper: the steps of SPEC Rule 4 done the simple way, as operations on
// yaml-cpp trees (deep merge, erase, assign), with no regard for bytes. The
// byte-preserving engine (steps.h) must produce a stream that parses to the
// same trees; tests compare the two through a canonical form in which every
// scalar carries its resolved type, so a lost quote (`"1.10"` turning into the
// float `1.10`) is a difference too.
//
// Shares only the path parser, the condition evaluation and the document
// match with the engine; path selection, merging and deletion are separate
// code over yaml-cpp nodes.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "safesubst/steps.h"

namespace safesubst::testing {

/// yaml-cpp's LoadAll, guarded and with the errors of detail::LoadYamlStream
/// (a runaway document, valid YAML yaml-cpp misreads, nesting too deep).
std::vector<YAML::Node> LoadAllDocuments(std::string_view text);

/// The stream after the steps, as trees; or why the steps fail.
struct TreeResult {
  bool ok = false;
  std::vector<YAML::Node> documents;
  std::string error;
};

/// Applies `steps` to the documents of `rendered` on yaml-cpp trees, with the
/// same selection, matching, optional and error rules as ApplySteps.
TreeResult ApplyStepsOnTrees(std::string_view rendered, const std::vector<Step>& steps, const StepContext& context);

/// A canonical one-line text of a node: keys in order, scalars as `type:value`
/// with the type resolved from the tag and, for plain scalars, from the text
/// (null, bool, YAML 1.1 bool words, int, float, str).
std::string CanonicalForm(const YAML::Node& node);

/// The canonical forms of all documents of `text`, one per line, or
/// "parse error: ..." when it does not parse.
std::string CanonicalStream(std::string_view text);

/// The canonical forms of `documents`, one per line.
std::string CanonicalDocuments(const std::vector<YAML::Node>& documents);

/// The outcome of one engine-versus-oracle comparison.
struct OracleCheck {
  bool agree = false;
  std::string report;  ///< what differs, when they disagree
  Result<std::string> engine;  ///< what ApplySteps returned
};

/// Runs ApplySteps and ApplyStepsOnTrees on the same input and compares: both
/// fail, or both succeed and the engine's output parses to the oracle's trees.
OracleCheck CheckAgainstTrees(std::string_view rendered, const std::vector<Step>& steps, const StepContext& context);

/// How many comparisons CheckAgainstTrees has made in this process.
int OracleCheckCount();

}  // namespace safesubst::testing
