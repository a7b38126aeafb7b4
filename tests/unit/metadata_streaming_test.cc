// Streaming decode: operators handed over one at a time are the ones decode_metadata() keeps,
// and a Flink 1.11 file makes the decoder start over.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "ckpt/metadata.h"
#include "format/metadata_streaming.h"

using namespace ckpt;

namespace {

// Records what the decoder hands over, in order ("op" per operator, "restart").
class RecordingSink : public OperatorSink {
 public:
  void operator_state(OperatorState& op, size_t index) override {
    events.push_back("op " + std::to_string(index));
    operators.push_back(op);
  }
  void restart() override {
    events.push_back("restart");
    operators.clear();
  }
  void decoded_through(size_t offset) override { through.push_back(offset); }
  std::vector<std::string> events;
  std::vector<size_t> through;
  std::vector<OperatorState> operators;
};

OperatorState operator_with_result_channel(uint8_t id, bool subtask_index) {
  OperatorState op;
  op.id.fill(id);
  op.parallelism = 1;
  op.max_parallelism = 128;
  SubtaskState st;
  ChannelHandle h;
  h.has_subtask_index = subtask_index;
  h.gate_or_partition = 0;
  h.channel_or_subpartition = 1;
  h.offsets = {0};
  h.size = 3;
  h.delegate.type = handle_type::kByteStream;
  h.delegate.name = "b";
  h.delegate.data = "xyz";
  st.result_subpartitions.push_back(h);
  op.subtasks.push_back(st);
  return op;
}

}  // namespace

TEST_CASE("streaming decode hands over exactly the operators decode_metadata keeps", "[unit][format]") {
  // Proves the sink sees every operator once, in file order, complete, and that the result keeps
  // everything but the operators.
  Metadata m;
  m.version = 3;
  m.checkpoint_id = 9;
  m.master_states.push_back(MasterState{1, "coordinator", "payload"});
  for (uint8_t i = 1; i <= 3; ++i) m.operators.push_back(operator_with_result_channel(i, true));
  auto bytes = encode_metadata(m);
  REQUIRE(bytes.ok());

  RecordingSink sink;
  auto head = decode_metadata_streaming(*bytes, "chk-9/_metadata", sink);
  REQUIRE(head.ok());
  CHECK(sink.events == std::vector<std::string>{"op 0", "op 1", "op 2"});
  CHECK(sink.operators == m.operators);
  CHECK(head->operators.empty());
  CHECK(head->checkpoint_id == 9);
  CHECK(head->master_states == m.master_states);
}

TEST_CASE("a Flink 1.11 file found out after operators were handed over makes the sink start over", "[unit][format]") {
  // Proves the restart: both operators decode in the 1.12 layout (the layouts are ambiguous, see
  // metadata_handbuilt_test) and are handed over before the bytes left after them fail it; the
  // decoder starts over in the 1.11 layout and hands both over again.
  Metadata m;
  m.version = 3;
  m.checkpoint_id = 2;
  OperatorState plain;
  plain.id.fill(0x50);
  plain.parallelism = plain.max_parallelism = 1;
  plain.subtasks.emplace_back();
  m.operators.push_back(plain);
  m.operators.push_back(operator_with_result_channel(0x60, false));
  auto bytes = encode_metadata(m);
  REQUIRE(bytes.ok());

  RecordingSink sink;
  auto head = decode_metadata_streaming(*bytes, "", sink);
  REQUIRE(head.ok());
  CHECK(sink.events == std::vector<std::string>{"op 0", "op 1", "restart", "op 0", "op 1"});
  auto whole = decode_metadata(*bytes);
  REQUIRE(whole.ok());
  CHECK(sink.operators == whole->operators);
  CHECK_FALSE(sink.operators.at(1).subtasks.at(0).result_subpartitions.at(0).has_subtask_index);
  CHECK(sink.through.empty());  // a version 3 file may start over: its bytes stay
}

TEST_CASE("streaming decode says after each operator which bytes it is done with", "[unit][format]") {
  // Proves what lets inspect give the file's pages back while decoding: after each operator of a
  // file that cannot start over (any version but 3, version 2 here) the decoder names an offset
  // past everything handed over, rising, never past the file; a version 3 file gets none (test
  // above).
  Metadata m;
  m.version = 2;
  m.checkpoint_id = 7;
  for (uint8_t i = 1; i <= 3; ++i) {
    OperatorState op;
    op.id.fill(i);
    op.parallelism = op.max_parallelism = 1;
    op.subtasks.emplace_back();
    m.operators.push_back(op);
  }
  auto bytes = encode_metadata(m);
  if (!bytes.ok()) FAIL(bytes.error().to_string());
  RecordingSink sink;
  REQUIRE(decode_metadata_streaming(*bytes, "", sink).ok());
  REQUIRE(sink.through.size() == 3);
  CHECK(sink.through[0] > 8);
  CHECK(sink.through[0] < sink.through[1]);
  CHECK(sink.through[1] < sink.through[2]);
  CHECK(sink.through[2] <= bytes->size());
  CHECK(sink.operators == m.operators);
}

TEST_CASE("streaming decode fails as decode_metadata does", "[unit][corrupt][format]") {
  // Proves errors are the same value, file named, for a file cut inside its second operator.
  Metadata m;
  m.version = 3;
  for (uint8_t i = 1; i <= 2; ++i) m.operators.push_back(operator_with_result_channel(i, true));
  auto bytes = encode_metadata(m);
  REQUIRE(bytes.ok());
  std::string cut = bytes->substr(0, bytes->size() - 5);
  RecordingSink sink;
  auto streamed = decode_metadata_streaming(cut, "chk-1/_metadata", sink);
  auto whole = decode_metadata(cut, "chk-1/_metadata");
  REQUIRE_FALSE(streamed.ok());
  REQUIRE_FALSE(whole.ok());
  CHECK(streamed.error().to_string() == whole.error().to_string());
  CHECK(streamed.error().file == "chk-1/_metadata");
}
