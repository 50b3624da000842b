//===- WalkAttrs.td - Attributes of the walk dialect -------*- tablegen -*-===//
//
// The walk enums as attributes, and the schedule walk-select-sampler
// decides (`#walk.schedule<...>`), which every consumer of a walk reads: the
// CPU and GPU lowerings, the kernels' JSON description and the run. An
// EnumAttr prints a space before its value, so op formats put an empty
// literal before one (`format` `` $format) to print a single space.
//
//===----------------------------------------------------------------------===//

#ifndef SLUICE_WALK_ATTRS
#define SLUICE_WALK_ATTRS

include "dialects/Walk/IR/WalkDialect.td"
include "dialects/Walk/IR/WalkEnums.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

def Walk_GraphFormatAttr : EnumAttr<Walk_Dialect, Walk_GraphFormat, "format">;
def Walk_WalksDtypeAttr
    : EnumAttr<Walk_Dialect, Walk_WalksDtype, "walks_dtype">;
def Walk_DuplicatesAttr
    : EnumAttr<Walk_Dialect, Walk_Duplicates, "duplicates">;
def Walk_SelfLoopsAttr : EnumAttr<Walk_Dialect, Walk_SelfLoops, "self_loops">;
def Walk_SamplerAttr : EnumAttr<Walk_Dialect, Walk_Sampler, "sampler">;
def Walk_TargetAttr : EnumAttr<Walk_Dialect, Walk_Target, "target">;
def Walk_WeightClassAttr
    : EnumAttr<Walk_Dialect, Walk_WeightClass, "weight_class">;

def Walk_ScheduleAttr : AttrDef<Walk_Dialect, "Schedule"> {
  let mnemonic = "schedule";
  let summary = "How a walk runs: target, step method, threads";
  let description = [{
    Written by `walk-select-sampler` from the walk's requested `sampler` and
    `target`, its `weight_class` and whether its weight is `unbounded`
    (`selectStepMethod` in WalkSchema.h); read by walk-to-gpu (which kernel
    to build), the kernels' JSON description (`sluicec -c --target=gpu`)
    and the run (`sluicec --run`: where the walk runs and the engine's
    sampler).

    - `target`: `cpu` or `gpu`;
    - `method`: `uniform` (an index from the degree), `alias` (a table per
      vertex, built once), `rejection` (a uniform candidate accepted with
      probability weight / bound), `reservoir` (one pass over the
      candidates) or `cost_model` (the CPU engine chooses rejection or
      reservoir per vertex and step); a GPU uses `rejection` or
      `reservoir` only;
    - `threads_per_walker`: 32 (a warp) for a GPU reservoir kernel, else 1;
    - `threads`, `walkers_per_thread`: the CPU schedule (0: the engine's
      default).

    Example:

    ```mlir
    #walk.schedule<target = gpu, method = reservoir, threads_per_walker = 32>
    #walk.schedule<target = cpu, method = cost_model, threads = 16>
    ```
  }];
  let parameters = (ins
      EnumParameter<Walk_Target>:$target,
      EnumParameter<Walk_StepMethod>:$method,
      DefaultValuedParameter<"int64_t", "1">:$threads_per_walker,
      DefaultValuedParameter<"int64_t", "0">:$threads,
      DefaultValuedParameter<"int64_t", "0">:$walkers_per_thread);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

def Walk_KernelAttr : AttrDef<Walk_Dialect, "Kernel"> {
  let mnemonic = "kernel";
  let summary = "The descriptor of one walk compiled for the host";
  let description = [{
    What `walk-to-llvm` decided about a walk's `sluice_walk_kernel_t`
    (runtime/include/sluice/walk.h), kept in the module's `walk.kernels`
    list until `walk-kernel-descriptors` emits the descriptor globals once
    the functions are LLVM-dialect functions:

    - `name`: the walk (the descriptor is `sluice_walk_kernel_<name>`);
    - `flags`: SLUICE_WALK_SECOND_ORDER, _MAY_BE_ZERO, _UNBOUNDED,
      _PURE_WEIGHT;
    - `weight_class`: SLUICE_WALK_WEIGHT_* (3: dynamic);
    - `num_params`, `num_state`: the 8-byte slots of each block;
    - `functions`: the eight function symbols in the descriptor's order
      (weight, stop, update, init, upper_bound, lower_bound,
      sum_upper_bound, sum_lower_bound), `""` where the walk has none.

    Example:

    ```mlir
    #walk.kernel<name = "n2v", flags = 9, weight_class = 2, num_params = 2,
                 num_state = 0, functions = ["sluice_walk_n2v_weight", "", "",
                 "", "sluice_walk_n2v_upper_bound", "", "", ""]>
    ```
  }];
  let parameters = (ins
      StringRefParameter<"the walk's name">:$name,
      "uint32_t":$flags,
      "int32_t":$weight_class,
      "uint32_t":$num_params,
      "uint32_t":$num_state,
      "::mlir::ArrayAttr":$functions);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

#endif // SLUICE_WALK_ATTRS
