// SPDX-License-Identifier: Apache-2.0
#include "foreign_dollars.h"

#include <algorithm>
#include <array>
#include <cctype>

namespace safesubst {

namespace {

bool EqualsIgnoringCase(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

// nginx's variables (ngx_http_core_module and the common modules, and those
// ingress-nginx adds); the `http_`, `arg_`... families by prefix.
bool IsNginxVariable(std::string_view name) {
  static constexpr std::array<std::string_view, 62> kNames = {
      "host", "hostname", "uri", "request_uri", "document_uri", "args", "query_string", "is_args", "scheme",
      "request", "request_method", "request_body", "request_length", "request_time", "request_id",
      "request_filename", "remote_addr", "remote_port", "remote_user", "binary_remote_addr", "server_name",
      "server_addr", "server_port", "server_protocol", "status", "body_bytes_sent", "bytes_sent", "time_local",
      "time_iso8601", "msec", "connection", "connection_requests", "content_type", "content_length",
      "document_root", "realpath_root", "limit_rate", "nginx_version", "pid", "pipe", "proxy_host", "proxy_port",
      "proxy_add_x_forwarded_for", "proxy_protocol_addr", "realip_remote_addr", "ssl_protocol", "ssl_cipher",
      "best_http_host", "pass_access_scheme", "pass_server_port", "pass_port", "the_real_ip", "service_name",
      "service_port", "namespace", "ingress_name", "location_path", "proxy_upstream_name", "tls_sni",
      "auth_resp_jwt", "redirect_to_https", "full_x_forwarded_proto"};
  if (std::find(kNames.begin(), kNames.end(), name) != kNames.end()) return true;
  for (std::string_view prefix : {"http_", "arg_", "cookie_", "sent_http_", "upstream_", "ssl_client_", "geoip_"}) {
    if (name.substr(0, prefix.size()) == prefix) return true;
  }
  return false;
}

// PowerShell's automatic and preference variables, case-insensitive as
// PowerShell reads them (`$env:NAME` is read here as `$env`).
bool IsPowerShellVariable(std::string_view name) {
  static constexpr std::array<std::string_view, 22> kNames = {
      "null", "true", "false", "env", "_", "args", "input", "this", "PSItem", "PSScriptRoot", "PSCommandPath",
      "LASTEXITCODE", "ErrorActionPreference", "ProgressPreference", "VerbosePreference", "WarningPreference",
      "ConfirmPreference", "Matches", "PSVersionTable", "PSBoundParameters", "MyInvocation", "IsWindows"};
  return std::any_of(kNames.begin(), kNames.end(), [&](std::string_view known) { return EqualsIgnoringCase(name, known); });
}

// JSON Schema keywords (CRDs, values.schema.json in YAML) and strategic-merge
// patch directives.
bool IsSchemaOrPatchKeyword(std::string_view name) {
  static constexpr std::array<std::string_view, 15> kNames = {
      "ref", "schema", "id", "defs", "comment", "anchor", "vocabulary", "dynamicRef", "dynamicAnchor",
      "recursiveRef", "recursiveAnchor", "patch", "setElementOrder", "retainKeys", "deleteFromPrimitiveList"};
  return std::find(kNames.begin(), kNames.end(), name) != kNames.end();
}

// Whether `offset` of the scalar [begin, end) lies inside a `{{ ... }}` action.
bool InsideTemplateAction(std::string_view text, std::size_t begin, std::size_t end, std::size_t offset) {
  const std::string_view before = text.substr(begin, offset - begin);
  const std::size_t open = before.rfind("{{");
  if (open == std::string_view::npos || before.find("}}", open) != std::string_view::npos) return false;
  return text.substr(offset, end - offset).find("}}") != std::string_view::npos;
}

}  // namespace

bool IsForeignDollarName(std::string_view name) {
  return IsNginxVariable(name) || IsPowerShellVariable(name) || IsSchemaOrPatchKeyword(name);
}

bool IsForeignDollar(std::string_view text, const Tokens& tokens, const Reference& reference) {
  if (!TraitsOf(reference.kind).bare) return false;
  if (IsForeignDollarName(reference.name)) return true;
  if (reference.scalar == Reference::kNoScalar) return false;
  const Scalar& scalar = tokens.scalars[reference.scalar];
  // A key that is `$name` (or `"$name"`) as a whole: a keyword of the format.
  const std::size_t quote = scalar.style == ScalarStyle::kPlain ? 0 : 1;
  if (scalar.is_key && reference.offset == scalar.offset + quote &&
      reference.offset + reference.length + quote == scalar.offset + scalar.length) {
    return true;
  }
  return InsideTemplateAction(text, scalar.offset, scalar.offset + scalar.length, reference.offset);
}

}  // namespace safesubst
