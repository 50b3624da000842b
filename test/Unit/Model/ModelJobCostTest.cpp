//===- ModelJobCostTest.cpp - model-cost on the example model jobs --------===//
//
// Compiles examples/models/*.sluice through sluice::Compilation (which runs
// model-cost, as sluicec does) and checks the attributes the offload
// planners read against the reference formulas of planning-models.md:
// Llama-2 70B's parameter count (68.98B, "70B"), its KV cache (4*L*h bytes
// per token in 16-bit, times kv_heads/heads for GQA), activations per layer
// (Korthikanti: s*h*(34 + 5as/h) per sequence, 34*s*h with selective
// recomputation), model states (2 + 2 + 12 bytes per parameter) and forward
// FLOPs (2 per matmul weight per token plus 4*s^2*h per layer).
//
//===----------------------------------------------------------------------===//
#include "compiler/Pipelines/Compilation.h"
#include "dialects/Model/IR/ModelOps.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/SourceMgr.h"
#include "gtest/gtest.h"

#include <cmath>
#include <memory>

using namespace sluice;

namespace {

struct Compiled {
  mlir::DialectRegistry registry;
  std::unique_ptr<mlir::MLIRContext> ctx;
  llvm::SourceMgr sourceMgr;
  std::unique_ptr<Compilation> compilation;
  std::string diagnostics;

  bool run(llvm::StringRef name) {
    std::string path =
        (llvm::Twine(SLUICE_SOURCE_DIR) + "/examples/models/" + name).str();
    registerSluiceDialects(registry);
    ctx = std::make_unique<mlir::MLIRContext>(registry);
    ctx->loadAllAvailableDialects();
    ctx->getDiagEngine().registerHandler([this](mlir::Diagnostic &d) {
      diagnostics += d.str() + "\n";
    });
    compilation = std::make_unique<Compilation>(*ctx, sourceMgr);
    return mlir::succeeded(compilation->parse(path)) &&
           mlir::succeeded(compilation->check()) &&
           mlir::succeeded(compilation->lower());
  }
  model::JobOp job(llvm::StringRef name) {
    for (auto j : compilation->module().getOps<model::JobOp>())
      if (j.getSymName() == name)
        return j;
    return {};
  }
};

int64_t attr(mlir::Operation *op, llvm::StringRef name) {
  auto a = op->getAttrOfType<mlir::IntegerAttr>(name);
  EXPECT_TRUE(a) << name.str();
  return a ? a.getInt() : -1;
}
int64_t attr(mlir::DictionaryAttr d, llvm::StringRef name) {
  auto a = d.getAs<mlir::IntegerAttr>(name);
  EXPECT_TRUE(a) << name.str();
  return a ? a.getInt() : -1;
}

TEST(ModelJobCost, Llama2_70BMatchesTheReference) {
  Compiled c;
  ASSERT_TRUE(c.run("finetune-llama2-70b.sluice")) << c.diagnostics;
  const double L = 80, h = 8192, a = 64, kv = 8, f = 28672, V = 32000;
  const double hd = h / a, kvDim = kv * hd;

  // The model at its own context (4096).
  auto model = *c.compilation->module().getOps<model::TransformerOp>().begin();
  const int64_t N = attr(model, "params");
  EXPECT_EQ(N, 68976648192); // Meta's model card: 68.98B ("70B")
  EXPECT_NEAR(static_cast<double>(N), 69e9, 0.001 * 69e9);
  // Per layer: Q, O (h x h), K, V (h x kv*hd), three SwiGLU matrices, two
  // RMSNorm scales; embedding and untied head V x h; a final RMSNorm.
  const double perLayer = 2 * h * h + 2 * h * kvDim + 3 * h * f + 2 * h;
  EXPECT_EQ(static_cast<double>(N), L * perLayer + 2 * V * h + h);
  EXPECT_TRUE(model->hasAttr("cross_checked"));
  // KV cache: 4*L*h bytes per token in 16-bit, x kv/heads for GQA.
  EXPECT_EQ(static_cast<double>(attr(model, "kv_cache_bytes_per_token")),
            4 * L * h * kv / a);
  // Model states: 2 + 2 + 12 bytes per parameter (Adam).
  EXPECT_EQ(attr(model, "param_bytes"), 2 * N);
  EXPECT_EQ(attr(model, "grad_bytes"), 2 * N);
  EXPECT_EQ(attr(model, "optimizer_bytes"), 12 * N);

  // The fine-tuning job at its sequence length (1024), per sequence.
  model::JobOp tune = c.job("tune");
  ASSERT_TRUE(tune);
  EXPECT_EQ(attr(tune, "cost_seq"), 1024);
  EXPECT_EQ(attr(tune, "params"), N);
  EXPECT_EQ(attr(tune, "optimizer_bytes"), 12 * N);
  auto groups = tune->getAttrOfType<mlir::ArrayAttr>("layer_costs");
  ASSERT_TRUE(groups);
  ASSERT_EQ(groups.size(), 1u);
  auto g = mlir::cast<mlir::DictionaryAttr>(groups[0]);
  const double s = 1024;
  EXPECT_EQ(attr(g, "count"), 80);
  EXPECT_EQ(static_cast<double>(attr(g, "params")), perLayer);
  EXPECT_EQ(attr(g, "kv_dim"), 1024);
  EXPECT_EQ(attr(g, "ffn"), 28672);
  EXPECT_TRUE(g.getAs<mlir::BoolAttr>("gated").getValue());
  // Korthikanti et al., no parallelism, one sequence (b = 1).
  EXPECT_EQ(static_cast<double>(attr(g, "act_bytes")),
            s * h * (34 + 5 * a * s / h));
  EXPECT_EQ(static_cast<double>(attr(g, "act_bytes_selective")), 34 * s * h);
  // 2 FLOPs per matmul weight per token + Q K^T and scores x V.
  const double matmul = 2 * h * h + 2 * h * kvDim + 3 * h * f;
  EXPECT_EQ(static_cast<double>(attr(g, "fwd_flops")),
            2 * s * matmul + 4 * s * s * h);
  EXPECT_EQ(static_cast<double>(attr(tune, "head_fwd_flops")), 2 * s * h * V);
  // Training FLOPs per token against the 6N rule of thumb: within 10%
  // (attention adds 12*s*h*L per token, the embedding none).
  const double perToken =
      3 * (L * static_cast<double>(attr(g, "fwd_flops")) +
           static_cast<double>(attr(tune, "head_fwd_flops"))) /
      s;
  EXPECT_NEAR(perToken / (6 * static_cast<double>(N)), 1.0, 0.1);

  // The inference job at its prompt length.
  model::JobOp serve = c.job("serve");
  ASSERT_TRUE(serve);
  EXPECT_EQ(attr(serve, "cost_seq"), 512);
}

TEST(ModelJobCost, MixedWidthsHaveOneEntryPerGroup) {
  Compiled c;
  ASSERT_TRUE(c.run("finetune-mixed-widths.sluice")) << c.diagnostics;
  model::JobOp tune = c.job("tune");
  ASSERT_TRUE(tune);
  auto groups = tune->getAttrOfType<mlir::ArrayAttr>("layer_costs");
  ASSERT_TRUE(groups);
  ASSERT_EQ(groups.size(), 2u);
  const double h = 4096;
  int64_t total = attr(tune, "other_params");
  for (auto [i, ffn] : {std::pair<unsigned, double>{0, 4096}, {1, 16384}}) {
    auto g = mlir::cast<mlir::DictionaryAttr>(groups[i]);
    EXPECT_EQ(attr(g, "count"), 16);
    EXPECT_EQ(attr(g, "ffn"), static_cast<int64_t>(ffn));
    // MHA (kv_heads defaults to heads), SwiGLU, RMSNorm.
    EXPECT_EQ(static_cast<double>(attr(g, "params")),
              4 * h * h + 3 * h * ffn + 2 * h);
    total += 16 * attr(g, "params");
  }
  EXPECT_EQ(attr(tune, "params"), total);
  // Not uniform: no cross-check against the closed forms.
  auto model = *c.compilation->module().getOps<model::TransformerOp>().begin();
  EXPECT_FALSE(model->hasAttr("cross_checked"));
  EXPECT_EQ(attr(model, "ffn"), 16384); // the widest
}

TEST(ModelJobCost, Gpt3ExampleIsUniformAndCrossChecked) {
  Compiled c;
  ASSERT_TRUE(c.run("finetune-gpt3.sluice")) << c.diagnostics;
  for (auto model : c.compilation->module().getOps<model::TransformerOp>())
    EXPECT_TRUE(model->hasAttr("cross_checked")) << model.getSymName().str();
  model::JobOp tune = c.job("tune");
  ASSERT_TRUE(tune);
  EXPECT_EQ(attr(tune, "params"), 174604259328);
}

} // namespace
