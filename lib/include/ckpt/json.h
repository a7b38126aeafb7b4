// ckpt/json.h - the one JSON writer, and the document of every `--json` command
// (formats/json.md, formats/schemas/). The program prints these documents and nothing else
// writes them, so the Python module and any other caller get exactly what `--json` prints.
#pragma once

#include <charconv>
#include <climits>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "ckpt/export.h"

namespace ckpt {

// Writes JSON text as it goes, without building a tree per element. With `indent` 0 the text is
// byte-identical to nlohmann's dump(-1) with error_handler_t::replace; with `indent` N to its
// dump(N), except inside containers opened inline (one line, as dump(-1)).
class CKPT_API JsonWriter {
 public:
  // Appends to `out`.
  explicit JsonWriter(std::string& out, int indent = 0) : out_(out), indent_(indent) {}
  // Writes to `out` in pieces of about a MiB: a document of a million files never exists whole.
  explicit JsonWriter(std::ostream& out, int indent = 0);
  ~JsonWriter();  // hands what is left to the stream
  JsonWriter(const JsonWriter&) = delete;
  JsonWriter& operator=(const JsonWriter&) = delete;

  // Members are written in the order the document's schema lists them.
  void begin_object() { open('{', false); }
  void begin_array() { open('[', false); }
  // On one line however deep, where the document keeps an element to a line.
  void begin_inline_object() { open('{', true); }
  void begin_inline_array() { open('[', true); }
  void end_object() { close('}'); }
  void end_array() { close(']'); }
  // `k` is one of the writer's own member names, plain ASCII: written without escaping.
  void key(std::string_view k) {
    comma();
    out_ += '"';
    out_ += k;
    out_ += indented() ? "\": " : "\":";
    after_key_ = true;
  }

  void value(std::string_view s) {
    comma();
    string_value(s);
  }
  void value(const std::string& s) { value(std::string_view(s)); }
  void value(const char* s) { value(std::string_view(s)); }
  void value(bool b) {
    comma();
    out_ += b ? "true" : "false";
  }
  template <class T, class = std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>>>
  void value(T n) {
    comma();
    char buf[24];
    auto [end, ec] = std::to_chars(buf, buf + sizeof buf, n);
    out_.append(buf, end);
  }
  // The shortest text that reads back as `d` ("0.25", "4096"); null where JSON has no number.
  void value(double d) {
    comma();
    if (!std::isfinite(d)) {
      out_ += "null";
      return;
    }
    char buf[32];
    auto [end, ec] = std::to_chars(buf, buf + sizeof buf, d);
    out_.append(buf, end);
  }
  template <class T>
  void value(const std::optional<T>& v) {
    if (v)
      value(*v);
    else
      null();
  }
  // An array of plain values.
  template <class T>
  void value(const std::vector<T>& list) {
    begin_array();
    for (const T& v : list) value(v);
    end_array();
  }
  void null() {
    comma();
    out_ += "null";
  }
  // "" as null, as the documents print their optional strings.
  void string_or_null(const std::string& s) {
    if (s.empty())
      null();
    else
      value(s);
  }
  // JSON text written elsewhere (one of these documents), as the next value.
  void raw(std::string_view json) {
    comma();
    out_ += json;
  }

  template <class V>
  void member(std::string_view k, const V& v) {
    key(k);
    value(v);
  }

 private:
  bool indented() const { return indent_ > 0 && depth_ < inline_from_; }
  void open(char c, bool inline_container) {
    comma();
    out_ += c;
    ++depth_;
    if (inline_container && depth_ < inline_from_) inline_from_ = depth_;
    fresh_ = true;
  }
  void close(char c) {
    if (!fresh_ && indented()) new_line(depth_ - 1);
    if (inline_from_ == depth_) inline_from_ = INT_MAX;
    --depth_;
    out_ += c;
    fresh_ = false;
  }
  // A separator before every element except the first of a container or a member's value.
  void comma() {
    if (after_key_) {
      after_key_ = false;
      return;
    }
    if (!fresh_) out_ += ',';
    fresh_ = false;
    if (depth_ > 0 && indented()) new_line(depth_);
    if (sink_ && out_.size() >= kPiece) spill();
  }
  void new_line(int depth) {
    out_ += '\n';
    out_.append(static_cast<size_t>(indent_) * static_cast<size_t>(depth), ' ');
  }
  void string_value(std::string_view s);
  void spill();

  static constexpr size_t kPiece = size_t{1} << 20;
  std::ostream* sink_ = nullptr;
  std::string buffer_;  // what is not yet handed to sink_
  std::string& out_;
  int indent_ = 0;
  int depth_ = 0;
  int inline_from_ = INT_MAX;  // the depth of the outermost inline container open
  bool fresh_ = true;
  bool after_key_ = false;
};

// `--json`'s layout: two-space indented; the program ends each document with a newline.
inline constexpr int kJsonIndent = 2;

// The documents, one per command (formats/schemas/ckpt.<command>.schema.json). Each writes one
// object, "schema" first; the arguments are the library's report and, where the document
// repeats what the caller asked for, that request. advise and report, compact on one line, return
// their text through the same writer: advise_json() (ckpt/advise.h), report_json() (ckpt/report.h).
struct CompactReport;
struct ConvertSummary;
struct DiffReport;
struct EditOptions;
struct EditSummary;
struct Error;
struct GcReport;
struct GenerateOptions;
struct GenerateSummary;
struct InspectReport;
struct ListedSnapshot;
struct LoadSummary;
struct Plan;
struct RelocateStats;
struct RestoreReport;
struct SnapshotLocation;
struct UpgradeCheckReport;
struct UpgradeWriteReport;
struct VerifyReport;
enum class ConvertTarget;

CKPT_API void write_compact_json(const CompactReport& r, JsonWriter& w);
// `snapshot` as the caller named it.
CKPT_API void write_convert_json(const std::string& snapshot, ConvertTarget to, const ConvertSummary& s, JsonWriter& w);
CKPT_API void write_diff_json(const DiffReport& r, JsonWriter& w);
CKPT_API void write_edit_json(const std::string& snapshot, const EditOptions& options, const EditSummary& s,
                              JsonWriter& w);
// {"schema":"ckpt.error/1","error":{...}}: `e` under `code`, error_code_id(e.code) or one of the
// program's own ("usage", "internal"; formats/json.md §3).
CKPT_API void write_error_json(std::string_view code, const Error& e, JsonWriter& w);
CKPT_API void write_gc_json(const GcReport& r, JsonWriter& w);
// `backend` as the caller spelled it ("hashmap" stays "hashmap").
CKPT_API void write_generate_json(const GenerateOptions& options, std::string_view backend, const GenerateSummary& s,
                                  JsonWriter& w);
// `verbose` adds each file's references.
CKPT_API void write_inspect_json(const InspectReport& r, bool verbose, JsonWriter& w);
// `path` as the caller named it.
CKPT_API void write_ls_json(const std::string& path, const std::vector<ListedSnapshot>& found, JsonWriter& w);
// `like` and `input` as the caller named them.
CKPT_API void write_load_json(const std::string& like, const std::string& input, const LoadSummary& s, JsonWriter& w);
CKPT_API void write_plan_json(const SnapshotLocation& where, const Plan& plan, JsonWriter& w);
CKPT_API void write_relocate_json(const std::string& snapshot, const std::string& output, const RelocateStats& stats,
                                  JsonWriter& w);
CKPT_API void write_restore_json(const RestoreReport& r, JsonWriter& w);
CKPT_API void write_upgrade_json(const UpgradeCheckReport& r, JsonWriter& w);
// `ckpt.upgrade-output/1`, the rewrite's document; `snapshot` as the caller named it.
CKPT_API void write_upgrade_output_json(const std::string& snapshot, const UpgradeWriteReport& r, JsonWriter& w);
CKPT_API void write_verify_json(const VerifyReport& r, JsonWriter& w);

}  // namespace ckpt
