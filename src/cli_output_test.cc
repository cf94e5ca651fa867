// Where `render` writes: through symlinks, into FIFOs and devices without
// replacing them, and never over one of its own inputs or twice to one file.
#include <doctest/doctest.h>
#include <sys/stat.h>

#include <filesystem>
#include <string>

#include "test_support.h"

namespace safesubst {
namespace {

namespace fs = std::filesystem;
using testing::CommandResult;
using testing::ReadFile;
using testing::RunShell;
using testing::Safesubst;
using testing::ShellQuote;
using testing::TempDir;
using testing::WriteFile;

// A directory with a manifest (m.yaml), a values file (dev.env) and a template (t.yaml).
struct Project {
  TempDir dir;
  Project() {
    WriteFile(dir / "m.yaml", "variables:\n  APP: {type: string}\n");
    WriteFile(dir / "dev.env", "APP=from-values\n");
    WriteFile(dir / "t.yaml", "a: \"${APP}\"\n");
  }
  // Runs `safesubst render -m m.yaml ARGS` in the directory.
  CommandResult Render(const std::string& arguments) const {
    return RunShell("cd " + ShellQuote(dir.path().string()) + " && " + Safesubst() + " render -m m.yaml " + arguments);
  }
};

TEST_CASE("cli output: -o and -i write through a symlink, and keep the link") {
  Project project;
  WriteFile(project.dir / "target.yaml", "old\n");
  fs::create_symlink("target.yaml", project.dir / "link.yaml");
  CHECK(project.Render("--set APP=q -o link.yaml t.yaml").code == 0);
  CHECK(fs::is_symlink(project.dir / "link.yaml"));
  CHECK(ReadFile(project.dir / "target.yaml") == "a: \"q\"\n");

  fs::create_symlink("t.yaml", project.dir / "template-link.yaml");
  CHECK(project.Render("--set APP=i -i template-link.yaml").code == 0);
  CHECK(fs::is_symlink(project.dir / "template-link.yaml"));
  CHECK(ReadFile(project.dir / "t.yaml") == "a: \"i\"\n");

  // A dangling link: its target is created.
  fs::create_directory(project.dir / "sub");
  fs::create_symlink("sub/new.yaml", project.dir / "dangling.yaml");
  CHECK(project.Render("--set APP=d -o dangling.yaml t.yaml").code == 0);
  CHECK(fs::is_symlink(project.dir / "dangling.yaml"));
}

TEST_CASE("cli output: a FIFO or a device is written to, not replaced") {
  Project project;
  REQUIRE(::mkfifo((project.dir / "fifo").c_str(), 0600) == 0);
  const CommandResult fifo = RunShell("cd " + ShellQuote(project.dir.path().string()) + " && (cat fifo > got &) && " +
                                      Safesubst() + " render -m m.yaml --set APP=f -o fifo t.yaml && wait");
  CHECK(fifo.code == 0);
  CHECK(fs::is_fifo(project.dir / "fifo"));
  CHECK(project.Render("--set APP=n -o /dev/null t.yaml").code == 0);
  CHECK(fs::is_character_file("/dev/null"));
  const CommandResult full = project.Render("--set APP=n -o /dev/full t.yaml");
  CHECK(full.code == 1);
  CHECK(full.err.find("/dev/full: error: cannot write: No space left on device") != std::string::npos);
  CHECK(fs::is_character_file("/dev/full"));
}

TEST_CASE("cli output: no output replaces the manifest, a values file or another template") {
  Project project;
  for (const std::string& arguments : {std::string("--values dev.env -o m.yaml t.yaml"),
                                       std::string("--values dev.env -o ./dev.env t.yaml"),
                                       std::string("--set APP=x -o t.yaml t.yaml"), std::string("-i m.yaml")}) {
    CAPTURE(arguments);
    const CommandResult result = project.Render(arguments);
    CHECK(result.code == 2);
    CHECK(result.err.find("error: this output would replace the") != std::string::npos);
  }
  CHECK(ReadFile(project.dir / "m.yaml") == "variables:\n  APP: {type: string}\n");
  CHECK(ReadFile(project.dir / "dev.env") == "APP=from-values\n");
  CHECK(ReadFile(project.dir / "t.yaml") == "a: \"${APP}\"\n");
  // --out-dir onto the templates' own directory.
  CHECK(project.Render("--set APP=x --out-dir . t.yaml").err.find("would replace the template") != std::string::npos);
}

TEST_CASE("cli output: --out-dir refuses two templates of one name, and standard input") {
  Project project;
  fs::create_directories(project.dir / "a");
  fs::create_directories(project.dir / "b");
  fs::create_directories(project.dir / "out");
  WriteFile(project.dir / "a" / "app.yaml", "a: 1\n");
  WriteFile(project.dir / "b" / "app.yaml", "b: 2\n");
  const CommandResult clash = project.Render("--out-dir out a/app.yaml b/app.yaml");
  CHECK(clash.code == 2);
  CHECK(clash.err.find("out/app.yaml: error: both 'a/app.yaml' and 'b/app.yaml' would be written here") !=
        std::string::npos);
  CHECK_FALSE(fs::exists(project.dir / "out" / "app.yaml"));
  const CommandResult from_stdin = project.Render("--out-dir out < t.yaml");
  CHECK(from_stdin.code == 2);
  CHECK(from_stdin.err.find("--out-dir needs template files, not standard input") != std::string::npos);
  CHECK(fs::is_empty(project.dir / "out"));
}

TEST_CASE("cli output: a failed write to standard output is an error for every command") {
  Project project;
  const std::string in_dir = "cd " + ShellQuote(project.dir.path().string()) + " && " + Safesubst() + " ";
  for (const std::string& command : {std::string("render -m m.yaml --set APP=x t.yaml"),
                                     std::string("explain -m m.yaml t.yaml"), std::string("vars -m m.yaml t.yaml"),
                                     std::string("audit -m m.yaml t.yaml"), std::string("lint --format json t.yaml"),
                                     std::string("init t.yaml")}) {
    CAPTURE(command);
    const CommandResult full = RunShell(in_dir + command + " > /dev/full");
    CHECK(full.code == 1);
    CHECK(full.err.find("No space left on device") != std::string::npos);
    CHECK(RunShell(in_dir + command + " >&-").code == 1);
  }
}

}  // namespace
}  // namespace safesubst
