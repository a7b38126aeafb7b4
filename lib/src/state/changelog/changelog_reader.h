// state/changelog/changelog_reader.h - keyed state of the changelog backend (formats/keyed-state.md §15).
//
// A ChangelogStateBackendHandle is a materialized part (any keyed layout) plus change logs
// to replay on top of it. The logical state is only known once every change is applied, so
// this reader, unlike the others, holds the subtask's state in memory: changelog snapshots
// are small by design (materialization truncates the log). One parser of the change records
// and one applier of them work on either of two stores: decoded entries for `ckpt dump`, or
// (make_raw) RocksDB-layout pairs with every value byte as the job wrote it for `ckpt convert`.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "ckpt/error.h"
#include "ckpt/metadata.h"
#include "state/backend_meta.h"
#include "state/changelog/changelog_file_reader.h"
#include "state/raw_keyed_reader.h"
#include "state/read_options.h"
#include "types/serializer_snapshot.h"
#include "state/state_entry.h"
#include "types/value_decoder.h"
#include "support/byte_reader.h"

namespace ckpt {

// The states the change logs register (their metadata changes; a state registered again keeps
// its first place and takes the last registration), as a backend proxy would list them. Change
// logs store no key serializer: `key_serializer` is the one a timer state's snapshot nests,
// else empty (no class). Logs in files (types 10, 13) are read through `streams`.
Result<KeyedBackendMeta> read_changelog_meta(const std::vector<KeyedHandle>& logs, const StreamOpener& streams = {});

class ChangelogState {
 public:
  ChangelogState();
  ~ChangelogState();

  // Byte-level mode, for conversion: the state is kept as RocksDB-layout pairs of `meta`'s
  // states (the materialized proxy's, then those the logs register; its key serializer, if
  // any, delimits logged keys). Changes needing the job's functions are refused.
  static Result<std::unique_ptr<ChangelogState>> make_raw(const KeyedBackendMeta& meta, int32_t max_parallelism);
  // Byte-level mode: receives the materialized part's pairs (states indexed as in `part`).
  KeyGroupPairsFn raw_collector(const KeyedBackendMeta& part);
  // Byte-level mode: the resulting pairs, key groups ascending, states indexed as in make_raw's
  // meta, each state's pairs sorted by key.
  Status emit_raw(const KeyGroupPairsFn& fn);

  // The key serializer of the materialized part's backend proxy. Change logs store none:
  // without it keys are decoded with the key serializer a timer state's snapshot nests, and
  // failing that shown as hex.
  void set_key_serializer(const SerializerSnapshot& key);
  // Receives the materialized part's entries.
  EntrySink collector();
  // Applies the non-materialized handles in order (in-memory change logs, type 9, and logs in
  // files, types 10 and 13, found through `streams`), as ChangelogBackendLogApplier does; data
  // changes of key groups outside `range` are ignored.
  Status replay(const std::vector<KeyedHandle>& logs, const KeyGroupRange& range, const StreamOpener& streams = {});
  // The resulting entries, key groups ascending.
  Status emit(const StateFilter& filter, const EntrySink& sink);

 private:
  struct LoggedState;
  struct KvChange;
  struct RawStore;

  static std::string identity(const StateEntry& e);
  Status apply(const LoggedChange& c, const KeyGroupRange& range);
  Status apply_metadata(ByteReader& r);
  Status parse_kv(const LoggedState& s, uint8_t op, ByteReader& r, KvChange& c) const;
  Status parse_kv_rest(const LoggedState& s, uint8_t op, ByteReader& r, KvChange& c) const;
  // The one applier of data changes, over the decoded entries (EntryStore) or the byte-level
  // pairs (PairStore).
  class EntryStore;
  class PairStore;
  template <class Store>
  static Status apply_change(Store& store, const LoggedState& s, uint8_t op, ByteReader& r, const KvChange& c);

  std::unique_ptr<ValueDecoder> key_;
  bool key_known_ = false;  // from the materialized part: timer snapshots are not consulted
  std::map<int16_t, std::unique_ptr<LoggedState>> states_;  // by the log's short state id
  std::map<std::string, StateEntry> entries_;  // identity -> entry, ordered for output
  std::unique_ptr<RawStore> raw_;               // byte-level mode only
};

}  // namespace ckpt
