// SPDX-License-Identifier: Apache-2.0
// Rendering: substitute declared variables into a template, encode each value
// for where it lands, verify the structure invariant, and run the steps.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "safesubst/diagnostic.h"
#include "safesubst/export.h"
#include "safesubst/manifest.h"
#include "safesubst/values.h"

namespace safesubst {

/// Bounds on hostile input. Each is checked before the work it protects, and
/// exceeding one is an error that names the limit and the option to raise it.
struct Limits {
  std::size_t max_input_bytes = std::size_t{256} << 20;  ///< template size (256 MiB)
  /// Nesting of collections. yaml-cpp's parser is recursive, so a deeply
  /// nested input would overflow its stack: checked before yaml-cpp sees it.
  std::uint32_t max_depth = 256;
  std::uint32_t max_aliases = 10000;  ///< `*alias` nodes (billion laughs)
  std::size_t max_value_bytes = std::size_t{1} << 20;  ///< one substituted value (1 MiB)
  std::uint32_t max_documents = 100000;  ///< documents in one stream
  std::size_t max_manifest_bytes = kDefaultMaxManifestBytes;  ///< a manifest or values file (16 MiB)
  /// The output of one template (1 GiB): refused before the values are
  /// encoded when writing them as they are would already pass it.
  std::size_t max_output_bytes = std::size_t{1} << 30;
  /// Most errors, and most warnings and notes, kept of one template; the
  /// rest are counted in one note (diagnostic.h). 0 keeps them all.
  std::size_t max_errors = kDefaultMaxErrors;
};

struct RenderOptions {
  std::string file_name = "<stdin>";  ///< used in diagnostics
  /// A kept undeclared reference in a data context is an error (not a warning).
  bool strict = false;
  /// An undeclared `${NAME}` in a data context is kept with a warning, not an error.
  bool allow_undeclared = false;
  /// Check that the output kept the template's structure (SPEC Rule 3).
  bool check_structure = true;
  /// How: false (the default) proves it with the project's own YAML reader,
  /// scalar by scalar: each rewritten scalar keeps its extent, style and
  /// value, and no other node changes; true also parses template and output
  /// with yaml-cpp, an independent parser, and compares the two trees node
  /// by node (much slower). A render with a `type: yaml` value always uses
  /// the yaml-cpp comparison.
  bool full_structure_check = false;
  /// Add notes on how the render was checked (e.g. that yaml-cpp misreads
  /// this valid YAML, so the structure was proved at token level).
  bool verbose = false;
  /// Fill RenderResult::references (for --explain and `vars`). Costs a few
  /// strings per reference; a render that only wants the output turns it off.
  bool report_references = true;
  /// Threads for a large multi-document stream, which is rendered in
  /// document-aligned chunks: 0 is one per core, 1 renders on the calling
  /// thread. Output and diagnostics do not depend on it.
  unsigned threads = 0;
  /// Run the manifest's steps after substitution.
  bool run_steps = true;
  /// Fill RenderResult::sensitive_spans (for `render --diff`, which shows
  /// the output around them). The render then neither streams nor renders a
  /// large stream in parallel pieces.
  bool report_sensitive_spans = false;
  /// Allow merge fragments outside the manifest's directory tree. Off by
  /// default: a manifest from one repository must not read another's files.
  bool allow_outside = false;
  Limits limits;
};

/// What rendering does (or would do) with one `$` form; the data behind
/// `--explain` and `safesubst vars`.
struct ReferenceReport {
  enum class Action : std::uint8_t {
    kSubstitute,      ///< declared, has a value
    kKeepRuntime,     ///< undeclared (or listed runtime) in a script: kept
    kKeepUndeclared,  ///< undeclared in data: kept with a warning
    kEscape,          ///< `$${NAME}` written as `${NAME}`
    kError,           ///< this reference makes the render fail
    kIgnored,         ///< comment, `$(NAME)`, `$$`, shell syntax
  };
  /// Where the form stands (SPEC Rule 2), which decides what an undeclared
  /// name means there.
  enum class Context : std::uint8_t {
    kComment,  ///< in a `#` comment: never substituted, never reported
    kScript,   ///< in a shell script: an undeclared name is the script's own
    kData,     ///< in any other scalar or a key: an undeclared `${NAME}` is an error
  };
  std::string text;  ///< the form as written, e.g. `${EFS_IP_2A}`
  std::string name;
  std::uint32_t line = 0, column = 0;
  Context context = Context::kData;
  std::string path;  ///< node path of the scalar, e.g. `spec.template.spec.containers[0].args[0]`
  Action action = Action::kIgnored;
  /// In a shell script: the quoting state at the reference; else empty.
  std::string shell_state;
  std::string note;  ///< free text, e.g. "shell: raw, written unquoted"
};

/// What Render and RenderString return: a Result (diagnostic.h) for a render.
struct RenderResult {
  std::string output;  ///< the rendered stream; empty when the render failed
  Diagnostics diagnostics;
  std::vector<ReferenceReport> references;
  /// With RenderOptions::report_sensitive_spans: the bytes [first, second)
  /// of `output` that a sensitive variable's value was written into, as
  /// written (quoted, escaped, re-indented), sorted and disjoint. A scalar
  /// rewritten double-quoted around such a value is one span; after the
  /// manifest's steps, the spans are where those written texts (and the
  /// values as given) are found again.
  std::vector<std::pair<std::size_t, std::size_t>> sensitive_spans;

  bool ok() const { return !HasErrors(diagnostics); }
};

/// Renders one template. On error, `output` is empty and `diagnostics` say why.
SAFESUBST_API RenderResult Render(std::string_view template_text, const Manifest& manifest,
                                  const ValueSet& values, const RenderOptions& options);

/// Variables and their values for RenderString, as (NAME, value) pairs.
using NamedValues = std::vector<std::pair<std::string, std::string>>;

/// The common case in one call: renders `template_text` with each of
/// `values` a declared string variable, as a manifest declaring them would
/// (`RenderString(text, {{"APP", "web"}})`): any other `${NAME}` in data is an
/// error, a script's own variables are kept. The same result as Render; a
/// name that is not a variable name is an error in it.
SAFESUBST_API RenderResult RenderString(std::string_view template_text, const NamedValues& values,
                                        const RenderOptions& options = {});

/// "substitute", "keep (runtime)", "keep (undeclared)", "escape", "error" or "ignore".
SAFESUBST_API std::string_view ActionName(ReferenceReport::Action action);
/// "comment", "script" or "data".
SAFESUBST_API std::string_view ContextName(ReferenceReport::Context context);

}  // namespace safesubst
