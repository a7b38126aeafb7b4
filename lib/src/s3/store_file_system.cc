// ckpt/file_system.h over an object store: objects read by ranges or downloaded into a bounded
// cache of whole files (support/remote_files.h), written by one PUT each; and the choice of a
// file system by a path's scheme.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <future>
#include <map>
#include <mutex>
#include <set>

#include <fmt/format.h>

#include "ckpt/file_system.h"
#include "ckpt/io.h"
#include "s3/credentials.h"
#include "s3/store_files.h"
#include "support/fork_generation.h"
#include "support/io_internal.h"

namespace ckpt {
namespace fs = std::filesystem;

namespace {

// Small reads are served from blocks that double while reads go on sequentially (kFirstBlock
// up to kLastBlock), so that a header costs one small request and a scan of small records few
// large ones. A read of kFirstBlock or more is fetched as asked, straight into the caller's
// buffer (a heap key-group region, an SST block run): no block is kept beside it. A block is
// let go once its last byte has been read, so a file read to its end holds no memory while it
// stays open (the readers keep the files of a subtask open), as a local file holds none.
//
// Once a scan shows (kAheadFrom bytes read in line), the bytes after what it has are asked for
// before it needs them, up to kAheadMost at a time, one range in flight: a store answers each
// request after a round trip (a few ms on loopback, tens on S3), and a scan that waits for each
// of its reads in turn spends most of its time waiting. What is read ahead becomes the block
// when the scan reaches it; a read elsewhere lets it go. The pages of a block that a scan has
// read past are given back as it goes: what a scan holds beside the range on its way is the part
// of the block it has yet to read, not the whole block.
class ObjectFile : public ReadableFile {
 public:
  static constexpr uint64_t kFirstBlock = 64 << 10;
  static constexpr uint64_t kLastBlock = 1 << 20;
  static constexpr uint64_t kAheadFrom = 256 << 10;
  static constexpr uint64_t kAheadMost = 1 << 20;
  static constexpr uint64_t kGiveBackLeast = 64 << 10;  // one system call per this many bytes read
  ObjectFile(std::shared_ptr<RemoteFiles> files, std::string cache_path, std::string name, uint64_t size,
             std::function<Result<std::string>()> whole)
      : files_(std::move(files)),
        cache_path_(std::move(cache_path)),
        name_(std::move(name)),
        size_(size),
        whole_(std::move(whole)) {}
  uint64_t size() const override { return size_; }

  Status read(uint64_t at, uint64_t len, std::string* out) const override {
    std::lock_guard<std::mutex> lock(mu_);
    const bool sequential =
        holds(at) || (ahead_.valid() && at >= ahead_at_ && at - ahead_at_ < ahead_len_) ||
        (read_end_ > 0 && at >= read_end_ && at - read_end_ <= kFirstBlock);
    run_ = sequential ? run_ + len : len;
    if (!sequential) ahead_ = {};  // not where this reader goes
    out->clear();
    uint64_t from = at;
    const uint64_t end = len > UINT64_MAX - at ? UINT64_MAX : at + len;
    for (;;) {
      if (holds(from)) {
        const uint64_t n = std::min<uint64_t>(end - from, block_.size() - (from - block_at_));
        out->append(block_, from - block_at_, n);
        from += n;
      }
      if (from == end) break;
      if (take_ahead(from)) continue;
      const uint64_t need = end - from;
      next_block_ = sequential ? std::min(next_block_ * 2, kLastBlock) : kFirstBlock;
      const uint64_t want = from > size_ ? 0 : std::min(need >= kFirstBlock ? need : next_block_, size_ - from);
      drop_block();  // let go before the next arrives: one block's memory at a time
      if (out->empty() && want == need) {
        // Fetched as asked, into the caller's buffer.
        CKPT_RETURN_IF_ERROR(fetch(from, want, out));
        if (out->size() < need) return shrank(from + out->size());
      } else {
        std::string got;
        CKPT_RETURN_IF_ERROR(fetch(from, want, &got));
        if (got.size() < need) return shrank(from + got.size());
        out->append(got, 0, need);
        if (got.size() > need) set_block(std::move(got), from);
      }
      break;
    }
    served(at + len);
    if (sequential) read_on_ahead();
    return Status::OK();
  }

  Result<std::string> local_path() const override {
    std::lock_guard<std::mutex> lock(mu_);
    if (!pinned_) {
      CKPT_ASSIGN_OR_RETURN(pin_, files_->fetch(cache_path_));
      pinned_ = true;
    }
    return cache_path_;
  }
  bool is_copy() const override { return true; }

 private:
  std::shared_ptr<RemoteFiles> files_;
  std::string cache_path_, name_;
  uint64_t size_;
  std::function<Result<std::string>()> whole_;
  mutable std::mutex mu_;
  mutable RemoteFiles::Pin pin_;
  mutable bool pinned_ = false;
  mutable std::string block_;
  mutable uint64_t block_at_ = 0;
  mutable uint64_t block_gone_ = 0;  // the block's first bytes, read past and given back
  mutable uint64_t next_block_ = kFirstBlock;
  mutable uint64_t read_end_ = 0;  // where the last read ended: a read from there goes on sequentially
  mutable uint64_t run_ = 0;       // bytes read in line up to the last read's end
  mutable std::future<Result<std::string>> ahead_;  // bytes [ahead_at_, + ahead_len_) on their way
  mutable uint64_t ahead_at_ = 0;
  mutable uint64_t ahead_len_ = 0;

  // Under mu_: whether the block holds the byte at `at`.
  bool holds(uint64_t at) const {
    return at >= block_at_ && at - block_at_ >= block_gone_ && at - block_at_ < block_.size();
  }
  void set_block(std::string bytes, uint64_t at) const {
    block_ = std::move(bytes);
    block_at_ = at;
    block_gone_ = 0;
  }
  void drop_block() const { set_block(std::string(), 0); }

  // Under mu_: the whole pages of the block before `upto` (bytes into it) go back to the system
  // (their contents are not needed again: a read there fetches them anew, as holds() says). The
  // block stays allocated: the allocator may write its own bookkeeping into these pages when it
  // frees the block, which then finds them zeroed, as a fresh page is.
  void give_back_before(uint64_t upto) const {
    static const uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
    const uintptr_t base = reinterpret_cast<uintptr_t>(block_.data());
    const uintptr_t from = (base + block_gone_ + page - 1) / page * page;
    const uintptr_t to = (base + upto) / page * page;
    if (to <= from || to - from < kGiveBackLeast) return;
    if (madvise(reinterpret_cast<void*>(from), to - from, MADV_DONTNEED) == 0) block_gone_ = to - base;
  }

  // Under mu_: the bytes read ahead become the block if they hold `at` and came (else they go,
  // and the read asks again, to fail with its own error if it fails).
  bool take_ahead(uint64_t at) const {
    if (!ahead_.valid()) return false;
    std::future<Result<std::string>> ahead = std::move(ahead_);
    if (at < ahead_at_ || at - ahead_at_ >= ahead_len_) return false;
    Result<std::string> got = ahead.get();
    if (!got.ok() || got->size() <= at - ahead_at_) return false;
    set_block(std::move(got).value(), ahead_at_);
    return true;
  }

  // Under mu_, after a read in line: the bytes after the block (or the read) asked for, unless
  // already on their way, the scan is too short yet to be one, or the file ends there.
  void read_on_ahead() const {
    if (ahead_.valid() || run_ < kAheadFrom) return;
    const uint64_t from = block_.empty() ? read_end_ : std::max(read_end_, block_at_ + block_.size());
    if (from >= size_) return;
    uint64_t want = std::min({run_, kAheadMost, size_ - from});
    if (size_ - from - want < kFirstBlock) want = size_ - from;  // no small request for the tail
    ahead_ = files_->read_range_ahead(cache_path_, from, want);
    ahead_at_ = from;
    ahead_len_ = want;
  }

  // Under mu_: bytes [from, from + want) into `into`, by the one GET of the whole object when
  // that is what is asked (checked in full), else by a range.
  Status fetch(uint64_t from, uint64_t want, std::string* into) const {
    Status got;
    if (whole_ && from == 0 && want == size_) {
      Result<std::string> whole = whole_();
      if (whole.ok()) *into = std::move(whole).value();
      got = whole.ok() ? Status::OK() : Status(std::move(whole).error());
    } else {
      got = files_->read_range(cache_path_, from, want, into);
    }
    if (got.ok()) return got;
    Error e = std::move(got).error();
    if (!e.offset) e.offset = from;  // where in the file the read was going
    if (e.file.empty()) e.file = name_;
    return e;
  }
  Error shrank(uint64_t at) const {
    return Error(ErrorCode::kCorruption, "state file shrank while being read", at).with_file(name_);
  }

  // Under mu_: the read up to `end` is done; a block read to its last byte is let go, the pages
  // of one read partly given back.
  void served(uint64_t end) const {
    read_end_ = end;
    if (block_.empty() || end <= block_at_) return;
    if (end >= block_at_ + block_.size()) {
      drop_block();
    } else {
      give_back_before(end - block_at_);
    }
  }
};

constexpr std::string_view kScratchPrefix = "ckpt-s3-";

// "bucket/key" of a URI, for paths in the cache.
std::string cache_key_of(const std::string& uri) { return uri.substr(uri.find("://") + 3); }

std::string without_trailing_slashes(std::string s) {
  while (s.size() > 1 && s.back() == '/') s.pop_back();
  return s;
}

class StoreFileSystem : public FileSystem {
 public:
  StoreFileSystem(std::shared_ptr<ObjectStore> store, const StoreFileSystemOptions& options)
      : store_(std::move(store)), options_(options) {}
  ~StoreFileSystem() override {
    files_.reset();
    remove_store_scratch(scratch_);
  }

  Result<std::shared_ptr<ReadableFile>> open(const std::string& path) override {
    const std::string uri = canonical_object_uri(without_trailing_slashes(path));
    CKPT_ASSIGN_OR_RETURN(FileInfo info, stat_object(uri));
    std::lock_guard<std::mutex> lock(mu_);
    CKPT_ASSIGN_OR_RETURN(std::string cached, cache_path(uri, info.size));
    return object_file(files_, cached, path, info.size, [store = store_, uri] { return store->read(uri); });
  }

  Result<FileInfo> stat(const std::string& path) override {
    const std::string uri = canonical_object_uri(without_trailing_slashes(path));
    {
      std::lock_guard<std::mutex> lock(mu_);
      auto it = known_.find(uri);
      if (it != known_.end()) return it->second;
    }
    // A prefix with objects under it is a directory (a snapshot is named by one: one listing
    // answers for it and its files, and for the resolvers' list() of it that follow).
    bool empty = true;
    CKPT_ASSIGN_OR_RETURN(std::vector<FileInfo> inside, listing(uri, &empty));
    if (!empty) {
      FileInfo dir;
      dir.path = path;
      dir.directory = true;
      dir.regular = false;
      return dir;
    }
    // A bucket is no object (a HEAD of it answers for the bucket).
    if (uri.find('/', uri.find("://") + 3) != std::string::npos) {
      Result<FileInfo> object = stat_object(uri);
      if (object.ok() || object.error().code != ErrorCode::kNotFound) return object;
    }
    return Error(ErrorCode::kNotFound, "no objects under this prefix").with_file(without_trailing_slashes(path) + "/");
  }

  Result<std::vector<FileInfo>> list(const std::string& path) override {
    return listing(canonical_object_uri(without_trailing_slashes(path)));
  }

  Status write(const std::string& path, std::string_view bytes) override {
    const std::string uri = canonical_object_uri(path);
    CKPT_RETURN_IF_ERROR(store_->write(uri, bytes));
    std::lock_guard<std::mutex> lock(mu_);
    forget(uri);
    return Status::OK();
  }

  Status write_from_local(const std::string& path, const std::string& local_path) override {
    const std::string uri = canonical_object_uri(path);
    CKPT_RETURN_IF_ERROR(store_->upload(local_path, uri));
    std::lock_guard<std::mutex> lock(mu_);
    forget(uri);
    return Status::OK();
  }

  Status remove(const std::string& path) override {
    const std::string uri = canonical_object_uri(path);
    CKPT_RETURN_IF_ERROR(store_->remove({uri}, {}));
    std::lock_guard<std::mutex> lock(mu_);
    forget(uri);
    return Status::OK();
  }

  void will_read(const std::vector<std::string>& paths) override {
    std::vector<std::string> order;
    std::lock_guard<std::mutex> lock(mu_);
    for (const std::string& p : paths) {
      auto it = known_.find(canonical_object_uri(p));
      if (it == known_.end()) continue;  // not listed: read when asked for
      Result<std::string> cached = cache_path(it->first, it->second.size);
      if (cached.ok()) order.push_back(std::move(cached).value());
    }
    if (files_ && !order.empty()) files_->prefetch(order, options_.connections);
  }

  const std::shared_ptr<ObjectStore>& object_store() const { return store_; }

  // The whole object: one GET, checked in full (the one read_ahead() started, if it did).
  Result<std::string> read_whole(const std::string& path, uint64_t max_size) {
    const std::string uri = canonical_object_uri(path);
    std::shared_future<Result<std::string>> ahead = take_ahead(uri);
    CKPT_ASSIGN_OR_RETURN(FileInfo info, stat_object(uri));
    if (info.size > max_size)
      return Error(ErrorCode::kInvalidArgument,
                   fmt::format("file of {} bytes, more than the {} read whole", info.size, max_size))
          .with_file(path);
    if (ahead.valid()) {
      // Checked as any whole read; the listing's size says it is the object as listed.
      const Result<std::string>& got = ahead.get();
      if (got.ok() && got->size() == info.size) return got;
    }
    return store_->read(uri);
  }

  // Starts the whole read of `uri` that read_whole() is about to make, unless what is known of
  // it already makes that read the next request anyway (it was listed).
  void read_ahead(const std::string& path) {
    const std::string uri = canonical_object_uri(path);
    std::lock_guard<std::mutex> lock(mu_);
    if (known_.count(uri) || ahead_.count(uri)) return;
    ahead_[uri] = std::async(std::launch::async, [store = store_, uri] { return store->read(uri); }).share();
  }

  StoreFileSystemStats stats() const {
    std::lock_guard<std::mutex> lock(mu_);
    return store_stats(store_->requests(), files_ ? files_->stats() : RemoteFileStats());
  }

 private:
  // The files and directories directly under the directory `uri` (one listing); `empty` says
  // whether nothing at all was there (a "directory" marker alone makes a directory).
  Result<std::vector<FileInfo>> list_level(const std::string& uri, bool* empty = nullptr) {
    std::vector<std::string> prefixes;
    CKPT_ASSIGN_OR_RETURN(std::vector<StoredObject> inside, store_->list_level(uri + "/", &prefixes));
    remember(inside);
    if (empty) *empty = inside.empty() && prefixes.empty();
    std::vector<FileInfo> out;
    for (const StoredObject& o : inside) {
      if (o.uri.back() == '/') continue;  // a "directory" marker
      FileInfo f;
      f.path = o.uri;
      f.size = o.size;
      f.modified = o.last_modified;
      out.push_back(std::move(f));
    }
    for (const std::string& p : prefixes) {
      FileInfo d;
      d.path = without_trailing_slashes(p);
      d.directory = true;
      d.regular = false;
      out.push_back(std::move(d));
    }
    return out;
  }

  // The listing of the directory `uri`: one made in the last kListingReuse through this file
  // system, else a new one. A command opens a snapshot's directory several times over (found,
  // checked, each resolver's lookups): one LIST answers them all, while a process that stays
  // (a query session) sees what changed in the store soon after.
  static constexpr auto kListingReuse = std::chrono::seconds(10);
  Result<std::vector<FileInfo>> listing(const std::string& uri, bool* empty = nullptr) {
    const auto now = std::chrono::steady_clock::now();
    {
      std::lock_guard<std::mutex> lock(mu_);
      auto it = levels_.find(uri);
      if (it != levels_.end() && now - it->second.at < kListingReuse) {
        if (empty) *empty = it->second.empty;
        return it->second.files;
      }
    }
    Level level;
    level.at = now;
    CKPT_ASSIGN_OR_RETURN(level.files, list_level(uri, &level.empty));
    if (empty) *empty = level.empty;
    std::lock_guard<std::mutex> lock(mu_);
    return (levels_[uri] = std::move(level)).files;
  }

  std::shared_future<Result<std::string>> take_ahead(const std::string& uri) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = ahead_.find(uri);
    if (it == ahead_.end()) return {};
    std::shared_future<Result<std::string>> f = std::move(it->second);
    ahead_.erase(it);
    return f;
  }

  // Under mu_: what is known of `uri` and the listings of the directories above it (a new
  // subdirectory shows in its parent's) are out of date.
  void forget(const std::string& uri) {
    known_.erase(uri);
    ahead_.erase(uri);
    const size_t bucket_end = uri.find('/', uri.find("://") + 3);
    for (size_t slash = uri.rfind('/'); slash != std::string::npos && slash >= bucket_end;
         slash = uri.rfind('/', slash - 1)) {
      levels_.erase(uri.substr(0, slash));
      if (slash == bucket_end) break;
    }
  }

  // What a listing said of the object, else a HEAD.
  Result<FileInfo> stat_object(const std::string& uri) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      auto it = known_.find(uri);
      if (it != known_.end()) return it->second;
    }
    CKPT_ASSIGN_OR_RETURN(StoredObject o, store_->stat(uri));
    remember({o});
    FileInfo f;
    f.path = uri;
    f.size = o.size;
    f.modified = o.last_modified;
    return f;
  }

  void remember(const std::vector<StoredObject>& objects) {
    std::lock_guard<std::mutex> lock(mu_);
    for (const StoredObject& o : objects) {
      FileInfo& f = known_[o.uri];
      f.path = o.uri;
      f.size = o.size;
      f.modified = o.last_modified;
    }
  }

  // Where the cache keeps `uri`'s bytes once downloaded (the cache and its directory made on
  // first use). Under mu_.
  Result<std::string> cache_path(const std::string& uri, uint64_t size) {
    if (!files_) {
      CKPT_ASSIGN_OR_RETURN(scratch_, create_store_scratch());
      files_ = std::make_shared<RemoteFiles>(std::make_shared<StoreSource>(store_, options_.connections),
                                             options_.cache_bytes);
    }
    std::string path = scratch_.root + "/" + cache_key_of(uri);
    if (!files_->holds(path)) {
      std::error_code ec;
      fs::create_directories(fs::path(path).parent_path(), ec);
      if (ec) return Error(ErrorCode::kIOError, "cannot create the cache directory: " + ec.message()).with_file(path);
      files_->add(path, uri, size);
    }
    return path;
  }

  std::shared_ptr<ObjectStore> store_;
  StoreFileSystemOptions options_;
  mutable std::mutex mu_;
  StoreScratch scratch_;
  std::shared_ptr<RemoteFiles> files_;
  std::map<std::string, FileInfo> known_;  // by canonical URI
  // Whole reads started by read_ahead(), until read_whole() takes them (by canonical URI).
  std::map<std::string, std::shared_future<Result<std::string>>> ahead_;
  struct Level {
    std::chrono::steady_clock::time_point at;
    std::vector<FileInfo> files;
    bool empty = true;  // nothing at all, not even a "directory" marker
  };
  std::map<std::string, Level> levels_;  // listings of directories, by canonical URI
};

std::mutex g_store_mu;
StoreFileSystemOptions g_store_options;
std::shared_ptr<StoreFileSystem> g_store;
std::string g_store_environment;  // settings_environment() when g_store was opened
unsigned g_store_generation = 0;  // fork_generation() when it was opened

// Stagings and caches of runs that were killed (no destructor ran): each a "ckpt-s3-*"
// directory in `tmp` whose marker nobody holds locked. A live run's, and whatever lacks the
// marker, stay.
void remove_abandoned_scratch(const std::string& tmp) {
  std::error_code ec;
  for (fs::directory_iterator it(tmp, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.size() > kScratchPrefix.size() && name.starts_with(kScratchPrefix))
      remove_temp_if_abandoned(it->path().string());
  }
}

}  // namespace

Result<StoreScratch> create_store_scratch() {
  std::error_code ec;
  const std::string tmp = fs::temp_directory_path(ec).string();
  // What killed runs left, up to their --cache-size each, goes before this run adds its own.
  if (!ec) remove_abandoned_scratch(tmp);
  std::string tmpl = tmp + "/" + std::string(kScratchPrefix) + "XXXXXX";
  if (ec || !::mkdtemp(tmpl.data()))
    return Error(ErrorCode::kIOError, "cannot create a staging directory").with_file(tmpl);
  StoreScratch s;
  // Canonical: writers name their files by absolute paths (a chain's shared/), and the upload
  // finds them by this spelling.
  s.root = fs::weakly_canonical(tmpl, ec).string();
  if (ec) s.root = tmpl;
  Result<int> lock = hold_temp_lock(s.root);
  if (!lock.ok()) {
    fs::remove_all(s.root, ec);
    return std::move(lock).error();
  }
  s.lock_fd = lock.value();
  s.generation = fork_generation();
  return s;
}

void remove_store_scratch(StoreScratch& scratch) {
  std::error_code ec;
  if (!scratch.root.empty() && scratch.generation == fork_generation()) fs::remove_all(scratch.root, ec);
  if (scratch.lock_fd >= 0) ::close(scratch.lock_fd);
  scratch = StoreScratch();
}

StoreFileSystemStats store_stats(uint64_t requests, const RemoteFileStats& f) {
  StoreFileSystemStats s;
  s.requests = requests;
  s.ranged_reads = f.ranged_reads;
  s.ranged_bytes = f.ranged_bytes;
  s.downloads = f.downloads;
  s.downloaded_bytes = f.downloaded_bytes;
  s.evictions = f.evictions;
  s.peak_cached_bytes = f.peak_cached_bytes;
  s.prefetched = f.prefetched;
  return s;
}

std::shared_ptr<ReadableFile> object_file(std::shared_ptr<RemoteFiles> files, std::string cache_path, std::string name,
                                          uint64_t size, std::function<Result<std::string>()> whole) {
  return std::make_shared<ObjectFile>(std::move(files), std::move(cache_path), std::move(name), size, std::move(whole));
}

Result<std::shared_ptr<FileSystem>> open_store_file_system(const StoreFileSystemOptions& options) {
  CKPT_ASSIGN_OR_RETURN(std::shared_ptr<ObjectStore> store, ObjectStore::open(options.store));
  return std::shared_ptr<FileSystem>(std::make_shared<StoreFileSystem>(std::move(store), options));
}

void set_store_file_system_options(const StoreFileSystemOptions& options) {
  std::lock_guard<std::mutex> lock(g_store_mu);
  g_store_options = options;
  g_store.reset();
}

// The process's store file system, opened on first use, and again when the environment it was
// resolved from changed (a Python session that sets AWS_PROFILE or AWS_ENDPOINT_URL after its
// first open; handles opened before keep the store they hold), or in a child forked after it
// was opened: the parent's is left untouched there (its threads are not in the child, and a
// lock one of them held at the fork stays held), its handles the parent's. Under g_store_mu.
static Result<std::shared_ptr<StoreFileSystem>> process_store() {
  std::string environment = s3::settings_environment();
  if (g_store && g_store_generation != fork_generation()) {
    new std::shared_ptr<StoreFileSystem>(std::move(g_store));  // never destroyed in the child
    g_store.reset();
  }
  if (!g_store || environment != g_store_environment) {
    CKPT_ASSIGN_OR_RETURN(std::shared_ptr<ObjectStore> store, ObjectStore::open(g_store_options.store));
    g_store = std::make_shared<StoreFileSystem>(std::move(store), g_store_options);
    g_store_environment = std::move(environment);
    g_store_generation = fork_generation();
  }
  return g_store;
}

Result<std::shared_ptr<FileSystem>> file_system_for(std::string_view path) {
  if (!is_object_store_uri(path)) return local_file_system();
  std::lock_guard<std::mutex> lock(g_store_mu);
  CKPT_ASSIGN_OR_RETURN(std::shared_ptr<StoreFileSystem> store, process_store());
  return std::shared_ptr<FileSystem>(std::move(store));
}

Result<std::shared_ptr<ObjectStore>> object_store_for(std::string_view uri) {
  if (!is_object_store_uri(uri))
    return Error(ErrorCode::kInvalidArgument, "not an object-store URI").with_file(std::string(uri));
  std::lock_guard<std::mutex> lock(g_store_mu);
  CKPT_ASSIGN_OR_RETURN(std::shared_ptr<StoreFileSystem> store, process_store());
  return store->object_store();
}

Result<std::string> read_through_file_system(const std::string& path, uint64_t max_size) {
  if (!is_object_store_uri(path)) return read_whole_file(path, max_size);
  std::shared_ptr<StoreFileSystem> store;
  {
    std::lock_guard<std::mutex> lock(g_store_mu);
    CKPT_ASSIGN_OR_RETURN(store, process_store());
  }
  return store->read_whole(path, max_size);
}

void read_ahead_through_file_system(const std::string& path) {
  if (!is_object_store_uri(path)) return;
  std::shared_ptr<StoreFileSystem> store;
  {
    std::lock_guard<std::mutex> lock(g_store_mu);
    Result<std::shared_ptr<StoreFileSystem>> opened = process_store();
    if (!opened.ok()) return;  // the read that follows says why
    store = std::move(opened).value();
  }
  store->read_ahead(path);
}

int store_connections() {
  std::lock_guard<std::mutex> lock(g_store_mu);
  return g_store_options.connections;
}

StoreFileSystemStats store_file_system_stats() {
  std::lock_guard<std::mutex> lock(g_store_mu);
  return g_store ? g_store->stats() : StoreFileSystemStats();
}

}  // namespace ckpt
