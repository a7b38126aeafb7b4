// ops/query/entry_scans.h - the reads behind one scan of a table of entries (`entries`, a
// state's table): EntryReaders opened one after the other, each over one snapshot and the
// selection the table's constraints allow.
#pragma once

#include <functional>
#include <memory>
#include <vector>

#include "ckpt/entries.h"
#include "ops/query/query_tables.h"

namespace ckpt::query_detail {

// What every read of a query shares: --remap, --jobs, the progress counters, entry bytes, and
// with keep_going a damaged part listed in the context and stepped over.
EntryReaderOptions entry_reader_options(QueryContext& ctx);

class EntryScans {
 public:
  struct Scan {
    size_t snapshot = 0;  // in the context's snapshots
    EntryReaderOptions options;
    size_t part = 0;  // the table's own: which of its parts this reads
  };

  explicit EntryScans(QueryContext& ctx) : ctx_(ctx) {}

  // Replaces the scans, closing what was open.
  void reset(std::vector<Scan> scans = {});
  // Until on an entry or past the last scan, opening each scan's reader in turn (`opened` sees
  // it). A reader that cannot open or an iteration that fails ends every scan; the error is the
  // context's failure and the result SQLITE_ERROR.
  int advance(sqlite3_vtab* table, const std::function<void(const EntryReader&)>& opened = {});
  bool on_entry() const { return it_ && it_->valid(); }
  const Entry& entry() const { return it_->entry(); }
  const Scan& scan() const { return scans_[next_ - 1]; }  // the current entry's
  void next() { it_->next(); }
  void close();

 private:
  QueryContext& ctx_;
  std::vector<Scan> scans_;
  size_t next_ = 0;
  std::unique_ptr<EntryReader> reader_;
  std::unique_ptr<EntryIterator> it_;  // reset before reader_, which it reads from
};

}  // namespace ckpt::query_detail
