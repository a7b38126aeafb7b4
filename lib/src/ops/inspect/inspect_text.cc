// The inspect report as text for people: a summary, one aligned row per operator, problems.
#include <algorithm>
#include <iterator>
#include <utility>
#include <ostream>
#include <string_view>
#include <type_traits>

#include <fmt/compile.h>
#include <fmt/format.h>

#include "ckpt/inspect.h"
#include "ckpt/printable.h"
#include "ops/inspect/in_order.h"
#include "support/ascii_scan.h"

namespace ckpt {
namespace {

// Columns padded to their widest cell; the last column is not padded. Cells hold strings from
// input: each is escaped (ckpt/printable.h) before it is measured.
class Table {
 public:
  explicit Table(std::vector<std::string> header) { rows_.push_back(std::move(header)); }
  void add(std::vector<std::string> row) {
    for (std::string& cell : row) cell = printable(cell);
    rows_.push_back(std::move(row));
  }
  void write(std::ostream& out, const std::string& indent = "") const {
    std::vector<size_t> width(rows_[0].size(), 0);
    for (const auto& row : rows_)
      for (size_t i = 0; i < row.size(); ++i) width[i] = std::max(width[i], row[i].size());
    for (const auto& row : rows_) {
      std::string line = indent;
      for (size_t i = 0; i < row.size(); ++i) {
        line += row[i];
        if (i + 1 < row.size()) line.append(width[i] - row[i].size() + 2, ' ');
      }
      while (!line.empty() && line.back() == ' ') line.pop_back();
      out << line << '\n';
    }
  }

 private:
  std::vector<std::vector<std::string>> rows_;
};

std::string or_dash(const std::string& s) { return s.empty() ? "-" : s; }

std::string join(const std::vector<std::string>& v, const char* sep) {
  std::string out;
  for (const auto& s : v) {
    if (!out.empty()) out += sep;
    out += s;
  }
  return out;
}

std::string file_status(const FileTable::File& f) {
  if (!f.refused.empty()) return fmt::format("REFUSED ({})", f.refused);
  if (!f.exists) return "MISSING";
  if (f.is_short()) return fmt::format("SHORT ({} of {} bytes)", f.actual_size, f.size);
  if (f.outside) return "ok (outside the job directory)";
  return "ok";
}

// "(operator 1f2b..., subtask 0, managed-keyed)": where a file is first referenced.
void put_first_reference(std::string& out, const InspectReport& r, const FileTable::File& f) {
  const FileTable::Reference ref = f.references.front();
  fmt::format_to(std::back_inserter(out), FMT_COMPILE(" (operator {}, subtask {}, {})"),
                 r.operators[ref.operator_index].id, ref.subtask, handle_slot_name(ref.slot));
}

// "org.apache.flink.api.common.typeutils.base.LongSerializer" -> "LongSerializer".
std::string short_class(const std::string& c) {
  if (c.empty()) return "-";
  size_t dot = c.rfind('.');
  return dot == std::string::npos ? c : c.substr(dot + 1);
}

// The operator as people name it, in the states table: its uid, else its name; "-" for neither.
std::string operator_name(const OperatorSummary& op) { return or_dash(op.uid.empty() ? op.name : op.uid); }

void write_states(std::ostream& out, const InspectReport& r) {
  bool names = false;
  for (const auto& op : r.operators) names = names || !op.uid.empty() || !op.name.empty();
  std::vector<std::string> header = {"OPERATOR"};
  if (names) header.push_back("UID");
  header.insert(header.end(), {"STATE", "KIND", "KEY", "NAMESPACE", "VALUE"});
  if (r.counted) header.push_back("ENTRIES");
  Table t(header);
  bool any = false;
  for (const auto& op : r.operators) {
    for (const StateSummary& s : op.states) {
      std::vector<std::string> row = {op.id};
      if (names) row.push_back(operator_name(op));
      row.insert(row.end(), {s.name, s.kind, short_class(s.key_serializer), short_class(s.namespace_serializer),
                             or_dash(s.value_type)});
      if (r.counted) row.push_back(s.entries ? std::to_string(*s.entries) : "?");
      t.add(std::move(row));
      any = true;
    }
  }
  if (any) {
    out << '\n';
    t.write(out);
  }
  bool errors = false;
  for (const auto& op : r.operators) {
    if (op.states_error.empty()) continue;
    if (!errors) out << "\nstates not read:\n";
    errors = true;
    out << fmt::format("  operator {}: {}\n", op.id, printable(op.states_error));
  }
}

std::string kind_line(const InspectReport& r) {
  std::string k = snapshot_kind_name(r.kind);
  if (r.kind_inferred) k += " (inferred from handle kinds)";
  if (r.properties.present && !r.properties.type_name.empty()) k += fmt::format(" [{}]", r.properties.type_name);
  return k;
}

// Lines of the verbose listing and of the problems go through one buffer written out in large
// pieces, formatted by compiled format strings: a snapshot copied without its files has a
// problem line per file, millions of them.
// Without a stream, it keeps its text: a chunk of lines made on another thread (fill_in_order).
class LineBuffer {
 public:
  LineBuffer() = default;
  explicit LineBuffer(std::ostream& out) : out_(&out) {}
  ~LineBuffer() { flush(); }
  std::string& text() { return buf_; }
  // Hands full pieces to the stream; called after each line.
  void line_done() {
    if (buf_.size() >= kPiece) flush();
  }
  void flush() {
    if (!out_) return;
    out_->write(buf_.data(), static_cast<std::streamsize>(buf_.size()));
    buf_.clear();
  }
  // The lines of elements [0, n), put(i, buffer) making each, `chunk` at a time on two threads.
  template <class Put>
  void put_in_order(size_t n, size_t chunk, Put put) {
    flush();
    auto fill = [&](size_t c, LineBuffer& lines) {
      lines.text().clear();
      for (size_t i = c * chunk; i < std::min(n, (c + 1) * chunk); ++i) put(i, lines);
    };
    auto use = [&](LineBuffer& lines) {
      if (out_) out_->write(lines.text().data(), static_cast<std::streamsize>(lines.text().size()));
      else buf_ += lines.text();
    };
    fill_in_order<LineBuffer>((n + chunk - 1) / chunk, fill, use);
  }

 private:
  static constexpr size_t kPiece = 1 << 20;
  std::ostream* out_ = nullptr;
  std::string buf_;
};

// A string argument escaped (it may come from input), any other as it is. Printable ASCII, nearly
// every string, is its own escaped form and is not copied (the problem lines of a million missing
// files are most of a run); `scratch` holds the escaped copy of any other.
template <class T>
auto escaped(const T& a, std::string& scratch) {
  if constexpr (std::is_convertible_v<const T&, std::string_view>) {
    const std::string_view s(a);
    if (is_printable_ascii(s)) return s;
    scratch = printable(s);
    return std::string_view(scratch);
  } else {
    return a;
  }
}

template <size_t... I, class... A>
void put_escaped(LineBuffer& b, const auto& format, std::index_sequence<I...>, const A&... args) {
  std::string scratch[sizeof...(A) + 1];
  fmt::format_to(std::back_inserter(b.text()), format, escaped(args, scratch[I])...);
}

template <class... A>
void put(LineBuffer& b, const auto& format, const A&... args) {
  put_escaped(b, format, std::index_sequence_for<A...>{}, args...);
}

void print_handle(LineBuffer& out, const InspectReport& r, const HandleSummary& h) {
  put(out, FMT_COMPILE("    {} {}"), handle_slot_name(h.slot), h.kind);
  if (h.key_groups) {
    if (h.key_groups->empty()) out.text() += " key-groups []";
    else put(out, FMT_COMPILE(" key-groups [{}, {}]"), h.key_groups->first, h.key_groups->last());
  }
  put(out, FMT_COMPILE(" size {}"), human_size(h.state_size));
  if (h.checkpointed_size != h.state_size) put(out, FMT_COMPILE(" (incremental {})"), human_size(h.checkpointed_size));
  if (h.inline_bytes > 0) put(out, FMT_COMPILE(" inline {}"), human_size(h.inline_bytes));
  out.text() += '\n';
  if (!h.states.empty()) put(out, FMT_COMPILE("      states: {}\n"), join(h.states, ", "));
  for (uint32_t fi : h.files) {
    const FileTable::File f = r.files[fi];
    put(out, FMT_COMPILE("      file {} {} {}\n"), f.uri, human_size(f.size), file_status(f));
  }
  out.line_done();
}

}  // namespace

void write_inspect_text(const InspectReport& r, bool verbose, std::ostream& out) {
  size_t present = r.files.size() - r.missing_files;
  std::string files = fmt::format("{}", r.files.size());
  if (!r.files.empty()) {
    files += r.files_ok() ? " (all present)"
                          : fmt::format(" ({} present, {} missing, {} short)", present, r.missing_files, r.short_files);
    if (r.outside_files) files += fmt::format(", {} outside the job directory", r.outside_files);
  }
  Table summary({"snapshot", r.metadata_path});
  summary.add({"metadata version", std::to_string(r.metadata_version)});
  summary.add({"checkpoint id", std::to_string(r.checkpoint_id)});
  summary.add({"kind", kind_line(r)});
  summary.add({"operators", std::to_string(r.operators.size())});
  summary.add({"state size", fmt::format("{} ({} bytes)", human_size(r.state_size), r.state_size)});
  if (r.checkpointed_size != r.state_size)
    summary.add({"incremental size", fmt::format("{} ({} bytes)", human_size(r.checkpointed_size), r.checkpointed_size)});
  summary.add({"inline bytes", fmt::format("{} ({} bytes)", human_size(r.inline_bytes), r.inline_bytes)});
  summary.add({"files", files});
  summary.write(out);
  out << '\n';

  bool names = false, descriptions = false;
  for (const auto& op : r.operators) {
    names = names || !op.uid.empty() || !op.name.empty();
    descriptions = descriptions || !op.description.empty();
  }
  std::vector<std::string> header = {"OPERATOR"};
  if (names) header.insert(header.end(), {"UID", "NAME"});
  header.insert(header.end(), {"PAR", "MAXPAR", "STATE", "FULL", "INCREMENTAL", "FILES"});
  if (descriptions) header.push_back("DESCRIPTION");
  Table ops(header);
  for (const auto& op : r.operators) {
    std::vector<std::string> row = {op.id};
    if (names) row.insert(row.end(), {or_dash(op.uid), or_dash(op.name)});
    std::string nfiles = std::to_string(op.file_count);
    if (op.missing_files) nfiles += fmt::format(" ({} missing)", op.missing_files);
    if (op.short_files) nfiles += fmt::format(" ({} short)", op.short_files);
    row.insert(row.end(), {std::to_string(op.parallelism), std::to_string(op.max_parallelism),
                           op.kinds.empty() ? "-" : join(op.kinds, ","), human_size(op.state_size),
                           human_size(op.checkpointed_size), nfiles});
    if (descriptions) row.push_back(or_dash(op.description));
    ops.add(std::move(row));
  }
  ops.write(out);
  if (r.states_read) write_states(out, r);

  LineBuffer lines(out);
  if (verbose) {
    lines.put_in_order(r.operators.size(), 4, [&](size_t i, LineBuffer& lines) {
      const OperatorSummary& op = r.operators[i];
      put(lines, FMT_COMPILE("\noperator {}"), op.id);
      if (!op.uid.empty()) put(lines, FMT_COMPILE(" uid '{}'"), op.uid);
      if (!op.name.empty()) put(lines, FMT_COMPILE(" name '{}'"), op.name);
      if (!op.description.empty()) put(lines, FMT_COMPILE(" description '{}'"), op.description);
      put(lines, FMT_COMPILE(" parallelism {} max parallelism {}{}\n"), op.parallelism, op.max_parallelism,
          op.fully_finished ? " (finished)" : "");
      if (op.coordinator) {
        lines.text() += "  coordinator\n";
        print_handle(lines, r, *op.coordinator);
      }
      for (const auto& st : op.subtasks) {
        put(lines, FMT_COMPILE("  subtask {}{}\n"), st.index, st.finished ? " (finished)" : "");
        for (const auto& h : st.handles) print_handle(lines, r, h);
      }
    });
  }

  if (!r.files_ok()) {
    lines.text() += "\nproblems:\n";
    lines.put_in_order(r.files.size(), 8192, [&](size_t i, LineBuffer& lines) {
      const FileTable::File f = r.files[i];
      if (f.exists && !f.is_short()) return;
      put(lines, FMT_COMPILE("  {} {}"), file_status(f), f.uri);
      put_first_reference(lines.text(), r, f);
      if (f.path) put(lines, FMT_COMPILE(" at {}"), *f.path);
      lines.text() += '\n';
    });
  }
  if (r.outside_files) {
    put(lines, FMT_COMPILE("\nfiles outside the job directory {} and every --remap target:\n"), r.job_directory);
    for (const FileTable::File f : r.files) {
      if (!f.outside) continue;
      put(lines, FMT_COMPILE("  {}"), f.uri);
      put_first_reference(lines.text(), r, f);
      put(lines, FMT_COMPILE(" at {}\n"), *f.path);
      lines.line_done();
    }
  }
}

}  // namespace ckpt
