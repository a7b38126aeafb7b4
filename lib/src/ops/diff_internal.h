// ops/diff_internal.h - the parts of `ckpt diff` shared between its source files.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "ckpt/diff.h"
#include "ckpt/metadata.h"
#include "ckpt/resolve.h"

namespace ckpt {

// What the backend proxies say about one state: its kind and a serializer signature per role.
struct StateShape {
  std::string kind;                                   // state_kind_name()
  std::map<std::string, std::string> serializers;     // role -> "LongSerializer", "MapSerializer<..>"
};

// Per operator (32 hex digits): the states its subtasks' proxies name, by state name.
struct OperatorStates {
  std::map<std::string, StateShape> states;
  std::vector<std::string> notes;  // parts whose proxy could not be read
};
std::map<std::string, OperatorStates> collect_states(const Metadata& m, const SnapshotLocation& where,
                                                     const std::vector<PrefixRule>& remap);

// Appends the state additions, removals, kind and serializer changes of operators in both.
void diff_states(const std::map<std::string, OperatorStates>& a, const std::map<std::string, OperatorStates>& b,
                 DiffReport& report);

// The logical diff: fills report.keys and passes each differing entry to `changes`.
Status diff_keys(const std::string& a, const Metadata& ma, const std::string& b, const Metadata& mb,
                 const DiffOptions& options, DiffReport& report, KeyChangeSink* changes);

}  // namespace ckpt
