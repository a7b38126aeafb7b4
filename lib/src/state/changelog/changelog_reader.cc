// Changelog backend: materialized entries plus replayed change logs (inline or in files), applied the way
// Flink's ChangelogBackendLogApplier and its per-kind StateChangeAppliers do.
#include "state/changelog/changelog_reader.h"

#include <algorithm>

#include <fmt/format.h>

#include "state/backend_meta.h"
#include "state/keyed_state_codec.h"
#include "types/value_decoders.h"
#include "support/json_text.h"

namespace ckpt {
namespace {

// StateChangeOperation codes. METADATA was 8 until REMOVE_FIRST_ELEMENT took that code (and
// METADATA moved to 9); metadata changes always carry key group -1, which tells them apart.
enum Op : uint8_t {
  kClear = 0,
  kSet = 1,
  kSetInternal = 2,
  kAdd = 3,
  kMergeNamespaces = 4,
  kAddElement = 5,
  kAddOrUpdateElement = 6,
  kRemoveElement = 7,
  kMetadataOld = 8,  // REMOVE_FIRST_ELEMENT in data changes of later versions
  kMetadata = 9,
};
constexpr int32_t kCommonKeyGroup = -1;
constexpr const char* kNoKeySerializer = "changelog without key serializer snapshot";
// Keys of unknown length are found by trying each split; change records are small, this
// bounds the work on a damaged one.
constexpr size_t kMaxGuessedKeyBytes = 4096;
constexpr char kListDelimiter = ',';  // RocksDB's list merge operator joins elements with it

bool is_timer_serializer(const SerializerSnapshot& s) {
  return s.snapshot_class.find("TimerSerializer") != std::string::npos;
}

bool is_metadata(uint8_t op, int32_t key_group) {
  return op == kMetadata || (op == kMetadataOld && key_group == kCommonKeyGroup);
}

Error wrong_op(uint8_t op, StateKind kind, const std::string& name, uint64_t at) {
  return Error(ErrorCode::kCorruption,
               fmt::format("change operation {} does not apply to {} state '{}'", op, state_kind_name(kind), name), at);
}

// MERGE_NAMESPACES of a value-like state can only move one source's value to an empty target:
// combining values would need the job's reduce or aggregate function.
Status check_movable(size_t merged, bool target_exists, StateKind kind, const std::string& name) {
  if (merged <= 1 && !target_exists) return Status::OK();
  return Error(ErrorCode::kNotSupported,
               fmt::format("merging namespaces of {} state '{}' needs the job's function", state_kind_name(kind), name));
}

// The state meta info of a metadata change, r placed after the op byte.
Result<StateMetaInfo> read_metadata_info(ByteReader& r) {
  uint64_t at = r.offset();
  int32_t version = r.i32();
  if (!r.ok()) return r.take_error();
  if (version < 5 || version > 7)
    return Error(ErrorCode::kNotSupported, fmt::format("state meta info version {} in a change log", version), at);
  return read_state_meta_info(r);
}

}  // namespace

Result<KeyedBackendMeta> read_changelog_meta(const std::vector<KeyedHandle>& logs, const StreamOpener& streams) {
  KeyedBackendMeta meta;
  for (const KeyedHandle& log : logs) {
    Status s = for_each_logged_change(log, streams, [&](const LoggedChange& c) -> Status {
      ByteReader r(c.bytes, c.offset);
      if (c.key_group != kCommonKeyGroup || !is_metadata(r.u8(), c.key_group)) return Status::OK();
      CKPT_ASSIGN_OR_RETURN(StateMetaInfo info, read_metadata_info(r));
      const SerializerSnapshot* element = info.value_serializer();
      // TimerSerializer nests (key, namespace): the backend's key serializer.
      if (meta.key_serializer.serializer_class.empty() && info.kind() == StateKind::kPriorityQueue && element &&
          is_timer_serializer(*element) && !element->nested.empty())
        meta.key_serializer = element->nested[0];
      auto same = std::find_if(meta.states.begin(), meta.states.end(),
                               [&](const StateMetaInfo& s) { return s.name == info.name; });
      if (same != meta.states.end()) *same = std::move(info);
      else meta.states.push_back(std::move(info));
      return Status::OK();
    });
    if (!s.ok()) {
      // A file log's errors already name the log (and its piece).
      if (is_file_changelog(log.type)) return std::move(s).error();
      return std::move(s).error().with_context(fmt::format("change log '{}'", log.handle_id));
    }
  }
  return meta;
}

struct ChangelogState::LoggedState {
  StateMetaInfo info;
  StateKind kind = StateKind::kUnknown;
  std::unique_ptr<KeyedStateCodec> queue;  // PRIORITY_QUEUE: elements as in the heap layout
  std::unique_ptr<ValueDecoder> ns;
  std::unique_ptr<ValueDecoder> value;     // the whole state value (a list, a map)
  std::unique_ptr<ValueDecoder> element;   // list element; map user value
  std::unique_ptr<ValueDecoder> user_key;  // map
  size_t raw_index = 0;                    // byte-level mode: the state's place in RawStore::meta
};

// One key / value change, parsed before it is applied: decoded (dump) or only delimited
// (byte-level mode), the bytes of each part kept either way.
struct ChangelogState::KvChange {
  bool trees = true;
  nlohmann::json key;
  nlohmann::json ns;
  std::vector<nlohmann::json> values;  // the operation's payload, in stored order
  std::string_view key_bytes, ns_bytes;
  std::vector<std::string_view> raw;   // the bytes of each of `values`
};

// Byte-level mode: pairs per key group, per state of `meta`, by RocksDB key.
struct ChangelogState::RawStore {
  KeyedBackendMeta meta;
  std::vector<std::unique_ptr<StateTranscoder>> transcoders;  // by index in meta.states
  std::map<int32_t, std::vector<std::map<std::string, std::string>>> groups;

  std::map<std::string, std::string>& pairs(int32_t key_group, size_t state) {
    auto& g = groups[key_group];
    if (g.empty()) g.resize(meta.states.size());
    return g[state];
  }
};

namespace {

std::string_view span(const ByteReader& r, size_t start) {
  return std::string_view(reinterpret_cast<const char*>(r.data()) + start, r.position() - start);
}

// Appends elements already joined by the delimiter to the list value at `key`.
void append_list(std::map<std::string, std::string>& pairs, const std::string& key, std::string_view joined) {
  if (joined.empty()) return;
  std::string& v = pairs[key];
  if (!v.empty()) v.push_back(kListDelimiter);
  v.append(joined);
}

}  // namespace

ChangelogState::ChangelogState() : key_(decoders::make_opaque(SerializerSnapshot{}, kNoKeySerializer)) {}
ChangelogState::~ChangelogState() = default;

std::string ChangelogState::identity(const StateEntry& e) {
  // Key group first (zero-padded) so that the map's order is the dump order. Queue elements
  // are identified by their value too: one key may hold several timers.
  std::string id = fmt::format("{:010d}\x1f{}\x1f{}\x1f{}\x1f{}\x1f{}", e.key_group, e.state,
                               static_cast<int>(e.kind), json_text(e.key), json_text(e.ns),
                               e.has_user_key ? json_text(e.user_key) : std::string());
  if (e.kind == EntryKind::kTimer || !e.has_key) id += "\x1f" + json_text(e.value);
  return id;
}

void ChangelogState::set_key_serializer(const SerializerSnapshot& key) {
  auto d = make_decoder(key);
  if (!d.ok()) return;  // keys stay hex, as without a materialized part
  key_ = std::move(*d);
  key_known_ = true;
}

EntrySink ChangelogState::collector() {
  return [this](StateEntry&& e) -> Status {
    std::string id = identity(e);
    entries_[std::move(id)] = std::move(e);
    return Status::OK();
  };
}

Status ChangelogState::replay(const std::vector<KeyedHandle>& logs, const KeyGroupRange& range,
                              const StreamOpener& streams) {
  if (!key_known_) {
    auto meta = read_changelog_meta(logs, streams);
    if (meta.ok() && !meta->key_serializer.serializer_class.empty()) {
      auto d = make_decoder(meta->key_serializer);
      if (d.ok() && (*d)->decodable()) key_ = std::move(*d);
    }
  }
  for (const KeyedHandle& log : logs) {
    const bool in_files = is_file_changelog(log.type);
    CKPT_RETURN_IF_ERROR(for_each_logged_change(log, streams, [&](const LoggedChange& c) -> Status {
      Status s = apply(c, range);
      if (s.ok()) return s;
      // A file log's reader adds the file, the piece and the log.
      if (in_files) return std::move(s).error().with_context(fmt::format("change {} (key group {})", c.index, c.key_group));
      return std::move(s).error().with_context(
          fmt::format("change {} (key group {}) of change log '{}'", c.index, c.key_group, log.handle_id));
    }));
  }
  return Status::OK();
}

Status ChangelogState::apply(const LoggedChange& c, const KeyGroupRange& range) {
  ByteReader r(c.bytes, c.offset);
  uint8_t op = r.u8();
  if (!r.ok()) return r.take_error();
  if (is_metadata(op, c.key_group)) return apply_metadata(r);
  if (!range.contains(c.key_group)) return Status::OK();
  uint64_t id_at = r.offset();
  int16_t id = r.i16();
  if (!r.ok()) return r.take_error();
  auto it = states_.find(id);
  if (it == states_.end())
    return Error(ErrorCode::kCorruption, fmt::format("change to state id {} before its metadata", id), id_at);
  const LoggedState& s = *it->second;
  if (s.kind == StateKind::kPriorityQueue)
    return raw_ ? apply_raw_queue(s, op, c.key_group, r) : apply_queue(s, op, c.key_group, r);
  KvChange kv;
  kv.trees = raw_ == nullptr;
  CKPT_RETURN_IF_ERROR(parse_kv(s, op, r, kv));
  if (raw_) return apply_raw_kv(s, op, c.key_group, kv);
  return apply_kv(s, op, c.key_group, std::move(kv));
}

Status ChangelogState::apply_metadata(ByteReader& r) {
  uint64_t at = r.offset();
  CKPT_ASSIGN_OR_RETURN(StateMetaInfo info, read_metadata_info(r));
  // TTL config (Java-serialized) and default value follow for key / value states; the state's
  // short id and backend type close the record, so they are read from its end.
  if (r.remaining() < 3) return Error(ErrorCode::kCorruption, "metadata change without its state id", r.offset());
  ByteReader tail(r.data() + r.size() - 3, 3, r.offset() + r.remaining() - 3);
  int16_t id = tail.i16();
  uint8_t type = tail.u8();
  if (type != info.backend_type)
    return Error(ErrorCode::kCorruption,
                 fmt::format("metadata change of state '{}' closes with backend type {}, expected {}", info.name, type,
                             info.backend_type),
                 tail.offset() - 1);
  auto s = std::make_unique<LoggedState>();
  s->kind = info.kind();
  const SerializerSnapshot* value = info.value_serializer();
  if (!value)
    return Error(ErrorCode::kCorruption, fmt::format("state '{}' has no VALUE_SERIALIZER snapshot", info.name), at);
  if (s->kind == StateKind::kPriorityQueue) {
    // The prefix width does not matter for heap-layout elements.
    CKPT_ASSIGN_OR_RETURN(s->queue, KeyedStateCodec::make(info, *key_, 128));
  } else if (is_keyed_kind(s->kind)) {
    const SerializerSnapshot* ns = info.namespace_serializer();
    if (!ns)
      return Error(ErrorCode::kCorruption, fmt::format("state '{}' has no NAMESPACE_SERIALIZER snapshot", info.name), at);
    CKPT_ASSIGN_OR_RETURN(s->ns, make_decoder(*ns));
    CKPT_ASSIGN_OR_RETURN(s->value, make_decoder(*value));
    size_t nested = s->kind == StateKind::kList ? 1 : s->kind == StateKind::kMap ? 2 : 0;
    if (value->nested.size() < nested)
      return Error(ErrorCode::kCorruption,
                   fmt::format("state '{}': {} has no nested serializers", info.name, value->display_name()), at);
    if (s->kind == StateKind::kList) {
      CKPT_ASSIGN_OR_RETURN(s->element, make_decoder(value->nested[0]));
    } else if (s->kind == StateKind::kMap) {
      CKPT_ASSIGN_OR_RETURN(s->user_key, make_decoder(value->nested[0]));
      CKPT_ASSIGN_OR_RETURN(s->element, make_decoder(value->nested[1]));
    }
  } else {
    return Error(ErrorCode::kCorruption,
                 fmt::format("state '{}' of kind {} in a keyed change log", info.name, state_kind_name(s->kind)), at);
  }
  if (raw_) {
    auto same = std::find_if(raw_->meta.states.begin(), raw_->meta.states.end(),
                             [&](const StateMetaInfo& m) { return m.name == info.name; });
    if (same == raw_->meta.states.end())
      return Error(ErrorCode::kCorruption, fmt::format("state '{}' is missing from the change logs' meta data", info.name),
                   at);
    s->raw_index = static_cast<size_t>(same - raw_->meta.states.begin());
  }
  s->info = std::move(info);
  states_[id] = std::move(s);
  return Status::OK();
}

Status ChangelogState::apply_queue(const LoggedState& s, uint8_t op, int32_t key_group, ByteReader& r) {
  EntrySink insert = collector();
  EntrySink erase = [this](StateEntry&& e) -> Status {
    entries_.erase(identity(e));
    return Status::OK();
  };
  if (op == kAddElement) {
    int32_t n = r.count(1, "queue element");
    for (int32_t i = 0; i < n && r.ok(); ++i) CKPT_RETURN_IF_ERROR(s.queue->read_heap_entry(r, key_group, insert));
  } else if (op == kRemoveElement) {
    CKPT_RETURN_IF_ERROR(s.queue->read_heap_entry(r, key_group, erase));
  } else {
    return wrong_op(op, s.kind, s.info.name, r.offset());
  }
  if (!r.ok()) return r.take_error();
  if (!r.at_end()) return Error(ErrorCode::kCorruption, fmt::format("{} bytes after the change", r.remaining()), r.offset());
  return Status::OK();
}

Status ChangelogState::parse_kv(const LoggedState& s, uint8_t op, ByteReader& r, KvChange& c) const {
  if (key_->decodable()) {
    size_t start = r.position();
    if (c.trees) key_->read(r, c.key);
    else key_->skip(r);
    if (!r.ok()) return r.take_error();
    c.key_bytes = span(r, start);
    return parse_kv_rest(s, op, r, c);
  }
  // Without a key serializer the key's length is unknown: it ends where namespace and payload
  // then use exactly the rest of the record (the shortest such key).
  size_t start = r.position();
  for (size_t len = 0; start + len <= r.size() && len <= kMaxGuessedKeyBytes; ++len) {
    ByteReader t(r.data() + start + len, r.size() - start - len, r.offset() + len);
    KvChange trial;
    trial.trees = c.trees;
    if (!parse_kv_rest(s, op, t, trial).ok()) continue;
    trial.key_bytes = std::string_view(reinterpret_cast<const char*>(r.data()) + start, len);
    if (trial.trees) trial.key = {{"hex", decoders::to_hex(trial.key_bytes)}, {"why", kNoKeySerializer}};
    c = std::move(trial);
    return Status::OK();
  }
  return Error(ErrorCode::kCorruption,
               fmt::format("change of state '{}' does not split into key, namespace and value", s.info.name), r.offset());
}

Status ChangelogState::parse_kv_rest(const LoggedState& s, uint8_t op, ByteReader& r, KvChange& c) const {
  uint64_t at = r.offset();
  size_t ns_start = r.position();
  if (c.trees) s.ns->read(r, c.ns);
  else s.ns->skip(r);
  c.ns_bytes = span(r, ns_start);
  auto read = [&](const ValueDecoder& d) {
    size_t start = r.position();
    if (c.trees) d.read(r, c.values.emplace_back());
    else d.skip(r);
    c.raw.push_back(span(r, start));
  };
  const bool list = s.kind == StateKind::kList, map = s.kind == StateKind::kMap;
  switch (op) {
    case kClear:
      break;
    case kSet:
    case kSetInternal:
      if (map) return wrong_op(op, s.kind, s.info.name, at);
      read(*s.value);
      break;
    case kAdd:
      if (!list && !map) return wrong_op(op, s.kind, s.info.name, at);
      read(*s.value);
      break;
    case kMergeNamespaces: {
      if (map || s.kind == StateKind::kValue) return wrong_op(op, s.kind, s.info.name, at);
      read(*s.ns);
      int32_t n = r.count(1, "source namespace");
      for (int32_t i = 0; i < n && r.ok(); ++i) read(*s.ns);
      break;
    }
    case kAddElement:
      if (list) {
        read(*s.element);
        break;
      }
      [[fallthrough]];
    case kAddOrUpdateElement:
      if (!map) return wrong_op(op, s.kind, s.info.name, at);
      read(*s.user_key);
      read(*s.element);
      break;
    case kRemoveElement:
      if (!map) return wrong_op(op, s.kind, s.info.name, at);
      read(*s.user_key);
      break;
    default:
      return wrong_op(op, s.kind, s.info.name, at);
  }
  if (!r.ok()) return r.take_error();
  if (!r.at_end()) return Error(ErrorCode::kCorruption, fmt::format("{} bytes after the change", r.remaining()), r.offset());
  return Status::OK();
}

Status ChangelogState::apply_kv(const LoggedState& s, uint8_t op, int32_t key_group, KvChange&& c) {
  StateEntry scope;
  scope.state = s.info.name;
  scope.key_group = key_group;
  scope.has_key = scope.has_namespace = true;
  scope.key = std::move(c.key);
  scope.ns = std::move(c.ns);
  const std::string id = identity(scope);
  const bool list = s.kind == StateKind::kList, map = s.kind == StateKind::kMap;

  auto put = [&](nlohmann::json&& user_key, nlohmann::json&& value) {
    StateEntry e = scope;
    e.has_user_key = true;
    e.user_key = std::move(user_key);
    e.value = std::move(value);
    std::string eid = identity(e);
    entries_[std::move(eid)] = std::move(e);
  };
  // Appends to the list at `list_id` (of namespace `ns`); the heap backend keeps no empty list.
  auto append = [&](const std::string& list_id, const nlohmann::json& ns, nlohmann::json&& elements) {
    if (!elements.is_array() || elements.empty()) return;
    auto it = entries_.find(list_id);
    if (it == entries_.end()) {
      StateEntry e = scope;
      e.ns = ns;
      e.value = nlohmann::json::array();
      it = entries_.emplace(list_id, std::move(e)).first;
    }
    for (auto& x : elements) it->second.value.push_back(std::move(x));
  };

  switch (op) {
    case kClear:
      if (map) {
        for (auto it = entries_.lower_bound(id); it != entries_.end() && it->first.starts_with(id);)
          it = entries_.erase(it);
      } else {
        entries_.erase(id);
      }
      return Status::OK();
    case kSet:
    case kSetInternal:
      entries_.erase(id);
      if (list) {
        append(id, scope.ns, std::move(c.values.at(0)));
      } else {
        StateEntry e = scope;
        e.value = std::move(c.values.at(0));
        entries_[id] = std::move(e);
      }
      return Status::OK();
    case kAdd:
      if (list) {
        append(id, scope.ns, std::move(c.values.at(0)));
      } else {
        for (auto& pair : c.values.at(0))
          if (pair.is_array() && pair.size() == 2) put(std::move(pair[0]), std::move(pair[1]));
      }
      return Status::OK();
    case kMergeNamespaces: {
      // Heap semantics: the sources' states are removed and merged into the target's.
      nlohmann::json target_ns = std::move(c.values.at(0));
      StateEntry target = scope;
      target.ns = target_ns;
      const std::string target_id = identity(target);
      std::vector<nlohmann::json> merged;
      for (size_t i = 1; i < c.values.size(); ++i) {
        StateEntry source = scope;
        source.ns = std::move(c.values[i]);
        auto it = entries_.find(identity(source));
        if (it == entries_.end() || it->first == target_id) continue;
        merged.push_back(std::move(it->second.value));
        entries_.erase(it);
      }
      if (list) {
        for (auto& m : merged) append(target_id, target_ns, std::move(m));
        return Status::OK();
      }
      if (merged.empty()) return Status::OK();
      CKPT_RETURN_IF_ERROR(check_movable(merged.size(), entries_.count(target_id) > 0, s.kind, s.info.name));
      target.value = std::move(merged[0]);
      entries_[target_id] = std::move(target);
      return Status::OK();
    }
    case kAddElement:
      if (list) {
        append(id, scope.ns, nlohmann::json::array({std::move(c.values.at(0))}));
        return Status::OK();
      }
      [[fallthrough]];
    case kAddOrUpdateElement:
      put(std::move(c.values.at(0)), std::move(c.values.at(1)));
      return Status::OK();
    case kRemoveElement: {
      StateEntry e = scope;
      e.has_user_key = true;
      e.user_key = std::move(c.values.at(0));
      entries_.erase(identity(e));
      return Status::OK();
    }
    default:
      return Error(ErrorCode::kCorruption, fmt::format("unknown change operation {}", op));
  }
}

Status ChangelogState::emit(const StateFilter& filter, const EntrySink& sink) {
  for (auto& [id, e] : entries_) {
    if (!filter.wants_state(e.state) || !filter.wants_key_group(e.key_group)) continue;
    CKPT_RETURN_IF_ERROR(sink(std::move(e)));
  }
  entries_.clear();
  return Status::OK();
}

Result<std::unique_ptr<ChangelogState>> ChangelogState::make_raw(const KeyedBackendMeta& meta,
                                                                 int32_t max_parallelism) {
  std::unique_ptr<ChangelogState> c(new ChangelogState());
  if (!meta.key_serializer.serializer_class.empty()) c->set_key_serializer(meta.key_serializer);
  c->key_known_ = true;  // the transcoders below hold key_: it must not be replaced
  c->raw_ = std::make_unique<RawStore>();
  c->raw_->meta = meta;
  for (const StateMetaInfo& info : meta.states) {
    CKPT_ASSIGN_OR_RETURN(auto t, StateTranscoder::make(info, *c->key_, max_parallelism));
    c->raw_->transcoders.push_back(std::move(t));
  }
  return c;
}

KeyGroupPairsFn ChangelogState::raw_collector(const KeyedBackendMeta& part) {
  std::vector<size_t> index;
  for (const StateMetaInfo& info : part.states) {
    const StateMetaInfo* m = raw_->meta.find(info.name);
    index.push_back(m ? static_cast<size_t>(m - raw_->meta.states.data()) : raw_->meta.states.size());
  }
  return [this, index](int32_t key_group, std::vector<std::vector<RocksPair>>& by_state) -> Status {
    for (size_t i = 0; i < by_state.size() && i < index.size(); ++i) {
      if (by_state[i].empty()) continue;
      if (index[i] >= raw_->meta.states.size())
        return Error(ErrorCode::kCorruption, fmt::format("materialized state {} is missing from the meta data", i));
      auto& pairs = raw_->pairs(key_group, index[i]);
      for (RocksPair& p : by_state[i]) pairs[std::move(p.key)] = std::move(p.value);
    }
    return Status::OK();
  };
}

Status ChangelogState::emit_raw(const KeyGroupPairsFn& fn) {
  std::vector<std::vector<RocksPair>> by_state;
  for (auto& [key_group, states] : raw_->groups) {
    by_state.assign(raw_->meta.states.size(), {});
    bool any = false;
    for (size_t i = 0; i < states.size(); ++i)
      for (auto& [k, v] : states[i]) {
        by_state[i].push_back({k, std::move(v)});
        any = true;
      }
    if (any) CKPT_RETURN_IF_ERROR(fn(key_group, by_state));
  }
  raw_->groups.clear();
  return Status::OK();
}

Status ChangelogState::apply_raw_queue(const LoggedState& s, uint8_t op, int32_t key_group, ByteReader& r) {
  const StateTranscoder& t = *raw_->transcoders[s.raw_index];
  auto& pairs = raw_->pairs(key_group, s.raw_index);
  const std::string base = t.rocks_base(key_group, {}, {});
  std::vector<RocksPair> out;
  if (op == kAddElement) {
    int32_t n = r.count(1, "queue element");
    for (int32_t i = 0; i < n && r.ok(); ++i) CKPT_RETURN_IF_ERROR(t.value_to_rocks(base, r, &out));
    for (RocksPair& p : out) pairs[std::move(p.key)] = std::move(p.value);
  } else if (op == kRemoveElement) {
    CKPT_RETURN_IF_ERROR(t.value_to_rocks(base, r, &out));
    for (const RocksPair& p : out) pairs.erase(p.key);
  } else {
    return wrong_op(op, s.kind, s.info.name, r.offset());
  }
  if (!r.ok()) return r.take_error();
  if (!r.at_end()) return Error(ErrorCode::kCorruption, fmt::format("{} bytes after the change", r.remaining()), r.offset());
  return Status::OK();
}

Status ChangelogState::apply_raw_kv(const LoggedState& s, uint8_t op, int32_t key_group, const KvChange& c) {
  const StateTranscoder& t = *raw_->transcoders[s.raw_index];
  // Flink suffixes keys with their length only where its key serializer has none: unknown here.
  if (!key_->decodable() && t.ambiguous_key())
    return Error(ErrorCode::kNotSupported,
                 fmt::format("state '{}': without a key serializer snapshot the RocksDB key framing is unknown "
                             "(namespace of variable length)",
                             s.info.name));
  auto& pairs = raw_->pairs(key_group, s.raw_index);
  const bool list = s.kind == StateKind::kList, map = s.kind == StateKind::kMap;
  const std::string base = t.rocks_base(key_group, c.key_bytes, c.ns_bytes);
  // A whole list or map value as its serializer wrote it -> pairs; list values are joined.
  auto whole = [&](std::string_view value) -> Status {
    ByteReader vr(value);
    std::vector<RocksPair> out;
    CKPT_RETURN_IF_ERROR(t.value_to_rocks(base, vr, &out));
    for (RocksPair& p : out) {
      if (list) append_list(pairs, p.key, p.value);
      else pairs[std::move(p.key)] = std::move(p.value);
    }
    return Status::OK();
  };
  auto erase_map = [&](const std::string& prefix) {
    for (auto it = pairs.lower_bound(prefix); it != pairs.end() && it->first.starts_with(prefix);)
      it = pairs.erase(it);
  };

  switch (op) {
    case kClear:
      if (map) erase_map(base);
      else pairs.erase(base);
      return Status::OK();
    case kSet:
    case kSetInternal:
      pairs.erase(base);
      if (list) return whole(c.raw.at(0));
      pairs[base] = std::string(c.raw.at(0));
      return Status::OK();
    case kAdd:
      return whole(c.raw.at(0));
    case kMergeNamespaces: {
      // Heap semantics, as apply_kv: the sources' states are removed and merged into the target's.
      const std::string target = t.rocks_base(key_group, c.key_bytes, c.raw.at(0));
      std::vector<std::string> merged;
      for (size_t i = 1; i < c.raw.size(); ++i) {
        auto it = pairs.find(t.rocks_base(key_group, c.key_bytes, c.raw[i]));
        if (it == pairs.end() || it->first == target) continue;
        merged.push_back(std::move(it->second));
        pairs.erase(it);
      }
      if (list) {
        for (const std::string& m : merged) append_list(pairs, target, m);
        return Status::OK();
      }
      if (merged.empty()) return Status::OK();
      CKPT_RETURN_IF_ERROR(check_movable(merged.size(), pairs.count(target) > 0, s.kind, s.info.name));
      pairs[target] = std::move(merged[0]);
      return Status::OK();
    }
    case kAddElement:
      if (list) {
        append_list(pairs, base, c.raw.at(0));
        return Status::OK();
      }
      [[fallthrough]];
    case kAddOrUpdateElement: {
      // RocksDB map values carry MapSerializer's null flag before the user value.
      std::string value(1, '\0');
      value.append(c.raw.at(1));
      pairs[base + std::string(c.raw.at(0))] = std::move(value);
      return Status::OK();
    }
    case kRemoveElement:
      pairs.erase(base + std::string(c.raw.at(0)));
      return Status::OK();
    default:
      return Error(ErrorCode::kCorruption, fmt::format("unknown change operation {}", op));
  }
}

}  // namespace ckpt
