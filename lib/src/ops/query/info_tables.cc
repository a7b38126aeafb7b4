// The small tables of `ckpt query` (ckpt/query.h): `snapshots` from discovery, `operators`,
// `states` and `files` from inspect, read a snapshot at a time as a scan reaches it.
#include <iterator>
#include <optional>

#include <fmt/format.h>

#include "ckpt/walk.h"
#include "ops/query/query_tables.h"

namespace ckpt::query_detail {
namespace {

using Rows = std::vector<std::vector<QueryCell>>;

struct InfoTableDef {
  const char* name;
  const char* schema;  // column 0 is `snapshot`, the snapshot's directory
  Status (*rows)(QueryContext& ctx, size_t i, Rows& out);
};

QueryCell optional_text(const std::string& s) { return s.empty() ? null_cell() : text_cell(s); }

Status snapshot_rows(QueryContext& ctx, size_t i, Rows& out) {
  const ListedSnapshot& s = ctx.snapshots[i];
  const bool read = s.complete && s.problem.empty();
  auto known = [&](int64_t v) { return read ? integer_cell(v) : null_cell(); };
  out.push_back({text_cell(s.path), text_cell(s.job), text_cell(s.name), optional_text(s.kind),
                 s.id ? integer_cell(*s.id) : null_cell(), integer_cell(s.complete), optional_text(s.time),
                 optional_text(s.format), optional_text(s.backend), known(s.metadata_version), known(s.state_size),
                 known(static_cast<int64_t>(s.operator_count)), known(static_cast<int64_t>(s.file_count)),
                 optional_text(s.problem), optional_text(s.gc)});
  return Status::OK();
}

// Snapshot i's inspect report, or nullptr for an incomplete snapshot (no rows).
Result<const InspectReport*> inspected(QueryContext& ctx, size_t i) {
  if (!ctx.snapshots[i].complete) return static_cast<const InspectReport*>(nullptr);
  const Result<InspectReport>& r = ctx.report(i);
  if (!r.ok()) return r.error();
  return &*r;
}

Status operator_rows(QueryContext& ctx, size_t i, Rows& out) {
  CKPT_ASSIGN_OR_RETURN(const InspectReport* r, inspected(ctx, i));
  if (!r) return Status::OK();
  for (const OperatorSummary& op : r->operators)
    out.push_back({text_cell(ctx.snapshots[i].path), text_cell(op.id), optional_text(op.uid), optional_text(op.name),
                   optional_text(op.description), integer_cell(op.parallelism), integer_cell(op.max_parallelism),
                   integer_cell(static_cast<int64_t>(op.subtasks.size())), integer_cell(op.state_size),
                   integer_cell(op.checkpointed_size), integer_cell(static_cast<int64_t>(op.file_count)),
                   text_cell(fmt::format("{}", fmt::join(op.kinds, ","))), optional_text(op.states_error)});
  return Status::OK();
}

Status state_rows(QueryContext& ctx, size_t i, Rows& out) {
  CKPT_ASSIGN_OR_RETURN(const InspectReport* r, inspected(ctx, i));
  if (!r) return Status::OK();
  for (const OperatorSummary& op : r->operators)
    for (const StateSummary& s : op.states)
      out.push_back({text_cell(ctx.snapshots[i].path), text_cell(op.id), optional_text(op.uid), text_cell(s.name),
                     text_cell(s.kind), integer_cell(s.keyed), optional_text(s.key_serializer),
                     optional_text(s.namespace_serializer), optional_text(s.value_serializer),
                     optional_text(s.value_type),
                     // TtlStateFactory wraps a TTL state's values in its TtlSerializer.
                     integer_cell(s.value_type.find("TtlSerializer") != std::string::npos)});
  return Status::OK();
}

Status file_rows(QueryContext& ctx, size_t i, Rows& out) {
  CKPT_ASSIGN_OR_RETURN(const InspectReport* r, inspected(ctx, i));
  if (!r) return Status::OK();
  for (const FileTable::File f : r->files) {
    std::optional<FileTable::Reference> first;
    if (!f.references.empty()) first = f.references.front();
    const OperatorSummary* op =
        first && first->operator_index < r->operators.size() ? &r->operators[first->operator_index] : nullptr;
    out.push_back({text_cell(ctx.snapshots[i].path), text_cell(std::string(f.uri)),
                   f.path ? text_cell(std::string(*f.path)) : null_cell(),
                   f.size >= 0 ? integer_cell(f.size) : null_cell(),
                   f.exists ? integer_cell(static_cast<int64_t>(f.actual_size)) : null_cell(), integer_cell(!f.exists),
                   first ? text_cell(stream_role_name(first->role)) : null_cell(),
                   first ? text_cell(handle_slot_name(first->slot)) : null_cell(), op ? text_cell(op->id) : null_cell(),
                   first && first->subtask >= 0 ? integer_cell(first->subtask) : null_cell(),
                   integer_cell(static_cast<int64_t>(f.references.size()))});
  }
  return Status::OK();
}

const InfoTableDef kInfoTables[] = {
    {"snapshots",
     "CREATE TABLE x(snapshot TEXT, job TEXT, name TEXT, kind TEXT, id INTEGER, complete INTEGER, time TEXT, "
     "format TEXT, backend TEXT, metadata_version INTEGER, state_size INTEGER, operator_count INTEGER, "
     "file_count INTEGER, problem TEXT, gc TEXT)",
     snapshot_rows},
    {"operators",
     "CREATE TABLE x(snapshot TEXT, id TEXT, uid TEXT, name TEXT, description TEXT, parallelism INTEGER, "
     "max_parallelism INTEGER, subtask_count INTEGER, state_size INTEGER, checkpointed_size INTEGER, "
     "file_count INTEGER, kinds TEXT, states_error TEXT)",
     operator_rows},
    {"states",
     "CREATE TABLE x(snapshot TEXT, operator TEXT, uid TEXT, name TEXT, kind TEXT, keyed INTEGER, "
     "key_serializer TEXT, namespace_serializer TEXT, value_serializer TEXT, value_type TEXT, ttl INTEGER)",
     state_rows},
    {"files",
     "CREATE TABLE x(snapshot TEXT, uri TEXT, path TEXT, size INTEGER, file_size INTEGER, missing INTEGER, "
     "role TEXT, slot TEXT, operator TEXT, subtask INTEGER, reference_count INTEGER)",
     file_rows},
    {"state_columns",
     "CREATE TABLE x(snapshot TEXT, table_name TEXT, operator TEXT, state TEXT, kind TEXT, column_name TEXT, "
     "field TEXT, path TEXT, type TEXT)",
     state_column_rows},
};

// A table's module data: its definition and the run's context.
struct InfoAux {
  const InfoTableDef* def = nullptr;
  QueryContext* ctx = nullptr;
};

struct InfoTable {
  sqlite3_vtab base{};
  QueryContext* ctx = nullptr;
  const InfoTableDef* def = nullptr;
};

struct InfoCursor {
  sqlite3_vtab_cursor base{};
  InfoTable* table = nullptr;
  std::optional<std::string> snapshot;  // an equality on `snapshot`
  size_t next_snapshot = 0;
  Rows rows;  // of the snapshot before next_snapshot
  size_t row = 0;
  sqlite3_int64 rowid = 0;
};

InfoCursor* info_cursor(sqlite3_vtab_cursor* c) { return reinterpret_cast<InfoCursor*>(c); }

int info_connect(sqlite3* db, void* aux, int, const char* const*, sqlite3_vtab** out, char**) {
  auto* t = new InfoTable;
  t->def = static_cast<const InfoAux*>(aux)->def;
  t->ctx = static_cast<const InfoAux*>(aux)->ctx;
  int rc = sqlite3_declare_vtab(db, t->def->schema);
  if (rc != SQLITE_OK) {
    delete t;
    return rc;
  }
  *out = &t->base;
  return SQLITE_OK;
}

int info_disconnect(sqlite3_vtab* t) {
  delete reinterpret_cast<InfoTable*>(t);
  return SQLITE_OK;
}

int info_best_index(sqlite3_vtab*, sqlite3_index_info* info) {
  info->estimatedCost = 1e4;
  for (int i = 0; i < info->nConstraint; ++i) {
    const auto& c = info->aConstraint[i];
    if (!c.usable || c.op != SQLITE_INDEX_CONSTRAINT_EQ || c.iColumn != 0) continue;
    info->aConstraintUsage[i].argvIndex = 1;
    info->idxNum = 1;
    info->estimatedCost = 1e2;
    break;
  }
  return SQLITE_OK;
}

int info_open(sqlite3_vtab* t, sqlite3_vtab_cursor** out) {
  auto* c = new InfoCursor;
  c->table = reinterpret_cast<InfoTable*>(t);
  *out = &c->base;
  return SQLITE_OK;
}

int info_close(sqlite3_vtab_cursor* c) {
  delete info_cursor(c);
  return SQLITE_OK;
}

int info_advance(InfoCursor* c) {
  QueryContext& ctx = *c->table->ctx;
  while (c->row >= c->rows.size() && c->next_snapshot < ctx.snapshots.size()) {
    c->rows.clear();
    c->row = 0;
    const size_t i = c->next_snapshot++;
    if (c->snapshot && *c->snapshot != ctx.snapshots[i].path) continue;
    Status s = c->table->def->rows(ctx, i, c->rows);
    if (!s.ok()) {
      c->next_snapshot = ctx.snapshots.size();
      c->rows.clear();
      return ctx.fail(&c->table->base, std::move(s).error());
    }
  }
  return SQLITE_OK;
}

int info_filter(sqlite3_vtab_cursor* base, int idx, const char*, int, sqlite3_value** argv) {
  InfoCursor* c = info_cursor(base);
  c->snapshot.reset();
  c->next_snapshot = 0;
  c->rows.clear();
  c->row = 0;
  c->rowid = 0;
  if (idx == 1) {
    if (sqlite3_value_type(argv[0]) != SQLITE_TEXT) {
      c->next_snapshot = c->table->ctx->snapshots.size();  // every snapshot cell is text
      return SQLITE_OK;
    }
    c->snapshot = std::string(reinterpret_cast<const char*>(sqlite3_value_text(argv[0])), sqlite3_value_bytes(argv[0]));
  }
  return info_advance(c);
}

int info_next(sqlite3_vtab_cursor* base) {
  InfoCursor* c = info_cursor(base);
  ++c->row;
  ++c->rowid;
  return info_advance(c);
}

int info_eof(sqlite3_vtab_cursor* base) {
  InfoCursor* c = info_cursor(base);
  return c->row >= c->rows.size();
}

int info_column(sqlite3_vtab_cursor* base, sqlite3_context* ctx, int column) {
  InfoCursor* c = info_cursor(base);
  const std::vector<QueryCell>& r = c->rows[c->row];
  if (column < 0 || static_cast<size_t>(column) >= r.size())
    sqlite3_result_null(ctx);
  else
    result_cell(ctx, r[column]);
  return SQLITE_OK;
}

int info_rowid(sqlite3_vtab_cursor* base, sqlite3_int64* rowid) {
  *rowid = info_cursor(base)->rowid;
  return SQLITE_OK;
}

}  // namespace

Status register_info_tables(sqlite3* db, QueryContext* ctx) {
  static const sqlite3_module module =
      eponymous_module(info_connect, info_best_index, info_disconnect, info_open, info_close, info_filter, info_next,
                       info_eof, info_column, info_rowid);
  for (const InfoTableDef& def : kInfoTables) {
    // SQLite owns the module data from here on, also when the registration fails.
    auto* aux = new InfoAux{&def, ctx};
    if (sqlite3_create_module_v2(db, def.name, &module, aux, [](void* p) { delete static_cast<InfoAux*>(p); }) !=
        SQLITE_OK)
      return Error(ErrorCode::kInvalidArgument,
                   fmt::format("cannot register the {} table: {}", def.name, sqlite3_errmsg(db)));
  }
  return Status::OK();
}

}  // namespace ckpt::query_detail
