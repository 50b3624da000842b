//===- Passes.td - Cross-dialect lowerings -----------------*- tablegen -*-===//

#ifndef SLUICE_CONVERSION_PASSES
#define SLUICE_CONVERSION_PASSES

include "mlir/Pass/PassBase.td"

def WalkToLLVM : Pass<"walk-to-llvm", "::mlir::ModuleOp"> {
  let summary = "Lower walk.walk ops to kernel functions and descriptors";
  let description = [{
    Turns every `walk.walk @W` into LLVM-dialect functions with exactly the
    signatures of the walk kernel ABI (runtime/include/sluice/walk.h) and a
    global `sluice_walk_kernel_t` named `sluice_walk_kernel_W`:

    | region | function | C signature |
    |---|---|---|
    | `weight` | `sluice_walk_W_weight` | `double(const sluice_walk_frame_t *, uint32_t next, uint64_t edge, double w)` |
    | `stop` | `sluice_walk_W_stop` | `int(const sluice_walk_frame_t *)` |
    | `update` | `sluice_walk_W_update` | `void(sluice_walk_frame_t *, uint32_t next)` |
    | `init` | `sluice_walk_W_init` | `void(sluice_walk_frame_t *)` |
    | `upper_bound`, ... | `sluice_walk_W_upper_bound`, ... | `double(const sluice_walk_frame_t *)` |
    | `length` | `sluice_walk_W_length` | `int64_t(const sluice_walk_frame_t *)` |
    | `stop_probability` | `sluice_walk_W_stop_probability` | `double(const sluice_walk_frame_t *)` |
    | `start` | `sluice_walk_W_start` | `int64_t(const sluice_walk_frame_t *, int64_t *ids, int64_t capacity)`: writes up to `capacity` original vertex ids, returns how many there are |

    The setup functions (`length`, `stop_probability`, `start`) read only
    `graph` and `params` of the frame. Region arguments become loads of the
    frame (`prev`, `cur`, `step`) or function arguments (`next`, `edge`,
    `w`); `walk.param` and `walk.state.get`/`set` load and store 8-byte
    slots; graph queries become calls to libsluicert (`sluice_graph_degree`,
    `sluice_graph_has_edge`, `sluice_graph_vertex_label`,
    `sluice_kernel_edge_weight`, `sluice_walk_random`, ...). The descriptor's
    flags come from the walk's attributes (`order`, `may_be_zero`,
    `unbounded`, no `upper_bound` region) and its weight class from
    `weight_class` (DYNAMIC when the walk was not analysed).

    arith, math, scf, cf and func are then lowered with the upstream
    conversions. After the pass the module holds only LLVM-dialect ops:
    `walk.graph` and `walk.job` are dropped (the driver reads them before).
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect",
                           "::mlir::func::FuncDialect",
                           "::mlir::cf::ControlFlowDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::math::MathDialect"];
}

#endif // SLUICE_CONVERSION_PASSES
