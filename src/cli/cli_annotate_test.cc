// SPDX-License-Identifier: Apache-2.0
// `explain --annotate` and `explain --format html`: the template with each
// reference marked by its fate, in a terminal and as a self-contained page
// that headless Chromium draws with the marks.
#include <doctest/doctest.h>

#include <array>
#include <cstdint>
#include <filesystem>
#include <string>

#include "png_reader.h"
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

bool Has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// One reference of each fate.
struct Project {
  TempDir dir;
  Project() {
    WriteFile(dir / "m.yaml",
              "variables:\n  APP: {type: string}\n  PW: {type: string, sensitive: true}\n  MISSING: {type: string}\n"
              "runtime: [NODE_IP]\n");
    WriteFile(dir / "t.yaml",
              "# a comment: ${APP}\n"
              "name: \"${APP} <b>&\"\n"
              "pw: \"${PW}\"\n"
              "lit: \"$${APP}\"\n"
              "bad: \"${MISSING}\"\n"
              "run: |\n  echo \"$NODE_IP\"\n");
  }
  CommandResult Explain(const std::string& arguments, const std::string& environment = "NO_COLOR=1") const {
    return RunShell("cd " + ShellQuote(dir.path().string()) + " && " + environment + " " + Safesubst() +
                    " explain -m m.yaml --set APP=web --set PW=hunter2 " + arguments + " t.yaml");
  }
};

TEST_CASE("explain --annotate: the template with every reference's fate, without colour when not a terminal") {
  Project project;
  const CommandResult run = project.Explain("--annotate");
  CHECK(run.code == 0);
  CHECK(run.out ==
        "# a comment: ${APP}[ignored]\n"
        "name: \"${APP}[=web] <b>&\"\n"
        "pw: \"${PW}[=***]\"\n"
        "lit: \"$${APP}[escaped]\"\n"
        "bad: \"${MISSING}[ERROR]\"\n"
        "run: |\n  echo \"$NODE_IP[runtime]\"\n");
  CHECK_FALSE(Has(run.out + run.err, "hunter2"));
  // Colour when asked for (or in a terminal without NO_COLOR): the fate's colour, underlined.
  const CommandResult coloured = project.Explain("--annotate --color always", "");
  CHECK(Has(coloured.out, "\x1b[32;4m${APP}\x1b[0m\x1b[2m[=web]\x1b[0m"));
  CHECK(Has(coloured.out, "\x1b[1;31;4m${MISSING}\x1b[0m"));
  CHECK(Has(coloured.out, "\x1b[36;4m$NODE_IP\x1b[0m"));
  CHECK_FALSE(Has(project.Explain("--annotate --color auto", "NO_COLOR=1").out, "\x1b["));
}

TEST_CASE("explain --format html: a self-contained page, every reference a mark") {
  Project project;
  const CommandResult run = project.Explain("--format html");
  CHECK(run.code == 0);
  const std::string& page = run.out;
  CHECK(page.starts_with("<!DOCTYPE html>"));
  CHECK(Has(page, "<mark class=\"substitute\" title=\"substitute at name\">${APP}<span class=\"value\">web</span></mark>"));
  CHECK(Has(page, "<span class=\"value\">***</span>"));
  CHECK_FALSE(Has(page, "hunter2"));
  CHECK(Has(page, "<mark class=\"runtime\""));
  CHECK(Has(page, "<mark class=\"escape\""));
  CHECK(Has(page, "<mark class=\"error\" title=\"error at bad: variable &#39;MISSING&#39; is declared but has no value"));
  CHECK(Has(page, "<mark class=\"ignored\""));
  CHECK(Has(page, " &lt;b&gt;&amp;"));  // the template's own text is escaped
  // Nothing is fetched: no URL, no src or href, no @import or url(), and a policy that forbids it anyway.
  for (const char* external : {"http:", "https:", "//", "src=", "href=", "@import", "url(", "<script", "<link"}) {
    CAPTURE(external);
    CHECK_FALSE(Has(page, external));
  }
  CHECK(Has(page, "Content-Security-Policy\" content=\"default-src 'none'"));
}

// Rows of the image, in separate runs of consecutive rows, that hold a pixel of `colour`.
int Bands(const testing::Image& image, std::array<std::uint8_t, 3> colour) {
  int bands = 0;
  bool previous = false;
  for (std::uint32_t y = 0; y < image.height; ++y) {
    bool found = false;
    for (std::uint32_t x = 0; x < image.width && !found; ++x) {
      const std::uint8_t* pixel = image.At(x, y);
      found = pixel[0] == colour[0] && pixel[1] == colour[1] && pixel[2] == colour[2];
    }
    if (found && !previous) ++bands;
    previous = found;
  }
  return bands;
}

// The one test that starts a browser (Debian chromium, packaging/debian-test-deps.txt).
TEST_CASE("explain --format html: headless Chromium draws the seed wrapper's page with its marks") {
  REQUIRE_MESSAGE(testing::HaveProgram("chromium"), "chromium is not installed (packaging/debian-test-deps.txt)");
  TempDir dir;
  const std::filesystem::path example = std::filesystem::path(SAFESUBST_SOURCE_DIR) / "examples/inline-wrapper";
  const CommandResult page =
      RunShell(Safesubst() + " explain --format html -m " + ShellQuote((example / "manifest.yaml").string()) +
               " --values " + ShellQuote((example / "dev.env").string()) + " " +
               ShellQuote((example / "deployment.yaml").string()) + " > " + ShellQuote((dir / "page.html").string()));
  REQUIRE(page.code == 0);
  std::filesystem::create_directory(dir / "profile");
  const CommandResult browser = RunShell(
      "chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking "
      "--disable-component-update --disable-sync --hide-scrollbars --force-device-scale-factor=1 "
      "--user-data-dir=" + ShellQuote((dir / "profile").string()) + " --window-size=1400,1200 --screenshot=" +
      ShellQuote((dir / "page.png").string()) + " " + ShellQuote("file://" + (dir / "page.html").string()));
  INFO(browser.err);
  REQUIRE(std::filesystem::exists(dir / "page.png"));
  const std::optional<testing::Image> image = testing::DecodePng(ReadFile(dir / "page.png"));
  REQUIRE(image.has_value());
  CHECK(image->width == 1400);
  // Each fate's colour (cli_annotate.cc) in the legend and on the template's
  // lines that hold such a reference: substituted on lines 4, 19, 20, 21 and
  // 23; runtime on 22, 23 and 25; ignored in the comment of line 24.
  CHECK(Bands(*image, {0xc8, 0xf0, 0xc8}) >= 6);
  CHECK(Bands(*image, {0xcc, 0xe4, 0xff}) >= 4);
  CHECK(Bands(*image, {0xe6, 0xe6, 0xe6}) >= 2);
  CHECK(Bands(*image, {0xff, 0xc2, 0xc2}) == 1);  // errors: the legend only
}

}  // namespace
}  // namespace safesubst
