// SPDX-License-Identifier: Apache-2.0
#include "script_contexts.h"

#include <algorithm>

#include "key_bytes.h"

namespace safesubst {

const std::vector<ShellContext>& ScriptContexts::At(std::string_view text, const Scalar& scalar,
                                                     const Reference* references, std::size_t count) {
  if (!BuildKey(text, scalar, references, count)) {
    return unremembered_.emplace_back(Lex(text, scalar, references, count));
  }
  auto found = remembered_.find(key_);
  if (found != remembered_.end()) return found->second;
  return remembered_.emplace(key_, Lex(text, scalar, references, count)).first->second;
}

// The key holds everything DecodeScalar reads besides the raw span: the style
// fields, and the byte after the span; and which shells run the script (a final line break or not). A block
// scalar that keeps its trailing lines (`|+`) decodes bytes past its span, so
// it is not remembered.
bool ScriptContexts::BuildKey(std::string_view text, const Scalar& scalar, const Reference* references,
                              std::size_t count) {
  if (scalar.chomping == Chomping::kKeep) return false;
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
  for (std::size_t i = 0; i < count; ++i) AppendKeyBytes(references[i].offset - scalar.offset, &key_);
  key_.append(text.substr(scalar.offset, scalar.length));
  return true;
}

std::vector<ShellContext> ScriptContexts::Lex(std::string_view text, const Scalar& scalar,
                                              const Reference* references, std::size_t count) {
  ++lexed_;
  const std::string script = DecodeScalar(text, scalar, &source_offsets_);
  positions_.clear();
  for (std::size_t i = 0; i < count; ++i) {
    auto at = std::lower_bound(source_offsets_.begin(), source_offsets_.end(), references[i].offset);
    positions_.push_back(static_cast<std::size_t>(at - source_offsets_.begin()));
  }
  return ShellContextsAt(script, positions_, nullptr, scalar.bash_script ? ScriptShells::kBash : ScriptShells::kSh);
}

}  // namespace safesubst
