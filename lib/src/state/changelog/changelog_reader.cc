// Changelog backend: materialized entries plus replayed change logs (inline or in files), applied the way
// Flink's ChangelogBackendLogApplier and its per-kind StateChangeAppliers do.
#include "state/changelog/changelog_reader.h"

#include <algorithm>
#include <optional>

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

// The two stores the one applier below works on. Both keep a state's (key, namespace) scope
// under a string: the decoded store under identity(), the byte-level store under the RocksDB
// key prefix (rocks_base). `part` names a payload item of the change (KvChange::values / raw):
// a namespace, a value, a user key; -1 the change's own namespace.

// Decoded entries (dump): values are trees.
class ChangelogState::EntryStore {
 public:
  using Value = nlohmann::json;
  struct Slot {
    std::string id;
    nlohmann::json ns;
  };

  EntryStore(ChangelogState& state, const LoggedState& s, int32_t key_group, KvChange& c)
      : state_(state), s_(s), key_group_(key_group), c_(c) {
    scope_.state = s.info.name;
    scope_.key_group = key_group;
    scope_.has_key = scope_.has_namespace = true;
    scope_.key = std::move(c.key);
    scope_.ns = std::move(c.ns);
  }

  Status check() const { return Status::OK(); }
  Slot slot(int part) const {
    StateEntry e = scope_;
    if (part >= 0) e.ns = c_.values.at(part);
    return Slot{identity(e), std::move(e.ns)};
  }
  bool has(const Slot& at) const { return state_.entries_.count(at.id) > 0; }
  void erase(const Slot& at) { state_.entries_.erase(at.id); }
  void erase_map(const Slot& at) {
    auto& entries = state_.entries_;
    for (auto it = entries.lower_bound(at.id); it != entries.end() && it->first.starts_with(at.id);)
      it = entries.erase(it);
  }
  void put(const Slot& at, int part) { put_taken(at, std::move(c_.values.at(part))); }
  Status append_list(const Slot& at, int part) {
    append_taken(at, std::move(c_.values.at(part)));
    return Status::OK();
  }
  Status add_map(const Slot& at, int part) {
    for (auto& pair : c_.values.at(part))
      if (pair.is_array() && pair.size() == 2) put_user(at, std::move(pair[0]), std::move(pair[1]));
    return Status::OK();
  }
  void append_element(const Slot& at, int part) {
    append_taken(at, nlohmann::json::array({std::move(c_.values.at(part))}));
  }
  void put_user(const Slot& at, int key_part, int value_part) {
    put_user(at, std::move(c_.values.at(key_part)), std::move(c_.values.at(value_part)));
  }
  void erase_user(const Slot& at, int key_part) {
    StateEntry e = entry(at);
    e.has_user_key = true;
    e.user_key = std::move(c_.values.at(key_part));
    state_.entries_.erase(identity(e));
  }
  std::optional<Value> take(const Slot& at) {
    auto it = state_.entries_.find(at.id);
    if (it == state_.entries_.end()) return std::nullopt;
    Value v = std::move(it->second.value);
    state_.entries_.erase(it);
    return v;
  }
  // Appends elements to the list at `at`; the heap backend keeps no empty list.
  void append_taken(const Slot& at, Value&& elements) {
    if (!elements.is_array() || elements.empty()) return;
    auto it = state_.entries_.find(at.id);
    if (it == state_.entries_.end()) {
      StateEntry e = entry(at);
      e.value = nlohmann::json::array();
      it = state_.entries_.emplace(at.id, std::move(e)).first;
    }
    for (auto& x : elements) it->second.value.push_back(std::move(x));
    it->second.has_raw = false;  // the stored bytes no longer hold the whole value
  }
  void put_taken(const Slot& at, Value&& value) {
    StateEntry e = entry(at);
    e.value = std::move(value);
    state_.entries_[at.id] = std::move(e);
  }
  Status queue_insert(ByteReader& r) { return s_.queue->read_heap_entry(r, key_group_, state_.collector()); }
  Status queue_erase(ByteReader& r) {
    return s_.queue->read_heap_entry(r, key_group_, [this](StateEntry&& e) -> Status {
      state_.entries_.erase(identity(e));
      return Status::OK();
    });
  }

 private:
  StateEntry entry(const Slot& at) const {
    StateEntry e = scope_;
    e.ns = at.ns;
    return e;
  }
  void put_user(const Slot& at, Value&& user_key, Value&& value) {
    StateEntry e = entry(at);
    e.has_user_key = true;
    e.user_key = std::move(user_key);
    e.value = std::move(value);
    std::string id = identity(e);
    state_.entries_[std::move(id)] = std::move(e);
  }

  ChangelogState& state_;
  const LoggedState& s_;
  const int32_t key_group_;
  KvChange& c_;
  StateEntry scope_;
};

// RocksDB-layout pairs with the job's bytes (convert): values are byte strings.
class ChangelogState::PairStore {
 public:
  using Value = std::string;
  struct Slot {
    std::string id;
  };

  PairStore(ChangelogState& state, const LoggedState& s, int32_t key_group, const KvChange& c)
      : state_(state),
        s_(s),
        t_(*state.raw_->transcoders[s.raw_index]),
        pairs_(state.raw_->pairs(key_group, s.raw_index)),
        key_group_(key_group),
        c_(c) {}

  Status check() const {
    // Flink suffixes keys with their length only where its key serializer has none: unknown here.
    if (!state_.key_->decodable() && t_.ambiguous_key())
      return Error(ErrorCode::kNotSupported,
                   fmt::format("state '{}': without a key serializer snapshot the RocksDB key framing is unknown "
                               "(namespace of variable length)",
                               s_.info.name));
    return Status::OK();
  }
  Slot slot(int part) const {
    return Slot{t_.rocks_base(key_group_, c_.key_bytes, part < 0 ? c_.ns_bytes : c_.raw.at(part))};
  }
  bool has(const Slot& at) const { return pairs_.count(at.id) > 0; }
  void erase(const Slot& at) { pairs_.erase(at.id); }
  void erase_map(const Slot& at) {
    for (auto it = pairs_.lower_bound(at.id); it != pairs_.end() && it->first.starts_with(at.id);)
      it = pairs_.erase(it);
  }
  void put(const Slot& at, int part) { pairs_[at.id] = std::string(c_.raw.at(part)); }
  // A whole list or map value as its serializer wrote it -> pairs; list values are joined.
  Status append_list(const Slot& at, int part) { return whole(at, part); }
  Status add_map(const Slot& at, int part) { return whole(at, part); }
  void append_element(const Slot& at, int part) { append_joined(at.id, c_.raw.at(part)); }
  void put_user(const Slot& at, int key_part, int value_part) {
    // RocksDB map values carry MapSerializer's null flag before the user value.
    std::string value(1, '\0');
    value.append(c_.raw.at(value_part));
    pairs_[at.id + std::string(c_.raw.at(key_part))] = std::move(value);
  }
  void erase_user(const Slot& at, int key_part) { pairs_.erase(at.id + std::string(c_.raw.at(key_part))); }
  std::optional<Value> take(const Slot& at) {
    auto it = pairs_.find(at.id);
    if (it == pairs_.end()) return std::nullopt;
    Value v = std::move(it->second);
    pairs_.erase(it);
    return v;
  }
  void append_taken(const Slot& at, Value&& joined) { append_joined(at.id, joined); }
  void put_taken(const Slot& at, Value&& value) { pairs_[at.id] = std::move(value); }
  Status queue_insert(ByteReader& r) {
    std::vector<RocksPair> out;
    CKPT_RETURN_IF_ERROR(t_.value_to_rocks(t_.rocks_base(key_group_, {}, {}), r, &out));
    for (RocksPair& p : out) pairs_[std::move(p.key)] = std::move(p.value);
    return Status::OK();
  }
  Status queue_erase(ByteReader& r) {
    std::vector<RocksPair> out;
    CKPT_RETURN_IF_ERROR(t_.value_to_rocks(t_.rocks_base(key_group_, {}, {}), r, &out));
    for (const RocksPair& p : out) pairs_.erase(p.key);
    return Status::OK();
  }

 private:
  Status whole(const Slot& at, int part) {
    ByteReader vr(c_.raw.at(part));
    std::vector<RocksPair> out;
    CKPT_RETURN_IF_ERROR(t_.value_to_rocks(at.id, vr, &out));
    for (RocksPair& p : out) {
      if (s_.kind == StateKind::kList) append_joined(p.key, p.value);
      else pairs_[std::move(p.key)] = std::move(p.value);
    }
    return Status::OK();
  }
  // Appends elements already joined by the delimiter to the list value at `key`.
  void append_joined(const std::string& key, std::string_view joined) {
    if (joined.empty()) return;
    std::string& v = pairs_[key];
    if (!v.empty()) v.push_back(kListDelimiter);
    v.append(joined);
  }

  ChangelogState& state_;
  const LoggedState& s_;
  const StateTranscoder& t_;
  std::map<std::string, std::string>& pairs_;
  const int32_t key_group_;
  const KvChange& c_;
};

// The one applier of a data change, over either store, as Flink's StateChangeAppliers and the
// heap backend apply it.
template <class Store>
Status ChangelogState::apply_change(Store& store, const LoggedState& s, uint8_t op, ByteReader& r, const KvChange& c) {
  if (s.kind == StateKind::kPriorityQueue) {
    if (op == kAddElement) {
      int32_t n = r.count(1, "queue element");
      for (int32_t i = 0; i < n && r.ok(); ++i) CKPT_RETURN_IF_ERROR(store.queue_insert(r));
    } else if (op == kRemoveElement) {
      CKPT_RETURN_IF_ERROR(store.queue_erase(r));
    } else {
      return wrong_op(op, s.kind, s.info.name, r.offset());
    }
    if (!r.ok()) return r.take_error();
    if (!r.at_end())
      return Error(ErrorCode::kCorruption, fmt::format("{} bytes after the change", r.remaining()), r.offset());
    return Status::OK();
  }
  CKPT_RETURN_IF_ERROR(store.check());
  const bool list = s.kind == StateKind::kList, map = s.kind == StateKind::kMap;
  const typename Store::Slot scope = store.slot(-1);
  switch (op) {
    case kClear:
      if (map) store.erase_map(scope);
      else store.erase(scope);
      return Status::OK();
    case kSet:
    case kSetInternal:
      store.erase(scope);
      if (list) return store.append_list(scope, 0);
      store.put(scope, 0);
      return Status::OK();
    case kAdd:
      return list ? store.append_list(scope, 0) : store.add_map(scope, 0);
    case kMergeNamespaces: {
      // Heap semantics: the sources' states are removed and merged into the target's.
      const typename Store::Slot target = store.slot(0);
      std::vector<typename Store::Value> merged;
      for (size_t i = 1; i < c.raw.size(); ++i) {
        const typename Store::Slot source = store.slot(static_cast<int>(i));
        if (source.id == target.id) continue;
        if (auto v = store.take(source)) merged.push_back(std::move(*v));
      }
      if (list) {
        for (auto& m : merged) store.append_taken(target, std::move(m));
        return Status::OK();
      }
      if (merged.empty()) return Status::OK();
      CKPT_RETURN_IF_ERROR(check_movable(merged.size(), store.has(target), s.kind, s.info.name));
      store.put_taken(target, std::move(merged[0]));
      return Status::OK();
    }
    case kAddElement:
      if (list) {
        store.append_element(scope, 0);
        return Status::OK();
      }
      [[fallthrough]];
    case kAddOrUpdateElement:
      store.put_user(scope, 0, 1);
      return Status::OK();
    case kRemoveElement:
      store.erase_user(scope, 0);
      return Status::OK();
    default:
      return Error(ErrorCode::kCorruption, fmt::format("unknown change operation {}", op));
  }
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
  KvChange kv;
  if (s.kind != StateKind::kPriorityQueue) {
    kv.trees = raw_ == nullptr;
    CKPT_RETURN_IF_ERROR(parse_kv(s, op, r, kv));
  }
  if (raw_) {
    PairStore pairs(*this, s, c.key_group, kv);
    return apply_change(pairs, s, op, r, kv);
  }
  EntryStore entries(*this, s, c.key_group, kv);
  return apply_change(entries, s, op, r, kv);
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

Status ChangelogState::parse_kv(const LoggedState& s, uint8_t op, ByteReader& r, KvChange& c) const {
  if (key_->decodable()) {
    size_t start = r.position();
    if (c.trees) key_->read(r, c.key);
    else key_->skip(r);
    if (!r.ok()) return r.take_error();
    c.key_bytes = r.since(start);
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
  c.ns_bytes = r.since(ns_start);
  auto read = [&](const ValueDecoder& d) {
    size_t start = r.position();
    if (c.trees) d.read(r, c.values.emplace_back());
    else d.skip(r);
    c.raw.push_back(r.since(start));
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

}  // namespace ckpt
