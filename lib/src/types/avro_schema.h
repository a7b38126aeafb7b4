// types/avro_schema.h - the writer schema an AvroSerializerSnapshot carries, as a graph of types.
//
// The schema is JSON from the file: parse_json_input() bounds its nesting before a tree is
// built, and every member's type is checked before it is read. The snapshot parser checks the
// schema as it reads the snapshot (so a bad one is an error in the file that holds it); the
// Avro value decoder walks the graph.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ckpt/error.h"
#include "types/serializer_snapshot.h"

namespace ckpt {

enum class AvroKind { kNull, kBoolean, kInt, kLong, kFloat, kDouble, kBytes, kString, kRecord, kEnum, kArray,
                      kMap, kUnion, kFixed };

struct AvroNode {
  AvroKind kind = AvroKind::kNull;
  std::string name;                       // record / enum / fixed full name
  std::vector<std::string> field_names;   // record fields; enum symbols
  std::vector<size_t> children;           // record fields, union branches, array item, map value
  size_t fixed_size = 0;
};

// Named types may refer to themselves: children are node ids, not owned trees.
class AvroSchema {
 public:
  // Errors: kCorruption for a schema that is not what Avro allows (not JSON, a member of the
  // wrong type, too deep or too large), kNotSupported for a reference ckpt cannot resolve.
  // Without offset: the caller knows where the text lies.
  Status parse(const std::string& text);
  const AvroNode& at(size_t i) const { return nodes_[i]; }
  size_t root() const { return root_; }

 private:
  Result<size_t> node(const nlohmann::json& j, const std::string& ns, int depth);
  Result<size_t> named(const nlohmann::json& j, const std::string& t, const std::string& ns, int depth);
  Result<size_t> primitive_or_named(const std::string& t, const std::string& ns);
  size_t add(AvroKind k);

  std::vector<AvroNode> nodes_;
  std::map<std::string, size_t> named_;
  size_t root_ = 0;
};

// The schema of Avro snapshot `s`. A kCorruption error is at the schema string's offset and
// says which snapshot ("avro schema of com.example.Event: 'namespace' of record Event must be a
// string, found array"); kNotSupported (an undefined type) has no offset.
Result<AvroSchema> parse_avro_schema(const SerializerSnapshot& s);

}  // namespace ckpt
