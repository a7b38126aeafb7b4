// java.io.ObjectOutputStream's bytes and handles for objects of known classes (formats/serializers.md §13.1).
#include "format/java/java_object_writer.h"

#include <algorithm>

#include "format/java/java_object_stream.h"
#include "support/byte_reader.h"

namespace ckpt::java {

std::vector<FieldSpec> sort_fields(std::vector<FieldSpec> fields) {
  std::stable_sort(fields.begin(), fields.end(), [](const FieldSpec& a, const FieldSpec& b) {
    if (a.primitive() != b.primitive()) return a.primitive();
    return a.name < b.name;
  });
  return fields;
}

ObjectWriter::ObjectWriter() : next_(kBaseWireHandle) {
  w_.u16(kStreamMagic);
  w_.u16(kStreamVersion);
}

void ObjectWriter::write_string(const std::string& s) {
  std::string enc = encode_modified_utf8(s);
  if (enc.size() <= 0xFFFF) {
    w_.u8(kTcString);
    w_.u16(static_cast<uint16_t>(enc.size()));
  } else {
    w_.u8(kTcLongString);
    w_.u64(enc.size());
  }
  w_.bytes(enc);
}

// Java looks strings up by identity: an interned string is one object wherever it is used, so
// content is identity for the strings passed here.
void ObjectWriter::string(const std::string& s) {
  auto it = strings_.find(s);
  if (it != strings_.end()) return reference(it->second);
  write_string(s);
  strings_.emplace(s, next_++);
}

void ObjectWriter::new_string(const std::string& s) {
  write_string(s);
  ++next_;
}

void ObjectWriter::null() { w_.u8(kTcNull); }

void ObjectWriter::class_desc(const ClassSpec* spec) {
  if (!spec) return null();
  auto it = classes_.find(spec);
  if (it != classes_.end()) return reference(it->second);
  w_.u8(kTcClassDesc);
  classes_.emplace(spec, next_++);  // ObjectOutputStream.writeNonProxyDesc: the handle first
  w_.utf(spec->name);
  w_.u64(spec->uid);
  w_.u8(spec->flags);
  w_.i16(static_cast<int16_t>(spec->fields.size()));
  for (const FieldSpec& f : spec->fields) {
    w_.u8(static_cast<uint8_t>(f.type));
    w_.utf(f.name);
    if (!f.primitive()) string(f.signature);  // writeTypeString: signatures are interned
  }
  w_.u8(kTcEndBlockData);  // no class annotations
  class_desc(spec->super);
}

// ObjectOutputStream.writeEnum: the descriptor, the constant's handle, then its name through
// writeString, which writes the name anew (it looks up no handle) and gives it one.
void ObjectWriter::enum_constant(const ClassSpec* spec, const std::string& name) {
  auto key = std::make_pair(spec, name);
  auto it = enums_.find(key);
  if (it != enums_.end()) return reference(it->second);
  w_.u8(kTcEnum);
  class_desc(spec);
  enums_.emplace(key, next_++);
  write_string(name);
  strings_[name] = next_++;  // the interned name: later uses of it refer to this handle
}

uint32_t ObjectWriter::begin_object(const ClassSpec* spec) {
  w_.u8(kTcObject);
  class_desc(spec);
  return next_++;  // writeOrdinaryObject: the object's handle after its descriptor
}

void ObjectWriter::reference(uint32_t handle) {
  w_.u8(kTcReference);
  w_.u32(handle);
}

void ObjectWriter::block_data(const std::string& bytes) {
  w_.u8(kTcBlockData);
  w_.u8(static_cast<uint8_t>(bytes.size()));
  w_.bytes(bytes);
}

void ObjectWriter::end_block() { w_.u8(kTcEndBlockData); }

}  // namespace ckpt::java
