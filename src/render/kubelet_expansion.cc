// SPDX-License-Identifier: Apache-2.0
#include "kubelet_expansion.h"

#include <algorithm>

namespace safesubst {

namespace {

// One step of a path: a mapping key, or an item of a sequence.
struct Step {
  std::string_view key;
  bool is_item = false;
};

// The path from `scalar` up to its document's root, then on up through
// `root_path` (`.spec.containers[0].env`: the keys, and `[...]` items).
std::vector<Step> UpwardPath(const Tokens& tokens, const Scalar& scalar, std::string_view root_path) {
  std::vector<Step> up;
  for (std::uint32_t at = scalar.path; at != PathSegment::kRoot; at = tokens.paths[at].parent) {
    const PathSegment& segment = tokens.paths[at];
    up.push_back({segment.index >= 0 ? std::string_view() : std::string_view(segment.key), segment.index >= 0});
  }
  std::vector<Step> down;
  for (std::size_t i = 0; i < root_path.size();) {
    if (root_path[i] == '.') {
      ++i;
    } else if (root_path[i] == '[') {
      const std::size_t close = root_path.find(']', i);
      if (close == std::string_view::npos) break;
      down.push_back({{}, true});
      i = close + 1;
    } else {
      const std::size_t end = std::min(root_path.find_first_of(".[", i), root_path.size());
      down.push_back({root_path.substr(i, end - i), false});
      i = end;
    }
  }
  up.insert(up.end(), down.rbegin(), down.rend());
  return up;
}

bool IsKey(const std::vector<Step>& up, std::size_t i, std::string_view key) {
  return i < up.size() && !up[i].is_item && up[i].key == key;
}

bool IsItem(const std::vector<Step>& up, std::size_t i) { return i < up.size() && up[i].is_item; }

}  // namespace

// kubelet expands a container's command and args
// (kubecontainer.ExpandContainerCommandAndArgs), its env values, an exec
// probe's command (ExpandContainerCommandOnlyStatic) and a volume mount's
// subPathExpr (ExpandContainerVolumeMounts); it runs a lifecycle hook's
// exec command as written.
bool KubeletExpands(const Tokens& tokens, const Scalar& scalar, std::string_view root_path) {
  if (scalar.is_key) return false;
  const std::vector<Step> up = UpwardPath(tokens, scalar, root_path);
  if (IsItem(up, 0) && (IsKey(up, 1, "command") || IsKey(up, 1, "args"))) {
    return !(IsKey(up, 2, "exec") && (IsKey(up, 3, "postStart") || IsKey(up, 3, "preStop")));
  }
  return (IsKey(up, 0, "value") && IsItem(up, 1) && IsKey(up, 2, "env")) ||
         (IsKey(up, 0, "subPathExpr") && IsItem(up, 1) && IsKey(up, 2, "volumeMounts"));
}

bool MayNeedKubeletEscape(std::string_view value) {
  // Asked of every substituted value: one compare a byte, where find_first_of
  // searches its set for each byte (4 % of a stream's render).
  return std::any_of(value.begin(), value.end(), [](char c) { return c == '$' || c == '(' || c == ')'; });
}

namespace {

// The text of all pieces, with the value each byte comes from (or kTemplate).
class PiecedText {
 public:
  static constexpr std::size_t kTemplate = static_cast<std::size_t>(-1);

  explicit PiecedText(const std::vector<KubeletPiece>& pieces) {
    std::size_t values = 0;
    for (const KubeletPiece& piece : pieces) {
      text_.append(piece.text);
      owners_.insert(owners_.end(), piece.text.size(), piece.is_value ? values : kTemplate);
      values += piece.is_value ? 1 : 0;
    }
  }
  std::size_t size() const { return text_.size(); }
  char at(std::size_t i) const { return text_[i]; }
  std::size_t owner(std::size_t i) const { return owners_[i]; }
  std::size_t find(char c, std::size_t from) const { return text_.find(c, from); }

 private:
  std::string text_;
  std::vector<std::size_t> owners_;
};

bool JoinsDollar(char c) { return c == '$' || c == '('; }

}  // namespace

// Scans the text as kubelet does (third_party/forked/golang/expansion in
// Kubernetes): `$$` is one `$`; `$(` up to the first `)` is a reference;
// an unterminated `$(` is text, and reading goes on after its `(`; a `$`
// before any other byte is text, with that byte. Template bytes keep their
// reading; a value's bytes are copied out, each `$` doubled where kubelet
// would read it with the next byte.
KubeletEscaping EscapeForKubelet(const std::vector<KubeletPiece>& pieces) {
  KubeletEscaping out;
  for (const KubeletPiece& piece : pieces) {
    if (piece.is_value) out.values.emplace_back();
  }
  const PiecedText text(pieces);
  auto copy = [&](std::size_t i) {
    if (text.owner(i) != PiecedText::kTemplate) out.values[text.owner(i)] += text.at(i);
  };
  auto refuse = [&](std::size_t value, std::string problem, std::string hint) {
    out.refused = value;
    out.problem = std::move(problem);
    out.hint = std::move(hint);
    return out;
  };
  for (std::size_t i = 0; i < text.size();) {
    const bool last = i + 1 == text.size();
    if (text.at(i) != '$' || last) {
      copy(i++);
      continue;
    }
    const char next = text.at(i + 1);
    if (text.owner(i) != PiecedText::kTemplate) {  // a value's `$`
      if (JoinsDollar(next)) out.values[text.owner(i)] += '$';
      copy(i++);
      continue;
    }
    if (text.owner(i + 1) != PiecedText::kTemplate && JoinsDollar(next)) {
      return refuse(text.owner(i + 1),
                    "Kubernetes would read its first character together with the `$` of the template right "
                    "before it",
                    "write that `$` as `$$` in the template (Kubernetes reads `$$` as `$`)");
    }
    std::size_t end = i + 2;  // past a `$$`, an unterminated `$(`, or `$` and a byte
    if (next == '(') {
      const std::size_t close = text.find(')', i + 2);
      if (close != std::string::npos && text.owner(close) != PiecedText::kTemplate) {
        return refuse(text.owner(close),
                      "its `)` would end early the `$(...)` that Kubernetes reads as a variable reference",
                      "Kubernetes expands `$(NAME)` in env values, command and args, a shell's `$(...)` there "
                      "too: a value stands in one only as part of a name; pass this one in an env variable of "
                      "the container and read it as \"$NAME\"");
      }
      if (close != std::string::npos) end = close + 1;  // a value in the name is written as it is
    }
    for (; i < end; ++i) copy(i);
  }
  return out;
}

}  // namespace safesubst
