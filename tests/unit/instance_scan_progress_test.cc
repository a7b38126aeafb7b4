// A RocksDB instance read key group by key group counts its files' bytes as the scan advances,
// not all at once after it: convert's progress moves while it converts.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "ckpt/generate.h"
#include "ckpt/metadata.h"
#include "ckpt/progress.h"
#include "ckpt/resolve.h"
#include "state/rocksdb/rocks_instance_reader.h"
#include "state/stream_opener.h"
#include "testlib/test_support.h"

TEST_CASE("a scan of a RocksDB instance by key group counts its bytes as it passes the key groups", "[state]") {
  ckpt::test::ScratchDir s;
  ckpt::GenerateOptions o;
  o.output = s / "snap";
  o.keys = 4000;
  o.parallelism = 1;
  o.operators = 1;
  o.states = {"value", "map"};
  REQUIRE(ckpt::generate_snapshot(o).ok());
  auto where = ckpt::locate_snapshot(s / "snap");
  REQUIRE(where.ok());
  auto m = ckpt::read_metadata_file(where->metadata_path);
  REQUIRE(m.ok());
  const ckpt::KeyedHandle& h = m->operators.at(0).subtasks.at(0).managed_keyed;
  uint64_t files = 0;
  for (const auto* list : {&h.shared_files, &h.private_files})
    for (const ckpt::NamedStream& f : *list) files += static_cast<uint64_t>(f.handle.state_size());
  REQUIRE(files > 0);

  ckpt::Progress progress;
  ckpt::StreamOpener streams = ckpt::StreamOpener::for_snapshot(*where, {});
  streams.set_progress(&progress);
  auto instance = ckpt::RocksInstanceReader::open(h, streams);
  REQUIRE(instance.ok());
  const uint64_t opened = progress.bytes_done.load();  // what placing the files read (not a link)
  std::vector<std::string> families;
  for (const std::string& cf : (*instance)->column_families())
    if (cf != "default") families.push_back(cf);
  const int32_t half = h.range.first + h.range.count / 2;
  uint64_t at_half = 0;
  REQUIRE((*instance)
              ->for_each_by_key_group(families, h.range, 1,
                                      [&](int32_t kg, size_t, std::string_view, std::string_view) -> ckpt::Status {
                                        if (kg <= half) at_half = progress.bytes_done.load() - opened;
                                        return ckpt::Status::OK();
                                      })
              .ok());
  const uint64_t scanned = progress.bytes_done.load() - opened;
  CHECK(scanned + opened == files);  // every byte of the instance once
  // Half way through the key groups, about half of the bytes: not 0 until the end.
  CHECK(at_half > scanned / 4);
  CHECK(at_half < scanned * 3 / 4);
}
