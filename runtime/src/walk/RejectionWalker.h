//===- RejectionWalker.h - the specialised rejection loop ---===//
//
// Part of the walk engine (Engine.cpp: sluice_walk_run); see
// docs/sampling.md ("The walk engine"). Internal to libsluicert.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_RUNTIME_WALK_REJECTIONWALKER_H
#define SLUICE_RUNTIME_WALK_REJECTIONWALKER_H

#include "runtime/src/walk/GenericWalkers.h"

namespace sluice::walkengine {

/// Modes Rejection and Auto (node2vec, weighted node2vec, DeepWalk forced
/// to rejection; second-order PPR with kStopCoin; metapath with kHooks):
/// the same walks as Walker, from a loop specialised to it. Per walker only its
/// vertices, length, id, the first Philox block of its step and the step's
/// first proposal are kept (arrays, not frames); one frame per thread is filled
/// in just before a kernel function is called. A rejection trial draws 3 words
/// (index and a 53-bit coin), so the first three trials of a step use words
/// 0-2, 3-5 and 6-8 of its stream: blocks 0, 1 and 2, each computed in one
/// batch for the walkers that need it. A round advances every walker in
/// these passes:
///   0. block 0 of every walker's step;
///   1. offsets and bound of the current vertex (prefetched when the
///      walker arrived), the first proposal from word 0, prefetch its edge
///      and the middle of the previous vertex's adjacency (has_edge);
///   2. trial 0 (words 1 and 2 are its coin);
///   3. block 1 of the walkers trial 0 rejected, trial 1;
///   4. block 2 of the walkers trial 1 rejected, trial 2; further trials,
///      the exact fallback and reservoir steps (the cost model's choice)
///      draw from a WalkRng positioned in the stream;
///   5. walkers that ended are replaced by new ones.
/// Moving a walker prefetches the offsets and bound of the vertex reached.
///
/// kStopCoin: a stop probability, drawn as the general loop does (words 0
/// and 1 of the step's stream, before the first proposal): the trials'
/// words move two places along the stream (trial 0: index word 2, coin
/// word 3 and word 0 of block 1; trial 1: words 1-3 of block 1; trial 2:
/// words 0-2 of block 2), so pass 0 computes blocks 0 and 1 of every
/// walker and pass 3 needs no block of its own.
///
/// kHooks: the kernel's init, stop and update functions and its state
/// (metapath's hop counter), called where the general loop calls them:
/// init when a walker starts (its state zeroed), stop at the start of a
/// step after the stop coin and before the degree, update after a step's
/// draw and before the move. Each walker's random() count runs from its
/// start or its last move, across init, stop, the weights and update, as
/// in the general loop (which resets it there too).
template <bool kStopCoin = false, bool kHooks = false> class RejectionWalker {
  /// Words of the step's stream drawn before the first proposal.
  static constexpr uint32_t kCoinWords = kStopCoin ? 2 : 0;
  /// skip[i] of a plain rejection step: the words drawn up to and
  /// including the first proposal's index.
  static constexpr uint32_t kPlain = kCoinWords + 1;

public:
  RejectionWalker(const Run &run)
      : run(run), k(*run.kernel), prefetchPrev(run.prefetchPrevAdjacency),
        sets(run.edgeSets), width(run.walkersPerThread), cur(width),
        prev(width), length(width), walker(width), local(width), begin_(width),
        degree(width), pre(width), skip(width), done(width), again(width),
        keep2(width), keep3(width), draws(width), bound(width), lower(width) {
    for (auto *lane : {&w0, &w1, &w2, &w3, &x0, &x1, &x2, &x3})
      lane->resize(philoxLaneCapacity(width));
    if constexpr (kStopCoin)
      for (auto *lane : {&y0, &y1, &y2, &y3})
        lane->resize(philoxLaneCapacity(width));
    if constexpr (kHooks)
      state.assign(size_t(width) * k.num_state, 0);
    f = run.frame(nullptr, draws.data(), &fault);
  }

  void chunk(uint64_t first, uint64_t count, uint32_t *rows,
             uint32_t *lengths, const std::atomic<bool> &abort) {
    uint32_t active = 0;
    const uint32_t maxLength = run.maxLength;
    const uint64_t *offsets = run.offsets;
    const uint32_t *targets = run.targets;
    const float *weights = run.weights;
    const double stopProbability = run.stopProbability;
    // The arrays' bases in locals (as FirstOrderWalker's): the kernel's
    // functions are opaque calls, after which members are loaded again;
    // locals whose address is not taken are not.
    uint32_t *const cur = this->cur.data(), *const prev = this->prev.data(),
                    *const length = this->length.data();
    uint64_t *const walker = this->walker.data(),
                    *const local = this->local.data(),
                    *const begin_ = this->begin_.data();
    uint32_t *const degree = this->degree.data(), *const pre = this->pre.data(),
                    *const skip = this->skip.data();
    uint8_t *const done = this->done.data();
    uint32_t *const again = this->again.data(),
                    *const keep2 = this->keep2.data(),
                    *const keep3 = this->keep3.data();
    uint64_t *const draws = this->draws.data();
    double *const bound = this->bound.data();
    float *const lower = this->lower.data();
    uint32_t *const w0 = this->w0.data(), *const w1 = this->w1.data(),
                    *const w2 = this->w2.data(), *const w3 = this->w3.data();
    uint32_t *const x0 = this->x0.data(), *const x1 = this->x1.data(),
                    *const x2 = this->x2.data(), *const x3 = this->x3.data();
    uint32_t *const y0 = this->y0.data(), *const y1 = this->y1.data(),
                    *const y2 = this->y2.data(), *const y3 = this->y3.data();
    const Slots sl{cur,    prev,  length, walker, begin_,
                   degree, draws, bound,  lower};
    ChunkFeed feed(run, first, count, rows, lengths, stats);
    auto begin = [&](uint32_t i) {
      uint64_t l;
      uint32_t start;
      if (!feed.take(&l, &start))
        return false;
      cur[i] = prev[i] = start;
      length[i] = 1;
      walker[i] = first + l;
      local[i] = l;
      done[i] = 0;
      if constexpr (kHooks) {
        draws[i] = 0;
        if (k.num_state)
          std::memset(stateOf(i), 0, sizeof(int64_t) * k.num_state);
        if (k.init) {
          setFrame(sl, i);
          k.init(&f);
        }
      }
      prefetch(offsets + start);
      run.prefetchBound(start);
      return true;
    };
    // Slots [0, active) hold walkers; a finished one is replaced by the
    // next walker, or by the last slot's walker when none is left.
    auto finish = [&](uint32_t i) {
      feed.end(local[i], length[i]);
      if (begin(i))
        return true;
      --active;
      if (i != active) {
        cur[i] = cur[active];
        prev[i] = prev[active];
        length[i] = length[active];
        walker[i] = walker[active];
        local[i] = local[active];
        begin_[i] = begin_[active];
        degree[i] = degree[active];
        pre[i] = pre[active];
        skip[i] = skip[active];
        done[i] = done[active];
        draws[i] = draws[active];
        bound[i] = bound[active];
        lower[i] = lower[active];
        w0[i] = w0[active];
        w1[i] = w1[active];
        w2[i] = w2[active];
        w3[i] = w3[active];
        if constexpr (kStopCoin) {
          y0[i] = y0[active];
          y1[i] = y1[active];
          y2[i] = y2[active];
          y3[i] = y3[active];
        }
        if constexpr (kHooks)
          if (k.num_state)
            std::memcpy(stateOf(i), stateOf(active),
                        sizeof(int64_t) * k.num_state);
      }
      return false;
    };
    // Moves slot i along edge j of its vertex (kNoCandidate: the walk
    // ends); marks it done when it has ended.
    auto move = [&](uint32_t i, uint64_t j) SLUICE_WALK_LAMBDA_INLINE {
      if (__builtin_expect(j == kNoCandidate, 0)) {
        done[i] = 1;
        return;
      }
      uint32_t to = targets[begin_[i] + j];
      if constexpr (kHooks) {
        if (k.update) {
          setFrame(sl, i);
          k.update(&f, to);
        }
        draws[i] = 0;
      }
      if (rows)
        rows[local[i] * run.stride + length[i]] = to;
      prev[i] = cur[i];
      cur[i] = to;
      prefetch(offsets + to);
      run.prefetchBound(to);
      if (sets)
        prefetch(sets->whereOf(to));
      if (++length[i] == maxLength)
        done[i] = 1;
    };
    for (uint32_t i = 0; i < width && begin(i); ++i)
      ++active;
    while (active) {
      if (abort.load(std::memory_order_relaxed))
        return;
      // Pass 0: block 0 of every walker's step stream.
      for (uint32_t i = 0; i < active; ++i) {
        w1[i] = length[i] - 1;
        w2[i] = static_cast<uint32_t>(walker[i]);
        w3[i] = static_cast<uint32_t>(walker[i] >> 32);
      }
      philoxLanes(active, run.seed, w0, w1, w2, w3);
      if constexpr (kStopCoin) {
        // And block 1 (trials 0 and 1 draw from it).
        for (uint32_t i = 0; i < active; ++i) {
          y1[i] = length[i] - 1;
          y2[i] = static_cast<uint32_t>(walker[i]);
          y3[i] = static_cast<uint32_t>(walker[i] >> 32);
        }
        philoxLanes(active, run.seed, y0, y1, y2, y3, 1);
      }
      // Pass 1: the stop coin, degree, bound, the first proposal. A
      // walker that stops or stands at a sink ends (its slot then holds a
      // new walker, which waits for the next round, or the last slot's
      // walker, handled now).
      for (uint32_t i = 0; i < active;) {
        uint32_t v = cur[i];
        uint64_t b = offsets[v];
        uint64_t d = offsets[v + 1] - b;
        bool ends = false;
        if constexpr (kStopCoin)
          ends = coinOf(w0[i], w1[i]) < stopProbability;
        if constexpr (kHooks)
          if (!ends && k.stop) {
            setFrame(sl, i);
            ends = k.stop(&f);
          }
        ends |= d == 0;
        if (__builtin_expect(ends, 0)) {
          if (finish(i)) {
            skip[i] = kSkip;
            ++i;
          }
          continue;
        }
        begin_[i] = b;
        degree[i] = static_cast<uint32_t>(d);
        double bd = run.boundOf(v);
        bound[i] = bd;
        float lo = run.hasLower() ? run.lowerOf(v) : 0.0f;
        lower[i] = lo;
        if (__builtin_expect(isForcedStep(d, bd, lo), 0)) {
          // The only edge, whose weight is at least lo > 0: taken in pass
          // 2 without a trial (no word drawn, no weight called).
          skip[i] = kForced;
          ++i;
          continue;
        }
        if (bd > 0 && std::isfinite(bd)) {
          // Rejection: the first proposal, as uniformIndex draws it from
          // the stream (skip: the words drawn, more than 1 only when
          // Lemire's method asked for more).
          bool more = false;
          pre[i] = lemireIndex(kStopCoin ? w2[i] : w0[i],
                               static_cast<uint32_t>(d), [&]() -> WalkRng & {
                                 const uint32_t block[4] = {w0[i], w1[i],
                                                            w2[i], w3[i]};
                                 retry =
                                     WalkRng(run.seed, walker[i], length[i] - 1,
                                             block, 0, kPlain);
                                 more = true;
                                 return retry;
                               });
          skip[i] = __builtin_expect(more, 0)
                        ? static_cast<uint32_t>(retry.drawn())
                        : kPlain;
          prefetch(targets + b + pre[i]);
          if (weights)
            prefetch(weights + b + pre[i]);
        } else {
          // Reservoir (the cost model's choice, bound < 0) or a bound
          // that admits no trial: the whole stream is left to pass 2.
          skip[i] = 0;
          prefetch(targets + b);
          if (weights)
            prefetch(weights + b);
        }
        if (prefetchPrev && prev[i] != v) {
          // prev's offsets were read at the last step (it was cur then).
          // A vertex with a neighbour set (degree kMinDegree or more, when
          // there are sets) gets its slot prefetched in pass 1b instead.
          uint64_t pb = offsets[prev[i]];
          uint64_t pd = offsets[prev[i] + 1] - pb;
          const uint32_t *adj = targets + pb;
          if (!(sets && pd >= rt::EdgeSets::kMinDegree)) {
            prefetch(adj + pd / 2);
            if (pd > 32) {
              prefetch(adj + pd / 4);
              prefetch(adj + 3 * pd / 4);
            }
          }
        }
        ++i;
      }
      // Pass 1b: where the previous vertex has a neighbour set, prefetch
      // the slot has_edge(prev, candidate) reads first (the candidate's id
      // was prefetched in pass 1).
      if (sets)
        for (uint32_t i = 0; i < active; ++i)
          if (skip[i] == kPlain && prev[i] != cur[i])
            if (const uint32_t *slot =
                    sets->probeAddress(prev[i], targets[begin_[i] + pre[i]]))
              prefetch(slot);
      // Pass 2: trial 0 (or the whole step when it is not a plain
      // rejection step).
      uint32_t m = 0;
      for (uint32_t i = 0; i < active; ++i) {
        if constexpr (!kHooks)
          draws[i] = 0; // with hooks: at the walker's start and each move
        if (__builtin_expect(skip[i] != kPlain, 0)) {
          if (skip[i] == kForced) {
            countStep(false);
            move(i, 0);
          } else if (skip[i] != kSkip) {
            move(i, slowStep(i));
          }
          continue;
        }
        setFrame(sl, i);
        uint64_t idx = pre[i];
        if (trial(sl, i, idx,
                  kStopCoin ? coinOf(w3[i], y0[i]) : coinOf(w1[i], w2[i])))
          move(i, idx);
        else
          again[m++] = i;
      }
      // Pass 3: block 1 of the walkers trial 0 rejected; trial 1 (index
      // from word 3 of block 0, coin from words 0 and 1 of block 1).
      uint32_t m2 = 0;
      if (kStopCoin && m) {
        // Trial 1 from words 1-3 of block 1, computed in pass 0.
        for (uint32_t j = 0; j < m; ++j) {
          uint32_t i = again[j];
          setFrame(sl, i);
          const uint32_t block1[4] = {y0[i], y1[i], y2[i], y3[i]};
          uint64_t e = trialAt(sl, i, 1, y1[i], y2[i], y3[i], block1, 1, 1);
          if (e != kUndecided)
            move(i, e);
          else
            again[m2++] = i;
        }
      } else if (m) {
        for (uint32_t j = 0; j < m; ++j) {
          uint32_t i = again[j];
          x1[j] = length[i] - 1;
          x2[j] = static_cast<uint32_t>(walker[i]);
          x3[j] = static_cast<uint32_t>(walker[i] >> 32);
        }
        philoxLanes(m, run.seed, x0, x1, x2, x3, 1);
        for (uint32_t j = 0; j < m; ++j) {
          uint32_t i = again[j];
          setFrame(sl, i);
          const uint32_t block0[4] = {w0[i], w1[i], w2[i], w3[i]};
          uint64_t e = trialAt(sl, i, 1, w3[i], x0[j], x1[j], block0, 0, 3);
          if (e != kUndecided) {
            move(i, e);
            continue;
          }
          // Trial 2 draws words 2 and 3 of block 1 and word 0 of block 2.
          keep2[m2] = x2[j];
          keep3[m2] = x3[j];
          again[m2++] = i; // m2 <= j: again[j] was read
        }
      }
      // Pass 4: block 2 of the walkers trial 1 rejected; trial 2, then the
      // trials after it from the stream.
      if (m2) {
        for (uint32_t j = 0; j < m2; ++j) {
          uint32_t i = again[j];
          x1[j] = length[i] - 1;
          x2[j] = static_cast<uint32_t>(walker[i]);
          x3[j] = static_cast<uint32_t>(walker[i] >> 32);
        }
        philoxLanes(m2, run.seed, x0, x1, x2, x3, 2);
        for (uint32_t j = 0; j < m2; ++j) {
          uint32_t i = again[j];
          const uint32_t block2[4] = {x0[j], x1[j], x2[j], x3[j]};
          setFrame(sl, i);
          uint64_t e;
          if constexpr (kStopCoin) {
            // Words 0-2 of block 2.
            e = trialAt(sl, i, 2, x0[j], x1[j], x2[j], block2, 2, 0);
          } else {
            const uint32_t block1[4] = {0, 0, keep2[j], keep3[j]};
            e = trialAt(sl, i, 2, keep2[j], keep3[j], x0[j], block1, 1, 2);
          }
          if (e == kUndecided) {
            WalkRng rng(run.seed, walker[i], length[i] - 1, block2, 2,
                        kStopCoin ? 3 : 1);
            e = trials(i, rng, 3);
          }
          move(i, e);
        }
      }
      checkFault(fault);
      // Pass 5: count the steps, replace the walkers that ended.
      for (uint32_t i = 0; i < active;) {
        if (!done[i]) {
          ++i;
          continue;
        }
        done[i] = 0;
        if (finish(i))
          ++i;
      }
    }
    checkFault(fault);
  }

  ThreadStats stats;
  ThreadStats result() const { return stats; }
  sluice_walk_fault_t fault{};

private:
  /// skip[i] of a slot whose walker was started in this round's pass 1
  /// (it takes its first step next round).
  static constexpr uint32_t kSkip = UINT32_MAX;
  /// skip[i] of a forced step (isForcedStep): edge 0, taken in pass 2.
  static constexpr uint32_t kForced = UINT32_MAX - 1;

  /// nextDouble() of the words hi, lo.
  static double coinOf(uint32_t hi, uint32_t lo) {
    return static_cast<double>((uint64_t(hi) << 32 | lo) >> 11) * 0x1.0p-53;
  }

  /// The data pointers of the per-slot arrays the trials and the frame
  /// read: chunk() holds them in a local, the slower paths take slots().
  struct Slots {
    const uint32_t *cur, *prev, *length;
    const uint64_t *walker, *begin_;
    const uint32_t *degree;
    uint64_t *draws;
    const double *bound;
    const float *lower;
  };
  Slots slots() {
    return {cur.data(),    prev.data(),   length.data(),
            walker.data(), begin_.data(), degree.data(),
            draws.data(),  bound.data(),  lower.data()};
  }

  /// The frame the kernel functions see for slot i's current step (its
  /// random() draws count on across the passes of the step).
  SLUICE_WALK_INLINE void setFrame(const Slots &s, uint32_t i) {
    f.walker = s.walker[i];
    f.prev = s.prev[i];
    f.cur = s.cur[i];
    f.step = s.length[i] - 1;
    f.random_draws = &s.draws[i];
    if constexpr (kHooks)
      f.state = k.num_state ? stateOf(i) : nullptr;
  }

  /// Slot i's state (kHooks, a kernel with state).
  int64_t *stateOf(uint32_t i) {
    return state.data() + size_t(i) * k.num_state;
  }

  SLUICE_WALK_INLINE double weight(const Slots &s, uint32_t i, uint64_t e) {
    return run.edgeWeight(&f, s.begin_[i] + e);
  }

  /// One rejection trial of slot i (frame set): candidate idx, coin `u`
  /// in [0, 1). As Walker::rejection: with a lower bound the coin decides
  /// first and a coin below it accepts without the weight. Counts the
  /// step when it accepts.
  SLUICE_WALK_INLINE bool trial(const Slots &s, uint32_t i, uint64_t idx,
                                double u) {
    bool accept = rejectionTrial(
        u, s.bound[i], s.lower[i], [&] { return weight(s, i, idx); },
        stats.sampler);
    if (accept)
      countStep(false);
    return accept;
  }

  SLUICE_WALK_INLINE void countStep(bool reservoir) {
    ++stats.steps;
    ++(reservoir ? stats.reservoirSteps : stats.rejectionSteps);
  }

  /// What trialAt returns when its trial rejected the candidate.
  static constexpr uint64_t kUndecided = kNoCandidate - 1;

  /// Trial t of slot i (frame set): the index from `word`, the coin from
  /// words hi and lo. When Lemire's method wants more words than `word`,
  /// trials t, t+1, ... draw from the stream positioned at the index word
  /// (in `block`, block number blockIndex, after `used` words). Returns the
  /// edge taken, kNoCandidate (the walk ends) or kUndecided.
  SLUICE_WALK_INLINE uint64_t trialAt(const Slots &s, uint32_t i, uint32_t t,
                                      uint32_t word, uint32_t hi, uint32_t lo,
                                      const uint32_t block[4],
                                      uint32_t blockIndex, unsigned used) {
    const uint32_t d = s.degree[i];
    uint64_t product = static_cast<uint64_t>(word) * d;
    if (__builtin_expect(static_cast<uint32_t>(product) < d, 0)) {
      WalkRng rng(run.seed, s.walker[i], s.length[i] - 1, block, blockIndex,
                  used);
      return trials(i, rng, t);
    }
    uint64_t idx = product >> 32;
    return trial(s, i, idx, coinOf(hi, lo)) ? idx : kUndecided;
  }

  /// Counts a step that `j` (kNoCandidate: none) takes.
  uint64_t counted(uint64_t j, bool reservoir) {
    if (j != kNoCandidate)
      countStep(reservoir);
    return j;
  }

  /// Trials `first`.. of slot i (frame set) from `rng`, positioned where
  /// trial `first` draws its index; then the exact fallback.
  uint64_t trials(uint32_t i, WalkRng &rng, uint32_t first) {
    const Slots s = slots();
    const uint32_t d = degree[i];
    const uint32_t maxTrials = maxRejectionTrials(d);
    for (uint32_t t = first; t < maxTrials; ++t) {
      uint64_t idx = uniformIndex(rng, d);
      if (trial(s, i, idx, rng.nextDouble()))
        return idx;
    }
    ++stats.sampler.rejectionFallbacks;
    return counted(sampleExact(
                       d, [&](uint64_t e) { return weight(s, i, e); }, rng),
                   false);
  }

  /// A step that is not a plain rejection step (skip[i] != kPlain):
  /// reservoir (bound < 0), the exact sampler (a bound that admits no
  /// trial), or rejection whose first index drew more than one word.
  uint64_t slowStep(uint32_t i) {
    const Slots s = slots();
    setFrame(s, i);
    const uint32_t block[4] = {w0[i], w1[i], w2[i], w3[i]};
    // After the stop coin's words (skip[i] counts them too).
    WalkRng rng(run.seed, walker[i], length[i] - 1, block, 0,
                skip[i] == 0 ? kCoinWords : 0);
    auto weightFn = [&](uint64_t e) { return weight(s, i, e); };
    if (skip[i] == 0) {
      if (bound[i] < 0)
        return counted(
            sampleReservoir(degree[i], weightFn, rng, &stats.sampler), true);
      ++stats.sampler.rejectionFallbacks;
      return counted(sampleExact(degree[i], weightFn, rng), false);
    }
    for (uint32_t j = 0; j < skip[i]; ++j)
      rng.nextU32();
    uint64_t idx = pre[i];
    if (trial(s, i, idx, rng.nextDouble()))
      return idx;
    return trials(i, rng, 1);
  }

  const Run &run;
  const sluice_walk_kernel_t &k;
  const bool prefetchPrev;  // Run::prefetchPrevAdjacency
  const rt::EdgeSets *sets; // the hubs' neighbour sets, or NULL
  const uint32_t width;
  std::vector<uint32_t> cur, prev, length;
  std::vector<uint64_t> walker, local, begin_;
  std::vector<uint32_t> degree, pre, skip;
  std::vector<uint8_t> done;
  std::vector<uint32_t> again, keep2, keep3;
  std::vector<uint64_t> draws; // random() draws of each walker's step
  std::vector<int64_t> state;  // kHooks: num_state per slot
  std::vector<double> bound;
  std::vector<float> lower;
  // Block 0 of each slot's step (lanes of philoxLanes, one per slot), and
  // blocks 1 and 2 of the walkers that need them (one lane per walker).
  std::vector<uint32_t> w0, w1, w2, w3;
  std::vector<uint32_t> x0, x1, x2, x3;
  // kStopCoin: block 1 of each slot's step (one lane per slot).
  std::vector<uint32_t> y0, y1, y2, y3;
  sluice_walk_frame_t f;
  WalkRng retry{0, 0, 0};
};

} // namespace sluice::walkengine

#endif // SLUICE_RUNTIME_WALK_REJECTIONWALKER_H
