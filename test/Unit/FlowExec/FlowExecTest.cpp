//===- FlowExecTest.cpp - The runtime's flow executor through its C API ---===//
//
// Hand-built schedules: exactly-once delivery and checksums, rate profiles,
// store-and-forward timing of a link, every fault of the test hook caught
// by the checks, and every validation error verbatim.
//
//===----------------------------------------------------------------------===//
#include "sluice/flow.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

namespace {

/// A small schedule owning its arrays.
struct Sched {
  std::vector<sluice_flow_device_t> devices;
  std::vector<sluice_flow_link_t> links;
  std::vector<sluice_flow_transfer_t> transfers;
  std::vector<std::vector<uint32_t>> paths;
  std::vector<std::vector<sluice_flow_segment_t>> segments;

  uint32_t device(uint64_t bytes) {
    sluice_flow_device_t d{};
    d.memory_bytes = bytes;
    devices.push_back(d);
    return static_cast<uint32_t>(devices.size() - 1);
  }
  uint32_t link(uint32_t a, uint32_t b, double cap) {
    links.push_back({a, b, cap});
    return static_cast<uint32_t>(links.size() - 1);
  }
  sluice_flow_transfer_t &transfer(uint32_t commodity, uint32_t src,
                                   uint32_t dst, uint64_t srcOff,
                                   uint64_t dstOff, uint64_t bytes,
                                   std::vector<uint32_t> path, double rate,
                                   uint64_t chunk) {
    sluice_flow_transfer_t t{};
    t.commodity = commodity;
    t.source = src;
    t.destination = dst;
    t.source_offset = srcOff;
    t.destination_offset = dstOff;
    t.bytes = bytes;
    t.rate = rate;
    t.chunk_bytes = chunk;
    transfers.push_back(t);
    paths.push_back(std::move(path));
    segments.emplace_back();
    return transfers.back();
  }
  sluice_flow_schedule_t view() {
    for (size_t i = 0; i < transfers.size(); ++i) {
      transfers[i].path = paths[i].data();
      transfers[i].path_length = static_cast<uint32_t>(paths[i].size());
      if (!segments[i].empty()) {
        transfers[i].segments = segments[i].data();
        transfers[i].num_segments = static_cast<uint32_t>(segments[i].size());
      }
    }
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

using Report = std::unique_ptr<sluice_flow_report_t,
                               decltype(&sluice_flow_report_free)>;

struct Outcome {
  sluice_status_t status;
  std::string message;
  Report report{nullptr, sluice_flow_report_free};
};

Outcome execute(Sched &s, const sluice_flow_options_t &o) {
  sluice_flow_schedule_t v = s.view();
  sluice_flow_report_t *r = nullptr;
  sluice_error_t e;
  Outcome run;
  run.status = sluice_flow_execute(&v, &o, &r, &e);
  run.message = e.message;
  run.report.reset(r);
  return run;
}

sluice_flow_options_t options(double timeScale = 1) {
  sluice_flow_options_t o;
  sluice_flow_options_init(&o);
  o.time_scale = timeScale;
  return o;
}

/// Two GPUs behind a switch plus a direct link; two commodities in opposite
/// directions, one split over two paths. 1 MB/s links, run 50x faster.
Sched diamond() {
  Sched s;
  uint32_t a = s.device(300000), sw = s.device(0), b = s.device(300000);
  uint32_t asw = s.link(a, sw, 1e6), swb = s.link(sw, b, 1e6);
  uint32_t ab = s.link(a, b, 1e6), ba = s.link(b, a, 1e6);
  // Commodity 0: a -> b, 100000 bytes over two paths.
  s.transfer(0, a, b, 0, 200000, 60000, {asw, swb}, 6e5, 4096);
  s.transfer(0, a, b, 60000, 260000, 40000, {ab}, 4e5, 4096);
  // Commodity 1: b -> a, 100000 bytes on the direct link.
  s.transfer(1, b, a, 0, 100000, 100000, {ba}, 1e6, 10000);
  return s;
}

TEST(FlowExec, DeliversEveryChunkExactlyOnce) {
  Sched s = diamond();
  Outcome run = execute(s, options(0.02));
  ASSERT_EQ(run.status, SLUICE_STATUS_OK) << run.message;
  const sluice_flow_report_t &r = *run.report;
  EXPECT_TRUE(r.verified);
  EXPECT_EQ(r.bytes, 200000u);
  EXPECT_EQ(r.chunks, 15u + 10u + 10u);
  // Chunks times hops: 15 * 2 + 10 + 10.
  EXPECT_EQ(r.chunk_hops, 50u);
  EXPECT_EQ(r.lost_chunks + r.duplicated_chunks + r.wrong_bytes +
                r.stray_bytes + r.crc_mismatches,
            0u);
  ASSERT_EQ(r.num_commodities, 2u);
  EXPECT_EQ(r.commodities[0].bytes, 100000u);
  EXPECT_EQ(r.commodities[0].source_crc, r.commodities[0].destination_crc);
  EXPECT_NE(r.commodities[0].source_crc, r.commodities[1].source_crc);
  for (uint32_t i = 0; i < r.num_transfers; ++i) {
    EXPECT_EQ(r.transfers[i].deliveries, r.transfers[i].chunks);
    EXPECT_DOUBLE_EQ(r.transfers[i].predicted_finish, 0.1);
    // Never earlier than the schedule (a chunk leaves once the rate has
    // produced it); lateness is not asserted here (the machine may be
    // loaded), see FlowExecSchedules.AchievedNearPredicted.
    EXPECT_GE(r.transfers[i].achieved_finish, 0.1 - 1e-6);
  }
  EXPECT_DOUBLE_EQ(r.predicted_makespan, 0.1);
  EXPECT_GE(r.achieved_makespan, 0.1 - 1e-6);
}

TEST(FlowExec, DifferentSeedsDifferentChecksums) {
  Sched s = diamond();
  sluice_flow_options_t o = options(0.01);
  Outcome a = execute(s, o);
  o.seed = 99;
  Outcome b = execute(s, o);
  ASSERT_EQ(a.status, SLUICE_STATUS_OK);
  ASSERT_EQ(b.status, SLUICE_STATUS_OK);
  EXPECT_NE(a.report->commodities[0].source_crc,
            b.report->commodities[0].source_crc);
}

TEST(FlowExec, LinkIsStoreAndForwardAtItsCapacity) {
  // One 200 KB chunk over two 1 MB/s hops: it leaves at 0.2 s, when the
  // rate has produced it; the first link serves it in 0.2 s, the second
  // only once it is stored, another 0.2 s. The fluid schedule says 0.2 s;
  // one chunk store-and-forward makes it 0.6 s.
  Sched s;
  uint32_t a = s.device(200000), m = s.device(0), b = s.device(200000);
  uint32_t l0 = s.link(a, m, 1e6), l1 = s.link(m, b, 1e6);
  s.transfer(0, a, b, 0, 0, 200000, {l0, l1}, 1e6, 0);
  Outcome run = execute(s, options(0.1));
  ASSERT_EQ(run.status, SLUICE_STATUS_OK) << run.message;
  EXPECT_DOUBLE_EQ(run.report->transfers[0].predicted_finish, 0.2);
  EXPECT_GE(run.report->transfers[0].achieved_finish, 0.6 - 1e-6);
  EXPECT_EQ(run.report->chunk_hops, 2u);
}

TEST(FlowExec, FollowsRateSegments) {
  // Nothing for 0.05 s, then 100 KB at 2 MB/s until 0.1 s.
  Sched s;
  uint32_t a = s.device(100000), b = s.device(100000);
  uint32_t l = s.link(a, b, 2e6);
  s.transfer(0, a, b, 0, 0, 100000, {l}, 0, 10000);
  s.segments[0] = {{0, 0.05, 0}, {0.05, 0.1, 2e6}};
  Outcome run = execute(s, options(0.5));
  ASSERT_EQ(run.status, SLUICE_STATUS_OK) << run.message;
  EXPECT_DOUBLE_EQ(run.report->transfers[0].predicted_finish, 0.1);
  EXPECT_GE(run.report->transfers[0].achieved_finish, 0.1 - 1e-6);
  EXPECT_TRUE(run.report->verified);
}

TEST(FlowExec, ZeroByteTransfersAndEmptySchedules) {
  Sched s;
  uint32_t a = s.device(10), b = s.device(10);
  uint32_t l = s.link(a, b, 1e6);
  s.transfer(0, a, b, 0, 0, 0, {l}, 1e6, 0);
  Outcome run = execute(s, options());
  ASSERT_EQ(run.status, SLUICE_STATUS_OK) << run.message;
  EXPECT_EQ(run.report->chunks, 0u);
  EXPECT_TRUE(run.report->verified);
  Sched empty;
  Outcome e = execute(empty, options());
  ASSERT_EQ(e.status, SLUICE_STATUS_OK) << e.message;
  EXPECT_TRUE(e.report->verified);
}

//===----------------------------------------------------------------------===//
// The checks can fail: one fault at a time through the test hook.
//===----------------------------------------------------------------------===//

Outcome withFault(sluice_flow_fault_kind_t kind, uint32_t transfer,
              uint64_t chunk) {
  Sched s = diamond();
  sluice_flow_options_t o = options(0.01);
  o.fault.kind = kind;
  o.fault.transfer = transfer;
  o.fault.chunk = chunk;
  return execute(s, o);
}

TEST(FlowExecFaults, CorruptChunk) {
  Outcome run = withFault(SLUICE_FLOW_FAULT_CORRUPT, 0, 3);
  ASSERT_EQ(run.status, SLUICE_STATUS_DATA_CORRUPT);
  ASSERT_TRUE(run.report);
  const sluice_flow_report_t &r = *run.report;
  EXPECT_FALSE(r.verified);
  EXPECT_EQ(r.wrong_bytes, 1u);
  EXPECT_EQ(r.transfers[0].wrong_bytes, 1u);
  EXPECT_EQ(r.lost_chunks + r.duplicated_chunks + r.stray_bytes, 0u);
  EXPECT_EQ(r.crc_mismatches, 1u);
  EXPECT_NE(r.commodities[0].source_crc, r.commodities[0].destination_crc);
  EXPECT_EQ(r.commodities[1].source_crc, r.commodities[1].destination_crc);
  EXPECT_EQ(run.message,
            "transfer 0: 1 of its 60000 bytes at device 2 differ from the "
            "source");
}

TEST(FlowExecFaults, LostChunk) {
  Outcome run = withFault(SLUICE_FLOW_FAULT_DROP, 2, 9);
  ASSERT_EQ(run.status, SLUICE_STATUS_DATA_CORRUPT);
  const sluice_flow_report_t &r = *run.report;
  EXPECT_EQ(r.lost_chunks, 1u);
  EXPECT_EQ(r.transfers[2].lost_chunks, 1u);
  EXPECT_EQ(r.transfers[2].deliveries, 9u);
  // The lost chunk's 10000 destination bytes kept the destination's
  // pattern, so they differ from the source's almost everywhere.
  EXPECT_GT(r.transfers[2].wrong_bytes, 9000u);
  EXPECT_EQ(r.crc_mismatches, 1u);
  EXPECT_EQ(run.message, "transfer 2: chunk 9 never arrived");
}

TEST(FlowExecFaults, DuplicatedChunk) {
  // Same bytes twice: the content checks pass, only coverage sees it.
  Outcome run = withFault(SLUICE_FLOW_FAULT_DUPLICATE, 1, 0);
  ASSERT_EQ(run.status, SLUICE_STATUS_DATA_CORRUPT);
  const sluice_flow_report_t &r = *run.report;
  EXPECT_EQ(r.duplicated_chunks, 1u);
  EXPECT_EQ(r.transfers[1].deliveries, r.transfers[1].chunks + 1);
  EXPECT_EQ(r.wrong_bytes + r.stray_bytes + r.crc_mismatches, 0u);
  EXPECT_EQ(run.message, "transfer 1: chunk 0 arrived 2 times");
}

TEST(FlowExecFaults, MisplacedChunk) {
  // The last chunk of transfer 2 lands one byte late: its range ends a's
  // destination area, so the byte past it is outside every range.
  Outcome run = withFault(SLUICE_FLOW_FAULT_MISPLACE, 2, 9);
  ASSERT_EQ(run.status, SLUICE_STATUS_DATA_CORRUPT);
  const sluice_flow_report_t &r = *run.report;
  EXPECT_EQ(r.lost_chunks + r.duplicated_chunks, 0u);
  EXPECT_GT(r.wrong_bytes, 0u);
  EXPECT_EQ(r.crc_mismatches, 1u);
  EXPECT_GE(r.stray_bytes, 1u);
}

TEST(FlowExecFaults, NoFaultNoFailure) {
  Outcome run = withFault(SLUICE_FLOW_FAULT_NONE, 0, 0);
  ASSERT_EQ(run.status, SLUICE_STATUS_OK) << run.message;
  EXPECT_TRUE(run.report->verified);
}

//===----------------------------------------------------------------------===//
// Malformed schedules
//===----------------------------------------------------------------------===//

std::string validate(Sched &s, const sluice_flow_options_t *o = nullptr) {
  sluice_flow_schedule_t v = s.view();
  sluice_error_t e;
  sluice_status_t st = sluice_flow_validate(&v, o, &e);
  if (st == SLUICE_STATUS_OK)
    return "ok";
  return std::string(sluice_status_message(st)) + ": " + e.message;
}

TEST(FlowExecErrors, Messages) {
  {
    Sched s = diamond();
    EXPECT_EQ(validate(s), "ok");
  }
  {
    Sched s = diamond();
    s.paths[1] = {7};
    EXPECT_EQ(validate(s), "invalid argument: transfer 1: hop 0 names unknown "
                           "link 7 (the schedule has 4)");
  }
  {
    Sched s = diamond();
    s.paths[0] = {1, 0};
    EXPECT_EQ(validate(s), "invalid argument: transfer 0: path not connected: "
                           "hop 0 is link 1 (1 -> 2) but the path is at "
                           "device 0");
  }
  {
    Sched s = diamond();
    s.paths[0] = {0};
    EXPECT_EQ(validate(s), "invalid argument: transfer 0: path ends at device "
                           "1, not at the destination device 2");
  }
  {
    Sched s = diamond();
    s.transfers[1].rate = 5e5;
    EXPECT_EQ(validate(s), "ok");
    s.transfers[1].rate = 1.5e6;
    EXPECT_EQ(validate(s), "invalid argument: link 2 (0 -> 2): the rates "
                           "crossing it sum to 1500000 B/s at 0 s (when "
                           "transfer 1 starts), above its capacity 1000000 B/s");
  }
  {
    // Two transfers on one link: fine one after the other, not together.
    Sched s;
    uint32_t a = s.device(200), b = s.device(200);
    uint32_t l = s.link(a, b, 100);
    s.transfer(0, a, b, 0, 0, 50, {l}, 100, 0);
    s.transfer(1, a, b, 50, 50, 50, {l}, 100, 0).start = 0.5;
    EXPECT_EQ(validate(s), "ok");
    s.transfers[1].start = 0.25;
    EXPECT_EQ(validate(s), "invalid argument: link 0 (0 -> 1): the rates "
                           "crossing it sum to 200 B/s at 0.25 s (when "
                           "transfer 1 starts), above its capacity 100 B/s");
  }
  {
    Sched s = diamond();
    s.transfers[2].destination_offset = 30000;
    EXPECT_EQ(validate(s), "invalid argument: overlapping ranges on device 0: "
                           "transfer 0's source bytes [0, 60000) and transfer "
                           "2's destination bytes [30000, 130000)");
  }
  {
    Sched s = diamond();
    s.transfers[1].destination_offset = 250000;
    EXPECT_EQ(validate(s), "invalid argument: overlapping ranges on device 2: "
                           "transfer 0's destination bytes [200000, 260000) "
                           "and transfer 1's destination bytes [250000, "
                           "290000)");
  }
  {
    Sched s = diamond();
    s.transfers[2].destination_offset = 250000;
    EXPECT_EQ(validate(s), "invalid argument: transfer 2: destination bytes "
                           "[250000, +100000) lie outside the 300000-byte "
                           "region of device 0");
  }
  {
    Sched s = diamond();
    s.transfers[0].destination = 0;
    EXPECT_EQ(validate(s), "invalid argument: transfer 0: source and "
                           "destination are the same device 0; a local copy "
                           "is not a network transfer");
  }
  {
    Sched s = diamond();
    s.transfers[0].source = 9;
    EXPECT_EQ(validate(s), "invalid argument: transfer 0: unknown source "
                           "device 9");
  }
  {
    Sched s = diamond();
    s.links[3].capacity = 0;
    EXPECT_EQ(validate(s), "invalid argument: link 3 (2 -> 0): capacity must "
                           "be finite and positive, got 0");
  }
  {
    Sched s = diamond();
    s.links[0].to = 0;
    EXPECT_EQ(validate(s), "invalid argument: link 0 (0 -> 0): a link must "
                           "join two distinct devices");
  }
  {
    Sched s = diamond();
    s.transfers[2].rate = -1;
    EXPECT_EQ(validate(s), "invalid argument: transfer 2: rate must be finite "
                           "and positive, got -1");
  }
  {
    Sched s = diamond();
    s.paths[2] = {};
    EXPECT_EQ(validate(s), "invalid argument: transfer 2: empty path from "
                           "device 2 to device 0");
  }
  {
    Sched s = diamond();
    s.segments[0] = {{0, 0.05, 6e5}, {0.06, 0.1, 6e5}};
    EXPECT_EQ(validate(s), "invalid argument: transfer 0: segment 1 starts at "
                           "0.06 s, not where segment 0 ends (0.05 s)");
    s.segments[0] = {{0, 0.05, 6e5}};
    EXPECT_EQ(validate(s), "invalid argument: transfer 0: segments carry 30000 "
                           "bytes, not the transfer's 60000");
  }
  {
    Sched s = diamond();
    sluice_flow_options_t o = options(0);
    EXPECT_EQ(validate(s, &o), "invalid argument: time scale must be finite "
                               "and positive, got 0");
    o = options();
    o.max_chunks = 20;
    EXPECT_EQ(validate(s, &o), "out of range: the schedule has more than the "
                               "limit of 20 chunks (at transfer 1)");
    o = options();
    o.max_memory_bytes = 500000;
    EXPECT_EQ(validate(s, &o), "out of range: the device regions need more "
                               "than the limit of 500000 bytes (at device 2)");
    o = options(1e5);
    EXPECT_EQ(validate(s, &o), "out of range: transfer 0: its rate profile "
                               "ends at 0.1 s, 10000 wall seconds at time "
                               "scale 100000, beyond the limit of 3600");
    {
      // A rate so small that the transfer would never end.
      Sched slow = diamond();
      slow.transfers[2].rate = 1e-300;
      EXPECT_EQ(validate(slow), "out of range: transfer 2: its rate profile "
                                "ends at 1e+305 s, 1e+305 wall seconds at "
                                "time scale 1, beyond the limit of 3600");
      slow.transfers[2].rate = 1e-320; // denormal: 1e5 / rate overflows
      EXPECT_EQ(validate(slow), "out of range: transfer 2: its rate profile "
                                "ends at inf s, inf wall seconds at time "
                                "scale 1, beyond the limit of 3600");
    }
    o = options();
    o.fault.kind = SLUICE_FLOW_FAULT_DROP;
    o.fault.transfer = 2;
    o.fault.chunk = 10;
    EXPECT_EQ(validate(s, &o), "invalid argument: the fault names chunk 10 of "
                               "transfer 2, which does not exist");
  }
  {
    Sched s = diamond();
    s.devices[0].name = "gpu[0]";
    s.transfers[0].destination = 0;
    EXPECT_EQ(validate(s), "invalid argument: transfer 0: source and "
                           "destination are the same device 0 ('gpu[0]'); a "
                           "local copy is not a network transfer");
  }
  // NULL arguments.
  sluice_error_t e;
  EXPECT_EQ(sluice_flow_validate(nullptr, nullptr, &e),
            SLUICE_STATUS_INVALID_ARGUMENT);
  EXPECT_STREQ(e.message, "schedule is NULL");
  Sched s = diamond();
  sluice_flow_schedule_t v = s.view();
  EXPECT_EQ(sluice_flow_execute(&v, nullptr, nullptr, &e),
            SLUICE_STATUS_INVALID_ARGUMENT);
  EXPECT_STREQ(e.message, "report pointer is NULL");
  // A malformed schedule hands out no report.
  s.paths[1] = {7};
  v = s.view();
  sluice_flow_report_t *r = nullptr;
  EXPECT_EQ(sluice_flow_execute(&v, nullptr, &r, &e),
            SLUICE_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(r, nullptr);
}

} // namespace
