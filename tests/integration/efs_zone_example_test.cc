// SPDX-License-Identifier: Apache-2.0
// The seed scenario with fragment merges (examples/efs-zone): onboarding.sh
// renders every app; mo-back gets the zone wrapper instead of hostAliases,
// web-portal (excluded) keeps its hostAliases; the wrapper picks the zone.
#include <doctest/doctest.h>

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <string>

#include "test_support.h"

using namespace safesubst::testing;

namespace {

constexpr const char* kEfsHost = "fs-0123456789abcdef0.efs.ap-northeast-2.amazonaws.com";

struct Rendered {
  std::string mo_back;
  std::string web_portal;
};

Rendered RunOnboarding(const TempDir& dir) {
  std::string script = (SourceDir() / "examples/efs-zone/onboarding.sh").string();
  CommandResult run = RunShell("SAFESUBST=" + Safesubst() + " " + ShellQuote(script) + " dev " +
                               ShellQuote((dir / "out").string()));
  INFO(run.err);
  REQUIRE(run.code == 0);
  return Rendered{ReadFile(dir / "out/mo-back.yaml"), ReadFile(dir / "out/web-portal.yaml")};
}

// Runs the wrapper with stubs: /etc/hosts is a scratch file, `sh start.sh`
// (the exec at the end) is a stub on PATH that reports what would run.
std::string RunWrapper(std::string script, const std::string& node_ip, const TempDir& dir) {
  std::string hosts = (dir / "hosts").string();
  for (std::size_t at; (at = script.find("/etc/hosts")) != std::string::npos;) script.replace(at, 10, hosts);
  for (std::size_t at; (at = script.find("cd /home/app")) != std::string::npos;) script.replace(at, 12, "cd .");
  std::filesystem::create_directories(dir / "bin");
  WriteFile(dir / "bin/sh", "#!/bin/dash\necho \"exec: sh $*\"\n");
  std::filesystem::permissions(dir / "bin/sh", std::filesystem::perms::owner_all);
  WriteFile(dir / "hosts", "");
  WriteFile(dir / "wrapper.sh", script);
  CommandResult run = RunShell("cd " + ShellQuote(dir.path().string()) + " && PATH=" +
                               ShellQuote((dir / "bin").string()) + ":/usr/bin:/bin NODE_IP=" + ShellQuote(node_ip) +
                               " /bin/dash wrapper.sh");
  CHECK(run.code == 0);
  CHECK(run.out.find("exec: sh start.sh") != std::string::npos);
  return ReadFile(dir / "hosts");
}

}  // namespace

TEST_CASE("efs-zone example: mo-back gets the wrapper, loses hostAliases, keeps comments") {
  TempDir dir;
  Rendered rendered = RunOnboarding(dir);
  YAML::Node mo_back = YAML::Load(rendered.mo_back);
  YAML::Node pod = mo_back["spec"]["template"]["spec"];
  CHECK_FALSE(pod["hostAliases"]);
  YAML::Node container = pod["containers"][0];
  CHECK(container["name"].as<std::string>() == "app");
  CHECK(container["command"][0].as<std::string>() == "/bin/sh");
  std::string script = container["args"][0].as<std::string>();
  CHECK(script.find("OCT3=$(echo \"$NODE_IP\" | cut -d. -f3)") != std::string::npos);
  CHECK(script.find("EFS_2C=\"10.0.2.10\"") != std::string::npos);
  CHECK(script.find("-le 31 ]") != std::string::npos);
  CHECK(mo_back["metadata"]["name"].as<std::string>() == "tenant-a-mo-back");
  // Comments of the template and of the fragment survive.
  CHECK(rendered.mo_back.find("# mo-back: rendered per tenant by onboarding.sh") != std::string::npos);
  CHECK(rendered.mo_back.find("# read by the zone wrapper at runtime") != std::string::npos);
  CHECK(rendered.mo_back.find("# NODE_IP empty or malformed") != std::string::npos);
  // The hostAliases comment left with the key it described.
  CHECK(rendered.mo_back.find("Fixed EFS mount target") == std::string::npos);
}

TEST_CASE("efs-zone example: web-portal is excluded and only substituted") {
  TempDir dir;
  Rendered rendered = RunOnboarding(dir);
  std::string template_text = ReadFile(SourceDir() / "examples/efs-zone/apps/web-portal.yaml");
  YAML::Node web = YAML::Load(rendered.web_portal);
  YAML::Node pod = web["spec"]["template"]["spec"];
  CHECK(pod["hostAliases"][0]["ip"].as<std::string>() == "10.0.1.10");
  CHECK(pod["hostAliases"][0]["hostnames"][0].as<std::string>() == kEfsHost);
  CHECK_FALSE(pod["containers"][0]["command"]);
  // Same line count and same comment lines: only placeholders changed.
  auto count = [](const std::string& text, char c) { return std::count(text.begin(), text.end(), c); };
  CHECK(count(rendered.web_portal, '\n') == count(template_text, '\n'));
  CHECK(count(rendered.web_portal, '#') == count(template_text, '#'));
  CHECK(rendered.web_portal.find("${") == std::string::npos);
}

TEST_CASE("efs-zone example: the merged wrapper picks the zone from NODE_IP under /bin/sh") {
  TempDir dir;
  Rendered rendered = RunOnboarding(dir);
  std::string script =
      YAML::Load(rendered.mo_back)["spec"]["template"]["spec"]["containers"][0]["args"][0].as<std::string>();
  std::string line_2a = std::string("10.0.1.10 ") + kEfsHost + "\n";
  std::string line_2c = std::string("10.0.2.10 ") + kEfsHost + "\n";
  CHECK(RunWrapper(script, "10.0.20.5", dir) == line_2a);
  CHECK(RunWrapper(script, "10.0.39.229", dir) == line_2c);
  CHECK(RunWrapper(script, "", dir) == line_2a);  // fallback to 2a
}
