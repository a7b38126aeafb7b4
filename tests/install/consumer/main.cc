// Reads a snapshot's _metadata through the installed public API and prints what it holds.
#include <cstdio>

#include "ckpt/metadata.h"
#include "ckpt/version.h"

// Built with a newer standard than ckpt's (-std=c++23 before pkg-config's flags): that standard
// must be the one in force, not one a flag of ckpt's put back.
#ifdef CKPT_CONSUMER_AFTER_CXX20
static_assert(__cplusplus > 202002L, "the -std the program asked for was overridden");
#endif

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  ckpt::Result<ckpt::Metadata> m = ckpt::read_metadata_file(argv[1]);
  if (!m.ok()) {
    std::fprintf(stderr, "%s\n", m.error().to_string().c_str());
    return 2;
  }
  std::printf("ckpt %s: checkpoint %lld, %zu operators\n", ckpt::version_string(),
              static_cast<long long>(m->checkpoint_id), m->operators.size());
  return 0;
}
