//===- WalkOps.cpp - Operations of the walk dialect -----------------------===//
//
// Verifiers: the shape of every region of walk.walk (block arguments and
// what walk.yield returns), parameter and state declarations, and where each
// expression op may appear.
//
//===----------------------------------------------------------------------===//
#include "dialects/Walk/IR/WalkOps.h"
#include "dialects/Walk/IR/WalkLimits.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace sluice::walk;

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

std::pair<WalkOp, WalkRegion> sluice::walk::getEnclosingWalk(Operation *op) {
  Region *region = op->getParentRegion();
  while (region) {
    Operation *parent = region->getParentOp();
    if (!parent)
      break;
    if (auto walk = dyn_cast<WalkOp>(parent)) {
      WalkRegion kind = WalkRegion::None;
      if (region == &walk.getInit())
        kind = WalkRegion::Init;
      else if (region == &walk.getLength())
        kind = WalkRegion::Length;
      else if (region == &walk.getStart())
        kind = WalkRegion::Start;
      else if (region == &walk.getStopProbability())
        kind = WalkRegion::StopProbability;
      else if (region == &walk.getWeight())
        kind = WalkRegion::Weight;
      else if (region == &walk.getStop())
        kind = WalkRegion::Stop;
      else if (region == &walk.getUpdate())
        kind = WalkRegion::Update;
      else
        kind = WalkRegion::Bound;
      return {walk, kind};
    }
    region = parent->getParentRegion();
  }
  return {WalkOp(), WalkRegion::None};
}

llvm::StringRef sluice::walk::regionName(WalkRegion region) {
  switch (region) {
  case WalkRegion::None:
    return "outside a walk";
  case WalkRegion::Init:
    return "init";
  case WalkRegion::Length:
    return "length";
  case WalkRegion::Start:
    return "start";
  case WalkRegion::StopProbability:
    return "stop_probability";
  case WalkRegion::Weight:
    return "weight";
  case WalkRegion::Stop:
    return "stop";
  case WalkRegion::Update:
    return "update";
  case WalkRegion::Bound:
    return "a bound region";
  }
  llvm_unreachable("unknown walk region");
}

/// Checks that `op` sits in one of `allowed` regions of a walk.walk;
/// `what` says where it may be used.
static LogicalResult verifyPlacement(Operation *op,
                                     std::initializer_list<WalkRegion> allowed,
                                     llvm::StringRef what) {
  auto [walk, region] = getEnclosingWalk(op);
  if (!walk)
    return op->emitOpError("must be inside a walk.walk");
  if (allowed.size() == 0 || llvm::is_contained(allowed, region))
    return success();
  return op->emitOpError("is allowed only in ")
         << what << ", not in " << regionName(region);
}

static constexpr std::initializer_list<WalkRegion> kWalkFunctions = {
    WalkRegion::Weight, WalkRegion::Stop, WalkRegion::Update};
static constexpr llvm::StringLiteral kWalkFunctionsText =
    "walk functions (weight, stop, update)";

//===----------------------------------------------------------------------===//
// walk.graph
//===----------------------------------------------------------------------===//

LogicalResult GraphOp::verify() {
  if (getPath().empty())
    return emitOpError("needs a non-empty path");
  return success();
}

//===----------------------------------------------------------------------===//
// walk.walk
//===----------------------------------------------------------------------===//

int WalkOp::abiWeightClass() {
  auto c = getWeightClass();
  if (!c)
    return -1;
  switch (*c) {
  case WeightClass::Constant:
  case WeightClass::Parameter:
    return 0;
  case WeightClass::Static:
    return 1;
  case WeightClass::Dynamic:
    return 2;
  }
  llvm_unreachable("unknown weight class");
}

Value WalkOp::getWeightResult() {
  if (getWeight().empty())
    return {};
  auto yield = dyn_cast<YieldOp>(getWeight().front().getTerminator());
  if (!yield || yield.getValues().size() != 1)
    return {};
  return yield.getValues()[0];
}

int64_t WalkOp::lookupParam(llvm::StringRef name) {
  for (auto [i, n] : llvm::enumerate(getParamNames()))
    if (llvm::cast<StringAttr>(n).getValue() == name)
      return static_cast<int64_t>(i);
  return -1;
}

int64_t WalkOp::lookupState(llvm::StringRef name) {
  for (auto [i, n] : llvm::enumerate(getStateNames()))
    if (llvm::cast<StringAttr>(n).getValue() == name)
      return static_cast<int64_t>(i);
  return -1;
}

LogicalResult
WalkOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  auto graph =
      symbolTable.lookupNearestSymbolFrom<GraphOp>(*this, getGraphAttr());
  if (!graph)
    return emitOpError("graph '")
           << getGraph() << "' does not name a walk.graph";
  return success();
}

static bool isScalarType(Type t) {
  return t.isF64() || t.isSignlessInteger(64) || t.isSignlessInteger(1);
}

/// "i32, i64": types without the quotes diagnostics put around a Type.
static std::string typeList(TypeRange types) {
  std::string text;
  llvm::raw_string_ostream os(text);
  llvm::interleaveComma(types, os);
  return text;
}

/// Checks one region: `args` block arguments, and a walk.yield of
/// `results` (std::nullopt: checked by the caller). An empty region passes:
/// the one region a walk needs, `weight`, is a SizedRegion<1> (ODS).
static LogicalResult verifyRegion(WalkOp op, Region &region,
                                  llvm::StringRef name, TypeRange args,
                                  std::optional<TypeRange> results) {
  if (region.empty())
    return success();
  Block &block = region.front();
  if (block.getArgumentTypes() != args) {
    return op.emitOpError("region '")
           << name << "' must have block arguments (" << typeList(args)
           << ")";
  }
  auto yield = dyn_cast<YieldOp>(block.getTerminator());
  if (!yield)
    return op.emitOpError("region '") << name << "' must end in walk.yield";
  if (results && yield.getValues().getTypes() != *results) {
    return yield.emitOpError("in region '")
           << name << "' must yield (" << typeList(*results) << ")";
  }
  return success();
}

LogicalResult WalkOp::verifyRegions() {
  MLIRContext *ctx = getContext();
  Type i1 = IntegerType::get(ctx, 1), i32 = IntegerType::get(ctx, 32),
       i64 = IntegerType::get(ctx, 64), f64 = Float64Type::get(ctx);

  if (getOrder() != 1 && getOrder() != 2)
    return emitOpError("order must be 1 or 2, got ") << getOrder();

  // Parameters.
  size_t numParams = getParamNames().size();
  if (getParamTypes().size() != numParams ||
      getParamDefaults().size() != numParams)
    return emitOpError("needs as many param_types and param_defaults as "
                       "param_names (")
           << numParams << ")";
  for (size_t i = 0; i < numParams; ++i) {
    Type t = llvm::cast<TypeAttr>(getParamTypes()[i]).getValue();
    Attribute d = getParamDefaults()[i];
    auto name = llvm::cast<StringAttr>(getParamNames()[i]).getValue();
    if (!isScalarType(t) && !llvm::isa<ListType>(t))
      return emitOpError("parameter '")
             << name << "' has type " << t
             << "; expected f64, i64, i1 or !walk.list";
    bool ok = llvm::isa<UnitAttr>(d);
    if (auto fa = llvm::dyn_cast<FloatAttr>(d))
      ok = t.isF64() && fa.getType().isF64();
    else if (auto ia = llvm::dyn_cast<IntegerAttr>(d))
      ok = ia.getType() == t;
    else if (llvm::isa<DenseI64ArrayAttr>(d))
      ok = llvm::isa<ListType>(t);
    if (!ok)
      return emitOpError("default of parameter '")
             << name << "' does not fit its type " << t;
  }
  // State.
  size_t numState = getStateNames().size();
  if (getStateTypes().size() != numState)
    return emitOpError("needs as many state_types as state_names (")
           << numState << ")";
  SmallVector<Type> stateTypes;
  for (size_t i = 0; i < numState; ++i) {
    Type t = llvm::cast<TypeAttr>(getStateTypes()[i]).getValue();
    if (!isScalarType(t))
      return emitOpError("state variable '")
             << llvm::cast<StringAttr>(getStateNames()[i]).getValue()
             << "' has type " << t << "; expected f64, i64 or i1";
    stateTypes.push_back(t);
  }
  // Schedule and analysis attributes.
  if (auto t = getThreads(); t && (*t <= 0 || *t > kMaxWalkThreads))
    return emitOpError("threads must be in [1, ")
           << kMaxWalkThreads << "], got " << *t;
  if (auto t = getWalkersPerThread();
      t && (*t <= 0 || *t > kMaxWalkersPerThread))
    return emitOpError("walkers_per_thread must be in [1, ")
           << kMaxWalkersPerThread << "], got " << *t;
  if (auto schedule = getScheduleAttr()) {
    StepMethod m = schedule.getMethod();
    auto c = getWeightClass().value_or(WeightClass::Dynamic);
    bool uniform = c == WeightClass::Constant || c == WeightClass::Parameter;
    if (m == StepMethod::Uniform && !uniform)
      return emitOpError("is scheduled to draw uniformly, but its weight is ")
             << (getWeightClass() ? stringifyWeightClass(c) : "not classified");
    if (m == StepMethod::Alias && c == WeightClass::Dynamic)
      return emitOpError("is scheduled to draw from alias tables, but its "
                         "weight is ")
             << (getWeightClass() ? "dynamic" : "not classified");
    if ((m == StepMethod::Rejection || m == StepMethod::CostModel) &&
        (getUnbounded() || getUpperBound().empty()))
      return emitOpError("is scheduled to draw by ")
             << stringifyStepMethod(m)
             << ", but its weight has no upper bound (no upper_bound region"
             << (getUnbounded() ? ", unbounded)" : ")");
  }

  // Regions.
  if (numState > 0 && getInit().empty())
    return emitOpError("needs an 'init' region for its ")
           << numState << " state variable(s)";
  if (numState == 0 && !getInit().empty())
    return emitOpError("has an 'init' region but no state variables");
  if (failed(
          verifyRegion(*this, getInit(), "init", {}, TypeRange(stateTypes))) ||
      failed(verifyRegion(*this, getLength(), "length", {}, TypeRange{i64})) ||
      failed(verifyRegion(*this, getStart(), "start", {}, std::nullopt)) ||
      failed(verifyRegion(*this, getStopProbability(), "stop_probability", {},
                          TypeRange{f64})) ||
      failed(verifyRegion(*this, getWeight(), "weight",
                          {i32, i32, i32, i64, f64}, TypeRange{f64})) ||
      failed(
          verifyRegion(*this, getStop(), "stop", {i32, i64}, TypeRange{i1})) ||
      failed(verifyRegion(*this, getUpdate(), "update", {i32, i32, i32},
                          TypeRange{})))
    return failure();
  for (auto [region, name] :
       {std::pair<Region *, llvm::StringRef>{&getUpperBound(), "upper_bound"},
        {&getLowerBound(), "lower_bound"},
        {&getSumUpperBound(), "sum_upper_bound"},
        {&getSumLowerBound(), "sum_lower_bound"}})
    if (failed(verifyRegion(*this, *region, name, {i32}, TypeRange{f64})))
      return failure();
  if (!getStart().empty()) {
    auto yield = cast<YieldOp>(getStart().front().getTerminator());
    TypeRange types = yield.getValues().getTypes();
    bool list = types.size() == 1 && llvm::isa<ListType>(types[0]);
    bool ids = !types.empty() &&
               llvm::all_of(types, [&](Type t) { return t == i64; });
    if (!list && !ids)
      return yield.emitOpError(
          "in region 'start' must yield i64 vertex ids or one !walk.list");
  }
  if (getOrder() == 1 && !getWeightPrev().use_empty())
    return emitOpError("is first-order (order 1) but its weight uses prev");
  return success();
}

//===----------------------------------------------------------------------===//
// walk.job
//===----------------------------------------------------------------------===//

LogicalResult JobOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  auto walk = symbolTable.lookupNearestSymbolFrom<WalkOp>(*this, getWalkAttr());
  if (!walk)
    return emitOpError("walk '") << getWalk() << "' does not name a walk.walk";
  for (NamedAttribute p : getParams()) {
    int64_t i = walk.lookupParam(p.getName());
    if (i < 0)
      return emitOpError("sets '")
             << p.getName().getValue() << "', which is not a parameter of '"
             << getWalk() << "'";
  }
  if (auto n = getWalksPerVertex(); n && (*n <= 0 || *n > kMaxWalksPerVertex))
    return emitOpError("walks_per_vertex must be in [1, ")
           << kMaxWalksPerVertex << "], got " << *n;
  if (auto t = getThreads(); t && (*t <= 0 || *t > kMaxWalkThreads))
    return emitOpError("threads must be in [1, ")
           << kMaxWalkThreads << "], got " << *t;
  return success();
}

//===----------------------------------------------------------------------===//
// Parameters and state
//===----------------------------------------------------------------------===//

/// Checks `name`[`index`] of type `type` against the declarations in
/// `names`/`types` ("parameter" or "state variable").
static LogicalResult verifySlot(Operation *op, llvm::StringRef what,
                                ArrayAttr names, ArrayAttr types,
                                llvm::StringRef name, int64_t index,
                                Type type) {
  if (index < 0 || index >= static_cast<int64_t>(names.size()))
    return op->emitOpError(what)
           << " index " << index << " is out of range (the walk has "
           << names.size() << ")";
  auto declared = llvm::cast<StringAttr>(names[index]).getValue();
  if (declared != name)
    return op->emitOpError(what) << " " << index << " is '" << declared
                                 << "', not '" << name << "'";
  Type t = llvm::cast<TypeAttr>(types[index]).getValue();
  if (t != type)
    return op->emitOpError(what)
           << " '" << name << "' has type " << t << ", not " << type;
  return success();
}

LogicalResult ParamOp::verify() {
  auto [walk, region] = getEnclosingWalk(*this);
  if (!walk)
    return emitOpError("must be inside a walk.walk");
  return verifySlot(*this, "parameter", walk.getParamNames(),
                    walk.getParamTypes(), getName(), getIndex(),
                    getResult().getType());
}

LogicalResult StateGetOp::verify() {
  if (failed(verifyPlacement(*this, kWalkFunctions, kWalkFunctionsText)))
    return failure();
  WalkOp walk = getEnclosingWalk(*this).first;
  return verifySlot(*this, "state variable", walk.getStateNames(),
                    walk.getStateTypes(), getName(), getIndex(),
                    getResult().getType());
}

void StateGetOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  effects.emplace_back(MemoryEffects::Read::get());
}

LogicalResult StateSetOp::verify() {
  if (failed(verifyPlacement(*this, {WalkRegion::Update}, "update")))
    return failure();
  WalkOp walk = getEnclosingWalk(*this).first;
  return verifySlot(*this, "state variable", walk.getStateNames(),
                    walk.getStateTypes(), getName(), getIndex(),
                    getValue().getType());
}

void StateSetOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  effects.emplace_back(MemoryEffects::Write::get());
}

//===----------------------------------------------------------------------===//
// The walker and the graph
//===----------------------------------------------------------------------===//

LogicalResult StepOp::verify() {
  return verifyPlacement(*this, kWalkFunctions, kWalkFunctionsText);
}

LogicalResult RandomOp::verify() {
  return verifyPlacement(*this, kWalkFunctions, kWalkFunctionsText);
}

void RandomOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  // Each call advances the walker's random stream.
  effects.emplace_back(MemoryEffects::Read::get());
  effects.emplace_back(MemoryEffects::Write::get());
}

LogicalResult DegreeOp::verify() {
  return verifyPlacement(
      *this,
      {WalkRegion::Weight, WalkRegion::Stop, WalkRegion::Update,
       WalkRegion::Bound},
      "walk functions (weight, stop, update) and bound regions");
}

LogicalResult HasEdgeOp::verify() {
  return verifyPlacement(*this, kWalkFunctions, kWalkFunctionsText);
}
LogicalResult EdgeWeightOp::verify() {
  return verifyPlacement(*this, kWalkFunctions, kWalkFunctionsText);
}
LogicalResult LabelOp::verify() {
  return verifyPlacement(*this, kWalkFunctions, kWalkFunctionsText);
}
LogicalResult EdgeLabelOp::verify() {
  return verifyPlacement(*this, kWalkFunctions, kWalkFunctionsText);
}
LogicalResult NumVerticesOp::verify() { return verifyPlacement(*this, {}, ""); }
LogicalResult NumEdgesOp::verify() { return verifyPlacement(*this, {}, ""); }
LogicalResult VertexOfOp::verify() { return verifyPlacement(*this, {}, ""); }
LogicalResult ListGetOp::verify() { return verifyPlacement(*this, {}, ""); }
LogicalResult ListSizeOp::verify() { return verifyPlacement(*this, {}, ""); }

static constexpr llvm::StringLiteral kBoundText =
    "bound regions (upper_bound, lower_bound, sum_upper_bound, "
    "sum_lower_bound)";
LogicalResult WeightMaxOp::verify() {
  return verifyPlacement(*this, {WalkRegion::Bound}, kBoundText);
}
LogicalResult WeightMinOp::verify() {
  return verifyPlacement(*this, {WalkRegion::Bound}, kBoundText);
}
LogicalResult WeightSumOp::verify() {
  return verifyPlacement(*this, {WalkRegion::Bound}, kBoundText);
}
LogicalResult LabelMassOp::verify() {
  if (getReduce() != "min" && getReduce() != "max")
    return emitOpError("reduces with 'min' or 'max', not '")
           << getReduce() << "'";
  return verifyPlacement(*this, {WalkRegion::Bound}, kBoundText);
}

#define GET_OP_CLASSES
#include "dialects/Walk/IR/WalkOps.cpp.inc"
