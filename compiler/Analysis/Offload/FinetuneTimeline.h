//===- FinetuneTimeline.h - The fine-tune planner's event schedule -*- C++
//-*-===//
//
// One in-order stream per resource (FinetunePlanner.h, Stream): an action
// starts when its dependencies have ended and its stream has a gap long
// enough (the earliest one). Internal to the fine-tune planner.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_COMPILER_ANALYSIS_OFFLOAD_FINETUNETIMELINE_H
#define SLUICE_COMPILER_ANALYSIS_OFFLOAD_FINETUNETIMELINE_H

#include "compiler/Analysis/Offload/FinetunePlanner.h"

#include <algorithm>
#include <array>
#include <initializer_list>
#include <utility>
#include <vector>

namespace sluice::offload::detail {

/// Per-stream busy intervals, sorted; actions fill the earliest gap.
class Timeline {
public:
  double place(Stream s, double ready, double dur) {
    auto &iv = busy[static_cast<unsigned>(s)];
    double t = ready;
    size_t pos = 0;
    // First interval ending after `t`.
    pos = std::lower_bound(iv.begin(), iv.end(), t,
                           [](const std::pair<double, double> &a, double v) {
                             return a.second <= v;
                           }) -
          iv.begin();
    for (; pos < iv.size(); ++pos) {
      if (iv[pos].first >= t + dur)
        break;
      t = std::max(t, iv[pos].second);
    }
    if (dur > 0)
      iv.insert(iv.begin() + static_cast<long>(pos), {t, t + dur});
    return t;
  }

private:
  std::array<std::vector<std::pair<double, double>>, kNumStreams> busy;
};

/// Builds and times the schedule of one candidate.
class Scheduler {
public:
  std::vector<Action> acts;
  int add(Stream s, double dur, double bytes, double flops,
          llvm::StringRef tensor, llvm::StringRef what, int64_t layer,
          int64_t mb, std::initializer_list<int> deps) {
    double ready = 0;
    for (int d : deps)
      if (d >= 0)
        ready = std::max(ready, acts[static_cast<size_t>(d)].end);
    Action a;
    a.stream = s;
    a.start = tl.place(s, ready, dur);
    a.end = a.start + dur;
    a.bytes = bytes;
    a.flops = flops;
    a.tensor = tensor.str();
    a.what = what.str();
    a.layer = layer;
    a.microBatch = mb;
    acts.push_back(std::move(a));
    return static_cast<int>(acts.size() - 1);
  }
  double end(int i) const { return i < 0 ? 0 : acts[size_t(i)].end; }

private:
  Timeline tl;
};

} // namespace sluice::offload::detail

#endif // SLUICE_COMPILER_ANALYSIS_OFFLOAD_FINETUNETIMELINE_H
