// ckpt/load.h - write a savepoint from state entries: the writing half of `ckpt dump`.
//
// load_snapshot() reads NDJSON entries in the vocabulary `ckpt dump` prints (operator, state,
// kind, key, namespace, user_key, value, subtask for operator state) and writes a savepoint
// shaped like a template snapshot: its operators, parallelism, key-group ranges, states and
// serializers. Each value is encoded as the state's Flink serializer writes it (ValueDecoder's
// encode, the inverse of what dump decodes); values dump could only show as {"hex":..} are
// written back from those bytes. Each keyed entry goes to the key group Flink assigns its key
// (murmur of the key's Java hashCode, from the encoded bytes where the type hashes bytes) and
// so to the subtask whose range holds it. Entries are spilled to temporary files and read back
// key group by key group (ops/key_group_spill.h): memory is bounded by a run and one key group.
//
// The property that proves it: `ckpt dump S | ckpt load --like S` writes T whose dump equals
// S's, and, where the layout's bytes are deterministic (heap and canonical key-group streams,
// operator state), whose files hold the same bytes as S's.
//
// With a spec instead of a template (a bootstrap), keyed state is written in the layout `to`
// says (default heap); the spec's errors name its member and what was expected.
//
// The template's raw operator state and unaligned-checkpoint channel state, which dump does not
// show, are not carried over. Its raw keyed state's legacy timers are written from the timer
// lines of their services (raw keyed state other than timers is refused).
#pragma once

#include <cstdint>
#include <istream>
#include <optional>
#include <string>
#include <vector>

#include "ckpt/convert.h"
#include "ckpt/error.h"
#include "ckpt/export.h"
#include "ckpt/progress.h"
#include "ckpt/resolve.h"

namespace ckpt {

struct CKPT_API LoadOptions {
  std::string like;    // the template snapshot
  // Or, with `like` empty, a spec (formats/load-spec.md): its text and a name for errors. The
  // template is then the snapshot of the spec's job before any record, written to a temporary
  // directory (TMPDIR) and removed after.
  std::string spec_text;
  std::string spec_name;
  std::string output;  // must not exist, or be an empty directory (unless `force`)
  bool force = false;
  // The layout keyed state is written in; unset: each template subtask's own.
  std::optional<ConvertTarget> to;
  std::vector<PrefixRule> remap;  // for the template's files
  Progress* progress = nullptr;
  // Spilled pairs read back into memory before a run is sorted and spilled again (0: 64 MiB).
  size_t run_bytes = 0;
  // Threads encoding lines (the lines' order is kept) and writing subtasks at once.
  int jobs = 1;
};

struct CKPT_API LoadSummary {
  ConvertSummary written;
  uint64_t lines = 0;             // entries read (blank lines not counted)
  uint64_t keyed = 0;             // keyed entries (a whole list, a map's user key, a value)
  uint64_t timers = 0;
  uint64_t operator_entries = 0;  // list elements and broadcast entries
};

// `input_name` names the input in errors ("-" for standard input). Errors: a line that is not
// a JSON object, a member of the wrong type, a value its serializer cannot hold, an operator or
// state the template lacks (kInvalidArgument, the message starting "<input>:<line>: <member>:"
// and saying what was expected); anything rewriting the template refuses. Nothing is left at
// `options.output` then.
CKPT_API Result<LoadSummary> load_snapshot(std::istream& in, const std::string& input_name, const LoadOptions& options);

}  // namespace ckpt
