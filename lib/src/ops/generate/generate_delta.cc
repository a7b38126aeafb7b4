// generated_chain_delta: the entries a chain step changed, from the model and schedule alone.
#include <map>
#include <tuple>

#include <fmt/format.h>

#include "ckpt/generate.h"
#include "ops/generate/generate_internal.h"
#include "ops/generate/generate_model.h"

namespace ckpt {

namespace {

// (state, key, field) -> value, one key group at one model version.
using Entries = std::map<std::tuple<size_t, uint32_t, int32_t>, std::string>;

Entries entries_at(const GenerateModel& model, int32_t op, int32_t kg, uint32_t version) {
  Entries out;
  model.entries(op, kg, version, [&](size_t s, uint32_t key, int32_t field, std::string&& value) {
    out.emplace(std::make_tuple(s, key, field), std::move(value));
  });
  return out;
}

}  // namespace

Result<GeneratedChainDelta> generated_chain_delta(const GenerateOptions& options, int32_t checkpoint) {
  if (options.chain < 2 || checkpoint < 1 || checkpoint >= options.chain)
    return Error(ErrorCode::kInvalidArgument,
                 fmt::format("expected a checkpoint between 1 and {} of a chain", std::max(options.chain - 1, 0)));
  CKPT_ASSIGN_OR_RETURN(GenerateModel model, GenerateModel::make(options));
  GeneratedChainDelta delta;
  for (int32_t op = 0; op < options.operators; ++op) {
    const std::string op_hex = operator_id_hex(model.operator_id(op));
    for (int32_t sub = 0; sub < options.parallelism; ++sub) {
      const std::vector<ChainBucket> buckets = chain_buckets(options, sub);
      for (size_t b = 0; b < buckets.size(); ++b) {
        if (!chain_rewrites(options, op, sub, static_cast<int32_t>(b), checkpoint + 1)) continue;
        uint32_t before = 0;  // the bucket's version at `checkpoint`: its rewrites so far
        for (int32_t c = 2; c <= checkpoint; ++c) before += chain_rewrites(options, op, sub, static_cast<int32_t>(b), c);
        for (int32_t kg = buckets[b].kg_begin; kg < buckets[b].kg_end; ++kg) {
          Entries a = entries_at(model, op, kg, before), z = entries_at(model, op, kg, before + 1);
          auto note = [&](const char* what, const Entries::key_type& k) {
            const auto& [s, key, field] = k;
            delta.changes.push_back({what, op_hex, model.meta().states[s].name, kg, GenerateModel::key_name(key),
                                     field >= 0 ? GenerateModel::field_name(field) : std::string()});
          };
          for (const auto& [k, v] : a) {
            auto it = z.find(k);
            if (it == z.end()) note("removed", k), ++delta.removed;
            else if (it->second != v) note("changed", k), ++delta.changed;
          }
          for (const auto& [k, v] : z)
            if (!a.count(k)) note("added", k), ++delta.added;
        }
      }
    }
  }
  return delta;
}

}  // namespace ckpt
