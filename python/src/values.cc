// Decoded values (ckpt::Value) as Python objects.
//
// Built with the C API directly: an entry's fields are converted once per entry, millions of
// times in a full iteration, and pybind11's casts cost several times more per object.
#include <Python.h>
#include <datetime.h>

#include <array>
#include <cstdint>
#include <string>

#include "binding.h"

namespace ckpt::python {

namespace {

// The classes the conversions construct, looked up once (never released: they live as long
// as the interpreter's decimal and datetime modules).
PyObject* decimal_class = nullptr;
PyObject* unix_epoch = nullptr;  // datetime(1970, 1, 1)

py::object steal(PyObject* p) {
  if (!p) throw py::error_already_set();
  return py::reinterpret_steal<py::object>(p);
}

py::object text(const std::string& s) {
  // Flink strings are UTF-16: a lone surrogate comes through as its three-byte form.
  return steal(PyUnicode_DecodeUTF8(s.data(), static_cast<Py_ssize_t>(s.size()), "surrogatepass"));
}

bool has_members(const Value& v, const char* a, const char* b) {
  return v.size() == 2 && v.keys()[0] == a && v.keys()[1] == b;
}

// Lower-case hex digits' values, -1 for every other byte: `ckpt dump` writes lower case, so
// anything else is some other object. A table: a byte[] value is hundreds of digits.
const std::array<int8_t, 256>& hex_digits() {
  static const std::array<int8_t, 256> table = [] {
    std::array<int8_t, 256> t;
    t.fill(-1);
    for (int i = 0; i < 10; ++i) t['0' + i] = static_cast<int8_t>(i);
    for (int i = 0; i < 6; ++i) t['a' + i] = static_cast<int8_t>(10 + i);
    return t;
  }();
  return table;
}

// {"bytes":"<hex>"}: what the decoders print for byte strings (formats/serializers.md), where
// they are not a bytes Value (BINARY, Avro bytes, from JSON trees).
// Decoded straight into the new bytes object: values of byte[] state are often large.
bool bytes_of(const Value& v, py::object* out) {
  if (v.size() != 1 || v.keys()[0] != "bytes" || v.elements()[0].kind() != Value::Kind::kString) return false;
  const std::string& hex = v.elements()[0].as_string();
  if (hex.size() % 2 != 0) return false;
  const Py_ssize_t n = static_cast<Py_ssize_t>(hex.size() / 2);
  py::object bytes = steal(PyBytes_FromStringAndSize(nullptr, n));
  char* data = PyBytes_AS_STRING(bytes.ptr());
  const std::array<int8_t, 256>& digit = hex_digits();
  const auto* in = reinterpret_cast<const unsigned char*>(hex.data());
  for (Py_ssize_t i = 0; i < n; ++i) {
    const int hi = digit[in[2 * i]], lo = digit[in[2 * i + 1]];
    if ((hi | lo) < 0) return false;
    data[i] = static_cast<char>(hi << 4 | lo);
  }
  *out = std::move(bytes);
  return true;
}

bool integer_text(const std::string& s) {
  size_t i = !s.empty() && s[0] == '-' ? 1 : 0;
  if (i == s.size()) return false;
  for (; i < s.size(); ++i)
    if (s[i] < '0' || s[i] > '9') return false;
  return true;
}

// {"unscaled":u,"scale":s}: BigDecimal, DECIMAL(p, s) (u a decimal string beyond 64 bits).
// An unsigned u (between 2^63 and 2^64) stays a dict: printed back it could not tell which it was.
bool decimal_of(const Value& v, py::object* out) {
  if (!has_members(v, "unscaled", "scale")) return false;
  const Value& u = v.elements()[0];
  const Value& s = v.elements()[1];
  if (s.kind() != Value::Kind::kInt) return false;
  std::string digits;
  if (u.kind() == Value::Kind::kInt)
    digits = std::to_string(u.as_int());
  else if (u.kind() == Value::Kind::kString && integer_text(u.as_string()))
    digits = u.as_string();
  else
    return false;
  const std::string literal = digits + "E" + std::to_string(-s.as_int());
  *out = steal(PyObject_CallFunction(decimal_class, "s#", literal.data(), static_cast<Py_ssize_t>(literal.size())));
  return true;
}

// {"millis":m,"nano_of_milli":n}: TIMESTAMP(p) and TIMESTAMP_LTZ(p) of the table runtime, as
// the naive datetime of that many milliseconds after 1970-01-01T00:00. Only when exact: a
// datetime holds microseconds, so a timestamp with nanoseconds in it stays a dict.
bool timestamp_of(const Value& v, py::object* out) {
  if (!has_members(v, "millis", "nano_of_milli")) return false;
  const Value& m = v.elements()[0];
  const Value& n = v.elements()[1];
  if (m.kind() != Value::Kind::kInt || n.kind() != Value::Kind::kInt) return false;
  const int64_t millis = m.as_int(), nanos = n.as_int();
  // datetime's years 1 to 9999.
  constexpr int64_t kFirst = -62135596800000, kEnd = 253402300800000;
  if (nanos < 0 || nanos > 999999 || nanos % 1000 != 0 || millis < kFirst || millis >= kEnd) return false;
  constexpr int64_t kDay = 86400000;
  int64_t days = millis / kDay, rest = millis % kDay;
  if (rest < 0) {
    rest += kDay;
    --days;
  }
  py::object delta = steal(PyDelta_FromDSU(static_cast<int>(days), static_cast<int>(rest / 1000),
                                           static_cast<int>(rest % 1000 * 1000 + nanos / 1000)));
  *out = steal(PyNumber_Add(unix_epoch, delta.ptr()));
  return true;
}

// Without the conversions, a byte string is the object `ckpt dump` prints: {"bytes": hex}.
py::object untyped_bytes(const std::string& b) {
  static const char kDigits[] = "0123456789abcdef";
  py::object hex = steal(PyUnicode_New(static_cast<Py_ssize_t>(2 * b.size()), 127));
  auto* out = static_cast<char*>(PyUnicode_DATA(hex.ptr()));
  for (unsigned char c : b) {
    *out++ = kDigits[c >> 4];
    *out++ = kDigits[c & 15];
  }
  py::object dict = steal(PyDict_New());
  if (PyDict_SetItemString(dict.ptr(), "bytes", hex.ptr()) != 0) throw py::error_already_set();
  return dict;
}

py::object object_to_python(const Value& v, bool typed) {
  py::object special;
  if (typed && (bytes_of(v, &special) || decimal_of(v, &special) || timestamp_of(v, &special))) return special;
  py::object dict = steal(PyDict_New());
  for (size_t i = 0; i < v.size(); ++i) {
    py::object key = text(v.keys()[i]);
    py::object member = to_python(v.elements()[i], typed);
    if (PyDict_SetItem(dict.ptr(), key.ptr(), member.ptr()) != 0) throw py::error_already_set();
  }
  return dict;
}

}  // namespace

void init_values() {
  PyDateTime_IMPORT;
  if (!PyDateTimeAPI) throw py::error_already_set();
  decimal_class = py::object(py::module_::import("decimal").attr("Decimal")).release().ptr();
  unix_epoch = steal(PyDateTime_FromDateAndTime(1970, 1, 1, 0, 0, 0, 0)).release().ptr();
}

py::object to_python(const Value& v, bool typed) {
  switch (v.kind()) {
    case Value::Kind::kNull: return py::none();
    case Value::Kind::kBool: return py::bool_(v.as_bool());
    case Value::Kind::kInt: return steal(PyLong_FromLongLong(v.as_int()));
    case Value::Kind::kUnsigned: return steal(PyLong_FromUnsignedLongLong(v.as_unsigned()));
    case Value::Kind::kDouble: return steal(PyFloat_FromDouble(v.as_double()));
    case Value::Kind::kString: return text(v.as_string());
    case Value::Kind::kArray: {
      py::object list = steal(PyList_New(static_cast<Py_ssize_t>(v.size())));
      for (size_t i = 0; i < v.size(); ++i)
        PyList_SET_ITEM(list.ptr(), static_cast<Py_ssize_t>(i), to_python(v.elements()[i], typed).release().ptr());
      return list;
    }
    case Value::Kind::kObject: return object_to_python(v, typed);
    case Value::Kind::kBytes: {
      const std::string& b = v.as_bytes();
      if (typed) return steal(PyBytes_FromStringAndSize(b.data(), static_cast<Py_ssize_t>(b.size())));
      return untyped_bytes(b);
    }
  }
  return py::none();
}

py::object key_to_python(const Value& v, bool typed, const std::vector<std::string>* names) {
  if (!names || v.kind() != Value::Kind::kObject || v.size() != 2) return to_python(v, typed);
  const Value* fields = v.find("fields");
  const Value* kind = v.find("kind");
  if (!fields || !kind || fields->kind() != Value::Kind::kArray || kind->kind() != Value::Kind::kString ||
      fields->size() != names->size())
    return to_python(v, typed);
  // As ops/dump/key_names.cc writes it: the fields in the key's column order, then the kind.
  py::dict named;
  for (size_t i = 0; i < names->size(); ++i) named[text((*names)[i])] = to_python(fields->elements()[i], typed);
  py::dict row;
  row["fields"] = named;
  row["kind"] = text(kind->as_string());
  return row;
}

}  // namespace ckpt::python
