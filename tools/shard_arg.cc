// --shard K/N: one part of a snapshot's plan (ckpt/plan.h).
#include "shard_arg.h"

namespace ckpt::cli {

void add_shard_option(CLI::App& sub, std::string* spec, const std::string& what) {
  sub.add_option("--shard", *spec, "Only part K of N (from 0, as ckpt plan cuts them): " + what)->type_name("K/N");
}

void add_part_options(CLI::App& sub, std::string* spec, bool* finish) {
  CLI::Option* shard = sub.add_option("--shard", *spec,
                                      "Only part K of N (from 0, as ckpt plan cuts them): its files into "
                                      "OUTPUT.part-K-of-N, for --finish")
                           ->type_name("K/N");
  sub.add_flag("--finish", *finish, "Assemble OUTPUT from all its parts and write its _metadata")->excludes(shard);
}

bool shard_or_report(Io& io, const std::string& spec, std::optional<ShardSpec>* shard) {
  if (spec.empty()) return true;
  Result<ShardSpec> parsed = parse_shard(spec);
  if (!parsed.ok()) {
    report_error(io, parsed.error());
    return false;
  }
  *shard = *parsed;
  return true;
}

}  // namespace ckpt::cli
