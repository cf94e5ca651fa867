#include "classify.h"

#include <algorithm>
#include <span>
#include <string>
#include <vector>

#include "safesubst/shell.h"

namespace safesubst {

namespace {

constexpr std::string_view kShells[] = {"sh",  "bash",  "dash", "ash",  "zsh",  "ksh",   "mksh", "rbash", "rzsh",
                                        "yash", "posh", "lksh", "ksh93", "pdksh", "oksh", "loksh", "hush"};
// Programs that run a command given after their own options and operands:
// init processes, `env`, `busybox sh`, and the ones that change the user,
// the limits or the root first (`su-exec app sh -c`, `timeout 300 sh -c`).
constexpr std::string_view kWrappers[] = {"tini",  "tini-static", "dumb-init", "catatonit", "env",    "busybox",
                                          "timeout", "su-exec",   "gosu",      "nice",      "ionice", "nohup",
                                          "chroot",  "setsid",    "stdbuf",    "runuser",   "setpriv", "chpst",
                                          "sudo",    "doas",      "s6-setuidgid"};

bool IsOneOf(std::string_view program, std::span<const std::string_view> names) {
  std::size_t slash = program.rfind('/');
  if (slash != std::string_view::npos) program.remove_prefix(slash + 1);
  return std::find(names.begin(), names.end(), program) != names.end();
}

// The position of the shell in a command line such as `sh -c`, `tini -- sh
// -c`, `env A=1 /bin/bash -ec` or `su-exec app sh -c`; npos when the program
// is not a shell. After a wrapper, every word up to the first shell is taken
// for the wrapper's options and operands: a program there that is not a
// wrapper only makes its arguments be quoted as shell, never less.
template <typename Value>
std::size_t ShellPosition(const std::vector<std::uint32_t>& items, Value value) {
  if (items.empty()) return std::string_view::npos;
  const std::string program = value(items[0]);
  if (IsOneOf(program, kShells)) return 0;
  if (!IsOneOf(program, kWrappers)) return std::string_view::npos;
  for (std::size_t i = 1; i < items.size(); ++i) {
    if (IsOneOf(value(items[i]), kShells)) return i;
  }
  return std::string_view::npos;
}

// Options of sh, bash, dash, zsh and ksh that take the next word as their
// argument: `-o pipefail`, bash's `-O extglob`, `--rcfile FILE`, and each
// `o`/`O` in a bundle such as `-euo pipefail`.
std::size_t ArgumentsTaken(std::string_view option) {
  if (option == "--rcfile" || option == "--init-file") return 1;
  if (option.starts_with("--")) return 0;
  return static_cast<std::size_t>(std::count_if(option.begin() + 1, option.end(),
                                                [](char c) { return c == 'o' || c == 'O'; }));
}

// `-c`, or a bundle of single-letter options containing c such as `-ec`.
bool IsDashC(std::string_view arg) {
  return arg.size() >= 2 && arg[0] == '-' && arg[1] != '-' && arg.find('c') != std::string_view::npos;
}

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
std::vector<CommandLine> CollectCommandLines(const Tokens& tokens) {
  struct Entry { std::uint32_t container; bool is_args; std::int32_t index; std::uint32_t scalar; };
  std::vector<Entry> entries;
  for (std::uint32_t i = 0; i < tokens.scalars.size(); ++i) {
    const Scalar& scalar = tokens.scalars[i];
    if (scalar.is_key || !IsCommandLineItem(tokens, scalar)) continue;
    const PathSegment& item = tokens.paths[scalar.path];
    const PathSegment& sequence = tokens.paths[item.parent];
    entries.push_back({MergeTarget(tokens, sequence.parent), sequence.key == "args", item.index, i});
  }
  std::stable_sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
    if (a.container != b.container) return a.container < b.container;
    if (a.is_args != b.is_args) return !a.is_args;
    return a.index < b.index;
  });
  std::vector<CommandLine> lines;
  for (std::size_t i = 0; i < entries.size(); ++i) {
    if (i == 0 || entries[i].container != entries[i - 1].container) lines.emplace_back();
    lines.back().items.push_back(entries[i].scalar);
  }
  return lines;
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

// The shell reads its options (with their arguments) up to `--` or the first
// operand; with `-c` among them, that operand is the script: `sh -c SCRIPT`,
// `bash -euo pipefail -c SCRIPT`, `sh -c -e SCRIPT`, `sh -c -- SCRIPT`.
void MarkShellCommandLines(std::string_view text, Tokens* tokens) {
  // Only the program and its options are decoded, not the script.
  auto value = [&](std::uint32_t item) { return DecodeScalar(text, tokens->scalars[item]); };
  for (const CommandLine& line : CollectCommandLines(*tokens)) {
    const std::size_t shell = ShellPosition(line.items, value);
    if (shell == std::string_view::npos) continue;
    bool dash_c = false;
    std::size_t i = shell + 1;
    for (; i < line.items.size(); ++i) {
      if (!MayBeOption(text, tokens->scalars[line.items[i]])) break;  // the first operand
      const std::string word = value(line.items[i]);
      if (word == "--") {
        ++i;
        break;
      }
      if (word.size() < 2 || (word[0] != '-' && word[0] != '+')) break;  // the first operand
      dash_c = dash_c || IsDashC(word);
      i += ArgumentsTaken(word);
    }
    if (dash_c && i < line.items.size()) tokens->scalars[line.items[i]].is_shell = true;
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

template <typename Predicate>
void MarkScalars(Tokens* tokens, Predicate predicate, bool set_script, bool set_shell) {
  for (std::uint32_t i = 0; i < tokens->scalars.size(); ++i) {
    Scalar& scalar = tokens->scalars[i];
    if (scalar.is_key || !predicate(scalar)) continue;
    if (set_script) scalar.context = ContextClass::kScript;
    if (set_shell) scalar.is_shell = true;
  }
}

bool MatchesAny(const Tokens& tokens, const Scalar& scalar, const std::vector<std::string>& patterns) {
  return !patterns.empty() && MatchesAnyPath(tokens.PathString(scalar.path), patterns);
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

void Classify(std::string_view text, const Manifest& manifest, Tokens* tokens) {
  MarkScalars(tokens, [&](const Scalar& s) { return MatchesAny(*tokens, s, manifest.script_paths); },
              /*set_script=*/true, /*set_shell=*/false);
  MarkScalars(tokens, [&](const Scalar& s) { return MatchesAny(*tokens, s, manifest.shell_paths); },
              /*set_script=*/true, /*set_shell=*/true);
  MarkShellCommandLines(text, tokens);
  std::vector<std::string> kinds = DocumentKinds(text, *tokens);
  MarkScalars(
      tokens,
      [&](const Scalar& s) {
        bool block = s.style == ScalarStyle::kLiteral || s.style == ScalarStyle::kFolded;
        // A `#!` must be in the raw text before decoding is worth it.
        bool shebang = block && text.substr(s.offset, s.length).find("#!") != std::string_view::npos &&
                       HasShellShebang(DecodeScalar(text, s));
        return shebang || IsConfigMapShellKey(*tokens, s, kinds);
      },
      /*set_script=*/false, /*set_shell=*/true);
  // References carry their scalar's context; the manifest may have changed it.
  for (Reference& reference : tokens->references) {
    if (reference.scalar != Reference::kNoScalar) reference.context = tokens->scalars[reference.scalar].context;
  }
}

}  // namespace safesubst
