// SPDX-License-Identifier: Apache-2.0
#include "base64.h"

#include <doctest/doctest.h>

#include <string>

namespace safesubst {

TEST_CASE("base64: standard padded base64 decodes as Go's decoder reads a Secret's data") {
  std::string out;
  CHECK(DecodeBase64("JCh0b3VjaCBQV04p", &out));
  CHECK(out == "$(touch PWN)");
  CHECK(DecodeBase64("aGVsbG8=", &out));
  CHECK(out == "hello");
  CHECK(DecodeBase64("aGk=\n", &out));
  CHECK(out == "hi");
  CHECK(DecodeBase64("", &out));
  CHECK(out.empty());
  for (const char* bad : {"aGVsbG8", "aGk", "a", "aGk==", "aG=k", "aGk*", "aGVsbG8==", "v1.2.3"}) {
    CAPTURE(bad);
    CHECK_FALSE(DecodeBase64(bad, &out));
  }
}

}  // namespace safesubst
