// Commands other than launches through the hk* C API (src/queue/commands.hpp): each runs
// directly on an idle queue, gives exactly PoCL's result, and hands out an event that is
// complete and reports the command's type, queue and context; requests hostkernel does
// not check itself, and commands behind PoCL work or incomplete events, go to PoCL's
// queue and keep OpenCL's order. The pattern: the same commands through hostkernel on
// buffers it created, and through PoCL alone (cl*) on buffers PoCL created, then the
// bytes compared; hkGetCommandCounts says which path each command took.
#include <hostkernel/hostkernel.h>

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <thread>
#include <vector>
#include "support/pocl_context.hpp"
#include "support/profiling_timestamps.hpp"

namespace {

hk_command_counts Counts(cl_command_type type) {
  hk_command_counts c{};
  EXPECT_EQ(hkGetCommandCounts(type, &c), CL_SUCCESS);
  return c;
}

// Counts how `type` commands went between its construction and direct()/queued().
class CountsSince {
 public:
  explicit CountsSince(cl_command_type type) : type_(type), before_(Counts(type)) {}
  cl_ulong direct() const { return Counts(type_).direct - before_.direct; }
  cl_ulong queued() const { return Counts(type_).queue - before_.queue; }
  cl_ulong queuedFor(hk_reason r) const {
    return Counts(type_).by_reason[r] - before_.by_reason[r];
  }

 private:
  cl_command_type type_;
  hk_command_counts before_;
};

class Commands : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_NO_FATAL_FAILURE(OpenPoclContext(&device_, &ctx_));
    cl_int err = CL_SUCCESS;
    q_ = hkCreateCommandQueue(ctx_, device_, 0, &err);
    ASSERT_EQ(err, CL_SUCCESS);
  }
  void TearDown() override {
    if (q_) {
      EXPECT_EQ(hkFinish(q_), CL_SUCCESS);
      hkReleaseCommandQueue(q_);
    }
    if (ctx_) hkReleaseContext(ctx_);
  }

  // A buffer hostkernel creates, and its twin PoCL creates, both holding `init`.
  cl_mem HkBuffer(size_t bytes, cl_mem_flags flags = CL_MEM_READ_WRITE) {
    cl_int err = CL_SUCCESS;
    cl_mem m = hkCreateBuffer(ctx_, flags, bytes, nullptr, &err);
    EXPECT_EQ(err, CL_SUCCESS);
    return m;
  }
  cl_mem PoclBuffer(size_t bytes) {
    cl_int err = CL_SUCCESS;
    cl_mem m = clCreateBuffer(ctx_, CL_MEM_READ_WRITE, bytes, nullptr, &err);
    EXPECT_EQ(err, CL_SUCCESS);
    return m;
  }
  // The buffer's bytes as PoCL's queue reads them.
  std::vector<unsigned char> PoclRead(cl_mem m, size_t bytes) {
    std::vector<unsigned char> out(bytes);
    EXPECT_EQ(clEnqueueReadBuffer(q_, m, CL_TRUE, 0, bytes, out.data(), 0, nullptr, nullptr),
              CL_SUCCESS);
    EXPECT_EQ(hkFinish(q_), CL_SUCCESS);  // PoCL's read: the queue held PoCL work
    return out;
  }
  static std::vector<unsigned char> Pattern(size_t bytes, unsigned seed) {
    std::vector<unsigned char> v(bytes);
    for (size_t i = 0; i < bytes; ++i) v[i] = static_cast<unsigned char>(i * 7 + seed);
    return v;
  }

  cl_device_id device_ = nullptr;
  cl_context ctx_ = nullptr;
  cl_command_queue q_ = nullptr;
};

TEST_F(Commands, WriteAndReadRunDirectlyAndPoclSeesTheirBytes) {
  constexpr size_t kBytes = 4096;
  cl_mem m = HkBuffer(kBytes);
  const auto in = Pattern(kBytes, 3);
  CountsSince writes(CL_COMMAND_WRITE_BUFFER), reads(CL_COMMAND_READ_BUFFER);
  ASSERT_EQ(hkEnqueueWriteBuffer(q_, m, CL_FALSE, 0, kBytes, in.data(), 0, nullptr, nullptr),
            CL_SUCCESS);
  std::vector<unsigned char> out(100);
  ASSERT_EQ(hkEnqueueReadBuffer(q_, m, CL_FALSE, 1000, 100, out.data(), 0, nullptr, nullptr),
            CL_SUCCESS);
  // Complete when the call returned, blocking or not.
  EXPECT_EQ(0, std::memcmp(out.data(), in.data() + 1000, 100));
  EXPECT_EQ(writes.direct(), 1u);
  EXPECT_EQ(reads.direct(), 1u);
  EXPECT_EQ(PoclRead(m, kBytes), in);
  hkReleaseMemObject(m);
}

// A new buffer's memory is zero, also where the heap gives back a block just freed: a
// kernel that reads a buffer its program never wrote must not compute with old bytes
// (allocate, queue/buffers.cpp). Each round writes a pattern and releases the buffer,
// whose block the next round's buffer of the same size is likely to get.
TEST_F(Commands, ANewBufferStartsZeroedWhereTheHeapHoldsOldBytes) {
  for (size_t bytes : {size_t{4096}, size_t{256} << 10}) {
    const std::vector<unsigned char> zeros(bytes, 0);
    const auto old = Pattern(bytes, 5);
    for (int round = 0; round < 4; ++round) {
      cl_mem m = HkBuffer(bytes);
      std::vector<unsigned char> out(bytes, 0xff);
      ASSERT_EQ(hkEnqueueReadBuffer(q_, m, CL_TRUE, 0, bytes, out.data(), 0, nullptr, nullptr),
                CL_SUCCESS);
      EXPECT_EQ(out, zeros) << bytes << " bytes, round " << round;
      ASSERT_EQ(hkEnqueueWriteBuffer(q_, m, CL_TRUE, 0, bytes, old.data(), 0, nullptr, nullptr),
                CL_SUCCESS);
      hkReleaseMemObject(m);
      ASSERT_EQ(hkFinish(q_), CL_SUCCESS);
    }
  }
}

// A large buffer's memory starts half a page in, a small one's at PoCL's 128-byte
// alignment (allocate, queue/buffers.cpp): glibc's large copies between a buffer and the
// application's malloc()ed memory (16 bytes into a page) are slow one way when the two
// page offsets lie close. A map hands out the buffer's own memory.
TEST_F(Commands, ALargeBufferStartsHalfAPageIn) {
  for (size_t bytes : {size_t{4096}, size_t{1} << 20}) {
    cl_mem m = HkBuffer(bytes);
    cl_int err = CL_SUCCESS;
    void *p = hkEnqueueMapBuffer(q_, m, CL_TRUE, CL_MAP_READ, 0, bytes, 0, nullptr, nullptr, &err);
    ASSERT_EQ(err, CL_SUCCESS);
    const auto address = reinterpret_cast<std::uintptr_t>(p);
    EXPECT_EQ(address % 128, 0u) << bytes;
    if (bytes >= (size_t{64} << 10)) EXPECT_EQ(address % 4096, 2048u) << bytes;
    ASSERT_EQ(hkEnqueueUnmapMemObject(q_, m, p, 0, nullptr, nullptr), CL_SUCCESS);
    hkReleaseMemObject(m);
  }
}

TEST_F(Commands, FillCopyAndRectFormsGivePoclsBytes) {
  constexpr size_t kBytes = 64 * 48;
  cl_mem a = HkBuffer(kBytes), b = HkBuffer(kBytes);
  cl_mem pa = PoclBuffer(kBytes), pb = PoclBuffer(kBytes);
  const auto init = Pattern(kBytes, 1);
  const auto host = Pattern(kBytes, 9);
  for (cl_mem m : {a, b, pa, pb})
    ASSERT_EQ(clEnqueueWriteBuffer(q_, m, CL_TRUE, 0, kBytes, init.data(), 0, nullptr, nullptr),
              CL_SUCCESS);
  ASSERT_EQ(hkFinish(q_), CL_SUCCESS);
  CountsSince fills(CL_COMMAND_FILL_BUFFER), copies(CL_COMMAND_COPY_BUFFER),
      wrects(CL_COMMAND_WRITE_BUFFER_RECT), rrects(CL_COMMAND_READ_BUFFER_RECT),
      crects(CL_COMMAND_COPY_BUFFER_RECT);
  const std::uint32_t p4 = 0xA1B2C3D4u;
  const unsigned char p16[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
  const unsigned char p1 = 0x5A;
  const size_t bo[3] = {3, 2, 1}, ho[3] = {5, 1, 0}, region[3] = {10, 4, 2};
  const size_t so[3] = {1, 1, 0}, dof[3] = {7, 3, 1};
  std::vector<unsigned char> hk_rect(kBytes), pocl_rect(kBytes);
  // The same sequence through hostkernel (a, b) and through PoCL alone (pa, pb).
  auto sequence = [&](auto fill, auto copy, auto wrect, auto rrect, auto crect, cl_mem x,
                      cl_mem y, std::vector<unsigned char> &rect_out) {
    ASSERT_EQ(fill(q_, x, &p4, 4, 64, 256, 0, nullptr, nullptr), CL_SUCCESS);
    ASSERT_EQ(fill(q_, x, p16, 16, 512, 160, 0, nullptr, nullptr), CL_SUCCESS);
    ASSERT_EQ(fill(q_, y, &p1, 1, 3, 17, 0, nullptr, nullptr), CL_SUCCESS);
    ASSERT_EQ(copy(q_, x, y, 60, 1000, 700, 0, nullptr, nullptr), CL_SUCCESS);
    ASSERT_EQ(wrect(q_, x, CL_FALSE, bo, ho, region, 64, 64 * 8, 40, 40 * 6, host.data(), 0,
                    nullptr, nullptr),
              CL_SUCCESS);
    ASSERT_EQ(rrect(q_, y, CL_TRUE, ho, bo, region, 0, 0, 48, 0, rect_out.data(), 0, nullptr,
                    nullptr),
              CL_SUCCESS);
    ASSERT_EQ(crect(q_, x, y, so, dof, region, 64, 0, 32, 32 * 16, 0, nullptr, nullptr),
              CL_SUCCESS);
    ASSERT_EQ(hkFinish(q_), CL_SUCCESS);
  };
  sequence(hkEnqueueFillBuffer, hkEnqueueCopyBuffer, hkEnqueueWriteBufferRect,
           hkEnqueueReadBufferRect, hkEnqueueCopyBufferRect, a, b, hk_rect);
  EXPECT_EQ(fills.direct(), 3u);
  EXPECT_EQ(copies.direct(), 1u);
  EXPECT_EQ(wrects.direct(), 1u);
  EXPECT_EQ(rrects.direct(), 1u);
  EXPECT_EQ(crects.direct(), 1u);
  sequence(clEnqueueFillBuffer, clEnqueueCopyBuffer, clEnqueueWriteBufferRect,
           clEnqueueReadBufferRect, clEnqueueCopyBufferRect, pa, pb, pocl_rect);
  EXPECT_EQ(PoclRead(a, kBytes), PoclRead(pa, kBytes));
  EXPECT_EQ(PoclRead(b, kBytes), PoclRead(pb, kBytes));
  EXPECT_EQ(hk_rect, pocl_rect);
  for (cl_mem m : {a, b, pa, pb}) hkReleaseMemObject(m);
}

TEST_F(Commands, DirectEventsAreCompleteWithTheCommandsTypeQueueAndContext) {
  constexpr size_t kBytes = 256;
  cl_mem m = HkBuffer(kBytes), n = HkBuffer(kBytes);
  std::vector<unsigned char> host(kBytes, 1);
  const int zero = 0;
  struct Case {
    cl_command_type type;
    cl_event event;
  };
  std::vector<Case> cases;
  cl_event e = nullptr;
  // `e` is read after the call's arguments, the enqueue among them, are evaluated.
  auto add = [&](cl_command_type type, cl_int err) {
    ASSERT_EQ(err, CL_SUCCESS) << std::hex << type;
    cases.push_back({type, e});
  };
  CountsSince markers(CL_COMMAND_MARKER);
  add(CL_COMMAND_WRITE_BUFFER, hkEnqueueWriteBuffer(q_, m, CL_FALSE, 0, kBytes, host.data(), 0, nullptr, &e));
  add(CL_COMMAND_READ_BUFFER, hkEnqueueReadBuffer(q_, m, CL_FALSE, 0, kBytes, host.data(), 0, nullptr, &e));
  add(CL_COMMAND_FILL_BUFFER, hkEnqueueFillBuffer(q_, m, &zero, 4, 0, kBytes, 0, nullptr, &e));
  add(CL_COMMAND_COPY_BUFFER, hkEnqueueCopyBuffer(q_, m, n, 0, 0, kBytes, 0, nullptr, &e));
  add(CL_COMMAND_MARKER, hkEnqueueMarkerWithWaitList(q_, 1, &cases[0].event, &e));
  add(CL_COMMAND_BARRIER, hkEnqueueBarrierWithWaitList(q_, 0, nullptr, &e));
  add(CL_COMMAND_MIGRATE_MEM_OBJECTS, hkEnqueueMigrateMemObjects(q_, 1, &m, 0, 0, nullptr, &e));
  cl_int err = CL_SUCCESS;
  void *p = hkEnqueueMapBuffer(q_, m, CL_TRUE, CL_MAP_READ, 0, kBytes, 0, nullptr, &e, &err);
  add(CL_COMMAND_MAP_BUFFER, err);
  add(CL_COMMAND_UNMAP_MEM_OBJECT, hkEnqueueUnmapMemObject(q_, m, p, 0, nullptr, &e));
  EXPECT_EQ(markers.direct(), 1u);
  for (const Case &c : cases) {
    cl_int status = CL_QUEUED;
    cl_command_type type = 0;
    cl_command_queue queue = nullptr;
    cl_context context = nullptr;
    ASSERT_EQ(clWaitForEvents(1, &c.event), CL_SUCCESS);
    ASSERT_EQ(hkGetEventInfo(c.event, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, nullptr), CL_SUCCESS);
    ASSERT_EQ(hkGetEventInfo(c.event, CL_EVENT_COMMAND_TYPE, sizeof type, &type, nullptr), CL_SUCCESS);
    ASSERT_EQ(hkGetEventInfo(c.event, CL_EVENT_COMMAND_QUEUE, sizeof queue, &queue, nullptr), CL_SUCCESS);
    ASSERT_EQ(hkGetEventInfo(c.event, CL_EVENT_CONTEXT, sizeof context, &context, nullptr), CL_SUCCESS);
    EXPECT_EQ(status, CL_COMPLETE) << std::hex << c.type;
    EXPECT_EQ(type, c.type);
    EXPECT_EQ(queue, q_) << std::hex << c.type;
    EXPECT_EQ(context, ctx_) << std::hex << c.type;
    // No profiling on this queue: PoCL's answer for such events.
    cl_ulong t = 0;
    EXPECT_EQ(hkGetEventProfilingInfo(c.event, CL_PROFILING_COMMAND_END, sizeof t, &t, nullptr),
              CL_PROFILING_INFO_NOT_AVAILABLE);
    EXPECT_EQ(hkReleaseEvent(c.event), CL_SUCCESS);
  }
  hkReleaseMemObject(m);
  hkReleaseMemObject(n);
}

TEST_F(Commands, DirectEventsOnAProfilingQueueHaveOrderedTimes) {
  cl_int err = CL_SUCCESS;
  cl_command_queue pq =
      hkCreateCommandQueue(ctx_, device_, CL_QUEUE_PROFILING_ENABLE, &err);
  ASSERT_EQ(err, CL_SUCCESS);
  constexpr size_t kBytes = 1 << 20;
  cl_mem m = HkBuffer(kBytes);
  std::vector<unsigned char> host(kBytes, 2);
  CountsSince writes(CL_COMMAND_WRITE_BUFFER);
  cl_event e = nullptr;
  ASSERT_EQ(hkEnqueueWriteBuffer(pq, m, CL_TRUE, 0, kBytes, host.data(), 0, nullptr, &e),
            CL_SUCCESS);
  EXPECT_EQ(writes.direct(), 1u);
  cl_ulong t[kProfilingTimestamps];
  ASSERT_NO_FATAL_FAILURE(ReadOrderedTimestamps(e, t));
  EXPECT_GT(t[0], 0u);
  hkReleaseEvent(e);
  hkReleaseMemObject(m);
  hkReleaseCommandQueue(pq);
}

TEST_F(Commands, MapIsZeroCopyDirectAndCountedUntilItsUnmap) {
  constexpr size_t kBytes = 4096;
  cl_mem m = HkBuffer(kBytes);
  CountsSince maps(CL_COMMAND_MAP_BUFFER), unmaps(CL_COMMAND_UNMAP_MEM_OBJECT);
  cl_int err = CL_SUCCESS;
  auto *p = static_cast<unsigned char *>(
      hkEnqueueMapBuffer(q_, m, CL_FALSE, CL_MAP_WRITE, 128, 1024, 0, nullptr, nullptr, &err));
  ASSERT_EQ(err, CL_SUCCESS);
  ASSERT_NE(p, nullptr);
  cl_uint count = 0;
  ASSERT_EQ(hkGetMemObjectInfo(m, CL_MEM_MAP_COUNT, sizeof count, &count, nullptr), CL_SUCCESS);
  EXPECT_EQ(count, 1u);
  std::memset(p, 0x33, 1024);
  ASSERT_EQ(hkEnqueueUnmapMemObject(q_, m, p, 0, nullptr, nullptr), CL_SUCCESS);
  ASSERT_EQ(hkGetMemObjectInfo(m, CL_MEM_MAP_COUNT, sizeof count, &count, nullptr), CL_SUCCESS);
  EXPECT_EQ(count, 0u);
  EXPECT_EQ(maps.direct(), 1u);
  EXPECT_EQ(unmaps.direct(), 1u);
  const auto bytes = PoclRead(m, kBytes);
  EXPECT_EQ(bytes[128], 0x33);
  EXPECT_EQ(bytes[128 + 1023], 0x33);
  // PoCL maps the same memory (zero copy): the direct map gave the buffer's own bytes.
  void *pocl = clEnqueueMapBuffer(q_, m, CL_TRUE, CL_MAP_READ, 128, 16, 0, nullptr, nullptr, &err);
  ASSERT_EQ(err, CL_SUCCESS);
  EXPECT_EQ(pocl, p);
  // PoCL's map is unmapped by PoCL.
  CountsSince pocl_unmaps(CL_COMMAND_UNMAP_MEM_OBJECT);
  ASSERT_EQ(hkEnqueueUnmapMemObject(q_, m, pocl, 0, nullptr, nullptr), CL_SUCCESS);
  EXPECT_EQ(pocl_unmaps.queued(), 1u);
  ASSERT_EQ(hkFinish(q_), CL_SUCCESS);
  hkReleaseMemObject(m);
}

TEST_F(Commands, BuffersReportTheFlagsAndHostPointerTheApplicationAskedFor) {
  constexpr size_t kBytes = 512;
  const auto init = Pattern(kBytes, 5);
  const cl_mem_flags cases[] = {
      0,
      CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
      CL_MEM_WRITE_ONLY | CL_MEM_ALLOC_HOST_PTR,
      CL_MEM_ALLOC_HOST_PTR | CL_MEM_COPY_HOST_PTR | CL_MEM_HOST_READ_ONLY,
      CL_MEM_READ_WRITE | CL_MEM_HOST_NO_ACCESS,
  };
  for (cl_mem_flags f : cases) {
    SCOPED_TRACE(f);
    void *host = (f & CL_MEM_COPY_HOST_PTR) ? const_cast<unsigned char *>(init.data()) : nullptr;
    cl_int err = CL_SUCCESS;
    cl_mem hk = hkCreateBuffer(ctx_, f, kBytes, host, &err);
    ASSERT_EQ(err, CL_SUCCESS);
    cl_mem pocl = clCreateBuffer(ctx_, f, kBytes, host, &err);
    ASSERT_EQ(err, CL_SUCCESS);
    cl_mem_flags hf = 0, pf = 0;
    void *hp = &hf, *pp = &pf;
    ASSERT_EQ(hkGetMemObjectInfo(hk, CL_MEM_FLAGS, sizeof hf, &hf, nullptr), CL_SUCCESS);
    ASSERT_EQ(clGetMemObjectInfo(pocl, CL_MEM_FLAGS, sizeof pf, &pf, nullptr), CL_SUCCESS);
    EXPECT_EQ(hf, pf);
    ASSERT_EQ(hkGetMemObjectInfo(hk, CL_MEM_HOST_PTR, sizeof hp, &hp, nullptr), CL_SUCCESS);
    ASSERT_EQ(clGetMemObjectInfo(pocl, CL_MEM_HOST_PTR, sizeof pp, &pp, nullptr), CL_SUCCESS);
    EXPECT_EQ(hp, pp);
    size_t size = 0;
    ASSERT_EQ(hkGetMemObjectInfo(hk, CL_MEM_SIZE, sizeof size, &size, nullptr), CL_SUCCESS);
    EXPECT_EQ(size, kBytes);
    if (host && !(f & CL_MEM_HOST_NO_ACCESS)) EXPECT_EQ(PoclRead(hk, kBytes), init);
    // A sub-buffer inherits what its parent was asked for.
    const cl_buffer_region region = {128, 256};
    cl_mem sub = hkCreateSubBuffer(hk, 0, CL_BUFFER_CREATE_TYPE_REGION, &region, &err);
    ASSERT_EQ(err, CL_SUCCESS);
    cl_mem psub = clCreateSubBuffer(pocl, 0, CL_BUFFER_CREATE_TYPE_REGION, &region, &err);
    ASSERT_EQ(err, CL_SUCCESS);
    ASSERT_EQ(hkGetMemObjectInfo(sub, CL_MEM_FLAGS, sizeof hf, &hf, nullptr), CL_SUCCESS);
    ASSERT_EQ(clGetMemObjectInfo(psub, CL_MEM_FLAGS, sizeof pf, &pf, nullptr), CL_SUCCESS);
    EXPECT_EQ(hf, pf);
    for (cl_mem m : {sub, psub, hk, pocl}) EXPECT_EQ(hkReleaseMemObject(m), CL_SUCCESS);
  }
}

TEST_F(Commands, BuffersMadeWithPropertiesRunDirectlyAndReportTheirProperties) {
  constexpr size_t kBytes = 256;
  const auto init = Pattern(kBytes, 8);
  const cl_mem_properties none[] = {0};
  for (const cl_mem_properties *props : {static_cast<const cl_mem_properties *>(nullptr), none}) {
    cl_int err = CL_SUCCESS;
    cl_mem hk = hkCreateBufferWithProperties(ctx_, props, CL_MEM_COPY_HOST_PTR, kBytes,
                                             const_cast<unsigned char *>(init.data()), &err);
    ASSERT_EQ(err, CL_SUCCESS);
    cl_mem pocl = clCreateBufferWithProperties(ctx_, props, CL_MEM_COPY_HOST_PTR, kBytes,
                                               const_cast<unsigned char *>(init.data()), &err);
    ASSERT_EQ(err, CL_SUCCESS);
    size_t hn = 1, pn = 1;
    ASSERT_EQ(hkGetMemObjectInfo(hk, CL_MEM_PROPERTIES, 0, nullptr, &hn), CL_SUCCESS);
    ASSERT_EQ(clGetMemObjectInfo(pocl, CL_MEM_PROPERTIES, 0, nullptr, &pn), CL_SUCCESS);
    EXPECT_EQ(hn, pn);
    CountsSince reads(CL_COMMAND_READ_BUFFER);
    std::vector<unsigned char> out(kBytes);
    ASSERT_EQ(hkEnqueueReadBuffer(q_, hk, CL_TRUE, 0, kBytes, out.data(), 0, nullptr, nullptr),
              CL_SUCCESS);
    EXPECT_EQ(out, init);
    EXPECT_EQ(reads.direct(), 1u);
    hkReleaseMemObject(hk);
    hkReleaseMemObject(pocl);
  }
}

TEST_F(Commands, ApplicationsHostPointerBuffersAndSubBuffersRunDirectly) {
  constexpr size_t kBytes = 2048;
  std::vector<unsigned char> mine = Pattern(kBytes, 11);
  cl_int err = CL_SUCCESS;
  cl_mem m = hkCreateBuffer(ctx_, CL_MEM_USE_HOST_PTR, kBytes, mine.data(), &err);
  ASSERT_EQ(err, CL_SUCCESS);
  const cl_buffer_region region = {1024, 512};
  cl_mem sub = hkCreateSubBuffer(m, 0, CL_BUFFER_CREATE_TYPE_REGION, &region, &err);
  ASSERT_EQ(err, CL_SUCCESS);
  CountsSince reads(CL_COMMAND_READ_BUFFER), writes(CL_COMMAND_WRITE_BUFFER);
  std::vector<unsigned char> out(512);
  ASSERT_EQ(hkEnqueueReadBuffer(q_, sub, CL_TRUE, 0, 512, out.data(), 0, nullptr, nullptr), CL_SUCCESS);
  EXPECT_EQ(0, std::memcmp(out.data(), mine.data() + 1024, 512));
  const unsigned char seven[8] = {7, 7, 7, 7, 7, 7, 7, 7};
  ASSERT_EQ(hkEnqueueWriteBuffer(q_, sub, CL_TRUE, 8, 8, seven, 0, nullptr, nullptr), CL_SUCCESS);
  EXPECT_EQ(mine[1024 + 8], 7);  // the application's memory is the buffer's
  EXPECT_EQ(reads.direct(), 1u);
  EXPECT_EQ(writes.direct(), 1u);
  void *hp = nullptr;
  ASSERT_EQ(hkGetMemObjectInfo(m, CL_MEM_HOST_PTR, sizeof hp, &hp, nullptr), CL_SUCCESS);
  EXPECT_EQ(hp, mine.data());
  hkReleaseMemObject(sub);
  hkReleaseMemObject(m);
}

TEST_F(Commands, InvalidRequestsGetPoclsOwnErrors) {
  constexpr size_t kBytes = 256;
  cl_mem m = HkBuffer(kBytes);
  cl_mem pm = PoclBuffer(kBytes);
  cl_mem no_access = HkBuffer(kBytes, CL_MEM_HOST_NO_ACCESS);
  cl_int err = CL_SUCCESS;
  cl_mem pno_access = clCreateBuffer(ctx_, CL_MEM_HOST_NO_ACCESS, kBytes, nullptr, &err);
  cl_mem write_only = HkBuffer(kBytes, CL_MEM_HOST_WRITE_ONLY);
  cl_mem pwrite_only = clCreateBuffer(ctx_, CL_MEM_HOST_WRITE_ONLY, kBytes, nullptr, &err);
  cl_mem read_only = HkBuffer(kBytes, CL_MEM_HOST_READ_ONLY);
  cl_mem pread_only = clCreateBuffer(ctx_, CL_MEM_HOST_READ_ONLY, kBytes, nullptr, &err);
  std::vector<unsigned char> host(2 * kBytes);
  const int pat = 1;
  CountsSince reads(CL_COMMAND_READ_BUFFER);
  auto both = [&](auto call) {
    const cl_int hk = call(true), pocl = call(false);
    EXPECT_NE(pocl, CL_SUCCESS);
    EXPECT_EQ(hk, pocl);
  };
  both([&](bool hk) {  // past the end
    return (hk ? hkEnqueueReadBuffer : clEnqueueReadBuffer)(q_, hk ? m : pm, CL_TRUE, 200, 100,
                                                           host.data(), 0, nullptr, nullptr);
  });
  both([&](bool hk) {  // no host pointer
    return (hk ? hkEnqueueWriteBuffer : clEnqueueWriteBuffer)(q_, hk ? m : pm, CL_TRUE, 0, 16,
                                                             nullptr, 0, nullptr, nullptr);
  });
  both([&](bool hk) {  // CL_MEM_HOST_NO_ACCESS
    return (hk ? hkEnqueueReadBuffer : clEnqueueReadBuffer)(
        q_, hk ? no_access : pno_access, CL_TRUE, 0, 16, host.data(), 0, nullptr, nullptr);
  });
  both([&](bool hk) {  // a read of CL_MEM_HOST_WRITE_ONLY
    return (hk ? hkEnqueueReadBuffer : clEnqueueReadBuffer)(
        q_, hk ? write_only : pwrite_only, CL_TRUE, 0, 16, host.data(), 0, nullptr, nullptr);
  });
  both([&](bool hk) {  // a write of CL_MEM_HOST_READ_ONLY
    return (hk ? hkEnqueueWriteBuffer : clEnqueueWriteBuffer)(
        q_, hk ? read_only : pread_only, CL_TRUE, 0, 16, host.data(), 0, nullptr, nullptr);
  });
  both([&](bool hk) {  // overlapping copy within one buffer
    return (hk ? hkEnqueueCopyBuffer : clEnqueueCopyBuffer)(q_, hk ? m : pm, hk ? m : pm, 0, 8,
                                                           64, 0, nullptr, nullptr);
  });
  both([&](bool hk) {  // a pattern size that is not a power of two
    return (hk ? hkEnqueueFillBuffer : clEnqueueFillBuffer)(q_, hk ? m : pm, &pat, 3, 0, 12, 0,
                                                           nullptr, nullptr);
  });
  both([&](bool hk) {  // an offset that is not a multiple of the pattern size
    return (hk ? hkEnqueueFillBuffer : clEnqueueFillBuffer)(q_, hk ? m : pm, &pat, 4, 2, 12, 0,
                                                           nullptr, nullptr);
  });
  EXPECT_EQ(reads.direct(), 0u);
  EXPECT_EQ(reads.queuedFor(HK_REASON_POCL_CHECKS), 3u);
  for (cl_mem x : {m, pm, no_access, pno_access, write_only, pwrite_only, read_only, pread_only})
    hkReleaseMemObject(x);
}

TEST_F(Commands, CommandsBehindAUserEventGoToPoclAndKeepTheOrder) {
  constexpr size_t kBytes = 1024;
  cl_mem m = HkBuffer(kBytes);
  const auto first = Pattern(kBytes, 1), second = Pattern(kBytes, 2);
  ASSERT_EQ(hkEnqueueWriteBuffer(q_, m, CL_TRUE, 0, kBytes, first.data(), 0, nullptr, nullptr),
            CL_SUCCESS);
  cl_int err = CL_SUCCESS;
  cl_event gate = clCreateUserEvent(ctx_, &err);
  ASSERT_EQ(err, CL_SUCCESS);
  CountsSince writes(CL_COMMAND_WRITE_BUFFER), reads(CL_COMMAND_READ_BUFFER);
  ASSERT_EQ(hkEnqueueWriteBuffer(q_, m, CL_FALSE, 0, kBytes, second.data(), 1, &gate, nullptr),
            CL_SUCCESS);
  std::vector<unsigned char> out(kBytes);
  cl_event read = nullptr;
  ASSERT_EQ(hkEnqueueReadBuffer(q_, m, CL_FALSE, 0, kBytes, out.data(), 0, nullptr, &read),
            CL_SUCCESS);
  EXPECT_EQ(writes.queuedFor(HK_REASON_USER_EVENT), 1u);
  EXPECT_EQ(reads.queued(), 1u);  // behind the gated write: in order, on PoCL's queue
  cl_int status = CL_COMPLETE;
  ASSERT_EQ(hkGetEventInfo(read, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, nullptr),
            CL_SUCCESS);
  EXPECT_GT(status, CL_COMPLETE);
  ASSERT_EQ(clSetUserEventStatus(gate, CL_COMPLETE), CL_SUCCESS);
  ASSERT_EQ(hkWaitForEvents(1, &read), CL_SUCCESS);
  EXPECT_EQ(out, second);
  ASSERT_EQ(hkFinish(q_), CL_SUCCESS);
  // Drained: direct again.
  CountsSince after(CL_COMMAND_READ_BUFFER);
  ASSERT_EQ(hkEnqueueReadBuffer(q_, m, CL_TRUE, 0, kBytes, out.data(), 0, nullptr, nullptr), CL_SUCCESS);
  EXPECT_EQ(after.direct(), 1u);
  hkReleaseEvent(read);
  hkReleaseEvent(gate);
  hkReleaseMemObject(m);
}

// PoCL work that holds no user event (a native kernel, which always runs on PoCL's
// queue): the next command must not run before it. The native kernel writes only after a
// pause, so a read that jumped the queue would see the old bytes.
TEST_F(Commands, ACommandBehindPoclWorkOnItsQueueGoesToPocl) {
  constexpr size_t kBytes = 1024;
  cl_mem m = HkBuffer(kBytes);
  const auto old_bytes = Pattern(kBytes, 1);
  ASSERT_EQ(hkEnqueueWriteBuffer(q_, m, CL_TRUE, 0, kBytes, old_bytes.data(), 0, nullptr, nullptr),
            CL_SUCCESS);
  struct Args {
    void *buffer;
  } args{nullptr};
  const void *where = &args.buffer;
  auto late_writer = [](void *a) {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    std::memset(static_cast<Args *>(a)->buffer, 0x44, kBytes);
  };
  ASSERT_EQ(hkEnqueueNativeKernel(q_, late_writer, &args, sizeof args, 1, &m, &where, 0, nullptr,
                                  nullptr),
            CL_SUCCESS);
  CountsSince reads(CL_COMMAND_READ_BUFFER);
  std::vector<unsigned char> out(kBytes);
  ASSERT_EQ(hkEnqueueReadBuffer(q_, m, CL_TRUE, 0, kBytes, out.data(), 0, nullptr, nullptr),
            CL_SUCCESS);
  EXPECT_EQ(out, std::vector<unsigned char>(kBytes, 0x44));
  EXPECT_EQ(reads.queuedFor(HK_REASON_QUEUE_BUSY), 1u);
  hkReleaseMemObject(m);
}

TEST_F(Commands, AnOutOfOrderQueueAndASecondQueueFollowTheirWaitLists) {
  cl_int err = CL_SUCCESS;
  cl_command_queue ooo = hkCreateCommandQueue(
      ctx_, device_, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, &err);
  ASSERT_EQ(err, CL_SUCCESS);
  cl_command_queue other = hkCreateCommandQueue(ctx_, device_, 0, &err);
  ASSERT_EQ(err, CL_SUCCESS);
  constexpr size_t kBytes = 4096;
  cl_mem m = HkBuffer(kBytes), n = HkBuffer(kBytes);
  const auto in = Pattern(kBytes, 4);
  cl_event gate = clCreateUserEvent(ctx_, &err);
  cl_event w = nullptr, c = nullptr, r = nullptr;
  // The write waits for the gate (PoCL's queue); the copy on the other queue waits for the
  // write, the read on the out-of-order queue for the copy.
  ASSERT_EQ(hkEnqueueWriteBuffer(ooo, m, CL_FALSE, 0, kBytes, in.data(), 1, &gate, &w), CL_SUCCESS);
  ASSERT_EQ(hkEnqueueCopyBuffer(other, m, n, 0, 0, kBytes, 1, &w, &c), CL_SUCCESS);
  std::vector<unsigned char> out(kBytes);
  ASSERT_EQ(hkEnqueueReadBuffer(ooo, n, CL_FALSE, 0, kBytes, out.data(), 1, &c, &r), CL_SUCCESS);
  std::thread opener([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    clSetUserEventStatus(gate, CL_COMPLETE);
  });
  // Blocking, behind a user event: must not hang the caller before the gate opens.
  std::vector<unsigned char> out2(kBytes);
  ASSERT_EQ(hkEnqueueReadBuffer(other, n, CL_TRUE, 0, kBytes, out2.data(), 1, &c, nullptr), CL_SUCCESS);
  opener.join();
  ASSERT_EQ(hkWaitForEvents(1, &r), CL_SUCCESS);
  EXPECT_EQ(out, in);
  EXPECT_EQ(out2, in);
  // With every event complete, commands of either queue run directly again.
  ASSERT_EQ(hkFinish(ooo), CL_SUCCESS);
  ASSERT_EQ(hkFinish(other), CL_SUCCESS);
  CountsSince direct(CL_COMMAND_COPY_BUFFER);
  cl_event done = nullptr;
  ASSERT_EQ(hkEnqueueCopyBuffer(ooo, n, m, 0, 0, kBytes, 1, &r, &done), CL_SUCCESS);
  EXPECT_EQ(direct.direct(), 1u);
  for (cl_event e : {gate, w, c, r, done}) hkReleaseEvent(e);
  hkReleaseMemObject(m);
  hkReleaseMemObject(n);
  hkReleaseCommandQueue(ooo);
  hkReleaseCommandQueue(other);
}

TEST_F(Commands, SvmCopiesFillsAndMapsRunDirectly) {
  constexpr size_t kBytes = 4096;
  auto *a = static_cast<unsigned char *>(clSVMAlloc(ctx_, CL_MEM_READ_WRITE, kBytes, 0));
  auto *b = static_cast<unsigned char *>(clSVMAlloc(ctx_, CL_MEM_READ_WRITE, kBytes, 0));
  ASSERT_TRUE(a && b);
  CountsSince fills(CL_COMMAND_SVM_MEMFILL), copies(CL_COMMAND_SVM_MEMCPY),
      maps(CL_COMMAND_SVM_MAP), unmaps(CL_COMMAND_SVM_UNMAP);
  const std::uint16_t pat = 0xBEEF;
  ASSERT_EQ(hkEnqueueSVMMap(q_, CL_TRUE, CL_MAP_WRITE, a, kBytes, 0, nullptr, nullptr), CL_SUCCESS);
  ASSERT_EQ(hkEnqueueSVMMemFill(q_, a, &pat, 2, kBytes, 0, nullptr, nullptr), CL_SUCCESS);
  ASSERT_EQ(hkEnqueueSVMMemcpy(q_, CL_FALSE, b, a, kBytes / 2, 0, nullptr, nullptr), CL_SUCCESS);
  ASSERT_EQ(hkEnqueueSVMUnmap(q_, a, 0, nullptr, nullptr), CL_SUCCESS);
  std::uint16_t v = 0;
  std::memcpy(&v, b + kBytes / 2 - 2, 2);
  EXPECT_EQ(v, pat);
  EXPECT_EQ(fills.direct(), 1u);
  EXPECT_EQ(copies.direct(), 1u);
  EXPECT_EQ(maps.direct(), 1u);
  EXPECT_EQ(unmaps.direct(), 1u);
  ASSERT_EQ(hkFinish(q_), CL_SUCCESS);
  clSVMFree(ctx_, a);
  clSVMFree(ctx_, b);
}

TEST_F(Commands, AMemoryObjectsDestructorCallbacksStillRun) {
  cl_mem m = HkBuffer(64);
  int called = 0;
  ASSERT_EQ(clSetMemObjectDestructorCallback(
                m, [](cl_mem, void *user) { ++*static_cast<int *>(user); }, &called),
            CL_SUCCESS);
  ASSERT_EQ(hkReleaseMemObject(m), CL_SUCCESS);
  // PoCL 6.0 and later run destructor callbacks on a thread of their own.
  for (int i = 0; i < 2000 && !__atomic_load_n(&called, __ATOMIC_ACQUIRE); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  EXPECT_EQ(__atomic_load_n(&called, __ATOMIC_ACQUIRE), 1);
}

}  // namespace
