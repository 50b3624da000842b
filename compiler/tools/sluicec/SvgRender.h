//===- SvgRender.h - sluicec --format=svg: DOT to one SVG -------*- C++ -*-===//
#ifndef SLUICE_COMPILER_TOOLS_SLUICEC_SVGRENDER_H
#define SLUICE_COMPILER_TOOLS_SLUICEC_SVGRENDER_H

#include "mlir/Support/LogicalResult.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

namespace sluice {

/// Renders DOT to SVG with Graphviz's `dot` into `os`: one document, the
/// graphs of several (a plan with several schedules) stacked top to
/// bottom. Errors (no `dot` on PATH, dot failing) go to stderr.
mlir::LogicalResult renderSvg(llvm::StringRef dotText, llvm::raw_ostream &os);

} // namespace sluice

#endif // SLUICE_COMPILER_TOOLS_SLUICEC_SVGRENDER_H
