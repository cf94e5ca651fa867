// SPDX-License-Identifier: Apache-2.0
#include "classify.h"

#include <algorithm>
#include <string>
#include <vector>

#include "command_line.h"
#include "safesubst/shell.h"

namespace safesubst {

namespace {

bool EndsWith(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

// The mapping a node's entries end up in: a mapping written under a `<<`
// merge key (`<<: {command: [sh, -c]}`, or an item of `<<: [...]`) merges
// into the mapping that holds the `<<`.
std::uint32_t MergeTarget(const Tokens& tokens, std::uint32_t mapping) {
  while (mapping != PathSegment::kRoot) {
    const PathSegment& segment = tokens.paths[mapping];
    std::uint32_t merge = mapping;
    if (segment.index >= 0 && segment.parent != PathSegment::kRoot) merge = segment.parent;  // an item of `<<: [...]`
    const PathSegment& entry = tokens.paths[merge];
    if (entry.index >= 0 || entry.key != "<<") return mapping;
    mapping = entry.parent;
  }
  return mapping;
}

}  // namespace

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

// Groups the non-key scalars that are items of `command`/`args` sequences by
// the mapping that holds those sequences (the container).
CommandLines CollectCommandLines(const Tokens& tokens) {
  struct Entry { std::uint32_t container; bool is_args; std::int32_t index; std::uint32_t scalar; };
  std::vector<Entry> entries;
  for (std::uint32_t i = 0; i < tokens.scalars.size(); ++i) {
    const Scalar& scalar = tokens.scalars[i];
    if (scalar.is_key || !IsCommandLineItem(tokens, scalar)) continue;
    const PathSegment& item = tokens.paths[scalar.path];
    const PathSegment& sequence = tokens.paths[item.parent];
    entries.push_back({MergeTarget(tokens, sequence.parent), sequence.key == "args", item.index, i});
  }
  // Ties (items merged from `<<`) keep their source order: the scalar index
  // breaks them, as a stable sort would, without its buffer.
  std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
    if (a.container != b.container) return a.container < b.container;
    if (a.is_args != b.is_args) return !a.is_args;
    if (a.index != b.index) return a.index < b.index;
    return a.scalar < b.scalar;
  });
  CommandLines out;
  out.items.reserve(entries.size());
  std::vector<std::size_t> starts;  // of each line in out.items, then the end
  for (std::size_t i = 0; i < entries.size(); ++i) {
    if (i == 0 || entries[i].container != entries[i - 1].container) starts.push_back(i);
    out.items.push_back(entries[i].scalar);
  }
  starts.push_back(entries.size());
  out.lines.reserve(starts.size() - 1);
  for (std::size_t k = 0; k + 1 < starts.size(); ++k) {
    out.lines.push_back({std::span(out.items).subspan(starts[k], starts[k + 1] - starts[k])});
  }
  return out;
}

namespace {

// Whether the value of `scalar` may start with `-` or `+`, read from its
// first byte (after the quote or the block header), so that a script is
// never decoded just to see that it is not an option.
bool MayBeOption(std::string_view text, const Scalar& scalar) {
  std::size_t first = scalar.offset;
  if (scalar.style == ScalarStyle::kSingleQuoted || scalar.style == ScalarStyle::kDoubleQuoted) ++first;
  if (scalar.style == ScalarStyle::kLiteral || scalar.style == ScalarStyle::kFolded) {
    first = text.find('\n', scalar.offset);
    if (first == std::string_view::npos) return false;
    first = text.find_first_not_of(" \r\n", first);
  }
  // A double-quoted escape (`"\x2de"`) may hide a `-`: such a word is decoded.
  return first < text.size() && (text[first] == '-' || text[first] == '+' || text[first] == '\\');
}

// Marks the script of each shell command line (command_line.h).
void MarkShellCommandLines(std::string_view text, Tokens* tokens) {
  const CommandLines lines = CollectCommandLines(*tokens);
  for (const CommandLine& line : lines.lines) {
    auto word = [&](std::size_t i) { return DecodeScalar(text, tokens->scalars[line.items[i]]); };
    auto may_be_option = [&](std::size_t i) { return MayBeOption(text, tokens->scalars[line.items[i]]); };
    const std::size_t script = ShellScriptOperand(line.items.size(), word, may_be_option);
    if (script == std::string_view::npos) continue;
    Scalar& scalar = tokens->scalars[line.items[script]];
    scalar.is_shell = true;
    // The shell is the first word that names one (ShellScriptOperand found it).
    for (std::size_t i = 0; i < script; ++i) {
      const std::string program = word(i);
      if (!IsShellProgram(program)) continue;
      scalar.bash_script = ShellsRunning(program) == ScriptShells::kBash;
      break;
    }
  }
}

// The decoded value of the top-level `kind` of each document, by document index.
std::vector<std::string> DocumentKinds(std::string_view text, const Tokens& tokens) {
  std::vector<std::string> kinds;
  for (std::size_t i = 0; i + 1 < tokens.scalars.size(); ++i) {
    const Scalar& key = tokens.scalars[i];
    const Scalar& value = tokens.scalars[i + 1];
    if (!key.is_key || value.is_key || key.path != value.path || !IsTopLevelKind(tokens, key)) continue;
    if (kinds.size() <= key.document) kinds.resize(key.document + 1);
    kinds[key.document] = DecodeScalar(text, value);
  }
  return kinds;
}

bool IsConfigMapShellKey(const Tokens& tokens, const Scalar& scalar,
                         const std::vector<std::string>& kinds) {
  if (scalar.document >= kinds.size() || kinds[scalar.document] != "ConfigMap") return false;
  if (scalar.path == PathSegment::kRoot) return false;
  const PathSegment& entry = tokens.paths[scalar.path];
  if (entry.parent == PathSegment::kRoot || tokens.paths[entry.parent].key != "data") return false;
  return tokens.paths[entry.parent].parent == PathSegment::kRoot && EndsWith(entry.key, ".sh");
}

// A block scalar whose first line is a shell `#!`, or a ConfigMap's `*.sh`
// entry: marks it as shell, run by the shell its `#!` names (else /bin/sh).
void MarkIfItSaysShell(std::string_view text, const Tokens& tokens, const std::vector<std::string>& kinds,
                       Scalar* scalar) {
  const bool block = scalar->style == ScalarStyle::kLiteral || scalar->style == ScalarStyle::kFolded;
  // A `#!` must be in the raw text before decoding is worth it.
  std::string decoded;
  if (block && text.substr(scalar->offset, scalar->length).find("#!") != std::string_view::npos) {
    decoded = DecodeScalar(text, *scalar);
  }
  const std::string_view shebang = ShebangShell(decoded);
  if (shebang.empty() && !IsConfigMapShellKey(tokens, *scalar, kinds)) return;
  if (!scalar->is_shell) scalar->bash_script = !shebang.empty() && ShellsRunning(shebang) == ScriptShells::kBash;
  scalar->is_shell = true;
}

// Marks the value scalars at the manifest's `scripts:` and `shell:` paths.
void MarkListedScalars(const Manifest& manifest, Tokens* tokens) {
  if (manifest.script_paths.empty() && manifest.shell_paths.empty()) return;
  for (Scalar& scalar : tokens->scalars) {
    if (scalar.is_key) continue;
    const std::string path = tokens->PathString(scalar.path);
    if (MatchesAnyPath(path, manifest.script_paths)) scalar.context = ContextClass::kScript;
    if (MatchesAnyPath(path, manifest.shell_paths)) {
      scalar.context = ContextClass::kScript;
      scalar.is_shell = true;
    }
  }
}

}  // namespace

bool MatchesAnyPath(std::string_view path, const std::vector<std::string>& patterns) {
  return std::any_of(patterns.begin(), patterns.end(),
                     [&](const std::string& pattern) { return PathMatches(path, pattern); });
}

bool PathMatches(std::string_view path, std::string_view pattern) {
  if (!pattern.empty() && pattern.front() == '.') pattern.remove_prefix(1);
  std::size_t p = 0, q = 0;
  while (p < path.size() && q < pattern.size()) {
    if (pattern.substr(q, 3) == "[*]" && path[p] == '[') {
      std::size_t close = path.find(']', p);
      if (close == std::string_view::npos) return false;
      p = close + 1;
      q += 3;
    } else if (path[p] == pattern[q]) {
      ++p;
      ++q;
    } else {
      return false;
    }
  }
  return p == path.size() && q == pattern.size();
}

// The markings are independent (each reads the text, styles and paths, none
// reads a mark), so they may run in any order and share passes.
void Classify(std::string_view text, const Manifest& manifest, Tokens* tokens) {
  MarkListedScalars(manifest, tokens);
  MarkShellCommandLines(text, tokens);
  const std::vector<std::string> kinds = DocumentKinds(text, *tokens);
  for (Scalar& scalar : tokens->scalars) {
    if (!scalar.is_key) MarkIfItSaysShell(text, *tokens, kinds, &scalar);
  }
  // References carry their scalar's context; the manifest may have changed it.
  for (Reference& reference : tokens->references) {
    if (reference.scalar != Reference::kNoScalar) reference.context = tokens->scalars[reference.scalar].context;
  }
}

}  // namespace safesubst
