// SPDX-License-Identifier: Apache-2.0
// Docs that cannot drift: every example of README.md and of the man page
// that shows output is run, and what it prints is compared with what the
// page shows.
//
// An example is a line `$ COMMAND` (continued on the next line while it ends
// with `\`) inside a ```console block of README.md or an .EX/.EE block of
// packaging/safesubst.1, followed by the output the page shows, up to the
// next `$ ` line or the end of the block. The command runs under /bin/sh in
// the source directory, with the built `safesubst` first on PATH, NO_COLOR=1
// and no other environment. The output is its standard output followed by
// its standard error. It must exit 0: an example of a failure shows its
// status itself (`safesubst ... 2>&1 || echo "exit status $?"`).
//
// After a change of behaviour, SAFESUBST_UPDATE_DOCS=1 writes every
// example's actual output into the page; review the diff before committing.
#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "test_support.h"
#include "text_diff.h"

namespace safesubst {
namespace {

namespace fs = std::filesystem;
using testing::ReadFile;
using testing::RunShell;
using testing::ShellQuote;
using testing::WriteFile;

// How a page marks its examples, and how its text is written.
struct PageFormat {
  std::string block_begin, block_end;  // whole lines
  std::string (*to_text)(const std::string& line);
  std::string (*from_text)(const std::string& line);
};

std::string Same(const std::string& line) { return line; }

void ReplaceAll(std::string* text, const std::string& from, const std::string& to) {
  for (std::size_t at = text->find(from); at != std::string::npos; at = text->find(from, at + to.size())) {
    text->replace(at, from.size(), to);
  }
}

// The roff escapes the man page uses in examples, as the reader sees them.
std::string RoffToText(const std::string& line) {
  std::string text = line;
  ReplaceAll(&text, "\\&", "");
  ReplaceAll(&text, "\\-", "-");
  ReplaceAll(&text, "\\(aq", "'");
  ReplaceAll(&text, "\\(dq", "\"");
  ReplaceAll(&text, "\\e", "\\");
  return text;
}

std::string TextToRoff(const std::string& line) {
  std::string roff = line;
  ReplaceAll(&roff, "\\", "\\e");
  ReplaceAll(&roff, "-", "\\-");
  ReplaceAll(&roff, "'", "\\(aq");
  if (!roff.empty() && roff[0] == '.') roff.insert(0, "\\&");  // not a request
  return roff;
}

const PageFormat kMarkdown{"```console", "```", Same, Same};
const PageFormat kManPage{".EX", ".EE", RoffToText, TextToRoff};

// One example: the command, and the lines [output_begin, output_end) of its page that show its output.
struct Example {
  std::size_t line;  // of the `$`, from 1
  std::string command;
  std::size_t output_begin, output_end;
  std::string shown;
};

std::vector<std::string> SplitLines(const std::string& text) {
  std::vector<std::string> lines;
  for (std::size_t at = 0; at < text.size();) {
    const std::size_t end = std::min(text.find('\n', at), text.size());
    lines.push_back(text.substr(at, end - at));
    at = end + 1;
  }
  return lines;
}

std::vector<Example> FindExamples(const std::vector<std::string>& lines, const PageFormat& format) {
  std::vector<Example> examples;
  bool in_block = false;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (!in_block) {
      in_block = lines[i] == format.block_begin;
      continue;
    }
    const std::string text = format.to_text(lines[i]);
    if (lines[i] == format.block_end) {
      in_block = false;
    } else if (text.starts_with("$ ")) {
      Example example{i + 1, text.substr(2), 0, 0, ""};
      while (example.command.ends_with("\\") && i + 1 < lines.size()) {
        example.command += "\n" + format.to_text(lines[++i]);
      }
      example.output_begin = example.output_end = i + 1;
      examples.push_back(example);
    } else if (!examples.empty() && examples.back().output_end == i) {
      examples.back().shown += text + "\n";
      examples.back().output_end = i + 1;
    }
  }
  return examples;
}

// What the command prints: standard output, then standard error, and its exit status.
testing::CommandResult RunExample(const std::string& command) {
  return RunShell("cd " + ShellQuote(SAFESUBST_SOURCE_DIR) + " && " + testing::CleanEnvironmentWithSafesubst() +
                  " HOME=/nonexistent /bin/sh -c " + ShellQuote(command));
}

// Checks (or, with SAFESUBST_UPDATE_DOCS, rewrites) every example of a page; returns how many it has.
std::size_t CheckPage(const std::string& relative_path, const PageFormat& format) {
  const fs::path path = fs::path(SAFESUBST_SOURCE_DIR) / relative_path;
  std::vector<std::string> lines = SplitLines(ReadFile(path));
  const std::vector<Example> examples = FindExamples(lines, format);
  const bool update = std::getenv("SAFESUBST_UPDATE_DOCS") != nullptr;
  // From the last example up, so that rewriting one keeps the line numbers of those above it.
  for (auto example = examples.rbegin(); example != examples.rend(); ++example) {
    const testing::CommandResult run = RunExample(example->command);
    const std::string actual = run.out + run.err;
    const std::string where = relative_path + ":" + std::to_string(example->line);
    CAPTURE(where);
    CAPTURE(example->command);
    if (run.code != 0) {
      FAIL_CHECK(where << ": `" << example->command << "` exits " << run.code
                       << "; an example of a failure shows it: add 2>&1 || echo \"exit status $?\"");
    }
    if (update) {
      std::vector<std::string> shown;
      for (const std::string& line : SplitLines(actual)) shown.push_back(format.from_text(line));
      lines.erase(lines.begin() + static_cast<long>(example->output_begin),
                  lines.begin() + static_cast<long>(example->output_end));
      lines.insert(lines.begin() + static_cast<long>(example->output_begin), shown.begin(), shown.end());
    } else if (actual != example->shown) {
      FAIL_CHECK(where << ": the output shown differs from the command's (SAFESUBST_UPDATE_DOCS=1 rewrites it):\n"
                       << UnifiedDiff(example->shown, actual, where + " (shown)", "(printed)"));
    }
  }
  if (update) {
    std::string text;
    for (const std::string& line : lines) text += line + "\n";
    WriteFile(path, text);
  }
  return examples.size();
}

TEST_CASE("docs: every README example that shows output prints what it shows") {
  CHECK(CheckPage("README.md", kMarkdown) >= 5);
}

TEST_CASE("docs: every man page example that shows output prints what it shows") {
  CHECK(CheckPage("packaging/safesubst.1", kManPage) >= 3);
}

TEST_CASE("docs: examples are found where the pages mark them, with their output") {
  const std::vector<std::string> markdown = {"text", "```console", "$ echo a \\", "  b", "a b", "$ true", "```",
                                             "$ not an example"};
  const std::vector<Example> found = FindExamples(markdown, kMarkdown);
  REQUIRE(found.size() == 2);
  CHECK(found[0].line == 3);
  CHECK(found[0].command == "echo a \\\n  b");
  CHECK(found[0].shown == "a b\n");
  CHECK(found[1].shown.empty());
  const std::vector<std::string> roff = {".EX", "$ printf \\(aq\\e$x\\-y\\(aq", "\\&.dot \\-\\-x", ".EE"};
  const std::vector<Example> in_man = FindExamples(roff, kManPage);
  REQUIRE(in_man.size() == 1);
  CHECK(in_man[0].command == "printf '\\$x-y'");
  CHECK(in_man[0].shown == ".dot --x\n");
  CHECK(RoffToText(TextToRoff(".a-b\\c 'd'")) == ".a-b\\c 'd'");
}

}  // namespace
}  // namespace safesubst
