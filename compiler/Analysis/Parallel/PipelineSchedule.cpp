//===- PipelineSchedule.cpp - One training iteration, event by event ------===//
//
// See PipelineSchedule.h. Stages are simulated in waves: a stage's op list
// is fixed by 1F1B, and each op waits for its predecessor on the stage and
// for its cross-stage input, so repeatedly advancing every stage by the
// ops whose inputs are known schedules every op (PipeDream-Flush cannot
// deadlock; a pass without progress would be a bug, reported as such).
//
//===----------------------------------------------------------------------===//
#include "compiler/Analysis/Parallel/PipelineSchedule.h"

#include <algorithm>
#include <cmath>
#include <limits>

using namespace sluice;
using namespace sluice::parallel;

const char *parallel::pipelineEventName(PipelineEvent::Kind k) {
  switch (k) {
  case PipelineEvent::Kind::Forward:
    return "forward";
  case PipelineEvent::Kind::Backward:
    return "backward";
  case PipelineEvent::Kind::SendAct:
    return "send activations";
  case PipelineEvent::Kind::SendGrad:
    return "send gradients";
  case PipelineEvent::Kind::AllReduce:
    return "gradient all-reduce";
  case PipelineEvent::Kind::Optimizer:
    return "optimizer step";
  }
  return "?";
}

bool parallel::simulate1F1B(const PipelineTimes &t, PipelineSchedule &out,
                            std::string &why, uint64_t maxEvents) {
  out = PipelineSchedule();
  const int64_t p = t.stages, m = t.microBatches;
  if (p < 1 || m < 1 || t.virtualStages < 1) {
    why = "a pipeline needs at least one stage, micro-batch and virtual "
          "stage";
    return false;
  }
  if (t.virtualStages > 1 && m % p != 0) {
    why = "an interleaved schedule needs the micro-batches (" +
          std::to_string(m) + ") to be a multiple of the stages (" +
          std::to_string(p) + ")";
    return false;
  }
  for (double v : {t.forward, t.backward, t.transfer, t.compressedTransfer,
                   t.allReduce, t.optimizer})
    if (!std::isfinite(v) || v < 0) {
      why = "pipeline times must be finite and not negative";
      return false;
    }
  // Compute ops (2mv per stage) and their sends, plus two per stage.
  const double count = static_cast<double>(p) * static_cast<double>(m) *
                           static_cast<double>(t.virtualStages) * 4.0 +
                       2.0 * static_cast<double>(p);
  if (count > static_cast<double>(maxEvents)) {
    why = "the iteration has " + std::to_string(static_cast<uint64_t>(count)) +
          " events, more than the " + std::to_string(maxEvents) +
          " a trace holds";
    return false;
  }
  const int64_t v = t.virtualStages, vp = v * p;
  const double unknown = std::numeric_limits<double>::quiet_NaN();
  // When the activations / gradients of micro-batch j arrive at virtual
  // stage k (chunk k / p on device k % p).
  std::vector<double> actArrive(vp * m, unknown), gradArrive(vp * m, unknown);
  for (int64_t j = 0; j < m; ++j)
    actArrive[j] = 0; // virtual stage 0 reads the input
  // The op list of each device (Megatron-LM's schedules): its i-th forward
  // runs chunk (i / p) % v of micro-batch (i / vp) p + i % p, its i-th
  // backward chunk v - 1 - (i / p) % v of the same micro-batch; warm-up
  // forwards (p - s - 1) with one chunk, (p - s - 1) 2 + (v - 1) p with
  // several, then one forward and one backward alternate.
  struct Op {
    bool fwd;
    int64_t stage; ///< virtual stage
    int64_t micro;
  };
  auto ith = [&](int64_t s, int64_t i, bool fwd) {
    int64_t group = (i / p) % v;
    int64_t chunk = v == 1 ? 0 : fwd ? group : v - 1 - group;
    int64_t micro = v == 1 ? i : (i / vp) * p + i % p;
    return Op{fwd, chunk * p + s, micro};
  };
  const int64_t total = m * v;
  std::vector<std::vector<Op>> ops(p);
  for (int64_t s = 0; s < p; ++s) {
    const int64_t warm = std::min(
        v == 1 ? p - s - 1 : (p - s - 1) * 2 + (v - 1) * p, total);
    int64_t f = 0, b = 0;
    for (; f < warm; ++f)
      ops[s].push_back(ith(s, f, true));
    while (f < total) {
      ops[s].push_back(ith(s, f++, true));
      ops[s].push_back(ith(s, b++, false));
    }
    while (b < total)
      ops[s].push_back(ith(s, b++, false));
  }
  const double fwdTime = t.forward / static_cast<double>(v),
               bwdTime = t.backward / static_cast<double>(v);
  std::vector<size_t> next(p, 0);
  std::vector<double> free(p, 0.0), actLinkFree(p, 0.0),
      gradLinkFree(p, 0.0);
  std::vector<std::vector<PipelineEvent>> perStage(p);
  size_t remaining = static_cast<size_t>(2 * total * p);
  while (remaining) {
    bool progress = false;
    for (int64_t s = 0; s < p; ++s) {
      while (next[s] < ops[s].size()) {
        const Op op = ops[s][next[s]];
        const int64_t k = op.stage, j = op.micro;
        // The last virtual stage's backward of j needs only its own
        // forward of j, which comes earlier on the same device.
        const double ready = op.fwd         ? actArrive[k * m + j]
                             : k + 1 == vp ? 0.0
                                           : gradArrive[k * m + j];
        if (std::isnan(ready))
          break;
        const double start = std::max(free[s], ready);
        const double end = start + (op.fwd ? fwdTime : bwdTime);
        PipelineEvent e{op.fwd ? PipelineEvent::Kind::Forward
                               : PipelineEvent::Kind::Backward,
                        s, j, start, end};
        e.chunk = k / p;
        perStage[s].push_back(e);
        free[s] = end;
        // Sends of a stage in one direction share its link: one at a time.
        auto send = [&](PipelineEvent::Kind kind, double &linkFree) {
          const double at = std::max(end, linkFree);
          linkFree = at + (kind == PipelineEvent::Kind::SendGrad &&
                                   j >= t.compressedFrom
                               ? t.compressedTransfer
                               : t.transfer);
          PipelineEvent x{kind, s, j, at, linkFree};
          x.chunk = k / p;
          perStage[s].push_back(x);
          return linkFree;
        };
        if (op.fwd && k + 1 < vp)
          actArrive[(k + 1) * m + j] =
              send(PipelineEvent::Kind::SendAct, actLinkFree[s]);
        if (!op.fwd && k > 0)
          gradArrive[(k - 1) * m + j] =
              send(PipelineEvent::Kind::SendGrad, gradLinkFree[s]);
        ++next[s];
        --remaining;
        progress = true;
      }
    }
    if (!progress) {
      why = "internal error: the 1F1B schedule did not make progress";
      return false;
    }
  }
  for (int64_t s = 0; s < p; ++s) {
    out.pipelineEnd = std::max(out.pipelineEnd, free[s]);
    const double reduceEnd = free[s] + t.allReduce;
    perStage[s].push_back(
        {PipelineEvent::Kind::AllReduce, s, -1, free[s], reduceEnd});
    perStage[s].push_back({PipelineEvent::Kind::Optimizer, s, -1, reduceEnd,
                           reduceEnd + t.optimizer});
    out.makespan = std::max(out.makespan, reduceEnd + t.optimizer);
    out.events.insert(out.events.end(), perStage[s].begin(),
                      perStage[s].end());
  }
  return true;
}
