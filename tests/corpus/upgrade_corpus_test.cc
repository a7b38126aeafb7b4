// ckpt upgrade --check on Flink's own snapshots: the verdicts follow the serializers their
// proxies name, read beforehand with `ckpt inspect` (and, for flink-old, the Java-serialized
// serializers Flink 1.3 and 1.5 stored beside their TypeSerializerConfigSnapshots).
#include <catch2/catch.hpp>

#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "testlib/cli_run.h"
#include "testlib/test_support.h"

using nlohmann::json;

namespace {

json upgrade_check(const std::string& snapshot, int status) {
  ckpt::test::CliResult r = ckpt::test::run_cli({"upgrade", snapshot, "--to", "2.x", "--check", "--json"});
  INFO(snapshot << ": " << r.err);
  CHECK(r.status == status);
  return json::parse(r.out);
}

const json& state_named(const json& doc, const std::string& operator_id, const std::string& name) {
  for (const json& s : doc["states"])
    if (s["operator"] == operator_id && s["state"] == name) return s;
  FAIL("no state " << name << " of " << operator_id);
  return doc;
}

std::set<std::string> rules_of(const json& state) {
  std::set<std::string> out;
  for (const json& f : state["findings"]) out.insert(f["rule"].get<std::string>());
  return out;
}

}  // namespace

TEST_CASE("upgrade check passes a Flink 1.20 savepoint of built-in serializers and flags a custom one",
          "[cli][corpus]") {
  CKPT_REQUIRE_SHARED();
  // Long values under Tuple1 keys, timers of those keys, String operator state: all ok.
  json ok =
      upgrade_check(ckpt::test::corpus_dir() + "/new-stateful-udf-migration-itcase-flink1.20-rocksdb-savepoint", 0);
  CHECK(ok["state_count"] == 10);
  CHECK(ok["ok_count"] == 10);
  const json& timers = state_named(ok, "41e91aae0bee218c44306cf7d21940ad", "_timer_state/event_timer");
  CHECK(timers["kind"] == "PRIORITY_QUEUE");
  CHECK(timers["verdict"] == "ok");
  // TypeSerializerSnapshotMigrationITCase's value serializer is the test's own class.
  json custom = upgrade_check(
      ckpt::test::corpus_dir() + "/type-serializer-snapshot-migration-itcase-flink1.16-hashmap-savepoint", 1);
  CHECK(custom["fail_count"] == 0);
  REQUIRE(custom["unknown_count"] == 1);
  for (const json& s : custom["states"]) {
    if (s["verdict"] != "unknown") continue;
    REQUIRE(s["findings"].size() == 1);
    CHECK(s["findings"][0]["rule"] == "unknown-serializer");
    CHECK(s["findings"][0]["where"] == "value");
    CHECK(s["findings"][0]["serializer"].get<std::string>().find("TestSerializer") != std::string::npos);
  }
}

TEST_CASE("upgrade check fails Flink 1.3 state on its config snapshots - Kryo keys and Scala serializers",
          "[cli][corpus]") {
  CKPT_REQUIRE_SHARED();
  const std::string old = ckpt::test::shared_dir() + "/testdata/flink-old/";
  // The Scala job of Flink 1.3: a Kryo key (KryoSerializerConfigSnapshot), Scala Option, Try,
  // Either, Enumeration and case-class values; every managed state fails, the raw keyed state
  // (timers) is not judged.
  json scala = upgrade_check(old + "stateful-scala2.10-udf-migration-itcase-flink1.3-rocksdb-savepoint", 1);
  CHECK(scala["fail_count"] == 12);
  CHECK(scala["unknown_count"] == 1);
  CHECK(scala["ok_count"] == 0);
  const json& option = state_named(scala, "d1392353922252257afa15351a98bae9", "optionState");
  CHECK(option["verdict"] == "fail");
  CHECK(rules_of(option) == std::set<std::string>{"legacy-config", "kryo", "scala-api"});
  // The Option's element is the job's case class, whose generated serializer extends Scala's.
  std::set<std::string> scala_serializers;
  for (const json& f : option["findings"])
    if (f["rule"] == "kryo") {
      CHECK(f["where"] == "key");
      // Its declared type is Object: ckpt reads the key's Kryo 2 bytes, a rewrite can target it.
      CHECK(f["reason"].get<std::string>().find("ckpt reads these Kryo 2 bytes") != std::string::npos);
    } else if (f["rule"] == "scala-api")
      scala_serializers.insert(f["serializer"].get<std::string>());
  CHECK(scala_serializers.count("org.apache.flink.api.scala.typeutils.OptionSerializer") == 1);
  const json& raw = state_named(scala, "d1392353922252257afa15351a98bae9", "(raw keyed state)");
  CHECK(raw["kind"] == "RAW_KEYED");
  CHECK(raw["verdict"] == "unknown");
  // A Java job of Flink 1.3 with operator state only: JavaSerializer in its config form.
  json java = upgrade_check(old + "nonKeyed-flink1.3", 1);
  CHECK(java["fail_count"] == 3);
  for (const json& s : java["states"]) CHECK(rules_of(s) == std::set<std::string>{"legacy-config"});
}

TEST_CASE("upgrade check of a change log checkpoint takes the key serializer from a materialized part",
          "[cli][corpus]") {
  CKPT_REQUIRE_SHARED();
  // Two operators' subtasks hold change logs only: their key serializer is nowhere, so they
  // are unknown; every other state has it from a materialized part and is ok.
  json doc = upgrade_check(ckpt::test::corpus_dir() + "/" + ckpt::test::kUdfMigrationChangelog, 1);
  CHECK(doc["unknown_count"] == 2);
  CHECK(doc["ok_count"] == 8);
  for (const json& s : doc["states"]) {
    INFO(s.dump());
    if (s["keyed"] == true && s["key_serializer"].is_null())
      CHECK(rules_of(s) == std::set<std::string>{"unknown-serializer"});
    else
      CHECK(s["verdict"] == "ok");
  }
}
