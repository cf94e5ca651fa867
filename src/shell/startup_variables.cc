// SPDX-License-Identifier: Apache-2.0
#include "startup_variables.h"

#include <algorithm>
#include <map>
#include <tuple>
#include <utility>
#include <vector>

#include "object_paths.h"
#include "shell.h"

namespace safesubst {

namespace {

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

// The JVM's options variables, and whether a word the template started there
// is a system property's value (`-Dname=`), which the JVM never runs.
bool IsJvmPropertyValue(std::string_view name, std::string_view word_before) {
  const bool jvm = name == "JAVA_TOOL_OPTIONS" || name == "_JAVA_OPTIONS" || name == "JDK_JAVA_OPTIONS";
  return jvm && word_before.starts_with("-D") && word_before.find('=') != std::string_view::npos;
}

// One word the JVM splits its options variable into: no blank, quote, `\` or control.
bool IsJvmWord(std::string_view value) {
  return std::all_of(value.begin(), value.end(), [](char c) {
    return static_cast<unsigned char>(c) > ' ' && c != 0x7f && c != '\'' && c != '"' && c != '\\';
  });
}

// Variables another program splits into its options, or runs as a command
// line (startup_variables.h has what each program does with them).
bool IsProgramWordsVariable(std::string_view name) {
  static constexpr std::string_view kNames[] = {
      // options
      "NODE_OPTIONS", "PERL5OPT", "RUBYOPT", "JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS", "JDK_JAVA_OPTIONS", "TAR_OPTIONS",
      "GIT_CONFIG_PARAMETERS", "PERL5DB",
      // command lines
      "GIT_SSH_COMMAND", "GIT_PAGER", "GIT_EDITOR", "GIT_SEQUENCE_EDITOR", "GIT_EXTERNAL_DIFF", "GIT_ASKPASS",
      "GIT_PROXY_COMMAND", "PAGER", "SYSTEMD_PAGER", "MANPAGER", "EDITOR", "VISUAL", "FCEDIT", "BROWSER",
      "SSH_ASKPASS", "SUDO_ASKPASS", "LESSOPEN", "LESSCLOSE", "RSYNC_RSH", "RSYNC_CONNECT_PROG", "CVS_RSH",
      "SVN_SSH"};
  return std::find(std::begin(kNames), std::end(kNames), name) != std::end(kNames);
}

// Where `scalar` stands in a container's `env` list: the item's path, and
// whether it is the item's `name` (else its `value`); kRoot elsewhere.
std::uint32_t EnvItem(const Tokens& tokens, const Scalar& scalar, bool* is_name) {
  std::string_view key;
  const std::uint32_t item = EnvItemOf(tokens, scalar, &key);
  *is_name = key == "name";
  return item;
}

// The `prefix` of an item of an `envFrom` list.
bool IsEnvFromPrefix(const Tokens& tokens, const Scalar& scalar) {
  if (scalar.is_key || scalar.path == PathSegment::kRoot) return false;
  const PathSegment& entry = tokens.paths[scalar.path];
  if (entry.index >= 0 || entry.key != "prefix" || entry.parent == PathSegment::kRoot) return false;
  const PathSegment& item = tokens.paths[entry.parent];
  return item.index >= 0 && item.parent != PathSegment::kRoot && tokens.paths[item.parent].key == "envFrom";
}

// A `data` or `stringData` entry, whose key an `envFrom` prefix may make a variable's name.
bool DataEntryMayBeVariable(const Tokens& tokens, const Scalar& scalar) {
  return !scalar.is_key && IsDataEntry(tokens, scalar.path);
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

std::string StartupValueProblem(StartupReading reading, std::string_view name, std::string_view value,
                                std::string_view word_before) {
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
      if (IsShellInteger(value)) return {};
      return "the value becomes the environment variable " + variable +
             ", which bash runs as shell code (a prompt command, or an exported function): only a decimal integer "
             "is accepted (optional minus sign, no leading zero, at most 18 digits); declare the variable "
             "`shell: raw` if the value is meant to be shell code";
    case StartupReading::kWords:
      if (IsJvmPropertyValue(name, word_before) ? IsJvmWord(value) : IsPlainWord(value)) return {};
      return "the value becomes the environment variable " + variable +
             ", which a program splits into its options or runs as a command line (perl's `-M`, node's "
             "`--require`, the JVM's `-XX:OnError=` run code): only one word of letters, digits and `._:=/+@-`, "
             "not starting with `-`, is accepted (after a JVM property's `-Dname=`, any characters but a blank, "
             "a quote or `\\`), so that it completes an option or word the template wrote; "
             "write the option itself in the template, or declare the variable `shell: raw` if the value is "
             "meant to be code";
  }
  return {};
}

namespace {

// One item of a container's `env` list.
struct EnvItemScalars {
  std::uint32_t document = 0;
  std::uint32_t list = PathSegment::kRoot;  // the `env` sequence
  std::int32_t index = -1;
  std::string name;
  std::vector<std::uint32_t> values;  // indexes of its `value` scalars
  StartupReading reading = StartupReading::kNone;
  std::vector<std::string> data_keys;  // the ConfigMap or Secret keys its `valueFrom` takes
  std::vector<std::string> annotations;  // the annotations its `valueFrom.fieldRef` takes
};

// The `prefix` of each `envFrom` item: it is put before every key of the
// ConfigMap or Secret it names to make the variable.
std::vector<std::string> EnvFromPrefixes(std::string_view text, const Tokens& tokens) {
  std::vector<std::string> prefixes;
  for (const Scalar& scalar : tokens.scalars) {
    if (IsEnvFromPrefix(tokens, scalar)) prefixes.push_back(DecodeScalar(text, scalar));
  }
  return prefixes;
}

// The strictest reading a data entry's key gives, alone or after an `envFrom` prefix.
StartupReading DataEntryReading(const Tokens& tokens, const Scalar& scalar, const std::vector<std::string>& prefixes) {
  StartupReading reading = DataEntryReading(tokens, scalar);
  if (reading == StartupReading::kNone && !DataEntryMayBeVariable(tokens, scalar)) return reading;
  const std::string_view key = tokens.paths[scalar.path].key;
  for (const std::string& prefix : prefixes) reading = std::max(reading, StartupReadingOf(prefix + std::string(key)));
  return reading;
}

// kubelet expands `$(NAME)` in an env value with the items before it: an
// item whose value lands in a start-up variable's takes that reading too,
// and so on down a chain. The items are read from the last of each list to
// the first, each once: only the items after an item name it, so its
// reading is final when it is reached. (A fixpoint moved one link of a
// chain per round over every reference and item: a 2,000-link chain took
// 5 s, 4,000 links 70 s.)
void Propagate(const Tokens& tokens, std::vector<EnvItemScalars>* items) {
  std::map<std::uint32_t, std::size_t> item_of_scalar;
  for (std::size_t i = 0; i < items->size(); ++i) {
    for (std::uint32_t value : (*items)[i].values) item_of_scalar[value] = i;
  }
  std::vector<std::vector<std::string_view>> named(items->size());  // the `$(NAME)`s of each item's values
  for (const Reference& reference : tokens.references) {
    if (reference.kind != RefKind::kKubernetes || reference.scalar == Reference::kNoScalar) continue;
    auto user = item_of_scalar.find(reference.scalar);
    if (user != item_of_scalar.end()) named[user->second].push_back(reference.name);
  }
  std::vector<std::size_t> order(items->size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    const EnvItemScalars &x = (*items)[a], &y = (*items)[b];
    return std::tie(x.document, x.list, x.index) > std::tie(y.document, y.list, y.index);
  });
  // The strictest reading the items read so far hand to a name of their list.
  std::map<std::tuple<std::uint32_t, std::uint32_t, std::string_view>, StartupReading> handed;
  for (std::size_t i : order) {
    EnvItemScalars& item = (*items)[i];
    auto given = handed.find({item.document, item.list, item.name});
    if (given != handed.end()) item.reading = std::max(item.reading, given->second);
    if (item.reading == StartupReading::kNone) continue;
    for (std::string_view name : named[i]) {
      StartupReading& reading = handed[{item.document, item.list, name}];
      reading = std::max(reading, item.reading);
    }
  }
}

// An item whose `valueFrom` takes a ConfigMap's or Secret's key gets that
// entry's value: every `data`/`stringData` entry of the stream with that key
// takes the item's reading (which object the item names is not followed);
// so does every annotation of its document that its `fieldRef` names.
void MarkTakenDataEntries(const std::vector<EnvItemScalars>& items, Tokens* tokens) {
  std::map<std::string_view, StartupReading> by_key;
  std::map<std::pair<std::uint32_t, std::string_view>, StartupReading> by_annotation;
  for (const EnvItemScalars& item : items) {
    if (item.reading == StartupReading::kNone) continue;
    for (const std::string& key : item.data_keys) by_key[key] = std::max(by_key[key], item.reading);
    for (const std::string& key : item.annotations) {
      StartupReading& reading = by_annotation[{item.document, key}];
      reading = std::max(reading, item.reading);
    }
  }
  if (by_key.empty() && by_annotation.empty()) return;
  for (Scalar& scalar : tokens->scalars) {
    StartupReading taken = StartupReading::kNone;
    if (DataEntryMayBeVariable(*tokens, scalar)) {
      auto found = by_key.find(tokens->paths[scalar.path].key);
      if (found != by_key.end()) taken = found->second;
    } else if (IsAnnotationEntry(*tokens, scalar)) {
      auto found = by_annotation.find({scalar.document, tokens->paths[scalar.path].key});
      if (found != by_annotation.end()) taken = found->second;
    }
    SetReading(std::max(static_cast<StartupReading>(scalar.startup_variable), taken), &scalar);
  }
}

}  // namespace

void MarkStartupVariables(std::string_view text, Tokens* tokens) {
  const std::vector<std::string> prefixes = EnvFromPrefixes(text, *tokens);
  std::map<std::pair<std::uint32_t, std::uint32_t>, std::size_t> by_item;  // (document, item path) -> items
  std::vector<EnvItemScalars> items;
  for (std::uint32_t index = 0; index < tokens->scalars.size(); ++index) {
    Scalar& scalar = tokens->scalars[index];
    SetReading(DataEntryReading(*tokens, scalar, prefixes), &scalar);
    bool is_name = false;
    std::uint32_t item = EnvItem(*tokens, scalar, &is_name);
    const std::uint32_t key_ref = item == PathSegment::kRoot ? EnvItemOfKeyRef(*tokens, scalar) : PathSegment::kRoot;
    const std::uint32_t field_ref = item == PathSegment::kRoot ? EnvItemOfFieldRef(*tokens, scalar) : PathSegment::kRoot;
    if (item == PathSegment::kRoot) item = key_ref != PathSegment::kRoot ? key_ref : field_ref;
    if (item == PathSegment::kRoot) continue;
    auto [found, inserted] = by_item.try_emplace({scalar.document, item}, items.size());
    if (inserted) {
      items.push_back({scalar.document, tokens->paths[item].parent, tokens->paths[item].index, {}, {}, {}, {}, {}});
    }
    EnvItemScalars& env = items[found->second];
    if (key_ref != PathSegment::kRoot) {
      env.data_keys.push_back(DecodeScalar(text, scalar));
    } else if (field_ref != PathSegment::kRoot) {
      std::string annotation = AnnotationOfFieldPath(DecodeScalar(text, scalar));
      if (!annotation.empty()) env.annotations.push_back(std::move(annotation));
    } else if (is_name) {
      env.reading = NameReading(text, &scalar);
      env.name = DecodeScalar(text, scalar);
    } else {
      env.values.push_back(index);
    }
  }
  Propagate(*tokens, &items);
  for (const EnvItemScalars& item : items) {
    for (std::uint32_t value : item.values) SetReading(item.reading, &tokens->scalars[value]);
  }
  MarkTakenDataEntries(items, tokens);
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
  // A prefix composes names with keys read before it, and a `valueFrom` key
  // or annotation takes an entry that may have been read before it: the whole render reads them all.
  if (IsEnvFromPrefix(tokens, *scalar) || EnvItemOfKeyRef(tokens, *scalar) != PathSegment::kRoot) return false;
  if (EnvItemOfFieldRef(tokens, *scalar) != PathSegment::kRoot && !AnnotationOfFieldPath(DecodeScalar(text, *scalar)).empty()) {
    return false;
  }
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
  // Its `$(NAME)` makes an earlier item's value part of it: marked by the whole render (Propagate).
  const std::string_view raw = text.substr(scalar->offset, scalar->length);
  return reading_ == StartupReading::kNone || raw.find("$(") == std::string_view::npos;
}

}  // namespace safesubst
