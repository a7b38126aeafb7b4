// The chunks a dump's workers render entries into, and the iterator that pulls them in order.
#include "ops/entries/dump_entries.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "ops/engine/key_names.h"
#include "ops/entries/dump_tuning.h"
#include "ops/entries/ndjson_line.h"
#include "support/json_text.h"
#include "support/spill_file.h"

namespace ckpt {

DumpTuning& dump_tuning() {
  static DumpTuning tuning;
  return tuning;
}

namespace {

// A worker's side of the handoff: renders entries into the current chunk and pushes full
// chunks; a problem first pushes the entries before it, so the order holds.
class ChunkWriter : public TaskOutput {
 public:
  // Entries travel to the printer in chunks, so that it wakes once per chunk, not per entry.
  ChunkWriter(const OrderedChannels<DumpItem>::Push& push, const EntryTask& task)
      : push_(push),
        chunk_bytes_(dump_tuning().chunk_bytes),
        task_(task) {}

  // False once the run is stopped (limit reached, another subtask failed).
  bool add(StateEntry&& e) override {
    if (task_.key_columns && e.has_key) name_key(e);
    render(e);
    ++chunk_.count;
    if (chunk_.text.size() >= chunk_bytes_) return flush();
    return true;
  }
  bool problem(Error&& e) override { return flush() && push_(DumpItem(std::move(e))); }
  bool flush() {
    if (chunk_.count == 0) return true;
    DumpChunk full = std::move(chunk_);
    chunk_ = DumpChunk();
    chunk_.text.reserve(chunk_bytes_ + chunk_bytes_ / 8);
    return push_(DumpItem(std::move(full)));
  }

 private:
  // The key's fields named after the plan's columns; an entry decoded as trees becomes text.
  void name_key(StateEntry& e) const {
    if (!e.is_text) {
      auto to_text = [](const nlohmann::json& tree, std::string& text) {
        text.clear();
        append_json_text(text, tree);
      };
      to_text(e.key, e.key_text);
      if (e.has_namespace) to_text(e.ns, e.ns_text);
      if (e.has_user_key) to_text(e.user_key, e.user_key_text);
      to_text(e.value, e.value_text);
      e.is_text = true;
    }
    e.key_text = name_row_fields(e.key_text, *task_.key_columns);
  }

  void render(const StateEntry& e) {
    if (e.state != head_state_ || head_.empty()) {
      head_state_ = e.state;
      head_ = ndjson_line_head(task_.operator_hex, task_.uid, task_.subtask->index, e.state);
    }
    std::string& out = chunk_.text;
    out += head_;
    const int32_t* key_group = e.kind != EntryKind::kOperator ? &e.key_group : nullptr;
    if (e.is_text) {
      append_ndjson_tail(out, entry_kind_name(e.kind), key_group, e.has_key ? &e.key_text : nullptr,
                         e.has_namespace ? &e.ns_text : nullptr, e.has_user_key ? &e.user_key_text : nullptr,
                         e.value_text, [](std::string& o, const std::string& json) { o += json; });
    } else {
      append_ndjson_tail(out, entry_kind_name(e.kind), key_group, e.has_key ? &e.key : nullptr,
                         e.has_namespace ? &e.ns : nullptr, e.has_user_key ? &e.user_key : nullptr, e.value,
                         [](std::string& o, const nlohmann::json& j) { append_json_text(o, j); });
    }
    out += '\n';
  }

  const OrderedChannels<DumpItem>::Push& push_;
  const size_t chunk_bytes_;
  const EntryTask& task_;
  DumpChunk chunk_;
  std::string head_state_;
  std::string head_;  // ndjson_line_head() of head_state_
};

// A subtask's text chunks that are ready before the printer gets to it: each record is the
// chunk's size and entry count, then its text. Errors are never spilled (the worker waits for
// room instead), so the printer's limit counting sees the same chunks.
class ChunkSpill : public OrderedChannels<DumpItem>::Overflow {
 public:
  explicit ChunkSpill(std::unique_ptr<SpillFile> file) : file_(std::move(file)) {}

  // A spill file in $TMPDIR, or null (counted) when none can be created.
  static std::unique_ptr<OrderedChannels<DumpItem>::Overflow> make() {
    auto file = SpillFile::create();
    if (!file.ok()) {
      ++dump_tuning().spill_failures;
      return nullptr;
    }
    return std::make_unique<ChunkSpill>(std::move(file).value());
  }

  bool write(DumpItem& item) override {
    auto* c = std::get_if<DumpChunk>(&item);
    if (!c) return false;
    uint64_t header[2] = {c->text.size(), c->count};
    if (!file_->append(std::string_view(reinterpret_cast<const char*>(header), sizeof header), c->text).ok()) {
      ++dump_tuning().spill_failures;
      return false;
    }
    ++dump_tuning().spilled_chunks;
    return true;
  }

  void read(DumpItem* out) override {
    uint64_t header[2] = {0, 0};
    Status s = file_->read(sizeof header, reinterpret_cast<char*>(header));
    DumpChunk c;
    // The header is our own, but a chunk is never larger than what the file still holds.
    if (s.ok() && header[0] > file_->written()) s = Error(ErrorCode::kCorruption, "spilled chunk larger than its file");
    if (s.ok()) {
      c.text.resize(header[0]);
      c.count = header[1];
      s = file_->read(c.text.size(), c.text.data());
    }
    if (!s.ok()) {
      *out = DumpItem(std::move(s).error().with_context("reading back spilled output"));
      return;
    }
    *out = DumpItem(std::move(c));
  }

 private:
  std::unique_ptr<SpillFile> file_;
};

}  // namespace

void run_dump_task(const EntryReaderImpl& entries, const TaskReading& reading, const EntryTask& t,
                   const OrderedChannels<DumpItem>::Push& push) {
  ChunkWriter out(push, t);
  entries.read_task(t, reading, out);
  out.flush();
}

std::unique_ptr<OrderedChannels<DumpItem>::Overflow> make_dump_chunk_spill() { return ChunkSpill::make(); }

}  // namespace ckpt
