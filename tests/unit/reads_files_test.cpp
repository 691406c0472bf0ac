// readsFiles (src/program/reads_files.hpp): a program whose compilation may read a file is
// not cached. Issue 24: a line-start text scan missed #/**/include, continued lines,
// #import and __has_include, and such programs kept an old header's behaviour.
#include "program/reads_files.hpp"

#include <gtest/gtest.h>

namespace {

using hk::program::readsFiles;

TEST(ReadsFiles, EverySpellingOfAnIncludeCounts) {
  for (const char *source : {
           "#include \"a.h\"\nkernel void k() {}",
           "  #  include <a.h>\n",
           "#/**/include \"a.h\"\n",
           "#/* a\n comment */ include \"a.h\"\n",
           "#\\\ninclude \"a.h\"\n",
           "#inc\\\nlude \"a.h\"\n",
           "\\\n#include \"a.h\"\n",
           "#import \"a.h\"\n",
           "#include_next <a.h>\n",
           "#embed \"data.bin\"\n",
           "%:include \"a.h\"\n",
           "?\?=include \"a.h\"\n",
           "#if __has_include(\"a.h\")\n#endif\n",
           "#define H \"a.h\"\n#include H\n",
           "kernel void k() {} /* never closed",
           "constant char *s = \"never closed;\n",
           "char a = '\"', b = '/'; constant char *s = \"'/*\";\n#include \"a.h\"\n",
           "int a = 4 / 2; // a comment\n  #  include <a.h>\n",
       })
    EXPECT_TRUE(readsFiles(source, "")) << source;
}

TEST(ReadsFiles, OptionsThatReadFilesCount) {
  for (const char *options : {"-include a.h", "-imacros m.h", "--include=a.h", "@opts.txt",
                              "-cl-std=CL1.2 @more"})
    EXPECT_TRUE(readsFiles("kernel void k() {}", options)) << options;
}

TEST(ReadsFiles, ProgramsThatReadNothingAreCached) {
  for (const char *source : {
           "kernel void k(global int *p) { p[0] = 1; }\n",
           "#define N 4\n#pragma OPENCL EXTENSION cl_khr_fp64 : enable\nkernel void k() {}\n",
           "// #include \"a.h\" in a comment\nkernel void k() {}\n",
           "/* #include \"a.h\" */ kernel void k() {}\n",
           "constant char *s = \"#include in a string\";\n",
           "kernel void k(global int *p) { p[0] = 10 % 3; }\n",
           "kernel void k(global int *p) { p[0] = 4 / 2 ? 1 : 0; } // the last line",
           "char a = '\"'; constant char *s = \"#include '\"; /* \"\n#include */\n",
       })
    EXPECT_FALSE(readsFiles(source, "-cl-std=CL1.2 -DN=4 -I/usr/include")) << source;
}

}  // namespace
