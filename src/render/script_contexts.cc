// SPDX-License-Identifier: Apache-2.0
#include "script_contexts.h"

#include <algorithm>

#include "flux.h"
#include "key_bytes.h"
#include "shell_sinks.h"

namespace safesubst {

void ReferenceContexts::Assign(std::size_t count) {
  ids_.assign(count, 0);
  distinct_.assign(1, nullptr);
  std::vector<const ShellContext*>().swap(pointers_);
  last_ = 0;
}

void ReferenceContexts::Set(std::size_t index, const ShellContext* context) {
  if (!pointers_.empty()) {
    pointers_[index] = context;
    return;
  }
  // Mostly the context of the reference before: found without a search.
  if (distinct_[last_] != context) {
    auto found = std::find(distinct_.begin(), distinct_.end(), context);
    if (found == distinct_.end() && distinct_.size() > UINT8_MAX) {  // a pointer each from now on
      pointers_.reserve(ids_.size());
      for (std::uint8_t id : ids_) pointers_.push_back(distinct_[id]);
      std::vector<std::uint8_t>().swap(ids_);
      pointers_[index] = context;
      return;
    }
    if (found == distinct_.end()) found = distinct_.insert(distinct_.end(), context);
    last_ = static_cast<std::uint8_t>(found - distinct_.begin());
  }
  ids_[index] = last_;
}

void ScriptContexts::At(std::string_view text, const Scalar& scalar, const Reference* references, std::size_t count,
                        ReferenceContexts* contexts, std::size_t first) {
  const OffsetWalk offsets = [&](const std::function<void(std::size_t)>& each) {
    for (std::size_t i = 0; i < count; ++i) each(references[i].offset);
  };
  At(text, scalar, offsets, count, contexts, first);
}

void ScriptContexts::At(std::string_view text, const Scalar& scalar, const OffsetWalk& offsets, std::size_t count,
                        ReferenceContexts* contexts, std::size_t first) {
  auto set = [&](std::size_t index, const ShellContext* context) { contexts->Set(first + index, context); };
  if (!BuildKey(text, scalar, offsets, count)) return Lex(text, scalar, offsets, count, set);
  auto [found, inserted] = remembered_.try_emplace(key_);
  std::vector<const ShellContext*>& answers = found->second;
  if (inserted) {
    answers.resize(count);
    Lex(text, scalar, offsets, count, [&](std::size_t index, const ShellContext* context) { answers[index] = context; });
  }
  for (std::size_t i = 0; i < count; ++i) set(i, answers[i]);
}

// The key holds everything DecodeScalar reads besides the raw span: the style
// fields, and the byte after the span; and which shells run the script (a final line break or not). A block
// scalar that keeps its trailing lines (`|+`) decodes bytes past its span, so
// it is not remembered. Nor is a script larger than the wrappers a stream
// repeats: its key would be a second copy of it.
bool ScriptContexts::BuildKey(std::string_view text, const Scalar& scalar, const OffsetWalk& offsets,
                              std::size_t count) {
  if (scalar.chomping == Chomping::kKeep || scalar.length > kLargestRemembered) return false;
  const std::size_t end = scalar.offset + scalar.length;
  if (end > text.size()) return false;
  key_.clear();
  key_.push_back(static_cast<char>(scalar.style));
  key_.push_back(static_cast<char>(scalar.chomping));
  key_.push_back(static_cast<char>(scalar.indent_indicator));
  key_.push_back(scalar.bash_script ? 'b' : 's');
  key_.push_back(end < text.size() ? text[end] : '\0');
  AppendKeyBytes(scalar.indent, &key_);
  AppendKeyBytes(count, &key_);
  offsets([&](std::size_t offset) { AppendKeyBytes(offset - scalar.offset, &key_); });
  key_.append(text.substr(scalar.offset, scalar.length));
  return true;
}

void ScriptContexts::Lex(std::string_view text, const Scalar& scalar, const OffsetWalk& offsets, std::size_t count,
                         const std::function<void(std::size_t index, const ShellContext* context)>& set) {
  ++lexed_;
  positions_.reserve(count);  // at once: a script may hold millions of references
  const std::string script = Decode(text, scalar, offsets);
  // As ShellContextsAt, a position the lexer would not answer has the default context.
  const ShellContext* unanswered = Keep(ShellContext{});
  for (std::size_t i = 0; i < count; ++i) set(i, unanswered);
  TakeShellContextsAt(script, positions_, scalar.bash_script ? ScriptShells::kBash : ScriptShells::kSh,
                      [&](std::size_t index, ShellContext&& context) { set(index, Keep(std::move(context))); });
  if (positions_.size() > kLargestRemembered) std::vector<std::size_t>().swap(positions_);
}

// The script as the shell reads it; positions_ gets where each reference
// stands in it.
std::string ScriptContexts::Decode(std::string_view text, const Scalar& scalar, const OffsetWalk& offsets) {
  positions_.clear();
  if (flux_) {  // WriteDollarDollarsAsFlux edits the byte-by-byte map
    std::vector<std::size_t> source_offsets;
    std::string script = DecodeScalar(text, scalar, &source_offsets);
    WriteDollarDollarsAsFlux(&script, &source_offsets);
    offsets([&](std::size_t offset) {
      auto at = std::lower_bound(source_offsets.begin(), source_offsets.end(), offset);
      positions_.push_back(static_cast<std::size_t>(at - source_offsets.begin()));
    });
    return script;
  }
  // Each reference's offset becomes its position as the script is decoded:
  // no map of the whole script is kept (a run a line of a block scalar).
  offsets([&](std::size_t offset) { positions_.push_back(offset); });
  SourceRuns sources;
  sources.ResolveInPlace(&positions_);
  std::string script = DecodeScalar(text, scalar, &sources);
  sources.FinishResolving();
  return script;
}

const ShellContext* ScriptContexts::Keep(ShellContext&& context) {
  return &*distinct_.insert(std::move(context)).first;
}

namespace {

std::size_t Mix(std::size_t hash, std::size_t value) { return (hash ^ value) * 1099511628211u; }

std::size_t Mix(std::size_t hash, std::string_view text) { return Mix(hash, std::hash<std::string_view>()(text)); }

}  // namespace

// Every field ShellContext's operator== compares is mixed in, the nested
// readings too: a script can hold any number of contexts that differ in one
// field only (a here-document delimiter each, a sink's inner string), and a
// field left out would put them all in one bucket, each insert comparing
// against every earlier one (32,000 here-documents took 36 s).
std::size_t ShellContextHash(const ShellContext& context) {
  std::size_t hash = 14695981039346656037u;
  for (std::size_t field :
       {std::size_t{static_cast<unsigned>(context.state)}, std::size_t{context.substitution_depth},
        std::size_t{context.in_backticks}, std::size_t{context.in_case_pattern},
        std::size_t{static_cast<unsigned>(context.parameter_word)}, std::size_t{context.bash_brace_expansion},
        std::size_t{context.word_start}, std::size_t{context.whole_word}, std::size_t{context.command_word},
        std::size_t{context.name_before}, std::size_t{context.equals_after}, std::size_t{context.inside_heredoc},
        std::size_t{context.heredoc_strip_tabs}, std::size_t{context.posh_scans_unquoted},
        std::size_t{static_cast<unsigned>(context.operand)}, context.backtick_layers.size()}) {
    hash = Mix(hash, field);
  }
  for (bool layer : context.backtick_layers) hash = Mix(hash, std::size_t{layer});
  for (std::string_view text : {std::string_view(context.heredoc_delimiter), std::string_view(context.line_before),
                                std::string_view(context.line_after), std::string_view(context.unsupported),
                                std::string_view(context.evaluated_by), std::string_view(context.program_stops),
                                std::string_view(context.sink)}) {
    hash = Mix(hash, text);
  }
  for (const ShellContext& inner : context.reread) hash = Mix(hash, ShellContextHash(inner));
  for (const OtherShellReading& other : context.other_readings) {
    hash = Mix(Mix(hash, std::string_view(other.shells)), ShellContextHash(other.context));
  }
  return hash;
}

std::size_t ScriptContexts::ContextHash::operator()(const ShellContext& context) const {
  return ShellContextHash(context);
}

}  // namespace safesubst
