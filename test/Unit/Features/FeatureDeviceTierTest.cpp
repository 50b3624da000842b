//===- FeatureDeviceTierTest.cpp - The feature store's GPU tier -----------===//
//
// Against the host-memory fake of libcuda.so.1 (test/Unit/Offload/FakeCuda,
// loaded through $SLUICE_CUDA_DRIVER): the hottest rows live in "GPU"
// memory and gathers return them exactly; a device cache larger than the
// device is a located error. Without a GPU and without the fake, the tier
// is skipped (FeatureStoreTest).
//
//===----------------------------------------------------------------------===//
#include "runtime/src/features/FeatureStore.h"

#include "test/Unit/Features/FeatureTestUtil.h"
#include "test/Unit/Offload/TestDir.h"

#include <cmath>
#include <cstdlib>
#include <dlfcn.h>
#include <gtest/gtest.h>

using namespace sluice::rt::features;
using sluice::test::featureValue;
using sluice::test::ScratchDir;
using sluice::test::writeFeatures;

namespace {

struct Fake {
  Fake() {
    setenv("SLUICE_CUDA_DRIVER", SLUICE_FAKE_CUDA_PATH, 1);
    handle = dlopen(SLUICE_FAKE_CUDA_PATH, RTLD_NOW | RTLD_LOCAL);
    if (!handle)
      return;
    setLimit = reinterpret_cast<void (*)(unsigned long long)>(
        dlsym(handle, "fakecuda_set_limit"));
    failCopy = reinterpret_cast<void (*)(unsigned long long)>(
        dlsym(handle, "fakecuda_fail_copy"));
  }
  ~Fake() {
    if (setLimit)
      setLimit(~0ull);
  }
  void *handle = nullptr;
  void (*setLimit)(unsigned long long) = nullptr;
  void (*failCopy)(unsigned long long) = nullptr;
};

#define REQUIRE_FAKE(fake)                                                     \
  if (!(fake).handle)                                                          \
    GTEST_SKIP() << "the fake driver " SLUICE_FAKE_CUDA_PATH " is not here";   \
  ASSERT_TRUE((fake).setLimit && (fake).failCopy)                              \
      << SLUICE_FAKE_CUDA_PATH " lacks the test hooks"

FeatureStoreOptions options(const std::string &path) {
  FeatureStoreOptions o;
  o.path = path;
  o.rows = 1000;
  o.dim = 128;
  o.deviceCacheBytes = 50 * 512;
  o.hostCacheBytes = 100 * 512;
  // Hottest: the highest ids.
  for (uint64_t r = 0; r < 1000; ++r)
    o.expectedAccesses.push_back(double(r));
  return o;
}

TEST(FeatureDeviceTier, HottestRowsOnTheGpuGatherExactly) {
  Fake fake;
  REQUIRE_FAKE(fake);
  ScratchDir dir;
  std::string path = dir.file("features.npy");
  writeFeatures(path, 1000, 128, true);
  std::string error;
  auto store = FeatureStore::open(options(path), error);
  ASSERT_TRUE(store) << error;
  EXPECT_EQ(store->deviceBytes(), 50u * 512);
  EXPECT_EQ(store->deviceNote(), "");
  EXPECT_EQ(store->tierOf(999), Tier::Device);
  EXPECT_EQ(store->tierOf(950), Tier::Device);
  EXPECT_EQ(store->tierOf(949), Tier::Host);
  EXPECT_EQ(store->tierOf(850), Tier::Host);
  EXPECT_EQ(store->tierOf(849), Tier::File);
  std::vector<uint32_t> ids = {999, 5, 960, 900, 849, 999, 0};
  std::vector<float> out(ids.size() * 128);
  ASSERT_TRUE(
      store->wait(store->submit(ids.data(), ids.size(), out.data()), error))
      << error;
  for (size_t i = 0; i < ids.size(); ++i)
    for (uint64_t c = 0; c < 128; ++c)
      ASSERT_EQ(out[i * 128 + c], featureValue(ids[i], c, 128))
          << "position " << i << " column " << c;
  FeatureStoreStats s = store->stats();
  EXPECT_EQ(s.deviceHits, 3u);
  EXPECT_EQ(s.hostHits, 1u);
  EXPECT_EQ(s.fileRows, 3u);
}

TEST(FeatureDeviceTier, AFailedGpuCopyFailsTheTicketWithNaNRows) {
  Fake fake;
  REQUIRE_FAKE(fake);
  ScratchDir dir;
  std::string path = dir.file("features.npy");
  writeFeatures(path, 1000, 128, true);
  std::string error;
  auto store = FeatureStore::open(options(path), error);
  ASSERT_TRUE(store) << error;
  std::vector<uint32_t> ids = {999, 5, 960};
  std::vector<float> out(ids.size() * 128, 1.0f);
  fake.failCopy(1); // the next copy: row 999's
  auto t = store->submit(ids.data(), ids.size(), out.data());
  EXPECT_FALSE(store->wait(t, error));
  EXPECT_NE(error.find(path + ": ticket " + std::to_string(t) +
                       ": cuMemcpyDtoHAsync failed for the feature cache"),
            std::string::npos)
      << error;
  for (float v : out)
    ASSERT_TRUE(std::isnan(v));
  // The next ticket is whole.
  ASSERT_TRUE(
      store->wait(store->submit(ids.data(), ids.size(), out.data()), error))
      << error;
  for (size_t i = 0; i < ids.size(); ++i)
    ASSERT_EQ(out[i * 128 + 7], featureValue(ids[i], 7, 128));
}

TEST(FeatureDeviceTier, CacheLargerThanTheDevice) {
  Fake fake;
  REQUIRE_FAKE(fake);
  ScratchDir dir;
  std::string path = dir.file("features.npy");
  writeFeatures(path, 1000, 128, true);
  // Asked for more than the device has (even if the rows would fit).
  fake.setLimit(16 << 10);
  std::string error;
  EXPECT_FALSE(FeatureStore::open(options(path), error));
  EXPECT_EQ(error, path + ": the device cache of 25600 bytes is larger than "
                          "GPU 0 (FakeCuda), which has 16384 bytes of memory");
  // Within the device, but the free memory is taken (by another store).
  fake.setLimit(40000);
  auto first = FeatureStore::open(options(path), error);
  ASSERT_TRUE(first) << error;
  EXPECT_FALSE(FeatureStore::open(options(path), error));
  EXPECT_NE(error.find(path + ": the device cache of 25600 bytes (50 rows) "
                              "does not fit on GPU 0 (FakeCuda): "
                              "cuMemAlloc failed for the feature cache"),
            std::string::npos)
      << error;
}

} // namespace
