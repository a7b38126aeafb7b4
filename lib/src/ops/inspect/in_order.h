// ops/inspect/in_order.h - a long output made a chunk at a time on two threads, used in order.
#pragma once

#include <cstddef>
#include <future>

namespace ckpt {

// fill(c, chunk) for every c in [0, chunks), alternate chunks on a second thread, and use(chunk)
// of each in order on the calling thread; two chunks exist at a time. The printers of a report
// of a million files spend most of their time making text that one thread had to make alone.
// Where no thread can be had, the second thread's chunks are made on the calling thread
// (std::launch::deferred): the same chunks either way.
template <class Chunk, class Fill, class Use>
void fill_in_order(size_t chunks, Fill fill, Use use) {
  Chunk even, odd;
  for (size_t c = 0; c < chunks; c += 2) {
    std::future<void> next;
    if (c + 1 < chunks) next = std::async(std::launch::async | std::launch::deferred, [&, c] { fill(c + 1, odd); });
    fill(c, even);
    use(even);
    if (next.valid()) {
      next.get();
      use(odd);
    }
  }
}

}  // namespace ckpt
