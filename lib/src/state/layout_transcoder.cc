// Heap <-> RocksDB framing of keyed entries, values copied as bytes (formats/keyed-state.md §6, §10).
#include "state/layout_transcoder.h"

#include <fmt/format.h>

#include "state/heap/key_groups_reader.h"
#include "state/keyed_state_codec.h"

namespace ckpt {

namespace {

// Advance past one value of `d`, returning its bytes.
std::string_view skip_value(const ValueDecoder& d, ByteReader& r) {
  size_t start = r.position();
  d.skip(r);
  if (!r.ok()) return {};
  return std::string_view(reinterpret_cast<const char*>(r.data()) + start, r.position() - start);
}

Result<std::unique_ptr<ValueDecoder>> nested(const SerializerSnapshot& s, size_t i, const std::string& state) {
  if (s.nested.size() <= i)
    return Error(ErrorCode::kCorruption, fmt::format("state '{}': serializer snapshot {} lacks nested serializer {}",
                                                     state, s.snapshot_class, i));
  return make_decoder(s.nested[i]);
}

}  // namespace

RocksPair& RocksPairPool::add(std::vector<RocksPair>& out) {
  if (spare_.empty()) return out.emplace_back();
  RocksPair& p = out.emplace_back(std::move(spare_.back()));
  spare_.pop_back();
  return p;
}

void RocksPairPool::recycle(std::vector<RocksPair>& pairs) {
  // A rare huge value would otherwise stay allocated in its slot for good; values that large
  // cost more to copy than to allocate anyway.
  constexpr size_t kKeptCapacity = 64 * 1024;
  for (RocksPair& p : pairs) {
    p.origin = nullptr;  // the next reader of the pool may not set one
    if (p.key.capacity() > kKeptCapacity) std::string().swap(p.key);
    if (p.value.capacity() > kKeptCapacity) std::string().swap(p.value);
    spare_.push_back(std::move(p));
  }
  pairs.clear();
}

void RocksPairPool::recycle(std::vector<std::vector<RocksPair>>& by_state, std::vector<RocksPairPool>& pools) {
  if (pools.size() < by_state.size()) pools.resize(by_state.size());
  for (size_t i = 0; i < by_state.size(); ++i) pools[i].recycle(by_state[i]);
}

Result<std::unique_ptr<StateTranscoder>> StateTranscoder::make(const StateMetaInfo& info,
                                                               const ValueDecoder& key_decoder,
                                                               int32_t max_parallelism) {
  auto t = make_unlocated(info, key_decoder, max_parallelism);
  if (!t.ok()) return info.at_source(std::move(t).error());
  return t;
}

Result<std::unique_ptr<StateTranscoder>> StateTranscoder::make_unlocated(const StateMetaInfo& info,
                                                                         const ValueDecoder& key_decoder,
                                                                         int32_t max_parallelism) {
  std::unique_ptr<StateTranscoder> t(new StateTranscoder());
  t->name_ = info.name;
  t->source_ = info;
  t->kind_ = info.kind();
  t->layout_ = RocksKeyLayout(max_parallelism, key_decoder.fixed_length(), -1);
  t->key_ = &key_decoder;
  const SerializerSnapshot* value = info.value_serializer();
  if (!value) return Error(ErrorCode::kCorruption, fmt::format("state '{}' has no VALUE_SERIALIZER snapshot", info.name));
  CKPT_ASSIGN_OR_RETURN(t->value_, make_decoder(*value));
  if (t->kind_ == StateKind::kPriorityQueue) return t;
  if (!is_keyed_kind(t->kind_))
    return Error(ErrorCode::kCorruption,
                 fmt::format("state '{}' of kind {} in keyed state", info.name, state_kind_name(t->kind_)));
  const SerializerSnapshot* ns = info.namespace_serializer();
  if (!ns) return Error(ErrorCode::kCorruption, fmt::format("state '{}' has no NAMESPACE_SERIALIZER snapshot", info.name));
  CKPT_ASSIGN_OR_RETURN(t->namespace_, make_decoder(*ns));
  t->layout_ = RocksKeyLayout(max_parallelism, key_decoder.fixed_length(), t->namespace_->fixed_length());
  if (t->kind_ == StateKind::kList) {
    CKPT_ASSIGN_OR_RETURN(t->element_, nested(*value, 0, info.name));
  } else if (t->kind_ == StateKind::kMap) {
    CKPT_ASSIGN_OR_RETURN(t->user_key_, nested(*value, 0, info.name));
    CKPT_ASSIGN_OR_RETURN(t->element_, nested(*value, 1, info.name));
  }
  t->all_decodable_ = key_decoder.decodable() && t->namespace_->decodable() && t->value_->decodable() &&
                      (!t->element_ || t->element_->decodable()) && (!t->user_key_ || t->user_key_->decodable());
  return t;
}

Status StateTranscoder::check_delimitable(const ValueDecoder& d, const char* what) const {
  if (d.decodable()) return Status::OK();
  Error e(ErrorCode::kNotSupported, fmt::format("state '{}': {} of {} cannot be delimited without the job's classes ({})",
                                                name_, what, d.serializer_class(), d.why_not()));
  // At the state's meta info, which names the serializer.
  return source_.at_source(std::move(e));
}

HeapEntryLayout StateTranscoder::heap_entry_layout() const {
  return heap_entry_layout_of(name_, kind_ == StateKind::kPriorityQueue, namespace_.get(), key_, value_.get());
}

std::string StateTranscoder::rocks_base(int32_t key_group, std::string_view key, std::string_view ns) const {
  std::string base;
  append_rocks_base(base, key_group, key, ns);
  return base;
}

void StateTranscoder::append_rocks_base(std::string& out, int32_t key_group, std::string_view key,
                                        std::string_view ns) const {
  if (kind_ == StateKind::kPriorityQueue) return append_key_group_prefix(out, key_group, layout_.prefix_bytes());
  layout_.append_base(out, key_group, key, ns);
}

Result<std::string_view> StateTranscoder::heap_namespace(ByteReader& r) const {
  if (!namespace_)
    return Error(ErrorCode::kCorruption, fmt::format("state '{}' has no namespace serializer", name_), r.offset());
  if (!all_decodable_) CKPT_RETURN_IF_ERROR(check_delimitable(*namespace_, "namespaces"));
  std::string_view ns = skip_value(*namespace_, r);
  if (!r.ok()) return r.take_error();
  return ns;
}

Status StateTranscoder::heap_to_rocks(ByteReader& r, int32_t key_group, std::vector<RocksPair>* out,
                                      RocksPairPool& pool, int64_t value_length,
                                      const std::string_view* fixed_ns) const {
  std::string& base = pool.base_;
  base.clear();
  if (kind_ == StateKind::kPriorityQueue) {
    append_rocks_base(base, key_group, {}, {});
    return value_to_rocks(base, r, out, value_length, &pool);
  }
  if (!all_decodable_) {
    CKPT_RETURN_IF_ERROR(check_delimitable(*namespace_, "namespaces"));
    CKPT_RETURN_IF_ERROR(check_delimitable(*key_, "keys"));
  }
  std::string_view ns = fixed_ns ? *fixed_ns : skip_value(*namespace_, r);
  std::string_view key = skip_value(*key_, r);
  if (!r.ok()) return r.take_error();
  append_rocks_base(base, key_group, key, ns);
  return value_to_rocks(base, r, out, value_length, &pool);
}

Status StateTranscoder::value_to_rocks(std::string_view base, ByteReader& r, std::vector<RocksPair>* out,
                                       int64_t value_length, RocksPairPool* pool) const {
  auto add = [&]() -> RocksPair& {
    RocksPair& p = pool ? pool->add(*out) : out->emplace_back();
    p.key.assign(base);
    return p;
  };
  // A whole value of known extent needs no decoder; lists and maps are re-framed per element.
  const bool inferred = value_length >= 0 && kind_ != StateKind::kList && kind_ != StateKind::kMap;
  auto value_bytes = [&](const char* what) -> Result<std::string_view> {
    if (!inferred && !all_decodable_) CKPT_RETURN_IF_ERROR(check_delimitable(*value_, what));
    std::string_view v = inferred ? r.bytes(static_cast<size_t>(value_length)) : skip_value(*value_, r);
    if (!r.ok()) return r.take_error();
    return v;
  };
  if (kind_ == StateKind::kPriorityQueue) {
    CKPT_ASSIGN_OR_RETURN(std::string_view element, value_bytes("queue elements"));
    RocksPair& p = add();
    p.key.append(element);
    p.value.clear();
    return Status::OK();
  }
  if (kind_ == StateKind::kList) {
    if (!all_decodable_) CKPT_RETURN_IF_ERROR(check_delimitable(*element_, "list elements"));
    int32_t n = r.count(1, "list element");
    if (!r.ok()) return r.take_error();
    if (n == 0) return Status::OK();
    std::string& joined = add().value;
    joined.clear();
    for (int32_t i = 0; i < n && r.ok(); ++i) {
      if (i > 0) joined.push_back(kListDelimiter);
      joined.append(skip_value(*element_, r));
    }
    if (!r.ok()) return r.take_error();
    return Status::OK();
  }
  if (kind_ == StateKind::kMap) {
    if (!all_decodable_) {
      CKPT_RETURN_IF_ERROR(check_delimitable(*user_key_, "map keys"));
      CKPT_RETURN_IF_ERROR(check_delimitable(*element_, "map values"));
    }
    int32_t n = r.count(2, "map entry");
    for (int32_t i = 0; i < n && r.ok(); ++i) {
      std::string_view user_key = skip_value(*user_key_, r);
      bool is_null = r.boolean();
      if (!r.ok()) break;
      RocksPair& p = add();
      p.key.append(user_key);
      p.value.assign(1, is_null ? '\1' : '\0');
      if (!is_null) p.value.append(skip_value(*element_, r));
    }
    if (!r.ok()) return r.take_error();
    return Status::OK();
  }
  CKPT_ASSIGN_OR_RETURN(std::string_view v, value_bytes("values"));
  add().value.assign(v);
  return Status::OK();
}

Status StateTranscoder::split_key(const std::string& key, KeyParts* parts) const {
  ByteReader r(key);
  r.skip(layout_.prefix_bytes());
  parts->key_begin = r.position();
  key_->skip(r);
  parts->key_end = r.position();
  layout_.read_length_suffix(r, parts->key_end - parts->key_begin);
  parts->ns_begin = r.position();
  namespace_->skip(r);
  parts->ns_end = r.position();
  layout_.read_length_suffix(r, parts->ns_end - parts->ns_begin);
  parts->rest = r.position();
  if (!r.ok()) return r.take_error().with_context(fmt::format("state '{}': rocksdb key", name_));
  if (kind_ != StateKind::kMap && !r.at_end())
    return Error(ErrorCode::kCorruption,
                 fmt::format("{} bytes after the namespace in the key of state '{}'", r.remaining(), name_));
  return Status::OK();
}

Result<int32_t> StateTranscoder::rocks_to_heap(const std::vector<const RocksPair*>& pairs, ByteWriter& w) const {
  if (kind_ == StateKind::kPriorityQueue) {
    for (const RocksPair* p : pairs) w.bytes(std::string_view(p->key).substr(layout_.prefix_bytes()));
    return static_cast<int32_t>(pairs.size());
  }
  CKPT_RETURN_IF_ERROR(check_delimitable(*namespace_, "namespaces"));
  CKPT_RETURN_IF_ERROR(check_delimitable(*key_, "keys"));
  int32_t entries = 0;
  std::vector<std::string_view> elements;  // one list's, reused: an allocation per list otherwise
  for (size_t i = 0; i < pairs.size();) {
    const std::string& k = pairs[i]->key;
    KeyParts parts;
    if (Status split = split_key(k, &parts); !split.ok()) {
      if (!pairs[i]->origin) return std::move(split).error();
      return pairs[i]->origin->locate(*pairs[i], std::move(split).error());
    }
    std::string_view whole(k);
    w.bytes(whole.substr(parts.ns_begin, parts.ns_end - parts.ns_begin));
    w.bytes(whole.substr(parts.key_begin, parts.key_end - parts.key_begin));
    ++entries;
    if (kind_ == StateKind::kList) {
      CKPT_RETURN_IF_ERROR(check_delimitable(*element_, "list elements"));
      const std::string& v = pairs[i]->value;
      ByteReader r(v);
      elements.clear();
      while (!r.at_end() && r.ok()) {
        elements.push_back(skip_value(*element_, r));
        if (!r.at_end() && r.ok() && r.u8() != static_cast<uint8_t>(kListDelimiter))
          r.fail("expected the list delimiter ',' between list elements");
      }
      if (!r.ok()) return r.take_error().with_context(fmt::format("state '{}': list value", name_));
      w.i32(static_cast<int32_t>(elements.size()));
      for (std::string_view e : elements) w.bytes(e);
      ++i;
      continue;
    }
    if (kind_ == StateKind::kMap) {
      // Pairs of one (key, namespace) are adjacent in key order: their key bytes up to the
      // user key are equal.
      std::string_view head = whole.substr(0, parts.rest);
      size_t j = i;
      while (j < pairs.size() && std::string_view(pairs[j]->key).substr(0, head.size()) == head &&
             pairs[j]->key.size() >= head.size())
        ++j;
      w.i32(static_cast<int32_t>(j - i));
      for (size_t m = i; m < j; ++m) {
        if (pairs[m]->value.empty())
          return Error(ErrorCode::kCorruption, fmt::format("state '{}': map value without its null flag", name_));
        w.bytes(std::string_view(pairs[m]->key).substr(head.size()));
        w.bytes(pairs[m]->value);  // the null flag and the user value: MapSerializer's own framing
      }
      i = j;
      continue;
    }
    w.bytes(pairs[i]->value);
    ++i;
  }
  return entries;
}

namespace {

// Flink 1.2's blocks: per state its id, a presence flag and, if present, each namespace once
// before its entries. Nothing is inferred: 1.2's serializers are Java objects ckpt walks or refuses.
Status heap_v1_block_to_rocks(const std::vector<std::unique_ptr<StateTranscoder>>& transcoders, int32_t key_group,
                              std::string_view data, uint64_t base, std::vector<std::vector<RocksPair>>& by_state,
                              std::vector<RocksPairPool>& pools) {
  const size_t n = transcoders.size();
  ByteReader r(data, base);
  for (size_t i = 0; i < n; ++i) {
    CKPT_ASSIGN_OR_RETURN(HeapV1StateHead head, read_heap_v1_state_head(r, n, key_group));
    const int16_t id = head.id;
    const int32_t namespaces = head.namespaces;
    for (int32_t k = 0; k < namespaces; ++k) {
      CKPT_ASSIGN_OR_RETURN(std::string_view ns, transcoders[id]->heap_namespace(r));
      const int32_t entries = r.count(1, "entry");
      if (!r.ok()) return r.take_error();
      for (int32_t e = 0; e < entries; ++e)
        CKPT_RETURN_IF_ERROR(transcoders[id]->heap_to_rocks(r, key_group, &by_state[id], pools[id], -1, &ns));
    }
  }
  if (!r.at_end())
    return Error(ErrorCode::kCorruption,
                 fmt::format("{} bytes after the last state block of key group {}", r.remaining(), key_group),
                 r.offset());
  return Status::OK();
}

}  // namespace

Status heap_block_to_rocks(const std::vector<std::unique_ptr<StateTranscoder>>& transcoders, int32_t key_group,
                           std::string_view data, uint64_t base, int32_t max_parallelism,
                           std::vector<std::vector<RocksPair>>& by_state, std::vector<RocksPairPool>& pools,
                           int32_t proxy_version) {
  const size_t n = transcoders.size();
  if (pools.size() < n) pools.resize(n);
  if (proxy_version == 1) return heap_v1_block_to_rocks(transcoders, key_group, data, base, by_state, pools);
  std::vector<int64_t> lengths;
  std::vector<HeapEntryLayout> layouts;
  for (const auto& t : transcoders) layouts.push_back(t->heap_entry_layout());
  if (heap_values_need_inference(layouts)) {
    CKPT_ASSIGN_OR_RETURN(lengths, infer_heap_value_lengths(data, base, layouts, key_group, max_parallelism));
  }
  ByteReader r(data, base);
  for (size_t i = 0; i < n; ++i) {
    CKPT_ASSIGN_OR_RETURN(HeapStateBlockHead head, read_heap_state_block_head(r, n));
    const int64_t value_length = lengths.empty() ? -1 : lengths[head.id];
    for (int32_t e = 0; e < head.count; ++e)
      CKPT_RETURN_IF_ERROR(transcoders[head.id]->heap_to_rocks(r, key_group, &by_state[head.id], pools[head.id], value_length));
  }
  if (!r.at_end())
    return Error(ErrorCode::kCorruption,
                 fmt::format("{} bytes after the last state block of key group {}", r.remaining(), key_group),
                 r.offset());
  return Status::OK();
}

}  // namespace ckpt
