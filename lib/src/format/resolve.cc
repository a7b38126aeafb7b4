// Locating snapshots and the files their handles refer to.
#include "ckpt/resolve.h"

#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <functional>
#include <unordered_map>

#include <fmt/format.h>

#include "ckpt/file_system.h"
#include "ckpt/io.h"
#include "ckpt/object_store.h"
#include "format/local_names.h"
#include "s3/store_files.h"
#include "support/huge_pages.h"

namespace ckpt {
namespace fs = std::filesystem;

const char* handle_slot_name(HandleSlot slot) {
  switch (slot) {
    case HandleSlot::kCoordinator: return "coordinator";
    case HandleSlot::kLegacy: return "legacy-operator";
    case HandleSlot::kManagedOperator: return "managed-operator";
    case HandleSlot::kRawOperator: return "raw-operator";
    case HandleSlot::kManagedKeyed: return "managed-keyed";
    case HandleSlot::kRawKeyed: return "raw-keyed";
    case HandleSlot::kInputChannel: return "input-channel";
    case HandleSlot::kResultSubpartition: return "result-subpartition";
  }
  return "unknown";
}

const char* stream_role_name(StreamRole role) {
  switch (role) {
    case StreamRole::kData: return "data";
    case StreamRole::kMeta: return "meta";
    case StreamRole::kSharedFile: return "shared";
    case StreamRole::kPrivateFile: return "private";
    case StreamRole::kChangelogPiece: return "changelog";
  }
  return "unknown";
}

// `dir` + '/' + `name` into `out` (its old content replaced), one '/' between them.
static void assign_joined(std::string& out, const std::string& dir, std::string_view name) {
  out.assign(dir);
  if (!out.empty() && out.back() != '/') out += '/';
  out += name;
}

static std::string join_path(const std::string& dir, std::string_view name) {
  std::string out;
  assign_joined(out, dir, name);
  return out;
}

std::vector<std::string> snapshots_in(const std::string& directory) {
  std::vector<std::pair<int64_t, std::string>> found;  // chk-N by N; others after, by name
  Result<std::shared_ptr<FileSystem>> files = file_system_for(directory);
  if (!files.ok()) return {};
  Result<std::vector<FileInfo>> listed = files.value()->list(directory);
  if (!listed.ok()) return {};
  for (const FileInfo& f : listed.value()) {
    if (!f.directory) continue;
    Result<FileInfo> metadata = files.value()->stat(join_path(f.path, "_metadata"));
    if (!metadata.ok() || !metadata->regular) continue;
    const std::string name = f.path.substr(f.path.rfind('/') + 1);
    int64_t n = INT64_MAX;
    if (name.starts_with("chk-") && name.size() > 4 && name.size() < 20 &&
        name.find_first_not_of("0123456789", 4) == std::string::npos)
      n = std::stoll(name.substr(4));
    found.emplace_back(n, name);
  }
  std::sort(found.begin(), found.end());
  std::vector<std::string> out;
  for (auto& [n, name] : found) out.push_back(std::move(name));
  return out;
}

// kNotFound for a directory without `_metadata`, naming the snapshots it holds (a job's
// checkpoint directory: the user meant one of them).
static Error no_metadata_file(const std::string& path) {
  const std::vector<std::string> inside = snapshots_in(path);
  Error e(ErrorCode::kNotFound, "directory holds no _metadata file");
  e.file = path;
  if (inside.empty()) return e;
  std::string names;
  for (size_t i = 0; i < inside.size() && i < 20; ++i) names += (i ? ", " : "") + inside[i];
  if (inside.size() > 20) names += fmt::format(" and {} more", inside.size() - 20);
  e.message = fmt::format("directory holds no _metadata file but {} snapshot{} ({}): name one, as {}", inside.size(),
                          inside.size() == 1 ? "" : "s", names, join_path(path, inside.back()));
  return e;
}

// A snapshot in an object store: a prefix holding `_metadata`, or the `_metadata` object.
static Result<SnapshotLocation> locate_stored_snapshot(const std::string& given) {
  std::string path = given;
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  CKPT_ASSIGN_OR_RETURN(std::shared_ptr<FileSystem> files, file_system_for(path));
  // Whoever locates a snapshot reads its `_metadata` next: fetched while the prefix is listed.
  if (!path.ends_with("/_metadata")) read_ahead_through_file_system(join_path(path, "_metadata"));
  CKPT_ASSIGN_OR_RETURN(FileInfo info, files->stat(path));
  SnapshotLocation loc;
  if (!info.directory) {
    loc.metadata_path = path;
    loc.directory = path.substr(0, path.rfind('/'));
    return loc;
  }
  loc.directory = path;
  loc.metadata_path = join_path(path, "_metadata");
  Result<FileInfo> metadata = files->stat(loc.metadata_path);
  if (!metadata.ok() || metadata->directory) return no_metadata_file(path);
  return loc;
}

Result<SnapshotLocation> locate_snapshot(const std::string& path) {
  if (is_object_store_uri(path)) return locate_stored_snapshot(path);
  auto not_found = [&](const std::string& what) {
    Error e(ErrorCode::kNotFound, what);
    e.file = path;
    return e;
  };
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) {
    struct stat ls;
    if (::lstat(path.c_str(), &ls) == 0) CKPT_RETURN_IF_ERROR(check_regular_input(path));  // says what is wrong
    return not_found("no such file or directory");
  }
  SnapshotLocation loc;
  if (S_ISDIR(st.st_mode)) {
    loc.directory = path;
    loc.metadata_path = join_path(path, "_metadata");
    struct stat ls;
    if (::lstat(loc.metadata_path.c_str(), &ls) != 0) return no_metadata_file(path);
    CKPT_RETURN_IF_ERROR(check_regular_input(loc.metadata_path));
    return loc;
  }
  // Reading a FIFO would wait for a writer forever; a device or socket is no `_metadata`.
  CKPT_RETURN_IF_ERROR(check_regular_input(path));
  loc.metadata_path = path;
  size_t slash = path.rfind('/');
  loc.directory = slash == std::string::npos ? "." : (slash == 0 ? "/" : path.substr(0, slash));
  return loc;
}

namespace {
std::atomic<bool> g_follow_symlinks{false};
}  // namespace

void set_follow_symlinks(bool follow) { g_follow_symlinks.store(follow, std::memory_order_relaxed); }
bool follow_symlinks() { return g_follow_symlinks.load(std::memory_order_relaxed); }

Status FileResolver::Found::usable() const {
  if (!unlisted.ok()) return unlisted;
  if (!escape.empty()) {
    Error e(ErrorCode::kInvalidArgument, escape);
    e.file = path;
    return e;
  }
  if (!regular) {
    Status what = check_regular_input(path);
    if (what.ok()) return Error(ErrorCode::kInvalidArgument, fmt::format("'{}' is not a regular file", path));
    return what;
  }
  return Status::OK();
}

Status check_relative_path(std::string_view path) {
  const char* why = nullptr;
  if (path.starts_with('/')) why = "it is absolute";
  else if (path.find('\0') != std::string_view::npos) why = "it holds a NUL character";
  for (size_t at = 0; !why && at <= path.size();) {
    size_t slash = std::min(path.find('/', at), path.size());
    if (path.substr(at, slash - at) == "..") why = "it has a '..' component";
    at = slash + 1;
  }
  if (!why) return Status::OK();
  return Error(ErrorCode::kCorruption,
               fmt::format("relative handle path '{}' leaves the snapshot directory: {}", path, why));
}

Status check_relative_path_at(std::string_view path, const std::string& metadata_path,
                              const std::string& operator_id, int32_t subtask) {
  Status s = check_relative_path(path);
  if (s.ok()) return s;
  std::string site = subtask >= 0 ? fmt::format("operator {}, subtask {}", operator_id, subtask)
                                  : fmt::format("operator {}, coordinator", operator_id);
  return std::move(s).error().with_file(metadata_path).with_context(site);
}

Status check_relative_paths(const Metadata& m, const std::string& metadata_path) {
  Status first;
  for_each_stream(m, [&](const StreamHandle& s, const StreamSite& site) {
    if (first.ok() && s.type == handle_type::kRelativeFile)
      first = check_relative_path_at(s.path, metadata_path, operator_id_hex(m.operators[site.operator_index].id),
                                     site.subtask);
  });
  return first;
}

Result<PrefixRule> parse_prefix_rule(const std::string& spec, const char* flag) {
  size_t eq = spec.find('=');
  if (eq == std::string::npos || eq == 0)
    return Error(ErrorCode::kInvalidArgument,
                 fmt::format("{} '{}': expected PREFIX=VALUE with a non-empty prefix", flag, spec));
  return PrefixRule{spec.substr(0, eq), spec.substr(eq + 1)};
}

Result<std::vector<PrefixRule>> parse_prefix_rules(const std::vector<std::string>& specs, const char* flag) {
  std::vector<PrefixRule> rules;
  rules.reserve(specs.size());
  for (const auto& spec : specs) {
    CKPT_ASSIGN_OR_RETURN(PrefixRule r, parse_prefix_rule(spec, flag));
    rules.push_back(std::move(r));
  }
  return rules;
}

// The spelling rules and URIs are compared in: a local path for `file:` URIs and absolute paths
// (however many slashes), the text as it is for other schemes.
static std::string comparable(std::string_view uri, PrefixMatch match) {
  if (match == PrefixMatch::kLocalPath)
    if (auto local = local_path_of_uri(uri)) return *local;
  return std::string(uri);
}

// How much of `uri` the rule's prefix covers, or npos. A prefix matches whole path components
// only: "s3://b/ab" does not match "s3://b/abc/x".
static size_t matched_length(const PrefixRule& r, std::string_view uri, PrefixMatch match) {
  const std::string prefix = comparable(r.prefix, match), text = comparable(uri, match);
  if (prefix.empty() || text.compare(0, prefix.size(), prefix) != 0) return std::string::npos;
  if (text.size() != prefix.size() && prefix.back() != '/' && text[prefix.size()] != '/') return std::string::npos;
  // The same place in `uri` as spelled: what follows is the same in both spellings.
  return uri.size() - (text.size() - prefix.size());
}

const PrefixRule* longest_prefix_rule(const std::vector<PrefixRule>& rules, std::string_view uri, PrefixMatch match) {
  const PrefixRule* best = nullptr;
  size_t best_length = 0;
  for (const auto& r : rules) {
    size_t n = matched_length(r, uri, match);
    if (n != std::string::npos && (!best || n > best_length)) {
      best = &r;
      best_length = n;
    }
  }
  return best;
}

std::vector<size_t> used_prefix_rules(const Metadata& m, const std::vector<PrefixRule>& rules, PrefixMatch match) {
  std::vector<bool> used(rules.size(), false);
  for_each_stream(m, [&](const StreamHandle& s, const StreamSite&) {
    if (s.type == handle_type::kRelativeFile || s.path.empty()) return;
    for (size_t i = 0; i < rules.size(); ++i)
      if (!used[i] && matched_length(rules[i], s.path, match) != std::string::npos) used[i] = true;
  });
  std::vector<size_t> out;
  for (size_t i = 0; i < rules.size(); ++i)
    if (used[i]) out.push_back(i);
  return out;
}

std::string apply_prefix_rule(const PrefixRule& rule, std::string_view uri, PrefixMatch match) {
  const size_t covered = matched_length(rule, uri, match);
  std::string_view rest = uri.substr(covered == std::string::npos ? rule.prefix.size() : covered);
  if (rest.empty() || rule.replacement.empty()) return rule.replacement + std::string(rest);
  bool left = rule.replacement.back() == '/';
  bool right = rest.front() == '/';
  if (left && right) rest.remove_prefix(1);
  std::string out = rule.replacement;
  if (!left && !right) out += '/';
  out += rest;
  return out;
}

std::optional<std::string> local_path_of_uri(std::string_view uri) {
  if (uri.starts_with("file://")) {
    std::string_view rest = uri.substr(7);
    size_t slash = rest.find('/');
    if (slash == std::string_view::npos) return std::nullopt;
    std::string_view host = rest.substr(0, slash);
    if (!host.empty() && host != "localhost") return std::nullopt;
    return std::string(rest.substr(slash));
  }
  if (uri.starts_with("file:")) {
    std::string_view rest = uri.substr(5);
    if (!rest.starts_with("/")) return std::nullopt;
    return std::string(rest);
  }
  if (uri.starts_with("/")) return std::string(uri);
  return std::nullopt;
}

// Directory listings by directory path; file sizes stat'ed once, only for names that exist.
// Looked up by string_view, so that resolving a million references allocates nothing per
// reference that is not found.
struct FileResolver::Cache {
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  template <class V>
  using Map = std::unordered_map<std::string, V, Hash, std::equal_to<>>;
  struct Entry {
    bool stated = false;
    bool regular = false;
    uint8_t type = DT_UNKNOWN;  // as readdir says
    bool link = false;          // once stated
    std::string real;           // a link's target, resolved, once asked
    uint64_t size = 0;
  };
  static Entry stated_entry(bool regular, uint64_t size) {
    Entry e;
    e.stated = true;
    e.regular = regular;
    e.size = size;
    return e;
  }
  struct Listing {
    Map<Entry> entries;
    int8_t outside = -1;  // outside_dir() of the directory, once asked: 0 / 1
    std::string real;     // the directory with its links resolved, once asked
    std::string root;     // for absolute paths: what it must not leave through a link, once asked
    const char* root_name = nullptr;
    // Why the directory could not be listed (a store not answering, a directory not readable,
    // no descriptor left), when it could not: nothing is known of its files, which are not
    // missing for that. Kept for the resolver's life: each of its files would wait out the
    // store's retries again.
    Status failed;
  };
  Map<Listing> dirs;
  Map<std::string> real_roots;  // root as given -> its links resolved
  // References come in runs from one directory, or alternate between two (an absolute URI's,
  // then the snapshot directory for its base name): the last two listings used, found without
  // hashing.
  std::string last_dir[2];
  Listing* last[2] = {nullptr, nullptr};
  // Reused for the joined paths of lookups.
  std::string scratch;

  Listing& listing(std::string_view dir) {
    if (last[0] && dir == last_dir[0]) return *last[0];
    if (last[1] && dir == last_dir[1]) {
      std::swap(last_dir[0], last_dir[1]);
      std::swap(last[0], last[1]);
      return *last[0];
    }
    auto it = dirs.find(dir);
    if (it == dirs.end()) {
      Listing l;
      std::string d(dir);
      if (is_object_store_uri(d)) {
        // A store lists sizes with names: nothing to stat later.
        Result<std::shared_ptr<FileSystem>> files = file_system_for(d);
        Result<std::vector<FileInfo>> listed = files.ok() ? files.value()->list(d) : std::move(files).error();
        if (listed.ok()) {
          for (const FileInfo& f : listed.value())
            l.entries.emplace(f.path.substr(f.path.rfind('/') + 1), stated_entry(!f.directory, f.size));
        } else if (listed.error().code != ErrorCode::kNotFound) {
          l.failed = std::move(listed).error();
        }
      } else if (DIR* h = ::opendir(d.c_str())) {
        while (const dirent* e = ::readdir(h)) {
          std::string_view n = e->d_name;
          if (n != "." && n != "..") {
            Entry entry;
            entry.type = e->d_type;
            l.entries.emplace(std::string(n), std::move(entry));
          }
        }
        ::closedir(h);
      } else if (errno != ENOENT && errno != ENOTDIR) {
        l.failed = Error(ErrorCode::kIOError, fmt::format("cannot list the directory: {}", std::strerror(errno)))
                       .with_file(d);
      }
      it = dirs.emplace(std::move(d), std::move(l)).first;
    }
    std::swap(last_dir[0], last_dir[1]);
    last[1] = last[0];
    last_dir[0].assign(dir);
    last[0] = &it->second;  // node-based map: stays valid as directories are added
    return it->second;
  }

  // `path` with every link resolved (lexically normal and absolute if it cannot be).
  static std::string real_path(const std::string& path) {
    std::error_code ec;
    fs::path real = fs::canonical(path, ec);
    if (!ec) return real.string();
    return fs::absolute(path, ec).lexically_normal().string();
  }
  const std::string& real_root(std::string_view root) {
    auto it = real_roots.find(root);
    if (it == real_roots.end()) it = real_roots.emplace(std::string(root), real_path(std::string(root))).first;
    return it->second;
  }
};

// `p` absolute and lexically normal, without a trailing '/' (but "/" itself).
static std::string normal_absolute(const std::string& p) {
  if (is_object_store_uri(p)) {
    std::string uri = canonical_object_uri(p);
    while (uri.size() > 1 && uri.back() == '/') uri.pop_back();
    return uri;
  }
  std::error_code ec;
  std::string out = fs::absolute(p.empty() ? "." : p, ec).lexically_normal().string();
  while (out.size() > 1 && out.back() == '/') out.pop_back();
  return out;
}

// `path` is `dir` or lies under it; both normal_absolute().
static bool path_within(std::string_view path, std::string_view dir) {
  if (!path.starts_with(dir)) return false;
  return path.size() == dir.size() || dir == "/" || path[dir.size()] == '/';
}

FileResolver::FileResolver(std::string directory, std::vector<PrefixRule> remap)
    : directory_(std::move(directory)),
      remap_(std::move(remap)),
      follow_(follow_symlinks()),
      cache_(std::make_unique<Cache>()) {
  job_dir_ = fs::path(normal_absolute(directory_)).parent_path().string();
  for (const PrefixRule& r : remap_)
    if (!r.replacement.empty()) remap_dirs_.push_back(normal_absolute(r.replacement));
}

FileResolver::~FileResolver() = default;

// Lexical, as the rules that led to the directory are: a snapshot assembled from symbolic links
// into a corpus elsewhere is not outside.
bool FileResolver::outside_dir(std::string_view dir) const {
  std::string d = normal_absolute(std::string(dir));
  if (path_within(d, job_dir_)) return false;
  for (const std::string& t : remap_dirs_)
    if (path_within(d, t)) return false;
  return true;
}

std::optional<FileResolver::Found> FileResolver::lookup(std::string_view path, bool absolute_handle,
                                                        std::string_view root, const char* root_name) {
  size_t slash = path.rfind('/');
  std::string_view dir = slash == std::string::npos ? "." : (slash == 0 ? "/" : path.substr(0, slash));
  std::string_view name = slash == std::string::npos ? path : path.substr(slash + 1);
  if (name.empty() || name == "." || name == "..") return std::nullopt;
  Cache::Listing& l = cache_->listing(dir);
  if (!l.failed.ok()) return Found{std::string(path), 0, false, false, {}, l.failed};
  auto it = l.entries.find(name);
  if (it == l.entries.end()) return std::nullopt;
  Cache::Entry& e = it->second;
  if (!e.stated) {
    struct stat st;
    if (::stat(std::string(path).c_str(), &st) != 0) {
      l.entries.erase(it);  // a dangling link is no file
      return std::nullopt;
    }
    e.stated = true;
    e.regular = S_ISREG(st.st_mode);
    e.size = e.regular ? static_cast<uint64_t>(st.st_size) : 0;
    struct stat ls;
    e.link = e.type == DT_LNK ||
             (e.type == DT_UNKNOWN && ::lstat(std::string(path).c_str(), &ls) == 0 && S_ISLNK(ls.st_mode));
  }
  Found f{std::string(path), e.size, e.regular, false, {}, {}};
  if (absolute_handle) {
    if (l.outside < 0) l.outside = outside_dir(dir) ? 1 : 0;
    f.outside = l.outside == 1;
  }
  // An object store has no links.
  if (follow_ || is_object_store_uri(f.path)) return f;
  // Where the file really is, against where it was looked for, both with their links resolved:
  // a link in the snapshot may point anywhere in it, and nowhere else.
  if (root.empty()) {
    if (!l.root_name) {
      const std::string d = normal_absolute(std::string(dir));
      l.root = d;
      l.root_name = "its directory";
      if (path_within(d, job_dir_)) {
        l.root = job_dir_;
        l.root_name = "the job directory";
      } else {
        for (const std::string& t : remap_dirs_)
          if (path_within(d, t)) {
            l.root = t;
            l.root_name = "the --remap target";
            break;
          }
      }
    }
    root = l.root;
    root_name = l.root_name;
  }
  if (l.real.empty()) l.real = Cache::real_path(std::string(dir));
  const std::string& real_root = cache_->real_root(root);
  if (e.link && e.real.empty()) e.real = Cache::real_path(f.path);
  if (e.link ? path_within(e.real, real_root) : path_within(l.real, real_root)) return f;
  const std::string real = e.link ? e.real : join_path(l.real, name);
  f.escape =
      fmt::format("leads through a symbolic link to '{}', outside {} '{}': not followed without --follow-symlinks",
                  real, root_name, root);
  f.regular = false;
  f.size = 0;
  return f;
}

std::optional<std::string> FileResolver::candidate(std::string_view uri) const {
  if (const PrefixRule* r = longest_prefix_rule(remap_, uri, PrefixMatch::kLocalPath))
    return apply_prefix_rule(*r, uri, PrefixMatch::kLocalPath);
  if (is_object_store_uri(uri)) return canonical_object_uri(uri);
  return local_path_of_uri(uri);
}

std::optional<FileResolver::Found> FileResolver::find(uint8_t handle_type, const std::string& uri) {
  if (uri.empty()) return std::nullopt;
  if (handle_type == handle_type::kRelativeFile) {
    if (!check_relative_path(uri).ok()) return std::nullopt;
    assign_joined(cache_->scratch, directory_, uri);  // no allocation per reference
    return lookup(cache_->scratch, false, directory_, "the snapshot directory");
  }
  // The first place holding a regular file wins; failing that, the first holding anything.
  std::optional<Found> irregular;
  auto usable = [&](std::optional<Found>& f) {
    if (f && !f->regular && !irregular) irregular = f;
    return f && f->regular;
  };
  if (const PrefixRule* r = longest_prefix_rule(remap_, uri, PrefixMatch::kLocalPath))
    if (auto f =
            lookup(apply_prefix_rule(*r, uri, PrefixMatch::kLocalPath), true, r->replacement, "the --remap target");
        usable(f))
      return f;
  if (auto local = local_path_of_uri(uri))
    if (auto f = lookup(*local, true); usable(f)) return f;
  // A snapshot kept in an object store names its files by their URIs there: they are looked up
  // in the store (ckpt/file_system.h), wherever the command was told to look, as a disk's
  // absolute paths are.
  if (is_object_store_uri(uri))
    // An s3:// URI is its canonical form: not copied per file.
    if (auto f = uri.starts_with("s3://") ? lookup(uri, true) : lookup(canonical_object_uri(uri), true); usable(f))
      return f;
  size_t slash = uri.rfind('/');
  std::string_view base = slash == std::string::npos ? std::string_view(uri) : std::string_view(uri).substr(slash + 1);
  if (!base.empty()) {
    assign_joined(cache_->scratch, directory_, base);
    if (auto f = lookup(cache_->scratch, true, directory_, "the snapshot directory"); usable(f)) return f;
  }
  return irregular;
}

// Relative and absolute names live in different spaces: "x" and "x" beside `_metadata` are
// only the same file by accident of resolution, not by reference.
static bool is_relative_class(uint8_t type) { return type == handle_type::kRelativeFile; }

static uint64_t file_key_hash(uint8_t type, std::string_view uri) {
  uint64_t h = std::hash<std::string_view>{}(uri);
  return is_relative_class(type) ? h ^ 0x9e3779b97f4a7c15ull : h;
}

std::string_view FileTable::view(const char* s) {
  uint32_t n;
  std::memcpy(&n, s, sizeof n);
  return {s + sizeof n, n};
}

FileTable::Pages::Pages(Pages&& o) noexcept
    : runs_(std::move(o.runs_)), at_(o.at_), left_(o.left_), stock_(o.stock_) {
  o.runs_.clear();
  o.at_ = nullptr;
  o.left_ = 0;
  o.stock_ = nullptr;
}

FileTable::Pages& FileTable::Pages::operator=(Pages&& o) noexcept {
  if (this != &o) {
    release();
    runs_ = std::move(o.runs_);
    at_ = o.at_;
    left_ = o.left_;
    stock_ = o.stock_;
    o.runs_.clear();
    o.at_ = nullptr;
    o.left_ = 0;
    o.stock_ = nullptr;
  }
  return *this;
}

FileTable::Pages::~Pages() { release(); }

void FileTable::Pages::release() {
  for (const Run& r : runs_) unmap_pages(r.data, r.size);
  runs_.clear();
  at_ = nullptr;
  left_ = 0;
}

void* FileTable::Pages::allocate(size_t bytes, size_t align) {
  size_t pad = (align - reinterpret_cast<uintptr_t>(at_) % align) % align;
  if (bytes + pad > left_) {
    constexpr size_t kFirst = size_t{256} << 10;
    constexpr size_t kMost = size_t{32} << 20;
    // Each run twice the last (a small table stays small), at most 32 MiB, or one allocation's.
    size_t size = runs_.empty() ? kFirst : std::min(runs_.back().size * 2, kMost);
    size = std::max(size, (bytes + 4095) / 4096 * 4096);
    runs_.reserve(runs_.size() + 1);
    void* data = nullptr;
    if (stock_) {
      // The stock's pages are all resident: a run of them no larger than needed.
      size_t got = 0;
      data = stock_->take(bytes, bytes, got);
      if (data) size = got;
    }
    if (!data) data = map_huge_pages(size);
    if (!data) throw std::bad_alloc();
    runs_.push_back({data, size});
    at_ = static_cast<char*>(data);
    left_ = size;
    pad = 0;
  }
  char* out = at_ + pad;
  at_ = out + bytes;
  left_ -= bytes + pad;
  return out;
}

void FileTable::take_pages_from(PageStock* stock) {
  files_.take_pages_from(stock);
  refs_.take_pages_from(stock);
  strings_.pages.take_from(stock);
  found_.pages.take_from(stock);
}

void FileCollector::take_pages_from(PageStock* stock) {
  table_.take_pages_from(stock);
  hashes_.take_pages_from(stock);
}

const char* FileTable::Arena::store(std::string_view s) {
  auto n = static_cast<uint32_t>(s.size());
  char* stored = static_cast<char*>(pages.allocate(sizeof n + s.size(), 1));
  std::memcpy(stored, &n, sizeof n);
  if (!s.empty()) std::memcpy(stored + sizeof n, s.data(), s.size());
  return stored;
}

// RocksDB names repeat across subtasks ("000042.sst", "MANIFEST-000004"): each is kept once.
uint32_t FileTable::name_id(std::string_view name) {
  if (name.empty()) return 0;
  if (names_.empty()) names_.push_back(nullptr);
  auto it = name_ids_.find(name);
  if (it != name_ids_.end()) return it->second;
  const char* stored = store(name);
  auto id = static_cast<uint32_t>(names_.size());
  names_.push_back(stored);
  if (name_bad_.size() < names_.size()) name_bad_.resize(names_.size());
  name_bad_[id] = !check_local_file_name(name).ok();
  name_ids_.emplace(view(stored), id);
  return id;
}

FileTable::Reference FileTable::reference(uint32_t i) const {
  const Ref& r = refs_[i];
  Reference out;
  out.operator_index = r.operator_index;
  out.subtask = r.subtask;
  out.slot = r.slot;
  out.role = r.role;
  if (r.local_name) out.local_name = view(names_[r.local_name]);
  return out;
}

FileTable::File FileTable::operator[](size_t i) const {
  const Record& r = files_[i];
  return File{.uri = view(r.uri),
              .handle_type = r.handle_type,
              .path = r.path ? std::optional<std::string_view>(view(r.path)) : std::nullopt,
              .size = r.size,
              .exists = r.exists,
              .actual_size = r.actual_size,
              .refused = r.refused ? view(r.refused) : std::string_view(),
              .outside = r.outside,
              .references = References(this, r.first_ref, r.ref_count)};
}

static bool is_file_type(uint8_t t) {
  return t == handle_type::kFile || t == handle_type::kRelativeFile || t == handle_type::kSegmentFile;
}

// A slot: the file's index + 1 (low half, 0: empty) and its hash's high half.
static uint64_t slot_of(uint64_t hash, size_t index) { return (hash & ~uint64_t{0xFFFFFFFF}) | (index + 1); }

FileCollector::Slots& FileCollector::Slots::operator=(Slots&& o) noexcept {
  if (this != &o) {
    unmap_pages(data, size * sizeof *data);
    data = o.data;
    size = o.size;
    o.data = nullptr;
    o.size = 0;
  }
  return *this;
}

FileCollector::Slots::~Slots() { unmap_pages(data, size * sizeof *data); }

void FileCollector::reserve_slots(size_t more) {
  const size_t files = table_.files_.size();
  size_t size = slots_.size;
  while (2 * (files + more + 1) > size) size = std::max<size_t>(1024, size * 2);
  if (size == slots_.size) return;
  Slots grown;
  grown.data = static_cast<uint64_t*>(map_huge_pages(size * sizeof(uint64_t)));  // zeros: all empty
  if (!grown.data) throw std::bad_alloc();
  grown.size = size;
  uint64_t* slots = grown.data;
  const size_t mask = size - 1;
  constexpr size_t kAhead = 16;  // slots loaded ahead of their insertion: the stores miss the cache
  for (size_t i = 0; i < files; ++i) {
    if (i + kAhead < files) __builtin_prefetch(&slots[hashes_[i + kAhead] & mask], 1);
    size_t at = hashes_[i] & mask;
    while (slots[at]) at = (at + 1) & mask;
    slots[at] = slot_of(hashes_[i], i);
  }
  slots_ = std::move(grown);
}

int64_t FileCollector::add(const StreamHandle& s, const StreamSite& site) {
  if (!is_file_type(s.type)) return -1;
  reserve_slots(1);
  return add_hashed(s, site, file_key_hash(s.type, s.path));
}

void FileCollector::add(std::span<const Pending> streams, std::vector<int64_t>& indices) {
  indices.assign(streams.size(), -1);
  batch_hashes_.resize(streams.size());
  reserve_slots(streams.size());
  const size_t mask = slots_.size - 1;
  for (size_t k = 0; k < streams.size(); ++k) {
    const StreamHandle& s = *streams[k].stream;
    if (!is_file_type(s.type)) continue;
    batch_hashes_[k] = file_key_hash(s.type, s.path);
    __builtin_prefetch(&slots_.data[batch_hashes_[k] & mask]);
  }
  for (size_t k = 0; k < streams.size(); ++k)
    if (is_file_type(streams[k].stream->type))
      indices[k] = add_hashed(*streams[k].stream, streams[k].site, batch_hashes_[k]);
}

// Records a reference of a file stream; the slots have room for one more file.
int64_t FileCollector::add_hashed(const StreamHandle& s, const StreamSite& site, uint64_t hash) {
  FileTable::Blocks<FileTable::Record>& files = table_.files_;
  uint64_t* slots = slots_.data;
  const size_t mask = slots_.size - 1;
  size_t at = hash & mask;
  const bool relative = is_relative_class(s.type);
  while (slots[at]) {
    const uint64_t slot = slots[at];
    if ((slot >> 32) == (hash >> 32)) {
      auto i = static_cast<uint32_t>(slot) - 1;
      if (hashes_[i] == hash && is_relative_class(files[i].handle_type) == relative &&
          FileTable::view(files[i].uri) == s.path)
        break;
    }
    at = (at + 1) & mask;
  }
  FileTable::Record* f;
  if (!slots[at]) {
    slots[at] = slot_of(hash, files.size());
    FileTable::Record r;
    r.uri = table_.store(s.path);
    r.handle_type = s.type;
    f = &files.push_back(r);
    hashes_.push_back(hash);
  } else {
    f = &files[static_cast<uint32_t>(slots[at]) - 1];
  }
  const auto index = static_cast<uint32_t>(slots[at]) - 1;
  int64_t need = s.type == handle_type::kSegmentFile ? s.start + s.size : s.size;
  if (need > f->size) f->size = need;
  const uint32_t name = site.local_name ? table_.name_id(*site.local_name) : 0;
  // A file every command that places it would refuse to (ckpt-verify(1) bad-file-name): marked
  // here, the reason found by finish().
  if (site.role == StreamRole::kSharedFile || site.role == StreamRole::kPrivateFile) {
    bool bad;
    if (name) {
      bad = table_.name_bad_[name];
    } else {
      if (empty_name_bad_ < 0) empty_name_bad_ = check_local_file_name("").ok() ? 0 : 1;
      bad = empty_name_bad_ == 1;
    }
    if (bad && !f->bad_name) {
      f->bad_name = true;
      bad_named_.push_back(index);
    }
  }
  auto ref_index = static_cast<uint32_t>(table_.refs_.size());
  table_.refs_.push_back({.operator_index = static_cast<uint32_t>(site.operator_index),
                          .subtask = site.subtask,
                          .slot = site.slot,
                          .role = site.role,
                          .local_name = name,
                          .next = FileTable::kNone});
  if (f->last_ref == FileTable::kNone)
    f->first_ref = ref_index;
  else
    table_.refs_[f->last_ref].next = ref_index;
  f->last_ref = ref_index;
  ++f->ref_count;
  return index;
}

void FileCollector::resolve(FileResolver& resolver, size_t n) {
  std::string uri;  // reused: no allocation per file
  for (; resolved_ < n; ++resolved_) {
    FileTable::Record& f = table_.files_[resolved_];
    uri.assign(FileTable::view(f.uri));
    std::string refused;
    if (auto found = resolver.find(f.handle_type, uri)) {
      if (!found->unlisted.ok()) {  // not known to be missing: neither found nor refused
        if (unlisted_.ok()) unlisted_ = std::move(found->unlisted);
        continue;
      }
      f.path = table_.found_.store(found->path);
      if (found->regular) {
        f.exists = true;
        f.actual_size = found->size;
        f.outside = found->outside;
      } else if (!found->escape.empty()) {
        refused = std::move(found->escape);
      } else {
        Status what = check_regular_input(found->path);
        refused = what.ok() ? "not a regular file" : what.error().message;
      }
    } else if (f.handle_type == handle_type::kRelativeFile) {
      Status s = check_relative_path(uri);
      if (!s.ok()) refused = std::move(s).error().message;
    }
    if (!refused.empty()) f.refused = table_.found_.store(refused);
  }
}

FileTable FileCollector::finish(FileResolver& resolver) && {
  slots_ = {};
  hashes_ = {};
  table_.take_pages_from(nullptr);  // the stock may end before the table
  resolve(resolver, table_.files_.size());
  // A file every command that places it would refuse to (ckpt-verify(1) bad-file-name): the
  // first reference whose RocksDB name is not a plain file name says why.
  for (uint32_t fi : bad_named_) {
    FileTable::Record& f = table_.files_[fi];
    if (f.refused) continue;
    for (uint32_t i = f.first_ref; i != FileTable::kNone; i = table_.refs_[i].next) {
      const FileTable::Reference ref = table_.reference(i);
      const bool named = ref.role == StreamRole::kSharedFile || ref.role == StreamRole::kPrivateFile;
      if (!named) continue;
      if (Status plain = check_local_file_name(ref.local_name); !plain.ok()) {
        f.refused = table_.found_.store(std::move(plain).error().message);
        f.exists = false;
        break;
      }
    }
  }
  return std::move(table_);
}

std::vector<ReferencedFile> referenced_files(const FileTable& table) {
  std::vector<ReferencedFile> out;
  out.reserve(table.size());
  for (const FileTable::File f : table) {
    ReferencedFile& r = out.emplace_back();
    r.uri = f.uri;
    r.handle_type = f.handle_type;
    if (f.path) r.path = std::string(*f.path);
    r.size = f.size;
    r.exists = f.exists;
    r.actual_size = f.actual_size;
    r.refused = f.refused;
    r.outside = f.outside;
    r.references.reserve(f.references.size());
    for (const FileTable::Reference ref : f.references)
      r.references.push_back({ref.operator_index, ref.subtask, ref.slot, ref.role, std::string(ref.local_name)});
  }
  return out;
}

Result<std::vector<ReferencedFile>> resolve_files(const Metadata& m, const SnapshotLocation& where,
                                                  const std::vector<PrefixRule>& remap) {
  FileCollector collector;
  for_each_stream(m, [&](const StreamHandle& s, const StreamSite& site) { collector.add(s, site); });
  FileResolver resolver(where.directory, remap);
  collector.resolve(resolver, collector.size());
  CKPT_RETURN_IF_ERROR(collector.unlisted());
  return referenced_files(std::move(collector).finish(resolver));
}

}  // namespace ckpt
