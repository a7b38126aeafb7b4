// Counting the forks this process came out of as the child (pthread_atfork).
#include "support/fork_generation.h"

#include <pthread.h>

#include <atomic>

namespace ckpt {
namespace {

std::atomic<unsigned> g_forks{0};
[[maybe_unused]] const int g_watch =
    ::pthread_atfork(nullptr, nullptr, [] { g_forks.fetch_add(1, std::memory_order_relaxed); });

}  // namespace

unsigned fork_generation() { return g_forks.load(std::memory_order_relaxed); }

}  // namespace ckpt
