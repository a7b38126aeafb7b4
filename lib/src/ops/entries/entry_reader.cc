// EntryReader's iterator: the engine's subtasks read on worker threads, in order, as Entry
// values; and Value, the public form of a decoded field.
#include <cmath>
#include <exception>
#include <variant>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "ckpt/entries.h"
#include "ops/entries/entry_engine.h"
#include "state/ordered_channels.h"
#include "support/json_text.h"
#include "support/worker_threads.h"

namespace ckpt {

Value Value::boolean(bool b) { return with_field(Kind::kBool, &Value::bool_, b); }
Value Value::integer(int64_t i) { return with_field(Kind::kInt, &Value::int_, i); }
Value Value::unsigned_integer(uint64_t u) { return with_field(Kind::kUnsigned, &Value::unsigned_, u); }
Value Value::number(double d) { return with_field(Kind::kDouble, &Value::double_, d); }
Value Value::string(std::string s) { return with_field(Kind::kString, &Value::string_, std::move(s)); }
Value Value::array(std::vector<Value> elements) {
  return with_field(Kind::kArray, &Value::elements_, std::move(elements));
}
Value Value::object(std::vector<std::string> keys, std::vector<Value> values) {
  keys.resize(values.size());
  Value v = with_field(Kind::kObject, &Value::elements_, std::move(values));
  v.keys_ = std::move(keys);
  return v;
}

int64_t Value::as_int() const {
  switch (kind_) {
    case Kind::kInt: return int_;
    case Kind::kUnsigned: return static_cast<int64_t>(unsigned_);
    case Kind::kDouble:
      return std::isfinite(double_) && std::fabs(double_) < 9.2e18 ? static_cast<int64_t>(double_) : 0;
    default: return 0;
  }
}

uint64_t Value::as_unsigned() const {
  switch (kind_) {
    case Kind::kInt: return static_cast<uint64_t>(int_);
    case Kind::kUnsigned: return unsigned_;
    case Kind::kDouble:
      return std::isfinite(double_) && double_ >= 0 && double_ < 1.8e19 ? static_cast<uint64_t>(double_) : 0;
    default: return 0;
  }
}

double Value::as_double() const {
  switch (kind_) {
    case Kind::kInt: return static_cast<double>(int_);
    case Kind::kUnsigned: return static_cast<double>(unsigned_);
    case Kind::kDouble: return double_;
    default: return 0;
  }
}

const Value* Value::find(std::string_view key) const {
  for (size_t i = 0; i < keys_.size(); ++i)
    if (keys_[i] == key) return &elements_[i];
  return nullptr;
}

bool Value::operator==(const Value& o) const {
  return kind_ == o.kind_ && bool_ == o.bool_ && int_ == o.int_ && unsigned_ == o.unsigned_ &&
         (double_ == o.double_ || (std::isnan(double_) && std::isnan(o.double_))) && string_ == o.string_ &&
         keys_ == o.keys_ && elements_ == o.elements_;
}

// Decoded trees are as deep as the serializers' nesting, which the snapshot reader bounds.
Value value_of(nlohmann::json&& j) {
  switch (j.type()) {
    case nlohmann::json::value_t::null: return Value();
    case nlohmann::json::value_t::boolean: return Value::boolean(j.get<bool>());
    case nlohmann::json::value_t::number_integer: return Value::integer(j.get<int64_t>());
    case nlohmann::json::value_t::number_unsigned: return Value::unsigned_integer(j.get<uint64_t>());
    case nlohmann::json::value_t::number_float: return Value::number(j.get<double>());
    case nlohmann::json::value_t::string: return Value::string(std::move(j.get_ref<std::string&>()));
    case nlohmann::json::value_t::array: {
      std::vector<Value> elements;
      elements.reserve(j.size());
      for (auto& e : j) elements.push_back(value_of(std::move(e)));
      return Value::array(std::move(elements));
    }
    case nlohmann::json::value_t::object: {
      auto& members = j.get_ref<nlohmann::json::object_t&>();
      std::vector<std::string> keys;
      std::vector<Value> values;
      keys.reserve(members.size());
      values.reserve(members.size());
      for (auto& [k, e] : members) {
        keys.push_back(k);
        values.push_back(value_of(std::move(e)));
      }
      return Value::object(std::move(keys), std::move(values));
    }
    default: return Value::string(json_text(j));  // binary: never produced by the decoders
  }
}

namespace {

void append_value(std::string& out, const Value& v) {
  switch (v.kind()) {
    case Value::Kind::kNull: out += "null"; return;
    case Value::Kind::kBool: out += v.as_bool() ? "true" : "false"; return;
    case Value::Kind::kInt: append_json_integer(out, v.as_int()); return;
    case Value::Kind::kUnsigned: append_json_text(out, nlohmann::json(v.as_unsigned())); return;
    case Value::Kind::kDouble: append_json_text(out, nlohmann::json(v.as_double())); return;
    case Value::Kind::kString: append_json_string(out, v.as_string()); return;
    case Value::Kind::kArray:
    case Value::Kind::kObject: {
      const bool object = v.kind() == Value::Kind::kObject;
      out += object ? '{' : '[';
      for (size_t i = 0; i < v.size(); ++i) {
        if (i) out += ',';
        if (object) {
          append_json_string(out, v.keys()[i]);
          out += ':';
        }
        append_value(out, v.elements()[i]);
      }
      out += object ? '}' : ']';
      return;
    }
  }
}


Entry to_entry(StateEntry&& e, const EntryTask& t) {
  Entry out;
  out.operator_id = t.operator_hex;
  out.subtask = t.subtask->index;
  out.state = std::move(e.state);
  out.kind = e.kind;
  if (e.kind != EntryKind::kOperator) out.key_group = e.key_group;
  if (e.has_key) out.key = value_of(std::move(e.key));
  if (e.has_namespace) out.ns = value_of(std::move(e.ns));
  if (e.has_user_key) out.user_key = value_of(std::move(e.user_key));
  out.value = value_of(std::move(e.value));
  out.has_raw = e.has_raw;
  out.raw_key = std::move(e.raw_key);
  out.raw_namespace = std::move(e.raw_ns);
  out.raw_user_key = std::move(e.raw_user_key);
  out.raw_value = std::move(e.raw_value);
  return out;
}

constexpr size_t kChunkEntries = 256;  // entries handed over at once
constexpr size_t kChunksAhead = 4;     // chunks in memory per running subtask

using ChunkOrError = std::variant<std::vector<Entry>, Error>;
using Channels = OrderedChannels<ChunkOrError>;

// A worker's side: entries converted on the worker thread, handed over in chunks.
class ChunkOutput : public TaskOutput {
 public:
  ChunkOutput(const Channels::Push& push, const EntryTask& task) : push_(push), task_(task) {
    chunk_.reserve(kChunkEntries);  // entries are large: no moves of them as the chunk grows
  }
  bool add(StateEntry&& e) override {
    chunk_.push_back(to_entry(std::move(e), task_));
    return chunk_.size() < kChunkEntries || flush();
  }
  bool problem(Error&& e) override { return flush() && push_(ChunkOrError(std::move(e))); }
  bool flush() {
    if (chunk_.empty()) return true;
    std::vector<Entry> full = std::move(chunk_);
    chunk_.clear();
    chunk_.reserve(kChunkEntries);
    return push_(ChunkOrError(std::move(full)));
  }

 private:
  const Channels::Push& push_;
  const EntryTask& task_;
  std::vector<Entry> chunk_;
};

class ChannelIterator : public EntryIterator {
 public:
  explicit ChannelIterator(const EntryReader::Impl& impl) : impl_(impl), channels_(impl.tasks.size(), kChunksAhead) {
    reading_.filter = impl.filter;
    reading_.filter.raw_bytes = impl.options.raw_bytes;
    reading_.keep_going = static_cast<bool>(impl.options.on_problem);
    channels_.start(impl.options.jobs, [this](size_t i, const Channels::Push& push) {
      ChunkOutput out(push, impl_.tasks[i]);
      impl_.read_task(impl_.tasks[i], reading_, out);
      out.flush();
    });
    advance();
  }
  ~ChannelIterator() override { channels_.stop_and_join(); }

  bool valid() const override { return index_ < chunk_.size(); }
  const Entry& entry() const override { return chunk_[index_]; }
  void next() override {
    ++index_;
    advance();
  }
  const Status& status() const override { return status_; }

 private:
  // Until index_ names an entry: the next chunk of this task, else of the next tasks.
  void advance() {
    while (index_ >= chunk_.size()) {
      chunk_.clear();
      index_ = 0;
      if (!status_.ok() || task_ >= impl_.tasks.size()) return;
      ChunkOrError item;
      if (!channels_.pop(task_, &item)) {
        if (std::exception_ptr thrown = channels_.thrown(task_)) {
          const EntryTask& t = impl_.tasks[task_];
          problem(internal_error(thrown).with_file(impl_.where.metadata_path).with_context(
              fmt::format("operator {}, subtask {}", t.operator_hex, t.subtask->index)));
        }
        ++task_;
        continue;
      }
      if (auto* e = std::get_if<Error>(&item)) {
        problem(std::move(*e));
        continue;
      }
      chunk_ = std::move(std::get<std::vector<Entry>>(item));
    }
  }
  void problem(Error&& e) {
    if (impl_.options.on_problem) impl_.options.on_problem(e);
    else status_ = std::move(e);
  }

  const EntryReader::Impl& impl_;
  TaskReading reading_;
  Channels channels_;
  size_t task_ = 0;
  std::vector<Entry> chunk_;
  size_t index_ = 0;
  Status status_ = Status::OK();
};

}  // namespace

std::string Value::json() const {
  std::string out;
  append_value(out, *this);
  return out;
}

uint64_t entry_bytes(const Entry& e) {
  if (e.has_raw) return e.raw_key.size() + e.raw_namespace.size() + e.raw_user_key.size() + e.raw_value.size();
  uint64_t n = e.value.json().size();
  if (e.key) n += e.key->json().size();
  if (e.ns) n += e.ns->json().size();
  if (e.user_key) n += e.user_key->json().size();
  return n;
}

EntryIterator::~EntryIterator() = default;

std::unique_ptr<EntryIterator> EntryReader::entries() const { return std::make_unique<ChannelIterator>(*impl_); }

Status EntryReader::for_each(const std::function<Status(const Entry&)>& visit) const {
  std::unique_ptr<EntryIterator> it = entries();
  for (; it->valid(); it->next()) CKPT_RETURN_IF_ERROR(visit(it->entry()));
  return it->status();
}

}  // namespace ckpt
