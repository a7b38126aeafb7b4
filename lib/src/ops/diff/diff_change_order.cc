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

void put_entry(std::string& out, const std::optional<DumpEntry>& e) {
  const std::string present = e ? "1" : "0";
  put_field(out, &present);
  if (!e) return;
  const std::string subtask = std::to_string(e->subtask);
  const std::string key_group = e->key_group ? std::to_string(*e->key_group) : std::string();
  put_field(out, &e->operator_id);
  put_field(out, e->uid ? &*e->uid : nullptr);
  put_field(out, &subtask);
  put_field(out, &e->state);
  put_field(out, &e->kind);
  put_field(out, e->key_group ? &key_group : nullptr);
  put_field(out, e->key ? &*e->key : nullptr);
  put_field(out, e->namespace_json ? &*e->namespace_json : nullptr);
  put_field(out, e->user_key ? &*e->user_key : nullptr);
  put_field(out, &e->value);
}

class RecordReader {
 public:
  explicit RecordReader(std::string_view bytes) : bytes_(bytes) {}
  std::optional<std::string> field() {
    uint64_t n = 0;
    if (!ok_ || bytes_.size() < sizeof n) return fail();
    std::memcpy(&n, bytes_.data(), sizeof n);
    bytes_.remove_prefix(sizeof n);
    if (n == kAbsent) return std::nullopt;
    if (n > bytes_.size()) return fail();
    std::string s(bytes_.substr(0, n));
    bytes_.remove_prefix(n);
    return s;
  }
  std::optional<DumpEntry> entry() {
    if (field().value_or("0") != "1") return std::nullopt;
    DumpEntry e;
    e.operator_id = field().value_or("");
    e.uid = field();
    e.subtask = std::stoi(field().value_or("0"));
    e.state = field().value_or("");
    e.kind = field().value_or("");
    if (auto kg = field()) e.key_group = std::stoi(*kg);
    e.key = field();
    e.namespace_json = field();
    e.user_key = field();
    e.value = field().value_or("");
    return e;
  }
  bool ok() const { return ok_ && bytes_.empty(); }

 private:
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
