// SQL RowData values in the BinaryRowData layout (flink-serializers.md §6).
#include <fmt/format.h>

#include "state/value_decoders.h"

namespace ckpt::decoders {
namespace {

// Until the logical types are understood the value is still skippable: i32 size + bytes.
class RowDataDecoder final : public ValueDecoder {
 public:
  explicit RowDataDecoder(const SerializerSnapshot& s) : ValueDecoder(s.serializer_class) {}
  static constexpr const char* kWhy = "the RowData field types were not understood";
  void read(ByteReader& r, nlohmann::json& out) const override {
    int32_t n = r.count(1, "binary row byte");
    out = {{"hex", to_hex(r.bytes(n))}, {"why", kWhy}};
  }
  void skip(ByteReader& r) const override { r.skip(r.count(1, "binary row byte")); }
};

}  // namespace

Result<DecoderPtr> make_row_data(const SerializerSnapshot& s) {
  return DecoderPtr(std::make_unique<RowDataDecoder>(s));
}

}  // namespace ckpt::decoders
