// Read-only mappings of file ranges, page-aligned underneath.
#include "support/mapped_range.h"

#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace ckpt {

bool MappedRange::map(int fd, uint64_t offset, size_t len) {
  reset();
  if (len == 0) return false;
  struct stat st;
  if (::fstat(fd, &st) != 0 || static_cast<uint64_t>(st.st_size) < offset ||
      static_cast<uint64_t>(st.st_size) - offset < len)
    return false;
  static const uint64_t page = static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
  const uint64_t aligned = offset - offset % page;
  const size_t mapped = static_cast<size_t>(offset - aligned) + len;
  // Populated up front: one call maps what the page cache holds instead of a fault per 64 KiB.
  void* p = ::mmap(nullptr, mapped, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, static_cast<off_t>(aligned));
  if (p == MAP_FAILED) return false;
  base_ = p;
  mapped_ = mapped;
  start_ = static_cast<const char*>(p) + (offset - aligned);
  len_ = len;
  return true;
}

void MappedRange::reset() {
  if (base_) ::munmap(base_, mapped_);
  base_ = nullptr;
  mapped_ = 0;
  start_ = nullptr;
  len_ = 0;
}

}  // namespace ckpt
