// The Java Object Serialization Stream Protocol, read generically and with bounds.
#include "format/java/java_object_stream.h"

#include <fmt/format.h>

namespace ckpt::java {
namespace {

constexpr uint8_t kNull = 0x70, kReference = 0x71, kClassDesc = 0x72, kObject = 0x73, kString = 0x74,
                  kArray = 0x75, kClass = 0x76, kBlockData = 0x77, kEndBlockData = 0x78, kReset = 0x79,
                  kBlockDataLong = 0x7A, kLongString = 0x7C, kProxyClassDesc = 0x7D, kEnum = 0x7E;
constexpr int32_t kBaseHandle = 0x7E0000;
constexpr uint8_t kWriteMethod = 0x01, kSerializable = 0x02, kExternalizable = 0x04, kBlockDataFlag = 0x08;

struct FieldDesc {
  char type;
  std::string name;
};

struct ClassDesc {
  std::string name;
  uint8_t flags = 0;
  std::vector<FieldDesc> fields;
  std::shared_ptr<const ClassDesc> super;
  bool complete = false;  // its superclass has been read
};

// A handle refers to a class descriptor or to a value. Handles are numbered when an object is
// begun, so the stream can refer to one still being read; such references are where cycles of
// shared_ptr (leaks, endless walks) would come from, and are cut (see content()).
struct Handle {
  std::shared_ptr<const ClassDesc> desc;
  ValuePtr value;
  bool complete = true;  // false while the value's contents are being read
};

class Parser {
 public:
  Parser(ByteReader& r, int max_depth) : r_(r), max_depth_(max_depth) {}

  ValuePtr content(int depth);

 private:
  std::shared_ptr<const ClassDesc> class_desc(int depth);
  std::shared_ptr<const ClassDesc> new_class_desc(uint8_t tc, int depth);
  void annotations(std::vector<ValuePtr>* out, int depth);
  ValuePtr primitive(char type);
  ValuePtr new_object(int depth);
  ValuePtr new_array(int depth);
  ValuePtr string_body(uint8_t tc);
  size_t new_handle() {
    handles_.emplace_back();
    return handles_.size() - 1;
  }
  // Every node of the tree comes from here: a hundred bytes or more each for as little as one
  // byte of input (a primitive array element), so their number is capped, not only the bytes.
  bool budget() {
    if (++nodes_ <= kMaxNodes) return true;
    if (nodes_ == kMaxNodes + 1) r_.fail(fmt::format("java stream holds more than {} objects", kMaxNodes));
    return false;
  }
  std::shared_ptr<Value> fresh() {
    (void)budget();
    return std::make_shared<Value>();
  }
  std::shared_ptr<ClassDesc> fresh_desc() {
    (void)budget();
    return std::make_shared<ClassDesc>();
  }
  // A new value that takes the next handle, as every object, array, enum, class and string does;
  // *handle is its number, for finished() once its contents are read.
  std::shared_ptr<Value> registered(Value::Kind kind, std::string class_name, size_t* handle = nullptr) {
    auto v = fresh();
    v->kind = kind;
    v->class_name = std::move(class_name);
    size_t h = new_handle();
    handles_[h].value = v;
    if (handle) {
      handles_[h].complete = false;
      *handle = h;
    }
    return v;
  }
  // A TC_RESET may have cleared the handles meanwhile.
  void finished(size_t handle) {
    if (handle < handles_.size()) handles_[handle].complete = true;
  }
  const Handle* reference() {
    uint64_t at = r_.offset();
    int32_t h = r_.i32() - kBaseHandle;
    if (!r_.ok()) return nullptr;
    if (h < 0 || static_cast<size_t>(h) >= handles_.size()) {
      r_.fail_at(at, fmt::format("java stream back-reference {:#x} to an unknown handle", h + kBaseHandle));
      return nullptr;
    }
    return &handles_[static_cast<size_t>(h)];
  }
  bool deeper(int depth) {
    if (depth <= max_depth_) return true;
    r_.fail(fmt::format("java stream objects nested deeper than {}", max_depth_));
    return false;
  }

  // Far more than the logical types of a table of thousands of columns take.
  static constexpr size_t kMaxNodes = size_t{1} << 16;

  ByteReader& r_;
  int max_depth_;
  std::vector<Handle> handles_;
  size_t nodes_ = 0;
};

ValuePtr null_value() {
  static const ValuePtr v = std::make_shared<Value>();
  return v;
}

std::shared_ptr<const ClassDesc> Parser::class_desc(int depth) {
  if (!deeper(depth)) return nullptr;
  uint64_t at = r_.offset();
  uint8_t tc = r_.u8();
  if (!r_.ok()) return nullptr;
  switch (tc) {
    case kNull: return nullptr;
    case kReference: {
      const Handle* h = reference();
      if (h && !h->desc) r_.fail_at(at, "java stream reference to a non-class where a class descriptor was expected");
      // No Java class is its own ancestor: a descriptor still being read cannot be a superclass
      // or the class of an object (and a cycle of superclasses could never be walked to its end).
      if (h && h->desc && !h->desc->complete)
        r_.fail_at(at, fmt::format("java stream reference to class descriptor {} while it is being read", h->desc->name));
      return h && r_.ok() ? h->desc : nullptr;
    }
    case kClassDesc:
    case kProxyClassDesc: return new_class_desc(tc, depth);
    default:
      r_.fail_at(at, fmt::format("expected a java class descriptor, found type code {:#x}", tc));
      return nullptr;
  }
}

std::shared_ptr<const ClassDesc> Parser::new_class_desc(uint8_t tc, int depth) {
  auto d = fresh_desc();
  if (tc == kProxyClassDesc) {
    size_t h = new_handle();
    int32_t n = r_.count(2, "proxy interface");
    for (int32_t i = 0; i < n && r_.ok(); ++i) (void)r_.utf();
    d->name = "$Proxy";
    d->flags = kSerializable;
    handles_[h].desc = d;
  } else {
    d->name = r_.utf();
    r_.i64();  // serialVersionUID
    size_t h = new_handle();
    handles_[h].desc = d;
    d->flags = r_.u8();
    int16_t n = r_.i16();
    if (r_.ok() && (n < 0 || static_cast<size_t>(n) * 3 > r_.remaining())) {
      r_.fail(fmt::format("java class {} declares {} fields", d->name, n));
      return nullptr;
    }
    for (int16_t i = 0; i < n && r_.ok(); ++i) {
      FieldDesc f;
      f.type = static_cast<char>(r_.u8());
      f.name = r_.utf();
      if (f.type == 'L' || f.type == '[') (void)content(depth + 1);  // the field's class name
      else if (std::string_view("BCDFIJSZ").find(f.type) == std::string_view::npos && r_.ok())
        r_.fail(fmt::format("unknown java field type code {:#x}", static_cast<uint8_t>(f.type)));
      d->fields.push_back(std::move(f));
    }
  }
  std::vector<ValuePtr> ignored;
  annotations(&ignored, depth);
  d->super = class_desc(depth + 1);
  d->complete = true;
  return r_.ok() ? d : nullptr;
}

void Parser::annotations(std::vector<ValuePtr>* out, int depth) {
  while (r_.ok()) {
    if (r_.remaining() > 0 && r_.data()[r_.position()] == kEndBlockData) {
      r_.u8();
      return;
    }
    ValuePtr v = content(depth + 1);
    if (v) out->push_back(std::move(v));
  }
}

ValuePtr Parser::primitive(char type) {
  auto v = fresh();
  v->kind = Value::Kind::kPrimitive;
  switch (type) {
    case 'B': v->number = r_.i8(); break;
    case 'Z': v->number = r_.u8() != 0; break;
    case 'C': v->number = r_.u16(); break;
    case 'S': v->number = r_.i16(); break;
    case 'I': case 'F': v->number = r_.i32(); break;
    case 'J': case 'D': v->number = r_.i64(); break;
    default: r_.fail(fmt::format("unknown java primitive type {:#x}", static_cast<uint8_t>(type)));
  }
  return v;
}

ValuePtr Parser::new_object(int depth) {
  auto desc = class_desc(depth + 1);
  if (!r_.ok()) return nullptr;
  if (!desc) {
    r_.fail("java object without a class descriptor");
    return nullptr;
  }
  size_t handle = 0;
  auto v = registered(Value::Kind::kObject, desc->name, &handle);
  std::vector<const ClassDesc*> chain;
  for (const ClassDesc* c = desc.get(); c && chain.size() < 64; c = c->super.get()) chain.push_back(c);
  for (auto it = chain.rbegin(); it != chain.rend() && r_.ok(); ++it) {
    const ClassDesc& c = **it;
    if (c.flags & kExternalizable) {
      if (!(c.flags & kBlockDataFlag)) {
        r_.not_supported_at(r_.offset(), fmt::format("externalizable java class {} in protocol version 1", c.name));
        return nullptr;
      }
      annotations(&v->annotations, depth);
      continue;
    }
    for (const auto& f : c.fields) {
      if (!r_.ok()) break;
      ValuePtr fv = (f.type == 'L' || f.type == '[') ? content(depth + 1) : primitive(f.type);
      v->fields.emplace_back(f.name, fv ? fv : null_value());
    }
    if (c.flags & kWriteMethod) annotations(&v->annotations, depth);
  }
  finished(handle);
  return r_.ok() ? ValuePtr(v) : nullptr;
}

ValuePtr Parser::new_array(int depth) {
  auto desc = class_desc(depth + 1);
  if (!r_.ok()) return nullptr;
  if (!desc || desc->name.size() < 2 || desc->name[0] != '[') {
    r_.fail("java array without an array class descriptor");
    return nullptr;
  }
  size_t handle = 0;
  auto v = registered(Value::Kind::kArray, desc->name, &handle);
  char type = desc->name[1];
  bool objects = type == 'L' || type == '[';
  int32_t n = r_.count(1, "java array element");
  for (int32_t i = 0; i < n && r_.ok(); ++i) {
    ValuePtr e = objects ? content(depth + 1) : primitive(type);
    v->elements.push_back(e ? e : null_value());
  }
  finished(handle);
  return r_.ok() ? ValuePtr(v) : nullptr;
}

ValuePtr Parser::string_body(uint8_t tc) {
  auto v = registered(Value::Kind::kString, {});
  if (tc == kString) {
    v->text = r_.utf();
  } else {
    uint64_t at = r_.offset();
    int64_t n = r_.i64();
    if (r_.ok() && (n < 0 || static_cast<uint64_t>(n) > r_.remaining())) {
      r_.fail_at(at, fmt::format("java long string of {} bytes, only {} left", n, r_.remaining()));
      return nullptr;
    }
    v->text = std::string(r_.bytes(static_cast<size_t>(n)));
  }
  return r_.ok() ? ValuePtr(v) : nullptr;
}

ValuePtr Parser::content(int depth) {
  if (!deeper(depth)) return nullptr;
  uint64_t at = r_.offset();
  uint8_t tc = r_.u8();
  if (!r_.ok()) return nullptr;
  switch (tc) {
    case kNull: return null_value();
    case kReference: {
      const Handle* h = reference();
      if (!h) return nullptr;
      if (h->value && !h->complete) {
        // Into an object or array still being read: Java graphs may be cyclic, this tree is
        // not (a shared_ptr cycle would leak). The reference stands for the value, unfilled.
        auto v = fresh();
        v->kind = h->value->kind;
        v->class_name = h->value->class_name;
        return v;
      }
      if (h->value) return h->value;
      auto v = fresh();  // a class descriptor used as a value
      v->kind = Value::Kind::kClass;
      v->class_name = h->desc ? h->desc->name : "";
      return v;
    }
    case kObject: return new_object(depth);
    case kString:
    case kLongString: return string_body(tc);
    case kArray: return new_array(depth);
    case kEnum: {
      auto desc = class_desc(depth + 1);
      auto v = registered(Value::Kind::kEnum, desc ? desc->name : "");
      ValuePtr name = content(depth + 1);
      if (r_.ok() && (!name || name->kind != Value::Kind::kString)) {
        r_.fail_at(at, "java enum constant without a name");
        return nullptr;
      }
      if (name) v->text = name->text;
      return r_.ok() ? ValuePtr(v) : nullptr;
    }
    case kClass: {
      auto desc = class_desc(depth + 1);
      return registered(Value::Kind::kClass, desc ? desc->name : "");
    }
    case kClassDesc:
    case kProxyClassDesc: {
      auto desc = new_class_desc(tc, depth);
      auto v = fresh();
      v->kind = Value::Kind::kClass;
      v->class_name = desc ? desc->name : "";
      return v;
    }
    case kBlockData:
    case kBlockDataLong: {
      size_t n = tc == kBlockData ? r_.u8() : static_cast<size_t>(r_.count(1, "java block data byte"));
      auto v = fresh();
      v->kind = Value::Kind::kBlockData;
      v->text = std::string(r_.bytes(n));
      return r_.ok() ? ValuePtr(v) : nullptr;
    }
    case kReset:
      handles_.clear();
      return content(depth + 1);
    default:
      r_.fail_at(at, fmt::format("unexpected java stream type code {:#x}", tc));
      return nullptr;
  }
}

}  // namespace

const Value* Value::field(std::string_view name) const {
  for (auto it = fields.rbegin(); it != fields.rend(); ++it)
    if (it->first == name) return it->second.get();
  return nullptr;
}

Result<ValuePtr> read_object_stream(ByteReader& r, int max_depth) {
  uint64_t at = r.offset();
  uint16_t magic = r.u16();
  uint16_t version = r.u16();
  if (r.ok() && (magic != 0xACED || version != 5))
    r.fail_at(at, fmt::format("expected a java object stream (ac ed 00 05), found {:04x} {:04x}", magic, version));
  ValuePtr v;
  if (r.ok()) v = Parser(r, max_depth).content(0);
  if (!r.ok()) return *r.error();
  if (!v) return Error(ErrorCode::kCorruption, "empty java object stream", at);
  return v;
}

}  // namespace ckpt::java
