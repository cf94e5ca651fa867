// SPDX-License-Identifier: Apache-2.0
// Values: reading values files (YAML or dotenv), resolving each declared
// variable's value by precedence, and validating all of them at once.
#include "safesubst/values.h"

#include <algorithm>
#include <deque>
#include <optional>
#include <unordered_map>

#include "default_references.h"
#include "redaction.h"
#include "references.h"
#include "bounded_read.h"
#include "validate.h"
#include "yaml_node_writer.h"
#include "yaml_load.h"
#include "yaml_tree.h"

namespace safesubst {

const Value* ValueSet::Find(std::string_view name) const {
  auto it = values_.find(name);
  return it == values_.end() ? nullptr : &it->second;
}

void ValueSet::Set(std::string name, Value value) { values_.insert_or_assign(std::move(name), std::move(value)); }

void ValueSet::Erase(std::string_view name) {
  if (auto found = values_.find(name); found != values_.end()) values_.erase(found);
}

namespace {

constexpr std::string_view kNameHint = "a name is a letter or '_' followed by letters, digits or '_'";

bool IsBlank(char c) { return c == ' ' || c == '\t'; }

bool EndsWith(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

std::string Quoted(std::string_view s) { return "'" + std::string(s) + "'"; }

// One entry of a values file, with what CollectValues needs beyond the text.
struct ValuesEntry {
  std::string name;
  Value value;         ///< text: the scalar, list items joined with ',', or YAML text
  std::string yaml;    ///< the node as YAML text, when it was a sequence or mapping
  bool structured = false;  ///< a mapping, or a sequence holding collections
  Location name_location;   ///< of NAME, for "not declared" warnings
};

// ---- dotenv -----------------------------------------------------------------

class DotenvReader {
 public:
  DotenvReader(std::string_view text, const std::string& file, std::vector<ValuesEntry>* entries,
               Diagnostics* diagnostics)
      : text_(text), lines_(std::string(text)), file_(file), entries_(*entries), diagnostics_(*diagnostics) {}

  void Read() {
    while (pos_ < text_.size()) ReadLine();
  }

 private:
  bool AtLineEnd() const { return pos_ >= text_.size() || text_[pos_] == '\n' || Crlf(pos_); }
  bool Crlf(std::size_t at) const { return text_[at] == '\r' && at + 1 < text_.size() && text_[at + 1] == '\n'; }
  void SkipBlanks() {
    while (pos_ < text_.size() && IsBlank(text_[pos_])) ++pos_;
  }
  void SkipLine() {
    while (pos_ < text_.size() && text_[pos_] != '\n') ++pos_;
    if (pos_ < text_.size()) ++pos_;
  }
  std::string_view RestOfLine() const {
    std::size_t end = text_.find('\n', pos_);
    return text_.substr(pos_, end == text_.npos ? text_.npos : end - pos_);
  }
  void Error(std::size_t offset, std::string message, std::string hint = {}) {
    diagnostics_.push_back(MakeError(lines_.Locate(offset, file_), std::move(message), std::move(hint)));
  }

  void ReadLine() {
    SkipBlanks();
    if (AtLineEnd() || text_[pos_] == '#') {
      SkipLine();
      return;
    }
    if (text_.substr(pos_, 6) == "export" && pos_ + 6 < text_.size() && IsBlank(text_[pos_ + 6])) {
      pos_ += 6;
      SkipBlanks();
    }
    const std::size_t name_start = pos_;
    while (pos_ < text_.size() && IsNameChar(text_[pos_])) ++pos_;
    std::string_view name = text_.substr(name_start, pos_ - name_start);
    if (!CheckNameAndEquals(name, name_start)) {
      SkipLine();
      return;
    }
    ++pos_;  // '='
    const std::size_t value_start = pos_;
    SkipBlanks();
    const bool blank_before_value = pos_ > value_start;
    ValuesEntry entry;
    entry.name = std::string(name);
    entry.name_location = lines_.Locate(name_start, file_);
    entry.value.source = ValueSource::kValuesFile;
    entry.value.origin = lines_.Locate(pos_, file_);
    if (pos_ < text_.size() && text_[pos_] == '\'') {
      if (!ReadSingleQuoted(&entry.value.text) || !CheckAfterQuote()) return;
    } else if (pos_ < text_.size() && text_[pos_] == '"') {
      if (!ReadDoubleQuoted(&entry.value.text) || !CheckAfterQuote()) return;
    } else {
      entry.value.text = ReadUnquoted(blank_before_value);
    }
    SkipLine();
    entries_.push_back(std::move(entry));
  }

  // Reports why `name` at `name_start` does not begin a NAME=VALUE line.
  bool CheckNameAndEquals(std::string_view name, std::size_t name_start) {
    const bool has_equals = RestOfLine().find('=') != std::string_view::npos;
    if (name.empty() && pos_ < text_.size() && text_[pos_] == '=') {
      Error(name_start, "missing variable name before '='", "write NAME=VALUE");
      return false;
    }
    if (name.empty() || !IsNameStart(name.front())) {
      if (!has_equals) {
        Error(name_start, "expected NAME=VALUE", "dotenv files hold NAME=VALUE lines and # comments");
      } else {
        Error(name_start, "invalid variable name", std::string(kNameHint));
      }
      return false;
    }
    if (pos_ < text_.size() && text_[pos_] == '=') return true;
    if (pos_ < text_.size() && IsBlank(text_[pos_])) {
      std::size_t next = pos_;
      while (next < text_.size() && IsBlank(text_[next])) ++next;
      if (next < text_.size() && text_[next] == '=') {
        Error(pos_, "blank between " + Quoted(name) + " and '='", "write NAME=VALUE with no blanks around '='");
        return false;
      }
    }
    if (!has_equals) {
      Error(pos_, "expected '=' after " + Quoted(name), "dotenv files hold NAME=VALUE lines and # comments");
    } else {
      Error(pos_, "invalid character in variable name " + Quoted(name) + "...", std::string(kNameHint));
    }
    return false;
  }

  bool ReadSingleQuoted(std::string* out) {
    const std::size_t open = pos_;
    std::size_t close = text_.find('\'', open + 1);
    if (close == text_.npos) {
      Error(open, "unterminated single-quoted value", "add the closing '");
      pos_ = text_.size();
      return false;
    }
    *out = std::string(text_.substr(open + 1, close - open - 1));
    pos_ = close + 1;
    return true;
  }

  bool ReadDoubleQuoted(std::string* out) {
    const std::size_t open = pos_++;
    while (pos_ < text_.size()) {
      char c = text_[pos_++];
      if (c == '"') return true;
      if (c != '\\' || pos_ >= text_.size()) {
        *out += c;
        continue;
      }
      char escaped = text_[pos_++];
      switch (escaped) {
        case 'n': *out += '\n'; break;
        case 't': *out += '\t'; break;
        case 'r': *out += '\r'; break;
        case '"': *out += '"'; break;
        case '\\': *out += '\\'; break;
        case '$': *out += '$'; break;
        default:  // not an escape we know: keep it as written, as the shell does
          *out += '\\';
          *out += escaped;
      }
    }
    Error(open, "unterminated double-quoted value", "add the closing \"");
    return false;
  }

  // After a closing quote only blanks and a comment may follow.
  bool CheckAfterQuote() {
    SkipBlanks();
    if (AtLineEnd() || text_[pos_] == '#') return true;
    Error(pos_, "unexpected text after the closing quote", "quote the whole value, or add a blank before a # comment");
    SkipLine();
    return false;
  }

  // `blank_before`: blanks separated the value from '=', so a leading '#' starts a comment.
  std::string ReadUnquoted(bool blank_before) {
    std::string_view rest = RestOfLine();
    for (std::size_t i = 0; i < rest.size(); ++i) {
      if (rest[i] == '#' && (i == 0 ? blank_before : IsBlank(rest[i - 1]))) {
        rest = rest.substr(0, i);
        break;
      }
    }
    while (!rest.empty() && (IsBlank(rest.back()) || rest.back() == '\r')) rest.remove_suffix(1);
    return std::string(rest);
  }

  std::string_view text_;
  std::size_t pos_ = 0;
  SourceText lines_;
  std::string file_;
  std::vector<ValuesEntry>& entries_;
  Diagnostics& diagnostics_;
};

// ---- YAML -------------------------------------------------------------------

// Empty when the node cannot be written back as YAML within `budget` (an
// alias bomb, a recursive alias), which is reported at the value.
std::optional<ValuesEntry> YamlEntry(const std::string& name, const detail::YamlRef& node, Location name_location,
                                     Location origin, detail::ExpansionBudget* budget, Diagnostics* diagnostics) {
  ValuesEntry entry;
  entry.name = name;
  entry.name_location = std::move(name_location);
  entry.value.source = ValueSource::kValuesFile;
  entry.value.origin = std::move(origin);
  if (node.IsScalar()) {
    entry.value.text = node.Scalar();
  } else if (node.IsSequence() || node.IsMap()) {
    if (std::string problem; !detail::NodeAsYaml(node, budget, &entry.yaml, &problem)) {
      diagnostics->push_back(MakeError(entry.value.origin, "the value of '" + name + "' " + problem));
      return std::nullopt;
    }
    entry.structured = node.IsMap();
    std::string joined;
    for (const detail::YamlRef& item : node.Items()) {
      if (!item.IsScalar()) {
        entry.structured = true;
        break;
      }
      if (!joined.empty()) joined += ',';
      joined += item.Scalar();
    }
    entry.value.text = entry.structured ? entry.yaml : joined;
  }  // null: the empty string
  return entry;
}

void ReadYamlValues(std::string_view text, const std::string& file, std::vector<ValuesEntry>* entries,
                    Diagnostics* diagnostics) {
  detail::YamlStream stream;
  if (detail::YamlParseError error; !detail::ParseYamlStream(text, &stream, &error)) {
    diagnostics->push_back(MakeError(detail::ParseErrorLocation(error, file), "invalid YAML: " + error.message));
    return;
  }
  if (stream.documents.empty()) return;
  const detail::YamlRef root(stream, stream.documents[0]);
  if (root.IsNull()) return;
  if (stream.documents.size() > 1) {
    diagnostics->push_back(MakeError(detail::YamlRef(stream, stream.documents[1]).At(file),
                                     "a values file is a single YAML document", "remove the '---' separator"));
  }
  if (!root.IsMap()) {
    diagnostics->push_back(
        MakeError(root.At(file), "a YAML values file must be a mapping", "write one NAME: value per line"));
    return;
  }
  detail::ExpansionBudget budget;  // for all the values of the file together
  for (const auto& [key, value] : root.Entries()) {
    Location key_location = key.At(file);
    if (!key.IsScalar() || !detail::IsIdentifier(key.Scalar())) {
      diagnostics->push_back(MakeError(key_location, "invalid variable name", std::string(kNameHint)));
      continue;
    }
    Location origin = value.IsNull() ? key_location : value.At(file);
    std::optional<ValuesEntry> entry =
        YamlEntry(key.Scalar(), value, key_location, std::move(origin), &budget, diagnostics);
    if (entry) entries->push_back(std::move(*entry));
  }
}

// Parses either format and warns about names set twice.
Result<std::vector<ValuesEntry>> ReadValuesEntries(std::string_view text, const std::string& file) {
  Result<std::vector<ValuesEntry>> result;
  // A UTF-8 byte order mark is not part of the first name (columns on the
  // first line do not count it, as in templates).
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
  // A lone carriage return would be read as part of a dotenv line, so the
  // assignments after it would vanish into one value. Other control
  // characters stay allowed: dotenv has no escape for them, and --set and
  // the environment take them too.
  for (std::size_t cr = text.find('\r'); cr != std::string_view::npos; cr = text.find('\r', cr + 1)) {
    if (cr + 1 < text.size() && text[cr + 1] == '\n') continue;
    result.diagnostics.push_back(MakeError(LocateOffset(text, cr, file), "carriage return not followed by a line feed",
                                           "end lines with LF or CRLF (e.g. dos2unix -c mac " + file + ")"));
    return result;
  }
  std::vector<ValuesEntry> entries;
  if (DetectValuesFormat(text, file) == ValuesFormat::kYaml) {
    ReadYamlValues(text, file, &entries, &result.diagnostics);
  } else {
    DotenvReader(text, file, &entries, &result.diagnostics).Read();
  }
  std::unordered_map<std::string_view, const ValuesEntry*> first_set;
  for (const ValuesEntry& entry : entries) {
    auto [it, inserted] = first_set.emplace(entry.name, &entry);
    if (inserted) continue;
    result.diagnostics.push_back(MakeWarning(entry.value.origin,
                                             Quoted(entry.name) + " is set twice in this file; the later value wins",
                                             "first set at line " + std::to_string(it->second->value.origin.line)));
  }
  std::stable_sort(result.diagnostics.begin(), result.diagnostics.end(), [](const Diagnostic& a, const Diagnostic& b) {
    return a.location.line < b.location.line;
  });
  result.value = std::move(entries);
  return result;
}

// ---- collecting -------------------------------------------------------------

// "NAME=VALUE" as in environ and --set; nullopt when there is no '='.
std::optional<std::pair<std::string_view, std::string_view>> SplitAssignment(std::string_view entry) {
  std::size_t equals = entry.find('=');
  if (equals == entry.npos) return std::nullopt;
  return std::make_pair(entry.substr(0, equals), entry.substr(equals + 1));
}

std::string Declaration(const Variable& variable) {
  std::string text = "declared";
  if (!variable.location.file.empty() && variable.location.line > 0) {
    text += " at " + variable.location.file + ":" + std::to_string(variable.location.line);
  }
  text += " as type " + std::string(VarTypeName(variable.type));
  if (!variable.pattern.empty()) text += " with pattern '" + variable.pattern + "'";
  return text;
}

std::string SourceHint(const Variable& variable, const Value& value) {
  switch (value.source) {
    case ValueSource::kDefault: return "the value is the manifest's default; fix it there";
    case ValueSource::kEnvironment:
      return "the value comes from the environment variable " + variable.name + "; " + Declaration(variable);
    case ValueSource::kValuesFile:
    case ValueSource::kCommandLine: return Declaration(variable);
  }
  return {};
}

class Collector {
 public:
  Collector(const Manifest& manifest, Result<ValueSet>* result)
      : manifest_(manifest), values_(result->value.emplace()), diagnostics_(result->diagnostics) {
    implicit_ = manifest.mode == DeclarationMode::kEnvironment || manifest.mode == DeclarationMode::kFlux;
    // The environment has hundreds of entries; look names up by hash, not by scan.
    for (const Variable& variable : manifest.variables) declared_.emplace(variable.name, &variable);
  }

  void Run(const ValueInputs& inputs) {
    for (const Variable& variable : manifest_.variables) {
      if (variable.default_value) {
        values_.Set(variable.name, Value{*variable.default_value, ValueSource::kDefault, variable.location});
      }
    }
    for (const std::string& entry : inputs.environment) AddEnvironment(entry);
    for (const std::string& path : inputs.values_files) AddValuesFile(path, inputs.max_file_bytes);
    for (std::size_t i = 0; i < inputs.sets.size(); ++i) AddSet(inputs.sets[i], i + 1);
    Diagnostics expanded = detail::ExpandDefaultReferences(manifest_, &values_, inputs.report_missing);
    diagnostics_.insert(diagnostics_.end(), expanded.begin(), expanded.end());
    ValidateAll(inputs.report_missing);
    if (manifest_.mode == DeclarationMode::kFlux) DropLineFeeds();
  }

 private:
  const Variable* Declared(std::string_view name) {
    if (auto it = declared_.find(name); it != declared_.end()) return it->second;
    if (!implicit_ || !detail::IsIdentifier(name)) return nullptr;
    Variable variable;
    variable.name = std::string(name);
    implicit_variables_.push_back(std::move(variable));
    declared_.emplace(implicit_variables_.back().name, &implicit_variables_.back());
    return &implicit_variables_.back();
  }

  void AddEnvironment(std::string_view entry) {
    auto assignment = SplitAssignment(entry);
    if (!assignment) return;
    const Variable* variable = Declared(assignment->first);
    if (variable == nullptr) return;  // the environment is full of unrelated names
    values_.Set(variable->name, Value{std::string(assignment->second), ValueSource::kEnvironment, variable->location});
  }

  void AddValuesFile(const std::string& path, std::size_t max_bytes) {
    std::string text;
    if (std::string error = detail::ReadFileBounded(path, max_bytes, "--max-manifest-size", &text);
        !error.empty()) {
      diagnostics_.push_back(MakeError(Location{path}, "cannot read values file " + Quoted(path) + ": " + error));
      return;
    }
    Result<std::vector<ValuesEntry>> parsed = ReadValuesEntries(text, path);
    diagnostics_.insert(diagnostics_.end(), parsed.diagnostics.begin(), parsed.diagnostics.end());
    // Entries that did parse still count, so that their problems are reported
    // together with the file's syntax errors.
    for (ValuesEntry& entry : *parsed.value) AddEntry(std::move(entry));
  }

  void AddEntry(ValuesEntry entry) {
    const Variable* variable = DeclaredOrWarn(entry.name, entry.name_location);
    if (variable == nullptr) return;
    if (variable->type == VarType::kYaml && !entry.yaml.empty()) {
      entry.value.text = entry.yaml;
    } else if (entry.structured) {
      diagnostics_.push_back(MakeError(entry.value.origin,
                                       variable->name + ": a YAML mapping or nested list is not a " +
                                           std::string(VarTypeName(variable->type)),
                                       "only type: yaml variables take structured values; " + Declaration(*variable)));
      structured_error_.push_back(variable->name);
    }
    values_.Set(variable->name, std::move(entry.value));
  }

  void AddSet(std::string_view entry, std::size_t index) {
    Location origin{"--set"};
    auto assignment = SplitAssignment(entry);
    if (!assignment) {
      // A declared name is shown (`--set APP`); anything else may be a
      // secret passed in the wrong place, and is named by its position only.
      if (declared_.count(entry) != 0 || manifest_.IsRuntime(entry)) {  // not Declared: it declares any name
        diagnostics_.push_back(MakeError(origin, "--set " + Quoted(entry) + " has no '=VALUE'",
                                         "write --set " + std::string(entry) + "=VALUE"));
      } else {
        diagnostics_.push_back(MakeError(origin, "--set argument " + std::to_string(index) + " has no '=' (not shown: "
                                         "it is no declared name, and may be a value)", "write --set NAME=VALUE"));
      }
      return;
    }
    if (!detail::IsIdentifier(assignment->first)) {
      diagnostics_.push_back(MakeError(origin, "--set " + Quoted(assignment->first) + ": invalid variable name",
                                       std::string(kNameHint)));
      return;
    }
    origin.file = "--set " + std::string(assignment->first);
    const Variable* variable = DeclaredOrWarn(assignment->first, origin);
    if (variable == nullptr) return;
    values_.Set(variable->name, Value{std::string(assignment->second), ValueSource::kCommandLine, origin});
  }

  // kustomize-controller removes every line feed from a postBuild value.
  void DropLineFeeds() {
    std::vector<std::pair<std::string, Value>> changed;
    for (const auto& [name, value] : values_.all()) {
      if (value.text.find('\n') == std::string::npos) continue;
      Value without = value;
      without.text.erase(std::remove(without.text.begin(), without.text.end(), '\n'), without.text.end());
      changed.emplace_back(name, std::move(without));
    }
    for (auto& [name, value] : changed) values_.Set(name, std::move(value));
  }

  const Variable* DeclaredOrWarn(std::string_view name, const Location& origin) {
    if (const Variable* variable = Declared(name)) return variable;
    if (manifest_.IsRuntime(name)) {
      diagnostics_.push_back(MakeWarning(origin, Quoted(name) + " is a runtime name in the manifest; this value is ignored",
                                         "runtime names are never substituted"));
      return nullptr;
    }
    std::string_view close = suggester_.Suggest(name);
    std::string hint = close.empty() ? "declare it under 'variables' in the manifest, or remove it"
                                     : "did you mean '" + std::string(close) + "'?";
    diagnostics_.push_back(MakeWarning(origin, Quoted(name) + " is not declared in the manifest; ignored", hint));
    return nullptr;
  }

  void ValidateAll(bool report_missing) {
    for (const Variable& variable : manifest_.variables) Validate(variable, report_missing);
    for (const Variable& variable : implicit_variables_) Validate(variable, report_missing);
  }

  void Validate(const Variable& variable, bool report_missing) {
    const Value* value = values_.Find(variable.name);
    if (value == nullptr) {
      if (variable.required && report_missing) {
        diagnostics_.push_back(MakeError(variable.location, variable.name + " is required but has no value",
                                         "set it with --set " + variable.name + "=..., a values file, or the "
                                         "environment"));
      }
      return;
    }
    if (std::find(structured_error_.begin(), structured_error_.end(), variable.name) != structured_error_.end()) {
      return;  // already reported
    }
    if (variable.required && value->text.empty()) {
      diagnostics_.push_back(MakeError(value->origin, variable.name + " is required but its value is empty",
                                       SourceHint(variable, *value)));
      return;
    }
    std::string problem = ValidateValue(variable, value->text);
    if (!problem.empty()) diagnostics_.push_back(MakeError(value->origin, problem, SourceHint(variable, *value)));
  }

  const Manifest& manifest_;
  ValueSet& values_;
  Diagnostics& diagnostics_;
  detail::NameSuggester suggester_{manifest_.variables};
  bool implicit_ = false;
  // Names declared by being given, in kEnvironment mode. A deque, so that
  // pointers handed out by Declared() stay valid as more names arrive.
  std::deque<Variable> implicit_variables_;
  std::vector<std::string> structured_error_;
  // Keys view the names owned by the manifest or by implicit_variables_.
  std::unordered_map<std::string_view, const Variable*> declared_;
};

}  // namespace

ValuesFormat DetectValuesFormat(std::string_view text, std::string_view file) {
  if (EndsWith(file, ".yaml") || EndsWith(file, ".yml") || EndsWith(file, ".json")) return ValuesFormat::kYaml;
  if (EndsWith(file, ".env")) return ValuesFormat::kDotenv;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t end = text.find('\n', pos);
    std::string_view line = text.substr(pos, end == text.npos ? text.npos : end - pos);
    pos = end == text.npos ? text.size() : end + 1;
    std::size_t first = line.find_first_not_of(" \t\r");
    if (first == line.npos || line[first] == '#') continue;
    line.remove_prefix(first);
    if (line.substr(0, 3) == "---" || line.front() == '{') return ValuesFormat::kYaml;
    if (line.front() == '"' || line.front() == '\'') {
      std::size_t close = line.find(line.front(), 1);
      return close != line.npos && line.substr(close + 1, 1) == ":" ? ValuesFormat::kYaml : ValuesFormat::kDotenv;
    }
    std::size_t name_end = 0;
    while (name_end < line.size() && IsNameChar(line[name_end])) ++name_end;
    return name_end > 0 && name_end < line.size() && line[name_end] == ':' ? ValuesFormat::kYaml
                                                                           : ValuesFormat::kDotenv;
  }
  return ValuesFormat::kDotenv;
}

Result<std::vector<std::pair<std::string, Value>>> ParseValuesText(std::string_view text, const std::string& file) {
  Result<std::vector<ValuesEntry>> entries = ReadValuesEntries(text, file);
  Result<std::vector<std::pair<std::string, Value>>> result;
  result.diagnostics = std::move(entries.diagnostics);
  if (HasErrors(result.diagnostics)) return result;
  auto& pairs = result.value.emplace();
  for (ValuesEntry& entry : *entries.value) pairs.emplace_back(std::move(entry.name), std::move(entry.value));
  return result;
}

Result<ValueSet> CollectValues(const Manifest& manifest, const ValueInputs& inputs) {
  Result<ValueSet> result;
  Collector(manifest, &result).Run(inputs);
  return result;
}

std::string RedactSensitive(std::string_view text, const Manifest& manifest, const ValueSet& values) {
  Redactor redactor;
  redactor.AddValues(manifest, values);
  return redactor.Mask(text);
}

}  // namespace safesubst
