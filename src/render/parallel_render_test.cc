// SPDX-License-Identifier: Apache-2.0
// Tests of rendering a large stream in pieces: where it is cut, and that the
// result (output, diagnostics, reference reports) is the same whatever the
// number of threads and the same as rendering the stream whole.
#include "parallel_render.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "render_detail.h"
#include "safesubst/render.h"

namespace safesubst {
namespace {

// A stream of `documents` Deployments, about 400 bytes each, with
// substitutions in data and in a shell script, a kept undeclared `$HOME`
// (a warning in data), comments and Kubernetes `$(NAME)`.
std::string Stream(int documents) {
  std::string text;
  for (int i = 0; i < documents; ++i) {
    const std::string n = std::to_string(i);
    text += "---\n# document " + n + "\nkind: Deployment\nmetadata:\n  name: app-" + n +
            "-${TENANT}\n  labels: {tier: \"${TIER}\"}\nspec:\n  containers:\n    - name: app\n"
            "      image: repo/app:${TAG}\n      command: [\"/bin/sh\", \"-c\"]\n      args:\n        - |\n"
            "          echo \"${TENANT} $NODE_IP\"  # runtime\n          exec app --id=" + n + "\n"
            "      env:\n        - {name: A, value: \"$(POD_NAME)\"}\n";
    if (i % 1000 == 7) text += "      workingDir: $HOME\n";  // an undeclared bare reference: a warning
  }
  return text;
}

Manifest StreamManifest() {
  Manifest manifest;
  for (const char* name : {"TENANT", "TIER", "TAG"}) {
    Variable variable;
    variable.name = name;
    manifest.variables.push_back(variable);
  }
  manifest.runtime = {"NODE_IP"};
  return manifest;
}

ValueSet StreamValues() {
  ValueSet values;
  auto set = [&](const char* name, const char* text) {
    Value value;
    value.text = text;
    values.Set(name, value);
  };
  set("TENANT", "tenant-a");
  set("TIER", "web \"front\"");
  set("TAG", "1.10");
  return values;
}

std::string Describe(const Diagnostic& diagnostic) {
  return diagnostic.location.file + ":" + std::to_string(diagnostic.location.line) + ":" +
         std::to_string(diagnostic.location.column) + "@" + std::to_string(diagnostic.location.offset) + ": " +
         diagnostic.message;
}

std::vector<std::string> Describe(const Diagnostics& diagnostics) {
  std::vector<std::string> out;
  for (const Diagnostic& diagnostic : diagnostics) out.push_back(Describe(diagnostic));
  return out;
}

std::vector<std::string> Describe(const std::vector<ReferenceReport>& references) {
  std::vector<std::string> out;
  for (const ReferenceReport& r : references) {
    out.push_back(std::to_string(r.line) + ":" + std::to_string(r.column) + " " + r.text + " " + r.path + " " +
                  std::string(ActionName(r.action)) + " " + r.shell_state);
  }
  return out;
}

// The non-empty pieces of `text` cut every `target` bytes, in order.
std::vector<detail::PieceBounds> Pieces(std::string_view text, std::size_t target) {
  std::vector<detail::PieceBounds> pieces;
  for (std::size_t index = 0; index * target < text.size(); ++index) {
    const detail::PieceBounds piece = detail::FindPiece(text, index, target);
    if (piece.begin != piece.end) pieces.push_back(piece);
  }
  return pieces;
}

TEST_CASE("parallel render: small streams, a leading directive and steps are rendered whole") {
  Manifest manifest = StreamManifest();
  RenderOptions options;
  CHECK_FALSE(detail::RendersInPieces(Stream(10), manifest, options));
  std::string large = Stream(4000);
  REQUIRE(large.size() > detail::kChunkingThreshold);
  CHECK(detail::RendersInPieces(large, manifest, options));
  CHECK_FALSE(detail::RendersInPieces("%YAML 1.2\n" + large, manifest, options));
  Manifest with_steps = manifest;
  with_steps.steps.push_back(Step{});
  CHECK_FALSE(detail::RendersInPieces(large, with_steps, options));
  RenderOptions no_steps = options;
  no_steps.run_steps = false;
  CHECK(detail::RendersInPieces(large, with_steps, no_steps));
  RenderOptions small_limit = options;
  small_limit.limits.max_input_bytes = large.size() - 1;  // the whole render reports it
  CHECK_FALSE(detail::RendersInPieces(large, manifest, small_limit));
}

TEST_CASE("parallel render: the pieces' facts add up to the whole stream's") {
  const std::string text = Stream(3000) + "---\nx: *a\n...\n%TAG ! tag:x,2000:\n---\ny: [*b, *c]\n";
  const std::vector<detail::PieceBounds> pieces = Pieces(text, 4096);
  REQUIRE(pieces.size() > 10);
  detail::PieceFacts sum;
  for (const detail::PieceBounds& bounds : pieces) {
    const detail::PieceFacts piece = detail::ReadPieceFacts(text, bounds.begin, bounds.end);
    sum.markers += piece.markers;
    sum.aliases += piece.aliases;
    sum.directive = sum.directive || piece.directive;
  }
  const detail::PieceFacts whole = detail::ReadPieceFacts(text, 0, text.size());
  // Not the stream's first line, nor what follows the directive (it decides alone).
  CHECK(whole.markers == 3000 - 1 + 2);
  CHECK(sum.markers == whole.markers);
  CHECK(whole.aliases == 3);
  CHECK(sum.aliases == whole.aliases);
  CHECK(whole.directive);
  CHECK(sum.directive);
}

// Render with pieces on two threads equals the render of the whole text.
void CheckRenderedAsWhole(const std::string& text, const RenderOptions& limits_from) {
  const Manifest manifest = StreamManifest();
  const ValueSet values = StreamValues();
  RenderOptions options = limits_from;
  options.file_name = "stream.yaml";
  options.threads = 2;
  REQUIRE(detail::RendersInPieces(text, manifest, options));
  const RenderResult pieces = Render(text, manifest, values, options);
  // One piece: the whole text.
  const RenderResult whole = detail::RenderPieces(text, text.size(), 1, options.limits, [&](std::string_view piece) {
    RenderOptions inner = options;
    inner.threads = 1;
    return Render(piece, manifest, values, inner);
  });
  CHECK(pieces.output == whole.output);
  CHECK(Describe(pieces.diagnostics) == Describe(whole.diagnostics));
}

TEST_CASE("parallel render: a directive further on, or too many documents or aliases, render the stream whole") {
  const std::string large = Stream(4000);
  CheckRenderedAsWhole(large + "...\n%TAG !e! tag:example.com,2000:\n---\na: !e!x 1\n", RenderOptions{});
  RenderOptions few_documents;
  few_documents.limits.max_documents = 3999;
  CheckRenderedAsWhole(large, few_documents);
  RenderOptions few_aliases;
  few_aliases.limits.max_aliases = 2;
  // Two aliases at each end: every piece is within the limit, the stream is not.
  const std::string two_aliases = "---\nd: &d 1\ne: [*d, *d]\n";
  CheckRenderedAsWhole(two_aliases + large + two_aliases, few_aliases);
}

// A Secret's entry in the first piece, the Pod whose envFrom makes it `$(MSG)` in the last: the checks
// of carried values (carried_env_values.h) and start-up variables need both at once.
TEST_CASE("parallel render: a stream with an item taking other objects' entries is rendered whole") {
  const std::string secret = "kind: Secret\nmetadata: {name: s}\nstringData:\n  MSG: \"${TENANT}\"\n";
  const std::string pod = "---\nkind: Pod\nspec:\n  containers:\n  - name: a\n    command: [sh, -c, \"echo $(MSG)\"]\n";
  for (const std::string takes : {"    envFrom:\n    - secretRef: {name: s}\n",
                                   "    \"envFr\\x6fm\": [{secretRef: {name: s}}]\n",
                                   "    env: [{name: MSG, valueFrom: {secretKeyRef: {name: s, key: MSG}}}]\n"}) {
    CAPTURE(takes);
    const std::string text = secret + Stream(4000) + pod + takes;
    RenderOptions options;
    options.threads = 2;
    REQUIRE(detail::RendersInPieces(text, StreamManifest(), options));
    const std::vector<detail::PieceBounds> pieces = Pieces(text, detail::kChunkTarget);
    REQUIRE(pieces.size() > 2);
    CHECK(detail::ReadPieceFacts(text, pieces.back().begin, pieces.back().end).other_objects);
    CHECK_FALSE(detail::ReadPieceFacts(text, pieces[1].begin, pieces[1].end).other_objects);
    ValueSet values = StreamValues();
    Value hostile;
    hostile.text = ";touch canary";
    values.Set("TENANT", hostile);
    const RenderResult result = Render(text, StreamManifest(), values, options);
    REQUIRE_FALSE(result.ok());
    auto error = std::find_if(result.diagnostics.begin(), result.diagnostics.end(),
                              [](const Diagnostic& d) { return d.severity == Severity::kError; });
    REQUIRE(error != result.diagnostics.end());
    CHECK(error->location.line == 4);
  }
}

// Pieces that cover `text` in order, each but the first starting at a `---` line.
void CheckCutAtDocumentStarts(const std::string& text, std::size_t target) {
  const std::vector<detail::PieceBounds> pieces = Pieces(text, target);
  REQUIRE_FALSE(pieces.empty());
  CHECK(pieces.front().begin == 0);
  CHECK(pieces.back().end == text.size());
  for (std::size_t i = 1; i < pieces.size(); ++i) {
    CHECK(pieces[i].begin == pieces[i - 1].end);
    CHECK(text[pieces[i].begin - 1] == '\n');
    CHECK(text.compare(pieces[i].begin, 3, "---") == 0);
    CHECK((pieces[i].begin + 3 == text.size() || text[pieces[i].begin + 3] == '\n'));
  }
}

TEST_CASE("parallel render: cuts only at document start lines") {
  std::string text = Stream(4000);
  // Lines that only look like markers: indented, or followed by text.
  text.insert(text.size() / 2, "note: |\n  ---\n  --- x\n---x: 1\n");
  REQUIRE(Pieces(text, 4096).size() > 10);
  CheckCutAtDocumentStarts(text, 4096);
  // Documents longer than a piece: their cells give empty pieces.
  const std::string long_document = "---\nscript: |\n" + std::string(20000, ' ') + "x\n";
  const std::string mixed = Stream(20) + long_document + Stream(20) + long_document + long_document;
  CheckCutAtDocumentStarts(mixed, 1024);
  CHECK(detail::FindPiece(mixed, mixed.size() / 1024, 1024).begin == detail::FindPiece(mixed, mixed.size() / 1024, 1024).end);
  // Every target, down to one byte, and a marker at the very end.
  for (std::size_t target : {1, 3, 64, 400, 100000}) CheckCutAtDocumentStarts(Stream(30) + "---", target);
}

// A copy of `text` for PieceReaders that counts its calls and the ranges
// outside the text it was asked for. Render's worker threads call it at once.
struct CountingCopy {
  explicit CountingCopy(std::string_view copied, std::size_t fail_from = SIZE_MAX)
      : text(copied), fail_from_call(fail_from) {}

  std::string_view text;
  std::size_t fail_from_call;  // calls from this one on fail
  std::atomic<std::size_t> calls{0}, bytes{0}, out_of_range{0};

  detail::CopyText Function() {
    return [this](std::size_t offset, char* into, std::size_t size) {
      if (offset > text.size() || size > text.size() - offset) {
        ++out_of_range;
        return false;
      }
      if (++calls > fail_from_call) return false;
      bytes += size;
      text.copy(into, size, offset);
      return true;
    };
  }
};

// A PieceReader with `copy` finds the pieces FindPiece finds, with the same
// bytes and facts, asked in order and then from the last piece back.
void CheckReaderMatchesFindPiece(const std::string& text, std::size_t target, const detail::CopyText* copy) {
  detail::PieceReader reader(text, copy);
  std::vector<std::size_t> order;
  for (std::size_t index = 0; index * target <= text.size() + target; ++index) order.push_back(index);
  order.insert(order.end(), order.rbegin(), order.rend());
  for (std::size_t index : order) {
    CAPTURE(index);
    const detail::PieceBounds expected = detail::FindPiece(text, index, target);
    const detail::PieceBounds found = reader.Find(index, target);
    REQUIRE(found.begin == expected.begin);
    REQUIRE(found.end == expected.end);
    CHECK(reader.Piece() == std::string_view(text).substr(expected.begin, expected.end - expected.begin));
    if (expected.begin == expected.end) continue;
    const detail::PieceFacts facts = reader.Facts();
    const detail::PieceFacts whole = detail::ReadPieceFacts(text, expected.begin, expected.end);
    CHECK(facts.markers == whole.markers);
    CHECK(facts.aliases == whole.aliases);
    CHECK(facts.directive == whole.directive);
  }
  // A cell past the end, asked right after the first piece (whose copy does not reach the end).
  reader.Find(0, target);
  const detail::PieceBounds past = reader.Find(text.size() / target + 5, target);
  CHECK(past.begin == text.size());
  CHECK(reader.Piece().empty());
  CHECK(reader.Facts().markers == 0);
}

TEST_CASE("parallel render: a reader of copies cuts where FindPiece cuts, reading about the text once") {
  const std::string long_document = "---\nscript: |\n" + std::string(20000, ' ') + "x\n";
  std::string mixed = Stream(20) + long_document + Stream(20) + "---\n*a: %x\n" + long_document;
  // Markers that a copy could end in the middle of: `---` followed by text,
  // and a marker line as the last bytes.
  std::string tricky = Stream(40);
  for (std::size_t at = 1000; at < tricky.size(); at += 997) tricky.insert(tricky.find('\n', at) + 1, "---x: 1\n");
  tricky += "---";
  for (const std::string* text : {&mixed, &tricky}) {
    for (std::size_t target : {1, 3, 7, 64, 400, 1024, 100000}) {
      CAPTURE(target);
      CountingCopy copy(*text);
      const detail::CopyText function = copy.Function();
      CheckReaderMatchesFindPiece(*text, target, &function);
      CHECK(copy.calls.load() > 0);
      CHECK(copy.out_of_range.load() == 0);
      // Each piece and its neighbourhood, twice (both orders), not the text again and again.
      if (target >= 400) CHECK(copy.bytes.load() < 2 * 4 * text->size());
    }
  }
}

TEST_CASE("parallel render: a `---` at the very end of a reader's copy is not taken for a marker before what follows is read") {
  // The first copy for piece 0 ends target + target / 8 + 8 bytes in
  // (PieceReader::FindInCopy): there stands the `---` of a `---x` line,
  // which starts no document.
  for (std::size_t target : {64, 1000}) {
    CAPTURE(target);
    const std::size_t line = target + target / 8 + 5;
    const std::string edge = "---\nk: " + std::string(line - 8, 'a') + "\n---x: 1\n---\nz: 1\n";
    REQUIRE(edge.compare(line, 4, "---x") == 0);
    CountingCopy copy(edge);
    const detail::CopyText function = copy.Function();
    CheckReaderMatchesFindPiece(edge, target, &function);
    CHECK(copy.out_of_range.load() == 0);
  }
}

TEST_CASE("parallel render: a copy that fails falls back to the text itself") {
  const std::string text = Stream(200);
  for (std::size_t fail_from : {0, 1, 5}) {
    CountingCopy copy(text, fail_from);
    const detail::CopyText function = copy.Function();
    CheckReaderMatchesFindPiece(text, 1024, &function);
  }
}

TEST_CASE("parallel render: a render through copies gives the same bytes and messages") {
  // With its $HOME warnings (rendered whole after the first piece that has
  // one), and without.
  std::string warned = Stream(6000);
  std::string clean = warned;
  for (std::size_t at; (at = clean.find("      workingDir: $HOME\n")) != std::string::npos;) clean.erase(at, 24);
  for (const std::string* text : {&warned, &clean}) {
    const Manifest manifest = StreamManifest();
    const ValueSet values = StreamValues();
    RenderOptions options;
    options.file_name = "stream.yaml";
    const RenderResult direct = Render(*text, manifest, values, options);
    CountingCopy copy(*text);
    const detail::CopyText copy_function = copy.Function();
    for (unsigned threads : {1u, 2u, 3u}) {
      options.threads = threads;
      const RenderResult copied = detail::RenderWithCopy(*text, manifest, values, options, &copy_function);
      CHECK(copied.output == direct.output);
      CHECK(Describe(copied.diagnostics) == Describe(direct.diagnostics));
      CHECK(Describe(copied.references) == Describe(direct.references));
    }
    CHECK(copy.calls.load() > 0);
    CHECK(copy.out_of_range.load() == 0);
    if (text == &clean) {
      CHECK(direct.diagnostics.empty());
      CHECK(copy.bytes.load() >= 3 * text->size());  // every piece was read through the copy
    }
  }
}

TEST_CASE("parallel render: same output, diagnostics and reports for any thread count, and as rendered whole") {
  const std::string text = Stream(6000);
  const Manifest manifest = StreamManifest();
  const ValueSet values = StreamValues();
  RenderOptions options;
  options.file_name = "stream.yaml";
  options.threads = 1;
  const RenderResult one = Render(text, manifest, values, options);
  REQUIRE(one.ok());
  CHECK(one.output.find("tenant-a") != std::string::npos);
  CHECK(one.output.find("\"web \\\"front\\\"\"") != std::string::npos);
  // The $HOME warning, once, at its first use.
  REQUIRE(one.diagnostics.size() == 1);
  CHECK(one.diagnostics[0].message.find("(and at 5 later uses)") != std::string::npos);
  for (unsigned threads : {2u, 3u, 8u}) {
    options.threads = threads;
    const RenderResult many = Render(text, manifest, values, options);
    CHECK(many.output == one.output);
    CHECK(Describe(many.diagnostics) == Describe(one.diagnostics));
    CHECK(Describe(many.references) == Describe(one.references));
  }
  // The same render without pieces.
  const RenderResult whole = detail::RenderPieces(
      text, text.size(), 1, options.limits,
      [&](std::string_view piece) {
        RenderOptions inner = options;
        inner.threads = 1;
        return Render(piece, manifest, values, inner);
      });
  CHECK(whole.output == one.output);
  CHECK(Describe(whole.diagnostics) == Describe(one.diagnostics));
  CHECK(Describe(whole.references) == Describe(one.references));
}

TEST_CASE("parallel render: pieces that finish out of order are merged in order") {
  // Each piece "renders" to its own text and one reference report on its
  // first line; some take longer, so later pieces often finish first. The
  // merged output must be the text again, and each report moved to its
  // line in the whole text.
  const std::string text = Stream(3000);
  for (unsigned threads : {2u, 3u, 8u}) {
    CAPTURE(threads);
    const RenderResult merged =
        detail::RenderPieces(text, 4096, threads, Limits{}, [](std::string_view piece) {
          if (piece.size() % 3 == 0) std::this_thread::sleep_for(std::chrono::microseconds(200));
          RenderResult result;
          result.output = std::string(piece);
          ReferenceReport report;
          report.line = 1;
          report.text = std::string(piece.substr(0, piece.find('\n')));
          result.references.push_back(report);
          return result;
        });
    REQUIRE(merged.ok());
    CHECK(merged.output == text);
    const std::vector<detail::PieceBounds> pieces = Pieces(text, 4096);
    REQUIRE(merged.references.size() == pieces.size());
    for (std::size_t i = 0; i < pieces.size(); ++i) {
      const std::size_t line = 1 + static_cast<std::size_t>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(pieces[i].begin), '\n'));
      CHECK(merged.references[i].line == line);
      CHECK(merged.references[i].text == "---");
    }
  }
}

TEST_CASE("parallel render: an error in any piece is reported as by a whole render") {
  std::string text = Stream(6000);
  // Two errors far apart: an undeclared braced reference in data, and an
  // unterminated quote that a piece boundary would otherwise cut short.
  text.insert(text.size() / 3, "---\nbad: ${UNDECLARED}\n");
  text.insert(2 * text.size() / 3, "---\nalso: \"open\n");
  const Manifest manifest = StreamManifest();
  const ValueSet values = StreamValues();
  RenderOptions options;
  options.file_name = "stream.yaml";
  const RenderResult pieces = Render(text, manifest, values, options);
  CHECK_FALSE(pieces.ok());
  CHECK(pieces.output.empty());
  RenderOptions whole_options = options;
  whole_options.run_steps = true;
  Manifest with_steps = manifest;  // steps make Render take the whole stream
  with_steps.steps.push_back(Step{});
  const RenderResult whole = Render(text, with_steps, values, whole_options);
  CHECK(Describe(pieces.diagnostics) == Describe(whole.diagnostics));
}

}  // namespace
}  // namespace safesubst
