// SPDX-License-Identifier: Apache-2.0
// The machine-readable forms of `safesubst lint`'s findings: JSON, SARIF
// 2.1.0 for code scanning, and GitHub Actions workflow commands. The JSON is
// written by nlohmann/json (json_text.h), never by hand.
#include <string>

#include "json_text.h"
#include "safesubst/lint.h"
#include "safesubst/version.h"

namespace safesubst {

namespace {

// The rule id the CLI gives a file it could not read or parse (cli_lint.cc).
constexpr std::string_view kInputRule = "input";

// A file name as a URI reference (RFC 3986): every byte but the unreserved
// characters and `/` percent-encoded, so that spaces, `#`, `%` and bytes that
// are not UTF-8 survive. A relative name stays relative (GitHub resolves it
// against the repository's root); an absolute one becomes a file: URI.
std::string FileUri(std::string_view path) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string uri = path.starts_with('/') ? "file://" : "";
  for (unsigned char c : path) {
    const bool unreserved = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                            c == '-' || c == '.' || c == '_' || c == '~' || c == '/';
    if (unreserved) {
      uri += static_cast<char>(c);
    } else {
      uri += '%';
      uri += kHex[c >> 4];
      uri += kHex[c & 0xF];
    }
  }
  return uri;
}

Json SarifRule(std::string_view id, Severity severity, std::string_view summary, std::string_view explanation,
               std::string_view fix) {
  Json rule;
  rule["id"] = id;
  rule["name"] = id;
  rule["shortDescription"] = {{"text", summary}};
  rule["fullDescription"] = {{"text", explanation}};
  rule["help"] = {{"text", std::string(fix)},
                  {"markdown", "**Why:** " + std::string(explanation) + "\n\n**Fix:** " + std::string(fix)}};
  rule["defaultConfiguration"] = {{"level", SeverityName(severity)}};
  rule["properties"] = {{"tags", {"kubernetes", "safesubst"}}};
  return rule;
}

// Every lint rule, then "input"; a result's ruleIndex is its place here.
Json SarifRules() {
  Json rules = Json::array();
  for (const LintRule& rule : LintRules()) {
    rules.push_back(SarifRule(rule.id, rule.severity, rule.summary, rule.explanation, rule.fix));
  }
  rules.push_back(SarifRule(kInputRule, Severity::kError, "A file that could not be read or parsed as YAML.",
                            "Nothing in the file was linted: it could not be read, is not valid UTF-8 text or "
                            "is not valid YAML.",
                            "Fix the file as the message says, then lint it again."));
  return rules;
}

std::size_t SarifRuleIndex(std::string_view id) {
  const std::vector<LintRule>& rules = LintRules();
  for (std::size_t i = 0; i < rules.size(); ++i) {
    if (rules[i].id == id) return i;
  }
  return rules.size();  // "input"
}

Json SarifResult(const Finding& finding) {
  Json physical;
  physical["artifactLocation"] = {{"uri", FileUri(finding.location.file)}};
  if (finding.location.line > 0) {  // SARIF regions start at line 1; 0 means unknown
    physical["region"] = {{"startLine", finding.location.line},
                          {"startColumn", std::max<std::uint32_t>(finding.location.column, 1)}};
  }
  Json location;
  location["physicalLocation"] = std::move(physical);
  if (!finding.object.empty()) {
    location["logicalLocations"] = {{{"fullyQualifiedName", finding.object}, {"kind", "object"}}};
  }
  Json result;
  result["ruleId"] = finding.rule_id;
  result["ruleIndex"] = SarifRuleIndex(finding.rule_id);
  result["level"] = SeverityName(finding.severity);
  result["message"] = {{"text", finding.fix.empty() ? finding.message : finding.message + " Fix: " + finding.fix}};
  result["locations"] = {std::move(location)};
  return result;
}

// Workflow command data: the runner turns %25, %0D and %0A back into
// `%`, CR and LF; a property value also escapes `:` and `,`, which end it.
std::string EscapeCommandData(std::string_view text, bool property) {
  std::string escaped;
  for (char c : text) {
    switch (c) {
      case '%': escaped += "%25"; break;
      case '\r': escaped += "%0D"; break;
      case '\n': escaped += "%0A"; break;
      case ':': escaped += property ? "%3A" : ":"; break;
      case ',': escaped += property ? "%2C" : ","; break;
      default: escaped += c;
    }
  }
  return escaped;
}

std::string_view GithubCommand(Severity severity) {
  switch (severity) {
    case Severity::kError: return "error";
    case Severity::kWarning: return "warning";
    case Severity::kNote: return "notice";
  }
  return "error";
}

}  // namespace

std::string FindingsToJson(const std::vector<Finding>& findings) {
  Json all = Json::array();
  for (const Finding& finding : findings) {
    all.push_back({{"rule", finding.rule_id},
                   {"severity", SeverityName(finding.severity)},
                   {"file", finding.location.file},
                   {"line", finding.location.line},
                   {"column", finding.location.column},
                   {"object", finding.object},
                   {"container", finding.container},
                   {"message", finding.message},
                   {"explanation", finding.explanation},
                   {"fix", finding.fix}});
  }
  Json report;
  report["findings"] = std::move(all);
  report["errors"] = CountFindings(findings, Severity::kError);
  report["warnings"] = CountFindings(findings, Severity::kWarning);
  return JsonText(report) + "\n";
}

std::string FindingsToSarif(const std::vector<Finding>& findings) {
  Json driver;
  driver["name"] = "safesubst";
  driver["version"] = Version();
  driver["semanticVersion"] = Version();
  driver["rules"] = SarifRules();
  Json results = Json::array();
  for (const Finding& finding : findings) results.push_back(SarifResult(finding));
  Json run;
  run["tool"] = {{"driver", std::move(driver)}};
  run["columnKind"] = "unicodeCodePoints";
  run["results"] = std::move(results);
  Json log;
  log["$schema"] = "https://json.schemastore.org/sarif-2.1.0.json";
  log["version"] = "2.1.0";
  log["runs"] = {std::move(run)};
  return JsonText(log, 2) + "\n";
}

std::string FindingsToGithubCommands(const std::vector<Finding>& findings) {
  std::string out;
  for (const Finding& finding : findings) {
    out += "::" + std::string(GithubCommand(finding.severity)) + " ";
    out += "file=" + EscapeCommandData(finding.location.file, /*property=*/true);
    if (finding.location.line > 0) {
      out += ",line=" + std::to_string(finding.location.line) + ",col=" + std::to_string(finding.location.column);
    }
    out += ",title=" + EscapeCommandData("safesubst " + finding.rule_id, /*property=*/true) + "::";
    std::string message = finding.message;
    if (!finding.fix.empty()) message += "\nFix: " + finding.fix;
    out += EscapeCommandData(message, /*property=*/false) + "\n";
  }
  return out;
}

}  // namespace safesubst
