// state/operator_state_cut.h - states taken out of an operator-state stream (formats/keyed-state.md §14).
//
// The stream is the operator proxy followed by each state's elements; the handle records where
// each element starts, and an element ends where the next recorded offset begins (or the
// stream does). Cutting a state rewrites the proxy without its meta data, removes its elements'
// bytes and moves every other offset by what was removed before it: the kept elements' bytes
// (compressed or not) are copied as they are.
#pragma once

#include <cstdint>
#include <set>
#include <string>

#include "ckpt/error.h"
#include "ckpt/metadata.h"

namespace ckpt {

// Removes the states named in `names` from `h` and from `bytes` (the bytes of h's stream).
// Returns the number of element offsets removed (a broadcast state records one). Errors
// (kCorruption, offsets counted in `bytes`): an offset outside the stream or inside the proxy,
// a proxy that does not decode; kNotSupported: a kept element that starts where a cut one does.
Result<uint64_t> cut_operator_states(OperatorHandle& h, std::string& bytes, const std::set<std::string>& names);

}  // namespace ckpt
