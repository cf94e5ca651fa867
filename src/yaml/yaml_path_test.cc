// SPDX-License-Identifier: Apache-2.0
#include "yaml_path.h"

#include <doctest/doctest.h>

namespace safesubst::detail {
namespace {

YamlPath MustParse(std::string_view text) {
  YamlPath path;
  PathError error;
  bool ok = ParseYamlPath(text, &path, &error);
  INFO("path: ", text, " error: ", error.message);
  CHECK(ok);
  return path;
}

PathError MustFail(std::string_view text) {
  YamlPath path;
  PathError error;
  CHECK_FALSE(ParseYamlPath(text, &path, &error));
  return error;
}

TEST_CASE("yaml path: the seed paths") {
  YamlPath path = MustParse(".spec.template.spec.containers[0]");
  REQUIRE(path.selectors.size() == 5);
  CHECK(path.selectors[0].key == "spec");
  CHECK(path.selectors[1].key == "template");
  CHECK(path.selectors[3].kind == PathSelector::Kind::kKey);
  CHECK(path.selectors[3].key == "containers");
  CHECK(path.selectors[3].column == 20);
  CHECK(path.selectors[4].kind == PathSelector::Kind::kIndex);
  CHECK(path.selectors[4].index == 0);
  CHECK(path.selectors[4].column == 31);

  path = MustParse(".spec.template.spec.hostAliases");
  REQUIRE(path.selectors.size() == 4);
  CHECK(path.selectors[3].key == "hostAliases");
}

TEST_CASE("yaml path: root, wildcard, match and negative index") {
  CHECK(MustParse(".").selectors.empty());

  YamlPath path = MustParse(".spec.containers[*].env[name=NODE_IP]");
  REQUIRE(path.selectors.size() == 5);
  CHECK(path.selectors[2].kind == PathSelector::Kind::kAll);
  CHECK(path.selectors[3].key == "env");
  CHECK(path.selectors[4].kind == PathSelector::Kind::kMatch);
  CHECK(path.selectors[4].key == "name");
  CHECK(path.selectors[4].value == "NODE_IP");

  path = MustParse("[-1][2]");
  REQUIRE(path.selectors.size() == 2);
  CHECK(path.selectors[0].index == -1);
  CHECK(path.selectors[1].index == 2);
}

TEST_CASE("yaml path: quoted keys and values") {
  YamlPath path = MustParse(".metadata.labels.\"app.kubernetes.io/name\"");
  REQUIRE(path.selectors.size() == 3);
  CHECK(path.selectors[2].key == "app.kubernetes.io/name");

  path = MustParse(".a.'it''s'.\"q\\\"x\"");
  REQUIRE(path.selectors.size() == 3);
  CHECK(path.selectors[1].key == "it's");
  CHECK(path.selectors[2].key == "q\"x");

  path = MustParse(".items[\"a.b\"=\"x]y\"]");
  REQUIRE(path.selectors.size() == 2);
  CHECK(path.selectors[1].key == "a.b");
  CHECK(path.selectors[1].value == "x]y");

  // Plain keys may hold bytes that YAML allows in keys, like `/` and `-`.
  path = MustParse(".data.nginx-site.conf/x");
  REQUIRE(path.selectors.size() == 3);
  CHECK(path.selectors[1].key == "nginx-site");
  CHECK(path.selectors[2].key == "conf/x");
}

TEST_CASE("yaml path: errors carry the column") {
  PathError error = MustFail("");
  CHECK(error.column == 1);
  CHECK(error.message.find("empty") != std::string::npos);

  error = MustFail("spec.template");
  CHECK(error.column == 1);
  CHECK(error.message.find("expected `.key` or `[...]`") != std::string::npos);

  error = MustFail(".spec..template");
  CHECK(error.column == 7);

  error = MustFail(".spec.containers[0");
  CHECK(error.column == 19);
  CHECK(error.message.find("expected `]`") != std::string::npos);

  error = MustFail(".spec.containers[name]");
  CHECK(error.column == 22);
  CHECK(error.message.find("`=`") != std::string::npos);

  error = MustFail(".spec.containers[name=]");
  CHECK(error.column == 23);

  error = MustFail(".a[1x]");
  CHECK(error.column == 5);

  error = MustFail(".a[-]");
  CHECK(error.column == 4);

  error = MustFail(".a.\"open");
  CHECK(error.column == 4);
  CHECK(error.message.find("not closed") != std::string::npos);

  error = MustFail(".a b");
  CHECK(error.column == 3);

  error = MustFail(".a.");
  CHECK(error.column == 4);
  CHECK(error.message.find("end of the path") != std::string::npos);
}

TEST_CASE("yaml path: formatting round-trips") {
  for (std::string_view text : {".spec.template.spec.containers[0]", ".a[*].b[name=app]", "[-1]",
                                ".\"a.b\".c", ".x[\"k.y\"=\"v]\"]", "."}) {
    YamlPath path = MustParse(text);
    CHECK(FormatYamlPath(path.selectors, path.selectors.size()) == text);
  }
  YamlPath path = MustParse(".a.b.c");
  CHECK(FormatYamlPath(path.selectors, 2) == ".a.b");
  CHECK(FormatYamlPath(path.selectors, 0) == ".");
}

}  // namespace
}  // namespace safesubst::detail
