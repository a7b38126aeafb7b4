// Building the inspect report: operators, subtasks, handles, sizes and files.
#include "ckpt/inspect.h"

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <system_error>
#include <thread>
#include <utility>

#include <fmt/format.h>

#include "ckpt/file_system.h"
#include "ckpt/io.h"
#include "ckpt/verify.h"
#include "format/metadata_streaming.h"
#include "ops/engine/input_checks.h"
#include "ops/inspect/inspect_states.h"
#include "support/file_image.h"
#include "support/huge_pages.h"
#include "support/worker_threads.h"

namespace ckpt {
namespace {

bool is_changelog_backend(uint8_t t) {
  return t == handle_type::kChangelogBackendV1 || t == handle_type::kChangelogBackend;
}
bool is_key_groups(uint8_t t) {
  return t == handle_type::kKeyGroups || t == handle_type::kKeyGroupsWithId ||
         t == handle_type::kSavepointKeyGroups;
}

// Flink's KeyedStateHandle#getStateSize.
int64_t keyed_state_size(const KeyedHandle& h) {
  int64_t n = 0;
  if (is_key_groups(h.type)) return h.delegate.state_size();
  if (handle_type::is_incremental(h.type)) {
    n = h.delegate.state_size();
    for (const auto& f : h.shared_files) n += f.handle.state_size();
    for (const auto& f : h.private_files) n += f.handle.state_size();
    return n;
  }
  if (is_changelog_backend(h.type)) {
    for (const auto& m : h.materialized) n += keyed_state_size(m);
    for (const auto& m : h.non_materialized) n += keyed_state_size(m);
    return n;
  }
  if (h.type == handle_type::kInMemoryChangelog) {
    for (const auto& c : h.changes) n += static_cast<int64_t>(c.bytes.size());
    return n;
  }
  if (h.type == handle_type::kChangelogFileV1 || h.type == handle_type::kChangelogFile)
    return h.state_size_field;
  return 0;
}

// Flink's getCheckpointedSize: what this checkpoint uploaded; full size where not stored.
int64_t keyed_checkpointed_size(const KeyedHandle& h) {
  bool stored = handle_type::is_incremental(h.type) || is_changelog_backend(h.type) ||
                h.type == handle_type::kChangelogFileV1 || h.type == handle_type::kChangelogFile;
  if (stored && h.checkpointed_size >= 0) return h.checkpointed_size;
  return keyed_state_size(h);
}

// Bytes kept inside `_metadata`: inline stream handles and in-memory change logs.
template <class H>
int64_t inline_bytes_of(const H& h) {
  int64_t n = 0;
  auto add = [&](const StreamHandle& s, StreamRole, const std::string*) {
    if (s.type == handle_type::kByteStream) n += static_cast<int64_t>(s.data.size());
  };
  if constexpr (std::is_same_v<H, StreamHandle>) visit_streams(h, StreamRole::kData, nullptr, add);
  else visit_streams(h, add);
  return n;
}
int64_t keyed_inline_bytes(const KeyedHandle& h) {
  int64_t n = inline_bytes_of(h);
  auto changes = [&](const auto& self, const KeyedHandle& k) -> void {
    for (const auto& c : k.changes) n += static_cast<int64_t>(c.bytes.size());
    for (const auto& m : k.materialized) self(self, m);
    for (const auto& m : k.non_materialized) self(self, m);
  };
  changes(changes, h);
  return n;
}

const char* keyed_kind(uint8_t t) {
  if (t == handle_type::kSavepointKeyGroups) return "keyed-canonical";
  if (is_key_groups(t)) return "keyed-full";
  if (handle_type::is_incremental(t)) return "keyed-rocksdb-incremental";
  return "keyed-changelog";
}

const char* mode_kind(DistributionMode m) {
  switch (m) {
    case DistributionMode::kSplitDistribute: return "operator-list";
    case DistributionMode::kUnion: return "operator-union";
    case DistributionMode::kBroadcast: return "operator-broadcast";
  }
  return "operator-list";
}

class Builder {
 public:
  Builder(InspectReport& r, const SnapshotLocation& where, const InspectOptions& options)
      : r_(r), names_(options.names), resolver_(where.directory, options.remap) {
    if (options.states || options.count) states_ = std::make_unique<OperatorStatesReader>(where, options.remap);
  }

  void add_operator(const OperatorState& op, size_t index) {
    OperatorSummary s;
    s.id = operator_id_hex(op.id);
    s.uid = names_.uid_of(op);
    s.name = op.name;
    s.description = names_.description_of(op);
    s.parallelism = op.parallelism;
    s.max_parallelism = op.max_parallelism;
    s.fully_finished = op.fully_finished;
    op_index_ = index;
    kinds_.clear();
    files_.clear();
    if (!op.coordinator.is_null()) {
      HandleSummary h = stream_summary(HandleSlot::kCoordinator, -1, op.coordinator);
      kinds_.push_back("coordinator");
      account(s, h);
      s.coordinator = std::move(h);
    }
    s.subtasks.reserve(op.subtasks.size());
    for (const SubtaskState& st : op.subtasks) {
      SubtaskSummary ss;
      ss.index = st.index;
      ss.finished = st.finished;
      for (const auto& l : st.legacy)
        if (!l.is_null()) push(s, ss, stream_summary(HandleSlot::kLegacy, st.index, l), "legacy-operator");
      for (const auto& h : st.managed_operator) push_operator(s, ss, HandleSlot::kManagedOperator, st.index, h);
      for (const auto& h : st.raw_operator) push_operator(s, ss, HandleSlot::kRawOperator, st.index, h);
      if (!st.managed_keyed.is_null())
        push(s, ss, keyed_summary(HandleSlot::kManagedKeyed, st.index, st.managed_keyed),
             keyed_kind(st.managed_keyed.type));
      if (!st.raw_keyed.is_null())
        push(s, ss, keyed_summary(HandleSlot::kRawKeyed, st.index, st.raw_keyed), "raw-keyed");
      for (const auto& c : st.input_channels)
        push(s, ss, channel_summary(HandleSlot::kInputChannel, st.index, c), "channel");
      for (const auto& c : st.result_subpartitions)
        push(s, ss, channel_summary(HandleSlot::kResultSubpartition, st.index, c), "channel");
      s.subtasks.push_back(std::move(ss));
    }
    std::sort(kinds_.begin(), kinds_.end());
    kinds_.erase(std::unique(kinds_.begin(), kinds_.end()), kinds_.end());
    s.kinds.assign(kinds_.begin(), kinds_.end());
    std::sort(files_.begin(), files_.end());
    files_.erase(std::unique(files_.begin(), files_.end()), files_.end());
    op_files_.push_back(files_);
    s.file_count = files_.size();
    r_.operators.push_back(std::move(s));
    if (states_) states_->read(op, r_.operators.back());
  }

  // Files collected so far, and looking them up (FileCollector::resolve: on another thread
  // than add_operator() is welcome).
  size_t files_collected() const { return collector_.size(); }
  void resolve_files(size_t n) { collector_.resolve(resolver_, n); }
  void take_pages_from(PageStock* stock) { collector_.take_pages_from(stock); }

  Status finish(const SnapshotLocation& where, const InspectOptions& options) {
    r_.named = !options.names.empty();
    std::vector<OperatorId> ids(r_.operators.size());
    for (size_t i = 0; i < ids.size(); ++i) parse_operator_id(r_.operators[i].id, &ids[i]);
    r_.unmatched_uids = options.names.unmatched(ids);
    collector_.resolve(resolver_, collector_.size());
    CKPT_RETURN_IF_ERROR(collector_.unlisted());  // missing files could not be told apart
    r_.files = std::move(collector_).finish(resolver_);
    r_.job_directory = resolver_.job_directory();
    for (const FileTable::File f : r_.files) {
      // A path meant to read elsewhere makes the whole report suspect: refused, not listed.
      if (!f.refused.empty() && f.handle_type == handle_type::kRelativeFile) {
        const FileTable::Reference ref = f.references.front();
        CKPT_RETURN_IF_ERROR(check_relative_path_at(f.uri, where.metadata_path,
                                                    r_.operators[ref.operator_index].id, ref.subtask));
      }
      if (!f.exists) ++r_.missing_files;
      if (f.is_short()) ++r_.short_files;
      if (f.outside) ++r_.outside_files;
    }
    for (size_t i = 0; i < r_.operators.size(); ++i) {
      for (uint32_t fi : op_files_[i]) {
        const FileTable::File f = r_.files[fi];
        if (!f.exists) ++r_.operators[i].missing_files;
        if (f.is_short()) ++r_.operators[i].short_files;
      }
      r_.state_size += r_.operators[i].state_size;
      r_.checkpointed_size += r_.operators[i].checkpointed_size;
      r_.inline_bytes += r_.operators[i].inline_bytes;
    }
    if (states_) finish_inspect_states(where, options, r_);
    return Status::OK();
  }

 private:
  template <class H>
  void collect_files(HandleSummary& h, int32_t subtask, HandleSlot slot, const H& handle) {
    StreamSite site;
    site.operator_index = op_index_;
    site.subtask = subtask;
    site.slot = slot;
    pending_.clear();
    auto add = [&](const StreamHandle& s, StreamRole role, const std::string* name) {
      site.role = role;
      site.local_name = name;
      pending_.push_back({&s, site});
    };
    if constexpr (std::is_same_v<H, StreamHandle>) visit_streams(handle, StreamRole::kData, nullptr, add);
    else visit_streams(handle, add);
    // The handle's streams looked up together (FileCollector::add of a batch).
    collector_.add(pending_, indices_);
    h.files.reserve(h.files.size() + indices_.size());
    for (int64_t i : indices_) {
      if (i < 0) continue;
      auto fi = static_cast<uint32_t>(i);
      if (std::find(h.files.begin(), h.files.end(), fi) == h.files.end()) h.files.push_back(fi);
      files_.push_back(fi);
    }
  }

  static HandleSummary summary_of(HandleSlot slot, uint8_t type) {
    HandleSummary h;
    h.slot = slot;
    h.type = type;
    h.kind = handle_type_name(type);
    return h;
  }

  HandleSummary stream_summary(HandleSlot slot, int32_t subtask, const StreamHandle& s) {
    HandleSummary h = summary_of(slot, s.type);
    h.state_size = h.checkpointed_size = s.state_size();
    h.inline_bytes = inline_bytes_of(s);
    collect_files(h, subtask, slot, s);
    return h;
  }

  HandleSummary keyed_summary(HandleSlot slot, int32_t subtask, const KeyedHandle& k) {
    HandleSummary h = summary_of(slot, k.type);
    h.key_groups = k.range;
    h.state_size = keyed_state_size(k);
    h.checkpointed_size = keyed_checkpointed_size(k);
    h.inline_bytes = keyed_inline_bytes(k);
    collect_files(h, subtask, slot, k);
    return h;
  }

  HandleSummary channel_summary(HandleSlot slot, int32_t subtask, const ChannelHandle& c) {
    HandleSummary h = summary_of(slot, c.delegate.type);
    h.state_size = h.checkpointed_size = c.size;
    h.inline_bytes = inline_bytes_of(c);
    collect_files(h, subtask, slot, c);
    return h;
  }

  void push_operator(OperatorSummary& s, SubtaskSummary& ss, HandleSlot slot, int32_t subtask,
                     const OperatorHandle& o) {
    if (o.is_null()) return;
    HandleSummary h = summary_of(slot, o.type);
    h.state_size = h.checkpointed_size = o.delegate.state_size();
    h.inline_bytes = inline_bytes_of(o);
    for (const auto& e : o.states) {
      h.states.push_back(fmt::format("{} ({})", e.name, distribution_mode_name(e.mode)));
      if (slot == HandleSlot::kManagedOperator) kinds_.push_back(mode_kind(e.mode));
    }
    collect_files(h, subtask, slot, o);
    push(s, ss, std::move(h), slot == HandleSlot::kRawOperator ? "raw-operator" : nullptr);
  }

  void push(OperatorSummary& s, SubtaskSummary& ss, HandleSummary h, const char* kind) {
    if (kind) kinds_.push_back(kind);
    account(s, h);
    ss.handles.push_back(std::move(h));
  }

  static void account(OperatorSummary& s, const HandleSummary& h) {
    s.state_size += h.state_size;
    s.checkpointed_size += h.checkpointed_size;
    s.inline_bytes += h.inline_bytes;
  }

  InspectReport& r_;
  const OperatorNames& names_;
  FileResolver resolver_;
  FileCollector collector_;
  std::vector<FileCollector::Pending> pending_;  // collect_files(): the handle's streams
  std::vector<int64_t> indices_;                 // and their files
  size_t op_index_ = 0;
  std::vector<std::string> kinds_;
  std::vector<uint32_t> files_;
  std::vector<std::vector<uint32_t>> op_files_;
  std::unique_ptr<OperatorStatesReader> states_;
};

// The report's summary of `m` except what its operators say.
void add_head(InspectReport& r, const Metadata& m, const SnapshotLocation& where) {
  r.metadata_path = where.metadata_path;
  r.directory = where.directory;
  r.metadata_version = m.version;
  r.checkpoint_id = m.checkpoint_id;
  r.kind = m.kind(&r.kind_inferred);
  r.properties = m.properties;
  r.master_states = m.master_states.size();
}

// Summarises each operator as the decoder hands it over, so that the whole model of a huge
// `_metadata` never exists: at a million file references the model is several times the size
// of the file, and the report needs a fraction of it. The summarising (and freeing each
// operator's model) runs on a thread of its own while the decoder goes on: the two take about
// as long as each other.
class StreamingBuilder : public OperatorSink {
 public:
  StreamingBuilder(const SnapshotLocation& where, const InspectOptions& options)
      : where_(where), options_(options) {
    restart();
  }
  ~StreamingBuilder() override { stop(); }

  void operator_state(OperatorState& op, size_t index) override {
    // Nothing is sized by a range that fails the key-group checks; finish() says which.
    if (has_bad_key_group_range(op)) bad_key_groups_ = true;
    if (bad_key_groups_) return;
    // Files before V4 say their kind by their handles only: ask Metadata::kind() of each operator
    // until one says canonical savepoint.
    if (!canonical_) {
      Metadata probe;
      probe.operators.push_back(std::move(op));
      canonical_ = probe.kind() == SnapshotKind::kSavepointCanonical;
      op = std::move(probe.operators.front());
    }
    if (!worker_.joinable()) {
      builder_->add_operator(op, index);
      return;
    }
    std::vector<OperatorState> spent;  // freed below, on this thread, outside the lock
    std::unique_lock<std::mutex> lock(mu_);
    // Waiting for room in the queue, this thread looks up files summarised so far.
    while (queue_.size() >= kInFlight && !exited_)
      if (!resolve_some(lock)) cv_.wait(lock);
    if (exited_) return;  // the worker failed: finish() says how
    queue_.emplace_back(std::move(op), index);
    spent.swap(spent_);
    cv_.notify_all();
    lock.unlock();
  }

  void restart() override {
    stop();
    spent_.clear();
    builder_.reset();
    report_ = InspectReport{};
    builder_ = std::make_unique<Builder>(report_, where_, options_);
    builder_->take_pages_from(&stock_);
    canonical_ = false;
    bad_key_groups_ = false;
    worker_status_ = Status::OK();
    done_ = exited_ = false;
    published_ = resolved_ = 0;
    resolving_ = false;
    try {
      worker_ = std::thread([this] { work(); });
    } catch (const std::system_error&) {
      // No thread to be had: summarise on the decoder's.
    }
  }

  bool bad_key_groups() const { return bad_key_groups_; }

  // After the last operator: this thread, free now, looks up the files the summariser has
  // collected while it summarises what is still queued (the lookups were a fifth of a run at a
  // million files, after the summarising).
  void resolve_alongside() {
    if (!worker_.joinable()) return;
    {
      std::lock_guard<std::mutex> lock(mu_);
      done_ = true;  // no more operators
      cv_.notify_all();
    }
    std::unique_lock<std::mutex> lock(mu_);
    while (!exited_ || published_ > resolved_ || resolving_)
      if (!resolve_some(lock)) cv_.wait(lock);
  }

  // The image being decoded, whose pages go to the report's file table as the decoder passes
  // them: the file's bytes and the report would otherwise peak together, and the table's fresh
  // pages be cleared by the kernel.
  void give_back(FileImage* image) { image_ = image; }
  void decoded_through(size_t offset) override {
    if (image_) image_->drop_before(offset, &stock_);
  }

  Result<InspectReport> finish(const Metadata& head) && {
    stop();
    CKPT_RETURN_IF_ERROR(worker_status_);
    add_head(report_, head, where_);
    if (report_.kind_inferred && canonical_) report_.kind = SnapshotKind::kSavepointCanonical;
    CKPT_RETURN_IF_ERROR(builder_->finish(where_, options_));
    builder_.reset();
    return std::move(report_);
  }

 private:
  static constexpr size_t kInFlight = 4;  // decoded operators waiting for the summariser

  void work() {
    Status s = catch_internal([&]() -> Status {
      std::optional<OperatorState> summarised;
      for (;;) {
        std::pair<OperatorState, size_t> next;
        {
          std::unique_lock<std::mutex> lock(mu_);
          // Freeing a model of thousands of handles is a twentieth of the run: the decoder's
          // thread, which waits for this one most of the time, does it.
          if (summarised) {
            spent_.push_back(std::move(*summarised));
            summarised.reset();
            published_ = builder_->files_collected();
            cv_.notify_all();
          }
          // Waiting for an operator, this thread looks up files summarised so far.
          while (queue_.empty() && !done_)
            if (!resolve_some(lock)) cv_.wait(lock);
          if (queue_.empty()) return Status::OK();
          next = std::move(queue_.front());
          queue_.pop_front();
          cv_.notify_all();
        }
        builder_->add_operator(next.first, next.second);
        summarised = std::move(next.first);
      }
    });
    std::lock_guard<std::mutex> lock(mu_);
    worker_status_ = std::move(s);
    exited_ = true;
    queue_.clear();
    cv_.notify_all();
  }

  // Files collected but not looked up are looked up by whichever thread waits for the other
  // (the decoder for room in the queue, the summariser for an operator), one at a time (the
  // resolver is one), a few thousand at a time (so that the other does not wait long): the
  // lookups were a fifth of a run at a million files, after the summarising. Under mu_ (held
  // by `lock`, released while looking up). Whether there were any.
  bool resolve_some(std::unique_lock<std::mutex>& lock) {
    if (resolving_ || published_ <= resolved_) return false;
    constexpr size_t kBatch = 4096;
    const size_t to = std::min(published_, resolved_ + kBatch);
    resolving_ = true;
    lock.unlock();
    try {
      builder_->resolve_files(to);
    } catch (...) {  // out of memory: the other thread must not wait for this one forever
      lock.lock();
      resolving_ = false;
      cv_.notify_all();
      throw;
    }
    lock.lock();
    resolved_ = to;
    resolving_ = false;
    cv_.notify_all();
    return true;
  }

  // Lets the worker summarise what is queued, then ends it.
  void stop() {
    if (!worker_.joinable()) return;
    {
      std::lock_guard<std::mutex> lock(mu_);
      done_ = true;
      cv_.notify_all();
    }
    worker_.join();
  }

  const SnapshotLocation& where_;
  const InspectOptions& options_;
  FileImage* image_ = nullptr;
  PageStock stock_;  // the image's pages passed, for the file table (before it: outlives it)
  InspectReport report_;
  std::unique_ptr<Builder> builder_;
  bool canonical_ = false;
  bool bad_key_groups_ = false;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::pair<OperatorState, size_t>> queue_;
  std::vector<OperatorState> spent_;  // summarised, for the decoder's thread to free
  size_t published_ = 0;              // files the summariser has collected, as of its last operator
  size_t resolved_ = 0;               // of those, looked up
  bool resolving_ = false;            // a thread is looking files up (resolve_some)
  bool done_ = false;
  bool exited_ = false;
  Status worker_status_;
  std::thread worker_;
};

}  // namespace

Result<InspectReport> inspect_metadata(const Metadata& m, const SnapshotLocation& where,
                                       const InspectOptions& options) {
  CKPT_RETURN_IF_ERROR(check_key_group_ranges(m, where.metadata_path));
  InspectReport r;
  add_head(r, m, where);
  r.operators.reserve(m.operators.size());
  Builder b(r, where, options);
  for (size_t i = 0; i < m.operators.size(); ++i) b.add_operator(m.operators[i], i);
  CKPT_RETURN_IF_ERROR(b.finish(where, options));
  return r;
}

Result<InspectReport> inspect_snapshot(const std::string& path, const InspectOptions& options) {
  CKPT_ASSIGN_OR_RETURN(SnapshotLocation where, locate_snapshot(path));
  std::optional<FileImage> image = FileImage::read(where.metadata_path);
  std::string read;
  if (!image) {
    CKPT_ASSIGN_OR_RETURN(read, read_through_file_system(where.metadata_path));  // says why it cannot
  }
  std::string_view bytes = image ? image->bytes() : std::string_view(read);
  StreamingBuilder builder(where, options);
  if (image) builder.give_back(&*image);
  CKPT_ASSIGN_OR_RETURN(Metadata head, decode_metadata_streaming(bytes, where.metadata_path, builder));
  if (builder.bad_key_groups()) {
    // The error path only: the whole model, for the error's offset, from the file read again
    // (the image's pages went back as they were decoded).
    if (image) {
      CKPT_ASSIGN_OR_RETURN(read, read_through_file_system(where.metadata_path));
      bytes = read;
    }
    CKPT_ASSIGN_OR_RETURN(Metadata whole, decode_metadata(bytes, where.metadata_path));
    CKPT_RETURN_IF_ERROR(check_key_group_ranges(whole, where.metadata_path));
  }
  size_t size = bytes.size();
  // The file's bytes are no longer needed: give them back before resolving.
  if (image) image->release();
  read = std::string();
  builder.resolve_alongside();
  CKPT_ASSIGN_OR_RETURN(InspectReport r, std::move(builder).finish(head));
  r.metadata_size = size;
  return r;
}

std::string human_size(int64_t bytes) {
  if (bytes < 0) return "?";
  if (bytes < 1024) return fmt::format("{} B", bytes);
  static const char* const kUnits[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  double v = static_cast<double>(bytes) / 1024;
  size_t u = 0;
  while (v >= 1024 && u + 1 < std::size(kUnits)) {
    v /= 1024;
    ++u;
  }
  return fmt::format("{:.1f} {}", v, kUnits[u]);
}

std::string counted(uint64_t n, std::string_view one, std::string_view many) {
  return fmt::format("{} {}", n, n == 1 ? one : many);
}

}  // namespace ckpt
