// -j,--jobs N (jobs_arg.h).
#include "jobs_arg.h"

namespace ckpt::cli {

void add_jobs_option(CLI::App& sub, int* jobs, const std::string& help) {
  sub.add_option("-j,--jobs", *jobs, help)->type_name("N")->check(CLI::Range(1, kMaxJobs));
}

}  // namespace ckpt::cli
