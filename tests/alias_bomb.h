// SPDX-License-Identifier: Apache-2.0
// A "billion laughs" YAML text for tests of the alias expansion limits.
#pragma once

#include <string>

namespace safesubst::testing {

/// Mapping entries `a0` to `a<levels>`, each indented by `indent`: `a0` is a
/// flow sequence of ten scalars and every later one ten aliases of the one
/// before, so `*a<levels>` stands for 10^(levels + 1) scalars.
inline std::string AliasBomb(int levels, const std::string& indent = "") {
  std::string bomb = indent + "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n";
  for (int level = 1; level <= levels; ++level) {
    const std::string previous = "*a" + std::to_string(level - 1);
    bomb += indent + "a" + std::to_string(level) + ": &a" + std::to_string(level) + " [";
    for (int i = 0; i < 10; ++i) bomb += (i ? ", " : "") + previous;
    bomb += "]\n";
  }
  return bomb;
}

/// A mapping of `a0` to `a<length>` where each is a one-item sequence holding
/// an alias of the one before: `*a<length>` nests `length` + 1 levels deep,
/// although the text nests only two.
inline std::string AliasChain(int length, const std::string& indent = "") {
  std::string chain = indent + "a0: &a0 [x]\n";
  for (int link = 1; link <= length; ++link) {
    chain += indent + "a" + std::to_string(link) + ": &a" + std::to_string(link) + " [*a" + std::to_string(link - 1) +
             "]\n";
  }
  return chain + indent + "top: *a" + std::to_string(length) + "\n";
}

}  // namespace safesubst::testing
