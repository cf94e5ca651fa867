// SPDX-License-Identifier: Apache-2.0
// The shell quoting state at each reference of a shell script, with every
// distinct script lexed once per render.
#ifndef SAFESUBST_SCRIPT_CONTEXTS_H_
#define SAFESUBST_SCRIPT_CONTEXTS_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "shell.h"
#include "tokenizer.h"
#include "source_runs.h"

namespace safesubst {

/// The shell context at each reference of a render (null outside scripts):
/// a byte a reference, indexing the distinct contexts met so far (a script
/// with a million placeholders has a handful), or, once more than 255
/// differ, a pointer a reference.
class ReferenceContexts {
 public:
  /// `count` references, all null.
  void Assign(std::size_t count);
  void clear() { Assign(0); }
  bool empty() const { return ids_.empty() && pointers_.empty(); }
  void Set(std::size_t index, const ShellContext* context);
  const ShellContext* operator[](std::size_t index) const {
    return pointers_.empty() ? distinct_[ids_[index]] : pointers_[index];
  }

 private:
  std::vector<std::uint8_t> ids_;                 // into distinct_
  std::vector<const ShellContext*> distinct_;     // [0] is null
  std::vector<const ShellContext*> pointers_;     // instead of ids_, past 256 distinct
  std::uint8_t last_ = 0;                         // the id Set gave last
};

/// A hash of every field ShellContext's operator== compares, nested readings
/// included, so contexts that differ in one field only do not share a bucket.
std::size_t ShellContextHash(const ShellContext& context);

/// A stream repeats its scripts: every app of a tenant carries the same
/// wrapper, once per document. The contexts at a script's references depend
/// only on the scalar's raw bytes, how they decode and where the references
/// stand in them, so the answer for those is remembered and a repeat costs a
/// hash of the raw bytes instead of a decode and a lex.
///
/// A script's references mostly stand in a few distinct contexts (a script
/// with a million placeholders has a handful), and a context is a few
/// hundred bytes: one copy of each distinct context is kept, and a
/// reference costs a pointer to it.
class ScriptContexts {
 public:
  /// `flux`: the scripts are read as Flux writes them, each `$$` as `$`.
  explicit ScriptContexts(bool flux = false) : flux_(flux) {}

  /// Sets context first + i of `contexts` to the context at references[i]
  /// (all in `scalar`, in text order) for each of the `count`. The contexts
  /// stay valid as long as this object; equal contexts are one object.
  void At(std::string_view text, const Scalar& scalar, const Reference* references, std::size_t count,
          ReferenceContexts* contexts, std::size_t first = 0);

  /// Calls `each` with the offset of every reference, in text order.
  using OffsetWalk = std::function<void(const std::function<void(std::size_t offset)>& each)>;
  /// The same for `count` references whose offsets `offsets` walks, for a
  /// render that keeps no Reference (render_detail.h).
  void At(std::string_view text, const Scalar& scalar, const OffsetWalk& offsets, std::size_t count,
          ReferenceContexts* contexts, std::size_t first = 0);

  /// How many scripts were decoded and lexed (the rest were repeats).
  std::size_t lexed() const { return lexed_; }

 private:
  bool BuildKey(std::string_view text, const Scalar& scalar, const OffsetWalk& offsets, std::size_t count);
  void Lex(std::string_view text, const Scalar& scalar, const OffsetWalk& offsets, std::size_t count,
           const std::function<void(std::size_t index, const ShellContext* context)>& set);
  std::string Decode(std::string_view text, const Scalar& scalar, const OffsetWalk& offsets);
  const ShellContext* Keep(ShellContext&& context);

  struct ContextHash {
    std::size_t operator()(const ShellContext& context) const;
  };
  // Node-based: a kept context never moves.
  std::unordered_set<ShellContext, ContextHash> distinct_;
  static constexpr std::size_t kLargestRemembered = std::size_t{1} << 16;  // bytes of a script
  std::string key_;
  std::unordered_map<std::string, std::vector<const ShellContext*>> remembered_;
  std::vector<std::size_t> positions_;
  std::size_t lexed_ = 0;
  bool flux_ = false;
};

}  // namespace safesubst

#endif  // SAFESUBST_SCRIPT_CONTEXTS_H_
