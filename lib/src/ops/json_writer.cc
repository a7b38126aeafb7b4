// JsonWriter's string escaping: the project's one escaper (support/json_text.h).
#include "ops/json_writer.h"

#include "support/json_text.h"

namespace ckpt {

void JsonWriter::string_value(std::string_view s) { append_json_string(out_, s); }

}  // namespace ckpt
