// The variable manifest: which names are deploy-time variables, how their
// values are validated, which names are always runtime, and the steps to run.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "safesubst/diagnostic.h"
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
  std::optional<std::string> default_value;
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
};

struct Manifest {
  DeclarationMode mode = DeclarationMode::kManifest;
  std::string file;       ///< path of the manifest file, empty when built in memory
  std::string directory;  ///< base for relative fragment paths
  std::vector<Variable> variables;  ///< in declaration order
  std::vector<std::string> runtime;  ///< names that are never substituted
  std::vector<std::string> script_paths;  ///< node paths the manifest marks as script
  std::vector<std::string> shell_paths;   ///< node paths the manifest marks as shell
  std::vector<Step> steps;

  const Variable* Find(std::string_view name) const;
  bool IsRuntime(std::string_view name) const;
};

/// Parses a manifest from YAML text. `file` names it in diagnostics and sets
/// the directory fragment paths resolve against.
Result<Manifest> ParseManifest(std::string_view text, const std::string& file);

/// Reads and parses a manifest file.
Result<Manifest> LoadManifestFile(const std::string& path);

/// A manifest declaring exactly the names mentioned in an envsubst SHELL-FORMAT
/// argument such as `'${A} $B'`, all of type string.
Manifest ManifestFromShellFormat(std::string_view shell_format);

std::string_view VarTypeName(VarType type);

}  // namespace safesubst
