// SPDX-License-Identifier: Apache-2.0
// `--flavor flux` (DeclarationMode::kFlux): Flux's postBuild substitution.
// Every expected text below was checked against Flux's engine
// (github.com/fluxcd/pkg/envsubst, built offline as tests/dialect_differential.sh
// describes) with the same values: X=1.2, E set and empty, U unset.
#include <doctest/doctest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "real_shells.h"
#include "safesubst/render.h"
#include "safesubst/survey.h"
#include "safesubst/values.h"
#include "test_support.h"

using namespace safesubst;

namespace {

Manifest Flux() {
  Manifest manifest;
  manifest.mode = DeclarationMode::kFlux;
  return manifest;
}

ValueSet FluxValues() {
  ValueSet values;
  values.Set("X", Value{"1.2", ValueSource::kCommandLine, Location{"--set"}});
  values.Set("E", Value{"", ValueSource::kCommandLine, Location{"--set"}});
  return values;
}

RenderResult RenderFlux(std::string_view text, bool strict = false) {
  RenderOptions options;
  options.file_name = "t.yaml";
  options.strict = strict;
  return Render(text, Flux(), FluxValues(), options);
}

// The rendered line of `a: |` followed by `line`, as a script would hold it.
std::string RenderedLine(const std::string& line) {
  RenderResult result = RenderFlux("a: |\n  " + line + "\n");
  REQUIRE_MESSAGE(result.ok(), (result.diagnostics.empty() ? "" : result.diagnostics[0].message));
  return result.output.substr(std::string("a: |\n  ").size(), result.output.size() - 8);
}

bool HasMessage(const RenderResult& result, Severity severity, const std::string& part) {
  for (const Diagnostic& diagnostic : result.diagnostics) {
    if (diagnostic.severity == severity && diagnostic.message.find(part) != std::string::npos) return true;
  }
  return false;
}

// Runs `script` under every shell of the CI matrix: each prints `expected`
// and none creates the canary file a hostile value would.
void CheckUnderEveryShell(const std::string& script, const std::string& expected) {
  const testing::TempDir work;
  const std::vector<testing::RealShell> shells = testing::InstalledShells();
  const std::vector<std::filesystem::path> dirs =
      testing::RunScriptUnderShells(work.path(), shells, [&](const testing::RealShell&) { return script; });
  for (std::size_t i = 0; i < shells.size(); ++i) {
    CAPTURE(shells[i].name);
    CHECK(testing::ReadFile(dirs[i] / "stdout") == expected);
    CHECK_FALSE(std::filesystem::exists(dirs[i] / "canary"));
  }
}

}  // namespace

TEST_CASE("flux flavor: the forms as Flux's engine writes them") {
  CHECK(RenderedLine("[${X}]") == "[1.2]");
  CHECK(RenderedLine("[$X]") == "[$X]");            // a bare name is never substituted
  CHECK(RenderedLine("[$${X}]") == "[${X}]");
  CHECK(RenderedLine("[$$x]") == "[$x]");           // `$$` is an escaped `$` everywhere
  CHECK(RenderedLine("[$$(X)]") == "[$(X)]");
  CHECK(RenderedLine("[$$$X]") == "[$$X]");
  CHECK(RenderedLine("[$(X) $1 $@]") == "[$(X) $1 $@]");
  CHECK(RenderedLine("[${U:-d} ${E:=d} ${X:-d}]") == "[d d 1.2]");
  CHECK(RenderedLine("[${U:?m} ${E:?m} ${X:?m}]") == "[m m 1.2]");   // Flux's quirk: no error
  CHECK(RenderedLine("[${U:+p} ${E:+p} ${X:+p}]") == "[p p 1.2]");   // Flux's quirk: a default too
  CHECK(RenderedLine("[${X%.*} ${X:1} ${#X}]") == "[1 .2 3]");
  CHECK(RenderedLine("[${U:=${X}-x}]") == "[1.2-x]");
  CHECK(RenderedLine("[${U=d} ${E=d} ${X=d}]") == "[d d 1.2]");  // `=` alone is `:=` there
}

// Flux has no escape: `$$` is a `$`, and its engine reads on after it.
TEST_CASE("flux flavor: an escape holding other `$` forms is written as Flux's engine writes it") {
  CHECK(RenderedLine("[$${U:=$${X}}]") == "[${U:=${X}}]");  // a two-stage substitution (joryirving/home-ops)
  CHECK(RenderedLine("[$${U:=${X}}]") == "[${U:=1.2}]");
  CHECK(RenderedLine("[$${U:=${U}}]") == "[${U:=}]");
  CHECK(RenderedLine("[$${U:-$X}]") == "[${U:-$X}]");
  CHECK(RenderedLine("[$${U:-$$X}]") == "[${U:-$X}]");
  CHECK(RenderedLine("[$${U:=${U:-d}}]") == "[${U:=d}]");
  CHECK(RenderedLine("[$${U:-$${E:-$${X}}}]") == "[${U:-${E:-${X}}}]");
  CHECK(RenderedLine("[$${U:=$}] [$${U:=$$}] [$${X}$]") == "[${U:=$}] [${U:=$}] [${X}$]");
  CHECK(RenderedLine("[x$${U:=${X}}y${X}]") == "[x${U:=1.2}y1.2]");
  CHECK(RenderedLine("[$${U:-${X}-${X}}]") == "[${U:-1.2-1.2}]");
  CHECK(RenderedLine("[$$$${X}] [$$${X}]") == "[$${X}] [$1.2]");
}

// Inside a default word `$$` is no escape there: a `$` that starts no `${` is text.
TEST_CASE("flux flavor: a `$` in a default word is written as Flux's engine writes it") {
  CHECK(RenderedLine("[${U:-$${X}}]") == "[$1.2]");
  CHECK(RenderedLine("[${U:-$$X}] [${U:-$$}]") == "[$$X] [$$]");
  CHECK(RenderedLine("[${U:-$}${X}]") == "[$1.2]");
  CHECK(RenderedLine("[${E:-a$$(b)}]") == "[a$$(b)]");
}

TEST_CASE("flux flavor: a value inside an escape in a script is encoded for where Flux's output puts it") {
  // Flux writes `"${A:=<value>}"`: the value lands in the word of a
  // double-quoted expansion, which the lexer sees in Flux's reading.
  const std::string value = "a b\"$(touch canary)`id`}\\x ${HOME} $$";
  ValueSet values;
  values.Set("B", Value{value, ValueSource::kCommandLine, Location{"--set"}});
  RenderOptions options;
  const std::string text = "data:\n  run.sh: |\n    #!/bin/sh\n    printf '%s\\n' \"$${A:=${B}}\" \"$$A\"\n";
  RenderResult result = Render(text, Flux(), values, options);
  REQUIRE_MESSAGE(result.ok(), (result.diagnostics.empty() ? "" : result.diagnostics[0].message));
  const std::string script = result.output.substr(result.output.find("#!/bin/sh"));
  CHECK(script.find("\"${A:=a b\\\"\\$(touch canary)") != std::string::npos);
  CheckUnderEveryShell(script, value + "\n" + value + "\n");
  // A single quote there is read differently by dash and bash: refused, located.
  values.Set("B", Value{"it's", ValueSource::kCommandLine, Location{"--set"}});
  RenderResult quote = Render(text, Flux(), values, options);
  CHECK_FALSE(quote.ok());
  CHECK(HasMessage(quote, Severity::kError, "in the word of a double-quoted ${...} expansion"));
}

TEST_CASE("flux flavor: a value in the word of an unquoted `${x:=...}` is refused, quoted it is written") {
  // Flux writes `$${A:="${B}"}` as `${A:="<value>"}`: the shell assigns the
  // word to A and expands A unquoted, splitting and globbing the value
  // (`*` became the directory's listing, `a b` two words, under all 8 shells).
  ValueSet values;
  RenderOptions options;
  for (const char* value : {"*", "a b", "plain"}) {
    values.Set("B", Value{value, ValueSource::kCommandLine, Location{"--set"}});
    for (const std::string line : {"printf %s $${A:=\"${B}\"}", "printf %s $${A=${B}}", "printf %s $${A:=x${B}y}"}) {
      CAPTURE(std::string(value));
      CAPTURE(line);
      RenderResult result = Render(std::string("a: |\n  #!/bin/sh\n  ") + line + "\n", Flux(), values, options);
      CHECK_FALSE(result.ok());
      CHECK(HasMessage(result, Severity::kError, "in the word of an unquoted ${x:=...}"));
    }
  }
  // Quoted, the assignment's expansion is one field: the value arrives whole.
  const std::string value = "* a  b";
  values.Set("B", Value{value, ValueSource::kCommandLine, Location{"--set"}});
  RenderResult quoted =
      Render("a: |\n  #!/bin/sh\n  printf '%s\\n' \"$${A:=\"${B}\"}\" \"$${C:-${B}}\"\n", Flux(), values, options);
  REQUIRE_MESSAGE(quoted.ok(), (quoted.diagnostics.empty() ? "" : quoted.diagnostics[0].message));
  const std::string script = quoted.output.substr(quoted.output.find("#!/bin/sh"));
  CheckUnderEveryShell(script, value + "\n" + value + "\n");
}

TEST_CASE("flux flavor: a value after a `$$` that Flux writes as a lone `$` cannot start an expansion") {
  // Flux writes `"$$${B}"` as `"$` and B's value: `(touch canary)` would be
  // `"$(touch canary)"` in the script, `$(SECRET)` where Kubernetes expands;
  // also with an unset U (an empty string) between them.
  ValueSet values;
  values.Set("B", Value{"(touch canary)", ValueSource::kCommandLine, Location{"--set"}});
  RenderOptions options;
  for (const char* text : {"a: |\n  #!/bin/sh\n  echo \"$$${B}\"\n", "a: |\n  #!/bin/sh\n  echo \"$${A:-$$${B}}\"\n",
                           "a: |\n  #!/bin/sh\n  echo $$$$$$${B}\n", "a: |\n  #!/bin/sh\n  echo \"$$${U}${B}\"\n",
                           "env:\n- name: G\n  value: cost $$${B}\n"}) {
    CAPTURE(text);
    RenderResult result = Render(text, Flux(), values, options);
    CHECK_FALSE(result.ok());
    CHECK(HasMessage(result, Severity::kError, "Flux writes the `$$` right before 'B' as one `$`"));
  }
  for (const char* name : {"HOME", "{HOME}", "'x'", "=x", "1", "-"}) {
    values.Set("B", Value{name, ValueSource::kCommandLine, Location{"--set"}});
    CAPTURE(name);
    CHECK_FALSE(Render("a: |\n  #!/bin/sh\n  echo \"$$${B}\"\n", Flux(), values, options).ok());
  }
  // A `$$` written as `$$` (four `$`), a value that ends the `$`, and data
  // outside Kubernetes' `$(NAME)` are written.
  values.Set("B", Value{"(x)", ValueSource::kCommandLine, Location{"--set"}});
  CHECK(Render("a: |\n  #!/bin/sh\n  echo \"$$$$${B}\"\n", Flux(), values, options).output ==
        "a: |\n  #!/bin/sh\n  echo \"$$(x)\"\n");
  values.Set("B", Value{"/x 12", ValueSource::kCommandLine, Location{"--set"}});
  CHECK(Render("a: |\n  #!/bin/sh\n  echo \"$$${B}\"\n", Flux(), values, options).output ==
        "a: |\n  #!/bin/sh\n  echo \"$/x 12\"\n");
  values.Set("B", Value{"12", ValueSource::kCommandLine, Location{"--set"}});
  CHECK(Render("price: $$${B}\n", Flux(), values, options).output == "price: $12\n");
}

TEST_CASE("flux flavor: a `$$` in a script is written as Flux writes it, with a warning") {
  RenderResult result = RenderFlux("a: |\n  #!/bin/sh\n  echo $$\n");
  REQUIRE(result.ok());
  CHECK(result.output == "a: |\n  #!/bin/sh\n  echo $\n");
  CHECK(HasMessage(result, Severity::kWarning, "Flux writes $$ as $: the script no longer reads its process id"));
  // `$$$$` is how a Flux template writes `$$`, also through a default word.
  RenderResult pid = RenderFlux("a: |\n  #!/bin/sh\n  echo $$$$ ${U:-$$}\n");
  REQUIRE(pid.ok());
  CHECK(pid.output == "a: |\n  #!/bin/sh\n  echo $$ $$\n");
  CHECK(pid.diagnostics.empty());
}

TEST_CASE("flux flavor: an unset name is an empty string, and an error in strict mode") {
  RenderResult blanked = RenderFlux("a: x${U}y\nb: |\n  echo ${HOME}\n");
  REQUIRE(blanked.ok());
  CHECK(blanked.output == "a: xy\nb: |\n  echo \n");
  CHECK(HasMessage(blanked, Severity::kWarning, "'U' is not set: Flux writes an empty string here"));
  CHECK(HasMessage(blanked, Severity::kWarning, "'HOME' is not set"));

  RenderResult strict = RenderFlux("a: ${U}\nb: ${U:=d}\n", /*strict=*/true);
  CHECK_FALSE(strict.ok());
  CHECK(strict.output.empty());
  CHECK(HasMessage(strict, Severity::kError, "variable not set (strict mode): \"U\""));
  // A default word satisfies strict mode, as in Flux.
  RenderResult defaulted = RenderFlux("b: ${U:=d}\n", /*strict=*/true);
  REQUIRE(defaulted.ok());
  CHECK(defaulted.output == "b: d\n");
}

TEST_CASE("flux flavor: forms Flux's engine fails on or reads otherwise are refused where they stand") {
  // Flux ends a form at its first `}` (`${U:-{x}}` is `${U:-{x}` and a `}`:
  // with U set, its value and a `}`), and reads `$$` in a string
  // operation's argument as `$` (`${X/a/$${E}}` ends at the first `}`).
  for (std::string form : {"${X-y}", "${U?m}", "${X+p}", "${arr[0]}", "${!x}", "${X.Y}", "${U:-{x}}", "${X/a/$${E}}"}) {
    CAPTURE(form);
    RenderResult result = RenderFlux("a: |\n  echo " + form + "\n");
    CHECK_FALSE(result.ok());
    CHECK(result.output.empty());
    CHECK((HasMessage(result, Severity::kError, "Flux cannot") || HasMessage(result, Severity::kError, "Flux reads") ||
           HasMessage(result, Severity::kError, "Flux ends")));
  }
}

TEST_CASE("flux flavor: an object with substitute: disabled is left as it is") {
  const std::string disabled_annotation =
      "metadata:\n  name: ${X}\n  annotations:\n    kustomize.toolkit.fluxcd.io/substitute: disabled\n"
      "data:\n  a: ${U} $$ ${arr[0]}\n";
  const std::string disabled_label =
      "metadata:\n  labels:\n    kustomize.toolkit.fluxcd.io/substitute: \"disabled\"\ndata:\n  a: ${X}\n";
  RenderResult result = RenderFlux("a: ${X}\n---\n" + disabled_annotation + "---\n" + disabled_label +
                                   "---\nb: $$ ${X}\n");
  REQUIRE(result.ok());
  // `1.2` alone would read as a number: quoted, as in every mode (Flux writes a float).
  CHECK(result.output == "a: \"1.2\"\n---\n" + disabled_annotation + "---\n" + disabled_label + "---\nb: $ 1.2\n");
  // The key elsewhere than metadata, or another value, does not disable anything.
  RenderResult elsewhere = RenderFlux("data:\n  kustomize.toolkit.fluxcd.io/substitute: disabled\n  a: ${X}\n"
                                      "---\nmetadata:\n  annotations:\n    kustomize.toolkit.fluxcd.io/substitute: "
                                      "enabled\n  name: ${X}\n");
  REQUIRE(elsewhere.ok());
  CHECK(elsewhere.output.find("${X}") == std::string::npos);
}

TEST_CASE("flux flavor: safesubst's encoding still applies where Flux's text splice would break the YAML") {
  ValueSet values;
  values.Set("V", Value{"a: b", ValueSource::kCommandLine, Location{"--set"}});
  values.Set("Q", Value{"say \"hi\"", ValueSource::kCommandLine, Location{"--set"}});
  RenderOptions options;
  RenderResult result = Render("k: ${V}\nq: \"${Q}\"\n", Flux(), values, options);
  REQUIRE(result.ok());
  CHECK(result.output == "k: \"a: b\"\nq: \"say \\\"hi\\\"\"\n");
}

TEST_CASE("flux flavor: values lose their line feeds, as kustomize-controller's do") {
  ValueInputs inputs;
  inputs.sets = {"A=line1\nline2\n"};
  Result<ValueSet> values = CollectValues(Flux(), inputs);
  REQUIRE(values.ok());
  REQUIRE(values.value->Find("A") != nullptr);
  CHECK(values.value->Find("A")->text == "line1line2");
  // Flux's variable-name rule, ^[_[:alpha:]][_[:alpha:][:digit:]]*$, is safesubst's.
  inputs.sets = {"my-var=x"};
  CHECK_FALSE(CollectValues(Flux(), inputs).ok());
}

TEST_CASE("flux audit: what Flux's substitution does to scripts, nginx and Kubernetes escapes") {
  const std::string text =
      "metadata:\n  name: ${APP}\ndata:\n  kube: $$(POD_IP)\n  plain: ${UNSET_IN_DATA}\n"
      "  run.sh: |\n    #!/bin/sh\n    echo $NODE_IP ${APP}\n    echo ${HOME} $$\n    echo ${X:-fallback}\n"
      "  nginx.conf: |\n    log_format main '$remote_addr ${remote_user}';\n"
      "---\nmetadata:\n  annotations:\n    kustomize.toolkit.fluxcd.io/substitute: disabled\n"
      "data:\n  a.sh: |\n    echo ${HOME} ${arr[0]}\n";
  auto given = [](std::string_view name) -> std::optional<std::string> {
    if (name == "APP") return std::string("web");
    return std::nullopt;
  };
  Result<std::vector<AuditChange>> audit = AuditFlux(TemplateSource{"t.yaml", text}, given);
  REQUIRE(audit.ok());
  std::vector<std::uint32_t> lines;
  for (const AuditChange& change : *audit.value) lines.push_back(change.location.line);
  // $$( in data, ${HOME} and $$ in the script, the shell's default, nginx's
  // ${remote_user}; not the given APP, not a bare $NODE_IP or $remote_addr, not
  // a name in data, nothing of the disabled object.
  CHECK(lines == std::vector<std::uint32_t>{4, 9, 10, 12});
  const AuditChange& script = (*audit.value)[1];
  CHECK(script.after == "    echo  $");
  CHECK(script.blanked == std::vector<std::string>{"HOME"});
  CHECK((*audit.value)[2].after == "    echo fallback");
  CHECK((*audit.value)[3].after == "    log_format main '$remote_addr ';");
  const std::string report = FormatAudit("t.yaml", *audit.value, "Flux's postBuild substitution");
  CHECK(report.find("+++ t.yaml (after Flux's postBuild substitution)") != std::string::npos);
  CHECK(report.find("# Flux writes $$( as $(, which Kubernetes then expands") != std::string::npos);
  // `$$name` in a script is Flux's escape for `$name`: not reported.
  Result<std::vector<AuditChange>> escaped = AuditFlux(TemplateSource{"t.yaml", "a: |\n  echo $$HOME $${X}\n"}, given);
  REQUIRE(escaped.ok());
  CHECK(escaped.value->empty());
  // Flux reads on inside an escape: the script's ${HOME} there is blanked.
  Result<std::vector<AuditChange>> inside =
      AuditFlux(TemplateSource{"t.yaml", "a: |\n  #!/bin/sh\n  echo $${X:=${HOME}}\n"}, given);
  REQUIRE(inside.ok());
  REQUIRE(inside.value->size() == 1);
  CHECK((*inside.value)[0].after == "  echo ${X:=}");
  CHECK((*inside.value)[0].blanked == std::vector<std::string>{"HOME"});

  // A form Flux's engine fails on is reported wherever it stands.
  Result<std::vector<AuditChange>> failing = AuditFlux(TemplateSource{"t.yaml", "a: ${X-d}\n"}, given);
  REQUIRE(failing.ok());
  REQUIRE(failing.value->size() == 1);
  CHECK((*failing.value)[0].notes[0].find("Flux cannot read ${X-d}") != std::string::npos);
}
