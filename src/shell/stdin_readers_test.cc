// SPDX-License-Identifier: Apache-2.0
#include "stdin_readers.h"

#include <doctest/doctest.h>

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace safesubst {
namespace {

struct Commands : CommandReader {
  std::vector<ShCommand> commands;
  void CommandEnded(ShCommand command) override {
    if (!command.words.empty()) commands.push_back(std::move(command));
  }
};

std::vector<ShWord> WordsOf(std::string_view script) {
  Commands reader;
  ReadShell(script, &reader);
  REQUIRE(reader.commands.size() == 1);
  return reader.commands.front().words;
}

TEST_CASE("stdin readers: programs that run a shell on their input") {
  for (std::string_view script : {"ssh host", "ssh -p 2222 -i key user@host", "nohup ssh -T host", "su",
                                  "su - app", "su -s /bin/sh app", "sudo -s", "sudo -u app -i", "sudo --login",
                                  "chroot /srv/root", "at now", "at -q b now + 1 minute", "batch"}) {
    CAPTURE(script);
    CHECK_FALSE(ShellReadingInput(WordsOf(script)).empty());
    CHECK(CommandReaderOfInput(WordsOf(script)).empty());
  }
  for (std::string_view script : {"ssh host uptime", "ssh -N -L 8080:x:80 host", "su -c 'id' app",
                                  "su app --command=id", "sudo id", "sudo -u app id", "chroot /srv/root id",
                                  "at -f job.sh now", "at -l", "sh", "cat"}) {
    CAPTURE(script);
    CHECK(ShellReadingInput(WordsOf(script)).empty());
  }
}

TEST_CASE("stdin readers: programs that read commands of their own from their input") {
  for (std::string_view script : {"ed -s f", "ex -s f", "vim -es -u NONE", "nvim -Es", "dc", "m4", "m4 -",
                                  "gdb -q", "crontab -", "crontab", "tclsh", "expect -", "timeout 5 ed f"}) {
    CAPTURE(script);
    CHECK_FALSE(CommandReaderOfInput(WordsOf(script)).empty());
  }
  for (std::string_view script : {"vim f", "m4 macros.m4", "crontab -l", "crontab jobs.txt", "tclsh run.tcl",
                                  "red f", "cat", "python3"}) {
    CAPTURE(script);
    CHECK(CommandReaderOfInput(WordsOf(script)).empty());
  }
}

TEST_CASE("stdin readers: the cheap test finds their names as words only") {
  for (std::string_view script : {"echo x | ed -s f", "printf x | at now", "x=1; e''d f", "y | /usr/bin/m4",
                                  "ssh host <<EOF"}) {
    CAPTURE(script);
    CHECK(MayReadInput(script));
  }
  CHECK_FALSE(MayReadInput("date; cat used.txt | sed -n p; echo vimrc atlas"));
}

}  // namespace
}  // namespace safesubst
