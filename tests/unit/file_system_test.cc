// ckpt/file_system.h: one interface over the disk and an object store. Snapshots in different
// buckets open side by side in one process, and read as their copies on disk do.
#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <set>
#include <string>
#include <vector>

#include "ckpt/convert.h"
#include "ckpt/dump.h"
#include "ckpt/entries.h"
#include "ckpt/file_system.h"
#include "ckpt/generate.h"
#include "ckpt/io.h"
#include "ckpt/resolve.h"
#include "testlib/s3_fixtures.h"
#include "testlib/test_support.h"

using namespace ckpt;

namespace {

std::vector<std::string> entry_texts(EntryReader& reader) {
  std::vector<std::string> out;
  Status s = reader.for_each([&](const Entry& e) -> Status {
    out.push_back(e.operator_id + " " + std::to_string(e.subtask) + " " + e.state + " " +
                  (e.key ? e.key->json() : "-") + " " + e.value.json());
    return Status::OK();
  });
  INFO((s.ok() ? std::string() : s.error().to_string()));
  REQUIRE(s.ok());
  return out;
}

std::set<std::string> listed_names(FileSystem& files, const std::string& dir) {
  auto listed = files.list(dir);
  REQUIRE(listed.ok());
  std::set<std::string> out;
  for (const FileInfo& f : listed.value()) out.insert(f.path.substr(f.path.rfind('/') + 1) + (f.directory ? "/" : ""));
  return out;
}

class CountingSink : public DumpSink {
 public:
  uint64_t entries = 0;
  void entry(const Entry&) override { ++entries; }
  void problem(const Error&) override {}
};

// What `ckpt dump` of the snapshot `generated` cost the store `m` it was uploaded to (in a new
// bucket) through a new store file system; the bytes of its files beside _metadata.
struct StoreDump {
  StoreFileSystemStats stats;
  uint64_t entries = 0;
  uint64_t state_bytes = 0;
};
StoreDump dump_from_bucket(const test::MotoServer& m, const GenerateOptions& generated, const std::string& bucket) {
  REQUIRE(generate_snapshot(generated).ok());
  StoreDump out;
  auto listed = local_file_system()->list(generated.output);
  REQUIRE(listed.ok());
  for (const FileInfo& f : listed.value())
    if (f.path.substr(f.path.rfind('/') + 1) != "_metadata") out.state_bytes += f.size;
  REQUIRE(m.create_bucket(bucket));
  REQUIRE(m.upload_tree(generated.output, bucket, "snap"));
  set_store_file_system_options({});  // a new store file system: its counts start at 0
  CountingSink sink;
  auto dumped = dump_snapshot("s3://" + bucket + "/snap", {}, sink);
  INFO((dumped.ok() ? std::string() : dumped.error().to_string()));
  REQUIRE(dumped.ok());
  out.stats = store_file_system_stats();
  out.entries = sink.entries;
  return out;
}

}  // namespace

TEST_CASE("snapshots in two buckets open at once through the store file system and read as on disk", "[ops][s3]") {
  CKPT_REQUIRE_MOTO();
  auto m = test::unchecked_moto();
  test::StoreEnvironment env(m->endpoint(), m->credentials());
  set_store_file_system_options({});
  test::ScratchDir dir;
  const GenerateOptions heap{
      .output = dir / "heap", .backend = GenerateBackend::kHeap, .keys = 60, .states = {"value", "map"}};
  const GenerateOptions rocks{
      .output = dir / "rocks", .backend = GenerateBackend::kRocksDb, .keys = 60, .states = {"list"}};
  REQUIRE(generate_snapshot(heap).ok());
  REQUIRE(generate_snapshot(rocks).ok());
  REQUIRE(m->create_bucket("vfs-one"));
  REQUIRE(m->create_bucket("vfs-two"));
  REQUIRE(m->upload_tree(heap.output, "vfs-one", "jobs/heap"));
  REQUIRE(m->upload_tree(rocks.output, "vfs-two", "jobs/rocks"));

  auto one = EntryReader::open("s3://vfs-one/jobs/heap", {});
  auto two = EntryReader::open("s3a://vfs-two/jobs/rocks/", {});
  REQUIRE(one.ok());
  INFO((two.ok() ? std::string() : two.error().to_string()));
  REQUIRE(two.ok());
  auto heap_disk = EntryReader::open(heap.output, {});
  auto rocks_disk = EntryReader::open(rocks.output, {});
  REQUIRE(heap_disk.ok());
  REQUIRE(rocks_disk.ok());
  // Both readers open while either reads.
  const std::vector<std::string> from_two = entry_texts(**two);
  const std::vector<std::string> from_one = entry_texts(**one);
  CHECK(from_one.size() > 60);
  CHECK(from_one == entry_texts(**heap_disk));
  CHECK(from_two == entry_texts(**rocks_disk));
  CHECK(store_file_system_stats().requests > 0);
}

TEST_CASE("the file system of a path lists stats reads writes and removes alike on disk and in a bucket", "[ops][s3]") {
  CKPT_REQUIRE_MOTO();
  auto m = test::unchecked_moto();
  test::StoreEnvironment env(m->endpoint(), m->credentials());
  set_store_file_system_options({});
  REQUIRE(m->create_bucket("vfs-rw"));
  test::ScratchDir dir;
  for (const std::string& root : {dir.path(), std::string("s3://vfs-rw/root")}) {
    INFO(root);
    auto files = file_system_for(root);
    REQUIRE(files.ok());
    FileSystem& f = *files.value();
    std::string bytes(300000, '\0');
    for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<char>(i * 7);
    if (root == dir.path()) REQUIRE(::mkdir((root + "/sub").c_str(), 0755) == 0);
    REQUIRE(f.write(root + "/a", bytes).ok());
    REQUIRE(f.write(root + "/sub/b", "bee").ok());
    CHECK(listed_names(f, root) == std::set<std::string>{"a", "sub/"});
    auto info = f.stat(root + "/a");
    REQUIRE(info.ok());
    CHECK(info->size == bytes.size());
    CHECK(!info->directory);
    auto sub = f.stat(root + "/sub");
    REQUIRE(sub.ok());
    CHECK(sub->directory);
    auto in = f.open(root + "/a");
    REQUIRE(in.ok());
    std::string got;
    REQUIRE(in.value()->read(200000, 1000, &got).ok());
    CHECK(got == bytes.substr(200000, 1000));
    REQUIRE(in.value()->read(0, 100, &got).ok());
    CHECK(got == bytes.substr(0, 100));
    Status past = in.value()->read(299990, 20, &got);
    CHECK(!past.ok());
    auto local = in.value()->local_path();
    REQUIRE(local.ok());
    CHECK(test::read_file(local.value()) == bytes);
    REQUIRE(f.remove(root + "/a").ok());
    CHECK(f.stat(root + "/a").error().code == ErrorCode::kNotFound);
    // Listings are reused a while within a command: never past a write or removal through them.
    CHECK(listed_names(f, root) == std::set<std::string>{"sub/"});
    if (root == dir.path()) REQUIRE(::mkdir((root + "/new").c_str(), 0755) == 0);
    REQUIRE(f.write(root + "/new/c", "sea").ok());
    CHECK(listed_names(f, root) == std::set<std::string>{"sub/", "new/"});
  }
}

TEST_CASE("a dump of a snapshot in a bucket lists its directory once and fetches each byte of its files once",
          "[ops][s3]") {
  CKPT_REQUIRE_MOTO();
  auto m = test::unchecked_moto();
  test::StoreEnvironment env(m->endpoint(), m->credentials());
  test::ScratchDir dir;
  const GenerateOptions heap{.output = dir / "heap",
                             .backend = GenerateBackend::kHeap,
                             .parallelism = 1,
                             .keys = 3000,
                             .states = {"value", "map"}};
  // dump checks the structure (one resolver) and reads (another): one listing answers both.
  const StoreDump dumped = dump_from_bucket(*m, heap, "vfs-once");
  REQUIRE(dumped.state_bytes > 200000);  // several blocks of reading ahead
  CountingSink from_disk;
  REQUIRE(dump_snapshot(heap.output, {}, from_disk).ok());
  CHECK(dumped.entries == from_disk.entries);
  const StoreFileSystemStats& st = dumped.stats;
  CHECK(st.requests == st.ranged_reads + 2);     // one LIST, one GET of _metadata, then ranges
  CHECK(st.ranged_bytes == dumped.state_bytes);  // a read straddling a block fetches only the rest
  CHECK(st.downloads == 0);

  // Four key groups of about 220 KB each in one state file.
  const GenerateOptions large{.output = dir / "large",
                              .backend = GenerateBackend::kHeap,
                              .parallelism = 1,
                              .max_parallelism = 4,
                              .keys = 8000,
                              .states = {"value"}};
  const StoreDump regions = dump_from_bucket(*m, large, "vfs-regions");
  CHECK(regions.entries == 8000);
  // The stream's proxy and the first region (which the layout's probe reads next) in one
  // read, then the second region straight into the reader's buffer: no request before the
  // first entry but the one. A small read of a region's key-group number first would fetch a
  // read-ahead block of up to 1 MiB, held beside the region copied out of it. Two regions read
  // in line make a scan: the last two (their tail folded in, not a small request of its own)
  // are asked for in one range while the second is decoded.
  CHECK(regions.stats.ranged_reads == 3);
  CHECK(regions.stats.ranged_bytes == regions.state_bytes);
  CHECK(regions.stats.requests == regions.stats.ranged_reads + 2);
}

TEST_CASE("locating a snapshot in a bucket fetches its _metadata while listing it and reads that fetch",
          "[ops][s3]") {
  CKPT_REQUIRE_MOTO();
  auto m = test::unchecked_moto();
  test::StoreEnvironment env(m->endpoint(), m->credentials());
  REQUIRE(m->create_bucket("vfs-ahead"));
  const std::string sample = test::sample_savepoint_dir();
  REQUIRE(m->upload_tree(sample, "vfs-ahead", "snap"));
  auto on_disk = read_whole_file(sample + "/_metadata");
  REQUIRE(on_disk.ok());

  set_store_file_system_options({});  // a new store file system: its counts start at 0
  auto where = locate_snapshot("s3://vfs-ahead/snap");
  REQUIRE(where.ok());
  CHECK(where->metadata_path == "s3://vfs-ahead/snap/_metadata");
  auto bytes = read_through_file_system(where->metadata_path);
  REQUIRE(bytes.ok());
  CHECK(*bytes == *on_disk);
  // The LIST and the one GET begun beside it, which the read took: no second GET.
  CHECK(store_file_system_stats().requests == 2);

  // Named by its _metadata object: nothing is read ahead (the object itself is what is read).
  set_store_file_system_options({});
  auto named = locate_snapshot("s3://vfs-ahead/snap/_metadata");
  REQUIRE(named.ok());
  REQUIRE(read_through_file_system(named->metadata_path).ok());
  // The LIST that finds no prefix of that name, the HEAD of the object, its GET: none begun ahead.
  CHECK(store_file_system_stats().requests == 3);

  // A prefix without _metadata says so, as before; the fetch begun for it finds nothing.
  set_store_file_system_options({});
  REQUIRE(m->upload_tree(sample, "vfs-ahead", "job/chk-1"));
  auto job = locate_snapshot("s3://vfs-ahead/job");
  REQUIRE_FALSE(job.ok());
  CHECK(job.error().message.find("no _metadata") != std::string::npos);
}

TEST_CASE("convert_snapshot publishes its output in a bucket through the file system and refuses one there", "[ops][s3]") {
  CKPT_REQUIRE_MOTO();
  auto m = test::unchecked_moto();
  test::StoreEnvironment env(m->endpoint(), m->credentials());
  set_store_file_system_options({});
  test::ScratchDir dir;
  const GenerateOptions rocks{
      .output = dir / "rocks", .backend = GenerateBackend::kRocksDb, .keys = 40, .states = {"value", "map"}};
  REQUIRE(generate_snapshot(rocks).ok());
  REQUIRE(m->create_bucket("vfs-in"));
  REQUIRE(m->create_bucket("vfs-out"));
  REQUIRE(m->upload_tree(rocks.output, "vfs-in", "snap"));
  ConvertOptions disk;
  disk.to = ConvertTarget::kHeap;
  disk.output = dir / "heap";
  REQUIRE(convert_snapshot(rocks.output, disk).ok());
  // From one bucket into another, in one process, no tool in between.
  ConvertOptions store = disk;
  store.output = "s3://vfs-out/heap";
  auto converted = convert_snapshot("s3://vfs-in/snap", store);
  INFO((converted.ok() ? std::string() : converted.error().to_string()));
  REQUIRE(converted.ok());
  CHECK(converted->output == "s3://vfs-out/heap");
  CHECK(test::bucket_files(*m, "vfs-out", "heap") == test::tree_files(dir / "heap"));
  // The output exists now: refused before any work, as on a disk.
  auto again = convert_snapshot("s3://vfs-in/snap", store);
  REQUIRE_FALSE(again.ok());
  CHECK(again.error().message.find("output exists") != std::string::npos);
  store.output = "s3://vfs-in/snap";
  auto over = convert_snapshot("s3://vfs-in/snap", store);
  REQUIRE_FALSE(over.ok());
  CHECK(over.error().message.find("output is the snapshot directory") != std::string::npos);
}
