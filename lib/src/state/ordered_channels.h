// state/ordered_channels.h - parallel producers, output in task order, bounded memory.
//
// Task i's items reach the consumer only after all items of tasks before it. Workers take
// tasks in ascending order, so the task the consumer waits for is always running or done;
// each task buffers at most `capacity` items, after which its worker waits, and a worker
// starts a task only within 2 x jobs tasks of the one being consumed (finished tasks keep
// their items until then). Memory is thus bounded by 2 x jobs x capacity items whatever the
// number of tasks, and a stop (limit reached, fatal error) wakes everyone.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace ckpt {

template <class Item>
class OrderedChannels {
 public:
  // `produce(task, push)` runs task `task`; push(item) returns false once the run is stopped.
  using Push = std::function<bool(Item&&)>;
  using Produce = std::function<void(size_t task, const Push& push)>;

  OrderedChannels(size_t tasks, size_t capacity) : capacity_(capacity), channels_(tasks) {
    for (auto& c : channels_) c = std::make_unique<Channel>();
  }
  ~OrderedChannels() { stop_and_join(); }

  void start(int jobs, Produce produce) {
    produce_ = std::move(produce);
    size_t n = std::max<size_t>(1, std::min<size_t>(static_cast<size_t>(std::max(jobs, 1)), channels_.size()));
    window_ = 2 * n;
    for (size_t i = 0; i < n && !channels_.empty(); ++i) workers_.emplace_back([this] { work(); });
  }

  // Next item of task `task` (call for tasks in ascending order); false when it has no more.
  bool pop(size_t task, Item* out) {
    if (task > consuming_.load()) {
      std::lock_guard<std::mutex> lock(window_m_);
      consuming_.store(task);
      window_cv_.notify_all();
    }
    Channel& c = *channels_[task];
    std::unique_lock<std::mutex> lock(c.m);
    c.cv.wait(lock, [&] { return !c.items.empty() || c.done; });
    if (c.items.empty()) return false;
    *out = std::move(c.items.front());
    c.items.pop_front();
    c.cv.notify_all();
    return true;
  }

  bool stopped() const { return stop_.load(); }

  void stop_and_join() {
    stop_.store(true);
    {
      std::lock_guard<std::mutex> lock(window_m_);
      window_cv_.notify_all();
    }
    for (auto& c : channels_) {
      std::lock_guard<std::mutex> lock(c->m);
      c->cv.notify_all();
    }
    for (auto& w : workers_)
      if (w.joinable()) w.join();
    workers_.clear();
  }

 private:
  struct Channel {
    std::mutex m;
    std::condition_variable cv;
    std::deque<Item> items;
    bool done = false;
  };

  void work() {
    for (;;) {
      size_t task = next_.fetch_add(1);
      if (task >= channels_.size()) return;
      {
        std::unique_lock<std::mutex> lock(window_m_);
        window_cv_.wait(lock, [&] { return task < consuming_.load() + window_ || stop_.load(); });
      }
      Channel& c = *channels_[task];
      if (!stop_.load()) {
        produce_(task, [&](Item&& item) {
          std::unique_lock<std::mutex> lock(c.m);
          c.cv.wait(lock, [&] { return c.items.size() < capacity_ || stop_.load(); });
          if (stop_.load()) return false;
          c.items.push_back(std::move(item));
          c.cv.notify_all();
          return true;
        });
      }
      std::lock_guard<std::mutex> lock(c.m);
      c.done = true;
      c.cv.notify_all();
    }
  }

  size_t capacity_;
  std::vector<std::unique_ptr<Channel>> channels_;
  std::vector<std::thread> workers_;
  std::atomic<size_t> next_{0};
  std::atomic<bool> stop_{false};
  // The task the consumer pops from; workers start tasks below consuming_ + window_.
  std::atomic<size_t> consuming_{0};
  size_t window_ = 2;
  std::mutex window_m_;
  std::condition_variable window_cv_;
  Produce produce_;
};

}  // namespace ckpt
