// ops/upgrade/collection_fields.h - POJO fields of List, Map and Set re-encoded from Kryo 2 into
// the serializers Flink 2.x gives them (the pojo-collection rule, formats/serializers.md §16.2).
//
// Flink 1.x serializes a POJO field declared java.util.List, Map or Set with Kryo; Flink 2.0
// gives it ListSerializer, MapSerializer or SetSerializer over the element type's serializer
// (FLIP-398). A field's snapshot names only the interface, so the element types come from the
// values: every value of the state is read once (observe()), the classes found are unified into
// one type per field (types/kryo_values.h), and only where that type has a Flink 2.x serializer
// (boxed primitives, String, and Lists, Sets and Maps of these) is the state rewritten: the
// field's snapshot replaced in the POJO snapshot, the field's bytes re-encoded value by value
// (transcode()), every other byte copied. Anything else leaves the state as it is, with why.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ckpt/error.h"
#include "ckpt/metadata.h"
#include "state/backend_meta.h"
#include "state/stream_opener.h"
#include "types/kryo_values.h"

namespace ckpt {

// True if `s` (anywhere in its tree) holds a Kryo field of a POJO declared List, Map or Set.
bool has_collection_field(const SerializerSnapshot& s);

// One state's Kryo collection fields and how to rewrite them.
class CollectionFields {
 public:
  // The plan for a state of a keyed backend whose key serializer is `key`. Errors
  // (kNotSupported) say why the state cannot be rewritten whatever its values: a field in the
  // key, the namespace or a map's user key (those bytes are what Flink looks entries up by), or
  // inside a serializer the rewrite does not walk (only POJOs, TTL values, and a list's elements
  // or a map's values of the state itself are).
  static Result<std::unique_ptr<CollectionFields>> make(const StateMetaInfo& state, const SerializerSnapshot& key);
  ~CollectionFields();

  // The fields, in the order of types(): where each is ("value > field items").
  const std::vector<std::string>& where() const;

  // Reads one RocksDB-layout value of the state (formats/keyed-state.md §10) and unifies the
  // types of its fields' values into `types` (one per field). Errors as the decoders give them.
  Status observe(std::string_view rocks_value, std::vector<KryoType>& types) const;

  // The state as Flink 2.x reads it once every value's fields are re-encoded for `types`; sets
  // the encoders transcode() uses. kNotSupported (naming the field and the type) where a type
  // has no Flink 2.x serializer ckpt writes.
  Result<StateMetaInfo> rewrite(const std::vector<KryoType>& types);

  // One RocksDB-layout value with its fields re-encoded (after rewrite()).
  Status transcode(std::string_view rocks_value, std::string& out) const;

 private:
  struct Impl;
  explicit CollectionFields(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// The versioned snapshot (formats/keyed-state.md §2.2) of the serializer Flink 2.x gives a field
// of type `t` (IntSerializer, ..., ListSerializer, SetSerializer, MapSerializer); kNotSupported
// for types without one (an unknown element type, mixed classes, a null in a List or as a Map's
// key, which ListSerializer and MapSerializer do not write).
Result<std::string> flink2_collection_snapshot(const KryoType& t);

// What a read of one keyed state with Kryo collection fields found.
struct CollectionFieldsVerdict {
  std::unique_ptr<CollectionFields> fields;  // set when the state can be rewritten
  std::vector<KryoType> types;               // one per field, over every value read
  std::optional<StateMetaInfo> rewritten;    // the state's meta info as Flink 2.x reads it
  std::string reason;                        // why not, when `rewritten` is unset
  std::string value_raw;                     // the value serializer's bytes the verdict is for
  // "value > field items as List<Integer>; ..." (the fields and the serializers they get).
  std::string description() const;
};
// By (operator id as 32 hex digits, state name).
using CollectionFieldsScan = std::map<std::pair<std::string, std::string>, CollectionFieldsVerdict>;

// Every keyed state of `m` whose value serializer holds a Kryo collection field, each read whole
// (every subtask's values: the field types must hold for all of them) and judged. A handle whose
// proxy cannot be read is stepped over (the caller's own read reports it); a handle whose values
// cannot be read, or a value the reader refuses, makes the reason of its states.
Result<CollectionFieldsScan> scan_collection_fields(const Metadata& m, const StreamOpener& streams);

}  // namespace ckpt
