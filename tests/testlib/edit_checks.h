// tests/testlib/edit_checks.h - what every `ckpt edit` output must be, checked against its input:
// it verifies --deep, it dumps to the input's entries minus (and re-labelled by) the change, and
// `diff --keys` reports that change and no other.
#pragma once

#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "ckpt/diff.h"
#include "ckpt/dump.h"

namespace ckpt::test {

struct ExpectedEdit {
  // Input entries the edit removes.
  std::function<bool(const Entry&)> removed = [](const Entry&) { return false; };
  // Input operator id -> output operator id (set-uid, set-id).
  std::map<std::string, std::string> new_ids;
  // Input uids that the output no longer stores, by input operator id ("" to drop the uid field).
  std::map<std::string, std::string> new_uids;
  // The structural changes diff must report, as "what operator state" strings.
  std::multiset<std::string> structure;
  // (operator, state) whose entries may differ in diff --keys (state "*": every state of the
  // operator); every other must be "same" only.
  std::set<std::pair<std::string, std::string>> changed_states;
};

// Every entry of `snapshot` as an NDJSON line (dump's own), as a multiset.
std::multiset<std::string> dump_set(const std::string& snapshot);

// The three checks of the file comment; `expected_removed` (if not null) gets how many input
// entries `removed` matched.
void check_edit(const std::string& in, const std::string& out, const ExpectedEdit& expected,
                size_t* expected_removed = nullptr);

}  // namespace ckpt::test
