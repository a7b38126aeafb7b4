// The rules of upgrade_rules.h over a snapshot tree.
#include "ops/upgrade/upgrade_rules.h"

#include <algorithm>
#include <array>
#include <string_view>

#include "types/serializer_classes.h"
#include "types/value_decoder.h"

namespace ckpt {
namespace {

constexpr std::string_view kScalaPackage = "org.apache.flink.api.scala.";
constexpr std::string_view kKryoSerializer = "org.apache.flink.api.java.typeutils.runtime.kryo.KryoSerializer";

// POJO field types TypeExtractor gives List/Map/Set type information in Flink 2.0 (FLIP-398):
// the interfaces themselves; a field declared ArrayList stays a generic (Kryo) type.
constexpr std::array<std::string_view, 3> kFlip398Collections = {"java.util.List", "java.util.Map", "java.util.Set"};

struct Removed {
  std::string_view snapshot_class;
  std::string_view reason;
};
// Snapshot classes whose name Flink 2.0 no longer loads (its release notes' "Removed Classes").
constexpr Removed kRemovedClasses[] = {
    {"org.apache.flink.streaming.api.functions.sink.TwoPhaseCommitSinkFunction$StateSerializerSnapshot",
     "TwoPhaseCommitSinkFunction was removed from this package in Flink 2.0 (SinkFunction is gone; an "
     "internal copy lives in ...functions.sink.legacy), so the snapshot's class no longer loads"},
};

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

std::string unqualified(std::string_view c) {
  size_t dot = c.rfind('.');
  return std::string(dot == std::string_view::npos ? c : c.substr(dot + 1));
}

void add(std::vector<UpgradeFinding>& out, UpgradeVerdict v, const char* rule, std::string serializer,
         const std::string& where, std::string reason) {
  out.push_back(UpgradeFinding{v, rule, std::move(serializer), where, std::move(reason)});
}

std::string kryo_reason(const std::string& type_class) {
  return "Kryo-serialized " + (type_class.empty() ? std::string("generic type") : type_class) +
         ": Flink 2.x bundles Kryo 5, which does not read the Kryo 2 bytes Flink 1.x wrote";
}

// A later rewrite can only target the Kryo states whose Kryo 2 bytes ckpt reads
// (formats/serializers.md §16): the check says which, so the gap shows before any rewrite.
std::string kryo_read_note(const SerializerSnapshot& s) {
  auto d = make_decoder(s);
  if (!d.ok() || !(*d)->decodable()) return "";
  return "; ckpt reads these Kryo 2 bytes where they hold only Kryo's own classes, JDK collections or "
         "Java-serialized throwables";
}

// RAW types of SQL rows name the Java-serialized serializer of their values.
void judge_logical_type(const LogicalType& t, const std::string& where, std::vector<UpgradeFinding>& out) {
  if (t.root == "RAW" && !t.serializer.empty()) {
    if (starts_with(t.serializer, kKryoSerializer))
      add(out, UpgradeVerdict::kFail, "kryo", t.serializer, where, kryo_reason(t.class_name));
    else if (starts_with(t.serializer, kScalaPackage))
      add(out, UpgradeVerdict::kFail, "scala-api", t.serializer, where,
          "a serializer of Flink's Scala API, which Flink 2.0 removed");
  }
  for (size_t i = 0; i < t.children.size(); ++i)
    judge_logical_type(t.children[i], where + " > " + std::to_string(i), out);
}

bool is_flip398_collection(const SerializerSnapshot& s) {
  return s.form == SnapshotForm::kKryo &&
         std::find(kFlip398Collections.begin(), kFlip398Collections.end(), s.type_class) != kFlip398Collections.end();
}

// The findings of `s` itself, not of what it nests. `pojo_field`: s is a POJO's field serializer.
void judge_node(const SerializerSnapshot& s, const std::string& where, bool pojo_field,
                std::vector<UpgradeFinding>& out) {
  const std::string& cls = s.snapshot_class;
  if (s.form == SnapshotForm::kLegacyConfig)
    add(out, UpgradeVerdict::kFail, "legacy-config", s.serializer_class, where,
        "a TypeSerializerConfigSnapshot (" + unqualified(cls) +
            ", Flink < 1.8): Flink 1.17 and later read no TypeSerializerConfigSnapshot");
  if (starts_with(cls, kScalaPackage) || starts_with(s.serializer_class, kScalaPackage)) {
    add(out, UpgradeVerdict::kFail, "scala-api", s.serializer_class, where,
        unqualified(s.serializer_class) + " is a serializer of Flink's Scala API, which Flink 2.0 removed");
    return;
  }
  if (s.form == SnapshotForm::kLegacyConfig) {
    // Flink 1.3-1.7 named the serializer beside its config: a Kryo one fails on its bytes too.
    if (starts_with(s.serializer_class, kKryoSerializer))
      add(out, UpgradeVerdict::kFail, "kryo", s.serializer_class, where, kryo_reason(s.type_class) + kryo_read_note(s));
    return;
  }
  if (s.form == SnapshotForm::kKryo) {
    if (pojo_field && is_flip398_collection(s))
      add(out, UpgradeVerdict::kFail, "pojo-collection", s.serializer_class, where,
          "POJO field of type " + s.type_class +
              " was Kryo-serialized; Flink 2.x serializes List, Map and Set fields with its own "
              "collection serializers, and its Kryo 5 does not read Kryo 2 bytes" +
              kryo_read_note(s));
    else
      add(out, UpgradeVerdict::kFail, "kryo", s.serializer_class, where, kryo_reason(s.type_class) + kryo_read_note(s));
    return;
  }
  for (const Removed& r : kRemovedClasses)
    if (cls == r.snapshot_class) {
      add(out, UpgradeVerdict::kFail, "removed-class", s.serializer_class, where, std::string(r.reason));
      return;
    }
  if (starts_with(cls, "org.apache.flink.graph.")) {
    add(out, UpgradeVerdict::kUnknown, "unknown-serializer", s.serializer_class, where,
        "a serializer of Gelly, a library of the DataSet API, which Flink 2.0 removed");
    return;
  }
  const bool known = !s.resynced && s.form != SnapshotForm::kUnknown &&
                     snapshot_class::layout_of(cls) != snapshot_class::Layout::kUnknown;
  if (!known) {
    if (starts_with(cls, "org.apache.flink."))
      add(out, UpgradeVerdict::kUnknown, "unknown-serializer", s.serializer_class, where,
          "a Flink serializer ckpt has no rule for (" + unqualified(cls) + ")");
    else
      add(out, UpgradeVerdict::kUnknown, "unknown-serializer", s.serializer_class, where,
          "the job's own serializer (" + (cls.empty() ? std::string("unnamed") : cls) +
              "): restores only if the job's 2.x build still has it and it reads this snapshot");
  }
}

void judge(const SerializerSnapshot& s, const std::string& where, bool pojo_field, std::vector<UpgradeFinding>& out) {
  judge_node(s, where, pojo_field, out);
  const bool pojo = s.form == SnapshotForm::kPojo;
  for (size_t i = 0; i < s.nested.size(); ++i) {
    // A field the class no longer has keeps its slot with nothing in it: Flink skips it too.
    if (pojo && s.nested[i].snapshot_class.empty() && s.nested[i].form == SnapshotForm::kUnknown) continue;
    const bool named = pojo && i < s.field_names.size() && !s.field_names[i].empty();
    judge(s.nested[i], where + " > " + (named ? "field " + s.field_names[i] : std::to_string(i)), pojo, out);
  }
  for (size_t i = 0; i < s.pojo_registered_snapshots.size(); ++i)
    judge(s.pojo_registered_snapshots[i],
          where + " > subclass " +
              (i < s.pojo_registered_subclasses.size() ? s.pojo_registered_subclasses[i] : std::to_string(i)),
          false, out);
  for (size_t i = 0; i < s.pojo_nonregistered_snapshots.size(); ++i)
    judge(s.pojo_nonregistered_snapshots[i],
          where + " > subclass " +
              (i < s.pojo_nonregistered_subclasses.size() ? s.pojo_nonregistered_subclasses[i] : std::to_string(i)),
          false, out);
  for (size_t i = 0; i < s.logical_types.size(); ++i)
    judge_logical_type(s.logical_types[i], where + " > type " + std::to_string(i), out);
}

}  // namespace

void judge_serializer(const SerializerSnapshot& s, const std::string& where, std::vector<UpgradeFinding>& out) {
  judge(s, where, false, out);
}

UpgradeVerdict worst_verdict(const std::vector<UpgradeFinding>& findings) {
  UpgradeVerdict v = UpgradeVerdict::kOk;
  for (const UpgradeFinding& f : findings) v = std::max(v, f.verdict);
  return v;
}

}  // namespace ckpt
