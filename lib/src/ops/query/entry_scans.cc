// The scans of a table of entries (entry_scans.h).
#include "ops/query/entry_scans.h"

namespace ckpt::query_detail {

EntryReaderOptions entry_reader_options(QueryContext& ctx) {
  EntryReaderOptions o;
  o.remap = ctx.options.remap;
  o.jobs = ctx.options.jobs;
  o.progress = ctx.options.progress;
  o.raw_bytes = true;  // entry_bytes
  // A table read in several scans (or twice by one statement) meets the same damage again:
  // reported once.
  if (ctx.options.keep_going)
    o.on_problem = [&ctx](const Error& e) {
      const std::string text = e.to_string();
      for (const Error& seen : ctx.problems)
        if (seen.to_string() == text) return;
      ctx.problems.push_back(e);
    };
  return o;
}

void EntryScans::reset(std::vector<Scan> scans) {
  close();
  scans_ = std::move(scans);
  next_ = 0;
}

void EntryScans::close() {
  it_.reset();
  reader_.reset();
}

int EntryScans::advance(sqlite3_vtab* table, const std::function<void(const EntryReader&)>& opened) {
  while (!it_ || !it_->valid()) {
    if (it_ && !it_->status().ok()) {
      Error e = it_->status().error();
      close();
      next_ = scans_.size();
      return ctx_.fail(table, std::move(e));
    }
    close();
    if (next_ >= scans_.size()) return SQLITE_OK;
    const Scan& scan = scans_[next_++];
    const Result<std::shared_ptr<OpenedSnapshot>>& snapshot = ctx_.opened(scan.snapshot);
    if (!snapshot.ok()) {
      next_ = scans_.size();
      return ctx_.fail(table, snapshot.error());
    }
    Result<std::unique_ptr<EntryReader>> reader = EntryReaderAccess::open(*snapshot, scan.options);
    if (!reader.ok()) {
      next_ = scans_.size();
      return ctx_.fail(table, std::move(reader).error());
    }
    reader_ = std::move(*reader);
    if (opened) opened(*reader_);
    it_ = reader_->entries();
  }
  return SQLITE_OK;
}

}  // namespace ckpt::query_detail
