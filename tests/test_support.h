// SPDX-License-Identifier: Apache-2.0
// Helpers shared by tests that run programs: the safesubst binary, /bin/sh,
// GNU envsubst, shellcheck, PyYAML.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace safesubst::testing {

inline std::string ReadFile(const std::filesystem::path& path, const std::string& fallback = "") {
  std::ifstream in(path, std::ios::binary);
  if (!in) return fallback;
  std::ostringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

inline void WriteFile(const std::filesystem::path& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

/// Quotes `text` for /bin/sh.
inline std::string ShellQuote(const std::string& text) {
  std::string quoted = "'";
  for (char c : text) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

/// A fresh directory removed at scope exit.
class TempDir {
 public:
  TempDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "safesubst-test-XXXXXX").string();
    path_ = ::mkdtemp(pattern.data());
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path operator/(const std::string& name) const { return path_ / name; }

 private:
  std::filesystem::path path_;
};

struct CommandResult {
  std::string out;
  std::string err;
  int code = -1;
};

/// Runs `command` with /bin/sh, feeding `input` on stdin; captures both streams.
inline CommandResult RunShell(const std::string& command, const std::string& input = "") {
  TempDir scratch;
  WriteFile(scratch / "in", input);
  std::string full = "( " + command + " ) <" + ShellQuote((scratch / "in").string()) + " >" +
                     ShellQuote((scratch / "out").string()) + " 2>" + ShellQuote((scratch / "err").string());
  int status = std::system(full.c_str());
  CommandResult result;
  result.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  result.out = ReadFile(scratch / "out");
  result.err = ReadFile(scratch / "err");
  return result;
}

/// `yaml` as PyYAML (a YAML 1.1 reader, like go-yaml v2 in kubectl) reads
/// it, in `out` as JSON with sorted keys and every non-ASCII character
/// escaped. python3-yaml is in packaging/debian-test-deps.txt: a caller
/// requires `code` 0, so that the test fails without it.
inline CommandResult ReadWithPyYaml(const std::string& yaml) {
  return RunShell(
      "python3 -c 'import json, sys, yaml; print(json.dumps(yaml.safe_load(sys.stdin.read()), sort_keys=True))'",
      yaml);
}

/// True when `program` is on PATH.
inline bool HaveProgram(const std::string& program) {
  return std::system(("command -v " + ShellQuote(program) + " >/dev/null 2>&1").c_str()) == 0;
}

/// The safesubst binary under test, quoted for the shell.
inline std::string Safesubst() { return ShellQuote(SAFESUBST_BINARY); }

/// `env -i` with NO_COLOR=1 and the directory of the safesubst under test
/// first on PATH, for the shell: a command run after it finds `safesubst`
/// and sees nothing else of the test's environment.
inline std::string CleanEnvironmentWithSafesubst() {
  return "env -i NO_COLOR=1 PATH=" +
         ShellQuote(std::filesystem::path(SAFESUBST_BINARY).parent_path().string() + ":/usr/bin:/bin");
}

/// The repository root.
inline std::filesystem::path SourceDir() { return SAFESUBST_SOURCE_DIR; }

/// The `.yaml` files under the repository's test data, goldens and examples.
inline std::vector<std::filesystem::path> RepositoryYamlFiles() {
  std::vector<std::filesystem::path> files;
  for (const char* dir : {"tests/data", "tests/golden", "tests/regression", "examples"}) {
    const std::filesystem::path root = SourceDir() / dir;
    if (!std::filesystem::is_directory(root)) continue;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(root)) {
      if (entry.is_regular_file() && entry.path().extension() == ".yaml") files.push_back(entry.path());
    }
  }
  return files;
}

/// The YAML test suite ($YAML_TEST_SUITE_DIR, else ../shared/yaml-test-suite
/// beside the checkout). When it is missing the test process says so loudly
/// and exits 77, which ctest reports as Skipped (SKIP_RETURN_CODE): a test
/// that needs the suite never passes without it.
inline std::filesystem::path YamlTestSuiteOrSkip() {
  const char* configured = std::getenv("YAML_TEST_SUITE_DIR");
  std::filesystem::path suite = configured != nullptr && *configured != '\0'
                                    ? std::filesystem::path(configured)
                                    : SourceDir() / ".." / "shared" / "yaml-test-suite";
  if (!std::filesystem::is_directory(suite)) {
    std::fprintf(stderr, "SKIPPED: yaml-test-suite not found at %s; set YAML_TEST_SUITE_DIR\n", suite.c_str());
    std::exit(77);
  }
  return suite;
}

}  // namespace safesubst::testing
