// SPDX-License-Identifier: Apache-2.0
#include "json_text.h"

namespace safesubst {

std::string JsonText(const Json& json, int indent) {
  return json.dump(indent, ' ', /*ensure_ascii=*/false, Json::error_handler_t::replace);
}

std::string JsonLinesText(const Json& array) {
  if (array.empty()) return "[]";
  std::string text = "[";
  for (const Json& element : array) text += (text.size() == 1 ? "\n  " : ",\n  ") + JsonText(element);
  return text + "\n]";
}

}  // namespace safesubst
