// SPDX-License-Identifier: Apache-2.0
#include "script_kinds.h"

#include <algorithm>
#include <optional>
#include <unordered_set>

#include "classify.h"
#include "object_paths.h"
#include "shell_script_scalars.h"

namespace safesubst {

namespace {

// `offset` is on the first line of a block scalar's value, and that line
// starts with `#` or `$`: with the value in, it may be a `#!` line. In a
// folded block the value's first line is the whole first paragraph.
bool OnOpeningLine(std::string_view text, const Scalar& scalar, std::size_t offset) {
  if (scalar.style != ScalarStyle::kLiteral && scalar.style != ScalarStyle::kFolded) return false;
  const std::size_t header_end = text.find('\n', scalar.offset);
  if (header_end == std::string_view::npos || header_end > offset) return false;
  const std::size_t start = text.find_first_not_of(' ', header_end + 1);
  if (start == std::string_view::npos || start > offset || (text[start] != '#' && text[start] != '$')) return false;
  const std::size_t first_line_end = scalar.style == ScalarStyle::kFolded ? text.find("\n\n", start) : text.find('\n', start);
  return first_line_end == std::string_view::npos || first_line_end >= offset;
}

// `offset` is in a flow scalar where a value can make its first line a `#!`
// line: the scalar starts with `#` (or, double-quoted, with an escape that may
// stand for one), or the value is the scalar's first text and is empty or
// starts with `#`. (A plain scalar that comes to start with `#` is written
// quoted.) A value at the start of a scalar that is a script already only
// lands in it: it is quoted for the shell.
bool MayFormFlowShebang(std::string_view text, const Scalar& scalar, std::size_t offset, std::string_view value) {
  if (scalar.style == ScalarStyle::kLiteral || scalar.style == ScalarStyle::kFolded) return false;
  const bool quoted = scalar.style != ScalarStyle::kPlain;
  const std::size_t first = scalar.offset + (quoted ? 1 : 0);
  if (first >= text.size()) return false;
  if (text[first] == '#' || (scalar.style == ScalarStyle::kDoubleQuoted && text[first] == '\\')) return true;
  return offset == first && !scalar.is_shell && (value.empty() || value.front() == '#');
}

std::string Values(const EncodedScalar& scalar) {
  const bool several = scalar.names.find(',') != std::string::npos;
  return std::string(several ? "the values of " : "the value of ") + scalar.names + (several ? " were" : " was");
}

Diagnostic KindChanged(const EncodedScalar& scalar, const std::string& path, std::string_view after) {
  const std::string where = "the text at '" + path + "'";
  if (scalar.is_shell) {
    return MakeError(scalar.at,
                     Values(scalar) + " quoted for a shell script here, but " + std::string(after) + ", " + where +
                         " is not a shell script: the shell quoting would become part of the value",
                     "keep the shell `command:` of this script where it is written");
  }
  return MakeError(scalar.at,
                   Values(scalar) + " written as data here, but " + std::string(after) + ", " + where +
                       " is a shell script, where a value could run as a command",
                   "write the shell command line (`command: [/bin/sh, -c]`) literally, in the same file as the "
                   "script it runs, so that the script is rendered as shell");
}

Diagnostic KindHidden(const EncodedScalar& scalar, const Alias& alias, std::string_view rendered,
                      std::string_view after) {
  return MakeError(scalar.at,
                   Values(scalar) + " written here, but " + std::string(after) +
                       ", its document takes a command line from the alias " +
                       std::string(rendered.substr(alias.offset, alias.length)) +
                       ", so whether the value is in a shell script cannot be told",
                   "write that command line out where it is used");
}

Diagnostic KindUnchecked(const EncodedScalar& scalar, std::string_view after) {
  return MakeError(scalar.at,
                   Values(scalar) + " written here, but " + std::string(after) +
                       ", the text it was written into is not found, so whether it is in a shell script "
                       "cannot be checked",
                   "write the scalar so that its value reads as one piece (no line folds or escapes around "
                   "the placeholder)");
}

// The EncodedScalars with one decoded value: a stream repeats the same few
// values thousands of times, so each rendered scalar is checked against the
// group in constant time, and the group is reported once.
struct ValueGroup {
  const EncodedScalar* shell = nullptr;            // the first one written for a shell script
  const EncodedScalar* data = nullptr;             // the first one written as data
  const EncodedScalar* shell_not_inert = nullptr;  // the first of each kind whose values do not read alike
  const EncodedScalar* data_not_inert = nullptr;
  bool found = false;
  bool reported = false;

  void Add(const EncodedScalar* scalar) {
    const EncodedScalar*& first = scalar->is_shell ? shell : data;
    if (first == nullptr) first = scalar;
    if (scalar->shell_inert) return;
    const EncodedScalar*& not_inert = scalar->is_shell ? shell_not_inert : data_not_inert;
    if (not_inert == nullptr) not_inert = scalar;
  }
  const EncodedScalar* NotInert() const { return data_not_inert ? data_not_inert : shell_not_inert; }

  // The one written for the other kind of text than `scalar` is, whose
  // values do not read alike there (ReadAlike); null when the group fits.
  const EncodedScalar* Mismatch(const Scalar& scalar, std::string_view decoded) const {
    if ((scalar.is_shell ? shell : data) != nullptr) return nullptr;
    const EncodedScalar* other = scalar.is_shell ? data : shell;
    if (!ReadAlike(*other, scalar.is_shell, decoded)) return other;
    // The first one read alike, so the text allows inert values: a value
    // that is not inert is what remains to fail.
    return scalar.is_shell ? data_not_inert : shell_not_inert;
  }
};

}  // namespace

bool HasHeredocOrArithmetic(std::string_view script) {
  return script.find("<<") != std::string_view::npos || script.find("((") != std::string_view::npos ||
         script.find("$[") != std::string_view::npos;
}

bool ReadAlike(const EncodedScalar& written, bool now_shell, std::string_view rendered_value) {
  if (written.is_shell == now_shell) return true;
  return written.shell_inert && !(now_shell && HasHeredocOrArithmetic(rendered_value));
}

std::optional<Diagnostic> KindChangeProblem(const EncodedScalar& written, const Scalar& now,
                                            std::string_view rendered_value, const std::string& path,
                                            std::string_view after) {
  if (ReadAlike(written, now.is_shell, rendered_value)) return std::nullopt;
  return KindChanged(written, path, after);
}

bool ShellDecidingPlaces::Contains(const Reference& reference, std::string_view value) {
  if (reference.scalar == Reference::kNoScalar) return false;
  const Scalar& scalar = tokens_.scalars[reference.scalar];
  if (scalar.is_key) return IsDataEntry(tokens_, scalar.path);  // it may come to end in `.sh`
  if (IsObjectKind(tokens_, scalar) || OnOpeningLine(text_, scalar, reference.offset)) return true;
  if (MayFormFlowShebang(text_, scalar, reference.offset, value)) return true;
  return IsCommandLineItem(tokens_, scalar) && HasItemAfter(reference.scalar);
}

bool ShellDecidingPlaces::HasItemAfter(std::uint32_t scalar_index) {
  const PathSegment& item = tokens_.paths[tokens_.scalars[scalar_index].path];
  // The next item of the same sequence is the next scalar (items are words).
  const std::size_t next = scalar_index + 1;
  if (next < tokens_.scalars.size() && tokens_.scalars[next].path != PathSegment::kRoot &&
      tokens_.paths[tokens_.scalars[next].path].parent == item.parent) {
    return true;
  }
  // The last `args` item ends its command line; after the last `command` item
  // come the container's `args`, wherever they are written.
  if (tokens_.paths[item.parent].key == "args") return false;
  if (command_followed_.empty()) {
    command_followed_.assign(tokens_.scalars.size(), false);
    const CommandLines lines = CollectCommandLines(tokens_);
    for (const CommandLine& line : lines.lines) {
      for (std::size_t i = 0; i + 1 < line.items.size(); ++i) command_followed_[line.items[i]] = true;
    }
  }
  return command_followed_[scalar_index];
}

namespace {

// For each command-line alias, the mapping its `*name` stands for: the node
// of the last anchor `&name` before it in its document, when that anchor is
// known to be a mapping's (an alias of any other node has none). One walk
// over both in source order: a stream may have many of each.
std::unordered_map<const Alias*, const Anchor*> AliasedMappings(const Tokens& tokens) {
  auto by_offset = [](const auto* a, const auto* b) { return a->offset < b->offset; };
  std::vector<const Anchor*> anchors;
  for (const Anchor& anchor : tokens.anchors) anchors.push_back(&anchor);
  std::vector<const Alias*> aliases;
  for (const Alias& alias : tokens.command_line_aliases) aliases.push_back(&alias);
  std::sort(anchors.begin(), anchors.end(), by_offset);
  std::sort(aliases.begin(), aliases.end(), by_offset);
  std::unordered_map<std::string_view, const Anchor*> last_anchor;
  std::unordered_map<const Alias*, const Anchor*> aliased;
  std::size_t next = 0;
  for (const Alias* alias : aliases) {
    for (; next < anchors.size() && anchors[next]->offset < alias->offset; ++next) {
      last_anchor[anchors[next]->name] = anchors[next];
    }
    auto found = last_anchor.find(alias->name);
    if (found == last_anchor.end() || found->second->document != alias->document) continue;
    if (found->second->on_mapping) aliased[alias] = found->second;
  }
  return aliased;
}

}  // namespace

HiddenCommandLines::HiddenCommandLines(const Tokens& tokens) : tokens_(tokens) {
  if (tokens.command_line_aliases.empty()) return;
  // The mappings with their own `command` or `args`: a `<<` merge into one
  // hides part of its command line. A mapping merged whole brings both,
  // classified at its anchor.
  std::unordered_set<std::uint32_t> with_command_line;
  // The mappings a merge can bring a command line from: with a `command`,
  // `args` or `<<` key, or an alias that may stand for one; of those, the
  // ones that bring it from yet another mapping (`<<` or an alias key).
  std::unordered_set<std::uint32_t> bringing_command_line, bringing_from_elsewhere;
  for (const Scalar& scalar : tokens.scalars) {
    if (!scalar.is_key || scalar.path == PathSegment::kRoot) continue;
    const PathSegment& entry = tokens.paths[scalar.path];
    if (entry.key == "command" || entry.key == "args") with_command_line.insert(entry.parent);
    if (entry.key == "command" || entry.key == "args" || entry.key == "<<") bringing_command_line.insert(entry.parent);
    if (entry.key == "<<") bringing_from_elsewhere.insert(entry.parent);
  }
  for (const Alias& alias : tokens.command_line_aliases) {
    if (alias.path == PathSegment::kRoot) continue;
    bringing_command_line.insert(tokens.paths[alias.path].parent);
    bringing_from_elsewhere.insert(tokens.paths[alias.path].parent);
  }
  const std::unordered_map<const Alias*, const Anchor*> aliased = AliasedMappings(tokens);
  for (const Alias& alias : tokens.command_line_aliases) {
    std::vector<Region>& regions = by_document_[alias.document];
    if (alias.path == PathSegment::kRoot) {  // a key of a top-level mapping
      regions.push_back(Region{&alias});
      continue;
    }
    const PathSegment* merge = &tokens.paths[alias.path];
    // An item of `<<: [*a, *b]`: the merged mappings may bring a command and
    // args that were each classified at their own anchor.
    const bool in_merge_list = merge->index >= 0 && tokens.paths[merge->parent].key == "<<";
    const bool merge_alias = in_merge_list || (merge->index < 0 && merge->key == "<<");
    // A `command`/`args` value or item, or a key: the node it stands for
    // may be any node of the document.
    if (!merge_alias) {
      regions.push_back(Region{&alias});
      continue;
    }
    const std::uint32_t into = in_merge_list ? tokens.paths[merge->parent].parent : merge->parent;
    if (!in_merge_list && with_command_line.count(into) == 0) continue;
    // A merged mapping known to have no command line hides nothing; one known
    // to have its own hides the scalars of both command lines, and only those.
    auto merged = aliased.find(&alias);
    if (merged != aliased.end() && bringing_command_line.count(merged->second->path) == 0) continue;
    Region region{&alias};
    if (merged != aliased.end() && merged->second->path != PathSegment::kRoot &&
        bringing_from_elsewhere.count(merged->second->path) == 0) {
      region.whole_document = false;
      region.into = into;
      region.merged = merged->second->path;
    }
    regions.push_back(region);
  }
  for (auto document = by_document_.begin(); document != by_document_.end();) {
    document = document->second.empty() ? by_document_.erase(document) : std::next(document);
  }
}

const Alias* HiddenCommandLines::Hiding(const Scalar& scalar) const {
  auto document = by_document_.find(scalar.document);
  if (document == by_document_.end()) return nullptr;
  for (const Region& region : document->second) {
    if (region.whole_document) return region.alias;
    for (std::uint32_t at = scalar.path; at != PathSegment::kRoot; at = tokens_.paths[at].parent) {
      const PathSegment& segment = tokens_.paths[at];
      const bool in_command_line = segment.parent == region.into && (segment.key == "command" || segment.key == "args");
      if (in_command_line || segment.parent == region.merged) return region.alias;
    }
  }
  return nullptr;
}

Diagnostics CheckScriptKindsKept(std::string_view rendered, const Manifest& manifest,
                                 const std::vector<EncodedScalar>& encoded, const std::string& file,
                                 std::string_view after, bool every_scalar_present) {
  std::unordered_map<std::string_view, ValueGroup> groups;
  for (const EncodedScalar& scalar : encoded) groups[scalar.value].Add(&scalar);
  Diagnostics problems;
  if (groups.empty()) return problems;
  Tokens tokens = Tokenize(rendered, TokenizerOptions{file});
  if (HasErrors(tokens.diagnostics)) {
    const Diagnostic& first = *std::find_if(tokens.diagnostics.begin(), tokens.diagnostics.end(),
                                            [](const Diagnostic& d) { return d.severity == Severity::kError; });
    problems.push_back(MakeError(first.location, "cannot tell which scalars are shell scripts " + std::string(after) +
                                                     ": " + first.message));
    return problems;
  }
  Classify(rendered, manifest, &tokens);
  const HiddenCommandLines hidden(tokens);
  for (const Scalar& scalar : tokens.scalars) {
    if (scalar.is_key) continue;
    const std::string decoded = DecodeScalar(rendered, scalar);
    auto group = groups.find(decoded);
    if (group == groups.end()) continue;
    ValueGroup& values = group->second;
    values.found = true;
    if (values.reported) continue;
    const Alias* alias = hidden.Hiding(scalar);
    if (alias != nullptr && values.NotInert() != nullptr) {
      problems.push_back(KindHidden(*values.NotInert(), *alias, rendered, after));
      values.reported = true;
    } else if (const EncodedScalar* mismatch = alias == nullptr ? values.Mismatch(scalar, decoded) : nullptr) {
      problems.push_back(KindChanged(*mismatch, tokens.PathString(scalar.path), after));
      values.reported = true;
    }
  }
  if (!every_scalar_present) return problems;
  for (const EncodedScalar& scalar : encoded) {  // in order, for the same report every time
    ValueGroup& values = groups[scalar.value];
    if (values.found || values.reported || values.NotInert() == nullptr) continue;
    problems.push_back(KindUnchecked(*values.NotInert(), after));
    values.reported = true;
  }
  return problems;
}

}  // namespace safesubst
