// SPDX-License-Identifier: Apache-2.0
// Tests of per-type value validation (ValidateValue, SplitList, DisplayValue)
// and the internal helpers in validate.h.
#include "validate.h"

#include <doctest/doctest.h>
#include <re2/re2.h>

#include <string>

#include "safesubst/values.h"

namespace safesubst {
namespace {

Variable Var(VarType type, std::string pattern = {}) {
  Variable variable;
  variable.name = "V";
  variable.type = type;
  variable.pattern = std::move(pattern);
  return variable;
}

bool Valid(VarType type, std::string_view value) { return ValidateValue(Var(type), value).empty(); }

TEST_CASE("string accepts anything but NUL") {
  CHECK(Valid(VarType::kString, ""));
  CHECK(Valid(VarType::kString, "a b: c # d\n'\"${X}"));
  CHECK(ValidateValue(Var(VarType::kString), std::string_view("a\0b", 3)) == "V: the value contains a NUL byte");
  // NUL is rejected for every type, before the type's own check.
  CHECK(ValidateValue(Var(VarType::kInt), std::string_view("1\0", 2)) == "V: the value contains a NUL byte");
}

TEST_CASE("int: optional sign, decimal digits, int64 range, no leading zeros") {
  for (const char* ok : {"0", "7", "-7", "+7", "31", "9223372036854775807", "-9223372036854775808", "-0"}) {
    CHECK_MESSAGE(Valid(VarType::kInt, ok), ok);
  }
  for (const char* bad : {"", "+", "-", "1.0", "1e3", "0x1F", " 1", "1 ", "--1", "9223372036854775808",
                          "-9223372036854775809", "99999999999999999999", "007", "-01", "abc"}) {
    CHECK_MESSAGE(!Valid(VarType::kInt, bad), bad);
  }
  CHECK(ValidateValue(Var(VarType::kInt), "12a") ==
        "V: \"12a\" is not an integer (unexpected 'a'; expected decimal digits)");
  CHECK(ValidateValue(Var(VarType::kInt), "010").find("leading zeros") != std::string::npos);
  CHECK(ValidateValue(Var(VarType::kInt), "9223372036854775808").find("64-bit") != std::string::npos);
}

TEST_CASE("bool accepts exactly true and false") {
  CHECK(Valid(VarType::kBool, "true"));
  CHECK(Valid(VarType::kBool, "false"));
  for (const char* bad : {"True", "FALSE", "yes", "no", "on", "off", "1", "0", "", "y"}) {
    CHECK_MESSAGE(!Valid(VarType::kBool, bad), bad);
  }
  CHECK(ValidateValue(Var(VarType::kBool), "yes") == "V: \"yes\" is not a boolean (expected exactly true or false)");
}

TEST_CASE("ipv4 is a strict dotted quad") {
  for (const char* ok : {"0.0.0.0", "10.0.1.30", "255.255.255.255", "192.168.0.1", "1.2.3.4"}) {
    CHECK_MESSAGE(Valid(VarType::kIpv4, ok), ok);
  }
  for (const char* bad : {"", "1.2.3", "1.2.3.4.5", "1.2.3.", ".1.2.3", "1..2.3", "256.1.1.1", "1.2.3.300",
                          "01.2.3.4", "1.2.3.00", "1.2.3.4 ", "a.b.c.d", "1.2.3.-4", "1.2.3.4/24", "1000.1.1.1",
                          "::1"}) {
    CHECK_MESSAGE(!Valid(VarType::kIpv4, bad), bad);
  }
  Variable efs = Var(VarType::kIpv4);
  efs.name = "EFS_IP_2A";
  CHECK(ValidateValue(efs, "10.0.1.300") == "EFS_IP_2A: \"10.0.1.300\" is not an IPv4 address (octet 4 is 300 > 255)");
  CHECK(ValidateValue(efs, "10.0.1") ==
        "EFS_IP_2A: \"10.0.1\" is not an IPv4 address (expected 4 dot-separated octets, found 3)");
  CHECK(ValidateValue(efs, "10.01.1.1") ==
        "EFS_IP_2A: \"10.01.1.1\" is not an IPv4 address (octet 2 has a leading zero)");
  CHECK(ValidateValue(efs, "10..1.1") == "EFS_IP_2A: \"10..1.1\" is not an IPv4 address (octet 2 is empty)");
  CHECK(ValidateValue(efs, "10.x.1.1") == "EFS_IP_2A: \"10.x.1.1\" is not an IPv4 address (octet 2 contains 'x')");
}

TEST_CASE("cidr is an IPv4 address and a prefix length 0-32") {
  for (const char* ok : {"10.0.0.0/16", "0.0.0.0/0", "192.168.1.7/32", "10.0.0.0/8"}) {
    CHECK_MESSAGE(Valid(VarType::kCidr, ok), ok);
  }
  for (const char* bad : {"10.0.0.0", "10.0.0.0/", "10.0.0.0/33", "10.0.0.0/08", "10.0.0/8", "10.0.0.0/a",
                          "10.0.0.0/8/8", "/8", "10.0.0.256/8"}) {
    CHECK_MESSAGE(!Valid(VarType::kCidr, bad), bad);
  }
  CHECK(ValidateValue(Var(VarType::kCidr), "10.0.0.0/33") ==
        "V: \"10.0.0.0/33\" is not an IPv4 CIDR block (prefix length is 33 > 32)");
  CHECK(ValidateValue(Var(VarType::kCidr), "10.0.0.256/8") ==
        "V: \"10.0.0.256/8\" is not an IPv4 CIDR block (address: octet 4 is 256 > 255)");
}

TEST_CASE("hostname follows RFC 1123") {
  const std::string label63(63, 'a');
  const std::string label64(64, 'a');
  // 4 labels of 63 plus 3 dots = 255 > 253; 3 of 63 + one of 61 = 253.
  const std::string name253 = label63 + "." + label63 + "." + label63 + "." + std::string(61, 'b');
  const std::string name254 = label63 + "." + label63 + "." + label63 + "." + std::string(62, 'b');
  for (const std::string& ok : {std::string("fs-0123.efs.ap-northeast-2.amazonaws.com"), std::string("localhost"),
                                std::string("A.B.C"), std::string("1.2.3.4"), std::string("x"), label63, name253,
                                std::string("a-b.c-d")}) {
    CHECK_MESSAGE(Valid(VarType::kHostname, ok), ok);
  }
  for (const std::string& bad : {std::string(""), std::string("-a.com"), std::string("a-.com"), std::string("a..b"),
                                 std::string(".a"), std::string("a."), std::string("a_b.com"), std::string("a b"),
                                 label64, name254, std::string("a.com:80")}) {
    CHECK_MESSAGE(!Valid(VarType::kHostname, bad), bad);
  }
  CHECK(ValidateValue(Var(VarType::kHostname), "a_b.com") ==
        "V: \"a_b.com\" is not a valid hostname (RFC 1123) (label 1 contains '_'; only letters, digits and '-' are "
        "allowed)");
  CHECK(ValidateValue(Var(VarType::kHostname), name254).find("254 characters long; at most 253") != std::string::npos);
  CHECK(ValidateValue(Var(VarType::kHostname), "ok." + label64).find("label 2 is 64 characters") != std::string::npos);
}

TEST_CASE("dns-label is a lowercase RFC 1123 label") {
  for (const std::string& ok : {std::string("web-portal"), std::string("a"), std::string("0"), std::string("a1-b2"),
                                std::string(63, 'z')}) {
    CHECK_MESSAGE(Valid(VarType::kDnsLabel, ok), ok);
  }
  for (const std::string& bad : {std::string(""), std::string("Web"), std::string("-a"), std::string("a-"),
                                 std::string("a.b"), std::string("a_b"), std::string(64, 'z'), std::string("a b")}) {
    CHECK_MESSAGE(!Valid(VarType::kDnsLabel, bad), bad);
  }
  CHECK(ValidateValue(Var(VarType::kDnsLabel), "Web") ==
        "V: \"Web\" is not a DNS label (RFC 1123) (contains uppercase 'W'; DNS labels are lowercase)");
  CHECK(ValidateValue(Var(VarType::kDnsLabel), "a-") == "V: \"a-\" is not a DNS label (RFC 1123) (ends with '-')");
}

TEST_CASE("enum must be one of its values, case-sensitively") {
  Variable env = Var(VarType::kEnum);
  env.enum_values = {"dev", "staging", "prod"};
  CHECK(ValidateValue(env, "prod").empty());
  CHECK(ValidateValue(env, "Prod") ==
        "V: \"Prod\" is not one of the allowed values (did you mean 'prod'? expected one of: dev, staging, prod)");
  CHECK_FALSE(ValidateValue(env, "").empty());
}

TEST_CASE("yaml must parse as one node") {
  CHECK(Valid(VarType::kYaml, "{cpu: 1, memory: 2Gi}"));
  CHECK(Valid(VarType::kYaml, "- a\n- b\n"));
  CHECK(Valid(VarType::kYaml, ""));
  CHECK(Valid(VarType::kYaml, "plain text"));
  std::string message = ValidateValue(Var(VarType::kYaml), "{a: [1, 2}");
  CHECK(message.find("is not valid YAML (line 1, column") != std::string::npos);
  CHECK(ValidateValue(Var(VarType::kYaml), "a: 1\n---\nb: 2\n").find("2 YAML documents") != std::string::npos);
}

TEST_CASE("SplitList splits on commas and whitespace and drops empty items") {
  CHECK(SplitList("") == std::vector<std::string>{});
  CHECK(SplitList(" , ,") == std::vector<std::string>{});
  CHECK(SplitList("web-portal") == std::vector<std::string>{"web-portal"});
  CHECK(SplitList("a,b c\td\n e,,f") == std::vector<std::string>{"a", "b", "c", "d", "e", "f"});
  CHECK(SplitList(" a , b ") == std::vector<std::string>{"a", "b"});
}

TEST_CASE("pattern must match the whole value") {
  Variable tag = Var(VarType::kString, "[A-Za-z0-9._-]{1,128}");
  CHECK(ValidateValue(tag, "v1.2.3").empty());
  CHECK(ValidateValue(tag, "v1 2") == "V: \"v1 2\" does not match the pattern '[A-Za-z0-9._-]{1,128}'");
  CHECK_FALSE(ValidateValue(tag, "").empty());
  // Full match: a pattern matching a substring is not enough.
  Variable digits = Var(VarType::kString, "[0-9]+");
  CHECK_FALSE(ValidateValue(digits, "a1").empty());
  CHECK_FALSE(ValidateValue(digits, "1a").empty());
  // The type is checked first; the pattern only narrows a valid value.
  Variable port = Var(VarType::kInt, "[0-9]{2,5}");
  CHECK(ValidateValue(port, "x").find("is not an integer") != std::string::npos);
  CHECK(ValidateValue(port, "8").find("does not match the pattern") != std::string::npos);
  CHECK(ValidateValue(port, "8080").empty());
}

TEST_CASE("a list's pattern applies to each item") {
  Variable apps = Var(VarType::kList, "[a-z][a-z0-9-]*");
  CHECK(ValidateValue(apps, "").empty());
  CHECK(ValidateValue(apps, "web-portal, api,batch").empty());
  CHECK(ValidateValue(apps, "web-portal,Api") == "V: item \"Api\" does not match the pattern '[a-z][a-z0-9-]*'");
}

TEST_CASE("sensitive values never appear in validation messages") {
  const std::string secret = "10.9.8.777";
  Variable variable = Var(VarType::kIpv4);
  variable.sensitive = true;
  std::string message = ValidateValue(variable, secret);
  CHECK(message == "V: *** is not an IPv4 address");
  CHECK(message.find("777") == std::string::npos);
  Variable with_pattern = Var(VarType::kString, "[a-z]+");
  with_pattern.sensitive = true;
  CHECK(ValidateValue(with_pattern, "Hunter2") == "V: *** does not match the pattern '[a-z]+'");
  Variable list = Var(VarType::kList, "[a-z]+");
  list.sensitive = true;
  CHECK(ValidateValue(list, "ok,S3cret") == "V: item *** does not match the pattern '[a-z]+'");
  Variable label = Var(VarType::kDnsLabel);
  label.sensitive = true;
  CHECK(ValidateValue(label, "Zq").find('Z') == std::string::npos);
  CHECK(DisplayValue(variable, secret) == "***");
  CHECK(DisplayValue(Var(VarType::kIpv4), secret) == secret);
}

TEST_CASE("messages escape control characters and shorten long values") {
  CHECK(ValidateValue(Var(VarType::kInt), "1\n2") ==
        "V: \"1\\n2\" is not an integer (unexpected byte 10; expected decimal digits)");
  std::string message = ValidateValue(Var(VarType::kInt), std::string(500, 'x'));
  CHECK(message.size() < 200);
  CHECK(message.find("...\"") != std::string::npos);
}

TEST_CASE("detail helpers") {
  CHECK(detail::IsIdentifier("A"));
  CHECK(detail::IsIdentifier("_a1"));
  CHECK_FALSE(detail::IsIdentifier(""));
  CHECK_FALSE(detail::IsIdentifier("1A"));
  CHECK_FALSE(detail::IsIdentifier("A-B"));
  CHECK(detail::ParseVarType("dns-label") == VarType::kDnsLabel);
  CHECK_FALSE(detail::ParseVarType("dns_label").has_value());
  CHECK(detail::VarTypeNames().size() == 10);
  CHECK(VarTypeName(VarType::kYaml) == "yaml");
  CHECK(VarTypeName(VarType::kDnsLabel) == "dns-label");
  const std::vector<std::string_view> keys = {"variables", "runtime", "steps"};
  CHECK(detail::ClosestMatch("varaibles", keys) == "variables");
  CHECK(detail::ClosestMatch("step", keys) == "steps");
  CHECK(detail::ClosestMatch("zzz", keys).empty());
  CHECK(detail::ClosestMatch("", keys).empty());
  CHECK(detail::KeysHint("runtme", keys) == "did you mean 'runtime'? valid keys: variables, runtime, steps");
  std::string error;
  const re2::RE2* first = detail::CompiledPattern("[a-z]+", &error);
  REQUIRE(first != nullptr);
  CHECK(detail::CompiledPattern("[a-z]+", &error) == first);  // cached, not recompiled
  CHECK(detail::CompiledPattern("([a-z", &error) == nullptr);
  CHECK(error.find("missing ]") != std::string::npos);
}

TEST_CASE("NameSuggester: suggests close names, follows a growing list, and stops after its lookups") {
  std::vector<Variable> variables(1);
  variables[0].name = "TENANT_ID";
  detail::NameSuggester suggester(variables);
  CHECK(suggester.Suggest("TENANT_IDS") == "TENANT_ID");
  CHECK(suggester.Suggest("IMAGE_TAGG").empty());
  variables.emplace_back();
  variables.back().name = "IMAGE_TAG";
  CHECK(suggester.Suggest("IMAGE_TAGG") == "IMAGE_TAG");
  for (std::size_t i = 4; i <= detail::NameSuggester::kMaxLookups; ++i) CHECK(suggester.Suggest("TENANT_IDS") == "TENANT_ID");
  CHECK(suggester.Suggest("TENANT_IDS").empty());
}

}  // namespace
}  // namespace safesubst
