// SPDX-License-Identifier: Apache-2.0
// Tests of values files (dotenv and YAML), precedence and validation of all
// values at once.
#include "safesubst/values.h"

#include <doctest/doctest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "alias_bomb.h"
#include "validate.h"

namespace safesubst {
namespace {

const std::string kDataDir = std::string(SAFESUBST_SOURCE_DIR) + "/tests/data/manifest";

std::string Describe(const Diagnostics& diagnostics) {
  std::string out;
  for (const Diagnostic& d : diagnostics) out += FormatDiagnostic(d, "", false);
  return out;
}

std::size_t CountErrors(const Diagnostics& diagnostics) {
  std::size_t count = 0;
  for (const Diagnostic& d : diagnostics) count += d.severity == Severity::kError ? 1 : 0;
  return count;
}

const Diagnostic* Find(const Diagnostics& diagnostics, std::string_view needle) {
  const Diagnostic* found = nullptr;
  for (const Diagnostic& d : diagnostics) {
    if (d.message.find(needle) == std::string::npos) continue;
    CHECK_MESSAGE(found == nullptr, "more than one diagnostic mentions '" << needle << "':\n" << Describe(diagnostics));
    found = &d;
  }
  CHECK_MESSAGE(found != nullptr, "no diagnostic mentions '" << needle << "':\n" << Describe(diagnostics));
  return found;
}

void ExpectAt(const Diagnostics& diagnostics, std::string_view needle, std::string_view file, std::uint32_t line,
              std::uint32_t column) {
  const Diagnostic* d = Find(diagnostics, needle);
  if (d == nullptr) return;
  CHECK_MESSAGE(d->location.file == file, needle);
  CHECK_MESSAGE(d->location.line == line, needle);
  CHECK_MESSAGE(d->location.column == column, needle);
}

using Pairs = std::vector<std::pair<std::string, std::string>>;

// name/text pairs of a successfully parsed values text.
Pairs Texts(std::string_view text, const std::string& file = "v.env") {
  Result<std::vector<std::pair<std::string, Value>>> result = ParseValuesText(text, file);
  REQUIRE_MESSAGE(result.ok(), Describe(result.diagnostics));
  Pairs pairs;
  for (const auto& [name, value] : *result.value) {
    CHECK(value.source == ValueSource::kValuesFile);
    pairs.emplace_back(name, value.text);
  }
  return pairs;
}

Manifest Load(std::string_view text) {
  Result<Manifest> result = ParseManifest(text, "vars.yaml");
  REQUIRE_MESSAGE(result.ok(), Describe(result.diagnostics));
  return *result.value;
}

// A scratch directory for values files, removed at scope exit.
class Scratch {
 public:
  Scratch() {
    std::string pattern = (std::filesystem::temp_directory_path() / "safesubst-values-XXXXXX").string();
    REQUIRE(::mkdtemp(pattern.data()) != nullptr);
    path_ = pattern;
  }
  ~Scratch() { std::filesystem::remove_all(path_); }
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
  std::string Write(const std::string& name, const std::string& text) const {
    std::string path = (path_ / name).string();
    std::ofstream(path, std::ios::binary) << text;
    return path;
  }

 private:
  std::filesystem::path path_;
};

TEST_CASE("format detection: by file name first, then by the first significant line") {
  CHECK(DetectValuesFormat("A=1", "x.yaml") == ValuesFormat::kYaml);
  CHECK(DetectValuesFormat("A=1", "x.yml") == ValuesFormat::kYaml);
  CHECK(DetectValuesFormat("{\"A\": 1}", "x.json") == ValuesFormat::kYaml);
  CHECK(DetectValuesFormat("A: 1", "x.env") == ValuesFormat::kDotenv);
  CHECK(DetectValuesFormat("A: 1", "values") == ValuesFormat::kYaml);
  CHECK(DetectValuesFormat("# c\n\n  A: 1", "values") == ValuesFormat::kYaml);
  CHECK(DetectValuesFormat("---\nA: 1", "values") == ValuesFormat::kYaml);
  CHECK(DetectValuesFormat("{A: 1}", "values") == ValuesFormat::kYaml);
  CHECK(DetectValuesFormat("\"A\": 1", "values") == ValuesFormat::kYaml);
  CHECK(DetectValuesFormat("A=1", "values") == ValuesFormat::kDotenv);
  CHECK(DetectValuesFormat("A=http://x:80", "values") == ValuesFormat::kDotenv);
  CHECK(DetectValuesFormat("export A=1", "values") == ValuesFormat::kDotenv);
  CHECK(DetectValuesFormat("# A: 1\nB=2", "values") == ValuesFormat::kDotenv);
  CHECK(DetectValuesFormat("", "values") == ValuesFormat::kDotenv);
  CHECK(DetectValuesFormat("garbage line", "values") == ValuesFormat::kDotenv);
}

TEST_CASE("dotenv: assignments, export, blanks and comments") {
  CHECK(Texts("A=1\n"
              "\n"
              "# a comment\n"
              "   # an indented comment\n"
              "export B=two\n"
              "export\tC=3\n"
              "  D=indented\n"
              "E=\n"
              "F=a=b=c\n"
              "G=has # trailing comment\n"
              "H=no#comment\n"
              "I=  spaced out  \n"
              "J=#not-a-comment\n"
              "K= # only a comment\n"
              "L=crlf\r\n"
              "export=1\n"
              "M=last-line-without-newline") == Pairs{{"A", "1"},
                                                      {"B", "two"},
                                                      {"C", "3"},
                                                      {"D", "indented"},
                                                      {"E", ""},
                                                      {"F", "a=b=c"},
                                                      {"G", "has"},
                                                      {"H", "no#comment"},
                                                      {"I", "spaced out"},
                                                      {"J", "#not-a-comment"},
                                                      {"K", ""},
                                                      {"L", "crlf"},
                                                      {"export", "1"},
                                                      {"M", "last-line-without-newline"}});
}

TEST_CASE("dotenv: single and double quoting") {
  CHECK(Texts("A='lit $X \\n # not comment'\n"
              "B=\"line1\\nline2\\ttab \\\"q\\\" back\\\\slash \\$HOME\"\n"
              "C=\"unknown \\q escape\"\n"
              "D='' # empty, then a comment\n"
              "E=\"multi\n"
              "line\"\n"
              "G=\"#hash\"\n"
              "H=  'padded'  \n") ==
        Pairs{{"A", "lit $X \\n # not comment"},
              {"B", "line1\nline2\ttab \"q\" back\\slash $HOME"},
              {"C", "unknown \\q escape"},
              {"D", ""},
              {"E", "multi\nline"},
              {"G", "#hash"},
              {"H", "padded"}});
}

TEST_CASE("dotenv: malformed lines are errors with file:line:col, and parsing goes on") {
  const std::string text =
      "GOOD=1\n"              // 1
      "no equals here\n"      // 2
      "1BAD=x\n"              // 3
      "MY-VAR=x\n"            // 4
      "SPACED = x\n"          // 5
      "Q='a'b\n"              // 6
      "  =novalue\n"          // 7
      "ALSO_GOOD=2\n"         // 8
      "U=\"never closed\n";   // 9
  Result<std::vector<std::pair<std::string, Value>>> result = ParseValuesText(text, "dev.env");
  CHECK_FALSE(result.ok());
  CHECK(CountErrors(result.diagnostics) == 7);
  ExpectAt(result.diagnostics, "expected '=' after 'no'", "dev.env", 2, 3);
  ExpectAt(result.diagnostics, "invalid variable name", "dev.env", 3, 1);
  ExpectAt(result.diagnostics, "invalid character in variable name 'MY'", "dev.env", 4, 3);
  ExpectAt(result.diagnostics, "blank between 'SPACED' and '='", "dev.env", 5, 7);
  ExpectAt(result.diagnostics, "unexpected text after the closing quote", "dev.env", 6, 6);
  ExpectAt(result.diagnostics, "missing variable name before '='", "dev.env", 7, 3);
  ExpectAt(result.diagnostics, "unterminated double-quoted value", "dev.env", 9, 3);
  ExpectAt(ParseValuesText("A='x\n", "s.env").diagnostics, "unterminated single-quoted value", "s.env", 1, 3);
  // Messages about malformed lines do not echo the line (it may hold a secret).
  CHECK(Describe(ParseValuesText("s3cr3t-token\n", "s.env").diagnostics).find("token") == std::string::npos);
}

TEST_CASE("values files: a lone CR is an error, a UTF-8 byte order mark is skipped") {
  // Read as one line, `A=1\rB=2` would set A to "1\rB=2" and drop B.
  Result<std::vector<std::pair<std::string, Value>>> lone_cr = ParseValuesText("A=1\rB=2\n", "cr.env");
  CHECK_FALSE(lone_cr.ok());
  ExpectAt(lone_cr.diagnostics, "carriage return not followed by a line feed", "cr.env", 1, 4);
  CHECK(Texts("A=1\r\nB=2\r\n", "crlf.env") == Pairs{{"A", "1"}, {"B", "2"}});
  CHECK(Texts("\xEF\xBB\xBF" "A=1\nB=2\n", "bom.env") == Pairs{{"A", "1"}, {"B", "2"}});
  CHECK(Texts("\xEF\xBB\xBF" "A: 1\nB: 2\n", "bom-yaml") == Pairs{{"A", "1"}, {"B", "2"}});
  // Control characters other than CR stay allowed (dotenv cannot escape them).
  CHECK(Texts("A=\x1b[31m\n", "c.env") == Pairs{{"A", "\x1b[31m"}});
}

TEST_CASE("dotenv: each value's origin is where the value starts") {
  Result<std::vector<std::pair<std::string, Value>>> result =
      ParseValuesText("# c\nA=1\nexport  B=\"x\"\n\nC=  y\n", "p.env");
  REQUIRE(result.ok());
  const auto& pairs = *result.value;
  REQUIRE(pairs.size() == 3);
  CHECK(pairs[0].second.origin.file == "p.env");
  CHECK(pairs[0].second.origin.line == 2);
  CHECK(pairs[0].second.origin.column == 3);
  CHECK(pairs[1].second.origin.line == 3);
  CHECK(pairs[1].second.origin.column == 11);
  CHECK(pairs[2].second.origin.line == 5);
  CHECK(pairs[2].second.origin.column == 5);
}

TEST_CASE("a name set twice in one file is a warning and the later value wins") {
  Result<std::vector<std::pair<std::string, Value>>> result = ParseValuesText("A=1\nA=2\n", "d.env");
  REQUIRE(result.ok());
  REQUIRE(result.diagnostics.size() == 1);
  CHECK(result.diagnostics[0].severity == Severity::kWarning);
  CHECK(result.diagnostics[0].location.line == 2);
  Manifest m = Load("variables: {A: int}");
  Scratch scratch;
  Result<ValueSet> values = CollectValues(m, {{}, {scratch.Write("d.env", "A=1\nA=2\n")}, {}});
  REQUIRE(values.ok());
  CHECK(values.value->Find("A")->text == "2");
}

TEST_CASE("YAML values files") {
  const std::string text =
      "# profile\n"
      "TENANT_ID: acme\n"
      "ZONE: 31\n"
      "VERSION: \"1.10\"\n"
      "EMPTY:\n"
      "APPS: [web-portal, batch]\n"
      "RESOURCES:\n"
      "  limits: {cpu: \"1\"}\n"
      "SCRIPT: |\n"
      "  echo hi\n";
  CHECK(Texts(text, "dev.yaml") == Pairs{{"TENANT_ID", "acme"},
                                         {"ZONE", "31"},
                                         {"VERSION", "1.10"},
                                         {"EMPTY", ""},
                                         {"APPS", "web-portal,batch"},
                                         {"RESOURCES", "limits: {cpu: \"1\"}"},
                                         {"SCRIPT", "echo hi\n"}});
  Result<std::vector<std::pair<std::string, Value>>> result = ParseValuesText(text, "dev.yaml");
  REQUIRE(result.ok());
  CHECK((*result.value)[1].second.origin.line == 3);
  CHECK((*result.value)[1].second.origin.column == 7);
  CHECK((*result.value)[3].second.origin.line == 5);  // a null value is located at its key
  CHECK((*result.value)[3].second.origin.column == 1);

  ExpectAt(ParseValuesText("- a\n- b\n", "l.yaml").diagnostics, "a YAML values file must be a mapping", "l.yaml", 1,
           1);
  ExpectAt(ParseValuesText("A: 1\nbad-name: 2\n", "n.yaml").diagnostics, "invalid variable name", "n.yaml", 2, 1);
  ExpectAt(ParseValuesText("A: [1,\n", "s.yaml").diagnostics, "invalid YAML", "s.yaml", 2, 1);
  ExpectAt(ParseValuesText("A: 1\n---\nB: 2\n", "m.yaml").diagnostics, "a single YAML document", "m.yaml", 3, 1);
  CHECK(Texts("", "e.yaml").empty());
  CHECK(Texts("# only a comment\n", "e.yaml").empty());
}

// A structured value is written back as YAML text, aliases expanded: an alias
// bomb must stop at the expansion bound, and a node inside itself must not
// recurse until the stack runs out. Values without aliases are not bounded.
TEST_CASE("a YAML values file's alias bomb or recursive alias is an error at the value") {
  Result<std::vector<std::pair<std::string, Value>>> bomb =
      ParseValuesText("OK: 1\nX:\n" + testing::AliasBomb(8, "  "), "b.yaml");
  CHECK_FALSE(bomb.ok());
  ExpectAt(bomb.diagnostics, "the value of 'X' expands to more than 100000 nodes through aliases", "b.yaml", 3, 3);
  Result<std::vector<std::pair<std::string, Value>>> recursive = ParseValuesText("X: &a [1, *a]\n", "r.yaml");
  CHECK_FALSE(recursive.ok());
  ExpectAt(recursive.diagnostics, "the value of 'X' contains a recursive alias", "r.yaml", 1, 4);
  // A key twice: YAML forbids it, readers of the output would keep one.
  ExpectAt(ParseValuesText("X: {a: 1, a: 2}\n", "d.yaml").diagnostics, "the value of 'X' has the key 'a' twice",
           "d.yaml", 1, 4);
  // Aliases that expand to little are fine, and so is one node shared twice.
  CHECK(Texts("X: {a: &v [1, 2], b: *v}\n", "s.yaml") == Pairs{{"X", "{a: [1, 2], b: [1, 2]}"}});
  // 150,000 items without an alias are read whole.
  std::string list = "L: [";
  for (int i = 0; i < 150000; ++i) list += i ? ",a" : "a";
  Pairs long_list = Texts(list + "]\n", "l.yaml");
  REQUIRE(long_list.size() == 1);
  CHECK(long_list[0].second.size() == 2 * 150000 - 1);
  // A list used twice through aliases: each use is under the node bound.
  std::string reuse = "base: &b [";
  for (int i = 0; i < 60000; ++i) reuse += i ? ",1" : "1";
  CHECK(ParseValuesText(reuse + "]\nV: *b\nW: [*b]\n", "r.yaml").ok());
  // The byte bound is for the whole file: values each under it cannot add up.
  std::string many = "defs: &d [" + std::string(100, 'x');
  for (int i = 0; i < 999; ++i) many += ", " + std::string(100, 'x');
  many += "]\n";
  for (int key = 0; key < 200; ++key) many += "K" + std::to_string(key) + ": [*d]\n";
  Result<std::vector<std::pair<std::string, Value>>> spread = ParseValuesText(many, "m.yaml");
  CHECK_FALSE(spread.ok());
  REQUIRE_FALSE(spread.diagnostics.empty());
  CHECK(spread.diagnostics[0].message == "the value of 'K166' expands to more than 16777216 bytes through aliases");
}

TEST_CASE("precedence: --set, then values files (later wins), then environment, then default") {
  Manifest m = Load(
      "variables:\n"
      "  A: {default: from-default}\n"
      "  B: {default: from-default}\n"
      "  C: {default: from-default}\n"
      "  D: {default: from-default}\n"
      "  E: {default: from-default}\n"
      "  F: string\n");
  Scratch scratch;
  ValueInputs inputs;
  inputs.environment = {"A=env", "B=env", "C=env", "D=env", "PATH=/usr/bin", "NOEQUALS"};
  inputs.values_files = {scratch.Write("first.env", "A=first\nB=first\nC=first\n"),
                         scratch.Write("second.yaml", "A: second\nB: second\n")};
  inputs.sets = {"A=set", "F=set=with=equals"};
  Result<ValueSet> result = CollectValues(m, inputs);
  REQUIRE_MESSAGE(result.ok(), Describe(result.diagnostics));
  CHECK(result.diagnostics.empty());
  const ValueSet& values = *result.value;
  CHECK(values.Find("A")->text == "set");
  CHECK(values.Find("A")->source == ValueSource::kCommandLine);
  CHECK(values.Find("A")->origin.file == "--set A");
  CHECK(values.Find("B")->text == "second");
  CHECK(values.Find("B")->source == ValueSource::kValuesFile);
  CHECK(values.Find("B")->origin.file == inputs.values_files[1]);
  CHECK(values.Find("B")->origin.line == 2);
  CHECK(values.Find("C")->text == "first");
  CHECK(values.Find("D")->text == "env");
  CHECK(values.Find("D")->source == ValueSource::kEnvironment);
  CHECK(values.Find("E")->text == "from-default");
  CHECK(values.Find("E")->source == ValueSource::kDefault);
  CHECK(values.Find("F")->text == "set=with=equals");
  // Undeclared environment entries are simply not values.
  CHECK(values.Find("PATH") == nullptr);
  CHECK(values.all().size() == 6);
}

TEST_CASE("an empty environment value still counts as set") {
  Manifest m = Load("variables: {A: {default: d}, L: list}");
  Result<ValueSet> result = CollectValues(m, {{"A=", "L="}, {}, {}});
  REQUIRE(result.ok());
  CHECK(result.value->Find("A")->text.empty());
  CHECK(result.value->Find("L")->text.empty());
}

TEST_CASE("undeclared names in --set and values files are warnings with a location") {
  Manifest m = Load("variables: {TENANT_ID: dns-label}\nruntime: [NODE_IP]\n");
  Scratch scratch;
  ValueInputs inputs;
  inputs.values_files = {scratch.Write("p.env", "TENANT_ID=acme\nEXTRA=1\nNODE_IP=1.2.3.4\n"),
                         scratch.Write("q.yaml", "# c\nTENANT_ID: acme\n  \nOTHER: 1\n")};
  inputs.sets = {"TENANT_IDD=x"};
  Result<ValueSet> result = CollectValues(m, inputs);
  CHECK(result.ok());
  CHECK(result.diagnostics.size() == 4);
  const Diagnostic* other = Find(result.diagnostics, "'OTHER' is not declared");
  REQUIRE(other != nullptr);
  CHECK(other->location.file == inputs.values_files[1]);
  CHECK(other->location.line == 4);
  CHECK(other->location.column == 1);
  const Diagnostic* extra = Find(result.diagnostics, "'EXTRA' is not declared in the manifest");
  REQUIRE(extra != nullptr);
  CHECK(extra->severity == Severity::kWarning);
  CHECK(extra->location.file == inputs.values_files[0]);
  CHECK(extra->location.line == 2);
  CHECK(extra->location.column == 1);  // at the name, not the value
  const Diagnostic* typo = Find(result.diagnostics, "'TENANT_IDD' is not declared in the manifest");
  REQUIRE(typo != nullptr);
  CHECK(typo->location.file == "--set TENANT_IDD");
  CHECK(typo->hint == "did you mean 'TENANT_ID'?");
  const Diagnostic* runtime = Find(result.diagnostics, "'NODE_IP' is a runtime name");
  REQUIRE(runtime != nullptr);
  CHECK(runtime->location.line == 3);
  CHECK(result.value->Find("EXTRA") == nullptr);
  CHECK(result.value->Find("NODE_IP") == nullptr);
}

TEST_CASE("malformed --set arguments and unreadable values files are errors") {
  Manifest m = Load("variables: {A: string}");
  Result<ValueSet> result = CollectValues(m, {{}, {"/nonexistent/dir/values.env"}, {"A", "1A=x"}});
  CHECK_FALSE(result.ok());
  CHECK(CountErrors(result.diagnostics) == 3);
  const Diagnostic* missing = Find(result.diagnostics, "cannot read values file '/nonexistent/dir/values.env'");
  REQUIRE(missing != nullptr);
  CHECK(missing->location.file == "/nonexistent/dir/values.env");
  CHECK(Find(result.diagnostics, "--set 'A' has no '=VALUE'") != nullptr);  // a declared name is shown
  CHECK(Find(result.diagnostics, "--set '1A': invalid variable name") != nullptr);
  // Anything else may be a secret given without its name: only its position is.
  Result<ValueSet> secret = CollectValues(m, {{}, {}, {"A=1", "s3cr3t-t0ken"}});
  CHECK(Find(secret.diagnostics, "--set argument 2 has no '='") != nullptr);
  for (const Diagnostic& diagnostic : secret.diagnostics) CHECK(diagnostic.message.find("s3cr3t") == std::string::npos);
}

TEST_CASE("every failing variable is reported at once, located where its value came from") {
  Manifest m = Load(
      "variables:\n"
      "  TENANT_ID: {type: dns-label, required: true}\n"   // 2
      "  EFS_IP_2A: ipv4\n"                               // 3
      "  EFS_IP_2C: ipv4\n"                               // 4
      "  ZONE_BOUNDARY: {type: int, default: \"31\"}\n"   // 5
      "  MODE: {type: enum, values: [dev, prod]}\n"       // 6
      "  TAG: {pattern: '[a-z0-9.]+'}\n"                  // 7
      "  NEEDED: {required: true}\n"                      // 8
      "  OK: ipv4\n");                                    // 9
  Scratch scratch;
  ValueInputs inputs;
  inputs.environment = {"EFS_IP_2C=10.0.40.999", "OK=10.0.0.1"};
  inputs.values_files = {scratch.Write("dev.env", "# dev\nEFS_IP_2A=10.0.1.300\nTENANT_ID=\n")};
  inputs.sets = {"ZONE_BOUNDARY=thirty", "MODE=test", "TAG=V1"};
  Result<ValueSet> result = CollectValues(m, inputs);
  CHECK_FALSE(result.ok());
  CHECK_MESSAGE(CountErrors(result.diagnostics) == 7, Describe(result.diagnostics));
  const std::string dev = inputs.values_files[0];
  ExpectAt(result.diagnostics, "EFS_IP_2A: \"10.0.1.300\" is not an IPv4 address (octet 4 is 300 > 255)", dev, 2, 11);
  ExpectAt(result.diagnostics, "TENANT_ID is required but its value is empty", dev, 3, 11);
  // Environment values are located at the declaration; the hint says where the value came from.
  ExpectAt(result.diagnostics, "EFS_IP_2C: \"10.0.40.999\"", "vars.yaml", 4, 3);
  CHECK(Find(result.diagnostics, "EFS_IP_2C")->hint.find("environment variable EFS_IP_2C") != std::string::npos);
  ExpectAt(result.diagnostics, "ZONE_BOUNDARY: \"thirty\" is not an integer", "--set ZONE_BOUNDARY", 0, 0);
  CHECK(Find(result.diagnostics, "ZONE_BOUNDARY")->hint == "declared at vars.yaml:5 as type int");
  ExpectAt(result.diagnostics, "MODE: \"test\" is not one of the allowed values (expected one of: dev, prod)",
           "--set MODE", 0, 0);
  ExpectAt(result.diagnostics, "TAG: \"V1\" does not match the pattern '[a-z0-9.]+'", "--set TAG", 0, 0);
  ExpectAt(result.diagnostics, "NEEDED is required but has no value", "vars.yaml", 8, 3);
  // The ValueSet is filled even on failure, for redaction and --explain.
  REQUIRE(result.value.has_value());
  CHECK(result.value->Find("OK")->text == "10.0.0.1");
}

TEST_CASE("without report_missing a required variable may lack a value, and every other problem is reported") {
  Manifest m = Load(
      "variables:\n"
      "  NEEDED: {required: true}\n"
      "  EMPTY: {required: true}\n"
      "  PORT: int\n");
  ValueInputs inputs;
  inputs.sets = {"EMPTY=", "PORT=eighty"};
  inputs.report_missing = false;
  Result<ValueSet> result = CollectValues(m, inputs);
  CHECK_MESSAGE(CountErrors(result.diagnostics) == 2, Describe(result.diagnostics));
  CHECK(std::none_of(result.diagnostics.begin(), result.diagnostics.end(), [](const Diagnostic& diagnostic) {
    return diagnostic.message.find("NEEDED") != std::string::npos;
  }));
  CHECK(Find(result.diagnostics, "EMPTY is required but its value is empty") != nullptr);
  CHECK(Find(result.diagnostics, "PORT: \"eighty\" is not an integer") != nullptr);
  inputs.report_missing = true;
  CHECK(Find(CollectValues(m, inputs).diagnostics, "NEEDED is required but has no value") != nullptr);
}

TEST_CASE("an invalid default is reported at the declaration when nothing overrides it") {
  Manifest m;
  Variable variable;
  variable.name = "N";
  variable.type = VarType::kInt;
  variable.default_value = "x";
  variable.location = Location{"vars.yaml", 7, 3, 0};
  m.variables.push_back(variable);
  Result<ValueSet> result = CollectValues(m, {});
  CHECK_FALSE(result.ok());
  ExpectAt(result.diagnostics, "N: \"x\" is not an integer", "vars.yaml", 7, 3);
  CHECK(Find(result.diagnostics, "N:")->hint.find("default") != std::string::npos);
  // Overriding a bad default with a good value is fine.
  CHECK(CollectValues(m, {{"N=1"}, {}, {}}).ok());
}

TEST_CASE("structured YAML values go only to type: yaml variables") {
  Manifest m = Load("variables: {RES: yaml, APPS: list, NAME: string, ITEMS: yaml}");
  Scratch scratch;
  std::string file = scratch.Write("v.yaml",
                                   "RES: {limits: {cpu: \"1\"}}\n"
                                   "APPS: [a, b]\n"
                                   "NAME: {x: 1}\n"
                                   "ITEMS: [a, b]\n");
  Result<ValueSet> result = CollectValues(m, {{}, {file}, {}});
  CHECK(CountErrors(result.diagnostics) == 1);
  ExpectAt(result.diagnostics, "NAME: a YAML mapping or nested list is not a string", file, 3, 7);
  CHECK(result.value->Find("RES")->text == "{limits: {cpu: \"1\"}}");
  CHECK(result.value->Find("APPS")->text == "a,b");
  CHECK(result.value->Find("ITEMS")->text == "[a, b]");  // a yaml variable gets the sequence as YAML
}

TEST_CASE("sensitive values never appear in any diagnostic") {
  const std::string secret = "S3cr3t-Pa55";
  Manifest m = Load(
      "variables:\n"
      "  DB_PASSWORD: {type: dns-label, sensitive: true}\n"
      "  API_TOKEN: {pattern: '[a-f0-9]{8}', sensitive: true}\n"
      "  CERT: {type: yaml, sensitive: true}\n"
      "  PIN: {type: int, sensitive: true, required: true}\n");
  Scratch scratch;
  ValueInputs inputs;
  inputs.environment = {"API_TOKEN=" + secret};
  inputs.values_files = {scratch.Write("s.env", "DB_PASSWORD=" + secret + "\nCERT=\"{a: [" + secret + "\"\n")};
  inputs.sets = {"PIN=" + secret};
  Result<ValueSet> result = CollectValues(m, inputs);
  CHECK(CountErrors(result.diagnostics) == 4);
  std::string all;
  for (const Diagnostic& d : result.diagnostics) {
    all += FormatDiagnostic(d, "", false);
    all += d.message + "\n" + d.hint + "\n" + d.location.file + "\n";
  }
  CHECK(all.find(secret) == std::string::npos);
  CHECK(all.find("S3cr") == std::string::npos);
  CHECK(all.find("***") != std::string::npos);
  // Even the file's source line under a diagnostic can be shown once redacted.
  const std::string source = "DB_PASSWORD=" + secret + "\n";
  std::string shown = FormatDiagnostic(result.diagnostics[0], RedactSensitive(source, m, *result.value), false);
  CHECK(shown.find(secret) == std::string::npos);
  CHECK(RedactSensitive("a " + secret + " b " + secret, m, *result.value) == "a *** b ***");
  CHECK(RedactSensitive("nothing secret", m, *result.value) == "nothing secret");
}

TEST_CASE("environment mode declares every given name as a string") {
  Manifest m;
  m.mode = DeclarationMode::kEnvironment;
  Scratch scratch;
  ValueInputs inputs;
  inputs.environment = {"HOME=/root", "EMPTY=", "weird-name=1", "LANG=C.UTF-8"};
  inputs.values_files = {scratch.Write("e.env", "FROM_FILE=1\nLANG=C\n")};
  inputs.sets = {"FROM_SET=2"};
  Result<ValueSet> result = CollectValues(m, inputs);
  REQUIRE_MESSAGE(result.ok(), Describe(result.diagnostics));
  CHECK(result.diagnostics.empty());
  const ValueSet& values = *result.value;
  CHECK(values.Find("HOME")->text == "/root");
  CHECK(values.Find("EMPTY")->text.empty());
  CHECK(values.Find("weird-name") == nullptr);
  CHECK(values.Find("LANG")->text == "C");
  CHECK(values.Find("FROM_FILE")->text == "1");
  CHECK(values.Find("FROM_SET")->text == "2");
}

TEST_CASE("the seed's profile values validate against the SPEC manifest") {
  Result<Manifest> manifest = LoadManifestFile(kDataDir + "/efs-zone.yaml");
  REQUIRE(manifest.ok());
  ValueInputs inputs;
  inputs.values_files = {kDataDir + "/values-dev.env"};
  inputs.sets = {"APP=api"};
  Result<ValueSet> dev = CollectValues(*manifest.value, inputs);
  REQUIRE_MESSAGE(dev.ok(), Describe(dev.diagnostics));
  const ValueSet& values = *dev.value;
  CHECK(values.Find("TENANT_ID")->text == "acme");
  CHECK(values.Find("EFS_IP_2A")->text == "10.0.1.30");
  CHECK(values.Find("EFS_IP_2C")->text == "10.0.40.30");
  CHECK(values.Find("ZONE_BOUNDARY")->text == "31");
  CHECK(values.Find("EFS_ZONE_EXCLUDE_APPS")->text == "web-portal");
  CHECK(values.Find("APP")->text == "api");
  CHECK(values.Find("DB_PASSWORD") == nullptr);

  inputs.values_files.push_back(kDataDir + "/values-prod.yaml");
  Result<ValueSet> prod = CollectValues(*manifest.value, inputs);
  REQUIRE_MESSAGE(prod.ok(), Describe(prod.diagnostics));
  CHECK(prod.value->Find("TENANT_ID")->text == "acme-prod");
  CHECK(SplitList(prod.value->Find("EFS_ZONE_EXCLUDE_APPS")->text) ==
        std::vector<std::string>{"web-portal", "batch"});

  // Without the profile, TENANT_ID is missing.
  Result<ValueSet> bare = CollectValues(*manifest.value, {});
  CHECK_FALSE(bare.ok());
  CHECK(CountErrors(bare.diagnostics) == 1);
  CHECK(Find(bare.diagnostics, "TENANT_ID is required") != nullptr);
}

TEST_CASE("ValueSet") {
  ValueSet set;
  CHECK(set.Find("A") == nullptr);
  set.Set("A", Value{"1", ValueSource::kEnvironment, {}});
  set.Set("A", Value{"2", ValueSource::kCommandLine, {}});
  REQUIRE(set.Find("A") != nullptr);
  CHECK(set.Find("A")->text == "2");
  CHECK(set.all().size() == 1);
}

}  // namespace
}  // namespace safesubst
