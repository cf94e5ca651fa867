// SPDX-License-Identifier: Apache-2.0
// Source positions for lint findings: from yaml-cpp marks and decoded scalar
// values back to exact byte offsets in the input.
//
// yaml-cpp gives each node the position where it starts, and the decoded
// value, but not where each character of the value came from. The rules need
// that for scripts (a finding on line 12 of a block scalar must say line 12),
// so ViewScalar finds the tokenizer's scalar at the node's position and
// decodes it with DecodeScalar, which records the offset of every byte, then
// checks that the result equals yaml-cpp's value. If it does not (a reading
// the two parsers do not share), every offset is the node's own: still a
// correct, if coarser, location.
#include <algorithm>

#include "lint_internal.h"
#include "shell_script_scalars.h"

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

std::size_t Source::NodeOffset(const YAML::Node& node) const {
  YAML::Mark mark = node.Mark();
  if (mark.pos < 0) return 0;
  return std::min(static_cast<std::size_t>(mark.pos) + bom_, text_.size());
}

std::size_t Source::ScalarOffset(const YAML::Node& node) const {
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

std::optional<ScriptShells> Source::ScriptShellsOf(const YAML::Node& node) const {
  const Scalar* scalar = node.IsScalar() ? ScalarAt(ScalarOffset(node)) : nullptr;
  if (scalar == nullptr || !scalar->is_shell) return std::nullopt;
  return scalar->bash_script ? ScriptShells::kBash : ScriptShells::kSh;
}

Location Source::At(std::size_t offset) const { return lines_.Locate(offset, file_); }

std::size_t ScalarView::Offset(std::size_t index) const {
  if (offsets.empty()) return node_offset;
  return offsets[std::min(index, offsets.size() - 1)];
}

ScalarView ViewScalar(const Source& source, const YAML::Node& node) {
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

YAML::Node Get(const YAML::Node& map, std::string_view key) {
  // Not `YAML::Node value;`: a default-constructed Node is a defined null, and
  // callers need to tell "absent" from "key: ~".
  YAML::Node value(YAML::NodeType::Undefined);
  GetWithKey(map, key, nullptr, &value);
  return value;
}

bool GetWithKey(const YAML::Node& map, std::string_view key, YAML::Node* key_node, YAML::Node* value) {
  if (!map.IsMap()) return false;
  for (auto it = map.begin(); it != map.end(); ++it) {
    if (it->first.IsScalar() && it->first.Scalar() == key) {
      // reset(), not operator=: assigning to a bound yaml-cpp Node rewrites the
      // node it refers to (here: the caller's document) instead of rebinding.
      if (key_node != nullptr) key_node->reset(it->first);
      value->reset(it->second);
      return true;
    }
  }
  return false;
}

std::string ScalarText(const YAML::Node& node) { return node.IsScalar() ? node.Scalar() : std::string(); }

YAML::Node Path(const YAML::Node& node, std::initializer_list<std::string_view> keys) {
  YAML::Node current = node;
  for (std::string_view key : keys) {
    YAML::Node next = Get(current, key);
    if (!next.IsDefined() || next.IsNull()) return YAML::Node(YAML::NodeType::Undefined);
    current.reset(next);
  }
  return current;
}

Script MakeScript(const Source& source, const YAML::Node& node, ScriptShells shells) {
  Script script;
  script.node.reset(node);
  script.view = ViewScalar(source, node);
  script.shell = ParseShell(script.view.text);
  script.shells = shells;
  return script;
}

}  // namespace safesubst::lint
