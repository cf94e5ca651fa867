// SPDX-License-Identifier: Apache-2.0
// The nodes lint walks, and source positions for its findings: from node
// marks and decoded scalar values back to exact byte offsets in the input.
//
// A node records the position where it starts (yaml-cpp's mark), and the
// decoded value, but not where each character of the value came from. The rules need
// that for scripts (a finding on line 12 of a block scalar must say line 12),
// so ViewScalar finds the tokenizer's scalar at the node's position and
// decodes it with DecodeScalar, which records the offset of every byte, then
// checks that the result equals the node's value. If it does not (a reading
// the two parsers do not share), every offset is the node's own: still a
// correct, if coarser, location.
#include <algorithm>

#include "lint_internal.h"
#include "shell_script_scalars.h"
#include "yaml_load.h"
#include "yaml_span_tree.h"

namespace safesubst::lint {

namespace {

std::string_view StripTrailingNewlines(std::string_view text) {
  while (!text.empty() && text.back() == '\n') text.remove_suffix(1);
  return text;
}

bool IsBlank(char c) { return c == ' ' || c == '\t'; }

}  // namespace

Source::Source(std::string_view text, std::string file)
    : text_(text), file_(std::move(file)), tokens_(Tokenize(text)), lines_(std::string(text)) {
  MarkShellScripts(text_, &tokens_);
  if (text_.substr(0, 3) == "\xEF\xBB\xBF") bom_ = 3;
}

const std::string& Node::Scalar() const {
  static const std::string kNone;
  return ref_ ? ref_->Scalar() : kNone;
}

std::vector<Node> Node::Items() const {
  std::vector<Node> items;
  if (ref_) {
    for (const detail::YamlRef& item : ref_->Items()) items.emplace_back(item);
  }
  return items;
}

std::vector<std::pair<Node, Node>> Node::Entries() const {
  std::vector<std::pair<Node, Node>> entries;
  if (ref_) {
    for (const auto& [key, value] : ref_->Entries()) entries.emplace_back(key, value);
  }
  return entries;
}

std::size_t Source::NodeOffset(const Node& node) const { return std::min(node.mark() + bom_, text_.size()); }

std::size_t Source::ScalarOffset(const Node& node) const {
  std::size_t pos = NodeOffset(node);
  // Skip a tag (`!!str`) and an anchor (`&a`) in front of the scalar.
  while (pos < text_.size() && (text_[pos] == '!' || text_[pos] == '&')) {
    while (pos < text_.size() && !IsBlank(text_[pos]) && text_[pos] != '\n') ++pos;
    while (pos < text_.size() && IsBlank(text_[pos])) ++pos;
  }
  return pos;
}

const Scalar* Source::ScalarAt(std::size_t offset) const {
  const std::vector<Scalar>& scalars = tokens_.scalars;
  auto found = std::lower_bound(scalars.begin(), scalars.end(), offset,
                                [](const Scalar& scalar, std::size_t at) { return scalar.offset < at; });
  return found != scalars.end() && found->offset == offset ? &*found : nullptr;
}

std::optional<ScriptShells> Source::ScriptShellsOf(const Node& node) const {
  const Scalar* scalar = node.IsScalar() ? ScalarAt(ScalarOffset(node)) : nullptr;
  if (scalar == nullptr || !scalar->is_shell) return std::nullopt;
  return scalar->bash_script ? ScriptShells::kBash : ScriptShells::kSh;
}

Location Source::At(std::size_t offset) const { return lines_.Locate(offset, file_); }

std::size_t ScalarView::Offset(std::size_t index) const {
  if (offsets.empty()) return node_offset;
  return offsets[std::min(index, offsets.size() - 1)];
}

ScalarView ViewScalar(const Source& source, const Node& node) {
  ScalarView view;
  view.node_offset = source.NodeOffset(node);
  if (!node.IsScalar()) return view;
  view.text = node.Scalar();
  const Scalar* scalar = source.ScalarAt(source.ScalarOffset(node));
  if (scalar == nullptr) return view;
  view.block = scalar->style == ScalarStyle::kLiteral || scalar->style == ScalarStyle::kFolded;
  std::vector<std::size_t> offsets;
  const std::string decoded = DecodeScalar(source.text(), *scalar, &offsets);
  // Block scalars are compared without their final line breaks, where
  // readers part ways (a last line of spaces at the end of the input).
  const bool same = view.block ? StripTrailingNewlines(decoded) == StripTrailingNewlines(view.text)
                               : decoded == view.text;
  if (!same) return view;
  view.exact = true;
  view.offsets = std::move(offsets);
  // One past the end maps just after the last byte, for empty spans at the end.
  view.offsets.push_back(view.offsets.empty() ? scalar->offset : view.offsets.back() + 1);
  return view;
}

detail::YamlStream ReadDocuments(std::string_view text) {
  detail::YamlStream stream;
  if (!detail::ReadYamlStreamFromSpans(text, &stream)) stream = *detail::LoadYamlStream(text);
  return stream;
}

Node Get(const Node& map, std::string_view key) {
  Node value;
  GetWithKey(map, key, nullptr, &value);
  return value;
}

bool GetWithKey(const Node& map, std::string_view key, Node* key_node, Node* value) {
  for (const auto& [entry_key, entry_value] : map.Entries()) {
    if (entry_key.IsScalar() && entry_key.Scalar() == key) {
      if (key_node != nullptr) *key_node = entry_key;
      *value = entry_value;
      return true;
    }
  }
  return false;
}

std::string ScalarText(const Node& node) { return node.Scalar(); }

Node Path(const Node& node, std::initializer_list<std::string_view> keys) {
  Node current = node;
  for (std::string_view key : keys) {
    current = Get(current, key);
    if (current.IsNull()) return Node();
  }
  return current;
}

Script MakeScript(const Source& source, const Node& node, ScriptShells shells) {
  Script script;
  script.node = node;
  script.view = ViewScalar(source, node);
  script.shell = ParseShell(script.view.text);
  script.shells = shells;
  return script;
}

}  // namespace safesubst::lint
