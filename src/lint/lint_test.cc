// SPDX-License-Identifier: Apache-2.0
#include "safesubst/lint.h"

#include <doctest/doctest.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "alias_bomb.h"

namespace safesubst {
namespace {

std::string ReadFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  REQUIRE_MESSAGE(in.good(), path.string());
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

std::filesystem::path SourceDir() { return std::filesystem::path(SAFESUBST_SOURCE_DIR); }

// "rule severity line:col", the form the test data files use.
std::string Describe(const Finding& finding) {
  return finding.rule_id + " " + std::string(SeverityName(finding.severity)) + " " +
         std::to_string(finding.location.line) + ":" + std::to_string(finding.location.column);
}

std::string Describe(const Diagnostic& diagnostic) {
  return std::string(SeverityName(diagnostic.severity)) + " " + std::to_string(diagnostic.location.line) + ":" +
         std::to_string(diagnostic.location.column);
}

// Orders "rule severity line:col" strings by position, then rule.
std::vector<std::string> SortedByPosition(std::vector<std::string> items) {
  auto key = [](const std::string& item) {
    std::size_t colon = item.rfind(':');
    std::size_t space = item.rfind(' ', colon);
    return std::make_tuple(std::stoi(item.substr(space + 1, colon - space - 1)), std::stoi(item.substr(colon + 1)),
                           item);
  };
  std::sort(items.begin(), items.end(), [&](const std::string& a, const std::string& b) { return key(a) < key(b); });
  return items;
}

std::string Join(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& item : items) out += "  " + item + "\n";
  return out.empty() ? "  (nothing)\n" : out;
}

struct Expectations {
  LintOptions options;
  std::vector<std::string> findings;
  std::vector<std::string> diagnostics;
  bool stated = false;  // the file says what it expects (at least `# expect: none`)
};

// Reads the `# lint-options:`, `# expect:` and `# expect-diagnostic:` comment lines.
Expectations ReadExpectations(const std::string& text, const std::string& file) {
  Expectations expected;
  expected.options.file_name = file;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.rfind("# expect: ", 0) == 0) {
      expected.stated = true;
      std::string what = line.substr(10);
      if (what != "none") expected.findings.push_back(what);
    } else if (line.rfind("# expect-diagnostic: ", 0) == 0) {
      expected.diagnostics.push_back(line.substr(21));
    } else if (line.rfind("# lint-options: ", 0) == 0) {
      std::istringstream options(line.substr(16));
      std::string option;
      while (std::getline(options, option, ',')) {
        option.erase(0, option.find_first_not_of(' '));
        if (option == "assume-istio-namespace") {
          expected.options.assume_istio_namespace = true;
        } else if (option == "assume-hold-application") {
          expected.options.assume_hold_application = true;
        } else if (option.rfind("disable=", 0) == 0) {
          expected.options.disabled.insert(option.substr(8));
        } else {
          FAIL("unknown lint-options entry '" << option << "' in " << file);
        }
      }
    }
  }
  return expected;
}

std::vector<std::string> LintDescriptions(const std::string& text, const LintOptions& options) {
  Result<std::vector<Finding>> result = Lint(text, options);
  REQUIRE(result.ok());
  std::vector<std::string> found;
  for (const Finding& finding : *result.value) found.push_back(Describe(finding));
  return found;
}

std::vector<std::filesystem::path> DataFiles() {
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(SourceDir() / "tests/data/lint")) {
    if (entry.path().extension() == ".yaml") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

TEST_CASE("lint: a binary or non-UTF-8 input is reported, not parsed") {
  LintOptions options;
  options.file_name = "bin.yaml";
  Result<std::vector<Finding>> result = Lint("kind: Pod\nx: \xc3\n", options);
  CHECK_FALSE(result.value.has_value());
  REQUIRE(result.diagnostics.size() == 1);
  CHECK(result.diagnostics[0].message.find("invalid UTF-8") != std::string::npos);
  CHECK(result.diagnostics[0].location.line == 2);
}

// Issue 26: valid YAML is not refused because yaml-cpp misreads it.
TEST_CASE("lint: valid YAML that yaml-cpp misreads is a warning that it was not linted, not an error") {
  LintOptions options;
  options.file_name = "talos.yaml";
  Result<std::vector<Finding>> result = Lint("files:\n  - &m |-\n    text\n  - *m\n", options);
  REQUIRE(result.value.has_value());
  CHECK(result.value->empty());
  REQUIRE(result.diagnostics.size() == 1);
  CHECK(result.diagnostics[0].severity == Severity::kWarning);
  CHECK(result.diagnostics[0].message.starts_with("not linted: yaml-cpp"));
  CHECK(result.diagnostics[0].location.line == 3);
}

// Issue 28 item 4: nor because yaml-cpp cannot read it (yaml-test-suite 4MUZ:
// a flow mapping's `:` on the line after its quoted key); invalid YAML still is an error.
TEST_CASE("lint: valid YAML that yaml-cpp cannot read is a warning that it was not linted, not an error") {
  LintOptions options;
  options.file_name = "t.yaml";
  Result<std::vector<Finding>> result = Lint("apiVersion: v1\nkind: ConfigMap\ndata: {\"a\"\n  : \"b\"}\n", options);
  REQUIRE(result.value.has_value());
  REQUIRE(result.diagnostics.size() == 1);
  CHECK(result.diagnostics[0].severity == Severity::kWarning);
  CHECK(result.diagnostics[0].message ==
        "not linted: yaml-cpp, which the lint rules read through, cannot read this valid YAML (yaml-cpp: end of map "
        "flow not found)");
  Result<std::vector<Finding>> invalid = Lint("data: {\"a\"\n  : \"b\"\n", options);
  REQUIRE_FALSE(invalid.diagnostics.empty());
  CHECK(HasErrors(invalid.diagnostics));
}

TEST_CASE("lint: every tests/data/lint file gives exactly the findings it declares") {
  std::vector<std::filesystem::path> files = DataFiles();
  REQUIRE(files.size() >= 25);
  std::set<std::string> rules_seen;
  int negative_files = 0;
  for (const std::filesystem::path& path : files) {
    std::string name = path.filename().string();
    INFO("file: tests/data/lint/" << name);
    std::string text = ReadFile(path);
    Expectations expected = ReadExpectations(text, name);
    REQUIRE_MESSAGE(expected.stated, "the file has no `# expect:` line");
    Result<std::vector<Finding>> result = Lint(text, expected.options);
    REQUIRE(result.ok());
    std::vector<std::string> found;
    for (const Finding& finding : *result.value) {
      found.push_back(Describe(finding));
      rules_seen.insert(finding.rule_id);
      CHECK(finding.location.file == name);
      CHECK_FALSE(finding.message.empty());
      CHECK_FALSE(finding.explanation.empty());
      CHECK_FALSE(finding.fix.empty());
      // Only the documents that are not Kubernetes objects have no object name.
      CHECK(finding.object.empty() == (name == "list-and-empty-documents.yaml" &&
                                       finding.rule_id == "leftover-placeholder"));
      CHECK(finding.location.offset < text.size());
    }
    // Lint sorts by position; the expectations are compared in the same order.
    CHECK_MESSAGE(found == SortedByPosition(expected.findings),
                  "expected:\n" << Join(SortedByPosition(expected.findings)) << "found:\n" << Join(found));
    std::vector<std::string> diagnostics;
    for (const Diagnostic& diagnostic : result.diagnostics) diagnostics.push_back(Describe(diagnostic));
    CHECK_MESSAGE(diagnostics == expected.diagnostics,
                  "expected diagnostics:\n" << Join(expected.diagnostics) << "found:\n" << Join(diagnostics));
    if (expected.findings.empty()) ++negative_files;
  }
  std::set<std::string> all_rules;
  for (const LintRule& rule : LintRules()) all_rules.insert(std::string(rule.id));
  CHECK(rules_seen == all_rules);
  CHECK(negative_files >= 4);
}

TEST_CASE("lint: findings point at the text they are about") {
  // The location's offset, line and column agree, and the byte there is the
  // start of what the message names (spot checks over the test data).
  std::string text = ReadFile(SourceDir() / "examples/lint/efs-wrapper-broken.yaml");
  LintOptions options;
  options.file_name = "efs-wrapper-broken.yaml";
  Result<std::vector<Finding>> result = Lint(text, options);
  REQUIRE(result.ok());
  for (const Finding& finding : *result.value) {
    Location recomputed = LocateOffset(text, finding.location.offset);
    CHECK(recomputed.line == finding.location.line);
    CHECK(recomputed.column == finding.location.column);
  }
  const std::vector<Finding>& findings = *result.value;
  REQUIRE(findings.size() == 8);
  CHECK(text.compare(findings[0].location.offset, 5, "fs-01") == 0);
  CHECK(text.compare(findings[7].location.offset, 2, ">>") == 0);
  CHECK(text.compare(findings[3].location.offset, 9, "EFS_IP=\"\"") == 0);
}

TEST_CASE("lint: a variable only ever assigned blank is reported once, unless read, set or exported") {
  const std::string text =
      "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - name: c\n    image: i\n"
      "    command: [sh, -c]\n    args:\n    - |\n"
      "      A=\"\"\n      B=\"\"; echo \"$B\"\n      C=\"\"; C=1\n      D=\"\"; export D\n      A=\"\"\n";
  LintOptions options;
  options.file_name = "p.yaml";
  std::vector<std::string> blank;
  for (const std::string& finding : LintDescriptions(text, options)) {
    if (finding.starts_with("leftover-placeholder")) blank.push_back(finding);
  }
  CHECK(blank == std::vector<std::string>{"leftover-placeholder warning 11:7"});
}

// lint reads a command line as the render does (command_line.h): a script
// behind a wrapper or after `-o pipefail`, or under a ksh `#!`, is a script.
TEST_CASE("lint: shell scripts are found as the render finds them") {
  const std::string pod = "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - name: c\n"
                          "    image: i\n";
  const std::string blanked = "    - |\n      A=\"\"\n";
  LintOptions options;
  options.file_name = "p.yaml";
  auto reports_blank = [&](const std::string& text) {
    for (const std::string& finding : LintDescriptions(text, options)) {
      if (finding.starts_with("leftover-placeholder")) return true;
    }
    return false;
  };
  CHECK(reports_blank(pod + "    command: [tini, --, /bin/sh, -c]\n    args:\n" + blanked));
  CHECK(reports_blank(pod + "    command: [bash, -euo, pipefail, -c]\n    args:\n" + blanked));
  CHECK(reports_blank(pod + "    command: [su-exec, app, ksh, -c]\n    args:\n" + blanked));
  CHECK(reports_blank(pod + "    args:\n    - |\n      #!/bin/ksh\n      A=\"\"\n"));
  CHECK(reports_blank(pod + "    command: [/app/run, sh, -c]\n    args:\n" + blanked));  // an entrypoint runs it
  CHECK(reports_blank(pod + "    command: [su, app, -c]\n    args:\n" + blanked));
  CHECK_FALSE(reports_blank(pod + "    command: [/app/run, -c]\n    args:\n" + blanked));
}

TEST_CASE("lint: the seed's broken and fixed manifests") {
  auto lint_example = [](const std::string& name) {
    std::string text = ReadFile(SourceDir() / "examples/lint" / name);
    LintOptions options;
    options.file_name = name;
    return LintDescriptions(text, options);
  };
  // The envsubst-mangled wrapper: an EFS mount through the sidecar, the blank
  // line appended to /etc/hosts while istio-proxy starts, and every shape the
  // blanked variables left behind.
  CHECK(lint_example("efs-wrapper-broken.yaml") == std::vector<std::string>{
                                                       "nfs-through-sidecar error 34:25",
                                                       "leftover-placeholder warning 37:27",  // echo "" | cut
                                                       "leftover-placeholder warning 38:20",  // case "" in
                                                       "leftover-placeholder warning 42:19",  // EFS_IP=""
                                                       "leftover-placeholder warning 44:24",  // [ "" -le 31 ]
                                                       "leftover-placeholder warning 48:23",  // grep -q ""
                                                       "leftover-placeholder warning 48:45",  // echo " "
                                                       "etc-hosts-write error 48:49",
                                                   });
  // Rendered by safesubst, proxy held, 2049 excluded: only the residual risk
  // of a later container restart remains.
  CHECK(lint_example("efs-wrapper-fixed.yaml") == std::vector<std::string>{"etc-hosts-write warning 59:74"});
  CHECK(lint_example("efs-hostaliases-fixed.yaml").empty());
  // The template before rendering: its data placeholders, and its deploy-time
  // names seen from the script's side (nothing sets them at runtime).
  CHECK(lint_example("efs-wrapper-template.yaml") == std::vector<std::string>{
                                                         "leftover-placeholder error 9:9",
                                                         "leftover-placeholder error 10:14",
                                                         "leftover-placeholder error 27:47",
                                                         "blank-runtime-var warning 38:25",
                                                         "blank-runtime-var warning 39:23",
                                                         "blank-runtime-var warning 40:23",
                                                         "blank-runtime-var warning 48:36",
                                                         "etc-hosts-write error 52:74",
                                                     });
  CHECK(lint_example("fsgroup-broken.yaml") == std::vector<std::string>{"fsgroup-recursive-chown warning 21:9"});
  CHECK(lint_example("fsgroup-fixed.yaml").empty());
}

TEST_CASE("lint: the broken example really is GNU envsubst's output of the template") {
  // Guards the example against hand edits: every line of the broken file
  // (after its header) is the template's line with the deploy-time values in
  // and every other $NAME / ${NAME} removed, as unrestricted envsubst does.
  std::string template_text = ReadFile(SourceDir() / "examples/lint/efs-wrapper-template.yaml");
  std::string broken = ReadFile(SourceDir() / "examples/lint/efs-wrapper-broken.yaml");
  const std::vector<std::pair<std::string, std::string>> values = {
      {"TENANT_ID", "tenant-a"},
      {"IMAGE_TAG", "1.4.2"},
      {"EFS_HOSTNAME", "fs-0123456789abcdef0.efs.ap-northeast-2.amazonaws.com"},
      {"EFS_PRIMARY_IP", "10.0.1.10"},
      {"EFS_SECONDARY_IP", "10.0.2.10"},
      {"ZONE_BOUNDARY", "31"},
  };
  std::string expected;
  for (std::size_t i = 0; i < template_text.size();) {
    if (template_text[i] == '$') {
      std::size_t j = i + 1;
      bool braced = j < template_text.size() && template_text[j] == '{';
      if (braced) ++j;
      std::size_t name_begin = j;
      while (j < template_text.size() && (std::isalnum(static_cast<unsigned char>(template_text[j])) ||
                                          template_text[j] == '_')) {
        ++j;
      }
      std::string name = template_text.substr(name_begin, j - name_begin);
      if (!name.empty() && !std::isdigit(static_cast<unsigned char>(name[0])) &&
          (!braced || (j < template_text.size() && template_text[j] == '}'))) {
        for (const auto& [variable, value] : values) {
          if (variable == name) expected += value;
        }
        i = braced ? j + 1 : j;
        continue;
      }
    }
    expected += template_text[i++];
  }
  // The template's 5 header comment lines are replaced by one line in the broken file.
  auto drop_lines = [](const std::string& text, int count) {
    std::size_t pos = 0;
    for (int i = 0; i < count; ++i) pos = text.find('\n', pos) + 1;
    return text.substr(pos);
  };
  CHECK(drop_lines(broken, 1) == drop_lines(expected, 5));
}

TEST_CASE("lint: disabling rules by option and reporting unknown ids") {
  std::string text = ReadFile(SourceDir() / "examples/lint/efs-wrapper-broken.yaml");
  LintOptions options;
  options.disabled = {"leftover-placeholder", "nfs-through-sidecar"};
  CHECK(LintDescriptions(text, options) == std::vector<std::string>{"etc-hosts-write error 48:49"});

  options.disabled = {"etc-hosts-write", "no-such-rule"};
  Result<std::vector<Finding>> result = Lint(text, options);
  REQUIRE(result.ok());  // an unknown id is a warning, not a failure
  REQUIRE(result.diagnostics.size() == 1);
  CHECK(result.diagnostics[0].severity == Severity::kWarning);
  CHECK(result.diagnostics[0].message.find("no-such-rule") != std::string::npos);
  CHECK(result.value->size() == 7);
}

TEST_CASE("lint: invalid YAML is an error with a location, and no findings") {
  LintOptions options;
  options.file_name = "bad.yaml";
  Result<std::vector<Finding>> result = Lint("a: 1\nb: [unclosed\nc: 3\n", options);
  CHECK_FALSE(result.ok());
  CHECK_FALSE(result.value.has_value());
  REQUIRE(result.diagnostics.size() == 1);
  CHECK(result.diagnostics[0].severity == Severity::kError);
  CHECK(result.diagnostics[0].location.file == "bad.yaml");
  CHECK(result.diagnostics[0].location.line >= 2);
}

TEST_CASE("lint: inputs on which yaml-cpp's LoadAll never returns are rejected first") {
  // yaml-cpp 0.7 appends empty documents forever when a document starts with
  // a ',' outside a flow collection; Lint must answer with an error instead.
  struct Case {
    std::string text;
    std::uint32_t line;
  };
  // The error points at the line of the offending ",".
  const std::vector<Case> cases = {{",\n", 1}, {"[a]\n,\n", 2}, {"a: 1\n---\n ,x\n", 3}, {">\n--- ,\n...\n]", 2}};
  for (const Case& c : cases) {
    INFO("input: " << c.text);
    Result<std::vector<Finding>> result = Lint(c.text, LintOptions{});
    CHECK_FALSE(result.ok());
    REQUIRE(result.diagnostics.size() == 1);
    CHECK(result.diagnostics[0].severity == Severity::kError);
    CHECK(result.diagnostics[0].location.line == c.line);
  }
  // A ',' that continues a plain scalar is valid YAML and still linted.
  Result<std::vector<Finding>> valid = Lint("a: foo\n  ,bar\n---\nb: 1\n", LintOptions{});
  CHECK(valid.ok());
}

TEST_CASE("lint: odd shapes never throw and give no findings") {
  const std::vector<std::string> inputs = {
      "",
      "---\n...\n",
      "just a scalar\n",
      "kind: Deployment\nspec: 5\n",
      "kind: Deployment\nspec: {template: {spec: {containers: x}}}\n",
      "kind: Pod\nspec: {containers: [{command: {a: b}, args: 3, env: [1, 2], envFrom: x}]}\n",
      "kind: Pod\nmetadata: {annotations: [a]}\nspec: {containers: [], securityContext: 5, volumes: [x]}\n",
      "kind: StatefulSet\nspec: {volumeClaimTemplates: x, template: {metadata: 3, spec: {initContainers: [5]}}}\n",
      "kind: Pod\nmetadata: {annotations: {proxy.istio.io/config: '{not: [valid'}}\nspec: {containers: [{name: a}]}\n",
      "kind: Pod\nspec: {containers: [{command: [sh, -c, \"echo 'unterminated $X\"], lifecycle: {postStart: 1}}]}\n",
      "kind: CronJob\nspec: {jobTemplate: ~}\n",
      "kind: List\nitems: 7\n",
      "? [complex, key]\n: value\n",
  };
  for (const std::string& input : inputs) {
    INFO("input: " << input);
    Result<std::vector<Finding>> result = Lint(input, LintOptions{});
    CHECK(result.ok());
    REQUIRE(result.value.has_value());
    CHECK(result.value->empty());
  }
}

// yaml-cpp expands aliases into a graph: the walks must go through each node
// once, or a node inside itself overflows the stack and an alias bomb never ends.
TEST_CASE("lint: aliases are followed once: self-containing nodes and alias bombs finish") {
  const std::vector<std::string> inputs = {
      "x: &a [*a]\n",
      "x: &m {k: *m}\n",
      "--- &d\nkind: List\nitems: [*d]\n",
      "kind: ConfigMap\ndata:\n" + testing::AliasBomb(9, "  "),
      "kind: List\nitems:\n  - &o {kind: ConfigMap, data: {a: '${X}'}}\n  - *o\n  - *o\n",
  };
  for (const std::string& input : inputs) {
    INFO("input: " << input);
    Result<std::vector<Finding>> result = Lint(input, LintOptions{});
    CHECK(result.ok());
  }
  // The aliased object is linted once: one finding, at its one location.
  Result<std::vector<Finding>> shared = Lint(inputs.back(), LintOptions{});
  REQUIRE(shared.value.has_value());
  CHECK(shared.value->size() == 1);
}

TEST_CASE("lint: a mapping used as a first key and aliased as a value is still checked") {
  // It starts where the mapping holding it starts (found by review).
  const std::string text =
      "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\nextra:\n  &k {note: \"${UNSET}\"}: x\n  other: *k\n";
  Result<std::vector<Finding>> result = Lint(text, LintOptions{});
  REQUIRE(result.value.has_value());
  REQUIRE(result.value->size() == 1);
  CHECK((*result.value)[0].rule_id == "leftover-placeholder");
}

TEST_CASE("lint: a container listed again through an alias is read once") {
  // 3000 aliases of a container with 3000 aliased env entries: read each
  // time, that was 9 million entries and 3000 copies of one finding.
  std::string text = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: w}\nx: &e {name: A, value: v}\ny: &envs [";
  for (int i = 0; i < 3000; ++i) text += i ? ", *e" : "*e";
  text += "]\nz: &c {name: app, image: x, command: [sh, -c, \"echo $B\"], env: *envs}\n";
  text += "spec:\n  template:\n    spec:\n      containers: [";
  for (int i = 0; i < 3000; ++i) text += i ? ", *c" : "*c";
  text += "]\n";
  Result<std::vector<Finding>> result = Lint(text, LintOptions{});
  REQUIRE(result.value.has_value());
  CHECK(result.value->size() == 1);
}

TEST_CASE("lint: an aliased node is checked again where it means something else") {
  // Under `args` a ${X} is the script's; the same node under a data key is not.
  const std::string text =
      "kind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - name: a\n    args: &v [\"${X}\"]\n"
      "    command: [sh]\n  - name: b\n    command: *v\nx-extra: *v\n";
  Result<std::vector<Finding>> result = Lint(text, LintOptions{});
  REQUIRE(result.value.has_value());
  REQUIRE(result.value->size() == 1);
  CHECK((*result.value)[0].rule_id == "leftover-placeholder");
  CHECK((*result.value)[0].location.line == 6);
}

TEST_CASE("lint: JSON output") {
  std::string text = ReadFile(SourceDir() / "examples/lint/efs-wrapper-broken.yaml");
  LintOptions options;
  options.file_name = "examples/lint/efs-wrapper-broken.yaml";
  Result<std::vector<Finding>> result = Lint(text, options);
  REQUIRE(result.ok());
  std::string json = FindingsToJson(*result.value);
  CHECK(json.back() == '\n');
  YAML::Node parsed = YAML::Load(json);  // JSON is YAML; yaml-cpp reads it back
  REQUIRE(parsed["findings"].IsSequence());
  REQUIRE(parsed["findings"].size() == 8);
  CHECK(parsed["errors"].as<int>() == 2);
  CHECK(parsed["warnings"].as<int>() == 6);
  YAML::Node last = parsed["findings"][7];
  CHECK(last["rule"].as<std::string>() == "etc-hosts-write");
  CHECK(last["severity"].as<std::string>() == "error");
  CHECK(last["file"].as<std::string>() == "examples/lint/efs-wrapper-broken.yaml");
  CHECK(last["line"].as<int>() == 48);
  CHECK(last["column"].as<int>() == 49);
  CHECK(last["object"].as<std::string>() == "Deployment/tenant-a-mo-back");
  CHECK(last["container"].as<std::string>() == "mo-back");
  CHECK(last["message"].as<std::string>() == result.value->back().message);
  CHECK(last["explanation"].as<std::string>() == result.value->back().explanation);
  CHECK(last["fix"].as<std::string>() == result.value->back().fix);

  Finding odd;
  odd.rule_id = "leftover-placeholder";
  odd.severity = Severity::kNote;
  odd.message = "quote \" backslash \\ newline \n tab \t bell \a unicode \xed\x95\x9c";
  std::string odd_json = FindingsToJson({odd});
  CHECK(odd_json.find("\\u0007") != std::string::npos);
  YAML::Node odd_parsed = YAML::Load(odd_json);
  CHECK(odd_parsed["findings"][0]["message"].as<std::string>() == odd.message);
  CHECK(odd_parsed["findings"][0]["severity"].as<std::string>() == "note");
  CHECK(FindingsToJson({}) == "{\"findings\":[],\"errors\":0,\"warnings\":0}\n");
}

TEST_CASE("lint: human-readable output") {
  std::string text = ReadFile(SourceDir() / "examples/lint/efs-wrapper-broken.yaml");
  LintOptions options;
  options.file_name = "efs-wrapper-broken.yaml";
  Result<std::vector<Finding>> result = Lint(text, options);
  REQUIRE(result.ok());
  const Finding& hosts = result.value->back();
  std::string plain = FormatFinding(hosts, text, /*color=*/false, /*verbose=*/false);
  CHECK(plain.find("efs-wrapper-broken.yaml:48:49: error: container \"mo-back\" writes /etc/hosts") == 0);
  CHECK(plain.find("[etc-hosts-write]\n") != std::string::npos);
  CHECK(plain.find("grep -q \"\" /etc/hosts || echo \" \" >> /etc/hosts\n") != std::string::npos);
  CHECK(plain.find("\n" + std::string(2 + 48, ' ') + "^\n") != std::string::npos);
  CHECK(plain.find("  hint: Declare the entry in spec.hostAliases") != std::string::npos);
  CHECK(plain.find("why:") == std::string::npos);
  std::string verbose = FormatFinding(hosts, text, false, true);
  CHECK(verbose.find("  why: A pod's /etc/hosts belongs to kubelet") != std::string::npos);
  Diagnostic diagnostic = FindingToDiagnostic(hosts);
  CHECK(diagnostic.severity == Severity::kError);
  CHECK(diagnostic.hint == hosts.fix);
  CHECK(CountFindings(*result.value, Severity::kError) == 2);
  CHECK(CountFindings(*result.value, Severity::kWarning) == 6);
}

TEST_CASE("lint: the rule table and docs/lint-rules.md agree") {
  const std::vector<LintRule>& rules = LintRules();
  REQUIRE(rules.size() == 5);
  std::string docs = ReadFile(SourceDir() / "docs/lint-rules.md");
  std::set<std::string_view> ids;
  for (const LintRule& rule : rules) {
    INFO("rule: " << rule.id);
    CHECK(ids.insert(rule.id).second);
    CHECK(FindLintRule(rule.id) == &rule);
    CHECK_FALSE(rule.summary.empty());
    CHECK_FALSE(rule.explanation.empty());
    CHECK_FALSE(rule.fix.empty());
    CHECK(docs.find("`" + std::string(rule.id) + "`") != std::string::npos);
  }
  CHECK(FindLintRule("etc-hosts") == nullptr);
  CHECK(FindLintRule("") == nullptr);
  CHECK(kLintDisableAnnotation == "safesubst.io/lint-disable");
  CHECK(docs.find(std::string(kLintDisableAnnotation)) != std::string::npos);
}

}  // namespace
}  // namespace safesubst
