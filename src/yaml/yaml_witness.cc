// SPDX-License-Identifier: Apache-2.0
#include "yaml_witness.h"

#include <libfyaml.h>

#include <algorithm>
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "text_checks.h"
#include "tokenizer.h"

namespace safesubst::detail {
namespace {

// Deeper than this, the witness declines and yaml-cpp decides, as before:
// its depth guard refuses about 500 nested collections, and the witness must
// not accept what yaml-cpp refuses for depth.
constexpr int kDeepestWitnessed = 250;

// libfyaml writes its diagnostics to stderr unless given somewhere else.
void DiscardDiagnostic(fy_diag*, void*, const char*, std::size_t) {}

struct DiagnosticsDeleter {
  void operator()(fy_diag* diagnostics) const { fy_diag_destroy(diagnostics); }
};
struct ParserDeleter {
  void operator()(fy_parser* parser) const { fy_parser_destroy(parser); }
};

std::string TokenText(fy_token* token) {
  std::size_t length = 0;
  const char* text = fy_token_get_text(token, &length);
  return text == nullptr ? std::string() : std::string(text, length);
}

// The anchor an event defines, or null.
fy_token* DefinedAnchor(const fy_event& event) {
  switch (event.type) {
    case FYET_SCALAR: return event.scalar.anchor;
    case FYET_SEQUENCE_START: return event.sequence_start.anchor;
    case FYET_MAPPING_START: return event.mapping_start.anchor;
    default: return nullptr;
  }
}

// A character YAML 1.2 allows in a tag's suffix (ns-tag-char: URI
// characters but `!` and the flow indicators).
bool IsTagCharacter(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
         std::string_view("-#;/?:@&=+$_.~*'()%").find(c) != std::string_view::npos;
}

// Whether the witness vouches for a node's tag. libfyaml reads tags as YAML
// 1.1 did: it takes `!!` with no suffix and `!` or a flow indicator in a
// suffix (`!!!x`, `!]!x`, `!!a,b`), which yaml-cpp and the spec refuse. The
// witness vouches only for `!`, `!local` and `!!type` with suffixes of
// ns-tag-char; any other tag (verbatim `!<...>`, a named handle) is left to
// yaml-cpp, as rare as it is in Kubernetes YAML.
bool TagWitnessed(fy_event* event) {
  fy_token* tag = fy_event_get_tag_token(event);
  if (tag == nullptr) return true;
  std::size_t handle_length = 0, suffix_length = 0;
  const char* handle = fy_tag_token_handle(tag, &handle_length);
  const char* suffix = fy_tag_token_suffix(tag, &suffix_length);
  if (handle == nullptr || suffix == nullptr) return false;
  const std::string_view handle_text(handle, handle_length), suffix_text(suffix, suffix_length);
  if (handle_text == "!" && suffix_text.empty()) return true;  // the non-specific tag
  if ((handle_text != "!" && handle_text != "!!") || suffix_text.empty()) return false;
  return std::all_of(suffix_text.begin(), suffix_text.end(), IsTagCharacter);
}

// libfyaml takes a property glued to a flow collection (`&a{b}`, `!t[b]`),
// which YAML 1.2 and yaml-cpp refuse: after an anchor or a tag comes a
// separator, or the end of an empty node (`,`, `]`, `}`). (The attacker's F1.)
bool SeparatedAfter(fy_token* property, std::string_view text) {
  if (property == nullptr) return true;
  const fy_mark* end = fy_token_end_mark(property);
  if (end == nullptr) return false;
  return end->input_pos >= text.size() || std::string_view(" \t\r\n,]}").find(text[end->input_pos]) != std::string_view::npos;
}

// libfyaml takes `?` glued to a flow collection's `,`, `]` or `}` (`[?]`,
// `{a: 1, ?}`), which YAML 1.2 and yaml-cpp refuse. (The attacker's F2.)
bool HasGluedQuestionMark(std::string_view text) {
  for (std::size_t at = text.find('?'); at != std::string_view::npos; at = text.find('?', at + 1)) {
    if (at + 1 < text.size() && std::string_view(",]}").find(text[at + 1]) != std::string_view::npos) return true;
  }
  return false;
}

// libfyaml 0.7.12 crashes (in fy_parser_destroy) on an explicit key whose
// content is a mapping with a tab after its `:` (`? a:\t-`, found by the
// attacker, F3): a tab in the blanks after `:`, `?` or `-` is left to
// yaml-cpp. Tabs are rare in Kubernetes YAML.
bool HasTabAfterIndicator(std::string_view text) {
  for (std::size_t tab = text.find('\t'); tab != std::string_view::npos; tab = text.find('\t', tab + 1)) {
    const std::size_t before = text.find_last_not_of(" \t", tab);
    if (before != std::string_view::npos && std::string_view(":?-").find(text[before]) != std::string_view::npos) {
      return true;
    }
  }
  return false;
}

// An open collection, as ReadEvents follows the events.
struct OpenCollection {
  bool mapping = false;
  bool flow = false;
  std::size_t nodes = 0;  ///< nodes read in it so far: in a mapping, keys and values in turn
};

// libfyaml 0.7.12 takes two forms the spec refuses: properties then a `:`
// with no key (`a: &x : b`, read as a mapping with an empty key), and an
// implicit key over two lines in a flow sequence (`[a\n b: c]`). Both show
// as events that are rare in Kubernetes YAML: an empty scalar as a mapping
// key, a mapping that is an item of a flow sequence without its own `{`.
// For those the tokenizer, which refuses both, reads the text too.
bool NeedsTokenizer(const fy_event& event, const std::vector<OpenCollection>& open, std::string_view text) {
  if (open.empty()) return false;
  const OpenCollection& parent = open.back();
  // An empty key written with no text at all has no value token.
  if (parent.mapping) return parent.nodes % 2 == 0 && event.type == FYET_SCALAR && event.scalar.value == nullptr;
  if (!parent.flow || event.type != FYET_MAPPING_START) return false;
  const fy_mark* start = event.mapping_start.mapping_start == nullptr
                             ? nullptr
                             : fy_token_start_mark(event.mapping_start.mapping_start);
  return start == nullptr || start->input_pos >= text.size() || text[start->input_pos] != '{';
}

// Reads every event of the stream, up to the first that decides. Anchors
// are per document, as in yaml-cpp, and an anchor counts from its node's
// start (`&a [*a]` names it). `*needs_tokenizer`: NeedsTokenizer held for
// an event.
WitnessVerdict ReadEvents(fy_parser* parser, std::string_view text, bool* needs_tokenizer) {
  std::unordered_set<std::string> anchors;
  std::vector<OpenCollection> open;
  while (fy_event* event = fy_parser_parse(parser)) {
    WitnessVerdict verdict = WitnessVerdict::kAccepts;
    const bool node = event->type == FYET_SCALAR || event->type == FYET_ALIAS ||
                      event->type == FYET_SEQUENCE_START || event->type == FYET_MAPPING_START;
    if (node) {
      if (NeedsTokenizer(*event, open, text)) *needs_tokenizer = true;
      if (!open.empty()) ++open.back().nodes;
    }
    switch (event->type) {
      case FYET_DOCUMENT_START: anchors.clear(); break;
      case FYET_SEQUENCE_START:
      case FYET_MAPPING_START:
        open.push_back({event->type == FYET_MAPPING_START, fy_event_get_node_style(event) == FYNS_FLOW, 0});
        if (open.size() > kDeepestWitnessed) verdict = WitnessVerdict::kLeavesToYamlCpp;
        break;
      case FYET_SEQUENCE_END:
      case FYET_MAPPING_END: open.pop_back(); break;
      case FYET_ALIAS:
        if (anchors.count(TokenText(event->alias.anchor)) == 0) verdict = WitnessVerdict::kRefuses;
        break;
      default: break;
    }
    fy_token* anchor = DefinedAnchor(*event);
    if (!TagWitnessed(event) || !SeparatedAfter(anchor, text) || !SeparatedAfter(fy_event_get_tag_token(event), text)) {
      verdict = WitnessVerdict::kLeavesToYamlCpp;
    }
    if (anchor != nullptr) anchors.insert(TokenText(anchor));
    fy_parser_event_free(parser, event);
    if (verdict != WitnessVerdict::kAccepts) return verdict;
  }
  return fy_parser_get_stream_error(parser) ? WitnessVerdict::kRefuses : WitnessVerdict::kAccepts;
}

}  // namespace

WitnessVerdict ReadWithWitness(std::string_view text) {
  // libfyaml reads an empty string as no input at all. It stops at a NUL
  // byte, which yaml-cpp refuses, and loops forever on a directive with
  // invalid UTF-8 (found by fuzzing): text that is not plain UTF-8 is left
  // to yaml-cpp. So are directives (`%` at a line start, rare in Kubernetes
  // YAML): libfyaml takes `%YAML` with no version.
  if (text.empty()) return WitnessVerdict::kAccepts;
  if (text.front() == '%' || text.find("\n%") != std::string_view::npos || HasGluedQuestionMark(text) ||
      HasTabAfterIndicator(text)) {
    return WitnessVerdict::kLeavesToYamlCpp;
  }
  if (!CheckTextEncoding(text, std::string()).empty()) return WitnessVerdict::kLeavesToYamlCpp;

  fy_diag_cfg diagnostics_config;
  fy_diag_cfg_default(&diagnostics_config);
  diagnostics_config.fp = nullptr;
  diagnostics_config.output_fn = DiscardDiagnostic;
  const std::unique_ptr<fy_diag, DiagnosticsDeleter> diagnostics(fy_diag_create(&diagnostics_config));
  fy_parse_cfg config{};
  // YAML 1.2 where the text names no version, as yaml-cpp reads it.
  config.flags = static_cast<fy_parse_cfg_flags>(FYPCF_QUIET | FYPCF_DEFAULT_VERSION_1_2);
  config.diag = diagnostics.get();
  const std::unique_ptr<fy_parser, ParserDeleter> parser(diagnostics ? fy_parser_create(&config) : nullptr);
  if (!parser || fy_parser_set_string(parser.get(), text.data(), text.size()) != 0) {
    return WitnessVerdict::kLeavesToYamlCpp;  // out of memory
  }
  bool needs_tokenizer = false;
  const WitnessVerdict verdict = ReadEvents(parser.get(), text, &needs_tokenizer);
  if (verdict != WitnessVerdict::kAccepts || !needs_tokenizer) return verdict;
  return HasErrors(TokenizeWithoutReferences(text, {}).diagnostics) ? WitnessVerdict::kLeavesToYamlCpp : verdict;
}

}  // namespace safesubst::detail
