// Quick checks of what `_metadata` says about itself: key-group ranges and stored offsets.
#include <algorithm>
#include <vector>

#include <fmt/format.h>

#include "format/key_groups.h"
#include "ops/engine/snapshot_checks.h"

namespace ckpt {
namespace {

constexpr int32_t kMaxMaxParallelism = 32768;  // Flink's UPPER_BOUND_MAX_PARALLELISM

std::string key_group_span_text(int32_t a, int32_t b) { return a == b ? std::to_string(a) : fmt::format("{}-{}", a, b); }

VerifyProblem problem(const OperatorState& op, int32_t subtask, const char* handle, ProblemKind kind,
                      std::string message) {
  VerifyProblem p;
  p.kind = kind;
  p.operator_id = operator_id_hex(op.id);
  p.subtask = subtask;
  p.handle = handle;
  p.error.message = std::move(message);
  return p;
}

// One slot (managed or raw keyed) of one operator.
void check_slot(const OperatorState& op, KeyedHandle SubtaskState::*slot, const char* slot_name,
                VerifyReport& report) {
  const int32_t max_par = op.max_parallelism;
  // owner[kg]: the subtask whose handle holds kg, -1 none, -2 no handle needed (subtask stateless).
  std::vector<int32_t> owner(static_cast<size_t>(max_par), -1);
  std::vector<bool> has_handle(static_cast<size_t>(std::max(op.parallelism, 0)), false);
  bool any = false;
  for (const SubtaskState& st : op.subtasks) {
    const KeyedHandle& h = st.*slot;
    if (st.finished || h.is_null()) continue;
    any = true;
    if (st.index >= 0 && st.index < op.parallelism) has_handle[static_cast<size_t>(st.index)] = true;
    if (h.range.count < 0 || h.range.first < 0 || int64_t{h.range.first} + h.range.count > max_par) {
      report.problems.push_back(problem(op, st.index, slot_name, ProblemKind::kBadKeyGroupRange,
                                        fmt::format("key-group range {}+{} does not fit 0-{}", h.range.first,
                                                    h.range.count, max_par - 1)));
      continue;
    }
    int32_t clash_from = -1, clash_with = -1, clash_to = -1;
    for (int32_t kg = h.range.first; kg <= h.range.last(); ++kg) {
      int32_t& o = owner[static_cast<size_t>(kg)];
      if (o >= 0 && clash_from < 0) {
        clash_from = kg;
        clash_with = o;
      }
      if (o >= 0) clash_to = kg;
      else o = st.index;
    }
    if (clash_from >= 0)
      report.problems.push_back(problem(op, st.index, slot_name, ProblemKind::kKeyGroupOverlap,
                                        fmt::format("key groups {} are also held by subtask {}",
                                                    key_group_span_text(clash_from, clash_to), clash_with)));
  }
  if (!any || op.fully_finished) return;
  // A subtask without keyed state stores no handle; its key groups need none.
  for (int32_t i = 0; i < op.parallelism; ++i) {
    if (has_handle[static_cast<size_t>(i)]) continue;
    KeyGroupRange r = key_group_range_of_subtask(max_par, op.parallelism, i);
    for (int32_t kg = r.first; kg <= r.last(); ++kg)
      if (owner[static_cast<size_t>(kg)] == -1) owner[static_cast<size_t>(kg)] = -2;
  }
  for (int32_t kg = 0; kg < max_par;) {
    if (owner[static_cast<size_t>(kg)] != -1) {
      ++kg;
      continue;
    }
    int32_t end = kg;
    while (end + 1 < max_par && owner[static_cast<size_t>(end + 1)] == -1) ++end;
    report.problems.push_back(problem(op, -1, slot_name, ProblemKind::kKeyGroupGap,
                                      fmt::format("key groups {} are held by no subtask", key_group_span_text(kg, end))));
    kg = end + 1;
  }
}

// Offsets into a stream of `size` bytes (-1: size unknown, nothing to check).
void check_offsets_in(const std::vector<int64_t>& offsets, int64_t size, const StreamHandle& s,
                      const OperatorState& op, int32_t subtask, const std::string& handle, const char* what,
                      VerifyReport& report) {
  if (size < 0) return;
  for (size_t i = 0; i < offsets.size(); ++i) {
    if (offsets[i] >= 0 && offsets[i] <= size) continue;
    VerifyProblem p = problem(op, subtask, handle.c_str(), ProblemKind::kOffsetOutsideFile,
                              fmt::format("offset {:#x} of {} {} lies outside its stream of {} bytes", offsets[i],
                                          what, i, size));
    p.error.file = s.is_file() ? s.path : std::string();
    report.problems.push_back(std::move(p));
    return;
  }
}

// The size of a stream as `_metadata` declares it; -1 when it declares none.
int64_t declared_size(const StreamHandle& s) {
  switch (s.type) {
    case handle_type::kByteStream: return static_cast<int64_t>(s.data.size());
    case handle_type::kFile:
    case handle_type::kRelativeFile:
    case handle_type::kSegmentFile: return s.size;
    default: return -1;
  }
}

void check_keyed_offsets(const KeyedHandle& h, const OperatorState& op, int32_t subtask, const std::string& slot,
                         VerifyReport& report) {
  if (h.is_null()) return;
  if (h.type == handle_type::kKeyGroups || h.type == handle_type::kKeyGroupsWithId ||
      h.type == handle_type::kSavepointKeyGroups) {
    std::string desc = slot + " " + handle_type_name(h.type);
    if (h.offsets.size() != static_cast<size_t>(std::max(h.range.count, 0)))
      report.problems.push_back(problem(op, subtask, desc.c_str(), ProblemKind::kBadKeyGroupRange,
                                        fmt::format("{} offsets stored for {} key groups", h.offsets.size(),
                                                    h.range.count)));
    check_offsets_in(h.offsets, declared_size(h.delegate), h.delegate, op, subtask, desc, "key group", report);
  }
  for (const KeyedHandle& k : h.materialized) check_keyed_offsets(k, op, subtask, slot + " materialized", report);
  for (const KeyedHandle& k : h.non_materialized) check_keyed_offsets(k, op, subtask, slot + " change log", report);
  for (const ChangelogPiece& p : h.pieces)
    check_offsets_in({p.offset}, declared_size(p.handle), p.handle, op, subtask, slot, "piece", report);
}

void check_operator_offsets(const OperatorHandle& h, const OperatorState& op, int32_t subtask, const char* slot,
                            VerifyReport& report) {
  if (h.is_null()) return;
  for (const OperatorStateEntry& e : h.states)
    check_offsets_in(e.offsets, declared_size(h.delegate), h.delegate, op, subtask,
                     fmt::format("{} state '{}'", slot, e.name), "list element", report);
}

void check_channel_offsets(const ChannelHandle& h, const OperatorState& op, int32_t subtask, const char* slot,
                           VerifyReport& report) {
  check_offsets_in(h.offsets, declared_size(h.delegate), h.delegate, op, subtask, slot, "buffer", report);
}

}  // namespace

void check_operator_key_groups(const OperatorState& op, VerifyReport& report) {
  if (op.max_parallelism <= 0 || op.max_parallelism > kMaxMaxParallelism || op.parallelism <= 0) {
    bool keyed = std::any_of(op.subtasks.begin(), op.subtasks.end(), [](const SubtaskState& st) {
      return !st.managed_keyed.is_null() || !st.raw_keyed.is_null();
    });
    if (keyed)
      report.problems.push_back(problem(op, -1, "operator", ProblemKind::kBadKeyGroupRange,
                                        fmt::format("parallelism {} and max parallelism {} leave no key groups",
                                                    op.parallelism, op.max_parallelism)));
    return;
  }
  check_slot(op, &SubtaskState::managed_keyed, "managed-keyed", report);
  check_slot(op, &SubtaskState::raw_keyed, "raw-keyed", report);
}

void check_key_groups(const Metadata& m, VerifyReport& report) {
  for (const OperatorState& op : m.operators) check_operator_key_groups(op, report);
}

void check_offsets(const Metadata& m, VerifyReport& report) {
  for (const OperatorState& op : m.operators) {
    for (const SubtaskState& st : op.subtasks) {
      check_keyed_offsets(st.managed_keyed, op, st.index, "managed-keyed", report);
      check_keyed_offsets(st.raw_keyed, op, st.index, "raw-keyed", report);
      for (const OperatorHandle& h : st.managed_operator) check_operator_offsets(h, op, st.index, "managed-operator", report);
      for (const OperatorHandle& h : st.raw_operator) check_operator_offsets(h, op, st.index, "raw-operator", report);
      for (const ChannelHandle& h : st.input_channels) check_channel_offsets(h, op, st.index, "input-channel", report);
      for (const ChannelHandle& h : st.result_subpartitions)
        check_channel_offsets(h, op, st.index, "result-subpartition", report);
    }
  }
}

}  // namespace ckpt
