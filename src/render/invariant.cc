// SPDX-License-Identifier: Apache-2.0
// The structure invariant: template and rendered output, parsed with yaml-cpp
// into flat trees (yaml_tree.h), walked in parallel.
#include "invariant.h"

#include <algorithm>
#include <cstddef>
#include <unordered_map>
#include <unordered_set>

#include "yaml_load.h"
#include "yaml_tree.h"

namespace safesubst {

namespace {

using detail::YamlNode;
using detail::YamlStream;

// A render that changed everything would otherwise report every node; the
// first differences are the useful ones.
constexpr std::size_t kMaxDifferences = 100;

std::string_view KindName(YamlNode::Kind kind) {
  switch (kind) {
    case YamlNode::Kind::kNull: return "null";
    case YamlNode::Kind::kScalar: return "a scalar";
    case YamlNode::Kind::kSequence: return "a sequence";
    case YamlNode::Kind::kMapping: return "a mapping";
    case YamlNode::Kind::kAlias: return "an alias";
  }
  return "a node";
}

bool HasExplicitTag(const YamlNode& node) {
  return !node.tag.empty() && node.tag != "?" && node.tag != "!";
}

std::string TagName(const YamlNode& node) {
  if (!HasExplicitTag(node)) return "none";
  constexpr std::string_view kCore = "tag:yaml.org,2002:";
  if (node.tag.compare(0, kCore.size(), kCore) == 0) return "!!" + node.tag.substr(kCore.size());
  return node.tag;
}

std::string ChildPath(const std::string& parent, std::string_view key) {
  if (parent.empty()) return std::string(key);
  std::string path = parent;
  path += '.';
  path += key;
  return path;
}

// True when `path` is `prefix` or lies under it.
bool IsUnder(std::string_view path, std::string_view prefix) {
  if (prefix.empty()) return true;
  if (path.substr(0, prefix.size()) != prefix) return false;
  return path.size() == prefix.size() || path[prefix.size()] == '.' || path[prefix.size()] == '[';
}

class Comparer {
 public:
  Comparer(const YamlStream& before, const YamlStream& after, const std::vector<std::string>& exempt,
           const std::vector<ExpectedValue>& expected)
      : t_(before), o_(after), exempt_(exempt) {
    for (const ExpectedValue& value : expected) expected_.emplace(value.offset, value.value);
  }

  std::vector<StructureDifference> Run() {
    std::size_t documents = std::min(t_.documents.size(), o_.documents.size());
    for (std::size_t d = 0; d < documents; ++d) {
      document_ = static_cast<std::uint32_t>(d);
      path_.clear();
      Compare(t_.documents[d], o_.documents[d]);
    }
    if (t_.documents.size() != o_.documents.size()) {
      document_ = static_cast<std::uint32_t>(documents);
      StructureDifference difference = Make("", nullptr, nullptr);
      difference.message = "the template has " + Count(t_.documents.size(), "document") +
                           ", the output has " + std::to_string(o_.documents.size());
      if (documents < t_.documents.size()) SetTemplatePosition(&difference, &t_.nodes[t_.documents[documents]]);
      if (documents < o_.documents.size()) SetOutputPosition(&difference, &o_.nodes[o_.documents[documents]]);
      Report(std::move(difference));
    }
    return std::move(differences_);
  }

 private:
  static std::string Count(std::size_t n, std::string_view noun) {
    return std::to_string(n) + " " + std::string(noun) + (n == 1 ? "" : "s");
  }

  bool Exempt(const std::string& path) const {
    return std::any_of(exempt_.begin(), exempt_.end(), [&](std::string_view prefix) {
      if (!prefix.empty() && prefix.front() == '.') prefix.remove_prefix(1);
      return IsUnder(path, prefix);
    });
  }

  static void SetTemplatePosition(StructureDifference* d, const YamlNode* node) {
    d->template_line = node->line + 1;
    d->template_column = node->column + 1;
  }
  static void SetOutputPosition(StructureDifference* d, const YamlNode* node) {
    d->output_line = node->line + 1;
    d->output_column = node->column + 1;
  }

  StructureDifference Make(std::string path, const YamlNode* template_node, const YamlNode* output_node) const {
    StructureDifference difference;
    difference.path = std::move(path);
    difference.document = document_;
    if (template_node) SetTemplatePosition(&difference, template_node);
    if (output_node) SetOutputPosition(&difference, output_node);
    return difference;
  }

  void Report(StructureDifference difference) {
    if (differences_.size() < kMaxDifferences) differences_.push_back(std::move(difference));
  }

  void Report(const std::string& path, const YamlNode& template_node, const YamlNode& output_node,
              std::string message) {
    if (Exempt(path)) return;
    StructureDifference difference = Make(path, &template_node, &output_node);
    difference.message = std::move(message);
    Report(std::move(difference));
  }


  // Appends a path segment for the duration of a scope; the path is one
  // buffer, not a string per node.
  class Segment {
   public:
    Segment(std::string* path, std::string_view key) : path_(path), size_(path->size()) {
      if (!path->empty()) *path += '.';
      *path += key;
    }
    Segment(std::string* path, std::size_t index) : path_(path), size_(path->size()) {
      *path += '[';
      *path += std::to_string(index);
      *path += ']';
    }
    ~Segment() { path_->resize(size_); }
    Segment(const Segment&) = delete;
    Segment& operator=(const Segment&) = delete;

   private:
    std::string* path_;
    std::size_t size_;
  };

  void Compare(std::uint32_t t_index, std::uint32_t o_index) {
    if (differences_.size() >= kMaxDifferences || Exempt(path_)) return;
    const YamlNode& t_written = t_.nodes[t_index];
    const YamlNode& o_written = o_.nodes[o_index];
    bool t_alias = t_written.kind == YamlNode::Kind::kAlias;
    bool o_alias = o_written.kind == YamlNode::Kind::kAlias;
    if (t_alias != o_alias) {
      Report(path_, t_written, o_written,
             std::string("was ") + std::string(KindName(t_written.kind)) + ", became " +
                 std::string(KindName(o_written.kind)));
      return;
    }
    if (t_.has_aliases || o_.has_aliases) {
      t_index = detail::ResolveAlias(t_, t_index);
      o_index = detail::ResolveAlias(o_, o_index);
      // Each pair of nodes is compared once: aliases cannot multiply the work.
      if (!visited_.insert((std::uint64_t{t_index} << 32) | o_index).second) return;
    }
    const YamlNode& t = t_.nodes[t_index];
    const YamlNode& o = o_.nodes[o_index];
    if (t.kind != o.kind) {
      Report(path_, t, o,
             std::string("was ") + std::string(KindName(t.kind)) + ", became " + std::string(KindName(o.kind)));
      return;
    }
    if ((HasExplicitTag(t) || HasExplicitTag(o)) && t.tag != o.tag) {
      Report(path_, t, o, "tag changed from " + TagName(t) + " to " + TagName(o));
    }
    if (t.kind == YamlNode::Kind::kScalar) {
      CompareValues(t, o);
    } else if (t.kind == YamlNode::Kind::kSequence) {
      CompareSequences(t, o);
    } else if (t.kind == YamlNode::Kind::kMapping) {
      CompareMappings(t, o);
    }
  }

  // A rewritten scalar must hold exactly what was written into it.
  void CompareValues(const YamlNode& t, const YamlNode& o) {
    auto expected = expected_.find(t.offset);
    if (expected != expected_.end() && o.text != expected->second) {
      Report(path_, t, o, "the rewritten scalar reads back as a different value");
    }
  }

  void CompareSequences(const YamlNode& t, const YamlNode& o) {
    if (t.children.size() != o.children.size()) {
      Report(path_, t, o,
             "sequence had " + Count(t.children.size(), "item") + ", has " + std::to_string(o.children.size()));
      return;
    }
    for (std::size_t i = 0; i < t.children.size(); ++i) {
      Segment segment(&path_, i);
      Compare(t.children[i], o.children[i]);
    }
  }

  // The text a key is known by in messages and paths.
  static std::string_view KeyText(const YamlStream& stream, std::uint32_t index) {
    const YamlNode& key = stream.nodes[detail::ResolveAlias(stream, index)];
    switch (key.kind) {
      case YamlNode::Kind::kScalar: return key.text;
      case YamlNode::Kind::kNull: return "~";
      default: return "?";  // a complex key
    }
  }

  void CompareMappings(const YamlNode& t, const YamlNode& o) {
    std::size_t t_entries = t.children.size() / 2, o_entries = o.children.size() / 2;
    if (t_entries == o_entries) {
      // Entry by entry: a key whose text changed (a substitution in a key) is
      // reported, and its value still compared with its counterpart.
      for (std::size_t i = 0; i < t_entries; ++i) {
        std::string_view t_key = KeyText(t_, t.children[2 * i]);
        std::string_view o_key = KeyText(o_, o.children[2 * i]);
        Segment segment(&path_, t_key);
        if (t_key != o_key) {
          Report(path_, t_.nodes[t.children[2 * i]], o_.nodes[o.children[2 * i]],
                 "key changed: '" + std::string(t_key) + "' became '" + std::string(o_key) + "'");
        } else if (t_key == "?") {
          Compare(t.children[2 * i], o.children[2 * i]);  // complex keys: their shape
        }
        Compare(t.children[2 * i + 1], o.children[2 * i + 1]);
      }
      return;
    }
    // Different sizes: match entries by key to name what was added or removed.
    std::vector<bool> matched(o_entries, false);
    for (std::size_t i = 0; i < t_entries; ++i) {
      std::string_view t_key = KeyText(t_, t.children[2 * i]);
      Segment segment(&path_, t_key);
      std::size_t j = 0;
      while (j < o_entries && (matched[j] || KeyText(o_, o.children[2 * j]) != t_key)) ++j;
      if (j == o_entries) {
        Report(path_, t_.nodes[t.children[2 * i]], o, "key '" + std::string(t_key) + "' was removed");
        continue;
      }
      matched[j] = true;
      Compare(t.children[2 * i + 1], o.children[2 * j + 1]);
    }
    for (std::size_t j = 0; j < o_entries; ++j) {
      if (matched[j]) continue;
      std::string_view o_key = KeyText(o_, o.children[2 * j]);
      Report(ChildPath(path_, o_key), t, o_.nodes[o.children[2 * j]], "key '" + std::string(o_key) + "' was added");
    }
  }

  const YamlStream& t_;
  const YamlStream& o_;
  const std::vector<std::string>& exempt_;
  std::unordered_map<std::size_t, std::string_view> expected_;  // by the template scalar's offset
  std::uint32_t document_ = 0;
  std::string path_;
  std::unordered_set<std::uint64_t> visited_;
  std::vector<StructureDifference> differences_;
};

// `${...}` forms read as opaque plain text. As written they are not always
// YAML: in a flow collection `{` ends a plain scalar, so `[${A}, ${B}]` does
// not parse although it is meant as a two-item list. Each brace pair becomes
// `$(...)` and flow indicators or `#` inside it become `_`; lengths, and so all
// positions, stay the same. An unterminated `${` is left alone.
std::string NeutralizeReferences(std::string_view text) {
  std::string out(text);
  for (std::size_t start = out.find("${"); start != std::string::npos; start = out.find("${", start + 1)) {
    int depth = 0;
    std::size_t end = start + 1;
    for (; end < out.size() && out[end] != '\n' && out[end] != '\r'; ++end) {
      if (out[end] == '{') ++depth;
      if (out[end] == '}' && --depth == 0) break;
    }
    if (end >= out.size() || out[end] != '}') continue;
    for (std::size_t i = start + 2; i < end; ++i) {
      if (std::string_view(",[]{}#").find(out[i]) != std::string_view::npos) out[i] = '_';
    }
    out[start + 1] = '(';
    out[end] = ')';
  }
  return out;
}

// Both sides are read with yaml-cpp itself, not ParseYamlStream's fast path
// (the tokenizer's spans): the comparison is a witness that does not share
// the renderer's reading of the YAML.
bool ParseWithWitness(std::string_view text, YamlStream* stream, detail::YamlParseError* error) {
  return detail::ParseYamlStreamWithYamlCpp(text, stream, error);
}

// Parses the template with its references neutralized, then gives plain
// scalars that were written on one line their text as written (so that a key
// `name-${S}` is known by that name, as Tokens::PathString knows it).
bool ParseTemplate(std::string_view text, YamlStream* stream, detail::YamlParseError* error) {
  if (text.find("${") == std::string_view::npos) return ParseWithWitness(text, stream, error);
  std::string neutral = NeutralizeReferences(text);
  if (!ParseWithWitness(neutral, stream, error)) return false;
  for (YamlNode& node : stream->nodes) {
    if (node.kind != YamlNode::Kind::kScalar || node.tag != "?" || node.offset + node.text.size() > text.size()) {
      continue;
    }
    if (std::string_view(neutral).substr(node.offset, node.text.size()) == node.text) {
      node.text = std::string(text.substr(node.offset, node.text.size()));
    }
  }
  return true;
}

}  // namespace

Result<std::vector<StructureDifference>> CompareStructure(
    std::string_view template_text, std::string_view rendered_text,
    const std::vector<std::string>& exempt_paths, const std::string& file, const std::vector<ExpectedValue>& expected) {
  Result<std::vector<StructureDifference>> result;
  YamlStream before, after;
  detail::YamlParseError error;
  if (!ParseTemplate(template_text, &before, &error)) {
    result.diagnostics.push_back(MakeError(detail::ParseErrorLocation(error, file),
                                           "template is not valid YAML: " + error.message,
                                           "fix the template; it must parse before anything is substituted"));
    return result;
  }
  if (!ParseWithWitness(rendered_text, &after, &error)) {
    result.diagnostics.push_back(
        MakeError(detail::ParseErrorLocation(error, file + " (rendered output)"),
                  "rendered output is not valid YAML: " + error.message,
                  "a substituted value broke the document; quote the reference in the template, or "
                  "declare the variable `type: yaml` if it is meant to be YAML"));
    return result;
  }
  result.value = Comparer(before, after, exempt_paths, expected).Run();
  return result;
}

}  // namespace safesubst
