// Bytes of state behind a subtask's handles (format/state_bytes.h).
#include "format/state_bytes.h"

#include "ckpt/walk.h"

namespace ckpt {

uint64_t subtask_state_bytes(const SubtaskState& st, bool operator_state) {
  uint64_t total = 0;
  auto add = [&total](const StreamHandle& s, StreamRole, const std::string*) {
    if (s.size > 0) total += static_cast<uint64_t>(s.size);
  };
  if (operator_state) {
    for (const OperatorHandle& h : st.managed_operator) visit_streams(h, add);
    for (const OperatorHandle& h : st.raw_operator) visit_streams(h, add);
  }
  visit_streams(st.managed_keyed, add);
  visit_streams(st.raw_keyed, add);
  return total;
}

}  // namespace ckpt
