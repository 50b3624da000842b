//===- MLIRGenAlign.cpp - Lowering align jobs -----------------------------===//
#include "frontends/sluice/MLIRGenAlign.h"

#include "dialects/Seq/IR/SeqOps.h"
#include "frontends/sluice/Frontend.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Path.h"

using namespace sluice;
using namespace sluice::ast;

namespace {

mlir::LogicalResult lowerAlignJob(mlir::OpBuilder &builder, const JobDecl &j,
                                  const ConstEnv &globals) {
  mlir::MLIRContext *ctx = builder.getContext();
  llvm::StringMap<int64_t> ints = {
      {"match", 2},  {"mismatch", 4}, {"gap_open", 4}, {"gap_extend", 2},
      {"band", 100}, {"zdrop", 400},  {"threads", 0}};
  llvm::StringMap<std::string> paths;
  bool ok = true;
  for (const Prop &p : j.props) {
    auto v = evaluateConstant(*p.value, globals, ctx);
    if (!v) {
      ok = false;
      continue;
    }
    if (v->kind == ConstValue::Kind::String)
      paths[p.name] = relativeToSource(p.value->range, v->s);
    else if (v->kind == ConstValue::Kind::Int && ints.count(p.name))
      ints[p.name] = v->i;
  }
  if (!ok)
    return mlir::failure();
  auto i32 = [&](llvm::StringRef name) {
    return builder.getI32IntegerAttr(static_cast<int32_t>(ints[name]));
  };
  builder.create<seq::AlignOp>(
      toLocation(ctx, j.range), builder.getStringAttr(j.name),
      builder.getStringAttr(paths["query"]),
      builder.getStringAttr(paths["target"]), i32("match"), i32("mismatch"),
      i32("gap_open"), i32("gap_extend"), i32("band"), i32("zdrop"),
      i32("threads"), builder.getStringAttr(paths["output"]));
  return mlir::success();
}

} // namespace

bool sluice::isAlignJob(const Decl &d) {
  auto *j = llvm::dyn_cast<JobDecl>(&d);
  return j && j->action == "align";
}

mlir::LogicalResult sluice::lowerAlignJobs(mlir::ModuleOp module,
                                           const Program &program,
                                           const ConstEnv &globals) {
  mlir::MLIRContext *ctx = module.getContext();
  ctx->getOrLoadDialect<seq::SeqDialect>();
  mlir::OpBuilder builder(ctx);
  builder.setInsertionPointToEnd(module.getBody());
  bool failed = false;
  for (const auto &m : program.modules)
    for (const DeclPtr &d : m->decls)
      if (isAlignJob(*d))
        failed |= mlir::failed(
            lowerAlignJob(builder, llvm::cast<JobDecl>(*d), globals));
  return mlir::failure(failed);
}
