// SPDX-License-Identifier: Apache-2.0
// Values in the program text of an interpreter that a command line runs
// without a shell (SPEC Rule 3: a value never runs as code, at any depth).
//
// `command: [python3, -c, "print('${V}')"]`, `[sed, -e, "s/x/${V}/", f]`,
// `[perl]` with `args: [-e, ...]`, and the same in a probe's or hook's
// `exec.command`: kubelet hands each item to the program as one argument,
// so no shell quoting applies, but the value still lands in program text,
// where V=`'); import os; os.system('touch F'); ('` runs. Each reference of
// such a command line (Scalar::exec_program, set by MarkShellScripts) is
// placed by the same program readers that read `python3 -c` inside a shell
// script (interpreter_programs.h): field-aware, else decimal only.
//
// A scalar whose `#!` line names an interpreter (`migrate.py: |` with
// `#!/usr/bin/env python3`, a Tekton step's `script`, an Argo `source`) is
// that interpreter's program file, run as a whole (attacker s30 A16): it is
// read as a command line of one item, the program (AddProgramFileReadings).
//
// A value can also decide which item is the program: `[python3, "${F}",
// "print('${V}')"]` with F=`-c`, `[sed, -e, p, "${F}"]` with
// F=`--expression=1e touch X` (GNU sed reads options after operands). So
// the values the template's reading leaves outside program text are put in,
// and the line is read again with a placeholder right after each of them in
// turn: a value followed by program text is checked for the field it ends
// in (to get there from outside, or from another field, it crosses an
// opening delimiter, which that field stops at), and the places in program
// text are checked for that reading too. The same covers an interpreter
// named by a value (`command: ["${PY}", -c, ...]`).
#pragma once

#include <cstddef>
#include <deque>
#include <span>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "fast_invariant.h"
#include "shell.h"
#include "tokenizer.h"

namespace safesubst {

/// The program-text contexts of each reference of a render, by reference
/// index: none where the reference is in no exec-form program word.
class ExecProgramContexts {
 public:
  /// Reads every command line of `tokens` holding a reference in an
  /// exec_program scalar, and every such program file, with `substitutions` (the values decided for
  /// references of `tokens`, in source order) put in as above.
  void Read(std::string_view text, const Tokens& tokens, std::span<const ReferenceValue> substitutions);

  /// Every context a value at reference `index` must be written for.
  std::span<const ShellContext* const> At(std::size_t index) const {
    auto found = by_reference_.find(index);
    return found == by_reference_.end() ? std::span<const ShellContext* const>() : found->second;
  }

 private:
  struct Line;
  void ReadLine(const Line& line);
  void Keep(std::size_t reference, ShellContext&& context);

  std::deque<ShellContext> kept_;  // stable addresses
  std::unordered_map<std::size_t, std::vector<const ShellContext*>> by_reference_;
};

}  // namespace safesubst
