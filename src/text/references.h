// SPDX-License-Identifier: Apache-2.0
// The `$` forms of the template language (Reference), and scanning them inside
// a span of text (a scalar body or a comment).
//
// Shared by the tokenizer, the envsubst SHELL-FORMAT argument and the fragment
// loader, so that every part of safesubst agrees on what `${NAME:-x}` means.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <iterator>
#include <string_view>

namespace safesubst {

/// SPEC Rule 2: where a `$` stands decides how serious an undeclared reference is.
enum class ContextClass : std::uint8_t {
  kComment,  ///< inside a `#` comment: never substituted, never reported
  kScript,   ///< block scalar, or a flow scalar item of a `command`/`args` sequence
  kData,     ///< every other scalar, and keys
};

/// The kinds of `$` form, each with its row in the table of RefKindTraits.
/// kShell stays last: a new kind goes before it.
enum class RefKind : std::uint8_t {
  kBare,           ///< $NAME
  kBraced,         ///< ${NAME}
  kBracedDefault,  ///< ${NAME:-x} ${NAME-x} ${NAME:=x} ${NAME=x} ${NAME:?m} ${NAME?m} ${NAME:+x} ${NAME+x}
  kEscape,         ///< $${NAME}: renders as the literal ${NAME}
  kKubernetes,     ///< $(NAME): Kubernetes env expansion, never touched
  kDollarDollar,   ///< $$ not followed by `{`
  /// A string operation of the Flux/clusterctl dialect: ${NAME%p} ${NAME%%p}
  /// ${NAME#p} ${NAME##p} ${NAME/p/r} ${NAME//p/r} ${NAME/#p/r} ${NAME/%p/r}
  /// ${NAME,} ${NAME,,} ${NAME^} ${NAME^^} ${NAME:offset} ${NAME:offset:length} ${#NAME}
  kOperation,
  kShell,          ///< $(cmd) $((expr)) $1 $@ $? ${!x} ${x[0]}...: shell syntax, not a reference
};

/// What the form does with the name it holds (SPEC Rule 1).
enum class RefUse : std::uint8_t {
  kValue,      ///< the variable's value replaces it: $NAME ${NAME}
  kDefault,    ///< the value, or the default word as the operator says: ${NAME:-x}
  kOperation,  ///< a string operation on the value replaces it: ${NAME%.*} (string_operations.h)
  kEscape,     ///< written without its first `$`, whatever it names: $${NAME}
  kNone,       ///< never touched, names nothing of the template: $(NAME) $$
  kShell,      ///< shell syntax kept as written; an error where it names a declared variable: ${x[0]}
};
/// What Flux's postBuild engine (github.com/fluxcd/pkg/envsubst) does with it.
enum class RefFlux : std::uint8_t {
  kVariable,  ///< reads it as a variable (by the form's use: its value, default word or operation)
  kEscape,    ///< writes it without its first `$`: $${NAME}, and $$ as `$`
  kLeaves,    ///< leaves it as written: $NAME, $(NAME), shell syntax
};

/// What a kind of `$` form means: a row of kReferenceKinds, which every
/// module reads through TraitsOf instead of listing kinds, so that a new form
/// is its kind and row here, its recogniser in ScanReferences, and a test.
struct RefKindTraits {
  RefKind kind;
  std::string_view example;  ///< one text that ScanReferences reads as this kind alone
  RefUse use;
  /// The name is written bare, `$NAME`: it ends where the name characters end,
  /// so a value written right after it would lengthen it; a script's own
  /// variables are written so (environment mode leaves them to the script);
  /// and `$${...}` writes no literal of it.
  bool bare;
  /// GNU envsubst without a SHELL-FORMAT argument replaces it (for `$${NAME}`: its `${NAME}`).
  bool envsubst;
  RefFlux flux;

  /// A use of the variable it names: its value, a default form or an operation.
  constexpr bool NamesVariable() const {
    return use == RefUse::kValue || use == RefUse::kDefault || use == RefUse::kOperation;
  }
  /// The value as given (or a default word) takes its place: not a string operation.
  constexpr bool WritesValue() const { return use == RefUse::kValue || use == RefUse::kDefault; }
  /// `${NAME}` and its like: the value, by a name a `}` closes.
  constexpr bool BracedValue() const { return use == RefUse::kValue && !bare; }
};

/// Every kind of `$` form, in the order of RefKind (a test checks it).
inline constexpr RefKindTraits kReferenceKinds[] = {
    // kind                   example        use                 bare   envsubst  flux
    {RefKind::kBare,          "$NAME",       RefUse::kValue,     true,  true,     RefFlux::kLeaves},
    {RefKind::kBraced,        "${NAME}",     RefUse::kValue,     false, true,     RefFlux::kVariable},
    {RefKind::kBracedDefault, "${NAME:-x}",  RefUse::kDefault,   false, false,    RefFlux::kVariable},
    {RefKind::kEscape,        "$${NAME}",    RefUse::kEscape,    false, true,     RefFlux::kEscape},
    {RefKind::kKubernetes,    "$(NAME)",     RefUse::kNone,      false, false,    RefFlux::kLeaves},
    {RefKind::kDollarDollar,  "$$",          RefUse::kNone,      false, false,    RefFlux::kEscape},
    {RefKind::kOperation,     "${NAME%.*}",  RefUse::kOperation, false, false,    RefFlux::kVariable},
    {RefKind::kShell,         "${NAME[0]}",  RefUse::kShell,     false, false,    RefFlux::kLeaves},
};
static_assert(std::size(kReferenceKinds) == static_cast<std::size_t>(RefKind::kShell) + 1, "a row for each kind");

/// The row of `kind`.
constexpr const RefKindTraits& TraitsOf(RefKind kind) { return kReferenceKinds[static_cast<std::size_t>(kind)]; }

/// A `$` form found inside a scalar or a comment.
/// (The small fields come first, so that they pack: a placeholder-dense
/// template holds millions of references.)
struct Reference {
  RefKind kind = RefKind::kBare;
  ContextClass context = ContextClass::kData;
  std::uint32_t line = 0;  ///< 1-based
  std::uint32_t column = 0;  ///< 1-based, in bytes
  /// Index into Tokens::scalars, or kNoScalar for a reference inside a comment.
  std::uint32_t scalar = 0;
  std::size_t offset = 0;  ///< byte offset of the `$` in the source
  std::size_t length = 0;  ///< bytes covered by the whole form, e.g. 7 for `${NAME}`
  std::string_view name;     ///< NAME (kShell: x of ${x[0]}, ${!x}, ${#x[@]}...; else empty for kShell and kDollarDollar)
  /// kBracedDefault: ":-", "-", ":=", "=", ":?", "?", ":+", "+". kOperation:
  /// "%", "%%", "#", "##", "/", "//", "/#", "/%", ",", ",,", "^", "^^", ":"
  /// after the name, or the "#" before the name of ${#NAME}.
  std::string_view op;
  /// kBracedDefault and kOperation: the text after `op`, up to the closing
  /// `}` (`.*` of ${X%.*}, `a/b` of ${X/a/b}, `1:2` of ${X:1:2}); kShell with
  /// a name: the text after the name (`[0]`).
  std::string_view operand;

  static constexpr std::uint32_t kNoScalar = 0xffffffffu;
};

/// Scans `text[begin, end)` for `$` forms. For each one, calls `emit` with a
/// Reference whose offset/length/kind/name/op/operand are filled in (line,
/// column, context and scalar are left for the caller). An unterminated `${`
/// is reported through `on_unterminated(offset)` and scanning continues after it.
///
/// Forms are reported in order and do not overlap. A braced form covers its
/// whole text up to the matching `}` (a default operand such as the `${B}` in
/// `${A:-${B}}` is part of it, not reported separately). A command substitution
/// `$(` or arithmetic expansion `$((` is reported as kShell covering only that
/// opener, so that the references inside it (`$(echo "$NODE_IP")`) are found.
/// A `$` followed by nothing that forms a reference (`$ `, `$'`, `$.`, a `$`
/// at the end) is not reported. The string operations of the Flux/clusterctl
/// dialect (`${X%.*}`, `${X/a/b}`, `${X:0:3}`, `${#X}`...) are kOperation with
/// their operator and operand; they are recognised by their shape alone, so
/// `${X,,pattern}` is one too and its evaluation refuses the operand.
/// `$${...}` is kEscape whatever is inside the braces.
void ScanReferences(std::string_view text, std::size_t begin, std::size_t end,
                    const std::function<void(const Reference&)>& emit,
                    const std::function<void(std::size_t offset)>& on_unterminated);

/// What follows `${` up to the text the form works on, as the shell reads it.
/// Read by ScanReferences for every braced form and by the shell lexer for
/// every `${...}` of a script, so that the two cannot disagree on a name or
/// an operator. (Where the form ends they do differ, on purpose: the shell
/// skips a `}` in quotes, envsubst and Flux do not.)
struct ParameterHead {
  enum class OperatorKind : std::uint8_t {
    kNone,     ///< no operator: `}` or text no operator starts follows
    kDefault,  ///< `-` `=` `?` `+`, each also after `:`: the operand is a word
    kString,   ///< `%` `%%` `#` `##` `/` `//` `/#` `/%` `,` `,,` `^` `^^` `:` (Flux and bash)
    kBash,     ///< bash's `@` (`${x@Q}`)
  };
  char prefix = '\0';     ///< `#` (length) or `!` (indirection) before the parameter, else '\0'
  std::string_view name;  ///< the parameter: a name, digits, one of `@*#?-$!`, or empty
  /// Offset of bash's `[` right after the name (`${a[i]}`), or npos.
  std::size_t subscript = std::string_view::npos;
  std::size_t subscript_close = 0;  ///< with a subscript: offset of its `]`, or `end` when unclosed
  OperatorKind op_kind = OperatorKind::kNone;
  std::string_view op;      ///< the operator after the parameter (and subscript)
  std::size_t operand = 0;  ///< offset just after the operator: its operand, or the `}`

  /// A name alone, nothing in front or behind it but (maybe) an operator.
  bool NamedPlainly() const;
};

/// Reads the head of a `${` form from `text[at, end)`, `at` just after the `{`.
ParameterHead ReadParameterHead(std::string_view text, std::size_t at, std::size_t end);

/// True for a character that may start a shell/envsubst variable name.
constexpr bool IsNameStart(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
}
constexpr bool IsNameChar(char c) { return IsNameStart(c) || (c >= '0' && c <= '9'); }

}  // namespace safesubst
