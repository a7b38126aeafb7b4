// ckpt/upgrade.h - whether Flink 2.x will restore each state of a 1.x snapshot, and why not.
//
// check_upgrade() reads `_metadata` and the backend proxies at the head of every state handle
// (the data only of keyed states with a pojo-collection finding, whose element types are in the
// values) and judges every serializer snapshot a state names: the key, the
// namespace, the value, the elements and timers, with every nested snapshot. The rules are Flink
// 2.x's own changes (man/ckpt-upgrade.1.md lists them with their sources): Kryo 2 bytes that
// Kryo 5 does not read, POJO fields holding Java collections that 2.x gives its own
// serializers, the pre-1.8 TypeSerializerConfigSnapshot no Flink since 1.17 reads, the Scala
// API's serializers removed in 2.0, classes 2.0 moved or removed. "ok" claims no more than that
// no rule found an obstacle in serializers Flink 2.x still ships; a serializer ckpt has no rule
// for (a job's own) is "unknown".
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "ckpt/convert.h"
#include "ckpt/error.h"
#include "ckpt/export.h"
#include "ckpt/resolve.h"

namespace ckpt {

// Worst last: a state's verdict is the worst of its findings.
enum class UpgradeVerdict : uint8_t { kOk, kUnknown, kFail };
CKPT_API const char* upgrade_verdict_name(UpgradeVerdict v);  // "ok", "unknown", "fail"

// One obstacle in one serializer of a state.
struct CKPT_API UpgradeFinding {
  UpgradeVerdict verdict = UpgradeVerdict::kUnknown;
  // "kryo", "pojo-collection", "legacy-config", "scala-api", "removed-class",
  // "unknown-serializer", "legacy-state", "raw-keyed-state"
  std::string rule;
  std::string serializer;  // the serializer class the finding is about ("" for whole-state findings)
  // Where in the state: the role ("key", "namespace", "value") and the path down the snapshot
  // tree ("value > field items", "key > 0"); "" for whole-state findings.
  std::string where;
  std::string reason;
};

// One state of one operator, with the serializers of every subtask's proxy (they agree; the
// first subtask that names the state gives them).
struct CKPT_API StateUpgradeCheck {
  std::string operator_id;  // 32 hex digits
  std::string uid;          // V5+ `_metadata`, else ""
  std::string state;        // the state's name
  // VALUE, LIST, MAP, REDUCING, AGGREGATING, FOLDING, PRIORITY_QUEUE (keyed, timers among
  // them); SPLIT_DISTRIBUTE, UNION, BROADCAST (operator); RAW_KEYED (raw keyed state: legacy
  // timers or a job's own bytes); LEGACY (Flink 1.2's Checkpointed operator state).
  std::string kind;
  bool keyed = false;
  std::string serializer;      // the value serializer tree, short names ("ListSerializer[LongSerializer]")
  std::string key_serializer;  // keyed and broadcast states: the key serializer tree; else ""
  UpgradeVerdict verdict = UpgradeVerdict::kOk;
  std::vector<UpgradeFinding> findings;  // every finding, worst first; empty when ok
};

struct CKPT_API UpgradeCheckReport {
  std::string snapshot;  // the `_metadata` read
  std::string target;    // "2.x"
  int32_t metadata_version = 0;
  std::vector<StateUpgradeCheck> states;  // operators in file order, their states first seen first
  // What could not be read (a missing file, a damaged proxy), as Error::to_string(): those
  // states are not judged, so the answer is incomplete.
  std::vector<std::string> problems;
  size_t ok_count = 0, unknown_count = 0, fail_count = 0;
};

struct CKPT_API UpgradeOptions {
  std::string target = "2.x";     // the only target
  std::vector<PrefixRule> remap;  // as ckpt-inspect's --remap
};

// Judge every state of the snapshot at `path`. Errors: the snapshot cannot be found, `_metadata`
// does not decode, the target is not "2.x" (kInvalidArgument). States whose proxies cannot be
// read are listed in `problems`, not errors.
CKPT_API Result<UpgradeCheckReport> check_upgrade(const std::string& path, const UpgradeOptions& options);

// The aligned table: operator, state, kind, serializer, verdict, reason; then a summary line.
CKPT_API std::string upgrade_check_text(const UpgradeCheckReport& r);

// What the rewrite did with one state of one operator (every subtask alike).
struct CKPT_API UpgradeStateAction {
  std::string operator_id;  // 32 hex digits
  std::string state;
  bool keyed = false;
  std::string action;  // "rewritten", "left" (copied unchanged), "dropped" (--drop-incompatible)
  std::string reason;  // left / dropped: why it has no form Flink 2.x reads
};

struct CKPT_API UpgradeWriteOptions {
  std::string target = "2.x";
  std::string output;
  bool force = false;
  // Leave out the states that cannot be rewritten instead of copying their backend unchanged.
  bool drop_incompatible = false;
  std::vector<PrefixRule> remap;
  // As ConvertOptions::key_serializers_from: the key serializer of a changelog-backend handle
  // that names none (every keyed handle is re-framed, so one is needed).
  std::string key_serializers_from;
};

struct CKPT_API UpgradeWriteReport {
  ConvertSummary written;
  std::vector<UpgradeStateAction> states;  // operators in file order, first seen first
  size_t rewritten = 0, left = 0, dropped = 0;
};

// Write the snapshot at `path` to options.output with every pre-1.8 TypeSerializerConfigSnapshot
// of the backend proxies that has a Flink 1.8+ form rewritten into it (the Java-serialized
// serializer beside it read structurally: simple, Tuple, List, Map, generic array, Either
// serializers), the proxy written in its current version; state data is re-framed byte for
// byte, never re-encoded, except the POJO fields declared List, Map or Set that Flink 1.x wrote
// with Kryo: where every value's elements are of one type ckpt reads, those fields are given
// Flink 2.x's List/Set/Map serializers and re-encoded (formats/serializers.md §16.2; keyed
// states only; others are listed as left, with why). A backend with a state that has no
// Flink 1.8+ form (Kryo, Scala API, a job's own serializer) is copied unchanged and its states
// listed as left, or, with drop_incompatible, those states are left out and the others
// rewritten. Published atomically.
CKPT_API Result<UpgradeWriteReport> upgrade_snapshot(const std::string& path, const UpgradeWriteOptions& options);

// One line per state that was rewritten, left or dropped, then a summary line.
CKPT_API std::string upgrade_write_text(const UpgradeWriteReport& r);

}  // namespace ckpt
