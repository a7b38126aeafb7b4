// ops/engine/key_names.h - a SQL key row printed with the column names the compiled plan gives it.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "ckpt/value.h"

namespace ckpt {

// `row_json` with its fields named in order, {"fields":{"b":1,"c":"x"},"kind":"+I"}, if it is a
// row ({"fields":[..],"kind":..}, as RowData prints) of exactly names.size() fields; otherwise
// `row_json` unchanged, so a key the plan does not describe keeps its positions.
std::string name_row_fields(const std::string& row_json, const std::vector<std::string>& names);
// The same for a decoded key.
Value name_row_fields(const Value& row, const std::vector<std::string>& names);

// The reverse, for a lookup of a key given as printed with its fields named: `named_json` with
// its fields in the order of `names` and unnamed, {"fields":[1,"x"],"kind":"+I"}, if it is a row
// whose fields are exactly `names`; nullopt otherwise.
std::optional<std::string> unname_row_fields(const std::string& named_json, const std::vector<std::string>& names);

}  // namespace ckpt
