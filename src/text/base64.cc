// SPDX-License-Identifier: Apache-2.0
#include "base64.h"

#include <cstdint>

namespace safesubst {

namespace {

// The six bits a base64 digit stands for, or -1.
int DigitValue(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+') return 62;
  if (c == '/') return 63;
  return -1;
}

}  // namespace

bool DecodeBase64(std::string_view text, std::string* out) {
  out->clear();
  std::uint32_t bits = 0;
  int digits = 0, padding = 0;
  for (char c : text) {
    if (c == '\n' || c == '\r') continue;
    if (c == '=') {
      ++padding;
      continue;
    }
    const int value = DigitValue(c);
    if (value < 0 || padding > 0) return false;  // a digit after padding
    bits = (bits << 6) | static_cast<std::uint32_t>(value);
    if (++digits % 4 == 0) {
      out->push_back(static_cast<char>((bits >> 16) & 0xff));
      out->push_back(static_cast<char>((bits >> 8) & 0xff));
      out->push_back(static_cast<char>(bits & 0xff));
      bits = 0;
    }
  }
  const int left = digits % 4;
  if (left == 1 || (left == 0 && padding != 0) || (left != 0 && padding != 4 - left)) return false;
  if (left == 2) out->push_back(static_cast<char>((bits >> 4) & 0xff));
  if (left == 3) {
    out->push_back(static_cast<char>((bits >> 10) & 0xff));
    out->push_back(static_cast<char>((bits >> 2) & 0xff));
  }
  return true;
}

}  // namespace safesubst
