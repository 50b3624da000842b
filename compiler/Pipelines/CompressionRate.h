//===- CompressionRate.h - Measured host codec of blockio demands -*- C++
//-*-===//
//
// The input plan-middle-tier takes for a blockio demand when the user asks
// for a measurement (sluicec --measure-compression): the host codec's rate
// per core for compression and decompression and its ratio, measured here
// on this machine through the runtime (sluice_compress_measure: the job's
// codec, zstd or lz4, on generated blocks of the demand's block size and
// compressibility) and
// attached to the job as `cpu_rate` / `cpu_decompress_rate` / `cpu_ratio`, so
// that the pass itself runs no benchmark and the plan dialect's transforms do
// not link the runtime. See docs/flows.md, "Storage middle tier (SmartDS)".
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_COMPILER_PIPELINES_COMPRESSIONRATE_H
#define SLUICE_COMPILER_PIPELINES_COMPRESSIONRATE_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LogicalResult.h"

namespace sluice {

/// Attaches `cpu_rate` (f64, input bytes per second on one core),
/// `cpu_decompress_rate` (f64, output bytes per second on one core) and
/// `cpu_ratio` (f64) to every blockio demand of `module` without them, one
/// measurement per distinct (block size, compressibility, codec). A failed
/// measurement is reported at the demand, and then this fails.
mlir::LogicalResult attachMeasuredCompression(mlir::ModuleOp module);

} // namespace sluice

#endif // SLUICE_COMPILER_PIPELINES_COMPRESSIONRATE_H
