//===- OffloadMachine.cpp - A machine as the offload planners see it
//-------===//
#include "compiler/Analysis/Offload/OffloadMachine.h"

#include "compiler/Analysis/TopoAnalysis.h"
#include "support/Units.h"

#include <algorithm>
#include <cmath>
#include <limits>

using namespace sluice;
using namespace sluice::offload;

static constexpr double GiB = 1024.0 * 1024.0 * 1024.0;

std::string Machine::validate() const {
  auto positive = [](const char *what, double v) -> std::string {
    if (v > 0 && std::isfinite(v))
      return "";
    return std::string(what) + " must be positive, got " + std::to_string(v);
  };
  for (auto [what, v] :
       {std::pair<const char *, double>{"GPU memory", gpuMemory},
        {"GPU peak FLOP/s", gpuPeakFlops},
        {"GPU efficiency", gpuEfficiency},
        {"host memory", hostMemory},
        {"CPU optimizer rate", cpuAdamRate},
        {"host-to-GPU bandwidth", h2dBandwidth},
        {"GPU-to-host bandwidth", d2hBandwidth}})
    if (std::string err = positive(what, v); !err.empty())
      return err;
  if (gpuEfficiency > 1)
    return "GPU efficiency must be at most 1, got " +
           std::to_string(gpuEfficiency);
  if (gpuSms < 0)
    return "GPU SMs must be non-negative, got " + std::to_string(gpuSms);
  if (gpuUsableFraction <= 0 || gpuUsableFraction > 1 ||
      hostUsableFraction <= 0 || hostUsableFraction > 1)
    return "usable memory fractions must lie in (0, 1]";
  if (gpus < 1 || gpus > 4096)
    return "GPUs must lie in [1, 4096], got " + std::to_string(gpus);
  if (!(peerBandwidth >= 0))
    return "GPU peer bandwidth must be non-negative";
  for (auto [what, v] : {std::pair<const char *, double>{
                             "inference layer overhead", inferLayerOverhead},
                         {"pageable copy bandwidth", pageableBandwidth},
                         {"CPU attention FLOP/s", cpuAttentionFlops},
                         {"CSD decompress rate", csd.decompressRate}})
    if (!(v >= 0) || !std::isfinite(v))
      return std::string(what) + " must be non-negative, got " +
             std::to_string(v);
  if (nvme.present())
    for (auto [what, v] : {std::pair<const char *, double>{
                               "NVMe read bandwidth", nvme.readBandwidth},
                           {"NVMe write bandwidth", nvme.writeBandwidth},
                           {"NVMe capacity", nvme.capacity}})
      if (std::string err = positive(what, v); !err.empty())
        return err;
  if (csd.present())
    for (auto [what, v] :
         {std::pair<const char *, double>{"CSD internal read bandwidth",
                                          csd.internalReadBandwidth},
          {"CSD internal write bandwidth", csd.internalWriteBandwidth},
          {"CSD capacity", csd.capacity},
          {"CSD optimizer rate", csd.adamRate},
          {"CSD host read bandwidth", csd.hostReadBandwidth},
          {"CSD host write bandwidth", csd.hostWriteBandwidth}})
      if (std::string err = positive(what, v); !err.empty())
        return err;
  return "";
}

Machine Machine::rtx4090With12Nvme() {
  Machine m;
  m.name = "rtx4090-12nvme";
  m.gpuMemory = 24 * GiB;
  m.gpuPeakFlops = 165.2e12; // FP16 tensor, FP32 accumulate, dense
  m.gpuEfficiency = *model::gemmEfficiencyOf("GeForce RTX 4090");
  m.gpuSms = 128;
  m.gpuMemoryBandwidth = 1008e9;
  m.hostMemory = 256 * GiB;           // Ratel's cap ("256 GB main memory")
  m.hostMemoryBandwidth = 8 * 25.6e9; // 8 channels of DDR4-3200
  m.cpuAdamRate = m.hostMemoryBandwidth * kDefaultAdamBandwidthFraction /
                  kAdamHostBytesPerParam;
  m.h2dBandwidth = 25e9; // PCIe 4.0 x16, pinned memory
  m.d2hBandwidth = 25e9;
  m.nvme.count = 12; // Samsung 990 PRO 2 TB each, RAID 0
  m.nvme.readBandwidth = 12 * 7.45e9;
  m.nvme.writeBandwidth = 12 * 6.9e9;
  m.nvme.capacity = 12 * 2e12;
  return m;
}

Machine Machine::t4FlexGen() {
  Machine m;
  m.name = "t4";
  // The datasheet's "16 GB" is what nvidia-smi reports as 15360 MiB.
  m.gpuMemory = 15 * GiB;
  m.gpuPeakFlops = 65e12; // FP16 tensor, dense, at the 1590 MHz boost clock
  // The 70 W cap holds the clock far below boost under tensor load (an
  // assumption: no published GEMM measurement in the reference).
  m.gpuEfficiency = 0.4;
  m.gpuSms = 40;
  m.gpuMemoryBandwidth = 320e9;
  m.hostMemory = 208 * GiB;           // GCP n1-highmem-32
  m.hostMemoryBandwidth = 6 * 21.3e9; // 6 channels of DDR4-2666 (Skylake)
  m.cpuAdamRate = m.hostMemoryBandwidth * kDefaultAdamBandwidthFraction /
                  kAdamHostBytesPerParam;
  m.h2dBandwidth = 12e9; // PCIe 3.0 x16 (15.75 GB/s nominal)
  m.d2hBandwidth = 12e9;
  m.nvme.count = 1; // FlexGen: ~2 GB/s read, ~1 GB/s write
  m.nvme.readBandwidth = 2e9;
  m.nvme.writeBandwidth = 1e9;
  m.nvme.capacity = 1.5e12;
  // FlexGen's runtime on this machine (docs/offload.md, "Offloaded-
  // inference planner"). The per-layer overhead is fitted on one published
  // row (OPT-6.7B, all on the GPU); the pageable copy rate and the CPU
  // attention rate are the values FlexGen's authors fitted on their GCP T4
  // instance (FlexGen, experimental/cost_model.py: gtoc_bdw_hidden 4.82 GB,
  // cpu_flops 0.0123 T).
  m.inferLayerOverhead = kT4InferLayerOverhead;
  m.pageableBandwidth = 4.82 * GiB;
  m.cpuAttentionFlops = 0.0123e12;
  return m;
}

Machine Machine::a5000SmartSsd(int64_t csds) {
  // Smart-Infinity's testbed (HPCA'24 paper, Sec. VII-A and Table II; the
  // camera-ready PDF ships in github.com/AIS-SNU/smart-infinity, assets/).
  // docs/offload.md, "Smart-Infinity", lists every figure and its source.
  Machine m;
  m.name = "a5000-smartssd";
  m.gpuMemory = 24 * GiB;
  m.gpuPeakFlops = 111.1e12; // FP16 tensor, dense (222.2 with sparsity)
  m.gpuEfficiency = kDefaultGpuEfficiency;
  m.gpuSms = 64;
  m.gpuMemoryBandwidth = 768e9;
  m.hostMemory = 1024 * GiB; // Table II: 32 x 32 GB DDR4-3200
  // Table II: two Xeon Gold 6342, 8 channels of DDR4-3200 each.
  m.hostMemoryBandwidth = 16 * 25.6e9;
  m.cpuAdamRate = m.hostMemoryBandwidth * kDefaultAdamBandwidthFraction /
                  kAdamHostBytesPerParam;
  m.h2dBandwidth = 25e9; // the A5000's PCIe 4.0 x16
  m.d2hBandwidth = 25e9;
  // Each SmartSSD's flash, as the paper measured it (Fig. 14: SSD read 2.8
  // GB/s and write 1.65 GB/s at 4.0B/8.4B parameters), serves the host
  // (the RAID 0 of the baseline, Smart-Infinity's gradient writes and
  // parameter reads) and its FPGA over the device's internal switch (P2P).
  // All of them sit behind one shared channel to the host, the PCIe switch
  // of the expansion chassis: 16 GB/s (Fig. 2).
  const double read = 2.8e9, write = 1.65e9, channel = 16e9;
  m.nvme.count = csds;
  m.nvme.readBandwidth = std::min(csds * read, channel);
  m.nvme.writeBandwidth = std::min(csds * write, channel);
  m.nvme.capacity = csds * 3.84e12;
  m.csd.count = csds;
  m.csd.internalReadBandwidth = csds * read;
  m.csd.internalWriteBandwidth = csds * write;
  m.csd.capacity = csds * 3.84e12;
  // The FPGA's Adam updater runs at 8.2 GB/s and the Top-K decompressor
  // with it at 2.9 GB/s (Fig. 14), counted like the SSD read beside them:
  // per parameter the fp32 master, momentum, variance and the fp16
  // gradient (14 B).
  m.csd.adamRate = csds * 8.2e9 / 14;
  m.csd.decompressRate = csds * 2.9e9 / 14;
  m.csd.hostReadBandwidth = m.nvme.readBandwidth;
  m.csd.hostWriteBandwidth = m.nvme.writeBandwidth;
  return m;
}

Machine Machine::a100SmartSsd(int64_t csds) {
  Machine m = a5000SmartSsd(csds);
  m.name = "a100-smartssd";
  m.gpuMemory = 40 * GiB;                  // A100 PCIe 40 GB
  m.gpuPeakFlops = 312e12;                 // FP16 tensor, dense
  m.gpuEfficiency = kDefaultGpuEfficiency; // as the A5000's: an assumption
  m.gpuSms = 108;
  m.gpuMemoryBandwidth = 1555e9;
  return m; // PCIe 4.0 x16 to the host, as the A5000's
}

//===----------------------------------------------------------------------===//
// From a topology
//===----------------------------------------------------------------------===//

static llvm::Error topoError(const llvm::Twine &msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), msg);
}

static llvm::Expected<double> requireQuantity(const analysis::TopoDevice &d,
                                              llvm::StringRef prop,
                                              const Dim &dim) {
  const analysis::QuantityProp *q = d.findQuantity(prop);
  if (!q)
    return topoError("device '" + d.name + "' (" + d.kind + ") has no '" +
                     prop + "' property");
  if (q->dim != dim)
    return topoError("device '" + d.name + "' property '" + prop +
                     "' has dimension " + q->dim.name() + ", expected " +
                     dim.name());
  if (!(q->value > 0))
    return topoError("device '" + d.name + "' property '" + prop +
                     "' must be positive");
  return q->value;
}

/// Directed widest-path bandwidth from `a` to `b`, 0 if unreachable.
static double widest(const analysis::TopoGraph &g, unsigned a, unsigned b) {
  analysis::WidestPathTree t = analysis::computeWidestPaths(g, a);
  return t.reachable(b) ? t.bandwidth[b] : 0.0;
}

/// Devices of `kind` in the CPU's group (its server) that the CPU reaches
/// over modeled links, directly or through switches.
static std::vector<unsigned> attachedOfKind(const analysis::TopoGraph &g,
                                            unsigned cpu,
                                            llvm::StringRef kind) {
  std::vector<bool> reach = analysis::computeReachable(g, cpu);
  std::vector<unsigned> out;
  for (unsigned d : analysis::devicesOfKind(g, kind))
    if (reach[d] && g.devices[d].group == g.devices[cpu].group)
      out.push_back(d);
  return out;
}

struct Storage {
  double read = 0, write = 0, capacity = 0, compute = 0;
  double hostRead = 0, hostWrite = 0;
};

static llvm::Expected<Storage> storageOf(const analysis::TopoGraph &g,
                                         unsigned cpu,
                                         llvm::ArrayRef<unsigned> devs) {
  Storage s;
  for (unsigned d : devs) {
    const analysis::TopoDevice &dev = g.devices[d];
    auto r = requireQuantity(dev, "read", Dim::bandwidth());
    if (!r)
      return r.takeError();
    auto w = requireQuantity(dev, "write", Dim::bandwidth());
    if (!w)
      return w.takeError();
    auto c = requireQuantity(dev, "capacity", Dim::bytes());
    if (!c)
      return c.takeError();
    s.read += *r;
    s.write += *w;
    s.capacity += *c;
    if (const analysis::QuantityProp *q = dev.findQuantity("compute"))
      s.compute += q->value;
  }
  std::vector<unsigned> cpuSet{cpu};
  // What the links let through, all devices together (shared switches and
  // uplinks included): the min cut between the CPU and the devices.
  s.hostRead = analysis::computeMinCut(g, devs, cpuSet).capacity;
  s.hostWrite = analysis::computeMinCut(g, cpuSet, devs).capacity;
  return s;
}

llvm::Expected<Machine>
offload::machineFromTopo(const analysis::TopoGraph &g, llvm::StringRef gpu,
                         llvm::StringRef cpu, const TopoMachineOptions &opts) {
  std::optional<unsigned> gi = g.findDevice(gpu);
  if (!gi)
    return topoError("no device named '" + gpu + "' in the topology");
  if (g.devices[*gi].kind != "gpu")
    return topoError("device '" + gpu + "' is a " + g.devices[*gi].kind +
                     ", expected a gpu");
  std::optional<unsigned> ci;
  if (!cpu.empty()) {
    ci = g.findDevice(cpu);
    if (!ci)
      return topoError("no device named '" + cpu + "' in the topology");
    if (g.devices[*ci].kind != "cpu")
      return topoError("device '" + cpu + "' is a " + g.devices[*ci].kind +
                       ", expected a cpu");
  } else {
    // The CPU with the widest path to the GPU (ties: lowest index).
    double best = 0;
    for (unsigned c : analysis::devicesOfKind(g, "cpu")) {
      double bw = widest(g, c, *gi);
      if (bw > best) {
        best = bw;
        ci = c;
      }
    }
    if (!ci)
      return topoError("no cpu reaches gpu '" + gpu + "'");
  }
  const analysis::TopoDevice &G = g.devices[*gi];
  const analysis::TopoDevice &C = g.devices[*ci];

  Machine m;
  m.name = gpu.str();
  m.devices.gpu = G.name;
  m.devices.cpu = C.name;
  auto gmem = requireQuantity(G, "memory", Dim::bytes());
  if (!gmem)
    return gmem.takeError();
  auto gflops = requireQuantity(G, "compute", Dim::compute());
  if (!gflops)
    return gflops.takeError();
  m.gpuMemory = *gmem;
  m.gpuPeakFlops = *gflops;
  if (opts.gpuEfficiency > 0) {
    m.gpuEfficiency = opts.gpuEfficiency;
  } else {
    std::optional<double> fitted;
    for (const analysis::StringProp &p : G.strings)
      if (p.name == "model")
        fitted = model::gemmEfficiencyOf(p.value);
    m.gpuEfficiency = fitted ? *fitted : kDefaultGpuEfficiency;
  }
  for (const analysis::IntProp &p : G.ints)
    if (p.name == "sms")
      m.gpuSms = p.value;
  if (const analysis::QuantityProp *q = G.findQuantity("memory_bandwidth"))
    m.gpuMemoryBandwidth = q->value;

  if (opts.hostMemory > 0) {
    m.hostMemory = opts.hostMemory;
  } else {
    auto hmem = requireQuantity(C, "memory", Dim::bytes());
    if (!hmem)
      return hmem.takeError();
    m.hostMemory = *hmem;
  }
  if (const analysis::QuantityProp *q = C.findQuantity("memory_bandwidth"))
    m.hostMemoryBandwidth = q->value;
  if (opts.cpuAdamRate > 0) {
    m.cpuAdamRate = opts.cpuAdamRate;
  } else {
    auto bw = requireQuantity(C, "memory_bandwidth", Dim::bandwidth());
    if (!bw) {
      llvm::consumeError(bw.takeError());
      return topoError("device '" + C.name +
                       "' (cpu) has no 'memory_bandwidth' property (needed "
                       "to derive the CPU optimizer rate; or give the rate)");
    }
    m.cpuAdamRate =
        *bw * kDefaultAdamBandwidthFraction / kAdamHostBytesPerParam;
  }

  m.h2dBandwidth = widest(g, *ci, *gi);
  m.d2hBandwidth = widest(g, *gi, *ci);
  if (m.h2dBandwidth <= 0 || m.d2hBandwidth <= 0)
    return topoError("no path between cpu '" + C.name + "' and gpu '" + gpu +
                     "' in both directions");

  std::vector<unsigned> nvmes = attachedOfKind(g, *ci, "nvme");
  if (!nvmes.empty()) {
    auto s = storageOf(g, *ci, nvmes);
    if (!s)
      return s.takeError();
    m.nvme.count = static_cast<int64_t>(nvmes.size());
    for (unsigned d : nvmes)
      m.devices.nvme.push_back(g.devices[d].name);
    m.nvme.readBandwidth = std::min(s->read, s->hostRead);
    m.nvme.writeBandwidth = std::min(s->write, s->hostWrite);
    m.nvme.capacity = s->capacity;
  }
  std::vector<unsigned> csds = attachedOfKind(g, *ci, "csd");
  if (!csds.empty()) {
    auto s = storageOf(g, *ci, csds);
    if (!s)
      return s.takeError();
    m.csd.count = static_cast<int64_t>(csds.size());
    for (unsigned d : csds)
      m.devices.csd.push_back(g.devices[d].name);
    m.csd.internalReadBandwidth = s->read;
    m.csd.internalWriteBandwidth = s->write;
    m.csd.capacity = s->capacity;
    m.csd.hostReadBandwidth = std::min(s->read, s->hostRead);
    m.csd.hostWriteBandwidth = std::min(s->write, s->hostWrite);
    if (opts.csdAdamRatePerDevice > 0)
      m.csd.adamRate = opts.csdAdamRatePerDevice * m.csd.count;
    else if (s->compute > 0)
      m.csd.adamRate = s->compute / 20.0;
    else
      return topoError("csd device '" + g.devices[csds.front()].name +
                       "' has no 'compute' property (needed for its "
                       "optimizer rate; or give it directly)");
  }
  if (std::string err = m.validate(); !err.empty())
    return topoError("machine from topology: " + err);
  return m;
}

llvm::Expected<Machine>
offload::machineForGpus(const analysis::TopoGraph &g, const Machine &base,
                        llvm::ArrayRef<std::string> gpus) {
  if (gpus.empty())
    return topoError("no GPUs to plan on");
  std::optional<unsigned> ci = g.findDevice(base.devices.cpu);
  if (!ci)
    return topoError("no cpu named '" + base.devices.cpu + "' in the topology");
  std::vector<unsigned> ids;
  for (const std::string &n : gpus) {
    std::optional<unsigned> gi = g.findDevice(n);
    if (!gi || g.devices[*gi].kind != "gpu")
      return topoError("no gpu named '" + n + "' in the topology");
    ids.push_back(*gi);
  }
  Machine m = base;
  m.gpus = static_cast<int64_t>(ids.size());
  m.devices.gpuGroup.assign(gpus.begin(), gpus.end());
  if (ids.size() == 1)
    return m;
  const double n = static_cast<double>(ids.size());
  std::vector<unsigned> cpuSet{*ci};
  double h2d = analysis::computeMinCut(g, cpuSet, ids).capacity / n;
  double d2h = analysis::computeMinCut(g, ids, cpuSet).capacity / n;
  for (unsigned gi : ids) {
    h2d = std::min(h2d, widest(g, *ci, gi));
    d2h = std::min(d2h, widest(g, gi, *ci));
  }
  if (m.hostMemoryBandwidth > 0) {
    h2d = std::min(h2d, m.hostMemoryBandwidth / n);
    d2h = std::min(d2h, m.hostMemoryBandwidth / n);
  }
  if (!(h2d > 0) || !(d2h > 0))
    return topoError("no path between cpu '" + base.devices.cpu +
                     "' and every gpu of the group in both directions");
  m.h2dBandwidth = h2d;
  m.d2hBandwidth = d2h;
  // The ring over the GPUs without the host: arcs into or out of a CPU
  // dropped, so a path between two GPUs uses peer links and switches only.
  analysis::TopoGraph peers = g;
  peers.arcs.clear();
  for (const analysis::TopoArc &a : g.arcs)
    if (g.devices[a.from].kind != "cpu" && g.devices[a.to].kind != "cpu")
      peers.arcs.push_back(a);
  double ring = std::numeric_limits<double>::infinity();
  for (size_t i = 0; i < ids.size(); ++i)
    ring = std::min(ring, widest(peers, ids[i], ids[(i + 1) % ids.size()]));
  // A ring faster than a GPU's own path to the host runs on other links
  // (NVLink); one that is not goes through the GPUs' own PCIe links (a
  // switch) and gets what their host traffic leaves; none at all (GPUs on
  // the CPU's root ports): the collectives are staged in host memory.
  double own = std::numeric_limits<double>::infinity();
  for (unsigned gi : ids)
    own = std::min(own, widest(g, gi, *ci));
  const double share = std::max(h2d, d2h);
  m.peerBandwidth = ring > own ? ring : ring > share ? ring - share : 0.0;
  return m;
}
