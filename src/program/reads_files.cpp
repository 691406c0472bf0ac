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

// The first position at or after `from` of A, B or C in `text`, or npos: a plain loop,
// which the compiler keeps to a few instructions a character (std::string::find_first_of
// looks each character up in the set with a call).
template <char A, char B, char C>
std::size_t findAny(const std::string &text, std::size_t from) {
  const char *p = text.data();
  for (std::size_t i = from, n = text.size(); i < n; ++i)
    if (p[i] == A || p[i] == B || p[i] == C) return i;
  return std::string::npos;
}

// The source as the preprocessor sees it before directives (translation phases 1-3,
// roughly): trigraph ??= and digraph %: read as '#', line continuations joined, comments
// replaced by a space, string and character literals replaced by "" (their contents
// cannot start a directive). False when a comment or literal does not end.
// Both passes copy the text between the characters that can start something (?, %, \ in
// the first; /, " and ' in the second) as whole runs: a program's source is tens to
// hundreds of KiB, and is scanned at each build.
bool logicalText(const std::string &in, std::string &out) {
  std::string joined;
  joined.reserve(in.size());
  std::size_t run = 0;  // the start of the text not copied yet
  for (std::size_t i = findAny<'?', '%', '\\'>(in, 0); i != std::string::npos;
       i = findAny<'?', '%', '\\'>(in, i + 1)) {
    std::size_t skip = 0;  // characters replaced, from i
    bool hash = false;     // replaced by '#'
    if (in.compare(i, 3, "?\?=") == 0) {
      skip = 3;
      hash = true;
    } else if (in.compare(i, 2, "%:") == 0) {
      skip = 2;
      hash = true;
    } else if (in[i] == '\\' && in.compare(i + 1, 1, "\n") == 0) {
      skip = 2;  // continuation: the next line joins this one
    } else if (in[i] == '\\' && in.compare(i + 1, 2, "\r\n") == 0) {
      skip = 3;
    } else if (in.compare(i, 4, "?\?/\n") == 0) {
      skip = 4;  // the trigraph spelling of a continuation
    }
    if (skip == 0) continue;
    joined.append(in, run, i - run);
    if (hash) joined += '#';
    run = i + skip;
    i = run - 1;
  }
  joined.append(in, run, std::string::npos);
  out.clear();
  out.reserve(joined.size());
  run = 0;
  for (std::size_t i = findAny<'/', '"', '\''>(joined, 0); i != std::string::npos;
       i = findAny<'/', '"', '\''>(joined, i)) {
    const char c = joined[i];
    std::size_t next;  // where the text after the comment or literal starts
    const char *instead;
    if (c == '/' && i + 1 < joined.size() && joined[i + 1] == '*') {
      const std::size_t end = joined.find("*/", i + 2);
      if (end == std::string::npos) return false;
      next = end + 2;
      instead = " ";
    } else if (c == '/' && i + 1 < joined.size() && joined[i + 1] == '/') {
      next = joined.find('\n', i);  // the newline stays
      instead = " ";
    } else if (c == '"' || c == '\'') {
      std::size_t j = i + 1;
      while (j < joined.size() && joined[j] != c && joined[j] != '\n') j += joined[j] == '\\' ? 2 : 1;
      if (j >= joined.size() || joined[j] != c) return false;
      next = j + 1;
      instead = c == '"' ? "\"\"" : "''";
    } else {
      ++i;  // a division
      continue;
    }
    out.append(joined, run, i - run);
    out += instead;
    if (next == std::string::npos) return true;  // a // comment on the last line
    run = i = next;
  }
  out.append(joined, run, std::string::npos);
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
