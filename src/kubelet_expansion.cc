// SPDX-License-Identifier: Apache-2.0
#include "kubelet_expansion.h"

namespace safesubst {

namespace {

// Where a text's root stands, read from the end of a step path: under the
// key `key` itself (`.a.env`), or as an item of the sequence at `key`
// (`.a.env[0]`, `[*]`, `[name=x]`).
struct RootPlace {
  std::string_view key;
  bool is_item = false;
};

RootPlace PlaceOf(std::string_view path) {
  RootPlace place;
  if (!path.empty() && path.back() == ']') {
    place.is_item = true;
    path = path.substr(0, path.rfind('['));
  }
  const std::size_t dot = path.rfind('.');
  place.key = dot == std::string_view::npos ? path : path.substr(dot + 1);
  return place;
}

// True when the sequence holding item segment `item` stands under `key`.
bool ItemOf(const Tokens& tokens, const PathSegment& item, const RootPlace& root, std::string_view key) {
  if (item.index < 0) return false;
  if (item.parent == PathSegment::kRoot) return !root.is_item && root.key == key;
  return tokens.paths[item.parent].key == key;
}

}  // namespace

bool KubeletExpands(const Tokens& tokens, const Scalar& scalar, std::string_view root_path) {
  if (scalar.is_key) return false;
  const RootPlace root = PlaceOf(root_path);
  if (scalar.path == PathSegment::kRoot) return false;
  const PathSegment& entry = tokens.paths[scalar.path];
  if (ItemOf(tokens, entry, root, "command") || ItemOf(tokens, entry, root, "args")) return true;
  if (entry.index >= 0 || entry.key != "value") return false;
  if (entry.parent == PathSegment::kRoot) return root.is_item && root.key == "env";  // the root is an env item
  return ItemOf(tokens, tokens.paths[entry.parent], root, "env");
}

bool MayNeedKubeletEscape(std::string_view value) {
  return value.find_first_of("$()") != std::string_view::npos;
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
