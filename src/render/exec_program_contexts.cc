// SPDX-License-Identifier: Apache-2.0
#include "exec_program_contexts.h"

#include <algorithm>
#include <optional>
#include <string>
#include <utility>

#include "command_line.h"
#include "interpreter_programs.h"
#include "object_paths.h"

namespace safesubst {

namespace {

// The references of each exec_program scalar: [first, end) of Tokens::references.
using ReferenceRanges = std::unordered_map<std::uint32_t, std::pair<std::size_t, std::size_t>>;

ReferenceRanges ExecProgramReferences(const Tokens& tokens) {
  ReferenceRanges ranges;
  for (std::size_t i = 0; i < tokens.references.size(); ++i) {
    const std::uint32_t scalar = tokens.references[i].scalar;
    if (scalar == Reference::kNoScalar || !tokens.scalars[scalar].exec_program) continue;
    auto [range, inserted] = ranges.try_emplace(scalar, i, i);
    range->second.second = i + 1;
  }
  return ranges;
}

// A `$` that an escape spells, or a form a line fold splits, has no place
// of its own in the decoded item: the value is taken as code there, the
// strict reading.
ShellContext Unplaced() {
  ShellContext context;
  context.operand = ShellOperand::kProgramCode;
  context.evaluated_by = "the interpreter this command line runs";
  return context;
}

// The string `env -S` splits, with its own quoting (`'...'`, `"..."`, `\_`,
// `${NAME}`), into the command line it runs: no field of it is delimited
// here, so a value there is code (attacker s30 A1).
ShellContext SplitByEnv() {
  ShellContext context;
  context.operand = ShellOperand::kProgramCode;
  context.evaluated_by = "`env -S`, which splits this item into a command line with its own quoting and runs it";
  return context;
}

bool SameReading(const ShellContext& a, const ShellContext& b) {
  return a.operand == b.operand && a.program_stops == b.program_stops && a.evaluated_by == b.evaluated_by;
}

}  // namespace

// One command line: its decoded items, and each reference placed in them.
struct ExecProgramContexts::Line {
  struct Place {
    std::size_t reference = 0;  // into Tokens::references
    ArgvPlace at;
    std::size_t length = 0;                // of the form in the decoded item
    std::optional<std::string_view> value;  // when substituted
  };
  std::vector<std::string> argv;  // a program file: its one text
  std::vector<Place> places;  // in item, then offset order
  bool program_file = false;  // a scalar whose `#!` line (or else its file name) names the interpreter
  std::string_view file_name;  // of a program file: its key in a ConfigMap's `data`, or empty

  // The contexts of the places `read` (indexes into `places`) with the
  // values of `put_in` written in their places, and after the value of
  // `probed` (npos for none) a placeholder: its context is the last one.
  std::vector<ShellContext> Reading(const std::vector<std::size_t>& read, const std::vector<bool>& put_in,
                                    std::size_t probed) const {
    std::vector<std::string> items = argv;
    std::vector<ArgvPlace> at(places.size());
    ArgvPlace probe;
    for (std::size_t item = 0, p = 0; item < argv.size(); ++item) {
      std::string text;
      std::size_t copied = 0;
      for (; p < places.size() && places[p].at.item == item; ++p) {
        const Place& place = places[p];
        text.append(argv[item], copied, place.at.offset - copied);
        at[p] = {item, text.size()};
        text.append(put_in[p] ? std::string(*place.value) : argv[item].substr(place.at.offset, place.length));
        if (p == probed) {
          probe = {item, text.size()};
          text.append(kProbe);
        }
        copied = place.at.offset + place.length;
      }
      text.append(argv[item], copied);
      items[item] = std::move(text);
    }
    std::vector<ArgvPlace> read_at;
    for (std::size_t p : read) read_at.push_back(at[p]);
    if (probed != std::string::npos) read_at.push_back(probe);
    std::vector<ShellContext> contexts(read_at.size());
    if (program_file) {
      std::vector<std::size_t> offsets;
      for (const ArgvPlace& place : read_at) offsets.push_back(place.offset);
      AddProgramFileReadings(items[0], file_name, offsets, &contexts);
    } else {
      AddArgvProgramReadings(items, read_at, &contexts);
    }
    return contexts;
  }

  static constexpr std::string_view kProbe = "${SAFESUBST_PROBE}";
};

void ExecProgramContexts::Keep(std::size_t reference, ShellContext&& context) {
  std::vector<const ShellContext*>& contexts = by_reference_[reference];
  for (const ShellContext* known : contexts) {
    if (SameReading(*known, context)) return;
  }
  contexts.push_back(&kept_.emplace_back(std::move(context)));
}

// The template's reading; then, for each value outside program text there,
// the reading with every such value in and a placeholder right after this
// one: where that placeholder stands in program text, the value made it so
// (`-c`, `--expression=...`, the interpreter's name) and is checked for the
// field it ends in; the places in program text are checked for that
// reading too.
void ExecProgramContexts::ReadLine(const Line& line) {
  const std::size_t count = line.places.size();
  std::vector<std::size_t> all(count), program, deciding;
  for (std::size_t p = 0; p < count; ++p) all[p] = p;
  std::vector<ShellContext> contexts = line.Reading(all, std::vector<bool>(count, false), std::string::npos);
  for (std::size_t p = 0; p < count; ++p) {
    const bool in_program = contexts[p].operand != ShellOperand::kNone;
    if (in_program) Keep(line.places[p].reference, std::move(contexts[p]));
    if (in_program) program.push_back(p);
    if (!in_program && line.places[p].value) deciding.push_back(p);
  }
  std::vector<bool> put_in(count, false);
  for (std::size_t d : deciding) put_in[d] = true;
  for (std::size_t d : deciding) {
    contexts = line.Reading(program, put_in, d);
    for (std::size_t i = 0; i < program.size(); ++i) {
      if (contexts[i].operand != ShellOperand::kNone) Keep(line.places[program[i]].reference, std::move(contexts[i]));
    }
    // To leave the field it starts in for another, a value crosses that one's opening delimiter, which is
    // among its stops: checked against the field it ends in, a value that moved is refused.
    if (contexts.back().operand != ShellOperand::kNone) Keep(line.places[d].reference, std::move(contexts.back()));
  }
}

void ExecProgramContexts::Read(std::string_view text, const Tokens& tokens,
                               std::span<const ReferenceValue> substitutions) {
  const ReferenceRanges ranges = ExecProgramReferences(tokens);
  if (ranges.empty()) return;
  std::unordered_map<std::size_t, std::string_view> values;
  for (const ReferenceValue& substitution : substitutions) {
    values.emplace(static_cast<std::size_t>(substitution.reference - tokens.references.data()), substitution.value);
  }
  // Item `item` of `line`: the scalar's decoded text, and its references placed in it.
  auto add_item = [&](std::uint32_t scalar, Line* line) {
    const std::size_t item = line->argv.size();
    std::vector<std::size_t> source_offsets;
    line->argv.push_back(DecodeScalar(text, tokens.scalars[scalar], &source_offsets));
    auto range = ranges.find(scalar);
    if (range == ranges.end()) return;
    for (std::size_t r = range->second.first; r < range->second.second; ++r) {
      const Reference& reference = tokens.references[r];
      auto begin = std::lower_bound(source_offsets.begin(), source_offsets.end(), reference.offset);
      auto end = std::lower_bound(begin, source_offsets.end(), reference.offset + reference.length);
      if (begin == source_offsets.end() || *begin != reference.offset ||
          static_cast<std::size_t>(end - begin) != reference.length) {
        Keep(r, Unplaced());
        continue;
      }
      Line::Place place{r, {item, static_cast<std::size_t>(begin - source_offsets.begin())}, reference.length, {}};
      if (auto value = values.find(r); value != values.end()) place.value = value->second;
      line->places.push_back(place);
    }
  };
  const CommandLines lines = CollectCommandLines(tokens);
  for (const CommandLine& command_line : lines.lines) {
    auto has_references = [&](std::uint32_t scalar) { return ranges.count(scalar) != 0; };
    if (std::none_of(command_line.items.begin(), command_line.items.end(), has_references)) continue;
    Line line;
    for (std::uint32_t item : command_line.items) add_item(item, &line);
    const std::size_t split = EnvSplitStringItem(line.argv);
    for (const Line::Place& place : line.places) {
      if (place.at.item == split) Keep(place.reference, SplitByEnv());
    }
    ReadLine(line);
  }
  // Program files (`#!/usr/bin/env python3`): read as a line of one item; a value on the `#!` line that
  // names the interpreter is put in like any value outside program text.
  for (const auto& [scalar, range] : ranges) {
    const std::uint32_t path = tokens.scalars[scalar].path;
    if (IsCommandLineItem(tokens, tokens.scalars[scalar])) continue;
    Line line;
    line.program_file = true;
    if (IsDataEntry(tokens, path)) line.file_name = tokens.paths[path].key;
    add_item(scalar, &line);
    ReadLine(line);
  }
}

}  // namespace safesubst
