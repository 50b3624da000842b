//===- OffloadMachine.h - A machine as the offload planners see it -*- C++
//-*-===//
//
// The handful of figures the fine-tune and inference offload planners need:
// one GPU (memory, peak FLOP/s, achievable fraction of the peak), host
// memory, the CPU optimizer's throughput, the PCIe host<->GPU bandwidths, an
// NVMe array (count, aggregate read/write bandwidth, capacity) and optional
// computational storage (CSD) devices that can run the optimizer update near
// the data (Smart-Infinity).
//
// A Machine is plain data: tests and the validation table build it
// directly, sluicec and sluice-plan-offload build it from a TopoGraph with
// machineFromTopo(). docs/offload.md lists every figure and its source.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_COMPILER_ANALYSIS_OFFLOAD_OFFLOADMACHINE_H
#define SLUICE_COMPILER_ANALYSIS_OFFLOAD_OFFLOADMACHINE_H

#include "compiler/Analysis/Model/GemmModel.h"
#include "compiler/Analysis/TopoGraph.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace sluice::offload {

/// Bytes of host memory traffic one CPU Adam update moves per parameter:
/// reads of the fp32 master weight, momentum and variance (12 B) and the
/// fp16 gradient (2 B), writes of the three fp32 states (12 B) and of the
/// fp16 weight copy (2 B).
constexpr double kAdamHostBytesPerParam = 28;

/// The fraction of the host memory bandwidth a CPU Adam implementation
/// attains when machineFromTopo() derives its throughput (docs/offload.md:
/// an assumption; override with TopoMachineOptions::cpuAdamRate).
constexpr double kDefaultAdamBandwidthFraction = 0.15;
/// GEMM efficiency (eta) of a GPU without a published measurement: an
/// assumption (docs/offload.md, "GPU compute").
constexpr double kDefaultGpuEfficiency = 0.8;

/// Seconds of FlexGen's runtime per transformer layer, GPU batch and
/// generation step on the T4 preset (kernel launches, the synchronisation
/// after each layer of each GPU batch, the Python loop), fitted on one
/// published row: OPT-6.7B, all on the GPU (docs/offload.md, validation).
constexpr double kT4InferLayerOverhead = 564e-6;

/// NVMe drives striped as one array (RAID 0): bandwidths and capacity are
/// the sums over the drives.
struct NvmeArray {
  int64_t count = 0;
  double readBandwidth = 0;  ///< B/s, aggregate
  double writeBandwidth = 0; ///< B/s, aggregate
  double capacity = 0;       ///< bytes, aggregate
  bool present() const { return count > 0; }
};

/// Computational storage devices (SmartSSD-like): each has its own flash
/// with an internal bandwidth and an accelerator that runs the optimizer
/// update on the parameters it stores. Totals scale with the count.
struct CsdArray {
  int64_t count = 0;
  double internalReadBandwidth = 0;  ///< B/s, aggregate
  double internalWriteBandwidth = 0; ///< B/s, aggregate
  double capacity = 0;               ///< bytes, aggregate
  double adamRate = 0;               ///< parameters/s, aggregate
  /// Parameters/s, aggregate, of the update when the gradients arrive
  /// compressed and the accelerator decompresses them first
  /// (Smart-Infinity's SmartComp); 0 = adamRate.
  double decompressRate = 0;
  /// Host-link bandwidth to the devices (the shared PCIe channel), B/s.
  double hostReadBandwidth = 0;
  double hostWriteBandwidth = 0;
  bool present() const { return count > 0; }
};

struct Machine {
  std::string name;
  // GPU
  double gpuMemory = 0;    ///< bytes
  double gpuPeakFlops = 0; ///< FLOP/s, dense fp16 tensor (fp32 accumulate)
  /// Attained fraction of the peak on large, wave-aligned GEMMs (eta of
  /// model::gemmTime, GemmModel.h); smaller or ragged GEMMs attain less.
  double gpuEfficiency = 0;
  int64_t gpuSms = 0; ///< streaming multiprocessors; 0 = no wave model
  double gpuMemoryBandwidth = 0; ///< B/s (decode is bound by it); 0 = ignore
  /// Fraction of the GPU memory the planner may use (CUDA context,
  /// allocator fragmentation and workspaces take the rest).
  double gpuUsableFraction = 0.9;
  // Host
  double hostMemory = 0;           ///< bytes
  double hostUsableFraction = 0.9; ///< the OS and the framework take the rest
  double hostMemoryBandwidth = 0;  ///< B/s (CPU attention in inference)
  double cpuAdamRate = 0;          ///< parameters/s the CPU optimizer updates
  // Offloaded inference: what FlexGen's runtime pays beyond the links
  // (docs/offload.md, "Offloaded-inference planner"); 0 = not charged.
  /// Seconds per layer, GPU batch and generation step that no stream's
  /// bandwidth explains: kernel launches, the synchronisation after each
  /// layer of each GPU batch, the Python loop.
  double inferLayerOverhead = 0;
  /// B/s of host <-> GPU copies of tensors in pageable (unpinned) host
  /// memory: the KV cache and the hidden states; 0 = the link's rate.
  double pageableBandwidth = 0;
  /// FLOP/s of decode attention on the CPU over a CPU-resident KV cache
  /// (FlexGen's cpu_cache_compute); 0 = attention only on the GPU.
  double cpuAttentionFlops = 0;
  // Links
  double h2dBandwidth = 0; ///< host -> GPU, B/s
  double d2hBandwidth = 0; ///< GPU -> host, B/s
  NvmeArray nvme;
  CsdArray csd;
  /// Data parallelism: how many GPUs like the one above train together
  /// (ZeRO-3: parameters, gradients and optimizer states sharded over
  /// them), sharing the host memory, the CPU optimizer and the storage. With
  /// more than one, h2dBandwidth and d2hBandwidth are what each GPU attains
  /// while all of them stream at once (machineForGpus()).
  int64_t gpus = 1;
  /// Ring bandwidth between the GPUs over links that bypass the host (e.g.
  /// NVLink), B/s per direction; 0 = collectives are staged through host
  /// memory and travel on the host links.
  double peerBandwidth = 0;
  /// The topology devices machineFromTopo() read (empty for the presets):
  /// the GPU, the CPU, and the nvme and csd drives in device order;
  /// `gpuGroup` holds every GPU of a data-parallel machine (the first is
  /// `gpu`).
  struct TopoDevices {
    std::string gpu, cpu;
    std::vector<std::string> nvme, csd, gpuGroup;
  } devices;

  /// FLOP/s a large, wave-aligned fp16 GEMM attains.
  double gpuFlops() const { return gpuPeakFlops * gpuEfficiency; }
  /// The GPU for model::gemmTime.
  model::GemmDevice gemmDevice() const {
    return {gpuPeakFlops, gpuEfficiency, gpuMemoryBandwidth, gpuSms};
  }
  double gpuUsable() const { return gpuMemory * gpuUsableFraction; }
  double hostUsable() const { return hostMemory * hostUsableFraction; }

  /// Empty when usable, else what is wrong ("GPU memory must be positive").
  std::string validate() const;

  /// Ratel's testbed (planning-models.md: one RTX 4090 24 GB, DDR4 capped
  /// to 256 GB, 12 NVMe in RAID 0), with the datasheet figures of
  /// examples/machines/rtx4090-workstation.sluice (docs/offload.md).
  static Machine rtx4090With12Nvme();
  /// FlexGen's testbed (planning-models.md: T4 16 GB, 208 GB DRAM, 1.5 TB
  /// SSD), with the T4 datasheet and the SSD bandwidths FlexGen reports.
  static Machine t4FlexGen();
  /// Smart-Infinity's testbed (planning-models.md: RTX A5000 24 GB, 1 TB
  /// DDR4, `csds` SmartSSDs).
  static Machine a5000SmartSsd(int64_t csds);
  /// The same server with Smart-Infinity's A100 (40 GB, PCIe) instead of
  /// the A5000 (the paper's Table II).
  static Machine a100SmartSsd(int64_t csds);
};

/// What a topology does not say, for machineFromTopo().
struct TopoMachineOptions {
  /// eta of the GPU; 0 = the fitted value for the GPU's `model`
  /// (model::gemmEfficiencyOf), else kDefaultGpuEfficiency.
  double gpuEfficiency = 0;
  /// Parameters/s of the CPU optimizer; 0 = derive it from the CPU's
  /// memory_bandwidth: bandwidth * kDefaultAdamBandwidthFraction /
  /// kAdamHostBytesPerParam.
  double cpuAdamRate = 0;
  /// Host memory to plan with; 0 = the CPU's `memory` property.
  double hostMemory = 0;
  /// Parameters/s of one CSD's optimizer engine; 0 = its compute / 20 FLOP
  /// per parameter (Adam's element-wise arithmetic).
  double csdAdamRatePerDevice = 0;
};

/// Builds a Machine from topology `g`: the GPU named `gpu` (memory,
/// compute, memory_bandwidth), the CPU named `cpu` (memory,
/// memory_bandwidth) and the link between them (the host<->GPU bandwidth,
/// each direction by its widest path), every `nvme` device of the CPU's
/// group that the CPU reaches (read, write and capacity summed; the
/// bandwidths capped by the min cut between the CPU and the drives, so a
/// shared switch uplink counts once) and the `csd` devices likewise. An
/// empty `cpu` picks the CPU with the widest path to the GPU. Errors name
/// the device and the missing property.
llvm::Expected<Machine> machineFromTopo(const analysis::TopoGraph &g,
                                        llvm::StringRef gpu,
                                        llvm::StringRef cpu = "",
                                        const TopoMachineOptions &opts = {});

/// The machine of `base` (built by machineFromTopo() for gpus.front())
/// widened to data parallelism over `gpus` (device names of `g`, every one
/// with the memory and compute of the first). The host<->GPU bandwidths
/// become each GPU's share while all stream at once: the widest path,
/// capped by the min cut between the CPU and the GPUs divided by their
/// number (a shared PCIe switch uplink counts once) and by the host memory
/// bandwidth divided by their number. peerBandwidth is the slowest hop of
/// the ring over the GPUs in the topology without its CPUs: all of it when
/// that is faster than a GPU's own path to the host (NVLink), what the
/// host share leaves of it when the ring runs through the GPUs' own links
/// (a PCIe switch), and 0 when there is no such ring (collectives staged
/// through host memory, on the host links).
llvm::Expected<Machine> machineForGpus(const analysis::TopoGraph &g,
                                       const Machine &base,
                                       llvm::ArrayRef<std::string> gpus);

} // namespace sluice::offload

#endif // SLUICE_COMPILER_ANALYSIS_OFFLOAD_OFFLOADMACHINE_H
