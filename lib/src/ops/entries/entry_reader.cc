// EntryReader's iterator: the engine's subtasks read on worker threads, in order, as Entry
// values.
#include <cmath>
#include <exception>
#include <variant>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "ckpt/entries.h"
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

// Fills `out`, a new Entry in place in its chunk: entries are large, a move each costs.
void to_entry(StateEntry&& e, const EntryTask& t, Entry& out) {
  out.operator_id = t.operator_hex;
  out.subtask = t.subtask->index;
  out.state = std::move(e.state);
  out.kind = e.kind;
  if (e.kind != EntryKind::kOperator) out.key_group = e.key_group;
  move_decoded_fields(std::move(e), out);
  out.has_raw = e.has_raw;
  out.raw_key = std::move(e.raw_key);
  out.raw_namespace = std::move(e.raw_ns);
  out.raw_user_key = std::move(e.raw_user_key);
  out.raw_value = std::move(e.raw_value);
}

constexpr size_t kChunkEntries = 256;  // entries handed over at once
constexpr size_t kChunksAhead = 4;     // chunks in memory per running subtask

using ChunkOrError = std::variant<std::vector<Entry>, Error>;
using Channels = OrderedChannels<ChunkOrError>;

// A worker's side: entries converted on the worker thread, handed over in chunks.
class ChunkOutput : public TaskOutput {
 public:
  ChunkOutput(const Channels::Push& push, const EntryTask& task) : push_(push), task_(task) {
    chunk_.reserve(kChunkEntries);  // entries are large: no moves of them as the chunk grows
  }
  bool add(StateEntry&& e) override {
    to_entry(std::move(e), task_, chunk_.emplace_back());
    return chunk_.size() < kChunkEntries || flush();
  }
  bool problem(Error&& e) override { return flush() && push_(ChunkOrError(std::move(e))); }
  bool flush() {
    if (chunk_.empty()) return true;
    std::vector<Entry> full = std::move(chunk_);
    chunk_.clear();
    chunk_.reserve(kChunkEntries);
    return push_(ChunkOrError(std::move(full)));
  }

 private:
  const Channels::Push& push_;
  const EntryTask& task_;
  std::vector<Entry> chunk_;
};

class ChannelIterator : public EntryIterator {
 public:
  explicit ChannelIterator(const EntryReaderImpl& impl) : impl_(impl), channels_(impl.tasks.size(), kChunksAhead) {
    reading_.filter = impl.filter;
    reading_.filter.raw_bytes = impl.options.raw_bytes;
    reading_.filter.values = true;
    reading_.filter.decode = impl.options.decode;
    reading_.keep_going = static_cast<bool>(impl.options.on_problem);
    channels_.start(impl.options.jobs, [this](size_t i, const Channels::Push& push) {
      ChunkOutput out(push, impl_.tasks[i]);
      impl_.read_task(impl_.tasks[i], reading_, out);
      out.flush();
    });
    advance();
  }
  ~ChannelIterator() override { channels_.stop_and_join(); }

  bool valid() const override { return index_ < chunk_.size(); }
  const Entry& entry() const override { return chunk_[index_]; }
  void next() override {
    ++index_;
    advance();
  }
  const Status& status() const override { return status_; }

 private:
  // Until index_ names an entry: the next chunk of this task, else of the next tasks.
  void advance() {
    while (index_ >= chunk_.size()) {
      chunk_.clear();
      index_ = 0;
      if (!status_.ok() || task_ >= impl_.tasks.size()) return;
      ChunkOrError item;
      if (!channels_.pop(task_, &item)) {
        if (std::exception_ptr thrown = channels_.thrown(task_)) {
          const EntryTask& t = impl_.tasks[task_];
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
    if (impl_.options.on_problem) impl_.options.on_problem(e);
    else status_ = std::move(e);
  }

  const EntryReaderImpl& impl_;
  TaskReading reading_;
  Channels channels_;
  size_t task_ = 0;
  std::vector<Entry> chunk_;
  size_t index_ = 0;
  Status status_ = Status::OK();
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

std::unique_ptr<EntryIterator> EntryReader::entries() const { return std::make_unique<ChannelIterator>(*impl_); }

Status EntryReader::for_each(const std::function<Status(const Entry&)>& visit) const {
  std::unique_ptr<EntryIterator> it = entries();
  for (; it->valid(); it->next()) CKPT_RETURN_IF_ERROR(visit(it->entry()));
  return it->status();
}

}  // namespace ckpt
