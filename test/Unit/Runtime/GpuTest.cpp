//===- GpuTest.cpp - sluice/gpu.h: driver loading, PTX launch -------------===//
//
// Without a GPU (the build machine) the layer must report "unsupported"
// cleanly; with one, a hand-written PTX kernel must run and return its
// result. The GPU-only tests skip when no device can be opened.
//
//===----------------------------------------------------------------------===//
#include "sluice/gpu.h"

#include <gtest/gtest.h>

#include <chrono>

#include <string>
#include <vector>

namespace {

TEST(Gpu, MissingDriverIsUnsupported) {
  sluice_gpu_options_t options;
  sluice_gpu_options_init(&options);
  options.driver_path = "/nonexistent/libcuda.so.1";
  sluice_gpu_device_t *device = nullptr;
  sluice_error_t error;
  EXPECT_EQ(sluice_gpu_open(&options, &device, &error),
            SLUICE_STATUS_UNSUPPORTED);
  EXPECT_EQ(device, nullptr);
  EXPECT_EQ(error.status, SLUICE_STATUS_UNSUPPORTED);
  std::string message = error.message;
  EXPECT_NE(message.find("no CUDA driver"), std::string::npos) << message;
  EXPECT_NE(message.find("/nonexistent/libcuda.so.1"), std::string::npos)
      << message;
}

TEST(Gpu, LibraryWithoutEntryPointsIsUnsupported) {
  // zlib is loaded into every runtime user; it has no cuInit.
  sluice_gpu_options_t options;
  sluice_gpu_options_init(&options);
  options.driver_path = "libz.so.1";
  sluice_gpu_device_t *device = nullptr;
  sluice_error_t error;
  EXPECT_EQ(sluice_gpu_open(&options, &device, &error),
            SLUICE_STATUS_UNSUPPORTED);
  EXPECT_EQ(device, nullptr);
  std::string message = error.message;
  EXPECT_NE(message.find("lacks entry points: cuInit"), std::string::npos)
      << message;
}

TEST(Gpu, InvalidArguments) {
  sluice_error_t error;
  EXPECT_EQ(sluice_gpu_open(nullptr, nullptr, &error),
            SLUICE_STATUS_INVALID_ARGUMENT);
  sluice_gpu_options_t options;
  sluice_gpu_options_init(&options);
  options.device = -1;
  sluice_gpu_device_t *device = nullptr;
  EXPECT_EQ(sluice_gpu_open(&options, &device, &error),
            SLUICE_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(sluice_gpu_launch(nullptr, "k", nullptr, nullptr, 0, nullptr,
                              &error),
            SLUICE_STATUS_INVALID_ARGUMENT);
  double seconds = 1;
  EXPECT_EQ(sluice_gpu_launch_timed(nullptr, "k", nullptr, nullptr, 0, nullptr,
                                    &seconds, &error),
            SLUICE_STATUS_INVALID_ARGUMENT);
  sluice_gpu_close(nullptr);
  sluice_gpu_module_free(nullptr);
}

TEST(Gpu, AvailabilityIsConsistentWithOpen) {
  sluice_error_t reason;
  int available = sluice_gpu_available(&reason);
  sluice_gpu_device_t *device = nullptr;
  sluice_error_t error;
  sluice_status_t status = sluice_gpu_open(nullptr, &device, &error);
  EXPECT_EQ(available != 0, status == SLUICE_STATUS_OK);
  if (!available) {
    EXPECT_EQ(reason.status, SLUICE_STATUS_UNSUPPORTED);
    EXPECT_NE(reason.message[0], '\0');
  } else {
    EXPECT_GT(sluice_gpu_compute_capability(device), 0);
  }
  sluice_gpu_close(device);
}

// out[i] = 3 * i + a, for i < n.
const char *kTripleKernel = R"(
.version 7.0
.target sm_50
.address_size 64
.visible .entry triple(.param .u64 out, .param .u32 n, .param .u32 a) {
  .reg .pred %p;
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  ld.param.u32 %r1, [n];
  ld.param.u32 %r2, [a];
  mov.u32 %r3, %ctaid.x;
  mov.u32 %r4, %ntid.x;
  mov.u32 %r5, %tid.x;
  mad.lo.s32 %r6, %r3, %r4, %r5;
  setp.ge.u32 %p, %r6, %r1;
  @%p bra DONE;
  mad.lo.s32 %r7, %r6, 3, %r2;
  cvta.to.global.u64 %rd2, %rd1;
  mul.wide.u32 %rd3, %r6, 4;
  add.s64 %rd2, %rd2, %rd3;
  st.global.u32 [%rd2], %r7;
DONE:
  ret;
}
)";

class GpuDevice : public ::testing::Test {
protected:
  void SetUp() override {
    sluice_error_t error;
    if (sluice_gpu_open(nullptr, &device, &error) != SLUICE_STATUS_OK)
      GTEST_SKIP() << "no GPU: " << error.message;
  }
  void TearDown() override { sluice_gpu_close(device); }
  sluice_gpu_device_t *device = nullptr;
};

TEST_F(GpuDevice, LaunchesPtx) {
  sluice_error_t error;
  sluice_gpu_module_t *module = nullptr;
  ASSERT_EQ(sluice_gpu_module_load_ptx(device, kTripleKernel, &module, &error),
            SLUICE_STATUS_OK)
      << error.message;
  const uint32_t n = 1000;
  uint64_t buffer = 0;
  ASSERT_EQ(sluice_gpu_alloc(device, n * 4, &buffer, &error),
            SLUICE_STATUS_OK)
      << error.message;
  uint32_t count = n, add = 7;
  void *args[] = {&buffer, &count, &add};
  uint32_t grid[3] = {(n + 127) / 128, 1, 1}, block[3] = {128, 1, 1};
  ASSERT_EQ(sluice_gpu_launch(module, "triple", grid, block, 0, args, &error),
            SLUICE_STATUS_OK)
      << error.message;
  std::vector<uint32_t> out(n);
  ASSERT_EQ(sluice_gpu_copy_from_device(device, out.data(), buffer, n * 4,
                                        &error),
            SLUICE_STATUS_OK)
      << error.message;
  for (uint32_t i = 0; i < n; ++i)
    ASSERT_EQ(out[i], 3 * i + 7) << i;
  // Timed: the same kernel again with a = 9, its device time from
  // events: positive, and below the host's wall time of the call.
  add = 9;
  double kernelSeconds = -1;
  auto start = std::chrono::steady_clock::now();
  ASSERT_EQ(sluice_gpu_launch_timed(module, "triple", grid, block, 0, args,
                                    &kernelSeconds, &error),
            SLUICE_STATUS_OK)
      << error.message;
  double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  EXPECT_GT(kernelSeconds, 0.0);
  EXPECT_LE(kernelSeconds, wall);
  ASSERT_EQ(
      sluice_gpu_copy_from_device(device, out.data(), buffer, n * 4, &error),
      SLUICE_STATUS_OK)
      << error.message;
  for (uint32_t i = 0; i < n; ++i)
    ASSERT_EQ(out[i], 3 * i + 9) << i;
  EXPECT_EQ(sluice_gpu_launch_timed(module, "no_such_kernel", grid, block, 0,
                                    args, &kernelSeconds, &error),
            SLUICE_STATUS_NOT_FOUND);
  EXPECT_EQ(sluice_gpu_launch(module, "no_such_kernel", grid, block, 0, args,
                              &error),
            SLUICE_STATUS_NOT_FOUND);
  sluice_gpu_free(device, buffer);
  sluice_gpu_module_free(module);
}

TEST_F(GpuDevice, RejectsBadPtx) {
  sluice_error_t error;
  sluice_gpu_module_t *module = nullptr;
  EXPECT_EQ(sluice_gpu_module_load_ptx(device, ".version 7.0\nnot ptx at all",
                                       &module, &error),
            SLUICE_STATUS_PARSE_ERROR);
  EXPECT_EQ(module, nullptr);
}

} // namespace
