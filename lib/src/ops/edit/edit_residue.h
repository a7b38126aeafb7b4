// ops/edit/edit_residue.h - where the keys `edit --delete-keys` erased still occur.
//
// Erasure removes the entries keyed by a key. The same person's data can remain elsewhere: as a
// map user key of a state keyed by something else, inside a value (a SQL row buffered by a rank
// or a sink), in operator state, or under the key itself in an operator left out of the
// erasure. A data-protection officer needs to see that, so every entry left is searched: a key
// (any spelling, ops/key_spelling.h) or one of its fields occurring as a whole node of an entry's
// key, map user key or decoded value is counted per operator, state, key and place.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "ckpt/edit.h"
#include "ckpt/entries.h"
#include "ops/key_spelling.h"

namespace ckpt {

struct ResidueSearch {
  std::string snapshot;  // what to search: the output, or for a dry run the input
  std::vector<PrefixRule> remap;
  int jobs = 1;
  std::vector<GivenKey> keys;
  std::vector<Value> given;  // parallel to keys: each key as EditOptions::delete_keys gave it
  // Entries the edit removes without writing (a dry run searches the input): skipped.
  std::function<bool(const Entry&)> removed;
  // The id an operator of `snapshot` has in the output.
  std::function<std::string(const std::string&)> output_id;
};

// Fills `summary->residues` and `summary->residue_gaps` (parts that could not be searched).
// Errors: the snapshot cannot be opened.
Status find_key_residues(const ResidueSearch& search, EditSummary* summary);

// The texts of what is looked for for one key: its spellings and their fields (not null).
std::vector<std::string> residue_needles(const GivenKey& key);

}  // namespace ckpt
