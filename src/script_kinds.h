// Whether a rendered document still treats each substituted scalar as the
// kind of text it was encoded for: a shell script, or not.
//
// Why it is needed: a value is shell-quoted only in a scalar the template
// shows to be a shell script (classify.h), and the classification reads the
// template. Two things can change it afterwards:
//   - a value decides it: `command: ["${SHELL_BIN}", "-c"]` becomes a shell
//     command line only once SHELL_BIN is in, and its script got no quoting;
//   - a step does: a fragment's `args` script, rendered on its own as data,
//     lands in a container whose command is `sh -c`, or a step replaces or
//     deletes the `command` of a script that was shell-quoted.
// In the first direction a value could run as a command; in the second, the
// shell quotes become part of the value. So the rendered text is classified
// again and every substituted scalar is looked up there by its value.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "safesubst/diagnostic.h"
#include "safesubst/manifest.h"
#include "safesubst/tokenizer.h"

namespace safesubst {

/// A scalar that received at least one substituted value, as the render wrote it.
struct EncodedScalar {
  std::string value;  ///< its decoded value in the rendered text
  bool is_shell = false;  ///< its values were shell-encoded
  /// Every value it received reads the same in a script and in data: it is
  /// IsShellInert, or the shell layer wrote it unchanged, or it is `shell: raw`.
  bool shell_inert = false;
  std::string names;  ///< the substituted variables, e.g. "A, B"
  Location at;        ///< the first substituted reference, in its own file
};

/// True when a value for `reference` (in a scalar) can decide whether some
/// scalar is a shell script: it stands in a one-line item of a `command` or
/// `args` sequence that is not itself the script (a program, `-c`, a wrapper's
/// option), in a top-level `kind`, or on the `#!` line of a block scalar. A
/// value in the body of a block script decides nothing, so the usual
/// template costs no second look.
bool CanDecideShellScripts(std::string_view text, const Tokens& tokens, const Reference& reference);

/// The alias that hides a command line of `document`, making it unknowable
/// which of its scalars are shell scripts: an alias as a `command` or `args`
/// value or item (the aliased node may be any scalar, classified where it is
/// written), or a `<<` merge into a mapping that has its own `command` or
/// `args`. Null when the document has none.
const Alias* CommandLineHiddenBy(const Tokens& tokens, std::uint32_t document);

/// Tokenizes and classifies `rendered` (as the render classifies a template),
/// and reports, at its own location, every scalar of `encoded` that is not
/// inert and now reads as a scalar of the other kind. `after` says what
/// changed the text, e.g. "after the manifest's steps"; `file` names
/// `rendered` in the error for text that does not tokenize.
Diagnostics CheckScriptKindsKept(std::string_view rendered, const Manifest& manifest,
                                 const std::vector<EncodedScalar>& encoded, const std::string& file,
                                 std::string_view after);

}  // namespace safesubst
