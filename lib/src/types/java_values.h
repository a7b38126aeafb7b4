// types/java_values.h - Java-serialized objects as JSON values (formats/serializers.md §13).
//
// The tree of format/java/java_object_stream.h rendered without the job's classes: JDK values
// (String, boxed primitives, BigInteger / BigDecimal, java.time, Date, UUID, the java.util
// collections and maps) as plain values in the conventions of value_decoder.h, enums as their
// constant name, arrays as arrays, any other object as {"class": name, "fields": {...}} with the
// fields of every class of its chain; what a writeObject or writeExternal method wrote that is
// not interpreted stays as {"hex", "why"}, never a guess.
#pragma once

#include <nlohmann/json.hpp>

#include "format/java/java_object_stream.h"

namespace ckpt {

nlohmann::json java_value_json(const java::Value& v);

}  // namespace ckpt
