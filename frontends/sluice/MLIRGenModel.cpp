//===- MLIRGenModel.cpp - Lowering model declarations ---------------------===//
#include "frontends/sluice/MLIRGenModel.h"

#include "dialects/Model/IR/ModelOps.h"
#include "frontends/sluice/Frontend.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Path.h"
#include <algorithm>

using namespace sluice;
using namespace sluice::ast;

namespace {

/// The element type of a `dtype:` word (fp16 when absent).
mlir::Type dtypeOf(mlir::MLIRContext *ctx, llvm::StringRef word) {
  if (word == "fp32")
    return mlir::Float32Type::get(ctx);
  if (word == "bf16")
    return mlir::BFloat16Type::get(ctx);
  if (word == "fp8")
    return mlir::Float8E4M3FNType::get(ctx);
  return mlir::Float16Type::get(ctx);
}

mlir::LogicalResult lowerTransformer(mlir::OpBuilder &builder,
                                     const ModelDecl &d,
                                     const ConstEnv &globals) {
  mlir::MLIRContext *ctx = builder.getContext();
  mlir::Location loc = toLocation(ctx, d.range);
  llvm::StringMap<int64_t> ints;
  llvm::StringMap<std::string> words = {
      {"dtype", "fp16"},
      {"norm", model::stringifyNormKind(model::NormKind::LayerNorm).str()},
      {"mlp", "gelu"},
      {"positions", "learned"}};
  llvm::StringMap<bool> flags = {{"tied", true}, {"bias", true}};
  llvm::StringMap<std::vector<int64_t>> lists;
  double capacity = 1.0; // capacity_factor (Sema checked its range)
  bool ok = true;
  for (const Arg &a : d.ctor->args) {
    if (words.count(a.name)) {
      if (auto *n = llvm::dyn_cast<NameExpr>(a.value.get()))
        words[a.name] = n->name;
      continue;
    }
    auto v = evaluateConstant(*a.value, globals, ctx);
    if (!v) {
      ok = false;
      continue;
    }
    if (a.name == "capacity_factor" && v->asNumber()) {
      capacity = *v->asNumber();
      continue;
    }
    if (flags.count(a.name) && v->kind == ConstValue::Kind::Bool) {
      flags[a.name] = v->b;
      continue;
    }
    if ((a.name == "groups" || a.name == "group_ffn") &&
        v->kind == ConstValue::Kind::List) {
      std::vector<int64_t> &out = lists[a.name];
      for (const ConstValue &e : v->list) {
        if (e.kind != ConstValue::Kind::Int || e.i <= 0) {
          mlir::emitError(toLocation(ctx, a.value->range))
              << "'" << a.name << "' must be a list of positive integers";
          ok = false;
          break;
        }
        out.push_back(e.i);
      }
      continue;
    }
    if (v->kind != ConstValue::Kind::Int) {
      mlir::emitError(toLocation(ctx, a.value->range))
          << "'" << a.name << "' of a transformer must be an integer";
      ok = false;
      continue;
    }
    ints[a.name] = v->i;
  }
  if (!ok)
    return mlir::failure();
  for (const char *name : {"layers", "hidden", "heads", "seq", "vocab"})
    if (!ints.count(name))
      return mlir::emitError(loc)
             << "transformer '" << d.name << "' needs '" << name << "'";
  const int64_t layers = ints["layers"], h = ints["hidden"],
                heads = ints["heads"], seq = ints["seq"], vocab = ints["vocab"];
  const int64_t kv = ints.count("kv_heads") ? ints["kv_heads"] : heads;
  // Layer groups (Sema checked that they cover the layers).
  std::vector<int64_t> groups =
      lists.count("groups") ? lists["groups"] : std::vector<int64_t>{layers};
  std::vector<int64_t> widths = lists["group_ffn"];
  const int64_t ffn = ints.count("ffn") ? ints["ffn"] : 4 * h;
  if (widths.empty())
    widths.assign(groups.size(), ffn);
  if (widths.size() != groups.size())
    return mlir::emitError(loc) << "transformer '" << d.name
                                << "': group_ffn and groups differ in length";
  const int64_t widest = *std::max_element(widths.begin(), widths.end());
  mlir::Type t = dtypeOf(ctx, words["dtype"]);
  mlir::TypeAttr ty = mlir::TypeAttr::get(t);
  auto i64 = [&](int64_t v) { return builder.getI64IntegerAttr(v); };
  auto unit = [&](bool on) {
    return on ? builder.getUnitAttr() : mlir::UnitAttr();
  };
  const bool bias = flags["bias"];
  const bool gated = words["mlp"] == "swiglu";
  const bool learned = words["positions"] == "learned";
  std::optional<model::NormKind> normKind =
      model::symbolizeNormKind(words["norm"]);
  assert(normKind && "Sema accepts only the norm kinds of ModelEnums.td");
  auto norm = model::NormKindAttr::get(ctx, *normKind);

  auto model = builder.create<model::TransformerOp>(
      loc, builder.getStringAttr(d.name), ty, i64(layers), i64(h), i64(heads),
      i64(kv), i64(widest), i64(seq), i64(vocab));
  mlir::OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointToEnd(&model.getBody().emplaceBlock());
  builder.create<model::EmbeddingOp>(
      loc, i64(vocab), i64(h), learned ? i64(seq) : mlir::IntegerAttr(), ty);
  for (size_t g = 0; g < groups.size(); ++g) {
    auto stack = builder.create<model::LayersOp>(loc, i64(groups[g]));
    mlir::OpBuilder::InsertionGuard inner(builder);
    builder.setInsertionPointToEnd(&stack.getBody().emplaceBlock());
    builder.create<model::NormOp>(loc, norm, i64(h), ty);
    builder.create<model::AttentionOp>(loc, i64(h), i64(heads), i64(kv),
                                       unit(bias), ty);
    builder.create<model::NormOp>(loc, norm, i64(h), ty);
    const bool moe = ints.count("experts") != 0;
    builder.create<model::MlpOp>(
        loc, i64(h), i64(widths[g]), unit(gated), unit(bias),
        moe ? i64(ints["experts"]) : mlir::IntegerAttr(),
        moe ? i64(ints.count("top_k") ? ints["top_k"] : 2)
            : mlir::IntegerAttr(),
        moe ? builder.getF64FloatAttr(capacity) : mlir::FloatAttr(), ty);
  }
  builder.create<model::NormOp>(loc, norm, i64(h), ty);
  builder.create<model::HeadOp>(loc, i64(vocab), i64(h), unit(flags["tied"]),
                                ty);
  return mlir::success();
}

/// A finetune job's schedule (Sema checked it): the homes as typed tier
/// attributes, micro_batch and recompute as the job's own options.
mlir::LogicalResult applyJobSchedule(model::JobOp job, const ScheduleDecl &s,
                                     const ConstEnv &globals) {
  mlir::MLIRContext *ctx = job.getContext();
  mlir::Builder b(ctx);
  bool ok = true;
  for (const Prop &p : s.props) {
    if (auto *n = llvm::dyn_cast<NameExpr>(p.value.get())) {
      std::optional<model::Tier> t = model::symbolizeTier(n->name);
      if (!t)
        continue;
      llvm::StringRef attr = p.name == "params"  ? "param_home"
                             : p.name == "grads" ? "grad_home"
                                                 : "optimizer_home";
      job->setAttr(attr, model::TierAttr::get(ctx, *t));
      continue;
    }
    auto v = evaluateConstant(*p.value, globals, ctx);
    if (!v) {
      ok = false;
      continue;
    }
    if (p.name == "micro_batch" && v->kind == ConstValue::Kind::Int)
      job->setAttr("micro_batch", b.getI64IntegerAttr(v->i));
    else if (p.name == "recompute" && v->kind == ConstValue::Kind::Bool)
      job->setAttr("recompute", b.getBoolAttr(v->b));
  }
  return mlir::success(ok);
}

mlir::LogicalResult lowerJob(mlir::OpBuilder &builder, const JobDecl &j,
                             const ConstEnv &globals,
                             const ScheduleDecl *schedule) {
  mlir::MLIRContext *ctx = builder.getContext();
  auto job = builder.create<model::JobOp>(
      toLocation(ctx, j.range), builder.getStringAttr(j.name),
      model::JobActionAttr::get(ctx,
                                model::symbolizeJobAction(j.action).value_or(
                                    model::JobAction::Finetune)),
      mlir::FlatSymbolRefAttr::get(ctx, j.subject),
      mlir::FlatSymbolRefAttr::get(ctx, j.target), mlir::IntegerAttr(),
      mlir::IntegerAttr(), mlir::IntegerAttr(), mlir::IntegerAttr(),
      mlir::IntegerAttr(), mlir::BoolAttr(), model::TierAttr(),
      model::TierAttr(), model::TierAttr(), mlir::StringAttr(),
      mlir::FloatAttr(), mlir::IntegerAttr(), model::WeightQuantAttr(),
      mlir::BoolAttr(), mlir::IntegerAttr(), model::CompressedTensorsAttr(),
      /*parameter_server=*/mlir::StringAttr(),
      /*adversarial=*/mlir::StringAttr(), mlir::IntegerAttr(),
      mlir::FloatAttr(), mlir::FloatAttr(), mlir::FloatAttr(),
      mlir::FloatAttr(), mlir::IntegerAttr(), mlir::FlatSymbolRefAttr());
  bool ok = true;
  for (const Prop &p : j.props) {
    if (p.name == "optimizer") {
      if (auto *n = llvm::dyn_cast<NameExpr>(p.value.get()))
        job->setAttr("optimizer", builder.getStringAttr(n->name));
      continue;
    }
    // `compress: weights | cache | all` of an infer job (a word; train
    // jobs' `compress` is a bool, below).
    if (p.name == "compress")
      if (auto *n = llvm::dyn_cast<NameExpr>(p.value.get()))
        if (auto c = model::symbolizeCompressedTensors(n->name)) {
          job->setAttr("compress_tensors",
                       model::CompressedTensorsAttr::get(ctx, *c));
          continue;
        }
    // Adversarial training (SemaAdversarial.cpp): the technique and the
    // peer are names.
    if (p.name == "adversarial" || p.name == "peer") {
      if (auto *n = llvm::dyn_cast<NameExpr>(p.value.get()))
        job->setAttr(p.name, p.name == "peer"
                                 ? mlir::Attribute(mlir::FlatSymbolRefAttr::get(
                                       ctx, n->name))
                                 : builder.getStringAttr(n->name));
      continue;
    }
    if (p.name == "quantize") {
      if (auto *n = llvm::dyn_cast<NameExpr>(p.value.get()))
        if (auto q = model::symbolizeWeightQuant(n->name))
          job->setAttr("quantize", model::WeightQuantAttr::get(ctx, *q));
      continue;
    }
    auto v = evaluateConstant(*p.value, globals, ctx);
    if (!v) {
      ok = false;
      continue;
    }
    if (v->kind == ConstValue::Kind::Int &&
        llvm::is_contained({"batch", "micro_batch", "seq", "tokens", "steps",
                            "compress_rank", "pgd_steps", "pseudo_batches"},
                           p.name))
      job->setAttr(p.name, builder.getI64IntegerAttr(v->i));
    else if ((p.name == "recompute" || p.name == "compress") &&
             v->kind == ConstValue::Kind::Bool)
      job->setAttr(p.name, builder.getBoolAttr(v->b));
    else if (llvm::is_contained({"lr", "epsilon", "step_size",
                                 "attack_fraction", "attack_fraction_end"},
                                p.name) &&
             v->asNumber())
      job->setAttr(p.name, builder.getF64FloatAttr(*v->asNumber()));
    else if (p.name == "parameter_server" &&
             v->kind == ConstValue::Kind::String)
      job->setAttr("parameter_server", builder.getStringAttr(v->s));
    else if (p.name == "lora" && v->kind == ConstValue::Kind::Int)
      job->setAttr("lora_rank", builder.getI64IntegerAttr(v->i));
    // output, seed, threads: not used by the planners.
  }
  if (schedule)
    ok &= mlir::succeeded(applyJobSchedule(job, *schedule, globals));
  return mlir::success(ok);
}

mlir::LogicalResult lowerGnn(mlir::OpBuilder &builder, const ModelDecl &d,
                             const ConstEnv &globals) {
  mlir::MLIRContext *ctx = builder.getContext();
  mlir::Location loc = toLocation(ctx, d.range);
  model::GnnKind kind = model::GnnKind::Sage;
  llvm::StringMap<int64_t> ints;
  std::vector<int64_t> fanouts;
  bool ok = true;
  for (const Arg &a : d.ctor->args) {
    if (a.name == "kind") {
      auto *n = llvm::dyn_cast<NameExpr>(a.value.get());
      std::optional<model::GnnKind> k =
          n ? model::symbolizeGnnKind(n->name) : std::nullopt;
      if (!k) {
        mlir::emitError(toLocation(ctx, a.value->range))
            << "unknown gnn kind '" << (n ? n->name : std::string("?"))
            << "' (expected sage, gcn or gat)";
        ok = false;
        continue;
      }
      kind = *k;
      continue;
    }
    auto v = evaluateConstant(*a.value, globals, ctx);
    if (!v) {
      ok = false;
      continue;
    }
    if (a.name == "fanouts" && v->kind == ConstValue::Kind::List) {
      for (const ConstValue &e : v->list)
        fanouts.push_back(e.kind == ConstValue::Kind::Int ? e.i : 0);
      continue;
    }
    if (v->kind == ConstValue::Kind::Int)
      ints[a.name] = v->i;
  }
  if (!ok)
    return mlir::failure();
  auto i64 = [&](int64_t v) { return builder.getI64IntegerAttr(v); };
  auto heads = ints.find("heads");
  builder.create<model::GnnOp>(
      loc, builder.getStringAttr(d.name), model::GnnKindAttr::get(ctx, kind),
      heads == ints.end() ? mlir::IntegerAttr() : i64(heads->second),
      i64(ints["layers"]), builder.getDenseI64ArrayAttr(fanouts),
      i64(ints["features"]), i64(ints["hidden"]), i64(ints["classes"]));
  return mlir::success();
}

mlir::LogicalResult lowerGnnTrain(mlir::OpBuilder &builder, const JobDecl &j,
                                  const ConstEnv &globals) {
  mlir::MLIRContext *ctx = builder.getContext();
  std::string graph;
  llvm::StringMap<int64_t> ints = {{"epochs", 10}, {"seed", 1}};
  double lr = 0.01, decay = 0.0, dropout = 0.0;
  std::optional<int64_t> featureCache;
  std::optional<std::string> features, output;
  bool ok = true;
  for (const Prop &p : j.props) {
    if (p.name == "graph") {
      if (auto *n = llvm::dyn_cast<NameExpr>(p.value.get()))
        graph = n->name;
      continue;
    }
    if (p.name == "optimizer")
      continue; // adam, the only one
    if (auto *n = llvm::dyn_cast<NameExpr>(p.value.get());
        p.name == "tile" && n && n->name == "auto")
      continue; // no attribute: chosen at run time
    auto v = evaluateConstant(*p.value, globals, ctx);
    if (!v) {
      ok = false;
      continue;
    }
    const bool real = p.name == "lr" || p.name == "weight_decay" ||
                      p.name == "dropout" || p.name == "feature_cache";
    if (v->kind == ConstValue::Kind::Int && !real)
      ints[p.name] = v->i;
    else if (p.name == "lr" && v->asNumber())
      lr = *v->asNumber();
    else if (p.name == "weight_decay" && v->asNumber())
      decay = *v->asNumber();
    else if (p.name == "dropout" && v->asNumber())
      dropout = *v->asNumber();
    else if (p.name == "feature_cache" && v->asNumber())
      featureCache = static_cast<int64_t>(
          std::min(*v->asNumber(), 9.2e18)); // bytes, well inside i64
    else if (p.name == "features" && v->kind == ConstValue::Kind::String)
      features = relativeToSource(p.value->range, v->s);
    else if (p.name == "output" && v->kind == ConstValue::Kind::String)
      output = relativeToSource(p.value->range, v->s);
  }
  if (!ok)
    return mlir::failure();
  auto job = builder.create<model::GnnTrainOp>(
      toLocation(ctx, j.range), builder.getStringAttr(j.name),
      mlir::FlatSymbolRefAttr::get(ctx, j.subject),
      mlir::FlatSymbolRefAttr::get(ctx, j.target),
      mlir::FlatSymbolRefAttr::get(ctx, graph),
      builder.getI64IntegerAttr(ints["batch"]),
      builder.getI64IntegerAttr(ints["epochs"]), builder.getF64FloatAttr(lr),
      builder.getF64FloatAttr(decay), builder.getF64FloatAttr(dropout),
      builder.getI64IntegerAttr(ints["seed"]),
      features ? builder.getStringAttr(*features) : mlir::StringAttr(),
      featureCache ? builder.getI64IntegerAttr(*featureCache)
                   : mlir::IntegerAttr(),
      ints.count("threads") ? builder.getI64IntegerAttr(ints["threads"])
                            : mlir::IntegerAttr(),
      output ? builder.getStringAttr(*output) : mlir::StringAttr(),
      ints.count("tile") ? builder.getI64IntegerAttr(ints["tile"])
                         : mlir::IntegerAttr());
  (void)job;
  return mlir::success();
}

mlir::LogicalResult lowerDistill(mlir::OpBuilder &builder, const ModelDecl &d,
                                 const ConstEnv &globals) {
  mlir::MLIRContext *ctx = builder.getContext();
  std::string teacher, student;
  int64_t blocks = 0;
  for (const Arg &a : d.ctor->args) {
    if (a.name == "teacher" || a.name == "student") {
      if (auto *n = llvm::dyn_cast<NameExpr>(a.value.get()))
        (a.name == "teacher" ? teacher : student) = n->name;
      continue;
    }
    auto v = evaluateConstant(*a.value, globals, ctx);
    if (!v)
      return mlir::failure();
    if (a.name == "blocks" && v->kind == ConstValue::Kind::Int)
      blocks = v->i;
  }
  builder.create<model::DistillOp>(toLocation(ctx, d.range),
                                   builder.getStringAttr(d.name),
                                   mlir::FlatSymbolRefAttr::get(ctx, teacher),
                                   mlir::FlatSymbolRefAttr::get(ctx, student),
                                   builder.getI64IntegerAttr(blocks));
  return mlir::success();
}

/// The constructor of the model `name` declares, or null.
const CallExpr *modelCtor(const Program &program, llvm::StringRef name) {
  for (const auto &m : program.modules)
    for (const DeclPtr &d : m->decls)
      if (auto *md = llvm::dyn_cast<ModelDecl>(d.get()); md && md->name == name)
        return md->ctor.get();
  return nullptr;
}

} // namespace

bool sluice::isModelJob(const Decl &d) {
  auto *j = llvm::dyn_cast<JobDecl>(&d);
  return j && model::symbolizeJobAction(j->action).has_value();
}

bool sluice::checkModelJobSupported(const JobDecl &j, const Program &program,
                                    mlir::MLIRContext *ctx) {
  // `train` of a gnn model is model.gnn_train; `distill` of a distill
  // model a model.job with action distill.
  const CallExpr *ctor = modelCtor(program, j.subject);
  if (!ctor || ctor->callee == "transformer" ||
      (ctor->callee == "gnn" && j.action == "train") ||
      (ctor->callee == "distill" && j.action == "distill"))
    return true;
  mlir::emitError(toLocation(ctx, j.range))
      << "not supported yet: lowering " << j.action << " job '" << j.name
      << "' of " << ctor->callee << " model '" << j.subject
      << "' to MLIR (the model dialect has transformers, gnns and distill "
         "models)";
  return false;
}

bool sluice::checkModelSupported(const ModelDecl &d, mlir::MLIRContext *ctx) {
  if (d.ctor && (d.ctor->callee == "transformer" || d.ctor->callee == "gnn" ||
                 d.ctor->callee == "distill"))
    return true;
  mlir::emitError(toLocation(ctx, d.range))
      << "not supported yet: lowering "
      << (d.ctor ? d.ctor->callee : std::string("this")) << " model '" << d.name
      << "' to MLIR (the model dialect has transformers, gnns and distill "
         "models)";
  return false;
}

mlir::LogicalResult sluice::lowerModels(mlir::ModuleOp module,
                                        const Program &program,
                                        const ConstEnv &globals) {
  mlir::MLIRContext *ctx = module.getContext();
  ctx->getOrLoadDialect<model::ModelDialect>();
  mlir::OpBuilder builder(ctx);
  builder.setInsertionPointToEnd(module.getBody());
  bool failed = false;
  for (const auto &m : program.modules)
    for (const DeclPtr &d : m->decls) {
      auto *md = llvm::dyn_cast<ModelDecl>(d.get());
      if (!md)
        continue;
      if (md->ctor->callee == "transformer")
        failed |= mlir::failed(lowerTransformer(builder, *md, globals));
      else if (md->ctor->callee == "gnn")
        failed |= mlir::failed(lowerGnn(builder, *md, globals));
      else if (md->ctor->callee == "distill")
        failed |= mlir::failed(lowerDistill(builder, *md, globals));
      // others: reported by checkModelSupported
    }
  // Schedules named after a job (Sema allows them for finetune jobs).
  llvm::StringMap<const ScheduleDecl *> schedules;
  for (const auto &m : program.modules)
    for (const DeclPtr &d : m->decls)
      if (auto *s = llvm::dyn_cast<ScheduleDecl>(d.get()))
        schedules.try_emplace(s->name, s);
  for (const auto &m : program.modules)
    for (const DeclPtr &d : m->decls)
      if (isModelJob(*d)) {
        const auto &j = llvm::cast<JobDecl>(*d);
        const CallExpr *ctor = modelCtor(program, j.subject);
        failed |= mlir::failed(
            ctor && ctor->callee == "gnn"
                ? lowerGnnTrain(builder, j, globals)
                : lowerJob(builder, j, globals, schedules.lookup(j.name)));
      }
  return mlir::failure(failed);
}
