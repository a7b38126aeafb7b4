// ops/dump/key_names.h - a SQL key row printed with the column names the compiled plan gives it.
#pragma once

#include <string>
#include <vector>

namespace ckpt {

// `row_json` with its fields named in order, {"fields":{"b":1,"c":"x"},"kind":"+I"}, if it is a
// row ({"fields":[..],"kind":..}, as RowData prints) of exactly names.size() fields; otherwise
// `row_json` unchanged, so a key the plan does not describe keeps its positions.
std::string name_row_fields(const std::string& row_json, const std::vector<std::string>& names);

}  // namespace ckpt
