#include "json.hpp"

#include <cstdlib>
#include <stdexcept>

namespace hkbench::json {
namespace {

class Parser {
 public:
  explicit Parser(std::string_view t) : t_(t) {}

  Value document() {
    Value v = value(0);
    space();
    if (i_ != t_.size()) fail("trailing characters");
    return v;
  }

 private:
  [[noreturn]] void fail(const std::string &what) const {
    throw std::runtime_error("JSON: " + what + " at byte " + std::to_string(i_));
  }
  void space() {
    while (i_ < t_.size() && (t_[i_] == ' ' || t_[i_] == '\n' || t_[i_] == '\r' || t_[i_] == '\t'))
      ++i_;
  }
  bool eat(char c) {
    space();
    if (i_ < t_.size() && t_[i_] == c) {
      ++i_;
      return true;
    }
    return false;
  }
  void expect(char c) {
    if (!eat(c)) fail(std::string("expected '") + c + "'");
  }
  void literal(std::string_view word) {
    if (t_.substr(i_, word.size()) != word) fail("bad literal");
    i_ += word.size();
  }

  Value value(int depth) {
    if (depth > 64) fail("nesting too deep");
    space();
    if (i_ >= t_.size()) fail("unexpected end");
    Value v;
    const char c = t_[i_];
    if (c == '{') {
      ++i_;
      v.type = Value::Type::Object;
      if (eat('}')) return v;
      do {
        space();
        std::string key = string();
        expect(':');
        v.object.emplace_back(std::move(key), value(depth + 1));
      } while (eat(','));
      expect('}');
    } else if (c == '[') {
      ++i_;
      v.type = Value::Type::Array;
      if (eat(']')) return v;
      do v.array.push_back(value(depth + 1));
      while (eat(','));
      expect(']');
    } else if (c == '"') {
      v.type = Value::Type::String;
      v.string = string();
    } else if (c == 't') {
      literal("true");
      v.type = Value::Type::Bool;
      v.boolean = true;
    } else if (c == 'f') {
      literal("false");
      v.type = Value::Type::Bool;
    } else if (c == 'n') {
      literal("null");
    } else {
      v.type = Value::Type::Number;
      v.number = number();
    }
    return v;
  }

  double number() {
    const std::size_t start = i_;
    if (i_ < t_.size() && t_[i_] == '-') ++i_;
    while (i_ < t_.size() && ((t_[i_] >= '0' && t_[i_] <= '9') || t_[i_] == '.' || t_[i_] == 'e' ||
                              t_[i_] == 'E' || t_[i_] == '+' || t_[i_] == '-'))
      ++i_;
    const std::string text(t_.substr(start, i_ - start));
    if (text.empty() || text == "-") fail("expected a value");
    char *end = nullptr;
    const double d = std::strtod(text.c_str(), &end);
    if (end != text.c_str() + text.size()) fail("bad number");
    return d;
  }

  unsigned hex4() {
    if (i_ + 4 > t_.size()) fail("short \\u escape");
    unsigned v = 0;
    for (int k = 0; k < 4; ++k) {
      const char h = t_[i_++];
      v <<= 4;
      if (h >= '0' && h <= '9') v |= static_cast<unsigned>(h - '0');
      else if (h >= 'a' && h <= 'f') v |= static_cast<unsigned>(h - 'a' + 10);
      else if (h >= 'A' && h <= 'F') v |= static_cast<unsigned>(h - 'A' + 10);
      else fail("bad \\u escape");
    }
    return v;
  }

  static void utf8(std::string &o, unsigned cp) {
    if (cp < 0x80) {
      o += static_cast<char>(cp);
    } else if (cp < 0x800) {
      o += static_cast<char>(0xc0 | (cp >> 6));
      o += static_cast<char>(0x80 | (cp & 0x3f));
    } else if (cp < 0x10000) {
      o += static_cast<char>(0xe0 | (cp >> 12));
      o += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
      o += static_cast<char>(0x80 | (cp & 0x3f));
    } else {
      o += static_cast<char>(0xf0 | (cp >> 18));
      o += static_cast<char>(0x80 | ((cp >> 12) & 0x3f));
      o += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
      o += static_cast<char>(0x80 | (cp & 0x3f));
    }
  }

  std::string string() {
    if (i_ >= t_.size() || t_[i_] != '"') fail("expected a string");
    ++i_;
    std::string o;
    for (;;) {
      if (i_ >= t_.size()) fail("unterminated string");
      const char c = t_[i_++];
      if (c == '"') return o;
      if (static_cast<unsigned char>(c) < 0x20) fail("control character in string");
      if (c != '\\') {
        o += c;
        continue;
      }
      if (i_ >= t_.size()) fail("unterminated escape");
      switch (t_[i_++]) {
        case '"': o += '"'; break;
        case '\\': o += '\\'; break;
        case '/': o += '/'; break;
        case 'b': o += '\b'; break;
        case 'f': o += '\f'; break;
        case 'n': o += '\n'; break;
        case 'r': o += '\r'; break;
        case 't': o += '\t'; break;
        case 'u': {
          unsigned cp = hex4();
          if (cp >= 0xd800 && cp < 0xdc00 && t_.substr(i_, 2) == "\\u") {
            i_ += 2;
            const unsigned lo = hex4();
            if (lo >= 0xdc00 && lo < 0xe000) cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
          }
          utf8(o, cp);
          break;
        }
        default: fail("bad escape");
      }
    }
  }

  std::string_view t_;
  std::size_t i_ = 0;
};

}  // namespace

const Value *Value::find(std::string_view key) const {
  for (const auto &[k, v] : object)
    if (k == key) return &v;
  return nullptr;
}

Value parse(std::string_view text) { return Parser(text).document(); }

}  // namespace hkbench::json
