// SPDX-License-Identifier: Apache-2.0
#include "program_variables.h"

#include <algorithm>
#include <utility>

#include "references.h"
#include "shell_lexer.h"

namespace safesubst {

// Collects every assignment and every word that names a variable.
class ProgramVariableReader : public CommandReader {
 public:
  explicit ProgramVariableReader(ProgramVariables* out) : out_(out) {}

 protected:
  void CommandEnded(ShCommand command) override {
    for (const ShWord& word : command.words) {
      const std::string assigned = AssignedName(word, /*declaration=*/false);
      if (!assigned.empty()) {
        Assigned(assigned, word);
      } else if (!word.quoted && !word.text.empty() && IsNameStart(word.text[0]) &&
                 std::all_of(word.text.begin(), word.text.end(), IsNameChar)) {
        Unknown(word.text);  // `read NAME`, `for NAME in`, `unset NAME`, `export NAME`
      }
    }
  }

 private:
  void Unknown(const std::string& name) { out_->variables_[name].literal.reset(); }

  void Assigned(const std::string& name, const ShWord& word) {
    const std::optional<ShWord> value = AssignedValue(word);
    const bool plain = word.text[name.size()] == '=';  // not `+=`, not `NAME[i]=`
    const bool literal = value && std::all_of(value->pieces.begin(), value->pieces.end(), [](const ShPiece& piece) {
                           return piece.kind == ShPiece::kText;
                         });
    auto [variable, first] = out_->variables_.try_emplace(name);
    if (first && plain && literal) {
      variable->second.literal = value->text;
      variable->second.first_assigned = word.begin;
    } else if (!plain || !literal || variable->second.literal != value->text) {
      variable->second.literal.reset();
    }
  }

  ProgramVariables* out_;
};

ProgramVariables::ProgramVariables(std::string_view script) {
  ProgramVariableReader reader(this);
  ReadShell(script, &reader);
}

std::optional<std::vector<ShWord>> ProgramVariables::WordsOf(const ShWord& word) const {
  const auto variable = variables_.find(WholeWordVariable(word));
  if (variable == variables_.end() || !variable->second.literal || variable->second.first_assigned >= word.begin) {
    return std::nullopt;
  }
  const std::string& literal = *variable->second.literal;
  std::vector<ShWord> words;
  if (word.quoted) {
    words.emplace_back().text = literal;  // `"$CMD"` is one word
  } else {
    words = WordsOfPlainText(literal);  // `$CMD` is split at blanks
  }
  for (ShWord& each : words) {
    each.begin = word.begin;
    each.end = word.end;
  }
  if (!words.empty()) words.front().role = ShellWordRole::kCommandName;
  return words;
}

std::string WholeWordVariable(const ShWord& word) {
  const ShPiece* expansion = nullptr;
  for (const ShPiece& piece : word.pieces) {
    if (piece.kind == ShPiece::kText && piece.length == 0) continue;  // the opening of "..."
    if (piece.kind != ShPiece::kExpansion || expansion != nullptr) return {};
    expansion = &piece;
  }
  if (expansion == nullptr) return {};
  std::string_view raw = std::string_view(word.text).substr(expansion->text_begin, expansion->length);
  const bool braced = raw.starts_with("${") && raw.ends_with("}");
  raw = braced ? raw.substr(2, raw.size() - 3) : raw.substr(1);
  const bool name = !raw.empty() && IsNameStart(raw[0]) && std::all_of(raw.begin(), raw.end(), IsNameChar);
  return name ? std::string(raw) : std::string();
}

}  // namespace safesubst
