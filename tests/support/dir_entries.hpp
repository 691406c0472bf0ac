// The names a directory holds, for tests that check what was left in it (a cache's
// entries, temporary files).
//
//   TempDir dir("hk-cache-test");
//   ...
//   EXPECT_EQ(DirEntryNames(dir.path), (std::vector<std::string>{"a.hkc", "b.hkc"}));
#pragma once

#include <dirent.h>

#include <algorithm>
#include <string>
#include <vector>

// The names of `dir`'s entries but "." and "..", sorted so that tests compare them with a
// list; none when `dir` cannot be read.
inline std::vector<std::string> DirEntryNames(const std::string &dir) {
  std::vector<std::string> names;
  if (DIR *d = opendir(dir.c_str())) {
    while (dirent *e = readdir(d))
      if (std::string n = e->d_name; n != "." && n != "..") names.push_back(n);
    closedir(d);
  }
  std::sort(names.begin(), names.end());
  return names;
}
