// SPDX-License-Identifier: Apache-2.0
#include "startup_variables.h"

#include <algorithm>
#include <map>
#include <utility>
#include <vector>

#include "object_paths.h"

namespace safesubst {

namespace {

bool IsDecimalInteger(std::string_view value) {
  if (value.starts_with('-')) value.remove_prefix(1);
  return !value.empty() && value.size() <= 18 && (value == "0" || value.front() != '0') &&
         std::all_of(value.begin(), value.end(), [](char c) { return c >= '0' && c <= '9'; });
}

bool IsOptionList(std::string_view value) {
  return std::all_of(value.begin(), value.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == ':';
  });
}

// One word that neither starts an option nor holds shell or option syntax
// (a blank, quote, `;`, `$`, parentheses, `,` or `%`, which perl's -M,
// node's data: URLs and the shell would read).
bool IsPlainWord(std::string_view value) {
  return !value.starts_with('-') && std::all_of(value.begin(), value.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           std::string_view("._:=/+@-").find(c) != std::string_view::npos;
  });
}

// Variables another program splits into its options, or runs as a command
// line (startup_variables.h has what each program does with them).
bool IsProgramWordsVariable(std::string_view name) {
  static constexpr std::string_view kNames[] = {
      "NODE_OPTIONS",    "PERL5OPT",    "RUBYOPT",           "JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS",
      "JDK_JAVA_OPTIONS", "GIT_SSH_COMMAND", "GIT_PAGER",   "GIT_EDITOR",        "GIT_EXTERNAL_DIFF",
      "GIT_ASKPASS",     "GIT_PROXY_COMMAND", "PAGER",      "EDITOR",            "VISUAL",
      "MANPAGER",        "SSH_ASKPASS", "LESSOPEN",          "LESSCLOSE"};
  return std::find(std::begin(kNames), std::end(kNames), name) != std::end(kNames);
}

// Where `scalar` stands in a container's `env` list: the item's path, and
// whether it is the item's `name` (else its `value`); kRoot elsewhere.
std::uint32_t EnvItem(const Tokens& tokens, const Scalar& scalar, bool* is_name) {
  if (scalar.is_key || scalar.path == PathSegment::kRoot) return PathSegment::kRoot;
  const PathSegment& entry = tokens.paths[scalar.path];
  if (entry.index >= 0 || (entry.key != "name" && entry.key != "value") || entry.parent == PathSegment::kRoot) {
    return PathSegment::kRoot;
  }
  const PathSegment& item = tokens.paths[entry.parent];
  if (item.index < 0 || item.parent == PathSegment::kRoot || tokens.paths[item.parent].key != "env") {
    return PathSegment::kRoot;
  }
  *is_name = entry.key == "name";
  return entry.parent;
}

// The reading of a `data` or `stringData` entry named like a start-up variable.
StartupReading DataEntryReading(const Tokens& tokens, const Scalar& scalar) {
  if (scalar.is_key || !IsDataEntry(tokens, scalar.path)) return StartupReading::kNone;
  return StartupReadingOf(tokens.paths[scalar.path].key);
}

void SetReading(StartupReading reading, Scalar* scalar) {
  if (reading != StartupReading::kNone) scalar->startup_variable = static_cast<std::uint8_t>(reading);
}

// An env item's `name` scalar: its reading, and the mark when a value could change it.
StartupReading NameReading(std::string_view text, Scalar* name) {
  const std::string decoded = DecodeScalar(text, *name);
  if (decoded.find('$') != std::string::npos) name->startup_variable = kStartupNameMark;
  return StartupReadingOf(decoded);
}

}  // namespace

StartupReading StartupReadingOf(std::string_view name) {
  if (name == "BASH_ENV" || name == "ENV" || name == "PS0" || name == "PS1" || name == "PS2" || name == "PS3" ||
      name == "PS4") {
    return StartupReading::kExpanded;
  }
  if (name == "SHELLOPTS" || name == "BASHOPTS") return StartupReading::kOptions;
  // bash exports a function as BASH_FUNC_name%% (older patched releases: BASH_FUNC_name()).
  const bool function = name.starts_with("BASH_FUNC_") && (name.ends_with("%%") || name.ends_with("()"));
  if (name == "PROMPT_COMMAND" || function) return StartupReading::kCode;
  if (IsProgramWordsVariable(name)) return StartupReading::kWords;
  return StartupReading::kNone;
}

std::string StartupValueProblem(StartupReading reading, std::string_view name, std::string_view value) {
  const std::string variable = "`" + std::string(name) + "`";
  switch (reading) {
    case StartupReading::kNone: return {};
    case StartupReading::kExpanded:
      if (value.find_first_of("$`\\'\"") == std::string_view::npos) return {};
      return "the value becomes the environment variable " + variable +
             ", which a shell expands again when it starts (a prompt, or the name of a start-up file), running any "
             "$(...) or backticks in it: a value with `$`, a backtick, a backslash or a quote is refused; declare "
             "the variable `shell: raw` if the value is meant to be shell code";
    case StartupReading::kOptions:
      if (IsOptionList(value)) return {};
      return "the value becomes the environment variable " + variable +
             ", which bash reads as its option names when it starts: only letters, digits, `_` and `:` are "
             "accepted; declare the variable `shell: raw` if the value is meant to be shell code";
    case StartupReading::kCode:
      if (IsDecimalInteger(value)) return {};
      return "the value becomes the environment variable " + variable +
             ", which bash runs as shell code (a prompt command, or an exported function): only a decimal integer "
             "is accepted (optional minus sign, no leading zero, at most 18 digits); declare the variable "
             "`shell: raw` if the value is meant to be shell code";
    case StartupReading::kWords:
      if (IsPlainWord(value)) return {};
      return "the value becomes the environment variable " + variable +
             ", which a program splits into its options or runs as a command line (perl's `-M`, node's "
             "`--require`, the JVM's `-XX:OnError=` run code): only one word of letters, digits and `._:=/+@-`, "
             "not starting with `-`, is accepted, so that it completes an option or word the template wrote; "
             "write the option itself in the template, or declare the variable `shell: raw` if the value is "
             "meant to be code";
  }
  return {};
}

void MarkStartupVariables(std::string_view text, Tokens* tokens) {
  // By document and env item: the reading its `name` gives; its `value` scalars.
  std::map<std::pair<std::uint32_t, std::uint32_t>, StartupReading> names;
  std::vector<std::pair<std::pair<std::uint32_t, std::uint32_t>, Scalar*>> values;
  for (Scalar& scalar : tokens->scalars) {
    SetReading(DataEntryReading(*tokens, scalar), &scalar);
    bool is_name = false;
    const std::uint32_t item = EnvItem(*tokens, scalar, &is_name);
    if (item == PathSegment::kRoot) continue;
    if (is_name) {
      names[{scalar.document, item}] = NameReading(text, &scalar);
    } else {
      values.push_back({{scalar.document, item}, &scalar});
    }
  }
  for (auto& [item, value] : values) {
    auto name = names.find(item);
    if (name != names.end()) SetReading(name->second, value);
  }
}

std::string StartupVariableName(std::string_view text, const Tokens& tokens, std::uint32_t index) {
  const Scalar& scalar = tokens.scalars[index];
  bool is_name = false;
  const std::uint32_t item = EnvItem(tokens, scalar, &is_name);
  if (item == PathSegment::kRoot) return std::string(tokens.paths[scalar.path].key);
  // The item's other scalars stand next to it: its keys, and `valueFrom` holds no `name` of the item.
  for (std::size_t i = index > 4 ? index - 4 : 0; i < tokens.scalars.size() && i <= index + 4; ++i) {
    const Scalar& other = tokens.scalars[i];
    if (other.document == scalar.document && EnvItem(tokens, other, &is_name) == item && is_name) {
      return DecodeScalar(text, other);
    }
  }
  return "the shell start-up variable";
}

bool StartupVariablesAsRead::Mark(std::string_view text, const Tokens& tokens, Scalar* scalar) {
  if (scalar->is_key) return true;
  SetReading(DataEntryReading(tokens, *scalar), scalar);
  bool is_name = false;
  const std::uint32_t item = EnvItem(tokens, *scalar, &is_name);
  const bool after_its_name = item != PathSegment::kRoot && item == item_ && scalar->document == document_ &&
                              tokens.paths[item].index == index_;
  item_ = PathSegment::kRoot;
  if (item == PathSegment::kRoot) return true;
  if (is_name) {
    document_ = scalar->document;
    item_ = item;
    index_ = tokens.paths[item].index;
    reading_ = NameReading(text, scalar);
    return true;
  }
  // A `value` right after its item's `name` (the usual order); before it, the
  // name is not known yet, which matters only to a value with a placeholder.
  if (!after_its_name) return text.substr(scalar->offset, scalar->length).find('$') == std::string_view::npos;
  SetReading(reading_, scalar);
  return true;
}

}  // namespace safesubst
