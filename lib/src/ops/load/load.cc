// `ckpt load`: a savepoint written from dump's NDJSON, shaped like a template snapshot.
#include "ckpt/load.h"

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <set>

#include <fmt/format.h>

#include "ops/rewrite/snapshot_rewrite.h"
#include "ops/key_group_spill.h"
#include "ops/key_spelling.h"
#include "ops/load/entry_line.h"
#include "ops/load/keyed_lines.h"
#include "ops/load/operator_stream.h"
#include "ops/load/spec_template.h"
#include "state/keyed_state_codec.h"
#include "state/layout_transcoder.h"
#include "state/raw_keyed_reader.h"
#include "state/raw_timers_reader.h"
#include "support/byte_reader.h"
#include "support/byte_writer.h"
#include "support/fs_listing.h"
#include "support/json_input.h"
#include "support/json_text.h"
#include "support/worker_threads.h"
#include "types/value_decoder.h"
#include "types/value_decoders.h"

namespace ckpt {
namespace {

// One keyed state of a template operator: decoded and encoded as its (first) subtask's proxy says.
struct KeyedStateCodecs {
  std::unique_ptr<KeyedStateCodec> codec;
  std::unique_ptr<StateTranscoder> transcoder;
};

// The legacy timers of a template operator's raw keyed state (Flink 1.2 to 1.12 with timers on
// the heap beside RocksDB): its services as the template lists them, and what the lines give.
struct RawTimerLines {
  bool present = false;
  int32_t version = 0;
  std::vector<std::string> heads;            // each service's name and serializers, as stored
  std::vector<RawTimerServiceCodec> codecs;  // parallel to heads
  // key group -> per service, the event- and processing-time timers' bytes in the lines' order
  std::map<int32_t, std::vector<std::array<std::vector<std::string>, 2>>> timers;
  std::vector<KeyGroupRange> ranges;  // the template subtasks' raw keyed ranges
};

// One operator of the template and what the lines put in it.
struct LoadOperator {
  const OperatorState* op = nullptr;
  std::string hex;
  // Keyed state: per subtask position (in op->subtasks) its proxy (nullopt: no keyed handle).
  std::vector<std::optional<KeyedBackendMeta>> metas;
  std::vector<KeyGroupRange> ranges;   // per subtask position, empty where no keyed handle
  std::vector<ConvertTarget> layouts;  // per subtask position: the layout its handle holds
  std::unique_ptr<ValueDecoder> key_decoder;
  std::map<std::string, KeyedStateCodecs> states;
  std::unique_ptr<KeyGroupSpill> spill;
  bool keep_order = false;
  // Per subtask position: which state's entries followed which in one key group, and the last
  // (key group, state) added: the order a heap stream wrote its states' blocks in.
  std::vector<std::set<std::pair<uint32_t, uint32_t>>> follows;
  std::vector<std::pair<int32_t, uint32_t>> last;
  // Operator state: per subtask index, per state, its data; decoders per subtask and state.
  std::map<int32_t, OperatorBackendMeta> operator_meta;
  std::map<int32_t, std::map<std::string, OperatorStateData>> operator_data;
  std::map<std::pair<int32_t, std::string>, std::pair<std::unique_ptr<ValueDecoder>, std::unique_ptr<ValueDecoder>>>
      operator_decoders;
  RawTimerLines raw;
};

std::string state_names(const std::map<std::string, KeyedStateCodecs>& states) {
  std::string out;
  for (const auto& [name, unused] : states) {
    (void)unused;
    out += out.empty() ? "" : ", ";
    out += "'" + name + "'";
  }
  return out.empty() ? "none" : out;
}

// The input read at once, in whole lines: enough to keep the workers busy, little beside a
// key group; a line longer is read whole. The lines are encoded in chunks of kChunkLines.
constexpr size_t kBatchBytes = size_t{4} << 20;
constexpr size_t kChunkLines = 512;
constexpr int kMaxEncodeJobs = 64;

// A keyed or timer line encoded for its key group's spill.
struct EncodedLine {
  LoadOperator* lo = nullptr;  // null: a line read on the loading thread (operator state, legacy timers)
  std::string state;
  size_t pos = 0;  // the template subtask whose range holds the key group
  int32_t kg = 0;
  uint32_t id = 0;  // the state's index in that subtask's proxy
  bool timer = false;
  std::string pair_key;
  std::string value;
};

// A block of the input's lines and what the workers made of them. Kept from block to block:
// the encoded lines' strings keep their memory.
struct LineBatch {
  std::string text;                     // whole lines, with their newlines
  std::vector<std::string_view> lines;  // into text, without '\n' (or "\r\n")
  // Parallel to lines: blank or not, the line encoded, or why it is not.
  std::vector<char> blank;
  std::vector<EncodedLine> encoded;
  std::vector<std::optional<Error>> errors;
};

// What a worker reads a line with, reused from line to line.
struct LineScratch {
  EntryLine line;
  EntryEncoding encoding;
};

// The rewrite's one edit: the template's operators, each subtask's state replaced by the
// entries read for it.
class Loader : public SnapshotEdit {
 public:
  // With `collect`, keyed entries are handed back there instead of spilled, and operator
  // state is refused (encode_keyed_lines()).
  Loader(std::istream& in, std::string input_name, const LoadOptions& options,
         std::vector<EncodedKeyedEntry>* collect = nullptr,
         std::vector<EncodedOperatorEntry>* collect_operator = nullptr)
      : in_(in),
        name_(std::move(input_name)),
        options_(options),
        collect_(collect),
        collect_operator_(collect_operator) {}

  Status prepare(const Metadata& m, const StreamOpener& streams) override {
    input_bytes_ = remaining_bytes(in_);
    for (const OperatorState& op : m.operators) CKPT_RETURN_IF_ERROR(add_operator(op, streams));
    // Lines are read in blocks of the input; their keyed entries are encoded on the workers
    // (each line on its own: the encoders only read the template, in chunks of lines each with
    // its own parse buffers), then spilled in the lines' order, where every other line is read
    // as well. One block is encoded while the one before it is spilled and the next read into
    // its memory: reading and spilling no longer leave the other workers idle.
    const int jobs = std::max(1, std::min(options_.jobs, kMaxEncodeJobs));
    std::array<LineBatch, 2> batches;
    LineBatch* encoding = &batches[0];
    LineBatch* applying = &batches[1];
    std::vector<LineScratch> scratch;
    uint64_t number = 0;
    CKPT_RETURN_IF_ERROR(read_batch(*encoding));
    while (!encoding->lines.empty() || !applying->lines.empty()) {
      const size_t n = encoding->lines.size();
      encoding->blank.assign(n, 0);
      if (encoding->encoded.size() < n) encoding->encoded.resize(n);
      encoding->errors.assign(n, std::nullopt);
      const size_t chunks = (n + kChunkLines - 1) / kChunkLines;
      if (scratch.size() < chunks) scratch.resize(chunks);
      CKPT_RETURN_IF_ERROR(run_parallel(1 + chunks, jobs, [&](size_t task) -> Status {
        if (task == 0) {
          CKPT_RETURN_IF_ERROR(apply_batch(*applying, number));
          return read_batch(*applying);
        }
        LineBatch& b = *encoding;
        const size_t first = (task - 1) * kChunkLines;
        for (size_t i = first; i < std::min(first + kChunkLines, b.lines.size()); ++i) {
          b.blank[i] = b.lines[i].find_first_not_of(" \t") == std::string_view::npos;
          if (b.blank[i]) continue;
          Status s = encode_keyed_line(b.lines[i], scratch[task - 1], &b.encoded[i]);
          if (!s.ok()) b.errors[i] = std::move(s).error();
        }
        return Status::OK();
      }));
      std::swap(encoding, applying);
    }
    return Status::OK();
  }

  // What dump does not show is not carried over from the template.
  Status operators(Metadata& out, const OutputIds&) override {
    for (OperatorState& op : out.operators)
      for (SubtaskState& st : op.subtasks) {
        st.raw_operator.clear();
        st.input_channels.clear();
        st.result_subpartitions.clear();
      }
    return Status::OK();
  }

  Result<std::optional<KeyedSource>> keyed_source(const OperatorState& op, const SubtaskState& st) override {
    LoadOperator* lo = find(operator_id_hex(op.id));
    if (!lo || st.managed_keyed.is_null()) return std::optional<KeyedSource>();
    size_t pos = position(*lo, st.index);
    if (pos >= lo->metas.size() || !lo->metas[pos]) return std::optional<KeyedSource>();
    KeyedSource s;
    s.meta = *lo->metas[pos];
    s.range = st.managed_keyed.range;
    s.layout = lo->layouts[pos];
    s.keep_order = lo->keep_order;
    if (lo->keep_order) s.state_order = state_order(lo->follows[pos], s.meta.states.size());
    KeyGroupSpill* spill = lo->spill.get();
    const size_t states = s.meta.states.size();
    s.produce = [spill, pos, states](const KeyGroupPairsFn& fn) {
      return spill->produce(static_cast<int32_t>(pos), states, fn);
    };
    return std::optional<KeyedSource>(std::move(s));
  }

  Status operator_state(const OperatorState& op, int32_t subtask, OperatorHandle& h, std::string& bytes) override {
    LoadOperator* lo = find(operator_id_hex(op.id));
    static const std::map<std::string, OperatorStateData> kNone;
    const std::map<std::string, OperatorStateData>* data = &kNone;
    if (lo) {
      auto found = lo->operator_data.find(subtask);
      if (found != lo->operator_data.end()) data = &found->second;
    }
    return write_operator_stream(h, bytes, *data);
  }

  // The raw keyed state of `st`, a subtask of a template operator with legacy timers: per key
  // group of its range a block with every service of the template, each with the timers the
  // lines gave it in their order (the order dump prints them in).
  Result<std::optional<RawKeyedStream>> raw_keyed_source(const OperatorState& op, const SubtaskState& st) override {
    LoadOperator* lo = find(operator_id_hex(op.id));
    if (!lo || !lo->raw.present || st.raw_keyed.is_null()) return std::optional<RawKeyedStream>();
    const RawTimerLines& raw = lo->raw;
    RawKeyedStream out;
    out.range = st.raw_keyed.range;
    for (int32_t kg = out.range.first; kg < out.range.first + out.range.count; ++kg) {
      RawTimerBlock block;
      block.version = raw.version;
      auto found = raw.timers.find(kg);
      for (size_t s = 0; s < raw.heads.size(); ++s) {
        RawTimerService& service = block.services.emplace_back();
        service.head = raw.heads[s];
        if (found == raw.timers.end()) continue;
        for (int list = 0; list < 2; ++list)
          for (const std::string& b : found->second[s][list]) service.timers[list].push_back({b, std::nullopt});
      }
      out.offsets.push_back(static_cast<int64_t>(out.bytes.size()));
      out.bytes += write_raw_timer_block(block);
    }
    return std::optional<RawKeyedStream>(std::move(out));
  }

  LoadSummary& summary() { return summary_; }

 private:
  LoadOperator* find(const std::string& hex) {
    auto it = operators_.find(hex);
    return it == operators_.end() ? nullptr : &it->second;
  }
  // The states in an order where each follows those it followed in a key group (the lines'
  // order), ties by id: Kahn's algorithm, smallest id first. A cycle (lines that contradict
  // each other) leaves the rest in id order.
  static std::vector<size_t> state_order(const std::set<std::pair<uint32_t, uint32_t>>& follows, size_t n) {
    std::vector<size_t> before(n, 0);
    for (const auto& [a, b] : follows)
      if (a < n && b < n) ++before[b];
    std::vector<size_t> order;
    std::vector<bool> done(n, false);
    while (order.size() < n) {
      size_t next = n;
      for (size_t i = 0; i < n && next == n; ++i)
        if (!done[i] && before[i] == 0) next = i;
      if (next == n)
        for (size_t i = 0; i < n && next == n; ++i)
          if (!done[i]) next = i;
      done[next] = true;
      order.push_back(next);
      for (const auto& [a, b] : follows)
        if (a == next && b < n && before[b] > 0) --before[b];
    }
    return order;
  }

  static size_t position(const LoadOperator& lo, int32_t index) {
    for (size_t i = 0; i < lo.op->subtasks.size(); ++i)
      if (lo.op->subtasks[i].index == index) return i;
    return lo.op->subtasks.size();
  }

  // The timer services of `st`'s raw keyed state, added to the operator's (the same services in
  // every key group, as Flink writes them). Raw keyed state other than timers is refused.
  static Status template_timers(LoadOperator& lo, const SubtaskState& st, const StreamOpener& streams) {
    const KeyedHandle& raw = st.raw_keyed;
    if (raw.type != handle_type::kKeyGroups && raw.type != handle_type::kKeyGroupsWithId)
      return Error(ErrorCode::kNotSupported, fmt::format("raw keyed state handle type {:#04x} ({}) is not written",
                                                         raw.type, handle_type_name(raw.type)));
    RawTimerLines& timers = lo.raw;
    timers.ranges.push_back(raw.range);
    return streams.read(raw.delegate, [&](const StateStream& stream) {
      return read_raw_timer_blocks(raw, stream, [&](int32_t, RawTimerBlock&& block) -> Status {
        if (!timers.present) timers.version = block.version;
        timers.present = true;
        if (block.version != timers.version)
          return Error(ErrorCode::kNotSupported, fmt::format("timer blocks of versions {} and {} in one operator",
                                                             timers.version, block.version));
        for (const RawTimerService& service : block.services) {
          if (std::find(timers.heads.begin(), timers.heads.end(), service.head) != timers.heads.end()) continue;
          CKPT_ASSIGN_OR_RETURN(RawTimerServiceCodec codec, raw_timer_service_codec(service.head, block.version));
          timers.heads.push_back(service.head);
          timers.codecs.push_back(std::move(codec));
        }
        return Status::OK();
      });
    });
  }

  // A timer line of a service of the template's raw keyed state: its key, namespace and
  // timestamp as the service's serializers write them, in the key group of its key.
  Status add_raw_timer(LoadOperator& lo, const EntryLine& line, const std::string& state, const nlohmann::json* key,
                       const nlohmann::json& value) {
    RawTimerLines& raw = lo.raw;
    const auto timers = raw_timer_service_of(state);
    size_t s = 0;
    while (timers && s < raw.codecs.size() && raw.codecs[s].name != timers->second) ++s;
    if (!timers || s == raw.codecs.size()) {
      std::string names;
      for (const RawTimerServiceCodec& c : raw.codecs) names += (names.empty() ? "'" : ", '") + c.name + "'";
      return Error(ErrorCode::kInvalidArgument,
                   fmt::format("state: operator {} of the template has no keyed state '{}' (its legacy timers are "
                               "_timer_state/event_<service> and _timer_state/processing_<service> of the services {})",
                               lo.hex, state, names.empty() ? "none" : names));
    }
    const RawTimerServiceCodec& codec = raw.codecs[s];
    if (!key) return Error(ErrorCode::kInvalidArgument, "key: missing (timers have one)");
    CKPT_ASSIGN_OR_RETURN(const nlohmann::json* ns, member(line, "namespace", true));
    if (!value.is_number_integer())
      return Error(ErrorCode::kInvalidArgument,
                   fmt::format("value: expected the timer's timestamp, got {}", json_text(value)));
    ByteWriter w;
    CKPT_RETURN_IF_ERROR(decoders::encode_at(codec.key->encode(*key, w), "key"));
    const size_t key_bytes = w.size();
    CKPT_RETURN_IF_ERROR(decoders::encode_at(codec.ns->encode(*ns, w), "namespace"));
    w.i64(value.get<int64_t>());
    std::string bytes = w.take();
    const int32_t mp = lo.op->max_parallelism;
    ByteReader r(std::string_view(bytes).substr(0, key_bytes));
    CKPT_ASSIGN_OR_RETURN(int32_t kg, key_group_of(line, codec.key->read_java_hash_code(r), mp, *codec.key));
    if (std::none_of(raw.ranges.begin(), raw.ranges.end(), [&](const KeyGroupRange& g) { return g.contains(kg); }))
      return Error(ErrorCode::kInvalidArgument,
                   fmt::format("key: its key group {} is in no subtask of operator {} of the template", kg, lo.hex));
    auto& services = raw.timers[kg];
    services.resize(raw.heads.size());
    services[s][timers->first].push_back(std::move(bytes));
    summary_.timers++;
    return Status::OK();
  }

  Status add_operator(const OperatorState& op, const StreamOpener& streams) {
    LoadOperator& lo = operators_[operator_id_hex(op.id)];
    lo.op = &op;
    lo.hex = operator_id_hex(op.id);
    lo.metas.resize(op.subtasks.size());
    lo.follows.resize(op.subtasks.size());
    lo.last.assign(op.subtasks.size(), {-1, 0});
    lo.ranges.resize(op.subtasks.size());
    lo.layouts.resize(op.subtasks.size(), ConvertTarget::kHeap);
    bool keep_order = false;
    for (size_t i = 0; i < op.subtasks.size(); ++i) {
      const SubtaskState& st = op.subtasks[i];
      auto where = [&](Error e) {
        return std::move(e).with_context(fmt::format("template operator {}, subtask {}", lo.hex, st.index));
      };
      // An edit's entries leave raw keyed state as it is (its timers are not upserted).
      if (!st.raw_keyed.is_null() && !collect_) {
        Status s = template_timers(lo, st, streams);
        if (!s.ok()) return where(std::move(s).error());
      }
      if (st.managed_keyed.is_null()) continue;
      auto source = open_raw_keyed(st.managed_keyed, streams, op.max_parallelism);
      if (!source.ok()) return where(std::move(source).error());
      lo.ranges[i] = st.managed_keyed.range;
      // What the stream holds, not what its handle type suggests: a key-groups handle (type 3)
      // of Flink before 1.13 holds a RocksDB backend's canonical stream.
      switch (source->layout) {
        case KeyedLayout::kHeap: lo.layouts[i] = ConvertTarget::kHeap; break;
        case KeyedLayout::kCanonical: lo.layouts[i] = ConvertTarget::kCanonical; break;
        case KeyedLayout::kNative: lo.layouts[i] = ConvertTarget::kRocksDb; break;
        case KeyedLayout::kChangelog: lo.layouts[i] = same_layout_target(st.managed_keyed); break;
      }
      if (!lo.key_decoder) {
        keep_order = (options_.to ? *options_.to : lo.layouts[i]) != ConvertTarget::kRocksDb;
        auto key = make_decoder(source->meta.key_serializer);
        if (!key.ok()) return where(std::move(key).error());
        lo.key_decoder = std::move(key).value();
      }
      for (const StateMetaInfo& info : source->meta.states) {
        if (lo.states.count(info.name)) continue;
        KeyedStateCodecs c;
        auto codec = KeyedStateCodec::make(info, *lo.key_decoder, op.max_parallelism);
        if (!codec.ok()) return where(std::move(codec).error());
        auto transcoder = StateTranscoder::make(info, *lo.key_decoder, op.max_parallelism);
        if (!transcoder.ok()) return where(std::move(transcoder).error());
        c.codec = std::move(codec).value();
        c.transcoder = std::move(transcoder).value();
        lo.states.emplace(info.name, std::move(c));
      }
      lo.metas[i] = std::move(source->meta);
    }
    if (lo.key_decoder && !collect_) {
      // Heap and canonical streams keep the order their entries came in (a snapshot's dump: the
      // order of the heap backend's hash tables it was written in); RocksDB's are sorted.
      lo.keep_order = keep_order;
      // The input's size bounds what each subtask spills (a line's pair is shorter than its
      // text): with one bucket a subtask's spill larger than a run was read back, spilled
      // again in sorted runs and merged, all of it written and read twice.
      CKPT_ASSIGN_OR_RETURN(lo.spill,
                            KeyGroupSpill::make(lo.ranges, input_bytes_ / std::max<size_t>(1, lo.ranges.size()),
                                                !keep_order,
                                                options_.run_bytes ? options_.run_bytes : KeyGroupSpill::kRunBytes));
    }
    for (const SubtaskState& st : op.subtasks)
      for (const OperatorHandle& h : st.managed_operator) {
        if (h.is_null()) continue;
        Status s = streams.read(h.delegate, [&](const StateStream& stream) -> Status {
          std::string bytes;
          CKPT_RETURN_IF_ERROR(stream.read(0, stream.size(), &bytes));
          CKPT_ASSIGN_OR_RETURN(OperatorBackendMeta meta, operator_stream_proxy(h, bytes));
          lo.operator_meta[st.index] = std::move(meta);
          return Status::OK();
        });
        if (!s.ok())
          return std::move(s).error().with_context(
              fmt::format("template operator {}, subtask {}: operator state", lo.hex, st.index));
        break;  // Flink writes one managed operator-state handle per subtask
      }
    return Status::OK();
  }

  static Result<const nlohmann::json*> member(const EntryLine& line, const char* name, bool required) {
    const nlohmann::json* m = line.find(name);
    if (!m && required) return Error(ErrorCode::kInvalidArgument, fmt::format("{}: missing", name));
    return m;
  }
  // A member of a line EntryLine accepted, as written (its objects' members in their order).
  static std::string written_member(std::string_view text, const char* name) {
    nlohmann::ordered_json line = nlohmann::ordered_json::parse(text, nullptr, /*allow_exceptions=*/false);
    auto m = line.is_object() ? line.find(name) : line.end();
    return m == line.end() ? std::string() : m->dump();
  }
  // A string member, in the line's tree (no copy: the workers read millions).
  static Result<const std::string*> string_ref(const EntryLine& line, const char* name) {
    CKPT_ASSIGN_OR_RETURN(const nlohmann::json* m, member(line, name, true));
    if (!m->is_string())
      return Error(ErrorCode::kInvalidArgument, fmt::format("{}: expected a string, got {}", name, json_text(*m)));
    return &m->get_ref<const std::string&>();
  }
  static Result<std::string> string_member(const EntryLine& line, const char* name) {
    CKPT_ASSIGN_OR_RETURN(const std::string* s, string_ref(line, name));
    return *s;
  }

  // Flink's key group of a key whose Java hashCode is `hash`; where that is not known, the key
  // group the line gives (dump prints it), checked against the max parallelism `mp`.
  static Result<int32_t> key_group_of(const EntryLine& line, std::optional<int32_t> hash, int32_t mp,
                                      const ValueDecoder& key) {
    if (hash) return key_group_for_hash(*hash, mp);
    CKPT_ASSIGN_OR_RETURN(const nlohmann::json* given, member(line, "key_group", false));
    if (!given || !given->is_number_integer() || given->get<int64_t>() < 0 || given->get<int64_t>() >= mp)
      return Error(ErrorCode::kInvalidArgument,
                   fmt::format("key_group: the Java hashCode of {} keys is not known: expected the key group dump "
                               "printed, 0 to {}",
                               key.serializer_class(), mp - 1));
    return given->get<int32_t>();
  }

  // The operator a line names: its id, or its uid, which Flink hashes to the id
  // (StreamGraphHasherV2); dump prints both for operators it could name.
  static Result<std::string> operator_of(const EntryLine& line) {
    std::string by_uid;
    CKPT_ASSIGN_OR_RETURN(const std::string* hex, operator_ref(line, by_uid));
    return *hex;
  }
  // The same, in the line's tree or (named by its uid) in `by_uid`.
  static Result<const std::string*> operator_ref(const EntryLine& line, std::string& by_uid) {
    if (!line.find("operator") && line.find("uid")) {
      CKPT_ASSIGN_OR_RETURN(const std::string* uid, string_ref(line, "uid"));
      by_uid = operator_id_hex(operator_id_of_uid(*uid));
      return &by_uid;
    }
    return string_ref(line, "operator");
  }

  // A keyed or timer line encoded as its RocksDB pair, and where it goes; a line with no `lo`
  // is one add_line() reads on the loading thread (operator state, legacy timers). Reads the
  // template only: the workers run it on lines of their own.
  // Into `out`'s memory (its lo null for the loading thread's lines); `scratch` is reused too.
  Status encode_keyed_line(std::string_view text, LineScratch& scratch, EncodedLine* out) {
    out->lo = nullptr;
    CKPT_RETURN_IF_ERROR(scratch.line.assign(text));
    const EntryLine& line = scratch.line;
    std::string by_uid;
    CKPT_ASSIGN_OR_RETURN(const std::string* op_hex, operator_ref(line, by_uid));
    LoadOperator* lo = find(*op_hex);
    if (!lo)
      return Error(ErrorCode::kInvalidArgument,
                   fmt::format("operator: expected the id of an operator of the template, got \"{}\"", *op_hex));
    CKPT_ASSIGN_OR_RETURN(const std::string* state_ref, string_ref(line, "state"));
    CKPT_ASSIGN_OR_RETURN(const std::string* kind_ref, string_ref(line, "kind"));
    const std::string& state = *state_ref;
    const std::string& kind = *kind_ref;
    CKPT_ASSIGN_OR_RETURN(const nlohmann::json* value, member(line, "value", true));
    if (kind == "operator") return Status::OK();
    if (kind != "keyed" && kind != "timer")
      return Error(ErrorCode::kInvalidArgument,
                   fmt::format("kind: expected \"keyed\", \"timer\" or \"operator\", got \"{}\"", kind));
    auto codecs = lo->states.find(state);
    if (codecs == lo->states.end() && kind == "timer" && lo->raw.present) return Status::OK();
    if (codecs == lo->states.end())
      return Error(ErrorCode::kInvalidArgument,
                   fmt::format("state: operator {} of the template has no keyed state '{}' (it has {})", lo->hex, state,
                               state_names(lo->states)));
    const KeyedStateCodec& codec = *codecs->second.codec;
    const bool timer = codec.kind() == StateKind::kPriorityQueue && kind == "timer";
    if ((kind == "timer") != timer)
      return Error(ErrorCode::kInvalidArgument,
                   fmt::format("kind: state '{}' holds {} entries, not \"{}\"", state,
                               codec.kind() == StateKind::kPriorityQueue ? "timer" : "keyed", kind));
    CKPT_ASSIGN_OR_RETURN(const nlohmann::json* key_member,
                          member(line, "key", codec.kind() != StateKind::kPriorityQueue || timer));
    CKPT_ASSIGN_OR_RETURN(const nlohmann::json* ns, member(line, "namespace", false));
    CKPT_ASSIGN_OR_RETURN(const nlohmann::json* user_key, member(line, "user_key", false));
    // A key row may be written in any spelling dump prints keys in (ops/key_spelling.h).
    std::optional<nlohmann::json> key;
    if (key_member) {
      // Only an object can be a row spelled another way: other keys are read as they are.
      if (key_member->is_object()) {
        const nlohmann::json* fields = json_member(*key_member, "fields");
        // A row named as dump --plan prints it lists its columns in the row's order, which the
        // tree lost: the line's text has it.
        auto given = parse_given_key(
            fields && fields->is_object() ? written_member(text, "key") : json_text(*key_member), "key");
        key = given.ok() ? given->spellings.back() : *key_member;
      }
    }
    EntryEncoding& enc = scratch.encoding;
    CKPT_RETURN_IF_ERROR(codec.encode_entry(key ? &*key : key_member, ns, user_key, *value, &enc));
    std::optional<int32_t> hash;
    if (!enc.key.empty() || key_member) {
      ByteReader r(enc.key);
      hash = lo->key_decoder->read_java_hash_code(r);
    }
    CKPT_ASSIGN_OR_RETURN(int32_t kg, key_group_of(line, hash, lo->op->max_parallelism, *lo->key_decoder));
    size_t pos = 0;
    while (pos < lo->ranges.size() && !lo->ranges[pos].contains(kg)) ++pos;
    if (pos == lo->ranges.size())
      return Error(
          ErrorCode::kInvalidArgument,
          fmt::format("key: its key group {} is in no keyed subtask of operator {} of the template", kg, lo->hex));
    const KeyedBackendMeta& meta = *lo->metas[pos];
    uint32_t id = 0;
    while (id < meta.states.size() && meta.states[id].name != state) ++id;
    if (id == meta.states.size())
      return Error(ErrorCode::kInvalidArgument,
                   fmt::format("state: subtask {} of operator {} of the template has no state '{}'",
                               lo->op->subtasks[pos].index, lo->hex, state));
    std::string& pair_key = out->pair_key;
    pair_key.clear();
    if (codec.kind() == StateKind::kPriorityQueue) {
      append_key_group_prefix(pair_key, kg, codec.prefix_bytes());
      pair_key += enc.element;
    } else {
      codecs->second.transcoder->append_rocks_base(pair_key, kg, enc.key, enc.ns);
      pair_key += enc.user_key;
    }
    out->lo = lo;
    out->state = state;
    out->pos = pos;
    out->kg = kg;
    out->id = id;
    out->timer = timer;
    out->value.swap(enc.value);  // the encoding reuses the memory the line's value had
    return Status::OK();
  }

  // An encoded line's pair, spilled (or handed back to an edit), in the lines' order.
  Status apply(EncodedLine& e) {
    LoadOperator* lo = e.lo;
    if (collect_) {
      collect_->push_back({lo->hex, std::move(e.state), e.kg, std::move(e.pair_key), std::move(e.value)});
      (e.timer ? summary_.timers : summary_.keyed)++;
      return Status::OK();
    }
    CKPT_RETURN_IF_ERROR(lo->spill->add(static_cast<int32_t>(e.pos), e.kg, e.id, e.pair_key, e.value));
    auto& last = lo->last[e.pos];
    if (last.first == e.kg && last.second != e.id) lo->follows[e.pos].insert({last.second, e.id});
    last = {e.kg, e.id};
    (e.timer ? summary_.timers : summary_.keyed)++;
    return Status::OK();
  }

  // A line on the loading thread: operator state and legacy timers here, keyed lines as the
  // workers encode them.
  Status add_line(std::string_view text) {
    EncodedLine e;
    CKPT_RETURN_IF_ERROR(encode_keyed_line(text, scratch_, &e));
    if (e.lo) return apply(e);
    const EntryLine& line = scratch_.line;
    CKPT_ASSIGN_OR_RETURN(std::string op_hex, operator_of(line));
    LoadOperator* lo = find(op_hex);
    CKPT_ASSIGN_OR_RETURN(std::string state, string_member(line, "state"));
    CKPT_ASSIGN_OR_RETURN(std::string kind, string_member(line, "kind"));
    CKPT_ASSIGN_OR_RETURN(const nlohmann::json* value, member(line, "value", true));
    if (kind == "operator" && collect_ && !collect_operator_)
      return Error(ErrorCode::kNotSupported,
                   "kind: expected a keyed or timer entry (operator state is not edited by entry)");
    if (kind == "operator") return add_operator_entry(*lo, line, state, *value);
    CKPT_ASSIGN_OR_RETURN(const nlohmann::json* timer_key, member(line, "key", false));
    return add_raw_timer(*lo, line, state, timer_key, *value);
  }

  // A line's error as the user sees it: the input and line first.
  Error numbered(Error e, uint64_t number) const {
    // An edit's entries go into the snapshot edited, which is no template.
    for (size_t at = 0; collect_ && (at = e.message.find("of the template", at)) != std::string::npos;)
      e.message.replace(at, 15, "of the snapshot");
    if (e.code == ErrorCode::kInvalidArgument || e.code == ErrorCode::kNotSupported)
      e.message = fmt::format("{}:{}: {}", name_, number, e.message);
    else
      e = std::move(e).with_context(fmt::format("{}:{}", name_, number));
    return e;
  }

  Status add_operator_entry(LoadOperator& lo, const EntryLine& line, const std::string& state,
                            const nlohmann::json& value) {
    CKPT_ASSIGN_OR_RETURN(const nlohmann::json* subtask_member, member(line, "subtask", true));
    if (!subtask_member->is_number_integer())
      return Error(ErrorCode::kInvalidArgument,
                   fmt::format("subtask: expected an integer, got {}", json_text(*subtask_member)));
    const int64_t subtask = subtask_member->get<int64_t>();
    auto meta = subtask >= 0 && subtask <= INT32_MAX ? lo.operator_meta.find(static_cast<int32_t>(subtask))
                                                     : lo.operator_meta.end();
    if (meta == lo.operator_meta.end())
      return Error(
          ErrorCode::kInvalidArgument,
          fmt::format("subtask: subtask {} of operator {} of the template has no operator state", subtask, lo.hex));
    const StateMetaInfo* info = meta->second.find(state);
    if (!info)
      return Error(ErrorCode::kInvalidArgument,
                   fmt::format("state: subtask {} of operator {} of the template has no operator state '{}'", subtask,
                               lo.hex, state));
    const bool broadcast = info->kind() == StateKind::kBroadcast;
    auto& decoders = lo.operator_decoders[{static_cast<int32_t>(subtask), state}];
    if (!decoders.first) {
      const SerializerSnapshot* vs = info->value_serializer();
      const SerializerSnapshot* ks = info->key_serializer();
      if (!vs || (broadcast && !ks))
        return Error(ErrorCode::kInvalidArgument, fmt::format("state: '{}' of the template has no serializer", state));
      CKPT_ASSIGN_OR_RETURN(decoders.first, make_decoder(*vs));
      if (broadcast) {
        CKPT_ASSIGN_OR_RETURN(decoders.second, make_decoder(*ks));
      }
    }
    ByteWriter v;
    CKPT_RETURN_IF_ERROR(decoders::encode_at(decoders.first->encode(value, v), "value"));
    std::string key_bytes;
    if (broadcast) {
      CKPT_ASSIGN_OR_RETURN(const nlohmann::json* key, member(line, "key", true));
      ByteWriter k;
      CKPT_RETURN_IF_ERROR(decoders::encode_at(decoders.second->encode(*key, k), "key"));
      key_bytes = k.take();
    }
    if (collect_operator_) {
      collect_operator_->push_back(
          {lo.hex, static_cast<int32_t>(subtask), state, broadcast, std::move(key_bytes), v.take()});
      summary_.operator_entries++;
      return Status::OK();
    }
    OperatorStateData& data = lo.operator_data[static_cast<int32_t>(subtask)][state];
    if (broadcast)
      data.entries.emplace_back(std::move(key_bytes), v.take());
    else
      data.elements.push_back(v.take());
    summary_.operator_entries++;
    return Status::OK();
  }

  // The bytes left to read in `in`, if it can seek (a file); else 0.
  static uint64_t remaining_bytes(std::istream& in) {
    const std::istream::pos_type here = in.tellg();
    if (here == std::istream::pos_type(-1)) {
      in.clear();
      return 0;
    }
    uint64_t bytes = 0;
    if (in.seekg(0, std::ios::end)) {
      const std::istream::pos_type end = in.tellg();
      if (end != std::istream::pos_type(-1) && end > here) bytes = static_cast<uint64_t>(end - here);
    }
    in.clear();
    in.seekg(here);
    return bytes;
  }

  // The next lines of the input into `b` (none at its end): whole lines of about kBatchBytes,
  // at least one; the start of the line after them is kept for the next batch. Lines end at
  // '\n', a '\r' before it dropped, the last one at the input's end (std::getline's lines).
  Status read_batch(LineBatch& b) {
    b.lines.clear();
    b.text.assign(carry_);  // into the batch's memory, which its last lines left (no page faults)
    carry_.clear();
    size_t searched = 0;
    size_t end = std::string::npos;  // one past the last newline
    while (!at_end_) {
      const size_t had = b.text.size();
      b.text.resize(had + kBatchBytes);
      in_.read(b.text.data() + had, static_cast<std::streamsize>(kBatchBytes));
      b.text.resize(had + static_cast<size_t>(in_.gcount()));
      if (in_.bad()) return Error(ErrorCode::kIOError, fmt::format("{}: read error after line {}", name_, lines_read_));
      if (!in_) at_end_ = true;
      const size_t nl = b.text.rfind('\n');
      if (nl != std::string::npos && nl >= searched) {
        end = nl + 1;
        break;
      }
      searched = b.text.size();
    }
    if (!at_end_ && end != std::string::npos) {
      carry_.assign(b.text, end, std::string::npos);
      b.text.resize(end);
    }
    const char* p = b.text.data();
    const char* const stop = p + b.text.size();
    while (p < stop) {
      const char* nl = static_cast<const char*>(std::memchr(p, '\n', static_cast<size_t>(stop - p)));
      const char* line_end = nl ? nl : stop;
      std::string_view line(p, static_cast<size_t>(line_end - p));
      if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
      b.lines.push_back(line);
      ++lines_read_;
      p = nl ? nl + 1 : stop;
    }
    return Status::OK();
  }

  // The encoded lines of `b` spilled (other lines read) in order, `number` the lines before them.
  Status apply_batch(LineBatch& b, uint64_t& number) {
    for (size_t i = 0; i < b.lines.size(); ++i) {
      ++number;
      if (b.blank[i]) continue;
      Status s = b.errors[i]       ? Status(std::move(*b.errors[i]))
                 : b.encoded[i].lo ? apply(b.encoded[i])
                                   : add_line(b.lines[i]);
      if (!s.ok()) return numbered(std::move(s).error(), number);
      ++summary_.lines;
    }
    return Status::OK();
  }

  std::istream& in_;
  std::string carry_;    // read past the last batch's lines: the start of the next line
  bool at_end_ = false;  // the input is read to its end
  uint64_t lines_read_ = 0;
  uint64_t input_bytes_ = 0;
  std::string name_;
  const LoadOptions& options_;
  std::map<std::string, LoadOperator> operators_;
  LoadSummary summary_;
  std::vector<EncodedKeyedEntry>* collect_ = nullptr;
  std::vector<EncodedOperatorEntry>* collect_operator_ = nullptr;
  LineScratch scratch_;  // the line being read on the loading thread, its memory reused
};

}  // namespace

Result<std::vector<EncodedKeyedEntry>> encode_keyed_lines(std::istream& in, const std::string& input_name,
                                                          const Metadata& snapshot, const StreamOpener& streams,
                                                          std::vector<EncodedOperatorEntry>* operator_entries) {
  std::vector<EncodedKeyedEntry> out;
  LoadOptions options;
  Loader loader(in, input_name, options, &out, operator_entries);
  CKPT_RETURN_IF_ERROR(loader.prepare(snapshot, streams));
  return out;
}

namespace {

// The template a spec describes, in a temporary directory removed when this goes.
class SpecTemplateDir {
 public:
  ~SpecTemplateDir() {
    std::error_code ec;
    if (!path_.empty()) std::filesystem::remove_all(path_, ec);
  }
  Status write(const LoadOptions& options) {
    CKPT_ASSIGN_OR_RETURN(std::string tmp, temp_directory());
    std::string tmpl = (std::filesystem::path(tmp) / "ckpt-load-spec-XXXXXX").string();
    if (::mkdtemp(tmpl.data()) == nullptr)
      return Error(ErrorCode::kIOError,
                   fmt::format("{}: cannot create a temporary directory: {}", tmpl, std::strerror(errno)));
    path_ = tmpl;
    return write_spec_template(options.spec_text, options.spec_name, path_, ConvertTarget::kHeap);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace

Result<LoadSummary> load_snapshot(std::istream& in, const std::string& input_name, const LoadOptions& given) {
  LoadOptions options = given;
  SpecTemplateDir spec_template;
  if (options.like.empty()) {
    if (options.spec_text.empty()) return Error(ErrorCode::kInvalidArgument, "no template snapshot and no spec given");
    CKPT_RETURN_IF_ERROR(spec_template.write(options));
    options.like = spec_template.path();
    if (!options.to) options.to = ConvertTarget::kHeap;
  }
  Loader loader(in, input_name, options);
  RewriteOptions ro;
  ro.to = options.to;
  ro.output = options.output;
  ro.force = options.force;
  ro.remap = options.remap;
  ro.progress = options.progress;
  ro.jobs = options.jobs;
  CKPT_ASSIGN_OR_RETURN(ConvertSummary written, rewrite_snapshot(options.like, ro, {&loader}));
  LoadSummary summary = loader.summary();
  summary.written = std::move(written);
  return summary;
}

}  // namespace ckpt
