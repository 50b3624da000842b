//===- TopoImport.h - Topologies from nvidia-smi and hwloc output -*- C++
//-*-===//
//
// sluice-import-topo's library: two readers of what a machine says about
// itself, and one writer of a `.sluice` topology a user edits.
//
//   readNvidiaSmi  the text of `nvidia-smi topo -m`: the GPU/NIC matrix of
//                  link kinds (X, NV#, PIX, PXB, PHB, NODE, SYS), the CPU
//                  and NUMA affinity columns, the NIC legend
//   readHwloc      hwloc's XML (`lstopo --of xml`, format 2): packages and
//                  their cores and memory, the PCI tree (host bridges, PCI
//                  bridges, GPUs, NICs, NVMe drives with their
//                  pci_link_speed) and the NVLinkBandwidth / XGMIBandwidth
//                  distance matrices
//   writeSluice    the imported machine as a topology: device arrays, links
//                  with bandwidths; every figure the input does not state is
//                  a documented default, marked "guessed" in a comment
//
// The readers report the first problem as "FILE:LINE:COL: error: ..." in
// `error` and return false. docs/topology-import.md describes the mapping
// and the defaults.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_COMPILER_TOOLS_IMPORTTOPO_TOPOIMPORT_H
#define SLUICE_COMPILER_TOOLS_IMPORTTOPO_TOPOIMPORT_H

#include <cstddef>
#include <string>
#include <vector>

namespace sluice::import {

/// A device of the imported machine: element `index` of the array `array`
/// (kind `kind`: gpu, cpu, nic, nvme, switch).
struct Device {
  std::string kind, array;
  size_t index = 0;
  std::string model;
  /// Further properties, already in the language's syntax ("memory",
  /// "80 GiB").
  std::vector<std::pair<std::string, std::string>> properties;
  std::string note; ///< where it came from (bus id, legend name)
};

/// A bidirectional link; `bandwidth` in GB/s per direction.
struct Link {
  size_t a = 0, b = 0;
  double bandwidth = 0;
  std::string type;
  std::string note;     ///< how the bandwidth was found
  bool guessed = false; ///< a documented default, not from the input
};

struct Topology {
  std::vector<Device> devices;
  std::vector<Link> links;
  std::vector<std::string> notes; ///< written at the top of the file

  size_t add(Device d);
  /// Devices of `array` so far (the next index).
  size_t count(const std::string &array) const;
};

/// Defaults for what the inputs do not say (docs/topology-import.md).
struct Defaults {
  double nvlinkPerLink = 25; ///< GB/s per direction per NVLink (NVLink 2-4)
  int pcieGen = 4;           ///< PCIe generation of x16 links
  double socketLink = 64;    ///< GB/s per direction between CPU sockets
  /// GB/s per direction of an x16 link of `pcieGen` (nominal).
  double pcieX16() const;
};

bool readNvidiaSmi(const std::string &path, const std::string &text,
                   const Defaults &defaults, Topology &out, std::string &error);

bool readHwloc(const std::string &path, const std::string &text,
               const Defaults &defaults, Topology &out, std::string &error);

/// The topology as `.sluice` text: `topology NAME { ... }`, with a header
/// comment naming `source`.
std::string writeSluice(const Topology &topology, const std::string &name,
                        const std::string &source);

/// "a-b.x" -> "a_b_x": an identifier for a topology name.
std::string identifierOf(const std::string &text);

} // namespace sluice::import

#endif // SLUICE_COMPILER_TOOLS_IMPORTTOPO_TOPOIMPORT_H
