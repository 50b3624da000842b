//===- GenericWalkers.h - the generic and alias walkers, the chunk feed ---===//
//
// Part of the walk engine (Engine.cpp: sluice_walk_run); see
// docs/sampling.md ("The walk engine"). Internal to libsluicert.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_RUNTIME_WALK_GENERICWALKERS_H
#define SLUICE_RUNTIME_WALK_GENERICWALKERS_H

#include "runtime/src/walk/EngineInternal.h"

namespace sluice::walkengine {

class Walker {
public:
  Walker(const Run &run)
      : run(run), k(*run.kernel),
        secondOrder((run.kernel->flags & SLUICE_WALK_SECOND_ORDER) != 0) {
    slots.resize(run.walkersPerThread);
    for (auto *lane : {&lane0, &lane1, &lane2, &lane3})
      lane->resize(philoxLaneCapacity(run.walkersPerThread));
    state.assign(static_cast<size_t>(run.walkersPerThread) * k.num_state, 0);
    for (uint32_t i = 0; i < run.walkersPerThread; ++i) {
      Slot &s = slots[i];
      s.f = run.frame(k.num_state ? state.data() + size_t(i) * k.num_state
                                  : nullptr,
                      &s.draws, &fault);
    }
  }

  /// Walks walkers first .. first+count-1; rows/lengths may be NULL.
  void chunk(uint64_t first, uint64_t count, uint32_t *rows,
             uint32_t *lengths, const std::atomic<bool> &abort) {
    uint64_t next = 0, active = 0;
    for (Slot &s : slots) {
      if (next < count) {
        begin(s, first, next++, rows);
        ++active;
      } else {
        s.active = false;
      }
    }
    // One round = one step of every walker: the first Philox block of
    // each walker's step stream in one batch (independent lanes: the
    // multiplications pipeline and vectorise), then stage 0 of every
    // walker, then stage 1 of every walker that passed stage 0.
    auto finish = [&](Slot &s) {
      if (lengths)
        lengths[s.local] = s.length;
      ++stats.walks;
      if (next < count) {
        begin(s, first, next++, rows);
      } else {
        s.active = false;
        --active;
      }
    };
    uint32_t n = static_cast<uint32_t>(slots.size());
    while (active) {
      if (abort.load(std::memory_order_relaxed))
        return;
      // Mode::Alias: the block of the step pair (see kAliasKeyFlip);
      // the uniform index's quad stream (kUniformKeyFlip): the block of
      // four steps; otherwise the step stream's first block.
      const unsigned shift = stepsPerBlockShift();
      for (uint32_t i = 0; i < n; ++i) {
        const Slot &s = slots[i];
        uint32_t step = static_cast<uint32_t>(s.f.step);
        lane1[i] = step >> shift;
        lane2[i] = static_cast<uint32_t>(s.f.walker);
        lane3[i] = static_cast<uint32_t>(s.f.walker >> 32);
      }
      philoxLanes(n, blockKey(run), lane0.data(), lane1.data(), lane2.data(),
                  lane3.data());
      for (uint32_t i = 0; i < n; ++i) {
        Slot &s = slots[i];
        if (!s.active)
          continue;
        const uint32_t block[4] = {lane0[i], lane1[i], lane2[i], lane3[i]};
        if (!stage0(s, block))
          finish(s);
      }
      for (Slot &s : slots)
        if (s.active && s.stage1 && !stage1(s))
          finish(s);
      checkFault(fault);
    }
    checkFault(fault);
  }

  ThreadStats stats;
  ThreadStats result() const { return stats; }
  /// Where this thread's kernel functions record a fault (walk.h).
  sluice_walk_fault_t fault{};

private:
  /// log2 of the steps one block of a round serves: 1 in Mode::Alias (the
  /// step pair), 2 for the uniform quad stream, 0 for the step stream.
  unsigned stepsPerBlockShift() const {
    return run.mode == Mode::Alias ? 1 : uniformQuads(run) ? 2 : 0;
  }

  void begin(Slot &s, uint64_t first, uint64_t local, uint32_t *rows) {
    uint64_t walker = first + local;
    uint32_t start = run.startOf(walker);
    s.local = local;
    s.f.walker = walker;
    s.f.prev = s.f.cur = start;
    s.f.step = 0;
    s.draws = 0;
    if (k.num_state)
      std::memset(s.f.state, 0, sizeof(int64_t) * k.num_state);
    if (k.init)
      k.init(&s.f);
    s.row = rows ? rows + local * run.stride : nullptr;
    if (s.row)
      s.row[0] = start;
    s.length = 1;
    s.stage1 = false;
    s.active = true;
    prefetch(run.offsets + start);
    run.prefetchBound(start);
  }

  /// Stage 0 of a step (block: the first Philox block of the step's
  /// stream, or in Mode::Alias the block of the step pair, or the uniform
  /// quad stream's block of four steps); false when the walk has ended.
  SLUICE_WALK_INLINE bool stage0(Slot &s, const uint32_t block[4]) {
    {
      if (s.length >= run.maxLength)
        return false;
      uint32_t step = static_cast<uint32_t>(s.f.step);
      uint32_t indexWord = 0;
      const bool quads = uniformQuads(run);
      if (run.mode == Mode::Alias) {
        s.rng = WalkRng(run.seed, s.f.walker, step);
        indexWord = block[(step & 1) * 2];
        s.coin = block[(step & 1) * 2 + 1];
      } else if (quads) {
        s.rng = WalkRng(run.seed, s.f.walker, step);
        indexWord = block[step & 3];
      } else {
        s.rng = WalkRng(run.seed, s.f.walker, step, block);
      }
      if (run.stopProbability > 0 &&
          s.rng.nextDouble() < run.stopProbability)
        return false;
      if (k.stop && k.stop(&s.f))
        return false;
      uint32_t cur = s.f.cur;
      s.begin = run.offsets[cur];
      s.degree = run.offsets[cur + 1] - s.begin;
      if (s.degree == 0)
        return false;
      s.kind = run.mode;
      switch (run.mode) {
      case Mode::Uniform:
        // The quad stream's word; a degree of 2^32 or more (which the
        // specialised loop never sees) draws from the step stream.
        s.pre = quads && s.degree <= UINT32_MAX
                    ? lemireIndex(indexWord, static_cast<uint32_t>(s.degree),
                                  [&]() -> WalkRng & { return s.rng; })
                    : uniformIndex(s.rng, s.degree);
        prefetch(run.targets + s.begin + s.pre);
        if (run.weights)
          prefetch(run.weights + s.begin + s.pre);
        break;
      case Mode::Alias:
        s.pre = lemireIndex(indexWord, static_cast<uint32_t>(s.degree),
                            [&]() -> WalkRng & { return s.rng; });
        prefetch(run.alias + s.begin + s.pre);
        break;
      case Mode::Auto:
      case Mode::Rejection:
        s.bound = run.boundOf(cur);
        s.kind = s.bound < 0 ? Mode::Reservoir : Mode::Rejection;
        if (run.hasLower())
          s.lower = run.lowerOf(cur);
        break;
      case Mode::Reservoir:
        break;
      }
      if (s.kind == Mode::Rejection) {
        // The first proposal is drawn now so that its edge is in cache
        // when the trial runs (the same draws, in the same order, as
        // sampleRejection).
        if (s.bound > 0 && std::isfinite(s.bound)) {
          s.pre = uniformIndex(s.rng, s.degree);
          prefetch(run.targets + s.begin + s.pre);
          if (run.weights)
            prefetch(run.weights + s.begin + s.pre);
        }
      } else if (s.kind == Mode::Reservoir) {
        prefetch(run.targets + s.begin);
        if (run.weights)
          prefetch(run.weights + s.begin);
      }
      if (secondOrder && run.prefetchPrevAdjacency && s.f.prev != cur) {
        // A second-order weight usually asks has_edge(prev, next): a binary
        // search in prev's adjacency. Its first probes (the middle, then a
        // quarter or three quarters) are prefetched (on graphs large enough
        // for them to miss the cache, as in the rejection loop).
        uint64_t pb = run.offsets[s.f.prev];
        uint64_t pd = run.offsets[s.f.prev + 1] - pb;
        const uint32_t *adj = run.targets + pb;
        prefetch(adj + pd / 2);
        if (pd > 32) {
          prefetch(adj + pd / 4);
          prefetch(adj + 3 * pd / 4);
        }
      }
      s.stage1 = true;
      return true;
    }
  }

  /// Stage 1: draw, update, move; false when the walk has ended.
  SLUICE_WALK_INLINE bool stage1(Slot &s) {
    s.stage1 = false;
    uint64_t b = s.begin, d = s.degree;
    const sluice_walk_frame_t *f = &s.f;
    auto weight = [&](uint64_t i) { return run.edgeWeight(f, b + i); };
    uint32_t next;
    switch (s.kind) {
    case Mode::Uniform:
      if (!(weight(s.pre) > 0))
        return false;
      next = run.targets[b + s.pre];
      ++stats.aliasSteps;
      break;
    case Mode::Alias: {
      const AliasEntry &e = run.alias[b + s.pre];
      next = s.coin < e.threshold ? e.target : e.aliasTarget;
      if (next == SLUICE_VERTEX_NONE)
        return false;
      ++stats.aliasSteps;
      break;
    }
    case Mode::Rejection: {
      uint64_t j = rejection(s, d, weight);
      if (j == kNoCandidate)
        return false;
      next = run.targets[b + j];
      ++stats.rejectionSteps;
      break;
    }
    default: {
      uint64_t j = sampleReservoir(d, weight, s.rng, &stats.sampler);
      if (j == kNoCandidate)
        return false;
      next = run.targets[b + j];
      ++stats.reservoirSteps;
      break;
    }
    }
    ++stats.steps;
    if (k.update)
      k.update(&s.f, next);
    s.f.prev = s.f.cur;
    s.f.cur = next;
    ++s.f.step;
    s.draws = 0;
    if (s.row)
      s.row[s.length] = next;
    ++s.length;
    prefetch(run.offsets + next);
    run.prefetchBound(next);
    return s.length < run.maxLength;
  }

  /// sampleRejection with the first proposal (s.pre) drawn in stage 0,
  /// and at most maxRejectionTrials(degree) trials before the exact
  /// two-pass fallback. Exact either way: an acceptance picks i with
  /// probability proportional to w_i, and so does the fallback.
  template <class WeightFn>
  uint64_t rejection(Slot &s, uint64_t d, WeightFn &weight) {
    double bound = s.bound;
    if (isForcedStep(d, bound, s.lower))
      return 0;
    SamplerStats &ss = stats.sampler;
    if (bound > 0 && std::isfinite(bound)) {
      const uint32_t maxTrials = maxRejectionTrials(d);
      for (uint32_t trial = 0; trial < maxTrials; ++trial) {
        uint64_t i = trial == 0 ? s.pre : uniformIndex(s.rng, d);
        if (rejectionTrial(s.rng.nextDouble(), bound, s.lower,
                           [&] { return weight(i); }, ss))
          return i;
      }
    }
    ++ss.rejectionFallbacks;
    return sampleExact(d, weight, s.rng);
  }

  const Run &run;
  const sluice_walk_kernel_t &k;
  const bool secondOrder;
  std::vector<Slot> slots;
  std::vector<uint32_t> lane0, lane1, lane2, lane3; // Philox lanes
  std::vector<int64_t> state;
};

/// The walkers of one chunk for the specialised loops, handed out in
/// walker order. A walk of max_length 1 ends where it starts: written and
/// counted here, never handed out.
class ChunkFeed {
public:
  ChunkFeed(const Run &run, uint64_t first, uint64_t count, uint32_t *rows,
            uint32_t *lengths, ThreadStats &stats)
      : run(run), first(first), count(count), rows(rows), lengths(lengths),
        stats(stats) {}

  /// Records that walker `local` of the chunk ended with `length` vertices.
  void end(uint64_t local, uint32_t length) {
    if (lengths)
      lengths[local] = length;
    ++stats.walks;
  }

  /// The next walker that takes a step: its index in the chunk and its
  /// start vertex (already written to its row); false when none is left.
  bool take(uint64_t *local, uint32_t *start) {
    while (next < count) {
      uint64_t l = next++;
      uint32_t v = run.startOf(first + l);
      if (rows)
        rows[l * run.stride] = v;
      if (run.maxLength <= 1) {
        end(l, 1);
        continue;
      }
      *local = l;
      *start = v;
      return true;
    }
    return false;
  }

private:
  const Run &run;
  const uint64_t first, count;
  uint32_t *const rows, *const lengths;
  ThreadStats &stats;
  uint64_t next = 0;
};

/// How FirstOrderWalker draws a step.
enum class FirstOrderDraw {
  /// Mode::Alias: the index and the coin are words 2 * (s % 2) and
  /// 2 * (s % 2) + 1 of the step pair's block (kAliasKeyFlip), then the
  /// alias cell.
  Alias,
  /// Mode::Uniform (a CONSTANT weight known to be positive): the index is
  /// word 0 of block 0 of the step's own stream, WalkRng(seed, walker,
  /// step), as the general loop and the GPU code draw it; no table.
  Uniform,
};

/// Modes Alias and Uniform for a kernel without stop, update or init
/// function and without state (DeepWalk, weighted or not; with kStopCoin
/// a stop probability too: PPR): the same walks as Walker, from a loop
/// specialised to it. Per walker only its vertex, length, id and the four words
/// of its current block are kept (arrays, not frames), and a round advances
/// every walker in three passes:
///   0. the Philox blocks the round needs, in one batch: without the stop
///      coin (phased rounds, kPhased) every 2 (alias pairs) or 4 (uniform
///      quads) rounds one block per walker, serving its next 2 (4) steps;
///      alias with kStopCoin: the walkers at an even step, compacted, and
///      block 0 of every walker's step stream; uniform with kStopCoin:
///      block 0 of every walker's step stream;
///   1. the stop coin (kStopCoin: words 0 and 1 of the step stream, as
///      Walker's rng.nextDouble() draws them; the uniform index then is
///      word 2), read the offsets (prefetched when the walker arrived), the
///      index by Lemire's multiply-shift, prefetch the alias cell or the
///      edge;
///   2. (alias) the coin against the cell's 32-bit threshold; move, write
///      the vertex, prefetch the offsets of the vertex reached.
/// No kernel function is called per step.
template <FirstOrderDraw kDraw, bool kStopCoin = false> class FirstOrderWalker {
  static constexpr bool kAlias = kDraw == FirstOrderDraw::Alias;
  /// Phased rounds (no stop coin: DeepWalk, and unweighted DeepWalk from
  /// the quad stream, uniformQuads): every walker starts at a round whose
  /// phase (round mod 2 or 4) is 0, so all of them need their next block
  /// in the same round: one dense batch every 2 (4) rounds, kept in
  /// c0..c3, and the round's words are one of those arrays. A slot freed
  /// by a walk that ended waits for the next phase-0 round (on average 0.5
  /// (1.5) rounds a walk).
  static constexpr bool kPhased = !kStopCoin;
  /// log2 of the steps a phased block serves (alias pairs, uniform quads).
  static constexpr unsigned kShift = kAlias ? 1 : 2;
  static constexpr uint32_t kStepMask = (1u << kShift) - 1;
  /// Words of the step's own stream drawn before the uniform index (the
  /// stop coin's two).
  static constexpr unsigned kCoinWords = kStopCoin ? 2 : 0;

public:
  FirstOrderWalker(const Run &run)
      : run(run), width(run.walkersPerThread), cur(width), length(width),
        walker(width), local(width), pos(width), words(4 * size_t(width)),
        lane(width), c0(philoxLaneCapacity(width)),
        c1(philoxLaneCapacity(width)), c2(philoxLaneCapacity(width)),
        c3(philoxLaneCapacity(width)) {}

  void chunk(uint64_t first, uint64_t count, uint32_t *rows,
             uint32_t *lengths, const std::atomic<bool> &abort) {
    uint32_t active = 0;
    const uint32_t maxLength = run.maxLength;
    const uint64_t *offsets = run.offsets;
    const uint32_t *targets = run.targets;
    const AliasEntry *alias = run.alias;
    const uint64_t blockSeed = blockKey(run);
    const double stopProbability = run.stopProbability;
    // The arrays' bases in locals: stores through the arrays do not make
    // the compiler load them again (measured: 18 of 103 instructions per
    // step were such loads).
    uint32_t *const cur = this->cur.data(), *const length = this->length.data();
    uint64_t *const walker = this->walker.data(), *const local = this->local.data();
    uint64_t *const pos = this->pos.data();
    uint32_t *const words = this->words.data(), *const lane = this->lane.data();
    uint32_t *const c0 = this->c0.data(), *const c1 = this->c1.data(),
                   *const c2 = this->c2.data(), *const c3 = this->c3.data();
    ChunkFeed feed(run, first, count, rows, lengths, stats);
    auto begin = [&](uint32_t i) {
      uint64_t l;
      uint32_t start;
      if (!feed.take(&l, &start))
        return false;
      cur[i] = start;
      length[i] = 1;
      walker[i] = first + l;
      local[i] = l;
      prefetch(offsets + start);
      return true;
    };
    // Slots [0, active) hold walkers; a finished one is replaced by the
    // next walker, or by the last slot's walker when none is left.
    // Phased: a finished walker's slot takes the last slot's walker, and
    // the free slots at the end are filled at the next phase-0 round.
    auto finish = [&](uint32_t i) {
      feed.end(local[i], length[i]);
      stats.steps += length[i] - 1;
      if constexpr (!kPhased)
        if (begin(i))
          return true;
      --active;
      if (i != active) {
        cur[i] = cur[active];
        length[i] = length[active];
        walker[i] = walker[active];
        local[i] = local[active];
        pos[i] = pos[active];
        if constexpr (kPhased) {
          c0[i] = c0[active];
          c1[i] = c1[active];
          c2[i] = c2[active];
          c3[i] = c3[active];
        } else if constexpr (kAlias) {
          for (int j = 0; j < 4; ++j)
            words[4 * size_t(i) + j] = words[4 * size_t(active) + j];
        }
        // This round's words of the step stream: the stop coin (words 0
        // and 1) and, uniform, the index after it (word 2).
        if constexpr (kStopCoin) {
          c0[i] = c0[active];
          c1[i] = c1[active];
        }
        if constexpr (!kAlias && kStopCoin)
          c2[i] = c2[active];
      }
      return false;
    };
    uint32_t phase = 0; // kPhased: the round's step mod 2^kShift
    if constexpr (!kPhased)
      for (uint32_t i = 0; i < width && begin(i); ++i)
        ++active;
    for (;; phase = (phase + 1) & kStepMask) {
      if constexpr (kPhased) {
        if (phase == 0)
          while (active < width && begin(active))
            ++active;
        if (!active && phase != 0) {
          phase = kStepMask; // to phase 0 (and its refill) next
          continue;
        }
      }
      if (!active)
        break;
      if (abort.load(std::memory_order_relaxed))
        return;
      // Pass 0: the blocks of this round. Phased: at phase 0, every
      // walker's block of its next 2 (4) steps. Alias with the stop coin:
      // the walkers at an even step (step = length - 1), compacted, their
      // blocks kept in words. Uniform with the stop coin: block 0 of every
      // walker's step, in slot order (the coin is words 0 and 1, the index
      // word 2); the rare retry recomputes the block.
      if constexpr (kPhased) {
        if (phase == 0) {
          for (uint32_t i = 0; i < active; ++i) {
            c1[i] = (length[i] - 1) >> kShift;
            c2[i] = static_cast<uint32_t>(walker[i]);
            c3[i] = static_cast<uint32_t>(walker[i] >> 32);
          }
          philoxLanes(active, blockSeed, c0, c1, c2, c3);
        }
      } else if constexpr (kAlias) {
        uint32_t m = 0;
        for (uint32_t i = 0; i < active; ++i) {
          lane[m] = i;
          m += (length[i] & 1); // length odd: step even
        }
        for (uint32_t j = 0; j < m; ++j) {
          uint32_t i = lane[j];
          c1[j] = (length[i] - 1) >> 1;
          c2[j] = static_cast<uint32_t>(walker[i]);
          c3[j] = static_cast<uint32_t>(walker[i] >> 32);
        }
        philoxLanes(m, blockSeed, c0, c1, c2, c3);
        for (uint32_t j = 0; j < m; ++j) {
          uint32_t *w = &words[4 * size_t(lane[j])];
          w[0] = c0[j];
          w[1] = c1[j];
          w[2] = c2[j];
          w[3] = c3[j];
        }
        if constexpr (kStopCoin) {
          // The stop coin: block 0 of every walker's step stream.
          for (uint32_t i = 0; i < active; ++i) {
            c1[i] = length[i] - 1;
            c2[i] = static_cast<uint32_t>(walker[i]);
            c3[i] = static_cast<uint32_t>(walker[i] >> 32);
          }
          philoxLanes(active, run.seed, c0, c1, c2, c3);
        }
      } else {
        for (uint32_t i = 0; i < active; ++i) {
          c1[i] = length[i] - 1;
          c2[i] = static_cast<uint32_t>(walker[i]);
          c3[i] = static_cast<uint32_t>(walker[i] >> 32);
        }
        philoxLanes(active, blockSeed, c0, c1, c2, c3);
      }
      // The phased round's words: the index (alias: and the coin).
      uint32_t *const phaseWords[4] = {c0, c1, c2, c3};
      const uint32_t *const indexWords =
          phaseWords[kAlias ? 2 * (phase & 1) : phase];
      const uint32_t *const coinWords =
          phaseWords[kAlias ? 2 * (phase & 1) + 1 : 0];
      // Pass 1: the stop coin, the index, prefetch the cell or the edge.
      // A walker that stops or stands at a sink ends.
      for (uint32_t i = 0; i < active;) {
        uint32_t v = cur[i];
        uint64_t b = offsets[v];
        uint64_t d = offsets[v + 1] - b;
        bool ends = d == 0;
        if constexpr (kStopCoin) {
          uint64_t bits = (uint64_t(c0[i]) << 32 | c1[i]) >> 11;
          ends |= static_cast<double>(bits) * 0x1.0p-53 < stopProbability;
        }
        if (__builtin_expect(ends, 0)) {
          if (!finish(i))
            continue; // slot i now holds another walker in pass 1
          pos[i] = kNoCandidate; // a new walker: its first step next round
          ++i;
          continue;
        }
        uint32_t step = length[i] - 1;
        uint32_t word = kPhased  ? indexWords[i]
                        : kAlias ? words[4 * size_t(i) + (step & 1) * 2]
                                 : c2[i];
        uint32_t idx =
            lemireIndex(word, static_cast<uint32_t>(d), [&]() -> WalkRng & {
              // Alias and the uniform quads: the step's own stream after
              // the stop coin's words; uniform with the coin: the same
              // stream after those and the index word.
              retry = WalkRng(run.seed, walker[i], step);
              for (unsigned w = 0; w < kCoinWords + (kAlias || kPhased ? 0 : 1);
                   ++w)
                retry.nextU32();
              return retry;
            });
        pos[i] = b + idx;
        if constexpr (kAlias)
          prefetch(alias + pos[i]);
        else
          prefetch(targets + pos[i]);
        ++i;
      }
      // Pass 2: coin, move.
      for (uint32_t i = 0; i < active;) {
        if (__builtin_expect(pos[i] == kNoCandidate, 0)) {
          ++i;
          continue;
        }
        uint32_t to;
        if constexpr (kAlias) {
          uint32_t step = length[i] - 1;
          uint32_t coin = kPhased ? coinWords[i]
                                  : words[4 * size_t(i) + (step & 1) * 2 + 1];
          const AliasEntry &e = alias[pos[i]];
          to = coin < e.threshold ? e.target : e.aliasTarget;
          if (__builtin_expect(to == SLUICE_VERTEX_NONE, 0)) {
            if (finish(i))
              pos[i] = kNoCandidate;
            continue;
          }
        } else {
          to = targets[pos[i]];
        }
        if (rows)
          rows[local[i] * run.stride + length[i]] = to;
        cur[i] = to;
        prefetch(offsets + to);
        if (++length[i] == maxLength) {
          if (finish(i))
            pos[i] = kNoCandidate;
          continue;
        }
        ++i;
      }
    }
  }

  ThreadStats stats;

  /// Folds the step count into the stats (every step is an alias step;
  /// uniform steps are counted as alias steps too).
  ThreadStats result() const {
    ThreadStats out = stats;
    out.aliasSteps = out.steps;
    return out;
  }

private:
  const Run &run;
  const uint32_t width;
  std::vector<uint32_t> cur, length;
  std::vector<uint64_t> walker, local, pos;
  std::vector<uint32_t> words;
  std::vector<uint32_t> lane, c0, c1, c2, c3;
  WalkRng retry{0, 0, 0};
};

using AliasWalker = FirstOrderWalker<FirstOrderDraw::Alias>;
using UniformWalker = FirstOrderWalker<FirstOrderDraw::Uniform>;
using AliasStopWalker = FirstOrderWalker<FirstOrderDraw::Alias, true>;
using UniformStopWalker = FirstOrderWalker<FirstOrderDraw::Uniform, true>;

} // namespace sluice::walkengine

#endif // SLUICE_RUNTIME_WALK_GENERICWALKERS_H
