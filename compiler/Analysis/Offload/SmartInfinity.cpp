//===- SmartInfinity.cpp - Smart-Infinity's configurations as plans -------===//
#include "compiler/Analysis/Offload/SmartInfinity.h"
#include "compiler/Analysis/Offload/OffloadPresets.h"

using namespace sluice;
using namespace sluice::offload;

llvm::StringRef offload::smartInfinityConfigName(SmartInfinityConfig c) {
  switch (c) {
  case SmartInfinityConfig::Base:
    return "base";
  case SmartInfinityConfig::SmartUpdate:
    return "su";
  case SmartInfinityConfig::SmartUpdateOverlap:
    return "su+o";
  case SmartInfinityConfig::SmartUpdateOverlapComp:
    return "su+o+c";
  }
  return "base";
}

std::optional<SmartInfinityConfig>
offload::parseSmartInfinityConfig(llvm::StringRef name) {
  for (SmartInfinityConfig c :
       {SmartInfinityConfig::Base, SmartInfinityConfig::SmartUpdate,
        SmartInfinityConfig::SmartUpdateOverlap,
        SmartInfinityConfig::SmartUpdateOverlapComp})
    if (smartInfinityConfigName(c) == name)
      return c;
  return std::nullopt;
}

FinetuneOptions offload::smartInfinityOptions(SmartInfinityConfig c,
                                              double topK) {
  FinetuneOptions o;
  // DeepSpeedExample/examples/ds_zero_stage_infinity-nvme.json:
  // offload_param to cpu; the GPT-2 script: --checkpoint-activations.
  o.paramHome = Tier::Host;
  o.recompute = true;
  // Sec. IV-C: loss scaling's NaN/Inf check and gradient clipping need all
  // gradients before any update; ZeRO-Infinity likewise steps after the
  // backward pass.
  o.activeGradientOffload = false;
  if (c == SmartInfinityConfig::Base) {
    o.optimizerHome = Tier::Nvme;
    o.zeroInfinitySwap = true;
    return o;
  }
  o.optimizerHome = Tier::Csd;
  o.csdReadBackBytes = 4; // the fp32 master (Table I: 2M read)
  o.csdTransferOverlap = c != SmartInfinityConfig::SmartUpdate;
  if (c == SmartInfinityConfig::SmartUpdateOverlapComp)
    o.gradTopK = topK;
  return o;
}

llvm::Expected<double> offload::smartInfinitySpeedup(const FinetuneJob &job,
                                                     const Machine &m,
                                                     SmartInfinityConfig c,
                                                     double topK) {
  auto base =
      planFinetune(job, m, smartInfinityOptions(SmartInfinityConfig::Base));
  if (!base)
    return base.takeError();
  auto ours = planFinetune(job, m, smartInfinityOptions(c, topK));
  if (!ours)
    return ours.takeError();
  for (const FinetunePlan *p : {&*base, &*ours})
    if (!p->feasible)
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     "no feasible plan: " +
                                         p->infeasibleReason);
  return base->iterationTime / ours->iterationTime;
}

llvm::ArrayRef<SmartInfinityPublished> offload::smartInfinityPublished() {
  using C = SmartInfinityConfig;
  static const char *const kOneCsd =
      "one CSD adds no bandwidth; the paper's slowdown there is the FPGA's "
      "base overhead (OpenCL, P2P set-up), which has no published figure "
      "and no cost in the model";
  static const SmartInfinityPublished rows[] = {
      // Fig. 9(a), GPT-2, the speedup markers (the text: SU 1.18-1.24x
      // with 6 SSDs and 1.54-1.60x with 10, SU+O up to 1.60-1.66x, SU+O+C
      // 1.85-1.98x, over GPT-2 and BERT).
      {"gpt2-4.0b", 6, C::SmartUpdate, 1.24, "Fig. 9(a), text"},
      {"gpt2-4.0b", 6, C::SmartUpdateOverlap, 1.30, "Fig. 9(a)"},
      {"gpt2-4.0b", 6, C::SmartUpdateOverlapComp, 1.53, "Fig. 9(a)"},
      {"gpt2-4.0b", 10, C::SmartUpdate, 1.54, "Fig. 9(a), text"},
      {"gpt2-4.0b", 10, C::SmartUpdateOverlap, 1.60, "Fig. 9(a), text"},
      {"gpt2-4.0b", 10, C::SmartUpdateOverlapComp, 1.95, "Fig. 9(a)"},
      {"gpt2-8.4b", 6, C::SmartUpdate, 1.24, "Fig. 9(a), text"},
      {"gpt2-8.4b", 6, C::SmartUpdateOverlap, 1.26, "Fig. 9(a)"},
      {"gpt2-8.4b", 6, C::SmartUpdateOverlapComp, 1.42, "Fig. 9(a)"},
      {"gpt2-8.4b", 10, C::SmartUpdate, 1.54, "Fig. 9(a), text"},
      {"gpt2-8.4b", 10, C::SmartUpdateOverlap, 1.56, "Fig. 9(a)"},
      {"gpt2-8.4b", 10, C::SmartUpdateOverlapComp, 1.86, "Fig. 9(a)"},
      // Fig. 10: GPT-2 33.0B (the text: 1.37x and 1.88x).
      {"gpt2-33.0b", 6, C::SmartUpdateOverlapComp, 1.37, "Fig. 10, text"},
      {"gpt2-33.0b", 10, C::SmartUpdateOverlapComp, 1.88, "Fig. 10, text"},
      // Fig. 11(a), A5000, GPT-2 4.0B: both curves over BASE at the same
      // count, read off the figure (normalised to BASE with one SSD).
      {"gpt2-4.0b", 1, C::SmartUpdateOverlap, 0.80, "Fig. 11(a)", false,
       kOneCsd},
      {"gpt2-4.0b", 1, C::SmartUpdateOverlapComp, 0.90, "Fig. 11(a)", false,
       kOneCsd},
      {"gpt2-4.0b", 2, C::SmartUpdateOverlap, 1.00, "Fig. 11(a)"},
      {"gpt2-4.0b", 2, C::SmartUpdateOverlapComp, 1.07, "Fig. 11(a)"},
      {"gpt2-4.0b", 4, C::SmartUpdateOverlap, 1.16, "Fig. 11(a)"},
      {"gpt2-4.0b", 4, C::SmartUpdateOverlapComp, 1.27, "Fig. 11(a)"},
      {"gpt2-4.0b", 8, C::SmartUpdateOverlap, 1.44, "Fig. 11(a)"},
      {"gpt2-4.0b", 8, C::SmartUpdateOverlapComp, 1.67, "Fig. 11(a)"},
      // Fig. 11(b) and the text: "up to 2.11x speedup in the A100 GPU
      // setting", ten SSDs, GPT-2 4.0B.
      {"gpt2-4.0b", 10, C::SmartUpdateOverlapComp, 2.11, "Fig. 11(b), text",
       true},
  };
  return rows;
}
