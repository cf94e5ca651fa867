// SPDX-License-Identifier: Apache-2.0
// Helpers shared by the libFuzzer targets (fuzz/*_fuzz.cc) and the replay of
// what they found (tests/integration/fuzz_regression_test.cc).
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

namespace safesubst::fuzz {

/// The separator between the two parts of a two-part input (values and
/// template, script and value). A readable line, so that seeds and
/// reproducers stay plain text files.
inline constexpr std::string_view kPartSeparator = "\n%%\n";

struct Parts {
  std::string_view first;
  std::string_view second;
  bool found = false;  ///< false: there was no separator and `first` is the whole input
};

/// Splits `input` at its first kPartSeparator.
inline Parts SplitParts(std::string_view input) {
  std::size_t at = input.find(kPartSeparator);
  if (at == std::string_view::npos) return Parts{input, {}, false};
  return Parts{input.substr(0, at), input.substr(at + kPartSeparator.size()), true};
}

inline std::string_view AsText(const std::uint8_t* data, std::size_t size) {
  return size == 0 ? std::string_view() : std::string_view(reinterpret_cast<const char*>(data), size);
}

/// What happens when a property of an entry point does not hold. Under
/// libFuzzer it aborts, so that the input is saved as a crash; the regression
/// test replaces it with a failed check.
using PropertyHandler = void (*)(const char* what, const char* file, int line);

inline void AbortOnProperty(const char* what, const char* file, int line) {
  std::fprintf(stderr, "%s:%d: fuzz property failed: %s\n", file, line, what);
  std::abort();
}

inline PropertyHandler property_handler = &AbortOnProperty;

}  // namespace safesubst::fuzz

#define SAFESUBST_FUZZ_CHECK(condition) \
  ((condition) ? (void)0 : ::safesubst::fuzz::property_handler(#condition, __FILE__, __LINE__))
