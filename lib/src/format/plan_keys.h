// format/plan_keys.h - the columns a compiled SQL plan's stateful nodes key their state by.
//
// Flink's planner keys a node's state by columns of its input that the plan names: a group
// aggregate by its "grouping", a join by its "joinSpec" keys, a rank by its "partition", and
// so on. The plan also gives every node's output row type, with the columns' names, so the
// names of a key row's fields follow from the plan alone.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace ckpt {

// Per plan node id, the names of its key row's fields in order, for the nodes whose key the
// plan fixes (as ckpt-dump(1) says under --plan). Nodes whose key columns cannot be named (an index
// outside the input's row type, an input type that is not a row, two key columns of one name)
// are left out: a key is named only when every field has a name of its own.
std::map<int32_t, std::vector<std::string>> plan_key_columns(const nlohmann::json& plan);

// The field names of a row type as a compiled plan writes it: a string ("ROW<`a` INT, `b`
// VARCHAR(10)>", names in backquotes, `` for a backquote inside one) or an object with "fields"
// of {"name": ..}. Empty if `type` is neither.
std::vector<std::string> plan_row_field_names(const nlohmann::json& type);

}  // namespace ckpt
