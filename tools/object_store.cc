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

#include "ckpt/object_store.h"

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
    struct Task {
      std::string uri, path;
    };
    std::vector<Task> downloads;
    for (const StoredObject& o : objects.value()) {
      std::string rel = o.uri.substr(dir_uri.size() + 1);
      if (rel.empty() || rel.back() == '/') continue;  // a "directory" marker
      std::string path = local_dir + "/" + rel;
      std::error_code ec;
      fs::create_directories(fs::path(path).parent_path(), ec);
      const bool metadata = fs::path(rel).filename() == "_metadata";
      if (metadata || read_data) {
        downloads.push_back({o.uri, path});
      } else {
        // Existence and size from the listing: a sparse file of that size, no bytes fetched.
        int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (fd < 0 || ::ftruncate(fd, static_cast<off_t>(o.size)) != 0) {
          if (fd >= 0) ::close(fd);
          return Error(ErrorCode::kIOError, "cannot create the staging copy").with_file(path);
        }
        ::close(fd);
      }
      times_.emplace_back(path, o.last_modified);
    }
    Status s = parallel(downloads.size(), connections_,
                        [&](size_t i) { return store_->download(downloads[i].uri, downloads[i].path); });
    if (!s.ok()) return s.error();
    // The objects' LastModified as the files' times: gc's age margin reads them.
    for (const auto& [path, t] : times_) {
      timespec ts[2] = {{t, 0}, {t, 0}};
      ::utimensat(AT_FDCWD, path.c_str(), ts, 0);
    }
    names_.emplace_back(local_dir, metadata_file ? spelled.substr(0, spelled.size() - 10) : spelled);
    return metadata_file ? local_dir + "/_metadata" : local_dir;
  }

  // A local directory to write `uri`'s output into, published by upload_outputs().
  Result<std::string> output(const std::string& given) {
    std::string uri = trim_slashes(given);
    auto existing = store_->list(uri + "/");
    if (!existing) return std::move(existing).error();
    if (!existing.value().empty())
      return Error(ErrorCode::kInvalidArgument, "output exists (objects under this prefix)").with_file(uri + "/");
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
  // Deleting needs what a dry run cannot show here: that every reference the store's
  // _metadata files hold (s3:// URIs, entropy-injected prefixes: Flink's s3.entropy.key) maps
  // to the listed objects. Until that is proven, the store is only scanned.
  if (sub == "gc" && std::find(p.rest.begin(), p.rest.end(), "--apply") != p.rest.end()) {
    print_error(io,
                "gc --apply on an object store is not supported yet (references through s3:// URIs and Flink's "
                "entropy injection, s3.entropy.key, are not checked against the listing): run it without --apply "
                "for the orphans, or on a mounted copy");
    return kExitError;
  }
  // A quick verify and gc check existence, sizes and ages only: the listing answers them.
  // (inspect reads each state file's meta data: it fetches them.)
  const bool read_data = !((sub == "verify" && !deep) || sub == "gc");
  std::vector<std::string> rewritten;
  for (size_t i = 0; i < p.rest.size(); ++i) {
    std::string a = p.rest[i];
    const bool output_value = i > 0 && (p.rest[i - 1] == "-o" || p.rest[i - 1] == "--output");
    std::string prefix;
    if (a.rfind("--output=", 0) == 0) {
      prefix = "--output=";
      a = a.substr(prefix.size());
    }
    if (!is_object_store_uri(a) || mapping_value(p.rest, i)) {
      rewritten.push_back(p.rest[i]);
      continue;
    }
    auto staged = output_value || !prefix.empty() ? staging.output(a) : staging.input(a, read_data);
    if (!staged) return report_error(io, staged.error());
    rewritten.push_back(prefix + staged.value());
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
