// SPDX-License-Identifier: Apache-2.0
// `render --diff` shows no sensitive value in any form it was written in
// (attacker A11: quoted, escaped, shell-quoted, `$$(` for kubelet,
// re-indented, split over lines), nor in the file as it was before.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "safesubst/manifest.h"
#include "safesubst/render.h"
#include "safesubst/values.h"
#include "test_support.h"

namespace safesubst {
namespace {

namespace t = testing;

constexpr const char* kManifest = "variables:\n  P: {type: string, sensitive: true}\n  APP: {type: string}\n";

// Every way a value is written: YAML double, single, plain, literal with
// deeper indentation, folded; shell single and double quotes (and kubelet's
// `$$(`) in a `sh -c` script, an env value, a sed program in exec form.
constexpr const char* kTemplate = R"(kind: ConfigMap
metadata:
  name: ${APP}
data:
  double: "user ${P} end"
  single: 'user ${P} end'
  plain: user ${P} end
  literal: |
    first
      indented ${P} here
  folded: >-
    some ${P}
---
kind: Pod
metadata:
  name: ${APP}
spec:
  containers:
  - name: a
    command: [sh, -c]
    args:
    - |
      echo '${P}' "${P}" ${APP}
    env:
    - {name: K, value: "${P}"}
  - name: b
    command: [sed, -e, "s/x/${P}/", /etc/hosts]
)";

// The texts the render wrote for P, and each of their lines without indentation.
std::vector<std::string> WrittenForms(const std::string& value) {
  const Result<Manifest> manifest = ParseManifest(kManifest, "m.yaml");
  REQUIRE(manifest.value);
  const Result<ValueSet> values = CollectValues(*manifest.value, ValueInputs{{}, {}, {"P=" + value, "APP=web"}});
  REQUIRE(values.value);
  RenderOptions options;
  options.report_sensitive_spans = true;
  const RenderResult rendered = Render(kTemplate, *manifest.value, *values.value, options);
  REQUIRE(rendered.ok());
  std::vector<std::string> forms;
  for (const auto& [begin, end] : rendered.sensitive_spans) {
    const std::string written = rendered.output.substr(begin, end - begin);
    forms.push_back(written);
    for (std::size_t start = 0; start <= written.size();) {
      std::size_t stop = std::min(written.find('\n', start), written.size());
      const std::string line = written.substr(start, stop - start);
      const std::size_t text = line.find_first_not_of(' ');
      if (text != std::string::npos) forms.push_back(line.substr(text));
      start = stop + 1;
    }
  }
  return forms;
}

// Whether `diff` shows any of `forms` (4 bytes or longer: shorter ones are words of the template).
void CheckShowsNone(const std::string& diff, const std::vector<std::string>& forms) {
  for (const std::string& form : forms) {
    CAPTURE(form);
    if (form.size() >= 4) CHECK(diff.find(form) == std::string::npos);
  }
}

TEST_CASE("render --diff masks a sensitive value in every form it was written in, old and new") {
  t::TempDir dir;
  t::WriteFile(dir / "m.yaml", kManifest);
  t::WriteFile(dir / "t.yaml", kTemplate);
  auto render = [&](const std::string& value, const std::string& arguments) {
    return t::RunShell("cd " + t::ShellQuote(dir.path().string()) + " && " + t::Safesubst() +
                       " render -m m.yaml --set " + t::ShellQuote("P=" + value) + " " + arguments + " t.yaml");
  };
  const std::string old_value = "0ld\"s3cret\\v$(x)";
  const std::vector<std::string> old_forms = WrittenForms(old_value);
  for (const std::string value : {"pa\"ss\\word$(id)", "it's \"q\" \\\nnext line$(", "a/b&c\\d'$$(x)`y`"}) {
    CAPTURE(value);
    const std::vector<std::string> forms = WrittenForms(value);
    // The forms differ from the value as given: a search for it alone would miss them.
    CHECK(std::count(forms.begin(), forms.end(), value) < static_cast<long>(forms.size()));
    std::filesystem::remove(dir / "out.yaml");
    const t::CommandResult created = render(value, "--set APP=web --diff -o out.yaml");
    CHECK(created.code == 1);
    CHECK(created.out.find("+  name: web\n") != std::string::npos);
    CHECK(created.out.find("+      echo '***") != std::string::npos);
    CheckShowsNone(created.out, forms);
    CheckShowsNone(created.out, {value});

    // The file holds an older secret: neither shows, the other change does.
    REQUIRE(render(old_value, "--set APP=web -o out.yaml").code == 0);
    const t::CommandResult changed = render(value, "--set APP=web2 --diff -o out.yaml");
    CHECK(changed.code == 1);
    CHECK(changed.out.find("-  name: web\n+  name: web2\n") != std::string::npos);
    CheckShowsNone(changed.out, forms);
    CheckShowsNone(changed.out, old_forms);
    CheckShowsNone(changed.out, {value, old_value});
  }
}

TEST_CASE("render --diff masks sensitive values moved by the steps, and in type yaml values") {
  t::TempDir dir;
  t::WriteFile(dir / "m.yaml",
            "variables:\n  P: {type: string, sensitive: true}\n  CFG: {type: yaml, sensitive: true}\n"
            "steps:\n  - merge: frag.yaml\n    into: .spec.containers[0]\n");
  t::WriteFile(dir / "frag.yaml", "env:\n- {name: F, value: \"frag ${P}\"}\n");
  t::WriteFile(dir / "t.yaml",
            "kind: Pod\nspec:\n  res: ${CFG}\n  containers:\n  - name: a\n    args: [\"p=${P}\"]\n");
  const t::CommandResult diff = t::RunShell("cd " + t::ShellQuote(dir.path().string()) + " && " + t::Safesubst() +
                                      " render -m m.yaml --set 'P=hunter2\"x' --set 'CFG={k: \"s3cr\\\"et\"}' "
                                      "--diff -o out.yaml t.yaml");
  CHECK(diff.code == 1);
  CHECK(diff.out.find("+    - {name: F, value: \"frag ***\"}") != std::string::npos);
  for (const std::string shown : {"hunter2", "s3cr"}) CHECK(diff.out.find(shown) == std::string::npos);
}

}  // namespace
}  // namespace safesubst
