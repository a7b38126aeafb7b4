#include "object_store.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "ckpt/file_system.h"
#include "ckpt/object_store.h"
#include "ckpt/staging.h"
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

std::set<std::string> option_names(bool valued) {
  std::set<std::string> out;
  for (const GlobalOption& o : object_store_options())
    if ((*o.value != 0) == valued) out.insert(o.name);
  return out;
}
const std::set<std::string>& valued_options() {
  static const std::set<std::string> s = option_names(true);
  return s;
}
const std::set<std::string>& flag_options() {
  static const std::set<std::string> s = option_names(false);
  return s;
}

struct Parsed {
  ObjectStoreOptions options;
  int connections = 8;
  uint64_t cache_bytes = uint64_t{4} << 30;
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
    else if (name == "--cache-size") {
      Result<int64_t> bytes = parse_memory_size(value);
      if (!bytes.ok() || bytes.value() < 1) {
        p.error = "--cache-size: '" + value + "' is not a size such as 512m or 4g";
        return p;
      }
      p.cache_bytes = static_cast<uint64_t>(bytes.value());
    } else {
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

// Commands whose library reads s3:// paths through ckpt/file_system.h itself (gc works in the
// store in place): their URIs pass through unchanged and their output streams.
bool reads_through_file_system(const std::string& sub) {
  static const std::set<std::string> s = {"advise", "compact",  "convert",  "diff",    "dump",
                                          "edit",   "gc",       "generate", "inspect", "load",
                                          "plan",   "relocate", "report",   "restore", "verify"};
  return s.count(sub) != 0;
}

// Bench and tests: what the run cost the store, as one JSON line in the file CKPT_S3_STATS names.
void record_store_stats(const StoreFileSystemStats& st) {
  const char* file = std::getenv("CKPT_S3_STATS");
  if (!file) return;
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
  // Under --json a failure of the store (before the command parses its flags, or in the upload
  // after it) is an error object on stdout too, as the command's own are.
  for (const std::string& a : args) {
    if (a == "--") break;
    io.json |= a == "--json";
  }
  Parsed p = strip_options(args);
  if (!p.error.empty()) {
    print_error(io, p.error);
    return kExitError;
  }
  bool any_uri = false;
  for (size_t i = 0; i < p.rest.size(); ++i) any_uri |= names_object(p.rest, i);
  if (!any_uri) return local(p.rest, io);
  set_store_file_system_options({p.options, p.connections, p.cache_bytes});
  const std::string sub = p.rest.empty() ? "" : p.rest[0];
  if (reads_through_file_system(sub)) {
    io.connections = p.connections;
    int status = local(p.rest, io);
    record_store_stats(store_file_system_stats());
    return status;
  }
  auto store = ObjectStore::open(p.options);
  if (!store) return report_error(io, store.error());
  const bool finish = std::find(p.rest.begin(), p.rest.end(), "--finish") != p.rest.end();
  ObjectStoreStaging::Options so;
  so.connections = p.connections;
  so.cache_bytes = p.cache_bytes;
  so.whole_files = true;  // the writing commands read every byte: whole objects take fewer requests
  auto created = ObjectStoreStaging::create(store.value(), so);
  if (!created) return report_error(io, created.error());
  ObjectStoreStaging& staging = *created.value();
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
      auto staged = is_output ? staging.output(a) : staging.input(a);
      if (!staged) return report_error(io, staged.error());
      if (is_output && finish) {
        // The parts that --shard runs uploaded, fetched beside the output for --finish.
        Status parts = staging.stage_output_parts(a);
        if (!parts.ok()) return report_error(io, parts.error());
      }
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
  record_store_stats(staging.stats());
  std::string o = out.str(), e = err.str();
  staging.rename_paths(&o);
  staging.rename_paths(&e);
  Status up = status == kExitOk ? staging.upload_outputs() : Status();
  io.json = inner.json;
  io.err << e;
  if (!up.ok()) {
    // What the command printed describes an output that is not in the store: under --json
    // the error object takes the document's place.
    if (!io.json) io.out << o;
    return report_error(io, up.error());
  }
  io.out << o;
  io.json_written = true;  // the inner run wrote whatever error object there is
  return status;
}

}  // namespace ckpt::cli
