//===- AlignHostLaunch.h - The GPU kernel's launch, with host addresses ---===//
//
// The arrays the launcher prepares for `pairs` (runtime/src/align/
// AlignGpu.h), the results, the work queue's counter and the warps'
// scratch rows, and the kernel's argument block pointing at them: what an
// emulation of the kernel on the host (the warp algorithm in
// AlignWarpEmulation.h, or the compiled kernel on host threads) runs.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_TEST_UNIT_ALIGN_ALIGNHOSTLAUNCH_H
#define SLUICE_TEST_UNIT_ALIGN_ALIGNHOSTLAUNCH_H

#include "runtime/src/align/AlignGpu.h"
#include "test/Unit/Align/AlignCases.h"

#include <cstdint>
#include <vector>

namespace sluice::test {

struct HostLaunch {
  rt::align::GpuBatch batch;
  std::vector<sluice_align_result_t> results;
  uint32_t next = 0;
  /// Stale values from earlier pairs stay in the scratch, as on the GPU:
  /// poisoned, so that reading a cell not written for this pair shows.
  std::vector<int32_t> scratch;
  sluice_align_gpu_args_t args{};

  /// With `warps` warps (0: the launcher's count).
  HostLaunch(const Pairs &pairs, const sluice_align_scoring_t &sc,
             uint64_t warps) {
    PairArrays in(pairs);
    rt::align::prepareGpuBatch(in.q.data(), in.ql.data(), in.t.data(),
                               in.tl.data(), pairs.size(), batch);
    results.resize(pairs.size());
    auto address = [](const void *p) { return uint64_t(uintptr_t(p)); };
    args.queries = address(batch.queries.data());
    args.targets = address(batch.targets.data());
    args.query_offsets = address(batch.queryOffsets.data());
    args.target_offsets = address(batch.targetOffsets.data());
    args.order = address(batch.order.data());
    args.next = address(&next);
    args.results = address(results.data());
    args.count = pairs.size();
    args.row = batch.row;
    args.warps = warps ? warps : batch.warps;
    args.scoring = sc;
    scratch.assign(args.warps * SLUICE_ALIGN_GPU_SCRATCH_ROWS * args.row,
                   0x5a5a5a5a);
    args.scratch = address(scratch.data());
  }
  HostLaunch(const HostLaunch &) = delete;
  HostLaunch &operator=(const HostLaunch &) = delete;
};

} // namespace sluice::test

#endif // SLUICE_TEST_UNIT_ALIGN_ALIGNHOSTLAUNCH_H
