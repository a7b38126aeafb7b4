#include "object_store.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <set>
#include <sstream>
#include <thread>

#include "ckpt/metadata.h"
#include "ckpt/object_store.h"
#include "ckpt/walk.h"

namespace fs = std::filesystem;

namespace ckpt::cli {

namespace {

const std::set<std::string>& valued_options() {
  static const std::set<std::string> s = {"--endpoint", "--region", "--profile", "--connections"};
  return s;
}
const std::set<std::string>& flag_options() {
  static const std::set<std::string> s = {"--path-style", "--no-sign-request"};
  return s;
}

struct Parsed {
  ObjectStoreOptions options;
  int connections = 8;
  std::vector<std::string> rest;
  std::string error;
};

Parsed strip_options(const std::vector<std::string>& args) {
  Parsed p;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--") {
      p.rest.insert(p.rest.end(), args.begin() + static_cast<long>(i), args.end());
      break;
    }
    std::string name = a, value;
    bool has_value = false;
    size_t eq = a.find('=');
    if (a.rfind("--", 0) == 0 && eq != std::string::npos) {
      name = a.substr(0, eq);
      value = a.substr(eq + 1);
      has_value = true;
    }
    if (flag_options().count(a)) {
      if (a == "--path-style")
        p.options.path_style = true;
      else
        p.options.no_sign = true;
      continue;
    }
    if (!valued_options().count(name)) {
      p.rest.push_back(a);
      continue;
    }
    if (!has_value) {
      if (i + 1 >= args.size()) {
        p.error = name + " needs a value";
        return p;
      }
      value = args[++i];
    }
    if (name == "--endpoint")
      p.options.endpoint = value;
    else if (name == "--region")
      p.options.region = value;
    else if (name == "--profile")
      p.options.profile = value;
    else {
      char* end = nullptr;
      long n = std::strtol(value.c_str(), &end, 10);
      if (*end != '\0' || n < 1 || n > 256) {
        p.error = "--connections: '" + value + "' is not a number from 1 to 256";
        return p;
      }
      p.connections = static_cast<int>(n);
    }
  }
  return p;
}

// The key of an s3:// URI without its scheme and bucket: "bucket/key" for local mirroring.
std::string bucket_and_key(const std::string& uri) { return uri.substr(uri.find("://") + 3); }

std::string trim_slashes(std::string s) {
  while (s.size() > 1 && s.back() == '/') s.pop_back();
  return s;
}

void replace_all(std::string* text, const std::string& from, const std::string& to) {
  if (from.empty()) return;
  for (size_t at = text->find(from); at != std::string::npos; at = text->find(from, at + to.size()))
    text->replace(at, from.size(), to);
}

// fn(i) for i < n on `jobs` threads; the first error wins.
Status parallel(size_t n, int jobs, const std::function<Status(size_t)>& fn) {
  std::atomic<size_t> next{0};
  std::mutex mu;
  Status first;
  auto body = [&] {
    for (size_t i; (i = next++) < n;) {
      Status s = fn(i);
      if (!s.ok()) {
        std::lock_guard<std::mutex> lock(mu);
        if (first.ok()) first = std::move(s);
        next = n;
      }
    }
  };
  std::vector<std::thread> threads;
  for (int t = 1; t < std::min<int>(jobs, static_cast<int>(n)); ++t) threads.emplace_back(body);
  body();
  for (auto& t : threads) t.join();
  return first;
}

// Existence and size from the listing: a sparse file of that size, no bytes fetched.
Status sparse_copy(const std::string& path, uint64_t size) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0 || ::ftruncate(fd, static_cast<off_t>(size)) != 0) {
    if (fd >= 0) ::close(fd);
    return Error(ErrorCode::kIOError, "cannot create the staging copy").with_file(path);
  }
  ::close(fd);
  return {};
}

class Staging {
 public:
  explicit Staging(std::shared_ptr<ObjectStore> store, int connections)
      : store_(std::move(store)), connections_(connections) {
    std::string tmpl = fs::temp_directory_path().string() + "/ckpt-s3-XXXXXX";
    if (::mkdtemp(tmpl.data())) root_ = tmpl;
  }
  ~Staging() {
    std::error_code ec;
    if (!root_.empty()) fs::remove_all(root_, ec);
  }
  bool ok() const { return !root_.empty(); }

  // The snapshot or directory at `uri` copied under the staging root; its local path.
  Result<std::string> input(const std::string& given, bool read_data) {
    const std::string spelled = trim_slashes(given);
    // Listings name objects s3://; s3a:// and s3p:// are the same objects.
    std::string uri = "s3://" + bucket_and_key(spelled);
    std::string dir_uri = uri;
    const bool metadata_file = uri.size() > 10 && uri.compare(uri.size() - 10, 10, "/_metadata") == 0;
    if (metadata_file) dir_uri = uri.substr(0, uri.size() - 10);
    auto objects = store_->list(dir_uri + "/");
    if (!objects) return std::move(objects).error();
    if (objects.value().empty())
      return Error(ErrorCode::kNotFound, "no objects under this prefix").with_file(dir_uri + "/");
    const std::string local_dir = root_ + "/in/" + bucket_and_key(dir_uri);
    std::vector<Download> downloads;
    for (const StoredObject& o : objects.value()) {
      std::string rel = o.uri.substr(dir_uri.size() + 1);
      if (rel.empty() || rel.back() == '/') continue;  // a "directory" marker
      std::string path = local_dir + "/" + rel;
      std::error_code ec;
      fs::create_directories(fs::path(path).parent_path(), ec);
      const bool metadata = fs::path(rel).filename() == "_metadata";
      if (metadata) staged_metadata_.push_back(path);
      if (metadata || read_data) {
        downloads.push_back({o.uri, path, o.size});
      } else {
        if (Status st = sparse_copy(path, o.size); !st.ok()) return st.error();
      }
      times_.emplace_back(path, o.last_modified);
    }
    Status s = fetch(downloads);
    if (!s.ok()) return s.error();
    staged_prefixes_.push_back(dir_uri + "/");
    if (Status r = stage_references(read_data); !r.ok()) return r.error();
    // The objects' LastModified as the files' times: gc's age margin reads them.
    for (const auto& [path, t] : times_) {
      timespec ts[2] = {{t, 0}, {t, 0}};
      ::utimensat(AT_FDCWD, path.c_str(), ts, 0);
    }
    names_.emplace_back(local_dir, metadata_file ? spelled.substr(0, spelled.size() - 10) : spelled);
    return metadata_file ? local_dir + "/_metadata" : local_dir;
  }

  // `--remap` rules mapping each bucket that staged references are in to its mirror.
  std::vector<std::string> remap_specs() const {
    std::vector<std::string> out;
    for (const auto& [scheme, bucket] : remapped_)
      if (mirrored_buckets_.count(bucket)) out.push_back(scheme + "://" + bucket + "=" + root_ + "/in/" + bucket);
    return out;
  }

  // A local directory to write `uri`'s output into, published by upload_outputs().
  Result<std::string> output(const std::string& given) {
    std::string uri = trim_slashes(given);
    // The local rule (OUTPUTS in ckpt(1)) compares local paths; staged copies are never the
    // store's objects, so the URIs are compared here: never into or over an input.
    const std::string canonical = "s3://" + bucket_and_key(uri);
    for (const std::string& in : staged_prefixes_)
      if ((canonical + "/").rfind(in, 0) == 0 || in.rfind(canonical + "/", 0) == 0)
        return Error(ErrorCode::kInvalidArgument,
                     "the output is an input, holds one or lies inside one: " + in.substr(0, in.size() - 1))
            .with_file(uri);
    auto existing = store_->list(uri);
    if (!existing) return std::move(existing).error();
    for (const StoredObject& o : existing.value())
      if (o.uri == canonical || o.uri.rfind(canonical + "/", 0) == 0)
        return Error(ErrorCode::kInvalidArgument, "output exists (an object or objects under this prefix)")
            .with_file(uri);
    std::string local = root_ + "/out/" + bucket_and_key(uri);
    std::error_code ec;
    fs::create_directories(fs::path(local).parent_path(), ec);
    outputs_.emplace_back(local, uri);
    names_.emplace_back(local, uri);
    return local;
  }

  // Every output's files uploaded, each `_metadata` last so that no reader sees a snapshot
  // before its files; on failure what was uploaded is deleted again.
  Status upload_outputs() {
    for (const auto& [local, uri] : outputs_) {
      std::error_code ec;
      if (!fs::exists(local, ec)) continue;
      std::vector<std::pair<std::string, std::string>> data, metadata;
      if (fs::is_regular_file(local, ec)) {
        metadata.emplace_back(local, uri);
      } else {
        for (const auto& e : fs::recursive_directory_iterator(local)) {
          if (!e.is_regular_file()) continue;
          std::string rel = fs::relative(e.path(), local).generic_string();
          (e.path().filename() == "_metadata" ? metadata : data).emplace_back(e.path().string(), uri + "/" + rel);
        }
      }
      std::vector<std::string> uploaded;
      std::mutex mu;
      auto put = [&](const std::vector<std::pair<std::string, std::string>>& files) {
        return parallel(files.size(), connections_, [&](size_t i) {
          Status s = store_->upload(files[i].first, files[i].second);
          std::lock_guard<std::mutex> lock(mu);
          if (s.ok()) uploaded.push_back(files[i].second);
          return s;
        });
      };
      Status s = put(data);
      if (s.ok()) s = put(metadata);
      if (!s.ok()) {
        (void)store_->remove(uploaded, {});
        return s;
      }
    }
    return {};
  }

  // Staging paths in `text` named as the URIs they stand for.
  void rename_paths(std::string* text) const {
    auto sorted = names_;
    std::sort(sorted.begin(), sorted.end(),
              [](const auto& a, const auto& b) { return a.first.size() > b.first.size(); });
    for (const auto& [local, uri] : sorted) replace_all(text, local, uri);
  }

 private:
  std::shared_ptr<ObjectStore> store_;
  int connections_;
  std::string root_;
  std::vector<std::pair<std::string, std::string>> names_;    // local path, URI
  std::vector<std::pair<std::string, std::string>> outputs_;  // local path, URI
  std::vector<std::pair<std::string, int64_t>> times_;
  std::vector<std::string> staged_metadata_;  // local `_metadata` copies not yet read for references
  std::vector<std::string> staged_prefixes_;  // s3://bucket/prefix/ staged whole
  std::set<std::string> mirrored_buckets_;
  std::set<std::pair<std::string, std::string>> remapped_;  // scheme and bucket as references spell them

  bool staged(const std::string& uri) const {
    return std::any_of(staged_prefixes_.begin(), staged_prefixes_.end(),
                       [&](const std::string& p) { return uri.rfind(p, 0) == 0; });
  }

  // Files a staged `_metadata` names by an s3:// URI outside the staged prefixes (a chain's
  // shared/ beside chk-N, a relocated savepoint's files elsewhere): one LIST per distinct
  // directory, then each referenced object staged at its mirror path root/in/bucket/key, which
  // remap_specs() points the command at.
  Status stage_references(bool read_data) {
    std::set<std::string> wanted;
    for (const std::string& path : staged_metadata_) {
      auto m = read_metadata_file(path);
      if (!m) continue;  // the command itself reports an unreadable _metadata
      for_each_stream(m.value(), [&](const StreamHandle& h, const StreamSite&) {
        if (h.type != handle_type::kFile && h.type != handle_type::kSegmentFile) return;
        if (!is_object_store_uri(h.path)) return;
        std::string uri = canonical_object_uri(h.path);
        if (!staged(uri) && uri.find("/../") == std::string::npos && uri.find("/./") == std::string::npos) {
          wanted.insert(uri);
          const std::string bucket = bucket_and_key(uri).substr(0, bucket_and_key(uri).find('/'));
          remapped_.emplace(h.path.substr(0, h.path.find("://")), bucket);
        }
      });
    }
    staged_metadata_.clear();
    std::set<std::string> dirs;
    for (const std::string& uri : wanted) dirs.insert(uri.substr(0, uri.rfind('/') + 1));
    std::vector<std::string> dir_list(dirs.begin(), dirs.end());
    std::vector<std::vector<StoredObject>> listed(dir_list.size());
    Status s = parallel(dir_list.size(), connections_, [&](size_t i) -> Status {
      auto l = store_->list(dir_list[i]);
      if (!l) return std::move(l).error();
      listed[i] = std::move(l).value();
      return {};
    });
    if (!s.ok()) return s;
    std::vector<Download> downloads;
    for (const auto& objects : listed) {
      for (const StoredObject& o : objects) {
        if (!wanted.count(o.uri)) continue;  // only what is referenced, not the whole shared/
        const std::string path = root_ + "/in/" + bucket_and_key(o.uri);
        mirrored_buckets_.insert(bucket_and_key(o.uri).substr(0, bucket_and_key(o.uri).find('/')));
        std::error_code ec;
        fs::create_directories(fs::path(path).parent_path(), ec);
        if (read_data) {
          downloads.push_back({o.uri, path, o.size});
        } else {
          if (Status st = sparse_copy(path, o.size); !st.ok()) return st;
        }
        times_.emplace_back(path, o.last_modified);
      }
    }
    for (const std::string& d : dir_list) staged_prefixes_.push_back(d);
    if (!mirrored_buckets_.empty())
      for (const std::string& b : mirrored_buckets_) names_.emplace_back(root_ + "/in/" + b, "s3://" + b);
    return fetch(downloads);
  }

  struct Download {
    std::string uri, path;
    uint64_t size = 0;
  };
  // Large objects one after the other, each as parallel ranged GETs; then the others, several
  // at once: --connections requests in flight either way.
  Status fetch(const std::vector<Download>& all) {
    std::vector<const Download*> small;
    for (const Download& d : all) {
      if (d.size < ObjectStore::kPartedDownload) {
        small.push_back(&d);
        continue;
      }
      Status s = store_->download(d.uri, d.path, d.size, connections_);
      if (!s.ok()) return s;
    }
    return parallel(small.size(), connections_,
                    [&](size_t i) { return store_->download(small[i]->uri, small[i]->path); });
  }
};

// Whether args[i] is a URI prefix that only names files (`--remap s3://bucket/flink=DIR`,
// `--map s3://old=s3://new`): those are rewritten by the command itself and never fetched.
bool mapping_value(const std::vector<std::string>& args, size_t i) {
  const std::string& a = args[i];
  if (a.rfind("--remap=", 0) == 0 || a.rfind("--map=", 0) == 0) return true;
  return i > 0 && (args[i - 1] == "--remap" || args[i - 1] == "--map");
}

// An s3:// path to stage: a positional or an option's value (`--output s3://..` or
// `--output=s3://..`), never a mapping.
bool names_object(const std::vector<std::string>& args, size_t i) {
  if (mapping_value(args, i)) return false;
  const std::string& a = args[i];
  if (is_object_store_uri(a)) return true;
  size_t eq = a.find('=');
  return a.rfind("--", 0) == 0 && eq != std::string::npos && is_object_store_uri(std::string_view(a).substr(eq + 1));
}

const std::set<std::string>& remap_commands() {
  static const std::set<std::string> s = {"compact", "convert", "diff", "dump", "edit", "inspect", "restore", "verify"};
  return s;
}

// Whether gc's ROOT (its positional, not a --referenced-by value) is a URI.
bool gc_root_in_store(const std::vector<std::string>& args) {
  for (size_t i = 1; i < args.size(); ++i) {
    if (args[i] == "--") return i + 1 < args.size() && is_object_store_uri(args[i + 1]);
    if (args[i - 1] == "--referenced-by" || args[i - 1] == "--older-than" || args[i - 1] == "--entropy-key") continue;
    if (is_object_store_uri(args[i])) return true;
  }
  return false;
}

}  // namespace

bool uses_object_store(const std::vector<std::string>& args) {
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--") break;
    std::string name = a.substr(0, a.find('='));
    if (names_object(args, i) || valued_options().count(name) || flag_options().count(a)) return true;
  }
  return false;
}

int run_with_object_store(const std::vector<std::string>& args, Io& io,
                          const std::function<int(const std::vector<std::string>&, Io&)>& local) {
  Parsed p = strip_options(args);
  if (!p.error.empty()) {
    print_error(io, p.error);
    return kExitError;
  }
  bool any_uri = false;
  for (size_t i = 0; i < p.rest.size(); ++i) any_uri |= names_object(p.rest, i);
  if (!any_uri) return local(p.rest, io);
  auto store = ObjectStore::open(p.options);
  if (!store) return report_error(io, store.error());
  Staging staging(store.value(), p.connections);
  if (!staging.ok()) {
    print_error(io, "cannot create a staging directory in " + fs::temp_directory_path().string());
    return kExitError;
  }
  const std::string sub = p.rest.empty() ? "" : p.rest[0];
  const bool deep = std::find(p.rest.begin(), p.rest.end(), "--deep") != p.rest.end();
  // gc works in the store itself (ckpt/gc.h, "Object stores"): it lists, reads the _metadata
  // objects and deletes there, so nothing is staged.
  if (sub == "gc" && gc_root_in_store(p.rest)) {
    io.object_store = store.value();
    io.connections = p.connections;
    return local(p.rest, io);
  }
  // A quick verify and gc check existence, sizes and ages only: the listing answers them.
  // (inspect reads each state file's meta data: it fetches them.)
  const bool read_data = !((sub == "verify" && !deep) || sub == "gc");
  // Inputs first, so that an output is checked against every input whatever the order.
  std::vector<std::string> rewritten = p.rest;
  for (int outputs = 0; outputs < 2; ++outputs) {
    for (size_t i = 0; i < p.rest.size(); ++i) {
      std::string a = p.rest[i];
      const bool output_value = i > 0 && (p.rest[i - 1] == "-o" || p.rest[i - 1] == "--output");
      std::string prefix;
      if (a.rfind("--output=", 0) == 0) {
        prefix = "--output=";
        a = a.substr(prefix.size());
      }
      if (!is_object_store_uri(a) || mapping_value(p.rest, i)) continue;
      const bool is_output = output_value || !prefix.empty();
      if (is_output != (outputs == 1)) continue;
      auto staged = is_output ? staging.output(a) : staging.input(a, read_data);
      if (!staged) return report_error(io, staged.error());
      rewritten[i] = prefix + staged.value();
    }
  }
  // References outside the named prefixes, staged at their mirror paths: the command finds
  // them through --remap, as a user with a downloaded copy would.
  // Last (before any "--"): restore's --remap, as a vector option, takes the positional after
  // it as a second value even in the --remap=SPEC form.
  if (remap_commands().count(sub)) {
    auto at = std::find(rewritten.begin(), rewritten.end(), "--");
    std::vector<std::string> specs;
    for (const std::string& spec : staging.remap_specs()) specs.push_back("--remap=" + spec);
    rewritten.insert(at, specs.begin(), specs.end());
  }
  std::ostringstream out, err;
  Io inner{out, err, io.out_is_terminal, io.err_is_terminal};
  int status = local(rewritten, inner);
  std::string o = out.str(), e = err.str();
  staging.rename_paths(&o);
  staging.rename_paths(&e);
  io.out << o;
  io.err << e;
  io.json = inner.json;
  io.json_written = true;  // the inner run wrote whatever error object there is
  if (status == kExitOk) {
    Status up = staging.upload_outputs();
    if (!up.ok()) return report_error(io, up.error());
  }
  return status;
}

}  // namespace ckpt::cli
