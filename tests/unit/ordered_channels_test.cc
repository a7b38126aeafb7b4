// OrderedChannels: items come out in task order, and workers do not run ahead of the consumer
// by more than their window, however many small tasks follow a slow one.
#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <thread>

#include "state/ordered_channels.h"

using namespace ckpt;

TEST_CASE("ordered channels keep task order and start at most 2 x jobs tasks ahead of the consumer", "[unit][state]") {
  // Task 0 is slow; the other 199 are tiny. While the consumer waits on task 0, the second
  // worker may start tasks 1..3 only (window 4 for two jobs), not run through all of them.
  constexpr size_t kTasks = 200;
  std::atomic<size_t> started{0};
  std::atomic<size_t> started_while_slow{0};
  OrderedChannels<size_t> channels(kTasks, 2);
  channels.start(2, [&](size_t task, const OrderedChannels<size_t>::Push& push) {
    ++started;
    if (task == 0) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      started_while_slow = started.load();
    }
    for (size_t k = 0; k < 3; ++k)
      if (!push(task * 10 + k)) return;
  });
  std::vector<size_t> got;
  for (size_t t = 0; t < kTasks; ++t) {
    size_t item;
    while (channels.pop(t, &item)) got.push_back(item);
  }
  channels.stop_and_join();
  CHECK(started_while_slow.load() <= 4);
  CHECK(started_while_slow.load() >= 2);  // the other worker did run ahead, within the window
  REQUIRE(got.size() == kTasks * 3);
  for (size_t i = 0; i < got.size(); ++i) CHECK(got[i] == (i / 3) * 10 + i % 3);
}

TEST_CASE("stopping ordered channels wakes workers that wait for room or for their window", "[unit][state]") {
  // A consumer that gives up after one item must not leave a worker blocked (join returns).
  OrderedChannels<int> channels(50, 1);
  channels.start(3, [&](size_t, const OrderedChannels<int>::Push& push) {
    for (int k = 0; k < 100; ++k)
      if (!push(int{k})) return;
  });
  int item = -1;
  REQUIRE(channels.pop(0, &item));
  CHECK(item == 0);
  channels.stop_and_join();
  CHECK(channels.stopped());
}

namespace {

// An in-memory overflow that takes `room` items, then refuses as a full disk would.
class VectorOverflow : public OrderedChannels<size_t>::Overflow {
 public:
  VectorOverflow(size_t room, std::atomic<size_t>& refused) : room_(room), refused_(refused) {}
  bool write(size_t& item) override {
    if (items_.size() - read_ >= room_ || written_ >= room_) {
      ++refused_;
      return false;
    }
    items_.push_back(item);
    ++written_;
    return true;
  }
  void read(size_t* out) override { *out = items_[read_++]; }

 private:
  size_t room_;
  std::atomic<size_t>& refused_;
  std::vector<size_t> items_;
  size_t read_ = 0, written_ = 0;
};

// Runs 12 tasks of 40 items each on three workers, task 0 slow, and returns what was popped.
std::vector<size_t> run_with_overflow(size_t room, std::atomic<size_t>& refused, size_t* overflowed) {
  constexpr size_t kTasks = 12;
  OrderedChannels<size_t> channels(kTasks, 1, [&] { return std::make_unique<VectorOverflow>(room, refused); });
  channels.start(3, [&](size_t task, const OrderedChannels<size_t>::Push& push) {
    if (task == 0) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    for (size_t k = 0; k < 40; ++k)
      if (!push(task * 100 + k)) return;
  });
  std::vector<size_t> got;
  for (size_t t = 0; t < kTasks; ++t) {
    size_t item;
    while (channels.pop(t, &item)) got.push_back(item);
  }
  *overflowed = channels.overflowed();
  channels.stop_and_join();
  return got;
}

}  // namespace

TEST_CASE("ordered channels overflow ahead of the consumer and still keep task order", "[unit][state]") {
  // With room for everything, workers on later tasks do not wait for the slow task 0: their
  // items go to the overflow (which the consumer reads back in order). With an overflow that
  // fills up after 5 items, workers fall back to waiting and nothing is lost or reordered.
  for (size_t room : {size_t{1000}, size_t{5}}) {
    INFO("room " << room);
    std::atomic<size_t> refused{0};
    size_t overflowed = 0;
    std::vector<size_t> got = run_with_overflow(room, refused, &overflowed);
    REQUIRE(got.size() == 12 * 40);
    for (size_t i = 0; i < got.size(); ++i) CHECK(got[i] == (i / 40) * 100 + i % 40);
    CHECK(overflowed > 0);
    if (room == 5) CHECK(refused.load() > 0);
    else CHECK(overflowed >= 40);  // at least one later task ran to its end during task 0's sleep
  }
}
