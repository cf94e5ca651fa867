// SPDX-License-Identifier: Apache-2.0
#include "rendered_fragments.h"

#include <doctest/doctest.h>

#include <string>

#include "safesubst/manifest.h"
#include "safesubst/render.h"
#include "safesubst/values.h"
#include "test_support.h"

namespace safesubst {
namespace {

using detail::FragmentRenderKey;

Value Given(std::string text, std::string origin = "--set") {
  return Value{std::move(text), ValueSource::kCommandLine, Location{std::move(origin)}};
}

TEST_CASE("rendered fragments: the key holds the fragment's bytes and the values it names, only those") {
  const std::string text = "zone: ${ZONE}\n";
  ValueSet values;
  values.Set("APP", Given("one"));
  values.Set("ZONE", Given("31"));
  const std::string key = FragmentRenderKey("z.yaml", text, ".spec", values);

  ValueSet other_app = values;
  other_app.Set("APP", Given("two"));
  CHECK(FragmentRenderKey("z.yaml", text, ".spec", other_app) == key);

  ValueSet other_zone = values;
  other_zone.Set("ZONE", Given("32"));
  CHECK(FragmentRenderKey("z.yaml", text, ".spec", other_zone) != key);
  ValueSet other_origin = values;
  other_origin.Set("ZONE", Given("31", "dev.env"));
  CHECK(FragmentRenderKey("z.yaml", text, ".spec", other_origin) != key);
  ValueSet no_zone = values;
  no_zone.Erase("ZONE");
  CHECK(FragmentRenderKey("z.yaml", text, ".spec", no_zone) != key);

  CHECK(FragmentRenderKey("z.yaml", "zone: ${ZONE} \n", ".spec", values) != key);
  CHECK(FragmentRenderKey("z.yaml", text, ".spec.x", values) != key);
  CHECK(FragmentRenderKey("y.yaml", text, ".spec", values) != key);
  // The fields are length-prefixed: no two splits of the same bytes meet.
  CHECK(FragmentRenderKey("a", "b", "c", {}) != FragmentRenderKey("a", "", "bc", {}));
}

TEST_CASE("rendered fragments: a batch renders a fragment once per values it names, with the same output") {
  testing::TempDir dir;
  testing::WriteFile(dir / "zone.yaml", "zone: ${ZONE}\n");
  testing::WriteFile(dir / "app.yaml", "app: ${APP}\n");
  testing::WriteFile(dir / "m.yaml",
                     "variables:\n  APP: string\n  ZONE: string\nsteps:\n"
                     "  - merge: zone.yaml\n    into: .spec\n"
                     "  - merge: app.yaml\n    into: .spec\n");
  Result<Manifest> loaded = LoadManifestFile((dir / "m.yaml").string());
  REQUIRE(loaded.ok());
  const Manifest& manifest = *loaded.value;
  REQUIRE(manifest.steps.size() == 2);
  const std::string template_text = "spec:\n  replicas: 1\n";
  auto values_for = [](const std::string& app) {
    ValueSet values;
    values.Set("APP", Given(app));
    values.Set("ZONE", Given("31"));
    return values;
  };
  auto key = [&](const ValueSet& values, std::size_t step, const std::string& text) {
    return FragmentRenderKey(manifest.steps[step].fragment_file, text, manifest.steps[step].path, values);
  };
  const ValueSet one = values_for("one"), two = values_for("two");
  // Outside a batch nothing is remembered.
  const RenderResult one_alone = Render(template_text, manifest, one, {});
  const RenderResult two_alone = Render(template_text, manifest, two, {});
  REQUIRE(one_alone.ok());
  REQUIRE(two_alone.ok());
  CHECK(one_alone.output == "spec:\n  replicas: 1\n  zone: \"31\"\n  app: one\n");
  CHECK(two_alone.output == "spec:\n  replicas: 1\n  zone: \"31\"\n  app: two\n");
  CHECK(detail::FindRenderedFragment(key(one, 0, "zone: ${ZONE}\n")) == nullptr);
  {
    detail::RememberRenderedFragments batch;
    CHECK(Render(template_text, manifest, one, {}).output == one_alone.output);
    const detail::RenderedFragment* zone = detail::FindRenderedFragment(key(one, 0, "zone: ${ZONE}\n"));
    REQUIRE(zone != nullptr);
    CHECK(zone->output == "zone: \"31\"\n");
    CHECK(detail::FindRenderedFragment(key(two, 0, "zone: ${ZONE}\n")) == zone);  // APP is not in it
    CHECK(detail::FindRenderedFragment(key(two, 1, "app: ${APP}\n")) == nullptr);
    // The fragment that names APP is rendered again for the other app.
    CHECK(Render(template_text, manifest, two, {}).output == two_alone.output);
    CHECK(detail::FindRenderedFragment(key(two, 1, "app: ${APP}\n"))->output == "app: two\n");
    CHECK(detail::FindRenderedFragment(key(one, 1, "app: ${APP}\n"))->output == "app: one\n");
  }
  // The batch forgot them when it ended.
  CHECK(detail::FindRenderedFragment(key(one, 0, "zone: ${ZONE}\n")) == nullptr);
}

}  // namespace
}  // namespace safesubst
