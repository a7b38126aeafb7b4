// JsonWriter's string escaping (the project's one escaper, support/json_text.h) and its stream.
#include <ostream>

#include "ckpt/json.h"
#include "support/json_text.h"

namespace ckpt {

JsonWriter::JsonWriter(std::ostream& out, int indent) : sink_(&out), out_(buffer_), indent_(indent) {}

JsonWriter::~JsonWriter() {
  if (sink_) spill();
}

void JsonWriter::spill() {
  sink_->write(out_.data(), static_cast<std::streamsize>(out_.size()));
  out_.clear();
}

void JsonWriter::string_value(std::string_view s) { append_json_string(out_, s); }

}  // namespace ckpt
