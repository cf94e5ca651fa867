// SPDX-License-Identifier: Apache-2.0
// The one rule for "this scalar is a shell script" (SPEC Rule 3), and which
// shells may run it. The render quotes values for the shell in exactly these
// scalars (classify.h), and lint checks exactly these as scripts
// (lint_pod.cc reads this marking through its tokens): a scalar one of them
// took for a script and the other for data would be a value quoted for a
// shell that lint never looked at, or a script lint checks that the render
// writes values into raw.
//
// A non-key scalar is a shell script when
//   - it is the script operand of a command line (command_line.h): the
//     `command` items and then the `args` items of one mapping, wherever it
//     stands, so containers, initContainers and ephemeralContainers at any
//     pod-template depth, `lifecycle` hooks' and probes' `exec.command`;
//   - its value starts with a `#!` line naming a shell (ShebangShell:
//     `#!/bin/sh -e`, `#!/usr/bin/env bash`, `#!/bin/busybox sh`), in any
//     style: block, plain, single- or double-quoted;
//   - it is an entry of a ConfigMap's `data` or of a Secret's `stringData`
//     whose key ends in `.sh`, `.bash`, `.ksh` or `.zsh`, in any letter case
//     (a Secret's `data` is base64, never a script as written).
//   - it is an item of a Cluster API `preKubeadmCommands` or
//     `postKubeadmCommands` (cloud-init's runcmd runs each with /bin/sh).
// Which shells: the shell named by the command line, else by the `#!` line;
// bash (or zsh, ksh) reads it alone, anything else (`sh`, `dash`, no `#!`)
// is read as every shell /bin/sh may be: dash, busybox ash and bash.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "startup_variables.h"
#include "tokenizer.h"

namespace safesubst {

/// Sets Scalar::is_shell and Scalar::bash_script on every scalar of
/// `tokens` that the rule above makes a shell script, and makes its context
/// kScript (SPEC Rule 2: a shell script's references are runtime unless declared). Scalars already marked
/// (a path the manifest lists under `shell:`) stay marked; the command line
/// that runs one decides its shells before its `#!` does. Also marks the
/// values that a shell reads as code at start-up (MarkStartupVariables), and
/// the items of a command line run without a shell that runs an interpreter,
/// and a scalar whose `#!` line names one (a program file; Scalar::exec_program).
void MarkShellScripts(std::string_view text, Tokens* tokens);

/// MarkShellScripts for scalars handed over one at a time as they are read
/// (detail::TokenizeAsRead), before the scalars after them.
class ShellScriptsAsRead {
 public:
  /// Marks `scalar`, of `tokens`, as MarkShellScripts would; false, with
  /// nothing marked, when scalars after it may decide: a word of a command
  /// line (which word is the script depends on the others), an entry of a
  /// `data` or `stringData` whose key names a script file when its object's
  /// `kind` has not been read yet (or is a List item's).
  bool Mark(std::string_view text, const Tokens& tokens, Scalar* scalar);

 private:
  std::uint32_t kind_document_ = 0xffffffffu;  // the document whose root `kind` is kind_
  std::string kind_;
  StartupVariablesAsRead startup_;
};

/// True when the reference at `offset` of `scalar` stands on its `#!` line:
/// the kernel hands what follows the interpreter's path to it as one
/// argument (`#!/usr/bin/python3 -c...` runs the rest), and `env -S` splits it
/// into a command line, so a value there is an argument or code.
/// With `in_path`: whether it stands in the interpreter's path, the first
/// word after `#!`.
bool OnShebangLine(std::string_view text, const Scalar& scalar, std::size_t offset, bool* in_path = nullptr);

/// True when a ConfigMap `data` or Secret `stringData` key names a shell
/// script file: it ends in `.sh`, `.bash`, `.ksh` or `.zsh`, in any case.
bool IsShellScriptFileName(std::string_view key);

}  // namespace safesubst
