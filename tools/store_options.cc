#include "store_options.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include <nlohmann/json.hpp>

#include "ckpt/file_system.h"
#include "memory_size_arg.h"

namespace ckpt::cli {

const std::vector<GlobalOption>& object_store_options() {
  static const std::vector<GlobalOption> options = {
      {"--endpoint", "URL", "The store's endpoint (else AWS_ENDPOINT_URL_S3, the profile's, AWS's)"},
      {"--region", "REGION", "The signing region (else AWS_REGION, the profile's, us-east-1)"},
      {"--profile", "NAME", "The profile of ~/.aws/credentials and ~/.aws/config"},
      {"--path-style", "", "Address buckets as ENDPOINT/bucket/key (MinIO)"},
      {"--no-sign-request", "", "Send anonymous requests (public buckets)"},
      {"--connections", "N", "Transfers at once (1 to 256, default 8)"},
      {"--cache-size", "SIZE", "Downloaded state files kept at most (default 4g)"},
  };
  return options;
}

namespace {

const GlobalOption* find_option(const std::string& name) {
  for (const GlobalOption& o : object_store_options())
    if (name == o.name) return &o;
  return nullptr;
}

// `value` of the valued option `name` into `out`; an error message if it is malformed.
std::string take_value(const std::string& name, const std::string& value, StoreFileSystemOptions& out) {
  if (name == "--endpoint")
    out.store.endpoint = value;
  else if (name == "--region")
    out.store.region = value;
  else if (name == "--profile")
    out.store.profile = value;
  else if (name == "--cache-size") {
    Result<int64_t> bytes = parse_memory_size(value);
    if (!bytes.ok() || bytes.value() < 1) return "--cache-size: '" + value + "' is not a size such as 512m or 4g";
    out.cache_bytes = static_cast<uint64_t>(bytes.value());
  } else {
    char* end = nullptr;
    long n = std::strtol(value.c_str(), &end, 10);
    if (value.empty() || *end != '\0' || n < 1 || n > 256)
      return "--connections: '" + value + "' is not a number from 1 to 256";
    out.connections = static_cast<int>(n);
  }
  return "";
}

}  // namespace

StoreOptions::StoreOptions(std::vector<std::string>& args, Io& io) {
  StoreFileSystemOptions options;
  std::vector<std::string> rest;
  size_t i = 0;
  for (; i < args.size() && error_.empty(); ++i) {
    const std::string& a = args[i];
    if (a == "--") break;
    const size_t eq = a.rfind("--", 0) == 0 ? a.find('=') : std::string::npos;
    const std::string name = a.substr(0, eq);
    const GlobalOption* o = find_option(name);
    if (!o) {
      rest.push_back(a);
      continue;
    }
    if (*o->value == 0) {
      if (eq != std::string::npos) {
        rest.push_back(a);  // not this flag: the command says what it makes of it
        continue;
      }
      (name == "--path-style" ? options.store.path_style : options.store.no_sign) = true;
      continue;
    }
    if (eq == std::string::npos && i + 1 >= args.size()) {
      error_ = name + " needs a value";
      break;
    }
    error_ = take_value(name, eq == std::string::npos ? args[++i] : a.substr(eq + 1), options);
  }
  rest.insert(rest.end(), args.begin() + static_cast<long>(std::min(i, args.size())), args.end());
  if (!error_.empty()) return;
  args = std::move(rest);
  io.connections = options.connections;
  set_store_file_system_options(options);  // a store is opened only when a path names one
}

StoreOptions::~StoreOptions() {
  const char* file = std::getenv("CKPT_S3_STATS");
  if (!file || !error_.empty()) return;
  const StoreFileSystemStats st = store_file_system_stats();
  if (st.requests == 0) return;  // no store was used
  const nlohmann::ordered_json line = {{"requests", st.requests},
                                       {"ranged_reads", st.ranged_reads},
                                       {"ranged_bytes", st.ranged_bytes},
                                       {"downloads", st.downloads},
                                       {"downloaded_bytes", st.downloaded_bytes},
                                       {"evictions", st.evictions},
                                       {"peak_cached_bytes", st.peak_cached_bytes},
                                       {"prefetched", st.prefetched}};
  if (FILE* f = std::fopen(file, "a")) {
    std::fputs((line.dump() + "\n").c_str(), f);
    std::fclose(f);
  }
}

}  // namespace ckpt::cli
