// Changelog backend: materialized entries plus replayed in-memory change logs.
#include "state/changelog_reader.h"

#include <fmt/format.h>

namespace ckpt {

std::string ChangelogState::identity(const StateEntry& e) {
  // Key group first (zero-padded) so that the map's order is the dump order.
  return fmt::format("{:010d}\x1f{}\x1f{}\x1f{}\x1f{}\x1f{}", e.key_group, e.state, static_cast<int>(e.kind),
                     e.key.dump(), e.ns.dump(), e.has_user_key ? e.user_key.dump() : std::string());
}

EntrySink ChangelogState::collector() {
  return [this](StateEntry&& e) -> Status {
    std::string id = identity(e);
    entries_[std::move(id)] = std::move(e);
    return Status::OK();
  };
}

Status ChangelogState::replay(const KeyedHandle& changes, int32_t max_parallelism) {
  if (changes.type != handle_type::kInMemoryChangelog)
    return Error(ErrorCode::kNotSupported,
                 fmt::format("change logs in files (handle type {:#04x}) cannot be dumped yet", changes.type));
  if (changes.changes.empty()) return Status::OK();
  return Error(ErrorCode::kNotSupported, "replaying in-memory change logs is not implemented yet");
}

Status ChangelogState::emit(const StateFilter& filter, const EntrySink& sink) {
  for (auto& [id, e] : entries_) {
    if (!filter.wants_state(e.state) || !filter.wants_key_group(e.key_group)) continue;
    CKPT_RETURN_IF_ERROR(sink(std::move(e)));
  }
  entries_.clear();
  return Status::OK();
}

}  // namespace ckpt
