//===- SeqOps.cpp - The seq dialect's ops and their verifiers -------------===//
#include "dialects/Seq/IR/SeqOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"

using namespace mlir;
using namespace sluice::seq;

#define GET_OP_CLASSES
#include "dialects/Seq/IR/SeqOps.cpp.inc"

LogicalResult AlignOp::verify() {
  auto inRange = [&](llvm::StringRef name, int32_t value, int32_t low,
                     int32_t high) -> LogicalResult {
    if (value >= low && value <= high)
      return success();
    return emitOpError() << name << " must be in [" << low << ", " << high
                         << "], got " << value;
  };
  if (getQuery().empty() || getTarget().empty())
    return emitOpError() << "needs a query and a target file";
  if (failed(
          inRange("match", int32_t(getMatchAttr().getInt()), 1, kMaxScore)) ||
      failed(inRange("mismatch", int32_t(getMismatchAttr().getInt()), 1,
                     kMaxScore)) ||
      failed(inRange("gap_open", int32_t(getGapOpenAttr().getInt()), 0,
                     kMaxScore)) ||
      failed(inRange("gap_extend", int32_t(getGapExtendAttr().getInt()), 1,
                     kMaxScore)) ||
      failed(inRange("band", int32_t(getBandAttr().getInt()), 1, kMaxBand)) ||
      failed(
          inRange("threads", int32_t(getThreadsAttr().getInt()), 0, 1 << 16)))
    return failure();
  if (int32_t(getZdropAttr().getInt()) > kMaxZdrop)
    return emitOpError() << "zdrop must be at most " << kMaxZdrop << ", got "
                         << int32_t(getZdropAttr().getInt());
  return success();
}
