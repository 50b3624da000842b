//===- FlowExecGpuTest.cpp - A gather schedule on a real GPU --------------===//
//
// Runs a small gather-server schedule through the CUDA backend of
// sluice_flow_execute on whatever libcuda.so.1 is loaded: on a real GPU
// when one is present (the device machine has ONE GPU, so every schedule
// GPU is mapped onto ordinal 0 and host memory is pinned), skipped with the
// reason when there is no driver or no GPU. The schedule: a host feeds four
// GPUs through one PCIe switch (4 x 6 GB/s on a 24 GB/s uplink) while the
// GPUs pass data around a ring over an NVSwitch (100 GB/s each). Checked:
// every chunk delivered exactly once, the CRC-32 of every commodity, no
// stray bytes, nothing finishes before the schedule says it may; reported:
// achieved vs predicted finish. This binary links only libsluicert (no
// LLVM), so it runs on the device machine. ctest also runs it over the fake
// driver (SluiceFlowExecGpuOnFakeCuda).
//
//===----------------------------------------------------------------------===//
#include "sluice/flow.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

namespace {

constexpr uint64_t kMiB = 1ull << 20;
constexpr uint64_t kPart = 8 * kMiB; // bytes per transfer
constexpr uint64_t kChunk = 1 * kMiB;
constexpr unsigned kGpus = 4;

struct GatherServer {
  std::vector<sluice_flow_device_t> devices;
  std::vector<sluice_flow_link_t> links;
  std::vector<sluice_flow_transfer_t> transfers;
  std::vector<std::vector<uint32_t>> paths;
  std::vector<std::string> names;

  uint32_t device(const std::string &name, uint64_t bytes,
                  sluice_flow_memory_t memory) {
    sluice_flow_device_t d{};
    d.memory_bytes = bytes;
    d.memory = memory;
    d.gpu_ordinal = 0; // one physical GPU holds every schedule GPU
    devices.push_back(d);
    names.push_back(name);
    return static_cast<uint32_t>(devices.size() - 1);
  }
  uint32_t link(uint32_t a, uint32_t b, double capacity) {
    links.push_back({a, b, capacity});
    return static_cast<uint32_t>(links.size() - 1);
  }
  void transfer(uint32_t src, uint32_t dst, uint64_t srcOff, uint64_t dstOff,
                std::vector<uint32_t> path, double rate) {
    sluice_flow_transfer_t t{};
    t.commodity = static_cast<uint32_t>(transfers.size());
    t.source = src;
    t.destination = dst;
    t.source_offset = srcOff;
    t.destination_offset = dstOff;
    t.bytes = kPart;
    t.rate = rate;
    t.chunk_bytes = kChunk;
    t.predicted_finish = static_cast<double>(kPart) / rate;
    transfers.push_back(t);
    paths.push_back(std::move(path));
  }

  GatherServer() {
    // GPU regions: [0, P) from the host, [P, 2P) sent around the ring,
    // [2P, 3P) received from the ring.
    uint32_t host = device("host", kGpus * kPart, SLUICE_FLOW_MEMORY_HOST);
    uint32_t pcie = device("pcie", 0, SLUICE_FLOW_MEMORY_HOST);
    uint32_t nvs = device("nvswitch", 0, SLUICE_FLOW_MEMORY_HOST);
    std::vector<uint32_t> gpu;
    for (unsigned g = 0; g < kGpus; ++g)
      gpu.push_back(device("gpu[" + std::to_string(g) + "]", 3 * kPart,
                           SLUICE_FLOW_MEMORY_GPU));
    uint32_t up = link(host, pcie, 24e9);
    std::vector<uint32_t> down, toNvs, fromNvs;
    for (unsigned g = 0; g < kGpus; ++g) {
      down.push_back(link(pcie, gpu[g], 24e9));
      toNvs.push_back(link(gpu[g], nvs, 300e9));
      fromNvs.push_back(link(nvs, gpu[g], 300e9));
    }
    for (unsigned g = 0; g < kGpus; ++g)
      transfer(host, gpu[g], g * kPart, 0, {up, down[g]}, 6e9);
    for (unsigned g = 0; g < kGpus; ++g) {
      unsigned next = (g + 1) % kGpus;
      transfer(gpu[g], gpu[next], kPart, 2 * kPart,
               {toNvs[g], fromNvs[next]}, 100e9);
    }
  }

  sluice_flow_schedule_t view() {
    for (size_t i = 0; i < transfers.size(); ++i) {
      transfers[i].path = paths[i].data();
      transfers[i].path_length = static_cast<uint32_t>(paths[i].size());
    }
    for (size_t i = 0; i < devices.size(); ++i)
      devices[i].name = names[i].c_str();
    sluice_flow_schedule_t s{};
    s.devices = devices.data();
    s.num_devices = static_cast<uint32_t>(devices.size());
    s.links = links.data();
    s.num_links = static_cast<uint32_t>(links.size());
    s.transfers = transfers.data();
    s.num_transfers = static_cast<uint32_t>(transfers.size());
    return s;
  }
};

sluice_flow_options_t cudaOptions() {
  sluice_flow_options_t o;
  sluice_flow_options_init(&o);
  o.backend = SLUICE_FLOW_BACKEND_CUDA;
  o.time_scale = 1;
  o.seed = 42;
  return o;
}

#define REQUIRE_CUDA()                                                         \
  do {                                                                         \
    char reason[256];                                                          \
    if (!sluice_flow_cuda_available(reason, sizeof(reason)))                   \
      GTEST_SKIP() << "no CUDA GPU: " << reason;                               \
  } while (0)

TEST(FlowExecGpu, GatherServerOnOneGpuArrivesExactlyOnce) {
  REQUIRE_CUDA();
  GatherServer g;
  sluice_flow_schedule_t s = g.view();
  sluice_flow_options_t o = cudaOptions();
  sluice_error_t e;
  ASSERT_EQ(sluice_flow_validate(&s, &o, &e), SLUICE_STATUS_OK) << e.message;
  sluice_flow_report_t *r = nullptr;
  sluice_status_t st = sluice_flow_execute(&s, &o, &r, &e);
  ASSERT_EQ(st, SLUICE_STATUS_OK) << e.message;
  ASSERT_NE(r, nullptr);
  EXPECT_TRUE(r->verified);
  EXPECT_EQ(r->backend, SLUICE_FLOW_BACKEND_CUDA);
  EXPECT_EQ(r->bytes, 2 * kGpus * kPart);
  EXPECT_EQ(r->chunks, 2 * kGpus * (kPart / kChunk));
  EXPECT_EQ(r->lost_chunks, 0u);
  EXPECT_EQ(r->duplicated_chunks, 0u);
  EXPECT_EQ(r->wrong_bytes, 0u);
  EXPECT_EQ(r->stray_bytes, 0u);
  EXPECT_EQ(r->crc_mismatches, 0u);
  ASSERT_EQ(r->num_commodities, 2 * kGpus);
  for (uint32_t c = 0; c < r->num_commodities; ++c)
    EXPECT_EQ(r->commodities[c].source_crc, r->commodities[c].destination_crc)
        << "commodity " << c;
  ASSERT_EQ(r->num_transfers, 2 * kGpus);
  for (uint32_t i = 0; i < r->num_transfers; ++i) {
    const sluice_flow_transfer_report_t &t = r->transfers[i];
    EXPECT_EQ(t.chunks, kPart / kChunk) << "transfer " << i;
    EXPECT_EQ(t.deliveries, t.chunks) << "transfer " << i;
    // A chunk leaves when the rate profile has produced it, never earlier.
    EXPECT_GE(t.achieved_finish, t.predicted_finish * (1 - 1e-3))
        << "transfer " << i;
  }
  // Achieved vs predicted (a report, not a timing assertion).
  double predicted = r->predicted_makespan, achieved = r->achieved_makespan;
  std::printf("[ gpu flow ] 4 host->GPU copies at 6 GB/s + a 4-GPU ring at "
              "100 GB/s on one GPU, %llu MiB in %llu chunks: predicted %.3f "
              "ms, achieved %.3f ms (%.2fx), %.1f GB/s overall\n",
              static_cast<unsigned long long>(r->bytes / kMiB),
              static_cast<unsigned long long>(r->chunks), predicted * 1e3,
              achieved * 1e3, achieved / predicted,
              static_cast<double>(r->bytes) / achieved / 1e9);
  for (uint32_t i = 0; i < r->num_transfers; ++i)
    std::printf("[ gpu flow ]   transfer %u %s -> %s: predicted %.3f ms, "
                "achieved %.3f ms\n",
                i, g.names[g.transfers[i].source].c_str(),
                g.names[g.transfers[i].destination].c_str(),
                r->transfers[i].predicted_finish * 1e3,
                r->transfers[i].achieved_finish * 1e3);
  RecordProperty("predicted_ms", std::to_string(predicted * 1e3));
  RecordProperty("achieved_ms", std::to_string(achieved * 1e3));
  sluice_flow_report_free(r);
}

TEST(FlowExecGpu, LostChunkOnOneGpuIsCaught) {
  REQUIRE_CUDA();
  GatherServer g;
  sluice_flow_schedule_t s = g.view();
  sluice_flow_options_t o = cudaOptions();
  // A GPU -> GPU copy within the one physical GPU loses a chunk.
  o.fault.kind = SLUICE_FLOW_FAULT_DROP;
  o.fault.transfer = kGpus + 1;
  o.fault.chunk = 3;
  sluice_flow_report_t *r = nullptr;
  sluice_error_t e;
  ASSERT_EQ(sluice_flow_execute(&s, &o, &r, &e), SLUICE_STATUS_DATA_CORRUPT);
  ASSERT_NE(r, nullptr);
  EXPECT_FALSE(r->verified);
  EXPECT_EQ(r->lost_chunks, 1u);
  EXPECT_EQ(r->transfers[kGpus + 1].lost_chunks, 1u);
  EXPECT_EQ(std::string(e.message), "transfer 5: chunk 3 never arrived");
  sluice_flow_report_free(r);
}

TEST(FlowExecGpu, SkipsWithTheReasonWithoutCuda) {
  char reason[256];
  if (sluice_flow_cuda_available(reason, sizeof(reason)))
    GTEST_SKIP() << "a CUDA driver is present";
  // The reason is a sentence, and the backend refuses to run.
  EXPECT_GT(std::string(reason).size(), 10u);
  GatherServer g;
  sluice_flow_schedule_t s = g.view();
  sluice_flow_options_t o = cudaOptions();
  sluice_flow_report_t *r = nullptr;
  sluice_error_t e;
  EXPECT_EQ(sluice_flow_execute(&s, &o, &r, &e), SLUICE_STATUS_UNSUPPORTED);
  EXPECT_EQ(r, nullptr);
}

} // namespace
