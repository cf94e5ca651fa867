// SPDX-License-Identifier: Apache-2.0
// Sensitive values (SPEC, Failure behaviour: "Sensitive values never appear in
// any message"): the command is run with secrets in many succeeding and
// failing scenarios, and everything it prints is searched for them, except
// the rendered document itself on success, where they belong.
//
// The secrets are made of distinctive pieces joined by characters every
// encoder rewrites (quotes, `$`, blanks), so that a secret shown escaped,
// requoted or cut in half is still found.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "test_support.h"

using namespace safesubst::testing;

namespace {

// PW: substituted everywhere; no pattern, so any value is valid.
const std::string kPassword = R"(Kq7Zp "Wm4Xr" 'Vb9Ln' $(Jt3Hs))";
// TOKEN: a pattern; kToken matches it, kBadToken does not.
const std::string kToken = "Tk5Gh8Rw2Ny6";
const std::string kBadToken = "Tk5Gh-Rw2Ny!";
const std::vector<std::string> kPieces = {"Kq7Zp", "Wm4Xr", "Vb9Ln", "Jt3Hs", "Tk5Gh", "Rw2Ny"};

constexpr const char* kManifest = R"(variables:
  APP: {type: dns-label, default: web}
  PW: {type: string, sensitive: true}
  TOKEN: {type: string, sensitive: true, pattern: '[A-Za-z0-9]{8,64}'}
  CERT: {type: yaml, sensitive: true}
runtime: [NODE_IP]
)";

// The secrets in every kind of scalar, and in a shell script.
constexpr const char* kTemplate = R"(apiVersion: v1
kind: Secret
metadata:
  name: ${APP}-credentials
stringData:
  plain: ${PW}
  double: "${PW}"
  single: '${PW}'
  token: ${TOKEN}
  folded: >
    password ${PW}
  block: |
    user=admin
    password=${PW}
  script.sh: |
    #!/bin/sh
    echo "${PW}" | login --token '${TOKEN}'
)";

// What plain envsubst would write into comments and runtime scripts (audit).
constexpr const char* kAuditTemplate = R"(# the password is ${PW}
data:
  run.sh: |
    echo $PW $NODE_IP
)";

// A container script where the password would be an unquoted shell word.
constexpr const char* kShellTemplate = R"(spec:
  containers:
  - name: app
    command: ["/bin/sh", "-c"]
    args:
    - echo ${PW} > /tmp/password
)";

class Scenario {
 public:
  Scenario() {
    WriteFile(dir_ / "vars.yaml", kManifest);
    WriteFile(dir_ / "app.yaml", kTemplate);
    WriteFile(dir_ / "audit.yaml", kAuditTemplate);
    WriteFile(dir_ / "shell.yaml", kShellTemplate);
  }

  void Write(const std::string& name, const std::string& text) { WriteFile(dir_ / name, text); }
  std::string Read(const std::string& name) { return ReadFile(dir_ / name); }
  const std::filesystem::path& Directory() const { return dir_.path(); }

  /// Runs safesubst ARGUMENTS in the scenario directory, after ENVIRONMENT
  /// (shell assignments, e.g. "PW=..."), with `input` on stdin.
  CommandResult Run(const std::string& arguments, const std::string& environment = "",
                    const std::string& input = "") {
    return RunShell("cd " + ShellQuote(dir_.path().string()) + " && env -i PATH=/usr/bin:/bin NO_COLOR=1 " +
                        environment + " " + Safesubst() + " " + arguments,
                    input);
  }

 private:
  TempDir dir_;
};

std::string Set(const std::string& name, const std::string& value) { return ShellQuote("--set=" + name + "=" + value); }

std::string Secrets() { return Set("PW", kPassword) + " " + Set("TOKEN", kToken); }

bool ShowsSecret(const std::string& text) {
  for (const std::string& piece : kPieces) {
    if (text.find(piece) != std::string::npos) return true;
  }
  return false;
}

// Standard error never shows a secret; standard output only when it is the rendered document.
void ExpectHidden(const CommandResult& run, bool output_is_document = false) {
  CHECK_MESSAGE(!ShowsSecret(run.err), "stderr shows a secret:\n" << run.err);
  if (!output_is_document) CHECK_MESSAGE(!ShowsSecret(run.out), "stdout shows a secret:\n" << run.out);
}

}  // namespace

TEST_CASE("secrets: a successful render writes them into the document only") {
  Scenario scenario;
  CommandResult run = scenario.Run("render -m vars.yaml " + Secrets() + " app.yaml");
  REQUIRE(run.code == 0);
  CHECK(run.out.find("plain: " + kPassword + "\n") != std::string::npos);  // really substituted
  CHECK(run.out.find("token: " + kToken) != std::string::npos);
  ExpectHidden(run, /*output_is_document=*/true);

  CommandResult to_file = scenario.Run("render -m vars.yaml " + Secrets() + " -o out.yaml app.yaml");
  CHECK(to_file.code == 0);
  CHECK(scenario.Read("out.yaml").find(kPassword) != std::string::npos);
  ExpectHidden(to_file);

  // The drop-in form, values from the environment.
  CommandResult dropin = scenario.Run("", "SAFESUBST_MANIFEST=vars.yaml " + ShellQuote("PW=" + kPassword) +
                                              " TOKEN=" + kToken, kTemplate);
  CHECK(dropin.code == 0);
  CHECK(dropin.out.find(kPassword) != std::string::npos);
  ExpectHidden(dropin, /*output_is_document=*/true);
}

TEST_CASE("secrets: explain, vars and render --explain show the references, never the values") {
  Scenario scenario;
  CommandResult explain_flag = scenario.Run("render --explain -m vars.yaml " + Secrets() + " app.yaml");
  CHECK(explain_flag.code == 0);
  CHECK(explain_flag.err.find("${PW}") != std::string::npos);
  ExpectHidden(explain_flag, /*output_is_document=*/true);

  for (const std::string& command : std::vector<std::string>{"explain", "vars", "vars --format json"}) {
    CAPTURE(command);
    CommandResult run = scenario.Run(command + " -m vars.yaml " + Secrets() + " app.yaml shell.yaml");
    CHECK(run.out.find("${PW}") != std::string::npos);
    ExpectHidden(run);
    // Also when a value fails validation.
    ExpectHidden(scenario.Run(command + " -m vars.yaml " + Set("TOKEN", kBadToken) + " app.yaml"));
  }
}

TEST_CASE("secrets: a value that fails its pattern is not shown, wherever it came from") {
  Scenario scenario;
  scenario.Write("bad-token.env", "TOKEN=" + kBadToken + "\n");
  struct Case {
    const char* name;
    std::string arguments;
    std::string environment;
  };
  for (const Case& each : {Case{"--set", Set("PW", kPassword) + " " + Set("TOKEN", kBadToken), ""},
                           Case{"environment", Set("PW", kPassword), ShellQuote("TOKEN=" + kBadToken)},
                           Case{"values file", Set("PW", kPassword) + " --values bad-token.env", ""}}) {
    CAPTURE(each.name);
    CommandResult run = scenario.Run("render -m vars.yaml " + each.arguments + " app.yaml", each.environment);
    CHECK(run.code == 1);
    CHECK(run.err.find("TOKEN") != std::string::npos);
    CHECK(run.err.find("pattern") != std::string::npos);
    CHECK(run.out.empty());
    ExpectHidden(run);
  }
}

TEST_CASE("secrets: a broken values file is reported without quoting its secret lines") {
  Scenario scenario;
  std::string escaped_password = R"(Kq7Zp \"Wm4Xr\" 'Vb9Ln' $(Jt3Hs))";
  struct Case {
    const char* file;
    std::string text;
    const char* expected;  // in the error message
  };
  for (const Case& each : {
           Case{"malformed-after.env", "PW=\"" + escaped_password + "\"\nTOKEN=" + kToken + "\nthis line is wrong\n",
                "malformed-after.env:3:"},
           Case{"malformed-secret.env", "PW " + kPassword + "\n", "malformed-secret.env:1:"},
           Case{"unterminated.env", "TOKEN=" + kToken + "\nPW=\"Kq7Zp Wm4Xr\n", "unterminated double-quoted"},
           Case{"text-after-quote.env", "PW='Kq7Zp' Wm4Xr\n", "text-after-quote.env:1:"},
           Case{"broken.yaml", "PW: \"" + escaped_password + "\"\nTOKEN: [" + kToken + ",\n", "broken.yaml:"},
       }) {
    CAPTURE(each.file);
    scenario.Write(each.file, each.text);
    CommandResult run = scenario.Run(std::string("render -m vars.yaml --values ") + each.file + " app.yaml");
    CHECK(run.code == 1);
    CHECK(run.err.find(each.expected) != std::string::npos);
    ExpectHidden(run);
  }
}

TEST_CASE("secrets: a value the shell encoder refuses is named, not shown") {
  Scenario scenario;
  CommandResult run = scenario.Run("render -m vars.yaml " + Secrets() + " shell.yaml");
  CHECK(run.code == 1);
  CHECK(run.err.find("value of 'PW' cannot be written here") != std::string::npos);
  ExpectHidden(run);
}

TEST_CASE("secrets: values refused for their size, encoding or YAML are not shown") {
  Scenario scenario;
  scenario.Write("cert.yaml", "tls: ${CERT}\n");
  CommandResult too_big = scenario.Run("render --max-value-size 8 -m vars.yaml " + Secrets() + " app.yaml");
  CHECK(too_big.code == 1);
  CHECK(too_big.err.find("--max-value-size") != std::string::npos);
  ExpectHidden(too_big);

  CommandResult not_utf8 = scenario.Run("render -m vars.yaml " + Set("PW", "Kq7Zp\xff Wm4Xr") + " " +
                                        Set("TOKEN", kToken) + " app.yaml");
  CHECK(not_utf8.code == 1);
  CHECK(not_utf8.err.find("UTF-8") != std::string::npos);
  ExpectHidden(not_utf8);

  CommandResult bad_yaml = scenario.Run("render -m vars.yaml " + Set("CERT", "{Kq7Zp: [Wm4Xr, 'Vb9Ln") + " cert.yaml");
  CHECK(bad_yaml.code == 1);
  CHECK(bad_yaml.err.find("CERT") != std::string::npos);
  ExpectHidden(bad_yaml);
}

TEST_CASE("secrets: a template error next to a substituted secret does not show it") {
  Scenario scenario;
  scenario.Write("undeclared.yaml", "password: \"${PW}\"\nurl: ${UNDECLARED} ${PW}\n");
  CommandResult run = scenario.Run("render -m vars.yaml " + Secrets() + " undeclared.yaml");
  CHECK(run.code == 1);
  CHECK(run.err.find("undeclared variable 'UNDECLARED'") != std::string::npos);
  ExpectHidden(run);
}

TEST_CASE("secrets: audit shows what envsubst would write with sensitive values masked") {
  Scenario scenario;
  CommandResult run = scenario.Run("audit -m vars.yaml audit.yaml", ShellQuote("PW=" + kPassword) + " NODE_IP=10.0.0.1");
  CHECK(run.code == 0);
  CHECK(run.out.find("+# the password is ***") != std::string::npos);
  CHECK(run.out.find("echo *** 10.0.0.1") != std::string::npos);
  ExpectHidden(run);
}

// A value in a key is refused before the structure check, whose "key
// changed: 'K' became 'R'" quoted the rendered key with the secret in it
// (found by fuzzing); neither error may show it.
TEST_CASE("secrets: a secret meant for a key is not shown by the error that refuses it") {
  Scenario scenario;
  scenario.Write("key.yaml", "${PW}: 1\n");
  CommandResult run = scenario.Run("render -m vars.yaml " + Secrets() + " key.yaml");
  CHECK(run.code == 1);
  CHECK(run.err.find("'PW' is in a mapping key") != std::string::npos);
  ExpectHidden(run);
}

// Lint findings on the rendered output would quote the rendered line, where
// the secret may be escaped for its scalar past RedactSensitive's reach.
TEST_CASE("secrets: render --lint does not show a secret on the line of a finding") {
  Scenario scenario;
  scenario.Write("lint.yaml", "a: \"${PW} ${LEFTOVER}\"\n");
  CommandResult run = scenario.Run("render --lint --allow-undeclared -m vars.yaml " + Secrets() + " lint.yaml");
  CHECK(run.code == 1);
  CHECK(run.err.find("[leftover-placeholder]") != std::string::npos);
  ExpectHidden(run);
}

// Every way a sensitive value reaches a diagnostic, through every command
// that shows diagnostics: each scenario provokes one (checked by
// `expected`, from render) and nothing any command prints, nor any file
// it leaves behind, shows a secret or a piece of one (issue 25 item 1:
// the Redactor, redaction.h).
namespace {

struct Leak {
  const char* name;
  std::vector<std::pair<std::string, std::string>> files;  // written before the runs
  std::string arguments;  // after the command: -m, values, the template
  std::string expected;   // in render's stderr
  std::vector<std::string> forbidden = {};  // spellings of the secret besides kPieces
};

const char* const kCertTemplate = "tls: ${CERT}\npassword: ${PW}\n";

std::vector<Leak> Leaks() {
  return {
      Leak{"--set type: yaml value with a duplicate key",
           {{"t.yaml", kCertTemplate}},
           "-m vars.yaml " + Set("CERT", "{Kq7Zp: 1, Kq7Zp: 2}") + " " + Set("PW", "x") + " t.yaml",
           "twice"},
      Leak{"values file type: yaml value with a duplicate key",
           {{"t.yaml", kCertTemplate}, {"cert-values.yaml", "CERT:\n  Wm4Xr: 1\n  Wm4Xr: 2\nPW: x\n"}},
           "-m vars.yaml --values cert-values.yaml t.yaml",
           "twice"},
      Leak{"manifest error on the line of a sensitive default",
           {{"t.yaml", "password: ${PW}\n"},
            {"m.yaml", "variables:\n  PW: {type: string, sensitive: true, default: 'Vb9Ln Jt3Hs', bogus: 1}\n"}},
           "-m m.yaml t.yaml",
           "unknown key 'bogus'"},
      Leak{"manifest type: yaml default with a duplicate key",
           {{"t.yaml", kCertTemplate},
            {"m.yaml", "variables:\n  PW: string\n  CERT:\n    type: yaml\n    sensitive: true\n    default:\n"
                       "      Tk5Gh: 1\n      Tk5Gh: 2\n"}},
           "-m m.yaml t.yaml",
           "twice"},
      Leak{"manifest error on the second line of a multi-line sensitive default",
           {{"t.yaml", "password: ${PW}\n"},
            {"m.yaml", "variables:\n  PW: {sensitive: true, default: \"Rw2Ny\n    Kq7Zp\", bogus: 1}\n"}},
           "-m m.yaml t.yaml",
           "unknown key 'bogus'"},
      Leak{"manifest error on an escaped sensitive default",
           {{"t.yaml", "password: ${PW}\n"},
            {"m.yaml", "variables:\n  PW: {sensitive: true, default: \"Wm\\x34Xr\", pattern: '[0-9]+'}\n"}},
           "-m m.yaml t.yaml",
           "invalid default",
           {"Wm\\x34Xr", "x34"}},
      Leak{"manifest warning on a sensitive default overridden by --set",
           {{"t.yaml", "password: ${PW}\n"},
            {"m.yaml", "variables:\n  PW: {sensitive: true, required: true, default: Vb9Ln}\n"}},
           "-m m.yaml " + Set("PW", "Wm4Xr") + " t.yaml",
           "is required and has a default"},
      Leak{"render --lint finding inside a secret holding a placeholder",
           {{"t.yaml", "data:\n  a: ${PW}\n  b: \"${PW}\"\n"}},
           "-m vars.yaml " + Set("PW", "Jt3Hs ${LEFTOVER_NAME} __SENTINEL_NAME__") + " t.yaml",
           "",
           {"LEFTOVER_NAME", "SENTINEL_NAME"}},
      Leak{"values file structured value for a string",
           {{"t.yaml", "password: ${PW}\n"}, {"pw-values.yaml", "PW:\n  Kq7Zp: Wm4Xr\n"}},
           "-m vars.yaml --values pw-values.yaml t.yaml",
           "is not a string"},
  };
}

}  // namespace

TEST_CASE("secrets: no diagnostic of any command shows a secret or a piece of one, nor any file left behind") {
  const std::vector<std::string> commands = {"render -o out.yaml", "render --lint", "explain", "vars --format json"};
  for (const Leak& leak : Leaks()) {
    const std::string scenario_name = leak.name;
    CAPTURE(scenario_name);
    Scenario scenario;
    for (const auto& [name, text] : leak.files) scenario.Write(name, text);
    for (const std::string& command : commands) {
      CAPTURE(command);
      CommandResult run = scenario.Run(command + " " + leak.arguments);
      if (command == "render -o out.yaml" && !leak.expected.empty()) {
        CHECK(run.err.find(leak.expected) != std::string::npos);
      }
      if (command == "render --lint" && leak.expected.empty()) {
        CHECK(run.code == 1);
        CHECK(run.err.find("[leftover-placeholder]") != std::string::npos);
      }
      ExpectHidden(run, /*output_is_document=*/run.code == 0 && command == "render --lint");
      for (const std::string& spelling : leak.forbidden) {
        CHECK_MESSAGE(run.err.find(spelling) == std::string::npos, "stderr shows " << spelling << ":\n" << run.err);
        CHECK_MESSAGE(run.out.find(spelling) == std::string::npos, "stdout shows " << spelling << ":\n" << run.out);
      }
      // A failed render leaves no file; a successful one only its output.
      for (const auto& entry : std::filesystem::directory_iterator(scenario.Directory())) {
        const std::string name = entry.path().filename().string();
        const bool input = std::any_of(leak.files.begin(), leak.files.end(),
                                       [&name](const auto& file) { return file.first == name; });
        if (input || (name == "out.yaml" && run.code == 0)) continue;
        CHECK_MESSAGE(!ShowsSecret(scenario.Read(name)), name << " shows a secret");
      }
      std::filesystem::remove(scenario.Directory() / "out.yaml");
    }
  }
}
