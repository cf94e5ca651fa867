// SPDX-License-Identifier: Apache-2.0
// The commands of a script as the one command model reads them
// (shell_commands.h), for the tests of the readers built on it. Compiled
// into the test program only.
#pragma once

#include <string_view>
#include <utility>
#include <vector>

#include "shell_commands.h"

namespace safesubst::testing {

/// The commands of `script` that have a word or a redirection, in the order they end.
inline std::vector<ShCommand> NonEmptyCommands(std::string_view script) {
  struct Collector : CommandReader {
    std::vector<ShCommand> commands;
    void CommandEnded(ShCommand command) override {
      if (!command.words.empty() || !command.redirects.empty()) commands.push_back(std::move(command));
    }
  };
  Collector collector;
  ReadShell(script, &collector);
  return std::move(collector.commands);
}

}  // namespace safesubst::testing
