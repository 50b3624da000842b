//===- ModelOps.cpp - Verifiers of the model dialect ----------------------===//
#include "dialects/Model/IR/ModelOps.h"

#include "dialects/Model/IR/ModelSchema.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace sluice::model;

#define GET_OP_CLASSES
#include "dialects/Model/IR/ModelOps.cpp.inc"

/// Checks that every named size is positive.
static LogicalResult
checkPositive(Operation *op,
              std::initializer_list<std::pair<const char *, int64_t>> sizes) {
  for (auto [name, v] : sizes)
    if (v <= 0)
      return op->emitOpError() << name << " must be positive, got " << v;
  return success();
}

static LogicalResult checkDtype(Operation *op, Type dtype) {
  if (!isa<FloatType>(dtype))
    return op->emitOpError() << "dtype must be a float type, got " << dtype;
  return success();
}

//===----------------------------------------------------------------------===//
// model.transformer
//===----------------------------------------------------------------------===//

LogicalResult TransformerOp::verifyRegions() {
  const int64_t h = getHiddenAttr().getInt(), a = getHeadsAttr().getInt(),
                kv = getKvHeadsAttr().getInt();
  if (failed(checkPositive(*this, {{"layers", getLayersAttr().getInt()},
                                   {"hidden", h},
                                   {"heads", a},
                                   {"kv_heads", kv},
                                   {"ffn", getFfnAttr().getInt()},
                                   {"seq", getSeqAttr().getInt()},
                                   {"vocab", getVocabAttr().getInt()}})) ||
      failed(checkDtype(*this, getDtype())))
    return failure();
  if (h % a != 0)
    return emitOpError() << "hidden " << h << " is not a multiple of heads "
                         << a;
  if (a % kv != 0)
    return emitOpError() << "heads " << a << " is not a multiple of kv_heads "
                         << kv;

  Block &body = getBody().front();
  if (body.empty() || !isa<EmbeddingOp>(body.front()))
    return emitOpError() << "must begin with a model.embedding";
  if (!isa<HeadOp>(body.back()))
    return emitOpError() << "must end with a model.head";
  int64_t layers = 0;
  for (Operation &op : body) {
    if (&op != &body.front() && isa<EmbeddingOp>(op))
      return op.emitOpError()
             << "must be the first op of its model.transformer";
    if (&op != &body.back() && isa<HeadOp>(op))
      return op.emitOpError() << "must be the last op of its model.transformer";
    if (auto l = dyn_cast<LayersOp>(op))
      layers += l.getCountAttr().getInt();
  }
  if (layers != getLayersAttr().getInt())
    return emitOpError() << "has " << layers
                         << " layers in its model.layers ops but declares "
                         << getLayersAttr().getInt();

  // Every block agrees with the hyper-parameters.
  bool widest = false;
  WalkResult r = walk([&](Operation *op) -> WalkResult {
    auto mismatch = [&](const char *what, int64_t got, int64_t want) {
      op->emitOpError() << what << " " << got << " does not match the model's "
                        << want;
      return WalkResult::interrupt();
    };
    if (auto e = dyn_cast<EmbeddingOp>(op)) {
      if (e.getHiddenAttr().getInt() != h)
        return mismatch("hidden", e.getHiddenAttr().getInt(), h);
      if (e.getVocabAttr().getInt() != getVocabAttr().getInt())
        return mismatch("vocab", e.getVocabAttr().getInt(),
                        getVocabAttr().getInt());
      if (e.getPositionsAttr() &&
          e.getPositionsAttr().getInt() != getSeqAttr().getInt())
        return mismatch("positions", e.getPositionsAttr().getInt(),
                        getSeqAttr().getInt());
    } else if (auto n = dyn_cast<NormOp>(op)) {
      if (n.getHiddenAttr().getInt() != h)
        return mismatch("hidden", n.getHiddenAttr().getInt(), h);
    } else if (auto at = dyn_cast<AttentionOp>(op)) {
      if (at.getHiddenAttr().getInt() != h)
        return mismatch("hidden", at.getHiddenAttr().getInt(), h);
      if (at.getHeadsAttr().getInt() != a)
        return mismatch("heads", at.getHeadsAttr().getInt(), a);
      if (at.getKvHeadsAttr().getInt() != kv)
        return mismatch("kv_heads", at.getKvHeadsAttr().getInt(), kv);
    } else if (auto m = dyn_cast<MlpOp>(op)) {
      if (m.getHiddenAttr().getInt() != h)
        return mismatch("hidden", m.getHiddenAttr().getInt(), h);
      // Layer groups may differ in MLP width; `ffn` is the widest.
      if (m.getFfnAttr().getInt() > getFfnAttr().getInt()) {
        op->emitOpError() << "ffn " << m.getFfnAttr().getInt()
                          << " exceeds the model's ffn "
                          << getFfnAttr().getInt() << " (the widest MLP)";
        return WalkResult::interrupt();
      }
      widest |= m.getFfnAttr().getInt() == getFfnAttr().getInt();
    } else if (auto hd = dyn_cast<HeadOp>(op)) {
      if (hd.getHiddenAttr().getInt() != h)
        return mismatch("hidden", hd.getHiddenAttr().getInt(), h);
      if (hd.getVocabAttr().getInt() != getVocabAttr().getInt())
        return mismatch("vocab", hd.getVocabAttr().getInt(),
                        getVocabAttr().getInt());
    }
    return WalkResult::advance();
  });
  if (r.wasInterrupted())
    return failure();
  if (!widest)
    return emitOpError() << "no model.mlp has the model's ffn "
                         << getFfnAttr().getInt()
                         << " (ffn is the widest MLP of the layers)";
  return success();
}

//===----------------------------------------------------------------------===//
// Blocks
//===----------------------------------------------------------------------===//

LogicalResult EmbeddingOp::verify() {
  if (failed(checkPositive(
          *this, {{"vocab", getVocabAttr().getInt()},
                  {"hidden", getHiddenAttr().getInt()},
                  {"positions",
                   getPositionsAttr() ? getPositionsAttr().getInt() : 1}})))
    return failure();
  return checkDtype(*this, getDtype());
}

LogicalResult LayersOp::verifyRegions() {
  if (getCountAttr().getInt() <= 0)
    return emitOpError() << "count must be positive, got "
                         << getCountAttr().getInt();
  bool attention = false, mlp = false;
  for (Operation &op : getBody().front()) {
    if (!isa<NormOp, AttentionOp, MlpOp>(op))
      return op.emitOpError() << "is not allowed in model.layers";
    attention |= isa<AttentionOp>(op);
    mlp |= isa<MlpOp>(op);
  }
  if (!attention || !mlp)
    return emitOpError() << "a layer needs a model.attention and a model.mlp";
  return success();
}

LogicalResult NormOp::verify() {
  if (failed(checkPositive(*this, {{"hidden", getHiddenAttr().getInt()}})))
    return failure();
  return checkDtype(*this, getDtype());
}

LogicalResult AttentionOp::verify() {
  const int64_t h = getHiddenAttr().getInt(), a = getHeadsAttr().getInt(),
                kv = getKvHeadsAttr().getInt();
  if (failed(checkPositive(*this,
                           {{"hidden", h}, {"heads", a}, {"kv_heads", kv}})))
    return failure();
  if (h % a != 0)
    return emitOpError() << "hidden " << h << " is not a multiple of heads "
                         << a;
  if (a % kv != 0)
    return emitOpError() << "heads " << a << " is not a multiple of kv_heads "
                         << kv;
  return checkDtype(*this, getDtype());
}

LogicalResult MlpOp::verify() {
  if (failed(checkPositive(*this, {{"hidden", getHiddenAttr().getInt()},
                                   {"ffn", getFfnAttr().getInt()}})))
    return failure();
  const bool e = getExpertsAttr() != nullptr, k = getTopKAttr() != nullptr,
             c = getCapacityAttr() != nullptr;
  if (e != k || e != c)
    return emitOpError()
           << "experts, top_k and capacity come together (a mixture of "
              "experts) or not at all";
  if (e) {
    const int64_t experts = getExpertsAttr().getInt(),
                  topK = getTopKAttr().getInt();
    const double capacity = getCapacityAttr().getValueAsDouble();
    if (experts < 2 || experts > kMaxExperts)
      return emitOpError() << "experts must be between 2 and " << kMaxExperts
                           << ", got " << experts;
    if (topK < 1 || topK > experts)
      return emitOpError() << "top_k must be between 1 and experts (" << experts
                           << "), got " << topK;
    if (!(capacity > 0) || capacity > kMaxCapacityFactor)
      return emitOpError() << "capacity must be in (0, "
                           << llvm::formatv("{0}", kMaxCapacityFactor)
                           << "], got " << llvm::formatv("{0}", capacity);
  }
  return checkDtype(*this, getDtype());
}

double MlpOp::routedPerToken() {
  if (!isMixture())
    return 1;
  return sluice::model::routedPerToken(getExpertsAttr().getInt(),
                                       getTopKAttr().getInt(),
                                       getCapacityAttr().getValueAsDouble());
}

LogicalResult HeadOp::verify() {
  if (failed(checkPositive(*this, {{"vocab", getVocabAttr().getInt()},
                                   {"hidden", getHiddenAttr().getInt()}})))
    return failure();
  return checkDtype(*this, getDtype());
}

//===----------------------------------------------------------------------===//
// model.job
//===----------------------------------------------------------------------===//

/// The adversarial-training attributes (docs/adversarial.md).
static LogicalResult verifyAdversarial(JobOp op) {
  const bool any = op.getPgdStepsAttr() || op.getEpsilonAttr() ||
                   op.getStepSizeAttr() || op.getAttackFractionAttr() ||
                   op.getAttackFractionEndAttr() || op.getPseudoBatchesAttr() ||
                   op.getPeerAttr();
  if (!op.getAdversarialAttr()) {
    if (any)
      return op.emitOpError() << "pgd_steps, epsilon, step_size, "
                                 "attack_fraction[_end], pseudo_batches and "
                                 "peer need adversarial";
    return success();
  }
  if (op.getAction() != JobAction::Train)
    return op.emitOpError() << "adversarial applies to train jobs only";
  StringRef kind = *op.getAdversarial();
  if (kind != "pgd" && kind != "dbac" && kind != "peeraid")
    return op.emitOpError()
           << "adversarial must be pgd, dbac or peeraid, got '" << kind << "'";
  if (auto k = op.getPgdStepsAttr(); k && (k.getInt() < 1 || k.getInt() > 1000))
    return op.emitOpError()
           << "pgd_steps must lie in [1, 1000], got " << k.getInt();
  for (auto [name, attr] :
       {std::pair<const char *, FloatAttr>{"epsilon", op.getEpsilonAttr()},
        {"step_size", op.getStepSizeAttr()}})
    if (attr && !(attr.getValueAsDouble() > 0))
      return op.emitOpError()
             << name << " must be positive, got " << attr.getValueAsDouble();
  for (auto [name, attr] :
       {std::pair<const char *, FloatAttr>{"attack_fraction",
                                           op.getAttackFractionAttr()},
        {"attack_fraction_end", op.getAttackFractionEndAttr()}})
    if (attr && !(attr.getValueAsDouble() >= 0 && attr.getValueAsDouble() <= 1))
      return op.emitOpError()
             << name << " must lie in [0, 1], got " << attr.getValueAsDouble();
  if ((op.getAttackFractionEndAttr() || op.getPseudoBatchesAttr()) &&
      kind != "dbac")
    return op.emitOpError()
           << "attack_fraction_end and pseudo_batches need adversarial dbac";
  if (kind == "dbac") {
    if (!op.getStepsAttr())
      return op.emitOpError() << "adversarial dbac needs steps";
    auto valueOr = [](FloatAttr a, double d) {
      return a ? a.getValueAsDouble() : d;
    };
    if (valueOr(op.getAttackFractionAttr(), 0.0) >
        valueOr(op.getAttackFractionEndAttr(), 1.0))
      return op.emitOpError()
             << "attack_fraction must not exceed attack_fraction_end";
    if (auto p = op.getPseudoBatchesAttr(); p && p.getInt() < 1)
      return op.emitOpError()
             << "pseudo_batches must be positive, got " << p.getInt();
  }
  if ((kind == "peeraid") != bool(op.getPeerAttr()))
    return op.emitOpError() << "peer is needed by, and only by, adversarial "
                               "peeraid";
  return success();
}

LogicalResult JobOp::verify() {
  if (!getBatchAttr()) {
    if (getAction() != JobAction::Infer)
      return emitOpError() << "a " << stringifyJobAction(getAction())
                           << " job needs batch";
    if (getMicroBatchAttr())
      return emitOpError() << "micro_batch needs batch";
  }
  const int64_t batch = getBatchAttr() ? getBatchAttr().getInt() : 1;
  if (batch <= 0)
    return emitOpError() << "batch must be positive, got " << batch;
  if (auto mb = getMicroBatchAttr()) {
    if (mb.getInt() <= 0 || batch % mb.getInt() != 0)
      return emitOpError() << "micro_batch " << mb.getInt()
                           << " must be positive and divide batch " << batch;
  }
  for (auto [name, attr] :
       {std::pair<const char *, IntegerAttr>{"seq", getSeqAttr()},
        {"tokens", getTokensAttr()},
        {"steps", getStepsAttr()}})
    if (attr && attr.getInt() <= 0)
      return emitOpError() << name << " must be positive, got "
                           << attr.getInt();
  if (getAction() != JobAction::Finetune &&
      (getParamHome() || getGradHome() || getOptimizerHome()))
    return emitOpError() << "param_home, grad_home and optimizer_home apply "
                            "to finetune jobs only";
  if (getOptimizerHome() == Tier::Gpu)
    return emitOpError() << "optimizer_home must be cpu, nvme or csd";
  if (auto g = getGradHome()) {
    if (*g != Tier::Cpu && *g != Tier::Csd)
      return emitOpError() << "grad_home must be cpu or csd, got "
                           << stringifyTier(*g);
    std::optional<Tier> o = getOptimizerHome();
    if (o && (*g == Tier::Csd) != (*o == Tier::Csd))
      return emitOpError() << "grad_home " << stringifyTier(*g)
                           << " needs optimizer_home "
                           << (*g == Tier::Csd ? "csd" : "cpu or nvme");
  }
  if (auto r = getLoraRankAttr()) {
    if (getAction() != JobAction::Finetune)
      return emitOpError() << "lora_rank applies to finetune jobs only";
    if (r.getInt() <= 0 || r.getInt() > 65536)
      return emitOpError() << "lora_rank must lie in [1, 65536], got "
                           << r.getInt();
  }
  if (getQuantize() && !getLoraRankAttr())
    return emitOpError() << "quantize needs lora_rank (QLoRA quantizes the "
                            "frozen base of a LoRA fine-tune)";
  if ((getCompressAttr() || getCompressRankAttr()) &&
      getAction() != JobAction::Train)
    return emitOpError() << "compress and compress_rank apply to train jobs "
                            "only";
  if (auto r = getCompressRankAttr()) {
    if (r.getInt() <= 0)
      return emitOpError() << "compress_rank must be positive, got "
                           << r.getInt();
    if (!getCompress().value_or(false))
      return emitOpError() << "compress_rank needs compress = true";
  }
  if (auto ps = getParameterServerAttr()) {
    if (getAction() != JobAction::Train)
      return emitOpError() << "parameter_server applies to train jobs only";
    if (ps.getValue().empty())
      return emitOpError() << "parameter_server must name a device";
    if (getCompressAttr())
      return emitOpError() << "parameter_server and compress do not combine "
                              "(DisDP plans ZeRO-3 data parallelism)";
  }
  if (getCompressTensorsAttr() && getAction() != JobAction::Infer)
    return emitOpError() << "compress_tensors applies to infer jobs only";
  if (failed(verifyAdversarial(*this)))
    return failure();
  if (getAction() == JobAction::Infer && !getTokensAttr())
    return emitOpError() << "an infer job needs tokens";
  if (getAction() != JobAction::Infer && getTokensAttr())
    return emitOpError() << "tokens applies to infer jobs only";
  return success();
}

LogicalResult JobOp::verifySymbolUses(SymbolTableCollection &symbols) {
  Operation *target = symbols.lookupNearestSymbolFrom(*this, getModelAttr());
  if (getAction() == JobAction::Distill) {
    if (!target || !isa<DistillOp>(target))
      return emitOpError() << "'" << getModel()
                           << "' does not name a model.distill";
    return success();
  }
  if (!target || !isa<TransformerOp>(target))
    return emitOpError() << "'" << getModel()
                         << "' does not name a model.transformer";
  if (auto peer = getPeerAttr();
      peer && !isa_and_nonnull<TransformerOp>(
                  symbols.lookupNearestSymbolFrom(*this, peer)))
    return emitOpError() << "peer '" << peer.getValue()
                         << "' does not name a model.transformer";
  return success();
}

//===----------------------------------------------------------------------===//
// model.distill
//===----------------------------------------------------------------------===//

LogicalResult DistillOp::verifySymbolUses(SymbolTableCollection &symbols) {
  if (getTeacher() == getStudent())
    return emitOpError() << "teacher and student are the same model '"
                         << getTeacher() << "'";
  const int64_t blocks = getBlocksAttr().getInt();
  if (blocks <= 0)
    return emitOpError() << "blocks must be positive, got " << blocks;
  for (auto [role, ref] :
       {std::pair<const char *, FlatSymbolRefAttr>{"teacher", getTeacherAttr()},
        {"student", getStudentAttr()}}) {
    auto model = dyn_cast_or_null<TransformerOp>(
        symbols.lookupNearestSymbolFrom(*this, ref));
    if (!model)
      return emitOpError() << role << " '" << ref.getValue()
                           << "' does not name a model.transformer";
    if (blocks > model.getLayersAttr().getInt())
      return emitOpError() << "blocks (" << blocks << ") exceeds the layers of "
                           << role << " '" << ref.getValue() << "' ("
                           << model.getLayersAttr().getInt() << ")";
  }
  return success();
}

//===----------------------------------------------------------------------===//
// model.gnn, model.gnn_train
//===----------------------------------------------------------------------===//

LogicalResult GnnOp::verify() {
  for (auto [name, value] :
       {std::pair<const char *, int64_t>{"layers", getLayers()},
        {"features", getFeatures()},
        {"hidden", getHidden()},
        {"classes", getClasses()}})
    if (value <= 0)
      return emitOpError() << name << " must be positive, got " << value;
  if (getFanouts().size() != getLayers())
    return emitOpError() << "has " << getFanouts().size() << " fanouts for "
                         << getLayers() << " layers";
  for (int64_t f : getFanouts())
    if (f <= 0 || f > 0xFFFFFFFFll)
      return emitOpError() << "fanout " << f << " is not in [1, 2^32 - 1]";
  if (auto heads = getHeadsAttr()) {
    if (getKind() != GnnKind::Gat)
      return emitOpError() << "heads need kind gat";
    if (heads.getInt() < 1 || heads.getInt() > kMaxGnnHeads)
      return emitOpError() << "heads " << heads.getInt() << " is not in [1, "
                           << kMaxGnnHeads << "]";
    if (getLayers() > 1 && getHidden() % heads.getInt() != 0)
      return emitOpError() << "hidden " << getHidden()
                           << " is not a multiple of heads " << heads.getInt();
  }
  return success();
}

LogicalResult GnnTrainOp::verify() {
  if (getBatch() <= 0 || getEpochs() <= 0)
    return emitOpError() << "batch and epochs must be positive";
  if (!(getLr().convertToDouble() > 0.0))
    return emitOpError() << "lr must be positive";
  if (!(getWeightDecay().convertToDouble() >= 0.0))
    return emitOpError() << "weight_decay must not be negative";
  if (!(getDropout().convertToDouble() >= 0.0 &&
        getDropout().convertToDouble() < 1.0))
    return emitOpError() << "dropout must be in [0, 1)";
  if (auto threads = getThreadsAttr(); threads && threads.getInt() <= 0)
    return emitOpError() << "threads must be positive";
  if (auto tile = getTileAttr();
      tile && (tile.getInt() <= 0 || tile.getInt() > kMaxGnnTile))
    return emitOpError() << "tile must be 1 to " << kMaxGnnTile << ", got "
                         << tile.getInt();
  if (auto cache = getFeatureCacheAttr()) {
    if (cache.getInt() <= 0)
      return emitOpError() << "feature_cache must be positive";
    if (!getFeatures())
      return emitOpError() << "feature_cache needs a features file";
  }
  return success();
}

LogicalResult GnnTrainOp::verifySymbolUses(SymbolTableCollection &symbols) {
  Operation *target = symbols.lookupNearestSymbolFrom(*this, getModelAttr());
  if (!target || !isa<GnnOp>(target))
    return emitOpError() << "'" << getModel() << "' does not name a model.gnn";
  if (!symbols.lookupNearestSymbolFrom(*this, getGraphAttr()))
    return emitOpError() << "'" << getGraph() << "' does not name a graph";
  return success();
}
