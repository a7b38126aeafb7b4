// ops/named_operators_json.h - the "named_operators" member verify and diff documents share.
#pragma once

#include <vector>

#include "ckpt/json.h"
#include "ckpt/names.h"

namespace ckpt {

// "named_operators": [{"operator", "uid", "description"}, ...]
void write_named_operators(JsonWriter& w, const std::vector<NamedOperator>& named);

}  // namespace ckpt
