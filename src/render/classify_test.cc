// SPDX-License-Identifier: Apache-2.0
// Which scripts are shell (SPEC Rule 3): the command lines of containers.
#include "classify.h"

#include <doctest/doctest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "test_support.h"

namespace safesubst {
namespace {

// Whether the script item (the only scalar containing "SCRIPT") is marked shell.
bool ScriptIsShell(const std::string& command_line) {
  const std::string text = "containers:\n  - name: app\n    " + command_line + "\n";
  Tokens tokens = Tokenize(text, TokenizerOptions{"t.yaml"});
  REQUIRE(tokens.diagnostics.empty());
  Classify(text, Manifest{}, &tokens);
  for (const Scalar& scalar : tokens.scalars) {
    if (DecodeScalar(text, scalar).find("SCRIPT") != std::string::npos) return scalar.is_shell;
  }
  FAIL("no SCRIPT item in: " << command_line);
  return false;
}

TEST_CASE("classify: a shell's -c script is shell, also behind init processes and env") {
  for (const char* line : {
           R"x(command: ["/bin/sh", "-c", "echo SCRIPT"])x",
           R"x(command: [bash, -ec, "echo SCRIPT"])x",
           R"x(command: [/bin/sh]
    args: [-c, "echo SCRIPT"])x",
           R"x(command: [tini, --, sh, -c, "echo SCRIPT"])x",
           R"x(command: [/sbin/tini, -s, --, /bin/bash, -c, "echo SCRIPT"])x",
           R"x(command: [dumb-init, /bin/sh, -c, "echo SCRIPT"])x",
           R"x(command: [dumb-init, --single-child, sh, -c, "echo SCRIPT"])x",
           R"x(command: [/usr/bin/env, sh, -c, "echo SCRIPT"])x",
           R"x(command: [env, A=1, B=2, sh, -c, "echo SCRIPT"])x",
           R"x(command: [busybox, sh, -c, "echo SCRIPT"])x",
           R"x(command: [sh, -c, --, "echo SCRIPT"])x",
           R"x(command: [sh, -c, "-"]
    args: ["echo SCRIPT"])x",
           R"x("comm\x61nd": [sh, -c, "echo SCRIPT"])x",  // a key's escapes are decoded
           R"x('command': [sh, -c]
    "\u0061rgs": ["echo SCRIPT"])x",
           R"x(? |-
      command
    : [sh, -c, "echo SCRIPT"])x",  // a block scalar key is decoded
           R"x(command: [ksh, -c, "echo SCRIPT"])x",
           R"x(command: [bash, -o, pipefail, -e, -c, "echo SCRIPT"])x",
           // Found by a review: option arguments, options after -c, more shells and wrappers.
           R"x(command: [bash, -euo, pipefail, -c, "echo SCRIPT"])x",
           R"x(command: [bash, -O, extglob, -c, "echo SCRIPT"])x",
           R"x(command: [bash, --rcfile, /etc/rc, -c, "echo SCRIPT"])x",
           R"x(command: [sh, -c, -e, "echo SCRIPT"])x",
           R"x(command: [sh, -c, "\x2de", "echo SCRIPT"])x",  // an escaped `-e` is an option too
           R"x(command: [/bin/rbash, -c, "echo SCRIPT"])x",
           R"x(command: [timeout, "300", /bin/sh, -c, "echo SCRIPT"])x",
           R"x(command: [su-exec, app, /bin/sh, -c, "echo SCRIPT"])x",
           R"x(command: [env, -u, HOME, sh, -c, "echo SCRIPT"])x",
           R"x(<<: {command: [/bin/sh, -c]}
    args: ["echo SCRIPT"])x",
           R"x(<<: [{command: [/bin/sh]}, {x: 1}]
    args: [-c, "echo SCRIPT"])x",
       }) {
    const std::string command_line = line;
    CAPTURE(command_line);
    CHECK(ScriptIsShell(line));
  }
}

TEST_CASE("classify: a block script whose #! names any shell is shell") {
  for (const char* shell : {"/bin/sh", "/bin/ksh", "/bin/mksh", "/usr/bin/env yash", "/bin/busybox hush"}) {
    CAPTURE(shell);
    CHECK(ScriptIsShell(std::string("data:\n      run: |\n        #!") + shell + "\n        echo SCRIPT"));
  }
  CHECK_FALSE(ScriptIsShell("data:\n      run: |\n        #!/usr/bin/python3\n        print('SCRIPT')"));
}

TEST_CASE("classify: other programs' arguments are not shell") {
  for (const char* line : {
           R"x(command: [python3, -c, "print('SCRIPT')"])x",
           R"x(command: [tini, --, python3, -c, "SCRIPT"])x",
           R"x(command: [sh, -e, "SCRIPT"])x",  // a script file, no -c
           R"x(command: [bash, -o, c, "SCRIPT"])x",  // `c` is -o's argument, not -c
           R"x(command: [sh, script.sh, -c, "SCRIPT"])x",
           R"x(command: [nginx, -g, "daemon off; SCRIPT"])x",
       }) {
    const std::string command_line = line;
    CAPTURE(command_line);
    CHECK_FALSE(ScriptIsShell(line));
  }
}

std::string Marked(const Scalar& scalar) {
  return std::string(ContextName(scalar.context)) + (scalar.is_shell ? " shell" : "") + (scalar.bash_script ? " bash" : "");
}

// Classify's marks of `text`, and ClassifyAsRead's where it could tell
// (the others are "?"), scalar by scalar.
void ClassifyBothWays(std::string_view text, const Manifest& manifest, std::vector<std::string>* whole,
                      std::vector<std::string>* as_read) {
  Tokens tokens = Tokenize(text);
  Classify(text, manifest, &tokens);
  for (const Scalar& scalar : tokens.scalars) whole->push_back(Marked(scalar));
  struct Marks final : detail::ScalarSink {
    Marks(std::string_view read, const Manifest& declared, std::vector<std::string>* out)
        : text(read), listed(declared), marks(out) {}
    void Take(Tokens* tokens) override {
      marks->push_back(ClassifyAsRead(text, listed, tokens, &scripts) ? Marked(tokens->scalars[0]) : "?");
    }
    void PathsChanged() override {}
    std::string_view text;
    const ListedPaths listed;
    std::vector<std::string>* marks;
    ShellScriptsAsRead scripts;
  } marks(text, manifest, as_read);
  Tokens read;
  detail::TokenizeAsRead(text, {}, &read, &marks);
}

TEST_CASE("classify: read scalar by scalar, as the whole template's, or not known yet") {
  std::size_t told = 0, untold = 0;
  Manifest listed;
  listed.script_paths = {"data.run"};
  listed.shell_paths = {"spec.containers[*].args[0]"};
  for (const std::filesystem::path& file : testing::RepositoryYamlFiles()) {
    const std::string text = testing::ReadFile(file);
    for (const Manifest& manifest : {listed, Manifest{}}) {
      std::vector<std::string> whole, as_read;
      ClassifyBothWays(text, manifest, &whole, &as_read);
      REQUIRE(whole.size() == as_read.size());
      for (std::size_t i = 0; i < whole.size(); ++i) {
        INFO(file.string() << ", scalar " << i);
        if (as_read[i] == "?") {
          ++untold;
        } else {
          ++told;
          CHECK(as_read[i] == whole[i]);
        }
      }
    }
  }
  CHECK(told > 10000);
  CHECK(untold > 100);  // command lines
  // A script file's entry: known once its object's kind has been read.
  const std::string kinds =
      "kind: ConfigMap\ndata:\n  a.sh: echo\n---\ndata:\n  b.sh: echo\nkind: ConfigMap\n---\n"
      "kind: Secret\ndata:\n  c.sh: echo\nstringData:\n  d.sh: echo\n";
  std::vector<std::string> whole, as_read;
  ClassifyBothWays(kinds, Manifest{}, &whole, &as_read);
  std::vector<std::string> expected = {"data", "data", "data", "data", "script shell", "data", "data", "script shell",
                                       "data", "data", "data", "data", "data", "data", "data", "data", "data",
                                       "script shell"};
  CHECK(whole == expected);
  expected[7] = "?";  // `kind` comes after it
  CHECK(as_read == expected);
}

}  // namespace
}  // namespace safesubst
