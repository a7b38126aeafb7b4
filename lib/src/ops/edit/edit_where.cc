// --delete-where / --keep-where: each pair of a named state decoded, its cells bound to the
// predicate's statement, the pair kept or dropped by whether a row comes back.
#include "ops/edit/edit_where.h"

#include <sqlite3.h>

#include <fmt/format.h>

#include "ckpt/query.h"
#include "ckpt/query_session.h"
#include "ops/entries/entry_engine.h"
#include "ops/query/query_tables.h"
#include "ops/query/state_columns.h"
#include "state/keyed_state_codec.h"
#include "state/raw_keyed_reader.h"
#include "types/value_decoder.h"

namespace ckpt {

using query_detail::EntryField;

using query_detail::StateColumn;

namespace {

const char* flag_of(const WhereFilter::Rule& r) { return r.keep ? "--keep-where" : "--delete-where"; }

// The columns a predicate sees: key_group, the query table's, and each whole field the split
// did not already name.
std::vector<StateColumn> predicate_columns(const StateMetaInfo& info, const KeyedBackendMeta& meta) {
  std::vector<StateColumn> out{StateColumn{"key_group", EntryField::kKey, {}, "INTEGER"}};
  query_detail::StateLayout layout = query_detail::state_layout(info, &meta.key_serializer, nullptr);
  std::set<std::string> names{"key_group"};
  for (StateColumn& c : layout.columns) {
    names.insert(c.name);
    out.push_back(std::move(c));
  }
  const std::pair<const char*, EntryField> whole[] = {{"key", EntryField::kKey},
                                                      {"namespace", EntryField::kNamespace},
                                                      {"user_key", EntryField::kUserKey},
                                                      {"value", EntryField::kValue}};
  for (const auto& [name, field] : whole)
    if (!names.count(name) && (field != EntryField::kUserKey || info.kind() == StateKind::kMap))
      out.push_back(StateColumn{name, field, {}, "JSON"});
  return out;
}

}  // namespace

class WhereEdit : public KeyedEdit {
 public:
  struct StateRule {
    size_t state = 0;  // proxy index
    const WhereFilter::Rule* rule = nullptr;
    std::unique_ptr<KeyedStateCodec> codec;
    std::vector<StateColumn> columns;
    std::unique_ptr<sqlite3_stmt, query_detail::StatementFinalizer> statement;
    uint64_t deleted = 0;
  };

  WhereEdit(WhereFilter* owner, std::string op_hex) : owner_(owner), op_hex_(std::move(op_hex)) {}
  ~WhereEdit() override {
    if (owner_)
      for (const StateRule& r : rules_) owner_->record(op_hex_, r.codec->name(), r.deleted);
  }

  // Opens the database and prepares one statement per state a rule names.
  Status prepare(const OperatorState& op, const KeyedBackendMeta& meta, const std::vector<WhereFilter::Rule>& rules,
                 std::set<std::string>* found) {
    sqlite3* db = nullptr;
    int rc = sqlite3_open_v2(":memory:", &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_MEMORY, nullptr);
    db_.reset(db);
    if (rc != SQLITE_OK) return Error(ErrorCode::kIOError, "cannot open an in-memory SQLite database");
    CKPT_ASSIGN_OR_RETURN(key_decoder_, make_decoder(meta.key_serializer));
    for (size_t i = 0; i < meta.states.size(); ++i)
      for (const WhereFilter::Rule& rule : rules) {
        if (rule.state != meta.states[i].name) continue;
        const StateMetaInfo& info = meta.states[i];
        StateRule r;
        r.state = i;
        r.rule = &rule;
        CKPT_ASSIGN_OR_RETURN(r.codec, KeyedStateCodec::make(info, *key_decoder_, op.max_parallelism));
        r.columns = predicate_columns(info, meta);
        std::string select;
        for (size_t c = 0; c < r.columns.size(); ++c)
          select += fmt::format("{}?{} AS {}", c ? ", " : "", c + 1, sql_identifier(r.columns[c].name));
        // The predicate on lines of its own: a trailing "--" comment cannot swallow the parenthesis.
        const std::string sql = fmt::format("SELECT 1 FROM (SELECT {}) WHERE (\n{}\n)", select, rule.predicate);
        sqlite3_stmt* s = nullptr;
        const char* tail = nullptr;
        rc = sqlite3_prepare_v2(db_.get(), sql.c_str(), static_cast<int>(sql.size()), &s, &tail);
        r.statement.reset(s);
        std::string columns;
        for (const StateColumn& c : r.columns) columns += (columns.empty() ? "" : ", ") + c.name;
        if (rc != SQLITE_OK || !s || (tail && *tail))
          return Error(
              ErrorCode::kInvalidArgument,
              fmt::format("{} {}={}: {} (state '{}' of operator {} has the columns {})", flag_of(rule), rule.state,
                          rule.predicate, rc != SQLITE_OK ? sqlite3_errmsg(db_.get()) : "expected one SQL expression",
                          rule.state, operator_id_hex(op.id), columns));
        if (found) found->insert(rule.state);
        rules_.push_back(std::move(r));
      }
    return Status::OK();
  }

  bool empty() const { return rules_.empty(); }

  Status key_group(int32_t, std::vector<std::vector<RocksPair>>& by_state) override {
    for (StateRule& r : rules_) {
      if (r.state >= by_state.size()) continue;
      std::vector<RocksPair>& pairs = by_state[r.state];
      size_t kept = 0;
      for (size_t p = 0; p < pairs.size(); ++p) {
        CKPT_ASSIGN_OR_RETURN(
            bool keep, r.codec->kind() == StateKind::kList ? keep_elements(r, pairs[p]) : keep_entry(r, pairs[p]));
        if (!keep) continue;
        if (kept != p) std::swap(pairs[kept], pairs[p]);
        ++kept;
      }
      pairs.resize(kept);
    }
    return Status::OK();
  }

 private:
  Result<std::optional<Entry>> decode(const StateRule& r, const RocksPair& pair) const {
    std::optional<Entry> entry;
    CKPT_RETURN_IF_ERROR(r.codec->read_rocks_entry(pair.key, 0, pair.value, 0, [&](StateEntry&& e) -> Status {
      Entry out;
      out.key_group = e.key_group;
      move_decoded_fields(std::move(e), out);
      entry = std::move(out);
      return Status::OK();
    }));
    return entry;
  }

  // Whether the pair stays (the predicate says so of its one row).
  Result<bool> keep_entry(StateRule& r, const RocksPair& pair) {
    CKPT_ASSIGN_OR_RETURN(std::optional<Entry> entry, decode(r, pair));
    if (!entry) return true;
    CKPT_ASSIGN_OR_RETURN(bool match, matches(r, *entry, nullptr, nullptr));
    if (match == r.rule->keep) return true;
    ++r.deleted;
    return false;
  }

  // A LIST state's pair: one row per element, as the query table has them. The elements that
  // stay are joined back as they were read; the pair stays if any does.
  Result<bool> keep_elements(StateRule& r, RocksPair& pair) {
    CKPT_ASSIGN_OR_RETURN(std::optional<Entry> entry, decode(r, pair));
    if (!entry) return true;
    std::vector<std::string_view> elements;
    CKPT_RETURN_IF_ERROR(r.codec->list_elements(pair.value, &elements));
    const Value& decoded = entry->value;
    if (decoded.kind() != Value::Kind::kArray || decoded.size() != elements.size())
      return Error(ErrorCode::kCorruption, fmt::format("state '{}': {} list elements decoded, {} delimited",
                                                       r.rule->state, decoded.size(), elements.size()));
    std::string joined;
    size_t left = 0;
    for (size_t i = 0; i < elements.size(); ++i) {
      CKPT_ASSIGN_OR_RETURN(bool match, matches(r, *entry, &decoded.elements()[i], &i));
      if (match != r.rule->keep) {
        ++r.deleted;
        continue;
      }
      if (left++) joined.push_back(kListDelimiter);
      joined.append(elements[i]);
    }
    if (left == elements.size()) return true;
    pair.value = std::move(joined);
    return left > 0;
  }

  // Whether the predicate holds for the entry's row, or for the row of its list element `element`
  // (at `index`).
  Result<bool> matches(StateRule& r, const Entry& entry, const Value* element, const size_t* index) {
    sqlite3_stmt* s = r.statement.get();
    sqlite3_reset(s);
    for (size_t c = 0; c < r.columns.size(); ++c) {
      const StateColumn& col = r.columns[c];
      QueryCell cell;
      if (c == 0) {
        cell = query_detail::integer_cell(entry.key_group.value_or(-1));
      } else if (col.field == EntryField::kListIndex) {
        cell = index ? query_detail::integer_cell(static_cast<int64_t>(*index)) : query_detail::null_cell();
      } else {
        const std::optional<Value>* field = col.field == EntryField::kKey         ? &entry.key
                                            : col.field == EntryField::kNamespace ? &entry.ns
                                            : col.field == EntryField::kUserKey   ? &entry.user_key
                                                                                  : nullptr;
        const Value* v = field ? (*field ? &**field : nullptr) : element ? element : &entry.value;
        cell = query_detail::value_cell(v ? query_detail::value_at(*v, col.path) : nullptr);
      }
      query_detail::bind_cell(s, static_cast<int>(c + 1), cell);
    }
    const int rc = sqlite3_step(s);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    return Error(ErrorCode::kInvalidArgument, fmt::format("{} {}={}: {}", flag_of(*r.rule), r.rule->state,
                                                          r.rule->predicate, sqlite3_errmsg(db_.get())));
  }

  WhereFilter* owner_;
  std::string op_hex_;
  query_detail::Database db_;
  std::unique_ptr<ValueDecoder> key_decoder_;
  std::vector<StateRule> rules_;  // statements before the database: finalized first (declared after db_)
};

Status WhereFilter::check(const Metadata& in, const StreamOpener& streams) {
  std::set<std::string> found;
  for (const OperatorState& op : in.operators)
    for (const SubtaskState& st : op.subtasks) {
      if (st.managed_keyed.is_null()) continue;
      auto source = open_raw_keyed(st.managed_keyed, streams, op.max_parallelism);
      if (!source.ok()) break;  // the rewrite reports what it cannot read, naming the file
      WhereEdit edit(nullptr, operator_id_hex(op.id));
      CKPT_RETURN_IF_ERROR(edit.prepare(op, source->meta, rules_, &found));
      break;  // one proxy per operator: its subtasks share the states
    }
  for (const Rule& r : rules_)
    if (!found.count(r.state))
      return Error(ErrorCode::kInvalidArgument,
                   fmt::format("{}: no operator has a keyed state '{}'", flag_of(r), r.state));
  return Status::OK();
}

Result<std::unique_ptr<KeyedEdit>> WhereFilter::edit_for(const OperatorState& op, const KeyedBackendMeta& meta) {
  auto edit = std::make_unique<WhereEdit>(this, operator_id_hex(op.id));
  CKPT_RETURN_IF_ERROR(edit->prepare(op, meta, rules_, nullptr));
  if (edit->empty()) return std::unique_ptr<KeyedEdit>();
  return std::unique_ptr<KeyedEdit>(std::move(edit));
}

void WhereFilter::record(const std::string& op_hex, const std::string& state, uint64_t deleted) {
  std::lock_guard<std::mutex> lock(mu_);
  deleted_[{op_hex, state}] += deleted;
}

std::vector<EditSummary::EntryEdits> WhereFilter::counts() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<EditSummary::EntryEdits> out;
  for (const auto& [where, n] : deleted_) {
    EditSummary::EntryEdits e;
    e.operator_id = where.first;
    e.state = where.second;
    e.deleted = n;
    out.push_back(std::move(e));
  }
  return out;
}

}  // namespace ckpt
