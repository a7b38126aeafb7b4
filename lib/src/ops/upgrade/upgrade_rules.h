// ops/upgrade/upgrade_rules.h - what Flink 2.x makes of one serializer snapshot tree.
//
// The rules, each from Flink's own change (man/ckpt-upgrade.1.md cites them):
// - kryo: a KryoSerializerSnapshot anywhere in the tree (generic types, keys too): Flink 2.0
//   bundles Kryo 5, whose bytes differ from Kryo 2's, and restores no Kryo 2 state
//   (FLINK-3154; FLINK-37661 removed the 1.x Kryo reference data as "not compatible").
// - pojo-collection: the Kryo case of a POJO field declared java.util.List, Map or Set, which
//   Flink 2.0 gives its own List/Map/Set serializers (FLIP-398, FLINK-34037), so the POJO's
//   field serializer changes too.
// - legacy-config: a TypeSerializerConfigSnapshot (Flink < 1.8): Flink 1.17 and later read none
//   (FLINK-29807).
// - scala-api: a serializer of flink-scala (case classes, Option, Either, Try, Traversable,
//   Enumeration, Unit, Nothing): the module was deleted in 2.0 (FLINK-29741).
// - removed-class: a snapshot class Flink 2.0 removed or moved, so its name no longer loads.
// - unknown-serializer: a class ckpt has no rule for (a job's own serializer, a body ckpt could
//   not parse): whether 2.x restores it depends on the job's 2.x build.
// Anything else is a serializer Flink 2.x still ships with the same snapshot: no finding.
#pragma once

#include <string>
#include <vector>

#include "ckpt/upgrade.h"
#include "types/serializer_snapshot.h"

namespace ckpt {

// Appends the findings of `s` and of every snapshot nested in it; `where` names `s` in its
// state ("value", "key"), nested ones extend it ("value > field items", "value > 1").
void judge_serializer(const SerializerSnapshot& s, const std::string& where, std::vector<UpgradeFinding>& out);

// The worst verdict of `findings` (ok for none).
UpgradeVerdict worst_verdict(const std::vector<UpgradeFinding>& findings);

}  // namespace ckpt
