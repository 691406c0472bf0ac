// Tests for the poclbinary reader (versions 9, 11, 12): a real binary from PoCL at test
// time, every truncation of it, random corruption, and hand-made binaries of each version
// with one defect each.
// Run under ASan (HK_SANITIZE=address) the truncation test poisons the bytes past the
// prefix, so any read beyond the length given to the parser is reported.
#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 300
#endif
#include <CL/cl.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "pocl/binary.hpp"
#include "pocl/release.hpp"
#include "support/pocl_device.hpp"

#if defined(__SANITIZE_ADDRESS__)
#define HK_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define HK_TEST_ASAN 1
#endif
#endif
#ifdef HK_TEST_ASAN
#include <sanitizer/asan_interface.h>

// Building a program through PoCL leaves PoCL's and LLVM's compiler state allocated at
// exit; LeakSanitizer would fail this test binary for leaks that are not ours.
extern "C" const char *__lsan_default_suppressions() {
  return "leak:libpocl.so\nleak:libLLVM\nleak:libclang-cpp\nleak:libOpenCL.so\n";
}
#endif

namespace hk::pocl {
namespace {

using Bytes = std::vector<std::uint8_t>;

// ---------------------------------------------------------------------------------------
// A real binary, built once per process through PoCL.

constexpr const char *kSource = R"CLC(
typedef struct { float a; int b; double c; } S;
kernel void axpy(global float *y, global const float *x, float a) {
  size_t i = get_global_id(0);
  y[i] += a * x[i];
}
kernel void tiled(global float *y) {
  __local float tile[64];
  __local int counts[3];
  size_t l = get_local_id(0);
  tile[l] = y[get_global_id(0)];
  counts[l % 3] = 1;
  barrier(CLK_LOCAL_MEM_FENCE);
  y[get_global_id(0)] = tile[63 - l] + counts[0];
}
kernel void withlocal(global float *y, local float *scratch, S s, int n) {
  scratch[get_local_id(0)] = s.a + s.b + (float)s.c + n;
  barrier(CLK_LOCAL_MEM_FENCE);
  y[get_global_id(0)] = scratch[0];
}
)CLC";

struct RealBinary {
  Bytes bytes;
  const Release *release = nullptr;  // the PoCL that wrote it
  std::string problem;  // why there is none: no PoCL (skip) or a failed step (fail)
  bool have_pocl = false;
};

RealBinary buildRealBinary() {
  RealBinary out;
  cl_uint n = 0;
  if (clGetPlatformIDs(0, nullptr, &n) != CL_SUCCESS || n == 0) {
    out.problem = "no OpenCL platform";
    return out;
  }
  cl_device_id dev = nullptr;
  cl_platform_id platform = nullptr;
  if (!FindPoclDevice(&platform, &dev)) {
    out.problem = "no PoCL CPU device";
    return out;
  }
  char version[512] = {};
  clGetPlatformInfo(platform, CL_PLATFORM_VERSION, sizeof version - 1, version, nullptr);
  out.release = findRelease(version);
  out.have_pocl = true;
  cl_int err = CL_SUCCESS;
  cl_context ctx = clCreateContext(nullptr, 1, &dev, nullptr, nullptr, &err);
  if (!ctx) {
    out.problem = "clCreateContext failed: " + std::to_string(err);
    return out;
  }
  const char *src = kSource;
  cl_program prog = clCreateProgramWithSource(ctx, 1, &src, nullptr, &err);
  if (prog && clBuildProgram(prog, 1, &dev, "", nullptr, nullptr) == CL_SUCCESS) {
    std::size_t size = 0;
    if (clGetProgramInfo(prog, CL_PROGRAM_BINARY_SIZES, sizeof size, &size, nullptr) ==
            CL_SUCCESS &&
        size > 0) {
      out.bytes.resize(size);
      unsigned char *ptr = out.bytes.data();
      if (clGetProgramInfo(prog, CL_PROGRAM_BINARIES, sizeof ptr, &ptr, nullptr) !=
          CL_SUCCESS)
        out.bytes.clear();
    }
  }
  if (out.bytes.empty()) out.problem = "building the program or querying its binary failed";
  if (prog) clReleaseProgram(prog);
  clReleaseContext(ctx);
  return out;
}

const RealBinary &realBinary() {
  static const RealBinary bin = buildRealBinary();
  return bin;
}

// Byte ranges [begin, end) of file contents (offsets into `data`): corrupting or cutting
// inside them only changes opaque bytes, so the dense tests concentrate elsewhere.
std::vector<std::pair<std::size_t, std::size_t>> contentRanges(const Bytes &data,
                                                               const PoclBinary &bin) {
  std::vector<std::pair<std::size_t, std::size_t>> r;
  auto add = [&](const FileRecord &f) {
    const std::size_t b = static_cast<std::size_t>(f.bytes.data() - data.data());
    r.emplace_back(b, b + f.bytes.size());
  };
  for (const auto &f : bin.program_files) add(f);
  for (const auto &k : bin.kernels)
    for (const auto &f : k.files) add(f);
  return r;
}

bool insideContent(const std::vector<std::pair<std::size_t, std::size_t>> &ranges,
                   std::size_t off) {
  for (auto [b, e] : ranges)
    if (off > b && off < e) return true;
  return false;
}

// The real binary (`data`, written by `real.release`), parsed whole into `full`, with the
// byte ranges of its files' contents (`content`). SetUp skips without PoCL, and fails when
// PoCL broke or the binary does not parse: no test of it can run then.
class RealPoclBinary : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!real.have_pocl) GTEST_SKIP() << real.problem;
    ASSERT_FALSE(data.empty()) << real.problem;
    std::string err;
    ASSERT_TRUE(parsePoclBinary(data.data(), data.size(), full, err)) << err;
    content = contentRanges(data, full);
  }

  const RealBinary &real = realBinary();
  const Bytes &data = real.bytes;
  PoclBinary full;
  std::vector<std::pair<std::size_t, std::size_t>> content;
};

// Checks what a successful parse promises: sizes agree with counts, every file lies
// inside the input, paths are relative and inside their kernel's directory.
void expectConsistent(const PoclBinary &bin, const Bytes &data) {
  auto inside = [&](std::span<const std::uint8_t> s) {
    return s.data() >= data.data() && s.data() + s.size() <= data.data() + data.size();
  };
  auto sanePath = [](const std::string &p) {
    return !p.empty() && p.front() != '/' && p.find("//") == std::string::npos &&
           p.find("..") == std::string::npos;
  };
  for (const auto &f : bin.program_files) {
    EXPECT_TRUE(inside(f.bytes)) << f.path;
    EXPECT_TRUE(sanePath(f.path)) << f.path;
  }
  for (const auto &k : bin.kernels) {
    EXPECT_EQ(k.args.size(), k.num_args);
    EXPECT_EQ(k.local_sizes.size(), k.num_locals);
    for (const auto &f : k.files) {
      EXPECT_TRUE(inside(f.bytes)) << f.path;
      EXPECT_TRUE(sanePath(f.path)) << f.path;
      EXPECT_EQ(f.path.rfind(k.name + "/", 0), 0u) << f.path;
    }
  }
}

// Parses data[0, len) with the bytes after `len` made unreadable under ASan.
class PoisonedTail {
 public:
  explicit PoisonedTail(const Bytes &src) : buf_(src) {}
  ~PoisonedTail() { unpoison(); }

  bool parsePrefix(std::size_t len, PoclBinary &out, std::string &err) {
#ifdef HK_TEST_ASAN
    ASAN_POISON_MEMORY_REGION(buf_.data() + len, buf_.size() - len);
#endif
    const bool ok = parsePoclBinary(buf_.data(), len, out, err);
    unpoison();
    return ok;
  }

 private:
  void unpoison() {
#ifdef HK_TEST_ASAN
    ASAN_UNPOISON_MEMORY_REGION(buf_.data(), buf_.size());
#endif
  }
  Bytes buf_;
};

// ---------------------------------------------------------------------------------------
// Hand-made binaries: the same layout PoCL writes, with fields tests can break.

class Writer {
 public:
  void u32(std::uint32_t v) {
    for (int i = 0; i < 4; ++i) b.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
  }
  void u64(std::uint64_t v) {
    for (int i = 0; i < 8; ++i) b.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
  }
  void raw(std::string_view s) { b.insert(b.end(), s.begin(), s.end()); }
  void str(std::string_view s) {
    u32(static_cast<std::uint32_t>(s.size()));
    raw(s);
  }
  Bytes b;
};

void put32(Bytes &b, std::size_t at, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) b.at(at + i) = static_cast<std::uint8_t>(v >> (8 * i));
}
void put64(Bytes &b, std::size_t at, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) b.at(at + i) = static_cast<std::uint8_t>(v >> (8 * i));
}

struct SynthArg {
  std::uint32_t address = 0x119b;  // CL_KERNEL_ARG_ADDRESS_GLOBAL
  std::uint32_t kind = 1;          // pointer
  std::uint32_t type_size = 8;
  std::string name = "p";
  std::string type_name = "float*";
};

struct Synth {
  std::string magic = std::string("poclbin\0", 8);
  std::uint32_t version = 9;
  std::uint64_t flags = std::uint64_t{4} << 32;  // executable, no FTZ
  std::uint64_t var_bytes = 0;       // written after the hash when flags bit 1 is set
  std::uint32_t kernel_flags = 0;    // version 11 and later
  std::vector<std::uint32_t> kernel_meta;  // the u32 values kernel_flags announces
  std::string hash = "AB/CDEFGHIJKLMNOPABCDEFGHIJKLMNOPABCDEFG";  // 40 chars like PoCL's
  std::vector<std::pair<std::string, std::string>> root_files = {
      {"/program.bc", "BC\xc0\xde"}};
  std::string kernel = "k";
  std::vector<SynthArg> args = {SynthArg{}, SynthArg{0x119e, 0, 4, "a", "float"}};
  std::vector<std::uint64_t> locals = {256};
  std::vector<std::pair<std::string, std::string>> kernel_files = {
      {"/k/0-0-0/k.so", std::string("\x7f" "ELF", 4) + "rest of the library"}};

  // Offsets of fields in the last build(), for tests that corrupt them.
  std::size_t num_kernels_at = 20, root_entries_at = 32;
  std::size_t root_size_at = 0, struct_size_at = 0, binaries_size_at = 0, arginfo_at = 0,
              num_args_at = 0, num_locals_at = 0, first_arg_kind_at = 0,
              kernel_file_at = 0;

  Bytes build() {
    Writer w;
    w.raw(magic);
    w.u64(0x1234);
    w.u32(version);
    w.u32(1);                     // kernels
    w.u64(flags);
    w.u32(1);                     // root entries
    std::string h = hash;
    h.resize(41, '\0');
    w.raw(h);
    if (version >= 11 && (flags & kBinaryHasProgramScopeVars)) w.u64(var_bytes);

    root_size_at = w.b.size();
    Writer root;
    for (auto &[p, c] : root_files) root.str(p), root.str(c);
    w.u64(root.b.size());
    w.b.insert(w.b.end(), root.b.begin(), root.b.end());

    Writer meta, arginfo, files;
    meta.str(kernel);
    num_args_at = meta.b.size();
    meta.u32(static_cast<std::uint32_t>(args.size()));
    num_locals_at = meta.b.size();
    meta.u32(static_cast<std::uint32_t>(locals.size()));
    for (int i = 0; i < 3; ++i) meta.u64(0);
    for (auto l : locals) meta.u64(l);
    meta.str("");
    if (version >= 11) {
      meta.u32(0x1f);
      meta.u32(kernel_flags);
      for (auto v : kernel_meta) meta.u32(v);
    } else {
      meta.u64(0x1f);
    }
    for (auto &a : args) {
      arginfo.u32(0x11a3);
      arginfo.u32(a.address);
      arginfo.u64(0);
      arginfo.u32(a.kind);
      arginfo.u32(a.type_size);
      arginfo.str(a.name);
      arginfo.str(a.type_name);
    }
    for (auto &[p, c] : kernel_files) files.str(p), files.str(c);

    struct_size_at = w.b.size();
    const std::size_t fixed = 8 + 8 + 4;
    w.u64(fixed + meta.b.size() + arginfo.b.size() + files.b.size());
    binaries_size_at = w.b.size();
    w.u64(files.b.size());
    arginfo_at = w.b.size();
    w.u32(static_cast<std::uint32_t>(arginfo.b.size()));
    num_args_at += w.b.size();
    num_locals_at += w.b.size();
    w.b.insert(w.b.end(), meta.b.begin(), meta.b.end());
    first_arg_kind_at = w.b.size() + 4 + 4 + 8;  // after access, address, type qualifier
    w.b.insert(w.b.end(), arginfo.b.begin(), arginfo.b.end());
    kernel_file_at = w.b.size();
    w.b.insert(w.b.end(), files.b.begin(), files.b.end());
    return w.b;
  }
};

// Parses and expects failure; returns the message for further checks.
std::string expectRejected(const Bytes &b) {
  PoclBinary bin;
  std::string err;
  EXPECT_FALSE(parsePoclBinary(b.data(), b.size(), bin, err));
  EXPECT_NE(err.find("offset"), std::string::npos) << err;
  EXPECT_TRUE(bin.kernels.empty() && bin.program_files.empty());
  return err;
}

// ---------------------------------------------------------------------------------------

TEST_F(RealPoclBinary, ParsesRealBinaryKernelsArgumentsLocalsAndGenericLibrary) {
  ASSERT_NE(real.release, nullptr) << "PoCL release not described in release.hpp";
  EXPECT_EQ(full.version, real.release->binary_version);
  EXPECT_EQ(full.binaryType(), 4u);  // CL_PROGRAM_BINARY_TYPE_EXECUTABLE
  EXPECT_FALSE(full.flushDenorms());
  EXPECT_EQ(full.build_hash.size(), 40u) << full.build_hash;
  ASSERT_EQ(full.kernels.size(), 3u);
  ASSERT_FALSE(full.program_files.empty());
  EXPECT_EQ(full.program_files[0].path, "program.bc");
  expectConsistent(full, data);

  const KernelRecord *axpy = full.findKernel("axpy");
  ASSERT_NE(axpy, nullptr);
  ASSERT_EQ(axpy->num_args, 3u);
  EXPECT_EQ(axpy->num_locals, 0u);
  EXPECT_EQ(axpy->args[0].kind, ArgKind::Pointer);
  EXPECT_EQ(axpy->args[0].address_qualifier, unsigned{CL_KERNEL_ARG_ADDRESS_GLOBAL});
  EXPECT_EQ(axpy->args[1].type_qualifier & CL_KERNEL_ARG_TYPE_CONST,
            cl_kernel_arg_type_qualifier{CL_KERNEL_ARG_TYPE_CONST});
  EXPECT_EQ(axpy->args[2].kind, ArgKind::Scalar);
  EXPECT_EQ(axpy->args[2].type_size, 4u);
  EXPECT_EQ(axpy->args[2].name, "a");
  EXPECT_EQ(axpy->args[2].type_name, "float");
  std::span<const std::uint8_t> so = axpy->findFile("axpy/0-0-0/axpy.so");
  ASSERT_GE(so.size(), 4u);
  EXPECT_EQ(std::memcmp(so.data(), "\x7f" "ELF", 4), 0);

  const KernelRecord *tiled = full.findKernel("tiled");
  ASSERT_NE(tiled, nullptr);
  EXPECT_EQ(tiled->num_args, 1u);
  ASSERT_EQ(tiled->num_locals, 2u);
  EXPECT_EQ(tiled->local_sizes, (std::vector<std::uint64_t>{64 * 4, 3 * 4}));
  EXPECT_FALSE(tiled->findFile("tiled/0-0-0/tiled.so").empty());

  const KernelRecord *wl = full.findKernel("withlocal");
  ASSERT_NE(wl, nullptr);
  ASSERT_EQ(wl->num_args, 4u);
  EXPECT_EQ(wl->num_locals, 0u);  // a local pointer argument is not an automatic local
  EXPECT_EQ(wl->args[1].kind, ArgKind::Pointer);
  EXPECT_EQ(wl->args[1].address_qualifier, unsigned{CL_KERNEL_ARG_ADDRESS_LOCAL});
  EXPECT_EQ(wl->args[2].kind, ArgKind::Scalar);
  EXPECT_EQ(wl->args[2].type_size, 0u);  // by-value struct
  EXPECT_EQ(wl->args[3].type_size, 4u);
  EXPECT_FALSE(wl->findFile("withlocal/0-0-0/withlocal.so").empty());

  EXPECT_EQ(full.findKernel("nope"), nullptr);
  EXPECT_TRUE(axpy->findFile("axpy/0-0-0/nope.so").empty());
}

TEST_F(RealPoclBinary, EveryTruncationOfRealBinaryIsRejectedWithoutReadingPastTheEnd) {
  // Every length outside file contents; inside them (opaque bytes, all cut the same
  // field) every 7th, which keeps the test well under a second even under ASan.
  PoisonedTail buf(data);
  std::size_t tried = 0;
  std::string err;
  for (std::size_t len = 0; len < data.size(); ++len) {
    if (insideContent(content, len) && len % 7 != 0) continue;
    PoclBinary bin;
    err.clear();
    ASSERT_FALSE(buf.parsePrefix(len, bin, err)) << "prefix of " << len << " bytes parsed";
    ASSERT_NE(err.find("offset"), std::string::npos) << err;
    ++tried;
  }
  EXPECT_GT(tried, data.size() / 8);
  PoclBinary bin;
  EXPECT_TRUE(buf.parsePrefix(data.size(), bin, err)) << err;
}

TEST_F(RealPoclBinary, RandomCorruptionNeverCrashesAndSuccessfulParsesStayInBounds) {
  std::string err;
  std::vector<std::size_t> structural;  // offsets outside file contents
  for (std::size_t i = 0; i < data.size(); ++i)
    if (!insideContent(content, i)) structural.push_back(i);

  Bytes buf = data;  // exact size: ASan's redzone starts right after the last byte
  std::mt19937_64 rng(20240611);
  const std::uint64_t edge[] = {0, 1, 7, 0x7fffffff, 0xffffffff, 0xfffffffffffffff0ull,
                                data.size(), data.size() + 1};
  int accepted = 0, rejected = 0;
  for (int iter = 0; iter < 4000; ++iter) {
    const int edits = 1 + static_cast<int>(rng() % 3);
    std::vector<std::pair<std::size_t, Bytes>> undo;
    for (int e = 0; e < edits; ++e) {
      std::size_t at = rng() % 5 ? structural[rng() % structural.size()] : rng() % buf.size();
      const std::size_t width = std::min<std::size_t>(8, buf.size() - at);
      undo.emplace_back(at, Bytes(buf.begin() + at, buf.begin() + at + width));
      switch (rng() % 4) {
        case 0: buf[at] = static_cast<std::uint8_t>(rng()); break;
        case 1: buf[at] ^= static_cast<std::uint8_t>(1u << (rng() % 8)); break;
        case 2:
          if (width >= 4) put32(buf, at, static_cast<std::uint32_t>(edge[rng() % 8]));
          break;
        default:
          if (width >= 8) put64(buf, at, edge[rng() % 8]);
          break;
      }
    }
    PoclBinary bin;
    err.clear();
    if (parsePoclBinary(buf.data(), buf.size(), bin, err)) {
      ++accepted;
      expectConsistent(bin, buf);
    } else {
      ++rejected;
      ASSERT_EQ(err.rfind("poclbinary: ", 0), 0u) << err;
      ASSERT_NE(err.find("offset"), std::string::npos) << err;
    }
    for (auto it = undo.rbegin(); it != undo.rend(); ++it)
      std::copy(it->second.begin(), it->second.end(), buf.begin() + it->first);
  }
  ASSERT_EQ(buf, data);
  // Most edits hit a length, count or check; some land in strings and stay valid.
  EXPECT_GT(rejected, 2000) << accepted << " accepted";
}

TEST(PoclBinary, ParsesHandMadeBinaryAndStripsLeadingSlashFromPaths) {
  Synth s;
  Bytes b = s.build();
  PoclBinary bin;
  std::string err;
  ASSERT_TRUE(parsePoclBinary(b.data(), b.size(), bin, err)) << err;
  EXPECT_EQ(bin.device_id, 0x1234u);
  EXPECT_EQ(bin.build_hash, s.hash);
  ASSERT_EQ(bin.program_files.size(), 1u);
  EXPECT_EQ(bin.program_files[0].path, "program.bc");
  const KernelRecord *k = bin.findKernel("k");
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->local_sizes, std::vector<std::uint64_t>{256});
  ASSERT_EQ(k->args.size(), 2u);
  EXPECT_EQ(k->args[1].kind, ArgKind::Scalar);
  EXPECT_TRUE(k->has_arg_metadata);
  ASSERT_EQ(k->files.size(), 1u);
  EXPECT_EQ(k->files[0].path, "k/0-0-0/k.so");
  EXPECT_EQ(k->findFile("k/0-0-0/k.so").size(), 23u);
}

TEST(PoclBinary, RejectsEmptyInputAndBareHeader) {
  EXPECT_NE(expectRejected({}).find("magic"), std::string::npos);
  Synth s;
  Bytes b = s.build();
  b.resize(77);  // header only, promises a root entry and a kernel
  EXPECT_NE(expectRejected(b).find("root entry count 1"), std::string::npos);
}

TEST(PoclBinary, RejectsWrongMagic) {
  Synth s;
  s.magic = std::string("poclbiN\0", 8);
  EXPECT_NE(expectRejected(s.build()).find("wrong magic"), std::string::npos);
  Bytes elf = Synth{}.build();
  std::memcpy(elf.data(), "\x7f" "ELF\2\1\1\0", 8);
  EXPECT_NE(expectRejected(elf).find("wrong magic"), std::string::npos);
}

// PoCL 4.0 to 7.1: the header's program-scope variable size and the kernel flags with
// both kinds of metadata.
TEST(PoclBinary, ReadsVersion11HeaderSizeAndKernelMetadata) {
  Synth s;
  s.version = 11;
  s.flags |= kBinaryHasProgramScopeVars;
  s.var_bytes = 20;
  s.kernel_flags = kKernelHasWorkGroupMeta | kKernelHasSubGroupMeta;
  s.kernel_meta = {2, 1, 4096, 16, 256, 32, 0};  // sub-group pair, then five work-group
  Bytes b = s.build();
  PoclBinary bin;
  std::string err;
  ASSERT_TRUE(parsePoclBinary(b.data(), b.size(), bin, err)) << err;
  EXPECT_EQ(bin.version, 11u);
  EXPECT_EQ(bin.program_scope_var_bytes, 20u);
  const KernelRecord *k = bin.findKernel("k");
  ASSERT_NE(k, nullptr);
  EXPECT_TRUE(k->has_arg_metadata);
  EXPECT_EQ(k->max_subgroups, 2u);
  EXPECT_EQ(k->compile_subgroups, 1u);
  EXPECT_EQ(k->max_wg_size, 4096u);
  EXPECT_EQ(k->preferred_wg_multiple, 16u);
  EXPECT_EQ(k->local_mem_size, 256u);
  EXPECT_EQ(k->private_mem_size, 32u);
  ASSERT_EQ(k->args.size(), 2u);
  EXPECT_EQ(k->args[0].name, "p");
  EXPECT_EQ(k->findFile("k/0-0-0/k.so").size(), 23u);

  // Without the header bit there is no size field; the reader goes by the bit.
  s.flags &= ~kBinaryHasProgramScopeVars;
  b = s.build();
  ASSERT_TRUE(parsePoclBinary(b.data(), b.size(), bin, err)) << err;
  EXPECT_EQ(bin.program_scope_var_bytes, 0u);
  EXPECT_EQ(bin.findKernel("k")->local_mem_size, 256u);
}

// Metadata announced by the flags but one u32 short: the argument records are then read
// four bytes late and the record no longer adds up, whichever field notices first.
TEST(PoclBinary, RejectsVersion11KernelFlagsWithoutTheirMetadata) {
  Synth s;
  s.version = 11;
  s.kernel_flags = kKernelHasWorkGroupMeta;
  s.kernel_meta = {1, 2, 3, 4};
  expectRejected(s.build());
  // The same bytes as version 12 with a required sub-group size would need one more.
  s.kernel_meta = {1, 2, 3, 4, 5};
  s.version = 12;
  s.kernel_flags |= kKernelHasReqdSubGroupSize;
  expectRejected(s.build());
}

TEST(PoclBinary, ReadsVersion12RequiredSubGroupSize) {
  Synth s;
  s.version = 12;
  s.flags |= kBinaryHasProgramScopeVars;
  s.kernel_flags = kKernelHasReqdSubGroupSize;
  s.kernel_meta = {8};
  Bytes b = s.build();
  PoclBinary bin;
  std::string err;
  ASSERT_TRUE(parsePoclBinary(b.data(), b.size(), bin, err)) << err;
  EXPECT_EQ(bin.findKernel("k")->reqd_sub_group_size, 8u);
  // Version 11 has no such field: the u32 is left over where the arguments start.
  s.version = 11;
  expectRejected(s.build());
}

// From 4.0 PoCL names a long kernel's directory by a prefix and a hash of the name.
TEST(PoclBinary, AcceptsClippedKernelDirectoriesFromVersion11Only) {
  const std::string name(71, 'n');
  const std::string dir = clippedName(name, 59);
  ASSERT_EQ(dir.size(), 59u);
  Synth s;
  s.kernel = name;
  s.kernel_files = {{"/" + dir + "/0-0-0/" + dir + ".so", "\x7f" "ELF"}};
  s.version = 9;
  EXPECT_NE(expectRejected(s.build()).find("outside the kernel's directory"),
            std::string::npos);
  s.version = 11;
  Bytes b = s.build();
  PoclBinary bin;
  std::string err;
  ASSERT_TRUE(parsePoclBinary(b.data(), b.size(), bin, err)) << err;
  // A directory that is no clipped form of this name stays outside.
  s.kernel_files = {{"/" + std::string(18, 'm') + dir.substr(18) + "/0-0-0/x.so", "x"}};
  expectRejected(s.build());
}

TEST(PoclBinary, RejectsFormatVersions8And10) {
  for (std::uint32_t v : {8u, 10u, 0u, 0xffffffffu}) {
    Synth s;
    s.version = v;
    const std::string err = expectRejected(s.build());
    EXPECT_NE(err.find("version " + std::to_string(v)), std::string::npos) << err;
  }
}

TEST(PoclBinary, RejectsAbsurdCountsBeforeAllocating) {
  Synth s;
  const Bytes good = s.build();
  struct Case {
    std::size_t at;
    bool wide;
    std::uint64_t value;
    const char *expect;
  } cases[] = {
      {s.num_kernels_at, false, 0xffffffff, "kernel count 4294967295"},
      {s.root_entries_at, false, 0xffffffff, "root entry count 4294967295"},
      {s.num_args_at, false, 0xffffffff, "argument count 4294967295"},
      {s.num_locals_at, false, 0x40000000, "local count 1073741824"},
      {s.root_size_at, true, ~std::uint64_t{0}, "root entry 0"},
      {s.struct_size_at, true, ~std::uint64_t{0}, "declares size"},
      {s.struct_size_at, true, 3, "declares size 3"},
      {s.binaries_size_at, true, ~std::uint64_t{0} / 2, "bytes of files"},
      {s.kernel_file_at, false, 0xfffffff0, "file path length"},
  };
  for (const auto &c : cases) {
    Bytes b = good;
    if (c.wide)
      put64(b, c.at, c.value);
    else
      put32(b, c.at, static_cast<std::uint32_t>(c.value));
    const std::string err = expectRejected(b);
    EXPECT_NE(err.find(c.expect), std::string::npos) << "want \"" << c.expect << "\": " << err;
  }
}

TEST(PoclBinary, RejectsFileContentLongerThanItsRecord) {
  Synth s;
  Bytes b = s.build();
  // Content length field of the kernel's only file: after u32 len + "/k/0-0-0/k.so".
  put32(b, s.kernel_file_at + 4 + 13, 0xfffffff0);
  EXPECT_NE(expectRejected(b).find("file content at offset"), std::string::npos);
}

TEST(PoclBinary, RejectsPathsThatEscapeTheCacheDirectory) {
  for (const char *path : {"/../etc/passwd", "/k/../../x.so", "//etc/passwd", "/k//k.so",
                           "/k/./k.so", "/", "/k/0-0-0/k.so/..", "/k/.."}) {
    Synth s;
    s.kernel_files = {{path, "x"}};
    const std::string err = expectRejected(s.build());
    EXPECT_NE(err.find("escapes the cache directory"), std::string::npos) << path << ": " << err;
  }
  Synth root;
  root.root_files = {{"/../program.bc", "x"}};
  EXPECT_NE(expectRejected(root.build()).find("escapes"), std::string::npos);
  Synth hash;
  hash.hash = "../AB";
  EXPECT_NE(expectRejected(hash.build()).find("build hash"), std::string::npos);
  Synth abs_hash;
  abs_hash.hash = "/AB";
  EXPECT_NE(expectRejected(abs_hash.build()).find("build hash"), std::string::npos);
}

TEST(PoclBinary, RejectsFilesOutsideTheirKernelsDirectory) {
  Synth s;
  s.kernel_files = {{"/other/0-0-0/other.so", "x"}};
  EXPECT_NE(expectRejected(s.build()).find("outside the kernel's directory"),
            std::string::npos);
  Synth prefix;  // "kk/..." must not count as inside "k/"
  prefix.kernel_files = {{"/kk/0-0-0/kk.so", "x"}};
  EXPECT_NE(expectRejected(prefix.build()).find("outside"), std::string::npos);
}

TEST(PoclBinary, RejectsKernelNamesThatAreNotIdentifiers) {
  for (const char *name : {"", "a/b", "..", "1k", "k k"}) {
    Synth s;
    s.kernel = name;
    s.kernel_files = {};
    const std::string err = expectRejected(s.build());
    EXPECT_NE(err.find("kernel name"), std::string::npos) << name << ": " << err;
  }
}

TEST(PoclBinary, RejectsUnknownArgumentKind) {
  Synth s;
  Bytes b = s.build();
  put32(b, s.first_arg_kind_at, 4);
  EXPECT_NE(expectRejected(b).find("argument kind 4"), std::string::npos);
}

TEST(PoclBinary, RejectsRecordWhoseSizesDisagreeWithItsContents) {
  Synth s;
  const Bytes good = s.build();
  Bytes b = good;
  put64(b, s.binaries_size_at, good.size() - s.kernel_file_at - 1);  // files start 1 late
  EXPECT_NE(expectRejected(b).find("files start"), std::string::npos);
  b = good;
  put32(b, s.arginfo_at, 3);
  EXPECT_NE(expectRejected(b).find("argument info"), std::string::npos);
}

// PoCL can report (and zero-fill) more bytes than it serialized when its cache directory
// changes during the query: the records still parse, the rest is counted and ignored.
TEST(PoclBinary, IgnoresAndCountsTrailingBytes) {
  Bytes b = Synth{}.build();
  b.resize(b.size() + 1000, 0);
  hk::pocl::PoclBinary bin;
  std::string err;
  ASSERT_TRUE(hk::pocl::parsePoclBinary(b.data(), b.size(), bin, err)) << err;
  EXPECT_EQ(bin.trailing_bytes, 1000u);
}

}  // namespace
}  // namespace hk::pocl
