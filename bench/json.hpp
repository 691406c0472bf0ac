// A small JSON reader for the benchmark's own result files (--compare, --plot).
//
//   hkbench::json::Value v = hkbench::json::parse(text);   // throws std::runtime_error
//   for (const auto &r : v.find("results")->array) r.find("median_ns")->number;
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace hkbench::json {

struct Value {
  enum class Type { Null, Bool, Number, String, Array, Object };
  Type type = Type::Null;
  bool boolean = false;
  double number = 0;
  std::string string;
  std::vector<Value> array;
  std::vector<std::pair<std::string, Value>> object;  // in file order

  // The member `key` of an object, or nullptr (also for non-objects).
  const Value *find(std::string_view key) const;
  bool isNumber() const { return type == Type::Number; }
  bool isString() const { return type == Type::String; }
};

// Parses one JSON document (RFC 8259; \u escapes outside ASCII become UTF-8). Throws
// std::runtime_error("JSON: <what> at byte N").
Value parse(std::string_view text);

}  // namespace hkbench::json
