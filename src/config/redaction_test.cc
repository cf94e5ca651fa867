// SPDX-License-Identifier: Apache-2.0
#include "redaction.h"

#include <doctest/doctest.h>

#include <string>

namespace safesubst {
namespace {

TEST_CASE("Redactor: a secret is masked whole, by its lines and by its YAML keys and scalars") {
  Redactor redactor;
  redactor.AddSecret("user: Kq7Zp\npass: Wm4Xr-long\nport: 5432\nshort: ab\nenabled: true\nn: 7\n");
  CHECK(redactor.Mask("the key 'Kq7Zp' twice") == "the key '***' twice");
  CHECK(redactor.Mask("  pass: Wm4Xr-long  # line 2") == "  ***  # line 2");
  CHECK(redactor.Mask("key 'user'") == "key '***'");
  CHECK(redactor.Mask("number 5432") == "number ***");
  CHECK(redactor.Mask("key port") == "key ***");
  // Short pieces only as whole words; booleans and short numbers are no pieces.
  CHECK(redactor.Mask("ab cab ab.") == "*** cab ***.");
  CHECK(redactor.Mask("must be true or false, line 7") == "must be true or false, line 7");
  CHECK(redactor.empty() == false);
  CHECK(Redactor().Mask("Kq7Zp") == "Kq7Zp");
}

TEST_CASE("Redactor: a plain secret that is not YAML is still masked whole and by lines") {
  Redactor redactor;
  redactor.AddSecret("{Kq7Zp: [Wm4Xr, 'Vb9Ln\nsecond line here");
  CHECK(redactor.Mask("x {Kq7Zp: [Wm4Xr, 'Vb9Ln y") == "x *** y");
  CHECK(redactor.Mask("  second line here") == "  ***");
}

TEST_CASE("Redactor: a diagnostic's message, hint and source line are masked, the caret moved with them") {
  Redactor redactor;
  redactor.AddSecret("Kq7ZpSecret");
  const SourceText source("a: 1\npw: Kq7ZpSecret # x\n");
  const Diagnostic diagnostic = MakeError(Location{"t.yaml", 2, 19, 0}, "bad Kq7ZpSecret", "not Kq7ZpSecret");
  CHECK(FormatDiagnostic(diagnostic, source, false, redactor) ==
        "t.yaml:2:19: error: bad ***\n"
        "  pw: *** # x\n"
        "            ^\n"
        "  hint: not ***\n");
  // A caret inside the secret points at its mask.
  const Diagnostic inside = MakeError(Location{"t.yaml", 2, 8, 0}, "here");
  CHECK(FormatDiagnostic(inside, source, false, redactor) == "t.yaml:2:8: error: here\n  pw: *** # x\n      ^\n");
  redactor.HideFile("t.yaml");
  CHECK(FormatDiagnostic(inside, source, false, redactor) == "t.yaml:2:8: error: here\n");
}

TEST_CASE("Redactor: a manifest's sensitive defaults are masked by their bytes, also escaped and invalid") {
  const std::string manifest =
      "variables:\n"
      "  PW: {sensitive: true, default: \"Kq\\x37Zp\", bogus: 1}\n"
      "  CERT:\n"
      "    type: yaml\n"
      "    sensitive: yes\n"
      "    default:\n"
      "      Wm4Xr: 1\n"
      "      Wm4Xr: 2\n"
      "    description: a certificate\n"
      "  OPEN: {default: Vb9Ln}\n"
      "  CLOSED: {sensitive: false, default: Jt3Hs}\n";
  Redactor redactor;
  redactor.AddManifest(manifest, "m.yaml");
  const SourceText source(manifest);
  CHECK(redactor.Line("m.yaml", source, 2, 0).text == "  PW: {sensitive: true, default: ***, bogus: 1}");
  CHECK(redactor.Line("m.yaml", source, 7, 0).text == "      ***");
  CHECK(redactor.Line("m.yaml", source, 8, 0).text == "      ***");
  CHECK(redactor.Line("m.yaml", source, 9, 0).text == "    description: a certificate");
  CHECK(redactor.Line("m.yaml", source, 10, 0).text == "  OPEN: {default: Vb9Ln}");
  CHECK(redactor.Line("m.yaml", source, 11, 0).text == "  CLOSED: {sensitive: false, default: Jt3Hs}");
  CHECK(redactor.Mask("the default of 'CERT' has the key 'Wm4Xr' twice") ==
        "the default of 'CERT' has the key '***' twice");
  CHECK(redactor.Line("other.yaml", source, 2, 0).text == "  PW: {sensitive: true, default: \"Kq\\x37Zp\", bogus: 1}");

  Redactor unparsed;
  unparsed.AddManifest("variables:\n  PW: {sensitive: true, default: [Kq7Zp\n", "m.yaml");
  CHECK(unparsed.Line("m.yaml", SourceText("a\nb\n"), 2, 1).text.empty());
}

TEST_CASE("Redactor: a values file's sensitive entries are masked, however they are refused") {
  Result<Manifest> manifest = ParseManifest("variables:\n  CERT: {type: yaml, sensitive: true}\n  APP: string\n", "m");
  REQUIRE(manifest.ok());
  Redactor redactor;
  redactor.AddValuesFile("CERT:\n  Kq7Zp: 1\n  Kq7Zp: 2\nAPP: Wm4Xr\n", *manifest.value);
  CHECK(redactor.Mask("the value of 'CERT' has the key 'Kq7Zp' twice") == "the value of 'CERT' has the key '***' twice");
  CHECK(redactor.Mask("APP is Wm4Xr") == "APP is Wm4Xr");
}

TEST_CASE("Redactor::MaskFragments: any word of a rendered text that is part of a secret") {
  Redactor redactor;
  redactor.AddSecret("Vb9Ln ${LEFT} __SENTINEL__");
  CHECK(redactor.MaskFragments("${LEFT} in a data field") == "*** in a data field");
  CHECK(redactor.MaskFragments("'__SENTINEL__' was left, see ${OTHER}") == "'***' was left, see ${OTHER}");
  CHECK(redactor.MaskFragments("(${LEFT}).") == "(***).");
}

}  // namespace
}  // namespace safesubst
