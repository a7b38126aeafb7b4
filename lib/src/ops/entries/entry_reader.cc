// EntryReader's iterator: the engine's subtasks read on worker threads, in order, as Entry
// values.
#include <cmath>
#include <algorithm>
#include <exception>
#include <memory>
#include <mutex>
#include <unordered_set>
#include <variant>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "ckpt/entries.h"
#include "ops/engine/input_checks.h"
#include "ops/engine/key_names.h"
#include "ops/entries/entry_engine.h"
#include "state/ordered_channels.h"
#include "support/json_text.h"
#include "support/worker_threads.h"
#include "types/value_of.h"

namespace ckpt {

void move_decoded_fields(StateEntry&& e, Entry& out) {
  if (e.is_value) {  // decoded straight to Values (the RocksDB layout's keyed entries)
    if (e.has_key) out.key = std::move(e.key_value);
    if (e.has_namespace) out.ns = std::move(e.ns_value);
    if (e.has_user_key) out.user_key = std::move(e.user_key_value);
    out.value = std::move(e.value_value);
  } else {
    if (e.has_key) out.key = value_of(std::move(e.key));
    if (e.has_namespace) out.ns = value_of(std::move(e.ns));
    if (e.has_user_key) out.user_key = value_of(std::move(e.user_key));
    out.value = value_of(std::move(e.value));
  }
}

namespace {

// A reused entry's string keeps its capacity for the next value, unless a rare huge one left it
// far larger than what it holds now (as RocksPairPool does).
constexpr size_t kKeptCapacity = 64 * 1024;

bool oversized(const std::string& kept, size_t needed) {
  return kept.capacity() > kKeptCapacity && needed < kept.capacity() / 2;
}

void assign_kept(std::string& to, const std::string& from) {
  if (oversized(to, from.size())) to = std::string();
  to = from;
}

// `to` takes `from`'s value. A scalar is copied into `to`'s strings, whose capacity a reused
// entry keeps (and `from`, a reader's scratch entry, keeps its own): no allocation per field.
void take_value(Value& from, Value& to) {
  if (from.kind() == Value::Kind::kArray || from.kind() == Value::Kind::kObject) {
    to = std::move(from);
    return;
  }
  const std::string& kept = to.kind() == Value::Kind::kBytes ? to.as_bytes() : to.as_string();
  const std::string& given = from.kind() == Value::Kind::kBytes ? from.as_bytes() : from.as_string();
  if (oversized(kept, given.size())) to = Value();
  to = from;
}
void take_value(bool has, Value& from, std::optional<Value>& to) {
  if (!has) to.reset();
  else if (to) take_value(from, *to);
  else to = std::move(from);
}

// Fills `out`, an entry of a chunk, new or reused (every field is set): entries are large, a
// move each costs.
void to_entry(StateEntry&& e, const EntryTask& t, bool operator_id, Entry& out) {
  if (operator_id) {
    out.operator_id = t.operator_hex;
    assign_kept(out.uid, t.uid);
  } else {
    out.operator_id.clear();
    out.uid.clear();
  }
  out.subtask = t.subtask->index;
  assign_kept(out.state, e.state);
  out.kind = e.kind;
  if (e.kind != EntryKind::kOperator) out.key_group = e.key_group;
  else out.key_group.reset();
  if (e.is_value) {
    take_value(e.has_key, e.key_value, out.key);
    take_value(e.has_namespace, e.ns_value, out.ns);
    take_value(e.has_user_key, e.user_key_value, out.user_key);
    take_value(e.value_value, out.value);
  } else {
    out.key.reset();
    out.ns.reset();
    out.user_key.reset();
    move_decoded_fields(std::move(e), out);
  }
  out.has_raw = e.has_raw;
  assign_kept(out.raw_key, e.raw_key);
  assign_kept(out.raw_namespace, e.raw_ns);
  assign_kept(out.raw_user_key, e.raw_user_key);
  assign_kept(out.raw_value, e.raw_value);
  if (t.key_columns && out.key) *out.key = name_row_fields(*out.key, *t.key_columns);
}

constexpr size_t kChunkEntries = 256;  // entries handed over at once

using ChunkOrError = std::variant<std::vector<Entry>, Error>;
using Channels = OrderedChannels<ChunkOrError>;

// Chunks the consumer is done with, for the workers to overwrite in place: the entries' memory
// is reused (or freed) on the workers, which allocated it, and the consumer's thread (the one
// that keeps the pace where it compares or prints) does not destroy entries.
class ChunkPool {
 public:
  explicit ChunkPool(size_t limit) : limit_(limit) {}
  // A chunk with room for kChunkEntries entries, holding the entries of a chunk the consumer
  // is done with (to be overwritten) or none.
  std::vector<Entry> take() {
    std::vector<Entry> chunk;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (!free_.empty()) {
        chunk = std::move(free_.back());
        free_.pop_back();
      }
    }
    chunk.reserve(kChunkEntries);  // entries are large: no moves of them as the chunk grows
    return chunk;
  }
  // False when the pool is full: the caller keeps (and destroys) the chunk.
  bool put(std::vector<Entry>& chunk) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (free_.size() >= limit_) return false;
    free_.push_back(std::move(chunk));
    chunk = std::vector<Entry>();
    return true;
  }

 private:
  const size_t limit_;
  std::mutex mutex_;
  std::vector<std::vector<Entry>> free_;
};

// A worker's side: entries converted on the worker thread, handed over in chunks.
class ChunkOutput : public TaskOutput {
 public:
  ChunkOutput(const Channels::Push& push, const EntryTask& task, bool operator_ids, ChunkPool& pool)
      : push_(push), task_(task), operator_ids_(operator_ids), pool_(pool), chunk_(pool.take()) {}
  bool add(StateEntry&& e) override {
    to_entry(std::move(e), task_, operator_ids_, used_ < chunk_.size() ? chunk_[used_] : chunk_.emplace_back());
    ++used_;
    return used_ < kChunkEntries || flush();
  }
  bool problem(Error&& e) override { return flush() && push_(ChunkOrError(std::move(e))); }
  bool flush() {
    if (used_ == 0) return true;
    chunk_.resize(used_);  // a reused chunk's entries past the last one filled go
    std::vector<Entry> full = std::move(chunk_);
    chunk_ = pool_.take();
    used_ = 0;
    return push_(ChunkOrError(std::move(full)));
  }

 private:
  const Channels::Push& push_;
  const EntryTask& task_;
  const bool operator_ids_;
  ChunkPool& pool_;
  std::vector<Entry> chunk_;
  size_t used_ = 0;  // entries of chunk_ filled; the rest are a reused chunk's, to overwrite
};

class ChannelIterator : public EntryPull {
 public:
  ChannelIterator(const EntryReaderImpl& impl, EntryPulling pulling)
      : impl_(impl),
        pulling_(std::move(pulling)),
        pool_(pulling_.chunks_ahead * std::max(pulling_.jobs, 1)),
        channels_(pulling_.tasks.size(), pulling_.chunks_ahead) {
    pulling_.reading.filter.values = true;
    pulling_.reading.keep_going = static_cast<bool>(pulling_.on_problem);
    channels_.start(pulling_.jobs, [this](size_t i, const Channels::Push& push) {
      ChunkOutput out(push, pulling_.tasks[i], pulling_.operator_ids, pool_);
      impl_.read_task(pulling_.tasks[i], pulling_.reading, out);
      out.flush();
    });
    advance();
  }
  ~ChannelIterator() override { channels_.stop_and_join(); }

  bool valid() const override { return index_ < chunk_.size(); }
  const Entry& entry() const override { return chunk_[index_]; }
  Entry& current() override { return chunk_[index_]; }
  void next() override {
    ++index_;
    advance();
  }
  const Status& status() const override { return status_; }
  bool take_chunk(std::vector<Entry>* out) override {
    if (!valid()) return false;
    if (index_ > 0) chunk_.erase(chunk_.begin(), chunk_.begin() + static_cast<std::ptrdiff_t>(index_));
    *out = std::move(chunk_);
    chunk_.clear();
    index_ = 0;
    advance();
    return true;
  }
  void recycle(std::vector<Entry>&& chunk) override {
    if (!pool_.put(chunk)) chunk = std::vector<Entry>();
  }

 private:
  // Until index_ names an entry: the next chunk of this task, else of the next tasks.
  void advance() {
    while (index_ >= chunk_.size()) {
      if (!chunk_.empty()) recycle(std::move(chunk_));
      chunk_ = std::vector<Entry>();
      index_ = 0;
      if (!status_.ok() || task_ >= pulling_.tasks.size()) return;
      ChunkOrError item;
      if (!channels_.pop(task_, &item)) {
        if (std::exception_ptr thrown = channels_.thrown(task_)) {
          const EntryTask& t = pulling_.tasks[task_];
          problem(internal_error(thrown).with_file(impl_.where.metadata_path).with_context(
              fmt::format("operator {}, subtask {}", t.operator_hex, t.subtask->index)));
        }
        ++task_;
        continue;
      }
      if (auto* e = std::get_if<Error>(&item)) {
        problem(std::move(*e));
        continue;
      }
      chunk_ = std::move(std::get<std::vector<Entry>>(item));
    }
  }
  void problem(Error&& e) {
    if (pulling_.on_problem) pulling_.on_problem(e);
    else status_ = std::move(e);
  }

  const EntryReaderImpl& impl_;
  EntryPulling pulling_;
  ChunkPool pool_;  // before channels_: the workers use it until they are joined
  Channels channels_;
  size_t task_ = 0;
  std::vector<Entry> chunk_;
  size_t index_ = 0;
  Status status_ = Status::OK();
};

// An iteration that ends before its first entry, with the error that ended it.
class FailedIteration : public EntryIterator {
 public:
  explicit FailedIteration(Status status) : status_(std::move(status)) {}
  bool valid() const override { return false; }
  const Entry& entry() const override { return none_; }  // never called: valid() is false
  void next() override {}
  const Status& status() const override { return status_; }

 private:
  Status status_;
  Entry none_;
};

}  // namespace

uint64_t entry_bytes(const Entry& e) {
  if (e.has_raw) return e.raw_key.size() + e.raw_namespace.size() + e.raw_user_key.size() + e.raw_value.size();
  uint64_t n = e.value.json().size();
  if (e.key) n += e.key->json().size();
  if (e.ns) n += e.ns->json().size();
  if (e.user_key) n += e.user_key->json().size();
  return n;
}

EntryIterator::~EntryIterator() = default;

std::unique_ptr<EntryPull> pull_entries(const EntryReaderImpl& reader, EntryPulling pulling) {
  return std::make_unique<ChannelIterator>(reader, std::move(pulling));
}

std::unique_ptr<EntryIterator> EntryReader::entries() const {
  // Entries that all decode are no good reading of a subtask whose file is short or whose
  // key-group range is wrong (a file RocksDB never opens, such as OPTIONS, is not decoded at
  // all): verify's quick checks first, as dump runs them, so that a query, a report or a
  // Python iteration never hands on as clean what dump refuses.
  std::unordered_set<const SubtaskState*> read;
  for (const EntryTask& t : impl_->tasks) read.insert(t.subtask);
  Result<const StructureFindings*> found = impl_->snapshot->structure();
  if (!found.ok()) return std::make_unique<FailedIteration>(Status(std::move(found).error()));
  // Shares the snapshot's findings, which outlive every reader of it.
  std::shared_ptr<const std::unordered_set<std::string>> faulty(impl_->snapshot, &(*found)->faulty);
  const auto& on_problem = impl_->options.on_problem;
  Status checked = report_structure_problems(
      **found, impl_->metadata(), impl_->where,
      [&read](const OperatorState&, const SubtaskState& st) { return read.count(&st) > 0; },
      [&on_problem](Error&& e) -> Status {
        if (!on_problem) return std::move(e);
        on_problem(e);
        return Status::OK();
      });
  if (!checked.ok()) return std::make_unique<FailedIteration>(std::move(checked));
  EntryPulling pulling;
  pulling.tasks = impl_->tasks;
  pulling.reading.filter = impl_->filter;
  pulling.reading.filter.raw_bytes = impl_->options.raw_bytes;
  pulling.reading.filter.decode = impl_->options.decode;
  pulling.jobs = impl_->options.jobs;
  if (on_problem) {
    // A file the checks reported: its decoding errors say nothing new.
    pulling.on_problem = [on_problem, faulty](const Error& e) {
      if (!faulty->count(e.file)) on_problem(e);
    };
  }
  return pull_entries(*impl_, std::move(pulling));
}

Status EntryReader::for_each(const std::function<Status(const Entry&)>& visit) const {
  std::unique_ptr<EntryIterator> it = entries();
  for (; it->valid(); it->next()) CKPT_RETURN_IF_ERROR(visit(it->entry()));
  return it->status();
}

}  // namespace ckpt
