// SPDX-License-Identifier: Apache-2.0
#include "input_limits.h"

#include <doctest/doctest.h>

#include <random>
#include <string>
#include <vector>

#include "safesubst/render.h"

using namespace safesubst;

namespace {

std::string FlowNested(std::uint32_t depth) { return "a: " + std::string(depth - 1, '[') + std::string(depth - 1, ']') + "\n"; }

std::string BlockNested(std::uint32_t depth) {
  std::string text;
  for (std::uint32_t level = 0; level < depth; ++level) text += std::string(level, ' ') + "k:\n";
  return text;
}

Manifest OneVariable(VarType type = VarType::kString) {
  Manifest manifest;
  Variable variable;
  variable.name = "V";
  variable.type = type;
  manifest.variables.push_back(variable);
  return manifest;
}

RenderResult RenderWith(const std::string& text, const Limits& limits, const std::string& value = "x") {
  ValueSet values;
  values.Set("V", Value{value, ValueSource::kCommandLine, {}});
  RenderOptions options;
  options.file_name = "t.yaml";
  options.limits = limits;
  return Render(text, OneVariable(), values, options);
}

bool MentionsLimit(const RenderResult& result, const std::string& option) {
  for (const Diagnostic& diagnostic : result.diagnostics) {
    if (diagnostic.hint.find(option) != std::string::npos) return true;
  }
  return false;
}

}  // namespace

TEST_CASE("limits: nesting depth counts flow brackets and block levels") {
  CHECK(NestingDepth("a: b\n", nullptr) == 1);
  CHECK(NestingDepth(FlowNested(10), nullptr) == 10);
  CHECK(NestingDepth(BlockNested(10), nullptr) == 10);
  // The tokenizer's reading (node spans): each collection is one level.
  CHECK(NestingDepth("- - - x\n", nullptr) == 3);
  CHECK(NestingDepth("a:\n  - b: [c, {d: e}]\n", nullptr) == 5);
  CHECK(NestingDepth("a:\n- x\n", nullptr) == 2);
  // Brackets inside quotes, comments and block scalars are text, not structure.
  CHECK(NestingDepth("a: \"[[[[\"\nb: '{{{{'\n# [[[[\nc: |\n  [[[[\n  {{{{\n", nullptr) == 1);
  CHECK(NestingDepth("a: x[0]\n", nullptr) == 1);
  // A marker line ends what a malformed document left open.
  CHECK(NestingDepth("a: [[[\n---\nb: [[[\n", nullptr) == NestingDepth("a: [[[\n", nullptr));
  CHECK(NestingDepth("a: \"[[[\n...\nb: [[[\n", nullptr) == NestingDepth("b: [[[\n", nullptr));
}

TEST_CASE("limits: aliases are counted outside quotes and comments") {
  CHECK(CountAliases("a: &x 1\nb: [*x, *x]\nc: *x\n# *x\nd: '*x'\ne: 2*3\n") == 3);
  CHECK(CountAliases("a: &x 1\nb: {\"k\":*x}\nc: |\n  *x\nverbs: [\"*\"]\n") == 1);
}

// CheckInputLimits skips the scan when a cheap bound shows both limits out of
// reach: that shortcut must never hide a depth or an alias count the scan finds.
TEST_CASE("limits: the shortcut agrees with the full scan") {
  const std::string alphabet = " - ?[{}]*\n:a'\"#|$&!";
  std::mt19937 random(11);
  // Texts whose depth meets the bound (one level per byte), then random ones.
  std::vector<std::string> texts = {"-", "- -", "- - -\n", "[", "[[", "{[", "? -", "-\n -\n  -"};
  // A line that starts inside a quote or a bracket keeps the block levels of
  // the lines before it and adds its own `- ` levels (found by review).
  for (const char* opener : {"\"q", "[q"}) {
    std::string stacked;
    for (int indent = 0; indent < 17; ++indent) stacked += std::string(indent, ' ') + "a\n";
    stacked += std::string(17, ' ') + opener + "\n" + (opener[0] == '"' ? "q\"" : "q]") + " - - - - - - - -\n";
    texts.push_back(stacked);
  }
  // Each document starts from zero (a marker line ends open quotes and brackets).
  for (const char* text : {"[[[\n---\n[[[\n", "\"q\n--- [[\n", "[[\n...\n{{{\n", "- - -\n--- - -\n", "|\n---\n[[\n"}) {
    texts.push_back(text);
  }
  std::string brackets_per_line;
  for (int line = 0; line < 10; ++line) brackets_per_line += "[\n";
  texts.push_back(brackets_per_line + "---\n" + brackets_per_line);
  for (int round = 0; round < 4000; ++round) {
    std::string text(1 + random() % 60, ' ');
    for (char& c : text) c = alphabet[random() % alphabet.size()];
    // Every other one mostly references and short lines: the depth the bound leaves them.
    if (round % 2 == 1) {
      for (std::size_t i = 0; i < text.size(); ++i) {
        if (random() % 4 != 0) text.replace(i, 1, random() % 3 == 0 ? "\n" : "${");
      }
    }
    texts.push_back(text);
  }
  // Random lines, with marker lines among them.
  const std::vector<std::string> lines = {"---\n", "...\n", "--- [\n", "- [\n", "  - {\n", "\"[\n", "a: [[\n", "]]\n", "|\n", "# [\n",
                                          // A reference's `{` opens a collection in one only, or glued to a property.
                                          "${\n", "- ${A}${\n", "a: &x${\n", "!$${{\n", "*a${\n", "#!x${\n", "a #!x${\n"};
  for (int round = 0; round < 2000; ++round) {
    std::string text;
    // Up to 40 lines: long enough for the shortcut's 32-byte blocks.
    for (int line = 0, count = 1 + static_cast<int>(random() % (round % 2 == 0 ? 12 : 40)); line < count; ++line) {
      text += lines[random() % lines.size()];
    }
    texts.push_back(text);
  }
  for (const std::string& text : texts) {
    const std::uint32_t depth = NestingDepth(text, nullptr), aliases = CountAliases(text);
    std::vector<std::uint32_t> depth_limits = {depth - 1, depth, depth + 1};
    for (std::uint32_t max_depth = 0; max_depth <= 12; ++max_depth) depth_limits.push_back(max_depth);
    for (std::uint32_t max_depth : depth_limits) {
      for (std::uint32_t max_aliases = 0; max_aliases <= 4; max_aliases += 2) {
        Limits limits;
        limits.max_depth = max_depth;
        limits.max_aliases = max_aliases;
        CAPTURE(text);
        CHECK(CheckInputLimits(text, limits, "t.yaml").empty() == (depth <= max_depth && aliases <= max_aliases));
      }
    }
  }
}

// An empty view may have a null data(), which memchr must never see (a
// fuzzer's first input; UBSan reports it).
TEST_CASE("limits: an empty text with a null pointer is within every limit") {
  Limits limits;
  CHECK(CheckInputLimits(std::string_view(), limits, "t.yaml").empty());
  limits.max_aliases = 0;
  limits.max_depth = 0;
  CHECK(CheckInputLimits(std::string_view(), limits, "t.yaml").empty());
}

TEST_CASE("limits: input size just under and just over") {
  std::string text = "a: ${V}\n";
  Limits limits;
  limits.max_input_bytes = text.size();
  CHECK(RenderWith(text, limits).ok());
  limits.max_input_bytes = text.size() - 1;
  RenderResult over = RenderWith(text, limits);
  CHECK_FALSE(over.ok());
  CHECK(MentionsLimit(over, "--max-input-size"));
}

TEST_CASE("limits: nesting depth just under and just over, before yaml-cpp parses") {
  Limits limits;  // default 256
  CHECK(RenderWith(FlowNested(256) + "v: ${V}\n", limits).ok());
  RenderResult flow_over = RenderWith(FlowNested(257) + "v: ${V}\n", limits);
  CHECK_FALSE(flow_over.ok());
  CHECK(MentionsLimit(flow_over, "--max-depth"));
  CHECK(flow_over.diagnostics[0].location.line == 1);
  limits.max_depth = 20;
  CHECK(RenderWith(BlockNested(20), limits).ok());
  CHECK(MentionsLimit(RenderWith(BlockNested(21), limits), "--max-depth"));
  // Far beyond what yaml-cpp's recursion survives: refused, not a crash.
  CHECK(MentionsLimit(RenderWith(FlowNested(200000), Limits{}), "--max-depth"));
}

TEST_CASE("limits: alias count just under and just over") {
  Limits limits;
  limits.max_aliases = 3;
  CHECK(RenderWith("a: &x ${V}\nb: [*x, *x, *x]\n", limits).ok());
  CHECK(MentionsLimit(RenderWith("a: &x ${V}\nb: [*x, *x, *x, *x]\n", limits), "--max-aliases"));
}

TEST_CASE("limits: value size just under and just over") {
  Limits limits;
  limits.max_value_bytes = 64;
  CHECK(RenderWith("a: ${V}\n", limits, std::string(64, 'v')).ok());
  RenderResult over = RenderWith("a: ${V}\n", limits, std::string(65, 'v'));
  CHECK_FALSE(over.ok());
  CHECK(MentionsLimit(over, "--max-value-size"));
}

TEST_CASE("limits: number of documents just under and just over") {
  Limits limits;
  limits.max_documents = 3;
  CHECK(RenderWith("a: ${V}\n---\nb: 1\n---\nc: 2\n", limits).ok());
  CHECK(MentionsLimit(RenderWith("a: ${V}\n---\nb: 1\n---\nc: 2\n---\nd: 3\n", limits), "--max-documents"));
}

TEST_CASE("limits: output size just under and just over, refused before encoding, whole or in pieces") {
  Limits limits;
  limits.max_output_bytes = 22;
  CHECK(RenderWith("a: ${V}\nb: ${V}\n", limits, "abcdefg").ok());  // a: abcdefg\nb: abcdefg\n = 22 bytes
  RenderResult over = RenderWith("a: ${V}\nb: ${V}\n", limits, "abcdefgh");
  CHECK_FALSE(over.ok());
  CHECK(over.output.empty());
  REQUIRE(over.diagnostics.size() == 1);
  CHECK(over.diagnostics[0].message == "the output would be at least 24 bytes, over the limit of 22 bytes");
  CHECK(MentionsLimit(over, "--max-output-size"));
  // Encoding adds the quotes: only the exact size, before the output is assembled, tells.
  RenderResult quoted = RenderWith("a: ${V}\nb: ${V}\n", limits, "123: 5");
  CHECK(quoted.diagnostics.at(0).message == "the output would be 24 bytes, over the limit of 22 bytes");

  // 3,000 uses of a 1 MiB value: 3 GB refused from the values' sizes, before any is encoded.
  std::string uses;
  for (int i = 0; i < 3000; ++i) uses += "k" + std::to_string(i) + ": ${V}\n";
  Limits defaults;
  RenderResult huge = RenderWith(uses, defaults, std::string(1 << 20, 'v'));
  CHECK(MentionsLimit(huge, "--max-output-size"));
  CHECK(huge.diagnostics.at(0).message.find("the output would be at least 314") == 0);

  // A stream rendered in pieces (over 1 MiB, many documents): within the limit
  // piece by piece, over it together.
  std::string stream;
  while (stream.size() < (std::size_t{3} << 20)) stream += "a: ${V}\nb: " + std::string(60, 'b') + "\n---\n";
  Limits pieces;
  pieces.max_output_bytes = stream.size();
  ValueSet values;
  values.Set("V", Value{"xyzxyz", ValueSource::kCommandLine, {}});  // each document two bytes longer
  RenderOptions options;
  options.limits = pieces;
  options.threads = 2;
  RenderResult merged = Render(stream, OneVariable(), values, options);
  CHECK_FALSE(merged.ok());
  CHECK(MentionsLimit(merged, "--max-output-size"));
}
