//===- BucketFusion.cpp - GAPBS's bucket fusion of delta-stepping rounds --===//
//
// sluice_algo_bucket_for runs a round of a `frontier: buckets` loop. A
// fused round (sluice_algo_frontier_bucket with SLUICE_ALGO_BUCKET_FUSE)
// is GAPBS's bucket fusion (src/sssp.cc): while the pass runs, each insert
// into the round's result of a vertex whose bucket is the round's also
// goes to the inserting thread's own bin (the context's: one per thread,
// on its arena); a thread whose share is done
// runs the loop over its bin, and again over what that adds, while the
// bin holds fewer than SLUICE_ALGO_FUSE_BELOW vertices, so a small
// bucket's next rounds run on their thread without a round's barrier,
// seal and filing. A bin left larger is passed on: its vertices are filed
// at the seal and the next round takes them.
//
// Exact: every lowering into the round's bucket puts the vertex in a bin,
// and the bin's thread either runs it afterwards (reading the priority
// then, so with at least that lowering) or passes it on. The seal
// (BucketQueue::fileAfterFusion) therefore leaves a vertex whose bucket is
// the round's out of the queue unless it was passed on, and files the
// others as an unfused round does. A bin entry whose priority fell again
// before its thread came to it is skipped (the later lowering's entry runs
// it). A vertex may still run more than once in a round; the loop is
// legal to fuse only when running it again is harmless (its body only
// lowers the priority with min=).
//
//===----------------------------------------------------------------------===//
#include "sluice/algo.h"

#include "runtime/src/algo/AlgoInternal.h"

#include <cstring>

using namespace sluice::rt;

thread_local BinRef sluice::rt::binRef;

FuseBin &sluice::rt::newThreadBins(sluice_algo_ctx_t *ctx) {
  BinRef &ref = binRef;
  FuseBins &bins = *ctx->fuseBins;
  std::lock_guard<std::mutex> lock(bins.mutex);
  bins.bins.push_back(std::make_unique<FuseBin>(&ctx->arena));
  ref.ctxSerial = ctx->serial;
  ref.bin = bins.bins.back().get();
  return *ref.bin;
}

namespace {

/// One fused round's pass, as its shares see it.
struct FusedPass {
  sluice_algo_ctx_t *ctx;
  sluice_frontier_t *out;
  sluice_algo_range_fn_t fn;
  const uint64_t *env;
  uint64_t envSlots;
  uint64_t listSlot;
};

/// A share's end: the thread runs its bin while it is small, then passes
/// on what is left.
void runBin(void *arg) {
  const FusedPass &pass = *static_cast<const FusedPass *>(arg);
  FuseBin &bin = threadBins(pass.ctx);
  if (bin.frontier != pass.out)
    return;
  while (!bin.items.empty() && bin.items.size() < SLUICE_ALGO_FUSE_BELOW &&
         !pass.ctx->faulted.load(std::memory_order_relaxed)) {
    // An entry whose priority fell since is stale: the lowering that
    // followed it has an entry of its own, which runs the vertex (or is
    // passed on) with the lower value; the last lowering's is never stale.
    bin.taken.swap(bin.items);
    bin.items.clear();
    bin.running.clear();
    const BucketFusion &fusion = *pass.out->fusion;
    for (auto [v, p] : bin.taken)
      if (!(fusedPriority(fusion, v) < p))
        bin.running.push_back(v);
    if (bin.running.empty())
      continue;
    bin.env.assign(pass.env, pass.env + pass.envSlots);
    bin.env[pass.listSlot] =
        static_cast<uint64_t>(reinterpret_cast<uintptr_t>(bin.running.data()));
    pass.fn(pass.ctx, bin.env.data(), 0, bin.running.size());
  }
  if (!bin.items.empty()) {
    BucketFusion &fusion = *pass.out->fusion;
    std::lock_guard<std::mutex> lock(fusion.spillMutex);
    for (auto [v, p] : bin.items)
      fusion.spilled.push_back(v);
  }
  bin.items.clear();
  bin.frontier = nullptr;
}

} // namespace

void sluice::rt::fuseInsert(sluice_frontier_t *f, uint32_t v, double p) {
  const BucketFusion &fusion = *f->fusion;
  if (BucketQueue::keyOf(p, fusion.delta) != fusion.key)
    return;
  fuseInto(threadBins(f->ctx), f, v, p);
}

void sluice::rt::fuseInto(FuseBin &bin, sluice_frontier_t *f, uint32_t v,
                          double p) {
  if (bin.frontier != f) {
    bin.items.clear();
    bin.frontier = f;
  }
  bin.items.emplace_back(v, p);
}

void sluice_algo_bucket_for(sluice_frontier_t *current, int32_t schedule,
                            uint64_t chunk, sluice_algo_range_fn_t fn,
                            void *env, uint64_t env_slots, uint64_t list_slot) {
  sluice_algo_ctx_t *ctx = current->ctx;
  uint64_t n = sluice_algo_frontier_size(current);
  sluice_frontier_t *out = current->fusedInto;
  if (!out || !out->fusion || list_slot >= env_slots || ctx->gpu) {
    sluice_algo_parallel_for(ctx, n, schedule, chunk, fn, env);
    return;
  }
  FusedPass pass{ctx,       out,      fn, static_cast<const uint64_t *>(env),
                 env_slots, list_slot};
  out->fusion->active = true;
  parallelFor(ctx, n, schedule, chunk, fn, env, &runBin, &pass);
  out->fusion->active = false;
}
