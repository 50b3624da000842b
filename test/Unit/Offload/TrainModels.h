//===- TrainModels.h - The models the offload trainer's tests train -*- C++
//-*-===//
//
// The offload trainer's suites (OffloadTrainerTest, AbftTest, PlanExecTest)
// run every check on each model of trainModels(): the small MLP of Mlp.h
// and the small transformer of Transformer.h. A ModelCase holds what
// differs between them; the helpers are what every suite needs (an I/O
// engine, trainer options, the in-memory reference run, a bit-exact
// comparison of the parameters).
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_TEST_UNIT_OFFLOAD_TRAINMODELS_H
#define SLUICE_TEST_UNIT_OFFLOAD_TRAINMODELS_H

#include "runtime/src/train/OffloadTrainer.h"
#include "runtime/src/train/Transformer.h"

#include "test/Unit/Offload/TestDir.h"

#include <cstring>
#include <gtest/gtest.h>
#include <memory>
#include <string>
#include <vector>

namespace sluice::test {

/// widths 24-48-40-8, batch 12.
inline train::MlpConfig smallMlpConfig() {
  train::MlpConfig c;
  c.widths = {24, 48, 40, 8};
  c.batch = 12;
  c.learningRate = 1e-2f;
  c.seed = 42;
  return c;
}

/// vocab 13, seq 8, d 16, 2 heads, 2 blocks, batch 3: 4 runtime layers.
inline train::TransformerConfig smallTransformerConfig() {
  train::TransformerConfig c;
  c.vocab = 13;
  c.seq = 8;
  c.dModel = 16;
  c.heads = 2;
  c.blocks = 2;
  c.batch = 3;
  c.adam.learningRate = 5e-3f;
  c.seed = 5;
  return c;
}

struct ModelCase {
  const char *name; ///< the test-name suffix
  std::unique_ptr<train::TrainModel> (*make)();
  /// A device budget far below the model that still holds every entry
  /// under swapAll(L, 1): the MLP's biggest tensor is 48*40+40 floats
  /// (7,840 B, one 8 KiB block), 10 blocks; the transformer's a block's
  /// 3,280 floats (4 pages), an entry holds up to four such tensors and
  /// the window the next entry's, 12 of them.
  uint64_t tightBudget;
  /// Requests of a swapAll(L, 1) step that fail it (at least).
  uint64_t minFailingRequests;
  /// The first layer whose forward runs a GEMM (the transformer's layer 0
  /// is an embedding lookup).
  uint32_t firstGemmLayer;
};

inline const std::vector<ModelCase> &trainModels() {
  static const std::vector<ModelCase> models = {
      {"mlp",
       [] {
         return std::unique_ptr<train::TrainModel>(
             new train::MlpModel(smallMlpConfig()));
       },
       10 * 8192, 5, 0},
      {"transformer",
       [] {
         return std::unique_ptr<train::TrainModel>(
             new train::TransformerModel(smallTransformerConfig()));
       },
       12 * 4096 * 4, 10, 1},
  };
  return models;
}

inline std::string modelName(const testing::TestParamInfo<ModelCase> &info) {
  return info.param.name;
}

struct Engine {
  explicit Engine(sluice_io_backend_t backend = SLUICE_IO_BACKEND_THREADS) {
    sluice_io_options_t o;
    sluice_io_options_init(&o);
    o.backend = backend;
    o.block_size = 8192;
    EXPECT_EQ(sluice_io_engine_create(&o, &engine, nullptr), SLUICE_STATUS_OK);
  }
  ~Engine() { sluice_io_engine_destroy(engine); }
  sluice_io_engine_t *engine = nullptr;
};

inline train::OffloadOptions optionsFor(const ScratchDir &dir,
                                        sluice_io_engine_t *engine,
                                        train::OffloadSchedule schedule) {
  train::OffloadOptions o;
  o.swapDir = dir.path;
  o.engine = engine;
  o.schedule = std::move(schedule);
  return o;
}

using Params = std::vector<std::vector<float>>;

/// The in-memory parameters after 0..steps steps, and the losses.
inline std::vector<Params> referenceRun(const train::TrainModel &model,
                                        int steps,
                                        std::vector<float> *losses = nullptr) {
  train::InMemoryTrainer ref(model);
  std::vector<Params> out;
  for (int s = 0; s <= steps; ++s) {
    if (s) {
      float loss = ref.step();
      if (losses)
        losses->push_back(loss);
    }
    Params p;
    for (uint32_t l = 0; l < model.layers(); ++l)
      p.push_back(ref.params(l));
    out.push_back(p);
  }
  return out;
}

inline void expectBitEqual(train::OffloadTrainer &t, const Params &want,
                           const std::string &what) {
  for (uint32_t l = 0; l < want.size(); ++l) {
    std::vector<float> got;
    sluice_error_t err;
    ASSERT_EQ(t.params(l, got, &err), SLUICE_STATUS_OK) << err.message;
    ASSERT_EQ(got.size(), want[l].size());
    EXPECT_EQ(
        std::memcmp(got.data(), want[l].data(), sizeof(float) * got.size()), 0)
        << what << ": layer " << l << " differs";
  }
}

} // namespace sluice::test

#endif // SLUICE_TEST_UNIT_OFFLOAD_TRAINMODELS_H
