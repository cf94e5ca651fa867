// SPDX-License-Identifier: Apache-2.0
// `safesubst krm`, the KRM function: ResourceLists shaped as the function
// specification's examples and as kustomize sends them (items annotated with
// their path and index, a ConfigMap as functionConfig), through the
// examples/kustomize function script.
#include <doctest/doctest.h>

#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <sstream>
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

const fs::path kExample = fs::path(SAFESUBST_SOURCE_DIR) / "examples" / "kustomize";

// `text` with every line indented by `spaces`.
std::string Indent(const std::string& text, int spaces) {
  std::istringstream lines(text);
  std::string indented;
  for (std::string line; std::getline(lines, line);) {
    if (line.starts_with("#")) continue;
    indented += (line.empty() ? "" : std::string(static_cast<std::size_t>(spaces), ' ') + line) + "\n";
  }
  return indented;
}

// A ResourceList as kustomize builds it for a transformer: the resources,
// annotated with their file and index, and the function's own configuration.
std::string ResourceList(const std::string& items_yaml, const std::string& function_config) {
  return "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n" + items_yaml +
         "functionConfig:\n" + Indent(function_config, 2);
}

std::string Item(const std::string& resource, const std::string& path, int index) {
  std::string item = Indent(resource, 4);
  item.replace(0, 4, "  - ");
  const std::string annotations = "      annotations:\n        config.kubernetes.io/index: '" + std::to_string(index) +
                                  "'\n        internal.config.kubernetes.io/path: '" + path + "'\n";
  const std::size_t metadata_end = item.find("\n", item.find("    metadata:")) + 1;
  item.insert(metadata_end, annotations);
  return item;
}

CommandResult RunFunction(const std::string& resource_list) {
  return RunShell("SAFESUBST=" + Safesubst() + " " + ShellQuote((kExample / "safesubst-function.sh").string()),
                  resource_list);
}

CommandResult RunKrm(const std::string& arguments, const std::string& resource_list) {
  return RunShell("env -i PATH=/usr/bin:/bin NOT_IN_CONFIG=leak " + Safesubst() + " krm " + arguments, resource_list);
}

TEST_CASE("krm: the kustomize example renders its items with the functionConfig's values and runs the steps") {
  const std::string input = ResourceList(Item(ReadFile(kExample / "deployment.yaml"), "deployment.yaml", 0),
                                         ReadFile(kExample / "safesubst-function.yaml"));
  const CommandResult run = RunFunction(input);
  CAPTURE(run.err);
  REQUIRE(run.code == 0);
  CHECK(run.err.empty());
  const YAML::Node list = YAML::Load(run.out);
  CHECK(list["apiVersion"].as<std::string>() == "config.kubernetes.io/v1");
  CHECK(list["kind"].as<std::string>() == "ResourceList");
  CHECK_FALSE(list["results"]);
  REQUIRE(list["items"].size() == 1);
  const YAML::Node deployment = list["items"][0];
  CHECK(deployment["metadata"]["name"].as<std::string>() == "tenant-a-web");
  CHECK(deployment["spec"]["replicas"].as<int>() == 2);  // the manifest's set step
  const YAML::Node container = deployment["spec"]["template"]["spec"]["containers"][0];
  CHECK(container["image"].as<std::string>() == "registry.example/web:1.10");
  // The script is still a script: its runtime variable is kept, the deploy-time one substituted.
  CHECK(container["args"][0].as<std::string>() == "echo \"serving tenant-a from $HOSTNAME\"\nexec web\n");
  // kustomize finds each item's file by its annotations: they come back as they went.
  CHECK(deployment["metadata"]["annotations"]["internal.config.kubernetes.io/path"].as<std::string>() ==
        "deployment.yaml");
  CHECK(deployment["metadata"]["annotations"]["config.kubernetes.io/index"].as<std::string>() == "0");
  CHECK(list["functionConfig"]["data"]["TENANT_ID"].as<std::string>() == "tenant-a");
}

TEST_CASE("krm: a diagnostic becomes a result naming the resource and its file, and the function fails") {
  const std::string service = "apiVersion: v1\nkind: Service\nmetadata:\n  name: wordpress\n  namespace: ${TENANT_ID}\n"
                              "spec:\n  type: ${SERVICE_TYPE}\n";
  const std::string input = ResourceList(Item(service, "service.yaml", 0), ReadFile(kExample / "safesubst-function.yaml"));
  const CommandResult run = RunFunction(input);
  CHECK(run.code == 1);
  // The diagnostic for a person, on stderr, GCC style.
  CAPTURE(run.err);
  CHECK(run.err.starts_with("items[0] (service.yaml):10:9: error: undeclared variable 'SERVICE_TYPE' in a data context\n"
                            "    type: ${SERVICE_TYPE}\n"));
  // The keys added are written plain, as the specification's examples have them.
  CHECK(run.out.find("\nresults:\n  - message: ") != std::string::npos);
  const YAML::Node list = YAML::Load(run.out);
  REQUIRE(list["results"].size() == 1);
  const YAML::Node result = list["results"][0];
  CHECK(result["severity"].as<std::string>() == "error");
  CHECK(result["message"].as<std::string>().starts_with("undeclared variable 'SERVICE_TYPE' in a data context"));
  CHECK(result["resourceRef"]["apiVersion"].as<std::string>() == "v1");
  CHECK(result["resourceRef"]["kind"].as<std::string>() == "Service");
  CHECK(result["resourceRef"]["name"].as<std::string>() == "wordpress");
  CHECK(result["resourceRef"]["namespace"].as<std::string>() == "${TENANT_ID}");  // the item as it came
  CHECK(result["file"]["path"].as<std::string>() == "service.yaml");
}

TEST_CASE("krm: when an item fails, every item goes back as it came, none half rendered") {
  const std::string rendered = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: a-${TENANT_ID}\nspec:\n  replicas: 1\n";
  const std::string failing = "apiVersion: v1\nkind: Service\nmetadata:\n  name: b\nspec:\n  type: ${SERVICE_TYPE}\n";
  const std::string input = ResourceList(Item(rendered, "a.yaml", 0) + Item(failing, "b.yaml", 1),
                                         ReadFile(kExample / "safesubst-function.yaml"));
  const CommandResult run = RunFunction(input);
  CHECK(run.code == 1);
  const YAML::Node list = YAML::Load(run.out);
  REQUIRE(list["items"].size() == 2);
  CHECK(list["items"][0]["metadata"]["name"].as<std::string>() == "a-${TENANT_ID}");
  int errors = 0;
  for (const YAML::Node& result : list["results"]) errors += result["severity"].as<std::string>() == "error" ? 1 : 0;
  CHECK(errors == 1);
}

TEST_CASE("krm: without a manifest exactly the functionConfig's names are declared") {
  // The specification's example shape: a Service, annotated, and a ConfigMap as functionConfig.
  const std::string input =
      "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nfunctionConfig:\n  apiVersion: v1\n  kind: ConfigMap\n"
      "  metadata:\n    name: values\n  data:\n    TIER: frontend\n    PORT: \"80\"\n"
      "items:\n  - apiVersion: v1\n    kind: Service\n    metadata:\n      name: wordpress\n"
      "      annotations:\n        internal.config.kubernetes.io/path: service.yaml\n"
      "    spec:\n      selector:\n        tier: ${TIER}\n        other: ${NOT_IN_CONFIG}\n"
      "      ports:\n        - port: ${PORT}\n";
  const CommandResult run = RunKrm("--allow-undeclared", input);
  CAPTURE(run.err);
  REQUIRE(run.code == 0);
  const YAML::Node list = YAML::Load(run.out);
  const YAML::Node spec = list["items"][0]["spec"];
  CHECK(spec["selector"]["tier"].as<std::string>() == "frontend");
  CHECK(spec["selector"]["other"].as<std::string>() == "${NOT_IN_CONFIG}");  // set in the environment, not declared
  CHECK(spec["ports"][0]["port"].as<std::string>() == "80");
  REQUIRE(list["results"].size() == 1);  // the kept undeclared name, as a warning
  CHECK(list["results"][0]["severity"].as<std::string>() == "warning");

  // --set beats the functionConfig, as it beats a values file.
  const CommandResult overridden = RunKrm("--allow-undeclared --set TIER=backend", input);
  CHECK(YAML::Load(overridden.out)["items"][0]["spec"]["selector"]["tier"].as<std::string>() == "backend");
}

TEST_CASE("krm: input that is not a ResourceList, or a functionConfig without data, fails with a message") {
  const CommandResult not_a_list = RunKrm("", "apiVersion: v1\nkind: ConfigMap\n");
  CHECK(not_a_list.code == 1);
  CHECK(not_a_list.out.empty());
  CHECK(not_a_list.err.find("expected a ResourceList of apiVersion config.kubernetes.io/v1") != std::string::npos);
  const CommandResult not_yaml = RunKrm("", "items: [\n");
  CHECK(not_yaml.code == 1);
  CHECK(not_yaml.err.find("<stdin>:") == 0);
  const CommandResult custom_config = RunKrm(
      "", "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems: []\nfunctionConfig:\n"
          "  apiVersion: foo-corp.com/v1\n  kind: FulfillmentCenter\n  spec:\n    address: 100 Main St.\n");
  CHECK(custom_config.code == 1);
  CHECK(custom_config.err.find("takes its values from `data:` (a ConfigMap)") != std::string::npos);
  CHECK(RunKrm("file.yaml", "").code == 2);
  // yaml-cpp never sees what would overflow its stack.
  const CommandResult deep = RunKrm("", "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems: " +
                                            std::string(100000, '[') + "\n");
  CHECK(deep.code == 1);
  CHECK(deep.err.find("<stdin>:3:") == 0);
}

// The old reading indexed each item as a mapping and ended the process
// (std::terminate on yaml-cpp's BadSubscript) at an item that is a scalar or a
// sequence, or whose metadata is one; an item that holds itself ended it too.
TEST_CASE("krm: an item that is not a mapping is rendered as it is, and an item holding itself is a result") {
  const CommandResult odd = RunKrm("", "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n"
                                       "- plain ${X}\n- [1, 2]\n- {kind: K, metadata: text}\n"
                                       "functionConfig: {data: {X: x}}\n");
  CHECK(odd.code == 0);
  CHECK(odd.err.empty());
  CHECK(odd.out ==
        "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n  - plain x\n  - - 1\n    - 2\n"
        "  - kind: K\n    metadata: text\nfunctionConfig:\n  data:\n    X: x\n");
  const CommandResult recursive =
      RunKrm("", "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- &r {a: *r}\n");
  CHECK(recursive.code == 1);
  CHECK(recursive.err.find("items[0]: error: cannot be written as YAML: it contains a recursive alias") == 0);
}

}  // namespace
}  // namespace safesubst
