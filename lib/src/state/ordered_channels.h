// state/ordered_channels.h - parallel producers, output in task order, bounded memory.
//
// Task i's items reach the consumer only after all items of tasks before it. Workers take
// tasks in ascending order, so the task the consumer waits for is always running or done;
// each task buffers at most `capacity` items, after which its worker waits, and a worker
// starts a task only within 2 x jobs tasks of the one being consumed (finished tasks keep
// their items until then). Memory is thus bounded by 2 x jobs x capacity items whatever the
// number of tasks, and a stop (limit reached, fatal error) wakes everyone.
//
// With an Overflow, a worker whose task is not the one being consumed does not wait when its
// buffer is full: it writes further items to the overflow (a file) and the consumer reads them
// back when it gets there. A run of overflowed items sits in the task's queue as one marker;
// the marker takes items only while it is the queue's last entry and the consumer has not
// reached the task, so whatever is pushed after it comes after it. Memory stays bounded as
// above; the overflow holds at most the output of the tasks running ahead.
//
// An exception thrown by a task ends that task only; the consumer asks thrown(task) after the
// task's last item.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <exception>
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

  // Items that wait on disk instead of in memory, read back in the order written.
  class Overflow {
   public:
    virtual ~Overflow() = default;
    // Takes `item` (moved from only on success); false if it cannot or will not be written.
    virtual bool write(Item& item) = 0;
    // The next item written (an overflow that cannot read back says so in the item).
    virtual void read(Item* out) = 0;
  };
  // A new overflow for one task, or null when none can be had (the worker then waits).
  using MakeOverflow = std::function<std::unique_ptr<Overflow>()>;

  OrderedChannels(size_t tasks, size_t capacity, MakeOverflow make_overflow = nullptr)
      : capacity_(capacity), make_overflow_(std::move(make_overflow)), channels_(tasks) {
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
    c.cv.wait(lock, [&] { return !c.slots.empty() || c.done; });
    if (c.slots.empty()) {
      c.overflow.reset();  // its disk space goes back now, not at the end of the run
      return false;
    }
    Slot& front = c.slots.front();
    if (front.overflowed != 0) {
      c.overflow->read(out);
      if (--front.overflowed == 0) c.slots.pop_front();
      return true;
    }
    *out = std::move(front.item);
    c.slots.pop_front();
    --c.in_memory;
    c.cv.notify_all();
    return true;
  }

  // What task `task`'s produce() threw, once pop() has returned false for it; null if nothing.
  std::exception_ptr thrown(size_t task) {
    Channel& c = *channels_[task];
    std::lock_guard<std::mutex> lock(c.m);
    return c.thrown;
  }

  // Items written to overflows so far (tests check that a tiny capacity really spills).
  size_t overflowed() const { return overflowed_.load(); }

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
  // An item in memory (overflowed == 0) or a marker for that many items in the overflow.
  struct Slot {
    Item item;
    size_t overflowed = 0;
  };
  struct Channel {
    std::mutex m;
    std::condition_variable cv;
    std::deque<Slot> slots;
    size_t in_memory = 0;  // slots holding an item
    bool done = false;
    std::unique_ptr<Overflow> overflow;
    bool overflow_failed = false;  // no file, or a write failed: wait as without one
    std::exception_ptr thrown;     // what the task's produce() threw
  };

  // Runs under c.m. True if the item went to the overflow (as a run that must stay last).
  bool try_overflow(Channel& c, size_t task, Item& item) {
    if (!make_overflow_ || c.overflow_failed || task <= consuming_.load()) return false;
    bool open_run = !c.slots.empty() && c.slots.back().overflowed != 0;
    if (!open_run && c.in_memory < capacity_) return false;
    if (!c.overflow) c.overflow = make_overflow_();
    if (!c.overflow || !c.overflow->write(item)) {
      c.overflow_failed = true;
      return false;
    }
    ++overflowed_;
    if (open_run) {
      ++c.slots.back().overflowed;
    } else {
      c.slots.push_back(Slot{Item(), 1});
      c.cv.notify_all();
    }
    return true;
  }

  bool push(Channel& c, size_t task, Item&& item) {
    std::unique_lock<std::mutex> lock(c.m);
    for (;;) {
      if (stop_.load()) return false;
      if (try_overflow(c, task, item)) return true;
      if (c.in_memory < capacity_) break;
      c.cv.wait(lock);
    }
    c.slots.push_back(Slot{std::move(item), 0});
    ++c.in_memory;
    c.cv.notify_all();
    return true;
  }

  void work() {
    for (;;) {
      size_t task = next_.fetch_add(1);
      if (task >= channels_.size()) return;
      {
        std::unique_lock<std::mutex> lock(window_m_);
        window_cv_.wait(lock, [&] { return task < consuming_.load() + window_ || stop_.load(); });
      }
      Channel& c = *channels_[task];
      std::exception_ptr thrown;
      if (!stop_.load()) {
        // An exception leaving a worker would end the process: the consumer gets it instead.
        try {
          produce_(task, [&](Item&& item) { return push(c, task, std::move(item)); });
        } catch (...) {
          thrown = std::current_exception();
        }
      }
      std::lock_guard<std::mutex> lock(c.m);
      c.thrown = thrown;
      c.done = true;
      c.cv.notify_all();
    }
  }

  size_t capacity_;
  MakeOverflow make_overflow_;
  std::vector<std::unique_ptr<Channel>> channels_;
  std::atomic<size_t> overflowed_{0};
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
