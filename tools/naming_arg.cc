// The shared --plan, --uid and --uids options.
#include "naming_arg.h"

namespace ckpt::cli {

void add_naming_options(CLI::App& sub, NamingArgs* args, const std::string& plan_help) {
  sub.add_option("--plan", args->plan,
                 plan_help.empty() ? "Name operators from Flink's compiled SQL plan (JSON) of the job" : plan_help)
      ->type_name("FILE");
  sub.add_option("--uid", args->uids, "Name the operator whose uid is NAME (repeatable)")->type_name("NAME");
  sub.add_option("--uids", args->uids_file, "Name operators by the uids in FILE, one a line")->type_name("FILE");
}

std::optional<OperatorNames> names_or_report(Io& io, const NamingArgs& args) {
  OperatorNames names;
  Status s = Status::OK();
  if (!args.plan.empty()) s = names.add_plan_file(args.plan);
  if (s.ok() && !args.uids_file.empty()) s = names.add_uids_file(args.uids_file);
  if (!s.ok()) {
    print_error(io, s.error().to_string());
    return std::nullopt;
  }
  for (const std::string& uid : args.uids) names.add_uid(uid);
  return names;
}

void warn_unmatched_uids(Io& io, const std::vector<std::string>& unmatched) {
  if (unmatched.empty()) return;
  std::string list;
  for (const std::string& uid : unmatched) list += (list.empty() ? "" : ", ") + uid;
  print_warning(io, std::to_string(unmatched.size()) + (unmatched.size() == 1 ? " uid names" : " uids name") +
                        " no operator: " + list);
}

}  // namespace ckpt::cli
