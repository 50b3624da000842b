//===- TopoGraph.h - A plain hardware topology graph -----------*- C++ -*-===//
//
// The problem struct for the topology analyses: devices with typed
// properties, and directed arcs with a bandwidth and a latency. It knows
// nothing about MLIR; a pass or a test fills it in, the analyses in
// TopoAnalysis.h read it, and the writers in compiler/Target/TopoReport.h
// print it.
//
// Device kinds are plain strings ("gpu", "cpu", "nvme", "nic", "smartnic",
// "switch", "csd") so that this library does not depend on the dialect's
// kind enum. Quantities are stored in base units (bytes, seconds, B/s, ...)
// with their dimension from support/Units.h.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_COMPILER_ANALYSIS_TOPOGRAPH_H
#define SLUICE_COMPILER_ANALYSIS_TOPOGRAPH_H

#include "support/Units.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace sluice::analysis {

/// A dimensioned property value, e.g. memory = 80 GiB.
struct QuantityProp {
  std::string name;
  /// The value in base units (bytes, seconds, B/s, FLOP/s, ...).
  double value = 0;
  Dim dim;
  /// How the value reads to a person, e.g. "80 GiB".
  std::string display;
};

/// An integer property, e.g. sms = 132.
struct IntProp {
  std::string name;
  int64_t value = 0;
};

/// A string property, e.g. model = "H100".
struct StringProp {
  std::string name;
  std::string value;
};

/// A boolean property, e.g. rdma = true.
struct BoolProp {
  std::string name;
  bool value = false;
};

/// One device of the topology.
struct TopoDevice {
  /// The full instance path, e.g. "server[3].gpu[2]".
  std::string name;
  /// The device kind spelling, e.g. "gpu".
  std::string kind;
  /// The top-level path prefix, e.g. "server[3]"; empty for a device that
  /// sits at the top level of the topology (no '.' in its name).
  std::string group;
  std::vector<QuantityProp> quantities;
  std::vector<IntProp> ints;
  std::vector<StringProp> strings;
  std::vector<BoolProp> bools;

  /// The quantity named `name`, or nullptr.
  const QuantityProp *findQuantity(llvm::StringRef name) const;
  /// The rate that limits traffic through this device, in B/s: the line
  /// rate (`bandwidth`) of a "nic" or "smartnic"; std::nullopt for every
  /// other kind and for a NIC without a rate.
  std::optional<double> throughRate() const;
};

/// A directed arc. A link `a <-> b` becomes two arcs, `a -> b` one.
struct TopoArc {
  /// Marks an arc that has no source link (e.g. a measured matrix entry).
  static constexpr unsigned kNoLink = ~0u;

  unsigned from = 0;
  unsigned to = 0;
  /// Bandwidth in bytes per second.
  double bandwidth = 0;
  /// One-way latency in seconds; 0 when not known (see `latencyKnown`).
  double latency = 0;
  /// False when the link gave no latency: `latency` is then 0 and the
  /// writers show the latency of any path over this arc as unknown.
  bool latencyKnown = true;
  /// True for an observed end-to-end value (a measured bandwidth matrix)
  /// rather than a modeled link. Measured arcs are reported as the
  /// "attained" bandwidth of their pair and take no part in the structural
  /// analyses (connectivity, paths, cuts, link totals).
  bool measured = false;
  /// Index of the link this arc came from, for provenance; kNoLink if none.
  unsigned link = kNoLink;
  /// Link technology, e.g. "nvlink4"; may be empty.
  std::string type;
};

/// Devices and arcs. Device indices are positions in `devices`; every
/// tie-break in the analyses goes by device index, then arc index.
struct TopoGraph {
  std::vector<TopoDevice> devices;
  std::vector<TopoArc> arcs;

  /// The group of a device path: the text before the first '.', or "" for
  /// a top-level device ("server[3].gpu[2]" -> "server[3]").
  static std::string groupOf(llvm::StringRef path);

  /// Appends a device (its group derived from `name`) and returns its index.
  unsigned addDevice(llvm::StringRef name, llvm::StringRef kind);
  /// Adds a quantity to device `dev`. An empty `display` is filled in with
  /// formatQuantity(value, dim).
  void addQuantity(unsigned dev, llvm::StringRef name, double value, Dim dim,
                   llvm::StringRef display = "");
  void addInt(unsigned dev, llvm::StringRef name, int64_t value);
  void addString(unsigned dev, llvm::StringRef name, llvm::StringRef value);
  void addBool(unsigned dev, llvm::StringRef name, bool value);

  /// Appends one directed arc and returns its index.
  unsigned addArc(const TopoArc &arc);
  /// Adds the arcs of a modeled link: `from -> to`, and `to -> from` too if
  /// `bidirectional`. Both carry `link` for provenance. Returns the index of
  /// the first arc added.
  unsigned addLink(unsigned from, unsigned to, double bandwidth, double latency,
                   bool bidirectional, unsigned link = TopoArc::kNoLink,
                   llvm::StringRef type = "");
  /// Adds a measured (attained) bandwidth from `from` to `to`.
  unsigned addMeasured(unsigned from, unsigned to, double bandwidth,
                       double latency = 0);

  /// The index of the device named `name`, if any (linear search).
  std::optional<unsigned> findDevice(llvm::StringRef name) const;
  /// Distinct groups, non-empty ones only, in order of first appearance.
  std::vector<std::string> groups() const;
  /// Distinct kinds in order of first appearance.
  std::vector<std::string> kinds() const;
  /// Number of distinct link indices among the modeled arcs (arcs without a
  /// link count one each).
  unsigned numLinks() const;
  unsigned numModeledArcs() const;
  unsigned numMeasuredArcs() const;
};

} // namespace sluice::analysis

#endif // SLUICE_COMPILER_ANALYSIS_TOPOGRAPH_H
