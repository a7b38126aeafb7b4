// ckpt generate: write realistic synthetic snapshots (man/ckpt-generate.1.md).
#include <memory>
#include <sstream>

#include <fmt/format.h>

#include "ckpt/edit.h"
#include "ckpt/generate.h"
#include "ckpt/inspect.h"
#include "command.h"
#include "jobs_arg.h"
#include "json_output.h"
#include "progress_meter.h"

namespace ckpt::cli {

namespace {
struct GenerateArgs {
  GenerateOptions options;
  std::string backend = "rocksdb";
  std::string states = "value";
  std::string ttl;
  ProgressMode progress = ProgressMode::kAuto;
  bool json = false;
};
}  // namespace

Runner setup_generate(CLI::App& sub) {
  auto a = std::make_shared<GenerateArgs>();
  GenerateOptions& o = a->options;
  sub.add_option("-o,--output", o.output, "Directory to create (must not exist or be empty)")
      ->required()
      ->type_name("DIR");
  sub.add_option("--backend", a->backend, "Layout: rocksdb (native), heap (native; or hashmap) or canonical")
      ->type_name("KIND")
      ->capture_default_str();
  sub.add_option("--operators", o.operators, "Keyed operators")->type_name("N")->check(CLI::Range(1, 1000))->capture_default_str();
  sub.add_option("--parallelism", o.parallelism, "Subtasks per operator")
      ->type_name("P")
      ->check(CLI::Range(1, 32768))
      ->capture_default_str();
  sub.add_option("--max-parallelism", o.max_parallelism, "Key groups per operator")
      ->type_name("M")
      ->check(CLI::Range(1, 32768))
      ->capture_default_str();
  sub.add_option("--keys", o.keys, "Keys per operator")->type_name("K")->capture_default_str();
  sub.add_option("--value-size", o.value_size, "Bytes per byte[] value")
      ->type_name("B")
      ->check(CLI::Range(0, 1 << 26))
      ->capture_default_str();
  sub.add_option("--states", a->states, "State kinds, comma separated: value,list,map")
      ->type_name("KINDS")
      ->capture_default_str();
  sub.add_option("--seed", o.seed, "Seed: the same options and seed give the same bytes")->type_name("S")->capture_default_str();
  sub.add_option("--chain", o.chain, "Write chk-1..chk-N incremental RocksDB checkpoints sharing SSTs")
      ->type_name("N")
      ->check(CLI::Range(1, 100000));
  sub.add_option("--churn", o.churn, "Fraction of SST buckets rewritten per checkpoint of a chain")
      ->type_name("P")
      ->check(CLI::Range(0.0, 1.0))
      ->capture_default_str();
  sub.add_option("--hot-key-groups", o.hot_key_groups, "Plant skew: these key groups get --hot-factor times the keys")
      ->type_name("KG")
      ->delimiter(',');
  sub.add_option("--hot-factor", o.hot_factor, "Keys of a hot key group over an average one")
      ->type_name("F")
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
  sub.add_option("--sst-size", o.sst_bytes, "RocksDB: close a state's SST file at this many bytes (default 64 MiB)")
      ->type_name("BYTES")
      ->check(CLI::Range(uint64_t{1} << 10, uint64_t{1} << 40));
  sub.add_flag("--fragment-ssts", o.fragment_ssts, "Chain: each rewrite splits a bucket's SST files in two");
  sub.add_option("--ttl-span", a->ttl, "TTL states: last-access times spread over SPAN before 2026-01-01T00:00:00Z")
      ->type_name("SPAN");
  add_jobs_option(sub, &o.jobs, "Subtasks written at once");
  sub.add_flag("--force", o.force, "Replace an existing output directory");
  add_progress_options(sub, &a->progress);
  sub.add_flag("--json", a->json, "Describe what was written as JSON");
  return [a](Io& io) {
    GenerateOptions options = a->options;
    Result<GenerateBackend> backend = parse_generate_backend(a->backend);
    if (!backend.ok()) return report_error(io, backend.error());
    options.backend = *backend;
    if (!a->ttl.empty()) {
      Result<int64_t> span = parse_ttl_duration(a->ttl);
      if (!span.ok()) return report_error(io, Error(span.error().code, "--ttl-span: " + span.error().message));
      options.ttl_span = *span;
    }
    options.states.clear();
    std::stringstream ss(a->states);
    for (std::string s; std::getline(ss, s, ',');)
      if (!s.empty()) options.states.push_back(s);
    ProgressMeter meter(io, "generate", a->progress);
    options.progress = meter.counters();
    Result<GenerateSummary> s = generate_snapshot(options);
    meter.finish();
    if (!s.ok()) return report_error(io, s.error());
    if (a->json) {
      print_json(io, [&](JsonWriter& w) { write_generate_json(options, a->backend, *s, w); });
      return kExitOk;
    }
    if (options.chain > 0)
      io.out << fmt::format("{}: {}, {}, {}\n", options.output, counted(s->snapshots, "checkpoint", "checkpoints"),
                            counted(s->files, "file", "files"), counted(s->bytes, "byte", "bytes"));
    else
      io.out << fmt::format("{}: {} snapshot, {}, {}, {}\n", options.output, a->backend,
                            counted(s->entries, "entry", "entries"), counted(s->files, "file", "files"),
                            counted(s->bytes, "byte", "bytes"));
    return kExitOk;
  };
}

}  // namespace ckpt::cli
