// SPDX-License-Identifier: Apache-2.0
// The machine-readable forms of lint findings: JSON, SARIF 2.1.0, GitHub
// workflow commands, from the library and from `safesubst lint --format`.
#include <doctest/doctest.h>

#include <set>
#include <string>
#include <vector>

#include "json_text.h"
#include "safesubst/lint.h"
#include "test_support.h"

namespace safesubst {
namespace {

using testing::CommandResult;
using testing::ReadFile;
using testing::RunShell;
using testing::Safesubst;
using testing::ShellQuote;
using testing::TempDir;
using testing::WriteFile;

const std::filesystem::path kBroken = std::filesystem::path(SAFESUBST_SOURCE_DIR) / "examples/lint/efs-wrapper-broken.yaml";

std::vector<Finding> BrokenFindings() {
  LintOptions options;
  options.file_name = "examples/lint/efs-wrapper-broken.yaml";
  Result<std::vector<Finding>> result = Lint(ReadFile(kBroken), options);
  REQUIRE(result.value.has_value());
  return *result.value;
}

bool IsLevel(const Json& level) {
  return level.is_string() && (level == "error" || level == "warning" || level == "note" || level == "none");
}

bool HasText(const Json& object, const char* key) {
  return object.contains(key) && object[key].is_object() && object[key].contains("text") &&
         object[key]["text"].is_string() && !object[key]["text"].get<std::string>().empty();
}

// The shape SARIF 2.1.0 requires (sarifLog, run, tool, reportingDescriptor,
// result, location, region), plus what GitHub code scanning needs on top:
// a ruleId on each result and a physical location with a start line.
void CheckSarifShape(const Json& log) {
  REQUIRE(log.is_object());
  CHECK(log["version"] == "2.1.0");
  CHECK(log["$schema"].get<std::string>().find("sarif") != std::string::npos);
  REQUIRE(log["runs"].is_array());
  REQUIRE(log["runs"].size() == 1);
  const Json& run = log["runs"][0];
  const Json& driver = run["tool"]["driver"];
  CHECK(driver["name"] == "safesubst");
  CHECK(driver["version"].is_string());
  REQUIRE(driver["rules"].is_array());
  std::set<std::string> ids;
  for (const Json& rule : driver["rules"]) {
    REQUIRE(rule["id"].is_string());
    CHECK(ids.insert(rule["id"].get<std::string>()).second);  // ids are unique
    CHECK(HasText(rule, "shortDescription"));
    CHECK(HasText(rule, "fullDescription"));
    CHECK(HasText(rule, "help"));
    CHECK(IsLevel(rule["defaultConfiguration"]["level"]));
  }
  REQUIRE(run["results"].is_array());
  for (const Json& result : run["results"]) {
    REQUIRE(result["ruleId"].is_string());
    CHECK(ids.count(result["ruleId"].get<std::string>()) == 1);
    REQUIRE(result["ruleIndex"].is_number_unsigned());
    const std::size_t index = result["ruleIndex"].get<std::size_t>();
    REQUIRE(index < driver["rules"].size());
    CHECK(driver["rules"][index]["id"] == result["ruleId"]);
    CHECK(IsLevel(result["level"]));
    CHECK(HasText(result, "message"));
    REQUIRE(result["locations"].is_array());
    REQUIRE(result["locations"].size() >= 1);
    const Json& physical = result["locations"][0]["physicalLocation"];
    CHECK(physical["artifactLocation"]["uri"].is_string());
    if (physical.contains("region")) {
      CHECK(physical["region"]["startLine"].get<int>() >= 1);
      CHECK(physical["region"]["startColumn"].get<int>() >= 1);
    }
  }
}

TEST_CASE("lint report: SARIF 2.1.0 with rule metadata, levels and locations") {
  const std::vector<Finding> findings = BrokenFindings();
  REQUIRE(findings.size() == 8);
  const std::string sarif = FindingsToSarif(findings);
  CHECK(sarif.back() == '\n');
  const Json log = Json::parse(sarif);
  CheckSarifShape(log);
  const Json& run = log["runs"][0];
  CHECK(run["tool"]["driver"]["rules"].size() == LintRules().size() + 1);  // and "input"
  REQUIRE(run["results"].size() == 8);
  const Json& last = run["results"][7];
  CHECK(last["ruleId"] == "etc-hosts-write");
  CHECK(last["level"] == "error");
  const Json& physical = last["locations"][0]["physicalLocation"];
  CHECK(physical["artifactLocation"]["uri"] == "examples/lint/efs-wrapper-broken.yaml");
  CHECK(physical["region"]["startLine"] == 48);
  CHECK(physical["region"]["startColumn"] == 49);
  CHECK(last["locations"][0]["logicalLocations"][0]["fullyQualifiedName"] == "Deployment/tenant-a-mo-back");
  std::set<std::string> levels;
  for (const Json& result : run["results"]) levels.insert(result["level"].get<std::string>());
  CHECK(levels == std::set<std::string>{"error", "warning"});
  CheckSarifShape(Json::parse(FindingsToSarif({})));
}

TEST_CASE("lint report: a file name is a URI, and without a line there is no region") {
  Finding odd;
  odd.rule_id = "input";
  odd.severity = Severity::kError;
  odd.location.file = "dir/a b#%\xe9.yaml";  // a space, URI delimiters and a Latin-1 byte
  odd.message = "cannot read";
  const Json log = Json::parse(FindingsToSarif({odd}));
  CheckSarifShape(log);
  const Json& physical = log["runs"][0]["results"][0]["locations"][0]["physicalLocation"];
  CHECK(physical["artifactLocation"]["uri"] == "dir/a%20b%23%25%E9.yaml");
  CHECK_FALSE(physical.contains("region"));
  odd.location.file = "/abs/t.yaml";
  CHECK(Json::parse(FindingsToSarif({odd}))["runs"][0]["results"][0]["locations"][0]["physicalLocation"]
                                            ["artifactLocation"]["uri"] == "file:///abs/t.yaml");
}

TEST_CASE("lint report: GitHub workflow commands, escaped as the runner unescapes them") {
  Finding finding;
  finding.rule_id = "leftover-placeholder";
  finding.severity = Severity::kWarning;
  finding.location = Location{"apps/a,b:c.yaml", 3, 7, 0};
  finding.message = "50% done: a, b\r\nnext";
  finding.fix = "declare it";
  CHECK(FindingsToGithubCommands({finding}) ==
        "::warning file=apps/a%2Cb%3Ac.yaml,line=3,col=7,title=safesubst leftover-placeholder::"
        "50%25 done: a, b%0D%0Anext%0AFix: declare it\n");
  finding.severity = Severity::kNote;
  finding.location.line = 0;
  finding.fix.clear();
  finding.message = "m";
  CHECK(FindingsToGithubCommands({finding}) ==
        "::notice file=apps/a%2Cb%3Ac.yaml,title=safesubst leftover-placeholder::m\n");
  const std::string broken = FindingsToGithubCommands(BrokenFindings());
  CHECK(broken.find("::error file=examples/lint/efs-wrapper-broken.yaml,line=48,col=49,"
                    "title=safesubst etc-hosts-write::") != std::string::npos);
}

TEST_CASE("lint report: the command writes valid JSON and SARIF for a file name that is not UTF-8") {
  TempDir dir;
  const std::string name = "caf\xe9.yaml";
  WriteFile(dir / name, ReadFile(kBroken));
  WriteFile(dir / "broken-yaml.yaml", "a: [\n");
  const std::string cd = "cd " + ShellQuote(dir.path().string()) + " && " + Safesubst();
  for (const char* format : {"json", "sarif"}) {
    CAPTURE(format);
    const CommandResult run =
        RunShell(cd + " lint --format " + format + " " + ShellQuote(name) + " broken-yaml.yaml missing.yaml");
    CHECK(run.code == 1);
    REQUIRE(Json::accept(run.out));
    const Json report = Json::parse(run.out);
    if (std::string(format) == "sarif") {
      CheckSarifShape(report);
      const Json& results = report["runs"][0]["results"];
      CHECK(results.size() == 10);  // 8 findings, the YAML error, the missing file
      CHECK(results[0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "caf%E9.yaml");
      CHECK(results[9]["ruleId"] == "input");
    } else {
      CHECK(report["findings"][0]["file"] == "caf\xef\xbf\xbd.yaml");  // U+FFFD for the invalid byte
      CHECK(report["errors"] == 4);
    }
  }
  const CommandResult github = RunShell(cd + " lint --format github " + ShellQuote(name));
  CHECK(github.code == 1);
  CHECK(github.out.find("::error file=caf\xe9.yaml,line=48,col=49,title=safesubst etc-hosts-write::") !=
        std::string::npos);
}

}  // namespace
}  // namespace safesubst
