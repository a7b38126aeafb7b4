#include "testlib/dump_values.h"

namespace ckpt::test {

bool is_opaque(const nlohmann::json& v) { return v.is_object() && v.contains("hex") && v.contains("why"); }

}  // namespace ckpt::test
