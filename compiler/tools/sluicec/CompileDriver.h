//===- CompileDriver.h - sluicec -c: one artefact per program kind -*- C++
//-*-===//
//
// What `sluicec -c` writes for a checked and lowered program: align jobs,
// gnn train jobs (GPU kernels only), algorithms or walks, each for the CPU
// (an object file and a C header) or with --target=gpu (PTX for sm_90 and
// its JSON description).
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_COMPILER_TOOLS_SLUICEC_COMPILEDRIVER_H
#define SLUICE_COMPILER_TOOLS_SLUICEC_COMPILEDRIVER_H

#include "compiler/Target/LLVM/Codegen.h"

#include "mlir/IR/BuiltinOps.h"

#include <string>

namespace sluice {

/// The options of one -c.
struct CompileRequest {
  std::string input;  ///< the .sluice file (default output names)
  std::string output; ///< -o ("-": <input stem>.o or .ptx)
  std::string job;    ///< --job (gnn train jobs)
  std::string libdevice;
  bool gpu = false;     ///< --target=gpu
  bool remarks = false; ///< --remarks
  /// --mcpu (one CPU, or several dispatched at load time), --mattr
  llvm::SmallVector<target::HostCpu, 1> cpus = {target::HostCpu()};
};

/// -c of `module`: the artefact of its kind. Returns the exit code.
int compileProgram(mlir::ModuleOp module, const CompileRequest &request);

} // namespace sluice

#endif // SLUICE_COMPILER_TOOLS_SLUICEC_COMPILEDRIVER_H
