//===- GraphOps.cpp - Operations of the graph dialect ---------------------===//
//
// Verifiers: the parameters, outputs, labels and requested schedules of
// graph.algorithm; the regions and schedule of the loops over vertices and
// edges; the property accesses against the properties they name; where the
// frontier and graph ops may appear; graph.job against its algorithm.
//
//===----------------------------------------------------------------------===//
#include "dialects/Graph/IR/GraphOps.h"

#include "dialects/Walk/IR/WalkOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"

using namespace mlir;
using namespace sluice::graph;

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

/// Checks that `op` is in the body of a graph.algorithm.
static LogicalResult verifyInAlgorithm(Operation *op) {
  if (!op->getParentOfType<AlgorithmOp>())
    return op->emitOpError("must be inside a graph.algorithm");
  return success();
}

/// "i32, i64": types without the quotes diagnostics put around a Type.
static std::string typeList(TypeRange types) {
  std::string text;
  llvm::raw_string_ostream os(text);
  llvm::interleaveComma(types, os);
  return text;
}

/// `add`, `min`, ...: the kind of graph.prop.reduce, a bare word.
static ParseResult parseReductionKind(OpAsmParser &parser,
                                      ReductionKindAttr &kind) {
  llvm::SMLoc at = parser.getCurrentLocation();
  llvm::StringRef word;
  if (parser.parseKeyword(&word))
    return failure();
  std::optional<ReductionKind> value = symbolizeReductionKind(word);
  if (!value)
    return parser.emitError(at, "expected a reduction (")
           << llvm::join(reductionKindNames(), ", ") << "), got '" << word
           << "'";
  kind = ReductionKindAttr::get(parser.getContext(), *value);
  return success();
}

static void printReductionKind(OpAsmPrinter &printer, Operation *,
                               ReductionKindAttr kind) {
  printer << stringifyReductionKind(kind.getValue());
}

static bool isParamType(Type t) {
  return t.isF64() || t.isSignlessInteger(64) || t.isSignlessInteger(1);
}

//===----------------------------------------------------------------------===//
// graph.algorithm
//===----------------------------------------------------------------------===//

int64_t AlgorithmOp::lookupParam(llvm::StringRef name) {
  for (auto [i, n] : llvm::enumerate(getParamNames()))
    if (llvm::cast<StringAttr>(n).getValue() == name)
      return static_cast<int64_t>(i);
  return -1;
}

PropertyOp AlgorithmOp::lookupProperty(llvm::StringRef name) {
  return llvm::dyn_cast_or_null<PropertyOp>(
      mlir::SymbolTable::lookupSymbolIn(getOperation(), name));
}

void AlgorithmOp::getAsmBlockArgumentNames(Region &region,
                                           OpAsmSetValueNameFn setNameFn) {
  for (auto [arg, name] : llvm::zip(region.getArguments(),
                                    getParamNames().getAsRange<StringAttr>()))
    setNameFn(arg, name.getValue());
}

ScheduleAttr AlgorithmOp::getLabelSchedule(llvm::StringRef label) {
  if (DictionaryAttr schedules = getLabelSchedulesAttr())
    return llvm::dyn_cast_or_null<ScheduleAttr>(schedules.get(label));
  return {};
}

LogicalResult
AlgorithmOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  // The algorithm is a symbol table itself (of its properties): the graph
  // is found from its parent.
  Operation *parent = (*this)->getParentOp();
  if (!parent || !symbolTable.lookupNearestSymbolFrom<sluice::walk::GraphOp>(
                     parent, getGraphAttr()))
    return emitOpError("graph '")
           << getGraph() << "' does not name a walk.graph";
  return success();
}

/// The loops of `algo` by label, in order; reports a label used twice.
static LogicalResult collectLabels(AlgorithmOp algo,
                                   llvm::StringMap<Operation *> &labels) {
  WalkResult result = algo.walk<WalkOrder::PreOrder>([&](Operation *op) {
    StringAttr label;
    if (auto v = dyn_cast<VerticesOp>(op))
      label = v.getLabelAttr();
    else if (auto e = dyn_cast<EdgesOp>(op))
      label = e.getLabelAttr();
    if (!label)
      return WalkResult::advance();
    auto [prev, inserted] = labels.try_emplace(label.getValue(), op);
    if (inserted)
      return WalkResult::advance();
    InFlightDiagnostic diag = op->emitOpError("label '")
                              << label.getValue()
                              << "' is used by another loop of algorithm '"
                              << algo.getSymName() << "'";
    diag.attachNote(prev->second->getLoc()) << "the other loop is here";
    return WalkResult::interrupt();
  });
  return failure(result.wasInterrupted());
}

LogicalResult AlgorithmOp::verifyRegions() {
  Block &body = getBody().front();
  // Parameters.
  size_t numParams = getParamNames().size();
  if (getParamDefaults().size() != numParams)
    return emitOpError("needs as many param_defaults as param_names (")
           << numParams << ")";
  if (body.getNumArguments() != numParams)
    return emitOpError("needs one block argument per parameter: ")
           << numParams << " param_names, " << body.getNumArguments()
           << " block arguments";
  for (size_t i = 0; i < numParams; ++i) {
    Type t = body.getArgument(i).getType();
    auto name = llvm::cast<StringAttr>(getParamNames()[i]).getValue();
    if (!isParamType(t))
      return emitOpError("parameter '")
             << name << "' has type " << t << "; expected f64, i64 or i1";
    Attribute d = getParamDefaults()[i];
    bool ok = llvm::isa<UnitAttr>(d);
    if (auto fa = llvm::dyn_cast<FloatAttr>(d))
      ok = t.isF64() && fa.getType().isF64();
    else if (auto ia = llvm::dyn_cast<IntegerAttr>(d))
      ok = ia.getType() == t;
    if (!ok)
      return emitOpError("default of parameter '")
             << name << "' does not fit its type " << t;
  }
  // Outputs.
  llvm::StringMap<bool> outputs;
  for (Attribute a : getOutputs()) {
    llvm::StringRef name = llvm::cast<FlatSymbolRefAttr>(a).getValue();
    if (!lookupProperty(name))
      return emitOpError("output '")
             << name << "' does not name a graph.property of the algorithm";
    if (!outputs.try_emplace(name, true).second)
      return emitOpError("lists output '") << name << "' twice";
  }
  if (auto t = getThreads(); t && *t <= 0)
    return emitOpError("threads must be positive, got ") << *t;
  // Labels and the schedules of labelled loops.
  llvm::StringMap<Operation *> labels;
  if (failed(collectLabels(*this, labels)))
    return failure();
  if (DictionaryAttr schedules = getLabelSchedulesAttr()) {
    for (NamedAttribute entry : schedules) {
      llvm::StringRef label = entry.getName().getValue();
      auto schedule = llvm::dyn_cast<ScheduleAttr>(entry.getValue());
      if (!schedule)
        return emitOpError("label_schedules maps '")
               << label << "' to " << entry.getValue()
               << ", not a #graph.schedule";
      Operation *loop = labels.lookup(label);
      if (!loop)
        return emitOpError("schedules label '")
               << label << "', which no loop of algorithm '" << getSymName()
               << "' has";
      llvm::SmallVector<llvm::StringRef> keys = schedule.edgesOnlyKeys();
      if (isa<VerticesOp>(loop) && !keys.empty())
        return emitOpError("schedule of label '")
               << label << "' sets " << keys.front()
               << ", which applies to edges loops; '" << label
               << "' labels a vertices loop";
    }
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Loops over vertices and edges
//===----------------------------------------------------------------------===//

/// Checks the placement, regions, label and schedule of a loop over
/// vertices or (`isEdges`) edges.
static LogicalResult verifyLoop(Operation *op, Region &where, Region &body,
                                StringAttr label, ScheduleAttr schedule,
                                bool isEdges, TypeRange reduced = {}) {
  if (failed(verifyInAlgorithm(op)))
    return failure();
  if (op->getParentOfType<VerticesOp>() || op->getParentOfType<EdgesOp>())
    return op->emitOpError(
        "cannot be nested in another loop over vertices or edges");
  MLIRContext *ctx = op->getContext();
  Type i32 = IntegerType::get(ctx, 32), f64 = Float64Type::get(ctx);
  TypeRange args = body.getArgumentTypes();
  bool argsOk = isEdges ? (args == TypeRange{i32, i32} ||
                           args == TypeRange{i32, i32, f64})
                        : args == TypeRange{i32};
  if (!argsOk)
    return op->emitOpError("body must have block arguments ")
           << (isEdges ? "(i32, i32) or (i32, i32, f64)" : "(i32)") << ", got ("
           << typeList(args) << ")";
  auto bodyYield = dyn_cast<YieldOp>(body.front().getTerminator());
  if (!bodyYield)
    return op->emitOpError("body must end in graph.yield");
  if (reduced.empty() && !bodyYield.getValues().empty())
    return bodyYield.emitOpError("in a loop body must yield no values");
  if (bodyYield.getValues().getTypes() != reduced)
    return bodyYield.emitOpError("in the body must yield the types of the "
                                 "loop's reductions (")
           << typeList(reduced) << "), got ("
           << typeList(bodyYield.getValues().getTypes()) << ")";
  if (!where.empty()) {
    if (where.getArgumentTypes() != args)
      return op->emitOpError("where region must have the block arguments of "
                             "the body (")
             << typeList(args) << ")";
    auto yield = dyn_cast<YieldOp>(where.front().getTerminator());
    if (!yield)
      return op->emitOpError("where region must end in graph.yield");
    TypeRange yielded = yield.getValues().getTypes();
    if (yielded.size() != 1 || !yielded[0].isSignlessInteger(1))
      return yield.emitOpError("in a where region must yield one i1 "
                               "(whether the iteration runs), got (")
             << typeList(yielded) << ")";
  }
  if (label && label.getValue().empty())
    return op->emitOpError("label must not be empty");
  if (!schedule)
    return success();
  llvm::SmallVector<llvm::StringRef> edgesOnly = schedule.edgesOnlyKeys();
  if (!isEdges && !edgesOnly.empty())
    return op->emitOpError("schedule sets ")
           << edgesOnly.front()
           << ", which applies to edges loops, not to a vertices loop";
  if (!schedule.getParallel())
    return op->emitOpError("schedule must give parallel (graph-attach-"
                           "schedule writes it on every loop)");
  if (isEdges)
    for (llvm::StringRef key : sluice::graph::edgesOnlyScheduleKeys())
      if (!llvm::is_contained(edgesOnly, key))
        return op->emitOpError("schedule of an edges loop must give "
                               "direction, frontier and format; missing ")
               << key;
  return success();
}

void VerticesOp::getAsmBlockArgumentNames(Region &region,
                                          OpAsmSetValueNameFn setNameFn) {
  for (BlockArgument arg : region.getArguments())
    setNameFn(arg, "v");
}

void EdgesOp::getAsmBlockArgumentNames(Region &region,
                                       OpAsmSetValueNameFn setNameFn) {
  static const char *const names[] = {"src", "dst", "w"};
  for (auto [arg, name] : llvm::zip(region.getArguments(), names))
    setNameFn(arg, name);
}

LogicalResult VerticesOp::verifyRegions() {
  if (getResults().getTypes() != getInits().getTypes())
    return emitOpError("results must have the types of the reductions' "
                       "initial values (")
           << typeList(getInits().getTypes()) << "), got ("
           << typeList(getResults().getTypes()) << ")";
  if (getReductions().size() != getInits().size())
    return emitOpError("needs one reduction kind per initial value: ")
           << getInits().size() << " initial values, "
           << getReductions().size() << " kinds";
  for (Attribute a : getReductions()) {
    ReductionKind kind = cast<ReductionKindAttr>(a).getValue();
    if (kind != ReductionKind::Add && kind != ReductionKind::Min &&
        kind != ReductionKind::Max)
      return emitOpError("reduces into a local with ")
             << stringifyReductionKind(kind)
             << "; a loop's reductions are add, min and max";
  }
  return verifyLoop(*this, getWhere(), getBody(), getLabelAttr(),
                    getScheduleAttr(), /*isEdges=*/false,
                    getInits().getTypes());
}

LogicalResult EdgesOp::verifyRegions() {
  return verifyLoop(*this, getWhere(), getBody(), getLabelAttr(),
                    getScheduleAttr(), /*isEdges=*/true);
}

//===----------------------------------------------------------------------===//
// Vertex properties
//===----------------------------------------------------------------------===//

/// The property `name` refers to from `op`; reports when there is none.
static PropertyOp lookupPropertyFor(Operation *op, FlatSymbolRefAttr name,
                                    SymbolTableCollection &symbolTable) {
  auto algo = op->getParentOfType<AlgorithmOp>();
  if (!algo) {
    op->emitOpError("must be inside a graph.algorithm");
    return {};
  }
  auto prop = llvm::dyn_cast_or_null<PropertyOp>(
      symbolTable.lookupSymbolIn(algo, name));
  if (!prop)
    op->emitOpError("'") << name.getValue()
                         << "' does not name a vertex property of algorithm '"
                         << algo.getSymName() << "'";
  return prop;
}

/// Checks that `type` (what `op` reads or writes) is the type of `prop`;
/// `what` is "reads ... from", "writes ... to" or "reduces ... into".
static LogicalResult verifyPropertyType(Operation *op, PropertyOp prop,
                                        Type type, llvm::StringRef verb,
                                        llvm::StringRef preposition) {
  if (prop.getElementType() == type)
    return success();
  return op->emitOpError(verb)
         << " " << type << " " << preposition << " property '"
         << prop.getSymName() << "' of type " << prop.getElementType();
}

LogicalResult PropGetOp::verifySymbolUses(SymbolTableCollection &symbols) {
  PropertyOp prop = lookupPropertyFor(*this, getPropertyAttr(), symbols);
  if (!prop)
    return failure();
  return verifyPropertyType(*this, prop, getResult().getType(), "reads",
                            "from");
}

LogicalResult PropSetOp::verifySymbolUses(SymbolTableCollection &symbols) {
  PropertyOp prop = lookupPropertyFor(*this, getPropertyAttr(), symbols);
  if (!prop)
    return failure();
  return verifyPropertyType(*this, prop, getValue().getType(), "writes", "to");
}

LogicalResult PropReduceOp::verify() {
  Type t = getValue().getType();
  if (t.isF64() || t.isF32() || t.isSignlessInteger(64))
    return success();
  // Vertices (i32) have an order (the graph's) but no arithmetic.
  bool ordered =
      getKind() == ReductionKind::Min || getKind() == ReductionKind::Max;
  if (t.isSignlessInteger(32) && ordered)
    return success();
  return emitOpError("'") << stringifyReductionKind(getKind())
                          << "' reduces i64, f64 or f32 values"
                          << (ordered ? " or vertices (i32)" : "") << ", not "
                          << t;
}

LogicalResult PropReduceOp::verifySymbolUses(SymbolTableCollection &symbols) {
  PropertyOp prop = lookupPropertyFor(*this, getPropertyAttr(), symbols);
  if (!prop)
    return failure();
  return verifyPropertyType(*this, prop, getValue().getType(), "reduces",
                            "into");
}

LogicalResult CompareSwapOp::verify() {
  Type expected = getExpected().getType(), desired = getDesired().getType();
  if (expected != desired)
    return emitOpError("expected value (")
           << expected << ") and desired value (" << desired
           << ") differ in type";
  return success();
}

LogicalResult CompareSwapOp::verifySymbolUses(SymbolTableCollection &symbols) {
  PropertyOp prop = lookupPropertyFor(*this, getPropertyAttr(), symbols);
  if (!prop)
    return failure();
  return verifyPropertyType(*this, prop, getExpected().getType(), "swaps",
                            "in");
}

void PropGetOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  effects.emplace_back(MemoryEffects::Read::get());
}

void PropSetOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  effects.emplace_back(MemoryEffects::Write::get());
}

void PropReduceOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  effects.emplace_back(MemoryEffects::Read::get());
  effects.emplace_back(MemoryEffects::Write::get());
}

void CompareSwapOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  effects.emplace_back(MemoryEffects::Read::get());
  effects.emplace_back(MemoryEffects::Write::get());
}

StringRef sluice::graph::updatedProperty(Operation *op) {
  if (auto set = dyn_cast<PropSetOp>(op))
    return set.getProperty();
  if (auto reduce = dyn_cast<PropReduceOp>(op))
    return reduce.getProperty();
  if (auto swap = dyn_cast<CompareSwapOp>(op))
    return swap.getProperty();
  return {};
}

StringRef sluice::graph::accessedProperty(Operation *op) {
  if (auto get = dyn_cast<PropGetOp>(op))
    return get.getProperty();
  return updatedProperty(op);
}

Value sluice::graph::accessedVertex(Operation *op) {
  if (auto get = dyn_cast<PropGetOp>(op))
    return get.getVertex();
  if (auto set = dyn_cast<PropSetOp>(op))
    return set.getVertex();
  if (auto reduce = dyn_cast<PropReduceOp>(op))
    return reduce.getVertex();
  if (auto swap = dyn_cast<CompareSwapOp>(op))
    return swap.getVertex();
  return Value();
}

//===----------------------------------------------------------------------===//
// Frontiers and the graph
//===----------------------------------------------------------------------===//

LogicalResult FrontierAllOp::verify() { return verifyInAlgorithm(*this); }
LogicalResult FrontierOfOp::verify() { return verifyInAlgorithm(*this); }
LogicalResult FrontierSizeOp::verify() { return verifyInAlgorithm(*this); }
LogicalResult FrontierAnyOp::verify() { return verifyInAlgorithm(*this); }
LogicalResult NumVerticesOp::verify() { return verifyInAlgorithm(*this); }
LogicalResult NumEdgesOp::verify() { return verifyInAlgorithm(*this); }
LogicalResult DegreeOp::verify() { return verifyInAlgorithm(*this); }
LogicalResult HasEdgeOp::verify() { return verifyInAlgorithm(*this); }
LogicalResult EdgeWeightOp::verify() { return verifyInAlgorithm(*this); }
LogicalResult LabelOp::verify() { return verifyInAlgorithm(*this); }
LogicalResult EdgeLabelOp::verify() { return verifyInAlgorithm(*this); }
LogicalResult VertexOfOp::verify() { return verifyInAlgorithm(*this); }
LogicalResult OriginalIdOp::verify() { return verifyInAlgorithm(*this); }
LogicalResult CommonNeighborsOp::verify() { return verifyInAlgorithm(*this); }
LogicalResult RandomOp::verify() { return verifyInAlgorithm(*this); }
LogicalResult IntDivOp::verify() { return verifyInAlgorithm(*this); }
LogicalResult IntRemOp::verify() { return verifyInAlgorithm(*this); }

void RandomOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  // Each call advances the random stream.
  effects.emplace_back(MemoryEffects::Read::get());
  effects.emplace_back(MemoryEffects::Write::get());
}

//===----------------------------------------------------------------------===//
// graph.job
//===----------------------------------------------------------------------===//

LogicalResult JobOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  auto algo = symbolTable.lookupNearestSymbolFrom<AlgorithmOp>(
      *this, getAlgorithmAttr());
  if (!algo)
    return emitOpError("algorithm '")
           << getAlgorithm() << "' does not name a graph.algorithm";
  Block &body = algo.getBody().front();
  for (NamedAttribute p : getParams()) {
    int64_t i = algo.lookupParam(p.getName());
    if (i < 0 || i >= static_cast<int64_t>(body.getNumArguments()))
      return emitOpError("sets '")
             << p.getName().getValue() << "', which is not a parameter of '"
             << getAlgorithm() << "'";
    Type t = body.getArgument(i).getType();
    auto typed = llvm::dyn_cast<TypedAttr>(p.getValue());
    if (!typed || typed.getType() != t)
      return emitOpError("sets parameter '")
             << p.getName().getValue() << "' of type " << t << " to "
             << p.getValue();
  }
  if (auto t = getThreads(); t && *t <= 0)
    return emitOpError("threads must be positive, got ") << *t;
  return success();
}

#define GET_OP_CLASSES
#include "dialects/Graph/IR/GraphOps.cpp.inc"
