// Searching what an erasure left for the keys it erased.
#include "ops/edit/edit_residue.h"

#include <map>
#include <set>
#include <tuple>

#include "support/json_input.h"
#include "support/json_text.h"

namespace ckpt {
namespace {

// Needle texts, and the key each belongs to (a text may belong to several keys).
struct Needles {
  std::map<std::string, std::vector<size_t>> owners;
  bool containers = false;  // some needle is an array or object: containers are compared too
  std::set<size_t> lengths;  // every needle's length
};

enum Place : size_t { kKeyPlace, kUserKeyPlace, kValuePlace, kPlaces };
const char* const kPlaceNames[kPlaces] = {"key", "user-key", "value"};

// Marks in `hits` (one bit per key) every key a node of `v` spells, walking the whole tree.
void search(const Value& v, const Needles& n, std::vector<bool>& hits) {
  // A byte string is searched as the object it prints as: {"bytes":...} and its hex string.
  const bool bytes = v.kind() == Value::Kind::kBytes;
  const bool container = v.kind() == Value::Kind::kArray || v.kind() == Value::Kind::kObject || bytes;
  auto find = [&](const std::string& text) {
    auto it = n.owners.find(text);
    if (it != n.owners.end())
      for (size_t k : it->second) hits[k] = true;
  };
  // Most nodes cannot print as any needle, and printing every value (a byte string's hex is
  // twice its size) would cost more than reading the state: their printed length says so first.
  if (bytes) {
    const size_t hex = 2 * v.as_bytes().size();
    if (!n.lengths.count(hex + 2) && !(n.containers && n.lengths.count(hex + 12))) return;
  } else if (v.kind() == Value::Kind::kString &&
             (n.lengths.empty() || v.as_string().size() + 2 > *n.lengths.rbegin())) {
    return;  // a string prints as at least its bytes and two quotes
  }
  if (!container || n.containers || bytes) {
    const std::string text = v.json();
    if (!container || n.containers) find(text);
    if (bytes) find(text.substr(9, text.size() - 10));  // {"bytes":"<hex>"} -> "<hex>"
  }
  for (const Value& e : v.elements()) search(e, n, hits);
}

}  // namespace

std::vector<std::string> residue_needles(const GivenKey& key) {
  std::set<std::string> out;
  for (const nlohmann::json& s : key.spellings) {
    out.insert(json_text(s));
    const nlohmann::json* fields = s.is_array() ? &s : json_member(s, "fields");
    if (!fields || !(fields->is_array() || fields->is_object())) continue;
    for (const nlohmann::json& f : *fields)
      if (!f.is_null()) out.insert(json_text(f));
  }
  return {out.begin(), out.end()};
}

Status find_key_residues(const ResidueSearch& search_in, EditSummary* summary) {
  Needles needles;
  for (size_t k = 0; k < search_in.keys.size(); ++k)
    for (const std::string& text : residue_needles(search_in.keys[k])) {
      needles.owners[text].push_back(k);
      needles.lengths.insert(text.size());
      needles.containers |= !text.empty() && (text.front() == '[' || text.front() == '{');
    }
  EntryReaderOptions options;
  options.remap = search_in.remap;
  options.jobs = search_in.jobs;
  options.raw_bytes = false;
  std::vector<std::string> gaps;
  options.on_problem = [&](const Error& e) { gaps.push_back(e.to_string()); };
  CKPT_ASSIGN_OR_RETURN(std::unique_ptr<EntryReader> reader, EntryReader::open(search_in.snapshot, options));
  // (output operator, state, key index, place) -> entries
  std::map<std::tuple<std::string, std::string, size_t, size_t>, uint64_t> counts;
  std::vector<bool> hits(search_in.keys.size());
  CKPT_RETURN_IF_ERROR(reader->for_each([&](const Entry& e) -> Status {
    if (search_in.removed && search_in.removed(e)) return Status::OK();
    const Value* places[kPlaces] = {e.key ? &*e.key : nullptr, e.user_key ? &*e.user_key : nullptr, &e.value};
    for (size_t p = 0; p < kPlaces; ++p) {
      if (!places[p]) continue;
      hits.assign(hits.size(), false);
      search(*places[p], needles, hits);
      for (size_t k = 0; k < hits.size(); ++k)
        if (hits[k]) {
          const std::string op = search_in.output_id ? search_in.output_id(e.operator_id) : e.operator_id;
          ++counts[{op, e.state, k, p}];
        }
    }
    return Status::OK();
  }));
  for (const auto& [where, n] : counts) {
    const auto& [op, state, k, p] = where;
    summary->residues.push_back({op, state, search_in.given[k], kPlaceNames[p], n});
  }
  summary->residue_gaps = std::move(gaps);
  return Status::OK();
}

}  // namespace ckpt
