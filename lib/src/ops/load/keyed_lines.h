// ops/load/keyed_lines.h - dump's NDJSON keyed entries encoded against a snapshot, for edits
// that write single entries (`ckpt edit --upsert`) rather than whole savepoints.
//
// The lines are read exactly as `ckpt load` reads them (the same parser, the same encoders, the
// same key-group assignment); only where the encoded pairs go differs: here they are handed
// back, in the RocksDB layout every rewrite works in, for the rewrite to merge into the pairs it
// copies.
#pragma once

#include <cstdint>
#include <istream>
#include <string>
#include <vector>

#include "ckpt/error.h"
#include "ckpt/metadata.h"
#include "state/stream_opener.h"

namespace ckpt {

struct EncodedKeyedEntry {
  std::string operator_hex;
  std::string state;
  int32_t key_group = 0;
  std::string key;    // the RocksDB key: key-group prefix, key, namespace, user key (a timer: its element)
  std::string value;  // the RocksDB value (a list: its elements joined as RocksDB joins them)
};

// One operator-state line: a list state's element or a broadcast state's entry of a subtask.
struct EncodedOperatorEntry {
  std::string operator_hex;
  int32_t subtask = 0;
  std::string state;
  bool broadcast = false;
  std::string key;    // a broadcast entry's key, as its key serializer writes it
  std::string value;  // the element, or the broadcast entry's value
};

// Every line of `in` (blank lines skipped) against the keyed states of `snapshot`'s operators,
// and, with `operator_entries`, its operator states (without: operator-state lines are
// refused, kNotSupported, naming the line). Errors as load_snapshot()'s: kInvalidArgument
// starting "<input_name>:<line>: <member>:" and saying what was expected.
Result<std::vector<EncodedKeyedEntry>> encode_keyed_lines(std::istream& in, const std::string& input_name,
                                                          const Metadata& snapshot, const StreamOpener& streams,
                                                          std::vector<EncodedOperatorEntry>* operator_entries = nullptr);

}  // namespace ckpt
