// Downloads on demand into a bounded cache of whole files; ranged reads for streams.
#include "support/remote_files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <filesystem>
#include <mutex>
#include <thread>
#include <unordered_map>

#include <fmt/format.h>

#include "support/fork_generation.h"
#include "support/worker_threads.h"

namespace ckpt {
namespace fs = std::filesystem;

struct RemoteFiles::Entry {
  std::string path, uri;
  uint64_t size = 0;
  enum class Where { kStore, kFetching, kHere } where = Where::kStore;
  int pins = 0;
  uint64_t last_use = 0;
  bool read = false;  // here and asked for by a reader (not only downloaded ahead)
  bool ever_read = false;  // asked for by a reader once: never downloaded ahead again
};

struct RemoteFiles::State {
  mutable std::mutex mu;
  std::condition_variable changed;
  std::unordered_map<std::string, std::unique_ptr<Entry>> entries;  // by lexically normal path
  uint64_t cached = 0;
  uint64_t clock = 0;
  uint64_t fetch_serial = 0;
  RemoteFileStats stats;
  // Downloads ahead (prefetch()).
  uint64_t unread = 0;  // bytes downloaded ahead, here and not yet read
  uint64_t ahead_in_flight = 0;  // bytes being downloaded ahead
  std::vector<std::string> queue;
  size_t next = 0;
  bool stopping = false;
  std::vector<std::thread> prefetchers;
  // The process the threads run in (support/fork_generation.h): a child forked after they
  // started has none of them, and must neither wait for them nor queue work for them.
  const unsigned generation = fork_generation();
  // Ranges read ahead (read_range_ahead()).
  std::deque<std::packaged_task<Result<std::string>()>> ranges;
  std::vector<std::thread> rangers;
  int running_ranges = 0;  // taken from `ranges` and not yet answered
  std::condition_variable ranges_changed;
};

namespace {

std::string normal(const std::string& path) { return fs::path(path).lexically_normal().string(); }

// A sparse file of `size` bytes at `path`, by a rename over whatever stands there.
Status make_placeholder(const std::string& path, uint64_t size, uint64_t serial) {
  const std::string tmp = fmt::format("{}.ckpt-evict-{}", path, serial);
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return Error(ErrorCode::kIOError, fmt::format("cannot create: {}", std::strerror(errno))).with_file(tmp);
  const bool sized = ::ftruncate(fd, static_cast<off_t>(size)) == 0;
  ::close(fd);
  if (!sized || ::rename(tmp.c_str(), path.c_str()) != 0) {
    int err = errno;
    ::unlink(tmp.c_str());
    return Error(ErrorCode::kIOError, fmt::format("cannot evict: {}", std::strerror(err))).with_file(path);
  }
  return Status::OK();
}

}  // namespace

RemoteFiles::RemoteFiles(std::shared_ptr<RemoteSource> source, uint64_t cache_bytes)
    : source_(std::move(source)), cache_bytes_(cache_bytes), state_(std::make_unique<State>()) {}

RemoteFiles::~RemoteFiles() {
  if (fork_generation() != state_->generation) {
    // A forked child: the threads are the parent's, not here to be joined (nor detached: both
    // fail, and a std::thread left joinable ends the process); the lock may have been held by
    // one of them at the fork, for good, and the condition variables they waited on cannot be
    // destroyed (waiters that never leave). Left behind untouched.
    (void)state_.release();
    return;
  }
  {
    std::lock_guard<std::mutex> lock(state_->mu);
    state_->stopping = true;
  }
  state_->changed.notify_all();
  state_->ranges_changed.notify_all();
  for (std::thread& t : state_->prefetchers) t.join();
  for (std::thread& t : state_->rangers) t.join();
}

std::future<Result<std::string>> RemoteFiles::read_range_ahead(const std::string& path, uint64_t offset,
                                                                      uint64_t length) {
  if (fork_generation() != state_->generation) return {};  // forked: the reader reads for itself
  std::packaged_task<Result<std::string>()> task([this, path, offset, length] {
    Result<std::string> got = catch_internal([&]() -> Result<std::string> {
      std::string out;
      CKPT_RETURN_IF_ERROR(read_range(path, offset, length, &out));
      return out;
    });
    // No longer running before the reader can see the answer: a reader that asks for its next
    // range at once finds this thread about to be free, not busy (a thread and a connection more).
    std::lock_guard<std::mutex> lock(state_->mu);
    --state_->running_ranges;
    return got;
  });
  std::future<Result<std::string>> got = task.get_future();
  std::lock_guard<std::mutex> lock(state_->mu);
  if (state_->stopping) return {};
  const size_t wanted = state_->ranges.size() + 1 + static_cast<size_t>(state_->running_ranges);
  if (wanted > state_->rangers.size() && state_->rangers.size() < static_cast<size_t>(kRangeThreads)) {
    try {
      state_->rangers.emplace_back([this] { range_loop(); });
    } catch (...) {
      if (state_->rangers.empty()) return {};  // no thread to be had: the reader reads for itself
    }
  }
  state_->ranges.push_back(std::move(task));
  state_->ranges_changed.notify_one();
  return got;
}

// Queued ranges left at the end are dropped (their futures broken): the readers that asked hold
// the registry, so none is left waiting.
void RemoteFiles::range_loop() {
  std::unique_lock<std::mutex> lock(state_->mu);
  for (;;) {
    state_->ranges_changed.wait(lock, [&] { return state_->stopping || !state_->ranges.empty(); });
    if (state_->stopping) return;
    std::packaged_task<Result<std::string>()> task = std::move(state_->ranges.front());
    state_->ranges.pop_front();
    ++state_->running_ranges;
    lock.unlock();
    task();  // never throws: the body is caught inside, a second call is impossible
    lock.lock();
  }
}

void RemoteFiles::prefetch(const std::vector<std::string>& paths, int threads) {
  if (fork_generation() != state_->generation) return;  // forked: the readers download for themselves
  std::lock_guard<std::mutex> lock(state_->mu);
  state_->queue.insert(state_->queue.end(), paths.begin(), paths.end());
  state_->changed.notify_all();
  for (int t = static_cast<int>(state_->prefetchers.size()); t < threads; ++t) {
    try {
      state_->prefetchers.emplace_back([this] { prefetch_loop(); });
    } catch (...) {
      break;  // fewer threads ahead, or none: the readers fetch for themselves
    }
  }
}

void RemoteFiles::prefetch_loop() {
  try {
    std::unique_lock<std::mutex> lock(state_->mu);
    for (;;) {
      state_->changed.wait(lock, [&] { return state_->stopping || state_->next < state_->queue.size(); });
      if (state_->stopping) return;
      const std::string path = state_->queue[state_->next++];
      auto it = state_->entries.find(normal(path));
      if (it == state_->entries.end()) continue;
      Entry* e = it->second.get();
      if (e->ever_read) continue;  // the readers got there first
      // Ahead by at most half the cache, so that what is downloaded ahead is still here when read.
      state_->changed.wait(lock, [&] {
        const uint64_t ahead = state_->unread + state_->ahead_in_flight;
        return state_->stopping || e->where != Entry::Where::kStore || ahead == 0 ||
               ahead + e->size <= cache_bytes_ / 2;
      });
      if (state_->stopping) return;
      if (e->where != Entry::Where::kStore || e->ever_read) continue;
      state_->ahead_in_flight += e->size;
      lock.unlock();
      (void)fetch_for(path, false);  // a failure is the reader's to report, when it tries again
      lock.lock();
      state_->ahead_in_flight -= e->size;
      state_->changed.notify_all();
    }
  } catch (...) {
    // A thread ahead that fails (no memory) leaves the reading to the readers.
  }
}

void RemoteFiles::add(const std::string& path, const std::string& uri, uint64_t size) {
  auto e = std::make_unique<Entry>();
  e->path = path;
  e->uri = uri;
  e->size = size;
  std::lock_guard<std::mutex> lock(state_->mu);
  state_->entries[normal(path)] = std::move(e);
}

bool RemoteFiles::holds(const std::string& path) const {
  std::lock_guard<std::mutex> lock(state_->mu);
  return state_->entries.count(normal(path)) != 0;
}

RemoteFiles::Pin& RemoteFiles::Pin::operator=(Pin&& o) noexcept {
  if (this != &o) {
    if (owner_) owner_->unpin(static_cast<Entry*>(entry_));
    owner_ = o.owner_;
    entry_ = o.entry_;
    o.owner_ = nullptr;
  }
  return *this;
}

RemoteFiles::Pin::~Pin() {
  if (owner_) owner_->unpin(static_cast<Entry*>(entry_));
}

Result<RemoteFiles::Pin> RemoteFiles::fetch(const std::string& path) { return fetch_for(path, true); }

Result<RemoteFiles::Pin> RemoteFiles::fetch_for(const std::string& path, bool reader) {
  std::unique_lock<std::mutex> lock(state_->mu);
  auto it = state_->entries.find(normal(path));
  if (it == state_->entries.end()) return Pin();
  Entry* e = it->second.get();
  state_->changed.wait(lock, [&] { return e->where != Entry::Where::kFetching; });
  if (e->where == Entry::Where::kHere) {
    ++e->pins;
    e->last_use = ++state_->clock;
    if (reader) e->ever_read = true;
    if (reader && !e->read) {
      e->read = true;
      state_->unread -= e->size;
      state_->changed.notify_all();  // room ahead
    }
    return Pin(this, e);
  }
  if (!reader && e->ever_read) return Pin();  // read and evicted meanwhile: not again ahead
  e->where = Entry::Where::kFetching;
  const std::string tmp = fmt::format("{}.ckpt-fetch-{}", e->path, ++state_->fetch_serial);
  lock.unlock();
  Status got = source_->download(e->uri, tmp, e->size, !reader);
  if (got.ok() && ::rename(tmp.c_str(), e->path.c_str()) != 0)
    got = Error(ErrorCode::kIOError, fmt::format("cannot place the download: {}", std::strerror(errno)))
              .with_file(e->path);
  if (!got.ok()) ::unlink(tmp.c_str());
  lock.lock();
  if (!got.ok()) {
    e->where = Entry::Where::kStore;
    state_->changed.notify_all();
    return got.error();
  }
  e->where = Entry::Where::kHere;
  e->pins = 1;
  e->last_use = ++state_->clock;
  e->read = reader;
  e->ever_read |= reader;
  if (!reader) {
    state_->unread += e->size;
    ++state_->stats.prefetched;
  }
  state_->cached += e->size;
  ++state_->stats.downloads;
  state_->stats.downloaded_bytes += e->size;
  state_->stats.peak_cached_bytes = std::max(state_->stats.peak_cached_bytes, state_->cached);
  state_->changed.notify_all();
  Pin pin(this, e);
  // Room for the next download: the least recently used files nobody reads go.
  // Files already read go first; a file downloaded ahead only when nothing else can.
  while (state_->cached > cache_bytes_) {
    Entry* oldest = nullptr;
    for (auto& [key, other] : state_->entries) {
      if (other->where != Entry::Where::kHere || other->pins != 0) continue;
      if (!oldest || (other->read && !oldest->read) ||
          (other->read == oldest->read && other->last_use < oldest->last_use))
        oldest = other.get();
    }
    if (!oldest) break;  // all pinned: over the bound until a reader lets go
    if (!make_placeholder(oldest->path, oldest->size, ++state_->fetch_serial).ok()) break;
    oldest->where = Entry::Where::kStore;
    state_->cached -= oldest->size;
    if (!oldest->read) state_->unread -= oldest->size;
    ++state_->stats.evictions;
  }
  return pin;
}

void RemoteFiles::unpin(Entry* e) {
  std::lock_guard<std::mutex> lock(state_->mu);
  --e->pins;
}

Status RemoteFiles::read_range(const std::string& path, uint64_t offset, uint64_t length, std::string* out) {
  std::unique_lock<std::mutex> lock(state_->mu);
  auto it = state_->entries.find(normal(path));
  if (it == state_->entries.end()) return Error(ErrorCode::kInvalidArgument, "not a file of the cache").with_file(path);
  Entry* e = it->second.get();
  if (e->where == Entry::Where::kHere) {
    // Pinned for the read: the rename of an eviction cannot swap the bytes mid-read.
    ++e->pins;
    e->last_use = ++state_->clock;
    Pin pin(this, e);
    lock.unlock();
    int fd = ::open(e->path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return Error(ErrorCode::kIOError, fmt::format("cannot open: {}", std::strerror(errno))).with_file(path);
    out->resize(length);
    uint64_t done = 0;
    while (done < length) {
      ssize_t n = ::pread(fd, out->data() + done, length - done, static_cast<off_t>(offset + done));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      done += static_cast<uint64_t>(n);
    }
    ::close(fd);
    out->resize(done);
    return Status::OK();
  }
  const std::string uri = e->uri;
  const uint64_t size = e->size;
  lock.unlock();
  Status got = source_->read_range(uri, offset, length, size, out);
  if (got.ok()) {
    std::lock_guard<std::mutex> relock(state_->mu);
    ++state_->stats.ranged_reads;
    state_->stats.ranged_bytes += out->size();
  }
  return got;
}

RemoteFileStats RemoteFiles::stats() const {
  std::lock_guard<std::mutex> lock(state_->mu);
  return state_->stats;
}

}  // namespace ckpt
