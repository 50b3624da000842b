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

    The pass leaves func, arith, math, scf and LLVM-dialect ops and records
    each walk's descriptor as a `#walk.kernel` in the module's
    `walk.kernels` list; the upstream conversions (scf-to-cf,
    math-to-llvm, math-to-libm, arith, cf and func to LLVM, reconcile
    casts) and `walk-kernel-descriptors` finish the job (the pipeline
    `sluice-walk-to-llvm` of sluice-opt, buildWalkToLLVMPipeline in
    compiler/Pipelines/PassPipelines.h). `walk.graph` and `walk.job` are
    dropped (the driver reads them before); ops of other dialects (a
    topology, plans, models) are left as they are.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect",
                           "::mlir::func::FuncDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect"];
}

def WalkKernelDescriptors : Pass<"walk-kernel-descriptors", "::mlir::ModuleOp"> {
  let summary = "Emit the sluice_walk_kernel_t globals walk-to-llvm recorded";
  let description = [{
    The last pass of the walks' lowering for the host: checks that nothing
    of walk, func, arith, math, scf or cf is left, then turns every
    `#walk.kernel` of the module's `walk.kernels` (written by
    `walk-to-llvm`) into the constant global `sluice_walk_kernel_<W>` of
    type `sluice_walk_kernel_t` (runtime/include/sluice/walk.h): ABI
    version, flags, a pointer to the walk's name, weight class, slot
    counts and the eight function pointers (null where the walk has no
    such function), and removes the list.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def WalkToGPU : Pass<"walk-to-gpu", "::mlir::ModuleOp"> {
  let summary = "Lower walk.walk ops to GPU kernels in a gpu.module";
  let description = [{
    Turns every `walk.walk @W` into a kernel `gpu.func
    @sluice_walk_W` in one `gpu.module @sluice_walks` (the module gets
    `gpu.container_module`). One thread per walker; each step draws from
    the walker's Philox4x32-10 stream (key = seed, counter = (block, step,
    walker low, walker high), as WalkRng), stops with `stop_probability`,
    runs the `stop` rule, then samples by rejection against the
    `upper_bound` region with the exact two-pass fallback after
    min(64, max(4, 2 * degree)) trials (the CPU engine's rejection mode),
    runs `update` and moves. The regions become private device functions
    (`sluice_walk_W_weight`, `_stop`, `_update`, `_init`, `_upper_bound`);
    graph built-ins read the CSR arrays passed to the kernel (`has_edge` and
    `weight(u, v)` by binary search).

    A kernel takes one argument: the device address of a
    `sluice_walk_gpu_args_t` (runtime/include/sluice/walk_gpu.h; the one
    definition of the fields, whose indices the device code takes from
    compiler/Conversion/WalkToGPU/KernelArgs.h). Its fields, in order:
    offsets (u64*, num_vertices + 1), targets
    (u32*), weights (f32*, NULL when unweighted), weight_max, weight_min,
    weight_sum (f32*, per vertex), labels (i32*, NULL without labels),
    params (the 8-byte parameter slots), starts (u32*, CSR ids), num_walkers,
    walks_per_vertex, max_length (i64), stop_probability (f64), seed (i64),
    rows (u32*, num_walkers x max_length), lengths (u32*, num_walkers),
    num_vertices, num_edges (i64), edge_labels (i32*, NULL without edge
    labels), walker_base (i64: the launch runs walkers walker_base ..
    walker_base + num_walkers - 1, writing rows and lengths from index 0,
    so a run can be split into launches with the same walks), fault (a
    sluice_walk_fault_t followed by a u64, the smallest faulting walker,
    which the launcher sets to UINT64_MAX; NULL: faults are not recorded),
    original_ids (u64*, the sorted original id of each vertex, NULL when
    the ids are dense) and id_base (i64, the original id of vertex 0 when
    they are dense; `vertex_of`). Walker w starts at
    starts[w / walks_per_vertex]. A list parameter's slot holds a device
    pointer to a sluice_walk_list_t {data, size} whose data are on the
    device; `xs[i]` out of range records the fault (the first one; code
    SLUICE_WALK_FAULT_LIST_INDEX, as sluice_kernel_list_get) and gives 0.

    Which kernel a walk gets is decided before, by walk-select-sampler:
    walk-to-gpu reads each walk's `#walk.schedule<target = gpu, ...>` (a
    walk without one, or scheduled for the cpu, is an error at the walk).
    `method = rejection` gives the kernel above; `method = reservoir`
    (`threads_per_walker = 32`) samples by weighted reservoir with a warp
    per walker instead: 32 threads per walker (walker = thread / 32, lane =
    thread % 32, lane 0 writes), lane l scans cur's edges l, l + 32, ...,
    keys log(u_i) / w_i with u_i from Philox keyed by (seed, walker, step,
    edge index), and a shuffle butterfly picks the largest key
    (`sluice_walk_W_sample` of WalkReservoirSampler.mlir). Same kernel
    argument.

    Not supported yet (a located error): `label_mass` (it appears only in
    the sum bounds, which the kernels do not use). The output is
    gpu/func/scf/arith/math/llvm; scf-to-cf, convert-gpu-to-nvvm (math on
    f64 becomes calls of libdevice's `__nv_sqrt`, ..., which the PTX
    emission links) and convert-math-to-llvm (`math.absi`) finish the
    lowering.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect",
                           "::mlir::func::FuncDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::gpu::GPUDialect",
                           "::mlir::arith::ArithDialect"];
}

def GraphToLLVM : Pass<"graph-to-llvm", "::mlir::ModuleOp"> {
  let summary = "Lower graph.algorithm ops to CPU functions over libsluicert";
  let description = [{
    Before: `graph.algorithm` ops whose loops carry a complete
    `#graph.schedule` (graph-attach-schedule has run), and `graph.job` ops.
    After: for every algorithm `A`, an `llvm.func @sluice_algo_A(ctx,
    params, props)` (runtime/include/sluice/algo.h; the ABI is in
    compiler/Conversion/GraphToLLVM/GraphAbi.h) and, for every loop, one
    `llvm.func @sluice_algo_A_<label>_<variant>(ctx, env, begin, end)` per
    way it runs, with arith, math, scf and LLVM-dialect ops only; the jobs
    are dropped (the driver reads them before).

    How a loop runs comes from its schedule:

    - `graph.vertices`: variant `vertices`, [0, num_vertices) split by the
      runtime's parallel for;
    - `graph.edges`, `direction = push`: variant `push`, over the sources
      and their out-edges (CSR); with `from`, the frontier's sorted list
      (`frontier = sparse`), every vertex tested against its bitmap
      (`dense`, `bitmap`), or either per round by the frontier's size
      (`auto`);
    - `direction = pull`: variant `pull`, over the destinations and their
      in-edges (CSC), sources tested against the frontier's bitmap;
    - `direction = hybrid`: both, chosen per round
      (sluice_algo_frontier_pull_next, Beamer's alpha 15 and beta 18 as in
      GAPBS: pull once the frontier's out-edges pass 1/15 of those not yet
      scanned, push again once it shrinks to 1/18 of the vertices); the
      pull variant tests the frontier's bitmap without a null check;
      without `from`, pull;
    - `parallel` and `chunk`: the schedule and chunk of
      sluice_algo_parallel_for.

    In a parallel loop, a reduction or write at a vertex other than the
    one the iteration owns (the source in push, the destination in pull,
    `v` in a vertices loop) is atomic (`llvm.atomicrmw`, monotonic loads
    and stores); at the owned vertex it is plain. A loop with a result
    inserts each destination whose property its body changed into a new
    frontier, sealed (sorted) after the round. A loop whose frontier is
    a `scf.while` body's argument that only it reads (the condition may
    take its size), every value of which is made fresh and read nowhere
    else, releases it after the round (sluice_algo_frontier_release).
    `tile` on a pull loop adds a variant over tiled in-edges
    (sluice/algo_tile.h); on a push loop whose only update is one `+=`,
    `-=`, `min=` or `max=` at the destination of a value from the source,
    it adds the two passes of propagation blocking, `_push_bins` and
    `_bins_accumulate` (sluice/algo_bins.h; docs/algorithms.md). A push over
    every vertex with `format = coo` runs over blocks of its edges
    (CooEdges.cpp). With `remarks` the pass says for every loop which
    variants, parallelism and atomics it got, why a `tile` was not used
    and why a `format = coo` loop keeps the CSR.

    `graph.vertex_of` of an id the graph lacks and integer division by
    zero fault at run time: the runtime keeps the op's site (its index in
    pre-order among those ops), stops the algorithm's loops, and the
    driver reports the error at the op. `random` in an algorithm is not
    lowered yet (a located error); `has_edge`, `weight(u, v)`, `label` and
    `edge_label` are calls of the runtime (sluice_algo_has_edge, ...).

    Example: `@gather edges(src, dst) { incoming[dst] += ... }` with
    `direction: pull, parallel: dynamic(64)` becomes
    `@sluice_algo_pagerank_gather_pull` and, where the loop was, a call
    `sluice_algo_parallel_for(ctx, n, 2, 64, @..._gather_pull, env)`.
  }];
  let options = [
    Option<"remarks", "remarks", "bool", "false",
           "A remark at every loop: its variants, parallelism and atomics">,
  ];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::cf::ControlFlowDialect",
                           "::mlir::scf::SCFDialect"];
}

def GraphToGPU : Pass<"graph-to-gpu", "::mlir::ModuleOp"> {
  let summary = "Lower graph.algorithm ops to host functions and GPU kernels";
  let description = [{
    Before: as for graph-to-llvm (`graph.algorithm` ops with a complete
    `#graph.schedule` on every loop, `graph.job` ops).
    After: the host functions graph-to-llvm builds (the algorithm's
    function, its rounds and frontiers, one function per loop variant),
    and `gpu.module @sluice_algos` with, for every loop variant
    `sluice_algo_A_L_V`, a kernel of the same name
    `gpu.func @sluice_algo_A_L_V(%ctx: !llvm.ptr, %env: !llvm.ptr,
    %count: i64) kernel`: thread `i < count` runs a copy of the CPU
    variant (`llvm.func @sluice_algo_A_L_V_range`) over `[i, i + 1)`, so a
    thread per vertex (`vertices`), per source (`push`: an entry of the
    frontier's list, or a vertex tested against its bitmap), per
    destination (`pull`) or per block of 4096 vertices (a `vertices` loop
    that reduces into locals); the edges of its vertex in a loop, atomics
    where the CPU code has them. The gpu.module defines the runtime calls
    that code makes (`sluice_algo_view`, `sluice_algo_frontier_insert`,
    `sluice_algo_original_id`) over runtime/include/sluice/algo_gpu.h's
    structs, and a global `<kernel>_info` per kernel (environment slots,
    locals, property sizes) that the runtime reads when it binds the
    kernel; the kernel's `sluice.algo_kernel` attribute describes it.
    A push variant that writes nothing at its source, and a pull variant
    whose every write is a `+=`, `min=` or `max=` at its destination
    (EdgeLanes.cpp), also get a twin kernel `sluice_algo_A_L_V_lanes` with
    a warp per item (`threads_per_item` 32): lane l walks the item's edges
    lo + l, lo + l + 32, ...; a pull twin combines the lanes' partials with
    `sluice_algo_warp_<kind>_<type>` (defined here: a butterfly of
    `gpu.shuffle xor`) and lane 0 reduces the totals into the destination.
    The runtime launches the twin when the items' average degree reaches
    its threshold.

    A graph op in a loop whose CPU code is a runtime call (`has_edge`,
    `weight(u, v)`, `label`, `edge_label`, `vertex_of`, integer `/` and
    `%`, `common_neighbors`) and `frontier: buckets` are located errors
    ("not supported yet with --target=gpu"). With `remarks`, a remark per
    loop says which kernels it got and their shape.

    Example: BFS's `@expand` scheduled `direction: hybrid` gets kernels
    `@sluice_algo_bfs_expand_push`, its twin
    `@sluice_algo_bfs_expand_push_lanes`, and `@sluice_algo_bfs_expand_pull`
    (its early exit keeps a thread per destination).
  }];
  let options = [
    Option<"remarks", "remarks", "bool", "false",
           "A remark at every loop: its kernels and their shape">,
  ];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::gpu::GPUDialect",
                           "::mlir::scf::SCFDialect"];
}

def AlignToLLVM : Pass<"align-to-llvm", "::mlir::ModuleOp"> {
  let summary = "Lower seq.align jobs to CPU functions, one pair per call";
  let description = [{
    Before: `seq.align` jobs (docs/align.md). After: for every job `J`, a
    function

    ```mlir
    func.func @sluice_align_J_pair(%query: !llvm.ptr, %qlen: i32,
        %target: !llvm.ptr, %tlen: i32, %scratch: !llvm.ptr,
        %result: !llvm.ptr)
    ```

    with the job's scoring as constants; the jobs are dropped. The output
    is func/scf/arith/llvm; scf-to-cf and the LLVM conversions finish it
    (`sluice-align-to-llvm`), and `sluicec -c` compiles it to an object
    file. The function aligns one pair (base codes 0..4 at `%query` and
    `%target`; seven scratch rows of `%tlen + 2` i32 at `%scratch`) and
    writes one `sluice_align_result_t` at `%result`: the anti-diagonal
    loop align-to-gpu's kernel runs, with one lane instead of 32 (the
    cells of an anti-diagonal in order and their maximum, then the first
    cell that holds it: the same tie rule). Its C type is
    `sluice_align_pair_kernel_t` (runtime/include/sluice/align.h);
    `sluice_align_batch_compiled` runs it on the runtime's threads.

    Example: `seq.align @extend ...` becomes `func.func
    @sluice_align_extend_pair`.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::func::FuncDialect",
                           "::mlir::scf::SCFDialect"];
}

def AlignToGPU : Pass<"align-to-gpu", "::mlir::ModuleOp"> {
  let summary = "Lower seq.align jobs to warp-per-pair GPU kernels";
  let description = [{
    Before: `seq.align` jobs (docs/align.md). After: for every job `J`, a
    kernel `gpu.func @sluice_align_J(%args: !llvm.ptr) kernel` in one
    `gpu.module @sluice_aligns` (the module gets `gpu.container_module`);
    the jobs are dropped (the driver reads them before). The output is
    gpu/scf/arith/llvm/nvvm; scf-to-cf and convert-gpu-to-nvvm finish it
    (`sluice-align-to-nvvm`).

    The kernel computes, for every pair, what the CPU wavefront kernel
    computes (runtime/src/align/WavefrontBody.inc: banded Gotoh by
    anti-diagonals with the Z-drop), with one warp per pair: the 32 lanes
    sweep each anti-diagonal's band cells in strides of 32 (lane l: cells
    l, l + 32, ...), H of anti-diagonals r - 1 and r - 2 and E and F of
    r - 1 in seven rotating rows of per-warp global scratch; a shuffle
    butterfly (`gpu.shuffle xor` 16, 8, 4, 2, 1) finds the anti-diagonal's
    best cell, the smallest target index among equal scores; a
    `gpu.shuffle idx` from lane 0 gives cell 0 (the query-end and global
    scores); the Z-drop test runs after each anti-diagonal (uniform across
    the warp); lane 0 writes the band's two edges and `nvvm.bar.warp.sync`
    makes the rows visible before the next anti-diagonal. Work
    rebalancing: a global work queue; lane 0 of a warp takes the next
    pair with an atomic add on the queue's head, in the order the host
    chose (the longest pairs first), so a warp that finishes takes the
    next pair.

    The kernel's one argument is the device address of a
    `sluice_align_gpu_args_t` (runtime/include/sluice/align_gpu.h; field
    offsets in compiler/Conversion/AlignToGPU/AlignGpuAbi.h): the base
    codes, offsets, queue order and head, scratch, results, pair count,
    scratch row length, warps launched and the scoring. The kernel's
    `sluice.align_kernel` attribute names the job, the threads per pair
    and the block size.

    Example: `seq.align @extend ...` becomes `gpu.func
    @sluice_align_extend`.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect",
                           "::mlir::NVVM::NVVMDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::gpu::GPUDialect",
                           "::mlir::scf::SCFDialect"];
}

def GnnToGPU : Pass<"gnn-to-gpu", "::mlir::ModuleOp"> {
  let summary = "Build the aggregation kernels of gnn train jobs";
  let description = [{
    Before: `model.gnn_train` jobs of `model.gnn` models (docs/gnn.md).
    After: for every job `J` of a sage or gcn model (kind `K`), two kernels
    `gpu.func @sluice_gnn_J_K_forward(%args: !llvm.ptr) kernel` and
    `@sluice_gnn_J_K_backward` in one `gpu.module @sluice_gnn` (the module
    gets `gpu.container_module`); the jobs stay (the host runs the rest of
    the training). The output is gpu/scf/arith/llvm; scf-to-cf and
    convert-gpu-to-nvvm finish it (`sluice-gnn-to-nvvm`). A job of a gat
    model is an error at the job (not supported yet).

    The kernels compute the CPU trainer's neighbour aggregation of one
    sampled block (runtime/src/gnn/Aggregate.cpp) with the same bits: the
    forward kernel runs a thread per (dst, feature) and sums the dst's
    edges in block order from the CPU's first term (SAGE: 0 for the
    neighbour half, the dst's own row copied to the self half; GCN:
    self_coef times the own row); the backward kernel runs a thread per
    (src, feature) and gathers over the block's transpose, whose terms the
    host lists in the order the CPU's scatter adds them
    (sluice_gnn_block_transpose). Multiplies and adds are separate fp32
    operations without fast-math flags, so PTX has mul.rn/add.rn, no fma.

    The kernels' one argument is the device address of a
    `sluice_gnn_gpu_forward_args_t` or `sluice_gnn_gpu_backward_args_t`
    (runtime/include/sluice/gnn_gpu.h; offsets in
    compiler/Conversion/GnnToGPU/GnnGpuAbi.h). Each kernel's
    `sluice.gnn_kernel` attribute names the job, the model, the kind, the
    direction and the block size.

    Example: `model.gnn_train @fit @sage ...` of `model.gnn @sage sage ...`
    gives `gpu.func @sluice_gnn_fit_sage_forward` and
    `@sluice_gnn_fit_sage_backward`.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::gpu::GPUDialect",
                           "::mlir::scf::SCFDialect"];
}

#endif // SLUICE_CONVERSION_PASSES
