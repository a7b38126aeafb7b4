// libFuzzer target: an Avro writer schema (JSON from a serializer snapshot) and values of it.
// Input: the schema text, then optionally a NUL byte and value bytes. It stops when anything
// throws (libFuzzer reports the uncaught exception), when parse_json_input disagrees with
// nlohmann's own parser on text within the nesting bound, when make_decoder fails without the
// schema's offset or with another code than corruption / an opaque decoder, or when read, skip
// and write_json disagree on a value. The same text is read as a compiled SQL plan
// (format/plan_keys: key columns from node key specs and row types, which must name keys within
// their inputs' rows), and each of its strings as a plan's row type; as a load spec's type,
// which is refused or gives a snapshot that decodes; and as a line of load's NDJSON, whose
// members split without a tree (ops/load/entry_line) must be those of the whole line's parse,
// also when read after another line (the bytes after the NUL) by the same EntryLine, whose
// members are parsed into the last line's trees (parse_plain_json_into, checked on its own too).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "format/plan_keys.h"
#include "ops/load/entry_line.h"
#include "ops/load/spec_types.h"
#include "support/byte_reader.h"
#include "support/json_input.h"
#include "support/json_text.h"
#include "types/serializer_snapshot.h"
#include "types/value_decoder.h"

namespace {

constexpr uint64_t kSchemaOffset = 0x1000;  // where the schema string would lie in its file

[[noreturn]] void finding(const char* what, const ckpt::Error* e = nullptr) {
  std::fprintf(stderr, "fuzz_avro_schema: %s%s%s\n", what, e ? ": " : "", e ? e->to_string().c_str() : "");
  std::abort();
}

void check_json_input(std::string_view text) {
  auto ours = ckpt::parse_json_input(text);
  nlohmann::json theirs = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (ours.ok()) {
    if (theirs.is_discarded()) finding("parse_json_input accepts what nlohmann refuses");
    if (*ours != theirs) finding("parse_json_input gives another value than nlohmann");
  } else if (ours.error().message.rfind("not valid JSON", 0) == 0 && !theirs.is_discarded()) {
    finding("parse_json_input refuses what nlohmann accepts", &ours.error());
  }
}

void check_values(const ckpt::ValueDecoder& d, std::string_view in) {
  ckpt::ByteReader r(in);
  for (int i = 0; i < 64 && r.ok() && !r.at_end(); ++i) {
    size_t start = r.position();
    ckpt::ByteReader skipper(in.data() + start, in.size() - start, start);
    ckpt::ByteReader texter(in.data() + start, in.size() - start, start);
    nlohmann::json v;
    d.read(r, v);
    d.skip(skipper);
    std::string text;
    d.write_json(texter, text);
    if (r.ok() != texter.ok()) finding("write_json and read disagree on success");
    if (r.ok() && !skipper.ok()) finding("skip fails where read succeeds");
    if (r.ok() && (texter.offset() != r.offset() || skipper.offset() != r.offset()))
      finding("read, skip and write_json consume different lengths");
    if (r.ok() && text != ckpt::json_text(v)) finding("write_json differs from the text of read's tree");
    if (!r.ok() && (!r.error()->offset || *r.error()->offset > in.size())) finding("value error outside the input", &*r.error());
    if (r.position() == start) break;  // null values take no bytes
  }
}

// Whatever the plan, a key is named only by columns its input's row type has, each once.
void check_plan(std::string_view text) {
  auto plan = ckpt::parse_json_input(text);
  if (!plan.ok()) return;
  for (const auto& [node, names] : ckpt::plan_key_columns(*plan)) {
    if (names.empty()) finding("a plan node with an empty key");
    for (size_t i = 0; i < names.size(); ++i)
      for (size_t j = i + 1; j < names.size(); ++j)
        if (names[i] == names[j]) finding("a key named by one column twice");
  }
  if (plan->is_string()) (void)ckpt::plan_row_field_names(*plan);
  if (plan->is_array())
    for (const nlohmann::json& v : *plan) (void)ckpt::plan_row_field_names(v);
}

// A load spec's type text (ops/load/spec_types.h): refused with a message, or a snapshot that
// reads back as written and gives a decoder.
void check_spec_type(std::string_view text) {
  auto s = ckpt::spec_type_snapshot(text);
  if (!s.ok()) {
    if (s.error().message.empty()) finding("a spec type refused without a message", &s.error());
    return;
  }
  if (s->raw.empty()) finding("a spec type's snapshot without bytes");
  auto d = ckpt::make_decoder(*s);
  if (!d.ok()) finding("a spec type's snapshot gives no decoder", &d.error());
  else if (!(*d)->decodable()) finding("a spec type's snapshot gives an opaque decoder");
}

}  // namespace

// `text` parsed into what `before` left in the same tree (parse_plain_json_into reuses its
// memory) must be what nlohmann makes of `text` alone, or refused where parse_json_input refuses.
void check_json_reuse(std::string_view before, std::string_view text) {
  nlohmann::json tree;
  (void)ckpt::parse_plain_json_into(before, &tree);
  if (!ckpt::parse_plain_json_into(text, &tree)) return;  // handed back to the full parser
  nlohmann::json theirs = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (theirs.is_discarded()) finding("parse_plain_json_into accepts what nlohmann refuses");
  if (tree != theirs) finding("parse_plain_json_into over another value gives another value than nlohmann");
}

// `text` read by an EntryLine that read `before` first (its members' texts and trees kept for
// the next line) must give the members of the whole line's parse.
void check_entry_line(std::string_view text, std::string_view before = {}) {
  ckpt::EntryLine line;
  if (!before.empty()) (void)line.assign(before);
  if (!line.assign(text).ok()) return;  // refused: with the whole line's parse error
  nlohmann::json whole = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (whole.is_discarded() || !whole.is_object()) finding("EntryLine accepts a line that is no JSON object");
  for (std::string_view name : ckpt::kEntryMembers) {
    auto it = whole.find(std::string(name));
    const nlohmann::json* ours = line.find(name);
    if ((it == whole.end()) != (ours == nullptr)) finding("EntryLine has other members than the line");
    if (ours && *ours != *it) finding("EntryLine's member differs from the line's");
  }
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  size_t nul = in.find('\0');
  std::string_view schema = in.substr(0, nul);
  std::string_view values = nul == std::string_view::npos ? std::string_view() : in.substr(nul + 1);
  check_json_input(schema);
  check_plan(schema);
  check_spec_type(schema);
  check_entry_line(schema);
  // The bytes after the NUL as a second line or value read after the first (and the reverse).
  if (!values.empty()) {
    check_entry_line(values, schema);
    check_entry_line(schema, values);
    check_json_reuse(schema, values);
    check_json_reuse(values, schema);
  }
  check_entry_line(schema, schema);

  ckpt::SerializerSnapshot s;
  s.snapshot_class = "org.apache.flink.formats.avro.typeutils.AvroSerializerSnapshot";
  s.serializer_class = "org.apache.flink.formats.avro.typeutils.AvroSerializer";
  s.version = 3;
  s.form = ckpt::SnapshotForm::kOpaqueKnown;
  s.type_class = "com.example.Event";
  s.avro_schema = std::string(schema);
  s.avro_schema_offset = kSchemaOffset;
  if (s.avro_schema.empty()) return 0;  // not an Avro snapshot's decoder: make_decoder goes opaque
  auto d = ckpt::make_decoder(s);
  if (!d.ok()) {
    if (d.error().code != ckpt::ErrorCode::kCorruption) finding("a schema error that is not corruption", &d.error());
    if (d.error().offset != kSchemaOffset) finding("a schema error not at the schema's offset", &d.error());
    return 0;
  }
  if ((*d)->decodable()) check_values(**d, values);
  return 0;
}
