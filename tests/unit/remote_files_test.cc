// support/remote_files.h: placeholders whose bytes come from a store when read, a cache of
// downloaded files bounded by evicting the least recently used unpinned ones, ranged reads,
// and the object files of the store's file system over it (s3/store_files.h).
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <mutex>
#include <thread>

#include "ckpt/io.h"
#include "s3/store_files.h"
#include "support/remote_files.h"
#include "testlib/test_support.h"

using namespace ckpt;

namespace {

// A store in memory that counts what it was asked.
class FakeSource : public RemoteSource {
 public:
  std::map<std::string, std::string> objects;
  std::atomic<int> downloads{0}, ranges{0}, ahead_downloads{0};
  std::atomic<int> fail_next{0};
  std::atomic<int> delay_ms{0};
  // The first range asked from this offset on fails (then none).
  std::atomic<uint64_t> fail_range_from{UINT64_MAX};
  std::mutex asked_mu;
  std::vector<std::pair<uint64_t, uint64_t>> asked;  // ranges, as (offset, length)
  std::vector<std::pair<uint64_t, uint64_t>> asked_so_far() {
    std::lock_guard<std::mutex> lock(asked_mu);
    return asked;
  }

  Status read_range(const std::string& uri, uint64_t offset, uint64_t length, uint64_t, std::string* out) override {
    {
      std::lock_guard<std::mutex> lock(asked_mu);
      asked.emplace_back(offset, length);
    }
    if (offset >= fail_range_from.load()) {
      fail_range_from = UINT64_MAX;
      return Error(ErrorCode::kIOError, "HTTP 503 SlowDown").with_file(uri);
    }
    ++ranges;
    const std::string& o = objects.at(uri);
    *out = o.substr(offset, length);
    return Status::OK();
  }
  Status download(const std::string& uri, const std::string& local_path, uint64_t size, bool ahead) override {
    if (ahead) ++ahead_downloads;
    if (fail_next > 0) {
      --fail_next;
      return Error(ErrorCode::kIOError, "HTTP 500 InternalError").with_file(uri);
    }
    if (delay_ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms.load()));
    ++downloads;
    // (No Catch assertion here: this runs on the library's threads too.)
    const std::string& o = objects.at(uri);
    if (o.size() != size) return Error(ErrorCode::kInvalidArgument, "listed size differs").with_file(uri);
    std::FILE* f = std::fopen(local_path.c_str(), "wb");
    if (!f) return Error(ErrorCode::kIOError, "cannot create").with_file(local_path);
    const bool written = std::fwrite(o.data(), 1, o.size(), f) == o.size();
    std::fclose(f);
    return written ? Status::OK() : Status(Error(ErrorCode::kIOError, "cannot write").with_file(local_path));
  }
};

std::string object_bytes(int i, size_t size) {
  std::string s(size, '\0');
  for (size_t j = 0; j < size; ++j) s[j] = static_cast<char>('a' + (i * 7 + j) % 26);
  return s;
}

// Placeholders for `n` objects of `size` bytes under `dir`, registered with `files`.
std::vector<std::string> stage(const test::ScratchDir& dir, FakeSource& src, RemoteFiles& files, int n, size_t size) {
  std::vector<std::string> paths;
  for (int i = 0; i < n; ++i) {
    const std::string uri = "s3://b/job/f" + std::to_string(i);
    src.objects[uri] = object_bytes(i, size);
    const std::string path = dir / ("f" + std::to_string(i));
    int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    REQUIRE(fd >= 0);
    REQUIRE(::ftruncate(fd, static_cast<off_t>(size)) == 0);
    ::close(fd);
    files.add(path, uri, size);
    paths.push_back(path);
  }
  return paths;
}

// The whole file `path` of `files`, fetched and let go of again (what a reader by name does).
Result<std::string> fetched(RemoteFiles& files, const std::string& path) {
  CKPT_ASSIGN_OR_RETURN(RemoteFiles::Pin pin, files.fetch(path));
  return read_whole_file(path);
}

// One object of `size` bytes in a store and the object file that reads it.
struct OneObjectFile {
  test::ScratchDir dir;
  std::shared_ptr<FakeSource> src = std::make_shared<FakeSource>();
  std::shared_ptr<RemoteFiles> files = std::make_shared<RemoteFiles>(src, 1 << 20);
  std::string object;
  std::shared_ptr<ReadableFile> file;
  explicit OneObjectFile(size_t size) : object(object_bytes(0, size)) {
    const auto paths = stage(dir, *src, *files, 1, size);
    file = object_file(files, paths[0], "s3://b/job/f0", size);
  }
};

uint64_t allocated_bytes(const std::string& path) {
  struct stat st;
  REQUIRE(::stat(path.c_str(), &st) == 0);
  return static_cast<uint64_t>(st.st_blocks) * 512;
}

}  // namespace

TEST_CASE("remote files are downloaded when opened and evicted beyond the cache bound", "[unit][s3]") {
  test::ScratchDir dir;
  auto src = std::make_shared<FakeSource>();
  auto files = std::make_shared<RemoteFiles>(src, 10000);
  const auto paths = stage(dir, *src, *files, 12, 4096);

  // Each file fetched has the object's bytes.
  for (int i = 0; i < 12; ++i) {
    Result<std::string> bytes = fetched(*files, paths[i]);
    REQUIRE(bytes);
    CHECK(bytes.value() == object_bytes(i, 4096));
  }
  RemoteFileStats st = files->stats();
  CHECK(st.downloads == 12);
  CHECK(st.downloaded_bytes == 12 * 4096);
  // Two files fit (8192 <= 10000); the third download evicts the oldest, and so on.
  CHECK(st.evictions == 10);
  CHECK(st.peak_cached_bytes <= 10000 + 4096);
  // An evicted file is a placeholder again: its listed size, no blocks.
  struct stat first;
  REQUIRE(::stat(paths[0].c_str(), &first) == 0);
  CHECK(first.st_size == 4096);
  CHECK(allocated_bytes(paths[0]) == 0);
  CHECK(allocated_bytes(paths[11]) >= 4096);
  // Read again, it is downloaded again.
  CHECK(fetched(*files, paths[0]).value() == object_bytes(0, 4096));
  CHECK(files->stats().downloads == 13);
  // The most recently used file was kept: no download.
  CHECK(fetched(*files, paths[0]).value() == object_bytes(0, 4096));
  CHECK(files->stats().downloads == 13);
}

TEST_CASE("pinned remote files are never evicted and the bound is exceeded only by them", "[unit][s3]") {
  test::ScratchDir dir;
  auto src = std::make_shared<FakeSource>();
  RemoteFiles files(src, 5000);
  const auto paths = stage(dir, *src, files, 6, 2000);
  std::vector<RemoteFiles::Pin> pins;
  for (int i = 0; i < 4; ++i) {
    Result<RemoteFiles::Pin> p = files.fetch(paths[i]);
    REQUIRE(p);
    pins.push_back(std::move(p).value());
  }
  CHECK(files.stats().evictions == 0);
  CHECK(files.stats().peak_cached_bytes == 8000);
  for (int i = 0; i < 4; ++i) CHECK(test::read_file(paths[i]) == object_bytes(i, 2000));
  pins.clear();
  // The next download makes room: the oldest unpinned files go until the bound holds.
  REQUIRE(files.fetch(paths[4]));
  CHECK(files.stats().evictions == 3);
  CHECK(allocated_bytes(paths[0]) == 0);
  CHECK(test::read_file(paths[3]) == object_bytes(3, 2000));
  CHECK(test::read_file(paths[4]) == object_bytes(4, 2000));
}

TEST_CASE("a remote file read by many threads at once is downloaded once", "[unit][s3]") {
  test::ScratchDir dir;
  auto src = std::make_shared<FakeSource>();
  RemoteFiles files(src, 1 << 20);
  const auto paths = stage(dir, *src, files, 1, 100000);
  src->delay_ms = 50;
  std::vector<std::thread> threads;
  std::atomic<int> right{0};
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&] {
      Result<RemoteFiles::Pin> p = files.fetch(paths[0]);
      // (No Catch helpers on these threads.)
      std::ifstream in(paths[0], std::ios::binary);
      std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      if (p && bytes == object_bytes(0, 100000)) ++right;
    });
  for (auto& t : threads) t.join();
  CHECK(right == 8);
  CHECK(src->downloads == 1);
}

TEST_CASE("a failed remote download names the object and is tried again by the next reader", "[unit][s3]") {
  test::ScratchDir dir;
  auto src = std::make_shared<FakeSource>();
  RemoteFiles files(src, 1 << 20);
  const auto paths = stage(dir, *src, files, 1, 300);
  src->fail_next = 1;
  Result<RemoteFiles::Pin> failed = files.fetch(paths[0]);
  REQUIRE_FALSE(failed);
  CHECK(failed.error().file == "s3://b/job/f0");
  CHECK(failed.error().message.find("HTTP 500") != std::string::npos);
  // Nothing half-written stands at the path or beside it.
  CHECK(allocated_bytes(paths[0]) == 0);
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(dir.path())) names.push_back(e.path().filename().string());
  CHECK(names == std::vector<std::string>{"f0"});
  REQUIRE(files.fetch(paths[0]));
  CHECK(test::read_file(paths[0]) == object_bytes(0, 300));
}

// An open object read by ranges, then handed by name to RocksDB (local_path()): evicted in
// between by other downloads, its name is a placeholder, so local_path() must fetch it again
// rather than hand RocksDB a file of zeros.
TEST_CASE("an open object file's local_path has the object's bytes after its name was evicted", "[unit][s3]") {
  test::ScratchDir dir;
  auto src = std::make_shared<FakeSource>();
  auto files = std::make_shared<RemoteFiles>(src, 5000);
  const auto paths = stage(dir, *src, *files, 3, 4096);
  std::shared_ptr<ReadableFile> file = object_file(files, paths[0], "s3://b/job/f0", 4096);
  REQUIRE(fetched(*files, paths[0]));
  // Two more downloads: the first file, unpinned, is evicted from under its name.
  REQUIRE(fetched(*files, paths[1]));
  REQUIRE(fetched(*files, paths[2]));
  REQUIRE(allocated_bytes(paths[0]) == 0);
  std::string bytes;
  REQUIRE(file->read(0, 4096, &bytes).ok());
  CHECK(bytes == object_bytes(0, 4096));
  Result<std::string> local = file->local_path();
  REQUIRE(local);
  CHECK(test::read_file(local.value()) == object_bytes(0, 4096));
  // Pinned while the file is open: further downloads do not evict it again.
  REQUIRE(fetched(*files, paths[1]));
  CHECK(test::read_file(local.value()) == object_bytes(0, 4096));
}

TEST_CASE("ranged reads of a remote file come from the store until it is downloaded", "[unit][s3]") {
  test::ScratchDir dir;
  auto src = std::make_shared<FakeSource>();
  RemoteFiles files(src, 1 << 20);
  const auto paths = stage(dir, *src, files, 2, 50000);
  std::string head;
  REQUIRE(files.read_range(paths[0], 100, 64, &head).ok());
  CHECK(head == object_bytes(0, 50000).substr(100, 64));
  CHECK(src->ranges == 1);
  CHECK(src->downloads == 0);
  CHECK(files.stats().ranged_bytes == 64);
  REQUIRE(files.fetch(paths[0]));
  std::string tail;
  REQUIRE(files.read_range(paths[0], 49990, 10, &tail).ok());
  CHECK(tail == object_bytes(0, 50000).substr(49990, 10));
  CHECK(src->ranges == 1);  // from the downloaded file
  // A path that stands for nothing is the caller's mistake, named.
  CHECK_FALSE(files.holds(dir / "other"));
  CHECK(files.holds(dir / "./f1"));
}

TEST_CASE("an object file read in line has the next bytes asked for before it reads them and each byte fetched once",
          "[unit][s3]") {
  constexpr size_t kSize = 3'000'000, kRead = 300'000;
  OneObjectFile one(kSize);
  const auto& src = one.src;
  const auto& file = one.file;
  const std::string& object = one.object;
  auto asked = [&] { return src->asked_so_far(); };
  // A read of the key-group region kind (large, fetched as asked) and one after it: a scan.
  std::string got;
  REQUIRE(file->read(0, kRead, &got).ok());
  REQUIRE(file->read(kRead, kRead, &got).ok());
  CHECK(got == object.substr(kRead, kRead));
  // The bytes after the second read are asked for while the reader has not asked yet: as many
  // as it read in line (600,000), not more than a MiB.
  for (int i = 0; i < 500 && asked().size() < 3; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  REQUIRE(asked().size() == 3);
  CHECK(asked()[2] == std::make_pair<uint64_t, uint64_t>(2 * kRead, 2 * kRead));
  // The rest read in line: the same bytes, each fetched once, in fewer requests than reads.
  size_t reads = 2;
  for (uint64_t at = 2 * kRead; at < kSize; at += kRead, ++reads) {
    REQUIRE(file->read(at, kRead, &got).ok());
    CHECK(got == object.substr(at, kRead));
  }
  uint64_t fetched = 0;
  for (const auto& [offset, length] : asked()) {
    CHECK(offset + length <= kSize);
    CHECK(length <= (uint64_t{1} << 20) + (64 << 10));
    fetched += length;
  }
  CHECK(fetched == kSize);
  CHECK(asked().size() < reads);
  // A read elsewhere after all: from the store, right.
  REQUIRE(file->read(100, 1000, &got).ok());
  CHECK(got == object.substr(100, 1000));
}

TEST_CASE("the pages of a block a scan has read past are given back and a read back there fetches its bytes again",
          "[unit][s3]") {
  constexpr size_t kSize = 3'000'000, kRead = 300'000;
  OneObjectFile one(kSize);
  const auto& src = one.src;
  const auto& file = one.file;
  const std::string& object = one.object;
  auto asked = [&] { return src->asked_so_far(); };
  // Two reads in line, then the third from the range read ahead ([600,000, 1,200,000)): its
  // first half read, its pages behind the reader given back.
  std::string got;
  for (uint64_t at = 0; at < 3 * kRead; at += kRead) REQUIRE(file->read(at, kRead, &got).ok());
  CHECK(got == object.substr(2 * kRead, kRead));
  REQUIRE(asked().size() >= 3);
  CHECK(asked()[2] == std::make_pair<uint64_t, uint64_t>(2 * kRead, 2 * kRead));
  // A read back into the half read: not served from the given-back pages (zeros) but fetched.
  const size_t before = asked().size();
  REQUIRE(file->read(2 * kRead + 50'000, 1000, &got).ok());
  CHECK(got == object.substr(2 * kRead + 50'000, 1000));
  const auto now = asked();
  REQUIRE(now.size() > before);
  CHECK(now.back().first == 2 * kRead + 50'000);
  // The block's bytes not yet read are still served from it, right.
  REQUIRE(file->read(2 * kRead + 50'000 + 1000, 2000, &got).ok());
  CHECK(got == object.substr(2 * kRead + 51'000, 2000));
}

TEST_CASE("a failed read ahead is asked again by the reader and one read elsewhere is let go", "[unit][s3]") {
  constexpr size_t kSize = 2'000'000, kRead = 200'000;
  OneObjectFile one(kSize);
  const auto& src = one.src;
  const auto& file = one.file;
  const std::string& object = one.object;
  // The range after the first two reads fails when read ahead: the reader asks for it itself.
  src->fail_range_from = 2 * kRead;
  std::string got;
  for (uint64_t at = 0; at < 4 * kRead; at += kRead) {
    REQUIRE(file->read(at, kRead, &got).ok());
    CHECK(got == object.substr(at, kRead));
  }
  CHECK(src->fail_range_from == UINT64_MAX);  // it did fail once
  // A jump back: the range on its way is let go, the bytes asked for are the ones returned.
  REQUIRE(file->read(10, kRead, &got).ok());
  CHECK(got == object.substr(10, kRead));
  REQUIRE(file->read(10 + kRead, kRead, &got).ok());
  CHECK(got == object.substr(10 + kRead, kRead));
  // Reading on to the end: nothing asked past it.
  for (uint64_t at = 10 + 2 * kRead; at < kSize; at += kRead) {
    REQUIRE(file->read(at, std::min<uint64_t>(kRead, kSize - at), &got).ok());
    CHECK(got == object.substr(at, kRead));
  }
  std::lock_guard<std::mutex> lock(src->asked_mu);
  for (const auto& [offset, length] : src->asked) CHECK(offset + length <= kSize);
}

TEST_CASE("remote files downloaded ahead stay within half the cache and are read without a second download", "[unit][s3]") {
  test::ScratchDir dir;
  auto src = std::make_shared<FakeSource>();
  auto files = std::make_shared<RemoteFiles>(src, 6000);
  const auto paths = stage(dir, *src, *files, 20, 1000);
  files->prefetch(paths, 4);
  // Ahead by half the cache at most: three files, then the threads wait for a reader.
  for (int i = 0; i < 500 && files->stats().prefetched < 3; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(2));
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  CHECK(files->stats().prefetched == 3);
  CHECK(src->ahead_downloads == 3);
  for (int i = 0; i < 20; ++i) {
    Result<std::string> bytes = fetched(*files, paths[i]);
    REQUIRE(bytes);
    CHECK(bytes.value() == object_bytes(i, 1000));
  }
  const RemoteFileStats st = files->stats();
  CHECK(st.downloads == 20);  // each once: what was downloaded ahead was read from the cache
  CHECK(st.prefetched >= 3);
  CHECK(st.peak_cached_bytes <= 6000 + 1000);
  CHECK(st.evictions >= 14);
}
