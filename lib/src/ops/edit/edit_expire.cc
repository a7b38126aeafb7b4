// --expire: TTL values older than their state's ttl at `now` dropped, bytes otherwise kept.
#include "ops/edit/edit_expire.h"

#include <fmt/format.h>

#include "support/byte_reader.h"
#include "types/serializer_classes.h"
#include "types/value_decoder.h"

namespace ckpt {

namespace {

constexpr std::string_view kTtlAwareSnapshot = "org.apache.flink.runtime.state.ttl.TtlAwareSerializerSnapshot";

// `s` if it is a TtlSerializer's snapshot (under Flink 2's TtlAware wrapper too), else nullptr.
const SerializerSnapshot* ttl_snapshot(const SerializerSnapshot* s) {
  while (s && s->snapshot_class == kTtlAwareSnapshot && !s->nested.empty()) s = &s->nested[0];
  return s && s->snapshot_class == snapshot_class::kTtl ? s : nullptr;
}

// Where a state's TtlValues are in its RocksDB values.
enum class TtlShape { kWhole, kMapValue, kListElements };

struct ExpiringState {
  size_t index = 0;  // in the proxy
  std::string name;
  int64_t ttl = 0;
  TtlShape shape = TtlShape::kWhole;
  std::unique_ptr<ValueDecoder> element;  // lists: the TtlValue decoder, for its extent
  uint64_t dropped = 0;
};

Result<int64_t> timestamp_at(std::string_view bytes, size_t at) {
  ByteReader r(bytes.substr(std::min(at, bytes.size())), at);
  int64_t ts = r.i64();
  if (!r.ok()) return r.take_error();
  return ts;
}

}  // namespace

class ExpireEdit : public KeyedEdit {
 public:
  ExpireEdit(TtlExpiry& owner, std::string op_hex) : owner_(owner), op_hex_(std::move(op_hex)) {}
  ~ExpireEdit() override {
    for (const ExpiringState& s : states_) owner_.record(op_hex_, s.name, s.dropped);
  }

  Status key_group(int32_t, std::vector<std::vector<RocksPair>>& by_state) override {
    for (ExpiringState& s : states_) {
      if (s.index >= by_state.size()) continue;
      std::vector<RocksPair>& pairs = by_state[s.index];
      size_t kept = 0;
      for (size_t p = 0; p < pairs.size(); ++p) {
        CKPT_ASSIGN_OR_RETURN(bool live, keep(s, pairs[p].value));
        if (!live) continue;
        if (kept != p) std::swap(pairs[kept], pairs[p]);
        ++kept;
      }
      pairs.resize(kept);
    }
    return Status::OK();
  }

  std::vector<ExpiringState> states_;

 private:
  // Whether `value` stays; a list's value loses its expired elements.
  Result<bool> keep(ExpiringState& s, std::string& value) {
    const int64_t now = owner_.now_;
    switch (s.shape) {
      case TtlShape::kWhole: {
        CKPT_ASSIGN_OR_RETURN(int64_t ts, timestamp_at(value, 0));
        if (!ttl_expired(ts, s.ttl, now)) return true;
        ++s.dropped;
        return false;
      }
      case TtlShape::kMapValue: {
        if (value.empty() || value[0] != 0) return true;  // a null user value has no TtlValue
        CKPT_ASSIGN_OR_RETURN(int64_t ts, timestamp_at(value, 1));
        if (!ttl_expired(ts, s.ttl, now)) return true;
        ++s.dropped;
        return false;
      }
      case TtlShape::kListElements: {
        ByteReader r(value);
        std::string live;
        while (!r.at_end()) {
          const size_t start = r.position();
          CKPT_ASSIGN_OR_RETURN(int64_t ts, timestamp_at(value, start));
          s.element->skip(r);
          if (!r.ok()) return r.take_error();
          if (ttl_expired(ts, s.ttl, now)) {
            ++s.dropped;
          } else {
            if (!live.empty()) live += ',';
            live.append(value, start, r.position() - start);
          }
          if (r.at_end()) break;
          if (r.u8() != ',') return Error(ErrorCode::kCorruption, "list elements not joined by ','", r.offset() - 1);
        }
        value = std::move(live);
        return !value.empty();
      }
    }
    return true;
  }

  TtlExpiry& owner_;
  std::string op_hex_;
};

Result<std::unique_ptr<KeyedEdit>> TtlExpiry::edit_for(const OperatorState& op, const KeyedBackendMeta& meta) {
  auto edit = std::make_unique<ExpireEdit>(*this, operator_id_hex(op.id));
  for (size_t i = 0; i < meta.states.size(); ++i) {
    const StateMetaInfo& info = meta.states[i];
    // A state named by --expire has that TTL; else its SQL node's, where a plan gives one.
    std::optional<int64_t> ttl;
    bool from_plan = false;
    if (auto named = ttls_.find(info.name); named != ttls_.end()) {
      ttl = named->second;
    } else if (auto node = plan_ttls_.find(op.id); node != plan_ttls_.end()) {
      ttl = plan_state_ttl(node->second, info.name);
      from_plan = true;
      if (ttl && *ttl <= 0) ttl.reset();  // 0: the node keeps this state without a TTL
    }
    if (!ttl) continue;
    ExpiringState s;
    s.index = i;
    s.name = info.name;
    s.ttl = *ttl;
    const SerializerSnapshot* v = info.value_serializer();
    const SerializerSnapshot* t = nullptr;
    switch (info.kind()) {
      case StateKind::kValue:
      case StateKind::kReducing:
      case StateKind::kAggregating: t = ttl_snapshot(v); break;
      case StateKind::kMap:
        s.shape = TtlShape::kMapValue;
        if (v && v->nested.size() == 2) t = ttl_snapshot(&v->nested[1]);
        break;
      case StateKind::kList:
        s.shape = TtlShape::kListElements;
        if (v && v->nested.size() == 1) t = ttl_snapshot(&v->nested[0]);
        break;
      default: break;
    }
    if (!t && from_plan) continue;  // a state the node keeps without TTL (its timers, say)
    if (!t)
      return info.at_source(Error(ErrorCode::kInvalidArgument,
                                  fmt::format("--expire: state '{}' of operator {} ({}, {}) has no time-to-live",
                                              info.name, operator_id_hex(op.id), state_kind_name(info.kind()),
                                              v ? v->serializer_class : "no value serializer")));
    if (s.shape == TtlShape::kListElements) {
      CKPT_ASSIGN_OR_RETURN(s.element, make_decoder(*t));
      if (!s.element->decodable())
        return Error(ErrorCode::kNotSupported,
                     fmt::format("--expire: the elements of list state '{}' cannot be delimited: {}", info.name,
                                 s.element->why_not()));
    }
    record(operator_id_hex(op.id), info.name, 0);
    edit->states_.push_back(std::move(s));
  }
  if (edit->states_.empty()) return std::unique_ptr<KeyedEdit>();
  return std::unique_ptr<KeyedEdit>(std::move(edit));
}

void TtlExpiry::record(const std::string& op_hex, const std::string& state, uint64_t entries) {
  std::lock_guard<std::mutex> lock(mu_);
  dropped_[{op_hex, state}] += entries;
}

std::map<std::pair<std::string, std::string>, uint64_t> TtlExpiry::dropped() const {
  std::lock_guard<std::mutex> lock(mu_);
  return dropped_;
}

std::vector<std::string> TtlExpiry::not_found() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<std::string> out;
  for (const auto& [name, ttl] : ttls_) {
    bool found = false;
    for (const auto& [where, n] : dropped_) found |= where.second == name;
    if (!found) out.push_back(name);
  }
  return out;
}

}  // namespace ckpt
