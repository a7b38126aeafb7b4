// The shared --remap option and its parsing.
#include "remap_arg.h"

#include "ckpt/metadata.h"

namespace ckpt::cli {

void add_remap_option(CLI::App& sub, std::vector<std::string>* specs) {
  sub.add_option("--remap", *specs, "Look for files under URI prefix PREFIX in local directory DIR (repeatable)")
      ->type_name("PREFIX=DIR")
      // One value per --remap: a vector option would otherwise take the SNAPSHOT after it too
      // ("ckpt restore --remap P=D SNAP" failed with "SNAPSHOT is required").
      ->allow_extra_args(false);
}

std::optional<std::vector<PrefixRule>> prefix_rules_or_report(Io& io, const std::vector<std::string>& specs,
                                                              const char* flag,
                                                              const std::vector<std::string>& snapshots) {
  Result<std::vector<PrefixRule>> rules = parse_prefix_rules(specs, flag);
  if (!rules.ok()) {
    print_error(io, rules.error().to_string());
    return std::nullopt;
  }
  if (!rules->empty() && !snapshots.empty()) {
    std::vector<bool> used(rules->size(), false);
    for (const std::string& s : snapshots) {
      Result<SnapshotLocation> where = locate_snapshot(s);
      if (!where.ok()) return std::move(*rules);
      Result<Metadata> m = read_metadata_file(where->metadata_path);
      if (!m.ok()) return std::move(*rules);
      for (size_t i : used_prefix_rules(*m, *rules)) used[i] = true;
    }
    for (size_t i = 0; i < rules->size(); ++i)
      if (!used[i])
        print_warning(io, std::string(flag) + " " + (*rules)[i].prefix + "=" + (*rules)[i].replacement +
                              ": no file reference of the snapshot starts with " + (*rules)[i].prefix);
  }
  return std::move(*rules);
}

void add_key_serializers_option(CLI::App& sub, std::string* snapshot, const std::string& when) {
  const std::string what = "nother snapshot of the job naming the key serializers change logs lack";
  sub.add_option("--key-serializers-from", *snapshot, when.empty() ? "A" + what : when + "a" + what)
      ->type_name("SNAPSHOT");
}

}  // namespace ckpt::cli
