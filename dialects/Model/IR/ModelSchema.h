//===- ModelSchema.h - The words of a model ---------------------*- C++ -*-===//
//
// The single source of truth for the job actions and norm kinds of a model:
// Sema checks `model` and `job` declarations against these names, the model
// dialect's attributes are these enums, and the transformer cost model
// (compiler/Analysis/Model) takes a NormKind. Depends on LLVM Support and
// the enums generated from ModelEnums.td only (header-only MLIR support
// types; no MLIR library is needed to link it).
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_DIALECTS_MODEL_IR_MODELSCHEMA_H
#define SLUICE_DIALECTS_MODEL_IR_MODELSCHEMA_H

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMapInfo.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"
#include <cstdint>
#include <optional>

// JobAction, NormKind and Tier with their stringify*/symbolize* functions.
#include "dialects/Model/IR/ModelEnums.h.inc"

namespace sluice::model {

/// The spellings of every norm kind, in declaration order (for Sema's
/// "expected one of" lists).
llvm::ArrayRef<llvm::StringRef> normKindNames();
/// The spellings of every tier (a job schedule's `params`, `grads`,
/// `optimizer`), in declaration order.
llvm::ArrayRef<llvm::StringRef> tierNames();
/// The spellings of every base-weight quantization (`quantize:`).
llvm::ArrayRef<llvm::StringRef> weightQuantNames();
/// The spellings of what an infer job may compress (`compress:`).
llvm::ArrayRef<llvm::StringRef> compressedTensorsNames();

/// The largest `tile` of a gnn train job (feature columns per tile of the
/// neighbour aggregation; the runtime's field is 32 bits, and a tile at
/// least the feature width is one pass over whole rows).
constexpr int64_t kMaxGnnTile = 65536;

/// The most attention heads of a gat layer (`heads:`; the runtime's
/// SLUICE_GNN_MAX_HEADS).
constexpr int64_t kMaxGnnHeads = 64;

/// Mixtures of experts (model.mlp `experts`, the language's `experts:`):
/// at most this many experts, capacity factors in (0, kMaxCapacityFactor].
constexpr int64_t kMaxExperts = 1 << 16;
constexpr double kMaxCapacityFactor = 64;

/// Expert MLPs a token's compute passes through, capacity padding
/// included: min(capacity * topK, experts); 1 for a dense MLP (experts 0).
/// The one formula of model.mlp, TransformerConfig and the planners'
/// layer groups.
inline double routedPerToken(int64_t experts, int64_t topK, double capacity) {
  if (experts == 0)
    return 1;
  const double routed = capacity * static_cast<double>(topK);
  const double all = static_cast<double>(experts);
  return routed < all ? routed : all;
}

} // namespace sluice::model

#endif // SLUICE_DIALECTS_MODEL_IR_MODELSCHEMA_H
