// SnapshotEdits: a rewrite's edits applied one after the other, concern by concern.
#include <set>

#include "ops/rewrite/snapshot_rewrite.h"

namespace ckpt {

namespace {

// Edits applied one after the other (each sees the previous one's output).
class EditChain : public KeyedEdit {
 public:
  explicit EditChain(std::vector<std::unique_ptr<KeyedEdit>> edits) : edits_(std::move(edits)) {}
  Status key_group(int32_t kg, std::vector<std::vector<RocksPair>>& by_state) override {
    for (auto& e : edits_) CKPT_RETURN_IF_ERROR(e->key_group(kg, by_state));
    return Status::OK();
  }
  std::vector<int32_t> added_key_groups() const override {
    std::set<int32_t> all;
    for (const auto& e : edits_)
      for (int32_t kg : e->added_key_groups()) all.insert(kg);
    return {all.begin(), all.end()};
  }

 private:
  std::vector<std::unique_ptr<KeyedEdit>> edits_;
};

}  // namespace

Status SnapshotEdits::subtasks(const std::vector<std::pair<const OperatorState*, const SubtaskState*>>& written,
                               int jobs) const {
  for (SnapshotEdit* e : edits_) CKPT_RETURN_IF_ERROR(e->subtasks(written, jobs));
  return Status::OK();
}

Status SnapshotEdits::prepare(const Metadata& in, const StreamOpener& streams, const std::string& out_dir) const {
  for (SnapshotEdit* e : edits_) e->output_directory(out_dir);
  for (SnapshotEdit* e : edits_) CKPT_RETURN_IF_ERROR(e->prepare(in, streams));
  return Status::OK();
}

Status SnapshotEdits::operators(Metadata& out) const {
  const OutputIds ids = [this](const OperatorId& id) { return output_id(id); };
  for (SnapshotEdit* e : edits_) CKPT_RETURN_IF_ERROR(e->operators(out, ids));
  return Status::OK();
}

OperatorId SnapshotEdits::output_id(const OperatorId& id) const {
  OperatorId out = id;
  for (const SnapshotEdit* e : edits_)
    if (std::optional<OperatorId> r = e->renamed(out)) out = *r;
  return out;
}

Result<std::optional<KeyedSource>> SnapshotEdits::keyed_source(const OperatorState& op, const SubtaskState& st) const {
  for (SnapshotEdit* e : edits_) {
    CKPT_ASSIGN_OR_RETURN(std::optional<KeyedSource> source, e->keyed_source(op, st));
    if (source) return source;
  }
  return std::optional<KeyedSource>();
}

Result<std::optional<RawKeyedStream>> SnapshotEdits::raw_keyed_source(const OperatorState& op,
                                                                      const SubtaskState& st) const {
  for (SnapshotEdit* e : edits_) {
    CKPT_ASSIGN_OR_RETURN(std::optional<RawKeyedStream> source, e->raw_keyed_source(op, st));
    if (source) return source;
  }
  return std::optional<RawKeyedStream>();
}

Result<std::unique_ptr<KeyedEdit>> SnapshotEdits::keyed(const OperatorState& op, int32_t subtask,
                                                        KeyedBackendMeta& meta) const {
  std::vector<std::unique_ptr<KeyedEdit>> chain;
  for (SnapshotEdit* e : edits_) {
    CKPT_ASSIGN_OR_RETURN(std::unique_ptr<KeyedEdit> edit, e->keyed(op, subtask, meta));
    if (edit) chain.push_back(std::move(edit));
  }
  if (chain.empty()) return std::unique_ptr<KeyedEdit>();
  if (chain.size() == 1) return std::move(chain.front());
  return std::unique_ptr<KeyedEdit>(new EditChain(std::move(chain)));
}

Status SnapshotEdits::operator_state(const OperatorState& op, int32_t subtask, OperatorHandle& h,
                                     std::string& bytes) const {
  for (SnapshotEdit* e : edits_) CKPT_RETURN_IF_ERROR(e->operator_state(op, subtask, h, bytes));
  return Status::OK();
}

Status SnapshotEdits::finish() const {
  for (SnapshotEdit* e : edits_) CKPT_RETURN_IF_ERROR(e->finish());
  return Status::OK();
}

std::vector<std::string> SnapshotEdits::found() const {
  std::vector<std::string> all;
  for (const SnapshotEdit* e : edits_) {
    std::vector<std::string> f = e->found();
    all.insert(all.end(), f.begin(), f.end());
  }
  return all;
}

Status SnapshotEdits::finish_parts(const std::set<std::string>& found) const {
  for (SnapshotEdit* e : edits_) CKPT_RETURN_IF_ERROR(e->finish_parts(found));
  return Status::OK();
}

}  // namespace ckpt
