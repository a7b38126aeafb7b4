// types/kryo_values.h - the Java types of Kryo 2 values of JDK classes (formats/serializers.md §16).
//
// A Kryo field or generic type names only its declared class (java.util.List); the classes of
// what it holds are in the bytes, value by value. `ckpt upgrade` needs them to give such a field
// the serializer Flink 2.x gives it (ListSerializer of the element type's serializer): the
// reader of make_kryo() (value_decoder.h) reports, beside each value's JSON, the type of what it
// read, and the types of every value of a state are unified into one.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "ckpt/error.h"
#include "support/byte_reader.h"

namespace ckpt {

struct KryoType {
  enum class Kind : uint8_t {
    kNone,  // nothing seen yet: a null, or the element of collections that were all empty
    // The classes Kryo registers itself (ids 0-9, in that order), boxed.
    kInt,
    kString,
    kFloat,
    kBoolean,
    kByte,
    kChar,
    kShort,
    kLong,
    kDouble,
    kVoid,
    // JDK collections by the interface they implement: ArrayList, LinkedList and Vector are
    // Lists; HashSet and LinkedHashSet Sets; HashMap, LinkedHashMap, Hashtable, TreeMap Maps.
    kList,
    kSet,
    kMap,
    kOther,  // another class: `other` names it (a Throwable, an ArrayDeque)
    kMixed,  // values of several types: `other` lists them
  };
  Kind kind = Kind::kNone;
  bool null_seen = false;      // a null was read where this type stands
  std::string other;           // kOther, kMixed
  std::vector<KryoType> args;  // kList, kSet: the element; kMap: key and value
};

// One type standing for both: kNone yields to the other; equal kinds unify their arguments;
// different kinds (or classes) make kMixed. null_seen is kept from either.
KryoType kryo_unify(const KryoType& a, const KryoType& b);

// "List<Integer>", "Map<String, Set<Long>>", "mixed (Integer, Long)", "(none)".
std::string kryo_type_name(const KryoType& t);

// Reads one value of a KryoSerializer of `declared` exactly as make_kryo()'s decoder reads it
// (the same JSON, the same errors at the same offsets) and sets `type` to its type; `defaults`
// as SerializerSnapshot::kryo_default_serializers.
// kNotSupported if make_kryo() gives `declared` no decoder.
Status read_kryo_typed(ByteReader& r, std::string_view declared, const std::vector<std::string>& defaults,
                       nlohmann::json& out, KryoType& type);

}  // namespace ckpt
