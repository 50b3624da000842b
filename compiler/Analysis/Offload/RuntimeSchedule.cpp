//===- RuntimeSchedule.cpp - A fine-tuning plan as a runtime schedule -----===//
#include "compiler/Analysis/Offload/RuntimeSchedule.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"

#include <algorithm>
#include <array>

using namespace sluice;
using namespace sluice::offload;
using llvm::json::Array;
using llvm::json::Object;

namespace {

// The runtime's tensors (runtime/src/train/OffloadSchedule.h): slots of a
// layer, and the phases of a step.
enum Slot : unsigned { Param, Grad, AdamM, AdamV, Act, kSlots };
const char *const kSlotNames[kSlots] = {"param", "grad", "adam_m", "adam_v",
                                        "act"};
enum class Phase { Forward, Backward, Optimizer };
const char *phaseName(Phase p) {
  return p == Phase::Forward    ? "forward"
         : p == Phase::Backward ? "backward"
                                : "optimizer";
}
bool persistent(unsigned slot) {
  return slot == Param || slot == AdamM || slot == AdamV;
}

struct Ref {
  int64_t layer;
  unsigned slot;
  bool operator==(const Ref &o) const {
    return layer == o.layer && slot == o.slot;
  }
};
using Refs = std::vector<Ref>;
bool has(const Refs &v, Ref r) { return std::find(v.begin(), v.end(), r) != v.end(); }
void add(Refs &v, Ref r) {
  if (!has(v, r))
    v.push_back(r);
}

struct Entry {
  int64_t layer;
  Phase phase;
  Refs reads, writes; ///< what the trainer computes with
  Refs prefetch, swapOut, discard, keep;
  bool hidden = false;
};

/// The MLP's reads and writes of (layer, phase), as the trainer runs it.
void uses(Entry &e, int64_t L) {
  const int64_t l = e.layer;
  switch (e.phase) {
  case Phase::Forward:
    e.reads = {{l, Param}, {l, Act}};
    if (l + 1 < L)
      e.writes = {{l + 1, Act}};
    break;
  case Phase::Backward:
    e.reads = {{l, Param}, {l, Act}};
    e.writes = {{l, Grad}};
    break;
  case Phase::Optimizer:
    e.reads = {{l, Grad}};
    e.writes = {{l, Param}, {l, AdamM}, {l, AdamV}};
    break;
  }
}

/// What an entry needs fetched: its reads and the persistent tensors it
/// updates in place.
Refs wanted(const Entry &e) {
  Refs w = e.reads;
  for (Ref r : e.writes)
    if (persistent(r.slot))
      add(w, r);
  return w;
}
Refs touched(const Entry &e) {
  Refs t = e.reads;
  for (Ref r : e.writes)
    add(t, r);
  return t;
}

/// The trainer's tier operations replayed on a model of the tier manager:
/// memory per home tier (4 KiB pages, as the manager accounts it) and
/// payload bytes moved.
class Simulator {
public:
  Simulator(int64_t L, const RuntimeModel &m,
            const std::array<unsigned, kSlots> &homes)
      : L(L), homes(homes) {
    state.resize(size_t(L) * kSlots);
    for (int64_t l = 0; l < L; ++l)
      for (unsigned s = 0; s < kSlots; ++s) {
        T &t = at({l, s});
        int64_t count = s == Act ? m.actCount(l) : m.paramCount(l);
        t.bytes = uint64_t(count) * 4;
        t.padded = (t.bytes + 4095) / 4096 * 4096;
        // After the trainer's set-up: persistent tensors on disk, the
        // others discarded.
        t.where = persistent(s) ? Where::Disk : Where::Empty;
        t.hasCopy = persistent(s);
      }
  }

  void step(const std::vector<Entry> &entries) {
    for (T &t : state)
      t.live = false;
    for (size_t k = 0; k < entries.size(); ++k) {
      const Entry &e = entries[k];
      for (Ref r : e.prefetch)
        prefetch(r);
      if (k == 0) {
        prefetch({0, Act});
        write({0, Act});
      }
      for (Ref r : touched(e))
        prefetch(r);
      for (Ref r : e.writes)
        write(r);
      // Writes issued by the entry before complete under this entry's
      // compute: their memory comes back now.
      releaseWrites();
      for (Ref r : e.swapOut)
        swapOut(r);
      for (Ref r : e.discard)
        discard(r);
    }
    releaseWrites();
    // The commit: persistent tensors still resident are written if
    // changed and stay resident (a swap-out, then a prefetch).
    for (int64_t l = 0; l < L; ++l)
      for (unsigned s : {Param, AdamM, AdamV}) {
        T &t = at({l, s});
        if (t.where != Where::Resident)
          continue;
        swapOut({l, s});
        prefetch({l, s});
      }
    releaseWrites();
  }

  void resetCounts() {
    for (auto &io : moved)
      io = {0, 0};
  }
  struct Io {
    uint64_t written = 0, read = 0;
  };
  std::array<Io, 2> moved{};
  std::array<uint64_t, 2> used{}, peak{};

private:
  enum class Where { Empty, Resident, Disk };
  struct T {
    uint64_t bytes = 0, padded = 0;
    Where where = Where::Empty;
    bool dirty = false, hasCopy = false, live = false;
  };
  int64_t L;
  std::array<unsigned, kSlots> homes;
  std::vector<T> state;
  /// Swapped out, memory held until the write completes.
  Refs writing;

  T &at(Ref r) { return state[size_t(r.layer) * kSlots + r.slot]; }
  unsigned home(Ref r) const { return homes[r.slot]; }

  void makeResident(Ref r) {
    T &t = at(r);
    t.where = Where::Resident;
    used[home(r)] += t.padded;
    peak[home(r)] = std::max(peak[home(r)], used[home(r)]);
  }
  void releaseWrites() {
    for (Ref r : writing)
      used[home(r)] -= at(r).padded;
    writing.clear();
  }
  void prefetch(Ref r) {
    T &t = at(r);
    auto w = std::find(writing.begin(), writing.end(), r);
    if (w != writing.end()) {
      // Asked back while being written: the memory is kept (the runtime
      // counts it as read back).
      writing.erase(w);
      moved[home(r)].read += t.bytes;
      t.where = Where::Resident;
      return;
    }
    // Activations and gradients not yet written in this step are dead:
    // given memory, never read.
    if (!persistent(r.slot) && !t.live && t.where != Where::Resident)
      discard(r);
    if (t.where == Where::Disk) {
      moved[home(r)].read += t.bytes;
      makeResident(r);
      t.dirty = false;
    } else if (t.where == Where::Empty) {
      makeResident(r);
      t.dirty = true; // zero-filled, no copy
    }
  }
  void write(Ref r) {
    at(r).dirty = true;
    at(r).live = true;
  }
  void swapOut(Ref r) {
    T &t = at(r);
    if (t.where != Where::Resident)
      return;
    t.where = Where::Disk;
    if (t.dirty || !t.hasCopy) {
      moved[home(r)].written += t.bytes;
      t.hasCopy = true;
      t.dirty = false;
      writing.push_back(r); // memory held until the write completes
      return;
    }
    used[home(r)] -= t.padded;
  }
  void discard(Ref r) {
    T &t = at(r);
    if (t.where == Where::Resident)
      used[home(r)] -= t.padded;
    t.where = Where::Empty;
    t.hasCopy = false;
    t.dirty = false;
  }
};

Array refsJson(const Refs &refs) {
  Array a;
  for (Ref r : refs)
    a.push_back("L" + std::to_string(r.layer) + "." + kSlotNames[r.slot]);
  return a;
}

llvm::Error error(const llvm::Twine &msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), msg);
}

} // namespace

int64_t RuntimeModel::paramCount(int64_t l) const {
  if (!paramCounts.empty())
    return paramCounts[size_t(l)];
  return widths[size_t(l)] * widths[size_t(l + 1)] + widths[size_t(l + 1)];
}

int64_t RuntimeModel::actCount(int64_t l) const {
  if (!actCounts.empty())
    return actCounts[size_t(l)];
  return batch * widths[size_t(l)];
}

llvm::Expected<RuntimeModel>
offload::transformerRuntimeModel(const model::TransformerConfig &m,
                                 int64_t batch) {
  using namespace model;
  if (m.effectiveKvHeads() != m.heads)
    return error("the runtime's transformer has no grouped-query attention "
                 "(kv heads " +
                 llvm::Twine(m.effectiveKvHeads()) + ", heads " +
                 llvm::Twine(m.heads) + "); not supported yet");
  if (m.mlp != MlpKind::Standard || m.moe())
    return error("the runtime's transformer has a dense GELU MLP, not a "
                 "gated or mixture-of-experts one; not supported yet");
  if (m.norm != NormKind::LayerNorm || m.positions != PositionKind::Learned ||
      !m.linearBiases)
    return error("the runtime's transformer has LayerNorm, learned "
                 "positions and biases on every linear layer; this model "
                 "differs (not supported yet)");
  const int64_t d = m.hidden, f = m.effectiveFfn(), T = m.seq, V = m.vocab,
                N = m.layers;
  // runtime/src/train/Transformer.h's limits.
  if (V < 2 || V > 65536 || T < 1 || T > 4096 || d < 1 || d > 8192 ||
      m.heads < 1 || d % m.heads || f > 65536 || N < 1 || N > 1024 ||
      batch < 1 || batch > 65536)
    return error("the runtime's transformer needs vocab 2..65536, seq "
                 "1..4096, hidden 1..8192 divisible by heads, ffn <= 65536, "
                 "1..1024 layers and batch 1..65536; got vocab " +
                 llvm::Twine(V) + ", seq " + llvm::Twine(T) + ", hidden " +
                 llvm::Twine(d) + ", heads " + llvm::Twine(m.heads) + ", ffn " +
                 llvm::Twine(f) + ", layers " + llvm::Twine(N) + ", batch " +
                 llvm::Twine(batch));
  RuntimeModel r;
  r.batch = batch;
  r.extraLayers = 2;
  r.name = ("transformer (" + llvm::Twine(N) + " blocks, d " + llvm::Twine(d) +
            ", " + llvm::Twine(m.heads) + " heads, ffn " + llvm::Twine(f) +
            ", seq " + llvm::Twine(T) + ", vocab " + llvm::Twine(V) +
            ", batch " + llvm::Twine(batch) + ", untied head)")
               .str();
  const int64_t rows = batch * T;
  const int64_t block = 2 * d + (d * 3 * d + 3 * d) + (d * d + d) + 2 * d +
                        (d * f + f) + (f * d + d);
  r.paramCounts.push_back((V + T) * d);
  r.actCounts.push_back(rows);
  for (int64_t b = 0; b < N; ++b) {
    r.paramCounts.push_back(block);
    r.actCounts.push_back(rows * d);
  }
  r.paramCounts.push_back(2 * d + d * V + V);
  r.actCounts.push_back(rows * d);
  return r;
}

llvm::Expected<std::vector<int64_t>>
offload::parseWidths(llvm::StringRef text) {
  llvm::SmallVector<llvm::StringRef, 8> parts;
  text.split(parts, ',');
  std::vector<int64_t> widths;
  for (llvm::StringRef p : parts) {
    int64_t w = 0;
    if (p.trim().getAsInteger(10, w) || w < 1 || w > 65536)
      return error("bad layer width '" + p + "' in '" + text +
                   "' (expected integers in 1..65536, comma-separated)");
    widths.push_back(w);
  }
  if (widths.size() < 2)
    return error("the MLP needs at least two widths (inputs and outputs), "
                 "got '" + text + "'");
  return widths;
}

llvm::Expected<llvm::json::Value>
offload::finetuneRuntimeSchedule(const FinetunePlan &plan,
                                 const FinetuneJob &job,
                                 const FinetuneOptions &opts,
                                 const RuntimeModel &model) {
  if (!plan.feasible)
    return error("no schedule: the plan is infeasible (" +
                 plan.infeasibleReason + ")");
  const int64_t L = model.layers();
  if (model.paramCounts.empty() && (model.widths.size() < 2 || model.batch < 1))
    return error("the runtime model needs at least two widths and a "
                 "positive batch");
  if (!model.paramCounts.empty() &&
      (model.actCounts.size() != model.paramCounts.size() || L < 1))
    return error("the runtime model needs the parameter and activation "
                 "sizes of every layer");
  if (L != job.model.layers + model.extraLayers)
    return model.extraLayers
               ? error("the runtime " + model.name + " has " + llvm::Twine(L) +
                       " layers, the plan " + llvm::Twine(job.model.layers) +
                       " (expected " +
                       llvm::Twine(job.model.layers + model.extraLayers) + ")")
               : error("the runtime MLP has " + llvm::Twine(L) +
                       " layers, the plan " + llvm::Twine(job.model.layers) +
                       " (one MLP layer per transformer layer)");
  if (plan.updateOnCsd || plan.paramHome == Tier::Csd ||
      plan.optimizerHome == Tier::Csd)
    return error("the plan updates parameters on computational storage "
                 "(CSD); the runtime has no near-storage optimizer (plan "
                 "with --no-csd or a machine without CSDs)");

  // Which tensors leave their home memory between uses, and the homes.
  std::array<bool, kSlots> moved{};
  moved[Param] = plan.paramHome != Tier::Gpu;
  moved[AdamM] = moved[AdamV] = plan.optimizerHome == Tier::Nvme;
  moved[Act] = true; // checkpoints and swaps go to host or NVMe
  moved[Grad] = !opts.activeGradientOffload;
  const unsigned device = 0, host = 1; // SLUICE_TIER_DEVICE, _HOST
  std::array<unsigned, kSlots> homes = {device, device, host, host, device};
  if (plan.optimizerHome == Tier::Gpu)
    homes[AdamM] = homes[AdamV] = device;

  // Entry order.
  std::vector<Entry> entries;
  for (int64_t l = 0; l < L; ++l)
    entries.push_back({l, Phase::Forward, {}, {}, {}, {}, {}, {}, false});
  for (int64_t l = L - 1; l >= 0; --l) {
    entries.push_back({l, Phase::Backward, {}, {}, {}, {}, {}, {}, false});
    if (opts.activeGradientOffload)
      entries.push_back({l, Phase::Optimizer, {}, {}, {}, {}, {}, {}, false});
  }
  if (!opts.activeGradientOffload)
    for (int64_t l = 0; l < L; ++l)
      entries.push_back({l, Phase::Optimizer, {}, {}, {}, {}, {}, {}, false});
  for (Entry &e : entries)
    uses(e, L);
  const size_t n = entries.size();
  auto isOpt = [&](size_t k) {
    return k < n && entries[k].phase == Phase::Optimizer;
  };

  // Prefetch window: entry k fetches for k+1, and for k+2 when k+1 is an
  // optimizer entry (so the next matrix product's inputs hide under this
  // one); the first entry also for itself.
  auto window = [&](size_t k) {
    std::vector<size_t> w;
    if (k == 0)
      w.push_back(0);
    if (k + 1 < n)
      w.push_back(k + 1);
    if (isOpt(k + 1) && k + 2 < n)
      w.push_back(k + 2);
    return w;
  };
  for (size_t k = 0; k < n; ++k) {
    Entry &e = entries[k];
    for (size_t j : window(k))
      for (Ref r : wanted(entries[j]))
        if (moved[r.slot])
          add(e.prefetch, r);
    // After the entry: keep what the window uses, drop what is dead, move
    // the rest out.
    Refs soon;
    for (size_t j : window(k))
      if (j > k)
        for (Ref r : touched(entries[j]))
          add(soon, r);
    for (Ref r : touched(e)) {
      bool readLater = false;
      for (size_t j = k + 1; j < n; ++j)
        readLater |= has(entries[j].reads, r);
      bool dead = !persistent(r.slot) && !readLater;
      if (has(soon, r)) {
        if (moved[r.slot])
          add(e.keep, r);
      } else if (dead) {
        add(e.discard, r);
      } else if (moved[r.slot]) {
        add(e.swapOut, r);
      }
    }
  }
  // An entry's I/O hides when its prefetch was issued during a matrix
  // product (forward or backward), not during an Adam update.
  for (size_t j = 1; j < n; ++j) {
    size_t issue = isOpt(j - 1) && j >= 2 && !isOpt(j - 2) ? j - 2 : j - 1;
    entries[j].hidden = !isOpt(issue);
  }

  // Predictions: step 1 starts from the set-up state, step 2 is steady.
  RuntimeModel m = model;
  Simulator sim(L, m, homes);
  sim.step(entries);
  sim.resetCounts();
  sim.step(entries);

  Array entriesJson;
  for (const Entry &e : entries)
    entriesJson.push_back(Object{{"layer", e.layer},
                                 {"phase", phaseName(e.phase)},
                                 {"prefetch", refsJson(e.prefetch)},
                                 {"swap_out", refsJson(e.swapOut)},
                                 {"discard", refsJson(e.discard)},
                                 {"keep", refsJson(e.keep)},
                                 {"io_hidden", e.hidden}});
  Object homesJson;
  for (unsigned s = 0; s < kSlots; ++s)
    homesJson[kSlotNames[s]] = homes[s] == device ? "device" : "host";
  auto io = [](const Simulator::Io &x) {
    return Object{{"read", int64_t(x.read)}, {"written", int64_t(x.written)}};
  };
  Object planJson{
      {"param_home", tierName(plan.paramHome).str()},
      {"optimizer_home", tierName(plan.optimizerHome).str()},
      {"grad_home", tierName(plan.gradHome).str()},
      {"active_gradient_offload",
       opts.activeGradientOffload ? "true" : "false"},
      {"activations",
       (llvm::Twine(plan.activations.layersOnHost) + " layers on host, " +
        llvm::Twine(plan.activations.layersOnNvme) + " on nvme")
           .str()},
      {"predicted_iteration_seconds", plan.iterationTime},
      {"runtime_model", model.name}};
  // The host budget also holds the trainer's step counter (one page).
  Object doc{
      {"format", "sluice-offload-schedule"},
      {"version", 1},
      {"layers", L},
      {"homes", std::move(homesJson)},
      {"device_budget", int64_t(std::max<uint64_t>(sim.peak[device], 4096))},
      {"host_budget", int64_t(sim.peak[host] + 4096)},
      {"predicted_step_io",
       Object{{"device", io(sim.moved[device])}, {"host", io(sim.moved[host])}}},
      {"plan", std::move(planJson)},
      {"entries", std::move(entriesJson)}};
  if (!model.abft.empty())
    doc["abft"] = model.abft;
  return llvm::json::Value(std::move(doc));
}
