// SPDX-License-Identifier: Apache-2.0
// The variable manifest: which names are deploy-time variables, how their
// values are validated, which names are always runtime, and the steps to run.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "safesubst/diagnostic.h"
#include "safesubst/export.h"
#include "safesubst/steps.h"

namespace safesubst {

enum class VarType : std::uint8_t {
  kString, kInt, kBool, kIpv4, kCidr, kHostname, kDnsLabel, kList, kEnum, kYaml
};

/// How a value is written into an unquoted shell word (SPEC Rule 3).
enum class ShellMode : std::uint8_t {
  kSafe,  ///< quoted by context; metacharacters in an unquoted word are an error
  kRaw,   ///< written as is (`shell: raw`)
};

struct Variable {
  std::string name;
  VarType type = VarType::kString;
  std::string pattern;  ///< RE2, must match the whole value; empty for none
  /// May name other variables as `${NAME}`, expanded by CollectValues.
  std::optional<std::string> default_value;
  Location default_location;  ///< of the default's value
  bool required = false;
  bool sensitive = false;
  std::string description;
  std::vector<std::string> enum_values;  ///< kEnum only
  ShellMode shell = ShellMode::kSafe;
  Location location;  ///< of the declaration
};

/// How names come to be declared (SPEC Rule 2, last paragraph).
enum class DeclarationMode : std::uint8_t {
  kManifest,     ///< the manifest's `variables:` (the normal mode)
  kShellFormat,  ///< an envsubst SHELL-FORMAT argument: exactly the names it mentions
  kEnvironment,  ///< no declaration at all: every set environment variable, braced form only in scripts
  /// `--flavor flux`: Flux's postBuild substitution (kustomize-controller,
  /// `flux envsubst`): every braced form in every context, never a bare
  /// `$NAME`, `$$` an escaped `$`, an unset name an empty string (strict: an
  /// error); values as in kEnvironment.
  kFlux,
};

struct SAFESUBST_API Manifest {
  DeclarationMode mode = DeclarationMode::kManifest;
  std::string file;       ///< path of the manifest file, empty when built in memory
  std::string directory;  ///< base for relative fragment paths
  std::vector<Variable> variables;  ///< in declaration order
  std::vector<std::string> runtime;  ///< names that are never substituted
  /// Node paths the manifest marks as script, and as shell, written as step
  /// paths: `.data."entry.sh"`, `.spec.containers[*].args[0]`.
  std::vector<std::string> script_paths;
  std::vector<std::string> shell_paths;
  std::vector<Step> steps;

  /// The declared variable called `name`, or nullptr.
  const Variable* Find(std::string_view name) const;
  /// True when `name` is listed under `runtime`.
  bool IsRuntime(std::string_view name) const;
};

/// Parses a manifest from YAML text. `file` names it in diagnostics and sets
/// the directory fragment paths resolve against.
///
/// Top-level keys: `variables` (NAME: settings), `runtime` (list of names),
/// `scripts` and `shell` (lists of node paths), `steps` (list). A variable is
/// a mapping of `type`, `pattern` (RE2, whole value), `default`, `required`,
/// `sensitive`, `description`, `values` (enum only, and required there) and
/// `shell` (`safe` or `raw`); or a bare type name (`APP: dns-label`); or null
/// (a string). Patterns are compiled and defaults validated here. A step has
/// one action, `merge: FILE` + `into: PATH`, `delete: PATH` or `set: PATH` +
/// `value: YAML`, and optionally `append` (merge), `optional`, `when` (one
/// condition or a list, all must hold: `var` plus one of `in`/`not_in` a list
/// variable, `equals`/`not_equals` a literal, `set: true|false`) and `match`
/// (`kind`, `name`, `labels`).
///
/// Never throws. Every problem found is reported, located (1-based) in
/// `file`, in source order; unknown keys come with the valid ones and a
/// did-you-mean. `value` is set only when there are no errors.
SAFESUBST_API Result<Manifest> ParseManifest(std::string_view text, const std::string& file);

/// The largest manifest or values file read by default (16 MiB): far more
/// than any real one, and a bound for one that is a stream (/dev/zero).
inline constexpr std::size_t kDefaultMaxManifestBytes = std::size_t{16} << 20;

/// Reads and parses a manifest file; also checks that every merge step's
/// fragment file exists. An unreadable file, or one over `max_bytes` (read
/// no further than that), is an error naming the path.
SAFESUBST_API Result<Manifest> LoadManifestFile(const std::string& path, std::size_t max_bytes = kDefaultMaxManifestBytes);

/// A manifest declaring exactly the names mentioned in an envsubst SHELL-FORMAT
/// argument such as `'${A} $B'` (also `${A:-x}` and the other default forms),
/// all of type string, in order of first mention.
SAFESUBST_API Manifest ManifestFromShellFormat(std::string_view shell_format);

/// The manifest spelling of a type: "string", "dns-label", ...
SAFESUBST_API std::string_view VarTypeName(VarType type);

}  // namespace safesubst
