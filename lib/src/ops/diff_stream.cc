// DiffEntryStream: one side's dump read on its own thread, so that both sides advance together.
#include "ops/diff_internal.h"

namespace ckpt {

namespace {

// Entries in flight per side: enough to keep the reader busy, small next to one key group.
constexpr size_t kQueueCapacity = 1024;

}  // namespace

class DiffEntryStream::Sink : public DumpSink {
 public:
  explicit Sink(DiffEntryStream& s) : s_(s) {}
  void entry(const DumpEntry& e) override {
    if (s_.keep_ && !s_.keep_(e)) return;
    std::unique_lock<std::mutex> lock(s_.m_);
    s_.cv_.wait(lock, [&] { return s_.queue_.size() < kQueueCapacity || s_.cancelled_; });
    // Cancelled: the reader runs to the end of its (operator, state) pass, unheard.
    if (s_.cancelled_) return;
    s_.queue_.push_back(e);
    s_.cv_.notify_all();
  }
  void problem(const Error&) override {}  // not keep_going: errors end the dump

 private:
  DiffEntryStream& s_;
};

DiffEntryStream::DiffEntryStream(std::string snapshot, DumpOptions options, std::function<bool(const DumpEntry&)> keep)
    : keep_(std::move(keep)) {
  thread_ = std::thread([this, snapshot = std::move(snapshot), options = std::move(options)] {
    Sink sink(*this);
    Result<DumpSummary> r = dump_snapshot(snapshot, options, sink);
    std::lock_guard<std::mutex> lock(m_);
    if (!r.ok()) status_ = std::move(r).error();
    done_ = true;
    cv_.notify_all();
  });
}

DiffEntryStream::~DiffEntryStream() {
  {
    std::lock_guard<std::mutex> lock(m_);
    cancelled_ = true;
    queue_.clear();
    cv_.notify_all();
  }
  thread_.join();
}

bool DiffEntryStream::next(DumpEntry* out) {
  std::unique_lock<std::mutex> lock(m_);
  cv_.wait(lock, [&] { return !queue_.empty() || done_; });
  if (queue_.empty()) return false;
  *out = std::move(queue_.front());
  queue_.pop_front();
  cv_.notify_all();
  return true;
}

Status DiffEntryStream::status() {
  std::unique_lock<std::mutex> lock(m_);
  cv_.wait(lock, [&] { return done_; });
  return status_;
}

}  // namespace ckpt
