// ops/advise/advise_print.cc - ckpt-advise(1)'s text and its `ckpt.advise/1` document.
#include "ckpt/advise.h"
#include "ckpt/json.h"
#include "ckpt/printable.h"

namespace ckpt {

std::string advise_json(const Report& report, const AdviseReport& a) {
  std::string out;
  JsonWriter w(out);
  w.begin_object();
  w.member("schema", "ckpt.advise/1");
  w.member("snapshot", report.snapshot);
  w.key("advice");
  w.begin_array();
  for (const Advice& x : a.advice) {
    w.begin_object();
    w.member("rule", x.rule);
    w.key("operator");
    w.string_or_null(x.operator_id);
    w.key("uid");
    w.string_or_null(x.operator_uid);
    w.member("recommendation", x.recommendation);
    w.key("evidence");
    w.begin_array();
    for (const AdviceEvidence& e : x.evidence) {
      w.begin_object();
      w.member("name", e.name);
      w.member("value", e.value);
      w.key("number");
      if (e.number)
        w.value(*e.number);
      else
        w.null();
      w.key("unit");
      w.string_or_null(e.unit);
      w.end_object();
    }
    w.end_array();
    w.key("settings");
    w.begin_array();
    for (const AdviceSetting& s : x.settings) {
      w.begin_object();
      w.member("key", s.key);
      w.member("value", s.value);
      w.end_object();
    }
    w.end_array();
    w.end_object();
  }
  w.end_array();
  w.key("silent");
  w.begin_array();
  for (const std::string& s : a.silent) w.value(s);
  w.end_array();
  w.end_object();
  return out;
}

std::string advise_text(const AdviseReport& a) {
  std::string out;
  if (a.advice.empty()) out += "no recommendation: nothing measured calls for a change\n";
  for (const Advice& x : a.advice) {
    std::string op;
    if (!x.operator_id.empty())
      op = x.operator_uid.empty() ? " operator " + x.operator_id
                                  : " operator '" + printable(x.operator_uid) + "' (" + x.operator_id + ")";
    out += "[" + x.rule + "]" + op + "\n  " + printable(x.recommendation) + "\n";
    for (const AdviceEvidence& e : x.evidence) out += "  evidence: " + e.name + ": " + printable(e.value) + "\n";
    for (const AdviceSetting& s : x.settings) out += "  set: " + s.key + ": " + printable(s.value) + "\n";
  }
  for (const std::string& s : a.silent) out += "silent: " + printable(s) + "\n";
  return out;
}

}  // namespace ckpt
