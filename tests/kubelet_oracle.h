// SPDX-License-Identifier: Apache-2.0
// kubelet's `$(NAME)` expansion written out, the oracle of the tests that
// check what a container receives from an env value, a command or an args item.
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <string>
#include <string_view>

namespace safesubst::testing::kubelet {

/// The container's variables, by name.
using Environment = std::map<std::string, std::string, std::less<>>;

// kubelet's expansion, as Kubernetes writes it
// (third_party/forked/golang/expansion/expand.go, Expand and
// tryReadVariableName), read left to right: `$$` is `$`; `$(NAME)` up to the
// first `)` is NAME's value when NAME is defined, else kept as written; an
// unterminated `$(` is kept and reading goes on after its `(`; a `$` before
// any other byte is kept with that byte; a last `$` is kept. The oracle of
// the tests: the library never calls it.
inline std::string Expand(std::string_view input, const Environment& environment) {
  std::string out;
  for (std::size_t i = 0; i < input.size(); ++i) {
    if (input[i] != '$' || i + 1 == input.size()) {
      out += input[i];
    } else if (input[i + 1] == '$') {
      out += '$';
      ++i;
    } else if (input[i + 1] != '(') {
      out += input.substr(i, 2);
      ++i;
    } else if (std::size_t close = input.find(')', i + 2); close == std::string_view::npos) {
      out += "$(";
      ++i;
    } else {
      std::string_view name = input.substr(i + 2, close - i - 2);
      auto defined = environment.find(name);
      out += defined != environment.end() ? defined->second : "$(" + std::string(name) + ")";
      i = close;
    }
  }
  return out;
}

}  // namespace safesubst::testing::kubelet
