// tests/testlib/dump_values.h - what the tests of whole corpora look for in dumped values.
#pragma once

#include <nlohmann/json.hpp>

namespace ckpt::test {

// A value dump could not decode: its bytes as hex, and why.
bool is_opaque(const nlohmann::json& v);

}  // namespace ckpt::test
