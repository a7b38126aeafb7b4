// The table of snapshot classes whose body layout is known.
#include "types/serializer_classes.h"

#include <array>
#include <string>

namespace ckpt::snapshot_class {
namespace {

// Simple snapshots by full class name (the base package ones are matched by rule below).
constexpr std::array<std::string_view, 13> kSimpleClasses = {
    "org.apache.flink.runtime.state.VoidNamespaceSerializer$VoidNamespaceSerializerSnapshot",
    "org.apache.flink.streaming.api.windowing.windows.TimeWindow$Serializer$TimeWindowSerializerSnapshot",
    "org.apache.flink.streaming.api.windowing.windows.GlobalWindow$Serializer$GlobalWindowSerializerSnapshot",
    "org.apache.flink.table.runtime.operators.window.TimeWindow$Serializer$TimeWindowSerializerSnapshot",
    "org.apache.flink.table.runtime.operators.window.CountWindow$Serializer$CountWindowSerializerSnapshot",
    "org.apache.flink.runtime.state.JavaSerializer$JavaSerializerSnapshot",
    "org.apache.flink.cep.nfa.DeweyNumber$DeweyNumberSerializer$DeweyNumberSerializerSnapshot",
    "org.apache.flink.cep.nfa.sharedbuffer.EventId$EventIdSerializer$EventIdSerializerSnapshot",
    "org.apache.flink.graph.drivers.transform.LongValueWithProperHashCode$LongValueWithProperHashCodeSerializer$LongValueWithProperHashCodeSerializerSnapshot",
    "org.apache.flink.api.scala.typeutils.UnitSerializer$UnitSerializerSnapshot",
    "org.apache.flink.api.scala.typeutils.NothingSerializerSnapshot",
    "org.apache.flink.table.runtime.typeutils.StringDataSerializer$StringDataSerializerSnapshot",
    "org.apache.flink.table.dataview.NullSerializer$NullSerializerSnapshot",
};

constexpr std::array<std::string_view, 34> kCompositeClasses = {
    "org.apache.flink.api.java.typeutils.runtime.TupleSerializerSnapshot",
    "org.apache.flink.api.java.typeutils.runtime.RowSerializer$RowSerializerSnapshot",
    "org.apache.flink.api.java.typeutils.runtime.NullableSerializer$NullableSerializerSnapshot",
    "org.apache.flink.api.java.typeutils.runtime.JavaEitherSerializerSnapshot",
    "org.apache.flink.api.common.typeutils.base.ListSerializerSnapshot",
    "org.apache.flink.api.common.typeutils.base.MapSerializerSnapshot",
    "org.apache.flink.api.common.typeutils.base.SetSerializerSnapshot",  // Flink 2.0 (FLIP-398)
    "org.apache.flink.api.common.typeutils.base.GenericArraySerializerSnapshot",
    "org.apache.flink.runtime.state.ArrayListSerializerSnapshot",
    "org.apache.flink.runtime.state.ttl.TtlStateFactory$TtlSerializerSnapshot",
    "org.apache.flink.streaming.api.operators.TimerSerializerSnapshot",
    "org.apache.flink.streaming.runtime.streamrecord.StreamElementSerializer$StreamElementSerializerSnapshot",
    "org.apache.flink.streaming.api.operators.co.IntervalJoinOperator$BufferEntrySerializerSnapshot",
    "org.apache.flink.streaming.api.datastream.CoGroupedStreams$UnionSerializerSnapshot",
    "org.apache.flink.streaming.api.functions.sink.TwoPhaseCommitSinkFunction$StateSerializerSnapshot",
    "org.apache.flink.table.runtime.typeutils.LinkedListSerializer$LinkedListSerializerSnapshot",
    "org.apache.flink.table.dataview.ListViewSerializerSnapshot",
    "org.apache.flink.table.dataview.MapViewSerializerSnapshot",
    "org.apache.flink.table.dataview.NullAwareMapSerializerSnapshot",
    "org.apache.flink.cep.nfa.NFAStateSerializerSnapshot",
    "org.apache.flink.cep.nfa.sharedbuffer.LockableTypeSerializerSnapshot",
    "org.apache.flink.cep.nfa.sharedbuffer.NodeId$NodeIdSerializer$NodeIdSerializerSnapshot",
    "org.apache.flink.cep.nfa.sharedbuffer.SharedBufferEdge$SharedBufferEdgeSerializer$"
    "SharedBufferEdgeSerializerSnapshot",
    "org.apache.flink.cep.nfa.sharedbuffer.SharedBufferNode$SharedBufferNodeSerializer$"
    "SharedBufferNodeSerializerSnapshot",
    "org.apache.flink.cep.nfa.sharedbuffer.SharedBufferNodeSerializerSnapshotV2",
    "org.apache.flink.api.scala.typeutils.ScalaCaseClassSerializerSnapshot",
    "org.apache.flink.api.scala.typeutils.Tuple2CaseClassSerializerSnapshot",
    "org.apache.flink.api.scala.typeutils.ScalaOptionSerializerSnapshot",
    "org.apache.flink.api.scala.typeutils.ScalaEitherSerializerSnapshot",
    "org.apache.flink.api.scala.typeutils.TraversableSerializerSnapshot",
    "org.apache.flink.api.scala.typeutils.ScalaTrySerializerSnapshot",
    "org.apache.flink.table.runtime.typeutils.WindowKeySerializer$WindowKeySerializerSnapshot",
    "org.apache.flink.table.runtime.typeutils.ExternalSerializer$ExternalSerializerSnapshot",
    "org.apache.flink.table.runtime.typeutils.RawValueDataSerializer$RawValueDataSerializerSnapshot",
};

constexpr std::string_view kClassTable = "org.apache.flink.table.runtime.typeutils.";

// Table snapshots whose body is a few i32 (precision, scale, arity), by class after kClassTable.
struct Parameters {
  std::string_view name;
  int count;
};
constexpr Parameters kParameterClasses[] = {
    {"DecimalDataSerializer$DecimalSerializerSnapshot", 2},
    {"TimestampDataSerializer$TimestampDataSerializerSnapshot", 1},
    {"BinaryRowDataSerializer$BinaryRowDataSerializerSnapshot", 1},
};

// Table snapshots that Java-serialize their LogicalTypes, then their element serializers.
constexpr Parameters kJavaTypeClasses[] = {
    {"ArrayDataSerializer$ArrayDataSerializerSnapshot", 1},
    {"MapDataSerializer$MapDataSerializerSnapshot", 2},
};

template <size_t N>
int lookup_table_class(std::string_view c, const Parameters (&table)[N]) {
  if (!c.starts_with(kClassTable)) return 0;
  for (const auto& p : table)
    if (c.substr(kClassTable.size()) == p.name) return p.count;
  return 0;
}

}  // namespace

Layout layout_of(std::string_view c) {
  for (auto s : kCompositeClasses) if (c == s) return Layout::kComposite;
  for (auto s : kSimpleClasses) if (c == s) return Layout::kSimple;
  if (c == "org.apache.flink.api.java.typeutils.runtime.PojoSerializerSnapshot") return Layout::kPojo;
  if (c == "org.apache.flink.api.java.typeutils.runtime.kryo.KryoSerializerSnapshot") return Layout::kKryo;
  if (c == "org.apache.flink.api.common.typeutils.base.EnumSerializer$EnumSerializerSnapshot") return Layout::kEnum;
  if (c == "org.apache.flink.formats.avro.typeutils.AvroSerializerSnapshot") return Layout::kAvro;
  if (c == "org.apache.flink.runtime.state.ttl.TtlAwareSerializerSnapshot") return Layout::kTtlAware;
  if (c == "org.apache.flink.table.runtime.typeutils.RowDataSerializer$RowDataSerializerSnapshot")
    return Layout::kRowData;
  if (parameter_count(c) > 0) return Layout::kParameters;
  if (java_type_count(c) > 0) return Layout::kJavaTypes;
  if (c == "org.apache.flink.table.runtime.typeutils.SortedMapSerializerSnapshot") return Layout::kSortedMap;
  if (c == "org.apache.flink.api.java.typeutils.runtime.ValueSerializer$ValueSerializerSnapshot" ||
      c == "org.apache.flink.api.java.typeutils.runtime.CopyableValueSerializer$CopyableValueSerializerSnapshot" ||
      c == "org.apache.flink.api.java.typeutils.runtime.WritableSerializer$WritableSerializerSnapshot")
    return Layout::kClassOnly;
  // Every nested "<X>Serializer$<X>SerializerSnapshot" of the base packages is simple: the
  // configured ones there (Enum, GenericArray, List, Map) are caught above.
  if ((c.starts_with(kBase) && c.find('.', kBase.size()) == std::string_view::npos) ||
      c.starts_with(kArray))
    return c.find('$') != std::string_view::npos ? Layout::kSimple : Layout::kUnknown;
  // Gelly's value arrays are simple snapshots too.
  if (c.starts_with("org.apache.flink.graph.types.valuearray.")) return Layout::kSimple;
  return Layout::kUnknown;
}

int parameter_count(std::string_view c) { return lookup_table_class(c, kParameterClasses); }
int java_type_count(std::string_view c) { return lookup_table_class(c, kJavaTypeClasses); }

std::string_view strip_snapshot_suffix(std::string_view c, std::string* storage) {
  constexpr std::string_view kSuffix = "Snapshot";
  if (c.size() <= kSuffix.size() || c.substr(c.size() - kSuffix.size()) != kSuffix) return c;
  std::string_view stem = c.substr(0, c.size() - kSuffix.size());  // "...LongSerializer$LongSerializer"
  size_t dollar = stem.rfind('$');
  if (dollar == std::string_view::npos) return stem;
  std::string_view outer = stem.substr(0, dollar);
  std::string_view inner = stem.substr(dollar + 1);
  size_t dot_or_dollar = outer.find_last_of(".$");
  std::string_view outer_last = dot_or_dollar == std::string_view::npos ? outer : outer.substr(dot_or_dollar + 1);
  // "LongSerializer$LongSerializerSnapshot" and "TimeWindow$Serializer$TimeWindowSerializerSnapshot"
  // describe the outer class; "TtlStateFactory$TtlSerializerSnapshot" describes a nested one.
  if (inner.size() >= outer_last.size() && inner.substr(inner.size() - outer_last.size()) == outer_last)
    return outer;
  *storage = std::string(stem);
  return *storage;
}

}  // namespace ckpt::snapshot_class
