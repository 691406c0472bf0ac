#include "program/reads_files.hpp"

#include <cctype>
#include <cstring>

namespace hk::program {
namespace {

bool optionsReadFiles(const std::string &options) {
  for (const char *word : {"-include", "-imacros", "-iprefix", "-fmodule", "-fprebuilt"})
    if (options.find(word) != std::string::npos) return true;
  // A response file (@file) is read by the compiler.
  for (std::size_t i = 0; i < options.size(); ++i)
    if (options[i] == '@' && (i == 0 || std::isspace(static_cast<unsigned char>(options[i - 1]))))
      return true;
  return false;
}

// The source as the preprocessor sees it before directives (translation phases 1-3,
// roughly): trigraph ??= and digraph %: read as '#', line continuations joined, comments
// replaced by a space, string and character literals replaced by "" (their contents
// cannot start a directive). False when a comment or literal does not end.
bool logicalText(const std::string &in, std::string &out) {
  std::string joined;
  joined.reserve(in.size());
  for (std::size_t i = 0; i < in.size(); ++i) {
    if (in.compare(i, 3, "?\?=") == 0) {
      joined += '#';
      i += 2;
    } else if (in.compare(i, 2, "%:") == 0) {
      joined += '#';
      i += 1;
    } else if (in[i] == '\\' && (in.compare(i + 1, 1, "\n") == 0 || in.compare(i + 1, 2, "\r\n") == 0)) {
      i += in[i + 1] == '\r' ? 2 : 1;  // continuation: the next line joins this one
    } else if (in.compare(i, 4, "?\?/\n") == 0) {
      i += 3;  // the trigraph spelling of a continuation
    } else {
      joined += in[i];
    }
  }
  out.clear();
  out.reserve(joined.size());
  for (std::size_t i = 0; i < joined.size(); ++i) {
    const char c = joined[i];
    if (c == '/' && i + 1 < joined.size() && joined[i + 1] == '*') {
      const std::size_t end = joined.find("*/", i + 2);
      if (end == std::string::npos) return false;
      out += ' ';
      i = end + 1;
    } else if (c == '/' && i + 1 < joined.size() && joined[i + 1] == '/') {
      const std::size_t end = joined.find('\n', i);
      out += ' ';
      if (end == std::string::npos) break;
      i = end - 1;
    } else if (c == '"' || c == '\'') {
      std::size_t j = i + 1;
      while (j < joined.size() && joined[j] != c && joined[j] != '\n') j += joined[j] == '\\' ? 2 : 1;
      if (j >= joined.size() || joined[j] != c) return false;
      out += c;
      out += c;
      i = j;
    } else {
      out += c;
    }
  }
  return true;
}

bool isIdentChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

}  // namespace

bool readsFiles(const std::string &source, const std::string &options) {
  if (optionsReadFiles(options)) return true;
  // __has_include answers from the file system, wherever it appears.
  if (source.find("__has_include") != std::string::npos ||
      source.find("__has_embed") != std::string::npos)
    return true;
  std::string text;
  if (!logicalText(source, text)) return true;
  for (std::size_t at = 0; at < text.size();) {
    std::size_t i = text.find_first_not_of(" \t\v\f\r", at);
    if (i != std::string::npos && text[i] == '#') {
      i = text.find_first_not_of(" \t\v\f\r", i + 1);
      std::size_t end = i;
      while (end != std::string::npos && end < text.size() && isIdentChar(text[end])) ++end;
      if (i != std::string::npos) {
        const std::string name = text.substr(i, end - i);
        // include, include_next, import, embed, and anything that starts like them.
        for (const char *word : {"include", "import", "embed"})
          if (name.rfind(word, 0) == 0) return true;
      }
    }
    const std::size_t nl = text.find('\n', at);
    if (nl == std::string::npos) break;
    at = nl + 1;
  }
  return false;
}

}  // namespace hk::program
