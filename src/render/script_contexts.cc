// SPDX-License-Identifier: Apache-2.0
#include "script_contexts.h"

#include <algorithm>

#include "flux.h"
#include "key_bytes.h"
#include "shell_sinks.h"

namespace safesubst {

void ScriptContexts::At(std::string_view text, const Scalar& scalar, const Reference* references, std::size_t count,
                        const ShellContext** contexts) {
  const OffsetWalk offsets = [&](const std::function<void(std::size_t)>& each) {
    for (std::size_t i = 0; i < count; ++i) each(references[i].offset);
  };
  At(text, scalar, offsets, count, contexts);
}

void ScriptContexts::At(std::string_view text, const Scalar& scalar, const OffsetWalk& offsets, std::size_t count,
                        const ShellContext** contexts) {
  if (!BuildKey(text, scalar, offsets, count)) return Lex(text, scalar, offsets, count, contexts);
  auto [found, inserted] = remembered_.try_emplace(key_);
  if (inserted) {
    found->second.resize(count);
    Lex(text, scalar, offsets, count, found->second.data());
  }
  std::copy(found->second.begin(), found->second.end(), contexts);
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
                         const ShellContext** contexts) {
  ++lexed_;
  const std::string script = Decode(text, scalar, offsets);
  // As ShellContextsAt, a position the lexer would not answer has the default context.
  std::fill_n(contexts, count, Keep(ShellContext{}));
  TakeShellContextsAt(script, positions_, scalar.bash_script ? ScriptShells::kBash : ScriptShells::kSh,
                      [&](std::size_t index, ShellContext&& context) { contexts[index] = Keep(std::move(context)); });
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
  std::string script = DecodeScalar(text, scalar, &sources_);
  offsets([&](std::size_t offset) { positions_.push_back(sources_.FirstFrom(offset)); });
  // The map is reused for the next script, but not kept at a large one's size.
  if (sources_.size() > kLargestRemembered) sources_ = SourceRuns();
  return script;
}

const ShellContext* ScriptContexts::Keep(ShellContext&& context) {
  return &*distinct_.insert(std::move(context)).first;
}

// Equality (ShellContext's operator==) compares every field; the hash mixes
// those that tell the usual contexts apart.
std::size_t ScriptContexts::ContextHash::operator()(const ShellContext& context) const {
  std::size_t hash = std::hash<std::string_view>()(context.line_before) ^
                     std::hash<std::string_view>()(context.line_after) * 31 ^
                     std::hash<std::string_view>()(context.unsupported) * 131;
  for (unsigned flags : {static_cast<unsigned>(context.state), static_cast<unsigned>(context.parameter_word),
                         unsigned{context.substitution_depth}, unsigned{context.word_start}, unsigned{context.whole_word},
                         unsigned{context.command_word}, unsigned{context.inside_heredoc},
                         static_cast<unsigned>(context.other_readings.size()), static_cast<unsigned>(context.reread.size())}) {
    hash = hash * 1099511628211u ^ flags;
  }
  return hash;
}

}  // namespace safesubst
