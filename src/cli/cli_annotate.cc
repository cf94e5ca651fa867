// SPDX-License-Identifier: Apache-2.0
// `safesubst explain --annotate` and `explain --format html`: the template
// itself, each reference marked by its fate (substituted, with its value or
// *** for a sensitive one; kept for the shell; kept undeclared; escaped; an
// error; ignored), for a reviewer who would rather read the template than a
// table. The page is self-contained: no script, font, image or style sheet
// is fetched, so that it can be a CI artifact or sit in a sandboxed viewer.
#include <algorithm>
#include <iterator>
#include <string>

#include "cli.h"

namespace safesubst::cli {

namespace {

using Action = ReferenceReport::Action;

// How one fate is shown: its CSS class and colour, its terminal colour, and the tag without colour.
struct Fate {
  const char* css_class;
  const char* css_colour;  // background of the mark
  const char* ansi;        // SGR parameters
  const char* tag;         // without colour: [tag] after the reference
  const char* legend;
};

// In the order of ReferenceReport::Action, which the legend follows too.
constexpr Fate kFates[] = {
    {"substitute", "#c8f0c8", "32", "=", "substituted (with its value, *** when sensitive)"},
    {"runtime", "#cce4ff", "36", "runtime", "kept for the shell at run time"},
    {"undeclared", "#fff0b3", "33", "kept", "not declared: kept as written (a warning)"},
    {"escape", "#ecd9ff", "35", "escaped", "$${NAME} written as a literal ${NAME}"},
    {"error", "#ffc2c2", "1;31", "ERROR", "an error: the render fails"},
    {"ignored", "#e6e6e6", "2", "ignored", "ignored (a comment, $(NAME), $$, shell syntax)"},
};
static_assert(std::size(kFates) == static_cast<std::size_t>(Action::kIgnored) + 1);

const Fate& FateOf(Action action) { return kFates[static_cast<std::size_t>(action)]; }

// A reference placed in its template's text.
struct Mark {
  std::size_t offset = 0;
  std::size_t length = 0;
  const ReferenceReport* reference = nullptr;
};

// The offsets of the references (which carry 1-based lines and byte
// columns), in text order; a reference that does not match the text at its
// place (it cannot, but a mark in the wrong place would mislead) is left out.
std::vector<Mark> PlaceMarks(std::string_view text, const std::vector<ReferenceReport>& references) {
  std::vector<std::size_t> line_starts{0};
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\n') line_starts.push_back(i + 1);
  }
  std::vector<Mark> marks;
  for (const ReferenceReport& reference : references) {
    if (reference.line == 0 || reference.line > line_starts.size() || reference.column == 0) continue;
    const std::size_t offset = line_starts[reference.line - 1] + reference.column - 1;
    if (text.substr(offset, reference.text.size()) != reference.text) continue;
    marks.push_back(Mark{offset, reference.text.size(), &reference});
  }
  std::sort(marks.begin(), marks.end(), [](const Mark& a, const Mark& b) { return a.offset < b.offset; });
  return marks;
}

// What a substituted reference stands for: its value, *** when the variable
// is sensitive, a long or multi-line value shortened to one line.
std::string ShownValue(const ReferenceReport& reference, const Manifest& manifest, const ValueSet& values) {
  const Variable* variable = manifest.Find(reference.name);
  if (variable != nullptr && variable->sensitive) return "***";
  const Value* value = values.Find(reference.name);
  if (value == nullptr) return "";
  constexpr std::size_t kMaxShown = 48;
  std::string shown;
  for (char c : value->text.substr(0, kMaxShown)) shown += c == '\n' ? std::string("\\n") : std::string(1, c);
  return value->text.size() > kMaxShown ? shown + "..." : shown;
}

// The note a mark carries: the value it gets, or why it gets its fate.
std::string Annotation(const ReferenceReport& reference, const Manifest& manifest, const ValueSet& values) {
  if (reference.action == Action::kSubstitute) return ShownValue(reference, manifest, values);
  return reference.note;
}

std::string Html(std::string_view text) {
  std::string escaped;
  for (char c : text) {
    switch (c) {
      case '&': escaped += "&amp;"; break;
      case '<': escaped += "&lt;"; break;
      case '>': escaped += "&gt;"; break;
      case '"': escaped += "&quot;"; break;
      case '\'': escaped += "&#39;"; break;
      default: escaped += c;
    }
  }
  return escaped;
}

// Marks are drawn on a white page whatever the reader's theme: the colours
// are the fates, and the dark text must stay readable on them.
constexpr const char* kPageStyle = R"(
body { font-family: sans-serif; margin: 1.5em; color: #111; background: #fff; }
h1 { font-size: 1.2em; }
h2 { font-size: 1em; font-family: monospace; margin-top: 2em; }
pre { font-family: monospace; font-size: 14px; line-height: 1.5; border: 1px solid #ccc; padding: 0.8em; overflow-x: auto; }
mark { color: #111; border-radius: 3px; padding: 0 2px; }
mark .value { font-style: italic; color: #333; }
mark .value::before { content: " = "; }
.legend span { display: inline-block; margin: 0 0.8em 0.4em 0; padding: 0 4px; border-radius: 3px; }
)";

std::string PageStyle() {
  std::string style = kPageStyle;
  for (const Fate& fate : kFates) {
    style += std::string(".") + fate.css_class + " { background: " + fate.css_colour + "; }\n";
  }
  return style;
}

}  // namespace

std::string AnnotateForTerminal(const AnnotatedTemplate& annotated, const Manifest& manifest, const ValueSet& values,
                                bool color) {
  std::string out;
  std::size_t at = 0;
  for (const Mark& mark : PlaceMarks(annotated.text, annotated.references)) {
    if (mark.offset < at) continue;  // overlapping references: the first is shown
    out.append(annotated.text, at, mark.offset - at);
    const ReferenceReport& reference = *mark.reference;
    const Fate& fate = FateOf(reference.action);
    const std::string written = annotated.text.substr(mark.offset, mark.length);
    const std::string tag = reference.action == Action::kSubstitute
                                ? "=" + ShownValue(reference, manifest, values)
                                : std::string(fate.tag);
    if (color) {
      out += std::string("\x1b[") + fate.ansi + ";4m" + written + "\x1b[0m\x1b[2m[" + tag + "]\x1b[0m";
    } else {
      out += written + "[" + tag + "]";
    }
    at = mark.offset + mark.length;
  }
  out.append(annotated.text, at, std::string::npos);
  if (!out.empty() && out.back() != '\n') out += '\n';
  return out;
}

std::string AnnotateAsHtml(const std::vector<AnnotatedTemplate>& templates, const Manifest& manifest,
                           const ValueSet& values) {
  std::string page =
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\n"
      "<title>safesubst explain</title>\n<style>" + PageStyle() + "</style>\n</head>\n<body>\n"
      "<h1>safesubst explain: every $ and what rendering does with it</h1>\n<p class=\"legend\">";
  for (const Fate& fate : kFates) {
    page += std::string("<span class=\"") + fate.css_class + "\">" + Html(fate.legend) + "</span>";
  }
  page += "</p>\n";
  for (const AnnotatedTemplate& annotated : templates) {
    page += "<h2>" + Html(annotated.file) + "</h2>\n<pre>";
    std::size_t at = 0;
    for (const Mark& mark : PlaceMarks(annotated.text, annotated.references)) {
      if (mark.offset < at) continue;
      page += Html(std::string_view(annotated.text).substr(at, mark.offset - at));
      const ReferenceReport& reference = *mark.reference;
      const std::string note = Annotation(reference, manifest, values);
      std::string title = std::string(ActionName(reference.action));
      if (!reference.path.empty()) title += " at " + reference.path;
      if (!note.empty() && reference.action != Action::kSubstitute) title += ": " + note;
      page += std::string("<mark class=\"") + FateOf(reference.action).css_class + "\" title=\"" + Html(title) +
              "\">" + Html(std::string_view(annotated.text).substr(mark.offset, mark.length));
      if (reference.action == Action::kSubstitute) page += "<span class=\"value\">" + Html(note) + "</span>";
      page += "</mark>";
      at = mark.offset + mark.length;
    }
    page += Html(std::string_view(annotated.text).substr(at)) + "</pre>\n";
  }
  return page + "</body>\n</html>\n";
}

}  // namespace safesubst::cli
