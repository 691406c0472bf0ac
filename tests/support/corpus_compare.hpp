// How the kernel-corpus tests compare a result with the reference: every buffer bit for
// bit, with the first elements that differ printed by their type, and printf output as
// text.
//
//   const Sides kSides{"PoCL", "hostkernel"};                // who made want, who made got
//   expect_same_outputs(want, got, resources, c, kSides);
//   expect_same_printf(want_text, got_text, c, kSides);
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <sstream>
#include <string>

#include "support/corpus_case.hpp"
#include "support/corpus_support.hpp"

namespace corpus {

// The names of the two results in messages: the reference and the one under test.
struct Sides {
  const char *want;
  const char *got;
};

inline size_t elem_size(Elem e) {
  switch (e) {
    case Elem::u8: return 1;
    case Elem::i32: case Elem::u32: case Elem::f32: return 4;
    case Elem::i64: case Elem::u64: case Elem::f64: return 8;
  }
  return 1;
}

inline std::string format_elem(const unsigned char *p, Elem e) {
  char buf[96];
  auto load = [p](auto v) {
    std::memcpy(&v, p, sizeof v);
    return v;
  };
  switch (e) {
    case Elem::u8: std::snprintf(buf, sizeof buf, "0x%02x", p[0]); break;
    case Elem::i32: std::snprintf(buf, sizeof buf, "%d", load(int32_t{})); break;
    case Elem::u32: {
      uint32_t v = load(uint32_t{});
      std::snprintf(buf, sizeof buf, "%u (0x%08x)", v, v);
      break;
    }
    case Elem::i64:
      std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(load(int64_t{})));
      break;
    case Elem::u64:
      std::snprintf(buf, sizeof buf, "0x%016llx",
                    static_cast<unsigned long long>(load(uint64_t{})));
      break;
    case Elem::f32:
      std::snprintf(buf, sizeof buf, "%.9g (0x%08x)", load(float{}), load(uint32_t{}));
      break;
    case Elem::f64:
      std::snprintf(buf, sizeof buf, "%.17g (0x%016llx)", load(double{}),
                    static_cast<unsigned long long>(load(uint64_t{})));
      break;
  }
  return buf;
}

// "" if equal, else where and how they differ.
inline std::string diff(const Bytes &want, const Bytes &got, Elem elem, const Sides &sides) {
  if (want.size() == got.size() && std::memcmp(want.data(), got.data(), want.size()) == 0)
    return "";
  std::ostringstream os;
  if (want.size() != got.size()) {
    os << "size " << got.size() << " != " << want.size();
    return os.str();
  }
  size_t es = elem_size(elem), first = want.size(), bytes = 0, elems = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    if (want[i] == got[i]) continue;
    ++bytes;
    if (first == want.size()) first = i;
  }
  for (size_t i = 0; i + es <= want.size(); i += es)
    if (std::memcmp(&want[i], &got[i], es) != 0) ++elems;
  os << "first differing byte " << first << " of " << want.size() << " (" << bytes
     << " bytes, " << elems << " elements of " << es << " bytes differ)";
  int shown = 0;
  for (size_t i = first / es * es; i + es <= want.size() && shown < 4; i += es) {
    if (std::memcmp(&want[i], &got[i], es) == 0) continue;
    os << "\n    element " << i / es << ": " << sides.want << " " << format_elem(&want[i], elem)
       << ", " << sides.got << " " << format_elem(&got[i], elem);
    ++shown;
  }
  return os.str();
}

// Every buffer the case compares must be the same in `got` as in `want`; when some buffer
// is not compared, the case's sanity check runs on `got` instead.
inline void expect_same_outputs(const Outputs &want, const Outputs &got, const Resources &r,
                                const Case &c, const Sides &sides) {
  for (size_t i = 0; i < got.size(); ++i) {
    if (!r.buffers[i].compare) continue;
    std::string d = diff(want[i], got[i], r.buffers[i].elem, sides);
    if (!d.empty())
      ADD_FAILURE() << c.kernel << " " << c.geometry.str() << ": buffer " << i
                    << (r.buffers[i].svm ? " (SVM)" : "") << " differs from " << sides.want
                    << "'s\n    " << d;
  }
  bool all_compared = std::all_of(r.buffers.begin(), r.buffers.end(),
                                  [](const Buffer &b) { return b.compare; });
  if (c.check && !all_compared) {
    SCOPED_TRACE(std::string("sanity check of ") + sides.got + "'s result");
    c.check(got, c.geometry);
  }
}

// The same printf lines, in the same order unless the case's order is not defined.
inline void expect_same_printf(const std::string &want, const std::string &got, const Case &c,
                               const Sides &sides) {
  if (c.printf_mode == PrintfMode::None) return;
  bool sorted = c.printf_mode == PrintfMode::Sorted;
  EXPECT_EQ(linesOf(got, sorted), linesOf(want, sorted))
      << "printf output differs\n--- " << sides.want << ":\n" << want << "--- " << sides.got
      << ":\n" << got;
}

}  // namespace corpus
