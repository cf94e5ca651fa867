// SPDX-License-Identifier: Apache-2.0
// Step target paths (SPEC Rule 4): `.spec.template.spec.containers[0]`,
// `[*]`, `[name=app]`, quoted keys `."app.kubernetes.io/name"`.
//
// Grammar:
//   path     := "." | selector+
//   selector := "." key | "[" index "]" | "[*]" | "[" key "=" value "]"
//   key      := one or more of any byte except . [ ] = " ' and whitespace
//             | a quoted string: "..." (\" and \\ escapes) or '...' ('' for ')
//   index    := -?[0-9]+            (negative counts from the end: [-1] is the last item)
//   value    := bytes up to "]", or a quoted string
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace safesubst::detail {

/// One step of a path.
struct PathSelector {
  enum class Kind : std::uint8_t {
    kKey,    ///< `.key`: the value of a mapping key
    kIndex,  ///< `[N]`: one sequence item
    kAll,    ///< `[*]`: every sequence item
    kMatch,  ///< `[key=value]`: every sequence item that is a mapping whose `key` is the scalar `value`
  };
  Kind kind = Kind::kKey;
  std::string key;    ///< kKey, kMatch
  std::string value;  ///< kMatch
  std::int64_t index = 0;  ///< kIndex
  std::uint32_t column = 0;  ///< 1-based column of the selector in the path text
};

/// A parsed path; no selectors means the document root (`.`).
struct YamlPath {
  std::string text;
  std::vector<PathSelector> selectors;
};

/// Why a path does not parse.
struct PathError {
  std::uint32_t column = 0;  ///< 1-based column in the path text
  std::string message;
};

/// Parses `text`. Returns false and fills `error` when it is not a valid path.
bool ParseYamlPath(std::string_view text, YamlPath* path, PathError* error);

/// Writes selectors [0, count) back as path text, quoting keys that need it;
/// `.` for none. Used to name a prefix of a path in messages.
std::string FormatYamlPath(const std::vector<PathSelector>& selectors, std::size_t count);

/// Writes one selector as path text.
std::string FormatSelector(const PathSelector& selector);

}  // namespace safesubst::detail
