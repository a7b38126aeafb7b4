// Type text of a load spec -> the serializer snapshot Flink's serializer for that type writes
// (formats/load-spec.md §3; the bytes as formats/keyed-state.md §2 and formats/serializers.md describe them).
#include "ops/load/spec_types.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "format/java/java_object_stream.h"
#include "format/java/java_object_writer.h"
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
  const char* logical;
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
    // CHAR is Java's char in DataStream, SQL's CHAR(1) as a ROW field.
    {"CHAR", "Char", "CharType", "CHAR"},
    {"STRING", "String", "VarCharType", "VARCHAR"},
    {"VARCHAR", "String", "VarCharType", "VARCHAR"},
    // byte[] in DataStream (BytePrimitiveArraySerializer), whatever the SQL type says of its length.
    {"BYTES", "", "VarBinaryType", "VARBINARY"},
    {"VARBINARY", "", "VarBinaryType", "VARBINARY"},
    {"BINARY", "", "BinaryType", "BINARY"},
    // SQL types only (as ROW fields): their DataStream forms are other classes.
    {"DECIMAL", "", "DecimalType", "DECIMAL"},
    {"TIMESTAMP", "", "TimestampType", "TIMESTAMP_WITHOUT_TIME_ZONE"},
    {"TIMESTAMP_LTZ", "", "LocalZonedTimestampType", "TIMESTAMP_WITH_LOCAL_TIME_ZONE"},
    {"DATE", "", "DateType", "DATE"},
    {"TIME", "", "TimeType", "TIME_WITHOUT_TIME_ZONE"},
};

bool bytes_word(const std::string& word) { return word == "BYTES" || word == "VARBINARY" || word == "BINARY"; }

struct TypeNode {
  std::string word;  // upper case: BIGINT, LIST, POJO, ...
  std::string cls;   // POJO class
  bool not_null = false;
  int64_t length = -1;     // VARCHAR(n), CHAR(n), BINARY(n), VARBINARY(n): -1 when not given
  int32_t precision = -1;  // DECIMAL(p, s), TIMESTAMP(p), TIMESTAMP_LTZ(p), TIME(p)
  int32_t scale = -1;
  std::string timestamp_kind = "REGULAR";  // TIMESTAMP(p) *ROWTIME*: a time attribute
  std::vector<std::string> names;  // ROW and POJO fields
  std::vector<std::optional<std::string>> descriptions;  // ROW fields: 'text' after the type
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
  // `quote`-quoted text, the quote doubled inside it (Flink's escapeIdentifier and
  // escapeSingleQuotes); i_ is at the opening quote. nullopt when it is not closed.
  std::optional<std::string> quoted(char quote) {
    std::string out;
    for (size_t j = i_ + 1; j < s_.size(); ++j) {
      if (s_[j] != quote) {
        out += s_[j];
      } else if (j + 1 < s_.size() && s_[j + 1] == quote) {
        out += quote;
        ++j;
      } else {
        i_ = j + 1;
        return out;
      }
    }
    return std::nullopt;
  }
  std::string word() {
    skip();
    if (i_ < s_.size() && s_[i_] == '`') return quoted('`').value_or("");
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

  // A ROW field: its name (unique in the row and not blank, as RowType's validateFields wants), its type and
  // an optional 'description'.
  Status row_field(TypeNode& t) {
    skip();
    const size_t at = i_;
    std::string name = word();
    if (name.find_first_not_of(" \t\r\n") == std::string::npos) {
      i_ = at;
      return fail("a field name");
    }
    if (std::find(t.names.begin(), t.names.end(), name) != t.names.end()) {
      i_ = at;
      return fail(fmt::format("a field name not used before in this ROW ('{}' is)", name));
    }
    CKPT_ASSIGN_OR_RETURN(TypeNode f, type());
    std::optional<std::string> description;
    skip();
    if (i_ < s_.size() && s_[i_] == '\'') {
      description = quoted('\'');
      if (!description) return fail("the description's closing quote");
    }
    t.names.push_back(std::move(name));
    t.descriptions.push_back(std::move(description));
    t.children.push_back(std::move(f));
    return Status::OK();
  }

  // `(n)` after CHAR, VARCHAR, BINARY and VARBINARY: 1 to 2147483647 (their MIN_LENGTH and MAX_LENGTH).
  Status length(TypeNode& t) {
    if (!take('(')) return Status::OK();
    skip();
    size_t b = i_;
    while (i_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[i_]))) ++i_;
    if (b == i_ || i_ - b > 10) {
      i_ = b;
      return fail("a length");
    }
    t.length = std::stoll(std::string(s_.substr(b, i_ - b)));
    if (t.length < 1 || t.length > INT32_MAX) {
      i_ = b;
      return fail("a length of 1 to 2147483647");
    }
    if (!take(')')) return fail("')'");
    return Status::OK();
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
      if (t.word == "ROW" && ++rows_ > kMaxRows) {
        i_ = t.at;
        return fail(
            fmt::format("ROWs nested at most {} deep (a nested ROW's Java-serialized type is 4 objects deeper, "
                        "and ckpt reads 64)",
                        kMaxRows));
      }
      if (!take('<')) return fail("'<' after " + t.word);
      do {
        if (t.word == "ROW") {
          CKPT_RETURN_IF_ERROR(row_field(t));
        } else {
          CKPT_ASSIGN_OR_RETURN(TypeNode f, type());
          t.children.push_back(std::move(f));
        }
      } while (take(','));
      if (!take('>')) return fail("',' or '>'");
      size_t want = t.word == "LIST" ? 1 : t.word == "MAP" ? 2 : 0;
      if (want && t.children.size() != want) return fail(fmt::format("{} with {} type(s)", t.word, want));
      if (t.word == "TUPLE" && t.children.size() > 25) return fail("a Tuple of at most 25 fields");
      if (t.word == "ROW") --rows_;
    } else if (std::none_of(std::begin(kScalars), std::end(kScalars),
                            [&](const SpecScalar& k) { return t.word == k.name; })) {
      i_ = t.at;
      return fail(
          "BOOLEAN, TINYINT, SMALLINT, INT, BIGINT, FLOAT, DOUBLE, CHAR(n), STRING, VARCHAR(n), BYTES, BINARY(n), "
          "VARBINARY(n), DECIMAL(p, s), DATE, TIME(p), TIMESTAMP(p), TIMESTAMP_LTZ(p), LIST<..>, MAP<..>, TUPLE<..>, "
          "ROW<..> or POJO class {..}");
    }
    if (t.word == "VARCHAR" || t.word == "CHAR" || t.word == "BINARY" || t.word == "VARBINARY") {
      CKPT_RETURN_IF_ERROR(length(t));
    } else if (t.word == "DECIMAL") {
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
    } else if (t.word == "TIME") {
      t.precision = 0;  // TimeType.DEFAULT_PRECISION
      if (take('(')) {
        CKPT_ASSIGN_OR_RETURN(t.precision, number(0, 9, "a precision of 0 to 9"));
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

  // ROWs inside ROWs: each nested RowType nests its fields 4 objects deeper in the Java stream
  // (the UnmodifiableList, its ArrayList, a RowField, the type), and ckpt's Java reader goes 64
  // deep (formats/serializers.md §13.1), so a 17th ROW would be written but not read back.
  static constexpr int kMaxRows = 16;

  std::string_view s_;
  size_t i_ = 0;
  int depth_ = 0;
  int rows_ = 0;
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

// The Java classes of Flink's SQL LogicalTypes (org.apache.flink.table.types.logical, each with
// serialVersionUID 1 as in the corpus' snapshots), and the JDK classes a RowType's field list
// is written with.
struct LogicalClasses {
  static constexpr uint8_t kSerializable = java::kScSerializable;
  static constexpr uint8_t kEnum = java::kScSerializable | java::kScEnum;
  static std::string logical(const char* simple) { return std::string(kLogicalTypes) + simple; }

  java::ClassSpec enum_base{"java.lang.Enum", 0, kEnum, {}, nullptr, {}};
  java::ClassSpec root{logical("LogicalTypeRoot"), 0, kEnum, {}, &enum_base, {}};
  java::ClassSpec timestamp_kind{logical("TimestampKind"), 0, kEnum, {}, &enum_base, {}};
  // LogicalType: isNullable, typeRoot.
  java::ClassSpec base{logical("LogicalType"),
                       1,
                       kSerializable,
                       java::sort_fields({{'Z', "isNullable", ""},
                                          {'L', "typeRoot", "Lorg/apache/flink/table/types/logical/LogicalTypeRoot;"}}),
                       nullptr,
                       {}};
  // RowType$RowField: name, type, description (null unless the field has one).
  java::ClassSpec row_field{logical("RowType$RowField"),
                            1,
                            kSerializable,
                            java::sort_fields({{'L', "name", "Ljava/lang/String;"},
                                               {'L', "type", "Lorg/apache/flink/table/types/logical/LogicalType;"},
                                               {'L', "description", "Ljava/lang/String;"}}),
                            nullptr,
                            {}};
  // RowType.fields is Collections.unmodifiableList(new ArrayList<>(fields)); the
  // UnmodifiableRandomAccessList it is writes itself as an UnmodifiableList (writeReplace).
  java::ClassSpec unmodifiable_collection{"java.util.Collections$UnmodifiableCollection",
                                          0x19420080CB5EF71EULL,
                                          kSerializable,
                                          {{'L', "c", "Ljava/util/Collection;"}},
                                          nullptr,
                                          {}};
  java::ClassSpec unmodifiable_list{"java.util.Collections$UnmodifiableList", 0xFC0F2531B5EC8E10ULL,    kSerializable,
                                    {{'L', "list", "Ljava/util/List;"}},      &unmodifiable_collection, {}};
  // ArrayList: its size field, then writeObject's capacity (the size) and elements.
  java::ClassSpec array_list{"java.util.ArrayList",
                             0x7881D21D99C7619DULL,
                             java::kScWriteMethod | kSerializable,
                             {{'I', "size", ""}},
                             nullptr,
                             {}};
  std::map<std::string, java::ClassSpec> types;

  LogicalClasses() {
    const java::FieldSpec length{'I', "length", ""}, precision{'I', "precision", ""}, scale{'I', "scale", ""};
    const java::FieldSpec kind{'L', "kind", "Lorg/apache/flink/table/types/logical/TimestampKind;"};
    const std::map<std::string, std::vector<java::FieldSpec>> fields = {
        {"VarCharType", {length}},
        {"CharType", {length}},
        {"BinaryType", {length}},
        {"VarBinaryType", {length}},
        {"DecimalType", {precision, scale}},
        {"TimeType", {precision}},
        {"TimestampType", {precision, kind}},
        {"LocalZonedTimestampType", {precision, kind}},
        {"RowType", {{'L', "fields", "Ljava/util/List;"}}}};
    auto add = [&](const std::string& simple) {
      auto f = fields.find(simple);
      types.emplace(simple,
                    java::ClassSpec{logical(simple.c_str()),
                                    1,
                                    kSerializable,
                                    java::sort_fields(f == fields.end() ? std::vector<java::FieldSpec>{} : f->second),
                                    &base,
                                    {}});
    };
    for (const SpecScalar& k : kScalars) add(k.logical);
    add("RowType");
  }
};

const LogicalClasses& logical_classes() {
  static const LogicalClasses c;
  return c;
}

void write_logical_type(java::ObjectWriter& o, const TypeNode& t);

// RowType.fields: the UnmodifiableList, its ArrayList of RowFields, and the list again as the
// UnmodifiableList's own `list` field (a back-reference to the ArrayList).
void write_row_fields(java::ObjectWriter& o, const TypeNode& t) {
  const LogicalClasses& c = logical_classes();
  o.begin_object(&c.unmodifiable_list);
  const uint32_t list = o.begin_object(&c.array_list);  // UnmodifiableCollection.c
  const auto n = static_cast<int32_t>(t.children.size());
  o.out().i32(n);
  ByteWriter capacity;
  capacity.i32(n);
  o.block_data(capacity.buffer());
  for (size_t i = 0; i < t.children.size(); ++i) {
    o.begin_object(&c.row_field);
    for (const java::FieldSpec& f : c.row_field.fields) {
      if (f.name == "description") {
        if (t.descriptions[i])
          o.new_string(*t.descriptions[i]);
        else
          o.null();
      } else if (f.name == "name") {
        o.new_string(t.names[i]);  // a name read from the type text: a String of its own
      } else {
        write_logical_type(o, t.children[i]);
      }
    }
  }
  o.end_block();
  o.reference(list);  // UnmodifiableList.list
}

// One LogicalType object: its class and LogicalType's descriptors, then LogicalType's values
// (isNullable, the LogicalTypeRoot constant), then the class's own fields.
void write_logical_type(java::ObjectWriter& o, const TypeNode& t) {
  const LogicalClasses& c = logical_classes();
  const SpecScalar* k = scalar(t.word);
  const java::ClassSpec& spec = c.types.at(k ? k->logical : "RowType");
  o.begin_object(&spec);
  o.out().boolean(!t.not_null);
  o.enum_constant(&c.root, k ? k->root : "ROW");
  for (const java::FieldSpec& f : spec.fields) {
    if (f.name == "length") {
      // STRING and BYTES are their types' MAX_LENGTH; CHAR, VARCHAR, BINARY and VARBINARY default to 1.
      o.out().i32(static_cast<int32_t>(t.word == "STRING" || t.word == "BYTES" ? INT32_MAX
                                       : t.length < 0                          ? 1
                                                                               : t.length));
    } else if (f.name == "precision") {
      o.out().i32(t.precision);
    } else if (f.name == "scale") {
      o.out().i32(t.scale);
    } else if (f.name == "kind") {
      o.enum_constant(&c.timestamp_kind, t.timestamp_kind);
    } else {
      write_row_fields(o, t);
    }
  }
}

// Every field of the ROW `t`, and of the rows nested in it, is a type written as a SQL type: the
// scalars with a LogicalType, and rows.
Status check_sql_fields(const TypeNode& t) {
  for (size_t i = 0; i < t.children.size(); ++i) {
    const TypeNode& f = t.children[i];
    if (f.word == "ROW") {
      CKPT_RETURN_IF_ERROR(check_sql_fields(f));
    } else if (!scalar(f.word)) {
      return Error(
          ErrorCode::kNotSupported,
          fmt::format("at {}: ROW field '{}': {} is not written as a SQL type yet (BOOLEAN, TINYINT, SMALLINT, INT, "
                      "BIGINT, FLOAT, DOUBLE, CHAR(n), STRING, VARCHAR(n), BYTES, BINARY(n), VARBINARY(n), "
                      "DECIMAL(p, s), DATE, TIME(p), TIMESTAMP(p), TIMESTAMP_LTZ(p) and ROW<..> are)",
                      f.at, t.names[i], f.word));
    }
  }
  return Status::OK();
}

// What a spec writes only as a SQL type: a DataStream job keeps these values in other classes.
bool sql_only(const TypeNode& t) {
  return t.word == "DECIMAL" || t.word == "TIMESTAMP" || t.word == "TIMESTAMP_LTZ" || t.word == "DATE" ||
         t.word == "TIME" || (t.word == "CHAR" && t.length >= 0);
}

Status write_snapshot(ByteWriter& w, const TypeNode& t);

// RowDataSerializer$RowDataSerializerSnapshot (version 3): the field count, each field's
// LogicalType Java-serialized (a stream of its own, InstantiationUtil.serializeObject), then the
// nested snapshots of InternalSerializers.create(type).
Status write_row_data(ByteWriter& w, const TypeNode& t) {
  CKPT_RETURN_IF_ERROR(check_sql_fields(t));
  w.utf(kRowDataSnapshot);
  w.i32(3);
  w.i32(static_cast<int32_t>(t.children.size()));
  for (const TypeNode& f : t.children) {
    java::ObjectWriter o;
    write_logical_type(o, f);
    w.bytes(o.take());
  }
  w.i32(kDelegateMagic);
  w.i32(1);
  w.i32(static_cast<int32_t>(t.children.size()));
  for (const TypeNode& f : t.children) {
    const std::string root = f.word == "ROW" ? "ROW" : scalar(f.word)->root;
    if (root == "ROW") {
      CKPT_RETURN_IF_ERROR(write_row_data(w, f));
    } else if (root == "CHAR" || root == "VARCHAR") {
      write_simple_snapshot(w, kStringDataSnapshot);
    } else if (root == "BINARY" || root == "VARBINARY") {
      write_simple_snapshot(w, kBytePrimitiveArraySnapshot);
    } else if (root == "DATE" || root == "TIME_WITHOUT_TIME_ZONE") {
      write_simple_snapshot(w, fmt::format("{}IntSerializer$IntSerializerSnapshot", kBase).c_str());
    } else if (root == "DECIMAL") {
      w.utf(kDecimalDataSnapshot);  // version 3: precision, scale
      w.i32(3);
      w.i32(f.precision);
      w.i32(f.scale);
    } else if (f.word == "TIMESTAMP" || f.word == "TIMESTAMP_LTZ") {
      w.utf(kTimestampDataSnapshot);  // version 1: precision (TIMESTAMP and TIMESTAMP_LTZ alike)
      w.i32(1);
      w.i32(f.precision);
    } else {
      const char* s = scalar(f.word)->serializer;
      write_simple_snapshot(w, fmt::format("{}{}Serializer${}SerializerSnapshot", kBase, s, s).c_str());
    }
  }
  return Status::OK();
}

Status write_snapshot(ByteWriter& w, const TypeNode& t) {
  if (const SpecScalar* k = scalar(t.word)) {
    if (sql_only(t))
      return Error(ErrorCode::kNotSupported,
                   fmt::format("at {}: {}: a SQL type, written only as a field of a ROW (its DataStream forms are "
                               "other classes{})",
                               t.at, t.word, t.word == "CHAR" ? "; CHAR alone is Java's char" : ""));
    if (bytes_word(t.word))
      write_simple_snapshot(w, kBytePrimitiveArraySnapshot);
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
                     fmt::format("at {}: POJO {}: field '{}' named twice", t.at, t.cls, t.names[order[i]]));
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
  // What the grammar takes but no snapshot is written for, named with the type text and the
  // offset of the part refused, as the parser's errors are.
  if (Status written = write_snapshot(w, t); !written.ok())
    return Error(written.error().code, fmt::format("type \"{}\", {}", type, written.error().message));
  ByteReader r(w.buffer());
  CKPT_ASSIGN_OR_RETURN(SerializerSnapshot s, read_serializer_snapshot(r, SnapshotFraming::kVersioned));
  if (!r.at_end())
    return Error(ErrorCode::kCorruption, fmt::format("type \"{}\": its snapshot reads back short", type));
  return s;
}

}  // namespace ckpt
