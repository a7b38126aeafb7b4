// Type text of a load spec -> the serializer snapshot Flink's serializer for that type writes
// (formats/load-spec.md §3; the bytes as formats/keyed-state.md §2 and formats/serializers.md describe them).
#include "ops/load/spec_types.h"

#include <algorithm>
#include <cctype>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "support/byte_reader.h"
#include "support/byte_writer.h"
#include "types/snapshot_bytes.h"

namespace ckpt {
namespace {

constexpr const char* kBase = "org.apache.flink.api.common.typeutils.base.";
constexpr const char* kTupleSnapshot = "org.apache.flink.api.java.typeutils.runtime.TupleSerializerSnapshot";
constexpr const char* kPojoSnapshot = "org.apache.flink.api.java.typeutils.runtime.PojoSerializerSnapshot";
constexpr const char* kRowDataSnapshot =
    "org.apache.flink.table.runtime.typeutils.RowDataSerializer$RowDataSerializerSnapshot";
constexpr const char* kStringDataSnapshot =
    "org.apache.flink.table.runtime.typeutils.StringDataSerializer$StringDataSerializerSnapshot";
constexpr const char* kDecimalDataSnapshot =
    "org.apache.flink.table.runtime.typeutils.DecimalDataSerializer$DecimalSerializerSnapshot";
constexpr const char* kTimestampDataSnapshot =
    "org.apache.flink.table.runtime.typeutils.TimestampDataSerializer$TimestampDataSerializerSnapshot";
constexpr const char* kLogicalTypes = "org.apache.flink.table.types.logical.";
constexpr int32_t kCompositeMagic = 911108;            // CompositeTypeSerializerSnapshot.MAGIC_NUMBER
constexpr int32_t kDelegateMagic = 1333245;            // NestedSerializersSnapshotDelegate.MAGIC_NUMBER
constexpr int64_t kOptionalMapHeader = 0x4F2C69A3D70;  // LinkedOptionalMapSerializer.HEADER

// One scalar: its DataStream serializer (base.<S>Serializer$<S>SerializerSnapshot), and as a SQL
// field its LogicalType class and LogicalTypeRoot.
struct SpecScalar {
  const char* name;
  const char* serializer;  // "" where DataStream has no serializer of that name
  const char* logical;     // "" where the spec does not write the SQL type
  const char* root;
};
constexpr SpecScalar kScalars[] = {
    {"BOOLEAN", "Boolean", "BooleanType", "BOOLEAN"},
    {"TINYINT", "Byte", "TinyIntType", "TINYINT"},
    {"SMALLINT", "Short", "SmallIntType", "SMALLINT"},
    {"INT", "Int", "IntType", "INTEGER"},
    {"INTEGER", "Int", "IntType", "INTEGER"},
    {"BIGINT", "Long", "BigIntType", "BIGINT"},
    {"FLOAT", "Float", "FloatType", "FLOAT"},
    {"DOUBLE", "Double", "DoubleType", "DOUBLE"},
    {"CHAR", "Char", "", ""},
    {"STRING", "String", "VarCharType", "VARCHAR"},
    {"VARCHAR", "String", "VarCharType", "VARCHAR"},
    {"BYTES", "", "", ""},
    // SQL types only (as ROW fields): their DataStream forms are other classes.
    {"DECIMAL", "", "DecimalType", "DECIMAL"},
    {"TIMESTAMP", "", "TimestampType", "TIMESTAMP_WITHOUT_TIME_ZONE"},
    {"TIMESTAMP_LTZ", "", "LocalZonedTimestampType", "TIMESTAMP_WITH_LOCAL_TIME_ZONE"},
};

bool sql_only(const std::string& word) { return word == "DECIMAL" || word == "TIMESTAMP" || word == "TIMESTAMP_LTZ"; }

struct TypeNode {
  std::string word;  // upper case: BIGINT, LIST, POJO, ...
  std::string cls;   // POJO class
  bool not_null = false;
  int64_t length = -1;             // VARCHAR(n)
  int32_t precision = -1;          // DECIMAL(p, s), TIMESTAMP(p), TIMESTAMP_LTZ(p)
  int32_t scale = -1;
  std::string timestamp_kind = "REGULAR";  // TIMESTAMP(p) *ROWTIME*: a time attribute
  std::vector<std::string> names;  // ROW and POJO fields
  std::vector<TypeNode> children;
  size_t at = 0;
};

class TypeParser {
 public:
  explicit TypeParser(std::string_view text) : s_(text) {}

  Result<TypeNode> parse() {
    CKPT_ASSIGN_OR_RETURN(TypeNode t, type());
    skip();
    if (i_ != s_.size()) return fail("the end of the type");
    return t;
  }

 private:
  Error fail(const std::string& expected) const {
    return Error(ErrorCode::kInvalidArgument, fmt::format("type \"{}\", at {}: expected {}", s_, i_, expected));
  }
  void skip() {
    while (i_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[i_]))) ++i_;
  }
  bool take(char c) {
    skip();
    if (i_ < s_.size() && s_[i_] == c) return ++i_, true;
    return false;
  }
  std::string word() {
    skip();
    if (i_ < s_.size() && s_[i_] == '`') {
      size_t end = s_.find('`', i_ + 1);
      if (end == std::string_view::npos) return {};
      std::string w(s_.substr(i_ + 1, end - i_ - 1));
      i_ = end + 1;
      return w;
    }
    size_t b = i_;
    while (i_ < s_.size() &&
           (std::isalnum(static_cast<unsigned char>(s_[i_])) || s_[i_] == '_' || s_[i_] == '.' || s_[i_] == '$'))
      ++i_;
    return std::string(s_.substr(b, i_ - b));
  }
  static std::string upper(std::string w) {
    for (char& c : w) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return w;
  }

  Result<TypeNode> type() {
    if (++depth_ > 32) return fail("types nested at most 32 deep");
    TypeNode t;
    skip();
    t.at = i_;
    t.word = upper(word());
    if (t.word.empty()) return fail("a type");
    if (t.word == "POJO") {
      t.cls = word();
      if (t.cls.empty()) return fail("the POJO's class");
      if (!take('{')) return fail("'{' and the POJO's fields");
      if (!take('}')) {
        do {
          std::string name = word();
          if (name.empty()) return fail("a field name");
          if (!take(':')) return fail("':' after the field name");
          CKPT_ASSIGN_OR_RETURN(TypeNode f, type());
          t.names.push_back(std::move(name));
          t.children.push_back(std::move(f));
        } while (take(','));
        if (!take('}')) return fail("',' or '}'");
      }
    } else if (t.word == "ROW" || t.word == "TUPLE" || t.word == "LIST" || t.word == "MAP") {
      if (!take('<')) return fail("'<' after " + t.word);
      do {
        if (t.word == "ROW") {
          std::string name = word();
          if (name.empty()) return fail("a field name");
          t.names.push_back(std::move(name));
        }
        CKPT_ASSIGN_OR_RETURN(TypeNode f, type());
        t.children.push_back(std::move(f));
      } while (take(','));
      if (!take('>')) return fail("',' or '>'");
      size_t want = t.word == "LIST" ? 1 : t.word == "MAP" ? 2 : 0;
      if (want && t.children.size() != want) return fail(fmt::format("{} with {} type(s)", t.word, want));
      if (t.word == "TUPLE" && t.children.size() > 25) return fail("a Tuple of at most 25 fields");
    } else if (std::none_of(std::begin(kScalars), std::end(kScalars),
                            [&](const SpecScalar& k) { return t.word == k.name; })) {
      i_ = t.at;
      return fail(
          "BOOLEAN, TINYINT, SMALLINT, INT, BIGINT, FLOAT, DOUBLE, CHAR, STRING, VARCHAR(n), BYTES, DECIMAL(p, s), "
          "TIMESTAMP(p), TIMESTAMP_LTZ(p), LIST<..>, MAP<..>, TUPLE<..>, ROW<..> or POJO class {..}");
    }
    if (t.word == "VARCHAR" && take('(')) {
      skip();
      size_t b = i_;
      while (i_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[i_]))) ++i_;
      if (b == i_ || i_ - b > 10) return fail("a length");
      t.length = std::stoll(std::string(s_.substr(b, i_ - b)));
      if (t.length < 1 || t.length > INT32_MAX) return fail("a length of 1 to 2147483647");
      if (!take(')')) return fail("')'");
    }
    if (t.word == "DECIMAL") {
      // DecimalType's defaults: DECIMAL is DECIMAL(10, 0), DECIMAL(p) is DECIMAL(p, 0).
      t.precision = 10;
      t.scale = 0;
      if (take('(')) {
        CKPT_ASSIGN_OR_RETURN(t.precision, number(1, 38, "a precision of 1 to 38"));
        t.scale = 0;
        if (take(',')) {
          CKPT_ASSIGN_OR_RETURN(t.scale, number(0, t.precision, fmt::format("a scale of 0 to {}", t.precision)));
        }
        if (!take(')')) return fail("')'");
      }
    } else if (t.word == "TIMESTAMP" || t.word == "TIMESTAMP_LTZ") {
      t.precision = 6;  // TimestampType.DEFAULT_PRECISION
      if (take('(')) {
        CKPT_ASSIGN_OR_RETURN(t.precision, number(0, 9, "a precision of 0 to 9"));
        if (!take(')')) return fail("')'");
      }
      // A time attribute, as Flink's summary string marks it: TIMESTAMP(3) *ROWTIME*.
      if (take('*')) {
        t.timestamp_kind = upper(word());
        if (t.timestamp_kind != "ROWTIME" && t.timestamp_kind != "PROCTIME") return fail("ROWTIME or PROCTIME after '*'");
        if (!take('*')) return fail("'*' after " + t.timestamp_kind);
      }
    }
    size_t before = i_;
    if (upper(word()) == "NOT") {
      if (upper(word()) != "NULL") return fail("NULL after NOT");
      t.not_null = true;
    } else {
      i_ = before;
    }
    --depth_;
    return t;
  }

  Result<int32_t> number(int32_t lo, int32_t hi, const std::string& expected) {
    skip();
    size_t b = i_;
    while (i_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[i_]))) ++i_;
    if (b == i_ || i_ - b > 2) {
      i_ = b;
      return fail(expected);
    }
    const int32_t n = std::stoi(std::string(s_.substr(b, i_ - b)));
    if (n < lo || n > hi) {
      i_ = b;
      return fail(expected);
    }
    return n;
  }

  std::string_view s_;
  size_t i_ = 0;
  int depth_ = 0;
};

const SpecScalar* scalar(const std::string& word) {
  for (const SpecScalar& k : kScalars)
    if (word == k.name) return &k;
  return nullptr;
}

// LinkedOptionalMapSerializer.writeOptionalMap with every key and value present, each framed.
template <class Entry>
void write_optional_map(ByteWriter& w, size_t n, Entry&& entry) {
  w.i64(kOptionalMapHeader);
  w.i32(static_cast<int32_t>(n));
  for (size_t i = 0; i < n; ++i) {
    ByteWriter key, value;
    std::string name = entry(i, key, value);
    w.utf(name);
    w.boolean(true);
    w.i32(static_cast<int32_t>(key.size()));
    w.bytes(key.buffer());
    w.boolean(true);
    w.i32(static_cast<int32_t>(value.size()));
    w.bytes(value.buffer());
  }
}

// ObjectOutputStream.writeObject of one LogicalType of `t` (InstantiationUtil.serializeObject, a
// stream of its own): the class, its superclass LogicalType (isNullable, typeRoot), the
// LogicalTypeRoot constant, then the class's own fields (VarCharType: length).
void write_java_logical_type(ByteWriter& w, const TypeNode& t, const SpecScalar& k) {
  auto desc = [&](const std::string& cls, uint64_t uid, uint8_t flags) {
    w.u8(0x72);  // TC_CLASSDESC
    w.utf(cls);
    w.u64(uid);
    w.u8(flags);
  };
  const std::string root = k.root;
  const bool varchar = root == "VARCHAR";
  const bool decimal = root == "DECIMAL";
  const bool timestamp = t.word == "TIMESTAMP" || t.word == "TIMESTAMP_LTZ";
  w.u16(0xACED);
  w.u16(5);
  w.u8(0x73);  // TC_OBJECT
  // Handle 0: the class; its fields' type strings take the handles after it.
  desc(std::string(kLogicalTypes) + k.logical, 1, 0x02);
  // The class's own fields: primitives first, each kind by name (ObjectStreamClass's order).
  if (varchar) {
    w.i16(1);
    w.u8('I');
    w.utf("length");
  } else if (decimal) {
    w.i16(2);
    w.u8('I');
    w.utf("precision");
    w.u8('I');
    w.utf("scale");
  } else if (timestamp) {
    w.i16(2);
    w.u8('I');
    w.utf("precision");
    w.u8('L');
    w.utf("kind");
    w.u8(0x74);  // TC_STRING, handle 1
    w.utf("Lorg/apache/flink/table/types/logical/TimestampKind;");
  } else {
    w.i16(0);
  }
  w.u8(0x78);  // TC_ENDBLOCKDATA
  desc(std::string(kLogicalTypes) + "LogicalType", 1, 0x02);
  w.i16(2);
  w.u8('Z');
  w.utf("isNullable");
  w.u8('L');
  w.utf("typeRoot");
  w.u8(0x74);  // TC_STRING
  w.utf("Lorg/apache/flink/table/types/logical/LogicalTypeRoot;");
  w.u8(0x78);
  w.u8(0x70);  // TC_NULL: no further superclass
  w.boolean(!t.not_null);
  w.u8(0x7E);  // TC_ENUM
  desc(std::string(kLogicalTypes) + "LogicalTypeRoot", 0, 0x12);
  w.i16(0);
  w.u8(0x78);
  desc("java.lang.Enum", 0, 0x12);  // a timestamp's handle 6 (5 without its kind's type string)
  w.i16(0);
  w.u8(0x78);
  w.u8(0x70);
  w.u8(0x74);
  w.utf(k.root);
  if (varchar) w.i32(static_cast<int32_t>(t.word == "STRING" ? INT32_MAX : t.length < 0 ? 1 : t.length));
  if (decimal) {
    w.i32(t.precision);
    w.i32(t.scale);
  }
  if (timestamp) {
    w.i32(t.precision);
    w.u8(0x7E);  // TC_ENUM: the TimestampKind, its superclass java.lang.Enum written above
    desc(std::string(kLogicalTypes) + "TimestampKind", 0, 0x12);
    w.i16(0);
    w.u8(0x78);
    w.u8(0x71);  // TC_REFERENCE
    w.i32(0x7E0006);
    w.u8(0x74);
    w.utf(t.timestamp_kind);
  }
}

Status write_snapshot(ByteWriter& w, const TypeNode& t);

// RowDataSerializer$RowDataSerializerSnapshot (version 3): the field count, each field's
// LogicalType Java-serialized, then the nested snapshots of InternalSerializers.create(type).
Status write_row_data(ByteWriter& w, const TypeNode& t) {
  w.utf(kRowDataSnapshot);
  w.i32(3);
  w.i32(static_cast<int32_t>(t.children.size()));
  for (size_t i = 0; i < t.children.size(); ++i) {
    const TypeNode& f = t.children[i];
    const SpecScalar* k = scalar(f.word);
    if (!k || !*k->logical)
      return Error(ErrorCode::kNotSupported,
                   fmt::format("ROW field '{}': {} is not written as a SQL type yet (BOOLEAN, TINYINT, SMALLINT, INT, "
                               "BIGINT, FLOAT, DOUBLE, STRING, VARCHAR(n), DECIMAL(p, s), TIMESTAMP(p) and "
                               "TIMESTAMP_LTZ(p) are)",
                               t.names[i], f.word));
    write_java_logical_type(w, f, *k);
  }
  w.i32(kDelegateMagic);
  w.i32(1);
  w.i32(static_cast<int32_t>(t.children.size()));
  for (const TypeNode& f : t.children) {
    const SpecScalar* k = scalar(f.word);
    if (std::string(k->root) == "VARCHAR") {
      write_simple_snapshot(w, kStringDataSnapshot);
    } else if (f.word == "DECIMAL") {
      w.utf(kDecimalDataSnapshot);  // version 3: precision, scale
      w.i32(3);
      w.i32(f.precision);
      w.i32(f.scale);
    } else if (sql_only(f.word)) {
      w.utf(kTimestampDataSnapshot);  // version 1: precision (TIMESTAMP and TIMESTAMP_LTZ alike)
      w.i32(1);
      w.i32(f.precision);
    } else {
      write_simple_snapshot(
          w, fmt::format("{}{}Serializer${}SerializerSnapshot", kBase, k->serializer, k->serializer).c_str());
    }
  }
  return Status::OK();
}

Status write_snapshot(ByteWriter& w, const TypeNode& t) {
  if (const SpecScalar* k = scalar(t.word)) {
    if (sql_only(t.word))
      return Error(ErrorCode::kNotSupported,
                   fmt::format("{}: a SQL type, written only as a field of a ROW (its DataStream forms are "
                               "other classes)",
                               t.word));
    if (t.word == "BYTES")
      write_simple_snapshot(w,
                            "org.apache.flink.api.common.typeutils.base.array.BytePrimitiveArraySerializer$"
                            "BytePrimitiveArraySerializerSnapshot");
    else
      write_simple_snapshot(
          w, fmt::format("{}{}Serializer${}SerializerSnapshot", kBase, k->serializer, k->serializer).c_str());
    return Status::OK();
  }
  if (t.word == "LIST" || t.word == "MAP") {
    write_composite_head(w, fmt::format("{}{}SerializerSnapshot", kBase, t.word == "LIST" ? "List" : "Map").c_str(),
                         static_cast<int32_t>(t.children.size()));
    for (const TypeNode& c : t.children) CKPT_RETURN_IF_ERROR(write_snapshot(w, c));
    return Status::OK();
  }
  if (t.word == "TUPLE") {
    // TupleSerializerSnapshot, outer version 2: the tuple class as outer data.
    w.utf(kTupleSnapshot);
    w.i32(3);
    w.i32(kCompositeMagic);
    w.i32(2);
    w.utf(fmt::format("org.apache.flink.api.java.tuple.Tuple{}", t.children.size()));
    w.i32(kDelegateMagic);
    w.i32(1);
    w.i32(static_cast<int32_t>(t.children.size()));
    for (const TypeNode& c : t.children) CKPT_RETURN_IF_ERROR(write_snapshot(w, c));
    return Status::OK();
  }
  if (t.word == "POJO") {
    // PojoTypeInfo orders a POJO's fields by name; the snapshot (version 2) lists them so, each
    // keyed by its declaring class and name, with no registered or other subclasses.
    std::vector<size_t> order(t.children.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return t.names[a] < t.names[b]; });
    for (size_t i = 1; i < order.size(); ++i)
      if (t.names[order[i]] == t.names[order[i - 1]])
        return Error(ErrorCode::kInvalidArgument,
                     fmt::format("POJO {}: field '{}' named twice", t.cls, t.names[order[i]]));
    w.utf(kPojoSnapshot);
    w.i32(2);
    w.utf(t.cls);
    Status status = Status::OK();
    write_optional_map(w, order.size(), [&](size_t i, ByteWriter& key, ByteWriter& value) {
      const size_t f = order[i];
      key.utf(t.cls);
      key.utf(t.names[f]);
      Status s = write_snapshot(value, t.children[f]);
      if (!s.ok() && status.ok()) status = std::move(s);
      return t.names[f];
    });
    CKPT_RETURN_IF_ERROR(status);
    write_optional_map(w, 0, [](size_t, ByteWriter&, ByteWriter&) { return std::string(); });
    write_optional_map(w, 0, [](size_t, ByteWriter&, ByteWriter&) { return std::string(); });
    return Status::OK();
  }
  return write_row_data(w, t);  // ROW: a SQL row, RowData as the table runtime keeps it
}

}  // namespace

Result<SerializerSnapshot> spec_type_snapshot(std::string_view type) {
  CKPT_ASSIGN_OR_RETURN(TypeNode t, TypeParser(type).parse());
  ByteWriter w;
  CKPT_RETURN_IF_ERROR(write_snapshot(w, t));
  ByteReader r(w.buffer());
  CKPT_ASSIGN_OR_RETURN(SerializerSnapshot s, read_serializer_snapshot(r, SnapshotFraming::kVersioned));
  if (!r.at_end())
    return Error(ErrorCode::kCorruption, fmt::format("type \"{}\": its snapshot reads back short", type));
  return s;
}

}  // namespace ckpt
