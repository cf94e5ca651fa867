// SPDX-License-Identifier: Apache-2.0
#include "flux.h"

#include <algorithm>

#include "references.h"

namespace safesubst {

namespace {

bool IsEscape(const Reference& reference) { return TraitsOf(reference.kind).use == RefUse::kEscape; }

// The label or annotation that keeps Flux from substituting an object.
constexpr std::string_view kFluxSubstituteKey = "kustomize.toolkit.fluxcd.io/substitute";

bool HoldsDollar(std::string_view text, const Reference& reference) {
  return text.substr(reference.offset + 2, reference.length - 2).find('$') != std::string_view::npos;
}

// `found`, a form inside `escape`, located as the tokenizer locates forms.
Reference LocatedInside(std::string_view text, const Reference& escape, Reference found) {
  found.context = escape.context;
  found.scalar = escape.scalar;
  found.line = escape.line;
  found.column = escape.column + static_cast<std::uint32_t>(found.offset - escape.offset);
  for (std::size_t at = escape.offset; at < found.offset; ++at) {
    if (text[at] != '\n') continue;
    ++found.line;
    found.column = static_cast<std::uint32_t>(found.offset - at);
  }
  return found;
}

// The escape as Flux reads it (ReadEscapesAsFlux): its `$$`, then the forms
// up to its end, the escapes among them read likewise (a list of those left
// to read, not recursion: a crafted template may nest them deeply). Empty
// when a `${` inside has no `}`.
std::vector<Reference> ReadEscape(std::string_view text, const Reference& escape) {
  std::vector<Reference> forms;
  std::vector<Reference> to_read{escape};
  bool unterminated = false;
  while (!to_read.empty() && !unterminated) {
    const Reference next = to_read.back();
    to_read.pop_back();
    Reference dollar_dollar = LocatedInside(text, escape, next);
    dollar_dollar.kind = RefKind::kDollarDollar;
    dollar_dollar.length = 2;
    dollar_dollar.name = dollar_dollar.op = dollar_dollar.operand = {};
    forms.push_back(dollar_dollar);
    ScanReferences(
        text, next.offset + 2, next.offset + next.length,
        [&](const Reference& found) {
          if (IsEscape(found)) return to_read.push_back(found);
          forms.push_back(LocatedInside(text, escape, found));
        },
        [&](std::size_t) { unterminated = true; });
  }
  if (unterminated) return {};
  std::sort(forms.begin(), forms.end(), [](const Reference& a, const Reference& b) { return a.offset < b.offset; });
  return forms;
}

// Where Flux's engine ends the braced form `reference`: at the first `}` that
// closes no `${` opened inside it. safesubst pairs every `{` with a `}`.
std::size_t FluxFormEnd(std::string_view text, const Reference& reference) {
  const std::size_t end = reference.offset + reference.length;
  std::size_t open = 0;
  for (std::size_t at = reference.offset + 2; at < end; ++at) {
    if (text[at] == '$' && at + 1 < end && text[at + 1] == '{') {
      ++open;
      ++at;
    } else if (text[at] == '}') {
      if (open == 0) return at + 1;
      --open;
    }
  }
  return end;
}

}  // namespace

void ReadEscapesAsFlux(std::string_view text, std::vector<Reference>* references) {
  auto read_on = [text](const Reference& reference) {
    return IsEscape(reference) && reference.context != ContextClass::kComment && HoldsDollar(text, reference);
  };
  if (std::none_of(references->begin(), references->end(), read_on)) return;
  std::vector<Reference> read;
  read.reserve(references->size());
  for (const Reference& reference : *references) {
    std::vector<Reference> forms = read_on(reference) ? ReadEscape(text, reference) : std::vector<Reference>{};
    if (forms.empty()) {
      read.push_back(reference);
    } else {
      read.insert(read.end(), forms.begin(), forms.end());
    }
  }
  *references = std::move(read);
}

std::string FluxLoneDollarJoins(std::string_view text, std::size_t start, const Reference& reference,
                                std::string_view value, bool shell) {
  if (value.empty()) return {};
  std::size_t dollars = 0;
  while (dollars < start && text[start - dollars - 1] == '$') ++dollars;
  if (dollars % 4 != 2) return {};  // Flux writes each `$$` as `$`: an even count of `$` is left, none alone
  // After a lone `$`, the bytes no shell of the eight reads as continuing it.
  constexpr std::string_view kEndsShellDollar = " \t\n/.,:%])};&|<>";
  const char first = value.front();
  if (shell ? kEndsShellDollar.find(first) != std::string_view::npos : first != '(') return {};
  return "Flux writes the `$$` right before '" + std::string(reference.name) + "' as one `$`, which its value would " +
         (shell ? "continue into a shell expansion (as `$(`, `${` or `$NAME`)" : "turn into Kubernetes' `$(NAME)`");
}

void WriteDollarDollarsAsFlux(std::string* script, std::vector<std::size_t>* source_offsets) {
  std::string& bytes = *script;
  std::vector<std::size_t>& offsets = *source_offsets;
  std::size_t kept = 0;
  for (std::size_t at = 0; at < bytes.size(); ++at, ++kept) {
    bytes[kept] = bytes[at];
    offsets[kept] = offsets[at];
    if (bytes[at] == '$' && at + 1 < bytes.size() && bytes[at + 1] == '$') ++at;
  }
  offsets.resize(kept);
  bytes.resize(kept);
}

std::vector<std::uint32_t> FluxDisabledDocuments(std::string_view text, const Tokens& tokens) {
  auto key_of = [&tokens](std::uint32_t path) {
    return path == PathSegment::kRoot ? std::string_view() : tokens.paths[path].key;
  };
  auto parent_of = [&tokens](std::uint32_t path) { return tokens.paths[path].parent; };
  std::vector<std::uint32_t> disabled;
  for (const Scalar& scalar : tokens.scalars) {
    if (scalar.is_key || scalar.path == PathSegment::kRoot || key_of(scalar.path) != kFluxSubstituteKey) continue;
    const std::uint32_t group = parent_of(scalar.path);
    if (group == PathSegment::kRoot || (key_of(group) != "labels" && key_of(group) != "annotations")) continue;
    const std::uint32_t metadata = parent_of(group);
    if (metadata == PathSegment::kRoot || key_of(metadata) != "metadata" || parent_of(metadata) != PathSegment::kRoot) {
      continue;
    }
    if (DecodeScalar(text, scalar) == "disabled") disabled.push_back(scalar.document);
  }
  std::sort(disabled.begin(), disabled.end());
  return disabled;
}

bool IsFluxDisabled(const std::vector<std::uint32_t>& disabled, std::uint32_t document) {
  return std::binary_search(disabled.begin(), disabled.end(), document);
}

FluxRefusal FluxCannotRead(std::string_view text, const Reference& reference) {
  if (reference.context == ContextClass::kComment) return {};
  const std::string form(text.substr(reference.offset, reference.length));
  const std::string escaped = "write $" + form + ", which Flux writes as " + form;
  const RefUse use = TraitsOf(reference.kind).use;
  // `${X=d}` is `${X:=d}` there; `-`, `?` and `+` without ':' fail.
  if (use == RefUse::kDefault && reference.op.front() != ':' && reference.op != "=") {
    return {"Flux cannot read " + form + ": its engine fails with \"missing closing brace\" on this default form "
            "without ':', and a failure stops the whole Kustomization",
            escaped};
  }
  if (use == RefUse::kEscape && HoldsDollar(text, reference)) {  // not read by ReadEscapesAsFlux
    return {"Flux reads on inside the escape " + form + ", where a `${` has no `}`", "close the `${` inside it"};
  }
  if (use == RefUse::kDefault || use == RefUse::kOperation) {
    if (const std::size_t end = FluxFormEnd(text, reference); end != reference.offset + reference.length) {
      return {"Flux ends " + form + " at its first `}`, as " +
                  std::string(text.substr(reference.offset, end - reference.offset)) +
                  ", and writes the rest after it as text",
              "keep `{` and `}` out of the form: give the value in postBuild.substitute (here: --set or --values)"};
    }
  }
  // A string operation's argument: Flux reads `$$` there as `$` before it
  // looks for a `${`, so that `${A/x/$${B}}` ends at the first `}`.
  if (use == RefUse::kOperation && (reference.operand.find("$$") != std::string_view::npos ||
                                 reference.operand.find("${") != std::string_view::npos)) {
    return {"Flux reads the `$` forms in the argument of " + form + " by rules of its own, which safesubst does "
            "not reproduce",
            "write the argument without `$`"};
  }
  if (use != RefUse::kShell || reference.offset + 1 >= text.size() || text[reference.offset + 1] != '{') {
    return {};
  }
  if (reference.offset + 2 < text.size() && text[reference.offset + 2] >= '0' && text[reference.offset + 2] <= '9') {
    return {"Flux reads " + form + " as a variable named by a digit, which no value can set: it writes its default "
            "word or an empty string in place of the script's argument",
            escaped};
  }
  return {"Flux cannot substitute " + form + ": its engine fails on this form, and a failure stops the whole "
          "Kustomization",
          escaped};
}

std::string FluxDollarDollarNote(std::string_view text, const Reference& reference) {
  if (reference.kind != RefKind::kDollarDollar || reference.context == ContextClass::kComment) return {};
  const std::size_t next = reference.offset + reference.length;
  const char after = next < text.size() ? text[next] : '\n';
  // `$$$$` is Flux's way to write `$$`, and `$$${X}` a `$` before a value.
  if (after == '$' || (reference.offset > 0 && text[reference.offset - 1] == '$')) return {};
  if (reference.context == ContextClass::kScript) {
    if (IsNameChar(after) || after == '{' || after == '(') return {};
    return "Flux writes $$ as $: the script no longer reads its process id here";
  }
  if (after != '(') return {};
  return "Flux writes $$( as $(, which Kubernetes then expands in env values, command and args";
}

}  // namespace safesubst
