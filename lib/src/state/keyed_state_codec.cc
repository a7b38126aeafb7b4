// Keyed state entries from heap and RocksDB layouts (formats/keyed-state.md §6, §10, §12).
#include "state/keyed_state_codec.h"

#include <algorithm>

#include <fmt/format.h>

#include "support/byte_writer.h"
#include "support/json_text.h"
#include "types/value_decoders.h"

namespace ckpt {

const char* entry_kind_name(EntryKind k) {
  switch (k) {
    case EntryKind::kKeyed: return "keyed";
    case EntryKind::kTimer: return "timer";
    case EntryKind::kOperator: return "operator";
  }
  return "keyed";
}

Error stop_error() { return Error(ErrorCode::kInvalidArgument, "dump stopped"); }
bool is_stop(const Error& e) { return e.code == ErrorCode::kInvalidArgument && e.message == "dump stopped"; }

namespace {

Result<std::unique_ptr<ValueDecoder>> nested_decoder(const SerializerSnapshot& s, size_t i, const char* what,
                                                     const std::string& state) {
  if (s.nested.size() <= i)
    return Error(ErrorCode::kCorruption,
                 fmt::format("state '{}': {} snapshot {} has no nested {} serializer", state,
                             s.display_name(), s.snapshot_class, what));
  return make_decoder(s.nested[i]);
}

Status reader_error(ByteReader& r) { return r.take_error(); }

// `e` as a new StateEntry, but with the capacity its strings had (a sink may have moved from it).
void reset_entry(StateEntry& e) {
  e.kind = EntryKind::kKeyed;
  e.key_group = -1;
  e.has_key = e.has_namespace = e.has_user_key = e.is_text = e.is_value = e.has_raw = false;
  e.key = nullptr;
  e.ns = nullptr;
  e.user_key = nullptr;
  e.value = nullptr;
  for (std::string* s :
       {&e.key_text, &e.ns_text, &e.user_key_text, &e.value_text, &e.raw_key, &e.raw_ns, &e.raw_user_key, &e.raw_value})
    s->clear();
}

}  // namespace

bool is_timer_serializer(const SerializerSnapshot& s) {
  return s.snapshot_class.find("TimerSerializer") != std::string::npos;
}

Result<std::unique_ptr<KeyedStateCodec>> KeyedStateCodec::make(const StateMetaInfo& info,
                                                               const ValueDecoder& key_decoder,
                                                               int32_t max_parallelism) {
  auto c = make_unlocated(info, key_decoder, max_parallelism);
  if (!c.ok()) return info.at_source(std::move(c).error());
  return c;
}

Result<std::unique_ptr<KeyedStateCodec>> KeyedStateCodec::make_unlocated(const StateMetaInfo& info,
                                                                         const ValueDecoder& key_decoder,
                                                                         int32_t max_parallelism) {
  std::unique_ptr<KeyedStateCodec> c(new KeyedStateCodec());
  c->name_ = info.name;
  c->kind_ = info.kind();
  c->layout_ = RocksKeyLayout(max_parallelism, key_decoder.fixed_length(), -1);
  c->key_ = &key_decoder;
  const SerializerSnapshot* value = info.value_serializer();
  if (!value)
    return Error(ErrorCode::kCorruption, fmt::format("state '{}' has no VALUE_SERIALIZER snapshot", info.name));
  CKPT_ASSIGN_OR_RETURN(c->value_, make_decoder(*value));
  if (c->kind_ == StateKind::kPriorityQueue) {
    c->is_timer_ = is_timer_serializer(*value);
    return c;
  }
  if (!is_keyed_kind(c->kind_))
    return Error(ErrorCode::kCorruption,
                 fmt::format("state '{}' of kind {} in keyed state", info.name, state_kind_name(c->kind_)));
  const SerializerSnapshot* ns = info.namespace_serializer();
  if (!ns)
    return Error(ErrorCode::kCorruption, fmt::format("state '{}' has no NAMESPACE_SERIALIZER snapshot", info.name));
  CKPT_ASSIGN_OR_RETURN(c->namespace_, make_decoder(*ns));
  c->layout_ = RocksKeyLayout(max_parallelism, key_decoder.fixed_length(), c->namespace_->fixed_length());
  if (c->kind_ == StateKind::kList) {
    CKPT_ASSIGN_OR_RETURN(c->element_, nested_decoder(*value, 0, "element", info.name));
  } else if (c->kind_ == StateKind::kMap) {
    CKPT_ASSIGN_OR_RETURN(c->user_key_, nested_decoder(*value, 0, "user key", info.name));
    CKPT_ASSIGN_OR_RETURN(c->element_, nested_decoder(*value, 1, "user value", info.name));
  }
  return c;
}

bool KeyedStateCodec::heap_walkable() const { return why_not_heap().empty(); }

std::string KeyedStateCodec::why_not_heap() const {
  if (!key_->decodable()) return fmt::format("keys: {}", key_->why_not());
  if (namespace_ && !namespace_->decodable()) return fmt::format("namespaces: {}", namespace_->why_not());
  if (!value_->decodable()) return fmt::format("values: {}", value_->why_not());
  return {};
}

Status KeyedStateCodec::emit_timer(nlohmann::json&& timer, int32_t key_group, std::string_view raw,
                                   const EntrySink& sink) const {
  StateEntry e;
  e.state = name_;
  e.key_group = key_group;
  if (raw_bytes_) {
    e.has_raw = true;
    e.raw_value = raw;  // the whole queue element (a timer: timestamp, key, namespace)
  }
  if (is_timer_ && timer.is_object() && timer.contains("timestamp")) {
    e.kind = EntryKind::kTimer;
    e.has_key = e.has_namespace = true;
    e.key = std::move(timer["key"]);
    e.ns = std::move(timer["namespace"]);
    e.value = std::move(timer["timestamp"]);
  } else {
    // A priority queue of something else than timers: the element is the value.
    e.kind = EntryKind::kKeyed;
    e.value = std::move(timer);
  }
  return sink(std::move(e));
}

bool KeyedStateCodec::heap_map_pairs(std::string_view value,
                                     std::vector<std::pair<std::string_view, std::string_view>>* out) const {
  if (!user_key_ || !element_ || !user_key_->decodable() || !element_->decodable()) return false;
  // MapSerializer: i32 size, then per entry the key, a null flag and, unless null, the value.
  ByteReader r(value);
  int32_t n = r.count(2, "map entry");
  for (int32_t i = 0; i < n && r.ok(); ++i) {
    size_t start = r.position();
    user_key_->skip(r);
    std::string_view user_key = r.since(start);
    start = r.position();
    if (!r.boolean()) element_->skip(r);
    out->emplace_back(user_key, r.since(start));
  }
  return r.ok() && r.at_end();
}

void KeyedStateCodec::set_key_filter(const KeySet* keys) {
  keys_ = keys;
  key_bytes_.clear();
  key_spellings_.clear();
  key_bytes_by_length_.clear();
  key_bytes_known_ = false;
  if (!keys || !key_ || !key_->decodable() || kind_ == StateKind::kPriorityQueue) return;
  for (size_t i = 0; i < keys->keys.size(); ++i) {
    ByteWriter w;
    Status s = key_->encode(keys->keys[i], w);
    if (!s.ok()) {
      // Not a value of this key type: no entry has it. Anything else (an encoder ckpt lacks):
      // keys are compared decoded, as before.
      if (s.error().code == ErrorCode::kInvalidArgument) continue;
      return;
    }
    std::string bytes = w.take();
    ByteReader r(bytes);
    nlohmann::json back;
    key_->read(r, back);
    if (!r.ok() || !r.at_end()) return;
    // encode(read(b)) == b for every b: if these bytes read as another value, no bytes read as
    // this spelling.
    if (back != keys->keys[i] && json_text(back) != keys->texts[i]) continue;
    key_spellings_.emplace_back(bytes, i);
    key_bytes_.push_back(std::move(bytes));
  }
  std::sort(key_bytes_.begin(), key_bytes_.end());
  key_bytes_.erase(std::unique(key_bytes_.begin(), key_bytes_.end()), key_bytes_.end());
  for (const std::string& b : key_bytes_) {
    auto at = std::find_if(key_bytes_by_length_.begin(), key_bytes_by_length_.end(),
                           [&](const auto& l) { return l.first == b.size(); });
    if (at == key_bytes_by_length_.end()) at = key_bytes_by_length_.insert(at, {b.size(), {}});
    at->second.insert(b);  // views of key_bytes_, which no longer changes
  }
  key_bytes_known_ = true;
}

bool KeyedStateCodec::other_key_bytes(std::string_view key) const {
  if (!key_bytes_known_) return false;
  for (const auto& [length, bytes] : key_bytes_by_length_)
    if (key.size() >= length && bytes.count(key.substr(0, length))) return false;
  return true;
}

HeapEntryLayout KeyedStateCodec::heap_entry_layout() const {
  return heap_entry_layout_of(name_, kind_ == StateKind::kPriorityQueue, namespace_.get(), key_, value_.get());
}

Result<HeapNamespace> KeyedStateCodec::read_heap_namespace(ByteReader& r) const {
  if (!namespace_)
    return Error(ErrorCode::kCorruption, fmt::format("state '{}' has no namespace serializer", name_), r.offset());
  HeapNamespace ns;
  size_t start = r.position();
  namespace_->read(r, ns.value);
  if (!r.ok()) return r.take_error();
  if (raw_bytes_) ns.raw = std::string(r.since(start));
  return ns;
}

Status KeyedStateCodec::read_heap_entry(ByteReader& r, int32_t key_group, const EntrySink& sink, int64_t value_length,
                                        const HeapNamespace* ns) const {
  // An inferred extent: the value is framed as in the RocksDB layout, hex if opaque.
  auto read_value = [&](nlohmann::json& out) -> Status {
    if (value_length < 0) {
      value_->read(r, out);
      return r.ok() ? Status::OK() : Status(reader_error(r));
    }
    if (!r.ok()) return reader_error(r);
    CKPT_ASSIGN_OR_RETURN(out, decode_framed(*value_, r, static_cast<size_t>(value_length)));
    return Status::OK();
  };
  size_t start = r.position();
  if (kind_ == StateKind::kPriorityQueue) {
    nlohmann::json element;
    CKPT_RETURN_IF_ERROR(read_value(element));
    return emit_timer(std::move(element), key_group, r.since(start), sink);
  }
  StateEntry e;
  e.state = name_;
  e.key_group = key_group;
  e.has_key = e.has_namespace = true;
  if (ns) {
    e.ns = ns->value;
    if (raw_bytes_) e.raw_ns = ns->raw;
  } else {
    namespace_->read(r, e.ns);
    if (raw_bytes_) e.raw_ns = r.since(start);
  }
  start = r.position();
  // Another key's bytes: stepped over, never decoded.
  const bool other =
      key_bytes_known_ && r.ok() &&
      other_key_bytes(std::string_view(reinterpret_cast<const char*>(r.data()) + r.position(), r.remaining()));
  if (other)
    key_->skip(r);
  else
    key_->read(r, e.key);
  if (raw_bytes_) e.raw_key = r.since(start);
  if (keys_ && r.ok() && (other || keys_->find(&e.key, nullptr) < 0)) {
    // Another key's entry: its value's bytes are stepped over, as the heap layout has no lengths.
    if (value_length >= 0) r.skip(static_cast<size_t>(value_length));
    else value_->skip(r);
    return r.ok() ? Status::OK() : Status(reader_error(r));
  }
  start = r.position();
  CKPT_RETURN_IF_ERROR(read_value(e.value));
  if (raw_bytes_) {
    e.has_raw = true;
    e.raw_value = r.since(start);
  }
  // A list or map that is one opaque blob (its elements cannot be told apart): shown whole.
  if (value_length >= 0 && !value_->decodable()) return sink(std::move(e));
  if (kind_ == StateKind::kList) {
    // RocksDB and the canonical layout cannot hold an empty list: skip it here as well.
    if (e.value.is_array() && e.value.empty()) return Status::OK();
    return sink(std::move(e));
  }
  if (kind_ == StateKind::kMap) {
    nlohmann::json pairs = std::move(e.value);
    if (!pairs.is_array())
      return Error(ErrorCode::kCorruption, fmt::format("state '{}': map value did not decode to pairs", name_),
                   r.offset());
    // The pairs' bytes, where they can be told apart (else the entries carry none).
    std::vector<std::pair<std::string_view, std::string_view>> raw_pairs;
    const bool raw = raw_bytes_ && heap_map_pairs(e.raw_value, &raw_pairs) && raw_pairs.size() == pairs.size();
    for (size_t i = 0; i < pairs.size(); ++i) {
      nlohmann::json& pair = pairs[i];
      // A map state whose value serializer is not a MapSerializer decodes to something else.
      if (!pair.is_array() || pair.size() != 2)
        return Error(ErrorCode::kCorruption, fmt::format("state '{}': map value did not decode to pairs", name_),
                     r.offset());
      StateEntry m;
      m.state = name_;
      m.key_group = key_group;
      m.has_key = m.has_namespace = m.has_user_key = true;
      m.key = e.key;
      m.ns = e.ns;
      m.user_key = std::move(pair.at(0));
      m.value = std::move(pair.at(1));
      if (raw) {
        m.has_raw = true;
        m.raw_key = e.raw_key;
        m.raw_ns = e.raw_ns;
        m.raw_user_key = raw_pairs[i].first;
        m.raw_value = raw_pairs[i].second;
      }
      CKPT_RETURN_IF_ERROR(sink(std::move(m)));
    }
    return Status::OK();
  }
  return sink(std::move(e));
}

Status KeyedStateCodec::check_heap_entry(ByteReader& r, int32_t key_group, int64_t value_length) const {
  // Where read_heap_entry() refuses more than bytes its decoders refuse (a queue element's
  // shape, an inferred extent, a map value that is not pairs), it runs as it is.
  static const EntrySink kDrop = [](StateEntry&&) { return Status::OK(); };
  if (kind_ == StateKind::kPriorityQueue || value_length >= 0 || keys_ ||
      (kind_ == StateKind::kMap && !value_->reads_pairs()))
    return read_heap_entry(r, key_group, kDrop, value_length);
  namespace_->check(r);
  key_->check(r);
  value_->check(r);
  return r.ok() ? Status::OK() : Status(reader_error(r));
}

Result<std::optional<nlohmann::json>> KeyedStateCodec::key_of_rocks_entry(std::string_view key,
                                                                          std::string_view value) const {
  std::optional<nlohmann::json> out;
  if (kind_ != StateKind::kPriorityQueue) {
    // The key comes first after the prefix (formats/keyed-state.md §10): the rest is not decoded.
    if (layout_.key_group(key) < 0) return Error(ErrorCode::kCorruption, "key shorter than its key-group prefix", 0);
    ByteReader kr(key.substr(layout_.prefix_bytes()), layout_.prefix_bytes());
    out.emplace();
    key_->read(kr, *out);
    if (!kr.ok()) return kr.take_error();
    return out;
  }
  Status s = read_rocks_entry(key, 0, value, 0, [&](StateEntry&& e) -> Status {
    if (e.has_key) out = std::move(e.key);
    return stop_error();  // every entry of one pair has the pair's key
  });
  if (!s.ok() && !is_stop(s.error())) return std::move(s).error();
  return out;
}

Result<std::optional<int32_t>> KeyedStateCodec::key_hash_of_rocks_entry(std::string_view key,
                                                                        std::string_view value) const {
  if (kind_ == StateKind::kPriorityQueue && !is_timer_) {
    CKPT_ASSIGN_OR_RETURN(std::optional<nlohmann::json> k, key_of_rocks_entry(key, value));
    return k ? key_->java_hash_code(*k) : std::nullopt;
  }
  if (layout_.key_group(key) < 0) return Error(ErrorCode::kCorruption, "key shorter than its key-group prefix", 0);
  // The key right after the prefix (formats/keyed-state.md §10), or after a timer's timestamp
  // (TimerSerializer: timestamp, key, namespace), read with the backend's key serializer, which
  // the timer serializer nests.
  ByteReader kr(key.substr(layout_.prefix_bytes()), layout_.prefix_bytes());
  if (kind_ == StateKind::kPriorityQueue) kr.skip(8);
  std::optional<int32_t> hash = key_->read_java_hash_code(kr);
  if (!kr.ok()) return kr.take_error();
  return hash;
}

Status KeyedStateCodec::read_rocks_entry(std::string_view key, uint64_t key_offset, std::string_view value,
                                         uint64_t value_offset, const EntrySink& sink) const {
  int32_t kg = layout_.key_group(key);
  if (kg < 0) return Error(ErrorCode::kCorruption, "key shorter than its key-group prefix", key_offset);
  ByteReader kr(key.substr(layout_.prefix_bytes()), key_offset + layout_.prefix_bytes());
  if (other_key_bytes(key.substr(layout_.prefix_bytes()))) return Status::OK();  // never decoded
  if (kind_ == StateKind::kPriorityQueue) {
    nlohmann::json element;
    value_->read(kr, element);
    if (kr.ok() && !kr.at_end())
      kr.fail(fmt::format("{} bytes after the queue element in the key", kr.remaining()));
    if (!kr.ok()) return reader_error(kr);
    return emit_timer(std::move(element), kg, key.substr(layout_.prefix_bytes()), sink);
  }
  // One entry per codec, reused: a sink that prints (dump) only reads it, so its strings keep
  // their capacity and an entry costs no allocation (malloc and free were 7% of `ckpt dump`).
  StateEntry& e = scratch_;
  reset_entry(e);
  e.state = name_;
  e.key_group = kg;
  e.has_key = e.has_namespace = true;
  e.is_text = json_text_;
  const bool values = !json_text_ && values_;
  e.is_value = values;
  if (raw_bytes_) {
    e.has_raw = true;
    e.raw_value = value;
  }
  // Each field decoded to its tree or, for consumers that print, straight to its JSON text, or
  // for the entry iterator straight to its Value (or stepped over, null, if it reads no such
  // field: a count reads none).
  auto field = [&](const ValueDecoder& d, ByteReader& r, nlohmann::json& tree, std::string& text, Value& value,
                   bool wanted) {
    if (json_text_) {
      d.write_json(r, text);
    } else if (values && !wanted) {
      value = Value();
      d.skip(r);
    } else if (values) {
      d.read_value(r, value);
    } else {
      d.read(r, tree);
    }
  };
  auto framed = [&](const ValueDecoder& d, ByteReader& r, nlohmann::json& tree, std::string& text, Value& value,
                    bool wanted) -> Status {
    if (json_text_) return decode_framed_json(d, r, r.remaining(), text);
    if (values && !wanted) {
      value = Value();
      r.skip(r.remaining());
      return Status::OK();
    }
    if (values) return decode_framed_value(d, r, r.remaining(), value);
    CKPT_ASSIGN_OR_RETURN(tree, decode_framed(d, r, r.remaining()));
    return Status::OK();
  };
  uint64_t start = kr.position();
  field(*key_, kr, e.key, e.key_text, e.key_value, decode_.key || keys_);
  if (raw_bytes_) e.raw_key = kr.since(start);
  if (keys_ && kr.ok()) {
    // The set holds keys as text: a Value's text is the tree's (ckpt/value.h).
    if (values) e.key_text = e.key_value.json();
    const bool text = json_text_ || values;
    if (keys_->find(text ? nullptr : &e.key, text ? &e.key_text : nullptr) < 0)
      return Status::OK();  // another key's entry: its namespace and value are never decoded
  }
  layout_.read_length_suffix(kr, kr.position() - start);
  start = kr.position();
  field(*namespace_, kr, e.ns, e.ns_text, e.ns_value, decode_.ns);
  if (raw_bytes_) e.raw_ns = kr.since(start);
  layout_.read_length_suffix(kr, kr.position() - start);
  if (!kr.ok()) return reader_error(kr);
  ByteReader vr(value, value_offset);
  if (kind_ == StateKind::kMap) {
    e.has_user_key = true;
    if (raw_bytes_) e.raw_user_key = key.substr(layout_.prefix_bytes() + kr.position());
    CKPT_RETURN_IF_ERROR(framed(*user_key_, kr, e.user_key, e.user_key_text, e.user_key_value, decode_.user_key));
    bool is_null = vr.boolean();
    if (!vr.ok()) return reader_error(vr);
    if (is_null) {
      if (!vr.at_end()) return Error(ErrorCode::kCorruption, "bytes after a null map value", vr.offset());
      e.value = nullptr;
      e.value_text = "null";
      e.value_value = Value();
    } else {
      CKPT_RETURN_IF_ERROR(framed(*element_, vr, e.value, e.value_text, e.value_value, decode_.value));
    }
    return sink(std::move(e));
  }
  if (!kr.at_end())
    return Error(ErrorCode::kCorruption,
                 fmt::format("{} bytes after the namespace in the key of state '{}'", kr.remaining(), name_),
                 kr.offset());
  if (kind_ == StateKind::kList) {
    if (values && !decode_.value) {
      if (vr.at_end()) return Status::OK();  // no elements: no entry, as below
      e.value_value = Value();
      return sink(std::move(e));
    }
    if (!element_->decodable()) {
      // Elements cannot be told apart without their classes: show the whole value.
      CKPT_RETURN_IF_ERROR(framed(*element_, vr, e.value, e.value_text, e.value_value, decode_.value));
      return sink(std::move(e));
    }
    if (json_text_) e.value_text = "[";
    else if (!values)
      e.value = nlohmann::json::array();
    std::vector<Value> list;
    size_t elements = 0;
    while (!vr.at_end()) {
      if (json_text_) {
        if (elements) e.value_text += ',';
        element_->write_json(vr, e.value_text);
      } else if (values) {
        element_->read_value(vr, list.emplace_back());
      } else {
        nlohmann::json element;
        element_->read(vr, element);
        e.value.push_back(std::move(element));
      }
      ++elements;
      if (!vr.ok()) return reader_error(vr);
      if (vr.at_end()) break;
      uint64_t at = vr.offset();
      if (vr.u8() != static_cast<uint8_t>(kListDelimiter))
        return Error(ErrorCode::kCorruption, "expected the list delimiter ',' between list elements", at);
      if (vr.at_end()) return Error(ErrorCode::kCorruption, "list value ends with a delimiter", at);
    }
    if (elements == 0) return Status::OK();
    if (json_text_) e.value_text += ']';
    if (values) e.value_value = Value::array(std::move(list));
    return sink(std::move(e));
  }
  CKPT_RETURN_IF_ERROR(framed(*value_, vr, e.value, e.value_text, e.value_value, decode_.value));
  return sink(std::move(e));
}

Status KeyedStateCodec::list_elements(std::string_view value, std::vector<std::string_view>* out) const {
  out->clear();
  if (kind_ != StateKind::kList || !element_ || !element_->decodable())
    return Error(ErrorCode::kNotSupported,
                 fmt::format("state '{}': its list elements cannot be told apart without the job's classes", name_));
  ByteReader r(value);
  while (!r.at_end()) {
    const size_t start = r.position();
    element_->skip(r);
    if (!r.ok()) return reader_error(r);
    out->push_back(value.substr(start, r.position() - start));
    if (r.at_end()) break;
    const uint64_t at = r.offset();
    if (r.u8() != static_cast<uint8_t>(kListDelimiter))
      return Error(ErrorCode::kCorruption, "expected the list delimiter ',' between list elements", at);
    if (r.at_end()) return Error(ErrorCode::kCorruption, "list value ends with a delimiter", at);
  }
  return Status::OK();
}

Status KeyedStateCodec::encode_entry(const nlohmann::json* key, const nlohmann::json* ns,
                                     const nlohmann::json* user_key, const nlohmann::json& value,
                                     EntryEncoding* out) const {
  auto member = [](const ValueDecoder& d, const nlohmann::json* v, const char* name, std::string* bytes) -> Status {
    if (!v) return Error(ErrorCode::kInvalidArgument, fmt::format("{}: missing (this state's entries have one)", name));
    ByteWriter w;
    w.buffer().swap(*bytes);  // written into `out`'s memory: a caller reusing it allocates nothing
    w.buffer().clear();
    Status s = decoders::encode_at(d.encode(*v, w), name);
    *bytes = w.take();
    return s;
  };
  for (std::string* s : {&out->key, &out->ns, &out->user_key, &out->element, &out->value}) s->clear();
  if (kind_ == StateKind::kPriorityQueue) {
    if (!is_timer_) return member(*value_, &value, "value", &out->element);
    // The key's own bytes too: its key group is computed from them.
    CKPT_RETURN_IF_ERROR(member(*key_, key, "key", &out->key));
    if (!ns) return Error(ErrorCode::kInvalidArgument, "namespace: missing (timers have one)");
    nlohmann::json timer = {{"timestamp", value}, {"key", *key}, {"namespace", *ns}};
    ByteWriter w;
    Status s = value_->encode(timer, w);
    if (!s.ok()) {
      // The timer's members are the line's: name them as the line does.
      Error e = std::move(s).error();
      for (auto [from, to] : {std::pair<std::string_view, std::string_view>{".timestamp", "value"},
                              std::pair<std::string_view, std::string_view>{".key", "key"},
                              std::pair<std::string_view, std::string_view>{".namespace", "namespace"}})
        if (e.message.rfind(from, 0) == 0) {
          e.message = std::string(to) + e.message.substr(from.size());
          break;
        }
      return e;
    }
    out->element = w.take();
    return Status::OK();
  }
  CKPT_RETURN_IF_ERROR(member(*key_, key, "key", &out->key));
  CKPT_RETURN_IF_ERROR(member(*namespace_, ns, "namespace", &out->ns));
  if (kind_ == StateKind::kMap) {
    CKPT_RETURN_IF_ERROR(member(*user_key_, user_key, "user_key", &out->user_key));
    if (value.is_null()) {
      out->value = std::string(1, '\x01');
      return Status::OK();
    }
    std::string v;
    CKPT_RETURN_IF_ERROR(member(*element_, &value, "value", &v));
    out->value = std::string(1, '\0') + v;
    return Status::OK();
  }
  if (user_key)
    return Error(ErrorCode::kInvalidArgument,
                 fmt::format("user_key: only map states have one ('{}' is {})", name_, state_kind_name(kind_)));
  if (kind_ == StateKind::kList && element_->decodable()) {
    if (!value.is_array() || value.empty())
      return decoders::encode_at(decoders::encode_expected("a non-empty array of list elements", value), "value");
    ByteWriter w;
    for (size_t i = 0; i < value.size(); ++i) {
      if (i) w.u8(static_cast<uint8_t>(kListDelimiter));
      CKPT_RETURN_IF_ERROR(decoders::encode_at(element_->encode(value[i], w), fmt::format("value[{}]", i)));
    }
    out->value = w.take();
    return Status::OK();
  }
  // A list whose elements cannot be told apart is shown, and written back, whole as {"hex":..}.
  if (kind_ == StateKind::kList) {
    auto bytes = decoders::encode_opaque_hex(value, element_->serializer_class());
    if (!bytes.ok()) return decoders::encode_at(std::move(bytes).error(), "value");
    out->value = std::move(bytes).value();
    return Status::OK();
  }
  return member(*value_, &value, "value", &out->value);
}

}  // namespace ckpt
