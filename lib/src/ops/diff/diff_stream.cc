// DiffEntryStream: one side's dump read on its own thread, so that both sides advance together.
#include "ops/diff/diff_internal.h"

#include "support/worker_threads.h"

namespace ckpt {

namespace {

// Entries change hands in batches (one lock and wake-up per batch, not per entry); a few
// batches in flight keep the reader busy and stay small next to a key group.
constexpr size_t kBatch = 256;
constexpr size_t kBatchesInFlight = 4;

}  // namespace

class DiffEntryStream::Sink : public DumpSink {
 public:
  explicit Sink(DiffEntryStream& s) : s_(s) { batch_.reserve(kBatch); }
  void entry(const DumpEntry& e) override {
    if (s_.keep_ && !s_.keep_(e)) return;
    batch_.push_back(e);
    if (batch_.size() == kBatch) flush();
  }
  void problem(const Error&) override {}  // not keep_going: errors end the dump

  void flush() {
    if (batch_.empty()) return;
    std::unique_lock<std::mutex> lock(s_.m_);
    s_.cv_.wait(lock, [&] { return s_.queue_.size() < kBatchesInFlight || s_.cancelled_; });
    // Cancelled: the reader runs to the end of its (operator, state) pass, unheard.
    if (!s_.cancelled_) {
      s_.queue_.push_back(std::move(batch_));
      s_.cv_.notify_all();
    }
    batch_ = {};
    batch_.reserve(kBatch);
  }

 private:
  DiffEntryStream& s_;
  std::vector<DumpEntry> batch_;
};

DiffEntryStream::DiffEntryStream(std::string snapshot, DumpOptions options, std::function<bool(const DumpEntry&)> keep)
    : keep_(std::move(keep)) {
  thread_ = std::thread([this, snapshot = std::move(snapshot), options = std::move(options)] {
    Status s = catch_internal([&]() -> Status {
      Sink sink(*this);
      Result<DumpSummary> r = dump_snapshot(snapshot, options, sink);
      if (!r.ok()) return std::move(r).error();
      sink.flush();
      return Status::OK();
    });
    std::lock_guard<std::mutex> lock(m_);
    if (!s.ok()) status_ = std::move(s).error();
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
  if (at_ == current_.size()) {
    std::unique_lock<std::mutex> lock(m_);
    cv_.wait(lock, [&] { return !queue_.empty() || done_; });
    if (queue_.empty()) return false;
    current_ = std::move(queue_.front());
    queue_.pop_front();
    at_ = 0;
    cv_.notify_all();
  }
  *out = std::move(current_[at_++]);
  return true;
}

Status DiffEntryStream::status() {
  std::unique_lock<std::mutex> lock(m_);
  cv_.wait(lock, [&] { return done_; });
  return status_;
}

}  // namespace ckpt
