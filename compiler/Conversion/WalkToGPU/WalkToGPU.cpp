//===- WalkToGPU.cpp - walk.walk to a gpu.module of walk kernels ----------===//
//
// The `walk-to-gpu` pass (see Passes.td): every walk.walk becomes a kernel
// `gpu.func @sluice_walk_<W>` in one `gpu.module @sluice_walks`: one thread
// per walker, rejection sampling against the walk's upper_bound region with
// the exact two-pass fallback after min(64, max(4, 2 * degree)) trials (the
// CPU engine's rejection mode), Philox4x32-10 inline with WalkRng's keying.
// The walk's weight, stop, update, init and upper_bound regions become
// device functions (func.func inside the gpu.module) that read a per-thread
// frame of 8-byte slots; graph built-ins become loads and a binary search.
//
// The device library below (Philox, the walker's random stream, graph
// queries) and the per-walk driver (sampler, kernel) are MLIR text parsed
// into the gpu.module; `WALK` and `NUM_STATE` are substituted per walk.
// Everything stays in func/scf/arith/llvm/gpu: the upstream conversions
// (scf-to-cf, convert-gpu-to-nvvm) lower it (compileWalksToPtx).
//
//===----------------------------------------------------------------------===//
#include "compiler/Conversion/Passes.h"
#include "compiler/Conversion/WalkRegionClone.h"
#include "compiler/Conversion/WalkToGPU/DeviceIntDivision.h"

#include "dialects/Walk/IR/WalkOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/FormatVariadic.h"

#include <cstdio>
#include <string>

namespace sluice::conversion {
#define GEN_PASS_DEF_WALKTOGPU
#include "compiler/Conversion/Passes.h.inc"
} // namespace sluice::conversion

using namespace mlir;
using namespace sluice;

namespace {

/// Slots of the device frame (8 bytes each; i32 fields in the low half).
enum FrameSlot : int32_t {
  kOffsets = 0,
  kTargets = 1,
  kWeights = 2,
  kWeightMax = 3, // then min, sum
  kLabels = 6,
  kParams = 7,
  kState = 8,
  kWalker = 9,
  kPrev = 10,
  kCur = 11,
  kStep = 12,
  kSeed = 13,
  kDraws = 14,
  kNumVertices = 15,
  kNumEdges = 16,
  kEdgeLabels = 17,
  kFault = 18,       // the kernel's fault record (see sluice_fault)
  kOriginalIds = 19, // u64 per vertex, NULL: original = id_base + vertex
  kIdBase = 20,
  kNumFrameSlots = 21
};

/// Philox4x32-10, the walker's stream (WalkRng), the graph queries.
const char *const kDeviceLibrary = R"mlir(
  func.func private @sluice_philox(%c0: i32, %c1: i32, %c2: i32, %c3: i32, %k0: i32, %k1: i32) -> (i32, i32, i32, i32) {
    %m0 = arith.constant -766435501 : i32
    %m1 = arith.constant -845247145 : i32
    %w0 = arith.constant -1640531527 : i32
    %w1 = arith.constant -1150833019 : i32
    %lb = arith.constant 0 : index
    %ub = arith.constant 10 : index
    %one = arith.constant 1 : index
    %r:6 = scf.for %i = %lb to %ub step %one iter_args(%a0 = %c0, %a1 = %c1, %a2 = %c2, %a3 = %c3, %x0 = %k0, %x1 = %k1) -> (i32, i32, i32, i32, i32, i32) {
      %lo0, %hi0 = arith.mului_extended %a0, %m0 : i32
      %lo1, %hi1 = arith.mului_extended %a2, %m1 : i32
      %t0 = arith.xori %hi1, %a1 : i32
      %n0 = arith.xori %t0, %x0 : i32
      %t2 = arith.xori %hi0, %a3 : i32
      %n2 = arith.xori %t2, %x1 : i32
      %y0 = arith.addi %x0, %w0 : i32
      %y1 = arith.addi %x1, %w1 : i32
      scf.yield %n0, %lo1, %n2, %lo0, %y0, %y1 : i32, i32, i32, i32, i32, i32
    }
    return %r#0, %r#1, %r#2, %r#3 : i32, i32, i32, i32
  }
  func.func private @sluice_rng_slot(%r: !llvm.ptr, %i: i32) -> !llvm.ptr {
    %p = llvm.getelementptr inbounds %r[%i] : (!llvm.ptr, i32) -> !llvm.ptr, i32
    return %p : !llvm.ptr
  }
  func.func private @sluice_rng_init(%r: !llvm.ptr, %k0: i32, %k1: i32, %step: i32, %walker: i64) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c4 = arith.constant 4 : i32
    %c6 = arith.constant 6 : i32
    %c7 = arith.constant 7 : i32
    %c8 = arith.constant 8 : i32
    %c9 = arith.constant 9 : i32
    %c10 = arith.constant 10 : i32
    %c32 = arith.constant 32 : i64
    %wlo = arith.trunci %walker : i64 to i32
    %wsh = arith.shrui %walker, %c32 : i64
    %whi = arith.trunci %wsh : i64 to i32
    %p0 = func.call @sluice_rng_slot(%r, %c0) : (!llvm.ptr, i32) -> !llvm.ptr
    llvm.store %c0, %p0 : i32, !llvm.ptr
    %p1 = func.call @sluice_rng_slot(%r, %c1) : (!llvm.ptr, i32) -> !llvm.ptr
    llvm.store %c4, %p1 : i32, !llvm.ptr
    %p6 = func.call @sluice_rng_slot(%r, %c6) : (!llvm.ptr, i32) -> !llvm.ptr
    llvm.store %k0, %p6 : i32, !llvm.ptr
    %p7 = func.call @sluice_rng_slot(%r, %c7) : (!llvm.ptr, i32) -> !llvm.ptr
    llvm.store %k1, %p7 : i32, !llvm.ptr
    %p8 = func.call @sluice_rng_slot(%r, %c8) : (!llvm.ptr, i32) -> !llvm.ptr
    llvm.store %step, %p8 : i32, !llvm.ptr
    %p9 = func.call @sluice_rng_slot(%r, %c9) : (!llvm.ptr, i32) -> !llvm.ptr
    llvm.store %wlo, %p9 : i32, !llvm.ptr
    %p10 = func.call @sluice_rng_slot(%r, %c10) : (!llvm.ptr, i32) -> !llvm.ptr
    llvm.store %whi, %p10 : i32, !llvm.ptr
    return
  }
  func.func private @sluice_rng_load(%r: !llvm.ptr, %i: i32) -> i32 {
    %p = func.call @sluice_rng_slot(%r, %i) : (!llvm.ptr, i32) -> !llvm.ptr
    %v = llvm.load %p : !llvm.ptr -> i32
    return %v : i32
  }
  func.func private @sluice_rng_store(%r: !llvm.ptr, %i: i32, %v: i32) {
    %p = func.call @sluice_rng_slot(%r, %i) : (!llvm.ptr, i32) -> !llvm.ptr
    llvm.store %v, %p : i32, !llvm.ptr
    return
  }
  // WalkRng::nextU32: slots 0 counter, 1 used, 2..5 block, 6..7 key,
  // 8 step, 9..10 walker.
  func.func private @sluice_next_u32(%r: !llvm.ptr) -> i32 {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c2 = arith.constant 2 : i32
    %c3 = arith.constant 3 : i32
    %c4 = arith.constant 4 : i32
    %c5 = arith.constant 5 : i32
    %c6 = arith.constant 6 : i32
    %c7 = arith.constant 7 : i32
    %c8 = arith.constant 8 : i32
    %c9 = arith.constant 9 : i32
    %c10 = arith.constant 10 : i32
    %used = func.call @sluice_rng_load(%r, %c1) : (!llvm.ptr, i32) -> i32
    %empty = arith.cmpi eq, %used, %c4 : i32
    scf.if %empty {
      %ctr = func.call @sluice_rng_load(%r, %c0) : (!llvm.ptr, i32) -> i32
      %stp = func.call @sluice_rng_load(%r, %c8) : (!llvm.ptr, i32) -> i32
      %wlo = func.call @sluice_rng_load(%r, %c9) : (!llvm.ptr, i32) -> i32
      %whi = func.call @sluice_rng_load(%r, %c10) : (!llvm.ptr, i32) -> i32
      %k0 = func.call @sluice_rng_load(%r, %c6) : (!llvm.ptr, i32) -> i32
      %k1 = func.call @sluice_rng_load(%r, %c7) : (!llvm.ptr, i32) -> i32
      %b:4 = func.call @sluice_philox(%ctr, %stp, %wlo, %whi, %k0, %k1) : (i32, i32, i32, i32, i32, i32) -> (i32, i32, i32, i32)
      func.call @sluice_rng_store(%r, %c2, %b#0) : (!llvm.ptr, i32, i32) -> ()
      func.call @sluice_rng_store(%r, %c3, %b#1) : (!llvm.ptr, i32, i32) -> ()
      func.call @sluice_rng_store(%r, %c4, %b#2) : (!llvm.ptr, i32, i32) -> ()
      func.call @sluice_rng_store(%r, %c5, %b#3) : (!llvm.ptr, i32, i32) -> ()
      %ctr1 = arith.addi %ctr, %c1 : i32
      func.call @sluice_rng_store(%r, %c0, %ctr1) : (!llvm.ptr, i32, i32) -> ()
      func.call @sluice_rng_store(%r, %c1, %c0) : (!llvm.ptr, i32, i32) -> ()
    }
    %u = func.call @sluice_rng_load(%r, %c1) : (!llvm.ptr, i32) -> i32
    %slot = arith.addi %u, %c2 : i32
    %v = func.call @sluice_rng_load(%r, %slot) : (!llvm.ptr, i32) -> i32
    %u1 = arith.addi %u, %c1 : i32
    func.call @sluice_rng_store(%r, %c1, %u1) : (!llvm.ptr, i32, i32) -> ()
    return %v : i32
  }
  // 53 random bits of two words, the first the high one: [0, 1).
  func.func private @sluice_bits_to_double(%hi: i32, %lo: i32) -> f64 {
    %c32 = arith.constant 32 : i64
    %c11 = arith.constant 11 : i64
    %scale = arith.constant 1.1102230246251565e-16 : f64
    %h = arith.extui %hi : i32 to i64
    %l = arith.extui %lo : i32 to i64
    %hs = arith.shli %h, %c32 : i64
    %bits = arith.ori %hs, %l : i64
    %top = arith.shrui %bits, %c11 : i64
    %d = arith.uitofp %top : i64 to f64
    %x = arith.mulf %d, %scale : f64
    return %x : f64
  }
  func.func private @sluice_next_double(%r: !llvm.ptr) -> f64 {
    %hi = func.call @sluice_next_u32(%r) : (!llvm.ptr) -> i32
    %lo = func.call @sluice_next_u32(%r) : (!llvm.ptr) -> i32
    %x = func.call @sluice_bits_to_double(%hi, %lo) : (i32, i32) -> f64
    return %x : f64
  }
  // Lemire's unbiased uniform index in [0, n), n in [1, 2^32).
  func.func private @sluice_uniform_index(%r: !llvm.ptr, %n: i64) -> i64 {
    %c0 = arith.constant 0 : i32
    %c32 = arith.constant 32 : i64
    %n32 = arith.trunci %n : i64 to i32
    %neg = arith.subi %c0, %n32 : i32
    %threshold = arith.remui %neg, %n32 : i32
    %nw = arith.extui %n32 : i32 to i64
    %u0 = func.call @sluice_next_u32(%r) : (!llvm.ptr) -> i32
    %u0w = arith.extui %u0 : i32 to i64
    %m0 = arith.muli %u0w, %nw : i64
    %m = scf.while (%m1 = %m0) : (i64) -> i64 {
      %low = arith.trunci %m1 : i64 to i32
      %again = arith.cmpi ult, %low, %threshold : i32
      scf.condition(%again) %m1 : i64
    } do {
    ^bb0(%m2: i64):
      %u = func.call @sluice_next_u32(%r) : (!llvm.ptr) -> i32
      %uw = arith.extui %u : i32 to i64
      %m3 = arith.muli %uw, %nw : i64
      scf.yield %m3 : i64
    }
    %i = arith.shrui %m, %c32 : i64
    return %i : i64
  }
  // The device frame: 21 8-byte slots (see FrameSlot in WalkToGPU.cpp).
  func.func private @sluice_frame_slot(%f: !llvm.ptr, %i: i32) -> !llvm.ptr {
    %p = llvm.getelementptr inbounds %f[%i] : (!llvm.ptr, i32) -> !llvm.ptr, i64
    return %p : !llvm.ptr
  }
  func.func private @sluice_frame_ptr(%f: !llvm.ptr, %i: i32) -> !llvm.ptr {
    %p = func.call @sluice_frame_slot(%f, %i) : (!llvm.ptr, i32) -> !llvm.ptr
    %v = llvm.load %p : !llvm.ptr -> !llvm.ptr
    return %v : !llvm.ptr
  }
  func.func private @sluice_frame_i64(%f: !llvm.ptr, %i: i32) -> i64 {
    %p = func.call @sluice_frame_slot(%f, %i) : (!llvm.ptr, i32) -> !llvm.ptr
    %v = llvm.load %p : !llvm.ptr -> i64
    return %v : i64
  }
  func.func private @sluice_frame_i32(%f: !llvm.ptr, %i: i32) -> i32 {
    %p = func.call @sluice_frame_slot(%f, %i) : (!llvm.ptr, i32) -> !llvm.ptr
    %v = llvm.load %p : !llvm.ptr -> i32
    return %v : i32
  }
  func.func private @sluice_in_range(%f: !llvm.ptr, %v: i32) -> i1 {
    %c15 = arith.constant 15 : i32
    %nv = func.call @sluice_frame_i64(%f, %c15) : (!llvm.ptr, i32) -> i64
    %vw = arith.extui %v : i32 to i64
    %in = arith.cmpi ult, %vw, %nv : i64
    return %in : i1
  }
  // offsets[v], offsets[v + 1]; (0, 0) for a vertex out of range.
  func.func private @sluice_adjacency(%f: !llvm.ptr, %v: i32) -> (i64, i64) {
    %c0 = arith.constant 0 : i32
    %z = arith.constant 0 : i64
    %in = func.call @sluice_in_range(%f, %v) : (!llvm.ptr, i32) -> i1
    %r:2 = scf.if %in -> (i64, i64) {
      %offs = func.call @sluice_frame_ptr(%f, %c0) : (!llvm.ptr, i32) -> !llvm.ptr
      %vw = arith.extui %v : i32 to i64
      %p = llvm.getelementptr inbounds %offs[%vw] : (!llvm.ptr, i64) -> !llvm.ptr, i64
      %b = llvm.load %p : !llvm.ptr -> i64
      %q = llvm.getelementptr inbounds %p[1] : (!llvm.ptr) -> !llvm.ptr, i64
      %e = llvm.load %q : !llvm.ptr -> i64
      scf.yield %b, %e : i64, i64
    } else {
      scf.yield %z, %z : i64, i64
    }
    return %r#0, %r#1 : i64, i64
  }
  func.func private @sluice_degree(%f: !llvm.ptr, %v: i32) -> i64 {
    %r:2 = func.call @sluice_adjacency(%f, %v) : (!llvm.ptr, i32) -> (i64, i64)
    %d = arith.subi %r#1, %r#0 : i64
    return %d : i64
  }
  // The first edge u -> v (binary search of u's sorted targets), or -1.
  func.func private @sluice_find_edge(%f: !llvm.ptr, %u: i32, %v: i32) -> i64 {
    %c1i = arith.constant 1 : i32
    %tg = func.call @sluice_frame_ptr(%f, %c1i) : (!llvm.ptr, i32) -> !llvm.ptr
    %be:2 = func.call @sluice_adjacency(%f, %u) : (!llvm.ptr, i32) -> (i64, i64)
    %res = func.call @sluice_sorted_find_i32(%tg, %be#0, %be#1, %v) : (!llvm.ptr, i64, i64, i32) -> i64
    return %res : i64
  }
  func.func private @sluice_has_edge(%f: !llvm.ptr, %u: i32, %v: i32) -> i1 {
    %none = arith.constant -1 : i64
    %e = func.call @sluice_find_edge(%f, %u, %v) : (!llvm.ptr, i32, i32) -> i64
    %has = arith.cmpi ne, %e, %none : i64
    return %has : i1
  }
  // The stored weight of edge e (1.0 on an unweighted graph).
  func.func private @sluice_stored_weight(%f: !llvm.ptr, %e: i64) -> f64 {
    %c2 = arith.constant 2 : i32
    %unit = arith.constant 1.0 : f64
    %ws = func.call @sluice_frame_ptr(%f, %c2) : (!llvm.ptr, i32) -> !llvm.ptr
    %null = llvm.mlir.zero : !llvm.ptr
    %unweighted = llvm.icmp "eq" %ws, %null : !llvm.ptr
    %w = scf.if %unweighted -> (f64) {
      scf.yield %unit : f64
    } else {
      %p = llvm.getelementptr inbounds %ws[%e] : (!llvm.ptr, i64) -> !llvm.ptr, f32
      %x = llvm.load %p : !llvm.ptr -> f32
      %xd = arith.extf %x : f32 to f64
      scf.yield %xd : f64
    }
    return %w : f64
  }
  func.func private @sluice_edge_weight(%f: !llvm.ptr, %u: i32, %v: i32) -> f64 {
    %none = arith.constant -1 : i64
    %zero = arith.constant 0.0 : f64
    %e = func.call @sluice_find_edge(%f, %u, %v) : (!llvm.ptr, i32, i32) -> i64
    %has = arith.cmpi ne, %e, %none : i64
    %w = scf.if %has -> (f64) {
      %x = func.call @sluice_stored_weight(%f, %e) : (!llvm.ptr, i64) -> f64
      scf.yield %x : f64
    } else {
      scf.yield %zero : f64
    }
    return %w : f64
  }
  // SLUICE_LABEL_NONE (-1) without labels or out of range.
  func.func private @sluice_label(%f: !llvm.ptr, %v: i32) -> i64 {
    %c6 = arith.constant 6 : i32
    %none = arith.constant -1 : i64
    %ls = func.call @sluice_frame_ptr(%f, %c6) : (!llvm.ptr, i32) -> !llvm.ptr
    %null = llvm.mlir.zero : !llvm.ptr
    %nolabels = llvm.icmp "eq" %ls, %null : !llvm.ptr
    %in = func.call @sluice_in_range(%f, %v) : (!llvm.ptr, i32) -> i1
    %true = arith.constant true
    %nl = arith.xori %nolabels, %true : i1
    %ok = arith.andi %in, %nl : i1
    %l = scf.if %ok -> (i64) {
      %vw = arith.extui %v : i32 to i64
      %p = llvm.getelementptr inbounds %ls[%vw] : (!llvm.ptr, i64) -> !llvm.ptr, i32
      %x = llvm.load %p : !llvm.ptr -> i32
      %xw = arith.extsi %x : i32 to i64
      scf.yield %xw : i64
    } else {
      scf.yield %none : i64
    }
    return %l : i64
  }
  // edge_label(u, v): the label of the first u -> v edge; -1 without such
  // an edge or without edge labels (sluice_kernel_edge_label).
  func.func private @sluice_edge_label(%f: !llvm.ptr, %u: i32, %v: i32) -> i64 {
    %c17 = arith.constant 17 : i32
    %none = arith.constant -1 : i64
    %ls = func.call @sluice_frame_ptr(%f, %c17) : (!llvm.ptr, i32) -> !llvm.ptr
    %null = llvm.mlir.zero : !llvm.ptr
    %nolabels = llvm.icmp "eq" %ls, %null : !llvm.ptr
    %l = scf.if %nolabels -> (i64) {
      scf.yield %none : i64
    } else {
      %e = func.call @sluice_find_edge(%f, %u, %v) : (!llvm.ptr, i32, i32) -> i64
      %has = arith.cmpi ne, %e, %none : i64
      %x = scf.if %has -> (i64) {
        %p = llvm.getelementptr inbounds %ls[%e] : (!llvm.ptr, i64) -> !llvm.ptr, i32
        %y = llvm.load %p : !llvm.ptr -> i32
        %yw = arith.extsi %y : i32 to i64
        scf.yield %yw : i64
      } else {
        scf.yield %none : i64
      }
      scf.yield %x : i64
    }
    return %l : i64
  }
  // weight_max (k = 0), weight_min (1), weight_sum (2) of v; 0 out of range.
  func.func private @sluice_weight_stat(%f: !llvm.ptr, %v: i32, %k: i32) -> f64 {
    %c3 = arith.constant 3 : i32
    %zero = arith.constant 0.0 : f64
    %slot = arith.addi %c3, %k : i32
    %in = func.call @sluice_in_range(%f, %v) : (!llvm.ptr, i32) -> i1
    %r = scf.if %in -> (f64) {
      %a = func.call @sluice_frame_ptr(%f, %slot) : (!llvm.ptr, i32) -> !llvm.ptr
      %vw = arith.extui %v : i32 to i64
      %p = llvm.getelementptr inbounds %a[%vw] : (!llvm.ptr, i64) -> !llvm.ptr, f32
      %x = llvm.load %p : !llvm.ptr -> f32
      %xd = arith.extf %x : f32 to f64
      scf.yield %xd : f64
    } else {
      scf.yield %zero : f64
    }
    return %r : f64
  }
  // A run-time error of the walk program (walk.h, sluice_walk_fault_t) in
  // the kernel's fault record (frame slot 18; none: nothing recorded). The
  // record is a sluice_walk_fault_t (code, cur, index, size, walker, step)
  // and one more u64: the smallest walker that faulted (an atomic min). A
  // compare-and-swap of the code lets the first fault fill the rest.
  func.func private @sluice_fault(%f: !llvm.ptr, %code: i32, %index: i64, %size: i64) {
    %c9 = arith.constant 9 : i32
    %c11 = arith.constant 11 : i32
    %c12 = arith.constant 12 : i32
    %c18 = arith.constant 18 : i32
    %zero = arith.constant 0 : i32
    %true = arith.constant true
    %rec = func.call @sluice_frame_ptr(%f, %c18) : (!llvm.ptr, i32) -> !llvm.ptr
    %null = llvm.mlir.zero : !llvm.ptr
    %none = llvm.icmp "eq" %rec, %null : !llvm.ptr
    %some = arith.xori %none, %true : i1
    scf.if %some {
      %walker = func.call @sluice_frame_i64(%f, %c9) : (!llvm.ptr, i32) -> i64
      %wp = llvm.getelementptr inbounds %rec[5] : (!llvm.ptr) -> !llvm.ptr, i64
      %old = llvm.atomicrmw umin %wp, %walker monotonic : !llvm.ptr, i64
      %pair = llvm.cmpxchg %rec, %zero, %code monotonic monotonic : !llvm.ptr, i32
      %won = llvm.extractvalue %pair[1] : !llvm.struct<(i32, i1)>
      scf.if %won {
        %cur = func.call @sluice_frame_i32(%f, %c11) : (!llvm.ptr, i32) -> i32
        %step = func.call @sluice_frame_i64(%f, %c12) : (!llvm.ptr, i32) -> i64
        %curp = llvm.getelementptr inbounds %rec[1] : (!llvm.ptr) -> !llvm.ptr, i32
        llvm.store %cur, %curp : i32, !llvm.ptr
        %ip = llvm.getelementptr inbounds %rec[1] : (!llvm.ptr) -> !llvm.ptr, i64
        llvm.store %index, %ip : i64, !llvm.ptr
        %sp = llvm.getelementptr inbounds %rec[2] : (!llvm.ptr) -> !llvm.ptr, i64
        llvm.store %size, %sp : i64, !llvm.ptr
        %wq = llvm.getelementptr inbounds %rec[3] : (!llvm.ptr) -> !llvm.ptr, i64
        llvm.store %walker, %wq : i64, !llvm.ptr
        %tp = llvm.getelementptr inbounds %rec[4] : (!llvm.ptr) -> !llvm.ptr, i64
        llvm.store %step, %tp : i64, !llvm.ptr
      }
    }
    return
  }
  // size(xs) of a list parameter: a device sluice_walk_list_t {data, size}
  // (0 for a null list, as sluice_kernel_list_get treats it).
  func.func private @sluice_list_size(%l: !llvm.ptr) -> i64 {
    %zero = arith.constant 0 : i64
    %null = llvm.mlir.zero : !llvm.ptr
    %isnull = llvm.icmp "eq" %l, %null : !llvm.ptr
    %n = scf.if %isnull -> (i64) {
      scf.yield %zero : i64
    } else {
      %sp = llvm.getelementptr inbounds %l[1] : (!llvm.ptr) -> !llvm.ptr, i64
      %x = llvm.load %sp : !llvm.ptr -> i64
      scf.yield %x : i64
    }
    return %n : i64
  }
  // xs[i] (sluice_kernel_list_get): an index outside [0, size) records a
  // SLUICE_WALK_FAULT_LIST_INDEX fault and gives 0.
  func.func private @sluice_list_get(%f: !llvm.ptr, %l: !llvm.ptr, %i: i64) -> i64 {
    %zero = arith.constant 0 : i64
    %code = arith.constant 1 : i32
    %n = func.call @sluice_list_size(%l) : (!llvm.ptr) -> i64
    %nonneg = arith.cmpi sge, %i, %zero : i64
    %below = arith.cmpi slt, %i, %n : i64
    %ok = arith.andi %nonneg, %below : i1
    %x = scf.if %ok -> (i64) {
      %data = llvm.load %l : !llvm.ptr -> !llvm.ptr
      %p = llvm.getelementptr inbounds %data[%i] : (!llvm.ptr, i64) -> !llvm.ptr, i64
      %v = llvm.load %p : !llvm.ptr -> i64
      scf.yield %v : i64
    } else {
      func.call @sluice_fault(%f, %code, %i, %n) : (!llvm.ptr, i32, i64, i64) -> ()
      scf.yield %zero : i64
    }
    return %x : i64
  }
  // vertex_of(id) (sluice_graph_vertex_of): the vertex whose original id
  // is `id`, by binary search of the sorted original ids (frame slot 19),
  // or id - id_base (slot 20) without them; -1 (SLUICE_VERTEX_NONE) when
  // no vertex has it.
  func.func private @sluice_vertex_of(%f: !llvm.ptr, %id: i64) -> i32 {
    %c15 = arith.constant 15 : i32
    %c19 = arith.constant 19 : i32
    %c20 = arith.constant 20 : i32
    %zero = arith.constant 0 : i64
    %vnone = arith.constant -1 : i32
    %nv = func.call @sluice_frame_i64(%f, %c15) : (!llvm.ptr, i32) -> i64
    %ids = func.call @sluice_frame_ptr(%f, %c19) : (!llvm.ptr, i32) -> !llvm.ptr
    %null = llvm.mlir.zero : !llvm.ptr
    %dense = llvm.icmp "eq" %ids, %null : !llvm.ptr
    %v = scf.if %dense -> (i32) {
      %base = func.call @sluice_frame_i64(%f, %c20) : (!llvm.ptr, i32) -> i64
      %off = arith.subi %id, %base : i64
      %above = arith.cmpi uge, %id, %base : i64
      %inside = arith.cmpi ult, %off, %nv : i64
      %ok = arith.andi %above, %inside : i1
      %o32 = arith.trunci %off : i64 to i32
      %r = arith.select %ok, %o32, %vnone : i32
      scf.yield %r : i32
    } else {
      %at = func.call @sluice_sorted_find_i64(%ids, %zero, %nv, %id) : (!llvm.ptr, i64, i64, i64) -> i64
      %found = arith.cmpi sge, %at, %zero : i64
      %v32 = arith.trunci %at : i64 to i32
      %r = arith.select %found, %v32, %vnone : i32
      scf.yield %r : i32
    }
    return %v : i32
  }
  // random() (sluice_walk_random): Philox under the seed with its words
  // flipped, counter (draw / 2, step, walker low, walker high); draw counts
  // the calls of this step.
  func.func private @sluice_random(%f: !llvm.ptr) -> f64 {
    %c9 = arith.constant 9 : i32
    %c12 = arith.constant 12 : i32
    %c13 = arith.constant 13 : i32
    %c14 = arith.constant 14 : i32
    %one = arith.constant 1 : i64
    %c32 = arith.constant 32 : i64
    %flip0 = arith.constant 1779033703 : i32
    %flip1 = arith.constant -1150833019 : i32
    %dp = func.call @sluice_frame_slot(%f, %c14) : (!llvm.ptr, i32) -> !llvm.ptr
    %draw = llvm.load %dp : !llvm.ptr -> i64
    %draw1 = arith.addi %draw, %one : i64
    llvm.store %draw1, %dp : i64, !llvm.ptr
    %seed = func.call @sluice_frame_i64(%f, %c13) : (!llvm.ptr, i32) -> i64
    %s0 = arith.trunci %seed : i64 to i32
    %sh = arith.shrui %seed, %c32 : i64
    %s1 = arith.trunci %sh : i64 to i32
    %k0 = arith.xori %s0, %flip0 : i32
    %k1 = arith.xori %s1, %flip1 : i32
    %blk = arith.shrui %draw, %one : i64
    %c0 = arith.trunci %blk : i64 to i32
    %step = func.call @sluice_frame_i64(%f, %c12) : (!llvm.ptr, i32) -> i64
    %c1 = arith.trunci %step : i64 to i32
    %walker = func.call @sluice_frame_i64(%f, %c9) : (!llvm.ptr, i32) -> i64
    %c2 = arith.trunci %walker : i64 to i32
    %wsh = arith.shrui %walker, %c32 : i64
    %c3 = arith.trunci %wsh : i64 to i32
    %b:4 = func.call @sluice_philox(%c0, %c1, %c2, %c3, %k0, %k1) : (i32, i32, i32, i32, i32, i32) -> (i32, i32, i32, i32)
    %odd = arith.andi %draw, %one : i64
    %zero = arith.constant 0 : i64
    %isodd = arith.cmpi ne, %odd, %zero : i64
    %hi = arith.select %isodd, %b#2, %b#0 : i32
    %lo = arith.select %isodd, %b#3, %b#1 : i32
    %x = func.call @sluice_bits_to_double(%hi, %lo) : (i32, i32) -> f64
    return %x : f64
  }
)mlir";

/// The sampler and the kernel of walk WALK (NUM_STATE state slots, at
/// least 1). Calls the functions outlined from the walk's regions:
/// sluice_walk_WALK_{weight,stop,update,init,upper_bound}.
const char *const kWalkDriver = R"mlir(
  // The kernel's weight of edge e from the frame's cur.
  func.func private @sluice_walk_WALK_edge_w(%f: !llvm.ptr, %e: i64) -> f64 {
    %c1 = arith.constant 1 : i32
    %tg = func.call @sluice_frame_ptr(%f, %c1) : (!llvm.ptr, i32) -> !llvm.ptr
    %p = llvm.getelementptr inbounds %tg[%e] : (!llvm.ptr, i64) -> !llvm.ptr, i32
    %next = llvm.load %p : !llvm.ptr -> i32
    %w = func.call @sluice_stored_weight(%f, %e) : (!llvm.ptr, i64) -> f64
    %x = func.call @sluice_walk_WALK_weight(%f, %next, %e, %w) : (!llvm.ptr, i32, i64, f64) -> f64
    return %x : f64
  }
  // THREADS threads per walker (1: rejection, 32: a warp, reservoir):
  // thread t runs walker w = t / THREADS as lane t % THREADS; every lane
  // keeps the walker's whole state (the same values: the control flow is
  // the same in every lane), they share only the sampling. The launch
  // covers walkers walker_base .. walker_base + num_walkers - 1: thread t
  // runs walker w = walker_base + t / THREADS (the id the random numbers
  // are keyed by), which starts at starts[w / walks_per_vertex]; lane 0
  // writes rows[(t / THREADS) * max_length ...] and lengths[t / THREADS].
  gpu.func @sluice_walk_WALK(%offsets: !llvm.ptr, %targets: !llvm.ptr, %weights: !llvm.ptr, %wmax: !llvm.ptr, %wmin: !llvm.ptr, %wsum: !llvm.ptr, %labels: !llvm.ptr, %params: !llvm.ptr, %starts: !llvm.ptr, %num_walkers: i64, %wpv: i64, %max_length: i64, %stop_prob: f64, %seed: i64, %rows: !llvm.ptr, %lengths: !llvm.ptr, %nv: i64, %ne: i64, %edge_labels: !llvm.ptr, %walker_base: i64, %fault: !llvm.ptr, %original_ids: !llvm.ptr, %id_base: i64) kernel {
    %c17 = arith.constant 21 : i32
    %c11 = arith.constant 11 : i32
    %nstate = arith.constant NUM_STATE : i32
    %frame = llvm.alloca %c17 x i64 : (i32) -> !llvm.ptr
    %rng = llvm.alloca %c11 x i32 : (i32) -> !llvm.ptr
    %state = llvm.alloca %nstate x i64 : (i32) -> !llvm.ptr
    %bid = gpu.block_id x
    %bdim = gpu.block_dim x
    %tid = gpu.thread_id x
    %base = arith.muli %bid, %bdim : index
    %gid = arith.addi %base, %tid : index
    %g = arith.index_cast %gid : index to i64
    %tpw = arith.constant THREADS : i64
    %lw = arith.divui %g, %tpw : i64
    %w = arith.addi %walker_base, %lw : i64
    %lane64 = arith.remui %g, %tpw : i64
    %lane = arith.trunci %lane64 : i64 to i32
    %lane0 = arith.constant 0 : i32
    %lead = arith.cmpi eq, %lane, %lane0 : i32
    %in = arith.cmpi ult, %lw, %num_walkers : i64
    scf.if %in {
      %zero = arith.constant 0 : i64
      %one = arith.constant 1 : i64
      %c32 = arith.constant 32 : i64
      %fz = arith.constant 0.0 : f64
      %none = arith.constant -1 : i64
      %true = arith.constant true
      %false = arith.constant false
      %ns64 = arith.extui %nstate : i32 to i64
      scf.for %k = %zero to %ns64 step %one : i64 {
        %p = llvm.getelementptr inbounds %state[%k] : (!llvm.ptr, i64) -> !llvm.ptr, i64
        llvm.store %zero, %p : i64, !llvm.ptr
      }
      %si = arith.divui %w, %wpv : i64
      %sp = llvm.getelementptr inbounds %starts[%si] : (!llvm.ptr, i64) -> !llvm.ptr, i32
      %start = llvm.load %sp : !llvm.ptr -> i32
      %i0 = arith.constant 0 : i32
      %i1 = arith.constant 1 : i32
      %i2 = arith.constant 2 : i32
      %i3 = arith.constant 3 : i32
      %i4 = arith.constant 4 : i32
      %i5 = arith.constant 5 : i32
      %i6 = arith.constant 6 : i32
      %i7 = arith.constant 7 : i32
      %i8 = arith.constant 8 : i32
      %i9 = arith.constant 9 : i32
      %i10 = arith.constant 10 : i32
      %i11 = arith.constant 11 : i32
      %i12 = arith.constant 12 : i32
      %i13 = arith.constant 13 : i32
      %i14 = arith.constant 14 : i32
      %i15 = arith.constant 15 : i32
      %i16 = arith.constant 16 : i32
      %f0 = func.call @sluice_frame_slot(%frame, %i0) : (!llvm.ptr, i32) -> !llvm.ptr
      llvm.store %offsets, %f0 : !llvm.ptr, !llvm.ptr
      %f1 = func.call @sluice_frame_slot(%frame, %i1) : (!llvm.ptr, i32) -> !llvm.ptr
      llvm.store %targets, %f1 : !llvm.ptr, !llvm.ptr
      %f2 = func.call @sluice_frame_slot(%frame, %i2) : (!llvm.ptr, i32) -> !llvm.ptr
      llvm.store %weights, %f2 : !llvm.ptr, !llvm.ptr
      %f3 = func.call @sluice_frame_slot(%frame, %i3) : (!llvm.ptr, i32) -> !llvm.ptr
      llvm.store %wmax, %f3 : !llvm.ptr, !llvm.ptr
      %f4 = func.call @sluice_frame_slot(%frame, %i4) : (!llvm.ptr, i32) -> !llvm.ptr
      llvm.store %wmin, %f4 : !llvm.ptr, !llvm.ptr
      %f5 = func.call @sluice_frame_slot(%frame, %i5) : (!llvm.ptr, i32) -> !llvm.ptr
      llvm.store %wsum, %f5 : !llvm.ptr, !llvm.ptr
      %f6 = func.call @sluice_frame_slot(%frame, %i6) : (!llvm.ptr, i32) -> !llvm.ptr
      llvm.store %labels, %f6 : !llvm.ptr, !llvm.ptr
      %f7 = func.call @sluice_frame_slot(%frame, %i7) : (!llvm.ptr, i32) -> !llvm.ptr
      llvm.store %params, %f7 : !llvm.ptr, !llvm.ptr
      %f8 = func.call @sluice_frame_slot(%frame, %i8) : (!llvm.ptr, i32) -> !llvm.ptr
      llvm.store %state, %f8 : !llvm.ptr, !llvm.ptr
      %f9 = func.call @sluice_frame_slot(%frame, %i9) : (!llvm.ptr, i32) -> !llvm.ptr
      llvm.store %w, %f9 : i64, !llvm.ptr
      %f10 = func.call @sluice_frame_slot(%frame, %i10) : (!llvm.ptr, i32) -> !llvm.ptr
      llvm.store %start, %f10 : i32, !llvm.ptr
      %f11 = func.call @sluice_frame_slot(%frame, %i11) : (!llvm.ptr, i32) -> !llvm.ptr
      llvm.store %start, %f11 : i32, !llvm.ptr
      %f12 = func.call @sluice_frame_slot(%frame, %i12) : (!llvm.ptr, i32) -> !llvm.ptr
      llvm.store %zero, %f12 : i64, !llvm.ptr
      %f13 = func.call @sluice_frame_slot(%frame, %i13) : (!llvm.ptr, i32) -> !llvm.ptr
      llvm.store %seed, %f13 : i64, !llvm.ptr
      %f14 = func.call @sluice_frame_slot(%frame, %i14) : (!llvm.ptr, i32) -> !llvm.ptr
      llvm.store %zero, %f14 : i64, !llvm.ptr
      %f15 = func.call @sluice_frame_slot(%frame, %i15) : (!llvm.ptr, i32) -> !llvm.ptr
      llvm.store %nv, %f15 : i64, !llvm.ptr
      %f16 = func.call @sluice_frame_slot(%frame, %i16) : (!llvm.ptr, i32) -> !llvm.ptr
      llvm.store %ne, %f16 : i64, !llvm.ptr
      %i17 = arith.constant 17 : i32
      %f17 = func.call @sluice_frame_slot(%frame, %i17) : (!llvm.ptr, i32) -> !llvm.ptr
      llvm.store %edge_labels, %f17 : !llvm.ptr, !llvm.ptr
      %i18 = arith.constant 18 : i32
      %f18 = func.call @sluice_frame_slot(%frame, %i18) : (!llvm.ptr, i32) -> !llvm.ptr
      llvm.store %fault, %f18 : !llvm.ptr, !llvm.ptr
      %i19 = arith.constant 19 : i32
      %f19 = func.call @sluice_frame_slot(%frame, %i19) : (!llvm.ptr, i32) -> !llvm.ptr
      llvm.store %original_ids, %f19 : !llvm.ptr, !llvm.ptr
      %i20 = arith.constant 20 : i32
      %f20 = func.call @sluice_frame_slot(%frame, %i20) : (!llvm.ptr, i32) -> !llvm.ptr
      llvm.store %id_base, %f20 : i64, !llvm.ptr
      func.call @sluice_walk_WALK_init(%frame) : (!llvm.ptr) -> ()
      %rowbase = arith.muli %lw, %max_length : i64
      %row = llvm.getelementptr inbounds %rows[%rowbase] : (!llvm.ptr, i64) -> !llvm.ptr, i32
      scf.if %lead {
        llvm.store %start, %row : i32, !llvm.ptr
      }
      %k0 = arith.trunci %seed : i64 to i32
      %seedhi = arith.shrui %seed, %c32 : i64
      %k1 = arith.trunci %seedhi : i64 to i32
      %len:2 = scf.while (%n = %one, %go = %true) : (i64, i1) -> (i64, i1) {
        %room = arith.cmpi slt, %n, %max_length : i64
        %cont = arith.andi %room, %go : i1
        scf.condition(%cont) %n, %go : i64, i1
      } do {
      ^bb0(%n1: i64, %go1: i1):
        %step = func.call @sluice_frame_i64(%frame, %i12) : (!llvm.ptr, i32) -> i64
        %step32 = arith.trunci %step : i64 to i32
        func.call @sluice_rng_init(%rng, %k0, %k1, %step32, %w) : (!llvm.ptr, i32, i32, i32, i64) -> ()
        %restart = arith.cmpf ogt, %stop_prob, %fz : f64
        %alive = scf.if %restart -> (i1) {
          %u = func.call @sluice_next_double(%rng) : (!llvm.ptr) -> f64
          %stays = arith.cmpf oge, %u, %stop_prob : f64
          scf.yield %stays : i1
        } else {
          scf.yield %true : i1
        }
        %alive2 = scf.if %alive -> (i1) {
          %stop = func.call @sluice_walk_WALK_stop(%frame) : (!llvm.ptr) -> i1
          %cont = arith.xori %stop, %true : i1
          scf.yield %cont : i1
        } else {
          scf.yield %false : i1
        }
        %moved = scf.if %alive2 -> (i1) {
          %cur = func.call @sluice_frame_i32(%frame, %i11) : (!llvm.ptr, i32) -> i32
          %be:2 = func.call @sluice_adjacency(%frame, %cur) : (!llvm.ptr, i32) -> (i64, i64)
          %d = arith.subi %be#1, %be#0 : i64
          %has = arith.cmpi ne, %d, %zero : i64
          %m = scf.if %has -> (i1) {
            %j = func.call @sluice_walk_WALK_SAMPLER(%frame, %rng, %be#0, %d, %lane) : (!llvm.ptr, !llvm.ptr, i64, i64, i32) -> i64
            %ok = arith.cmpi ne, %j, %none : i64
            scf.if %ok {
              %e = arith.addi %be#0, %j : i64
              %tp = llvm.getelementptr inbounds %targets[%e] : (!llvm.ptr, i64) -> !llvm.ptr, i32
              %next = llvm.load %tp : !llvm.ptr -> i32
              func.call @sluice_walk_WALK_update(%frame, %next) : (!llvm.ptr, i32) -> ()
              llvm.store %cur, %f10 : i32, !llvm.ptr
              llvm.store %next, %f11 : i32, !llvm.ptr
              %step1 = arith.addi %step, %one : i64
              llvm.store %step1, %f12 : i64, !llvm.ptr
              llvm.store %zero, %f14 : i64, !llvm.ptr
              %rp = llvm.getelementptr inbounds %row[%n1] : (!llvm.ptr, i64) -> !llvm.ptr, i32
              scf.if %lead {
                llvm.store %next, %rp : i32, !llvm.ptr
              }
            }
            scf.yield %ok : i1
          } else {
            scf.yield %false : i1
          }
          scf.yield %m : i1
        } else {
          scf.yield %false : i1
        }
        %n2 = arith.addi %n1, %one : i64
        %n3 = arith.select %moved, %n2, %n1 : i64
        scf.yield %n3, %moved : i64, i1
      }
      %lp = llvm.getelementptr inbounds %lengths[%lw] : (!llvm.ptr, i64) -> !llvm.ptr, i32
      %len32 = arith.trunci %len#0 : i64 to i32
      scf.if %lead {
        llvm.store %len32, %lp : i32, !llvm.ptr
      }
    }
    gpu.return
  }
)mlir";

/// Sampling by rejection for walk WALK (one thread per walker; `lane` is
/// always 0): sluice_walk_WALK_rejection.
const char *const kRejectionSampler = R"mlir(
  // sampleExact: two passes, one uniform; -1 when no weight is positive.
  func.func private @sluice_walk_WALK_exact(%f: !llvm.ptr, %r: !llvm.ptr, %begin: i64, %d: i64) -> i64 {
    %none = arith.constant -1 : i64
    %zero = arith.constant 0 : i64
    %one = arith.constant 1 : i64
    %fz = arith.constant 0.0 : f64
    %t:3 = scf.while (%i = %zero, %total = %fz, %last = %none) : (i64, f64, i64) -> (i64, f64, i64) {
      %more = arith.cmpi ult, %i, %d : i64
      scf.condition(%more) %i, %total, %last : i64, f64, i64
    } do {
    ^bb0(%i1: i64, %total1: f64, %last1: i64):
      %e = arith.addi %begin, %i1 : i64
      %w = func.call @sluice_walk_WALK_edge_w(%f, %e) : (!llvm.ptr, i64) -> f64
      %pos = arith.cmpf ogt, %w, %fz : f64
      %sum = arith.addf %total1, %w : f64
      %total2 = arith.select %pos, %sum, %total1 : f64
      %last2 = arith.select %pos, %i1, %last1 : i64
      %i2 = arith.addi %i1, %one : i64
      scf.yield %i2, %total2, %last2 : i64, f64, i64
    }
    %empty = arith.cmpi eq, %t#2, %none : i64
    %res = scf.if %empty -> (i64) {
      scf.yield %none : i64
    } else {
      %u = func.call @sluice_next_double(%r) : (!llvm.ptr) -> f64
      %target = arith.mulf %u, %t#1 : f64
      %s:3 = scf.while (%i = %zero, %acc = %fz, %found = %none) : (i64, f64, i64) -> (i64, f64, i64) {
        %more = arith.cmpi ult, %i, %t#2 : i64
        %open = arith.cmpi eq, %found, %none : i64
        %go = arith.andi %more, %open : i1
        scf.condition(%go) %i, %acc, %found : i64, f64, i64
      } do {
      ^bb0(%i1: i64, %acc1: f64, %found1: i64):
        %e = arith.addi %begin, %i1 : i64
        %w = func.call @sluice_walk_WALK_edge_w(%f, %e) : (!llvm.ptr, i64) -> f64
        %pos = arith.cmpf ogt, %w, %fz : f64
        %sum = arith.addf %acc1, %w : f64
        %acc2 = arith.select %pos, %sum, %acc1 : f64
        %below = arith.cmpf olt, %target, %acc2 : f64
        %hit = arith.andi %pos, %below : i1
        %found2 = arith.select %hit, %i1, %none : i64
        %i2 = arith.addi %i1, %one : i64
        scf.yield %i2, %acc2, %found2 : i64, f64, i64
      }
      %miss = arith.cmpi eq, %s#2, %none : i64
      %j = arith.select %miss, %t#2, %s#2 : i64
      scf.yield %j : i64
    }
    return %res : i64
  }
  // Rejection against upper_bound(cur), at most min(64, max(4, 2 d))
  // trials, then sampleExact (the CPU engine's rejection mode).
  func.func private @sluice_walk_WALK_rejection(%f: !llvm.ptr, %r: !llvm.ptr, %begin: i64, %d: i64, %lane: i32) -> i64 {
    %none = arith.constant -1 : i64
    %zero = arith.constant 0 : i64
    %one = arith.constant 1 : i64
    %four = arith.constant 4 : i64
    %cap = arith.constant 64 : i64
    %fz = arith.constant 0.0 : f64
    %inf = arith.constant 0x7FF0000000000000 : f64
    %bound = func.call @sluice_walk_WALK_upper_bound(%f) : (!llvm.ptr) -> f64
    %twice = arith.addi %d, %d : i64
    %atleast = arith.maxui %twice, %four : i64
    %trials = arith.minui %atleast, %cap : i64
    %pos = arith.cmpf ogt, %bound, %fz : f64
    %fin = arith.cmpf olt, %bound, %inf : f64
    %usable = arith.andi %pos, %fin : i1
    %acc = scf.if %usable -> (i64) {
      %s:2 = scf.while (%k = %zero, %found = %none) : (i64, i64) -> (i64, i64) {
        %more = arith.cmpi ult, %k, %trials : i64
        %open = arith.cmpi eq, %found, %none : i64
        %go = arith.andi %more, %open : i1
        scf.condition(%go) %k, %found : i64, i64
      } do {
      ^bb0(%k1: i64, %found1: i64):
        %i = func.call @sluice_uniform_index(%r, %d) : (!llvm.ptr, i64) -> i64
        %e = arith.addi %begin, %i : i64
        %w = func.call @sluice_walk_WALK_edge_w(%f, %e) : (!llvm.ptr, i64) -> f64
        %u = func.call @sluice_next_double(%r) : (!llvm.ptr) -> f64
        %y = arith.mulf %u, %bound : f64
        %ok = arith.cmpf olt, %y, %w : f64
        %found2 = arith.select %ok, %i, %none : i64
        %k2 = arith.addi %k1, %one : i64
        scf.yield %k2, %found2 : i64, i64
      }
      scf.yield %s#1 : i64
    } else {
      scf.yield %none : i64
    }
    %rejected = arith.cmpi eq, %acc, %none : i64
    %j = scf.if %rejected -> (i64) {
      %x = func.call @sluice_walk_WALK_exact(%f, %r, %begin, %d) : (!llvm.ptr, !llvm.ptr, i64, i64) -> i64
      scf.yield %x : i64
    } else {
      scf.yield %acc : i64
    }
    return %j : i64
  }
)mlir";

/// A double as MLIR text that parses back to the same value.
std::string formatDouble(double x) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.17g", x);
  return text;
}

/// The natural logarithm of a positive normal x on the device, MLIR text
/// of `func.func private @sluice_log(f64) -> f64`: x = m 2^e with m in
/// [sqrt(1/2), sqrt(2)), log m = 2 atanh(s), s = (m - 1) / (m + 1),
/// |s| < 0.172, atanh(s) / s = sum_k z^k / (2k + 1) (z = s^2) by Horner's
/// rule to k = 11 (s^23: truncation < 1e-17), e ln 2 with ln 2 split in two.
/// Written out by this loop rather than called: math.log would lower
/// (convert-gpu-to-nvvm) to libdevice's __nv_log, which the PTX emission
/// does not link (no CUDA toolkit needed to compile), and the upstream
/// `func.func private @sluice_sorted_find_<ty>(%base, %lo, %hi, %key)`:
/// the index of the first `key` in the sorted elements [lo, hi) of `base`
/// (element type `ty`, compared unsigned), or -1. One binary search for
/// has_edge (i32 targets) and vertex_of (i64 original ids).
std::string sortedFindFunction(StringRef ty) {
  std::string text = R"mlir(
  func.func private @sluice_sorted_find_TY(%base: !llvm.ptr, %begin: i64, %end: i64, %key: TY) -> i64 {
    %one = arith.constant 1 : i64
    %none = arith.constant -1 : i64
    %r:2 = scf.while (%lo = %begin, %hi = %end) : (i64, i64) -> (i64, i64) {
      %more = arith.cmpi ult, %lo, %hi : i64
      scf.condition(%more) %lo, %hi : i64, i64
    } do {
    ^bb0(%lo1: i64, %hi1: i64):
      %span = arith.subi %hi1, %lo1 : i64
      %half = arith.shrui %span, %one : i64
      %mid = arith.addi %lo1, %half : i64
      %p = llvm.getelementptr inbounds %base[%mid] : (!llvm.ptr, i64) -> !llvm.ptr, TY
      %x = llvm.load %p : !llvm.ptr -> TY
      %less = arith.cmpi ult, %x, %key : TY
      %mid1 = arith.addi %mid, %one : i64
      %lo2 = arith.select %less, %mid1, %lo1 : i64
      %hi2 = arith.select %less, %hi1, %mid : i64
      scf.yield %lo2, %hi2 : i64, i64
    }
    %inside = arith.cmpi ult, %r#0, %end : i64
    %res = scf.if %inside -> (i64) {
      %p = llvm.getelementptr inbounds %base[%r#0] : (!llvm.ptr, i64) -> !llvm.ptr, TY
      %x = llvm.load %p : !llvm.ptr -> TY
      %hit = arith.cmpi eq, %x, %key : TY
      %e = arith.select %hit, %r#0, %none : i64
      scf.yield %e : i64
    } else {
      scf.yield %none : i64
    }
    return %res : i64
  }
)mlir";
  for (size_t at; (at = text.find("TY")) != std::string::npos;)
    text.replace(at, 2, ty.str());
  return text;
}

/// polynomial approximation of math.log is f32 only.
std::string logFunction() {
  std::string text = R"mlir(
  func.func private @sluice_log(%x: f64) -> f64 {
    %c52 = arith.constant 52 : i64
    %emask = arith.constant 2047 : i64
    %bias = arith.constant 1023 : i64
    %ione = arith.constant 1 : i64
    %mmask = arith.constant 4503599627370495 : i64
    %onebits = arith.constant 4607182418800017408 : i64
    %one = arith.constant 1.0 : f64
    %two = arith.constant 2.0 : f64
    %half = arith.constant 0.5 : f64
    %sqrt2 = arith.constant 1.4142135623730951 : f64
    %ln2hi = arith.constant 0.69314718036912382 : f64
    %ln2lo = arith.constant 1.9082149292705877e-10 : f64
    %bits = arith.bitcast %x : f64 to i64
    %eb = arith.shrui %bits, %c52 : i64
    %eb2 = arith.andi %eb, %emask : i64
    %e0 = arith.subi %eb2, %bias : i64
    %mb = arith.andi %bits, %mmask : i64
    %mb2 = arith.ori %mb, %onebits : i64
    %m0 = arith.bitcast %mb2 : i64 to f64
    %big = arith.cmpf ogt, %m0, %sqrt2 : f64
    %mh = arith.mulf %m0, %half : f64
    %m = arith.select %big, %mh, %m0 : f64
    %e1 = arith.addi %e0, %ione : i64
    %e = arith.select %big, %e1, %e0 : i64
    %num = arith.subf %m, %one : f64
    %den = arith.addf %m, %one : f64
    %s = arith.divf %num, %den : f64
    %z = arith.mulf %s, %s : f64
)mlir";
  // p11 = 1/23; p_k = p_{k+1} z + 1/(2k + 1) down to p0 = p1 z + 1.
  constexpr int kTerms = 11;
  text += llvm::formatv("    %p{0} = arith.constant {1} : f64\n", kTerms,
                        formatDouble(1.0 / (2 * kTerms + 1)))
              .str();
  for (int k = kTerms - 1; k >= 1; --k) {
    text += llvm::formatv("    %a{0} = arith.mulf %p{1}, %z : f64\n", k,
                          k + 1)
                .str();
    text += llvm::formatv("    %c{0} = arith.constant {1} : f64\n", k,
                          formatDouble(1.0 / (2 * k + 1)))
                .str();
    text += llvm::formatv("    %p{0} = arith.addf %a{0}, %c{0} : f64\n", k)
                .str();
  }
  text += R"mlir(    %a0 = arith.mulf %p1, %z : f64
    %p0 = arith.addf %a0, %one : f64
    %s2 = arith.mulf %s, %two : f64
    %ls = arith.mulf %s2, %p0 : f64
    %ef = arith.sitofp %e : i64 to f64
    %hi = arith.mulf %ef, %ln2hi : f64
    %lo = arith.mulf %ef, %ln2lo : f64
    %r0 = arith.addf %ls, %lo : f64
    %r = arith.addf %hi, %r0 : f64
    return %r : f64
  }
)mlir";
  return text;
}

/// Weighted reservoir sampling with a warp per walker (A-Res, Efraimidis
/// and Spirakis): candidate i of weight w > 0 gets the key log(u_i) / w_i
/// (u_i in (0, 1] from a counter-based Philox block of its own), the
/// largest key wins, which picks i with probability w_i / sum w. Lane l
/// scans candidates l, l + 32, ...; a butterfly of shuffles (gpu.shuffle
/// xor) gives every lane the warp's best.
const char *const kReservoirLibrary = R"mlir(
  // Candidate (key k, index i) beats (bk, bi): a candidate beats none (-1),
  // a larger key wins, equal keys go to the smaller index. A strict total
  // order, so the butterfly's result does not depend on the lane.
  func.func private @sluice_reservoir_better(%k: f64, %i: i64, %bk: f64, %bi: i64) -> i1 {
    %none = arith.constant -1 : i64
    %real = arith.cmpi ne, %i, %none : i64
    %empty = arith.cmpi eq, %bi, %none : i64
    %gt = arith.cmpf ogt, %k, %bk : f64
    %eq = arith.cmpf oeq, %k, %bk : f64
    %lt = arith.cmpi slt, %i, %bi : i64
    %tie = arith.andi %eq, %lt : i1
    %wins = arith.ori %gt, %tie : i1
    %any = arith.ori %empty, %wins : i1
    %b = arith.andi %real, %any : i1
    return %b : i1
  }
  // The key of candidate i (its index among cur's edges) of weight w > 0:
  // log(u) / w, u = 1 - [0, 1) from Philox under the seed with its words
  // flipped (0x3C6EF372, 0xA54FF53A; i's high word also in key word 1),
  // counter (i low, step, walker low, walker high), words 0 and 1.
  func.func private @sluice_reservoir_key(%f: !llvm.ptr, %i: i64, %w: f64) -> f64 {
    %c9 = arith.constant 9 : i32
    %c12 = arith.constant 12 : i32
    %c13 = arith.constant 13 : i32
    %c32 = arith.constant 32 : i64
    %one = arith.constant 1.0 : f64
    %flip0 = arith.constant 1013904242 : i32
    %flip1 = arith.constant -1521486534 : i32
    %seed = func.call @sluice_frame_i64(%f, %c13) : (!llvm.ptr, i32) -> i64
    %s0 = arith.trunci %seed : i64 to i32
    %sh = arith.shrui %seed, %c32 : i64
    %s1 = arith.trunci %sh : i64 to i32
    %ish = arith.shrui %i, %c32 : i64
    %ihi = arith.trunci %ish : i64 to i32
    %k0 = arith.xori %s0, %flip0 : i32
    %k1a = arith.xori %s1, %flip1 : i32
    %k1 = arith.xori %k1a, %ihi : i32
    %ilo = arith.trunci %i : i64 to i32
    %step = func.call @sluice_frame_i64(%f, %c12) : (!llvm.ptr, i32) -> i64
    %st = arith.trunci %step : i64 to i32
    %walker = func.call @sluice_frame_i64(%f, %c9) : (!llvm.ptr, i32) -> i64
    %wlo = arith.trunci %walker : i64 to i32
    %wsh = arith.shrui %walker, %c32 : i64
    %whi = arith.trunci %wsh : i64 to i32
    %b:4 = func.call @sluice_philox(%ilo, %st, %wlo, %whi, %k0, %k1) : (i32, i32, i32, i32, i32, i32) -> (i32, i32, i32, i32)
    %x = func.call @sluice_bits_to_double(%b#0, %b#1) : (i32, i32) -> f64
    %u = arith.subf %one, %x : f64
    %l = func.call @sluice_log(%u) : (f64) -> f64
    %key = arith.divf %l, %w : f64
    return %key : f64
  }
  // x from lane `lane xor off` (a 64-bit value as two 32-bit shuffles).
  func.func private @sluice_shfl_xor_i64(%x: i64, %off: i32) -> i64 {
    %c32 = arith.constant 32 : i64
    %width = arith.constant 32 : i32
    %lo = arith.trunci %x : i64 to i32
    %h = arith.shrui %x, %c32 : i64
    %hi = arith.trunci %h : i64 to i32
    %slo, %vlo = gpu.shuffle xor %lo, %off, %width : i32
    %shi, %vhi = gpu.shuffle xor %hi, %off, %width : i32
    %a = arith.extui %slo : i32 to i64
    %b = arith.extui %shi : i32 to i64
    %bs = arith.shli %b, %c32 : i64
    %r = arith.ori %bs, %a : i64
    return %r : i64
  }
  // The warp's best candidate, in every lane (offsets 16, 8, 4, 2, 1).
  func.func private @sluice_warp_best(%k: f64, %i: i64) -> (f64, i64) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c16 = arith.constant 16 : i32
    %r:3 = scf.while (%off = %c16, %k1 = %k, %i1 = %i) : (i32, f64, i64) -> (i32, f64, i64) {
      %more = arith.cmpi ne, %off, %c0 : i32
      scf.condition(%more) %off, %k1, %i1 : i32, f64, i64
    } do {
    ^bb0(%off1: i32, %k2: f64, %i2: i64):
      %kb = arith.bitcast %k2 : f64 to i64
      %okb = func.call @sluice_shfl_xor_i64(%kb, %off1) : (i64, i32) -> i64
      %ok = arith.bitcast %okb : i64 to f64
      %oi = func.call @sluice_shfl_xor_i64(%i2, %off1) : (i64, i32) -> i64
      %better = func.call @sluice_reservoir_better(%ok, %oi, %k2, %i2) : (f64, i64, f64, i64) -> i1
      %k3 = arith.select %better, %ok, %k2 : f64
      %i3 = arith.select %better, %oi, %i2 : i64
      %off2 = arith.shrui %off1, %c1 : i32
      scf.yield %off2, %k3, %i3 : i32, f64, i64
    }
    return %r#1, %r#2 : f64, i64
  }
)mlir";

/// Reservoir sampling for walk WALK with a warp per walker (lane = the
/// thread's index in it): sluice_walk_WALK_reservoir; -1 when no weight
/// is positive.
const char *const kReservoirSampler = R"mlir(
  func.func private @sluice_walk_WALK_reservoir(%f: !llvm.ptr, %r: !llvm.ptr, %begin: i64, %d: i64, %lane: i32) -> i64 {
    %none = arith.constant -1 : i64
    %c32 = arith.constant 32 : i64
    %fz = arith.constant 0.0 : f64
    %ninf = arith.constant 0xFFF0000000000000 : f64
    %first = arith.extui %lane : i32 to i64
    %t:3 = scf.while (%i = %first, %bk = %ninf, %bi = %none) : (i64, f64, i64) -> (i64, f64, i64) {
      %more = arith.cmpi ult, %i, %d : i64
      scf.condition(%more) %i, %bk, %bi : i64, f64, i64
    } do {
    ^bb0(%i1: i64, %bk1: f64, %bi1: i64):
      %e = arith.addi %begin, %i1 : i64
      %w = func.call @sluice_walk_WALK_edge_w(%f, %e) : (!llvm.ptr, i64) -> f64
      %pos = arith.cmpf ogt, %w, %fz : f64
      %n:2 = scf.if %pos -> (f64, i64) {
        %key = func.call @sluice_reservoir_key(%f, %i1, %w) : (!llvm.ptr, i64, f64) -> f64
        %better = func.call @sluice_reservoir_better(%key, %i1, %bk1, %bi1) : (f64, i64, f64, i64) -> i1
        %k2 = arith.select %better, %key, %bk1 : f64
        %i2 = arith.select %better, %i1, %bi1 : i64
        scf.yield %k2, %i2 : f64, i64
      } else {
        scf.yield %bk1, %bi1 : f64, i64
      }
      %i3 = arith.addi %i1, %c32 : i64
      scf.yield %i3, %n#0, %n#1 : i64, f64, i64
    }
    %best:2 = func.call @sluice_warp_best(%t#1, %t#2) : (f64, i64) -> (f64, i64)
    return %best#1 : i64
  }
)mlir";

/// Replaces every occurrence of `from` in `text` by `to`.
std::string replaceAll(std::string text, StringRef from, StringRef to) {
  size_t at = 0;
  while ((at = text.find(from.str(), at)) != std::string::npos) {
    text.replace(at, from.size(), to.str());
    at += to.size();
  }
  return text;
}

/// Builds the device functions of one walk's regions.
class DeviceOutliner {
public:
  DeviceOutliner(gpu::GPUModuleOp gpuModule, walk::WalkOp walk)
      : gpuModule(gpuModule), walk(walk), ctx(walk.getContext()),
        ptr(LLVM::LLVMPointerType::get(ctx)), i1(IntegerType::get(ctx, 1)),
        i32(IntegerType::get(ctx, 32)), i64(IntegerType::get(ctx, 64)),
        f64(Float64Type::get(ctx)) {}

  /// Outlines `region` (or the default body when it is empty) as
  /// sluice_walk_<W>_<name>.
  LogicalResult outline(Region &region, StringRef name);

private:
  Value constI32(OpBuilder &b, Location loc, int32_t v) {
    return b.create<arith::ConstantIntOp>(loc, v, 32);
  }
  Value call(OpBuilder &b, Location loc, StringRef callee, TypeRange results,
             ValueRange args) {
    auto op = b.create<func::CallOp>(loc, callee, results, args);
    return results.empty() ? Value() : op.getResult(0);
  }
  Value frameI32(OpBuilder &b, Location loc, FrameSlot slot) {
    return call(b, loc, "sluice_frame_i32", {i32},
                {frame, constI32(b, loc, slot)});
  }
  Value frameI64(OpBuilder &b, Location loc, FrameSlot slot) {
    return call(b, loc, "sluice_frame_i64", {i64},
                {frame, constI32(b, loc, slot)});
  }
  /// The address of 8-byte slot `index` of the params or state block.
  Value slot(OpBuilder &b, Location loc, FrameSlot block, int64_t index) {
    Value base = call(b, loc, "sluice_frame_ptr", {ptr},
                      {frame, constI32(b, loc, block)});
    return b.create<LLVM::GEPOp>(
        loc, ptr, i64, base,
        ArrayRef<LLVM::GEPArg>{static_cast<int32_t>(index)},
        /*inbounds=*/true);
  }
  Value loadSlot(OpBuilder &b, Location loc, FrameSlot block, int64_t index,
                 Type type) {
    Value address = slot(b, loc, block, index);
    if (type.isInteger(1)) {
      Value word = b.create<LLVM::LoadOp>(loc, i64, address);
      Value zero = b.create<arith::ConstantIntOp>(loc, 0, 64);
      return b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::ne, word,
                                     zero);
    }
    return b.create<LLVM::LoadOp>(loc, type, address);
  }
  void storeSlot(OpBuilder &b, Location loc, FrameSlot block, int64_t index,
                 Value value) {
    Value address = slot(b, loc, block, index);
    if (value.getType().isInteger(1))
      value = b.create<arith::ExtUIOp>(loc, i64, value);
    b.create<LLVM::StoreOp>(loc, value, address);
  }
  LogicalResult lowerWalkOp(Operation *op);

  gpu::GPUModuleOp gpuModule;
  walk::WalkOp walk;
  MLIRContext *ctx;
  Type ptr, i1, i32, i64, f64;
  Value frame;
};

LogicalResult DeviceOutliner::lowerWalkOp(Operation *op) {
  OpBuilder b(op);
  Location loc = op->getLoc();
  Value result;
  if (auto param = dyn_cast<walk::ParamOp>(op)) {
    // A list's slot holds a device pointer to its sluice_walk_list_t.
    Type type = isa<walk::ListType>(param.getType()) ? ptr : param.getType();
    result = loadSlot(b, loc, kParams, param.getIndex(), type);
  } else if (auto get = dyn_cast<walk::StateGetOp>(op)) {
    result = loadSlot(b, loc, kState, get.getIndex(), get.getType());
  } else if (auto set = dyn_cast<walk::StateSetOp>(op)) {
    storeSlot(b, loc, kState, set.getIndex(), set.getValue());
  } else if (isa<walk::StepOp>(op)) {
    result = frameI64(b, loc, kStep);
  } else if (isa<walk::RandomOp>(op)) {
    result = call(b, loc, "sluice_random", {f64}, {frame});
  } else if (auto degree = dyn_cast<walk::DegreeOp>(op)) {
    result = call(b, loc, "sluice_degree", {i64}, {frame, degree.getVertex()});
  } else if (auto has = dyn_cast<walk::HasEdgeOp>(op)) {
    result = call(b, loc, "sluice_has_edge", {i1},
                  {frame, has.getFrom(), has.getTo()});
  } else if (auto ew = dyn_cast<walk::EdgeWeightOp>(op)) {
    result = call(b, loc, "sluice_edge_weight", {f64},
                  {frame, ew.getFrom(), ew.getTo()});
  } else if (auto el = dyn_cast<walk::EdgeLabelOp>(op)) {
    result = call(b, loc, "sluice_edge_label", {i64},
                  {frame, el.getFrom(), el.getTo()});
  } else if (auto label = dyn_cast<walk::LabelOp>(op)) {
    result = call(b, loc, "sluice_label", {i64}, {frame, label.getVertex()});
  } else if (isa<walk::NumVerticesOp>(op)) {
    result = frameI64(b, loc, kNumVertices);
  } else if (isa<walk::NumEdgesOp>(op)) {
    result = frameI64(b, loc, kNumEdges);
  } else if (isa<walk::WeightMaxOp, walk::WeightMinOp, walk::WeightSumOp>(
                 op)) {
    int32_t k = isa<walk::WeightMaxOp>(op)   ? 0
                : isa<walk::WeightMinOp>(op) ? 1
                                             : 2;
    result = call(b, loc, "sluice_weight_stat", {f64},
                  {frame, op->getOperand(0), constI32(b, loc, k)});
  } else if (auto lg = dyn_cast<walk::ListGetOp>(op)) {
    result = call(b, loc, "sluice_list_get", {i64},
                  {frame, lg->getOperand(0), lg.getIndex()});
  } else if (isa<walk::IntDivOp, walk::IntRemOp>(op)) {
    result = call(b, loc,
                  isa<walk::IntDivOp>(op) ? "sluice_idiv" : "sluice_irem",
                  {i64}, {frame, op->getOperand(0), op->getOperand(1)});
  } else if (auto ls = dyn_cast<walk::ListSizeOp>(op)) {
    result = call(b, loc, "sluice_list_size", {i64}, {ls->getOperand(0)});
  } else if (auto vo = dyn_cast<walk::VertexOfOp>(op)) {
    result = call(b, loc, "sluice_vertex_of", {i32}, {frame, vo.getId()});
  } else {
    // label_mass (only in the sum bounds, which the GPU kernels do not use).
    return op->emitError("walk-to-gpu: not supported yet: '")
           << op->getName() << "' in GPU code";
  }
  if (result)
    op->getResult(0).replaceAllUsesWith(result);
  op->erase();
  return success();
}

LogicalResult DeviceOutliner::outline(Region &region, StringRef name) {
  Location loc = region.empty() ? walk.getLoc() : region.getLoc();
  std::string symbol = ("sluice_walk_" + walk.getSymName() + "_" + name).str();
  SmallVector<Type> inputs = {ptr}, results;
  if (name == "weight") {
    inputs.append({i32, i64, f64});
    results = {f64};
  } else if (name == "stop") {
    results = {i1};
  } else if (name == "update") {
    inputs.push_back(i32);
  } else if (name == "upper_bound") {
    results = {f64};
  }
  OpBuilder b = OpBuilder::atBlockTerminator(gpuModule.getBody());
  auto func = b.create<func::FuncOp>(loc, symbol,
                                     FunctionType::get(ctx, inputs, results));
  func.setPrivate();
  Block *entry = func.addEntryBlock();
  b.setInsertionPointToStart(entry);
  frame = entry->getArgument(0);
  if (region.empty()) {
    // No stop rule: never stop; no update / init: nothing to do.
    if (name == "stop")
      b.create<func::ReturnOp>(loc, ValueRange{b.create<arith::ConstantIntOp>(
                                        loc, 0, 1)});
    else
      b.create<func::ReturnOp>(loc);
    return success();
  }

  SmallVector<Value> args;
  if (name == "weight")
    args = {frameI32(b, loc, kPrev), frameI32(b, loc, kCur),
            entry->getArgument(1), entry->getArgument(2),
            entry->getArgument(3)};
  else if (name == "stop")
    args = {frameI32(b, loc, kCur), frameI64(b, loc, kStep)};
  else if (name == "update")
    args = {frameI32(b, loc, kPrev), frameI32(b, loc, kCur),
            entry->getArgument(1)};
  else if (name == "upper_bound")
    args = {frameI32(b, loc, kCur)};
  SmallVector<Value> values;
  FailureOr<walk::YieldOp> cloned =
      conversion::cloneWalkRegion(b, walk, region, args, "walk-to-gpu", name,
                                  values);
  if (failed(cloned))
    return failure();
  walk::YieldOp yield = *cloned;
  if (name == "init") {
    if (values.size() != walk.getStateTypes().size())
      return yield.emitError("walk-to-gpu: init yields ")
             << values.size() << " values for "
             << walk.getStateTypes().size() << " state variables";
    for (auto [i, v] : llvm::enumerate(values))
      storeSlot(b, yield.getLoc(), kState, i, v);
    b.create<func::ReturnOp>(yield.getLoc());
  } else if (name == "update") {
    b.create<func::ReturnOp>(yield.getLoc());
  } else {
    if (values.size() != 1 || values[0].getType() != results[0])
      return yield.emitError("walk-to-gpu: the ")
             << name << " region must yield one " << results[0];
    b.create<func::ReturnOp>(yield.getLoc(), values[0]);
  }

  SmallVector<Operation *> walkOps;
  func.walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (isa<walk::WalkDialect>(op->getDialect()))
      walkOps.push_back(op);
  });
  for (Operation *op : walkOps)
    if (failed(lowerWalkOp(op)))
      return failure();
  return success();
}

/// Parses `text` (ops of a gpu.module body) and moves its ops to the end
/// of `gpuModule`. Symbol uses are checked later, when the module is whole.
LogicalResult appendDeviceCode(gpu::GPUModuleOp gpuModule, StringRef text,
                               Location loc) {
  MLIRContext *ctx = gpuModule.getContext();
  std::string source = "gpu.module @sluice_device_code {\n" + text.str() +
                       "\n}\n";
  ParserConfig config(ctx, /*verifyAfterParse=*/false);
  OwningOpRef<ModuleOp> parsed = parseSourceString<ModuleOp>(source, config);
  if (!parsed)
    return emitError(loc, "walk-to-gpu: internal error: the device code "
                          "does not parse");
  auto src = *parsed->getOps<gpu::GPUModuleOp>().begin();
  Block *dst = gpuModule.getBody();
  for (Operation &op : llvm::make_early_inc_range(src.getBody()->getOperations())) {
    if (op.hasTrait<OpTrait::IsTerminator>())
      continue;
    op.moveBefore(dst->getTerminator());
  }
  return success();
}

struct WalkToGPUPass
    : public sluice::conversion::impl::WalkToGPUBase<WalkToGPUPass> {
  using WalkToGPUBase::WalkToGPUBase;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = module.getContext();
    SmallVector<walk::WalkOp> walks(module.getOps<walk::WalkOp>());

    // Everything checked before anything is built.
    bool ok = true;
    for (walk::WalkOp w : walks) {
      walk::ScheduleAttr schedule = w.getScheduleAttr();
      if (!schedule || schedule.getTarget() != walk::Target::Gpu) {
        w.emitError("walk-to-gpu: walk '")
            << w.getSymName() << "' is "
            << (schedule ? "scheduled for the cpu" : "not scheduled")
            << "; run walk-select-sampler with target=gpu first";
        ok = false;
      }
    }
    if (!ok)
      return signalPassFailure();
    if (walks.empty())
      return;
    if (SymbolTable::lookupSymbolIn(module, "sluice_walks"))
      return (void)(module.emitError("walk-to-gpu: the symbol "
                                     "'sluice_walks' is taken"),
                    signalPassFailure());

    module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                    UnitAttr::get(ctx));
    OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
    auto gpuModule = b.create<gpu::GPUModuleOp>(module.getLoc(),
                                                "sluice_walks");
    if (failed(appendDeviceCode(gpuModule,
                                kDeviceLibrary + sortedFindFunction("i32") +
                                    sortedFindFunction("i64"),
                                module.getLoc())))
      return signalPassFailure();
    sluice::conversion::buildDeviceIntDivision(gpuModule);
    auto reservoir = [](walk::WalkOp w) {
      return w.getScheduleAttr().getMethod() == walk::StepMethod::Reservoir;
    };
    if (llvm::any_of(walks, reservoir) &&
        failed(appendDeviceCode(gpuModule,
                                logFunction() + kReservoirLibrary,
                                module.getLoc())))
      return signalPassFailure();
    for (walk::WalkOp w : walks) {
      size_t slots = std::max<size_t>(1, w.getStateTypes().size());
      bool warp = reservoir(w);
      std::string driver =
          std::string(warp ? kReservoirSampler : kRejectionSampler) +
          kWalkDriver;
      driver = replaceAll(driver, "NUM_STATE", std::to_string(slots));
      driver = replaceAll(driver, "SAMPLER", warp ? "reservoir" : "rejection");
      driver =
          replaceAll(driver, "THREADS",
                     std::to_string(w.getScheduleAttr().getThreadsPerWalker()));
      driver = replaceAll(driver, "WALK", w.getSymName());
      if (failed(appendDeviceCode(gpuModule, driver, w.getLoc())))
        return signalPassFailure();
      DeviceOutliner outliner(gpuModule, w);
      std::pair<Region *, StringRef> regions[] = {
          {&w.getWeight(), "weight"},
          {&w.getStop(), "stop"},
          {&w.getUpdate(), "update"},
          {&w.getInit(), "init"},
          {&w.getUpperBound(), "upper_bound"}};
      for (auto [region, name] : regions)
        if ((!warp || name != "upper_bound") &&
            failed(outliner.outline(*region, name)))
          return signalPassFailure();
    }
    // The walks are compiled; graph and job ops have no device code.
    for (Operation &op : llvm::make_early_inc_range(module.getOps()))
      if (isa<walk::WalkDialect>(op.getDialect()))
        op.erase();
    if (failed(mlir::verify(gpuModule)))
      return signalPassFailure();
  }
};

} // namespace
