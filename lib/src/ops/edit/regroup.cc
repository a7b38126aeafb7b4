// Keys moved to the key groups of another max parallelism: spilled per output subtask, read
// back in sorted runs merged by key group.
#include "ops/edit/regroup.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <condition_variable>
#include <functional>
#include <map>
#include <mutex>

#include <fmt/format.h>

#include "format/key_groups.h"
#include "ops/rewrite/keyed_target.h"
#include "state/keyed_state_codec.h"
#include "state/keyed_stream_writer.h"
#include "state/layout_transcoder.h"
#include "state/raw_keyed_reader.h"
#include "state/raw_timers_reader.h"
#include "support/worker_threads.h"
#include "types/value_decoder.h"

namespace ckpt {

struct Regrouper::Impl {
  // The write buffer of each SST file a RocksDB output keeps open (one per subtask, state and
  // lane: up to 512), against RocksDB's default of a MiB.
  static constexpr size_t kLaneFileBuffer = 128 << 10;
  // Input key groups handed from the reader to the writers and not yet written (write_piped()).
  static constexpr size_t kKeyGroupsInFlight = 2;
  int32_t max_parallelism = 0;
  int32_t parallelism = 0;
  KeyedBackendMeta meta;  // the states of every input subtask, by name (the first one's order)
  ConvertTarget layout = ConvertTarget::kHeap;
  std::unique_ptr<KeyGroupSpill> spill_files;  // per output subtask
  // RegroupOutput: each output subtask's stream, or RocksDB instance, written as the input is
  // read. An instance takes each output key group into the lane of the input key groups' round
  // it comes from (output key group / the input's max parallelism): input key groups are read in
  // ascending order, so each lane's keys ascend, and the lanes' key ranges never overlap.
  struct Output {
    std::unique_ptr<KeyedStreamWriter> writer;
    std::unique_ptr<RocksInstanceWriter> rocks;
    int32_t first_round = 0;  // the lane of the output range's first key group
    WrittenKeyedStream written;
  };
  std::vector<std::unique_ptr<Output>> outputs;  // by output subtask; null: not written here
  // Kept from make() for write(): where, and the input operator, its streams, how to read them.
  bool direct = false;
  std::string out_dir;
  std::string op_hex;
  const OperatorState* op = nullptr;
  const StreamOpener* streams = nullptr;
  bool check_blocks = false;
  ConvertTarget written_layout = ConvertTarget::kHeap;
  std::atomic<uint64_t> peak_held{0};
  // `bytes` held at once, from any thread: the peak kept.
  void note_held(uint64_t bytes) {
    uint64_t peak = peak_held.load(std::memory_order_relaxed);
    while (bytes > peak && !peak_held.compare_exchange_weak(peak, bytes)) {
    }
  }
  std::vector<bool> any;  // output subtask had state (every one, when any input subtask had)

  // Legacy timers by new key group: per service (in `timer_heads`' order) the event- and
  // processing-time timers' bytes.
  using TimerLists = std::vector<std::array<std::vector<std::string>, 2>>;
  std::map<int32_t, TimerLists> timers;
  std::vector<std::string> timer_heads;  // each service's name and serializers, as stored
  int32_t timer_version = 0;
  bool timer_blocks = false;  // an input subtask had a timer block
  uint64_t timers_moved = 0;
  std::mutex timers_mu;

  // One input subtask's raw keyed timers, each put in the key group of its key.
  Status move_timers(const SubtaskState& st, const StreamOpener& streams) {
    const KeyedHandle& raw = st.raw_keyed;
    if (raw.type != handle_type::kKeyGroups && raw.type != handle_type::kKeyGroupsWithId)
      return Error(ErrorCode::kNotSupported, fmt::format("raw keyed state handle type {:#04x} ({}) cannot be regrouped",
                                                         raw.type, handle_type_name(raw.type)));
    return streams.read(raw.delegate, [&](const StateStream& stream) {
      return read_raw_timer_blocks(raw, stream, [&](int32_t, RawTimerBlock&& block) -> Status {
        std::lock_guard<std::mutex> lock(timers_mu);
        if (!timer_blocks) timer_version = block.version;
        timer_blocks = true;
        if (block.version != timer_version)
          return Error(ErrorCode::kNotSupported,
                       fmt::format("timer blocks of versions {} and {} in one operator", timer_version, block.version));
        for (RawTimerService& service : block.services) {
          auto at = std::find(timer_heads.begin(), timer_heads.end(), service.head);
          const size_t index = static_cast<size_t>(at - timer_heads.begin());
          if (at == timer_heads.end()) timer_heads.push_back(service.head);
          for (int list = 0; list < 2; ++list)
            for (RawTimer& t : service.timers[list]) {
              if (!t.key_hash)
                return Error(ErrorCode::kNotSupported,
                             "raw keyed timers: the Java hashCode of their keys is not known, so their key groups "
                             "cannot be recomputed");
              TimerLists& lists = timers[key_group_for_hash(*t.key_hash, max_parallelism)];
              if (lists.size() <= index) lists.resize(index + 1);
              lists[index][list].push_back(std::move(t.bytes));
              ++timers_moved;
            }
        }
        return Status::OK();
      });
    });
  }

  uint32_t state_index(const StateMetaInfo& s) {
    for (size_t i = 0; i < meta.states.size(); ++i)
      if (meta.states[i].name == s.name) return static_cast<uint32_t>(i);
    meta.states.push_back(s);
    return static_cast<uint32_t>(meta.states.size() - 1);
  }

  int32_t subtask_of(int32_t key_group) const {
    // KeyGroupRangeAssignment.computeOperatorIndexForKeyGroup
    return static_cast<int32_t>(static_cast<int64_t>(key_group) * parallelism / max_parallelism);
  }

  // One input subtask's proxy, read before any pair so that the output proxy's states are in
  // the same order whatever order the subtasks are then read in.
  struct Input {
    const SubtaskState* st = nullptr;
    RawKeyedSource source;
    std::vector<uint32_t> ids;  // output state of each of its states
  };
  std::vector<Input> inputs;  // kept from make() for write()
  Result<Input> open(const OperatorState& op, const SubtaskState& st, const StreamOpener& streams,
                     const SerializerSnapshot* key_fallback) {
    Input in;
    in.st = &st;
    CKPT_ASSIGN_OR_RETURN(in.source, open_raw_keyed(st.managed_keyed, streams, op.max_parallelism, key_fallback));
    if (meta.states.empty() && meta.key_serializer.snapshot_class.empty()) {
      meta.version = in.source.meta.version;
      meta.key_serializer = in.source.meta.key_serializer;
      meta.legacy_bytes = in.source.meta.legacy_bytes;
      layout = same_layout_target(st.managed_keyed);
    } else if (meta.legacy_bytes != in.source.meta.legacy_bytes) {
      // A Flink 1.2-1.6 proxy is written back as read (ckpt keeps no writer of those layouts):
      // one subtask's serves all only if every subtask registered the same states alike.
      return Error(ErrorCode::kNotSupported,
                   fmt::format("subtask {}: its keyed backend proxy (version {}) differs from the other subtasks', "
                               "and ckpt writes no merged proxy of Flink 1.2-1.6",
                               st.index, in.source.meta.version));
    }
    for (const StateMetaInfo& s : in.source.meta.states) in.ids.push_back(state_index(s));
    return in;
  }

  // An input subtask's key decoder and a codec per state: what finds a pair's key group.
  struct Hashers {
    std::unique_ptr<ValueDecoder> key_decoder;
    std::vector<std::unique_ptr<KeyedStateCodec>> codecs;

    // The key group under `max_parallelism` of state i's pair `p`.
    Result<int32_t> key_group(size_t i, const RocksPair& p, int32_t max_parallelism) const {
      CKPT_ASSIGN_OR_RETURN(std::optional<int32_t> hash, codecs[i]->key_hash_of_rocks_entry(p.key, p.value));
      if (!hash)
        return Error(ErrorCode::kNotSupported,
                     fmt::format("state '{}': the Java hashCode of its keys ({}) is not known, so their key "
                                 "groups cannot be recomputed",
                                 codecs[i]->name(), key_decoder->serializer_class()));
      return key_group_for_hash(*hash, max_parallelism);
    }
  };
  static Result<Hashers> hashers(const OperatorState& op, const Input& in) {
    Hashers h;
    CKPT_ASSIGN_OR_RETURN(h.key_decoder, make_decoder(in.source.meta.key_serializer));
    for (const StateMetaInfo& s : in.source.meta.states) {
      CKPT_ASSIGN_OR_RETURN(std::unique_ptr<KeyedStateCodec> codec,
                            KeyedStateCodec::make(s, *h.key_decoder, op.max_parallelism));
      h.codecs.push_back(std::move(codec));
    }
    return h;
  }

  // Every pair of one input subtask spilled under its new key group.
  Status spill(const OperatorState& op, const Input& in, const StreamOpener& streams, bool check_blocks,
               std::atomic<uint64_t>* pairs) {
    const KeyedHandle& h = in.st->managed_keyed;
    const RawKeyedSource& source = in.source;
    const std::vector<uint32_t>& ids = in.ids;
    CKPT_ASSIGN_OR_RETURN(const Hashers hashers, Impl::hashers(op, in));
    const int old_prefix = key_group_prefix_bytes(op.max_parallelism);
    const int new_prefix = key_group_prefix_bytes(max_parallelism);
    std::string new_key;  // per pair, reused
    return read_raw_keyed(
        h, source, streams, op.max_parallelism, [&](int32_t, std::vector<std::vector<RocksPair>>& by_state) -> Status {
          uint64_t spilled = 0;
          for (size_t i = 0; i < by_state.size() && i < hashers.codecs.size(); ++i)
            for (const RocksPair& p : by_state[i]) {
              CKPT_ASSIGN_OR_RETURN(const int32_t kg, hashers.key_group(i, p, max_parallelism));
              new_key.clear();
              append_key_group_prefix(new_key, kg, new_prefix);
              new_key.append(p.key, static_cast<size_t>(old_prefix), std::string::npos);
              CKPT_RETURN_IF_ERROR(spill_files->add(subtask_of(kg), kg, ids[i], new_key, p.value));
              ++spilled;
            }
          *pairs += spilled;  // atomic, once per key group
          return Status::OK();
        },
        check_blocks);
  }

  // RegroupOutput: the output subtasks' streams, created once every input's states are known.
  Status open_outputs(const std::vector<int32_t>& owned) {
    const bool heap = written_layout == ConvertTarget::kHeap;
    const std::string& dir = out_dir;
    outputs.resize(static_cast<size_t>(parallelism));
    for (int32_t i : owned) {
      auto out = std::make_unique<Output>();
      if (written_layout == ConvertTarget::kRocksDb) {
        out->written.name = rocks_instance_name(op_hex, i);
        std::vector<std::string> names;
        for (const StateMetaInfo& st : meta.states) names.push_back(st.name);
        // Synced with the rest of the output before its rename, as the rewrite's own instances.
        CKPT_ASSIGN_OR_RETURN(out->rocks, RocksInstanceWriter::create(dir + "/." + out->written.name + ".build",
                                                                      std::move(names), /*deferred_sync=*/true));
        out->rocks->set_file_buffer_bytes(kLaneFileBuffer);
        out->first_round = key_group_range_of_subtask(max_parallelism, parallelism, i).first / op->max_parallelism;
        outputs[static_cast<size_t>(i)] = std::move(out);
        continue;
      }
      // The name the rewrite gives the stream it writes (keyed_target.cc), which it does not
      // write for this subtask.
      out->written.name = fmt::format("{}-{}-{}", heap ? "heap" : "canonical", op_hex, i);
      CKPT_ASSIGN_OR_RETURN(out->writer, KeyedStreamWriter::create(
                                             dir + "/" + out->written.name,
                                             heap ? KeyGroupsLayout::kHeap : KeyGroupsLayout::kCanonical, meta,
                                             key_group_range_of_subtask(max_parallelism, parallelism, i),
                                             max_parallelism));
      out->writer->any_key_group_order();
      outputs[static_cast<size_t>(i)] = std::move(out);
    }
    return Status::OK();
  }

  // The pairs of one input subtask that move to the output subtasks `mine` marks, each written
  // to the output key group it moves to, one input key group at a time: that key group's pairs,
  // moved into the (at most max_parallelism / the input's) output key groups they feed, are
  // each a whole output key group. One thread writes each output subtask, taking the inputs in
  // their order: the streams' key groups lie in the same order at every run, whatever -j.
  using Moved = std::vector<std::vector<std::vector<RocksPair>>>;  // by j, by output state
  // Takes one input key group's routed pairs (`fed`, `moved`, `held` bytes) for writing
  // elsewhere, giving back pairs already written (and their `fed`) in their place.
  using HandOver = std::function<Status(int32_t kg, std::vector<int32_t>& fed, Moved& moved, uint64_t held)>;

  Status route(const Input& in, const std::vector<char>& mine, std::atomic<uint64_t>* pairs,
               const HandOver* hand_over = nullptr) {
    const KeyedHandle& h = in.st->managed_keyed;
    const RawKeyedSource& source = in.source;
    const std::vector<uint32_t>& ids = in.ids;
    CKPT_ASSIGN_OR_RETURN(const Hashers hashers, Impl::hashers(*op, in));
    const int32_t old_max = op->max_parallelism;
    const int32_t fan = max_parallelism / old_max;  // output key groups per input key group
    const int old_prefix = key_group_prefix_bytes(old_max);
    const int new_prefix = key_group_prefix_bytes(max_parallelism);
    // Output key group k + old_max * j of input key group k, by j; by output state.
    Moved moved(static_cast<size_t>(fan));
    std::vector<int32_t> fed;          // the j with pairs, ascending
    std::vector<RocksPair> others;     // pairs of output subtasks not written here, left to the reader
    std::string prefix;
    auto write = [&](int32_t kg, int32_t j) -> Status {
      return write_group(kg + old_max * j, moved[static_cast<size_t>(j)]);
    };
    Status read = read_raw_keyed(
        h, source, *streams, old_max, [&](int32_t kg, std::vector<std::vector<RocksPair>>& by_state) -> Status {
          uint64_t held = 0, n = 0;
          fed.clear();
          for (size_t i = 0; i < by_state.size() && i < hashers.codecs.size(); ++i) {
            others.clear();
            for (RocksPair& p : by_state[i]) {
              CKPT_ASSIGN_OR_RETURN(const int32_t to, hashers.key_group(i, p, max_parallelism));
              // Flink put the key in key group murmur(hashCode) % old_max, which divides
              // max_parallelism: any other is a key whose hashCode ckpt computes otherwise.
              if (to % old_max != kg)
                return Error(ErrorCode::kNotSupported,
                             fmt::format("state '{}': a key stored in key group {} hashes to key group {} of {} "
                                         "(key serializer {}): its hashCode is not the one Flink computed",
                                         hashers.codecs[i]->name(), kg, to % old_max, old_max,
                                         hashers.key_decoder->serializer_class()));
              held += p.key.size() + p.value.size();
              if (!mine[static_cast<size_t>(subtask_of(to))]) {
                others.push_back(std::move(p));
                continue;
              }
              const size_t j = static_cast<size_t>(to / old_max);
              prefix.clear();
              append_key_group_prefix(prefix, to, new_prefix);
              p.key.replace(0, static_cast<size_t>(old_prefix), prefix);
              if (moved[j].empty()) moved[j].resize(meta.states.size());
              std::vector<RocksPair>& dest = moved[j][ids[i]];
              if (dest.empty()) fed.push_back(static_cast<int32_t>(j));
              dest.push_back(std::move(p));
              ++n;
            }
            by_state[i].clear();
            by_state[i].swap(others);
          }
          std::sort(fed.begin(), fed.end());
          fed.erase(std::unique(fed.begin(), fed.end()), fed.end());
          note_held(held);
          if (hand_over) {
            CKPT_RETURN_IF_ERROR((*hand_over)(kg, fed, moved, held));
          } else {
            for (int32_t j : fed) CKPT_RETURN_IF_ERROR(write(kg, j));
          }
          // The pairs written back to the reader, whose pools reuse their strings for the next key
          // group (a state's pairs to that state's pool where this input has it).
          for (int32_t j : fed)
            for (size_t s = 0; s < moved[static_cast<size_t>(j)].size(); ++s) {
              auto& from = moved[static_cast<size_t>(j)][s];
              auto at = std::find(ids.begin(), ids.end(), static_cast<uint32_t>(s));
              const size_t i = static_cast<size_t>(at - ids.begin());
              if (at != ids.end() && i < by_state.size())
                for (RocksPair& p : from) by_state[i].push_back(std::move(p));
              from.clear();
            }
          fed.clear();
          *pairs += n;
          return Status::OK();
        },
        check_blocks);
    return read;
  }

  // Output key group `to`, whole, by output state, into its output subtask's stream or instance.
  Status write_group(int32_t to, std::vector<std::vector<RocksPair>>& group) {
    Output& out = *outputs[static_cast<size_t>(subtask_of(to))];
    uint64_t entries = 0;
    for (const auto& state_pairs : group) entries += state_pairs.size();
    if (out.rocks) {
      const size_t lane = static_cast<size_t>(to / op->max_parallelism - out.first_round);
      for (size_t s = 0; s < group.size(); ++s) {
        CKPT_RETURN_IF_ERROR(sort_pairs(group[s], meta.states[s].name));
        for (const RocksPair& p : group[s]) CKPT_RETURN_IF_ERROR(out.rocks->add_to_lane(s, lane, p.key, p.value));
      }
    } else {
      CKPT_RETURN_IF_ERROR(out.writer->key_group(to, group));
    }
    out.written.entries += entries;
    return Status::OK();
  }

  // RegroupOutput: the output subtasks `owned` written from every input in turn, so that each
  // output's key groups come in the same order at every run: on this thread alone, or with
  // `jobs` 2 or more, read here and written on others (write_piped()).
  Status write(const std::vector<int32_t>& owned, int jobs, std::atomic<uint64_t>* pairs) {
    CKPT_RETURN_IF_ERROR(open_outputs(owned));
    if (jobs >= 2) {
      CKPT_RETURN_IF_ERROR(write_piped(owned, jobs, pairs));
      return finish_outputs(jobs);
    }
    std::vector<char> mine(static_cast<size_t>(parallelism), 0);
    for (int32_t i : owned) mine[static_cast<size_t>(i)] = 1;
    for (const Input& in : inputs) {
      Status s = route(in, mine, pairs);
      if (!s.ok()) return std::move(s).error().with_context(fmt::format("subtask {}", in.st->index));
    }
    return finish_outputs(1);
  }

  // With two threads or more: one reads every input once and routes each input key group's
  // pairs; every thread writes them. An output subtask takes the key groups in the order the
  // reader hands them out, one thread at a time (so the same bytes at every run), any thread:
  // the reader, when the writers are behind, writes too. Reading overlaps writing, and the input
  // is read once, not once per writing thread. A few key groups are in flight: their pairs go
  // back to the reader's pools once every output subtask has written its part.
  Status write_piped(const std::vector<int32_t>& owned, int jobs, std::atomic<uint64_t>* pairs) {
    static constexpr size_t kInFlight = kKeyGroupsInFlight;
    const int writers = std::max(1, std::min(jobs - 1, static_cast<int>(owned.size())));
    struct Batch {
      int32_t kg = 0;
      std::vector<int32_t> fed;
      Moved moved;
      uint64_t bytes = 0;
      size_t unwritten = 0;  // output subtasks yet to write their part
    };
    struct Lane {
      int32_t subtask = 0;
      uint64_t next = 0;  // the batch it writes next
      bool busy = false;  // a thread writes it
    };
    const int32_t old_max = op->max_parallelism;
    std::vector<Batch> ring(kInFlight);
    for (Batch& b : ring) b.moved.resize(static_cast<size_t>(max_parallelism / old_max));
    std::vector<Lane> lanes;
    for (int32_t i : owned) lanes.push_back({i, 0, false});
    std::mutex mu;
    std::condition_variable handed, written;
    uint64_t published = 0;  // batches handed out
    uint64_t in_flight = 0;  // bytes of the batches handed out and not yet written
    bool done = false;
    Status failed;

    // Under `lock`: one output subtask's part of its next batch written, if one is free and due.
    auto write_one = [&](std::unique_lock<std::mutex>& lock) -> bool {
      for (Lane& lane : lanes) {
        if (lane.busy || lane.next >= published || !failed.ok()) continue;
        lane.busy = true;
        Batch& b = ring[lane.next % kInFlight];
        lock.unlock();
        Status s;
        for (int32_t j : b.fed) {
          const int32_t to = b.kg + old_max * j;
          if (subtask_of(to) != lane.subtask) continue;
          s = write_group(to, b.moved[static_cast<size_t>(j)]);
          if (!s.ok()) break;
        }
        lock.lock();
        lane.busy = false;
        ++lane.next;
        if (!s.ok() && failed.ok()) failed = std::move(s);
        if (--b.unwritten == 0) in_flight -= b.bytes;
        if (b.unwritten == 0 || !failed.ok()) written.notify_all();
        handed.notify_all();
        return true;
      }
      return false;
    };
    HandOver hand_over = [&](int32_t kg, std::vector<int32_t>& fed, Moved& moved, uint64_t held) -> Status {
      std::unique_lock<std::mutex> lock(mu);
      Batch& b = ring[published % kInFlight];
      while (b.unwritten > 0 && failed.ok())
        if (!write_one(lock)) written.wait(lock);
      if (!failed.ok()) return Error(ErrorCode::kIOError, "stopped: writing the output failed");
      b.kg = kg;
      b.fed.swap(fed);
      b.moved.swap(moved);
      b.unwritten = lanes.size();
      // What is held at most: the key groups on their way and the one the reader routed.
      note_held(in_flight + held);
      b.bytes = held;
      in_flight += held;
      ++published;
      handed.notify_all();
      return Status::OK();
    };
    auto all_written = [&] {
      for (const Lane& lane : lanes)
        if (lane.next < published) return false;
      return true;
    };
    std::vector<char> mine(static_cast<size_t>(parallelism), 0);
    for (int32_t i : owned) mine[static_cast<size_t>(i)] = 1;
    Status ran = run_parallel(static_cast<size_t>(writers) + 1, writers + 1, [&](size_t t) -> Status {
      if (t > 0) {
        std::unique_lock<std::mutex> lock(mu);
        while (failed.ok() && !(done && all_written()))
          if (!write_one(lock)) handed.wait(lock);
        return Status::OK();
      }
      Status read;
      for (const Input& in : inputs) {
        read = route(in, mine, pairs, &hand_over);
        if (!read.ok()) {
          read = std::move(read).error().with_context(fmt::format("subtask {}", in.st->index));
          break;
        }
      }
      std::lock_guard<std::mutex> lock(mu);
      done = true;
      handed.notify_all();
      if (!read.ok() && failed.ok()) failed = read;
      return Status::OK();
    });
    CKPT_RETURN_IF_ERROR(ran);
    return failed;
  }

  // Each output closed: a stream's last bytes, or an instance's SSTs finished and ingested
  // (`jobs` of them at once: each is its own RocksDB).
  Status finish_outputs(int jobs) {
    std::vector<Output*> open;
    for (auto& out : outputs)
      if (out) open.push_back(out.get());
    return run_parallel(open.size(), std::max(1, jobs), [&](size_t i) -> Status {
      Output& out = *open[i];
      out.written.peak_buffered_bytes = peak_held.load();
      if (out.rocks) {
        CKPT_ASSIGN_OR_RETURN(RocksInstanceFiles files, out.rocks->finish(out_dir + "/" + out.written.name));
        out.rocks.reset();
        out.written.instance = std::move(files);
        return Status::OK();
      }
      CKPT_RETURN_IF_ERROR(out.writer->finish());
      out.written.offsets = out.writer->offsets();
      out.written.size = out.writer->size();
      out.writer.reset();
      return Status::OK();
    });
  }
};

Regrouper::Regrouper(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Regrouper::~Regrouper() = default;

Result<std::unique_ptr<Regrouper>> Regrouper::make(const OperatorState& in, int32_t max_parallelism,
                                                   int32_t parallelism, const StreamOpener& streams, int jobs,
                                                   const SerializerSnapshot* key_fallback, size_t run_bytes,
                                                   bool check_blocks, const RegroupOutput& output) {
  auto impl = std::make_unique<Impl>();
  impl->max_parallelism = max_parallelism;
  impl->parallelism = parallelism;
  if (parallelism < 1 || parallelism > max_parallelism)
    return Error(ErrorCode::kInvalidArgument,
                 fmt::format("parallelism {} is not in 1..{}", parallelism, max_parallelism));
  impl->any.assign(static_cast<size_t>(parallelism), false);
  std::vector<Impl::Input> inputs;
  for (const SubtaskState& st : in.subtasks) {
    if (!st.raw_keyed.is_null()) {
      Status moved = impl->move_timers(st, streams);
      if (!moved.ok()) return std::move(moved).error().with_context(fmt::format("subtask {}", st.index));
    }
    if (st.managed_keyed.is_null()) continue;
    auto input = impl->open(in, st, streams, key_fallback);
    if (!input.ok()) return std::move(input).error().with_context(fmt::format("subtask {}", st.index));
    inputs.push_back(std::move(input).value());
  }
  const bool keyed = !inputs.empty();
  // Written straight into the output when every output key group has one input key group
  // (RegroupOutput) and the streams, one open file per output subtask, are not too many; for
  // RocksDB output, an SST file open per output subtask, state and lane.
  constexpr int32_t kMostStreams = 256;
  constexpr int64_t kMostSstFiles = 512;
  const ConvertTarget layout = output.to ? *output.to : impl->layout;
  const bool multiple = in.max_parallelism > 0 && max_parallelism % in.max_parallelism == 0;
  int64_t sst_files = 0;
  if (multiple && layout == ConvertTarget::kRocksDb)
    for (int32_t i = 0; i < parallelism; ++i) {
      const KeyGroupRange r = key_group_range_of_subtask(max_parallelism, parallelism, i);
      const int64_t lanes = r.count > 0 ? (r.first + r.count - 1) / in.max_parallelism - r.first / in.max_parallelism + 1 : 0;
      sst_files += lanes * static_cast<int64_t>(impl->meta.states.size());
    }
  const bool direct = keyed && !output.dir.empty() && multiple && parallelism <= kMostStreams &&
                      sst_files <= kMostSstFiles;
  if (direct) {
    // Written by write(), once the rewrite knows which output subtasks it writes.
    impl->direct = true;
    impl->written_layout = layout;
    impl->out_dir = output.dir;
    impl->op_hex = output.op_hex.empty() ? operator_id_hex(in.id) : output.op_hex;
    impl->op = &in;
    impl->streams = &streams;
    impl->check_blocks = check_blocks;
    impl->inputs = std::move(inputs);
    impl->any.assign(impl->any.size(), true);
    auto r = std::unique_ptr<Regrouper>(new Regrouper(std::move(impl)));
    r->pairs_ = r->impl_->timers_moved;
    return r;
  }
  {
    // Buckets per output subtask from the input's stored size (tripled: SSTs are compressed),
    // at most 512 spill files in all.
    uint64_t stored = 0;
    for (const SubtaskState& st : in.subtasks) {
      const KeyedHandle& h = st.managed_keyed;
      stored += static_cast<uint64_t>(std::max<int64_t>(0, h.delegate.state_size()));
      for (const auto* files : {&h.private_files, &h.shared_files})
        for (const NamedStream& f : *files) stored += static_cast<uint64_t>(std::max<int64_t>(0, f.handle.state_size()));
    }
    const uint64_t per_subtask = stored * 3 / static_cast<uint64_t>(parallelism);
    std::vector<KeyGroupRange> ranges;
    for (int32_t i = 0; i < parallelism; ++i)
      ranges.push_back(key_group_range_of_subtask(max_parallelism, parallelism, i));
    CKPT_ASSIGN_OR_RETURN(impl->spill_files,
                          KeyGroupSpill::make(std::move(ranges), per_subtask, /*sorted=*/true, run_bytes));
  }
  std::atomic<uint64_t> pairs{0};
  CKPT_RETURN_IF_ERROR(run_parallel(inputs.size(), jobs, [&](size_t i) -> Status {
    Status s = impl->spill(in, inputs[i], streams, check_blocks, &pairs);
    if (s.ok()) return s;
    return std::move(s).error().with_context(fmt::format("subtask {}", inputs[i].st->index));
  }));
  // Every output subtask of an operator with keyed state gets a handle, as Flink's heap
  // backend writes one per subtask.
  if (keyed) impl->any.assign(impl->any.size(), true);
  auto r = std::unique_ptr<Regrouper>(new Regrouper(std::move(impl)));
  r->pairs_ = pairs + r->impl_->timers_moved;
  return r;
}

bool Regrouper::writes_directly() const { return impl_->direct; }

Status Regrouper::write(const std::vector<int32_t>& subtasks, int jobs) {
  if (!impl_->direct || !impl_->outputs.empty())
    return Error(ErrorCode::kInvalidArgument, "the regrouping writes no output of its own, or has written it");
  for (int32_t i : subtasks)
    if (i < 0 || i >= impl_->parallelism)
      return Error(ErrorCode::kInvalidArgument, fmt::format("no output subtask {}", i));
  std::atomic<uint64_t> pairs{0};
  CKPT_RETURN_IF_ERROR(impl_->write(subtasks, jobs, &pairs));
  pairs_ += pairs;
  return Status::OK();
}

std::optional<RawKeyedStream> Regrouper::raw_keyed(int32_t index) const {
  if (!impl_->timer_blocks || index < 0 || index >= impl_->parallelism) return std::nullopt;
  RawKeyedStream out;
  out.range = key_group_range_of_subtask(impl_->max_parallelism, impl_->parallelism, index);
  // Every key group of the range gets its block, the services each lists in the same order, as
  // Flink writes them; timers in the order of their bytes (Flink's is a hash set's), so that
  // the same timers give the same stream.
  for (int32_t kg = out.range.first; kg < out.range.first + out.range.count; ++kg) {
    RawTimerBlock block;
    block.version = impl_->timer_version;
    auto found = impl_->timers.find(kg);
    for (size_t s = 0; s < impl_->timer_heads.size(); ++s) {
      RawTimerService& service = block.services.emplace_back();
      service.head = impl_->timer_heads[s];
      if (found == impl_->timers.end() || s >= found->second.size()) continue;
      for (int list = 0; list < 2; ++list) {
        std::vector<std::string> bytes = found->second[s][list];
        std::sort(bytes.begin(), bytes.end());
        for (std::string& b : bytes) service.timers[list].push_back({std::move(b), std::nullopt});
      }
    }
    out.offsets.push_back(static_cast<int64_t>(out.bytes.size()));
    out.bytes += write_raw_timer_block(block);
  }
  return out;
}

std::optional<KeyedSource> Regrouper::source(int32_t index) {
  if (index < 0 || index >= impl_->parallelism || !impl_->any[index]) return std::nullopt;
  KeyedSource s;
  s.meta = impl_->meta;
  s.range = key_group_range_of_subtask(impl_->max_parallelism, impl_->parallelism, index);
  s.layout = impl_->layout;
  if (impl_->direct) {
    s.layout = impl_->written_layout;
    if (static_cast<size_t>(index) >= impl_->outputs.size() || !impl_->outputs[static_cast<size_t>(index)])
      return std::nullopt;  // not written (Regroup::subtasks() gave the subtasks to write)
    s.written = impl_->outputs[static_cast<size_t>(index)]->written;
    return s;
  }
  Impl* impl = impl_.get();
  s.produce = [impl, index](const KeyGroupPairsFn& fn) {
    return impl->spill_files->produce(index, impl->meta.states.size(), fn);
  };
  return s;
}

}  // namespace ckpt
