//===- SlotPlacement.h - Which slot each GPU and SSD goes in ----*- C++ -*-===//
//
// Slot recommendation (see docs/flows.md, "Slot recommendation"): a machine
// is a fixed fabric (sockets, PCIe switches, their links) with slots (a port
// on a fabric node with a bandwidth and the device kinds it takes); the
// devices to install (GPUs, SSDs, ...) and a traffic pattern between kinds
// (e.g. every GPU reads B bytes from every SSD and from host memory).
// recommendSlots searches the assignments of devices to slots for the
// smallest makespan of that traffic under the flow schedule:
// exhaustively over slot classes (slots with the same node, bandwidth and
// kinds are interchangeable, and so are devices of one kind) when the
// count allows, by local search (moves and swaps from the current or a
// first-fit assignment) beyond. It reports the makespan of the recommended
// and of the current assignment.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_COMPILER_ANALYSIS_FLOW_SLOTPLACEMENT_H
#define SLUICE_COMPILER_ANALYSIS_FLOW_SLOTPLACEMENT_H

#include "compiler/Analysis/Flow/FlowProblem.h"
#include "compiler/Analysis/Flow/FlowSchedule.h"
#include "llvm/Support/Error.h"
#include <optional>
#include <string>
#include <vector>

namespace sluice::flow {

struct Slot {
  std::string name;
  /// The fabric node the slot's link goes to (e.g. a PCIe switch).
  unsigned attach = 0;
  /// Link bandwidth per direction, B/s.
  double bandwidth = 0;
  /// Device kinds it takes; empty takes any.
  std::vector<std::string> accepts;
};

struct SlotDevice {
  std::string name;
  std::string kind;
  /// The device's own interface limit per direction (B/s); the link runs at
  /// min(slot, device). 0: no limit of its own.
  double bandwidth = 0;
};

/// Every device of `destinationKind` reads `bytesPerPair` from every device
/// of `sourceKind` (other than itself), or from fabric node `sourceNode`
/// if set.
struct SlotTraffic {
  std::string sourceKind;
  std::optional<unsigned> sourceNode;
  std::string destinationKind;
  double bytesPerPair = 0;
};

struct SlotProblem {
  FlowNetwork fabric;
  std::vector<Slot> slots;
  std::vector<SlotDevice> devices;
  std::vector<SlotTraffic> traffic;
  /// The assignment in use (slot per device), if any, to compare against.
  std::vector<unsigned> current;
};

struct SlotOptions {
  /// Exhaustive search when the assignments up to symmetry are at most
  /// this many; local search otherwise.
  unsigned exhaustiveLimit = 5000;
  /// Relative gap of the path LP for multi-commodity traffic with more
  /// than 64 demands (smaller ones use the exact arc LP).
  double relativeGap = 1e-4;
};

struct SlotAssignment {
  /// Slot index per device.
  std::vector<unsigned> slotOf;
  double makespan = 0;
};

struct SlotRecommendation {
  SlotAssignment best;
  std::optional<SlotAssignment> current;
  /// Assignments evaluated with the flow solver.
  unsigned evaluated = 0;
  /// True if the search covered every assignment up to symmetry.
  bool exhaustive = false;
};

/// Checks nodes, bandwidths, kinds, traffic and (if given) the current
/// assignment; fails if the devices cannot all get a compatible slot.
llvm::Error validateSlotProblem(const SlotProblem &problem);

/// The fabric plus one node per device (named after it), linked both ways
/// to its slot's node.
llvm::Expected<FlowNetwork> slotNetwork(const SlotProblem &problem,
                                        const std::vector<unsigned> &slotOf);

/// The traffic's demands on slotNetwork (device i is node
/// fabric.numNodes() + i).
std::vector<Demand> slotDemands(const SlotProblem &problem);

/// The makespan of the traffic with devices in `slotOf`.
llvm::Expected<SlotAssignment>
evaluateSlots(const SlotProblem &problem, const std::vector<unsigned> &slotOf,
              const SlotOptions &options = {});

llvm::Expected<SlotRecommendation>
recommendSlots(const SlotProblem &problem, const SlotOptions &options = {});

} // namespace sluice::flow

#endif // SLUICE_COMPILER_ANALYSIS_FLOW_SLOTPLACEMENT_H
