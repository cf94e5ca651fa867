// SPDX-License-Identifier: Apache-2.0
// Environment variables that a shell reads as code when it starts (SPEC Rule
// 3: a value never runs as code, at any depth). A container's `env:` item
//
//     - name: PS4
//       value: "${V}"
//
// reaches every shell the container starts: kubelet hands the value over
// (turning `$$` back into `$`), and the shell expands it again, so V=`$(touch
// F)` runs. Measured with the real shells (startup_variables_test.cc runs
// them), `sh -c` and `bash -c` as a container runs them:
//   - bash runs the file named by BASH_ENV, its name expanded first; imports
//     every `BASH_FUNC_name%%=() { ...; }` as a function (also as `sh`);
//     imports SHELLOPTS and BASHOPTS (`xtrace`), and, when not root, PS4,
//     which xtrace expands before each command;
//   - an interactive shell (`kubectl exec -it ... sh`) runs the file named
//     by ENV (dash, busybox ash), expands its prompts (PS1 and PS2; mksh
//     already for `mksh -i -c`), PS0 (bash), and runs PROMPT_COMMAND (bash);
//   - IFS is imported by posh alone; it changes how words split, it runs
//     nothing, and is left alone.
// Other programs read some variables as their own options or run them as a
// command line, measured the same way:
//   - perl splits PERL5OPT into switches (`-Mstrict;system(...)` runs code,
//     the leading `-` optional), node NODE_OPTIONS (`--require`,
//     `--import=data:...`), the JVM JAVA_TOOL_OPTIONS, _JAVA_OPTIONS and
//     JDK_JAVA_OPTIONS (`-XX:OnOutOfMemoryError=cmd`, `-javaagent:`), ruby
//     RUBYOPT (`-r`), GNU tar TAR_OPTIONS (`--checkpoint-action=exec=`),
//     git GIT_CONFIG_PARAMETERS (`'core.pager=cmd'`), perl -d PERL5DB;
//   - git runs GIT_SSH_COMMAND, GIT_PAGER, GIT_EDITOR, GIT_SEQUENCE_EDITOR,
//     GIT_EXTERNAL_DIFF, GIT_ASKPASS and GIT_PROXY_COMMAND, rsync RSYNC_RSH
//     and RSYNC_CONNECT_PROG, cvs CVS_RSH, svn SVN_SSH, and many programs
//     PAGER, SYSTEMD_PAGER, MANPAGER, EDITOR, VISUAL, FCEDIT, BROWSER,
//     SSH_ASKPASS, SUDO_ASKPASS, LESSOPEN and LESSCLOSE, as a command, most
//     through `sh -c`. (A list: a program reading another variable this way
//     is out of reach, as README says.)
// The rule follows the shell's own reading of each: a prompt or a start-up
// file's name takes no `$`, backtick, `\` or quote (the rule for assigning
// them in a script, ShellOperand::kExpanded); an option list only option
// names; a command or a function body only a decimal integer (it is code);
// an option list or command line of another program only one plain word that
// does not start an option (`-Xmx${HEAP}`, `ssh -i ${KEY_FILE}`: the value
// completes a word the template wrote, it adds no word, option or command),
// or, completing a JVM system property `-Dname=`, one word of any characters
// but quotes and `\`.
// The same holds for a ConfigMap's or Secret's entry of that name, which
// `envFrom` turns into the variable, and for every entry of the stream whose
// key such an item's `valueFrom` takes (`secretKeyRef: {name: s, key: k}`;
// which object it names is not followed). `shell: raw` lifts the rule.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "tokenizer.h"

namespace safesubst {

/// How a shell reads the variable at start-up (Scalar::startup_variable),
/// from the least strict rule to the most.
enum class StartupReading : std::uint8_t {
  kNone = 0,
  kExpanded,  ///< a prompt or a start-up file's name: expanded again
  kOptions,   ///< SHELLOPTS, BASHOPTS: a list of option names
  kCode,      ///< PROMPT_COMMAND, BASH_FUNC_name%%: run as shell code
  kWords,     ///< NODE_OPTIONS, GIT_SSH_COMMAND, ...: split into options or a command
};

/// How a shell reads a variable named `name` at start-up.
StartupReading StartupReadingOf(std::string_view name);

/// Why `value` cannot be the value of `name` (read as `reading`), or empty.
/// Never names the value. `word_before` is the template's text of the word
/// the value completes, before it (empty when the value starts a word): a
/// value completing a JVM system property (`-Dname=` in JAVA_TOOL_OPTIONS
/// and its two siblings) is data to the JVM, which splits the variable at
/// blanks and quotes and runs no shell there, so it may hold any character
/// but those, `\` and controls (a JDBC URL with `?a=1&b=2`).
std::string StartupValueProblem(StartupReading reading, std::string_view name, std::string_view value,
                                std::string_view word_before = {});

/// Scalar::startup_variable of an env item's `name` that holds a `$`: a
/// value there could make it a start-up variable, so the render checks the
/// name it writes.
constexpr std::uint8_t kStartupNameMark = 0x80;

/// Sets Scalar::startup_variable on the `value` of each `env` item whose
/// `name` is a start-up variable, on each `data` or `stringData` entry so
/// named or whose key such an item's `valueFrom` takes, and
/// kStartupNameMark on each env item's `name` holding a `$`.
void MarkStartupVariables(std::string_view text, Tokens* tokens);

/// The variable a scalar that MarkStartupVariables marked becomes: its
/// `data` key, or its env item's `name` (decoded), found among the scalars
/// near `index`.
std::string StartupVariableName(std::string_view text, const Tokens& tokens, std::uint32_t index);

/// MarkStartupVariables for scalars handed over one at a time as they are
/// read (detail::TokenizeAsRead).
class StartupVariablesAsRead {
 public:
  /// Marks `scalar`, of `tokens`; false, with nothing marked, when a scalar
  /// after it may decide (an env item's `value` before its `name`).
  bool Mark(std::string_view text, const Tokens& tokens, Scalar* scalar);

 private:
  // The env item whose `name` was the last value handed over, and its reading.
  std::uint32_t document_ = 0;
  std::uint32_t item_ = PathSegment::kRoot;
  std::int32_t index_ = -1;
  StartupReading reading_ = StartupReading::kNone;
};

}  // namespace safesubst
