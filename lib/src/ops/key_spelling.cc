// Keys as people write them, read into the values the key decoders produce.
#include "ops/key_spelling.h"

#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "support/json_input.h"
#include "support/json_text.h"

namespace ckpt {
namespace {

bool is_row_kind(const nlohmann::ordered_json& k) {
  if (!k.is_string()) return false;
  const std::string& s = k.get_ref<const std::string&>();
  return s == "+I" || s == "-U" || s == "+U" || s == "-D";
}

// `{"fields":...}` with at most a row kind beside it: a key row, positional or named (named in
// the order dump prints the columns, which is the row's). Anything else is not a row spelling.
std::optional<nlohmann::json> row_spelling(const nlohmann::ordered_json& v) {
  if (!v.is_object() || v.size() > 2) return std::nullopt;
  auto fields = v.find("fields");
  if (fields == v.end() || !(fields->is_array() || fields->is_object())) return std::nullopt;
  auto kind = v.find("kind");
  if (v.size() == 2 && (kind == v.end() || !is_row_kind(*kind))) return std::nullopt;
  nlohmann::json values = nlohmann::json::array();
  // Both forms iterate in written order: an ordered_json object keeps its members as given.
  for (const auto& f : *fields)
    values.push_back(nlohmann::json::parse(json_text(f), nullptr, /*allow_exceptions=*/false));
  return nlohmann::json{{"fields", std::move(values)}, {"kind", kind == v.end() ? "+I" : kind->get<std::string>()}};
}

}  // namespace

Result<GivenKey> parse_given_key(std::string_view text, std::string_view what) {
  Result<nlohmann::json> value = parse_json_input(text);
  if (!value.ok())
    return Error(ErrorCode::kInvalidArgument,
                 fmt::format("{}: key {} is not JSON as ckpt dump prints keys (\"a\", 42, [1,\"b\"], "
                             "{{\"fields\":[6,\"c\"],\"kind\":\"+I\"}}): {}",
                             what, text, value.error().message));
  GivenKey key{std::string(text), {std::move(*value)}};
  // Valid and bounded already: the ordered parse only recovers the members' written order.
  nlohmann::ordered_json ordered = nlohmann::ordered_json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (std::optional<nlohmann::json> row = row_spelling(ordered); row && *row != key.spellings.front())
    key.spellings.push_back(std::move(*row));
  return key;
}

Result<std::vector<GivenKey>> parse_given_keys(const std::vector<std::string>& texts, std::string_view what) {
  std::vector<GivenKey> out;
  std::set<std::string> seen;
  for (const std::string& text : texts) {
    CKPT_ASSIGN_OR_RETURN(GivenKey key, parse_given_key(text, what));
    // The last spelling is the one decoders produce where there are two.
    if (!seen.insert(json_text(key.spellings.back())).second) continue;
    out.push_back(std::move(key));
  }
  return out;
}

}  // namespace ckpt
