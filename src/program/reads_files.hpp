// Whether compiling a program may read files other than its source: then the source alone
// does not say what PoCL compiles, and the program is not cached (docs/cache.md, "Key").
// PoCL's own key is the preprocessed source, so a changed header is a new program to it;
// the program cache keys the source as written, and must stay out of the way. When in
// doubt the answer is yes.
//
//   if (readsFiles(source, options)) return noCache("the program includes files");
#pragma once

#include <string>

namespace hk::program {

// True when `source` has a directive that reads a file (#include, #include_next, #import,
// #embed — also spelt with the digraph %: or the trigraph ??=, split by comments or line
// continuations), uses __has_include or __has_embed, has a comment or literal that does not
// end, or when `options` name a file to read (-include, -imacros, @file, ...).
bool readsFiles(const std::string &source, const std::string &options);

}  // namespace hk::program
