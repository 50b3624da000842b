//===- MLIRGenDemand.cpp - Lowering demand declarations -------------------===//
#include "frontends/sluice/MLIRGenDemand.h"

#include "dialects/Plan/IR/PlanOps.h"
#include "frontends/sluice/Frontend.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"

using namespace sluice;
using namespace sluice::ast;

namespace {

class DemandLowering {
public:
  DemandLowering(mlir::ModuleOp module, const ConstEnv &globals)
      : ctx(*module.getContext()), builder(module.getContext()),
        globals(globals) {
    builder.setInsertionPointToEnd(module.getBody());
  }

  void lower(const DemandDecl &d);
  bool failed = false;

private:
  mlir::Location loc(const SourceRange &r) { return toLocation(&ctx, r); }
  std::optional<int64_t> index(const Expr &e);
  std::optional<std::string> pattern(const Endpoint &ep);

  mlir::MLIRContext &ctx;
  mlir::OpBuilder builder;
  const ConstEnv &globals;
};

} // namespace

std::optional<int64_t> DemandLowering::index(const Expr &e) {
  auto v = evaluateConstant(e, globals, &ctx);
  if (!v || v->kind != ConstValue::Kind::Int) {
    if (v)
      mlir::emitError(loc(e.range)) << "a device index must be an integer";
    failed = true;
    return std::nullopt;
  }
  return v->i;
}

std::optional<std::string> DemandLowering::pattern(const Endpoint &ep) {
  std::string out;
  for (const Segment &s : ep.segments) {
    if (!out.empty())
      out += ".";
    out += s.name;
    switch (s.indexKind) {
    case Segment::IndexKind::None:
      break;
    case Segment::IndexKind::All:
      out += "[*]";
      break;
    case Segment::IndexKind::Single: {
      auto i = index(*s.lo);
      if (!i)
        return std::nullopt;
      out += "[" + std::to_string(*i) + "]";
      break;
    }
    case Segment::IndexKind::Range: {
      auto lo = index(*s.lo), hi = index(*s.hi);
      if (!lo || !hi)
        return std::nullopt;
      out += "[" + std::to_string(*lo) + ".." + std::to_string(*hi) + "]";
      break;
    }
    }
  }
  return out;
}

void DemandLowering::lower(const DemandDecl &d) {
  double chunk = 0;
  for (const Prop &p : d.props)
    if (p.name == "chunk")
      if (auto v = evaluateConstant(*p.value, globals, &ctx))
        chunk = v->asNumber().value_or(0);
  auto demands = builder.create<plan::DemandsOp>(
      loc(d.range), builder.getStringAttr(d.name),
      mlir::FlatSymbolRefAttr::get(&ctx, d.topology),
      builder.getF64FloatAttr(chunk));
  mlir::OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointToEnd(&demands.getBody().emplaceBlock());
  for (const DemandItem &item : d.items) {
    auto size = evaluateConstant(*item.bytes, globals, &ctx);
    if (!size || !size->asNumber()) {
      if (size)
        mlir::emitError(loc(item.bytes->range))
            << "the size of a demand must be a constant number of bytes";
      failed = true;
      continue;
    }
    llvm::SmallVector<std::string> from, to;
    for (const DemandClause &c : item.clauses) {
      llvm::SmallVector<std::string> &list = c.word == "to" ? to : from;
      for (const Endpoint &ep : c.endpoints) {
        auto p = pattern(ep);
        if (!p)
          return;
        list.push_back(*p);
      }
      if (c.word == "over")
        to = from;
    }
    llvm::SmallVector<llvm::StringRef> fromRefs(from.begin(), from.end());
    llvm::SmallVector<llvm::StringRef> toRefs(to.begin(), to.end());
    builder.create<plan::DemandOp>(
        loc(item.range), builder.getStringAttr(item.kind),
        builder.getF64FloatAttr(*size->asNumber()),
        builder.getStrArrayAttr(fromRefs), builder.getStrArrayAttr(toRefs));
  }
}

mlir::LogicalResult sluice::lowerDemands(mlir::ModuleOp module,
                                         const Program &program,
                                         const ConstEnv &globals) {
  DemandLowering lowering(module, globals);
  for (const auto &m : program.modules)
    for (const DeclPtr &d : m->decls)
      if (auto *demand = llvm::dyn_cast<DemandDecl>(d.get()))
        lowering.lower(*demand);
  return mlir::success(!lowering.failed);
}
