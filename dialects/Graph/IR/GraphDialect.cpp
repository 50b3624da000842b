//===- GraphDialect.cpp - The graph dialect -------------------------------===//
//
// Registers the graph type, attributes and operations; parses the tile of a
// schedule and verifies #graph.schedule and #graph.algorithm_schedule. Op
// verifiers live in GraphOps.cpp.
//
//===----------------------------------------------------------------------===//
#include "dialects/Graph/IR/GraphDialect.h"

#include "dialects/Graph/IR/GraphOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace sluice::graph;

#include "dialects/Graph/IR/GraphDialect.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "dialects/Graph/IR/GraphTypes.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "dialects/Graph/IR/GraphAttrs.cpp.inc"

InFlightDiagnostic
sluice::graph::unknownWord(AsmParser &parser, llvm::SMLoc loc,
                           llvm::ArrayRef<llvm::StringRef> names,
                           llvm::StringRef word) {
  return parser.emitError(loc, "expected one of: ")
         << llvm::join(names, ", ") << "; got '" << word << "'";
}

FailureOr<Tile> mlir::FieldParser<Tile>::parse(AsmParser &parser) {
  if (succeeded(parser.parseOptionalKeyword("auto")))
    return Tile::automatic();
  int64_t size = 0;
  OptionalParseResult number = parser.parseOptionalInteger(size);
  if (!number.has_value())
    return parser.emitError(parser.getCurrentLocation(),
                            "expected 'auto' or a tile size");
  if (failed(*number))
    return failure();
  return Tile::of(size);
}

//===----------------------------------------------------------------------===//
// #graph.schedule
//===----------------------------------------------------------------------===//

LogicalResult ScheduleAttr::verify(
    function_ref<InFlightDiagnostic()> emitError,
    std::optional<Direction> direction, std::optional<Parallel> parallel,
    std::optional<int64_t> chunk, Tile tile,
    std::optional<FrontierKind> frontier, FloatAttr delta,
    std::optional<EdgeFormat> format, std::optional<VertexOrder> order,
    FloatAttr alpha, FloatAttr beta, std::optional<Fusion> fusion) {
  bool dynamic = parallel == Parallel::Dynamic;
  if (dynamic && !chunk)
    return emitError() << "parallel = dynamic needs a chunk (the vertices "
                          "handed out at a time)";
  if (chunk && !dynamic)
    return emitError() << "chunk " << *chunk
                       << " needs parallel = dynamic, got "
                       << (parallel ? stringifyParallel(*parallel)
                                    : llvm::StringRef("no parallel"));
  if (chunk && *chunk <= 0)
    return emitError() << "chunk must be positive, got " << *chunk;
  if (tile.kind == Tile::Kind::Size && tile.size <= 0)
    return emitError() << "tile must be positive or auto, got " << tile.size;
  bool buckets = frontier == FrontierKind::Buckets;
  if (buckets && !delta)
    return emitError() << "frontier = buckets needs a delta (the width of a "
                          "bucket)";
  if (delta && !buckets)
    return emitError() << "delta needs frontier = buckets, got "
                       << (frontier ? stringifyFrontierKind(*frontier)
                                    : llvm::StringRef("no frontier"));
  if (delta && !(delta.getValueAsDouble() > 0))
    return emitError() << "delta must be positive, got "
                       << delta.getValueAsDouble();
  if (bool(alpha) != bool(beta))
    return emitError() << "alpha and beta go together (Beamer's rule of "
                          "direction = hybrid), got only "
                       << (alpha ? "alpha" : "beta");
  bool hybrid = direction == Direction::Hybrid;
  if (alpha && !hybrid)
    return emitError() << "alpha and beta need direction = hybrid, got "
                       << (direction ? stringifyDirection(*direction)
                                     : llvm::StringRef("no direction"));
  for (auto [name, value] : {std::pair{"alpha", alpha}, {"beta", beta}})
    if (value && !(value.getValueAsDouble() > 0))
      return emitError() << name << " must be positive, got "
                         << value.getValueAsDouble();
  return success();
}

double ScheduleAttr::hybridAlpha() {
  return getAlpha() ? getAlpha().getValueAsDouble() : kDefaultHybridAlpha;
}

double ScheduleAttr::hybridBeta() {
  return getBeta() ? getBeta().getValueAsDouble() : kDefaultHybridBeta;
}

llvm::SmallVector<llvm::StringRef> ScheduleAttr::edgesOnlyKeys() {
  llvm::SmallVector<llvm::StringRef> keys;
  if (getDirection() || getAlpha())
    keys.push_back(kDirectionKey);
  if (getFrontier())
    keys.push_back(kFrontierKey);
  if (getFormat())
    keys.push_back(kFormatKey);
  if (getOrder())
    keys.push_back(kOrderKey);
  if (getFusion())
    keys.push_back(kFusionKey);
  return keys;
}

//===----------------------------------------------------------------------===//
// #graph.algorithm_schedule
//===----------------------------------------------------------------------===//

LogicalResult
AlgorithmScheduleAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                              Target target, int64_t threads) {
  if (threads < 0)
    return emitError() << "threads must be positive, or 0 for the runtime's "
                          "default, got "
                       << threads;
  return success();
}

//===----------------------------------------------------------------------===//
// Registration
//===----------------------------------------------------------------------===//

void GraphDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "dialects/Graph/IR/GraphAttrs.cpp.inc"
      >();
}

void GraphDialect::registerTypes() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "dialects/Graph/IR/GraphTypes.cpp.inc"
      >();
}

void GraphDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "dialects/Graph/IR/GraphOps.cpp.inc"
      >();
  registerTypes();
  registerAttributes();
}
