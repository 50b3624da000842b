//===- DeviceFrame.h - the per-thread frame of a GPU walk kernel -*- C++ -*-===//
//
// The one definition of the device frame's slots (8 bytes each; i32 fields
// in the low half). The device code files name a slot by a tagged constant
// (`arith.constant {sluice.frame_slot = "cur"} 11 : i32`) whose value
// WalkDeviceCode.cpp checks and sets from this table; walk-to-gpu's target
// model reads slots by these enumerators.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_CONVERSION_WALKTOGPU_DEVICEFRAME_H
#define SLUICE_CONVERSION_WALKTOGPU_DEVICEFRAME_H

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>

namespace sluice::conversion {

enum FrameSlot : int32_t {
  kOffsets = 0,
  kTargets = 1,
  kWeights = 2,
  kWeightMax = 3, // then min, sum
  kWeightMin = 4,
  kWeightSum = 5,
  kLabels = 6,
  kParams = 7,
  kState = 8,
  kWalker = 9,
  kPrev = 10,
  kCur = 11,
  kStep = 12,
  kSeed = 13,
  kDraws = 14,
  kNumVertices = 15,
  kNumEdges = 16,
  kEdgeLabels = 17,
  kFault = 18,       // the kernel's fault record (see sluice_fault)
  kOriginalIds = 19, // u64 per vertex, NULL: original = id_base + vertex
  kIdBase = 20,
  kNumFrameSlots = 21
};

/// The slot the device code calls `name` ("num_slots": the frame's size).
inline std::optional<int32_t> frameSlotNamed(llvm::StringRef name) {
  static constexpr struct {
    const char *name;
    FrameSlot slot;
  } kSlots[] = {{"offsets", kOffsets},         {"targets", kTargets},
                {"weights", kWeights},         {"weight_max", kWeightMax},
                {"weight_min", kWeightMin},    {"weight_sum", kWeightSum},
                {"labels", kLabels},           {"params", kParams},
                {"state", kState},             {"walker", kWalker},
                {"prev", kPrev},               {"cur", kCur},
                {"step", kStep},               {"seed", kSeed},
                {"draws", kDraws},             {"num_vertices", kNumVertices},
                {"num_edges", kNumEdges},      {"edge_labels", kEdgeLabels},
                {"fault", kFault},             {"original_ids", kOriginalIds},
                {"id_base", kIdBase},          {"num_slots", kNumFrameSlots}};
  for (const auto &s : kSlots)
    if (name == s.name)
      return s.slot;
  return std::nullopt;
}

} // namespace sluice::conversion

#endif // SLUICE_CONVERSION_WALKTOGPU_DEVICEFRAME_H
