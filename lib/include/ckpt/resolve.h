// ckpt/resolve.h - finding a snapshot on disk and every file its `_metadata` refers to.
//
// Rules (formats/metadata.md §10 and `ckpt-inspect(1)`):
// - A relative handle (type 6) names a file in the directory of `_metadata`. Flink writes a bare
//   file name there; a path that is absolute or has a ".." component is never followed.
// - An absolute handle (type 2) or a segment handle's physical file (type 15) is a URI. The
//   `--remap PREFIX=DIR` rule with the longest matching prefix maps it to a local path; a
//   `file:` URI or a plain absolute path is its own local path; an `s3://` URI is its object,
//   read through the store's file system (ckpt/file_system.h); if the file
//   is not found there, it is looked up by base name beside `_metadata` (a snapshot copied off
//   its cluster keeps its files together).
// - An inline handle (type 1) is never a file, even when its name looks like a path.
// - What is found must be a regular file to be read; a FIFO, device, socket or directory in
//   its place is found, flagged, and refused by whatever would open it.
// - A file (or a directory on its way) that is a symbolic link leading out of the directory it
//   was looked up in, the snapshot directory for a relative handle or a base name, a --remap
//   target, the job directory for an absolute path into it, is refused the same way, unless
//   follow_symlinks(): a link to /etc/passwd in a snapshot from elsewhere is not state. Links
//   that stay inside are followed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <unordered_map>
#include <vector>

#include "ckpt/error.h"
#include "ckpt/export.h"
#include "ckpt/metadata.h"
#include "ckpt/walk.h"

namespace ckpt {

class PageStock;  // memory handed from one owner to another (lib/src/support/huge_pages.h)

// A snapshot named by the user: its directory or its `_metadata` file.
struct CKPT_API SnapshotLocation {
  std::string metadata_path;  // the `_metadata` file (as the user spelled the snapshot)
  std::string directory;      // where relative handles point
};

// kNotFound if `path` does not exist or is a directory without a `_metadata`; for a directory
// of snapshots (a job's `chk-N`) the error names the ones it holds.
CKPT_API Result<SnapshotLocation> locate_snapshot(const std::string& path);

// The subdirectories of `directory` that hold a `_metadata` (a job's `chk-N`, savepoints), by
// name: `chk-N` by N, then the others by name; empty when none (or it cannot be read).
CKPT_API std::vector<std::string> snapshots_in(const std::string& directory);

// One PREFIX=DIR (or OLD=NEW) rule. Parsing splits at the first '='.
struct CKPT_API PrefixRule {
  std::string prefix;
  std::string replacement;
};
// kInvalidArgument unless `spec` is "PREFIX=VALUE" with a non-empty PREFIX. `flag` names the
// option in the message ("--remap").
CKPT_API Result<PrefixRule> parse_prefix_rule(const std::string& spec, const char* flag);
// Every spec of a repeatable option, in order; the first bad one is the error.
CKPT_API Result<std::vector<PrefixRule>> parse_prefix_rules(const std::vector<std::string>& specs, const char* flag);
// How a rule's prefix is compared with a URI. Both match whole path components only.
enum class PrefixMatch {
  kText,       // as spelled: relocate rewrites URIs and must give back the bytes it was given
  kLocalPath,  // local paths however spelled: `/x`, `file:/x`, `file:///x`, `file://localhost/x`
};
// The rule with the longest prefix of `uri` (the longest stretch of `uri` covered), or null.
// File resolution (--remap) matches kLocalPath: the rule `/x`, `file:/x` or `file:///x` finds the
// URIs `/x/a`, `file:/x/a`, `file:///x/a` and `file://localhost/x/a` alike.
CKPT_API const PrefixRule* longest_prefix_rule(const std::vector<PrefixRule>& rules, std::string_view uri,
                                      PrefixMatch match = PrefixMatch::kText);
// The indices of `rules` that some absolute file reference of `m` matches (relative handles
// name no prefix), in order.
CKPT_API std::vector<size_t> used_prefix_rules(const Metadata& m, const std::vector<PrefixRule>& rules,
                                      PrefixMatch match = PrefixMatch::kLocalPath);
// `replacement` + the rest of `uri` after the rule's prefix, with exactly one '/' between
// them when either side has one.
CKPT_API std::string apply_prefix_rule(const PrefixRule& rule, std::string_view uri, PrefixMatch match = PrefixMatch::kText);

// The local path that a `file:` URI or a scheme-less absolute path stands for
// ("file:/a", "file:///a", "file://localhost/a" -> "/a"); nullopt for other schemes.
CKPT_API std::optional<std::string> local_path_of_uri(std::string_view uri);

// kCorruption ("relative handle path '../x' leaves the snapshot directory: ...") unless `path`,
// as a relative handle (type 6) stores it, stays inside the snapshot directory. Flink stores a
// bare file name there (RelativeFileStateHandle: the file's name in the checkpoint directory);
// a path that is absolute or has a ".." component can only lead to a file elsewhere. Symbolic
// links inside the snapshot directory are followed: the directory is the user's, the path is
// the snapshot's.
CKPT_API Status check_relative_path(std::string_view path);
// The same, with the error naming `metadata_path` and the handle's operator (hex) and subtask
// (-1: the coordinator).
CKPT_API Status check_relative_path_at(std::string_view path, const std::string& metadata_path,
                              const std::string& operator_id, int32_t subtask);
// check_relative_path_at() of every relative handle of `m`: the first that fails.
CKPT_API Status check_relative_paths(const Metadata& m, const std::string& metadata_path);

// Whether FileResolvers made from now on follow symbolic links out of where they look (the
// process's setting, off by default; `ckpt --follow-symlinks` turns it on for its command).
CKPT_API void set_follow_symlinks(bool follow);
CKPT_API bool follow_symlinks();

// Where a file is referenced from.
struct CKPT_API FileReference {
  uint32_t operator_index = 0;
  int32_t subtask = -1;
  HandleSlot slot = HandleSlot::kManagedKeyed;
  StreamRole role = StreamRole::kData;
  std::string local_name;  // RocksDB name of a shared / private file, else empty
};

// Every file a snapshot references, once.
struct CKPT_API ReferencedFile {
  std::string uri;          // exactly as stored (relative path for type 6)
  uint8_t handle_type = 0;  // 2, 6 or 15 (of the first reference)
  std::optional<std::string> path;  // where it was found, or nullopt
  // Bytes the snapshot needs: the stored state size (largest if references disagree), or for
  // segments the largest end offset; -1 if unknown.
  int64_t size = -1;
  bool exists = false;
  uint64_t actual_size = 0;  // meaningful when exists
  // Why the file is not read although something may stand there: a relative path that leaves
  // the snapshot directory, a path that is not a regular file or a symbolic link out of the
  // snapshot (`path` says where), or a RocksDB name that is not a plain file name
  // (format/local_names.h). Empty
  // when nothing was refused; exists is false when something was.
  std::string refused;
  // An absolute handle's file found outside the job directory and every --remap target
  // (FileResolver::Found::outside).
  bool outside = false;
  std::vector<FileReference> references;

  bool is_short() const { return exists && size >= 0 && actual_size < static_cast<uint64_t>(size); }
};

// Resolves URIs against one snapshot directory, caching directory listings so that a snapshot
// with a million references costs one readdir per directory, not a stat per file.
class CKPT_API FileResolver {
 public:
  FileResolver(std::string directory, std::vector<PrefixRule> remap);
  ~FileResolver();
  FileResolver(const FileResolver&) = delete;
  FileResolver& operator=(const FileResolver&) = delete;

  struct Found {
    std::string path;
    uint64_t size = 0;  // 0 unless regular
    // False for a FIFO, device, socket or directory: nothing may open it (check_regular_input()
    // says what it is). A regular file is preferred wherever the rules offer several places.
    bool regular = true;
    // An absolute handle's file whose directory lies, lexically, neither in the job directory
    // (the parent of the snapshot directory: shared/, taskowned/, chk-*) nor in a --remap
    // target. Flink stores absolute paths into checkpoint storage that may since have moved,
    // so this is worth a warning, not an error.
    bool outside = false;
    // Set (and `regular` false) when the path leads through a symbolic link out of the directory
    // it was looked up in and links are not followed: why, naming the path and the link's
    // target. Nothing may open it.
    std::string escape;
    // Not OK (and `regular` false) when the directory the file would be in could not be listed
    // (an object store not answering, a directory not readable): why. Nothing is known of the
    // file; it is not missing for that.
    Status unlisted;
    // OK when the file may be opened; else why not: `unlisted`, the escape, or what
    // check_regular_input() says.
    Status usable() const;
  };
  // Where the file of a type-2/6/15 handle's `uri` is, or nullopt: nothing there, or a relative
  // path that check_relative_path() refuses.
  std::optional<Found> find(uint8_t handle_type, const std::string& uri);
  // The local path a URI maps to by the rules alone (remap, then `file:` or a staged object),
  // without looking.
  std::optional<std::string> candidate(std::string_view uri) const;
  // The parent of the snapshot directory, absolute and lexically normal.
  const std::string& job_directory() const { return job_dir_; }

 private:
  // `root`: the directory the file must not leave through a link, `root_name` what it is; empty:
  // the job directory or the --remap target the file lies in, else its own directory.
  std::optional<Found> lookup(std::string_view path, bool absolute_handle, std::string_view root = {},
                              const char* root_name = "");
  bool outside_dir(std::string_view dir) const;
  struct Cache;
  std::string directory_;
  std::vector<PrefixRule> remap_;
  std::string job_dir_;
  std::vector<std::string> remap_dirs_;  // the rules' targets, absolute and lexically normal
  bool follow_ = false;                  // follow_symlinks() when made
  std::unique_ptr<Cache> cache_;
};

// Every file a snapshot references, once, in order of first reference: what ReferencedFile
// says, stored flat. At millions of files a struct per file with its own strings and reference
// vector cost three allocations and ~350 bytes each, more than the `_metadata` they came from;
// here the strings live in one arena that never moves and the references in one vector, each
// file's chained from the file in the order they were added. Elements are views, valid as long
// as the table.
class CKPT_API FileTable {
 public:
  struct Reference {  // FileReference, viewed
    uint32_t operator_index = 0;
    int32_t subtask = -1;
    HandleSlot slot = HandleSlot::kManagedKeyed;
    StreamRole role = StreamRole::kData;
    std::string_view local_name;
  };
  class References {  // a file's references, first reference first
   public:
    class iterator {
     public:
      using value_type = Reference;
      using difference_type = std::ptrdiff_t;
      iterator() = default;
      Reference operator*() const { return t_->reference(i_); }
      iterator& operator++() {
        i_ = t_->refs_[i_].next;
        return *this;
      }
      iterator operator++(int) {
        iterator old = *this;
        ++*this;
        return old;
      }
      bool operator==(const iterator& o) const { return i_ == o.i_; }

     private:
      friend class References;
      iterator(const FileTable* t, uint32_t i) : t_(t), i_(i) {}
      const FileTable* t_ = nullptr;
      uint32_t i_ = 0;
    };
    iterator begin() const { return {t_, first_}; }
    iterator end() const { return {t_, kNone}; }
    size_t size() const { return count_; }
    bool empty() const { return count_ == 0; }
    Reference front() const { return t_->reference(first_); }

   private:
    friend class FileTable;
    References(const FileTable* t, uint32_t first, uint32_t count) : t_(t), first_(first), count_(count) {}
    const FileTable* t_;
    uint32_t first_;
    uint32_t count_;
  };
  struct File {  // ReferencedFile, viewed
    std::string_view uri;
    uint8_t handle_type = 0;
    std::optional<std::string_view> path;
    int64_t size = -1;
    bool exists = false;
    uint64_t actual_size = 0;
    std::string_view refused;
    bool outside = false;
    References references;

    bool is_short() const { return exists && size >= 0 && actual_size < static_cast<uint64_t>(size); }
  };
  class iterator {
   public:
    using value_type = File;
    using difference_type = std::ptrdiff_t;
    iterator() = default;
    File operator*() const { return (*t_)[i_]; }
    iterator& operator++() {
      ++i_;
      return *this;
    }
    iterator operator++(int) {
      iterator old = *this;
      ++i_;
      return old;
    }
    bool operator==(const iterator& o) const { return i_ == o.i_; }

   private:
    friend class FileTable;
    iterator(const FileTable* t, size_t i) : t_(t), i_(i) {}
    const FileTable* t_ = nullptr;
    size_t i_ = 0;
  };

  FileTable() = default;
  FileTable(FileTable&&) = default;
  FileTable& operator=(FileTable&&) = default;

  size_t size() const { return files_.size(); }
  bool empty() const { return files_.empty(); }
  File operator[](size_t i) const;
  iterator begin() const { return {this, 0}; }
  iterator end() const { return {this, files_.size()}; }

 private:
  friend class FileCollector;
  static constexpr uint32_t kNone = UINT32_MAX;
  struct Record {
    const char* uri = nullptr;      // arena strings: a 4-byte length, then the bytes
    const char* path = nullptr;     // null: not found
    const char* refused = nullptr;  // null: nothing refused
    int64_t size = -1;
    uint64_t actual_size = 0;
    uint32_t first_ref = kNone;
    uint32_t last_ref = kNone;
    uint32_t ref_count = 0;
    uint8_t handle_type = 0;
    bool exists = false;
    bool outside = false;
    bool bad_name = false;  // some reference's RocksDB name is not a plain file name
  };
  struct Ref {
    uint32_t operator_index;
    int32_t subtask;
    HandleSlot slot;
    StreamRole role;
    uint32_t local_name;  // into names_; 0: none
    uint32_t next;        // the file's next reference, or kNone
  };
  Reference reference(uint32_t i) const;
  void take_pages_from(PageStock* stock);
  static std::string_view view(const char* s);
  const char* store(std::string_view s) { return strings_.store(s); }
  uint32_t name_id(std::string_view name);

  // Memory for the table, taken from the kernel in runs that grow from 256 KiB to 32 MiB, each
  // advised to use huge pages (support/huge_pages.h), and given back all at once: a table of two
  // million files faulted in its fresh memory 4 KiB at a time, a fifth of inspect's time. Not
  // shared between threads: each of the table's element lists and arenas has its own.
  class Pages {
   public:
    Pages() = default;
    Pages(Pages&& o) noexcept;
    Pages& operator=(Pages&& o) noexcept;
    ~Pages();
    // `bytes` aligned to `align` (a power of two of at most 4096), never moved.
    void* allocate(size_t bytes, size_t align);
    // Runs taken from `stock` first, while it has them (nullptr: from the kernel only).
    void take_from(PageStock* stock) { stock_ = stock; }

   private:
    struct Run {
      void* data;
      size_t size;
    };
    void release();
    std::vector<Run> runs_;
    char* at_ = nullptr;
    size_t left_ = 0;
    PageStock* stock_ = nullptr;
  };
  // Elements in blocks of 2 MiB (a huge page: no part of one left over) that never move: growing
  // copies nothing (a vector of a million records copied itself and faulted in fresh pages at
  // every doubling), indexed as one array. The directory of blocks is allocated whole
  // (untouched beyond what is used), so an element added before a reader on another thread
  // was told of it can be read while more are added.
  template <class T>
  class Blocks {
    static_assert(std::is_trivially_destructible_v<T>, "blocks are given back without destructors");

   public:
    Blocks() = default;
    Blocks(Blocks&& o) noexcept : pages_(std::move(o.pages_)), dir_(std::move(o.dir_)), size_(o.size_) { o.size_ = 0; }
    Blocks& operator=(Blocks&& o) noexcept {
      if (this != &o) {
        pages_ = std::move(o.pages_);
        dir_ = std::move(o.dir_);
        size_ = o.size_;
        o.size_ = 0;
      }
      return *this;
    }
    size_t size() const { return size_; }
    bool empty() const { return size_ == 0; }
    void take_pages_from(PageStock* stock) { pages_.take_from(stock); }
    // kPer is a constant: the division is a multiplication.
    T& operator[](size_t i) { return dir_[i / kPer][i % kPer]; }
    const T& operator[](size_t i) const { return dir_[i / kPer][i % kPer]; }
    T& push_back(const T& v) {
      if (size_ % kPer == 0) {
        if (size_ / kPer >= kMaxBlocks) throw std::length_error("more than 2^32 files");
        if (!dir_) dir_ = std::make_unique_for_overwrite<T*[]>(kMaxBlocks);
        dir_[size_ / kPer] = static_cast<T*>(pages_.allocate(sizeof(T) * kPer, alignof(T)));
      }
      T* at = ::new (&dir_[size_ / kPer][size_ % kPer]) T(v);
      ++size_;
      return *at;
    }

   private:
    static constexpr size_t kPer = (size_t{2} << 20) / sizeof(T);
    static constexpr size_t kMaxBlocks = ((size_t{1} << 32) + kPer - 1) / kPer;  // indices are 32-bit
    Pages pages_;
    std::unique_ptr<T*[]> dir_;
    size_t size_ = 0;
  };
  // Strings that are never moved: a string is stored once (a 4-byte length, then the bytes) and
  // its address stays good while more are added.
  struct Arena {
    const char* store(std::string_view s);
    Pages pages;
  };

  Blocks<Record> files_;
  Blocks<Ref> refs_;
  Arena strings_;  // URIs and local names, as add() stores them
  Arena found_;    // paths and refusals, as the lookups store them
  std::vector<const char*> names_;                           // local names, [0] unused
  std::vector<bool> name_bad_;                               // per name: not a plain file name
  std::unordered_map<std::string_view, uint32_t> name_ids_;  // into names_
};

// Gathers file references one stream handle at a time, each file once (keyed by its URI
// as stored), then looks them all up.
class CKPT_API FileCollector {
 public:
  // Records one reference. Returns the file's index in the final list, or -1 when the handle
  // is not a file (inline, null, empty segment).
  int64_t add(const StreamHandle& s, const StreamSite& site);
  // One stream of a batch.
  struct Pending {
    const StreamHandle* stream = nullptr;
    StreamSite site;
  };
  // add() of each stream in turn, the results in `indices` (cleared first). The same as one
  // call each, but the lookups of all of them start before the first is done, so that their
  // cache misses overlap: at millions of files nearly every lookup misses, and a handle holds
  // a dozen files or more.
  void add(std::span<const Pending> streams, std::vector<int64_t>& indices);
  size_t size() const { return table_.size(); }
  // Memory for the files' table taken from `stock` first, until finish() (nullptr: none); the
  // stock must outlive the collector or a later call of this.
  void take_pages_from(PageStock* stock);
  // Looks up the files added before the `n`-th (n at most size()) that are not looked up yet.
  // add() may go on on another thread meanwhile (finish() may not): a lookup writes other
  // members of a file than add() does, and its strings go to an arena of their own. For a caller
  // with a thread to spare while references are still being gathered.
  void resolve(FileResolver& resolver, size_t n);
  // Looks every file up (those resolve() has not) and hands the table over.
  FileTable finish(FileResolver& resolver) &&;
  // OK, or why a directory of a file looked up could not be listed (FileResolver::Found::
  // unlisted): the first such failure. Such a file is neither found nor refused; the table
  // cannot say whether it is missing, and a caller reporting missing files must fail instead.
  const Status& unlisted() const { return unlisted_; }

 private:
  // Room in the slots for `more` files beyond those held (rehashing into a larger table).
  void reserve_slots(size_t more);
  int64_t add_hashed(const StreamHandle& s, const StreamSite& site, uint64_t hash);

  FileTable table_;
  std::vector<uint64_t> batch_hashes_;  // add() of a batch: each stream's hash
  int8_t empty_name_bad_ = -1;          // check_local_file_name("") once asked: 0 / 1
  std::vector<uint32_t> bad_named_;     // files with Record::bad_name, once each
  size_t resolved_ = 0;                 // files looked up
  Status unlisted_;
  // Open addressing over the table's files (index + 1, 0 = empty) by a hash of type class and
  // URI: no key strings or nodes, which dominated inspect at millions of references.
  // Open addressing: per slot the file's index + 1 (low half, 0: empty) and its hash's high half,
  // so that a probe past another file reads no record of it (cache misses were most of add()).
  // Mapped whole and given back when outgrown: the kernel's pages are zeros already (clearing a
  // vector of them, and faulting it in 4 KiB at a time, was a tenth of inspect's time).
  struct Slots {
    Slots() = default;
    Slots(Slots&& o) noexcept : data(o.data), size(o.size) { o.data = nullptr, o.size = 0; }
    Slots& operator=(Slots&& o) noexcept;
    ~Slots();
    uint64_t* data = nullptr;
    size_t size = 0;  // a power of two, or 0
  };
  Slots slots_;
  FileTable::Blocks<uint64_t> hashes_;  // per file, to grow without rehashing URIs
};

// The owning form of every file of `table`, for callers that keep files apart from the table.
CKPT_API std::vector<ReferencedFile> referenced_files(const FileTable& table);

// Every file referenced by `m`, in order of first reference, with what the disk says: a file
// that cannot be found is reported with exists = false. Fails only when a directory cannot be
// listed (FileCollector::unlisted()).
CKPT_API Result<std::vector<ReferencedFile>> resolve_files(const Metadata& m, const SnapshotLocation& where,
                                                           const std::vector<PrefixRule>& remap);

}  // namespace ckpt
