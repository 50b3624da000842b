//===- DistillExport.cpp - Pipe-BD plans as text and JSON -----------------===//
#include "compiler/Target/Parallel/DistillExport.h"

#include "dialects/Model/IR/ModelOps.h"
#include "dialects/Plan/IR/PlanOps.h"
#include "support/Units.h"

#include "mlir/IR/SymbolTable.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

using namespace mlir;
using namespace sluice;
using namespace sluice::target;
using llvm::json::Array;
using llvm::json::Object;

namespace {

/// What the writers read of one plan.
struct DistillView {
  mutable plan::DistillOp op; // op handles: their getters are not const
  mutable model::JobOp job;
  mutable model::DistillOp pair;
  int64_t teacherLayers = 0, studentLayers = 0, blocks = 0;
};

double f64(FloatAttr a) { return a.getValueAsDouble(); }

FailureOr<DistillView> view(plan::DistillOp op) {
  DistillView v;
  v.op = op;
  v.job =
      SymbolTable::lookupNearestSymbolFrom<model::JobOp>(op, op.getJobAttr());
  if (!v.job)
    return op.emitError() << "'" << op.getJob()
                          << "' does not name a model.job";
  v.pair = SymbolTable::lookupNearestSymbolFrom<model::DistillOp>(
      v.job, v.job.getModelAttr());
  if (!v.pair)
    return v.job.emitError()
           << "'" << v.job.getModel() << "' does not name a model.distill";
  auto layers = [&](FlatSymbolRefAttr ref) -> int64_t {
    auto t =
        SymbolTable::lookupNearestSymbolFrom<model::TransformerOp>(v.pair, ref);
    return t ? t.getLayersAttr().getInt() : 0;
  };
  v.teacherLayers = layers(v.pair.getTeacherAttr());
  v.studentLayers = layers(v.pair.getStudentAttr());
  v.blocks = v.pair.getBlocksAttr().getInt();
  return v;
}

/// Layers [first, last] of `layers` layers in blocks [b0, b0 + nb) of
/// `blocks` (model-plan-distill's split: even, the first blocks take the
/// extra layer).
std::pair<int64_t, int64_t> layerRange(int64_t layers, int64_t blocks,
                                       int64_t b0, int64_t nb) {
  auto first = [&](int64_t j) {
    const int64_t base = layers / blocks, extra = layers % blocks;
    return j * base + std::min(j, extra);
  };
  return {first(b0), first(b0 + nb) - 1};
}

std::string quantity(double v, const Dim &d) { return formatQuantity(v, d); }

void writeSummary(const DistillView &v, llvm::raw_ostream &os) {
  plan::DistillOp op = v.op;
  auto stages = op.getBody().front().getOps<plan::DistillStageOp>();
  int64_t gpus = 0;
  for (plan::DistillStageOp s : stages)
    gpus += static_cast<int64_t>(s.getGpus().size());
  const double time = f64(op.getTimeAttr()),
               base = f64(op.getBaselineTimeAttr());
  const bool baseFits =
      f64(op.getBaselineMemoryAttr()) <= f64(op.getMemoryAvailableAttr());
  os << "job " << v.job.getSymName() << ": distill " << v.pair.getStudent()
     << " from " << v.pair.getTeacher() << " (" << v.blocks << " blocks) on "
     << op.getTopology() << " (" << gpus << " gpus), batch "
     << op.getBatchAttr().getInt() << "\n";
  os << "  per batch: " << quantity(time, Dim::time())
     << " predicted (Pipe-BD); block by block, data parallel on every gpu: "
     << quantity(base, Dim::time())
     << llvm::formatv(" ({0:F2}x)", time > 0 ? base / time : 0.0);
  if (!baseFits)
    os << ", which does not fit: "
       << quantity(f64(op.getBaselineMemoryAttr()), Dim::bytes()) << " per gpu";
  os << "\n";
  os << "  memory per gpu: "
     << quantity(f64(op.getMemoryAvailableAttr()), Dim::bytes())
     << " usable (calibrated needs below)\n";
  for (plan::DistillStageOp s : stages) {
    const int64_t b0 = s.getFirstBlockAttr().getInt(),
                  nb = s.getBlocksAttr().getInt();
    auto [t0, t1] = layerRange(v.teacherLayers, v.blocks, b0, nb);
    auto [s0, s1] = layerRange(v.studentLayers, v.blocks, b0, nb);
    os << "  stage " << s.getIndexAttr().getInt() << ": blocks " << b0 << "-"
       << b0 + nb - 1 << " (teacher layers " << t0 << "-" << t1
       << ", student layers " << s0 << "-" << s1 << ") on ";
    for (auto [i, g] : llvm::enumerate(s.getGpus()))
      os << (i ? ", " : "") << cast<StringAttr>(g).getValue();
    os << "\n    compute " << quantity(f64(s.getComputeAttr()), Dim::time())
       << ", gradient all-reduce "
       << quantity(f64(s.getAllReduceAttr()), Dim::time())
       << ", send to the next stage "
       << quantity(f64(s.getP2pAttr()), Dim::time()) << "; memory "
       << quantity(f64(s.getMemoryAttr()), Dim::bytes()) << " per gpu\n";
  }
}

llvm::json::Value toJson(const DistillView &v) {
  plan::DistillOp op = v.op;
  Array stages;
  for (plan::DistillStageOp s :
       op.getBody().front().getOps<plan::DistillStageOp>()) {
    const int64_t b0 = s.getFirstBlockAttr().getInt(),
                  nb = s.getBlocksAttr().getInt();
    auto [t0, t1] = layerRange(v.teacherLayers, v.blocks, b0, nb);
    auto [s0, s1] = layerRange(v.studentLayers, v.blocks, b0, nb);
    Array gpus;
    for (Attribute g : s.getGpus())
      gpus.push_back(cast<StringAttr>(g).getValue().str());
    stages.push_back(Object{{"stage", s.getIndexAttr().getInt()},
                            {"first_block", b0},
                            {"blocks", nb},
                            {"teacher_layers", Array{t0, t1}},
                            {"student_layers", Array{s0, s1}},
                            {"gpus", std::move(gpus)},
                            {"compute_s", f64(s.getComputeAttr())},
                            {"all_reduce_s", f64(s.getAllReduceAttr())},
                            {"p2p_s", f64(s.getP2pAttr())},
                            {"memory_bytes", f64(s.getMemoryAttr())}});
  }
  const double time = f64(op.getTimeAttr()),
               base = f64(op.getBaselineTimeAttr());
  return Object{{"job", v.job.getSymName().str()},
                {"action", "distill"},
                {"teacher", v.pair.getTeacher().str()},
                {"student", v.pair.getStudent().str()},
                {"blocks", v.blocks},
                {"topology", op.getTopology().str()},
                {"batch", op.getBatchAttr().getInt()},
                {"batch_time_s", time},
                {"baseline_time_s", base},
                {"speedup", time > 0 ? base / time : 0.0},
                {"memory_available_bytes", f64(op.getMemoryAvailableAttr())},
                {"baseline_memory_bytes", f64(op.getBaselineMemoryAttr())},
                {"baseline_fits", f64(op.getBaselineMemoryAttr()) <=
                                      f64(op.getMemoryAvailableAttr())},
                {"stages", std::move(stages)}};
}

} // namespace

LogicalResult target::writeDistillPlans(ModuleOp module,
                                        llvm::StringRef jobName,
                                        DistillFormat format,
                                        llvm::raw_ostream &os) {
  SmallVector<plan::DistillOp> plans;
  for (plan::DistillOp op : module.getOps<plan::DistillOp>())
    if (jobName.empty() || op.getJob() == jobName)
      plans.push_back(op);
  if (plans.empty())
    return emitError(module.getLoc())
           << "no distill plan"
           << (jobName.empty() ? std::string()
                               : " for job '" + jobName.str() + "'");
  Object all;
  for (plan::DistillOp op : plans) {
    FailureOr<DistillView> v = view(op);
    if (failed(v))
      return failure();
    if (format == DistillFormat::Summary)
      writeSummary(*v, os);
    else
      all[v->job.getSymName()] = toJson(*v);
  }
  if (format == DistillFormat::Json)
    os << llvm::formatv("{0:2}", llvm::json::Value(std::move(all))) << "\n";
  return success();
}
