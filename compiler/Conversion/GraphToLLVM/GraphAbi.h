//===- GraphAbi.h - The algorithm ABI in the LLVM dialect -------*- C++ -*-===//
//
// Everything graph-to-llvm knows about runtime/include/sluice/algo.h, in
// one place: the names of the functions an algorithm becomes, the
// signatures of the runtime calls they make, the field order of
// sluice_algo_view_t and the layout of a loop's environment, and the fault
// sites (the ops that may fault, numbered in one deterministic order that
// the lowering and the driver share).
//
// An algorithm A becomes
//
//   void sluice_algo_A(sluice_algo_ctx_t *ctx, const int64_t *params,
//                      void **props);
//
// with `params` one 8-byte slot per parameter (f64 bits, i64, i1 as 0/1)
// and `props[i]` the num_vertices values of property i in declaration
// order (f64 and i64: 8 bytes, i1: 1 byte, a vertex: 4 bytes). Each loop
// becomes one function per way it runs (sluice_algo_range_fn_t):
//
//   void sluice_algo_A_<label>_<variant>(sluice_algo_ctx_t *ctx, void *env,
//                                        uint64_t begin, uint64_t end);
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_COMPILER_CONVERSION_GRAPHTOLLVM_GRAPHABI_H
#define SLUICE_COMPILER_CONVERSION_GRAPHTOLLVM_GRAPHABI_H

#include "dialects/Graph/IR/GraphOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinOps.h"

#include <string>

namespace sluice::conversion {

/// `sluice_algo_<algorithm>`: the function an algorithm becomes.
std::string algorithmFunctionName(llvm::StringRef algorithm);

/// Whether `name` is a function the algorithm runtime exports
/// (sluice/algo*.h, listed at build time): no algorithm or loop function
/// may take it (the generated code calls the runtime's by name).
bool isAlgoRuntimeFunction(llvm::StringRef name);

/// Fields of sluice_algo_view_t, in order.
enum class ViewField : int32_t {
  NumVertices = 0,
  NumEdges,
  OutOffsets,
  OutTargets,
  OutWeights,
  InOffsets,
  InSources,
  InWeights,
};

/// Fields of sluice_algo_ids_t, in order.
enum class IdsField : int32_t {
  Ids = 0,
  Base,
};

/// The 8-byte slots of a loop function's environment: the property table,
/// the frontier the loop builds (null without one), the frontier it reads
/// as a list (null: every vertex) and as a bitmap (null: no membership
/// test), the partials of a loop that reduces into locals (null without
/// reductions; `Blocks` of them per local), the tiled in-edges of a tiled
/// pull run (sluice/algo_tile.h; null otherwise), then the values the loop
/// uses from outside, in order.
enum class EnvSlot : int64_t {
  Props = 0,
  Out,
  List,
  Bitmap,
  Partials,
  Blocks,
  Tiled,
  FirstCaptured,
  /// A push pass of a loop scheduled `order: degree | auto`: the vertices'
  /// positions in the degree order, or null (such a loop is never tiled).
  Ranks = Tiled,
  /// The bins of a binned push run (sluice/algo_bins.h; null otherwise).
  Bins = Tiled
};

/// The vertices of one block of a loop that reduces into locals
/// (SLUICE_ALGO_REDUCE_BLOCK).
inline constexpr int64_t kReduceBlock = 4096;
/// Or'ed into the schedule of a pass over such blocks
/// (SLUICE_ALGO_BLOCKS): the runtime runs a pass of few items on the
/// calling thread, unless they are blocks.
inline constexpr int64_t kBlocksFlag = 16;

/// The runtime functions the lowering calls.
enum class AlgoCall {
  View,               ///< const sluice_algo_view_t *(ctx)
  ParallelFor,        ///< void (ctx, u64 n, i32 schedule, u64 chunk, fn, env)
  FrontierNew,        ///< sluice_frontier_t *(ctx)
  FrontierAll,        ///< sluice_frontier_t *(ctx)
  FrontierInsert,     ///< i32 (f, u32 v)
  FrontierDirectBits, ///< u64 *(f)
  FrontierSeal,       ///< void (f)
  FrontierRelease,    ///< void (f)
  FrontierSize,       ///< u64 (f)
  FrontierAny,        ///< u32 (f)
  FrontierList,       ///< const u32 *(f)
  FrontierBitmap,     ///< const u64 *(f)
  PrefersDense,       ///< i32 (f)
  PullNext,           ///< i32 (from, out, f64 alpha, f64 beta)
  VertexOf,           ///< u32 (ctx, i64 id, i32 site)
  IntDiv,             ///< i64 (ctx, i64, i64, i32 site)
  IntRem,             ///< i64 (ctx, i64, i64, i32 site)
  HasEdge,            ///< i32 (ctx, u32 u, u32 v)
  EdgeWeight,         ///< f64 (ctx, u32 u, u32 v)
  EdgeLabel,          ///< i64 (ctx, u32 u, u32 v)
  VertexLabel,        ///< i64 (ctx, u32 v)
  OriginalId,         ///< i64 (ctx, u32 v)
  Ids,                ///< const sluice_algo_ids_t *(ctx)
  Partials,           ///< ptr (ctx, u64 count)
  ReduceF64,       ///< f64 (ctx, ptr partials, u64 count, i32 kind, f64 init)
  ReduceI64,       ///< i64 (ctx, ptr partials, u64 count, i32 kind, i64 init)
  CommonNeighbors, ///< i64 (ctx, u32 u, u32 v)
  CommonNeighborsBelow, ///< i64 (ctx, u32 u, u32 v)
  OrderBegin,           ///< const u32 *(ctx, i32 order, const char *name)
  OrderVertices,        ///< const u32 *(ctx)
  OrderEnd,             ///< void (ctx)
  OrderOffsets,         ///< const u64 *(ctx)
  OrderTargets,         ///< const u32 *(ctx)
  CommonNeighborsAt,    ///< i64 (ctx, u32 position, u32 position, i32 below)
  CountCommon,          ///< i64 (const u32 *a, u64 a_length, const u32 *b,
                        ///<      u64 b_length, u64 bound)
  FrontierBucket, ///< ptr (f, ptr priority, i32 type, f64 delta, ptr rest,
                  ///<      i32 flags)
  BucketFor,      ///< void (current, i32 schedule, u64 chunk, fn, env,
                  ///<       u64 env_slots, u64 list_slot)
  BucketInsert,   ///< i32 (f, u32 v)
  GpuSync,        ///< void (ctx, i32 phase): kGpuSync*
  GpuSyncElement, ///< void (ctx, i32 property, u32 v)
};

/// sluice_algo_gpu_sync's phases (algo_gpu.h, SLUICE_ALGO_GPU_SYNC_*): an
/// algorithm's host code calls it with kGpuSyncBegin first, kGpuSyncHost
/// before each property access of its own, kGpuSyncEnd before it returns.
inline constexpr int64_t kGpuSyncBegin = 0;
inline constexpr int64_t kGpuSyncHost = 1;
inline constexpr int64_t kGpuSyncEnd = 2;

/// FrontierBucket's flags (SLUICE_ALGO_BUCKET_CONSUME, _FUSE) and a fused
/// round's bin limit (SLUICE_ALGO_FUSE_BELOW, GAPBS's kBinSizeThreshold).
inline constexpr int64_t kBucketConsume = 1;
inline constexpr int64_t kBucketFuse = 2;
inline constexpr int64_t kFuseBelow = 1000;

/// Declares (once) and calls `fn` with `args`; the result, or null for a
/// void function.
mlir::Value callRuntime(mlir::OpBuilder &b, mlir::Location loc,
                        mlir::ModuleOp module, AlgoCall fn,
                        mlir::ValueRange args);

/// The ops of `algo` that may fault (graph.vertex_of, graph.idiv,
/// graph.irem) in pre-order: an op's index here is its fault site.
llvm::SmallVector<mlir::Operation *> faultSites(graph::AlgorithmOp algo);
/// The i32 attribute graph-to-llvm puts on those ops while it lowers them
/// (the copies a loop's variants get keep it).
inline constexpr llvm::StringLiteral kFaultSiteAttrName = "sluice.fault_site";

/// How property values are stored: i1 as a byte, the others as themselves.
mlir::Type storageType(mlir::Type elementType);

} // namespace sluice::conversion

#endif // SLUICE_COMPILER_CONVERSION_GRAPHTOLLVM_GRAPHABI_H
