// state/operator_state_reader.h - operator state of one subtask (list, union, broadcast; formats/keyed-state.md §14).
//
// The stream starts with the operator proxy (state names and serializers); the handle holds,
// per state, offsets into the stream: one per list element, or one for a broadcast state's
// map. Elements carry no length, but each ends where the next recorded offset begins, so an
// element that needs the job's classes is still shown (as hex) and the dump goes on.
#pragma once

#include <string>

#include "ckpt/error.h"
#include "ckpt/metadata.h"
#include "state/read_options.h"
#include "state/state_entry.h"
#include "state/stream_opener.h"

namespace ckpt {

Status read_operator_handle(const OperatorHandle& handle, const StreamOpener& streams, const StateFilter& filter,
                            const EntrySink& sink, const ProblemSink& problems);

}  // namespace ckpt
