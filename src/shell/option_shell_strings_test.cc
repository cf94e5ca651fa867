// SPDX-License-Identifier: Apache-2.0
// Option values that programs run with a shell (attacker B2, session 31):
// each spelling is found with the text the shell reads; the sink finder
// reads a placeholder there as an `sh -c` operand's. The real programs
// (git, ssh, GNU tar, zip) RUN the encoded scripts under every real shell:
// no canary, and the value comes back byte-exact.
#include "option_shell_strings.h"

#include <doctest/doctest.h>

#include <filesystem>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "real_shells.h"
#include "shell_command_support.h"
#include "shell.h"
#include "test_support.h"

namespace safesubst {
namespace {

// name -> the value text the shell reads ("!" before it: refused).
std::vector<std::pair<std::string, std::string>> Found(std::string_view script) {
  const std::vector<ShWord> words = testing::NonEmptyCommands(script).back().words;
  std::vector<std::pair<std::string, std::string>> found;
  for (const OptionShellString& string : OptionShellStrings(words, 0, words.size() - 1)) {
    std::string text;
    for (const ShWord& word : string.words) text += (text.empty() ? "" : " ") + word.text;
    found.emplace_back(string.name, (string.refusal.empty() ? "" : "!") + text);
  }
  return found;
}

using Pairs = std::vector<std::pair<std::string, std::string>>;

// Each script's strings: name and value text.
void CheckFound(const std::vector<std::pair<std::string_view, Pairs>>& cases) {
  for (const auto& [script, expected] : cases) {
    CAPTURE(script);
    CHECK(Found(script) == expected);
  }
}

// Programs reading these values as data: nothing found.
void CheckNoneFound(std::initializer_list<std::string_view> scripts) {
  for (std::string_view script : scripts) {
    CAPTURE(script);
    CHECK(Found(script).empty());
  }
}

}  // namespace
}  // namespace safesubst

template <>
struct doctest::StringMaker<safesubst::Pairs> {
  static doctest::String convert(const safesubst::Pairs& pairs) {
    std::string shown;
    for (const auto& [name, value] : pairs) shown += name + " [" + value + "] ";
    return shown.c_str();
  }
};

namespace safesubst {
namespace {

TEST_CASE("option shell strings: git settings and options that git runs with a shell") {
  CheckFound({
      {"git -c core.sshCommand=\"ssh -i k\" ls-remote r", {{"`git -c core.sshCommand`", "ssh -i k"}}},
      {"git -c alias.x='!echo hi' x", {{"`git -c alias.x`", "echo hi"}}},
      {"git -c CORE.FSMONITOR=cmd status", {{"`git -c CORE.FSMONITOR`", "cmd"}}},
      {"git -c credential.https://h.helper='!f' fill", {{"`git -c credential.https://h.helper`", "f"}}},
      {"git -c credential.helper=store x", {{"`git -c credential.helper`", "store"}}},
      {"git -C /r -c pager.log=less log", {{"`git -c pager.log`", "less"}}},
      {"git clone --upload-pack='git-upload-pack x' r r2", {{"`git clone --upload-pack`", "git-upload-pack x"}}},
      {"git clone -u cmd r r2", {{"`git clone -u`", "cmd"}}},
      {"git clone --upload=cmd r", {{"`git clone --upload-pack`", "cmd"}}},  // a getopt prefix
      {"git push --receive-pack cmd r", {{"`git push --receive-pack`", "cmd"}}},
      {"git rebase -x 'make test' main", {{"`git rebase -x`", "make test"}}},
      {"git clone -c core.sshCommand=cmd r", {{"`git -c core.sshCommand`", "cmd"}}},
      {"git config --global core.sshCommand 'ssh -i k'", {{"`git config core.sshCommand`", "ssh -i k"}}},
      {"git config set alias.x '!echo'", {{"`git config alias.x`", "echo"}}},
      // The value decides the setting: refused.
      {"git -c \"$X\" status", {{"`git -c`", "!$X"}}},
  });
  CheckNoneFound({"git -c user.name='A B' commit", "git -c http.extraHeader='X: y' fetch", "git push -u origin main",
                  "git config user.email a@b", "git commit -m 'x -c y'"});
}

TEST_CASE("option shell strings: ssh's command options, in every spelling ssh reads") {
  CheckFound({
      {"ssh -o ProxyCommand='nc %h %p' h", {{"`ssh -o ProxyCommand`", "nc %h %p"}}},
      {"ssh -oProxyCommand=cmd h", {{"`ssh -o ProxyCommand`", "cmd"}}},
      {"ssh -o 'proxycommand  =  cmd x' h", {{"`ssh -o proxycommand`", "cmd x"}}},
      {"ssh -o 'LocalCommand cmd' h", {{"`ssh -o LocalCommand`", "cmd"}}},
      {"scp -o KnownHostsCommand=cmd a h:b", {{"`ssh -o KnownHostsCommand`", "cmd"}}},
      {"sshpass -p x ssh -o RemoteCommand=cmd h", {{"`ssh -o RemoteCommand`", "cmd"}}},
      {"ssh -o \"$OPT\" h", {{"`ssh -o`", "!$OPT"}}},
  });
  CheckNoneFound({"ssh -i /keys/k -p 22 h", "ssh -o StrictHostKeyChecking=no h", "ssh -o ProxyJump=b h"});
}

TEST_CASE("option shell strings: tar, zip, rsync, man, tmux, gdb and editors") {
  CheckFound({
      {"tar -I 'zstd -19' -cf a f", {{"`tar -I`", "zstd -19"}}},
      {"tar -Izstd -cf a f", {{"`tar -I`", "zstd"}}},
      {"tar -xvI zstd -f a", {{"`tar -I`", "zstd"}}},
      {"tar --use-compress-program=zstd -cf a f", {{"`tar --use-compress-program`", "zstd"}}},
      {"tar --use-comp zstd -cf a f", {{"`tar --use-compress-program`", "zstd"}}},
      {"tar xf a --to-command='cat x'", {{"`tar --to-command`", "cat x"}}},
      {"tar --checkpoint=1 --checkpoint-action=exec='echo x' -cf a f", {{"`tar --checkpoint-action`", "echo x"}}},
      {"tar --checkpoint-action=echo -cf a f", {}},
      {"tar --checkpoint-action=\"$A\" -cf a f", {{"`tar --checkpoint-action`", "!--checkpoint-action=$A"}}},
      {"tar -cf a -F 'echo x' f", {{"`tar -F`", "echo x"}}},
      {"zip -T -TT 'unzip -t' a.zip f", {{"`zip -TT`", "unzip -t"}}},
      {"rsync -e 'ssh -p 2' a h:b", {{"`rsync -e`", "!ssh -p 2"}}},
      {"rsync -avze ssh a h:b", {{"`rsync -e`", "!ssh"}}},
      {"rsync --rsync-path='sudo rsync' a h:b", {{"`rsync --rsync-path`", "sudo rsync"}}},
      {"man -P 'less -R' ls", {{"`man -P`", "less -R"}}},
      {"tmux -L s new-session -d -s n 'echo x'", {{"`tmux new-session`", "echo x"}}},
      {"tmux new -d -s n top -d 1", {}},  // several operands: a command line run without a shell
      {"tmux run-shell -b 'echo x' \\; kill-server", {{"`tmux run-shell`", "echo x"}}},
      {"tmux -c 'echo x'", {{"`tmux -c`", "echo x"}}},
      {"gdb -batch -ex 'shell echo x'", {{"`gdb -ex`", "!shell echo x"}}},
      {"gdb --eval-command='p 1'", {{"`gdb -eval-command`", "!p 1"}}},
      {"ex -s -c '!echo x' -c q f", {{"`ex -c`", "!!echo x"}, {"`ex -c`", "!q"}}},
      {"vim +'!echo x' f", {{"`vim +`", "!!echo x"}}},
  });
  CheckNoneFound({"tar -czf /b/x.tgz /d", "tar -xf a.tar -C /d", "zip -r a.zip d", "rsync -avz a h:b", "man ls",
                  "tmux ls"});
}

TEST_CASE("option shell strings: the cheap test names every program") {
  for (std::string_view script : {"git -c x=y", "/usr/bin/tar -I z", "x | ssh -o h", "(zip -TT c)", "sudo tmux new"}) {
    CAPTURE(script);
    CHECK(MayNameOptionRunner(script));
  }
  for (std::string_view script : {"start", "github.com/x", "echo command", "export X=1", "sshd", "git push origin",
                                  "tar -xzf a.tgz", "ssh host uptime"}) {
    CAPTURE(script);
    CHECK_FALSE(MayNameOptionRunner(script));
  }
}

// ---- the real programs ------------------------------------------------------

// A shape: `{Q}` is where the quoted string goes; its output is the file
// `$PRINTED`, which the inner script appends to (the programs' own output
// goes elsewhere: an archive, ssh's socket).
struct Shape {
  std::string script, sink;
};

std::string QuoteForOuter(const std::string& inner, bool single) {
  std::string out = single ? "'" : "\"";
  for (std::size_t i = 0; i < inner.size(); ++i) {
    const char c = inner[i];
    if (single) {
      out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    } else {
      if ((c == '\\' || c == '"' || c == '`' || c == '$') && inner.compare(i, 4, "${V}") != 0) out += '\\';
      out += c;
    }
  }
  return out + (single ? "'" : "\"");
}

TEST_CASE("option shell strings: git, ssh, tar and zip run the encoded value as data under real shells") {
  const std::string setup =
      "git init -q r 2>/dev/null; printf x > f; tar -cf a.tar f; : > printed; export HOME=$PWD GIT_CONFIG_NOSYSTEM=1 PRINTED=$PWD/printed F='%s|'\n";
  const std::vector<Shape> shapes = {
      {"git -c alias.p='!'{Q} p", "`git -c alias.p`"},
      {"git -C r -c core.sshCommand={Q} ls-remote git@localhost:x 2>/dev/null", "`git -c core.sshCommand`"},
      {"printf 'protocol=https\\nhost=h\\n\\n' | git -c credential.helper='!'{Q} credential fill >/dev/null 2>&1",
       "`git -c credential.helper`"},
      {"git clone -q --upload-pack={Q} r r2 2>/dev/null", "`git clone --upload-pack`"},
      {"ssh -F /dev/null -o ProxyCommand={Q} x true 2>/dev/null", "`ssh -o ProxyCommand`"},
      {"ssh -F /dev/null -oProxyCommand={Q} x true 2>/dev/null", "`ssh -o ProxyCommand`"},
      {"tar -xf a.tar --to-command={Q}", "`tar --to-command`"},
      {"tar -I {Q} -cf b.tgz f 2>/dev/null", "`tar -I`"},
      {"zip -q a.zip f && zip -T -TT {Q} a.zip >/dev/null 2>&1", "`zip -TT`"},
  };
  // The inner script appends to `printed`; `;:` takes the words the program appends (`"$@"`, the archive);
  // the format is in $F because ssh expands `%` in its command options (`%h`: the host; `%%`: `%`); ssh
  // runs `exec VALUE`, and `3>&1` first keeps the shell (a printf exec'd with its output redirected
  // would close ssh's pipe, and ssh would kill it before it wrote).
  const std::vector<std::string> states = {"${V}", "\"${V}\"", "'${V}'"};
  const std::vector<std::string> values = {"plain-1.2", "x; touch canary", "$(touch canary)`touch canary`",
                                           "'\"; touch canary; \"'", "a\\b \\\\ \\' %s *\ntouch canary"};
  std::vector<std::string> scripts, expected;
  std::size_t refused = 0;
  for (const Shape& shape : shapes) {
    for (const bool single : {true, false}) {
      for (const std::string& state : states) {
        std::string text = shape.script;
        text.replace(text.find("{Q}"), 3, QuoteForOuter("3>&1;printf \"$F\" " + state + " >>\"$PRINTED\";:", single));
        for (const std::string& value : values) {
          CAPTURE(text);
          CAPTURE(value);
          const std::size_t at = text.find("${V}");
          const ShellContext context = ShellContextsAt(text, {at}).front();
          CHECK(context.sink == shape.sink);
          std::string encoded;
          const std::string error = AppendShellEncoded(context, value, ShellMode::kSafe, &encoded);
          if (!error.empty()) {
            ++refused;
            CHECK(error.find(value) == std::string::npos);
            continue;
          }
          if (shape.script.starts_with("ssh") && value.find('%') != std::string::npos) continue;  // (ssh's own expansion)
          scripts.push_back(setup + text.substr(0, at) + encoded + text.substr(at + 4) + "\ncat printed\n");
          expected.push_back(value + "|");
        }
      }
    }
  }
  CHECK(scripts.size() >= shapes.size() * 6);
  const std::vector<testing::RealShell> shells = testing::InstalledShells();
  testing::TempDir work;
  const auto dirs = testing::RunEachScriptUnderShells(work.path(), shells, scripts);
  for (std::size_t s = 0; s < shells.size(); ++s) {
    CAPTURE(shells[s].name);
    CHECK_MESSAGE(testing::ReadFile(dirs[s] / "canaries").empty(), "canaries after scripts");
    for (std::size_t i = 0; i < scripts.size(); ++i) {
      CAPTURE(scripts[i]);
      // (git tries the ssh command twice.)
      const std::string out = testing::ReadFile(dirs[s] / ("out" + std::to_string(i)));
      std::string repeated = expected[i];
      while (repeated.size() < out.size()) repeated += expected[i];
      CHECK(out == repeated);
    }
  }
  MESSAGE("option shell strings: " << scripts.size() << " scripts run under " << shells.size() << " shells, "
                                   << refused << " refused");
}

}  // namespace
}  // namespace safesubst
