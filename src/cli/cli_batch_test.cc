// SPDX-License-Identifier: Apache-2.0
// Batch rendering: `safesubst render --out-dir DIR T1 T2 ... -j N` renders the
// templates in parallel, writes each good one atomically, reports each bad
// one, and gives the same files and messages for any N.
#include <doctest/doctest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "test_support.h"

namespace safesubst {
namespace {

using testing::ReadFile;
using testing::RunShell;
using testing::Safesubst;
using testing::ShellQuote;
using testing::TempDir;
using testing::WriteFile;

constexpr const char* kManifest =
    "variables:\n"
    "  TENANT_ID: {type: dns-label}\n"
    "  IMAGE_TAG: {type: string}\n"
    "runtime: [NODE_IP]\n";

std::string Template(int i) {
  return "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${TENANT_ID}-app-" + std::to_string(i) +
         "\ndata:\n  tag: \"${IMAGE_TAG}\"\n  run.sh: |\n    echo \"$NODE_IP ${TENANT_ID}\"\n";
}

struct Batch {
  int code;
  std::string err;
  std::vector<std::string> outputs;  // "" for a file that was not written
};

Batch RunBatch(const TempDir& dir, const std::vector<std::string>& names, const std::string& out, int jobs) {
  std::filesystem::create_directory(dir / out);
  std::string command = "cd " + ShellQuote(dir.path().string()) + " && " + Safesubst() +
                        " render -m manifest.yaml --set TENANT_ID=tenant-a --set IMAGE_TAG=1.10 --color never" +
                        " --out-dir " + out + " -j " + std::to_string(jobs);
  for (const std::string& name : names) command += " " + name;
  testing::CommandResult result = RunShell(command);
  Batch batch{result.code, result.err, {}};
  for (const std::string& name : names) batch.outputs.push_back(ReadFile(dir / out / name, ""));
  return batch;
}

TEST_CASE("batch render: outputs and messages do not depend on -j, and a bad template does not stop the others") {
  TempDir dir;
  WriteFile(dir / "manifest.yaml", kManifest);
  std::vector<std::string> names;
  for (int i = 0; i < 12; ++i) {
    names.push_back("t" + std::to_string(i) + ".yaml");
    std::string text = Template(i);
    if (i == 3) text += "  bad: ${UNDECLARED}\n";     // an error: nothing written for t3
    if (i == 5) text += "  home: $HOME\n";             // a warning: written
    if (i == 8) text = "a: \"unterminated\n";          // an error
    WriteFile(dir / names.back(), text);
  }
  const Batch one = RunBatch(dir, names, "out1", 1);
  CHECK(one.code == 1);
  CHECK(one.outputs[3].empty());
  CHECK(one.outputs[8].empty());
  CHECK(one.outputs[0].find("name: tenant-a-app-0") != std::string::npos);
  CHECK(one.outputs[5].find("home: $HOME") != std::string::npos);
  CHECK(one.err.find("t3.yaml:") != std::string::npos);
  CHECK(one.err.find("t8.yaml:") != std::string::npos);
  CHECK(one.err.find("t3.yaml:") < one.err.find("t5.yaml:"));  // template order
  CHECK(one.err.find("t5.yaml:") < one.err.find("t8.yaml:"));
  for (int jobs : {2, 4, 16}) {
    const Batch many = RunBatch(dir, names, "out" + std::to_string(jobs), jobs);
    CHECK(many.code == one.code);
    CHECK(many.err == one.err);
    CHECK(many.outputs == one.outputs);
  }
}

TEST_CASE("batch render: one large stream gives the same bytes with one thread or several") {
  TempDir dir;
  WriteFile(dir / "manifest.yaml", kManifest);
  std::string stream;
  for (int i = 0; stream.size() < (std::size_t{3} << 20); ++i) stream += "---\n" + Template(i);
  WriteFile(dir / "stream.yaml", stream);
  const std::string base = "cd " + ShellQuote(dir.path().string()) + " && " + Safesubst() +
                           " render -m manifest.yaml --set TENANT_ID=tenant-a --set IMAGE_TAG=1.10 stream.yaml";
  const testing::CommandResult one = RunShell(base + " -j 1");
  const testing::CommandResult two = RunShell(base + " -j 2");
  const testing::CommandResult checked = RunShell(base + " -j 2 --full-check");
  CHECK(one.code == 0);
  CHECK(one.out.size() > stream.size() / 2);
  CHECK(two.out == one.out);
  CHECK(checked.out == one.out);
  CHECK(two.err == one.err);
}

TEST_CASE("render: a template file large enough to be mapped renders as the same text on standard input") {
  // Above 4 MiB the file is mapped, and its pieces are copied with pread
  // (detail::RenderWithCopy); standard input is read into memory.
  TempDir dir;
  WriteFile(dir / "manifest.yaml", kManifest);
  std::string stream;
  for (int i = 0; stream.size() < (std::size_t{5} << 20); ++i) stream += "---\n" + Template(i);
  stream += "---\nlast: |\n  ---x\n---";  // a marker line at the very end of the file
  WriteFile(dir / "stream.yaml", stream);
  const std::string base = "cd " + ShellQuote(dir.path().string()) + " && " + Safesubst() +
                           " render -m manifest.yaml --set TENANT_ID=tenant-a --set IMAGE_TAG=1.10";
  const testing::CommandResult piped = RunShell(base + " - < stream.yaml");
  REQUIRE(piped.code == 0);
  CHECK(piped.out.size() > stream.size() / 2);
  for (const char* jobs : {" -j 1", " -j 2", " -j 3"}) {
    CAPTURE(jobs);
    const testing::CommandResult mapped = RunShell(base + jobs + " stream.yaml");
    CHECK(mapped.code == 0);
    CHECK(mapped.out == piped.out);
    CHECK(mapped.err == piped.err);
  }
}

TEST_CASE("render --set-from-filename: a tenant's apps in one call, the same files as one call per app") {
  const std::filesystem::path example = std::filesystem::path(SAFESUBST_SOURCE_DIR) / "examples/efs-zone";
  TempDir dir;
  std::filesystem::create_directory(dir / "batch");
  const std::string base = Safesubst() + " render -m " + ShellQuote((example / "manifest.yaml").string()) +
                           " --values " + ShellQuote((example / "values/dev.env").string());
  const std::string apps = ShellQuote((example / "apps").string());
  const testing::CommandResult batch = RunShell(base + " --set-from-filename APP --out-dir " +
                                                ShellQuote((dir / "batch").string()) + " " + apps + "/*.yaml");
  REQUIRE(batch.code == 0);
  for (const char* app : {"mo-back", "web-portal"}) {
    CAPTURE(app);
    const testing::CommandResult one = RunShell(base + " --set APP=" + app + " " + apps + "/" + app + ".yaml");
    REQUIRE(one.code == 0);
    CHECK(ReadFile(dir / "batch" / (std::string(app) + ".yaml")) == one.out);
    CHECK(one.out.find("app: " + std::string(app)) != std::string::npos);
  }
  // The two outputs differ in the app's name: each got its own value.
  CHECK(ReadFile(dir / "batch/mo-back.yaml") != ReadFile(dir / "batch/web-portal.yaml"));
}

TEST_CASE("render --set-from-filename: a name that fails the variable's check fails that template only") {
  TempDir dir;
  WriteFile(dir / "manifest.yaml", "variables:\n  APP: {type: dns-label, required: true}\n");
  WriteFile(dir / "good-app.yaml", "name: ${APP}\n");
  WriteFile(dir / "Bad_App.yaml", "name: ${APP}\n");
  std::filesystem::create_directory(dir / "out");
  const std::string cd = "cd " + ShellQuote(dir.path().string()) + " && " + Safesubst() + " render -m manifest.yaml ";
  const testing::CommandResult run = RunShell(cd + "--set-from-filename APP --out-dir out good-app.yaml Bad_App.yaml");
  CHECK(run.code == 1);
  CHECK(run.err.find("APP") != std::string::npos);
  CHECK(ReadFile(dir / "out/good-app.yaml") == "name: good-app\n");
  CHECK_FALSE(std::filesystem::exists(dir / "out/Bad_App.yaml"));
  // The first template's name stands for all when the values are loaded: it must not fail the others.
  const testing::CommandResult first_bad =
      RunShell(cd + "--set-from-filename APP --out-dir out Bad_App.yaml good-app.yaml");
  CHECK(first_bad.code == 1);
  CHECK(ReadFile(dir / "out/good-app.yaml") == "name: good-app\n");
  // A name the manifest does not declare, or standard input: usage errors.
  CHECK(RunShell(cd + "--set-from-filename NOPE good-app.yaml").code == 2);
  CHECK(RunShell(cd + "--set-from-filename APP", "name: ${APP}\n").code == 2);
}

// The outputs are written from several threads at once (their fsyncs wait for
// the disk together); a target that cannot be written fails alone, and the
// failures are reported in the templates' order.
TEST_CASE("batch render: every output that can be written is, and write failures come in the templates' order") {
  TempDir dir;
  WriteFile(dir / "manifest.yaml", kManifest);
  std::vector<std::string> names;
  for (int i = 0; i < 12; ++i) {
    names.push_back("t" + std::to_string(i) + ".yaml");
    WriteFile(dir / names.back(), Template(i));
  }
  std::filesystem::create_directories(dir / "out/t2.yaml");
  std::filesystem::create_directories(dir / "out/t9.yaml");
  const Batch batch = RunBatch(dir, names, "out", 2);
  CHECK(batch.code == 1);
  const std::size_t first = batch.err.find("out/t2.yaml: error: cannot write: is a directory");
  const std::size_t second = batch.err.find("out/t9.yaml: error: cannot write: is a directory");
  REQUIRE(first != std::string::npos);
  REQUIRE(second != std::string::npos);
  CHECK(first < second);
  for (int i = 0; i < 12; ++i) {
    CAPTURE(i);
    if (i == 2 || i == 9) continue;
    CHECK(batch.outputs[i].find("name: tenant-a-app-" + std::to_string(i) + "\n") != std::string::npos);
  }
  int temporaries = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir / "out")) {
    temporaries += entry.path().filename().string().rfind(".safesubst-", 0) == 0;
  }
  CHECK(temporaries == 0);
}

// Outputs are written as soon as they are rendered, except with --lint: a
// template whose output fails it is not written, the others are.
TEST_CASE("batch render: with --lint, an output that fails it is not written, the others are") {
  TempDir dir;
  WriteFile(dir / "manifest.yaml", kManifest);
  std::vector<std::string> names;
  for (int i = 0; i < 6; ++i) {
    names.push_back("t" + std::to_string(i) + ".yaml");
    WriteFile(dir / names.back(), Template(i) + (i == 4 ? "  left: \"${LEFTOVER}\"\n" : ""));
  }
  std::filesystem::create_directory(dir / "out");
  std::string command = "cd " + ShellQuote(dir.path().string()) + " && " + Safesubst() +
                        " render -m manifest.yaml --set TENANT_ID=tenant-a --set IMAGE_TAG=1.10 --color never" +
                        " --allow-undeclared --lint --out-dir out";
  for (const std::string& name : names) command += " " + name;
  const testing::CommandResult run = RunShell(command);
  CHECK(run.code == 1);
  CHECK(run.err.find("t4.yaml:9:10: error:") != std::string::npos);
  CHECK(run.err.find("[leftover-placeholder]") != std::string::npos);
  for (int i = 0; i < 6; ++i) {
    CAPTURE(i);
    const std::string output = ReadFile(dir / "out" / names[i], "");
    if (i == 4) {
      CHECK(output.empty());
    } else {
      CHECK(output.find("name: tenant-a-app-" + std::to_string(i) + "\n") != std::string::npos);
    }
  }
}

}  // namespace
}  // namespace safesubst
