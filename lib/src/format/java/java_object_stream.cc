// The Java Object Serialization Stream Protocol (chapter 6 of Java's Object Serialization
// Specification), read into a tree without knowing any class, with bounds.
#include "format/java/java_object_stream.h"

#include <fmt/format.h>

namespace ckpt::java {
namespace {

// A handle names a class descriptor or a value. Handles are numbered when an object begins, so
// the stream can refer to one still being read: such references to a descriptor are refused (no
// class is its own ancestor), those to a value are cut (see content()).
struct Handle {
  ClassDescPtr desc;
  ValuePtr value;
  bool complete = true;  // false while the descriptor or value is being read
};

class Parser {
 public:
  Parser(ByteReader& r, Limits limits) : r_(r), limits_(limits) {}

  ValuePtr content(int depth);

 private:
  ClassDescPtr class_desc(int depth);
  ClassDescPtr new_class_desc(uint8_t tc, uint64_t at, int depth);
  void annotations(std::vector<ValuePtr>* out, int depth);
  ValuePtr primitive(char type);
  std::shared_ptr<Value> new_instance(Value::Kind kind, uint64_t at, int depth, const char* what, size_t* handle);
  ValuePtr new_object(uint64_t at, int depth);
  ValuePtr new_array(uint64_t at, int depth);
  ValuePtr new_enum(uint64_t at, int depth);
  ValuePtr string_body(uint8_t tc, uint64_t at);
  ValuePtr block_data(uint8_t tc, uint64_t at);
  const Handle* reference(uint64_t at);

  // Every node of the tree comes from here: up to a few hundred bytes each for as little as one
  // byte of input (a primitive field), so their number is capped, not only the bytes.
  bool budget() {
    if (++nodes_ <= limits_.max_objects) return true;
    if (r_.ok()) r_.fail(fmt::format("java stream holds more than {} objects", limits_.max_objects));
    return false;
  }
  std::shared_ptr<Value> fresh(Value::Kind kind, uint64_t at) {
    if (!budget()) return nullptr;
    auto v = std::make_shared<Value>();
    v->kind = kind;
    v->offset = at;
    return v;
  }
  // The next handle, for a value (or descriptor) whose contents follow: complete() it after.
  size_t new_handle() {
    handles_.emplace_back();
    handles_.back().complete = false;
    return handles_.size() - 1;
  }
  // A TC_RESET may have cleared the handles meanwhile.
  void complete(size_t handle) {
    if (handle < handles_.size()) handles_[handle].complete = true;
  }
  bool deeper(int depth) {
    if (depth <= limits_.max_depth) return true;
    r_.fail(fmt::format("java stream objects nested deeper than {}", limits_.max_depth));
    return false;
  }

  ByteReader& r_;
  Limits limits_;
  std::vector<Handle> handles_;
  size_t nodes_ = 0;
};

const Handle* Parser::reference(uint64_t at) {
  uint32_t h = r_.u32();
  if (!r_.ok()) return nullptr;
  if (h < kBaseWireHandle || h - kBaseWireHandle >= handles_.size()) {
    r_.fail_at(at, fmt::format("java stream back-reference {:#x} to an unassigned handle", h));
    return nullptr;
  }
  return &handles_[h - kBaseWireHandle];
}

// classDesc: a new descriptor, a reference to one, or TC_NULL (nullptr, r ok).
ClassDescPtr Parser::class_desc(int depth) {
  if (!deeper(depth)) return nullptr;
  uint64_t at = r_.offset();
  uint8_t tc = r_.u8();
  if (!r_.ok()) return nullptr;
  switch (tc) {
    case kTcNull: return nullptr;
    case kTcReference: {
      const Handle* h = reference(at);
      if (!h) return nullptr;
      if (!h->desc) {
        r_.fail_at(at, "java stream reference to a non-class where a class descriptor was expected");
        return nullptr;
      }
      // No Java class is its own ancestor: a descriptor still being read cannot be a superclass
      // or the class of an object (and a cycle of superclasses could never be walked to its end).
      if (!h->complete) {
        r_.fail_at(at, fmt::format("java stream reference to class descriptor {} while it is being read", h->desc->name));
        return nullptr;
      }
      return h->desc;
    }
    case kTcClassDesc:
    case kTcProxyClassDesc: return new_class_desc(tc, at, depth);
    default:
      r_.fail_at(at, fmt::format("expected a java class descriptor, found type code {:#x}", tc));
      return nullptr;
  }
}

// TC_CLASSDESC className serialVersionUID newHandle classDescInfo, or
// TC_PROXYCLASSDESC newHandle proxyClassDescInfo; the type code already read.
ClassDescPtr Parser::new_class_desc(uint8_t tc, uint64_t at, int depth) {
  if (!budget()) return nullptr;
  auto d = std::make_shared<ClassDesc>();
  d->offset = at;
  size_t h = 0;
  if (tc == kTcProxyClassDesc) {
    h = new_handle();
    handles_[h].desc = d;
    d->proxy = true;
    d->name = "$Proxy";
    d->flags = kScSerializable;
    int32_t n = r_.count(2, "java proxy interface");
    for (int32_t i = 0; i < n && r_.ok(); ++i) d->interfaces.push_back(r_.utf());
  } else {
    d->name = r_.utf();
    d->uid = r_.u64();
    h = new_handle();
    handles_[h].desc = d;
    d->flags = r_.u8();
    uint64_t count_at = r_.offset();
    int16_t n = r_.i16();
    if (r_.ok() && (n < 0 || static_cast<size_t>(n) * 3 > r_.remaining())) {
      r_.fail_at(count_at, fmt::format("java class {} declares {} fields, more than the bytes left hold", d->name, n));
      return nullptr;
    }
    for (int16_t i = 0; i < n && r_.ok(); ++i) {
      uint64_t field_at = r_.offset();
      FieldDesc f;
      f.type = static_cast<char>(r_.u8());
      f.name = r_.utf();
      if (!r_.ok()) break;
      if (!f.primitive()) {
        // className1: a string object (new or a reference to an earlier one).
        uint64_t sig_at = r_.offset();
        ValuePtr sig = content(depth + 1);
        if (!r_.ok()) break;
        if (!sig || sig->kind != Value::Kind::kString) {
          r_.fail_at(sig_at, fmt::format("type of java field {}.{} is not a string", d->name, f.name));
          break;
        }
        f.signature = sig->text;
      } else if (primitive_size(f.type) == 0) {
        r_.fail_at(field_at, fmt::format("unknown java field type code {:#x}", static_cast<uint8_t>(f.type)));
        break;
      }
      d->fields.push_back(std::move(f));
    }
  }
  annotations(&d->annotations, depth);
  d->super = class_desc(depth + 1);
  complete(h);
  return r_.ok() ? ClassDescPtr(d) : nullptr;
}

// contents up to TC_ENDBLOCKDATA: block data (adjacent blocks joined, as a reader of the
// primitive data sees them) and objects.
void Parser::annotations(std::vector<ValuePtr>* out, int depth) {
  while (r_.ok()) {
    if (r_.remaining() > 0 && r_.data()[r_.position()] == kTcEndBlockData) {
      r_.u8();
      return;
    }
    ValuePtr v = content(depth + 1);
    if (!v) return;
    if (v->kind == Value::Kind::kBlockData && !out->empty() && out->back()->kind == Value::Kind::kBlockData) {
      auto joined = std::make_shared<Value>(*out->back());
      joined->text += v->text;
      out->back() = std::move(joined);
      continue;
    }
    out->push_back(std::move(v));
  }
}

ValuePtr Parser::primitive(char type) {
  auto v = fresh(Value::Kind::kPrimitive, r_.offset());
  if (!v) return nullptr;
  v->type = type;
  switch (type) {
    case 'B': v->number = r_.i8(); break;
    case 'Z': v->number = r_.u8() != 0; break;
    case 'C': v->number = r_.u16(); break;
    case 'S': v->number = r_.i16(); break;
    case 'I': case 'F': v->number = r_.i32(); break;
    case 'J': case 'D': v->number = r_.i64(); break;
    default: r_.fail(fmt::format("unknown java primitive type {:#x}", static_cast<uint8_t>(type)));
  }
  return r_.ok() ? ValuePtr(v) : nullptr;
}

// classDesc newHandle, the start of every object, array, enum constant and class: the value of
// kind `kind` with the next handle (*handle, to complete() once its contents are read).
std::shared_ptr<Value> Parser::new_instance(Value::Kind kind, uint64_t at, int depth, const char* what,
                                            size_t* handle) {
  ClassDescPtr desc = class_desc(depth + 1);
  if (!r_.ok()) return nullptr;
  if (!desc) {
    r_.fail_at(at, fmt::format("java {} without a class descriptor", what));
    return nullptr;
  }
  auto v = fresh(kind, at);
  if (!v) return nullptr;
  v->desc = desc;
  v->class_name = desc->name;
  *handle = new_handle();
  handles_[*handle].value = v;
  return v;
}

// TC_OBJECT classDesc newHandle classdata[]: per class, superclass first, its fields and, with
// a writeObject method (SC_WRITE_METHOD) or when externalizable in block-data mode, what the
// method wrote up to TC_ENDBLOCKDATA.
ValuePtr Parser::new_object(uint64_t at, int depth) {
  size_t h = 0;
  auto v = new_instance(Value::Kind::kObject, at, depth, "object", &h);
  if (!v) return nullptr;
  std::vector<ClassDescPtr> chain;  // as long as the depth bound lets descriptors nest
  for (ClassDescPtr c = v->desc; c; c = c->super) chain.push_back(c);
  for (auto it = chain.rbegin(); it != chain.rend() && r_.ok(); ++it) {
    const ClassDesc& c = **it;
    ClassData data;
    data.desc = *it;
    if (c.flags & kScExternalizable) {
      if (!(c.flags & kScBlockData)) {
        r_.not_supported_at(r_.offset(), fmt::format("externalizable java class {} written in stream protocol 1", c.name));
        return nullptr;
      }
      annotations(&data.annotations, depth);
    } else {
      for (const FieldDesc& f : c.fields) {
        ValuePtr fv = f.primitive() ? primitive(f.type) : content(depth + 1);
        if (!fv) break;
        data.fields.emplace_back(f.name, std::move(fv));
      }
      if (c.flags & kScWriteMethod) annotations(&data.annotations, depth);
    }
    v->classes.push_back(std::move(data));
  }
  complete(h);
  return r_.ok() ? ValuePtr(v) : nullptr;
}

// TC_ARRAY classDesc newHandle (int)size values[size]. Primitive elements are kept as their
// bytes, not a node each.
ValuePtr Parser::new_array(uint64_t at, int depth) {
  size_t h = 0;
  auto v = new_instance(Value::Kind::kArray, at, depth, "array", &h);
  if (!v) return nullptr;
  if (v->class_name.size() < 2 || v->class_name[0] != '[') {
    r_.fail_at(at, fmt::format("java array of class {}, which is no array class", v->class_name));
    return nullptr;
  }
  v->type = v->class_name[1];
  if (v->type == 'L' || v->type == '[') {
    int32_t n = r_.count(1, "java array element");
    v->elements.reserve(static_cast<size_t>(n));
    for (int32_t i = 0; i < n && r_.ok(); ++i) {
      ValuePtr e = content(depth + 1);
      if (e) v->elements.push_back(std::move(e));
    }
  } else {
    size_t size = primitive_size(v->type);
    if (size == 0) {
      r_.fail_at(at, fmt::format("java array of unknown element type {}", v->class_name));
      return nullptr;
    }
    int32_t n = r_.count(size, "java array element");
    v->text = std::string(r_.bytes(static_cast<size_t>(n) * size));
  }
  complete(h);
  return r_.ok() ? ValuePtr(v) : nullptr;
}

// TC_ENUM classDesc newHandle enumConstantName (a string object).
ValuePtr Parser::new_enum(uint64_t at, int depth) {
  size_t h = 0;
  auto v = new_instance(Value::Kind::kEnum, at, depth, "enum constant", &h);
  if (!v) return nullptr;
  ValuePtr name = content(depth + 1);
  if (!r_.ok()) return nullptr;
  if (!name || name->kind != Value::Kind::kString) {
    r_.fail_at(at, fmt::format("java enum constant of {} without a name", v->class_name));
    return nullptr;
  }
  v->text = name->text;
  complete(h);
  return v;
}

ValuePtr Parser::string_body(uint8_t tc, uint64_t at) {
  auto v = fresh(Value::Kind::kString, at);
  if (!v) return nullptr;
  size_t h = new_handle();
  if (tc == kTcString) {
    v->text = r_.utf();
  } else {
    uint64_t len_at = r_.offset();
    uint64_t n = r_.u64();
    if (!r_.ok()) return nullptr;
    if (n > r_.remaining()) {
      r_.fail_at(len_at, fmt::format("java long string of {} bytes, only {} left", n, r_.remaining()));
      return nullptr;
    }
    if (!decode_modified_utf8(r_.bytes(static_cast<size_t>(n)), &v->text)) {
      r_.fail_at(len_at, fmt::format("malformed modified UTF-8 string of {} bytes", n));
      return nullptr;
    }
  }
  if (!r_.ok()) return nullptr;
  handles_[h].value = v;
  complete(h);
  return v;
}

ValuePtr Parser::block_data(uint8_t tc, uint64_t at) {
  size_t n = tc == kTcBlockData ? r_.u8() : static_cast<size_t>(r_.count(1, "java block data byte"));
  auto v = fresh(Value::Kind::kBlockData, at);
  if (!v) return nullptr;
  v->text = std::string(r_.bytes(n));
  return r_.ok() ? ValuePtr(v) : nullptr;
}

ValuePtr Parser::content(int depth) {
  if (!deeper(depth)) return nullptr;
  // TC_RESET forgets every handle; ObjectOutputStream.reset() refuses to write one inside an
  // object, so only the top level may hold them (and a handle renumbered while its descriptor is
  // read could make a class its own superclass).
  while (depth == 0 && r_.remaining() > 0 && r_.data()[r_.position()] == kTcReset) {
    r_.u8();
    handles_.clear();
  }
  uint64_t at = r_.offset();
  uint8_t tc = r_.u8();
  if (!r_.ok()) return nullptr;
  switch (tc) {
    case kTcNull: return fresh(Value::Kind::kNull, at);
    case kTcReference: {
      const Handle* h = reference(at);
      if (!h) return nullptr;
      if (h->value && !h->complete) {
        // Into an object still being read: Java graphs may be cyclic, this tree is not (a
        // shared_ptr cycle would leak). The reference stands for the value, unfilled.
        auto v = fresh(h->value->kind, at);
        if (!v) return nullptr;
        v->desc = h->value->desc;
        v->class_name = h->value->class_name;
        v->unfilled = true;
        return v;
      }
      if (h->value) return h->value;
      auto v = fresh(Value::Kind::kClass, at);  // a class descriptor used as a value
      if (!v) return nullptr;
      v->class_name = h->desc ? h->desc->name : "";
      return v;
    }
    case kTcObject: return new_object(at, depth);
    case kTcString:
    case kTcLongString: return string_body(tc, at);
    case kTcArray: return new_array(at, depth);
    case kTcEnum: return new_enum(at, depth);
    case kTcClass: {
      size_t h = 0;
      auto v = new_instance(Value::Kind::kClass, at, depth, "class object", &h);
      if (v) complete(h);
      return v;
    }
    case kTcClassDesc:
    case kTcProxyClassDesc: {
      ClassDescPtr desc = new_class_desc(tc, at, depth);
      if (!desc) return nullptr;
      auto v = fresh(Value::Kind::kClass, at);
      if (!v) return nullptr;
      v->class_name = desc->name;
      return v;
    }
    case kTcBlockData:
    case kTcBlockDataLong: return block_data(tc, at);
    case kTcReset:
      r_.fail_at(at, "java stream reset (0x79) inside an object");
      return nullptr;
    case kTcException:
      r_.not_supported_at(at, "java stream holds an exception written while serializing (TC_EXCEPTION)");
      return nullptr;
    case kTcEndBlockData:
      r_.fail_at(at, "unexpected end of java block data (0x78) where an object was expected");
      return nullptr;
    default:
      r_.fail_at(at, fmt::format("unknown java stream type code {:#x}", tc));
      return nullptr;
  }
}

}  // namespace

size_t primitive_size(char type) {
  switch (type) {
    case 'B': case 'Z': return 1;
    case 'C': case 'S': return 2;
    case 'I': case 'F': return 4;
    case 'J': case 'D': return 8;
    default: return 0;
  }
}

const Value* Value::field(std::string_view name) const {
  for (auto c = classes.rbegin(); c != classes.rend(); ++c)
    for (const auto& [n, v] : c->fields)
      if (n == name) return v.get();
  return nullptr;
}

const ClassData* Value::class_data(std::string_view name) const {
  for (const ClassData& c : classes)
    if (c.desc->name == name) return &c;
  return nullptr;
}

size_t Value::length() const {
  if (kind != Kind::kArray) return 0;
  size_t size = primitive_size(type);
  return size ? text.size() / size : elements.size();
}

int64_t Value::primitive_element(size_t i) const {
  size_t size = primitive_size(type);
  if (size == 0 || (i + 1) * size > text.size()) return 0;
  uint64_t bits = 0;
  for (size_t k = 0; k < size; ++k) bits = (bits << 8) | static_cast<uint8_t>(text[i * size + k]);
  switch (type) {
    case 'B': return static_cast<int8_t>(bits);
    case 'S': return static_cast<int16_t>(bits);
    case 'I': case 'F': return static_cast<int32_t>(bits);
    case 'Z': return bits != 0;
    default: return static_cast<int64_t>(bits);  // 'C' unsigned, 'J' / 'D' all 64 bits
  }
}

Result<ValuePtr> read_object_stream(ByteReader& r, Limits limits) {
  uint64_t at = r.offset();
  uint16_t magic = r.u16();
  uint16_t version = r.u16();
  if (r.ok() && (magic != kStreamMagic || version != kStreamVersion))
    r.fail_at(at, fmt::format("expected a java object stream (ac ed 00 05), found {:02x} {:02x} {:02x} {:02x}",
                              magic >> 8, magic & 0xff, version >> 8, version & 0xff));
  ValuePtr v;
  if (r.ok()) v = Parser(r, limits).content(0);
  if (!r.ok()) return *r.error();
  if (!v) return Error(ErrorCode::kCorruption, "empty java object stream", at);
  if (v->kind == Value::Kind::kBlockData) {
    r.fail_at(v->offset, "java stream holds block data where an object was expected");
    return *r.error();
  }
  return v;
}

}  // namespace ckpt::java
