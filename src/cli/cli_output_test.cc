// SPDX-License-Identifier: Apache-2.0
// Where `render` writes: through symlinks, into FIFOs and devices without
// replacing them, and never over one of its own inputs or twice to one file.
#include <doctest/doctest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

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

TEST_CASE("cli output: -o onto /dev/stdout and its other names writes into the shell's redirection") {
  Project project;
  const std::string in_dir = "cd " + ShellQuote(project.dir.path().string()) + " && ";
  fs::create_symlink("/dev/stdout", project.dir / "out-link");
  for (const char* target : {"/dev/stdout", "/dev/fd/1", "/proc/self/fd/1", "out-link"}) {
    CAPTURE(target);
    const std::string rendered =
        "{ echo HEADER; " + Safesubst() + " render -m m.yaml --set APP=x -o " + std::string(target) + " t.yaml; echo FOOTER; }";
    CHECK(RunShell(in_dir + rendered + " > log").code == 0);
    CHECK(ReadFile(project.dir / "log") == "HEADER\na: \"x\"\nFOOTER\n");
    WriteFile(project.dir / "log", "EARLIER\n");
    CHECK(RunShell(in_dir + rendered + " >> log").code == 0);
    CHECK(ReadFile(project.dir / "log") == "EARLIER\nHEADER\na: \"x\"\nFOOTER\n");
    CHECK_FALSE(fs::is_symlink(project.dir / "log"));
  }
  const CommandResult to_stderr = project.Render("--set APP=e -o /dev/stderr t.yaml");
  CHECK(to_stderr.code == 0);
  CHECK(to_stderr.err == "a: \"e\"\n");
  CHECK(to_stderr.out.empty());
}

// The temporary files a render leaves in `dir`.
std::vector<fs::path> Temporaries(const fs::path& dir) {
  std::vector<fs::path> found;
  for (const fs::directory_entry& entry : fs::directory_iterator(dir)) {
    if (entry.path().filename().string().rfind(".safesubst-", 0) == 0) found.push_back(entry.path());
  }
  return found;
}

// Starts `command` with /bin/sh in `dir` with SAFESUBST_TEST_STOP_AT=`point`
// and waits until safesubst stops itself there (the test hook of
// output_files.cc), so that the test can look at its files and signal it
// without racing it. Returns its process id (the shell execs safesubst).
pid_t StartStoppedAt(const fs::path& dir, const std::string& point, const std::string& command) {
  const pid_t child = ::fork();
  if (child == 0) {
    if (::chdir(dir.c_str()) != 0) ::_exit(127);
    ::setenv("SAFESUBST_TEST_STOP_AT", point.c_str(), 1);
    ::execl("/bin/sh", "sh", "-c", ("exec " + command + " 2>err").c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  int status = 0;
  REQUIRE(::waitpid(child, &status, WUNTRACED) == child);
  REQUIRE(WIFSTOPPED(status));
  return child;
}

// Sends `signal_number` to the stopped `child`, lets it run, and returns how it ended.
int SignalAndWait(pid_t child, int signal_number) {
  ::kill(child, signal_number);
  ::kill(child, SIGCONT);
  int status = 0;
  ::waitpid(child, &status, 0);
  return status;
}

TEST_CASE("cli output: a temporary is its owner's only, and an interrupt removes it at every point of writing") {
  Project project;
  const mode_t mask = ::umask(0);
  ::umask(mask);
  for (const char* point : {"created", "half-written", "staged"}) {
    for (int signal_number : {SIGTERM, SIGINT, SIGHUP}) {
      CAPTURE(point);
      CAPTURE(signal_number);
      WriteFile(project.dir / "out.yaml", "old\n");
      ::chmod((project.dir / "out.yaml").c_str(), 0644);
      const pid_t child = StartStoppedAt(project.dir.path(), point,
                                         Safesubst() + " render -m m.yaml --set APP=secret -o out.yaml t.yaml");
      const std::vector<fs::path> temporaries = Temporaries(project.dir.path());
      REQUIRE(temporaries.size() == 1);
      struct stat info{};
      REQUIRE(::stat(temporaries[0].c_str(), &info) == 0);
      CHECK((info.st_mode & 07777) == 0600);
      const int status = SignalAndWait(child, signal_number);
      CHECK(WIFSIGNALED(status));
      CHECK(WTERMSIG(status) == signal_number);
      CHECK(Temporaries(project.dir.path()).empty());
      CHECK(ReadFile(project.dir / "out.yaml") == "old\n");
    }
  }
  // A render that is not interrupted gives the output the replaced file's
  // mode, or a new file's.
  ::chmod((project.dir / "out.yaml").c_str(), 0640);
  CHECK(project.Render("--set APP=x -o out.yaml t.yaml").code == 0);
  struct stat info{};
  REQUIRE(::stat((project.dir / "out.yaml").c_str(), &info) == 0);
  CHECK((info.st_mode & 07777) == 0640);
  CHECK(project.Render("--set APP=x -o new.yaml t.yaml").code == 0);
  REQUIRE(::stat((project.dir / "new.yaml").c_str(), &info) == 0);
  CHECK((info.st_mode & 07777) == (0644 & ~mask));
}

TEST_CASE("cli output: --in-place over several templates changes all of them or none") {
  Project project;
  WriteFile(project.dir / "small.yaml", "a: \"${APP}\"\n");
  const std::string large = "b: \"${APP}\"\nc: \"" + std::string(200000, 'x') + "\"\n";
  WriteFile(project.dir / "large.yaml", large);
  // The second output cannot be written (the file size limit, with SIGXFSZ
  // ignored, makes write(2) fail with EFBIG): the first must stay as it was.
  const CommandResult limited = RunShell("cd " + ShellQuote(project.dir.path().string()) +
                                         " && trap '' XFSZ && ulimit -f 100 && " + Safesubst() +
                                         " render -m m.yaml --set APP=x -i small.yaml large.yaml");
  CHECK(limited.code == 1);
  CHECK(limited.err.find("large.yaml: error: cannot write: File too large") != std::string::npos);
  CHECK(limited.err.find("--in-place changed no template") != std::string::npos);
  CHECK(ReadFile(project.dir / "small.yaml") == "a: \"${APP}\"\n");
  CHECK(ReadFile(project.dir / "large.yaml") == large);
  CHECK(Temporaries(project.dir.path()).empty());

  // Interrupted once every output is written, before the first rename: no template changes.
  const pid_t child = StartStoppedAt(project.dir.path(), "staged",
                                     Safesubst() + " render -m m.yaml --set APP=x -i small.yaml t.yaml");
  CHECK(Temporaries(project.dir.path()).size() == 2);
  const int status = SignalAndWait(child, SIGTERM);
  CHECK(WIFSIGNALED(status));
  CHECK(Temporaries(project.dir.path()).empty());
  CHECK(ReadFile(project.dir / "small.yaml") == "a: \"${APP}\"\n");
  CHECK(ReadFile(project.dir / "t.yaml") == "a: \"${APP}\"\n");

  CHECK(project.Render("--set APP=x -i small.yaml t.yaml").code == 0);
  CHECK(ReadFile(project.dir / "small.yaml") == "a: \"x\"\n");
  CHECK(ReadFile(project.dir / "t.yaml") == "a: \"x\"\n");
}

TEST_CASE("cli output: --max-output-size refuses a larger output and writes nothing") {
  Project project;
  WriteFile(project.dir / "out.yaml", "old\n");
  const CommandResult over = project.Render("--set APP=abcdefgh --max-output-size 13 -o out.yaml t.yaml");
  CHECK(over.code == 1);
  CHECK(over.err.find("t.yaml: error: the output would be at least 14 bytes, over the limit of 13 bytes") !=
        std::string::npos);
  CHECK(over.err.find("raise it with --max-output-size") != std::string::npos);
  CHECK(ReadFile(project.dir / "out.yaml") == "old\n");
  CHECK(project.Render("--set APP=abcdefg --max-output-size 13 -o out.yaml t.yaml").code == 0);
  CHECK(ReadFile(project.dir / "out.yaml") == "a: \"abcdefg\"\n");
}

}  // namespace
}  // namespace safesubst
