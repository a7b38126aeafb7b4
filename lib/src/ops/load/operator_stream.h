// ops/load/operator_stream.h - an operator-state stream written from elements (formats/keyed-state.md §14).
//
// Flink's DefaultOperatorStateBackendSnapshotStrategy writes the proxy, then each list or union
// state's elements (the handle records where each one starts), then each broadcast state as an
// i32 count and its key / value pairs (one offset). The template's stream gives the proxy (kept
// as it is: the same states and serializers) and the order the states' data came in.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "ckpt/error.h"
#include "ckpt/metadata.h"
#include "state/backend_meta.h"

namespace ckpt {

// One state's data: a list state's elements, or a broadcast state's (key, value) pairs, each as
// its serializers write it.
struct OperatorStateData {
  std::vector<std::string> elements;
  std::vector<std::pair<std::string, std::string>> entries;
};

// The proxy at the head of `bytes`, the stream of `h` (it ends where the first element starts).
Result<OperatorBackendMeta> operator_stream_proxy(const OperatorHandle& h, std::string_view bytes);

// `bytes` (the template's stream of `h`) rewritten to hold `data` by state name instead of its
// elements, `h`'s offsets moved to match; compressed as the template's proxy says. States
// `data` lacks are written empty. Errors: kInvalidArgument for a state `h` does not name.
Status write_operator_stream(OperatorHandle& h, std::string& bytes, const std::map<std::string, OperatorStateData>& data);

}  // namespace ckpt
