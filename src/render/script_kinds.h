// SPDX-License-Identifier: Apache-2.0
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
// again and every substituted scalar is looked up there by its value: after a
// render whose values stand where they can decide it (ShellDecidingPlaces),
// and after the steps. A command line taken from an alias cannot be
// classified at all (HiddenCommandLines): there only values that read alike
// either way are written.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "safesubst/diagnostic.h"
#include "safesubst/manifest.h"
#include "tokenizer.h"

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

/// The places of one template where a value can decide whether some scalar
/// is a shell script (shell_script_scalars.h says which are): an item of a
/// container command line that has another item after it (the program, a
/// wrapper's option, `-c`, even the script, since a value `--` there moves it
/// to the next item), an object's `kind`, the key of a `data` or `stringData`
/// entry (it may come to end in `.sh`), and where a `#!` line may form: the
/// first content line of a block scalar when that line starts with `#` or
/// `$`, any place in a flow scalar that starts with `#` (or, double-quoted,
/// with an escape), and the start of a flow scalar that is no script yet when
/// the value there is empty or starts with `#`. The last item of a command
/// line, usually the script with the values in it, decides nothing.
class ShellDecidingPlaces {
 public:
  ShellDecidingPlaces(std::string_view text, const Tokens& tokens) : text_(text), tokens_(tokens) {}

  /// `value`: what replaces `reference`.
  bool Contains(const Reference& reference, std::string_view value);

 private:
  bool HasItemAfter(std::uint32_t scalar_index);

  std::string_view text_;
  const Tokens& tokens_;
  // By scalar: a `command` item with another item after it (built on first need).
  std::vector<bool> command_followed_;
};

/// True when `script` may hold a here-document or arithmetic, where even an
/// IsShellInert value can change the script: a line equal to the delimiter
/// ends the body, and arithmetic evaluates a name. Then inert is not enough.
bool HasHeredocOrArithmetic(std::string_view script);

/// True when the values of `written` read the same where they are now: in
/// the kind of text they were written for, or inert (EncodedScalar) and not
/// now in a script with a here-document or arithmetic (`rendered_value`, the
/// scalar's decoded text where it is now).
bool ReadAlike(const EncodedScalar& written, bool now_shell, std::string_view rendered_value);

/// The error for `written` found as the scalar `now` at `path` of a rendered
/// text, or none when its values read alike there (ReadAlike).
std::optional<Diagnostic> KindChangeProblem(const EncodedScalar& written, const Scalar& now,
                                            std::string_view rendered_value, const std::string& path,
                                            std::string_view after);

/// The command lines hidden behind an alias, so that which of their scalars
/// are shell scripts cannot be told. An alias as a `command` or `args` value
/// or item (the aliased node may be any scalar, classified where it is
/// written) or as a mapping key (it may stand for `command`) hides every
/// scalar of its document. A `<<` merge (or an item of one) into a mapping
/// that has its own `command` or `args` hides the scalars under that
/// mapping's `command` and `args` and under the merged mapping, when that is
/// anchored in the same document (Tokens::anchors) and brings no command line
/// from elsewhere (no `<<` or alias key); else every scalar of the document.
/// A merge of a mapping that has no `command`, `args` or `<<` key, nor an
/// alias key, hides nothing. Other scalars of the document are unaffected: a
/// `<<: *defaults` somewhere does not make every value need to be shell-inert.
class HiddenCommandLines {
 public:
  /// `tokens` must outlive this.
  explicit HiddenCommandLines(const Tokens& tokens);
  bool empty() const { return by_document_.empty(); }
  /// The alias that hides whether `scalar` is a shell script, or nullptr.
  const Alias* Hiding(const Scalar& scalar) const;

 private:
  struct Region {
    const Alias* alias;
    bool whole_document = true;
    std::uint32_t into = PathSegment::kRoot;    ///< the mapping merged into
    std::uint32_t merged = PathSegment::kRoot;  ///< the merged mapping
  };
  const Tokens& tokens_;
  std::unordered_map<std::uint32_t, std::vector<Region>> by_document_;
};

/// Tokenizes and classifies `rendered` (as the render classifies a template),
/// looks every scalar of `encoded` up there by its decoded value, and reports,
/// at the scalar's own location, each one that now reads as the other kind of
/// text, or stands in a document whose command lines HiddenCommandLines
/// hides, unless its values read alike either way (an inert value does not
/// pass into a script with a here-document or arithmetic, where a word can
/// still end the one or be evaluated in the other). `after` says what changed
/// the text, e.g. "after the manifest's steps"; `file` names `rendered` in
/// the error for text that does not tokenize. With `every_scalar_present`
/// (the text is the render's own output, whose scalars are all there), a
/// scalar that is not found is an error too: the check fails closed.
Diagnostics CheckScriptKindsKept(std::string_view rendered, const Manifest& manifest,
                                 const std::vector<EncodedScalar>& encoded, const std::string& file,
                                 std::string_view after, bool every_scalar_present);

}  // namespace safesubst
