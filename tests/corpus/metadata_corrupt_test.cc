// Corrupted copies of real `_metadata` files: every failure is clean, bounded and points at the
// byte that is wrong.
#include <catch2/catch.hpp>

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "ckpt/metadata.h"
#include "testlib/test_support.h"

using namespace ckpt;

namespace {

// Of different versions and kinds: V2 RocksDB savepoint, V3 1.13-built canonical savepoint with
// raw keyed state, V3 native savepoint, V4 RocksDB checkpoint (type 11), V4 changelog checkpoint
// (types 14, 9), V4 checkpoint with channel state, V4 native savepoint.
const char* const kTruncated[] = {
    "new-stateful-udf-migration-itcase-flink1.8-rocksdb-savepoint",
    "legacy-raw-state-heap-timers-rocks-db-1.12",
    "new-stateful-udf-migration-itcase-flink1.15-rocksdb-savepoint-native",
    "type-serializer-snapshot-migration-itcase-flink1.16-rocksdb-checkpoint",
    "new-stateful-udf-migration-itcase-flink1.17-hashmap-checkpoint",
    "new-stateful-udf-migration-itcase-flink1.17-rocksdb-checkpoint",
    "new-stateful-broadcast-udf-migration-itcase-flink1.19-hashmap-savepoint-native",
};

std::string corpus_metadata(const std::string& name) {
  return test::read_file(test::corpus_dir() + "/" + name + "/_metadata");
}

std::string with_i32(std::string bytes, size_t at, uint32_t v) {
  for (int i = 0; i < 4; ++i) bytes[at + i] = static_cast<char>(v >> (24 - 8 * i));
  return bytes;
}

std::string with_u8(std::string bytes, size_t at, uint8_t v) {
  bytes[at] = static_cast<char>(v);
  return bytes;
}

// Decodes `bytes` in a child process whose data segment is capped at 1 GiB: an allocation sized
// by an unchecked count (16 GiB for 2^31 offsets) kills the child instead of passing unnoticed.
// Under AddressSanitizer the cap cannot be applied (its shadow memory exceeds it), so the child
// runs without it and ASan's allocator limit catches the same bug.
bool decodes_within_one_gib(const std::string& bytes) {
  pid_t pid = fork();
  if (pid == 0) {
#if !defined(CKPT_SANITIZED)
    struct rlimit limit = {rlim_t{1} << 30, rlim_t{1} << 30};
    setrlimit(RLIMIT_DATA, &limit);
#endif
    auto m = decode_metadata(bytes);
    _exit(m.ok() ? 3 : 0);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

}  // namespace

TEST_CASE("truncating real files at every byte fails cleanly at or before the cut", "[corpus][corrupt][format]") {
  // Proves that no prefix of seven real files of versions 2-4 is accepted, crashes or reports an
  // offset beyond the bytes it was given.
  CKPT_REQUIRE_SHARED();
  for (const char* name : kTruncated) {
    std::string bytes = corpus_metadata(name);
    INFO(name);
    REQUIRE(decode_metadata(bytes, name).ok());
    size_t failures = 0;
    for (size_t n = 0; n < bytes.size(); ++n) {
      auto m = decode_metadata(std::string_view(bytes).substr(0, n), name);
      if (m.ok()) {
        FAIL_CHECK("prefix of " << n << " bytes accepted");
        continue;
      }
      const Error& e = m.error();
      if (!e.offset || *e.offset > n || e.file != name) {
        FAIL_CHECK("prefix of " << n << " bytes: " << e.to_string());
        continue;
      }
      ++failures;
    }
    CHECK(failures == bytes.size());
  }
}

TEST_CASE("a type byte outside the registry is named with its context at its exact offset", "[corpus][corrupt][format]") {
  // Proves the reader reports an unknown type byte in each handle context (stream, keyed,
  // operator) at the offset of that byte, in V2 and V4 files.
  CKPT_REQUIRE_SHARED();
  struct Flip {
    const char* file;
    size_t at;
    uint8_t original;
    const char* message;
  };
  // Offsets from the layout of the first operator record (formats/metadata.md §5, §6).
  const Flip flips[] = {
      {"type-serializer-snapshot-migration-itcase-flink1.16-rocksdb-checkpoint", 0x30, 0x00,
       "unknown stream state handle type 0x2a"},   // coordinator state
      {"type-serializer-snapshot-migration-itcase-flink1.16-rocksdb-checkpoint", 0x41, 0x0b,
       "unknown keyed state handle type 0x2a"},    // managed keyed state
      {"new-stateful-udf-migration-itcase-flink1.16-hashmap-checkpoint", 0x3d, 0x04,
       "unknown operator state handle type 0x2a"}, // managed operator state
      {"new-stateful-udf-migration-itcase-flink1.16-hashmap-checkpoint", 0x75, 0x06,
       "unknown stream state handle type 0x2a"},   // its delegate
      {"new-stateful-udf-migration-itcase-flink1.8-rocksdb-savepoint", 0x4c, 0x04,
       "unknown operator state handle type 0x2a"},
      {"new-stateful-udf-migration-itcase-flink1.8-rocksdb-savepoint", 0x84, 0x01,
       "unknown stream state handle type 0x2a"},
  };
  for (const Flip& f : flips) {
    std::string bytes = corpus_metadata(f.file);
    INFO(f.file << " at " << f.at);
    REQUIRE(static_cast<uint8_t>(bytes[f.at]) == f.original);
    auto m = decode_metadata(with_u8(bytes, f.at, 0x2a), "chk-42/_metadata");
    REQUIRE_FALSE(m.ok());
    CHECK(m.error().code == ErrorCode::kCorruption);
    CHECK(m.error().message == f.message);
    CHECK(m.error().offset == f.at);
    CHECK(m.error().to_string().find(fmt::format("{} at offset {:#x}", f.message, f.at)) != std::string::npos);
  }
  // A registered kind in the wrong context is reported as such, not as unknown.
  std::string bytes = corpus_metadata(flips[1].file);
  auto m = decode_metadata(with_u8(bytes, 0x41, 0x04));
  REQUIRE_FALSE(m.ok());
  CHECK(m.error().message == "keyed state handle type 0x04 not allowed here");
  CHECK(m.error().offset == 0x41u);
}

TEST_CASE("a count of 0x7fffffff is rejected at the count field without allocating for it", "[corpus][corrupt][format]") {
  // Proves counts are checked against the bytes left before anything is reserved for them, for
  // operator, subtask, named-state, offset and inline-byte counts.
  CKPT_REQUIRE_SHARED();
  struct Huge {
    const char* file;
    size_t at;
    uint32_t original;
    const char* what;
  };
  const Huge counts[] = {
      {"new-stateful-udf-migration-itcase-flink1.16-hashmap-checkpoint", 0x14, 8, "operator"},
      {"new-stateful-udf-migration-itcase-flink1.16-hashmap-checkpoint", 0x31, 1, "subtask"},
      {"new-stateful-udf-migration-itcase-flink1.16-hashmap-checkpoint", 0x3e, 1, "operator state entry"},
      {"new-stateful-udf-migration-itcase-flink1.16-hashmap-checkpoint", 0x51, 4, "partition offset"},
      {"new-stateful-udf-migration-itcase-flink1.8-rocksdb-savepoint", 0x10, 0, "master state"},
      {"new-stateful-udf-migration-itcase-flink1.8-rocksdb-savepoint", 0xab, 0x119, "inline state byte"},
  };
  for (const Huge& h : counts) {
    std::string bytes = corpus_metadata(h.file);
    INFO(h.file << " at " << h.at);
    uint32_t stored = (uint32_t{static_cast<uint8_t>(bytes[h.at])} << 24) |
                      (uint32_t{static_cast<uint8_t>(bytes[h.at + 1])} << 16) |
                      (uint32_t{static_cast<uint8_t>(bytes[h.at + 2])} << 8) | static_cast<uint8_t>(bytes[h.at + 3]);
    if (h.original != 0) REQUIRE(stored == h.original);
    std::string bad = with_i32(bytes, h.at, 0x7fffffff);
    auto m = decode_metadata(bad);
    REQUIRE_FALSE(m.ok());
    CHECK(m.error().offset == h.at);
    CHECK(m.error().message.find(std::string(h.what) + " count 2147483647 needs at least") == 0);
    CHECK(decodes_within_one_gib(bad));
  }
}

TEST_CASE("bad magic is corruption and an unknown version is not supported - both at their offset", "[corpus][corrupt][format]") {
  // Proves the header checks: a wrong magic number at offset 0, version 99 at offset 4 with
  // kNotSupported (a newer Flink, not a damaged file).
  CKPT_REQUIRE_SHARED();
  std::string bytes = corpus_metadata("new-stateful-udf-migration-itcase-flink1.16-hashmap-checkpoint");
  auto magic = decode_metadata(with_u8(bytes, 1, 0x61), "x/_metadata");
  REQUIRE_FALSE(magic.ok());
  CHECK(magic.error().code == ErrorCode::kCorruption);
  CHECK(magic.error().offset == 0u);
  CHECK(magic.error().message.find("magic 0x4961672d") != std::string::npos);
  CHECK(magic.error().file == "x/_metadata");

  auto version = decode_metadata(with_i32(bytes, 4, 99));
  REQUIRE_FALSE(version.ok());
  CHECK(version.error().code == ErrorCode::kNotSupported);
  CHECK(version.error().offset == 4u);
  CHECK(version.error().message.find("version 99") != std::string::npos);

  auto zero = decode_metadata(with_i32(bytes, 4, 0));
  REQUIRE_FALSE(zero.ok());
  CHECK(zero.error().code == ErrorCode::kNotSupported);
}

TEST_CASE("random byte changes to real files never crash and never point outside the file", "[corpus][corrupt][format]") {
  // Proves robustness beyond the targeted cases: 3000 seeded single- and multi-byte mutations of
  // the truncation files; each either decodes (the change hit a free-form byte) and then
  // re-encodes to the mutated bytes, or fails with an offset inside the file.
  CKPT_REQUIRE_SHARED();
  std::mt19937 rng(20261129);
  for (const char* name : kTruncated) {
    const std::string bytes = corpus_metadata(name);
    INFO(name);
    for (int i = 0; i < 3000; ++i) {
      std::string bad = bytes;
      int changes = 1 + static_cast<int>(rng() % 3);
      for (int c = 0; c < changes; ++c) bad[rng() % bad.size()] = static_cast<char>(rng() & 0xff);
      auto m = decode_metadata(bad);
      if (m.ok()) {
        auto out = encode_metadata(*m);
        REQUIRE(out.ok());
        CHECK(*out == bad);
      } else {
        REQUIRE(m.error().offset.has_value());
        CHECK(*m.error().offset <= bad.size());
      }
    }
  }
}
