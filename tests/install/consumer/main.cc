// Reads a snapshot's _metadata through the installed public API and prints what it holds.
#include <cstdio>

#include "ckpt/metadata.h"
#include "ckpt/version.h"

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
