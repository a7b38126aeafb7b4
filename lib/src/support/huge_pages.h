// support/huge_pages.h - anonymous memory taken from the kernel in whole runs, advised to use
// transparent huge pages: one page fault per 2 MiB where the kernel allows it (madvise mode),
// not one per 4 KiB. On a virtual machine a fault costs microseconds; inspecting a 216 MiB
// `_metadata` touched half a GiB of fresh memory, and its faults were a fifth of its time. Memory
// read all over in no order (a spill bucket sorted where it lies) also misses the TLB far less.
#pragma once

#include <cstddef>
#include <mutex>
#include <vector>

namespace ckpt {

inline constexpr size_t kHugePage = size_t{2} << 20;

// `bytes` (> 0) of zeros; from 2 MiB on, starting at a 2 MiB boundary (the kernel backs only
// aligned 2 MiB with a huge page). nullptr when the kernel refuses.
void* map_huge_pages(size_t bytes);
// Gives back what map_huge_pages(bytes) returned.
void unmap_pages(void* data, size_t bytes);

// Memory one owner is done with, for another to take as it is: no fresh pages for the kernel
// to fault in and clear. inspect's file image gives the 2 MiB pages its decoder has passed, and
// the report being built takes them (a fifth of inspecting a 216 MiB `_metadata` was the kernel
// clearing fresh pages, on a virtual machine where each first touch also costs the host).
// Safe to share between threads.
class PageStock {
 public:
  PageStock() = default;
  PageStock(const PageStock&) = delete;
  PageStock& operator=(const PageStock&) = delete;
  ~PageStock();  // unmaps what nobody took

  // Hands over [data, data + bytes): whole 2 MiB pages of a mapping of map_huge_pages(), the
  // stock's from then on.
  void give(void* data, size_t bytes);
  // The caller's from then on (unmap_pages(data, got)), holding whatever it held: `got` bytes,
  // whole 2 MiB pages, at least `need` and at most `want` rounded up to a page where the stock
  // has them. nullptr when it has no run of `need`.
  void* take(size_t need, size_t want, size_t& got);

 private:
  struct Run {
    char* data;
    size_t size;
  };
  std::mutex mu_;
  std::vector<Run> runs_;  // adjacent gifts merged
};

}  // namespace ckpt
