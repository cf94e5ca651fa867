// SPDX-License-Identifier: Apache-2.0
// The seed scenario end to end (SPEC "The seed scenario"): the rendered zone
// wrapper runs under /bin/sh and writes the right /etc/hosts line, where the
// same template rendered by GNU envsubst writes a blank one.
#include <doctest/doctest.h>

#include <yaml-cpp/yaml.h>

#include <string>

#include "test_support.h"

using namespace safesubst::testing;

namespace {

constexpr const char* kExample = "examples/inline-wrapper";
constexpr const char* kDevEnvironment =
    "TENANT_ID=tenant-a EFS_HOSTNAME=fs-0123456789abcdef0.efs.ap-northeast-2.amazonaws.com "
    "EFS_PRIMARY_IP=10.0.1.10 EFS_IP_2C=10.0.2.10 ZONE_BOUNDARY=31";

// The wrapper script of the rendered Deployment's first container.
std::string WrapperScript(const std::string& rendered) {
  YAML::Node document = YAML::Load(rendered);
  return document["spec"]["template"]["spec"]["containers"][0]["args"][0].as<std::string>();
}

// Runs the wrapper with NODE_IP, a scratch file standing in for /etc/hosts and
// a start.sh stub; returns what it wrote to the hosts file.
std::string RunWrapper(std::string script, const std::string& node_ip, const TempDir& dir) {
  std::string hosts = (dir / "hosts").string();
  for (std::size_t at; (at = script.find("/etc/hosts")) != std::string::npos;) script.replace(at, 10, hosts);
  WriteFile(dir / "hosts", "");
  WriteFile(dir / "start.sh", "echo started\n");
  WriteFile(dir / "wrapper.sh", script);
  CommandResult run = RunShell("cd " + ShellQuote(dir.path().string()) + " && env NODE_IP=" + node_ip +
                               " /bin/sh wrapper.sh");
  CHECK(run.code == 0);
  CHECK(run.out.find("started") != std::string::npos);
  return ReadFile(dir / "hosts");
}

}  // namespace

TEST_CASE("seed: the safesubst-rendered wrapper writes the zone 2c address") {
  CommandResult render = RunShell("cd " + ShellQuote(SourceDir().string()) + " && " + Safesubst() +
                                  " render -m " + kExample + "/manifest.yaml --values " + kExample + "/dev.env " +
                                  kExample + "/deployment.yaml");
  REQUIRE(render.code == 0);
  std::string script = WrapperScript(render.out);
  CHECK(script.find("OCT3=$(echo \"$NODE_IP\" | cut -d. -f3)") != std::string::npos);
  CHECK(script.find("EFS_2A=\"10.0.1.10\"") != std::string::npos);
  TempDir dir;
  CHECK(RunWrapper(script, "10.0.39.229", dir) ==
        "10.0.2.10 fs-0123456789abcdef0.efs.ap-northeast-2.amazonaws.com\n");
  CHECK(RunWrapper(script, "10.0.20.5", dir) == "10.0.1.10 fs-0123456789abcdef0.efs.ap-northeast-2.amazonaws.com\n");
}

TEST_CASE("seed: the same template through GNU envsubst writes a blank line (the contrast)") {
  if (!HaveProgram("envsubst")) {
    FAIL("GNU envsubst (package gettext-base) is not installed; .ci/run installs it");
  }
  CommandResult render = RunShell("cd " + ShellQuote(SourceDir().string()) + " && env " + kDevEnvironment +
                                  " envsubst < " + kExample + "/deployment.yaml");
  REQUIRE(render.code == 0);
  std::string script = WrapperScript(render.out);
  CHECK(script.find("OCT3=$(echo \"\" | cut -d. -f3)") != std::string::npos);
  TempDir dir;
  CHECK(RunWrapper(script, "10.0.39.229", dir) == " \n");
}
