//===- PipelineScheduleTest.cpp - The simulated 1F1B iteration ------------===//
//
// simulate1F1B against what 1F1B must be: the closed form (m + p - 1)(F + B)
// with free transfers (= Pipette's critical path with C = 0), every
// dependency respected, no compute op starting later than its inputs and
// its stage allow, at most p - s micro-batches in flight on stage s, and
// the errors of bad inputs.
//
//===----------------------------------------------------------------------===//
#include "compiler/Analysis/Parallel/ParallelModel.h"
#include "compiler/Analysis/Parallel/PipelineSchedule.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <map>

using namespace sluice::parallel;
using Kind = PipelineEvent::Kind;

namespace {

PipelineSchedule run(int64_t p, int64_t m, double F, double B, double c,
                     double ar = 0, double opt = 0) {
  PipelineTimes t;
  t.stages = p;
  t.microBatches = m;
  t.forward = F;
  t.backward = B;
  t.transfer = c;
  t.allReduce = ar;
  t.optimizer = opt;
  PipelineSchedule s;
  std::string why;
  EXPECT_TRUE(simulate1F1B(t, s, why)) << why;
  return s;
}

TEST(PipelineSchedule, FreeTransfersGiveTheClosedForm) {
  for (int64_t p = 1; p <= 6; ++p)
    for (int64_t m = 1; m <= 12; ++m) {
      const double F = 1.5, B = 3.25;
      PipelineSchedule s = run(p, m, F, B, 0.0, 0.5, 0.25);
      EXPECT_DOUBLE_EQ(s.pipelineEnd, (m + p - 1) * (F + B)) << p << " " << m;
      if (m >= p) { // Pipette's form is stated for m >= p
        EXPECT_DOUBLE_EQ(s.pipelineEnd,
                         pipetteCriticalPath(p, m, 1, F, B, 0.0));
      }
      EXPECT_DOUBLE_EQ(s.makespan, s.pipelineEnd + 0.75);
    }
}

TEST(PipelineSchedule, DependenciesHoldAndNothingWaitsWithoutCause) {
  for (int64_t p : {2, 3, 4, 8})
    for (int64_t m : {1, 3, 4, 9, 16}) {
      const double F = 1.0, B = 2.0, c = 0.3;
      PipelineSchedule s = run(p, m, F, B, c);
      std::map<std::tuple<int, int64_t, int64_t>, PipelineEvent> at;
      // When the activations / gradients of (stage, micro-batch) arrive.
      std::map<std::pair<int64_t, int64_t>, double> act, grad;
      std::vector<std::vector<PipelineEvent>> compute(p), sends(2 * p);
      for (const PipelineEvent &e : s.events) {
        if (e.kind == Kind::Forward || e.kind == Kind::Backward) {
          at[{e.kind == Kind::Forward, e.stage, e.microBatch}] = e;
          compute[e.stage].push_back(e);
        }
        if (e.kind == Kind::SendAct || e.kind == Kind::SendGrad) {
          const bool a = e.kind == Kind::SendAct;
          // A send leaves after its op and takes the transfer time.
          const auto &op = at[{a, e.stage, e.microBatch}];
          EXPECT_GE(e.start, op.end);
          EXPECT_NEAR(e.end - e.start, c, 1e-12);
          (a ? act : grad)[{e.stage + (a ? 1 : -1), e.microBatch}] = e.end;
          sends[2 * e.stage + a].push_back(e);
        }
      }
      for (const auto &lane : sends) // one at a time per link direction
        for (size_t i = 1; i < lane.size(); ++i)
          EXPECT_GE(lane[i].start + 1e-12, lane[i - 1].end);
      ASSERT_EQ(at.size(), static_cast<size_t>(2 * p * m));
      for (int64_t st = 0; st < p; ++st) {
        int64_t inFlight = 0, most = 0;
        for (size_t i = 0; i < compute[st].size(); ++i) {
          const PipelineEvent &e = compute[st][i];
          const double prevEnd = i ? compute[st][i - 1].end : 0.0;
          EXPECT_GE(e.start, prevEnd); // one op at a time per stage
          double ready;
          if (e.kind == Kind::Forward)
            ready = st ? act.at({st, e.microBatch}) : 0.0;
          else if (st + 1 < p)
            ready = grad.at({st, e.microBatch});
          else
            ready = at[{true, st, e.microBatch}].end;
          EXPECT_GE(e.start + 1e-12, ready);
          // Starts as soon as both the stage and the input allow.
          EXPECT_NEAR(e.start, std::max(prevEnd, ready), 1e-12);
          inFlight += e.kind == Kind::Forward ? 1 : -1;
          most = std::max(most, inFlight);
        }
        EXPECT_LE(most, std::min<int64_t>(p - st, m)) << "stage " << st;
      }
      // Transfers cost time on the path: never faster than the free case,
      // and at most 2(p - 1) transfers more per micro-batch round.
      EXPECT_GT(s.pipelineEnd, (m + p - 1) * (F + B));
      EXPECT_LE(s.pipelineEnd, (m + p - 1) * (F + B) + 2.0 * (p - 1 + m) * c);
    }
}

PipelineSchedule runInterleaved(int64_t p, int64_t m, int64_t v, double F,
                                double B, double c) {
  PipelineTimes t;
  t.stages = p;
  t.microBatches = m;
  t.virtualStages = v;
  t.forward = F;
  t.backward = B;
  t.transfer = c;
  PipelineSchedule s;
  std::string why;
  EXPECT_TRUE(simulate1F1B(t, s, why)) << why;
  return s;
}

TEST(PipelineSchedule, InterleavedShrinksTheBubbleByV) {
  // Megatron-LM's interleaved schedule: bubble (p - 1)(F + B) / v, which is
  // Pipette's interleaved form with C = 0.
  for (int64_t p : {2, 3, 4})
    for (int64_t v : {2, 3, 4})
      for (int64_t m : {p, 2 * p, 4 * p}) {
        const double F = 2.0, B = 4.0;
        PipelineSchedule s = runInterleaved(p, m, v, F, B, 0.0);
        EXPECT_NEAR(s.pipelineEnd, m * (F + B) + (p - 1) * (F + B) / v,
                    1e-9)
            << p << " " << m << " " << v;
        EXPECT_NEAR(s.pipelineEnd, pipetteCriticalPath(p, m, v, F, B, 0.0),
                    1e-9);
      }
}

TEST(PipelineSchedule, InterleavedDependenciesHold) {
  for (int64_t p : {2, 4})
    for (int64_t v : {2, 3})
      for (int64_t m : {p, 3 * p}) {
        const double F = 1.0, B = 2.0, c = 0.25;
        PipelineSchedule s = runInterleaved(p, m, v, F, B, c);
        // (forward?, virtual stage, micro-batch) -> event
        std::map<std::tuple<bool, int64_t, int64_t>, PipelineEvent> at;
        for (const PipelineEvent &e : s.events)
          if (e.kind == Kind::Forward || e.kind == Kind::Backward) {
            EXPECT_NEAR(e.end - e.start,
                        (e.kind == Kind::Forward ? F : B) / v, 1e-12);
            at[{e.kind == Kind::Forward, e.chunk * p + e.stage,
                e.microBatch}] = e;
          }
        ASSERT_EQ(at.size(), static_cast<size_t>(2 * p * m * v));
        const int64_t vp = p * v;
        auto end = [&](bool fwd, int64_t k, int64_t j) {
          return at[std::make_tuple(fwd, k, j)].end;
        };
        for (const auto &[key, e] : at) {
          const auto &[fwd, k, j] = key;
          double ready = 0;
          if (fwd && k > 0)
            ready = end(true, k - 1, j) + c;
          else if (!fwd && k + 1 < vp)
            ready = end(false, k + 1, j) + c;
          else if (!fwd)
            ready = end(true, k, j);
          EXPECT_GE(e.start + 1e-12, ready);
        }
      }
  PipelineTimes t;
  t.stages = 4;
  t.microBatches = 6;
  t.virtualStages = 2;
  PipelineSchedule s;
  std::string why;
  EXPECT_FALSE(simulate1F1B(t, s, why));
  EXPECT_NE(why.find("multiple of the stages"), std::string::npos);
}

TEST(PipelineSchedule, BadInputsAreRefused) {
  PipelineSchedule s;
  std::string why;
  PipelineTimes t;
  t.stages = 0;
  EXPECT_FALSE(simulate1F1B(t, s, why));
  EXPECT_NE(why.find("at least one stage"), std::string::npos);
  t.stages = 2;
  t.forward = -1;
  EXPECT_FALSE(simulate1F1B(t, s, why));
  EXPECT_NE(why.find("not negative"), std::string::npos);
  t.forward = 1;
  t.microBatches = 1000;
  t.stages = 1000;
  EXPECT_FALSE(simulate1F1B(t, s, why, 1000));
  EXPECT_NE(why.find("more than the 1000"), std::string::npos);
}

} // namespace
