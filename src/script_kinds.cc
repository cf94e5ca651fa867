#include "script_kinds.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "classify.h"

namespace safesubst {

namespace {

bool IsCommandLineItem(const Tokens& tokens, const Scalar& scalar) {
  if (scalar.path == PathSegment::kRoot) return false;
  const PathSegment& item = tokens.paths[scalar.path];
  if (item.index < 0 || item.parent == PathSegment::kRoot) return false;
  const std::string_view sequence = tokens.paths[item.parent].key;
  return sequence == "command" || sequence == "args";
}

bool IsTopLevelKind(const Tokens& tokens, const Scalar& scalar) {
  if (scalar.path == PathSegment::kRoot) return false;
  const PathSegment& entry = tokens.paths[scalar.path];
  return entry.parent == PathSegment::kRoot && entry.index < 0 && entry.key == "kind";
}

bool IsBlock(const Scalar& scalar) {
  return scalar.style == ScalarStyle::kLiteral || scalar.style == ScalarStyle::kFolded;
}

// `offset` is on the first content line of a block scalar, which starts with
// `#!` (HasShellShebang reads the rest once the value is in).
bool OnShebangLine(std::string_view text, const Scalar& scalar, std::size_t offset) {
  if (!IsBlock(scalar)) return false;
  std::size_t at = text.find('\n', scalar.offset);
  if (at == std::string_view::npos) return false;
  at = text.find_first_not_of(' ', at + 1);
  if (at == std::string_view::npos || text.substr(at, 2) != "#!") return false;
  return text.find('\n', at) > offset;
}

Diagnostic KindChanged(const EncodedScalar& scalar, const std::string& path, std::string_view after) {
  const bool several = scalar.names.find(',') != std::string::npos;
  const std::string values = std::string(several ? "the values of " : "the value of ") + scalar.names;
  const std::string where = "the text at '" + path + "'";
  if (scalar.is_shell) {
    return MakeError(scalar.at,
                     values + (several ? " were" : " was") + " quoted for a shell script here, but " +
                         std::string(after) + ", " + where +
                         " is not a shell script: the shell quoting would become part of the value",
                     "keep the shell `command:` of this script, or declare the variable `shell: raw`");
  }
  return MakeError(scalar.at,
                   values + (several ? " were" : " was") + " written as data here, but " + std::string(after) +
                       ", " + where + " is a shell script, where a value could run as a command",
                   "write the shell command line (`command: [/bin/sh, -c]`) literally, in the same file as the "
                   "script it runs, so that the script is rendered as shell");
}

// A `<<` merge only hides a command line when the mapping also has its own
// `command` or `args`; a mapping merged whole brings both, classified at the anchor.
bool MergesIntoCommandLine(const Tokens& tokens, const Alias& alias) {
  const PathSegment& merge = tokens.paths[alias.path];
  if (merge.index >= 0 || merge.key != "<<") return true;
  return std::any_of(tokens.scalars.begin(), tokens.scalars.end(), [&](const Scalar& scalar) {
    if (!scalar.is_key || scalar.document != alias.document || scalar.path == PathSegment::kRoot) return false;
    const PathSegment& entry = tokens.paths[scalar.path];
    return entry.parent == merge.parent && (entry.key == "command" || entry.key == "args");
  });
}

}  // namespace

const Alias* CommandLineHiddenBy(const Tokens& tokens, std::uint32_t document) {
  for (const Alias& alias : tokens.command_line_aliases) {
    if (alias.document == document && MergesIntoCommandLine(tokens, alias)) return &alias;
  }
  return nullptr;
}

bool CanDecideShellScripts(std::string_view text, const Tokens& tokens, const Reference& reference) {
  if (reference.scalar == Reference::kNoScalar) return false;
  const Scalar& scalar = tokens.scalars[reference.scalar];
  if (scalar.is_key) return false;
  return (IsCommandLineItem(tokens, scalar) && !scalar.is_shell && !IsBlock(scalar)) ||
         IsTopLevelKind(tokens, scalar) || OnShebangLine(text, scalar, reference.offset);
}

Diagnostics CheckScriptKindsKept(std::string_view rendered, const Manifest& manifest,
                                 const std::vector<EncodedScalar>& encoded, const std::string& file,
                                 std::string_view after) {
  std::unordered_map<std::string_view, std::vector<const EncodedScalar*>> by_value;
  for (const EncodedScalar& scalar : encoded) {
    if (!scalar.shell_inert) by_value[scalar.value].push_back(&scalar);
  }
  Diagnostics problems;
  if (by_value.empty()) return problems;
  Tokens tokens = Tokenize(rendered, TokenizerOptions{file});
  if (HasErrors(tokens.diagnostics)) {
    const Diagnostic& first = *std::find_if(tokens.diagnostics.begin(), tokens.diagnostics.end(),
                                            [](const Diagnostic& d) { return d.severity == Severity::kError; });
    problems.push_back(MakeError(first.location, "cannot tell which scalars are shell scripts " + std::string(after) +
                                                     ": " + first.message));
    return problems;
  }
  Classify(rendered, manifest, &tokens);
  std::unordered_set<const EncodedScalar*> reported;
  for (const Scalar& scalar : tokens.scalars) {
    if (scalar.is_key) continue;
    auto found = by_value.find(DecodeScalar(rendered, scalar));
    if (found == by_value.end()) continue;
    const std::vector<const EncodedScalar*>& candidates = found->second;
    if (std::any_of(candidates.begin(), candidates.end(),
                    [&](const EncodedScalar* e) { return e->is_shell == scalar.is_shell; })) {
      continue;
    }
    for (const EncodedScalar* candidate : candidates) {
      if (reported.insert(candidate).second) {
        problems.push_back(KindChanged(*candidate, tokens.PathString(scalar.path), after));
      }
    }
  }
  return problems;
}

}  // namespace safesubst
