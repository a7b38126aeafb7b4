// --delete-keys: pairs whose decoded key is one of the given keys removed per key group.
#include "ops/edit/edit_keys.h"

#include <algorithm>

#include <fmt/format.h>

#include "ops/key_spelling.h"
#include "state/keyed_state_codec.h"
#include "support/json_text.h"
#include "types/value_decoder.h"

namespace ckpt {

class DeleteKeysEdit : public KeyedEdit {
 public:
  DeleteKeysEdit(KeyDeletion& owner, std::string op_hex) : owner_(owner), op_hex_(std::move(op_hex)) {}
  ~DeleteKeysEdit() override {
    for (size_t i = 0; i < codecs_.size(); ++i)
      owner_.record(op_hex_, codecs_[i] ? codecs_[i]->name() : std::string(), erased_[i], matched_);
  }

  Status key_group(int32_t key_group, std::vector<std::vector<RocksPair>>& by_state) override {
    if (!all_groups_ && !groups_.count(key_group)) return Status::OK();
    for (size_t i = 0; i < by_state.size() && i < codecs_.size(); ++i) {
      if (!codecs_[i]) continue;
      std::vector<RocksPair>& pairs = by_state[i];
      size_t kept = 0;
      for (size_t p = 0; p < pairs.size(); ++p) {
        CKPT_ASSIGN_OR_RETURN(std::optional<size_t> hit, match(*codecs_[i], pairs[p]));
        if (hit) {
          matched_.insert(*hit);
          ++erased_[i];
          continue;
        }
        if (kept != p) std::swap(pairs[kept], pairs[p]);
        ++kept;
      }
      pairs.resize(kept);
    }
    return Status::OK();
  }

  std::unique_ptr<ValueDecoder> key_decoder_;
  std::vector<std::unique_ptr<KeyedStateCodec>> codecs_;  // per proxy state
  std::vector<uint64_t> erased_;
  std::set<int32_t> groups_;  // the key groups the keys hash to
  bool all_groups_ = false;   // a key whose hashCode is not known: every key group looked at

 private:
  // The index of the given key this pair is an entry of, if any.
  Result<std::optional<size_t>> match(const KeyedStateCodec& codec, const RocksPair& pair) const {
    CKPT_ASSIGN_OR_RETURN(std::optional<nlohmann::json> key, codec.key_of_rocks_entry(pair.key, pair.value));
    if (!key) return std::optional<size_t>();
    auto it = owner_.by_text_.find(json_text(*key));
    if (it == owner_.by_text_.end()) return std::optional<size_t>();
    return std::optional<size_t>(it->second);
  }

  KeyDeletion& owner_;
  std::string op_hex_;
  std::set<size_t> matched_;
};

Result<std::unique_ptr<KeyDeletion>> KeyDeletion::parse(const std::vector<std::string>& keys) {
  auto d = std::make_unique<KeyDeletion>();
  CKPT_ASSIGN_OR_RETURN(std::vector<GivenKey> given, parse_given_keys(keys, "--delete-keys"));
  for (GivenKey& key : given) {
    for (nlohmann::json& v : key.spellings) {
      d->by_text_[json_text(v)] = d->given_.size();
      d->keys_.push_back(std::move(v));
      d->spelling_of_.push_back(d->given_.size());
    }
    d->given_.push_back(std::move(key.text));
  }
  return d;
}

Result<std::unique_ptr<KeyedEdit>> KeyDeletion::edit_for(const OperatorState& op, const KeyedBackendMeta& meta) {
  auto edit = std::make_unique<DeleteKeysEdit>(*this, operator_id_hex(op.id));
  CKPT_ASSIGN_OR_RETURN(edit->key_decoder_, make_decoder(meta.key_serializer));
  if (!edit->key_decoder_->decodable())
    return Error(
        ErrorCode::kNotSupported,
        fmt::format("--delete-keys: the keys of operator {} ({}) cannot be decoded: {}", operator_id_hex(op.id),
                    edit->key_decoder_->serializer_class(), edit->key_decoder_->why_not()));
  for (const StateMetaInfo& s : meta.states) {
    CKPT_ASSIGN_OR_RETURN(std::unique_ptr<KeyedStateCodec> codec,
                          KeyedStateCodec::make(s, *edit->key_decoder_, op.max_parallelism));
    edit->codecs_.push_back(std::move(codec));
  }
  edit->erased_.assign(edit->codecs_.size(), 0);
  // As dump --key narrows: a spelling this key type cannot have hashes to nothing, and a key
  // none of whose spellings has a known hashCode is looked for in every key group.
  std::vector<bool> hashed(given_.size(), false);
  for (size_t i = 0; i < keys_.size(); ++i) {
    std::optional<int32_t> kg = compute_key_group(*edit->key_decoder_, keys_[i], op.max_parallelism);
    if (!kg) continue;
    edit->groups_.insert(*kg);
    hashed[spelling_of_[i]] = true;
  }
  edit->all_groups_ = std::find(hashed.begin(), hashed.end(), false) != hashed.end();
  return std::unique_ptr<KeyedEdit>(std::move(edit));
}

void KeyDeletion::record(const std::string& op_hex, const std::string& state, uint64_t entries,
                         const std::set<size_t>& matched) {
  std::lock_guard<std::mutex> lock(mu_);
  if (entries) erased_[{op_hex, state}] += entries;
  matched_.insert(matched.begin(), matched.end());
}

std::vector<EditSummary::KeysErased> KeyDeletion::erased() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<EditSummary::KeysErased> out;
  for (const auto& [where, n] : erased_) out.push_back({where.first, where.second, n});
  return out;
}

std::vector<std::string> KeyDeletion::unmatched() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<std::string> out;
  for (size_t i = 0; i < given_.size(); ++i)
    if (!matched_.count(i)) out.push_back(given_[i]);
  return out;
}

}  // namespace ckpt
