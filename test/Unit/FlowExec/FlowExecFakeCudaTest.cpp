//===- FlowExecFakeCudaTest.cpp - The CUDA backend over a fake driver -----===//
//
// Runs the flow executor's CUDA backend against FakeCuda/FakeCuda.c, a
// host-memory stand-in for libcuda.so.1 (ctest sets LD_LIBRARY_PATH to it),
// so that the backend's logic -- regions, peer vs. unified copies, streams,
// delivery callbacks, copy-back, faults -- is tested without a GPU. The real
// driver is exercised by FlowExecCuda.* in SluiceFlowExecScheduleTests where
// a GPU exists.
//
//===----------------------------------------------------------------------===//
#include "sluice/flow.h"

#include <gtest/gtest.h>

#include <dlfcn.h>

#include <cstring>
#include <string>
#include <vector>

namespace {

using Counts = void (*)(unsigned long long *);

/// The fake's call counters, or null if the loaded driver is not the fake.
Counts fakeCounts() {
  char reason[256];
  if (!sluice_flow_cuda_available(reason, sizeof(reason)))
    return nullptr;
  void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
  if (!h)
    return nullptr;
  void *p = dlsym(h, "fakecuda_counts");
  Counts c;
  static_assert(sizeof(c) == sizeof(p));
  std::memcpy(&c, &p, sizeof(p));
  return c;
}

struct Mixed {
  std::vector<sluice_flow_device_t> devices;
  std::vector<sluice_flow_link_t> links;
  std::vector<sluice_flow_transfer_t> transfers;
  std::vector<uint32_t> hops;

  Mixed() {
    // gpu[0], gpu[1] on two GPUs; gpu[2] shares GPU 0 (ordinal 2 mod 2);
    // the CPU's region is pinned host memory.
    const char *names[] = {"gpu[0]", "gpu[1]", "gpu[2]", "cpu"};
    for (int i = 0; i < 4; ++i) {
      sluice_flow_device_t d{};
      d.name = names[i];
      d.memory_bytes = 200000;
      d.memory = i < 3 ? SLUICE_FLOW_MEMORY_GPU : SLUICE_FLOW_MEMORY_HOST;
      d.gpu_ordinal = i < 3 ? i : 0;
      devices.push_back(d);
    }
    // (source, destination): peer, host -> GPU, GPU -> host, peer on one GPU.
    const uint32_t pairs[4][2] = {{0, 1}, {3, 2}, {1, 3}, {2, 0}};
    for (int i = 0; i < 4; ++i) {
      links.push_back({pairs[i][0], pairs[i][1], 1e6});
      hops.push_back(i);
    }
    for (uint32_t i = 0; i < 4; ++i) {
      sluice_flow_transfer_t t{};
      t.commodity = i;
      t.source = pairs[i][0];
      t.destination = pairs[i][1];
      t.source_offset = 0;
      t.destination_offset = 100000;
      t.bytes = 100000;
      t.rate = 1e6;
      t.chunk_bytes = 10000;
      transfers.push_back(t);
    }
  }
  sluice_flow_schedule_t view() {
    for (size_t i = 0; i < transfers.size(); ++i) {
      transfers[i].path = &hops[i];
      transfers[i].path_length = 1;
    }
    sluice_flow_schedule_t s{};
    s.devices = devices.data();
    s.num_devices = 4;
    s.links = links.data();
    s.num_links = 4;
    s.transfers = transfers.data();
    s.num_transfers = 4;
    return s;
  }
};

struct Result {
  sluice_status_t status;
  std::string message;
  sluice_flow_report_t *report = nullptr;
  unsigned long long counts[4] = {0, 0, 0, 0};
  ~Result() { sluice_flow_report_free(report); }
};

void run(Result &r, sluice_flow_fault_kind_t fault = SLUICE_FLOW_FAULT_NONE,
         uint32_t transfer = 0, uint64_t chunk = 0) {
  Counts counts = fakeCounts();
  unsigned long long before[4];
  counts(before);
  Mixed m;
  sluice_flow_schedule_t s = m.view();
  sluice_flow_options_t o;
  sluice_flow_options_init(&o);
  o.backend = SLUICE_FLOW_BACKEND_CUDA;
  o.time_scale = 0.05;
  o.fault.kind = fault;
  o.fault.transfer = transfer;
  o.fault.chunk = chunk;
  sluice_error_t e;
  r.status = sluice_flow_execute(&s, &o, &r.report, &e);
  r.message = e.message;
  unsigned long long after[4];
  counts(after);
  for (int i = 0; i < 4; ++i)
    r.counts[i] = after[i] - before[i];
}

#define REQUIRE_FAKE()                                                         \
  if (!fakeCounts())                                                           \
  GTEST_SKIP() << "libcuda.so.1 is not the test's fake driver"

TEST(FlowExecFakeCuda, PeerAndUnifiedCopies) {
  REQUIRE_FAKE();
  Result r;
  run(r);
  ASSERT_EQ(r.status, SLUICE_STATUS_OK) << r.message;
  EXPECT_TRUE(r.report->verified);
  EXPECT_EQ(r.report->backend, SLUICE_FLOW_BACKEND_CUDA);
  EXPECT_EQ(r.report->chunks, 40u);
  // Transfer 0 is GPU -> GPU (peer); 1 and 2 touch host memory and 3 stays
  // on GPU 0 (gpu[2] and gpu[0] share it): unified-address copies.
  EXPECT_EQ(r.counts[0], 10u);
  EXPECT_EQ(r.counts[1], 30u);
  EXPECT_EQ(r.counts[2], 0u);
  EXPECT_EQ(r.counts[3], 40u);
  for (uint32_t i = 0; i < 4; ++i) {
    EXPECT_EQ(r.report->transfers[i].deliveries, 10u);
    EXPECT_GE(r.report->transfers[i].achieved_finish, 0.1 - 1e-6);
  }
}

TEST(FlowExecFakeCuda, FaultsAreCaught) {
  REQUIRE_FAKE();
  {
    Result r;
    run(r, SLUICE_FLOW_FAULT_CORRUPT, 0, 4);
    ASSERT_EQ(r.status, SLUICE_STATUS_DATA_CORRUPT);
    EXPECT_EQ(r.counts[2], 1u); // the corruption is a device memset
    EXPECT_EQ(r.report->wrong_bytes, 1u);
    EXPECT_EQ(r.report->crc_mismatches, 1u);
    EXPECT_EQ(r.message, "transfer 0: 1 of its 100000 bytes at device 1 "
                         "('gpu[1]') differ from the source");
  }
  {
    Result r;
    run(r, SLUICE_FLOW_FAULT_DROP, 1, 0);
    ASSERT_EQ(r.status, SLUICE_STATUS_DATA_CORRUPT);
    EXPECT_EQ(r.report->lost_chunks, 1u);
    EXPECT_EQ(r.message, "transfer 1: chunk 0 never arrived");
  }
  {
    Result r;
    run(r, SLUICE_FLOW_FAULT_DUPLICATE, 2, 9);
    ASSERT_EQ(r.status, SLUICE_STATUS_DATA_CORRUPT);
    EXPECT_EQ(r.report->duplicated_chunks, 1u);
    EXPECT_EQ(r.report->wrong_bytes, 0u);
  }
  {
    Result r;
    run(r, SLUICE_FLOW_FAULT_MISPLACE, 3, 9);
    ASSERT_EQ(r.status, SLUICE_STATUS_DATA_CORRUPT);
    EXPECT_GT(r.report->wrong_bytes, 0u);
    EXPECT_EQ(r.report->crc_mismatches, 1u);
  }
}

} // namespace
