// Keys moved to the key groups of another max parallelism: spilled per output subtask, read
// back in sorted runs merged by key group.
#include "ops/edit/regroup.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <map>
#include <mutex>

#include <fmt/format.h>

#include "format/key_groups.h"
#include "state/keyed_state_codec.h"
#include "state/keyed_stream_writer.h"
#include "state/layout_transcoder.h"
#include "state/raw_keyed_reader.h"
#include "state/raw_timers_reader.h"
#include "support/worker_threads.h"
#include "types/value_decoder.h"

namespace ckpt {

struct Regrouper::Impl {
  int32_t max_parallelism = 0;
  int32_t parallelism = 0;
  KeyedBackendMeta meta;  // the states of every input subtask, by name (the first one's order)
  ConvertTarget layout = ConvertTarget::kHeap;
  std::unique_ptr<KeyGroupSpill> spill_files;  // per output subtask
  // RegroupOutput: each output subtask's stream, written as the input is read.
  struct Output {
    std::unique_ptr<KeyedStreamWriter> writer;
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
  Status route(const Input& in, const std::vector<char>& mine, std::atomic<uint64_t>* pairs) {
    const KeyedHandle& h = in.st->managed_keyed;
    const RawKeyedSource& source = in.source;
    const std::vector<uint32_t>& ids = in.ids;
    CKPT_ASSIGN_OR_RETURN(const Hashers hashers, Impl::hashers(*op, in));
    const int32_t old_max = op->max_parallelism;
    const int32_t fan = max_parallelism / old_max;  // output key groups per input key group
    const int old_prefix = key_group_prefix_bytes(old_max);
    const int new_prefix = key_group_prefix_bytes(max_parallelism);
    // Output key group k + old_max * j of input key group k, by j; by output state.
    std::vector<std::vector<std::vector<RocksPair>>> moved(static_cast<size_t>(fan));
    std::vector<int32_t> fed;          // the j with pairs, ascending
    std::vector<RocksPair> others;     // pairs of other threads' subtasks, left to the reader
    std::string prefix;
    auto write = [&](int32_t kg, int32_t j) -> Status {
      const int32_t to = kg + old_max * j;
      const int32_t output = subtask_of(to);
      Output& out = *outputs[static_cast<size_t>(output)];
      auto& group = moved[static_cast<size_t>(j)];
      uint64_t entries = 0;
      for (const auto& state_pairs : group) entries += state_pairs.size();
      CKPT_RETURN_IF_ERROR(out.writer->key_group(to, group));
      out.written.entries += entries;
      return Status::OK();
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
          uint64_t peak = peak_held.load(std::memory_order_relaxed);
          while (held > peak && !peak_held.compare_exchange_weak(peak, held)) {
          }
          for (int32_t j : fed) CKPT_RETURN_IF_ERROR(write(kg, j));
          // The pairs back to the reader, whose pools reuse their strings for the next key group.
          for (int32_t j : fed)
            for (size_t i = 0; i < by_state.size() && i < hashers.codecs.size(); ++i) {
              auto& from = moved[static_cast<size_t>(j)][ids[i]];
              for (RocksPair& p : from) by_state[i].push_back(std::move(p));
              from.clear();
            }
          *pairs += n;
          return Status::OK();
        },
        check_blocks);
    return read;
  }

  // RegroupOutput: the output subtasks `owned` written, `jobs` threads each writing some of the
  // streams from every input in turn, so that each stream's key groups lie in the same order
  // at every run (each thread reads every input).
  Status write(const std::vector<int32_t>& owned, int jobs, std::atomic<uint64_t>* pairs) {
    CKPT_RETURN_IF_ERROR(open_outputs(owned));
    const size_t threads = std::min<size_t>(static_cast<size_t>(std::max(1, jobs)), owned.size());
    CKPT_RETURN_IF_ERROR(run_parallel(threads, static_cast<int>(threads), [&](size_t t) -> Status {
      std::vector<char> mine(static_cast<size_t>(parallelism), 0);
      for (size_t x = t; x < owned.size(); x += threads) mine[static_cast<size_t>(owned[x])] = 1;
      for (const Input& in : inputs) {
        Status s = route(in, mine, pairs);
        if (!s.ok()) return std::move(s).error().with_context(fmt::format("subtask {}", in.st->index));
      }
      return Status::OK();
    }));
    return finish_outputs();
  }

  Status finish_outputs() {
    for (auto& out : outputs) {
      if (!out) continue;
      CKPT_RETURN_IF_ERROR(out->writer->finish());
      out->written.offsets = out->writer->offsets();
      out->written.size = out->writer->size();
      out->written.peak_buffered_bytes = peak_held.load();
      out->writer.reset();
    }
    return Status::OK();
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
  // (RegroupOutput) and the streams, one open file per output subtask, are not too many.
  constexpr int32_t kMostStreams = 256;
  const ConvertTarget layout = output.to ? *output.to : impl->layout;
  const bool multiple = in.max_parallelism > 0 && max_parallelism % in.max_parallelism == 0;
  const bool direct = keyed && !output.dir.empty() && multiple && parallelism <= kMostStreams &&
                      layout != ConvertTarget::kRocksDb;
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
