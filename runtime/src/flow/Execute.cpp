//===- Execute.cpp - sluice_flow_execute: regions, run, checks, report ----===//
//
// The C entry points of sluice/flow.h. sluice_flow_execute checks the
// schedule (FlowPlan.cpp), allocates one region per device and fills it with
// the device's pattern, takes the CRC-32 of every commodity's source bytes,
// runs a backend, then checks exactly-once delivery per chunk, every
// destination byte against the source pattern, the CRC-32 per commodity,
// and that no byte outside a destination range changed.
//
//===----------------------------------------------------------------------===//
#include "runtime/src/flow/FlowPlan.h"
#include "runtime/src/Error.h"

#include <zlib.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <new>

using namespace sluice::rt;
using namespace sluice::rt::flow;

extern "C" void sluice_flow_options_init(sluice_flow_options_t *o) {
  if (!o)
    return;
  std::memset(o, 0, sizeof(*o));
  o->time_scale = 1;
  o->rate_tolerance = 1e-6;
  o->max_chunks = uint64_t(1) << 22;
  o->max_memory_bytes = uint64_t(4) << 30;
  o->max_wall_seconds = 3600;
  o->backend = SLUICE_FLOW_BACKEND_HOST;
  o->seed = 0x5eed;
  o->fault.kind = SLUICE_FLOW_FAULT_NONE;
}

extern "C" sluice_status_t
sluice_flow_validate(const sluice_flow_schedule_t *schedule,
                     const sluice_flow_options_t *options,
                     sluice_error_t *error) {
  sluice_error_clear(error);
  return guarded(error, {}, [&]() -> sluice_status_t {
    sluice_flow_options_t o;
    sluice_flow_options_init(&o);
    if (options)
      o = *options;
    Plan plan;
    return buildPlan(schedule, o, plan, error);
  });
}

extern "C" void sluice_flow_report_free(sluice_flow_report_t *report) {
  if (!report)
    return;
  delete[] report->transfers;
  delete[] report->commodities;
  delete report;
}

namespace {

constexpr uint64_t kBlock = 1 << 16;

uint32_t crcOf(uint32_t crc, const uint8_t *p, uint64_t n) {
  while (n) {
    uInt take = static_cast<uInt>(std::min<uint64_t>(n, 1u << 30));
    crc = static_cast<uint32_t>(crc32(crc, p, take));
    p += take;
    n -= take;
  }
  return crc;
}

/// Bytes of `have` that differ from device `device`'s pattern at `offset`.
uint64_t countMismatches(const uint8_t *have, uint64_t seed, uint32_t device,
                         uint64_t offset, uint64_t n,
                         std::vector<uint8_t> &scratch) {
  uint64_t bad = 0;
  for (uint64_t i = 0; i < n; i += kBlock) {
    uint64_t m = std::min(kBlock, n - i);
    fillPattern(scratch.data(), seed, device, offset + i, m);
    if (std::memcmp(scratch.data(), have + i, m) == 0)
      continue;
    for (uint64_t k = 0; k < m; ++k)
      bad += scratch[k] != have[i + k];
  }
  return bad;
}

struct Regions_ {
  std::vector<std::unique_ptr<uint8_t[]>> owned;
  Regions ptrs;
};

sluice_status_t execute(const sluice_flow_schedule_t *schedule,
                        const sluice_flow_options_t &o,
                        sluice_flow_report_t **out, sluice_error_t *error) {
  Plan plan;
  if (sluice_status_t st = buildPlan(schedule, o, plan, error))
    return st;
  const sluice_flow_schedule_t &s = *schedule;

  // Regions, filled with their patterns.
  Regions_ regions;
  for (uint32_t d = 0; d < s.num_devices; ++d) {
    uint64_t n = s.devices[d].memory_bytes;
    uint8_t *p = nullptr;
    if (n) {
      p = new (std::nothrow) uint8_t[n];
      if (!p)
        return fail(error, SLUICE_STATUS_OUT_OF_MEMORY, {},
                    "cannot allocate the " + std::to_string(n) +
                        "-byte region of " + deviceName(s, d));
      fillPattern(p, o.seed, d, 0, n);
    }
    regions.owned.emplace_back(p);
    regions.ptrs.push_back(p);
  }

  // Commodities and their source CRCs (transfer order).
  struct Commodity {
    uint64_t bytes = 0;
    uint32_t sourceCrc = 0, destinationCrc = 0;
  };
  std::map<uint32_t, Commodity> commodities;
  for (uint32_t i = 0; i < s.num_transfers; ++i) {
    const sluice_flow_transfer_t &t = s.transfers[i];
    Commodity &c = commodities[t.commodity];
    c.bytes += t.bytes;
    c.sourceCrc = crcOf(c.sourceCrc, regions.ptrs[t.source] + t.source_offset,
                        t.bytes);
  }

  RunState state;
  state.deliveries.reset(new std::atomic<uint32_t>[plan.totalChunks]);
  for (uint64_t k = 0; k < plan.totalChunks; ++k)
    state.deliveries[k].store(0);
  state.deliveredAt.assign(plan.totalChunks, -1.0);
  sluice_status_t st = o.backend == SLUICE_FLOW_BACKEND_CUDA
                           ? runCuda(plan, o, regions.ptrs, state, error)
                           : runHost(plan, o, regions.ptrs, state, error);
  if (st)
    return st;

  // The report.
  std::unique_ptr<sluice_flow_report_t, void (*)(sluice_flow_report_t *)>
      report(new sluice_flow_report_t(), sluice_flow_report_free);
  sluice_flow_report_t &r = *report;
  r.backend = o.backend;
  r.time_scale = o.time_scale;
  r.predicted_makespan = plan.makespan;
  r.wall_seconds = state.wallSeconds;
  r.chunks = plan.totalChunks;
  r.chunk_hops = state.chunkHops;
  r.num_transfers = s.num_transfers;
  r.transfers = new sluice_flow_transfer_report_t[s.num_transfers]();
  std::string firstFailure;
  auto note = [&](const std::string &what) {
    if (firstFailure.empty())
      firstFailure = what;
  };
  std::vector<uint8_t> scratch(kBlock);
  for (uint32_t i = 0; i < s.num_transfers; ++i) {
    const sluice_flow_transfer_t &t = s.transfers[i];
    sluice_flow_transfer_report_t &tr = r.transfers[i];
    tr.bytes = t.bytes;
    tr.chunks = plan.chunkCount[i];
    tr.predicted_finish = plan.predicted[i];
    double last = 0;
    for (uint64_t k = 0; k < tr.chunks; ++k) {
      uint64_t slot = plan.chunkBase[i] + k;
      uint32_t n = state.deliveries[slot].load();
      tr.deliveries += n;
      if (n == 0) {
        ++tr.lost_chunks;
        note("transfer " + std::to_string(i) + ": chunk " + std::to_string(k) +
             " never arrived");
      } else if (n > 1) {
        ++tr.duplicated_chunks;
        note("transfer " + std::to_string(i) + ": chunk " + std::to_string(k) +
             " arrived " + std::to_string(n) + " times");
      }
      last = std::max(last, state.deliveredAt[slot]);
    }
    tr.achieved_finish = last / o.time_scale;
    tr.wrong_bytes = countMismatches(
        regions.ptrs[t.destination] + t.destination_offset, o.seed, t.source,
        t.source_offset, t.bytes, scratch);
    if (tr.wrong_bytes)
      note("transfer " + std::to_string(i) + ": " +
           std::to_string(tr.wrong_bytes) + " of its " +
           std::to_string(t.bytes) + " bytes at " +
           deviceName(s, t.destination) + " differ from the source");
    r.bytes += t.bytes;
    r.lost_chunks += tr.lost_chunks;
    r.duplicated_chunks += tr.duplicated_chunks;
    r.wrong_bytes += tr.wrong_bytes;
    r.achieved_makespan = std::max(r.achieved_makespan, tr.achieved_finish);
    Commodity &c = commodities[t.commodity];
    c.destinationCrc =
        crcOf(c.destinationCrc,
              regions.ptrs[t.destination] + t.destination_offset, t.bytes);
  }
  r.num_commodities = static_cast<uint32_t>(commodities.size());
  r.commodities = new sluice_flow_commodity_report_t[commodities.size()]();
  uint32_t ci = 0;
  for (const auto &[id, c] : commodities) {
    sluice_flow_commodity_report_t &cr = r.commodities[ci++];
    cr.commodity = id;
    cr.bytes = c.bytes;
    cr.source_crc = c.sourceCrc;
    cr.destination_crc = c.destinationCrc;
    if (c.sourceCrc != c.destinationCrc) {
      ++r.crc_mismatches;
      note("commodity " + std::to_string(id) + ": CRC-32 of the delivered "
           "bytes " + hex(c.destinationCrc) + " differs from the source's " +
           hex(c.sourceCrc));
    }
  }
  // Bytes outside destination ranges keep their device's pattern.
  std::vector<std::vector<std::pair<uint64_t, uint64_t>>> dst(s.num_devices);
  for (uint32_t i = 0; i < s.num_transfers; ++i) {
    const sluice_flow_transfer_t &t = s.transfers[i];
    if (t.bytes)
      dst[t.destination].push_back(
          {t.destination_offset, t.destination_offset + t.bytes});
  }
  for (uint32_t d = 0; d < s.num_devices; ++d) {
    std::sort(dst[d].begin(), dst[d].end());
    uint64_t at = 0, size = s.devices[d].memory_bytes, stray = 0;
    auto gap = [&](uint64_t to) {
      if (to > at)
        stray += countMismatches(regions.ptrs[d] + at, o.seed, d, at, to - at,
                                 scratch);
    };
    for (const auto &[b, e] : dst[d]) {
      gap(b);
      at = std::max(at, e);
    }
    gap(size);
    if (stray)
      note(std::to_string(stray) + " bytes of " + deviceName(s, d) +
           " outside every destination range changed");
    r.stray_bytes += stray;
  }
  r.verified = firstFailure.empty();
  *out = report.release();
  if (!firstFailure.empty())
    return fail(error, SLUICE_STATUS_DATA_CORRUPT, {}, firstFailure);
  return SLUICE_STATUS_OK;
}

} // namespace

extern "C" sluice_status_t
sluice_flow_execute(const sluice_flow_schedule_t *schedule,
                    const sluice_flow_options_t *options,
                    sluice_flow_report_t **report, sluice_error_t *error) {
  sluice_error_clear(error);
  if (!report)
    return fail(error, SLUICE_STATUS_INVALID_ARGUMENT, {},
                "report pointer is NULL");
  return guarded(error, {}, [&]() -> sluice_status_t {
    sluice_flow_options_t o;
    sluice_flow_options_init(&o);
    if (options)
      o = *options;
    return execute(schedule, o, report, error);
  });
}
