// --upsert: encoded entries merged into the pairs of their key groups.
#include "ops/edit/edit_upsert.h"

#include <algorithm>

#include <fmt/format.h>

#include "ops/load/operator_stream.h"
#include "state/operator_state_reader.h"
#include "state/stream_opener.h"

namespace ckpt {

class UpsertEdit : public KeyedEdit {
 public:
  UpsertEdit(Upserts& owner, std::string op_hex) : owner_(owner), op_hex_(std::move(op_hex)) {}
  ~UpsertEdit() override {
    for (size_t i = 0; i < counts_.size(); ++i)
      if (counts_[i].upserted || counts_[i].added || counts_[i].unchanged)
        owner_.record(op_hex_, names_[i], counts_[i]);
  }

  Status key_group(int32_t key_group, std::vector<std::vector<RocksPair>>& by_state) override {
    auto here = by_group_.find(key_group);
    if (here == by_group_.end()) return Status::OK();
    for (const auto& item : here->second) {
      const size_t state = item.first;
      const EncodedKeyedEntry* e = item.second;  // a plain local: lambdas capture no binding before C++20
      if (state >= by_state.size()) continue;
      std::vector<RocksPair>& pairs = by_state[state];
      auto same = std::find_if(pairs.begin(), pairs.end(), [&](const RocksPair& p) { return p.key == e->key; });
      if (same == pairs.end()) {
        pairs.push_back(RocksPair{e->key, e->value});
        ++counts_[state].added;
      } else if (same->value == e->value) {
        ++counts_[state].unchanged;
      } else {
        same->value = e->value;
        ++counts_[state].upserted;
      }
    }
    return Status::OK();
  }

  std::vector<int32_t> added_key_groups() const override {
    std::vector<int32_t> out;
    for (const auto& [kg, unused] : by_group_) out.push_back(kg);
    return out;
  }

  // key group -> (proxy state index, entry), in the order the lines gave them (the last wins)
  std::map<int32_t, std::vector<std::pair<size_t, const EncodedKeyedEntry*>>> by_group_;
  std::vector<std::string> names_;  // per proxy state
  std::vector<EditSummary::EntryEdits> counts_;

 private:
  Upserts& owner_;
  std::string op_hex_;
};

Status Upserts::read(std::istream& in, const std::string& input_name, const Metadata& snapshot,
                     const StreamOpener& streams) {
  std::vector<EncodedOperatorEntry> operator_entries;
  CKPT_ASSIGN_OR_RETURN(std::vector<EncodedKeyedEntry> entries,
                        encode_keyed_lines(in, input_name, snapshot, streams, &operator_entries));
  for (EncodedKeyedEntry& e : entries) by_operator_[e.operator_hex].push_back(std::move(e));
  for (EncodedOperatorEntry& e : operator_entries) operator_entries_[e.operator_hex].push_back(std::move(e));
  return Status::OK();
}

void Upserts::rename(const std::function<OperatorId(const OperatorId&)>& output_id) {
  std::map<std::string, std::vector<EncodedKeyedEntry>> renamed;
  for (auto& [hex, entries] : by_operator_) {
    OperatorId id{};
    if (parse_operator_id(hex, &id)) renamed[operator_id_hex(output_id(id))] = std::move(entries);
  }
  by_operator_ = std::move(renamed);
  std::map<std::string, std::vector<EncodedOperatorEntry>> renamed_operator;
  for (auto& [hex, entries] : operator_entries_) {
    OperatorId id{};
    if (parse_operator_id(hex, &id)) renamed_operator[operator_id_hex(output_id(id))] = std::move(entries);
  }
  operator_entries_ = std::move(renamed_operator);
}

Status Upserts::operator_state(const OperatorState& op, int32_t subtask, OperatorHandle& h, std::string& bytes) {
  const std::string hex = operator_id_hex(op.id);
  auto found = operator_entries_.find(hex);
  if (found == operator_entries_.end()) return Status::OK();
  std::vector<const EncodedOperatorEntry*> mine;
  for (const EncodedOperatorEntry& e : found->second)
    if (e.subtask == subtask) mine.push_back(&e);
  if (mine.empty()) return Status::OK();
  // The stream's elements as stored, every state's (write_operator_stream() writes a state it is
  // not given empty), read through an inline copy of the handle; its errors name the stream's
  // file (offsets count from the stream's first byte).
  const std::string origin = h.delegate.path.empty() ? h.delegate.name : h.delegate.path;
  OperatorHandle in = h;
  in.delegate = StreamHandle{};
  in.delegate.type = handle_type::kByteStream;
  in.delegate.name = "operator state of subtask " + std::to_string(subtask);
  in.delegate.data = bytes;
  std::map<std::string, OperatorStateData> data;
  for (const OperatorStateEntry& s : h.states) data[s.name];
  StateFilter all;
  all.raw_bytes = true;
  CKPT_RETURN_IF_ERROR(read_operator_handle(
      in, StreamOpener({}, origin), all,
      [&](StateEntry&& e) -> Status {
        OperatorStateData& d = data[e.state];
        if (e.has_key)
          d.entries.emplace_back(std::move(e.raw_key), std::move(e.raw_value));
        else
          d.elements.push_back(std::move(e.raw_value));
        return Status::OK();
      },
      [](Error&& e) -> Status { return std::move(e); }));
  std::map<std::string, EditSummary::EntryEdits> n;
  for (const EncodedOperatorEntry* e : mine) {
    OperatorStateData& d = data[e->state];
    EditSummary::EntryEdits& c = n[e->state];
    if (!e->broadcast) {
      d.elements.push_back(e->value);
      ++c.added;
      continue;
    }
    auto same = std::find_if(d.entries.begin(), d.entries.end(), [&](const auto& kv) { return kv.first == e->key; });
    if (same == d.entries.end()) {
      d.entries.emplace_back(e->key, e->value);
      ++c.added;
    } else if (same->second == e->value) {
      ++c.unchanged;
    } else {
      same->second = e->value;
      ++c.upserted;
    }
  }
  CKPT_RETURN_IF_ERROR(write_operator_stream(h, bytes, data));
  for (const auto& [state, c] : n) record(hex, state, c);
  return Status::OK();
}

Result<std::unique_ptr<KeyedEdit>> Upserts::edit_for(const OperatorState& op, const KeyedBackendMeta& meta) {
  const std::string hex = operator_id_hex(op.id);
  auto entries = by_operator_.find(hex);
  if (entries == by_operator_.end()) return std::unique_ptr<KeyedEdit>();
  auto edit = std::make_unique<UpsertEdit>(*this, hex);
  for (const StateMetaInfo& s : meta.states) edit->names_.push_back(s.name);
  edit->counts_.resize(meta.states.size());
  for (const EncodedKeyedEntry& e : entries->second) {
    auto state = std::find(edit->names_.begin(), edit->names_.end(), e.state);
    // Another subtask's key group, or a state this subtask's proxy does not list (the reader
    // checked that the subtask owning the key group lists it).
    if (state == edit->names_.end()) continue;
    edit->by_group_[e.key_group].emplace_back(static_cast<size_t>(state - edit->names_.begin()), &e);
  }
  for (size_t i = 0; i < edit->counts_.size(); ++i) {
    edit->counts_[i].operator_id = hex;
    edit->counts_[i].state = edit->names_[i];
  }
  return std::unique_ptr<KeyedEdit>(std::move(edit));
}

void Upserts::record(const std::string& op_hex, const std::string& state, const EditSummary::EntryEdits& n) {
  std::lock_guard<std::mutex> lock(mu_);
  EditSummary::EntryEdits& c = counts_[{op_hex, state}];
  c.operator_id = op_hex;
  c.state = state;
  c.upserted += n.upserted;
  c.added += n.added;
  c.unchanged += n.unchanged;
}

std::vector<EditSummary::EntryEdits> Upserts::counts() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<EditSummary::EntryEdits> out;
  for (const auto& [where, n] : counts_) out.push_back(n);
  return out;
}

}  // namespace ckpt
