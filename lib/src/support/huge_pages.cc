// Anonymous mappings advised to use huge pages.
#include "support/huge_pages.h"

#include <sys/mman.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace ckpt {

void* map_huge_pages(size_t bytes) {
  // Mapped with a huge page to spare, then trimmed to a 2 MiB boundary at both ends.
  const size_t extra = bytes >= kHugePage ? kHugePage : 0;
  void* raw = ::mmap(nullptr, bytes + extra, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) return nullptr;
  char* data = static_cast<char*>(raw);
  if (extra) {
    const auto at = reinterpret_cast<uintptr_t>(raw);
    const size_t head = ((at + kHugePage - 1) & ~(uintptr_t{kHugePage} - 1)) - at;
    if (head) ::munmap(raw, head);
    if (extra - head) ::munmap(data + head + bytes, extra - head);
    data += head;
  }
#ifdef MADV_HUGEPAGE
  ::madvise(data, bytes, MADV_HUGEPAGE);
#endif
  return data;
}

void unmap_pages(void* data, size_t bytes) {
  if (data) ::munmap(data, bytes);
}

static size_t whole_pages(size_t bytes) { return (bytes + kHugePage - 1) / kHugePage * kHugePage; }

PageStock::~PageStock() {
  for (const Run& r : runs_) unmap_pages(r.data, r.size);
}

void PageStock::give(void* data, size_t bytes) {
  if (!data || bytes == 0) return;
  std::lock_guard<std::mutex> lock(mu_);
  char* at = static_cast<char*>(data);
  if (!runs_.empty() && runs_.back().data + runs_.back().size == at) {
    runs_.back().size += bytes;
    return;
  }
  try {
    runs_.push_back({at, bytes});
  } catch (...) {
    unmap_pages(data, bytes);  // no room to keep it: given back to the kernel instead
  }
}

void* PageStock::take(size_t need, size_t want, size_t& got) {
  need = whole_pages(need);
  want = std::max(whole_pages(want), need);
  std::lock_guard<std::mutex> lock(mu_);
  for (size_t i = 0; i < runs_.size(); ++i) {
    Run& r = runs_[i];
    if (r.size < need) continue;
    got = std::min(r.size, want);
    char* out = r.data;
    r.data += got;
    r.size -= got;
    if (r.size == 0) runs_.erase(runs_.begin() + static_cast<std::ptrdiff_t>(i));
    return out;
  }
  return nullptr;
}

}  // namespace ckpt
