//===- OffloadPresets.cpp - Named models and machines for planning --------===//
#include "compiler/Analysis/Offload/OffloadPresets.h"

using namespace sluice;
using namespace sluice::offload;
using model::TransformerConfig;

std::optional<TransformerConfig> offload::modelPreset(llvm::StringRef name,
                                                      int64_t seq) {
  auto gpt = [&](int64_t L, int64_t h, int64_t a) {
    return TransformerConfig::gpt(L, h, a, seq > 0 ? seq : 1024, 50257);
  };
  auto opt = [&](int64_t L, int64_t h, int64_t a) {
    return TransformerConfig::gpt(L, h, a, seq > 0 ? seq : 2048, 50272);
  };
  auto llama = [&](int64_t L, int64_t h, int64_t a, int64_t kv, int64_t f) {
    return TransformerConfig::llama(L, h, a, kv, f, seq > 0 ? seq : 4096,
                                    32000);
  };
  // GPT-2 as Smart-Infinity trains it (seq 1024, batch 4): the paper's
  // parameter counts; the shapes are an assumption (Megatron's 8.3B hidden
  // size and heads, the layer count that gives the count; 33.0B: hidden
  // 6144), see docs/offload.md, "Smart-Infinity".
  if (name == "gpt2-4.0b")
    return gpt(34, 3072, 32);
  if (name == "gpt2-8.4b")
    return gpt(73, 3072, 32);
  if (name == "gpt2-33.0b")
    return gpt(72, 6144, 64);
  if (name == "gpt3-175b" || name == "175b")
    return gpt(96, 12288, 96);
  if (name == "gpt3-13b" || name == "13b")
    return gpt(40, 5120, 40);
  if (name == "opt-6.7b")
    return opt(32, 4096, 32);
  if (name == "opt-13b")
    return opt(40, 5120, 40);
  if (name == "opt-30b")
    return opt(48, 7168, 56);
  if (name == "opt-66b")
    return opt(64, 9216, 72);
  if (name == "opt-175b")
    return opt(96, 12288, 96);
  if (name == "llama2-7b")
    return llama(32, 4096, 32, 32, 11008);
  if (name == "llama2-13b")
    return llama(40, 5120, 40, 40, 13824);
  if (name == "llama2-70b")
    return llama(80, 8192, 64, 8, 28672);
  return std::nullopt;
}

std::string offload::modelPresetNames() {
  return "gpt3-175b, gpt3-13b (13b), opt-6.7b, opt-13b, opt-30b, opt-66b, "
         "opt-175b, llama2-7b, llama2-13b, llama2-70b, gpt2-4.0b, gpt2-8.4b, "
         "gpt2-33.0b";
}

std::optional<Machine> offload::machinePreset(llvm::StringRef name) {
  if (name == "rtx4090-12nvme")
    return Machine::rtx4090With12Nvme();
  if (name == "t4")
    return Machine::t4FlexGen();
  if (name == "a5000-smartssd")
    return Machine::a5000SmartSsd(10);
  if (name == "a100-smartssd")
    return Machine::a100SmartSsd(10);
  for (auto [prefix, make] :
       {std::pair{"a5000-smartssd-", &Machine::a5000SmartSsd},
        std::pair{"a100-smartssd-", &Machine::a100SmartSsd}}) {
    if (!name.consume_front(prefix))
      continue;
    int64_t n = 0;
    if (name.getAsInteger(10, n) || n <= 0 || n > 64)
      return std::nullopt;
    return make(n);
  }
  return std::nullopt;
}

std::string offload::machinePresetNames() {
  return "rtx4090-12nvme, t4, a5000-smartssd, a5000-smartssd-<N>, "
         "a100-smartssd, a100-smartssd-<N>";
}
