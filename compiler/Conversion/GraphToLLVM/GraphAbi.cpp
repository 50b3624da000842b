//===- GraphAbi.cpp - The algorithm ABI in the LLVM dialect ---------------===//
#include "compiler/Conversion/GraphToLLVM/GraphAbi.h"

#include "sluice/algo.h"

#include "mlir/Dialect/LLVMIR/FunctionCallUtils.h"

#include <cstddef>

using namespace mlir;
using namespace sluice;
using namespace sluice::conversion;

// The view's fields as ViewField numbers them: 8 bytes each, in order.
#define SLUICE_VIEW_FIELD(field, index)                                        \
  static_assert(offsetof(sluice_algo_view_t, field) ==                         \
                    8 * static_cast<size_t>(ViewField::index),                 \
                "sluice_algo_view_t." #field " moved")
SLUICE_VIEW_FIELD(num_vertices, NumVertices);
SLUICE_VIEW_FIELD(num_edges, NumEdges);
SLUICE_VIEW_FIELD(out_offsets, OutOffsets);
SLUICE_VIEW_FIELD(out_targets, OutTargets);
SLUICE_VIEW_FIELD(out_weights, OutWeights);
SLUICE_VIEW_FIELD(in_offsets, InOffsets);
SLUICE_VIEW_FIELD(in_sources, InSources);
SLUICE_VIEW_FIELD(in_weights, InWeights);
#undef SLUICE_VIEW_FIELD
// The ids' fields as IdsField numbers them.
static_assert(offsetof(sluice_algo_ids_t, ids) ==
                      8 * static_cast<size_t>(IdsField::Ids) &&
                  offsetof(sluice_algo_ids_t, base) ==
                      8 * static_cast<size_t>(IdsField::Base),
              "sluice_algo_ids_t moved");
// The schedule a loop passes is the dialect's Parallel value.
static_assert(SLUICE_ALGO_SERIAL == int(graph::Parallel::Serial) &&
                  SLUICE_ALGO_STATIC == int(graph::Parallel::Static) &&
                  SLUICE_ALGO_DYNAMIC == int(graph::Parallel::Dynamic),
              "sluice_algo_schedule_t and graph::Parallel differ");

// A loop's reductions into locals pass the dialect's ReductionKind.
static_assert(SLUICE_ALGO_REDUCE_ADD == int(graph::ReductionKind::Add) &&
                  SLUICE_ALGO_REDUCE_MIN == int(graph::ReductionKind::Min) &&
                  SLUICE_ALGO_REDUCE_MAX == int(graph::ReductionKind::Max),
              "sluice_algo_reduction_t and graph::ReductionKind differ");
// `order` passes the dialect's VertexOrder (natural is never passed).
static_assert(SLUICE_ALGO_ORDER_DEGREE == int(graph::VertexOrder::Degree) &&
                  SLUICE_ALGO_ORDER_AUTO == int(graph::VertexOrder::Auto),
              "SLUICE_ALGO_ORDER_* and graph::VertexOrder differ");
// frontier: buckets passes the priority property's type so.
static_assert(SLUICE_ALGO_F64 == 0 && SLUICE_ALGO_I64 == 1,
              "sluice_algo_type_t changed");
static_assert(SLUICE_ALGO_REDUCE_BLOCK == kReduceBlock,
              "the reduction blocks of the runtime and the lowering differ");
static_assert(SLUICE_ALGO_BLOCKS == kBlocksFlag,
              "the flag of a pass over blocks differs");

std::string sluice::conversion::algorithmFunctionName(StringRef algorithm) {
  return ("sluice_algo_" + algorithm).str();
}

bool sluice::conversion::isAlgoRuntimeFunction(StringRef name) {
  static const char *const kRuntime[] = {
#include "compiler/Conversion/GraphToLLVM/AlgoRuntimeSymbols.inc"
  };
  return llvm::is_contained(kRuntime, name);
}

Value sluice::conversion::callRuntime(OpBuilder &b, Location loc,
                                      ModuleOp module, AlgoCall fn,
                                      ValueRange args) {
  MLIRContext *ctx = b.getContext();
  Type ptr = LLVM::LLVMPointerType::get(ctx);
  Type i32 = b.getI32Type(), i64 = b.getI64Type();
  Type none = LLVM::LLVMVoidType::get(ctx);
  StringRef name;
  Type result;
  SmallVector<Type> params;
  switch (fn) {
  case AlgoCall::View:
    name = "sluice_algo_view", result = ptr, params = {ptr};
    break;
  case AlgoCall::ParallelFor:
    name = "sluice_algo_parallel_for", result = none,
    params = {ptr, i64, i32, i64, ptr, ptr};
    break;
  case AlgoCall::FrontierNew:
    name = "sluice_algo_frontier_new", result = ptr, params = {ptr};
    break;
  case AlgoCall::FrontierAll:
    name = "sluice_algo_frontier_all", result = ptr, params = {ptr};
    break;
  case AlgoCall::FrontierInsert:
    name = "sluice_algo_frontier_insert", result = i32, params = {ptr, i32};
    break;
  case AlgoCall::FrontierDirectBits:
    name = "sluice_algo_frontier_direct_bits", result = ptr, params = {ptr};
    break;
  case AlgoCall::FrontierSeal:
    name = "sluice_algo_frontier_seal", result = none, params = {ptr};
    break;
  case AlgoCall::FrontierRelease:
    name = "sluice_algo_frontier_release", result = none, params = {ptr};
    break;
  case AlgoCall::FrontierSize:
    name = "sluice_algo_frontier_size", result = i64, params = {ptr};
    break;
  case AlgoCall::FrontierAny:
    name = "sluice_algo_frontier_any", result = i32, params = {ptr};
    break;
  case AlgoCall::FrontierList:
    name = "sluice_algo_frontier_list", result = ptr, params = {ptr};
    break;
  case AlgoCall::FrontierBitmap:
    name = "sluice_algo_frontier_bitmap", result = ptr, params = {ptr};
    break;
  case AlgoCall::PrefersDense:
    name = "sluice_algo_frontier_prefers_dense", result = i32, params = {ptr};
    break;
  case AlgoCall::PullNext:
    name = "sluice_algo_frontier_pull_next", result = i32,
    params = {ptr, ptr, b.getF64Type(), b.getF64Type()};
    break;
  case AlgoCall::VertexOf:
    name = "sluice_algo_vertex_of", result = i32, params = {ptr, i64, i32};
    break;
  case AlgoCall::IntDiv:
    name = "sluice_algo_idiv", result = i64, params = {ptr, i64, i64, i32};
    break;
  case AlgoCall::IntRem:
    name = "sluice_algo_irem", result = i64, params = {ptr, i64, i64, i32};
    break;
  case AlgoCall::HasEdge:
    name = "sluice_algo_has_edge", result = i32, params = {ptr, i32, i32};
    break;
  case AlgoCall::EdgeWeight:
    name = "sluice_algo_edge_weight", result = b.getF64Type(),
    params = {ptr, i32, i32};
    break;
  case AlgoCall::EdgeLabel:
    name = "sluice_algo_edge_label", result = i64, params = {ptr, i32, i32};
    break;
  case AlgoCall::VertexLabel:
    name = "sluice_algo_vertex_label", result = i64, params = {ptr, i32};
    break;
  case AlgoCall::OriginalId:
    name = "sluice_algo_original_id", result = i64, params = {ptr, i32};
    break;
  case AlgoCall::Ids:
    name = "sluice_algo_id_table", result = ptr, params = {ptr};
    break;
  case AlgoCall::Partials:
    name = "sluice_algo_partials", result = ptr, params = {ptr, i64};
    break;
  case AlgoCall::ReduceF64:
    name = "sluice_algo_reduce_f64", result = b.getF64Type(),
    params = {ptr, ptr, i64, i32, b.getF64Type()};
    break;
  case AlgoCall::ReduceI64:
    name = "sluice_algo_reduce_i64", result = i64,
    params = {ptr, ptr, i64, i32, i64};
    break;
  case AlgoCall::CommonNeighbors:
    name = "sluice_algo_common_neighbors", result = i64,
    params = {ptr, i32, i32};
    break;
  case AlgoCall::CommonNeighborsBelow:
    name = "sluice_algo_common_neighbors_below", result = i64,
    params = {ptr, i32, i32};
    break;
  case AlgoCall::OrderBegin:
    name = "sluice_algo_order_begin", result = ptr, params = {ptr, i32, ptr};
    break;
  case AlgoCall::OrderVertices:
    name = "sluice_algo_order_vertices", result = ptr, params = {ptr};
    break;
  case AlgoCall::OrderEnd:
    name = "sluice_algo_order_end", result = none, params = {ptr};
    break;
  case AlgoCall::OrderOffsets:
    name = "sluice_algo_order_offsets", result = ptr, params = {ptr};
    break;
  case AlgoCall::OrderTargets:
    name = "sluice_algo_order_targets", result = ptr, params = {ptr};
    break;
  case AlgoCall::CommonNeighborsAt:
    name = "sluice_algo_common_neighbors_at", result = i64,
    params = {ptr, i32, i32, i32};
    break;
  case AlgoCall::CountCommon:
    name = "sluice_algo_count_common", result = i64,
    params = {ptr, i64, ptr, i64, i64};
    break;
  case AlgoCall::FrontierBucket:
    name = "sluice_algo_frontier_bucket", result = ptr,
    params = {ptr, ptr, i32, b.getF64Type(), ptr, i32};
    break;
  case AlgoCall::BucketFor:
    name = "sluice_algo_bucket_for", result = none;
    params = {ptr, i32, i64, ptr, ptr, i64, i64};
    break;
  case AlgoCall::BucketInsert:
    name = "sluice_algo_bucket_insert", result = i32, params = {ptr, i32};
    break;
  case AlgoCall::GpuSync:
    name = "sluice_algo_gpu_sync", result = none, params = {ptr, i32};
    break;
  case AlgoCall::GpuSyncElement:
    name = "sluice_algo_gpu_sync_element", result = none,
    params = {ptr, i32, i32};
    break;
  }
  LLVM::LLVMFuncOp decl =
      LLVM::lookupOrCreateFn(module, name, params, result);
  auto call = b.create<LLVM::CallOp>(loc, decl, args);
  return call.getNumResults() ? call.getResult() : Value();
}

SmallVector<Operation *> sluice::conversion::faultSites(graph::AlgorithmOp algo) {
  SmallVector<Operation *> sites;
  algo.getBody().walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (isa<graph::VertexOfOp, graph::IntDivOp, graph::IntRemOp>(op))
      sites.push_back(op);
  });
  return sites;
}

Type sluice::conversion::storageType(Type elementType) {
  if (elementType.isInteger(1))
    return IntegerType::get(elementType.getContext(), 8);
  return elementType;
}
