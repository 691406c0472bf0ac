// poclbinary reader, versions 9, 11 and 12. Written from the format description in docs
// (docs/pocl-releases.md for 11 and 12) and PoCL's lib/CL/pocl_binary.c (read, not copied)
// and checked against binaries that PoCL 3.1 (Debian 12) returned from
// clGetProgramInfo(CL_PROGRAM_BINARIES). Confirmed on version 9:
//
//  * Header is 77 bytes: "poclbin\0", u64 device_id, u32 version, u32 num_kernels,
//    u64 flags, u32 root_entries, char[41] build hash. Bit 0 of flags is set by
//    -cl-denorms-are-zero; flags >> 32 is 4 (CL_PROGRAM_BINARY_TYPE_EXECUTABLE).
//  * The build hash is a NUL-terminated 40-character string that itself contains a slash
//    ("KE/EABAHDMK..."): the cache directory is <top>/KE/EABAHDMK.../, two levels deep.
//  * Root entries (1 on pthread: program.bc): u64 byte count, then file records
//    {u32 len, path, u32 len, content}. Paths are written relative to the program's cache
//    directory but *with* a leading slash ("/program.bc", "/axpy/0-0-0/axpy.so"); we strip it.
//  * Kernel record: the kernel's files start at record_start + struct_size - binaries_size,
//    which is exactly where the argument records end (PoCL seeks there rather than parsing
//    the arguments; we parse them and require the two to agree), and arginfo_size is the
//    byte length of the argument records.
//  * Variant directories: "<k>/0-0-0/<k>.so" is the generic one; specialized ones
//    ("<k>/64-1-1-goffs0/", "<k>/16-1-1-goffs0-smallgrid/") come in readdir order, so the
//    generic .so is not necessarily first.
//  * num_locals/local_sizes: `__local float tile[64]; __local int t2[3];` gives
//    num_locals 2, local_sizes {256, 12} in declaration order. A `local float *` argument
//    is not counted there: it is an argument with kind Pointer, address qualifier
//    CL_KERNEL_ARG_ADDRESS_LOCAL, type_size 8.
//  * Argument kinds: buffers are Pointer (type_size 8); a float is Scalar with type_size 4;
//    a by-value struct is Scalar with type_size 0. has_arg_metadata is a bit mask (0x1f seen,
//    even without -cl-kernel-arg-info) and argument names are real names then; without the
//    name bit PoCL stores "a", "b", ... .
//  * reqd_work_group_size(8,2,1) gives reqd_wg {8,2,1} and the attribute string
//    "__attribute__((reqd_work_group_size(8, 2, 1 )))"; otherwise {0,0,0} and "".
//  * PoCL usually writes exactly the bytes it reports, but not always (see the end of
//    parse()): trailing bytes are counted, not rejected.
#include "pocl/binary.hpp"

#include <algorithm>
#include <cstring>
#include <iterator>
#include <utility>

namespace hk::pocl {
namespace {

constexpr char kMagic[8] = {'p', 'o', 'c', 'l', 'b', 'i', 'n', '\0'};
constexpr std::size_t kBuildHashBytes = 41;  // SHA1 as 40 chars + NUL
// Smallest possible serialized kernel record and argument record; used to cap counts
// read from the input by what the remaining bytes could hold, so that a bogus count can
// neither make us allocate gigabytes nor loop for long.
constexpr std::size_t kMinKernelRecord = 8 + 8 + 4 + 4 + 4 + 4 + 3 * 8 + 4 + 8;
constexpr std::size_t kMinArgRecord = 4 + 4 + 8 + 4 + 4 + 4 + 4;
// Generous limits for strings that end up in file paths or symbol names.
constexpr std::uint32_t kMaxPathLength = 4096;
constexpr std::uint32_t kMaxNameLength = 1024;

// A read position inside [pos, end) of one buffer. Every read checks that the bytes are
// there first; a failed read records a sentence naming the field, the absolute offset and
// the region (the whole input, or one record) that was too short. Sub-cursors share the
// buffer, so offsets in messages are always offsets into the whole input.
class Cursor {
 public:
  Cursor(const std::uint8_t *data, std::size_t size, std::string region, std::string &error)
      : data_(data), pos_(0), end_(size), region_(std::move(region)), error_(&error) {}

  std::size_t offset() const { return pos_; }
  std::size_t remaining() const { return end_ - pos_; }

  // Records `message` (prefixed with "poclbinary: ") and returns false, for `return fail(..)`.
  bool fail(const std::string &message) const {
    *error_ = "poclbinary: " + message;
    return false;
  }

  bool bytes(std::size_t n, std::span<const std::uint8_t> &out, const char *what) {
    if (n > remaining())
      return fail(std::string(what) + " at offset " + std::to_string(pos_) + " needs " +
                  std::to_string(n) + " bytes but " + region_ + " has only " +
                  std::to_string(remaining()) + " left");
    out = {data_ + pos_, n};
    pos_ += n;
    return true;
  }

  bool u32(std::uint32_t &v, const char *what) {
    std::span<const std::uint8_t> b;
    if (!bytes(4, b, what)) return false;
    v = 0;
    for (std::size_t i = 4; i-- > 0;) v = (v << 8) | b[i];  // little-endian, any alignment
    return true;
  }

  bool u64(std::uint64_t &v, const char *what) {
    std::span<const std::uint8_t> b;
    if (!bytes(8, b, what)) return false;
    v = 0;
    for (std::size_t i = 8; i-- > 0;) v = (v << 8) | b[i];
    return true;
  }

  // A u32 length followed by that many bytes. The length is checked against `max_len` and
  // against the bytes left before anything is allocated.
  bool string(std::string &out, const char *what, std::uint32_t max_len) {
    std::span<const std::uint8_t> b;
    if (!lengthPrefixed(b, what, max_len)) return false;
    out.assign(reinterpret_cast<const char *>(b.data()), b.size());
    return true;
  }

  bool lengthPrefixed(std::span<const std::uint8_t> &out, const char *what,
                      std::uint32_t max_len) {
    const std::size_t at = pos_;
    std::uint32_t len = 0;
    if (!u32(len, what)) return false;
    if (len > max_len)
      return fail(std::string(what) + " length " + std::to_string(len) + " at offset " +
                  std::to_string(at) + " exceeds the limit of " + std::to_string(max_len));
    return bytes(len, out, what);
  }

  // Splits off the next `n` bytes as their own region (a record with a declared size);
  // this cursor moves past them. Callers check n <= remaining() to give a precise message;
  // the clamp is a second line so that a missed check cannot widen the readable range.
  Cursor take(std::size_t n, std::string region) {
    if (n > remaining()) n = remaining();
    Cursor sub(data_, 0, std::move(region), *error_);
    sub.pos_ = pos_;
    sub.end_ = pos_ + n;
    pos_ += n;
    return sub;
  }

 private:
  const std::uint8_t *data_;
  std::size_t pos_;
  std::size_t end_;
  std::string region_;
  std::string *error_;
};

// Accepts "a/b/c" made of non-empty components other than "." and ".."; PoCL's leading
// slash is removed first. Anything else (absolute after stripping, "//", "..", NUL) could
// escape the cache directory if a caller ever writes the files out, and never comes from PoCL.
bool sanePath(std::string_view raw, std::string &out) {
  if (!raw.empty() && raw.front() == '/') raw.remove_prefix(1);
  if (raw.empty() || raw.find('\0') != std::string_view::npos) return false;
  std::size_t start = 0;
  while (start <= raw.size()) {
    std::size_t slash = raw.find('/', start);
    if (slash == std::string_view::npos) slash = raw.size();
    const std::string_view part = raw.substr(start, slash - start);
    if (part.empty() || part == "." || part == "..") return false;
    start = slash + 1;
  }
  out.assign(raw);
  return true;
}

// Kernel names become path components and symbol names (_pocl_kernel_<k>_workgroup), so
// only C identifiers, which is all OpenCL C allows, are accepted.
bool saneKernelName(std::string_view name) {
  if (name.empty() || (name.front() >= '0' && name.front() <= '9')) return false;
  for (char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                    (c >= '0' && c <= '9') || c == '_';
    if (!ok) return false;
  }
  return true;
}

// Whether `dir` is the directory PoCL 4.0 and later name a kernel `name` too long for
// their limit: a prefix of the name, ".", and 40 letters 'A'..'P' (a SHA-1 of the name).
bool isClippedDirOf(std::string_view dir, std::string_view name) {
  constexpr std::size_t kHashPart = 41;
  if (dir.size() <= kHashPart || name.size() <= dir.size() - kHashPart + 1) return false;
  const std::size_t keep = dir.size() - kHashPart;
  if (dir.substr(0, keep) != name.substr(0, keep) || dir[keep] != '.') return false;
  for (char c : dir.substr(keep + 1))
    if (c < 'A' || c > 'P') return false;
  return true;
}

// Reads file records until `r` is exhausted. Every path must start with `prefix`
// (empty for root entries, "<kernel>/" inside a kernel record; with `clipped_ok`, a
// clipped form of the kernel's name also counts).
bool readFiles(Cursor &r, std::string_view prefix, std::vector<FileRecord> &out,
               bool clipped_ok = false) {
  while (r.remaining() > 0) {
    const std::size_t at = r.offset();
    std::span<const std::uint8_t> raw_path;
    if (!r.lengthPrefixed(raw_path, "file path", kMaxPathLength)) return false;
    const std::string_view raw(reinterpret_cast<const char *>(raw_path.data()),
                               raw_path.size());
    FileRecord file;
    if (!sanePath(raw, file.path))
      return r.fail("file path \"" + std::string(raw.substr(0, 80)) + "\" at offset " +
                    std::to_string(at) + " is empty or escapes the cache directory");
    const std::string_view dir = std::string_view(file.path).substr(0, file.path.find('/'));
    const bool clipped = clipped_ok && file.path.size() > dir.size() &&
                         isClippedDirOf(dir, prefix.substr(0, prefix.size() - 1));
    if (!clipped && file.path.compare(0, prefix.size(), prefix) != 0)
      return r.fail("file path \"" + file.path + "\" at offset " + std::to_string(at) +
                    " is outside the kernel's directory \"" + std::string(prefix) + "\"");
    if (!r.lengthPrefixed(file.bytes, "file content", UINT32_MAX)) return false;
    out.push_back(std::move(file));
  }
  return true;
}

bool readArg(Cursor &r, ArgRecord &arg) {
  std::uint32_t kind = 0;
  if (!r.u32(arg.access_qualifier, "argument access qualifier") ||
      !r.u32(arg.address_qualifier, "argument address qualifier") ||
      !r.u64(arg.type_qualifier, "argument type qualifier"))
    return false;
  const std::size_t kind_at = r.offset();
  if (!r.u32(kind, "argument kind")) return false;
  if (kind > static_cast<std::uint32_t>(ArgKind::Sampler))
    return r.fail("argument kind " + std::to_string(kind) + " at offset " +
                  std::to_string(kind_at) + " is not scalar, pointer, image or sampler");
  arg.kind = static_cast<ArgKind>(kind);
  return r.u32(arg.type_size, "argument type size") &&
         r.string(arg.name, "argument name", kMaxNameLength) &&
         r.string(arg.type_name, "argument type name", kMaxNameLength);
}

// The kernel flags and the metadata they announce (version 11 and later).
bool readKernelMeta(Cursor &r, std::uint32_t version, KernelRecord &k) {
  if (!r.u32(k.flags, "kernel flags")) return false;
  if ((k.flags & kKernelHasSubGroupMeta) &&
      (!r.u32(k.max_subgroups, "kernel sub-group count") ||
       !r.u32(k.compile_subgroups, "kernel compile sub-group count")))
    return false;
  if ((k.flags & kKernelHasWorkGroupMeta) &&
      (!r.u32(k.max_wg_size, "kernel maximum work-group size") ||
       !r.u32(k.preferred_wg_multiple, "kernel preferred work-group multiple") ||
       !r.u32(k.local_mem_size, "kernel local memory size") ||
       !r.u32(k.private_mem_size, "kernel private memory size") ||
       !r.u32(k.spill_mem_size, "kernel spill memory size")))
    return false;
  if (version >= 12 && (k.flags & kKernelHasReqdSubGroupSize) &&
      !r.u32(k.reqd_sub_group_size, "kernel required sub-group size"))
    return false;
  return true;
}

// One kernel record; `r` is positioned at its first byte (struct_size).
bool readKernel(Cursor &r, std::uint32_t version, std::size_t index, KernelRecord &k) {
  const std::size_t record_start = r.offset();
  const std::size_t available = r.remaining();
  std::uint64_t struct_size = 0;
  if (!r.u64(struct_size, "kernel record size")) return false;
  if (struct_size < kMinKernelRecord || struct_size > available)
    return r.fail("kernel record " + std::to_string(index) + " at offset " +
                  std::to_string(record_start) + " declares size " +
                  std::to_string(struct_size) + " but " + std::to_string(available) +
                  " bytes remain (minimum record is " + std::to_string(kMinKernelRecord) + ")");
  Cursor rec = r.take(struct_size - 8, "kernel record " + std::to_string(index));

  std::uint64_t binaries_size = 0;
  std::uint32_t arginfo_size = 0;
  if (!rec.u64(binaries_size, "kernel files size") ||
      !rec.u32(arginfo_size, "kernel argument info size"))
    return false;
  if (binaries_size > struct_size - kMinKernelRecord)
    return rec.fail("kernel record " + std::to_string(index) + " at offset " +
                    std::to_string(record_start) + " declares " +
                    std::to_string(binaries_size) + " bytes of files, more than its size " +
                    std::to_string(struct_size) + " allows");

  const std::size_t name_at = rec.offset();
  if (!rec.string(k.name, "kernel name", kMaxNameLength)) return false;
  if (!saneKernelName(k.name))
    return rec.fail("kernel name at offset " + std::to_string(name_at) +
                    " is not a C identifier");

  const std::size_t nargs_at = rec.offset();
  if (!rec.u32(k.num_args, "kernel argument count")) return false;
  if (k.num_args > rec.remaining() / kMinArgRecord)
    return rec.fail("kernel argument count " + std::to_string(k.num_args) + " at offset " +
                    std::to_string(nargs_at) + " cannot fit in the " +
                    std::to_string(rec.remaining()) + " bytes left in the record");
  const std::size_t nlocals_at = rec.offset();
  if (!rec.u32(k.num_locals, "kernel local count")) return false;
  if (k.num_locals > rec.remaining() / 8)
    return rec.fail("kernel local count " + std::to_string(k.num_locals) + " at offset " +
                    std::to_string(nlocals_at) + " cannot fit in the " +
                    std::to_string(rec.remaining()) + " bytes left in the record");

  for (auto &d : k.reqd_wg_size)
    if (!rec.u64(d, "required work-group size")) return false;
  k.local_sizes.resize(k.num_locals);
  for (auto &s : k.local_sizes)
    if (!rec.u64(s, "local variable size")) return false;
  if (!rec.string(k.attributes, "kernel attributes", kMaxPathLength)) return false;
  // A u64 in version 9; a u32 and the kernel flags from version 11.
  std::uint64_t arg_metadata = 0;
  if (version < 11) {
    if (!rec.u64(arg_metadata, "argument metadata flags")) return false;
  } else {
    std::uint32_t narrow = 0;
    if (!rec.u32(narrow, "argument metadata flags") || !readKernelMeta(rec, version, k))
      return false;
    arg_metadata = narrow;
  }
  k.has_arg_metadata = arg_metadata != 0;

  const std::size_t args_start = rec.offset();
  k.args.resize(k.num_args);
  for (auto &a : k.args)
    if (!readArg(rec, a)) return false;

  // PoCL finds the files by arithmetic, not by parsing; both views must agree or the
  // record is not what we think it is.
  const std::size_t files_start = record_start + struct_size - binaries_size;
  if (rec.offset() != files_start || rec.offset() - args_start != arginfo_size)
    return rec.fail("kernel record " + std::to_string(index) + " (\"" + k.name +
                    "\"): metadata ends at offset " + std::to_string(rec.offset()) +
                    " but its sizes say files start at " + std::to_string(files_start) +
                    " and argument info is " + std::to_string(arginfo_size) + " bytes");
  Cursor files = rec.take(binaries_size, "the files of kernel \"" + k.name + "\"");
  return readFiles(files, k.name + "/", k.files, version >= 11);
}

}  // namespace

std::span<const std::uint8_t> KernelRecord::findFile(std::string_view path) const {
  for (const auto &f : files)
    if (f.path == path) return f.bytes;
  return {};
}

const KernelRecord *PoclBinary::findKernel(std::string_view name) const {
  for (const auto &k : kernels)
    if (k.name == name) return &k;
  return nullptr;
}

namespace {

bool parseInto(const std::uint8_t *data, std::size_t size, PoclBinary &out,
               std::string &error) {
  if (data == nullptr && size != 0) {
    error = "poclbinary: null data pointer with size " + std::to_string(size) + " at offset 0";
    return false;
  }
  Cursor r(data, size, "the input", error);

  std::span<const std::uint8_t> magic;
  if (!r.bytes(sizeof kMagic, magic, "magic")) return false;
  if (std::memcmp(magic.data(), kMagic, sizeof kMagic) != 0)
    return r.fail("wrong magic at offset 0: not a poclbinary (expected \"poclbin\\0\")");
  if (!r.u64(out.device_id, "device id")) return false;
  const std::size_t version_at = r.offset();
  if (!r.u32(out.version, "format version")) return false;
  if (std::find(std::begin(kPoclBinaryVersions), std::end(kPoclBinaryVersions),
                out.version) == std::end(kPoclBinaryVersions))
    return r.fail("unsupported format version " + std::to_string(out.version) +
                  " at offset " + std::to_string(version_at) +
                  " (versions 9, 11 and 12 are understood)");

  std::uint32_t num_kernels = 0, root_entries = 0;
  const std::size_t num_kernels_at = r.offset();
  if (!r.u32(num_kernels, "kernel count") || !r.u64(out.flags, "flags")) return false;
  const std::size_t root_entries_at = r.offset();
  if (!r.u32(root_entries, "root entry count")) return false;

  const std::size_t hash_at = r.offset();
  std::span<const std::uint8_t> hash;
  if (!r.bytes(kBuildHashBytes, hash, "build hash")) return false;
  const std::string_view hash_field(reinterpret_cast<const char *>(hash.data()), hash.size());
  const std::size_t nul = hash_field.find('\0');
  const std::string_view hash_text = hash_field.substr(0, nul);
  // The hash names the cache directory ("KE/EABA..."), so it gets the path rules too.
  if (nul == std::string_view::npos || hash_text.starts_with('/') || !sanePath(hash_text, out.build_hash))
    return r.fail("build hash at offset " + std::to_string(hash_at) +
                  " is not a NUL-terminated relative directory name");
  if (out.version >= 11 && (out.flags & kBinaryHasProgramScopeVars) &&
      !r.u64(out.program_scope_var_bytes, "program-scope variable size"))
    return false;

  // Counts are checked against the smallest thing each entry could be before looping.
  if (root_entries > r.remaining() / 8)
    return r.fail("root entry count " + std::to_string(root_entries) + " at offset " +
                  std::to_string(root_entries_at) +
                  " cannot fit in the " + std::to_string(r.remaining()) + " bytes that follow");
  for (std::uint32_t i = 0; i < root_entries; ++i) {
    const std::size_t at = r.offset();
    std::uint64_t bytes = 0;
    if (!r.u64(bytes, "root entry size")) return false;
    if (bytes > r.remaining())
      return r.fail("root entry " + std::to_string(i) + " at offset " + std::to_string(at) +
                    " declares " + std::to_string(bytes) + " bytes but only " +
                    std::to_string(r.remaining()) + " remain");
    Cursor entry = r.take(bytes, "root entry " + std::to_string(i));
    if (!readFiles(entry, "", out.program_files)) return false;
  }

  if (num_kernels > r.remaining() / kMinKernelRecord)
    return r.fail("kernel count " + std::to_string(num_kernels) + " at offset " +
                  std::to_string(num_kernels_at) +
                  " cannot fit in the " + std::to_string(r.remaining()) +
                  " bytes after the root entries (ending at offset " +
                  std::to_string(r.offset()) + ")");
  out.kernels.resize(num_kernels);
  for (std::uint32_t i = 0; i < num_kernels; ++i)
    if (!readKernel(r, out.version, i, out.kernels[i])) return false;

  // Bytes after the last kernel record are ignored: PoCL sizes the binary from the cache
  // directory before writing it, and files that appear or vanish in between (another
  // process compiling into the same cache directory) leave the reported size larger
  // than what was written (seen: 268 MB reported, 240 KB written).
  out.trailing_bytes = r.remaining();
  return true;
}

}  // namespace

bool isPoclBinary(const std::uint8_t *data, std::size_t size) {
  return data && size >= sizeof kMagic && std::memcmp(data, kMagic, sizeof kMagic) == 0;
}

bool parsePoclBinary(const std::uint8_t *data, std::size_t size, PoclBinary &out,
                     std::string &error) {
  out = PoclBinary{};
  if (parseInto(data, size, out, error)) return true;
  out = PoclBinary{};  // no half-filled result for callers that ignore the return value
  return false;
}

}  // namespace hk::pocl
