//===- WalkRun.cpp - sluicec --run: JIT a walk and run one of its jobs ----===//
//
// The walk's kernel is JIT-compiled (HostJit; externals resolved from an
// explicit table of libsluicert's functions), its graph loaded with
// sluice_graph_load, its parameter block filled from the job and the
// walk's defaults, and the walks run by sluice_walk_run into a walk writer.
// Every failure is a located diagnostic on the job, walk or graph op.
//
//===----------------------------------------------------------------------===//
#include "compiler/Target/Walk/GraphCache.h"
#include "compiler/Target/JobLookup.h"
#include "compiler/Target/Walk/DeclaredGraph.h"
#include "compiler/Target/Walk/WalkCompile.h"
#include "compiler/Target/Walk/WalkGpu.h"

#include "compiler/Conversion/WalkToLLVM/WalkAbi.h"
#include "compiler/Target/LLVM/Codegen.h"
#include "dialects/Walk/IR/WalkOps.h"
#include "support/NumberFormat.h"

#include "sluice/graph.h"
#include "sluice/walk.h"
#include "sluice/walk_gpu.h"
#include "sluice/walk_output.h"
#include "sluice/walk_support.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/Support/DynamicLibrary.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <chrono>
#include <cstring>
#include <memory>
#include <vector>

using namespace mlir;
using namespace sluice;
using namespace sluice::target;

namespace {

std::string runtimeMessage(const sluice_error_t &error) {
  char text[2048];
  sluice_error_format(&error, text, sizeof(text));
  return text;
}

/// The functions walk-to-llvm may call, by name.
llvm::StringMap<void *> runtimeSymbols() {
  llvm::StringMap<void *> s;
#define SLUICE_SYMBOL(fn) s[#fn] = reinterpret_cast<void *>(&fn)
  SLUICE_SYMBOL(sluice_walk_random);
  SLUICE_SYMBOL(sluice_graph_degree);
  SLUICE_SYMBOL(sluice_graph_has_edge);
  SLUICE_SYMBOL(sluice_graph_vertex_label);
  SLUICE_SYMBOL(sluice_graph_num_vertices);
  SLUICE_SYMBOL(sluice_graph_num_edges);
  SLUICE_SYMBOL(sluice_graph_vertex_of);
  SLUICE_SYMBOL(sluice_graph_weight_max);
  SLUICE_SYMBOL(sluice_graph_weight_min);
  SLUICE_SYMBOL(sluice_graph_weight_sum);
  SLUICE_SYMBOL(sluice_kernel_edge_weight);
  SLUICE_SYMBOL(sluice_kernel_edge_label);
  SLUICE_SYMBOL(sluice_kernel_list_get);
  SLUICE_SYMBOL(sluice_kernel_idiv);
  SLUICE_SYMBOL(sluice_kernel_irem);
  SLUICE_SYMBOL(sluice_kernel_label_mass);
#undef SLUICE_SYMBOL
  return s;
}

/// The parameter block of one run (walk.h: one 8-byte slot per parameter)
/// and the storage its list slots point to.
struct ParamBlock {
  std::vector<int64_t> slots;
  std::vector<std::vector<int64_t>> listData;
  std::vector<sluice_walk_list_t> lists;
};

/// A value for a parameter of type `type` from `attr` (a job value or a
/// default), or failure with a message in `why`.
LogicalResult setSlot(Type type, Attribute attr, ParamBlock &block,
                      size_t slot, std::string &why) {
  if (isa<walk::ListType>(type)) {
    std::vector<int64_t> xs;
    if (auto dense = dyn_cast<DenseI64ArrayAttr>(attr)) {
      xs.assign(dense.asArrayRef().begin(), dense.asArrayRef().end());
    } else if (auto array = dyn_cast<ArrayAttr>(attr)) {
      for (Attribute a : array) {
        auto i = dyn_cast<IntegerAttr>(a);
        if (!i) {
          why = "a list element is not an integer";
          return failure();
        }
        xs.push_back(i.getInt());
      }
    } else {
      why = "expected a list of i64";
      return failure();
    }
    block.listData.push_back(std::move(xs));
    block.lists.push_back(
        {block.listData.back().data(),
         static_cast<int64_t>(block.listData.back().size())});
    const sluice_walk_list_t *p = &block.lists.back();
    std::memcpy(&block.slots[slot], &p, sizeof(p));
    return success();
  }
  if (type.isF64()) {
    double x;
    if (auto f = dyn_cast<FloatAttr>(attr))
      x = f.getValueAsDouble();
    else if (auto i = dyn_cast<IntegerAttr>(attr))
      x = static_cast<double>(i.getInt());
    else {
      why = "expected an f64";
      return failure();
    }
    std::memcpy(&block.slots[slot], &x, sizeof(x));
    return success();
  }
  if (auto b = dyn_cast<BoolAttr>(attr)) {
    block.slots[slot] = b.getValue() ? 1 : 0;
    return success();
  }
  if (auto i = dyn_cast<IntegerAttr>(attr)) {
    block.slots[slot] = type.isInteger(1) ? (i.getValue().isZero() ? 0 : 1)
                                          : i.getInt();
    return success();
  }
  why = "expected an integer";
  return failure();
}

/// Whether `region` (a setup function) reads the graph: any walk op but
/// the ones that read only parameters and lists.
bool readsGraph(Region &region) {
  return region
      .walk([](Operation *op) {
        if (!isa<walk::WalkDialect>(op->getDialect()) ||
            isa<walk::YieldOp, walk::ParamOp, walk::ListGetOp, walk::ListSizeOp,
                walk::IntDivOp, walk::IntRemOp>(op))
          return WalkResult::advance();
        return WalkResult::interrupt();
      })
      .wasInterrupted();
}

/// "1 edge", "2 edges"; "vertex" becomes "vertices".
std::string count(uint64_t n, StringRef noun) {
  std::string text = std::to_string(n) + " ";
  if (n == 1)
    return text + noun.str();
  return text + (noun == "vertex" ? std::string("vertices") : noun.str() + "s");
}

/// What the load of `g` did to the edges it read, in words (the run's
/// report and its remark).
std::string describeLoad(walk::GraphOp g,
                         const sluice_graph_load_stats_t &stats) {
  std::string text;
  if (g.getFormat() == walk::GraphFormat::Csr)
    return count(stats.input_edges, "arc") +
           " read from a binary file, as stored: " +
           count(stats.self_loops, "self loop") + ", " +
           count(stats.duplicate_edges, "duplicate edge") + ", " +
           count(stats.isolated_vertices, "vertex") + " without edges";
  bool dropLoops = g.getSelfLoops() == walk::SelfLoops::Drop;
  text = count(stats.input_edges, "edge") +
         " read: " + count(stats.self_loops, "self loop") +
         (dropLoops ? " dropped" : " kept") + ", " +
         count(stats.duplicate_edges, "duplicate edge");
  switch (g.getDuplicates()) {
  case walk::Duplicates::Merge:
    text += " merged (first copy kept, " + count(stats.merged_arcs, "arc") +
            " removed)";
    break;
  case walk::Duplicates::Sum:
    text += " summed (weights added, " + count(stats.merged_arcs, "arc") +
            " removed)";
    break;
  case walk::Duplicates::Keep:
    text += " kept as parallel arcs";
    break;
  }
  text += ", " + count(stats.isolated_vertices, "vertex") + " without edges";
  return text;
}

/// The folder of the file an op comes from ("" when unknown).
std::string folderOf(Operation *op) {
  if (auto file = dyn_cast<FileLineColLoc>(op->getLoc()))
    return llvm::sys::path::parent_path(file.getFilename().getValue()).str();
  return "";
}

} // namespace

FailureOr<WalkRunReport>
sluice::target::runWalkJob(ModuleOp module, const WalkRunOptions &options) {
  FailureOr<walk::JobOp> found = findJob<walk::JobOp>(module, options.job, "walk",
                                 "job J = walk W on M { ... }");
  if (failed(found))
    return failure();
  walk::JobOp job = *found;
  auto w = SymbolTable::lookupNearestSymbolFrom<walk::WalkOp>(
      job, job.getWalkAttr());
  if (!w)
    return job.emitError("job '")
           << job.getSymName() << "' runs '" << job.getWalk()
           << "', which is not a walk";
  auto g = SymbolTable::lookupNearestSymbolFrom<walk::GraphOp>(
      w, w.getGraphAttr());
  if (!g)
    return w.emitError("walk '")
           << w.getSymName() << "' runs on '" << w.getGraph()
           << "', which is not a graph";
  WalkRunReport report;
  report.job = job.getSymName().str();
  report.walk = w.getSymName().str();
  report.graph = g.getSymName().str();

  // The parameter block: the job's values over the walk's defaults.
  ParamBlock block;
  auto types = w.getParamTypes();
  auto names = w.getParamNames();
  auto defaults = w.getParamDefaults();
  block.slots.assign(types.size(), 0);
  block.listData.reserve(types.size());
  block.lists.reserve(types.size());
  DictionaryAttr jobParams = job.getParams();
  for (NamedAttribute p : jobParams)
    if (w.lookupParam(p.getName().getValue()) < 0)
      return job.emitError("job '")
             << job.getSymName() << "' sets '" << p.getName().getValue()
             << "', which is not a parameter of walk '" << w.getSymName()
             << "'";
  for (size_t i = 0; i < types.size(); ++i) {
    StringRef pname = cast<StringAttr>(names[i]).getValue();
    Type type = cast<TypeAttr>(types[i]).getValue();
    Attribute value = jobParams.get(pname);
    Operation *where = job;
    if (!value) {
      value = i < defaults.size() ? defaults[i] : Attribute();
      where = w;
    }
    if (!value || isa<UnitAttr>(value))
      return job.emitError("job '")
             << job.getSymName() << "' does not set parameter '" << pname
             << "' of walk '" << w.getSymName() << "', which has no default";
    std::string why;
    if (failed(setSlot(type, value, block, i, why)))
      return where->emitError("parameter '") << pname << "': " << why;
  }

  // The graph's files, before anything is compiled: a missing file is an
  // error at the path that names it.
  auto checkInput = [&](StringRef file, StringRef what) -> LogicalResult {
    llvm::sys::fs::file_status status;
    if (std::error_code ec = llvm::sys::fs::status(file, status))
      return g.emitError("cannot open ")
             << what << " '" << file << "' of graph '" << g.getSymName()
             << "': " << ec.message();
    if (status.type() == llvm::sys::fs::file_type::directory_file)
      return g.emitError("cannot open ")
             << what << " '" << file << "' of graph '" << g.getSymName()
             << "': it is a directory";
    return success();
  };
  if (failed(checkInput(g.getPath(), "the file")))
    return failure();
  if (g.getLabels() && failed(checkInput(*g.getLabels(), "the labels file")))
    return failure();
  if (g.getEdgeLabels() &&
      failed(checkInput(*g.getEdgeLabels(), "the edge labels file")))
    return failure();

  // The schedule walk-select-sampler decided: where the walk runs and how
  // the engine draws its steps.
  walk::ScheduleAttr schedule = w.getScheduleAttr();
  if (!schedule)
    return w.emitError("walk '")
           << w.getSymName()
           << "' has no schedule (walk-select-sampler has not run)";
  bool onGpu = schedule.getTarget() == walk::Target::Gpu;

  // Lower and JIT-compile.
  auto t0 = std::chrono::steady_clock::now();
  auto lowered = lowerWalksToLLVM(module);
  if (failed(lowered))
    return failure();
  llvm::StringMap<void *> symbols = runtimeSymbols();
  // libm functions (math ops without an LLVM intrinsic) from the process.
  llvm::sys::DynamicLibrary::LoadLibraryPermanently(nullptr);
  for (auto fn : (*lowered)->getOps<LLVM::LLVMFuncOp>())
    if (fn.isExternal() && !symbols.count(fn.getName()))
      if (void *address = llvm::sys::DynamicLibrary::SearchForAddressOfSymbol(
              fn.getName().str()))
        symbols[fn.getName()] = address;
  std::string error;
  auto jit = HostJit::create(**lowered, symbols, 3, error);
  if (!jit)
    return w.emitError("cannot compile walk '")
           << w.getSymName() << "': " << error;
  auto lookup = [&](const std::string &symbol) {
    std::string ignored;
    return jit->lookup(symbol, ignored);
  };
  auto *kernel = static_cast<const sluice_walk_kernel_t *>(
      jit->lookup(conversion::kernelDescriptorName(report.walk), error));
  if (!kernel)
    return w.emitError("cannot compile walk '")
           << w.getSymName() << "': " << error;
  using LengthFn = int64_t (*)(const sluice_walk_frame_t *);
  using StopFn = double (*)(const sluice_walk_frame_t *);
  using StartFn = int64_t (*)(const sluice_walk_frame_t *, int64_t *, int64_t);
  auto lengthFn = reinterpret_cast<LengthFn>(
      w.getLength().empty()
          ? nullptr
          : lookup(conversion::kernelFunctionName(report.walk, "length")));
  auto stopFn = reinterpret_cast<StopFn>(
      w.getStopProbability().empty()
          ? nullptr
          : lookup(conversion::kernelFunctionName(report.walk,
                                                  "stop_probability")));
  auto startFn = reinterpret_cast<StartFn>(
      w.getStart().empty()
          ? nullptr
          : lookup(conversion::kernelFunctionName(report.walk, "start")));
  report.compileSeconds = secondsSince(t0);

  // The frame of the setup functions; its graph is set once loaded. A
  // fault in a setup function (a bad list index in `length`, `stop
  // probability` or `start`) is reported on the walk.
  sluice_walk_frame_t frame;
  std::memset(&frame, 0, sizeof(frame));
  uint64_t draws = 0;
  sluice_walk_fault_t fault;
  std::memset(&fault, 0, sizeof(fault));
  frame.params = block.slots.data();
  frame.random_draws = &draws;
  frame.fault = &fault;
  auto faulted = [&](const char *item) -> bool {
    if (fault.code == SLUICE_WALK_FAULT_NONE)
      return false;
    char what[160];
    sluice_walk_fault_describe(&fault, what, sizeof(what));
    w.emitError("walk '") << w.getSymName() << "': " << item << ": " << what;
    return true;
  };
  std::vector<int64_t> startIds;
  auto evaluateStarts = [&]() -> LogicalResult {
    int64_t n = startFn(&frame, nullptr, 0);
    startIds.assign(std::max<int64_t>(n, 0), 0);
    startFn(&frame, startIds.data(), n);
    return failure(faulted("start"));
  };

  // Load the graph: duplicates and self loops as declared
  // (GraphLoadOptions.h).
  DeclaredGraphLoad declared(g, options.quiet);
  sluice_graph_load_options_t &load = declared.options;
  // A large text file is parsed on the walk's threads (0: every core, as
  // the engine's default).
  if (options.threads)
    load.threads = options.threads;
  else if (auto t = job.getThreads())
    load.threads = static_cast<uint32_t>(*t);
  else if (auto t = w.getThreads())
    load.threads = static_cast<uint32_t>(*t);
  // `graph` is what the walk runs on: `owned` (loaded here) or the
  // caller's options.graph.
  sluice_graph_t *owned = nullptr;
  const sluice_graph_t *graph = nullptr;
  auto releaseGraph =
      llvm::make_scope_exit([&] { sluice_graph_release(owned); });
  sluice_error_t rtError;
  std::string path =
      options.graph ? "the graph given to the run" : g.getPath().str();
  // Start vertices without edges are vertices all the same (their walks
  // have length 1): the load keeps them.
  std::vector<uint64_t> keep;
  // The statistics of the text load a cached graph was built from.
  std::optional<sluice_graph_load_stats_t> cachedStats;
  auto loadGraph = [&]() -> LogicalResult {
    load.keep_vertex_ids = keep.data();
    load.num_keep_vertex_ids = keep.size();
    auto t1 = std::chrono::steady_clock::now();
    sluice_graph_t *loaded = nullptr;
    // A text graph: its binary CSR cache when it is up to date.
    std::optional<GraphCache> cache;
    if (options.graphCache && g.getFormat() != walk::GraphFormat::Csr)
      cache.emplace(path, load);
    cachedStats.reset();
    if (cache) {
      sluice_graph_load_stats_t stats;
      if (sluice_graph_t *hit =
              cache->load(load.flags & SLUICE_GRAPH_LOAD_QUIET, stats)) {
        sluice_graph_release(owned);
        graph = owned = hit;
        frame.graph = graph;
        cachedStats = stats;
        report.graphCache = "read " + cache->path();
        report.loadSeconds += secondsSince(t1);
        return success();
      }
    }
    sluice_status_t status =
        sluice_graph_load(path.c_str(), &load, &loaded, &rtError);
    if (status != SLUICE_STATUS_OK) {
      InFlightDiagnostic diag = g.emitError("cannot load graph '")
                                << g.getSymName()
                                << "': " << runtimeMessage(rtError);
      // A binary file is walked as it was written: the declaration's
      // duplicates and self loops are requirements on it.
      if (status == SLUICE_STATUS_INVALID_ARGUMENT &&
          g.getFormat() == walk::GraphFormat::Csr)
        diag.attachNote(g.getLoc())
            << "a csr file must already be what the declaration asks for "
               "(duplicates: "
            << walk::stringifyDuplicates(g.getDuplicates())
            << ", self_loops: " << walk::stringifySelfLoops(g.getSelfLoops())
            << "); declare duplicates: keep or self_loops: keep to walk it "
               "as written";
      return diag;
    }
    sluice_graph_release(owned);
    graph = owned = loaded;
    frame.graph = graph;
    report.loadSeconds += secondsSince(t1);
    if (cache) {
      auto t2 = std::chrono::steady_clock::now();
      sluice_graph_load_stats_t stats;
      sluice_graph_load_stats(graph, &stats);
      std::string why;
      report.graphCache = cache->store(graph, stats, why)
                              ? "written " + cache->path()
                              : "not written (" + why + ")";
      report.cacheSeconds += secondsSince(t2);
    }
    return success();
  };
  // A start list that does not read the graph is known before the load;
  // one that does (num_vertices, num_edges) is computed on the loaded graph,
  // which is loaded again if it lacks some of the start vertices.
  const bool startsFirst = startFn && !readsGraph(w.getStart());
  if (startsFirst) {
    if (failed(evaluateStarts()))
      return failure();
    for (int64_t id : startIds)
      if (id >= 0)
        keep.push_back(static_cast<uint64_t>(id));
  }
  if (options.graph) {
    if (failed(checkGivenGraph(g, options.graph)))
      return failure();
    graph = options.graph;
    frame.graph = graph;
  } else if (failed(loadGraph())) {
    return failure();
  }
  if (startFn && !startsFirst) {
    if (failed(evaluateStarts()))
      return failure();
    for (int64_t id : startIds)
      if (id >= 0 &&
          sluice_graph_vertex_of(graph, uint64_t(id)) == SLUICE_VERTEX_NONE)
        keep.push_back(static_cast<uint64_t>(id));
    if (!keep.empty() && !options.graph &&
        g.getFormat() != walk::GraphFormat::Csr && failed(loadGraph()))
      return failure();
  }
  report.vertices = sluice_graph_num_vertices(graph);
  report.edges = sluice_graph_num_edges(graph);
  sluice_graph_load_stats_t loadStats;
  if (cachedStats)
    loadStats = *cachedStats;
  else
    sluice_graph_load_stats(graph, &loadStats);
  report.graphLoad = describeLoad(g, loadStats);
  if (options.remarks)
    g.emitRemark("graph '")
        << g.getSymName() << "' ('" << path << "'): " << report.graphLoad
        << "; " << count(report.vertices, "vertex") << ", "
        << count(report.edges, "arc");
  // An empty graph is a valid graph (the loader accepts it), but a walk job
  // over one is almost always a wrong or truncated file: say so.
  if (report.edges == 0)
    g.emitWarning("graph '")
        << g.getSymName() << "' ('" << path << "') has no edges"
        << (report.vertices == 0 ? " and no vertices: the job writes no walks"
                                 : ": every walk stays at its start vertex");

  // Run options from the walk's setup functions, its schedule and the job.
  sluice_walk_options_t run;
  sluice_walk_options_init(&run);
  // A walk without `length` ends only by its `stop probability` or `stop`
  // rule: --max-length is the safety cap its walks are cut at (the engine
  // and the writers need a bound on the walk length).
  if (!lengthFn && !options.maxLength)
    return w.emitError("walk '")
           << w.getSymName()
           << "' has no `length`: its walks end only by `stop probability` "
              "or `stop`; --run needs a safety cap on their length: pass "
              "--max-length N (walks that reach N vertices are cut there)";
  if (options.maxLength > UINT32_MAX)
    return w.emitError("--max-length ")
           << options.maxLength << " is above " << UINT32_MAX;
  if (lengthFn) {
    int64_t length = lengthFn(&frame);
    if (faulted("length"))
      return failure();
    if (length < 1 || length > int64_t(UINT32_MAX))
      return w.emitError("walk '")
             << w.getSymName() << "' has length " << length
             << ", expected 1 to " << UINT32_MAX;
    run.max_length = static_cast<uint32_t>(length);
    if (options.maxLength && options.maxLength < run.max_length)
      run.max_length = static_cast<uint32_t>(options.maxLength);
  } else {
    if (!stopFn && w.getStop().empty())
      return w.emitError("walk '")
             << w.getSymName()
             << "' has neither `length` nor `stop probability` nor `stop`: "
                "its walks would never end (every walk would be cut at "
                "--max-length); give it one";
    run.max_length = static_cast<uint32_t>(options.maxLength);
  }
  report.maxLength = run.max_length;
  if (stopFn) {
    double p = stopFn(&frame);
    if (faulted("stop probability"))
      return failure();
    if (!(p >= 0 && p <= 1))
      return w.emitError("walk '")
             << w.getSymName() << "' has stop probability " << formatNumber(p)
             << ", expected a value in [0, 1]";
    run.stop_probability = p;
  }
  std::vector<uint32_t> starts;
  if (startFn) {
    for (int64_t id : startIds) {
      uint32_t v = id < 0 ? SLUICE_VERTEX_NONE
                          : sluice_graph_vertex_of(graph, uint64_t(id));
      if (v == SLUICE_VERTEX_NONE)
        return w.emitError("start vertex ")
               << id << " of walk '" << w.getSymName()
               << "' is not in graph '" << g.getSymName() << "'";
      starts.push_back(v);
    }
    run.starts = starts.data();
    run.num_starts = starts.size();
  }
  if (auto wpv = job.getWalksPerVertex())
    run.walks_per_vertex = static_cast<uint32_t>(*wpv);
  if (auto seed = job.getSeed())
    run.seed = static_cast<uint64_t>(*seed);
  if (options.threads)
    run.threads = options.threads;
  else if (auto t = job.getThreads())
    run.threads = static_cast<uint32_t>(*t);
  else if (auto t = w.getThreads())
    run.threads = static_cast<uint32_t>(*t);
  if (auto wpt = w.getWalkersPerThread())
    run.walkers_per_thread = static_cast<uint32_t>(*wpt);
  switch (schedule.getMethod()) {
  case walk::StepMethod::Uniform:
    run.sampler = SLUICE_WALK_SAMPLER_UNIFORM;
    break;
  case walk::StepMethod::Alias:
    run.sampler = SLUICE_WALK_SAMPLER_ALIAS;
    break;
  case walk::StepMethod::Rejection:
    run.sampler = SLUICE_WALK_SAMPLER_REJECTION;
    break;
  case walk::StepMethod::Reservoir:
    run.sampler = SLUICE_WALK_SAMPLER_RESERVOIR;
    break;
  case walk::StepMethod::CostModel:
    run.sampler = SLUICE_WALK_SAMPLER_AUTO;
    break;
  }
  run.quiet = options.quiet ? 1 : 0;
  run.cost_ratio = options.costRatio;

  // Where the walks go.
  std::string output = options.walksOut;
  if (output.empty() && job.getOutput()) {
    output = job.getOutput()->str();
    std::string base = options.baseDir.empty() ? folderOf(job) : options.baseDir;
    if (!base.empty() && llvm::sys::path::is_relative(output)) {
      llvm::SmallString<256> full(base);
      llvm::sys::path::append(full, output);
      output = full.str().str();
    }
  }
  sluice_walk_writer_t *writer = nullptr;
  auto releaseWriter =
      llvm::make_scope_exit([&] { sluice_walk_writer_release(writer); });
  // The .npy integer type: --walks-dtype, else the job's walks_dtype, else
  // int64; it applies to .npy outputs only.
  std::optional<walk::WalksDtype> dtype;
  if (!options.walksDtype.empty())
    dtype = walk::symbolizeWalksDtype(options.walksDtype);
  else if (auto d = job.getWalksDtype())
    dtype = *d;
  const bool npyOutput = StringRef(output).ends_with(".npy");
  if (dtype && !output.empty() && !npyOutput)
    return job.emitError("walks_dtype ")
           << walk::stringifyWalksDtype(*dtype) << " of job '"
           << job.getSymName() << "' needs a .npy output; '" << output
           << "' is written as text";
  if (!output.empty()) {
    sluice_walk_format_t fmt = !npyOutput ? SLUICE_WALK_FORMAT_TEXT
                               : dtype == walk::WalksDtype::I32
                                   ? SLUICE_WALK_FORMAT_NPY_INT32
                                   : SLUICE_WALK_FORMAT_NPY_INT64;
    if (sluice_walk_writer_open(output.c_str(), fmt, run.max_length,
                                SLUICE_WALK_WRITE_ORIGINAL_IDS, graph, &writer,
                                &rtError) != SLUICE_STATUS_OK)
      return job.emitError("cannot write the walks of job '")
             << job.getSymName() << "': " << runtimeMessage(rtError);
    // Shuffled walks: the order drawn from the job's seed.
    if ((options.shuffleWalks || job.getShuffle()) &&
        sluice_walk_writer_shuffle(writer, run.seed, &rtError) !=
            SLUICE_STATUS_OK)
      return job.emitError("cannot write the walks of job '")
             << job.getSymName() << "': " << runtimeMessage(rtError);
  }

  sluice_walk_stats_t stats;
  std::memset(&stats, 0, sizeof(stats));
  sluice_status_t runStatus;
  if (onGpu) {
    // The walk-to-gpu kernel; the setup functions above ran on the CPU.
    std::string ptx, json;
    if (failed(lowerWalksToPtx(module, "sm_90", ptx, json, w.getSymName(),
                               options.libdevice)))
      return failure();
    // The kernel's kind is the schedule's method, which run.sampler
    // carries: a warp per walker for reservoir, else a thread per walker.
    // List slots point to host lists: the runtime copies them over.
    std::vector<int32_t> kinds;
    for (Attribute type : w.getParamTypes())
      kinds.push_back(isa<walk::ListType>(cast<TypeAttr>(type).getValue())
                          ? SLUICE_WALK_PARAM_LIST
                          : SLUICE_WALK_PARAM_SCALAR);
    sluice_walk_gpu_options_t gpuOptions;
    sluice_walk_gpu_options_init(&gpuOptions);
    gpuOptions.param_kinds = kinds.data();
    runStatus = sluice_walk_run_gpu_ex(
        graph, ptx.c_str(), ("sluice_walk_" + w.getSymName()).str().c_str(),
        block.slots.data(), static_cast<uint32_t>(block.slots.size()), &run,
        &gpuOptions, writer, &stats, &rtError);
  } else {
    runStatus = sluice_walk_run(graph, kernel, block.slots.data(), &run,
                                writer, &stats, &rtError);
  }
  if (runStatus != SLUICE_STATUS_OK)
    return job.emitError("job '")
           << job.getSymName() << "' failed: " << runtimeMessage(rtError);
  if (writer &&
      sluice_walk_writer_commit(writer, &rtError) != SLUICE_STATUS_OK)
    return job.emitError("cannot write the walks of job '")
           << job.getSymName() << "': " << runtimeMessage(rtError);
  report.output = output;
  report.walks = stats.walks;
  report.steps = stats.steps;
  report.seconds = stats.seconds;
  report.rejectionSteps = stats.rejection_steps;
  report.reservoirSteps = stats.reservoir_steps;
  report.aliasSteps = stats.alias_steps;
  if (run.sampler == SLUICE_WALK_SAMPLER_AUTO) {
    report.costRatio = stats.cost_ratio;
    report.calibrated = options.costRatio == 0;
  }
  return report;
}
