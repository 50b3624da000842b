//===- FlowPlan.cpp - Checking a flow schedule and cutting it into chunks -===//
//
// buildPlan: every check of sluice_flow_validate (links, paths, byte
// ranges, rates against capacities over time), then the chunks of every
// transfer with the time its rate profile releases them. Also the data
// patterns and number formatting shared by the executor.
//
//===----------------------------------------------------------------------===//
#include "runtime/src/flow/FlowPlan.h"
#include "runtime/src/Error.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <tuple>
#include <utility>

using namespace sluice::rt;
using namespace sluice::rt::flow;

std::string flow::formatNumber(double v) {
  if (std::isnan(v))
    return "nan";
  if (std::isinf(v))
    return v < 0 ? "-inf" : "inf";
  if (v == 0)
    return std::signbit(v) ? "-0" : "0";
  if (v == std::trunc(v) && std::fabs(v) < 9007199254740992.0)
    return std::to_string(static_cast<int64_t>(v));
  char buf[64];
  std::to_chars_result res = std::to_chars(buf, buf + sizeof(buf), v);
  return std::string(buf, res.ptr);
}

std::string flow::deviceName(const sluice_flow_schedule_t &s, uint32_t d) {
  std::string out = "device " + std::to_string(d);
  if (d < s.num_devices && s.devices[d].name)
    out += " (" + quote(s.devices[d].name) + ")";
  return out;
}

namespace {

uint64_t splitmix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

uint64_t patternWord(uint64_t seed, uint32_t device, uint64_t word) {
  return splitmix64(seed ^ (static_cast<uint64_t>(device) * 0xD1B54A32D192ED03ull) ^
                    splitmix64(word));
}

} // namespace

void flow::fillPattern(uint8_t *out, uint64_t seed, uint32_t device,
                       uint64_t offset, uint64_t n) {
  uint64_t i = 0;
  while (i < n) {
    uint64_t at = offset + i;
    uint64_t w = patternWord(seed, device, at >> 3);
    unsigned from = static_cast<unsigned>(at & 7);
    unsigned take = static_cast<unsigned>(std::min<uint64_t>(8 - from, n - i));
    for (unsigned k = 0; k < take; ++k)
      out[i + k] = static_cast<uint8_t>(w >> (8 * (from + k)));
    i += take;
  }
}

namespace {

sluice_status_t invalid(sluice_error_t *error, const std::string &msg) {
  return fail(error, SLUICE_STATUS_INVALID_ARGUMENT, {}, msg);
}

std::string transferName(uint32_t t) { return "transfer " + std::to_string(t); }

std::string linkName(const sluice_flow_schedule_t &s, uint32_t l) {
  const sluice_flow_link_t &k = s.links[l];
  return "link " + std::to_string(l) + " (" + std::to_string(k.from) + " -> " +
         std::to_string(k.to) + ")";
}

bool finiteNonNegative(double v) { return std::isfinite(v) && v >= 0; }

/// The rate profile of a transfer as segments.
std::vector<sluice_flow_segment_t> profile(const sluice_flow_transfer_t &t) {
  if (t.num_segments)
    return {t.segments, t.segments + t.num_segments};
  double end = t.start + static_cast<double>(t.bytes) / t.rate;
  return {{t.start, end, t.rate}};
}

/// The time at which a profile has sent `x` bytes (non-decreasing `x`).
class ProfileCursor {
public:
  explicit ProfileCursor(const std::vector<sluice_flow_segment_t> &s)
      : segs(s) {}
  double timeAt(double x) {
    while (index < segs.size()) {
      const sluice_flow_segment_t &s = segs[index];
      double bytes = s.rate * (s.end - s.start);
      if (x <= before + bytes && s.rate > 0)
        return std::min(s.end, s.start + (x - before) / s.rate);
      before += bytes;
      ++index;
    }
    return segs.empty() ? 0 : segs.back().end;
  }

private:
  const std::vector<sluice_flow_segment_t> &segs;
  size_t index = 0;
  double before = 0;
};

sluice_status_t checkTransfer(const sluice_flow_schedule_t &s, uint32_t i,
                              sluice_error_t *error) {
  const sluice_flow_transfer_t &t = s.transfers[i];
  std::string who = transferName(i);
  if (t.source >= s.num_devices)
    return invalid(error, who + ": unknown source device " +
                              std::to_string(t.source));
  if (t.destination >= s.num_devices)
    return invalid(error, who + ": unknown destination device " +
                              std::to_string(t.destination));
  if (t.source == t.destination)
    return invalid(error, who + ": source and destination are the same " +
                              deviceName(s, t.source) +
                              "; a local copy is not a network transfer");
  const sluice_flow_device_t &src = s.devices[t.source];
  const sluice_flow_device_t &dst = s.devices[t.destination];
  if (t.source_offset > src.memory_bytes ||
      t.bytes > src.memory_bytes - t.source_offset)
    return invalid(error, who + ": source bytes [" +
                              std::to_string(t.source_offset) + ", +" +
                              std::to_string(t.bytes) + ") lie outside the " +
                              std::to_string(src.memory_bytes) +
                              "-byte region of " + deviceName(s, t.source));
  if (t.destination_offset > dst.memory_bytes ||
      t.bytes > dst.memory_bytes - t.destination_offset)
    return invalid(error, who + ": destination bytes [" +
                              std::to_string(t.destination_offset) + ", +" +
                              std::to_string(t.bytes) + ") lie outside the " +
                              std::to_string(dst.memory_bytes) +
                              "-byte region of " +
                              deviceName(s, t.destination));
  if (t.path_length == 0 || !t.path)
    return invalid(error, who + ": empty path from " + deviceName(s, t.source) +
                              " to " + deviceName(s, t.destination));
  uint32_t at = t.source;
  for (uint32_t h = 0; h < t.path_length; ++h) {
    uint32_t l = t.path[h];
    if (l >= s.num_links)
      return invalid(error, who + ": hop " + std::to_string(h) +
                                " names unknown link " + std::to_string(l) +
                                " (the schedule has " +
                                std::to_string(s.num_links) + ")");
    if (s.links[l].from != at)
      return invalid(error, who + ": path not connected: hop " +
                                std::to_string(h) + " is " + linkName(s, l) +
                                " but the path is at " + deviceName(s, at));
    at = s.links[l].to;
  }
  if (at != t.destination)
    return invalid(error, who + ": path ends at " + deviceName(s, at) +
                              ", not at the destination " +
                              deviceName(s, t.destination));
  for (uint32_t h = 0; h < t.path_length; ++h)
    for (uint32_t k = h + 1; k < t.path_length; ++k)
      if (t.path[h] == t.path[k])
        return invalid(error, who + ": path uses " + linkName(s, t.path[h]) +
                                  " twice");
  if (t.num_segments) {
    if (!t.segments)
      return invalid(error, who + ": segments is NULL but num_segments is " +
                                std::to_string(t.num_segments));
    double sum = 0;
    for (uint32_t k = 0; k < t.num_segments; ++k) {
      const sluice_flow_segment_t &g = t.segments[k];
      std::string seg = who + ": segment " + std::to_string(k);
      if (!finiteNonNegative(g.start) || !std::isfinite(g.end) ||
          g.end < g.start)
        return invalid(error, seg + " has a bad time span [" +
                                  formatNumber(g.start) + ", " +
                                  formatNumber(g.end) + "]");
      if (!finiteNonNegative(g.rate))
        return invalid(error, seg + " has a bad rate " + formatNumber(g.rate));
      if (k > 0 && g.start != t.segments[k - 1].end)
        return invalid(error, seg + " starts at " + formatNumber(g.start) +
                                  " s, not where segment " +
                                  std::to_string(k - 1) + " ends (" +
                                  formatNumber(t.segments[k - 1].end) + " s)");
      sum += g.rate * (g.end - g.start);
    }
    double b = static_cast<double>(t.bytes);
    if (std::fabs(sum - b) > 1e-6 * b + 1)
      return invalid(error, who + ": segments carry " + formatNumber(sum) +
                                " bytes, not the transfer's " +
                                std::to_string(t.bytes));
  } else {
    if (!std::isfinite(t.rate) || t.rate <= 0)
      return invalid(error, who + ": rate must be finite and positive, got " +
                                formatNumber(t.rate));
    if (!finiteNonNegative(t.start))
      return invalid(error, who + ": start must be finite and non-negative, "
                                  "got " +
                                formatNumber(t.start));
  }
  if (!finiteNonNegative(t.predicted_finish))
    return invalid(error, who + ": predicted finish must be finite and "
                                "non-negative, got " +
                              formatNumber(t.predicted_finish));
  return SLUICE_STATUS_OK;
}

/// Destination ranges must not overlap each other or a source range.
sluice_status_t checkOverlaps(const sluice_flow_schedule_t &s,
                              sluice_error_t *error) {
  // (device, begin, end, is destination, transfer)
  using Range = std::tuple<uint32_t, uint64_t, uint64_t, bool, uint32_t>;
  std::vector<Range> ranges;
  for (uint32_t i = 0; i < s.num_transfers; ++i) {
    const sluice_flow_transfer_t &t = s.transfers[i];
    if (t.bytes == 0)
      continue;
    ranges.emplace_back(t.source, t.source_offset, t.source_offset + t.bytes,
                        false, i);
    ranges.emplace_back(t.destination, t.destination_offset,
                        t.destination_offset + t.bytes, true, i);
  }
  std::sort(ranges.begin(), ranges.end());
  // Per device, sweep keeping the destination and source range reaching
  // furthest so far.
  for (size_t a = 0; a < ranges.size();) {
    uint32_t dev = std::get<0>(ranges[a]);
    const Range *dstFar = nullptr, *srcFar = nullptr;
    for (; a < ranges.size() && std::get<0>(ranges[a]) == dev; ++a) {
      const Range &r = ranges[a];
      bool isDst = std::get<3>(r);
      auto clash = [&](const Range *o) {
        return o && std::get<2>(*o) > std::get<1>(r);
      };
      auto describe = [&](const Range &x) {
        return transferName(std::get<4>(x)) + "'s " +
               (std::get<3>(x) ? "destination" : "source") + " bytes [" +
               std::to_string(std::get<1>(x)) + ", " +
               std::to_string(std::get<2>(x)) + ")";
      };
      const Range *other = nullptr;
      if (clash(dstFar))
        other = dstFar;
      else if (isDst && clash(srcFar))
        other = srcFar;
      if (other)
        return invalid(error, "overlapping ranges on " + deviceName(s, dev) +
                                  ": " + describe(*other) + " and " +
                                  describe(r));
      const Range *&far = isDst ? dstFar : srcFar;
      if (!far || std::get<2>(r) > std::get<2>(*far))
        far = &r;
    }
  }
  return SLUICE_STATUS_OK;
}

/// At every moment, the rates crossing a link sum to at most its capacity.
sluice_status_t checkCapacities(const sluice_flow_schedule_t &s,
                                double tolerance, sluice_error_t *error) {
  // Per link: (time, +rate at a start / -rate at an end, transfer).
  struct Event {
    double time;
    double delta;
    uint32_t transfer;
  };
  std::vector<std::vector<Event>> events(s.num_links);
  for (uint32_t i = 0; i < s.num_transfers; ++i) {
    const sluice_flow_transfer_t &t = s.transfers[i];
    if (t.bytes == 0)
      continue;
    for (const sluice_flow_segment_t &g : profile(t)) {
      if (g.rate <= 0 || g.end <= g.start)
        continue;
      for (uint32_t h = 0; h < t.path_length; ++h) {
        events[t.path[h]].push_back({g.start, g.rate, i});
        events[t.path[h]].push_back({g.end, -g.rate, i});
      }
    }
  }
  for (uint32_t l = 0; l < s.num_links; ++l) {
    std::vector<Event> &ev = events[l];
    std::sort(ev.begin(), ev.end(), [](const Event &a, const Event &b) {
      if (a.time != b.time)
        return a.time < b.time;
      return a.delta < b.delta; // ends before starts
    });
    double sum = 0, cap = s.links[l].capacity;
    for (const Event &e : ev) {
      sum += e.delta;
      if (e.delta > 0 && sum > cap * (1 + tolerance))
        return invalid(error, linkName(s, l) + ": the rates crossing it sum "
                                  "to " +
                                  formatNumber(sum) + " B/s at " +
                                  formatNumber(e.time) + " s (when " +
                                  transferName(e.transfer) +
                                  " starts), above its capacity " +
                                  formatNumber(cap) + " B/s");
    }
  }
  return SLUICE_STATUS_OK;
}

} // namespace

sluice_status_t flow::buildPlan(const sluice_flow_schedule_t *sp,
                                const sluice_flow_options_t &o, Plan &plan,
                                sluice_error_t *error) {
  if (!sp)
    return invalid(error, "schedule is NULL");
  const sluice_flow_schedule_t &s = *sp;
  if (!std::isfinite(o.time_scale) || o.time_scale <= 0)
    return invalid(error, "time scale must be finite and positive, got " +
                              formatNumber(o.time_scale));
  if (!std::isfinite(o.max_wall_seconds) || o.max_wall_seconds <= 0)
    return invalid(error, "maximum wall time must be finite and positive, "
                          "got " +
                              formatNumber(o.max_wall_seconds));
  if (!finiteNonNegative(o.rate_tolerance))
    return invalid(error, "rate tolerance must be finite and non-negative, "
                          "got " +
                              formatNumber(o.rate_tolerance));
  int64_t backend = enumValue(o.backend);
  if (backend != SLUICE_FLOW_BACKEND_HOST && backend != SLUICE_FLOW_BACKEND_CUDA)
    return invalid(error, "unknown backend " + std::to_string(backend));
  int64_t fault = enumValue(o.fault.kind);
  if (fault < SLUICE_FLOW_FAULT_NONE || fault > SLUICE_FLOW_FAULT_MISPLACE)
    return invalid(error, "unknown fault kind " + std::to_string(fault));
  if ((s.num_devices && !s.devices) || (s.num_links && !s.links) ||
      (s.num_transfers && !s.transfers))
    return invalid(error, "schedule has a NULL array with a non-zero count");
  if (!finiteNonNegative(s.predicted_makespan))
    return invalid(error, "predicted makespan must be finite and "
                          "non-negative, got " +
                              formatNumber(s.predicted_makespan));

  uint64_t memory = 0;
  for (uint32_t d = 0; d < s.num_devices; ++d) {
    const sluice_flow_device_t &dev = s.devices[d];
    int64_t kind = enumValue(dev.memory);
    if (kind != SLUICE_FLOW_MEMORY_HOST && kind != SLUICE_FLOW_MEMORY_GPU)
      return invalid(error, deviceName(s, d) + ": unknown memory kind " +
                                std::to_string(kind));
    if (kind == SLUICE_FLOW_MEMORY_GPU && dev.gpu_ordinal < 0)
      return invalid(error, deviceName(s, d) + ": negative GPU ordinal " +
                                std::to_string(dev.gpu_ordinal));
    if (dev.memory_bytes > o.max_memory_bytes - std::min(memory, o.max_memory_bytes))
      return fail(error, SLUICE_STATUS_OUT_OF_RANGE, {},
                  "the device regions need more than the limit of " +
                      std::to_string(o.max_memory_bytes) + " bytes (at " +
                      deviceName(s, d) + ")");
    memory += dev.memory_bytes;
  }
  for (uint32_t l = 0; l < s.num_links; ++l) {
    const sluice_flow_link_t &k = s.links[l];
    if (k.from >= s.num_devices || k.to >= s.num_devices)
      return invalid(error, linkName(s, l) + ": unknown device (the schedule "
                                             "has " +
                                std::to_string(s.num_devices) + ")");
    if (k.from == k.to)
      return invalid(error, linkName(s, l) + ": a link must join two "
                                             "distinct devices");
    if (!std::isfinite(k.capacity) || k.capacity <= 0)
      return invalid(error, linkName(s, l) + ": capacity must be finite and "
                                             "positive, got " +
                                formatNumber(k.capacity));
  }
  for (uint32_t i = 0; i < s.num_transfers; ++i)
    if (sluice_status_t st = checkTransfer(s, i, error))
      return st;
  if (sluice_status_t st = checkOverlaps(s, error))
    return st;
  if (sluice_status_t st = checkCapacities(s, o.rate_tolerance, error))
    return st;

  // Chunks.
  uint64_t total = 0;
  for (uint32_t i = 0; i < s.num_transfers; ++i) {
    const sluice_flow_transfer_t &t = s.transfers[i];
    uint64_t n = t.bytes == 0 ? 0
                 : t.chunk_bytes == 0
                     ? 1
                     : t.bytes / t.chunk_bytes + (t.bytes % t.chunk_bytes != 0);
    if (n > o.max_chunks - std::min(total, o.max_chunks))
      return fail(error, SLUICE_STATUS_OUT_OF_RANGE, {},
                  "the schedule has more than the limit of " +
                      std::to_string(o.max_chunks) + " chunks (at " +
                      transferName(i) + ")");
    total += n;
  }
  plan = Plan();
  plan.schedule = sp;
  plan.totalChunks = total;
  plan.totalMemory = memory;
  plan.chunks.reserve(total);
  for (uint32_t i = 0; i < s.num_transfers; ++i) {
    const sluice_flow_transfer_t &t = s.transfers[i];
    plan.chunkBase.push_back(plan.chunks.size());
    std::vector<sluice_flow_segment_t> segs = profile(t);
    ProfileCursor cursor(segs);
    uint64_t size = t.chunk_bytes ? t.chunk_bytes : t.bytes;
    uint64_t count = 0;
    for (uint64_t off = 0; off < t.bytes; off += size, ++count) {
      ChunkPlan c;
      c.transfer = i;
      c.index = count;
      c.offset = off;
      c.bytes = std::min(size, t.bytes - off);
      // A chunk leaves once the profile has produced all of it, so the
      // executor never sends ahead of the schedule.
      c.release = cursor.timeAt(static_cast<double>(off + c.bytes));
      plan.chunks.push_back(c);
    }
    plan.chunkCount.push_back(count);
    double end = t.bytes ? cursor.timeAt(static_cast<double>(t.bytes))
                         : (segs.empty() ? 0 : segs.front().start);
    if (!(end * o.time_scale <= o.max_wall_seconds))
      return fail(error, SLUICE_STATUS_OUT_OF_RANGE, {},
                  transferName(i) + ": its rate profile ends at " +
                      formatNumber(end) + " s, " +
                      formatNumber(end * o.time_scale) +
                      " wall seconds at time scale " +
                      formatNumber(o.time_scale) + ", beyond the limit of " +
                      formatNumber(o.max_wall_seconds));
    plan.predicted.push_back(t.predicted_finish > 0 ? t.predicted_finish
                                                    : end);
    plan.makespan = std::max(plan.makespan, plan.predicted.back());
  }
  if (s.predicted_makespan > 0)
    plan.makespan = s.predicted_makespan;
  std::stable_sort(plan.chunks.begin(), plan.chunks.end(),
                   [](const ChunkPlan &a, const ChunkPlan &b) {
                     return a.release < b.release;
                   });
  if (fault != SLUICE_FLOW_FAULT_NONE &&
      (o.fault.transfer >= s.num_transfers ||
       o.fault.chunk >= plan.chunkCount[o.fault.transfer]))
    return invalid(error, "the fault names chunk " +
                              std::to_string(o.fault.chunk) + " of " +
                              transferName(o.fault.transfer) +
                              ", which does not exist");
  return SLUICE_STATUS_OK;
}
