// StateOrderedChanges: an operator's differing entries, found key group by key group across its
// states, handed on state by state as `ckpt diff` documents them.
#include <algorithm>
#include <cstring>

#include "ops/diff/diff_internal.h"

namespace ckpt {

namespace {

// A waiting change as a record of a spill file of our own (never input): each field its
// length (8 bytes, host order) and bytes, absent optionals a length of all ones.
constexpr uint64_t kAbsent = UINT64_MAX;
constexpr size_t kChangeSpillBuffer = 1 << 20;

void put_field(std::string& out, const std::string* s) {
  uint64_t n = s ? s->size() : kAbsent;
  out.append(reinterpret_cast<const char*>(&n), sizeof n);
  if (s) out += *s;
}

void put_number(std::string& out, uint64_t n) { out.append(reinterpret_cast<const char*>(&n), sizeof n); }

// A Value as a tree of records: its kind, then its payload (a number, the bytes of a string,
// or the count of elements, each member's name and value in turn).
void put_value(std::string& out, const Value& v) {
  out += static_cast<char>(v.kind());
  switch (v.kind()) {
    case Value::Kind::kNull: return;
    case Value::Kind::kBool: out += v.as_bool() ? '1' : '0'; return;
    case Value::Kind::kInt: put_number(out, static_cast<uint64_t>(v.as_int())); return;
    case Value::Kind::kUnsigned: put_number(out, v.as_unsigned()); return;
    case Value::Kind::kDouble: {
      double d = v.as_double();
      uint64_t bits = 0;
      std::memcpy(&bits, &d, sizeof bits);
      put_number(out, bits);
      return;
    }
    case Value::Kind::kString: put_field(out, &v.as_string()); return;
    case Value::Kind::kBytes: put_field(out, &v.as_bytes()); return;
    case Value::Kind::kArray:
    case Value::Kind::kObject:
      put_number(out, v.size());
      for (size_t i = 0; i < v.size(); ++i) {
        if (v.kind() == Value::Kind::kObject) put_field(out, &v.keys()[i]);
        put_value(out, v.elements()[i]);
      }
      return;
  }
}

void put_optional_value(std::string& out, const std::optional<Value>& v) {
  out += v ? '1' : '0';
  if (v) put_value(out, *v);
}

void put_entry(std::string& out, const std::optional<Entry>& e) {
  out += e ? '1' : '0';
  if (!e) return;
  put_field(out, &e->operator_id);
  put_number(out, static_cast<uint32_t>(e->subtask));
  put_field(out, &e->state);
  out += static_cast<char>(e->kind);
  put_number(out, e->key_group ? static_cast<uint32_t>(*e->key_group) : kAbsent);
  put_optional_value(out, e->key);
  put_optional_value(out, e->ns);
  put_optional_value(out, e->user_key);
  put_value(out, e->value);
  out += e->has_raw ? '1' : '0';
  for (const std::string* raw : {&e->raw_key, &e->raw_namespace, &e->raw_user_key, &e->raw_value}) put_field(out, raw);
}

// Reads back what put_* wrote; a record that does not parse (the spill file is ours, so never)
// sets ok() false instead of reading past its end.
class RecordReader {
 public:
  explicit RecordReader(std::string_view bytes) : bytes_(bytes) {}
  std::optional<std::string> field() {
    uint64_t n = number();
    if (!ok_ || n == kAbsent) return std::nullopt;
    if (n > bytes_.size()) return fail();
    std::string s(bytes_.substr(0, n));
    bytes_.remove_prefix(n);
    return s;
  }
  uint64_t number() {
    uint64_t n = 0;
    if (!ok_ || bytes_.size() < sizeof n) {
      fail();
      return 0;
    }
    std::memcpy(&n, bytes_.data(), sizeof n);
    bytes_.remove_prefix(sizeof n);
    return n;
  }
  char byte() {
    if (!ok_ || bytes_.empty()) {
      fail();
      return 0;
    }
    char c = bytes_.front();
    bytes_.remove_prefix(1);
    return c;
  }
  Value value(int depth = 0) {
    if (depth > kMaxDepth) {
      fail();
      return Value();
    }
    const auto kind = static_cast<Value::Kind>(byte());
    switch (kind) {
      case Value::Kind::kNull: return Value();
      case Value::Kind::kBool: return Value::boolean(byte() == '1');
      case Value::Kind::kInt: return Value::integer(static_cast<int64_t>(number()));
      case Value::Kind::kUnsigned: return Value::unsigned_integer(number());
      case Value::Kind::kDouble: {
        uint64_t bits = number();
        double d = 0;
        std::memcpy(&d, &bits, sizeof d);
        return Value::number(d);
      }
      case Value::Kind::kString: return Value::string(field().value_or(""));
      case Value::Kind::kBytes: return Value::bytes(field().value_or(""));
      case Value::Kind::kArray:
      case Value::Kind::kObject: {
        const bool object = kind == Value::Kind::kObject;
        const uint64_t n = number();
        if (n > bytes_.size()) {  // every element takes a byte at least
          fail();
          return Value();
        }
        std::vector<std::string> keys;
        std::vector<Value> elements;
        for (uint64_t i = 0; i < n && ok_; ++i) {
          if (object) keys.push_back(field().value_or(""));
          elements.push_back(value(depth + 1));
        }
        return object ? Value::object(std::move(keys), std::move(elements)) : Value::array(std::move(elements));
      }
    }
    fail();
    return Value();
  }
  std::optional<Value> optional_value() {
    if (byte() != '1') return std::nullopt;
    return value();
  }
  std::optional<Entry> entry() {
    if (byte() != '1') return std::nullopt;
    Entry e;
    e.operator_id = field().value_or("");
    e.subtask = static_cast<int32_t>(number());
    e.state = field().value_or("");
    e.kind = static_cast<EntryKind>(byte());
    if (uint64_t kg = number(); kg != kAbsent) e.key_group = static_cast<int32_t>(kg);
    e.key = optional_value();
    e.ns = optional_value();
    e.user_key = optional_value();
    e.value = value();
    e.has_raw = byte() == '1';
    for (std::string* raw : {&e.raw_key, &e.raw_namespace, &e.raw_user_key, &e.raw_value}) *raw = field().value_or("");
    return e;
  }
  bool ok() const { return ok_ && bytes_.empty(); }

 private:
  static constexpr int kMaxDepth = 512;
  std::nullopt_t fail() {
    ok_ = false;
    return std::nullopt;
  }
  std::string_view bytes_;
  bool ok_ = true;
};

}  // namespace

StateOrderedChanges::StateOrderedChanges(KeyChangeSink* out, std::vector<std::string> named)
    : out_(out), named_(std::move(named)) {
  if (!named_.empty()) first_ = named_.front();
}

void StateOrderedChanges::change(const KeyChange& c) {
  const std::string& state = (c.before ? *c.before : *c.after).state;
  if (first_ && state == *first_) {
    out_->change(c);
    return;
  }
  if (!status_.ok()) return;
  std::unique_ptr<SpillFile>& file = waiting_[state];
  if (!file) {
    Result<std::unique_ptr<SpillFile>> made = SpillFile::create(kChangeSpillBuffer);
    if (!made.ok()) {
      status_ = std::move(made).error().with_context("holding back the changes of a state");
      return;
    }
    file = std::move(made).value();
  }
  record_.clear();
  put_field(record_, &c.what);
  put_field(record_, &c.uid);
  put_entry(record_, c.before);
  put_entry(record_, c.after);
  const uint64_t n = record_.size();
  status_ = file->append(std::string_view(reinterpret_cast<const char*>(&n), sizeof n), record_);
}

Status StateOrderedChanges::finish() {
  CKPT_RETURN_IF_ERROR(status_);
  // The proxies' states in their order, then those no proxy names (by name).
  std::vector<std::string> order;
  for (const std::string& s : named_)
    if (waiting_.count(s)) order.push_back(s);
  for (const auto& [s, file] : waiting_)
    if (std::find(named_.begin(), named_.end(), s) == named_.end()) order.push_back(s);
  for (const std::string& s : order) {
    SpillFile& file = *waiting_[s];
    uint64_t read = 0;
    while (read < file.written()) {
      uint64_t n = 0;
      CKPT_RETURN_IF_ERROR(file.read(sizeof n, reinterpret_cast<char*>(&n)));
      if (n > file.written() - read) return Error(ErrorCode::kIOError, "held-back change larger than its file");
      record_.resize(n);
      CKPT_RETURN_IF_ERROR(file.read(n, record_.data()));
      read += sizeof n + n;
      RecordReader r(record_);
      KeyChange c;
      c.what = r.field().value_or("");
      c.uid = r.field().value_or("");
      c.before = r.entry();
      c.after = r.entry();
      if (!r.ok()) return Error(ErrorCode::kIOError, "held-back change does not read back");
      out_->change(c);
    }
  }
  waiting_.clear();
  return Status::OK();
}

}  // namespace ckpt
