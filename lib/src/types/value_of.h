// types/value_of.h - a decoded JSON tree as the public Value (ckpt/value.h).
//
// The decoders' read() builds nlohmann trees; read_value() (value_decoder.h) builds Values
// directly for the common types and goes through this for the rest.
#pragma once

#include <nlohmann/json.hpp>

#include "ckpt/value.h"

namespace ckpt {

// The tree as a Value, members in the tree's (printed) order; `j` is moved from.
Value value_of(nlohmann::json&& j);

}  // namespace ckpt
