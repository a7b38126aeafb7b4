#include "ops/named_operators_json.h"

namespace ckpt {

void write_named_operators(JsonWriter& w, const std::vector<NamedOperator>& named) {
  w.key("named_operators");
  w.begin_array();
  for (const NamedOperator& n : named) {
    w.begin_object();
    w.member("operator", n.operator_id);
    w.member("uid", n.uid);
    w.member("description", n.description);
    w.end_object();
  }
  w.end_array();
}

}  // namespace ckpt
