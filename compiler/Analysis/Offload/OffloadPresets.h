//===- OffloadPresets.h - Named models and machines for planning -*- C++ -*-===//
//
// The models and machines of the validation (docs/offload.md) by name, for
// sluice-plan-offload, the tests and the benchmark.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_COMPILER_ANALYSIS_OFFLOAD_OFFLOADPRESETS_H
#define SLUICE_COMPILER_ANALYSIS_OFFLOAD_OFFLOADPRESETS_H

#include "compiler/Analysis/Model/TransformerCost.h"
#include "compiler/Analysis/Offload/OffloadMachine.h"
#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>

namespace sluice::offload {

/// gpt3-175b (L96 h12288 a96 V50257), gpt3-13b / 13b (Ratel's L40 h5120
/// a40), opt-6.7b, opt-13b, opt-30b (L48 h7168 a56), opt-66b, opt-175b
/// (L96 h12288 a96, V50272), llama2-7b, llama2-13b, llama2-70b; with
/// sequence length `seq` (0 = the model's training length: 1024 for the
/// GPT-3 family as in Ratel's runs, 2048 for OPT, 4096 for Llama 2).
std::optional<model::TransformerConfig> modelPreset(llvm::StringRef name,
                                                    int64_t seq = 0);
/// Comma-separated preset model names.
std::string modelPresetNames();

/// rtx4090-12nvme (Ratel), t4 (FlexGen), a5000-smartssd[-N] (Smart-Infinity
/// with N CSDs, default 10).
std::optional<Machine> machinePreset(llvm::StringRef name);
std::string machinePresetNames();

} // namespace sluice::offload

#endif // SLUICE_COMPILER_ANALYSIS_OFFLOAD_OFFLOADPRESETS_H
