// SPDX-License-Identifier: Apache-2.0
// The string operations of the Flux/clusterctl dialect (drone/envsubst):
// `${X%.*}`, `${X#v}`, `${X/a/b}`, `${X,,}`, `${X:0:3}`, `${#X}` and the rest,
// computed at render time on a declared variable's value (SPEC Rule 1).
//
// The result is what Flux's kustomize-controller and `clusterctl generate`
// compute. Where their engine and bash read the same operation differently
// (a glob in a replace pattern, a negative offset, a bracket expression, a
// quote, `&` in a replacement), the operation is refused with the reason
// rather than computed one way: a template is often written for one reader
// and tested with the other.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "references.h"

namespace safesubst {

struct StringOperation {
  enum class Kind : std::uint8_t {
    kLength,              ///< ${#X}
    kTrimShortestPrefix,  ///< ${X#pattern}
    kTrimLongestPrefix,   ///< ${X##pattern}
    kTrimShortestSuffix,  ///< ${X%pattern}
    kTrimLongestSuffix,   ///< ${X%%pattern}
    kReplaceFirst,        ///< ${X/pattern/replacement}
    kReplaceAll,          ///< ${X//pattern/replacement}
    kReplacePrefix,       ///< ${X/#pattern/replacement}
    kReplaceSuffix,       ///< ${X/%pattern/replacement}
    kLowerFirst,          ///< ${X,}
    kLowerAll,            ///< ${X,,}
    kUpperFirst,          ///< ${X^}
    kUpperAll,            ///< ${X^^}
    kSubstring,           ///< ${X:offset} ${X:offset:length}
  };
  Kind kind = Kind::kLength;
  std::string pattern;      ///< trims: a glob of `*`, `?` and literal bytes; replaces: literal text
  std::string replacement;  ///< replaces, with `\/` and `\\` unescaped
  std::size_t offset = 0;   ///< kSubstring
  std::size_t length = 0;   ///< kSubstring, when has_length
  bool has_length = false;
};

/// Reads the operation of a RefKind::kOperation reference. Returns an empty
/// string, or what is wrong with it (unsupported, or read differently by
/// Flux/clusterctl and bash), phrased to follow "this operation ".
std::string ParseStringOperation(const Reference& reference, StringOperation* operation);

/// Applies `operation` to `value`. Returns an empty string, or what is wrong
/// (an operation that counts characters, on a value that is not ASCII, which
/// Flux and clusterctl count in bytes and bash in characters).
std::string ApplyStringOperation(const StringOperation& operation, std::string_view value, std::string* result);

}  // namespace safesubst
