//===- WalkAbi.cpp - Outlining walk.walk into ABI functions ---------------===//
//
// Each region becomes a func.func with the C signature of walk.h; region
// arguments become frame loads or function arguments, walk ops become LLVM
// loads/stores and calls into libsluicert. arith/math/scf ops are cloned
// as they are (the upstream conversions lower them afterwards).
//
//===----------------------------------------------------------------------===//
#include "compiler/Conversion/WalkToLLVM/WalkAbi.h"
#include "compiler/Conversion/WalkOpLowering.h"
#include "compiler/Conversion/WalkRegionClone.h"
#include "dialects/Walk/IR/WalkLimits.h"

#include "sluice/walk.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"

#include <cstddef>

using namespace mlir;
using namespace sluice;
using namespace sluice::conversion;

// The struct types below mirror walk.h field by field.
static_assert(offsetof(sluice_walk_frame_t, prev) == 32 &&
                  offsetof(sluice_walk_frame_t, step) == 40 &&
                  offsetof(sluice_walk_frame_t, fault) == 64 &&
                  sizeof(sluice_walk_frame_t) == 72,
              "walk.h's frame changed: update frameType()");
static_assert(offsetof(sluice_walk_kernel_t, weight) == 32 &&
                  sizeof(sluice_walk_kernel_t) == 96,
              "walk.h's kernel changed: update kernelType()");

// The option ranges the compiler checks are the ones the runtime checks.
static_assert(walk::kMaxWalkThreads == SLUICE_WALK_MAX_THREADS &&
                  walk::kMaxWalkersPerThread ==
                      SLUICE_WALK_MAX_WALKERS_PER_THREAD &&
                  walk::kMaxWalksPerVertex ==
                      int64_t(UINT32_MAX) && // options.walks_per_vertex
                  walk::kMaxWalkLength ==
                      int64_t(UINT32_MAX), // options.max_length
              "walk option limits differ between WalkLimits.h and walk.h");

namespace {

/// Frame fields (sluice_walk_frame_t).
enum FrameField : int32_t {
  kGraph = 0,
  kParams = 1,
  kState = 2,
  kWalker = 3,
  kPrev = 4,
  kCur = 5,
  kStep = 6,
  kSeed = 7,
  kRandomDraws = 8,
  kFault = 9
};

/// What a region becomes.
enum class Fn {
  Weight,
  Stop,
  Update,
  Init,
  UpperBound,
  LowerBound,
  SumUpperBound,
  SumLowerBound,
  Length,
  StopProbability,
  Start
};

struct Types {
  explicit Types(MLIRContext *ctx)
      : ptr(LLVM::LLVMPointerType::get(ctx)), i1(IntegerType::get(ctx, 1)),
        i32(IntegerType::get(ctx, 32)), i64(IntegerType::get(ctx, 64)),
        f32(Float32Type::get(ctx)), f64(Float64Type::get(ctx)) {
    frame = LLVM::LLVMStructType::getLiteral(
        ctx, {ptr, ptr, ptr, i64, i32, i32, i64, i64, ptr, ptr});
    list = LLVM::LLVMStructType::getLiteral(ctx, {ptr, i64});
  }
  Type ptr, i1, i32, i64, f32, f64;
  LLVM::LLVMStructType frame, list;
};

/// The CPU reads walk.h's frame struct and calls libsluicert (graph.h,
/// walk.h's kernel helpers), declaring each function on first use.
class CpuWalkModel final : public WalkTargetModel {
public:
  CpuWalkModel(ModuleOp module) : module(module), types(module.getContext()) {}

  Value step(OpBuilder &b, Location loc, Value frame) const override {
    return frameField(b, loc, frame, kStep, types.i64);
  }
  Value slots(OpBuilder &b, Location loc, Value frame,
              SlotBlock block) const override {
    return frameField(b, loc, frame,
                      block == SlotBlock::Params ? kParams : kState, types.ptr);
  }
  Value query(OpBuilder &b, Location loc, Value frame, WalkQuery q,
              ValueRange operands) const override;
  Value labelMass(OpBuilder &b, Location loc, Value frame,
                  walk::LabelMassOp op, ValueRange operands) const override {
    auto i32c = [&](int32_t v) -> Value {
      return b.create<LLVM::ConstantOp>(loc, types.i32, b.getI32IntegerAttr(v));
    };
    return call(b, loc, "sluice_kernel_label_mass", types.f64,
                {graph(b, loc, frame), operands[0], operands[1],
                 i32c(op.getEdge() ? 1 : 0),
                 i32c(op.getReduce() == "max" ? 1 : 0)});
  }

  Value frameField(OpBuilder &b, Location loc, Value frame, FrameField field,
                   Type type) const {
    Value address = b.create<LLVM::GEPOp>(
        loc, types.ptr, types.frame, frame,
        ArrayRef<LLVM::GEPArg>{0, static_cast<int32_t>(field)},
        /*inbounds=*/true);
    return b.create<LLVM::LoadOp>(loc, type, address);
  }

private:
  Value graph(OpBuilder &b, Location loc, Value frame) const {
    return frameField(b, loc, frame, kGraph, types.ptr);
  }
  Value call(OpBuilder &b, Location loc, StringRef callee, Type result,
             ValueRange args) const;

  mutable ModuleOp module; // declarations are added to it
  Types types;
};

/// Calls libsluicert's `callee`, declaring it on first use.
Value CpuWalkModel::call(OpBuilder &b, Location loc, StringRef callee,
                         Type result, ValueRange args) const {
  auto fn = module.lookupSymbol<LLVM::LLVMFuncOp>(callee);
  if (!fn) {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(module.getBody());
    SmallVector<Type> argTypes(args.getTypes());
    Type ret = result ? result : LLVM::LLVMVoidType::get(module.getContext());
    fn = b.create<LLVM::LLVMFuncOp>(
        module.getLoc(), callee, LLVM::LLVMFunctionType::get(ret, argTypes));
  }
  auto op = b.create<LLVM::CallOp>(loc, fn, args);
  return result ? op.getResult() : Value();
}

Value CpuWalkModel::query(OpBuilder &b, Location loc, Value frame, WalkQuery q,
                          ValueRange operands) const {
  auto onGraph = [&](StringRef callee, Type result) {
    SmallVector<Value> args = {graph(b, loc, frame)};
    args.append(operands.begin(), operands.end());
    return call(b, loc, callee, result, args);
  };
  // A bad list index or a zero divisor is a fault in the frame.
  auto onFrame = [&](StringRef callee) {
    SmallVector<Value> args = {frame};
    args.append(operands.begin(), operands.end());
    return call(b, loc, callee, types.i64, args);
  };
  auto weightStat = [&](StringRef callee) -> Value {
    return b.create<LLVM::FPExtOp>(loc, types.f64, onGraph(callee, types.f32));
  };
  switch (q) {
  case WalkQuery::Random:
    return call(b, loc, "sluice_walk_random", types.f64, {frame});
  case WalkQuery::Degree:
    return onGraph("sluice_graph_degree", types.i64);
  case WalkQuery::HasEdge: {
    Value r = onGraph("sluice_graph_has_edge", types.i32);
    Value zero =
        b.create<LLVM::ConstantOp>(loc, types.i32, b.getI32IntegerAttr(0));
    return b.create<LLVM::ICmpOp>(loc, LLVM::ICmpPredicate::ne, r, zero);
  }
  case WalkQuery::EdgeWeight:
    return onGraph("sluice_kernel_edge_weight", types.f64);
  case WalkQuery::EdgeLabel:
    return onGraph("sluice_kernel_edge_label", types.i64);
  case WalkQuery::Label:
    return b.create<LLVM::SExtOp>(
        loc, types.i64, onGraph("sluice_graph_vertex_label", types.i32));
  case WalkQuery::NumVertices:
    return onGraph("sluice_graph_num_vertices", types.i64);
  case WalkQuery::NumEdges:
    return onGraph("sluice_graph_num_edges", types.i64);
  case WalkQuery::VertexOf:
    return onGraph("sluice_graph_vertex_of", types.i32);
  case WalkQuery::WeightMax:
    return weightStat("sluice_graph_weight_max");
  case WalkQuery::WeightMin:
    return weightStat("sluice_graph_weight_min");
  case WalkQuery::WeightSum:
    return weightStat("sluice_graph_weight_sum");
  case WalkQuery::ListGet:
    return onFrame("sluice_kernel_list_get");
  case WalkQuery::ListSize: {
    Value address = b.create<LLVM::GEPOp>(
        loc, types.ptr, types.list, operands[0],
        ArrayRef<LLVM::GEPArg>{0, 1}, /*inbounds=*/true);
    return b.create<LLVM::LoadOp>(loc, types.i64, address);
  }
  case WalkQuery::IntDiv:
    return onFrame("sluice_kernel_idiv");
  case WalkQuery::IntRem:
    return onFrame("sluice_kernel_irem");
  }
  llvm_unreachable("unknown walk query");
}

/// Builds the body of one outlined function.
class Outliner {
public:
  Outliner(ModuleOp module, walk::WalkOp walk)
      : module(module), walk(walk), types(module.getContext()),
        model(module) {}

  /// Outlines `region` as `fn` named `name`; the region must not be empty.
  LogicalResult outline(Region &region, Fn fn, StringRef name);

private:
  FunctionType functionType(Fn fn);
  Value frameField(OpBuilder &b, Location loc, FrameField field, Type type) {
    return model.frameField(b, loc, frame, field, type);
  }
  LogicalResult emitReturn(OpBuilder &b, Location loc, Fn fn,
                           walk::YieldOp yield, ArrayRef<Value> values);

  ModuleOp module;
  walk::WalkOp walk;
  Types types;
  CpuWalkModel model;
  Value frame;
};

FunctionType Outliner::functionType(Fn fn) {
  MLIRContext *ctx = module.getContext();
  Type p = types.ptr, i32 = types.i32, i64 = types.i64, f64 = types.f64;
  switch (fn) {
  case Fn::Weight:
    return FunctionType::get(ctx, {p, i32, i64, f64}, {f64});
  case Fn::Stop:
    return FunctionType::get(ctx, {p}, {i32});
  case Fn::Update:
    return FunctionType::get(ctx, {p, i32}, {});
  case Fn::Init:
    return FunctionType::get(ctx, {p}, {});
  case Fn::UpperBound:
  case Fn::LowerBound:
  case Fn::SumUpperBound:
  case Fn::SumLowerBound:
  case Fn::StopProbability:
    return FunctionType::get(ctx, {p}, {f64});
  case Fn::Length:
    return FunctionType::get(ctx, {p}, {i64});
  case Fn::Start:
    return FunctionType::get(ctx, {p, p, i64}, {i64});
  }
  llvm_unreachable("unknown kernel function");
}

LogicalResult Outliner::emitReturn(OpBuilder &b, Location loc, Fn fn,
                                   walk::YieldOp yield,
                                   ArrayRef<Value> values) {
  auto expectOne = [&](Type type) -> LogicalResult {
    if (values.size() != 1 || values[0].getType() != type)
      return yield.emitError("walk-to-llvm: this region must yield one ")
             << type;
    return success();
  };
  switch (fn) {
  case Fn::Weight:
  case Fn::UpperBound:
  case Fn::LowerBound:
  case Fn::SumUpperBound:
  case Fn::SumLowerBound:
  case Fn::StopProbability:
    if (failed(expectOne(types.f64)))
      return failure();
    b.create<func::ReturnOp>(loc, values[0]);
    return success();
  case Fn::Length:
    if (failed(expectOne(types.i64)))
      return failure();
    b.create<func::ReturnOp>(loc, values[0]);
    return success();
  case Fn::Stop: {
    if (failed(expectOne(types.i1)))
      return failure();
    Value r = b.create<arith::ExtUIOp>(loc, types.i32, values[0]);
    b.create<func::ReturnOp>(loc, r);
    return success();
  }
  case Fn::Update:
    b.create<func::ReturnOp>(loc);
    return success();
  case Fn::Init: {
    if (values.size() != walk.getStateTypes().size())
      return yield.emitError("walk-to-llvm: init yields ")
             << values.size() << " values for " << walk.getStateTypes().size()
             << " state variables";
    Value state = frameField(b, loc, kState, types.ptr);
    for (auto [i, v] : llvm::enumerate(values))
      storeWalkSlot(b, loc, state, i, v);
    b.create<func::ReturnOp>(loc);
    return success();
  }
  case Fn::Start: {
    // Original ids, written to out[0 .. min(n, capacity)); returns n.
    Block *entry = b.getInsertionBlock();
    Value out = entry->getArgument(1), capacity = entry->getArgument(2);
    if (values.size() == 1 && isa<walk::ListType>(values[0].getType())) {
      Value list = values[0];
      Value n = b.create<walk::ListSizeOp>(loc, types.i64, list);
      Value limit = b.create<arith::MinSIOp>(loc, n, capacity);
      Value zero = b.create<arith::ConstantIntOp>(loc, 0, 64);
      Value one = b.create<arith::ConstantIntOp>(loc, 1, 64);
      auto loop = b.create<scf::ForOp>(loc, zero, limit, one);
      {
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPointToStart(loop.getBody());
        Value i = loop.getInductionVar();
        Value x = b.create<walk::ListGetOp>(loc, types.i64, list, i);
        Value address = b.create<LLVM::GEPOp>(
            loc, types.ptr, types.i64, out, ValueRange{i}, /*inbounds=*/true);
        b.create<LLVM::StoreOp>(loc, x, address);
      }
      b.create<func::ReturnOp>(loc, n);
      return success();
    }
    for (auto [i, v] : llvm::enumerate(values)) {
      if (v.getType() != types.i64)
        return yield.emitError("walk-to-llvm: start must yield i64 ids or "
                               "one list, got ")
               << v.getType();
      Value index = b.create<arith::ConstantIntOp>(loc, i, 64);
      Value fits = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::slt,
                                           index, capacity);
      auto ifOp = b.create<scf::IfOp>(loc, fits, /*withElse=*/false);
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(&ifOp.getThenRegion().front());
      storeWalkSlot(b, loc, out, i, v);
    }
    Value n = b.create<arith::ConstantIntOp>(loc, values.size(), 64);
    b.create<func::ReturnOp>(loc, n);
    return success();
  }
  }
  llvm_unreachable("unknown kernel function");
}

LogicalResult Outliner::outline(Region &region, Fn fn, StringRef name) {
  Location loc = walk.getLoc();
  if (SymbolTable::lookupSymbolIn(module, name))
    return walk.emitError("walk-to-llvm: the symbol '")
           << name << "' of this walk's kernel is already defined";
  OpBuilder b(walk);
  auto func = b.create<func::FuncOp>(loc, name, functionType(fn));
  Block *entry = func.addEntryBlock();
  b.setInsertionPointToStart(entry);
  frame = entry->getArgument(0);

  // Region arguments: frame fields or function arguments (walk.h).
  SmallVector<Value> args;
  switch (fn) {
  case Fn::Weight: // prev, cur, next, edge, w
    args = {frameField(b, loc, kPrev, types.i32),
            frameField(b, loc, kCur, types.i32), entry->getArgument(1),
            entry->getArgument(2), entry->getArgument(3)};
    break;
  case Fn::Stop: // cur, step
    args = {frameField(b, loc, kCur, types.i32),
            frameField(b, loc, kStep, types.i64)};
    break;
  case Fn::Update: // prev, cur, next
    args = {frameField(b, loc, kPrev, types.i32),
            frameField(b, loc, kCur, types.i32), entry->getArgument(1)};
    break;
  case Fn::UpperBound:
  case Fn::LowerBound:
  case Fn::SumUpperBound:
  case Fn::SumLowerBound: // cur
    args = {frameField(b, loc, kCur, types.i32)};
    break;
  default:
    break;
  }
  SmallVector<Value> values;
  FailureOr<walk::YieldOp> cloned = conversion::cloneWalkRegion(
      b, walk, region, args, "walk-to-llvm", name, values);
  if (failed(cloned))
    return failure();
  walk::YieldOp yield = *cloned;
  if (failed(emitReturn(b, yield.getLoc(), fn, yield, values)))
    return failure();

  return lowerWalkOps(func, model);
}

} // namespace

walk::KernelAttr sluice::conversion::kernelAttr(MLIRContext *ctx,
                                                const KernelInfo &info) {
  SmallVector<Attribute> functions;
  for (const std::string &fn : info.functions)
    functions.push_back(StringAttr::get(ctx, fn));
  return walk::KernelAttr::get(ctx, info.name, info.flags, info.weightClass,
                               info.numParams, info.numState,
                               ArrayAttr::get(ctx, functions));
}

KernelInfo sluice::conversion::kernelInfo(ModuleOp module,
                                          walk::KernelAttr kernel) {
  Location loc = module.getLoc();
  ArrayRef<Attribute> functions = kernel.getFunctions().getValue();
  if (!functions.empty())
    if (Operation *weight = SymbolTable::lookupSymbolIn(
            module, cast<StringAttr>(functions[0]).getValue()))
      loc = weight->getLoc();
  KernelInfo info(loc);
  info.name = kernel.getName().str();
  info.flags = kernel.getFlags();
  info.weightClass = kernel.getWeightClass();
  info.numParams = kernel.getNumParams();
  info.numState = kernel.getNumState();
  for (auto [i, fn] : llvm::enumerate(functions))
    info.functions[i] = cast<StringAttr>(fn).getValue().str();
  return info;
}

std::string sluice::conversion::kernelFunctionName(StringRef walk,
                                                   StringRef region) {
  return ("sluice_walk_" + walk + "_" + region).str();
}

std::string sluice::conversion::kernelDescriptorName(StringRef walk) {
  return ("sluice_walk_kernel_" + walk).str();
}

FailureOr<KernelInfo> sluice::conversion::outlineWalk(ModuleOp module,
                                                      walk::WalkOp w) {
  KernelInfo info(w.getLoc());
  info.name = w.getSymName().str();
  info.numParams = w.getParamTypes().size();
  info.numState = w.getStateTypes().size();
  int weightClass = w.abiWeightClass();
  info.weightClass = weightClass < 0 ? SLUICE_WALK_WEIGHT_DYNAMIC : weightClass;
  info.flags = w.abiFlags();
  // walk.h: a kernel without an upper bound function must say UNBOUNDED.
  if (w.getUpperBound().empty())
    info.flags |= SLUICE_WALK_UNBOUNDED;
  // walk.h: a weight that draws no random(), reads no list element and
  // divides no integers neither consumes random numbers nor faults, so the engine may skip it
  // when the lower bound alone accepts a rejection trial.
  bool pure = !w.getWeight()
                   .walk([](Operation *op) {
                     return isa<walk::RandomOp, walk::ListGetOp,
                                walk::IntDivOp, walk::IntRemOp>(op)
                                ? WalkResult::interrupt()
                                : WalkResult::advance();
                   })
                   .wasInterrupted();
  if (pure)
    info.flags |= SLUICE_WALK_PURE_WEIGHT;

  struct Item {
    Region *region;
    Fn fn;
    const char *name;
    int slot; ///< index in KernelInfo::functions, -1 for setup functions
  };
  Item items[] = {
      {&w.getWeight(), Fn::Weight, "weight", 0},
      {&w.getStop(), Fn::Stop, "stop", 1},
      {&w.getUpdate(), Fn::Update, "update", 2},
      {&w.getInit(), Fn::Init, "init", 3},
      {&w.getUpperBound(), Fn::UpperBound, "upper_bound", 4},
      {&w.getLowerBound(), Fn::LowerBound, "lower_bound", 5},
      {&w.getSumUpperBound(), Fn::SumUpperBound, "sum_upper_bound", 6},
      {&w.getSumLowerBound(), Fn::SumLowerBound, "sum_lower_bound", 7},
      {&w.getLength(), Fn::Length, "length", -1},
      {&w.getStopProbability(), Fn::StopProbability, "stop_probability", -1},
      {&w.getStart(), Fn::Start, "start", -1},
  };
  Outliner outliner(module, w);
  for (const Item &item : items) {
    if (item.region->empty())
      continue;
    std::string name = kernelFunctionName(info.name, item.name);
    if (failed(outliner.outline(*item.region, item.fn, name)))
      return failure();
    if (item.slot >= 0)
      info.functions[item.slot] = name;
  }
  return info;
}

LogicalResult sluice::conversion::emitKernelDescriptor(ModuleOp module,
                                                       const KernelInfo &info) {
  MLIRContext *ctx = module.getContext();
  if (SymbolTable::lookupSymbolIn(module, kernelDescriptorName(info.name)))
    return emitError(info.loc, "walk-to-llvm: the kernel descriptor '")
           << kernelDescriptorName(info.name)
           << "' clashes with a function of another walk; rename one";
  Types types(ctx);
  Location loc = info.loc;
  OpBuilder b = OpBuilder::atBlockEnd(module.getBody());

  // A '.' cannot occur in a walk's name: no clash with kernel functions.
  std::string nameSymbol = kernelDescriptorName(info.name) + ".name";
  std::string text = info.name;
  text.push_back('\0');
  auto i8 = IntegerType::get(ctx, 8);
  auto nameGlobal = b.create<LLVM::GlobalOp>(
      loc, LLVM::LLVMArrayType::get(i8, text.size()), /*isConstant=*/true,
      LLVM::Linkage::Private, nameSymbol, b.getStringAttr(text));

  // sluice_walk_kernel_t: abi_version, flags, name, weight_class,
  // num_params, num_state, then the eight function pointers.
  SmallVector<Type> fields = {types.i32, types.i32, types.ptr,
                              types.i32, types.i32, types.i32};
  fields.append(8, types.ptr);
  auto kernelType = LLVM::LLVMStructType::getLiteral(ctx, fields);
  auto global = b.create<LLVM::GlobalOp>(
      loc, kernelType, /*isConstant=*/true, LLVM::Linkage::External,
      kernelDescriptorName(info.name), Attribute());
  Block *init = b.createBlock(&global.getInitializerRegion());
  b.setInsertionPointToStart(init);
  Value s = b.create<LLVM::UndefOp>(loc, kernelType);
  int64_t field = 0;
  auto insert = [&](Value v) {
    s = b.create<LLVM::InsertValueOp>(loc, s, v, ArrayRef<int64_t>{field++});
  };
  auto i32 = [&](uint32_t v) -> Value {
    return b.create<LLVM::ConstantOp>(loc, types.i32,
                                      b.getI32IntegerAttr(int32_t(v)));
  };
  insert(i32(SLUICE_WALK_ABI_VERSION));
  insert(i32(info.flags));
  insert(b.create<LLVM::AddressOfOp>(loc, nameGlobal));
  insert(i32(info.weightClass));
  insert(i32(info.numParams));
  insert(i32(info.numState));
  for (const std::string &fn : info.functions) {
    if (fn.empty()) {
      insert(b.create<LLVM::ZeroOp>(loc, types.ptr));
      continue;
    }
    auto f = module.lookupSymbol<LLVM::LLVMFuncOp>(fn);
    if (!f)
      return emitError(loc, "walk-to-llvm: the kernel of walk '")
             << info.name << "' names '" << fn
             << "', which is not an LLVM-dialect function (run the upstream "
                "conversions first)";
    insert(b.create<LLVM::AddressOfOp>(loc, f));
  }
  b.create<LLVM::ReturnOp>(loc, s);
  return success();
}
