// SPDX-License-Identifier: Apache-2.0
#include "shell_script_scalars.h"

#include <algorithm>
#include <string>
#include <vector>

#include "object_paths.h"
#include "command_line.h"
#include "interpreter_programs.h"
#include "shell.h"

namespace safesubst {

namespace {

char Lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

bool EndsWithIgnoringCase(std::string_view text, std::string_view suffix) {
  if (text.size() < suffix.size()) return false;
  text.remove_prefix(text.size() - suffix.size());
  for (std::size_t i = 0; i < suffix.size(); ++i) {
    if (Lower(text[i]) != suffix[i]) return false;
  }
  return true;
}

// The first byte of the value of `scalar` as written (after the quote or
// the block header), or '\0', so that a script is never decoded just to see
// how it starts. A double-quoted escape (`"\x2de"`) may hide any character.
char FirstWrittenByte(std::string_view text, const Scalar& scalar) {
  std::size_t first = scalar.offset;
  if (scalar.style == ScalarStyle::kSingleQuoted || scalar.style == ScalarStyle::kDoubleQuoted) ++first;
  if (scalar.style == ScalarStyle::kLiteral || scalar.style == ScalarStyle::kFolded) {
    first = text.find('\n', scalar.offset);
    if (first == std::string_view::npos) return '\0';
    first = text.find_first_not_of(" \r\n", first);
  }
  return first < text.size() ? text[first] : '\0';
}

// Whether the value of `scalar` may start with `-` or `+`.
bool MayBeOption(std::string_view text, const Scalar& scalar) {
  const char first = FirstWrittenByte(text, scalar);
  return first == '-' || first == '+' || first == '\\';
}

// A shell script is a script context too (SPEC Rule 2): its references are
// the script's own unless declared.
void MarkShell(Scalar* scalar) {
  scalar->is_shell = true;
  scalar->context = ContextClass::kScript;
}

// A command line run without a shell that may run an interpreter taking its
// program in a word (`[python3, -c, ...]`), itself, behind any program
// (`env`, `tini --`, an entrypoint script: as interpreter_programs.h reads
// argv), or named by a value: each item is marked, and the render asks
// interpreter_programs.h where in the program each value lands
// (exec_program_contexts.h); also a line whose `env -S` splits a string
// into a command line. `may_be_program(i)`: item i is short enough to name
// a program.
template <typename Word, typename MayBeProgram>
void MarkIfRunsInterpreter(const CommandLine& line, const Word& word, const MayBeProgram& may_be_program,
                           Tokens* tokens) {
  bool runs = word(0).find('$') != std::string::npos;
  bool env = false;
  for (std::size_t i = 0; i < line.items.size() && !runs; ++i) {
    if (!may_be_program(i)) continue;
    const std::string item = word(i);
    runs = MayRunPrograms(ProgramBaseName(item));
    env = env || ProgramBaseName(item) == "env";
  }
  if (!runs && env) {  // `env -S STRING` runs the command line it splits STRING into
    std::vector<std::string> argv;
    for (std::size_t i = 0; i < line.items.size(); ++i) argv.push_back(word(i));
    runs = EnvSplitStringItem(argv) != std::string_view::npos;
  }
  if (!runs) return;
  for (std::uint32_t item : line.items) tokens->scalars[item].exec_program = true;
}

// Marks the script of each shell command line (command_line.h).
void MarkShellCommandLines(std::string_view text, Tokens* tokens) {
  const CommandLines lines = CollectCommandLines(*tokens);
  for (const CommandLine& line : lines.lines) {
    auto word = [&](std::size_t i) { return DecodeScalar(text, tokens->scalars[line.items[i]]); };
    auto may_be_option = [&](std::size_t i) { return MayBeOption(text, tokens->scalars[line.items[i]]); };
    // No program's name is longer than PATH_MAX: a longer item (a script) is not decoded to see that.
    auto may_be_program = [&](std::size_t i) { return tokens->scalars[line.items[i]].length <= 4096 + 2; };
    const std::size_t script = ShellScriptOperand(line.items.size(), word, may_be_option, may_be_program);
    if (script == std::string_view::npos) {
      MarkIfRunsInterpreter(line, word, may_be_program, tokens);
      continue;
    }
    Scalar& scalar = tokens->scalars[line.items[script]];
    MarkShell(&scalar);
    // The shell is the first word that names one (ShellScriptOperand found it).
    for (std::size_t i = 0; i < script; ++i) {
      const std::string program = word(i);
      if (!IsShellProgram(program)) continue;
      scalar.bash_script = ShellsRunning(program) == ScriptShells::kBash;
      break;
    }
  }
}

// An entry of a `data` or `stringData` whose key names a shell script file
// or another interpreter's program file (InterpreterOfFileName): a script
// or a program when it is a ConfigMap's `data` or a Secret's `stringData`
// (ScriptFileIn).
bool NamesScriptFile(const Tokens& tokens, const Scalar& scalar) {
  if (!IsDataEntry(tokens, scalar.path)) return false;
  const std::string_view key = tokens.paths[scalar.path].key;
  return IsShellScriptFileName(key) || !InterpreterOfFileName(key).empty();
}

// `map`: the `data` or `stringData` of an object of `kind`.
bool ScriptFileIn(const PathSegment& map, std::string_view kind) {
  return map.key == "data" ? kind == "ConfigMap" : kind == "Secret";
}

bool IsScriptFileEntry(const Tokens& tokens, const ObjectKinds& kinds, const Scalar& scalar) {
  if (!NamesScriptFile(tokens, scalar)) return false;
  const PathSegment& map = tokens.paths[tokens.paths[scalar.path].parent];
  return ScriptFileIn(map, kinds.Of(map.parent, scalar.document));
}

// Whether the value of `scalar` may start with `#!`, read from its raw text,
// so that only those scalars are decoded: a quoted or plain one starts with
// `#` (or, double-quoted, with an escape that may stand for it or for a line
// break), a block holds a `#!` somewhere.
bool MayStartWithShebang(std::string_view text, const Scalar& scalar) {
  const std::string_view raw = text.substr(scalar.offset, scalar.length);
  switch (scalar.style) {
    case ScalarStyle::kLiteral:
    case ScalarStyle::kFolded:
      return raw.find("#!") != std::string_view::npos;
    case ScalarStyle::kDoubleQuoted:
      return raw.size() > 1 && (raw[1] == '#' || raw[1] == '\\');
    case ScalarStyle::kSingleQuoted:
      return raw.size() > 1 && raw[1] == '#';
    case ScalarStyle::kPlain:
      return !raw.empty() && raw[0] == '#';
  }
  return false;
}

// A scalar whose first line is a shell `#!`, or a script file's entry of a
// ConfigMap or Secret: marks it as shell, run by the shell its `#!` names
// (else /bin/sh), unless a command line already said which shell runs it.
// Cluster API's KubeadmConfig hands each item of `preKubeadmCommands` and
// `postKubeadmCommands` to cloud-init's runcmd, which runs it with /bin/sh.
bool IsKubeadmCommand(const Tokens& tokens, const Scalar& scalar) {
  if (scalar.path == PathSegment::kRoot) return false;
  const PathSegment& item = tokens.paths[scalar.path];
  if (item.index < 0 || item.parent == PathSegment::kRoot) return false;
  const std::string_view sequence = tokens.paths[item.parent].key;
  return sequence == "preKubeadmCommands" || sequence == "postKubeadmCommands";
}

// Whether a value may make or change the `#!` line of a text that goes on
// after that line (`${SHEBANG}` or `#!/usr/bin/${PY}` above `print('${V}')`):
// the first line starts with `#` or `$` and holds a `$`.
bool ValueMayNameInterpreter(std::string_view decoded) {
  const std::size_t line_end = decoded.find('\n');
  if (line_end == std::string_view::npos || line_end + 1 == decoded.size()) return false;
  if (decoded[0] != '#' && decoded[0] != '$') return false;
  return decoded.substr(0, line_end).find('$') != std::string_view::npos;
}

// A program file (`#!/usr/bin/env python3`, `#!/usr/bin/perl -w`): its
// `#!` line names an interpreter, or a value may name one; the render reads
// where each value lands in it (AddProgramFileReadings) with the values of
// its first line put in. A command line's item is its line's to decide.
// `decoded`: the value, when its first byte may be `#` (else empty);
// `program_file_entry`: a ConfigMap's or Secret's file whose name says its
// language (`migrate.py`).
void MarkIfProgramFile(std::string_view text, const Tokens& tokens, std::string decoded, bool program_file_entry,
                       Scalar* scalar) {
  if (scalar->is_shell || scalar->exec_program || IsCommandLineItem(tokens, *scalar)) return;
  if (decoded.empty() && FirstWrittenByte(text, *scalar) == '$') decoded = DecodeScalar(text, *scalar);
  if (program_file_entry || ValueMayNameInterpreter(decoded) ||
      MayRunPrograms(ProgramBaseName(ShebangProgram(decoded)))) {
    scalar->exec_program = true;
  }
}

// `script_file()`: IsScriptFileEntry, asked only when there is no `#!`.
template <typename ScriptFile>
void MarkIfItSaysShell(std::string_view text, const Tokens& tokens, const ScriptFile& script_file, Scalar* scalar) {
  std::string decoded;
  if (MayStartWithShebang(text, *scalar)) decoded = DecodeScalar(text, *scalar);
  const std::string_view shebang = ShebangShell(decoded);
  const bool file = shebang.empty() && script_file();
  const bool shell_file = file && IsShellScriptFileName(tokens.paths[scalar->path].key);
  if (shebang.empty() && !shell_file && !IsKubeadmCommand(tokens, *scalar)) {
    MarkIfProgramFile(text, tokens, std::move(decoded), file, scalar);
    return;
  }
  if (!scalar->is_shell) scalar->bash_script = !shebang.empty() && ShellsRunning(shebang) == ScriptShells::kBash;
  MarkShell(scalar);
}

}  // namespace

bool OnShebangLine(std::string_view text, const Scalar& scalar, std::size_t offset, bool* in_path) {
  if (!MayStartWithShebang(text, scalar)) return false;
  std::vector<std::size_t> source_offsets;
  const std::string decoded = DecodeScalar(text, scalar, &source_offsets);
  if (!decoded.starts_with("#!")) return false;
  const std::size_t line_end = std::min(decoded.find('\n'), decoded.size());
  const auto at = static_cast<std::size_t>(std::lower_bound(source_offsets.begin(), source_offsets.end(), offset) -
                                           source_offsets.begin());
  if (in_path != nullptr) {
    const std::size_t path = std::min(decoded.find_first_not_of(" \t", 2), line_end);
    *in_path = at >= path && decoded.substr(path, at - path).find_first_of(" \t") == std::string::npos;
  }
  return at < line_end;
}

bool IsShellScriptFileName(std::string_view key) {
  for (std::string_view suffix : {".sh", ".bash", ".ksh", ".zsh"}) {
    if (EndsWithIgnoringCase(key, suffix)) return true;
  }
  return false;
}

void MarkShellScripts(std::string_view text, Tokens* tokens) {
  MarkStartupVariables(text, tokens);
  MarkShellCommandLines(text, tokens);
  const ObjectKinds kinds(text, *tokens);
  for (Scalar& scalar : tokens->scalars) {
    if (scalar.is_key) continue;
    MarkIfItSaysShell(text, *tokens, [&] { return IsScriptFileEntry(*tokens, kinds, scalar); }, &scalar);
  }
}

bool ShellScriptsAsRead::Mark(std::string_view text, const Tokens& tokens, Scalar* scalar) {
  if (!startup_.Mark(text, tokens, scalar)) return false;
  if (scalar->is_key) return true;
  if (IsCommandLineItem(tokens, *scalar)) return false;
  if (IsObjectKind(tokens, *scalar) && tokens.paths[scalar->path].parent == PathSegment::kRoot) {
    kind_document_ = scalar->document;  // a second `kind` would be a duplicate key
    kind_ = DecodeScalar(text, *scalar);
  }
  bool script_file = false;
  if (NamesScriptFile(tokens, *scalar)) {
    const PathSegment& map = tokens.paths[tokens.paths[scalar->path].parent];
    // Only a document's own kind is kept: a List item's is found by its path, whose segment is reused.
    if (map.parent != PathSegment::kRoot || kind_document_ != scalar->document) return false;
    script_file = ScriptFileIn(map, kind_);
  }
  MarkIfItSaysShell(text, tokens, [&] { return script_file; }, scalar);
  return true;
}

}  // namespace safesubst
