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

}  // namespace safesubst::testing
