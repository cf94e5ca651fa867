// SPDX-License-Identifier: Apache-2.0
// A minimal PNG reader for tests that look at screenshots: 8-bit RGB or
// RGBA, not interlaced (what headless Chromium writes), through zlib.
#pragma once

#include <zlib.h>

#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

namespace safesubst::testing {

struct Image {
  std::uint32_t width = 0, height = 0;
  std::vector<std::uint8_t> rgb;  ///< 3 bytes per pixel, row after row
  const std::uint8_t* At(std::uint32_t x, std::uint32_t y) const { return &rgb[(std::size_t{y} * width + x) * 3]; }
};

namespace detail {

inline std::uint32_t BigEndian32(const std::string& bytes, std::size_t at) {
  return (std::uint32_t{static_cast<std::uint8_t>(bytes[at])} << 24) |
         (std::uint32_t{static_cast<std::uint8_t>(bytes[at + 1])} << 16) |
         (std::uint32_t{static_cast<std::uint8_t>(bytes[at + 2])} << 8) | static_cast<std::uint8_t>(bytes[at + 3]);
}

inline int Paeth(int a, int b, int c) {
  const int p = a + b - c, pa = std::abs(p - a), pb = std::abs(p - b), pc = std::abs(p - c);
  return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

}  // namespace detail

/// The image in `png` (a file's bytes), or nullopt for anything else.
inline std::optional<Image> DecodePng(const std::string& png) {
  if (png.size() < 8 || png.compare(0, 8, "\x89PNG\r\n\x1a\n") != 0) return std::nullopt;
  Image image;
  int channels = 0;
  std::string compressed;
  for (std::size_t at = 8; at + 12 <= png.size();) {
    const std::uint32_t length = detail::BigEndian32(png, at);
    const std::string type = png.substr(at + 4, 4);
    if (at + 12 + length > png.size()) return std::nullopt;
    if (type == "IHDR") {
      image.width = detail::BigEndian32(png, at + 8);
      image.height = detail::BigEndian32(png, at + 12);
      const int depth = png[at + 16], colour = png[at + 17], interlace = png[at + 20];
      if (depth != 8 || interlace != 0 || (colour != 2 && colour != 6)) return std::nullopt;
      channels = colour == 6 ? 4 : 3;
    } else if (type == "IDAT") {
      compressed += png.substr(at + 8, length);
    }
    at += 12 + length;
  }
  if (channels == 0) return std::nullopt;
  const std::size_t stride = std::size_t{image.width} * channels;
  std::vector<std::uint8_t> raw((stride + 1) * image.height);
  uLongf raw_size = raw.size();
  if (uncompress(raw.data(), &raw_size, reinterpret_cast<const Bytef*>(compressed.data()), compressed.size()) != Z_OK ||
      raw_size != raw.size()) {
    return std::nullopt;
  }
  // Undo each row's filter (PNG spec, section 9) in place.
  std::vector<std::uint8_t> previous(stride, 0), row(stride);
  image.rgb.reserve(std::size_t{image.width} * image.height * 3);
  for (std::uint32_t y = 0; y < image.height; ++y) {
    const std::uint8_t filter = raw[y * (stride + 1)];
    const std::uint8_t* line = &raw[y * (stride + 1) + 1];
    for (std::size_t i = 0; i < stride; ++i) {
      const int a = i >= static_cast<std::size_t>(channels) ? row[i - channels] : 0, b = previous[i],
                c = i >= static_cast<std::size_t>(channels) ? previous[i - channels] : 0;
      const int predictor = filter == 1 ? a : filter == 2 ? b : filter == 3 ? (a + b) / 2 : filter == 4 ? detail::Paeth(a, b, c) : 0;
      row[i] = static_cast<std::uint8_t>(line[i] + predictor);
    }
    for (std::uint32_t x = 0; x < image.width; ++x) {
      image.rgb.insert(image.rgb.end(), &row[std::size_t{x} * channels], &row[std::size_t{x} * channels] + 3);
    }
    previous = row;
  }
  return image;
}

}  // namespace safesubst::testing
